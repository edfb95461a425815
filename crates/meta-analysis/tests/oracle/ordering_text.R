#!/usr/bin/env Rscript
## Golden fixture for orderings by a column of numbers sent as text (issue 42 item 2): a
## client that reads a CSV hands an MCP call `ni` as "60", "34", ...; `order_by` and `order`
## must sort such a column by value, as R sorts the numeric column read.csv makes of it, and
## a column with text that reads as no number ("<20") as text, as R's order() sorts a
## character column (in the C locale: by bytes). crates/exemplar/tests/ordering_text.rs
## makes each call and compares.
##
## Data: dat.bangertdrowns2004 (metadat; yi, vi as shipped), ids "s01".."s48", with `ni`
## given as text and `ni_mixed`, ni as text with the first study's written "<60".
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/ordering_text.R \
##       crates/exemplar/tests/fixtures/ordering_text.json
##
## Requires metafor (developed against 3.8-1) and metadat.

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: ordering_text.R <out.json>")
out_path <- args[1]

## Text is ordered by bytes, as the engine orders it (METHODS.md "Your data").
invisible(Sys.setlocale("LC_COLLATE", "C"))
CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5)
BOUNDARY <- 1e-9

dat <- dat.bangertdrowns2004
dat$id <- sprintf("s%02d", dat$id)
dat$ni_text <- as.character(dat$ni)
dat$ni_mixed <- dat$ni_text
dat$ni_mixed[1] <- paste0("<", dat$ni[1])

## The records a client sends: ni as text, as a CSV reader hands it.
records <- lapply(seq_len(nrow(dat)), function(i) list(
  id = dat$id[i], yi = dat$yi[i], vi = dat$vi[i], ni = dat$ni_text[i], ni_mixed = dat$ni_mixed[i]))

res <- rma(yi, vi, data = dat, slab = id, method = "REML", control = CTRL)

## cumul() of the REML fit in the order of `by` (R's order(): stable, ties in record order,
## also decreasing); a step whose tau2 stops a hair above 0 is the boundary 0 (its other
## numbers are those at 0 to far below 1e-9, as smallstudy_fixtures.R finds).
cumulative <- function(name, tool, call_args, by, decreasing) {
  cm <- cumul(res, order = by, decreasing = decreasing)
  tau2 <- cm$tau2
  tau2[tau2 > 0 & tau2 < BOUNDARY] <- 0
  list(name = name, tool = tool, args = c(call_args, list(records = records)),
       expect = list(order = I(unname(as.character(cm$slab))), estimate = vec(cm$estimate),
                     se = vec(cm$se), ci_lower = vec(cm$ci.lb), ci_upper = vec(cm$ci.ub),
                     tau2 = vec(tau2), q = vec(cm$Q), i2 = vec(cm$I2)))
}
## forest(res, order = by): the rows top to bottom are the records in order(by).
forest_rows <- function(name, call_args, by)
  list(name = name, tool = "forest_plot", args = c(call_args, list(records = records)),
       expect = list(order = I(dat$id[order(by)])))

cases <- list(
  cumulative("cumulative_ni_descending", "cumulative_meta_analysis",
             list(order_by = "ni", descending = TRUE), dat$ni, TRUE),
  cumulative("cumulative_ni_ascending", "cumulative_meta_analysis",
             list(order_by = "ni"), dat$ni, FALSE),
  cumulative("cumulative_forest_ni_descending", "cumulative_forest_plot",
             list(order_by = "ni", descending = TRUE), dat$ni, TRUE),
  cumulative("cumulative_ni_mixed_text", "cumulative_meta_analysis",
             list(order_by = "ni_mixed"), dat$ni_mixed, FALSE),
  forest_rows("forest_ni", list(order = "ni"), dat$ni),
  forest_rows("forest_ni_mixed_text", list(order = "ni_mixed"), dat$ni_mixed))

write_fixture(list(cases = cases), out_path, data = metadat_source("dat.bangertdrowns2004"),
              control = list(rma = CTRL, collate = "C",
                             tau2_boundary = paste("a cumulative tau2 below", BOUNDARY, "is 0")))
