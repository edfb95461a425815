#!/usr/bin/env Rscript
## Golden fixtures for the three-level model (metafor's rma.mv with random = ~ 1 | study/es)
## and for cluster-robust variance (clubSandwich's CR2 with Satterthwaite df, metafor's
## robust() with its CR1 adjustment).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/metafor_multilevel.R \
##       crates/meta-analysis/tests/fixtures/multilevel.json
##
## Requires metafor (3.8-1, with metadat) and clubSandwich (0.5.8); Debian: r-cran-metafor,
## r-cran-clubsandwich. Numbers are written with 17 significant digits by common.R's writer,
## after a `provenance` object naming the versions, the data and the control settings.
##
## How exact the fixtures are. rma.mv optimizes log(sigma2) numerically (nlminb or optim,
## with finite-difference gradients); at its tightest working control (CTRL_MV below: optim
## BFGS, reltol 1e-15) its sigma2 still differ from the exact optimum by up to ~1e-7
## relative (nlminb with rel.tol below 1e-12 stops with convergence code 1). So:
##  1. rma.mv is run with CTRL_MV and its estimates are kept as `metafor_free_sigma2`;
##  2. from there, Newton's method on the exact score and Hessian of the (restricted)
##     log-likelihood, written below with dense k x k matrices (an implementation
##     independent of the engine's block formulas), runs until the step is below 1e-14
##     relative: `sigma2`, the exact optimum (`newton_score` is the score there);
##  3. rma.mv is refitted with sigma2 fixed at those values, and every other number
##     (beta, se, tests, intervals, QE, QM, logLik, predict()) is metafor's at the optimum;
##  4. profile-likelihood intervals (as metafor's confint(fit) on rma.mv: the sigma2 where
##     the profile log-likelihood, maximized over the other component, falls
##     qchisq(level, 1)/2 below its maximum; lower bound 0 when the profile at 0 is above
##     that; search up to max(10, 100 sigma2) as confint does) are solved with the dense
##     functions (inner maximum by optimize() polished by Newton to 1e-14, uniroot with tol 1e-14);
##     metafor's own confint(fit, control = list(tol = 1e-12)) is kept as
##     `metafor_confint` beside them for comparison.
## The robust tests run clubSandwich and metafor on the fits of step 3 (sigma2 fixed at the
## optimum), and on rma.uni fits with the project's tight control (CTRL).

suppressPackageStartupMessages({library(metafor); library(clubSandwich)})
## The oracle kit beside this script: JSON writer, helpers, write_fixture() and provenance.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: metafor_multilevel.R <out.json>")
out_path <- args[1]

CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5)
CTRL_MV <- list(optimizer = "optim", optmethod = "BFGS", reltol = 1e-15, maxit = 10000)
CONFINT <- list(tol = 1e-12)
LEVEL <- 0.95

## ---------------------------------------------------------------- datasets
datasets <- list()
k11 <- dat.konstantopoulos2011
datasets$konstantopoulos2011 <- list(
  name = "konstantopoulos2011",
  ids = sprintf("d%d-s%d", k11$district, k11$school), yi = k11$yi, vi = k11$vi,
  study = as.character(k11$district),
  columns = list(year = k11$year),
  notes = "metadat's dat.konstantopoulos2011: schools (es) within districts (study); ids district-school")
a16 <- dat.assink2016
datasets$assink2016 <- list(
  name = "assink2016",
  ids = sprintf("s%d-e%d", a16$study, a16$esid), yi = a16$yi, vi = a16$vi,
  study = as.character(a16$study),
  columns = list(year = a16$year, pubstatus = a16$pubstatus, deltype = a16$deltype),
  notes = "metadat's dat.assink2016: effect sizes (esid) within studies; studies 4, 5 and 8 have one effect size")

## design() (common.R) is the design without its intercept, as the engine codes it.
full_design <- function(d, mods) cbind(rep(1, length(d$yi)), design(d, mods))

## ---------------------------------------------------------------- dense likelihood
## V = s1 Z Z' + diag(vi + s2); REML: P = W - W X (X'WX)^-1 X'W; ML uses W in the traces.
dense <- function(s, y, vi, X, Z, method) {
  k <- length(y); p <- ncol(X)
  ZZ <- tcrossprod(Z)
  V <- s[1] * ZZ + diag(vi + s[2])
  W <- chol2inv(chol(V))
  XtW <- crossprod(X, W); A <- solve(XtW %*% X)
  P <- W - t(XtW) %*% A %*% XtW
  Q <- if (method == "REML") P else W
  Py <- P %*% y
  Vr <- list(ZZ, diag(k))
  g <- sapply(1:2, function(r) -0.5 * sum(Q * t(Vr[[r]])) + 0.5 * drop(crossprod(Py, Vr[[r]] %*% Py)))
  H <- matrix(0, 2, 2)
  for (r in 1:2) for (t in 1:2)
    H[r, t] <- 0.5 * sum(diag(Q %*% Vr[[r]] %*% Q %*% Vr[[t]])) -
      drop(crossprod(Py, Vr[[r]] %*% P %*% Vr[[t]] %*% Py))
  ldV <- determinant(V)$modulus; ypy <- drop(crossprod(y, Py))
  ll <- if (method == "REML")
    -0.5 * (k - p) * log(2 * pi) + 0.5 * determinant(crossprod(X))$modulus - 0.5 * ldV -
      0.5 * determinant(XtW %*% X)$modulus - 0.5 * ypy
  else -0.5 * k * log(2 * pi) - 0.5 * ldV - 0.5 * ypy
  list(g = g, H = H, ll = as.numeric(ll))
}

newton <- function(s, y, vi, X, Z, method, free = c(TRUE, TRUE), interior = TRUE) {
  for (it in 1:100) {
    d <- dense(s, y, vi, X, Z, method)
    step <- rep(0, 2)
    step[free] <- -solve(d$H[free, free, drop = FALSE], d$g[free])
    ## A profile's one free component whose optimum is at 0 (score <= 0 there) is set to 0.
    if (!interior && any(s + step < 0)) {
      z <- s; z[free] <- 0
      if (dense(z, y, vi, X, Z, method)$g[free] <= 0) return(z)
    }
    for (h in 1:60) if (all(s + step >= 0)) break else step <- step / 2
    s <- s + step
    if (all(abs(step) <= 1e-14 * abs(s))) break
  }
  if (any(abs(step) > 1e-10 * abs(s))) stop("Newton did not converge")
  if (interior && any(s <= 0)) stop("the optimum is not interior")
  s
}

profile_ci <- function(s_hat, r, y, vi, X, Z, method, level) {
  llmax <- dense(s_hat, y, vi, X, Z, method)$ll
  target <- llmax - qchisq(level, 1) / 2
  free <- c(TRUE, TRUE); free[r] <- FALSE
  o <- 3 - r
  ## The profile: the other component maximized by optimize() on [0, 10 + 100 max(s_hat)],
  ## then polished by Newton on the dense score (or set to 0 where its score there is <= 0).
  pl <- function(x) {
    s <- s_hat; s[r] <- x
    f <- function(t) { s[o] <- t; dense(s, y, vi, X, Z, method)$ll }
    s[o] <- optimize(f, c(0, 10 + 100 * max(s_hat)), maximum = TRUE, tol = 1e-12)$maximum
    z <- s; z[o] <- 0
    if (dense(z, y, vi, X, Z, method)$g[o] <= 0 && f(0) >= f(s[o])) s <- z
    else for (it in 1:50) {
      d <- dense(s, y, vi, X, Z, method)
      step <- -d$g[o] / d$H[o, o]
      s[o] <- s[o] + step
      if (abs(step) <= 1e-14 * abs(s[o])) break
    }
    dense(s, y, vi, X, Z, method)$ll - target
  }
  lo <- if (pl(0) >= 0) 0 else uniroot(pl, c(0, s_hat[r]), tol = 1e-14, maxiter = 10000)$root
  hi_end <- max(10, 100 * s_hat[r])
  hi <- if (pl(hi_end) >= 0) NA else uniroot(pl, c(s_hat[r], hi_end), tol = 1e-14, maxiter = 10000)$root
  c(lo, hi)
}

## ---------------------------------------------------------------- fits
mv_fit <- function(d, mods, method, test, sigma2 = NULL) {
  dat <- data.frame(yi = d$yi, vi = d$vi, study = d$study, es = d$ids)
  X <- design(d, mods)
  if (is.null(X)) rma.mv(yi, vi, random = ~ 1 | study/es, data = dat, method = method,
                        test = test, level = LEVEL * 100, sigma2 = sigma2, control = CTRL_MV)
  else rma.mv(yi, vi, mods = X, random = ~ 1 | study/es, data = dat, method = method,
              test = test, level = LEVEL * 100, sigma2 = sigma2, control = CTRL_MV)
}

multilevel_row <- function(d, mods, method, test, ci = TRUE) {
  free <- mv_fit(d, mods, method, test)
  X <- full_design(d, mods)
  Z <- model.matrix(~ 0 + factor(d$study))
  s <- newton(free$sigma2, d$yi, d$vi, X, Z, method)
  dn <- dense(s, d$yi, d$vi, X, Z, method)
  fit <- mv_fit(d, mods, method, test, sigma2 = s)
  row <- list(data = d$name, mods = I(mods), method = method, test = test, level = LEVEL,
              k = fit$k, p = fit$p, names = I(c("intercept", colnames(design(d, mods)))),
              sigma2 = I(s), metafor_free_sigma2 = I(free$sigma2),
              newton_score = I(dn$g), dense_loglik = dn$ll,
              loglik = as.numeric(logLik(fit)),
              beta = I(as.numeric(fit$beta)), se = I(unname(fit$se)), zval = I(unname(fit$zval)),
              pval = I(unname(fit$pval)), ci_lb = I(unname(fit$ci.lb)), ci_ub = I(unname(fit$ci.ub)),
              ddf = if (test == "t") num1(fit$ddf[1]) else NA,
              QE = num1(fit$QE), QEdf = fit$k - fit$p, QEp = num1(fit$QEp),
              QM = num1(fit$QM), QMdf = I(as.numeric(fit$QMdf)), QMp = num1(fit$QMp),
              n_studies = length(unique(d$study)))
  if (length(mods) == 0) {
    pr <- predict(fit)
    row$pred <- list(pred = num1(pr$pred), se = num1(pr$se), ci_lb = num1(pr$ci.lb),
                     ci_ub = num1(pr$ci.ub), pi_lb = num1(pr$pi.lb), pi_ub = num1(pr$pi.ub))
  }
  if (ci) {
    row$sigma2_ci <- list(I(profile_ci(s, 1, d$yi, d$vi, X, Z, method, LEVEL)),
                          I(profile_ci(s, 2, d$yi, d$vi, X, Z, method, LEVEL)))
    mc <- confint(free, control = CONFINT)
    row$metafor_confint <- list(I(as.numeric(mc[[1]]$random[1, 2:3])),
                                I(as.numeric(mc[[2]]$random[1, 2:3])))
  }
  row
}

## ---------------------------------------------------------------- robust
robust_rows <- function(fit, cluster) {
  ct <- coef_test(fit, vcov = "CR2", cluster = cluster, test = "Satterthwaite")
  ci <- conf_int(fit, vcov = "CR2", cluster = cluster, level = LEVEL)
  ## robust() looks its cluster argument up by name (in the fit's data, then globally).
  assign(".robust_cluster", cluster, envir = globalenv())
  r1 <- robust(fit, cluster = .robust_cluster, adjust = TRUE)
  list(cr2 = list(beta = I(as.numeric(ct$beta)), se = I(as.numeric(ct$SE)),
                  tstat = I(as.numeric(ct$tstat)), df = I(as.numeric(ct$df_Satt)),
                  p = I(as.numeric(ct$p_Satt)), ci_lb = I(as.numeric(ci$CI_L)),
                  ci_ub = I(as.numeric(ci$CI_U))),
       cr1 = list(beta = I(as.numeric(r1$beta)), se = I(as.numeric(r1$se)),
                  tstat = I(as.numeric(r1$zval)), df = num1(r1$ddf[1]),
                  p = I(as.numeric(r1$pval)), ci_lb = I(as.numeric(r1$ci.lb)),
                  ci_ub = I(as.numeric(r1$ci.ub)), n_clusters = r1$n))
}

robust_uni <- function(d, mods, method, test) {
  X <- design(d, mods)
  fit <- if (is.null(X)) rma(d$yi, d$vi, method = method, test = test, control = CTRL)
         else rma(d$yi, d$vi, mods = X, method = method, test = test, control = CTRL)
  c(list(data = d$name, model = "uni", mods = I(mods), method = method, test = test,
         level = LEVEL, tau2 = num1(fit$tau2), cluster = "study"),
    robust_rows(fit, d$study))
}

robust_mv <- function(d, mods, method, test) {
  free <- mv_fit(d, mods, method, test)
  X <- full_design(d, mods)
  Z <- model.matrix(~ 0 + factor(d$study))
  s <- newton(free$sigma2, d$yi, d$vi, X, Z, method)
  fit <- mv_fit(d, mods, method, test, sigma2 = s)
  c(list(data = d$name, model = "multilevel", mods = I(mods), method = method, test = test,
         level = LEVEL, sigma2 = I(s), cluster = "study"),
    robust_rows(fit, d$study))
}

MODELS <- list(
  list(data = "konstantopoulos2011", mods = character(0)),
  list(data = "konstantopoulos2011", mods = c("year")),
  list(data = "assink2016", mods = character(0)),
  list(data = "assink2016", mods = c("year", "pubstatus")),
  list(data = "assink2016", mods = c("deltype")))

multilevel <- list(); robust_list <- list()
for (m in MODELS) for (method in c("REML", "ML")) for (test in c("z", "t")) {
  d <- datasets[[m$data]]
  multilevel[[length(multilevel) + 1]] <- multilevel_row(d, m$mods, method, test, ci = test == "z")
  robust_list[[length(robust_list) + 1]] <- robust_mv(d, m$mods, method, test)
}
for (m in MODELS) for (method in c("REML", "DL")) {
  d <- datasets[[m$data]]
  robust_list[[length(robust_list) + 1]] <- robust_uni(d, m$mods, method, "z")
}

res <- list(
  conventions = list(
    model = "rma.mv(yi, vi, random = ~ 1 | study/es) with es the record's id: sigma2[1] between studies, sigma2[2] within",
    sigma2 = "the exact optimum by Newton on the dense score from metafor's free fit (metafor_free_sigma2); every other multilevel number is metafor's with sigma2 fixed there",
    sigma2_ci = "profile-likelihood bounds solved with the dense functions (metafor_confint: confint(fit) beside them); NA upper: beyond max(10, 100 sigma2)",
    cr2 = "clubSandwich coef_test(fit, vcov = 'CR2', cluster = study, test = 'Satterthwaite') and conf_int(..., level)",
    cr1 = "metafor robust(fit, cluster = study, adjust = TRUE): vb * m/(m - p), t with m - p df"),
  datasets = lapply(unname(datasets), function(d) list(
    name = d$name, ids = I(d$ids), yi = I(d$yi), vi = I(d$vi), study = I(d$study),
    columns = lapply(d$columns, I), notes = d$notes)),
  multilevel = multilevel, robust = robust_list)

write_fixture(res, out_path,
  data = list(metadat = metadat_source(c("dat.konstantopoulos2011", "dat.assink2016"))),
  control = list(rma = CTRL, rma_mv = CTRL_MV, confint = CONFINT, newton_step = 1e-14,
                 uniroot_tol = 1e-14))
