#!/usr/bin/env Rscript
## Golden fixture for a column mixing numbers and text (issue 42 item 4): dat.debruin2009's
## `sens` holds "<400" and "400"; R's read.csv reads such a column as text, so `~ sens` and a
## subgroup analysis by sens treat it as a factor. crates/exemplar/tests/mixed_columns.rs
## makes the calls (records as an MCP client sends them, and `exemplar call --records` on
## the CSV written here with --measure PR) and compares at 1e-8.
##
## Data: dat.debruin2009 (metadat), proportions as its help page computes them
## (escalc(measure = "PR", xi, ni)); ids "1".."13". `blank_first`: forest_plot's `by`
## with record 1's sens blank (issue 42 item 7), checked by crates/exemplar/tests/forest_labels.rs.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/mixed_columns.R \
##       crates/exemplar/tests/fixtures/mixed_columns.json \
##       crates/exemplar/tests/fixtures/debruin2009.csv
##
## Requires metafor (developed against 3.8-1) and metadat.

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: mixed_columns.R <out.json> <out.csv>")
out_path <- args[1]
csv_path <- args[2]

## The factor's levels are R's default (factor() sorts them as R's sort() does: "<400" then
## "400", the reference "<400"), as the engine's formula sorts them.
CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5)

raw <- dat.debruin2009
write.csv(raw, csv_path, row.names = FALSE)
## The CSV read back as R reads it: sens is text.
dat <- read.csv(csv_path)
stopifnot(is.character(dat$sens))
dat <- escalc(measure = "PR", xi = xi, ni = ni, data = dat)
dat$sens <- factor(dat$sens)
stopifnot(identical(levels(dat$sens), c("<400", "400")))
ids <- as.character(seq_len(nrow(dat)))

## Records as an MCP client sends them: sens as text where the CSV has text and a number
## where it has one (400), ni as text.
records_mixed <- lapply(seq_len(nrow(dat)), function(i) list(
  id = ids[i], yi = dat$yi[i], vi = dat$vi[i], ni = as.character(dat$ni[i]),
  sens = if (as.character(dat$sens[i]) == "400") 400 else as.character(dat$sens[i])))

reg <- rma(yi, vi, mods = ~ sens, data = dat, method = "REML", control = CTRL)
coefs <- lapply(seq_along(reg$beta), function(j) list(
  estimate = num1(reg$beta[j]), se = num1(reg$se[j]), statistic = num1(reg$zval[j]),
  p = num1(reg$pval[j]), ci_lower = num1(reg$ci.lb[j]), ci_upper = num1(reg$ci.ub[j])))

levels_ <- levels(dat$sens)
groups <- lapply(levels_, function(l) {
  g <- rma(yi, vi, data = dat, subset = sens == l, method = "REML", control = CTRL)
  list(level = l, k = g$k, estimate = num1(g$beta), se = num1(g$se),
       ci_lower = num1(g$ci.lb), ci_upper = num1(g$ci.ub), tau2 = num1(g$tau2),
       q = num1(g$QE))
})
est <- sapply(groups, function(g) g$estimate)
se <- sapply(groups, function(g) g$se)
between <- rma(est, sei = se, method = "FE")

## Issue 42 item 7: forest_plot's `by` with the first record's sens blank leaves that record
## out (listed in `omitted`), as subgroup_analysis does (na.omit): the groups of the rest.
blank <- dat[-1, ]
blank_groups <- lapply(levels_, function(l) {
  g <- rma(yi, vi, data = blank, subset = sens == l, method = "REML", control = CTRL)
  list(level = l, k = g$k, estimate = num1(g$beta), se = num1(g$se),
       ci_lower = num1(g$ci.lb), ci_upper = num1(g$ci.ub), tau2 = num1(g$tau2))
})
blank_fit <- rma(yi, vi, data = blank, method = "REML", control = CTRL)

write_fixture(list(
  blank_first = list(groups = blank_groups, k = blank_fit$k, estimate = num1(blank_fit$beta),
                     ci_lower = num1(blank_fit$ci.lb), ci_upper = num1(blank_fit$ci.ub)),
  records_mixed = records_mixed,
  meta_regression = list(
    k = reg$k, coefficient_names = I(c("intercept", "sens400")),
    coefficients = coefs, tau2 = num1(reg$tau2), qm = num1(reg$QM), qm_p = num1(reg$QMp),
    qe = num1(reg$QE), i2 = num1(reg$I2)),
  subgroup_analysis = list(
    groups = groups, q_between = num1(between$QE), q_between_p = num1(between$QEp),
    qm_common_tau2 = num1(reg$QM), qm_common_tau2_p = num1(reg$QMp))),
  out_path, data = metadat_source("dat.debruin2009"),
  control = list(rma = CTRL, measure = "PR"))
