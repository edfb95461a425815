#!/usr/bin/env Rscript
## Golden fixtures for the publication-bias models: the step-function selection model
## (metafor's selmodel(type = "stepfun")) and PET-PEESE (two meta-regressions).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/selection_fixtures.R \
##       crates/exemplar/data/dat.raudenbush1985.csv \
##       crates/meta-analysis/tests/fixtures/selection.json
##
## Requires metafor (developed against 3.8-1; Debian: r-cran-metafor), metadat and numDeriv.
##
## Selection model. selmodel() maximises the likelihood with optim(BFGS) on transformed
## parameters with a finite-difference gradient (ndeps = 1e-3) and stops at reltol = 1e-8,
## which leaves the estimates about 1e-7 (relative) from the optimum. We run it with
##   control = list(reltol = 1e-14, maxit = 10000, ndeps = rep(1e-6, 2 + N))
## (N intervals; these reach optim through selmodel's control list), and then polish that
## optimum to the exact root of the score: Newton steps x <- x - H^-1 g on metafor's own
## log-likelihood (.selmodel.ll.stepfun, untransformed parameters beta, tau2, delta_2..N),
## g and H by numDeriv's Richardson extrapolation, until no step exceeds 1e-12 (relative). All
## reported quantities are recomputed at the polished optimum with metafor's formulas
## (covariance = inverse of the numDeriv Hessian of -ll, as selmodel computes it). Both the
## tight selmodel() output ("metafor") and the polished one ("exact") are written; the
## largest relative gap between them is written as "gap".
##
## PET-PEESE. PET: rma(yi, vi, mods = ~ sqrt(vi), method = "EE", test = "knha"), identical
## to lm(yi ~ sqrt(vi), weights = 1/vi) (checked below); PEESE: the same with mods = ~ vi.
## Also with test = "z" (metafor's fixed-effect meta-regression).
##
## Numbers are written with 17 significant digits by common.R's writer, after a `provenance`
## object naming the versions, the data and the control settings.

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
  library(numDeriv)
})
## The oracle kit beside this script: JSON writer, helpers, write_fixture() and provenance.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: selection_fixtures.R <dat.raudenbush1985.csv> <out.json>")
raw <- read_oracle_csv(args[1])
out_path <- args[2]

CTRL <- list(threshold = 1e-12, maxiter = 10000)
## selmodel()'s control (passed on to optim), with ndeps = rep(NDEPS, 2 + N) for N intervals.
SELMODEL_CTRL <- list(reltol = 1e-14, maxit = 10000)
NDEPS <- 1e-6

datasets <- list(
  list(name = "hackshaw1998", ids = as.character(dat.hackshaw1998$study), yi = dat.hackshaw1998$yi,
       vi = dat.hackshaw1998$vi, notes = "metadat's dat.hackshaw1998 (log odds ratios)"),
  list(name = "raudenbush1985", ids = raw$id, yi = raw$yi, vi = raw$vi,
       notes = "the frozen dataset, dat.raudenbush1985"))

exact_selmodel <- function(s, f, level) {
  N <- length(s$steps)
  k <- length(s$yi)
  nll <- function(x) metafor:::.selmodel.ll.stepfun(
    par = c(x[1], x[2], 1, x[-(1:2)]), yi = c(s$yi), vi = s$vi, X = matrix(1, k, 1), preci = rep(1, k),
    k = k, pX = 1, pvals = s$pvals, deltas = N, delta.val = c(1, rep(NA, N - 1)), delta.transf = FALSE,
    mapfun = rep(NA, N), delta.min = s$delta.min, delta.max = s$delta.max, tau2.val = NA,
    tau2.transf = FALSE, tau2.max = Inf, beta.val = NA, wi.fun = s$wi.fun, steps = s$steps,
    pgrp = s$pgrp, alternative = "greater", pval.min = 0,
    intCtrl = list(lower = -Inf, upper = Inf, subdivisions = 100L, rel.tol = .Machine$double.eps^0.25),
    verbose = FALSE, digits = s$digits)
  ## At the boundary (metafor's tau2 within 1e-4 of 0 relative to the mean vi: its optimiser
  ## works on log(tau2) and stops at a tiny positive value) the exact maximum has tau2 = 0:
  ## the remaining parameters are polished with tau2 fixed at 0, and the one-sided score in
  ## tau2 at 0 is checked to be negative (the likelihood falls as tau2 leaves 0).
  boundary <- s$tau2 < 1e-4 * mean(s$vi)
  free <- if (boundary) c(1, 3:(N + 1)) else 1:(N + 1)
  x <- c(s$beta[1], if (boundary) 0 else s$tau2, s$delta[-1])
  ## numDeriv steps each coordinate by d * |x| (d = 0.1): for a beta near 0 that step is so
  ## small that rounding dominates the second differences, so beta enters shifted by 1.
  sub <- function(z) { y <- x; y[free] <- z; y[1] <- y[1] - 1; nll(y) }
  x[1] <- x[1] + 1
  steps_taken <- 0
  for (it in 1:30) {
    g <- numDeriv::grad(sub, x[free])
    H <- numDeriv::hessian(sub, x[free], method.args = list(r = 6))
    step <- -solve(H, g)
    x[free] <- x[free] + step
    steps_taken <- it
    if (max(abs(step) / pmax(1, abs(x[free]))) < 1e-12) break
  }
  x[1] <- x[1] - 1
  score_tau2_at_0 <- if (boundary) { h <- 1e-8; y <- x; y[2] <- h; -(nll(y) - nll(x)) / h } else NA
  x[1] <- x[1] + 1
  if (boundary) stopifnot(score_tau2_at_0 < 0)
  H <- numDeriv::hessian(sub, x[free], method.args = list(r = 6))
  V <- chol2inv(chol(H))
  se <- rep(NA, N + 1)
  se[free] <- sqrt(diag(V))
  score_max <- max(abs(numDeriv::grad(sub, x[free])))
  x[1] <- x[1] - 1
  crit <- qnorm((1 - level) / 2, lower.tail = FALSE)
  ll <- -nll(x)
  ll0 <- c(logLik(f, REML = FALSE))
  LRT <- max(0, -2 * (ll0 - ll))
  delta <- x[-(1:2)]
  se.delta <- se[-(1:2)]
  list(estimate = x[1], se = se[1], zval = x[1] / se[1], pval = 2 * pnorm(abs(x[1] / se[1]), lower.tail = FALSE),
       ci_lb = x[1] - crit * se[1], ci_ub = x[1] + crit * se[1],
       tau2 = x[2], se_tau2 = se[2], ci_lb_tau2 = max(0, x[2] - crit * se[2]), ci_ub_tau2 = x[2] + crit * se[2],
       boundary = boundary, score_tau2_at_0 = score_tau2_at_0,
       delta = vec(delta), se_delta = vec(se.delta), zval_delta = vec((delta - 1) / se.delta),
       pval_delta = vec(2 * pnorm(abs((delta - 1) / se.delta), lower.tail = FALSE)),
       ci_lb_delta = vec(pmax(0, delta - crit * se.delta)), ci_ub_delta = vec(delta + crit * se.delta),
       ll = ll, ll0 = ll0, LRT = LRT, LRTdf = N - 1, LRTp = pchisq(LRT, df = N - 1, lower.tail = FALSE),
       newton_steps = steps_taken, score_max = score_max)
}

sel_one <- function(d, steps, level) {
  f <- rma(d$yi, d$vi, method = "ML", level = level * 100, control = CTRL)
  N <- length(unique(c(sort(steps), 1)))
  s <- selmodel(f, type = "stepfun", steps = steps,
                control = c(SELMODEL_CTRL, list(ndeps = rep(NDEPS, 2 + N))))
  m <- list(estimate = num1(s$beta), se = num1(s$se), zval = num1(s$zval), pval = num1(s$pval),
            ci_lb = num1(s$ci.lb), ci_ub = num1(s$ci.ub), tau2 = num1(s$tau2), se_tau2 = num1(s$se.tau2),
            ci_lb_tau2 = num1(s$ci.lb.tau2), ci_ub_tau2 = num1(s$ci.ub.tau2),
            delta = vec(s$delta[-1]), se_delta = vec(s$se.delta[-1]), zval_delta = vec(s$zval.delta[-1]),
            pval_delta = vec(s$pval.delta[-1]), ci_lb_delta = vec(s$ci.lb.delta[-1]),
            ci_ub_delta = vec(s$ci.ub.delta[-1]), ll = num1(s$ll), ll0 = num1(s$ll0), LRT = num1(s$LRT),
            LRTdf = num1(s$LRTdf), LRTp = num1(s$LRTp))
  e <- exact_selmodel(s, f, level)
  gap <- max(unlist(Map(function(a, b) max(abs(a - b) / pmax(1, abs(b)), na.rm = TRUE), m, e[names(m)])))
  list(steps = vec(steps), level = level, k_per_interval = vec(s$ptable$k), metafor = m, exact = e, gap = gap)
}

pet_one <- function(d, test) {
  one <- function(x) {
    r <- suppressWarnings(rma(d$yi, d$vi, mods = ~ x, method = "EE", test = test))
    list(estimate = vec(r$beta), se = vec(r$se), zval = vec(r$zval), pval = vec(r$pval),
         ci_lb = vec(r$ci.lb), ci_ub = vec(r$ci.ub), df = if (test == "knha") r$k - r$p else NA)
  }
  pet <- one(sqrt(d$vi))
  peese <- one(d$vi)
  if (test == "knha") {
    l <- summary(lm(d$yi ~ sqrt(d$vi), weights = 1 / d$vi))$coefficients
    stopifnot(isTRUE(all.equal(unname(l[, 1]), as.numeric(pet$estimate), tolerance = 1e-10)),
              isTRUE(all.equal(unname(l[, 2]), as.numeric(pet$se), tolerance = 1e-10)))
  }
  list(test = test, pet = pet, peese = peese)
}

out_ds <- list()
for (d in datasets) {
  sels <- list()
  for (cfg in list(list(c(0.025, 0.5), 0.95), list(c(0.025, 0.5), 0.9), list(c(0.05), 0.95),
                   list(c(0.025, 0.1, 0.5), 0.95))) {
    r <- try(sel_one(d, cfg[[1]], cfg[[2]]), silent = TRUE)
    if (inherits(r, "try-error")) cat(d$name, "steps", cfg[[1]], ":", r, "\n") else sels[[length(sels) + 1]] <- r
  }
  out_ds[[length(out_ds) + 1]] <- list(name = d$name, ids = I(d$ids), yi = I(d$yi), vi = I(d$vi),
                                       notes = d$notes, selmodel = sels,
                                       pet_peese = list(pet_one(d, "knha"), pet_one(d, "z")))
}

res <- list(
  conventions = list(
    selmodel = "selmodel(rma(yi, vi, method = 'ML', level, control = list(threshold = 1e-12, maxiter = 10000)), type = 'stepfun', steps, control = list(reltol = 1e-14, maxit = 10000, ndeps = rep(1e-6, 2 + N))); 'exact' polishes that optimum by Newton steps on metafor's own log-likelihood with numDeriv derivatives",
    pet_peese = "rma(yi, vi, mods = ~ sqrt(vi) (PET) or ~ vi (PEESE), method = 'EE', test = 'knha' or 'z')"),
  datasets = out_ds)

write_fixture(res, out_path,
  data = list(csv = csv_source(args[1]), metadat = metadat_source("dat.hackshaw1998")),
  control = list(rma = CTRL, selmodel = c(SELMODEL_CTRL, list(ndeps = sprintf("rep(%g, 2 + N), N intervals", NDEPS))),
                 newton_step = 1e-12,
                 pet_peese = "rma(yi, vi, mods, method = 'EE', test) with rma()'s default control"))
