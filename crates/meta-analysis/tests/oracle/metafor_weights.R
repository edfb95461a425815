#!/usr/bin/env Rscript
## Golden fixtures for fits with user weights, rma(yi, vi, weights = w, ...) and
## rma(yi, vi, mods = X, weights = w, ...), produced with metafor.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/metafor_weights.R \
##       crates/exemplar/data/dat.raudenbush1985.csv \
##       crates/meta-analysis/tests/fixtures/weights.json
##
## Requires the R packages metafor (developed against 3.8-1) and metadat (dat.bcg).
## Numbers are written with 17 significant digits by common.R's writer, after a `provenance`
## object naming the versions, the data and the control settings.

suppressPackageStartupMessages(library(metafor))
## The oracle kit beside this script: JSON writer, helpers, write_fixture() and provenance.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: metafor_weights.R <dat.raudenbush1985.csv> <out.json>")
raw <- read_oracle_csv(args[1])
out_path <- args[2]

## ---------------------------------------------------------------- controls
## threshold/maxiter/stepadj: Fisher scoring (ML, REML), run to a tight threshold.
## tol/tau2.max: uniroot() of PM.
CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5, tol = 1e-14, tau2.max = 1e7)
METHODS <- c("REML", "ML", "DL", "HE", "SJ", "PM", "EE")
TESTS <- c("z", "knha")
BOUNDARY <- 1e-9

## ---------------------------------------------------------------- datasets
## Each dataset: ids, yi, vi, named moderator columns (numeric or character) and named
## weight columns.
datasets <- list()
add <- function(d) datasets[[d$name]] <<- d

bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
add(list(name = "bcg", ids = sprintf("t%02d", bcg$trial), yi = as.numeric(bcg$yi),
         vi = as.numeric(bcg$vi),
         columns = list(ablat = bcg$ablat, year = bcg$year, alloc = bcg$alloc),
         weights = list(n = with(bcg, tpos + tneg + cpos + cneg),
                        inv_vi2 = 1 / as.numeric(bcg$vi)^2),
         notes = "metadat's dat.bcg, log risk ratios from escalc(measure = 'RR'); n = tpos + tneg + cpos + cneg"))

add(list(name = "raudenbush1985", ids = raw$id, yi = raw$yi, vi = raw$vi,
         columns = list(weeks = raw$weeks, tester = raw$tester, setting = raw$setting),
         weights = list(n = raw$n1i + raw$n2i, inv_vi2 = 1 / raw$vi^2),
         notes = "dat.raudenbush1985 from the exemplar's CSV; n = n1i + n2i"))

## ---------------------------------------------------------------- helpers
## design() (common.R): the design without its intercept, in the engine's coding.
quiet <- function(expr) {
  warns <- character(0)
  value <- withCallingHandlers(expr, warning = function(w) {
    warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") })
  list(fit = value, warnings = warns)
}

wrma <- function(yi, vi, X, w, method, test, tau2 = NULL) {
  if (is.null(X)) rma(yi, vi, weights = w, method = method, test = test, tau2 = tau2, control = CTRL)
  else rma(yi, vi, mods = X, weights = w, method = method, test = test, tau2 = tau2, control = CTRL)
}

## rma with the exact boundary: metafor's Fisher scoring halves steps that would cross 0, so
## an estimate whose exact value is 0 ends as a tiny positive number; refit with tau2 = 0
## there (se_tau2 kept from the free fit, metafor gives none for a fixed tau2).
fit_exact <- function(yi, vi, X, w, method, test) {
  r <- quiet(wrma(yi, vi, X, w, method, test))
  fit <- r$fit; warns <- r$warnings; boundary <- FALSE
  if (method %in% c("ML", "REML") && fit$tau2 > 0 && fit$tau2 < BOUNDARY) {
    se <- fit$se.tau2
    fit <- quiet(wrma(yi, vi, X, w, method, test, tau2 = 0))$fit
    fit$se.tau2 <- se
    boundary <- TRUE
    warns <- c(warns, sprintf("boundary: metafor's tau2 was below %g; refitted with tau2 = 0", BOUNDARY))
  }
  list(fit = fit, warnings = warns, boundary = boundary)
}

row_of <- function(d, mods, weights, method, test, at, centre_at = FALSE) {
  X <- design(d, mods)
  w <- d$weights[[weights]]
  r <- fit_exact(d$yi, d$vi, X, w, method, test)
  fit <- r$fit
  out <- list(data = d$name, mods = I(mods), weights = weights, method = method, test = test,
              level = 0.95, k = fit$k, p = fit$p,
              names = I(c("intercept", colnames(X))),
              tau2 = num1(fit$tau2), se_tau2 = num1(fit$se.tau2),
              beta = I(as.numeric(fit$beta)), se = I(unname(fit$se)), zval = I(unname(fit$zval)),
              pval = I(unname(fit$pval)), ci_lb = I(unname(fit$ci.lb)), ci_ub = I(unname(fit$ci.ub)),
              ddf = if (test == "z") NA else num1(fit$ddf),
              QE = num1(fit$QE), QEp = num1(fit$QEp), I2 = num1(fit$I2), H2 = num1(fit$H2))
  if (is.null(X)) {
    pr <- predict(fit)
    out$pi_lb <- num1(if (is.null(pr$pi.lb)) pr$ci.lb else pr$pi.lb)
    out$pi_ub <- num1(if (is.null(pr$pi.ub)) pr$ci.ub else pr$pi.ub)
  } else {
    out$QM <- num1(fit$QM); out$QMdf <- I(as.numeric(fit$QMdf)); out$QMp <- num1(fit$QMp)
    ## metafor's pseudo-R2 (r2def "1": a ratio of the unweighted tau2s, which the weights do
    ## not change; EE: the adjusted R2 of lm(yi ~ X, weights = w)). Recomputed with the same
    ## formula where an exact boundary was restored in either model.
    R2 <- num1(fit$R2); r2_note <- "metafor's R2"
    r0 <- fit_exact(d$yi, d$vi, NULL, w, method, test)
    if (method != "EE" && (r$boundary || r0$boundary)) {
      R2 <- if (r0$fit$tau2 == 0) 0 else max(0, 100 * (r0$fit$tau2 - fit$tau2) / r0$fit$tau2)
      r2_note <- "recomputed: 100 * max(0, (tau2_0 - tau2) / tau2_0), 0 when tau2_0 = 0, with exact-boundary tau2s"
    }
    out$R2 <- R2; out$r2_note <- r2_note
    preds <- list()
    for (a in at) {
      ## Row 1 is the point (a factor's column padded with its levels so all are coded;
      ## cbind's recycling of the shorter columns only touches the other rows).
      newmods <- suppressWarnings(design(list(columns = lapply(setNames(mods, mods), function(m) {
        v <- d$columns[[m]]
        if (is.character(v)) c(a[[m]], sort(unique(v), method = "radix")) else c(a[[m]], v)
      })), mods))[1, , drop = FALSE]
      pr <- predict(fit, newmods = newmods)
      if (centre_at) {
        ## x0' Var(b) x0 cancels when X'AX is ill-conditioned (year ~ 1960 with weights in
        ## the thousands: ~1e-9 relative error in metafor's se). The same model with every
        ## column shifted by x0 predicts at x0 with its intercept: no cancellation.
        Xc <- X - matrix(newmods, nrow = nrow(X), ncol = ncol(X), byrow = TRUE)
        fc <- fit_exact(d$yi, d$vi, Xc, w, method, test)$fit
        pr <- predict(fc, newmods = matrix(0, nrow = 1, ncol = ncol(X)))
      }
      preds[[length(preds) + 1]] <- list(
        at = a, pred = num1(pr$pred), se = num1(pr$se), ci_lb = num1(pr$ci.lb), ci_ub = num1(pr$ci.ub),
        pi_lb = num1(if (is.null(pr$pi.lb)) pr$ci.lb else pr$pi.lb),
        pi_ub = num1(if (is.null(pr$pi.ub)) pr$ci.ub else pr$pi.ub))
    }
    out$predictions <- preds
    out$predictions_note <- if (centre_at) "predict() of the same model with the design shifted to each prediction point (better conditioned)" else "metafor's predict()"
  }
  out$warnings <- if (length(r$warnings)) I(r$warnings) else NA
  out
}

## ---------------------------------------------------------------- what is fitted
MODELS <- list(
  list(data = "bcg", mods = character(0)),
  list(data = "bcg", mods = c("ablat"), at = list(list(ablat = 0), list(ablat = 40))),
  list(data = "bcg", mods = c("ablat", "year"), at = list(list(ablat = 30, year = 1960)),
       centre_at = TRUE),
  list(data = "bcg", mods = c("alloc"), at = list(list(alloc = "random"))),
  list(data = "raudenbush1985", mods = character(0)),
  list(data = "raudenbush1985", mods = c("weeks"), at = list(list(weeks = 0), list(weeks = 3))),
  list(data = "raudenbush1985", mods = c("weeks", "tester"),
       at = list(list(weeks = 2, tester = "blind"))))

rows <- list()
for (m in MODELS) for (weights in c("n", "inv_vi2")) for (method in METHODS) for (test in TESTS) {
  rows[[length(rows) + 1]] <- row_of(datasets[[m$data]], m$mods, weights, method, test, m$at,
                                 isTRUE(m$centre_at))
}

res <- list(
  conventions = list(
    call = "rma(yi, vi, weights = w, method, test, control = CTRL), with mods = X (a matrix without the intercept column) for a meta-regression",
    design = "intercept, then each moderator: numeric as is, character in treatment coding with levels sorted (radix, i.e. by bytes), the first the reference",
    boundary = "ML/REML estimates below `boundary` are refitted with tau2 = 0 (the exact optimum); se_tau2 kept from the free fit",
    R2 = "metafor's R2 (r2def 1; EE: adjusted R2 of lm(yi ~ X, weights = w)); recomputed by its formula where a boundary refit changed a tau2",
    EE_predict = "predict() gives no PI for EE: pi = ci",
    predictions = "metafor's predict(), except where a model's predictions_note says they come from the same model with its design shifted to the prediction point"),
  datasets = lapply(unname(datasets), function(d) list(
    name = d$name, ids = I(d$ids), yi = I(d$yi), vi = I(d$vi),
    columns = lapply(d$columns, I), weights = lapply(d$weights, I), notes = d$notes)),
  models = rows)

write_fixture(res, out_path,
  data = list(csv = csv_source(args[1]), metadat = metadat_source("dat.bcg")),
  control = list(rma = CTRL, boundary = BOUNDARY))
