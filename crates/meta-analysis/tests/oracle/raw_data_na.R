#!/usr/bin/env Rscript
## Golden fixture for raw-data rows that give no effect size (issue 31 item 2): metafor's
## escalc() gives yi = NA for a row with a missing count (or mean, SD, size), and rma()'s
## na.action = "na.omit" leaves that row out. dat.linde2005 (26 rows) has no counts in rows
## 5 and 26; row 11's n1i is made NA here, so 3 of its 26 rows give no effect size. The engine's tools (compute_effect_sizes,
## load_data, Your data) must keep the other rows with escalc's yi and vi and list the rows
## left out.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/raw_data_na.R \
##       crates/meta-analysis/tests/fixtures/raw_data_na.json
##
## Requires metafor (developed against 3.8-1) and metadat. Numbers are written with 17
## significant digits; NA as null.

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: raw_data_na.R <out.json>")
out_path <- args[1]

CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5)

case <- function(name, measure, dat, columns, blank) {
  ## `blank`: row -> the column left missing there.
  for (row in names(blank)) dat[as.integer(row), blank[[row]]] <- NA
  call <- c(list(measure = measure), lapply(columns, function(c) dat[[c]]))
  names(call) <- c("measure", columns)
  es <- do.call(escalc, call)
  ## rma() leaves out rows with NA by R's na.action option, "na.omit" by default.
  stopifnot(getOption("na.action") == "na.omit")
  fit <- suppressWarnings(rma(es$yi, es$vi, method = "REML", control = CTRL))
  list(name = name, measure = measure, columns = I(columns),
       rows = lapply(seq_len(nrow(dat)), function(i) I(as.numeric(dat[i, columns]))),
       missing = lapply(names(blank), function(r) list(row = as.integer(r), column = blank[[r]])),
       yi = vec(es$yi), vi = vec(es$vi),
       k = fit$k, k_all = fit$k.all, estimate = as.numeric(fit$b), se = fit$se, tau2 = fit$tau2)
}

cases <- list(
  case("linde2005_rr", "RR", dat.linde2005, c("ai", "n1i", "ci", "n2i"),
       list("11" = "n1i")),
  case("normand1999_smd", "SMD", dat.normand1999, c("m1i", "sd1i", "n1i", "m2i", "sd2i", "n2i"),
       list("3" = "sd2i")))

res <- list(
  conventions = "escalc(measure, <columns>) with its defaults (vtype 'LS', add = 1/2, to = 'only0'); the rows named in `missing` have NA in that column (written null); yi/vi null where escalc gives NA; k, estimate, se, tau2 from rma(yi, vi, method = 'REML') with R's default na.action 'na.omit'",
  cases = cases)

write_fixture(res, out_path,
  data = metadat_source(c("dat.linde2005", "dat.normand1999")),
  control = list(escalc = "escalc()'s defaults", rma = CTRL))
