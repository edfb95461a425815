#!/usr/bin/env Rscript
## Golden fixtures for the effect sizes (crates/meta-analysis/src/effect_sizes), made
## with metafor's escalc().
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/escalc_fixtures.R \
##       crates/meta-analysis/tests/fixtures/escalc.json
##
## Requires metafor (developed against 3.8-1; Debian: r-cran-metafor). Every case calls
## escalc() with its defaults (vtype "LS", add = 1/2, to = "only0", drop00 = FALSE) unless
## the case names add and to. A row escalc leaves NA (yi or vi) is written as null: the
## engine must refuse it, naming a column. Numbers have 17 significant digits (common.R's
## writer), after a `provenance` object naming the versions, data and settings.

suppressPackageStartupMessages(library(metafor))
## The oracle kit beside this script: JSON writer, helpers, write_fixture() and provenance.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: escalc_fixtures.R <out.json>")
out_path <- args[1]

cases <- list()
case <- function(name, measure, data, add = NULL, to = NULL) {
  call <- c(list(measure = measure, data = data), data)
  call$data <- NULL
  if (!is.null(add)) call$add <- add
  if (!is.null(to)) call$to <- to
  es <- suppressWarnings(do.call(escalc, call))
  cases[[length(cases) + 1]] <<- list(
    name = name, measure = measure,
    add = if (is.null(add)) NA else add, to = if (is.null(to)) NA else to,
    columns = I(names(data)),
    rows = lapply(seq_len(nrow(data)), function(i) I(as.numeric(data[i, ]))),
    yi = I(as.numeric(es$yi)), vi = I(as.numeric(es$vi)))
}

## ------------------------------------------------------------ means and SDs
means <- data.frame(
  m1i  = c(10.2, 3.1, 5.0, 100.0, 0.8, 7.5, 2.2, 50.0, 12.0),
  sd1i = c(2.1, 1.0, 0.0, 15.0, 0.3, 2.0, 1.1, 9.0, 4.0),
  n1i  = c(20, 2, 3, 500, 1, 2, 4, 1000, 12),
  m2i  = c(9.1, 3.9, 4.2, 98.0, 0.5, 7.5, 2.9, 47.5, 14.5),
  sd2i = c(2.4, 1.5, 1.2, 14.0, 0.4, 2.5, 1.0, 10.0, 3.5),
  n2i  = c(22, 2, 4, 480, 3, 1, 1, 1200, 15))
case("md", "MD", means)
case("smd", "SMD", means)
case("rom", "ROM", means)
## Hedges' g with too few people in all (n1i + n2i - 2 <= 1): NA.
case("smd_too_small", "SMD", data.frame(m1i = c(1, 1), sd1i = c(1, 1), n1i = c(1, 2),
                                        m2i = c(0, 0), sd2i = c(1, 1), n2i = c(2, 1)))

## ------------------------------------------------------------ 2x2 tables
tables <- data.frame(
  ai = c(12, 0, 0, 5, 10, 1, 3, 250, 0, 7),
  bi = c(88, 20, 15, 0, 0, 1, 9, 750, 1, 0),
  ci = c(20, 4, 0, 3, 10, 1, 0, 300, 0, 0),
  di = c(80, 16, 15, 7, 0, 1, 12, 700, 1, 5))
for (m in c("OR", "RR", "RD")) {
  low <- tolower(m)
  case(low, m, tables)
  case(paste0(low, "_add1_all"), m, tables, add = 1, to = "all")
  case(paste0(low, "_if0all"), m, tables, to = "if0all")
  case(paste0(low, "_if0all_no_zero"), m, tables[c(1, 8), ], to = "if0all")
  case(paste0(low, "_none"), m, tables, to = "none")
  case(paste0(low, "_add0"), m, tables, add = 0)
  ## The same tables given as ai, n1i, ci, n2i.
  case(paste0(low, "_sizes"), m, data.frame(ai = tables$ai, n1i = tables$ai + tables$bi,
                                            ci = tables$ci, n2i = tables$ci + tables$di))
}

## ------------------------------------------------------------ correlations
cors <- data.frame(
  ri = c(0.3, -0.45, 0, 0.999999, -0.9999999, 0.5, 0.12, 0.99),
  ni = c(50, 20, 10, 100, 30, 4, 5000, 3))
case("cor", "COR", cors)
case("zcor", "ZCOR", cors)

## ------------------------------------------------------------ proportions
props <- data.frame(
  xi = c(12, 0, 10, 1, 0, 3, 499, 1),
  ni = c(40, 25, 10, 1, 1, 7, 1000, 2))
for (m in c("PR", "PLO")) {
  low <- tolower(m)
  case(low, m, props)
  case(paste0(low, "_add1_all"), m, props, add = 1, to = "all")
  case(paste0(low, "_if0all"), m, props, to = "if0all")
  case(paste0(low, "_none"), m, props, to = "none")
}

res <- list(
  conventions = "escalc(measure, <columns>, data, [add], [to]); vtype 'LS'; add = null, to = null mean escalc's defaults (1/2, 'only0'); yi/vi null where escalc gives NA",
  cases = cases)

write_fixture(res, out_path,
  data = list(constructed = "the counts, means and SDs written in this script"),
  control = list(escalc = "escalc()'s defaults (vtype 'LS', add = 1/2, to = 'only0', drop00 = FALSE), except a case's own add and to (non-null in the case)"))
