#!/usr/bin/env Rscript
## Golden fixture for the tools on a researcher's own data (issue 31): model formulas, btt,
## subset, method "FE"/"EE", missing values (na.omit), numbers given as text and study labels
## from any column, each as a tool call (its arguments as a client sends them) and the values
## metafor gives for the same analysis. crates/exemplar/tests/your_data_tools.rs makes each
## call and compares.
##
## Data: dat.bcg (metadat; risk ratios by escalc), with three columns added: `ablat_text`
## (ablat written as text, as a CSV row gives it), `dose` (ablat / 10 with two values left
## blank, for na.omit) and `author` (the study's author, for slab).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/your_data_tools.R \
##       crates/exemplar/tests/fixtures/your_data_tools.json
##
## Requires metafor (developed against 3.8-1) and metadat. Numbers are written with 17
## significant digits.

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: your_data_tools.R <out.json>")
out_path <- args[1]

CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5)

dat <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
dat$id <- sprintf("t%02d", dat$trial)
dat$dose <- dat$ablat / 10
dat$dose[c(4, 9)] <- NA
dat$author <- sub(" .*", "", dat$author)
dat$ablat_text <- dat$ablat

## The records a client sends: numbers as JSON numbers, ablat also as text, dose blank ("")
## where it is NA.
records <- lapply(seq_len(nrow(dat)), function(i) list(
  id = dat$id[i], yi = dat$yi[i], vi = dat$vi[i], ablat = dat$ablat[i],
  ablat_text = sprintf(" %d ", dat$ablat[i]), year = dat$year[i], alloc = dat$alloc[i],
  dose = if (is.na(dat$dose[i])) "" else dat$dose[i], author = dat$author[i]))

coefs <- function(fit) lapply(seq_along(fit$beta), function(j) list(
  name = rownames(fit$beta)[j], estimate = fit$beta[j], se = fit$se[j], statistic = fit$zval[j],
  p = fit$pval[j], ci_lower = fit$ci.lb[j], ci_upper = fit$ci.ub[j]))

## A meta_regression call and metafor's rma() of the same model.
metareg <- function(name, call_args, fit) {
  list(name = name, tool = "meta_regression", args = c(call_args, list(records = records)),
       expect = list(k = fit$k, tau2 = fit$tau2, qm = fit$QM, qm_df = fit$QMdf[1],
                     qm_p = fit$QMp, qe = fit$QE, qe_df = fit$k - fit$p, btt = I(fit$btt),
                     coefficients = coefs(fit)))
}
## A fit_random_effects call and metafor's intercept-only rma().
fit1 <- function(name, call_args, fit) {
  list(name = name, tool = "fit_random_effects", args = c(call_args, list(records = records)),
       expect = list(k = fit$k, estimate = as.numeric(fit$beta), se = fit$se,
                     ci_lower = fit$ci.lb, ci_upper = fit$ci.ub, tau2 = fit$tau2,
                     q = fit$QE))
}

rma_ <- function(...) rma(yi, vi, data = dat, method = "REML", control = CTRL, ...)

cases <- list(
  metareg("formula_factor", list(mods = "~ ablat + factor(alloc)"),
          rma_(mods = ~ ablat + factor(alloc))),
  metareg("list_of_terms", list(mods = I(c("ablat", "alloc"))),
          rma_(mods = ~ ablat + alloc)),
  metareg("numeric_text", list(mods = "~ ablat_text"),
          rma_(mods = ~ ablat_text)),
  metareg("interaction_btt_positions", list(mods = "~ ablat * year", btt = I(c(3, 4))),
          rma_(mods = ~ ablat * year, btt = 3:4)),
  metareg("btt_name", list(mods = "~ ablat + alloc", btt = "alloc"),
          rma_(mods = ~ ablat + alloc, btt = "alloc")),
  metareg("no_intercept", list(mods = "~ factor(alloc) - 1"),
          rma_(mods = ~ factor(alloc) - 1)),
  metareg("power_term", list(mods = "~ ablat + I(ablat^2)", test = "knha"),
          rma_(mods = ~ ablat + I(ablat^2), test = "knha")),
  metareg("na_omit", list(mods = "~ dose"),
          suppressWarnings(rma_(mods = ~ dose))),
  metareg("subset_in", list(mods = "~ ablat", subset = list(column = "alloc", `in` = I(c("random", "alternate")))),
          rma(yi, vi, data = dat, method = "REML", control = CTRL, mods = ~ ablat, subset = alloc %in% c("random", "alternate"))),
  metareg("method_fe", list(mods = "~ ablat", method = "FE"),
          rma(yi, vi, data = dat, mods = ~ ablat, method = "FE")),
  fit1("subset_equals", list(subset = list(column = "alloc", equals = "random")),
       rma(yi, vi, data = dat, method = "REML", control = CTRL, subset = alloc == "random")),
  fit1("subset_equals_number", list(subset = list(column = "year", `in` = I(c(1948, 1949, 1950)))),
       rma(yi, vi, data = dat, method = "REML", control = CTRL, subset = year %in% c(1948, 1949, 1950))),
  fit1("method_ee", list(method = "EE"),
       rma(yi, vi, data = dat, method = "EE")))

## The omitted records of the na.omit case: metafor's not.na.
nas <- which(is.na(dat$dose))
cases[[8]]$expect$omitted <- lapply(nas, function(i) list(id = dat$id[i], reason = "dose is blank"))

write_fixture(list(cases = cases), out_path,
              data = metadat_source("dat.bcg"), control = CTRL)
