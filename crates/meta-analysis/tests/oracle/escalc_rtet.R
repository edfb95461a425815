#!/usr/bin/env Rscript
## Golden fixtures for escalc's RTET (the tetrachoric correlation of a 2x2 table), made with
## metafor 3.8-1's escalc(), under its default (add = 0) and other settings (add, to, drop00),
## on tables with zero cells, small n, balanced and extreme margins and correlations near 1.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/escalc_rtet.R \
##       crates/meta-analysis/tests/fixtures/escalc_rtet.json
##
## escalc's .rtet() maximizes the bivariate-normal likelihood numerically: optimize() over rho
## with the cuts fixed at their marginal values (tol = .Machine$double.eps^0.25), then optim()'s
## Nelder-Mead over (rho, cuts) (reltol = 1e-8) and the inverse of optim's finite-difference
## Hessian (ndeps = 1e-3) for vi; it sets yi to +-1 when a cell is 0. So its values carry
## those tolerances: the engine computes the exact maximum (tests/escalc_rtet.rs states the
## agreement asserted; escalc_exact.py checks the exact values at 1e-12).
## A row escalc leaves NA (yi or vi) is written as null.

suppressPackageStartupMessages(library(metafor))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: escalc_rtet.R <out.json>")
out_path <- args[1]

cases <- list()
case <- function(name, data, add = NULL, to = NULL, drop00 = NULL) {
  call <- c(list(measure = "RTET"), as.list(data))
  if (!is.null(add)) call$add <- add
  if (!is.null(to)) call$to <- to
  if (!is.null(drop00)) call$drop00 <- drop00
  es <- suppressWarnings(do.call(escalc, call))
  vi <- as.numeric(es$vi)
  vi[!is.finite(vi)] <- NA
  cases[[length(cases) + 1]] <<- list(
    name = name, measure = "RTET",
    add = if (is.null(add)) NA else add, to = if (is.null(to)) NA else to,
    drop00 = if (is.null(drop00)) NA else drop00, vtype = NA,
    columns = I(names(data)),
    rows = lapply(seq_len(nrow(data)), function(i) I(as.numeric(data[i, ]))),
    yi = I(as.numeric(es$yi)), vi = I(vi))
}

tables <- data.frame(
  ai = c(12, 0, 0, 5, 10, 1, 3, 250, 0, 7, 2, 40, 30, 20, 5, 45, 100, 1, 3),
  bi = c(88, 20, 15, 0, 0, 1, 9, 750, 1, 0, 30, 3, 10, 5, 95, 5, 1, 2, 1),
  ci = c(20, 4, 0, 3, 10, 1, 0, 300, 0, 0, 9, 35, 10, 5, 3, 5, 1, 2, 2),
  di = c(80, 16, 15, 7, 0, 1, 12, 700, 1, 5, 21, 8, 30, 20, 97, 45, 100, 1, 4))
case("rtet", tables)
case("rtet_add_only0", tables, add = 1/2)
case("rtet_add1_all", tables, add = 1, to = "all")
case("rtet_if0all", tables, add = 1/2, to = "if0all")
case("rtet_drop00", tables, add = 1/2, drop00 = TRUE)
case("rtet_sizes", data.frame(ai = tables$ai, n1i = tables$ai + tables$bi,
                              ci = tables$ci, n2i = tables$ci + tables$di), add = 1/2)

res <- list(
  conventions = "escalc('RTET', <columns>, [add], [to], [drop00]); null settings are escalc's defaults (add = 0, to = 'only0', drop00 = FALSE); yi/vi null where escalc gives NA or an infinite vi",
  cases = cases)

write_fixture(res, out_path,
  data = list(constructed = "the 2x2 tables written in this script"),
  control = list(escalc = "escalc()'s defaults except a case's own settings; .rtet(maxcor = 0.9999): optimize() tol = .Machine$double.eps^0.25, optim() Nelder-Mead reltol = 1e-8, Hessian ndeps = 1e-3"))
