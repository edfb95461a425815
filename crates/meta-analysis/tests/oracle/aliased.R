#!/usr/bin/env Rscript
## Golden fixtures for designs with aliased columns (issue 42 item 5): an interaction with an
## empty cell, where metafor's rma() drops the redundant predictors ("Redundant predictors
## dropped from the model.", the columns lm() gives NA coefficients, R's qr() at tol 1e-07)
## and fits the rest.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/aliased.R \
##       crates/meta-analysis/tests/fixtures/aliased.json
##
## Each model gives the formula, the names of the coefficients kept and of those dropped
## (metafor's, "intrcpt" written "intercept"), and every number rma() reports. The datasets
## hold the records complete in the formula's columns (what na.omit keeps). Requires metafor
## (developed against 3.8-1) with metadat.

suppressPackageStartupMessages(library(metafor))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: aliased.R <out.json>")
out_path <- args[1]

## threshold/maxiter/stepadj: Fisher scoring (REML, ML) to a tight threshold, as formulas.R.
CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5, tol = 1e-14, tau2.max = 1e7)
## rma.mv's tightest working control, as metafor_multilevel.R: its sigma2 stop about 1e-7
## (relative) short of the exact optimum, so the multilevel rows are a check at that level.
CTRL_MV <- list(optimizer = "optim", optmethod = "BFGS", reltol = 1e-15, maxit = 10000)

## ---------------------------------------------------------------- datasets
## dat.mcdaniel1994: correlations as Fisher's z; no record has type "s" with struct "u".
mc <- escalc(measure = "ZCOR", ri = ri, ni = ni, data = metadat::dat.mcdaniel1994)
mc <- mc[!is.na(mc$type) & !is.na(mc$struct), ]
## dat.bangertdrowns2004: every study with feedback has info, so feedback:info = feedback.
bd <- metadat::dat.bangertdrowns2004
bd <- bd[!is.na(bd$feedback) & !is.na(bd$info), ]
## dat.bornmann2007: log odds ratios of an award (women vs men), effect sizes within studies;
## doctype by gender has empty cells (a Book of gender F only, a Letter of M only, ...), so
## six of the fourteen interaction columns are aliased.
bo <- escalc(measure = "OR", ai = waward, n1i = wtotal, ci = maward, n2i = mtotal,
             data = metadat::dat.bornmann2007)
bo <- bo[!is.na(bo$gender), ]

datasets <- list(
  mcdaniel = list(name = "mcdaniel", ids = paste0("s", mc$study), yi = as.numeric(mc$yi),
                  vi = as.numeric(mc$vi), columns = list(type = mc$type, struct = mc$struct),
                  notes = "dat.mcdaniel1994, escalc(measure = 'ZCOR'), records with type and struct"),
  bangert = list(name = "bangert", ids = paste0("s", bd$id), yi = as.numeric(bd$yi),
                 vi = as.numeric(bd$vi), columns = list(feedback = bd$feedback, info = bd$info),
                 notes = "dat.bangertdrowns2004 (yi, vi as shipped), records with feedback and info"),
  bornmann = list(name = "bornmann", ids = paste0(bo$study, "#", bo$obs), yi = as.numeric(bo$yi),
                  vi = as.numeric(bo$vi), study = bo$study,
                  columns = list(doctype = bo$doctype, gender = bo$gender),
                  notes = "dat.bornmann2007, escalc(measure = 'OR'), records with gender"))
frames <- list(mcdaniel = mc, bangert = bd, bornmann = bo)

models <- list()
add <- function(data, formula, method = "REML", test = "z") {
  d <- frames[[data]]
  fit <- withCallingHandlers(
    rma(yi = yi, vi = vi, mods = as.formula(formula), data = d, method = method, test = test,
        control = CTRL),
    warning = function(w) if (grepl("Redundant predictors", conditionMessage(w))) invokeRestart("muffleWarning"))
  stopifnot(any(fit$coef.na))
  nm <- rownames(fit$beta); nm[nm == "intrcpt"] <- "intercept"
  dropped <- sub("^X", "", names(fit$coef.na)[fit$coef.na])
  models[[length(models) + 1]] <<- list(
    data = data, formula = formula, method = method, test = test,
    k = fit$k, p = fit$p, names = I(nm), dropped = I(dropped),
    beta = vec(fit$beta), se = vec(fit$se), zval = vec(fit$zval),
    pval = vec(fit$pval), ci_lb = vec(fit$ci.lb), ci_ub = vec(fit$ci.ub),
    tau2 = fit$tau2, se_tau2 = num1(fit$se.tau2),
    qm = fit$QM, qm_df = I(as.numeric(fit$QMdf[!is.na(fit$QMdf)])), qm_p = fit$QMp,
    qe = fit$QE, qe_df = fit$k - fit$p, qe_p = fit$QEp, i2 = fit$I2, h2 = fit$H2, r2 = num1(fit$R2))
}

for (test in c("z", "knha")) {
  add("mcdaniel", "~ type * struct", test = test)
  add("mcdaniel", "~ struct * type", test = test)
  add("bangert", "~ feedback * info", test = test)
}
for (method in c("DL", "ML", "EE")) add("mcdaniel", "~ type * struct", method = method)

## rma.mv(random = ~ 1 | study/obs): the same rule drops the same columns.
multilevel <- list()
add_mv <- function(data, formula, method = "REML") {
  d <- frames[[data]]
  fit <- withCallingHandlers(
    rma.mv(yi, vi, mods = as.formula(formula), random = ~ 1 | study/obs, data = d,
           method = method, control = CTRL_MV),
    warning = function(w) if (grepl("Redundant predictors", conditionMessage(w))) invokeRestart("muffleWarning"))
  stopifnot(any(fit$coef.na))
  nm <- rownames(fit$beta); nm[nm == "intrcpt"] <- "intercept"
  multilevel[[length(multilevel) + 1]] <<- list(
    data = data, formula = formula, method = method, k = fit$k, p = fit$p, names = I(nm),
    dropped = I(sub("^X", "", names(fit$coef.na)[fit$coef.na])), sigma2 = vec(fit$sigma2),
    beta = vec(fit$beta), se = vec(fit$se), qm = fit$QM, qm_df = fit$QMdf[1], qm_p = fit$QMp,
    qe = fit$QE, qe_df = fit$k - fit$p)
}
for (method in c("REML", "ML")) add_mv("bornmann", "~ doctype * gender", method = method)

res <- list(datasets = unname(datasets), models = models, multilevel = multilevel)
write_fixture(res, out_path,
  data = metadat_source(c("dat.mcdaniel1994", "dat.bangertdrowns2004", "dat.bornmann2007")),
  control = list(rma = CTRL, rma_mv = CTRL_MV))
