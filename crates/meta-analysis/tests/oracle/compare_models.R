#!/usr/bin/env Rscript
## Oracle for the engine's model comparison (crates/meta-analysis/src/compare_models.rs) and
## the tool `compare_models`: metafor's fitstats() of each fit and anova() of two fits (the
## LRT) or of one fit's btt coefficients (the Wald test).
##
## Two parts: `results`, the numbers crates/meta-analysis/tests/compare_models.rs compares
## with the engine's, and `printed`, metafor's printout of the same analyses
## (capture.output(print(x)), trailing blanks trimmed) beside the tool call that makes it
## (crates/exemplar/tests/printed_summaries.rs).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/compare_models.R \
##       crates/exemplar/data/dat.raudenbush1985.csv \
##       crates/meta-analysis/tests/fixtures/compare_models.json
##
## The three-level fits use rma.mv's tightest working control: its sigma2 stop about 1e-7
## short of the optimum, where the log-likelihood is flat (its error is of the square of
## that), so logLik, AIC, BIC and the LRT are exact to far below 1e-8.

suppressPackageStartupMessages(library(metafor))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: compare_models.R <dat.raudenbush1985.csv> <out.json>")
out_path <- args[2]

CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5)
CTRL_MV <- list(optimizer = "optim", optmethod = "BFGS", reltol = 1e-15, maxit = 10000)
options(width = 250)

## ---------------------------------------------------------------- datasets
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
r85 <- dat.raudenbush1985
r85$id <- sprintf("s%02d", r85$study)
mol <- escalc(measure = "ZCOR", ri = ri, ni = ni, data = dat.molloy2014)
mol$id <- sprintf("s%02d", seq_len(nrow(mol)))
bcg$id <- sprintf("t%02d", bcg$trial)
a16 <- dat.assink2016
a16$id <- sprintf("s%d-e%d", a16$study, a16$esid)
records_of <- function(d, cols) lapply(seq_len(nrow(d)), function(i) {
  r <- list(id = d$id[i], yi = as.numeric(d$yi[i]), vi = as.numeric(d$vi[i]))
  for (c in cols) r[[c]] <- if (is.character(d[[c]])) d[[c]][i] else as.numeric(d[[c]][i])
  r
})
datasets <- list(
  bcg = list(name = "bcg", ids = I(bcg$id), yi = vec(bcg$yi), vi = vec(bcg$vi),
             ablat = vec(bcg$ablat), year = vec(bcg$year), alloc = I(bcg$alloc)),
  assink2016 = list(name = "assink2016", ids = I(a16$id), yi = vec(a16$yi), vi = vec(a16$vi),
                    study = I(as.character(a16$study)), deltype = I(a16$deltype)),
  raudenbush1985 = list(name = "raudenbush1985", ids = I(r85$id), yi = vec(r85$yi), vi = vec(r85$vi)),
  molloy2014 = list(name = "molloy2014", ids = I(mol$id), yi = vec(mol$yi), vi = vec(mol$vi)))
bcg_records <- records_of(bcg, c("ablat", "year", "alloc"))
a16_records <- records_of(transform(a16, study = as.character(study)), c("study", "deltype"))
r85_records <- records_of(r85, character(0))
mol_records <- records_of(mol, character(0))

## A fit's statistics in one column of its fit.stats: its own (REML for a REML fit, else ML)
## as fitstats(fit) prints them, or, compared with another fit, the full model's for both, as
## anova() reads them (fit.stats.f, fit.stats.r) and fitstats(full, reduced) prints them.
stats <- function(fit, reml = fit$method == "REML") {
  col <- if (reml) "REML" else "ML"
  fs <- fit$fit.stats[, col]
  list(method = fit$method, parms = fit$parms, reml = reml, loglik = fs[1], deviance = fs[2],
       aic = fs[3], bic = fs[4], aicc = fs[5], qe = fit$QE)
}
## A tool call's model.
spec <- function(tool, ...) if (length(list(...))) list(tool = tool, arguments = list(...)) else list(tool = tool)

results <- list(); printed <- list()
lrt_case <- function(name, data, f, r, sf, sr, records, skip = list()) {
  a <- suppressWarnings(anova(f, r))
  reml <- f$method == "REML"
  stopifnot(isTRUE(all.equal(unname(unlist(stats(f, reml)[4:8])), unname(unlist(a$fit.stats.f)), tolerance = 0)),
            isTRUE(all.equal(unname(unlist(stats(r, reml)[4:8])), unname(unlist(a$fit.stats.r)), tolerance = 0)))
  results[[length(results) + 1]] <<- list(
    name = name, data = data, models = list(c(sf, stats(f, reml)), c(sr, stats(r, reml))),
    lrt = a$LRT, lrt_p = a$pval, lrt_df = a$parms.f - a$parms.r, r2 = nn(a$R2))
  printed[[length(printed) + 1]] <<- list(
    name = name, tool = "compare_models", args = list(records = records, models = list(sf, sr)),
    printed = I(sub("\\s+$", "", capture.output(print(a)))), skip = skip)
}
## A pair metafor's anova() refuses an LRT for (or would give a meaningless one): the fits'
## statistics and metafor's message.
## `f` is the full model (or the first, with as many parameters): both fits are read in its
## column; `r2`, anova()'s R^2 where metafor computes one.
no_lrt_case <- function(name, data, f, r, sf, sr, why, r2 = NA) {
  reml <- f$method == "REML"
  results[[length(results) + 1]] <<- list(
    name = name, data = data, models = list(c(sf, stats(f, reml)), c(sr, stats(r, reml))),
    no_lrt = why, r2 = r2)
}

## ML meta-regression against the intercept-only ML fit: the LRT.
f <- rma(yi, vi, mods = ~ ablat, data = bcg, method = "ML", control = CTRL)
r <- rma(yi, vi, data = bcg, method = "ML", control = CTRL)
lrt_case("bcg ablat ML vs intercept ML", "bcg", f, r,
         spec("meta_regression", mods = "~ ablat", method = "ML"),
         spec("fit_random_effects", method = "ML"), bcg_records)
## Equal-effects fits.
f <- rma(yi, vi, mods = ~ ablat + year, data = bcg, method = "EE")
r <- rma(yi, vi, data = bcg, method = "EE")
lrt_case("bcg ablat + year EE vs intercept EE", "bcg", f, r,
         spec("meta_regression", mods = "~ ablat + year", method = "EE"),
         spec("fit_random_effects", method = "EE"), bcg_records)
## REML with different fixed effects: metafor warns and gives an LRT that is not meaningful.
f <- rma(yi, vi, mods = ~ ablat, data = bcg, method = "REML", control = CTRL)
r <- rma(yi, vi, data = bcg, method = "REML", control = CTRL)
no_lrt_case("bcg ablat REML vs intercept REML", "bcg", f, r,
            spec("meta_regression", mods = "~ ablat", method = "REML"),
            spec("fit_random_effects", method = "REML"),
            tryCatch({anova(f, r); "no warning"}, warning = function(w) conditionMessage(w)))
## Not nested, the same number of parameters: metafor refuses.
f <- rma(yi, vi, mods = ~ ablat, data = bcg, method = "ML", control = CTRL)
r <- rma(yi, vi, mods = ~ year, data = bcg, method = "ML", control = CTRL)
no_lrt_case("bcg ablat ML vs year ML", "bcg", f, r,
            spec("meta_regression", mods = "~ ablat", method = "ML"),
            spec("meta_regression", mods = "~ year", method = "ML"),
            tryCatch({anova(f, r); "no error"}, error = function(e) conditionMessage(e)))
## Not nested, different numbers of parameters: metafor computes an LRT regardless.
## (Not ~ ablat + alloc: its ML likelihood has a local maximum at tau2 = 0 beside the global
## one at 0.0294, and the engine's ML meta-regression stops at the boundary.)
f <- rma(yi, vi, mods = ~ alloc, data = bcg, method = "ML", control = CTRL)
no_lrt_case("bcg alloc ML vs year ML", "bcg", f, r,
            spec("meta_regression", mods = "~ alloc", method = "ML"),
            spec("meta_regression", mods = "~ year", method = "ML"),
            "not nested: metafor's anova() computes an LRT without checking")
## Three levels against two (REML, the same fixed effects): rma.mv against rma.mv with the
## between-study variance fixed at 0, which is rma.uni's REML fit.
f <- rma.mv(yi, vi, random = ~ 1 | study/esid, data = a16, control = CTRL_MV)
r <- rma.mv(yi, vi, random = ~ 1 | study/esid, data = a16, sigma2 = c(0, NA), control = CTRL_MV)
lrt_case("assink2016 three levels vs two, REML", "assink2016", f, r,
         spec("fit_multilevel", study = "study"), spec("fit_random_effects"), a16_records)
f <- rma.mv(yi, vi, mods = ~ deltype, random = ~ 1 | study/esid, data = a16, control = CTRL_MV)
r <- rma.mv(yi, vi, mods = ~ deltype, random = ~ 1 | study/esid, data = a16, sigma2 = c(0, NA),
            control = CTRL_MV)
lrt_case("assink2016 deltype three levels vs two, REML", "assink2016", f, r,
         spec("fit_multilevel", study = "study", mods = "~ deltype"),
         spec("meta_regression", mods = "~ deltype"), a16_records)

## A REML fit against an equal-effects fit: anova() reads both in the REML column (the
## equal-effects fit's REML likelihood at tau^2 = 0), on the default data and dat.molloy2014.
f <- rma(yi, vi, data = r85, control = CTRL)
r <- rma(yi, vi, data = r85, method = "EE")
lrt_case("raudenbush1985 REML vs EE", "raudenbush1985", f, r,
         spec("fit_random_effects"), spec("fit_random_effects", method = "EE"), r85_records)
f <- rma(yi, vi, data = mol, control = CTRL)
r <- rma(yi, vi, data = mol, method = "EE")
lrt_case("molloy2014 REML vs EE", "molloy2014", f, r,
         spec("fit_random_effects"), spec("fit_random_effects", method = "EE"), mol_records)
## With different fixed effects metafor warns (no LRT here); R^2 is 0 (the reduced tau^2 is 0).
f <- rma(yi, vi, mods = ~ ablat, data = bcg, control = CTRL)
r <- rma(yi, vi, data = bcg, method = "EE")
no_lrt_case("bcg ablat REML vs intercept EE", "bcg", f, r,
            spec("meta_regression", mods = "~ ablat"), spec("fit_random_effects", method = "EE"),
            tryCatch({anova(f, r); "no warning"}, warning = function(w) conditionMessage(w)),
            r2 = suppressWarnings(anova(f, r))$R2)
## A DL full model: metafor warns and reads the ML column, a REML reduced fit's included.
f <- rma(yi, vi, mods = ~ ablat, data = bcg, method = "DL")
r <- rma(yi, vi, data = bcg, control = CTRL)
no_lrt_case("bcg ablat DL vs intercept REML", "bcg", f, r,
            spec("meta_regression", mods = "~ ablat", method = "DL"), spec("fit_random_effects"),
            tryCatch({anova(f, r); "no warning"}, warning = function(w) conditionMessage(w)),
            r2 = suppressWarnings(anova(f, r))$R2)
## Three levels (REML) against equal effects: rma.mv with both sigma2 fixed at 0 and method
## REML (anova() refuses ML against REML; the columns are the same either way).
f <- rma.mv(yi, vi, random = ~ 1 | study/esid, data = a16, control = CTRL_MV)
r <- rma.mv(yi, vi, random = ~ 1 | study/esid, data = a16, sigma2 = c(0, 0), control = CTRL_MV)
stopifnot(isTRUE(all.equal(r$fit.stats, rma(yi, vi, data = a16, method = "EE")$fit.stats, tolerance = 1e-12)))
lrt_case("assink2016 three levels REML vs EE", "assink2016", f, r,
         spec("fit_multilevel", study = "study"), spec("fit_random_effects", method = "EE"), a16_records)
## A DL meta-regression (more parameters) beside the three-level REML fit: not nested, both
## read in the ML column (the three-level fit's ML likelihood at its REML estimates). metafor
## compares no rma.uni fit with an rma.mv one; the columns are its fit.stats.
f <- rma(yi, vi, mods = ~ deltype, data = a16, method = "DL")
r <- rma.mv(yi, vi, random = ~ 1 | study/esid, data = a16, control = CTRL_MV)
no_lrt_case("assink2016 deltype DL vs three levels REML", "assink2016", f, r,
            spec("meta_regression", mods = "~ deltype", method = "DL"),
            spec("fit_multilevel", study = "study"),
            "not nested (and of two classes, which metafor's anova() refuses)")

## Wald tests of one fit's coefficients.
wald_case <- function(name, data, fit, sf, btt, records) {
  a <- anova(fit, btt = btt)
  results[[length(results) + 1]] <<- list(
    name = name, data = data, models = list(c(sf, stats(fit))), btt = vec(btt), wald = a$QM,
    wald_df1 = a$QMdf[1], wald_df2 = nn(a$QMdf[2]), wald_p = a$QMp)
  printed[[length(printed) + 1]] <<- list(
    name = name, tool = "compare_models", args = list(records = records, models = list(sf), btt = vec(btt)),
    printed = I(sub("\\s+$", "", capture.output(print(a)))), skip = list())
}
f <- rma(yi, vi, mods = ~ ablat + year, data = bcg, method = "ML", control = CTRL)
wald_case("bcg btt 2:3 z", "bcg", f, spec("meta_regression", mods = "~ ablat + year", method = "ML"), 2:3, bcg_records)
f <- rma(yi, vi, mods = ~ ablat + year, data = bcg, method = "REML", test = "knha", control = CTRL)
wald_case("bcg btt 2:3 knha", "bcg", f, spec("meta_regression", mods = "~ ablat + year", test = "knha"), 2:3, bcg_records)
f <- rma.mv(yi, vi, mods = ~ deltype, random = ~ 1 | study/esid, data = a16, test = "t", control = CTRL_MV)
wald_case("assink2016 three levels btt 2:3 t", "assink2016", f,
          spec("fit_multilevel", study = "study", mods = "~ deltype", test = "t"), 2:3, a16_records)

## Linear combinations of one fit's coefficients (anova(fit, X = )).
x_case <- function(name, data, fit, sf, X, records) {
  X <- rbind(X)
  a <- anova(fit, X = X)
  Xfull <- if (ncol(X) == fit$p - 1) cbind(1, X) else X
  results[[length(results) + 1]] <<- list(
    name = name, data = data, models = list(c(sf, stats(fit))),
    X = lapply(seq_len(nrow(X)), function(r) vec(X[r, ])),
    estimate = vec(a$Xb), se = vec(a$se), statistic = vec(a$zval), pval = vec(a$pval),
    ddf = vec(a$ddf), qm = nn(a$QM), qm_df2 = nn(a$QMdf[2]), qm_p = nn(a$QMp))
  printed[[length(printed) + 1]] <<- list(
    name = name, tool = "compare_models",
    args = list(records = records, models = list(sf), X = lapply(seq_len(nrow(X)), function(r) vec(X[r, ]))),
    printed = I(sub("\\s+$", "", capture.output(print(a)))), skip = list())
}
f <- rma(yi, vi, mods = ~ ablat + year, data = bcg, method = "ML", control = CTRL)
x_case("bcg X z", "bcg", f, spec("meta_regression", mods = "~ ablat + year", method = "ML"),
       rbind(c(1, 20, 1970), c(1, 40, 1980), c(0, 1, -1)), bcg_records)
f <- rma(yi, vi, mods = ~ ablat + year, data = bcg, method = "REML", test = "knha", control = CTRL)
x_case("bcg X knha, intercept implied", "bcg", f,
       spec("meta_regression", mods = "~ ablat + year", test = "knha"), c(30, 1975), bcg_records)
f <- rma.mv(yi, vi, mods = ~ deltype, random = ~ 1 | study/esid, data = a16, test = "t", control = CTRL_MV)
x_case("assink2016 three levels X t", "assink2016", f,
       spec("fit_multilevel", study = "study", mods = "~ deltype", test = "t"), c(0, 1, -1), a16_records)

write_fixture(list(datasets = unname(datasets), results = results, printed = printed), out_path,
  data = metadat_source(c("dat.bcg", "dat.assink2016", "dat.raudenbush1985", "dat.molloy2014")),
  control = list(rma = CTRL, rma_mv = CTRL_MV))
