#!/usr/bin/env Rscript
## Golden fixtures for the meta-analysis engine, produced with metafor.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/metafor_fixtures.R \
##       crates/exemplar/data/dat.raudenbush1985.csv \
##       crates/meta-analysis/tests/fixtures/metafor.json
##
## Requires the R package metafor (developed against 3.8-1; Debian: r-cran-metafor).
## All numbers are written with 17 significant digits (sprintf("%.17g")) by common.R's
## writer (jsonlite caps numeric output at 15 digits), after a `provenance` object naming the
## versions, the data and the control settings.

suppressPackageStartupMessages({
  library(metafor)
})
## The oracle kit beside this script: JSON writer, helpers, write_fixture() and provenance.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: metafor_fixtures.R <dat.raudenbush1985.csv> <out.json>")
csv_path <- args[1]
out_path <- args[2]

## ---------------------------------------------------------------- controls
## threshold/maxiter: Fisher scoring (ML, REML).
## tol/maxiter: uniroot() used by PM (and EB/GENQ); tol is absolute on tau^2.
## tau2.max: upper end of the uniroot() bracket for PM (default in 3.8-1 is
##   max(100, 10*...) which is too small for the large-variance dataset).
CTRL <- list(threshold = 1e-12, maxiter = 10000, tol = 1e-14, tau2.max = 1e7)

METHODS <- c("EE", "ML", "REML", "DL", "HE", "SJ", "PM")
TESTS <- c("z", "knha")

## ---------------------------------------------------------------- datasets
raw <- read_oracle_csv(csv_path)
datasets <- list()
datasets[[length(datasets) + 1]] <- list(
  name = "raudenbush1985", ids = raw$id, yi = raw$yi, vi = raw$vi, egger_ok = TRUE,
  notes = "dat.raudenbush1985 (teacher expectancy, SMD); yi/vi read from the shared CSV")

set.seed(20240601)
gen <- function(name, yi, vi, notes, egger_ok = TRUE) {
  yi <- signif(yi, 6); vi <- signif(vi, 6)
  list(name = name, ids = paste0("g", seq_along(yi)), yi = yi, vi = vi,
       egger_ok = egger_ok, notes = notes)
}
sim <- function(k, mu, tau2, vlo, vhi) {
  vi <- runif(k, vlo, vhi)
  yi <- rnorm(k, mu, sqrt(vi + tau2))
  list(yi = yi, vi = vi)
}
add <- function(d) datasets[[length(datasets) + 1]] <<- d

for (k in c(2, 3, 5, 10, 30, 100, 300)) {
  s <- sim(k, 0.3, 0.05, 0.005, 0.2)
  add(gen(paste0("k", k), s$yi, s$vi,
          sprintf("simulated: k=%d, mu=0.3, tau2=0.05, vi~U(0.005,0.2)", k)))
}
## homogeneous: tiny spread relative to vi -> Q << k-1 -> tau2 = 0 for ML/REML/DL/HE/PM
vi <- runif(8, 0.02, 0.1)
yi <- 0.2 + rnorm(8, 0, 0.05 * sqrt(vi))
add(gen("homogeneous", yi, vi, "tau2 at the 0 boundary (Q << k-1); yi = 0.2 + N(0, (0.05 sd_i)^2)"))
## very large sampling variances
s <- sim(12, 5, 2000, 1e3, 1e4)
add(gen("large_vi", s$yi, s$vi, "vi ~ U(1e3, 1e4), tau2 = 2000, mu = 5"))
## very small sampling variances
vi <- 10^runif(12, -6, -4)
yi <- rnorm(12, 0.1, sqrt(vi + 1e-5))
add(gen("small_vi", yi, vi, "vi = 10^U(-6,-4), tau2 = 1e-5, mu = 0.1"))
## one dominant study
vi <- runif(10, 0.05, 0.1); vi[1] <- min(vi[-1]) / 1000
yi <- rnorm(10, 0.4, sqrt(vi + 0.02))
add(gen("dominant", yi, vi, paste(
  "study g1 has vi 1000x smaller than the smallest other vi.",
  "ML log-likelihood is bimodal here: Fisher scoring (started at the HE value) converges to a local",
  "maximum tau2 ~ 0.0345691, but its log-likelihood is below that at tau2 = 0, so metafor's ll0check",
  "resets tau2 to 0 with a warning (the ML fits therefore report tau2 = 0).")))
## strong heterogeneity
s <- sim(15, 0.5, 1, 0.01, 0.05)
add(gen("strong_het", s$yi, s$vi, "tau2 = 1 with vi ~ U(0.01, 0.05)"))
## equal variances (Egger undefined)
yi <- rnorm(10, 0.2, sqrt(0.04 + 0.03))
add(gen("equal_vi", yi, rep(0.04, 10), "all vi equal (0.04): Egger regression undefined -> egger null",
        egger_ok = FALSE))

## ---------------------------------------------------------------- helpers
BOUNDARY <- 1e-10
fit_one <- function(yi, vi, method, test, level) {
  warns <- character(0)
  fit <- withCallingHandlers(
    rma(yi, vi, method = method, test = test, level = level, control = CTRL),
    warning = function(w) { warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") })
  # metafor's Fisher scoring halves steps that would cross 0, so a REML/ML
  # estimate whose exact value is the boundary ends as a tiny positive number
  # (~1e-13). Where that happens, refit with tau2 fixed at the exact boundary 0
  # so the fixture holds metafor's numbers at the exact optimum; se_tau2 is
  # kept from the unconstrained fit (metafor gives none for a fixed tau2).
  unconstrained <- fit  # leave1out() and regtest() refit from this one
  boundary <- method %in% c("ML", "REML") && fit$tau2 > 0 && fit$tau2 < BOUNDARY
  if (boundary) {
    se_tau2 <- fit$se.tau2
    fit <- rma(yi, vi, method = method, test = test, level = level, tau2 = 0, control = CTRL)
    fit$se.tau2 <- se_tau2
    warns <- c(warns, sprintf("boundary: metafor's estimate was below %g; refitted with tau2 = 0", BOUNDARY))
  }
  pr <- predict(fit, level = level)
  pi_lb <- if (is.null(pr$pi.lb)) pr$ci.lb else pr$pi.lb
  pi_ub <- if (is.null(pr$pi.ub)) pr$ci.ub else pr$pi.ub
  list(fit = unconstrained, row = list(
    method = method, test = test, level = level, k = fit$k,
    tau2 = num1(fit$tau2), se_tau2 = num1(fit$se.tau2),
    estimate = num1(fit$beta[1]), se = num1(fit$se),
    zval = num1(fit$zval), pval = num1(fit$pval),
    ci_lb = num1(fit$ci.lb), ci_ub = num1(fit$ci.ub),
    pi_lb = num1(pi_lb), pi_ub = num1(pi_ub),
    pred_se = num1(pr$se),
    QE = num1(fit$QE), QEp = num1(fit$QEp),
    I2 = num1(fit$I2), H2 = num1(fit$H2),
    ddf = if (test == "z") NA else num1(fit$ddf),
    warnings = if (length(warns)) I(warns) else NA))
}

egger <- function(d, fit_reml) {
  if (!d$egger_ok || length(d$yi) < 3) return(list(classic = NA, rma = NA))
  yi <- d$yi; vi <- d$vi; sei <- sqrt(vi)
  rl <- regtest(fit_reml, model = "lm")
  lmf <- summary(lm(I(yi / sei) ~ I(1 / sei)))$coefficients
  classic <- list(
    zval = num1(rl$zval), pval = num1(rl$pval), dfs = num1(rl$dfs),
    limit_est = num1(rl$est), limit_ci_lb = num1(rl$ci.lb), limit_ci_ub = num1(rl$ci.ub),
    intercept = num1(lmf[1, 1]), intercept_se = num1(lmf[1, 2]),
    slope = num1(lmf[2, 1]), slope_se = num1(lmf[2, 2]))
  rr <- regtest(fit_reml, model = "rma", predictor = "sei")
  mr <- rma(yi, vi, mods = ~ sqrt(vi), method = "REML", control = CTRL)
  if (mr$tau2 > 0 && mr$tau2 < BOUNDARY) {
    # the exact REML optimum is the boundary (see fit_one)
    mr <- rma(yi, vi, mods = ~ sqrt(vi), method = "REML", tau2 = 0, control = CTRL)
    rr <- list(zval = mr$zval[2], pval = mr$pval[2], dfs = NA, fit = mr, est = mr$beta[1])
  }
  rmav <- list(
    zval = num1(rr$zval), pval = num1(rr$pval), dfs = num1(rr$dfs),
    coef_sei = num1(rr$fit$beta[2]), se_sei = num1(rr$fit$se[2]),
    tau2 = num1(rr$fit$tau2), limit_est = num1(rr$est),
    # regtest()'s limit CI is the intercept's of this same model (sqrt(vi) is sei)
    limit_ci_lb = num1(mr$ci.lb[1]), limit_ci_ub = num1(mr$ci.ub[1]),
    metareg = list(tau2 = num1(mr$tau2), se_tau2 = num1(mr$se.tau2),
                   coef = I(unname(as.numeric(mr$beta))), se = I(unname(mr$se)),
                   zval = I(unname(mr$zval)), pval = I(unname(mr$pval)),
                   QE = num1(mr$QE), QEp = num1(mr$QEp),
                   QM = num1(mr$QM), QMp = num1(mr$QMp),
                   I2 = num1(mr$I2), H2 = num1(mr$H2)))
  list(classic = classic, rma = rmav)
}

l1o <- function(fit) {
  l <- leave1out(fit)
  # boundary estimates refitted at exactly tau2 = 0 (see fit_one)
  if (fit$method %in% c("ML", "REML")) for (i in seq_along(l$tau2)) {
    if (l$tau2[i] > 0 && l$tau2[i] < BOUNDARY) {
      f0 <- rma(fit$yi[-i], fit$vi[-i], method = fit$method, test = fit$test, tau2 = 0, control = CTRL)
      l$estimate[i] <- f0$beta[1]; l$se[i] <- f0$se; l$zval[i] <- f0$zval; l$pval[i] <- f0$pval
      l$ci.lb[i] <- f0$ci.lb; l$ci.ub[i] <- f0$ci.ub; l$tau2[i] <- 0
      l$Q[i] <- f0$QE; l$Qp[i] <- f0$QEp; l$I2[i] <- f0$I2; l$H2[i] <- f0$H2
    }
  }
  g <- function(n) if (is.null(l[[n]])) NA else I(unname(as.numeric(l[[n]])))
  list(estimate = g("estimate"), se = g("se"), zval = g("zval"), pval = g("pval"),
       ci_lb = g("ci.lb"), ci_ub = g("ci.ub"), tau2 = g("tau2"),
       QE = g("Q"), QEp = g("Qp"), I2 = g("I2"), H2 = g("H2"))
}

## ---------------------------------------------------------------- main loop
out_ds <- list()
for (d in datasets) {
  fits <- list(); fit_reml <- NULL; fit_ee <- NULL
  for (m in METHODS) for (t in TESTS) {
    r <- fit_one(d$yi, d$vi, m, t, 0.95)
    fits[[length(fits) + 1]] <- r$row
    if (m == "REML" && t == "z") fit_reml <- r$fit
    if (m == "EE" && t == "z") fit_ee <- r$fit
  }
  if (d$name == "raudenbush1985") for (t in TESTS)
    fits[[length(fits) + 1]] <- fit_one(d$yi, d$vi, "REML", t, 0.90)$row
  k <- length(d$yi)
  do_l1o <- k > 2 && k < 300
  out_ds[[length(out_ds) + 1]] <- list(
    name = d$name, ids = I(d$ids), yi = I(d$yi), vi = I(d$vi), k = k,
    fits = fits,
    egger = egger(d, fit_reml),
    leave1out = list(REML = if (do_l1o) l1o(fit_reml) else NA,
                     EE = if (do_l1o) l1o(fit_ee) else NA),
    notes = d$notes)
}

res <- list(
  conventions = list(
    EE = "method 'EE': predict() returns no PI for EE/FE/CE models; pi_lb/pi_ub here are set to ci_lb/ci_ub. I2 = max(0, 100*(QE-(k-1))/QE), H2 = QE/(k-1). knha with EE gives a warning but is computed (recorded in 'warnings').",
    I2_H2_RE = "non-EE methods: vt = (k-1)/tr(P), P = W - W 1 (1'W1)^-1 1'W, W = diag(1/vi), i.e. vt = (k-1) sum(w)/(sum(w)^2 - sum(w^2)); I2 = 100*tau2/(vt+tau2); H2 = 1 + tau2/vt",
    SJ = "one-step: tau2_0 = var(yi)*(k-1)/k (mean-centred, divisor k), tau2 = tau2_0 * Q_w(tau2_0)/(k-1) with weights 1/(vi+tau2_0)",
    ML_REML = "Fisher scoring started at max(0, HE estimate); step halved while tau2+step < 0 (so boundary solutions end as tiny positive numbers ~threshold); converged when |change| < threshold; ll0check: if loglik(tau2=0) - loglik(tau2_hat) > control$tol (and tau2_hat > threshold) tau2 is reset to 0",
    PM = "tau2 = 0 if Q_gen(0) < k-1, else uniroot(Q_gen(tau2) - (k-1), c(0, tau2.max), tol = control$tol)",
    knha = "s2w = sum(wi*(yi-b)^2)/(k-1) with wi = 1/(vi+tau2) (NOT truncated at 1; 'adhoc' truncates); se = sqrt(s2w/sum(wi)); t quantile with df k-1 for CI and p value",
    pi = "predict(): pi = b +/- crit*sqrt(se^2 + tau2) where se is the (knha-scaled, if knha) SE of b and crit = qnorm for test z, qt(df=k-1) for knha",
    se_tau2 = "ML sqrt(2/sum(w^2)); REML sqrt(2/sum(P*P)) (P = RE projection); DL sqrt((2(k-1) + 4 tau2 trP + 2 tau2^2 sum(P*P))/trP^2) with FE P; HE sqrt((2 sum(PV*t(PV)) + 4 tau2 tr(PV) + 2 tau2^2 (k-1))/(k-1)^2) with unweighted P; SJ sqrt(tau2_0^2/(k-1)^2 (2 sum(PV*t(PV)) + 4 tau2 sum(PV*P) + 2 tau2^2 sum(P*P))) with P at tau2_0; PM sqrt(2 k^2/(k-1)/sum(w)^2), w = 1/(vi+tau2)",
    egger_classic = "regtest(model='lm'): lm(yi ~ sei, weights = 1/vi); zval = t of the sei coefficient (= intercept of lm(yi/sei ~ 1/sei)), dfs = k-2; limit_est = coefficient of the intercept column (= Egger slope)",
    leave1out = "leave1out(fit) refits with the same method/test/control on k-1 studies; for EE metafor reports no tau2 column (tau2 = null); I2/H2 follow the rules above per refit",
    egger_rma = "regtest(model='rma', predictor='sei'): rma.uni(yi, vi, mods = cbind(1, sei), method/test/control of the REML fit)"),
  datasets = out_ds)

write_fixture(res, out_path,
  data = list(csv = csv_source(csv_path),
              simulated = "set.seed(20240601), then runif/rnorm in this script (rounded to 6 significant digits)"),
  control = c(CTRL, list(
    note = paste("control list passed to every rma() call (also reused by regtest/leave1out via x$control);",
                 "threshold/maxiter: Fisher scoring for ML/REML; tol/maxiter/tau2.max: uniroot() for PM"))))
