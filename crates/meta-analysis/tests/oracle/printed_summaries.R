#!/usr/bin/env Rscript
## Golden fixture for the printed summaries (issue 32 item 1): each case is a tool call as a
## client sends it and metafor's printout of the same analysis, captured line by line with
## capture.output(print(x)). crates/exemplar/tests/printed_summaries.rs makes each call, writes
## its summary with exemplar::tools::summary and requires every line metafor prints (trailing
## blanks trimmed) to appear in it verbatim, but the lines a case lists in `skip` (each with the
## reason: what the tool's result does not carry). `tokens` cases (predict() of a back-transform)
## compare the printed numbers of metafor's row with a row of the summary, token by token.
## A case may hold several printouts, or sections of one (printed_all, section): a subgroup
## analysis is one rma() per level and two tests, PET-PEESE two meta-regressions.
##
## Data: dat.raudenbush1985 (the frozen CSV), dat.bcg (metadat: risk ratios by escalc, and its
## 2x2 tables), and eight constructed records in five studies for the three-level model.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/printed_summaries.R \
##       crates/exemplar/data/dat.raudenbush1985.csv \
##       crates/exemplar/tests/fixtures/printed_summaries.json
##
## Requires metafor (developed against 3.8-1), metadat and clubSandwich (0.5.8, for robust()'s
## CR2 with Satterthwaite df; Debian: r-cran-clubsandwich). REML fits use a tight threshold (as
## every oracle here): metafor's default stops at |change in tau^2| <= 1e-5, which moves I^2's
## second decimal on dat.raudenbush1985 (41.86% against the exact root's 41.85%).

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
  library(clubSandwich)
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
## General rma.mv models (issue 44): dat.berkey1998 with its V blocks in v1i/v2i, and
## dat.konstantopoulos2011's three levels written as random = ~ 1 | district/school.
b98 <- dat.berkey1998
b98_records <- lapply(seq_len(nrow(b98)), function(i)
  list(id = paste0("t", b98$trial[i], b98$outcome[i]), yi = b98$yi[i], vi = b98$vi[i], trial = b98$trial[i],
       outcome = b98$outcome[i], v1i = b98$v1i[i], v2i = b98$v2i[i]))
b98_V <- bldiag(lapply(split(b98[, c("v1i", "v2i")], b98$trial), as.matrix))
b98_args <- function(struct) list(records = b98_records, random = "~ outcome | trial", struct = struct,
                                  V = list(cluster = "trial", columns = I(c("v1i", "v2i"))), mods = "~ outcome - 1")
b98_fit <- function(struct) rma.mv(yi, b98_V, mods = ~ outcome - 1, random = ~ outcome | trial, struct = struct, data = b98)
k11 <- dat.konstantopoulos2011
## A school-level, a district-level and a mixed moderator, for dfs = "contain".
k11$slev <- k11$school %% 2
k11$dlev <- (ave(k11$year, k11$district, FUN = function(x) x[1]) - 1985) / 10
k11$yr <- (k11$year - 1985) / 10
k11_records <- lapply(seq_len(nrow(k11)), function(i)
  list(id = paste0("d", k11$district[i], "s", k11$school[i]), yi = k11$yi[i], vi = k11$vi[i],
       district = k11$district[i], school = k11$school[i], slev = k11$slev[i], dlev = k11$dlev[i],
       yr = k11$yr[i]))
## Two `~ inner | outer` terms (tau2 and rho, then gamma2) on dat.assink2016.
a16 <- dat.assink2016
a16_records <- lapply(seq_len(nrow(a16)), function(i)
  list(id = paste0("s", a16$study[i], "e", a16$esid[i]), yi = a16$yi[i], vi = a16$vi[i],
       study = a16$study[i], esid = a16$esid[i], deltype = a16$deltype[i]))

printed <- function(x) I(sub("\\s+$", "", capture.output(print(x))))
## Several printouts as one case (a subgroup analysis is several fits, as metafor users run it).
printed_all <- function(...) I(unlist(lapply(list(...), function(x) if (inherits(x, "AsIs")) x else printed(x))))
## One section of a printout: the line starting with `heading` and the `n` lines after it.
section <- function(x, heading, n = 1) {
  lines <- printed(x)
  at <- which(startsWith(lines, heading))[1]
  if (is.na(at)) stop("no line starts with ", heading)
  I(lines[at:(at + n)])
}
## A line of metafor's printout the summary does not hold, by its start, and why.
sk <- function(prefix, reason) list(prefix = prefix, reason = reason)
case <- function(name, tool, call_args, x, skip = list(), tokens = FALSE)
  list(name = name, tool = tool, args = call_args,
       printed = if (inherits(x, "AsIs")) x else printed(x), skip = skip, tokens = tokens)

fit <- rma(yi, vi, data = rb, control = CTRL)
rb_slab <- rma(yi, vi, data = rb, slab = id, control = CTRL)
re_bcg <- rma(yi, vi, data = bcg, control = CTRL)
## Cluster-robust tests (robust_test): metafor's robust() on the fit, CR1 as adjust = TRUE,
## CR2 with Satterthwaite df as robust(clubSandwich = TRUE) (clubSandwich 0.5.8's coef_test).
ml_re <- rma(yi, vi, data = ml, control = CTRL)
ml_reg <- rma(yi, vi, mods = ~ x, data = ml, control = CTRL)
## Subgroups as metafor users run them: one rma() per level of tester; the test with a
## separate tau^2 per level is the equal-effects meta-regression of the levels' estimates on
## the level (with their standard errors); the test with one common tau^2 is QM of
## rma(mods = ~ tester).
sub_fits <- lapply(sort(unique(rb$tester)), function(l) rma(yi, vi, data = rb, subset = tester == l, control = CTRL))
sub_comp <- data.frame(level = sort(unique(rb$tester)), estimate = sapply(sub_fits, coef),
                       se = sapply(sub_fits, function(f) f$se))
subgroups <- do.call(printed_all, c(sub_fits, list(
  section(rma(estimate, sei = se, mods = ~ level, method = "FE", data = sub_comp), "Test of Moderators"),
  section(rma(yi, vi, mods = ~ tester, data = rb, control = CTRL), "Test of Moderators"))))
## PET-PEESE: PET is rma(yi, vi, mods = ~ sqrt(vi), method = "EE", test = "knha") (lm's
## multiplicative error; metafor warns that knha is not meant for EE models), PEESE the same
## on vi; with test "z" the equal-effects meta-regressions.
pet_peese <- function(test)
  printed_all(suppressWarnings(rma(yi, vi, mods = ~ sqrt(vi), data = rb, method = "EE", test = test)),
              suppressWarnings(rma(yi, vi, mods = ~ vi, data = rb, method = "EE", test = test)))
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
  case("regtest_lm", "egger_test", list(variant = "classic"), regtest(fit, model = "lm")),
  case("regtest_rma", "egger_test", list(variant = "rma"), regtest(fit)),
  case("ranktest", "rank_correlation_test", setNames(list(), character(0)),
       suppressWarnings(ranktest(fit))),
  case("fsn_rosenthal", "fail_safe_n", list(type = "Rosenthal"), fsn(yi, vi, data = rb)),
  case("fsn_orwin", "fail_safe_n", list(type = "Orwin"), fsn(yi, vi, data = rb, type = "Orwin")),
  case("fsn_rosenberg", "fail_safe_n", list(type = "Rosenberg"),
       fsn(yi, vi, data = rb, type = "Rosenberg")),
  case("confint", "heterogeneity", setNames(list(), character(0)), confint(fit, control = list(tol = 1e-12))),
  case("trimfill", "trim_and_fill", setNames(list(), character(0)), trimfill(fit, control = CTRL)),
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
  case("influence", "influence_diagnostics", setNames(list(), character(0)), influence(rb_slab)),
  case("metareg_btt", "meta_regression", list(mods = "~ weeks + tester", btt = 3),
       rma(yi, vi, mods = ~ weeks + tester, data = rb, btt = 3, control = CTRL)),
  case("cumul", "cumulative_meta_analysis", setNames(list(), character(0)), cumul(rb_slab)),
  case("cumul_knha", "cumulative_meta_analysis", list(test = "knha"),
       cumul(rma(yi, vi, data = rb, slab = id, test = "knha", control = CTRL))),
  case("subgroups", "subgroup_analysis", list(by = "tester"), subgroups),
  case("pet_peese", "pet_peese", setNames(list(), character(0)), pet_peese("knha")),
  case("pet_peese_z", "pet_peese", list(test = "z"), pet_peese("z")),
  case("robust_cr2", "robust_test", list(records = ml_records, cluster = "study"),
       robust(ml_re, cluster = ml$study, clubSandwich = TRUE)),
  case("robust_cr1", "robust_test", list(records = ml_records, cluster = "study", vcov = "CR1"),
       robust(ml_re, cluster = ml$study, adjust = TRUE)),
  case("robust_reg_cr1", "robust_test",
       list(records = ml_records, cluster = "study", model = "regression", mods = I("x"), vcov = "CR1"),
       robust(ml_reg, cluster = ml$study, adjust = TRUE)),
  case("rma_mv_un", "fit_multilevel", b98_args("UN"), b98_fit("UN"),
       skip = list(sk("QM(df = 2)", "metafor's optimizer stops short (rho 2.8e-6 off): its QM 108.8607, at the exact optimum 108.8616"))),
  case("rma_mv_cs", "fit_multilevel", b98_args("CS"), b98_fit("CS")),
  case("rma_mv_hcs", "fit_multilevel", b98_args("HCS"), b98_fit("HCS")),
  case("rma_mv_three_levels", "fit_multilevel", list(records = k11_records, random = "~ 1 | district/school"),
       rma.mv(yi, vi, random = ~ 1 | district/school, data = k11)),
  case("rma_mv_two_terms", "fit_multilevel",
       list(records = a16_records, random = I(c("~ deltype | study", "~ esid | study")), struct = I(c("CS", "ID"))),
       rma.mv(yi, vi, random = list(~ deltype | study, ~ esid | study), struct = c("CS", "ID"), data = a16)),
  case("rma_mv_contain", "fit_multilevel",
       list(records = k11_records, random = "~ 1 | district/school", mods = "~ slev + dlev + yr", test = "t",
            dfs = "contain"),
       rma.mv(yi, vi, random = ~ 1 | district/school, mods = ~ slev + dlev + yr, test = "t", dfs = "contain",
              data = k11)),
  case("trimfill_r0", "trim_and_fill", list(estimator = "R0"),
       trimfill(fit, estimator = "R0", control = CTRL)))

write_fixture(list(cases = cases), out_path,
              data = list(csv_source(csv_path), metadat_source(I(c("dat.bcg", "dat.berkey1998", "dat.konstantopoulos2011", "dat.assink2016"))),
                          list(note = "eight constructed records in five studies (the multilevel case)")),
              control = CTRL)
