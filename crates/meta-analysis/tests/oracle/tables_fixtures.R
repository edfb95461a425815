#!/usr/bin/env Rscript
## Golden fixtures for the pooled analyses of 2x2 tables: Mantel-Haenszel (OR, RR, RD) and
## Peto's odds ratio, as metafor's rma.mh() and rma.peto() compute them.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/tables_fixtures.R \
##       crates/meta-analysis/tests/fixtures/tables.json
##
## Requires metafor (developed against 3.8-1; Debian: r-cran-metafor) and metadat. Both
## functions are closed forms (no iteration), called with their defaults: add = 1/2,
## to = "only0", drop00 = TRUE for the per-table yi/vi of the heterogeneity test (escalc),
## and no correction (add[2] = 0, to[2] = "none", drop00[2] = FALSE) for the pooled
## estimate; correct = TRUE (the CMH test's continuity correction).

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
## The oracle kit beside this script: JSON writer, helpers, write_fixture() and provenance.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: tables_fixtures.R <out.json>")
out_path <- args[1]

datasets <- list()
add <- function(name, ai, bi, ci, di, notes) {
  datasets[[length(datasets) + 1]] <<- list(name = name, ai = I(ai), bi = I(bi), ci = I(ci),
                                           di = I(di), notes = notes)
}
add("bcg", dat.bcg$tpos, dat.bcg$tneg, dat.bcg$cpos, dat.bcg$cneg,
    "metadat's dat.bcg: tpos, tneg, cpos, cneg")
add("nielweise2007", dat.nielweise2007$ai, dat.nielweise2007$n1i - dat.nielweise2007$ai,
    dat.nielweise2007$ci, dat.nielweise2007$n2i - dat.nielweise2007$ci,
    "metadat's dat.nielweise2007 (ai, n1i, ci, n2i): zero cells, and study 15 has no events in either group")
add("edge", c(12, 0, 5, 0, 7, 3), c(0, 20, 15, 30, 13, 17), c(9, 4, 0, 0, 2, 6), c(3, 16, 20, 25, 18, 14),
    "constructed: a table with bi = 0, ai = 0, ci = 0, a double-zero table (ai = ci = 0) and two plain ones")
add("two", c(8, 3), c(42, 47), c(14, 9), c(36, 41), "two tables: Tarone's test on 1 df")

one_mh <- function(d, measure, level) {
  r <- suppressWarnings(rma.mh(ai = d$ai, bi = d$bi, ci = d$ci, di = d$di, measure = measure,
                               level = level))
  list(measure = measure, level = level / 100, k = r$k, k_yi = r$k.yi,
       estimate = num1(r$beta), se = num1(r$se), zval = num1(r$zval), pval = num1(r$pval),
       ci_lb = num1(r$ci.lb), ci_ub = num1(r$ci.ub),
       QE = num1(r$QE), QEp = num1(r$QEp), I2 = num1(r$I2), H2 = num1(r$H2),
       MH = num1(r$MH), MHp = num1(r$MHp), TA = num1(r$TA), TAp = num1(r$TAp),
       k_pos = num1(r$k.pos))
}
one_peto <- function(d, level) {
  r <- suppressWarnings(rma.peto(ai = d$ai, bi = d$bi, ci = d$ci, di = d$di, level = level))
  list(level = level / 100, k = r$k, k_yi = r$k.yi, k_pos = r$k.pos,
       estimate = num1(r$beta), se = num1(r$se), zval = num1(r$zval), pval = num1(r$pval),
       ci_lb = num1(r$ci.lb), ci_ub = num1(r$ci.ub),
       QE = num1(r$QE), QEp = num1(r$QEp), I2 = num1(r$I2), H2 = num1(r$H2))
}

out_ds <- list()
for (d in datasets) {
  mh <- list()
  for (m in c("OR", "RR", "RD")) for (lvl in c(95, 90)) mh[[length(mh) + 1]] <- one_mh(d, m, lvl)
  peto <- list(one_peto(d, 95), one_peto(d, 90))
  out_ds[[length(out_ds) + 1]] <- c(d, list(mh = mh, peto = peto))
}

res <- list(
  conventions = "rma.mh(ai, bi, ci, di, measure, level) and rma.peto(ai, bi, ci, di, level) with every other argument at its default",
  datasets = out_ds)

write_fixture(res, out_path,
  data = list(metadat = metadat_source(c("dat.bcg", "dat.nielweise2007")),
              constructed = "the datasets 'edge' and 'two', written in this script"),
  control = list(rma.mh = "defaults: add = 1/2, to = 'only0', drop00 = TRUE (the per-table yi/vi; none for the pooled estimate), correct = TRUE",
                 rma.peto = "defaults: add = 1/2, to = 'only0', drop00 = TRUE (the per-table yi/vi; none for the pooled estimate)"))
