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
                    study = I(as.character(a16$study)), deltype = I(a16$deltype)))
bcg_records <- records_of(bcg, c("ablat", "year", "alloc"))
a16_records <- records_of(transform(a16, study = as.character(study)), c("study", "deltype"))

## A fit's statistics on its own scale, as fitstats() prints them.
stats <- function(fit) {
  col <- if (fit$method == "REML") "REML" else "ML"
  fs <- fit$fit.stats[, col]
  list(method = fit$method, parms = fit$parms, loglik = fs[1], deviance = fs[2], aic = fs[3],
       bic = fs[4], aicc = fs[5], qe = fit$QE)
}
## A tool call's model.
spec <- function(tool, ...) if (length(list(...))) list(tool = tool, arguments = list(...)) else list(tool = tool)

results <- list(); printed <- list()
lrt_case <- function(name, data, f, r, sf, sr, records, skip = list()) {
  a <- suppressWarnings(anova(f, r))
  results[[length(results) + 1]] <<- list(
    name = name, data = data, models = list(c(sf, stats(f)), c(sr, stats(r))),
    lrt = a$LRT, lrt_p = a$pval, lrt_df = a$parms.f - a$parms.r)
  printed[[length(printed) + 1]] <<- list(
    name = name, tool = "compare_models", args = list(records = records, models = list(sf, sr)),
    printed = I(sub("\\s+$", "", capture.output(print(a)))), skip = skip)
}
## A pair metafor's anova() refuses an LRT for (or would give a meaningless one): the fits'
## statistics and metafor's message.
no_lrt_case <- function(name, data, f, r, sf, sr, why) {
  results[[length(results) + 1]] <<- list(
    name = name, data = data, models = list(c(sf, stats(f)), c(sr, stats(r))), no_lrt = why)
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
  data = metadat_source(c("dat.bcg", "dat.assink2016")),
  control = list(rma = CTRL, rma_mv = CTRL_MV))
