#!/usr/bin/env Rscript
## Golden fixture for issue 42 items 1 and 6: raw data whose ids repeat, and escalc's rows
## with vi = 0. crates/exemplar/tests/repeated_ids.rs makes each call and compares.
##
## Item 1. dat.yusuf1985 (metadat; 130 rows, `id` text as shipped) restarts its ids in each
## outcome table, so 25 ids ("2.1", ...) repeat. R has no key: escalc keeps every row and
## rma(..., subset = table == t) fits every table's rows. The tools keep every row too (the
## n-th row with an id renamed id#n); the fixture holds escalc's yi, vi per row (NA where
## escalc gives NA) and, per table, the REML fit on that table's rows.
##
## Item 6. Rows for which escalc returns vi = 0 (PR with to = "none" at 0 and 1 events, MD
## with SDs of 0, COR with r = 1, ARAW with alpha = 1): escalc's yi and vi per row, and
## whether rma with EE and with REML fits those records (the tools refuse any fit on them,
## naming the row; METHODS.md "Your data" says so).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/repeated_ids.R \
##       crates/exemplar/tests/fixtures/repeated_ids.json
##
## Requires metafor (developed against 3.8-1) and metadat.

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: repeated_ids.R <out.json>")
out_path <- args[1]

CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5)

## ---------------------------------------------------------------- item 1
dat <- dat.yusuf1985
stopifnot(is.character(dat$id), nrow(dat) == 130)
rows <- lapply(seq_len(nrow(dat)), function(i) list(
  table = dat$table[i], id = dat$id[i], trial = dat$trial[i],
  ai = nn(dat$ai[i]), n1i = nn(dat$n1i[i]), ci = nn(dat$ci[i]), n2i = nn(dat$n2i[i])))
es <- escalc(measure = "OR", ai = ai, n1i = n1i, ci = ci, n2i = n2i, data = dat)
## The tools' rule: the n-th row with an id (n >= 2) is id#n (no renamed id is one given here).
nth <- ave(seq_along(dat$id), dat$id, FUN = seq_along)
unique_id <- ifelse(nth == 1, dat$id, paste0(dat$id, "#", nth))
stopifnot(!any(duplicated(unique_id)), !any(unique_id[nth > 1] %in% dat$id))

tables <- lapply(sort(unique(dat$table)), function(t) {
  res <- suppressWarnings(rma(yi, vi, data = es, subset = table == t, method = "REML", control = CTRL))
  list(table = t, k = res$k, estimate = nn(res$b), se = nn(res$se), ci_lower = nn(res$ci.lb),
       ci_upper = nn(res$ci.ub), tau2 = nn(res$tau2), q = nn(res$QE),
       ids = I(unique_id[dat$table == t & !is.na(es$yi)]))
})
yusuf <- list(data = rows, ids = I(unique_id), yi = vec(es$yi), vi = vec(es$vi),
              repeated = sum(nth == 2), tables = tables)

## ---------------------------------------------------------------- item 6
edge <- function(name, measure, columns, escalc_args, ids) {
  e <- do.call(escalc, c(list(measure = measure), columns, escalc_args))
  fits <- function(method) {
    r <- tryCatch(suppressWarnings(rma(e$yi, e$vi, method = method)), error = function(err) NULL)
    !is.null(r)
  }
  data <- lapply(seq_along(ids), function(i)
    c(list(id = ids[i]), lapply(columns, function(col) col[i])))
  list(name = name, measure = measure, args = c(list(measure = measure, data = data), escalc_args),
       yi = vec(e$yi), vi = vec(e$vi), zero_vi = I(ids[!is.na(e$vi) & e$vi == 0]),
       rma_ee_fits = fits("EE"), rma_reml_fits = fits("REML"))
}
edges <- list(
  edge("proportions_0_and_1", "PR", list(xi = c(0, 5, 10, 3), ni = c(10, 10, 10, 12)),
       list(to = "none"), c("none", "half", "all", "some")),
  edge("sd_of_0", "MD", list(m1i = c(1, 2, 3), sd1i = c(0, 1, 1.5), n1i = c(10, 10, 12),
                            m2i = c(0, 1, 2), sd2i = c(0, 1, 1.2), n2i = c(10, 10, 11)),
       list(), c("flat", "b", "c")),
  edge("correlation_of_1", "COR", list(ri = c(1, 0.5, 0.3), ni = c(20, 20, 30)),
       list(), c("perfect", "b", "c")),
  edge("alpha_of_1", "ARAW", list(ai = c(1, 0.8, 0.7), mi = c(5, 5, 6), ni = c(30, 40, 50)),
       list(), c("perfect", "b", "c")))

write_fixture(list(yusuf1985 = yusuf, edges = edges), out_path,
              data = metadat_source("dat.yusuf1985"),
              control = list(rma = CTRL, id_rule = "the n-th row with an id (n >= 2) is id#n"))
