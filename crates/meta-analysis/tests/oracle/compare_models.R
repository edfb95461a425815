#!/usr/bin/env Rscript
## Oracle for the engine's `compare_models` (compare models), produced with metafor. FILL IN: what metafor
## computes here. The scaffold's example: the equal-effects inverse-variance mean, its
## standard error, Wald test and 95% interval, rma(yi, vi, method = "EE").
##
## Two parts: `results`, the numbers crates/meta-analysis/tests/compare_models.rs compares with the
## engine's, and `printed`, metafor's printout of the same analyses (capture.output(print(x)),
## trailing blanks trimmed) beside the tool call that makes it: the tool's printed summary
## must hold every line metafor prints but those a case lists in `skip`, each with the reason
## (crates/exemplar/tests/printed_summaries.rs).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/compare_models.R \
##       crates/exemplar/data/dat.raudenbush1985.csv \
##       crates/meta-analysis/tests/fixtures/compare_models.json
##
## Requires the R packages metafor (developed against 3.8-1) and metadat (dat.bcg).
## Numbers are written with 17 significant digits by common.R's writer, after a `provenance`
## object naming the versions, the data and the control settings.

suppressPackageStartupMessages(library(metafor))
## The oracle kit beside this script: JSON writer, helpers, write_fixture() and provenance.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: compare_models.R <dat.raudenbush1985.csv> <out.json>")
raw <- read_oracle_csv(args[1])
out_path <- args[2]

## ---------------------------------------------------------------- controls
## FILL IN: the control an iterative estimator needs to be exact (threshold, tol, maxiter:
## see the other scripts). The example is closed form, so it passes none.
CTRL <- list()

## ---------------------------------------------------------------- datasets
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
datasets <- list(
  list(name = "raudenbush1985", ids = raw$id, yi = raw$yi, vi = raw$vi,
       notes = "dat.raudenbush1985 from the exemplar's CSV"),
  list(name = "bcg", ids = sprintf("t%02d", bcg$trial), yi = as.numeric(bcg$yi),
       vi = as.numeric(bcg$vi),
       notes = "metadat's dat.bcg, log risk ratios from escalc(measure = 'RR')"))

## ---------------------------------------------------------------- what is computed
## FILL IN: your statistic, from metafor.
fit_of <- function(d) rma(d$yi, d$vi, method = "EE", control = CTRL)
result_of <- function(d) {
  fit <- fit_of(d)
  list(data = d$name, k = fit$k, estimate = num1(fit$beta), se = num1(fit$se),
       zval = num1(fit$zval), pval = num1(fit$pval), ci_lb = num1(fit$ci.lb),
       ci_ub = num1(fit$ci.ub))
}

## ---------------------------------------------------------------- what is printed
## Wide enough that no table wraps.
options(width = 250)
## A line of metafor's printout the summary does not hold, by its start, and why.
sk <- function(prefix, reason) list(prefix = prefix, reason = reason)
## FILL IN: the tool call of each dataset, metafor's printout of the same analysis, and the
## lines the summary leaves out (none, once the printer prints the whole printout).
printed_of <- function(d) {
  records <- lapply(seq_along(d$ids), function(i) list(id = d$ids[i], yi = d$yi[i], vi = d$vi[i]))
  no_q <- "the example statistic does not compute Cochran's Q"
  list(name = d$name, tool = "compare_models", args = list(records = records),
       printed = I(sub("\\s+$", "", capture.output(print(fit_of(d))))),
       skip = list(sk("I^2 (total heterogeneity", no_q), sk("H^2 (total variability", no_q),
                   sk("Test for Heterogeneity:", no_q), sk("Q(df = ", no_q)))
}

res <- list(
  conventions = list(call = "rma(yi, vi, method = \"EE\", control = CTRL)"),
  datasets = lapply(datasets, function(d) list(
    name = d$name, ids = I(d$ids), yi = I(d$yi), vi = I(d$vi), notes = d$notes)),
  results = lapply(datasets, result_of),
  printed = lapply(datasets, printed_of))

write_fixture(res, out_path,
  data = list(csv = csv_source(args[1]), metadat = metadat_source("dat.bcg")),
  control = list(rma = "none (metafor's defaults): the equal-effects estimate is closed form"))
