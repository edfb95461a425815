#!/usr/bin/env Rscript
## Golden fixtures for model formulas (`mods = ~ ...`) and `btt` in meta-regression,
## produced with metafor's rma() on datasets of its documentation.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/formulas.R \
##       crates/meta-analysis/tests/fixtures/formulas.json
##
## Each model gives the formula as written, the engine's coefficient names (metafor's, with
## "intrcpt" written "intercept"), and every number rma() reports. `btt` is given to metafor
## as positions (from `btt`) or as a string (from `btt_name`, a part of the names, which
## metafor greps). Requires metafor (developed against 3.8-1) with metadat.

suppressPackageStartupMessages(library(metafor))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: formulas.R <out.json>")
out_path <- args[1]

## threshold/maxiter/stepadj: Fisher scoring (REML, ML) to a tight threshold; tol: PM's uniroot.
CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5, tol = 1e-14, tau2.max = 1e7)
BOUNDARY <- 1e-9

## ---------------------------------------------------------------- datasets
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
## region: a constructed text column whose levels differ only in case, to pin R's level order;
## decade: a numeric column with few values, for factor() of numbers.
bcg$region <- c("north", "North", "south", "South", "north", "east", "North", "south",
                "east", "South", "north", "east", "south")
bcg$decade <- floor(bcg$year / 10) * 10
k11 <- dat.konstantopoulos2011
k11$district_code <- as.numeric(k11$district)
k11$district <- as.character(k11$district)
## doses: a constructed numeric column in which 0.1 + 0.2 (0.30000000000000004) and 0.3 are
## distinct doubles that as.character writes alike, so factor(dose) has the levels "0.1",
## "0.3" and "0.5" (issue 41 item 5).
doses <- data.frame(
  yi = c(0.12, 0.85, -0.31, 0.78, 0.45, 0.02, 1.26, 0.61, 0.13, -0.28, 0.90, 0.21),
  vi = c(0.040, 0.052, 0.033, 0.061, 0.045, 0.038, 0.057, 0.049, 0.066, 0.035, 0.042, 0.050),
  dose = c(0.1, 0.3, 0.1 + 0.2, 0.5, 0.1, 0.3, 0.5, 0.1 + 0.2, 0.5, 0.1, 0.1 + 0.2, 0.3))

datasets <- list(
  bcg = list(name = "bcg", ids = paste0("t", bcg$trial), yi = as.numeric(bcg$yi), vi = as.numeric(bcg$vi),
             columns = list(ablat = bcg$ablat, year = bcg$year, alloc = bcg$alloc,
                            region = bcg$region, decade = bcg$decade),
             notes = "dat.bcg, escalc(measure = 'RR'); region and decade constructed (see the script)"),
  k11 = list(name = "k11", ids = paste0("s", k11$district, "_", k11$school), yi = k11$yi, vi = k11$vi,
             columns = list(year = k11$year, district = k11$district,
                            district_code = k11$district_code),
             notes = "dat.konstantopoulos2011 (yi, vi as shipped); district also as text"),
  doses = list(name = "doses", ids = paste0("d", seq_len(nrow(doses))), yi = doses$yi, vi = doses$vi,
               columns = list(dose = doses$dose),
               notes = "constructed (see the script): doses 0.3 and 0.1 + 0.2, one level of factor(dose)"))
frames <- list(bcg = bcg, k11 = k11, doses = doses)

models <- list()
add <- function(data, formula, method = "REML", test = "z", btt = NULL, btt_name = NULL) {
  d <- frames[[data]]
  f <- as.formula(formula)
  fit_with <- function(tau2 = NULL) {
    a <- list(yi = d$yi, vi = d$vi, mods = f, data = d, method = method, test = test, control = CTRL)
    if (!is.null(btt)) a$btt <- btt
    if (!is.null(btt_name)) a$btt <- btt_name
    if (!is.null(tau2)) a$tau2 <- tau2
    do.call(rma, a)
  }
  fit <- tryCatch(fit_with(), error = function(e) stop(formula, " ", method, " ", test, ": ", conditionMessage(e)))
  boundary <- FALSE
  if (!(method %in% c("EE", "FE")) && fit$tau2 < BOUNDARY) { fit <- fit_with(0); boundary <- TRUE }
  nm <- rownames(fit$beta); nm[nm == "intrcpt"] <- "intercept"
  models[[length(models) + 1]] <<- list(
    data = data, formula = formula, method = method, test = test,
    btt = if (is.null(btt)) NA else I(btt), btt_name = if (is.null(btt_name)) NA else btt_name,
    tau2_boundary = boundary, k = fit$k, p = fit$p, int_incl = fit$int.incl,
    names = I(nm), beta = vec(fit$beta), se = vec(fit$se), zval = vec(fit$zval),
    pval = vec(fit$pval), ci_lb = vec(fit$ci.lb), ci_ub = vec(fit$ci.ub),
    tau2 = fit$tau2, se_tau2 = num1(fit$se.tau2),
    qm = fit$QM, qm_df = I(as.numeric(fit$QMdf[!is.na(fit$QMdf)])), qm_p = fit$QMp,
    btt_used = vec(fit$btt),
    qe = fit$QE, qe_p = fit$QEp, i2 = fit$I2, h2 = fit$H2, r2 = num1(fit$R2))
}

for (test in c("z", "knha")) {
  add("bcg", "~ ablat + year", test = test)
  add("bcg", "~ ablat * year", test = test)
  add("bcg", "~ factor(alloc) + ablat", test = test)
  add("bcg", "~ alloc", test = test)
  add("bcg", "~ ablat + I(ablat^2)", test = test)
  add("bcg", "~ I((year - 1960)/10) + I(ablat^2)", test = test)
  add("bcg", "~ factor(alloc) - 1", test = test)
  add("bcg", "~ ablat - 1", test = test)
  add("bcg", "~ 0 + factor(alloc) + ablat", test = test)
  add("bcg", "~ factor(alloc):ablat", test = test)
  add("bcg", "~ ablat + ablat:factor(alloc)", test = test)
  add("bcg", "~ (ablat + year)^2", test = test)
  add("bcg", "~ factor(region)", test = test)
  add("bcg", "~ factor(decade) + ablat", test = test)
  add("bcg", "~ factor(alloc) + ablat", test = test, btt = 2:3)
  add("bcg", "~ factor(alloc) + ablat", test = test, btt_name = "alloc")
  add("bcg", "~ factor(alloc) + ablat", test = test, btt = c(1, 4))
  add("bcg", "~ ablat * year", test = test, btt = c(4, 2))
  add("bcg", "~ factor(alloc) - 1", test = test, btt = 2)
  add("k11", "~ I(year - 1990) + I((year - 1990)^2)", test = test)
  add("k11", "~ factor(district)", test = test)
  add("k11", "~ 0 + factor(district_code)", test = test)
  add("doses", "~ factor(dose)", test = test)
}
for (method in c("DL", "ML", "PM", "EE")) {
  add("bcg", "~ ablat * year", method = method)
  add("bcg", "~ factor(alloc) - 1", method = method, btt = 1:2)
}

res <- list(datasets = unname(datasets), models = models)
write_fixture(res, out_path,
  data = c(metadat_source(c("dat.bcg", "dat.konstantopoulos2011")),
           list(constructed = "doses (issue 41 item 5), written out in the script")),
  control = list(rma = CTRL, tau2_boundary = paste("a tau2 below", BOUNDARY, "is refitted with tau2 = 0")))
