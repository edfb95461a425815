#!/usr/bin/env Rscript
## Golden fixture for the printed summaries (issue 32 item 1): each case is a tool call as a
## client sends it and metafor's printout of the same analysis, captured line by line with
## capture.output(print(x)). crates/exemplar/tests/printed_summaries.rs makes each call, writes
## its summary with exemplar::summary::summary and requires every line metafor prints (trailing
## blanks trimmed) to appear in it verbatim, but the lines a case lists in `skip` (each with the
## reason: what the tool's result does not carry). `tokens` cases (predict() of a back-transform)
## compare the printed numbers of metafor's row with a row of the summary, token by token.
##
## Data: dat.raudenbush1985 (the frozen CSV), dat.bcg (metadat: risk ratios by escalc, and its
## 2x2 tables), and eight constructed records in five studies for the three-level model.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/printed_summaries.R \
##       crates/exemplar/data/dat.raudenbush1985.csv \
##       crates/exemplar/tests/fixtures/printed_summaries.json
##
## Requires metafor (developed against 3.8-1) and metadat. REML fits use a tight threshold (as
## every oracle here): metafor's default stops at |change in tau^2| <= 1e-5, which moves I^2's
## second decimal on dat.raudenbush1985 (41.86% against the exact root's 41.85%).

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: printed_summaries.R <dat.raudenbush1985.csv> <out.json>")
csv_path <- args[1]
out_path <- args[2]

## Wide enough that no table wraps; plain ASCII quotes are not used by the legend, which is
## printed in UTF-8 as R does in a UTF-8 locale.
options(width = 250)
CTRL <- list(threshold = 1e-12, maxiter = 10000)

rb <- read_oracle_csv(csv_path)
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
bcg$id <- sprintf("t%02d", bcg$trial)
bcg_records <- lapply(seq_len(nrow(bcg)), function(i) list(id = bcg$id[i], yi = bcg$yi[i], vi = bcg$vi[i]))
bcg_tables <- lapply(seq_len(nrow(dat.bcg)), function(i) list(
  ai = dat.bcg$tpos[i], bi = dat.bcg$tneg[i], ci = dat.bcg$cpos[i], di = dat.bcg$cneg[i]))

ml <- data.frame(id = c("a1", "a2", "b1", "b2", "c1", "c2", "d1", "e1"),
                 yi = c(0.1, 0.3, 0.5, 0.4, 0.0, 0.25, -0.1, 0.35),
                 vi = c(0.02, 0.03, 0.05, 0.04, 0.02, 0.03, 0.02, 0.04),
                 study = c("a", "a", "b", "b", "c", "c", "d", "e"),
                 x = c(1, 2, 3, 2.5, 1, 1.5, 0, 3.5), stringsAsFactors = FALSE)
ml_records <- lapply(seq_len(nrow(ml)), function(i) as.list(ml[i, ]))

printed <- function(x) I(sub("\\s+$", "", capture.output(print(x))))
## A line of metafor's printout the summary does not hold, by its start, and why.
sk <- function(prefix, reason) list(prefix = prefix, reason = reason)
case <- function(name, tool, call_args, x, skip = list(), tokens = FALSE)
  list(name = name, tool = tool, args = call_args, printed = printed(x), skip = skip,
       tokens = tokens)

fit <- rma(yi, vi, data = rb, control = CTRL)
rb_slab <- rma(yi, vi, data = rb, slab = id, control = CTRL)
re_bcg <- rma(yi, vi, data = bcg, control = CTRL)
nolimit <- list(sk("Limit Estimate", "egger_test returns the test, not the limit estimate"))
optimum <- "metafor's numerical optimum and Hessian differ from the engine's in the 4th decimal"

cases <- list(
  case("re_reml", "fit_random_effects", setNames(list(), character(0)), fit),
  case("ee", "fit_random_effects", list(method = "EE"), rma(yi, vi, data = rb, method = "EE")),
  case("dl_knha", "fit_random_effects", list(method = "DL", test = "knha"),
       rma(yi, vi, data = rb, method = "DL", test = "knha")),
  case("refit_s04", "refit_excluding", list(exclude = I("s04")),
       rma(yi, vi, data = rb, subset = id != "s04", control = CTRL)),
  case("metareg_factor", "meta_regression", list(mods = "~ weeks + factor(tester)"),
       rma(yi, vi, mods = ~ weeks + factor(tester), data = rb, control = CTRL)),
  case("metareg_knha", "meta_regression", list(mods = I(c("weeks", "tester")), test = "knha"),
       rma(yi, vi, mods = ~ weeks + tester, data = rb, test = "knha", control = CTRL)),
  case("rr_bcg", "fit_random_effects", list(records = bcg_records, measure = "RR"), re_bcg),
  case("rr_bcg_natural", "fit_random_effects", list(records = bcg_records, measure = "RR"),
       predict(re_bcg, transf = exp), tokens = TRUE),
  case("mh_rr", "mantel_haenszel", list(data = bcg_tables, measure = "RR"),
       rma.mh(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)),
  case("mh_or", "mantel_haenszel", list(data = bcg_tables, measure = "OR"),
       rma.mh(measure = "OR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)),
  case("peto", "peto_odds_ratio", list(data = bcg_tables),
       rma.peto(ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)),
  case("regtest_lm", "egger_test", list(variant = "classic"), regtest(fit, model = "lm"),
       skip = nolimit),
  case("regtest_rma", "egger_test", list(variant = "rma"), regtest(fit), skip = nolimit),
  case("ranktest", "rank_correlation_test", setNames(list(), character(0)),
       suppressWarnings(ranktest(fit))),
  case("fsn_rosenthal", "fail_safe_n", list(type = "Rosenthal"), fsn(yi, vi, data = rb)),
  case("fsn_orwin", "fail_safe_n", list(type = "Orwin"), fsn(yi, vi, data = rb, type = "Orwin")),
  case("fsn_rosenberg", "fail_safe_n", list(type = "Rosenberg"),
       fsn(yi, vi, data = rb, type = "Rosenberg")),
  case("confint", "heterogeneity", setNames(list(), character(0)), confint(fit, control = list(tol = 1e-12))),
  case("trimfill", "trim_and_fill", setNames(list(), character(0)), trimfill(fit, control = CTRL),
       skip = list(sk("Random-Effects Model", "the result names no estimator"),
                   sk("tau^2 (estimated", "the result carries no SE of tau^2"),
                   sk("tau (square root", "the result carries no tau"),
                   sk("I^2", "the result carries no I^2"),
                   sk("H^2", "the result carries no H^2"),
                   sk("Test for Heterogeneity", "the result carries no Q"),
                   sk("Q(df", "the result carries no Q"))),
  case("selmodel", "selection_model", setNames(list(), character(0)),
       selmodel(rma(yi, vi, data = rb, method = "ML", control = CTRL), type = "stepfun",
                steps = c(0.025, 0.5)),
       skip = list(sk("tau^2 (estimated", "metafor's ML tau^2 stops just above 0 (SE printed); the engine's is the boundary 0"),
                   sk("tau (square root", "as tau^2"),
                   sk("Test for Heterogeneity", "the result carries no LRT for tau^2"),
                   sk("LRT(df = 1)", "the result carries no LRT for tau^2"),
                   sk("LRT(df = 2)", optimum),
                   sk("0.025 < p <= 0.5", optimum),
                   sk("0.5   < p <= 1", optimum))),
  case("multilevel", "fit_multilevel", list(records = ml_records),
       rma.mv(yi, vi, random = ~ 1 | study/id, data = ml,
              control = list(optimizer = "optim", optmethod = "BFGS", reltol = 1e-14)),
       skip = list(sk("sigma^2.2", "metafor's optimizer stops just above 0 (sqrt 0.0002); the engine's is the boundary 0"))),
  case("leave1out", "leave_one_out", setNames(list(), character(0)), leave1out(rb_slab)),
  case("influence", "influence_diagnostics", setNames(list(), character(0)), influence(rb_slab)))

write_fixture(list(cases = cases), out_path,
              data = list(csv_source(csv_path), metadat_source("dat.bcg"),
                          list(note = "eight constructed records in five studies (the multilevel case)")),
              control = CTRL)
