#!/usr/bin/env Rscript
## Golden fixtures for meta-regression, subgroup analysis and Q-profile intervals,
## produced with metafor.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/metafor_metareg.R \
##       crates/exemplar/data/dat.raudenbush1985.csv \
##       crates/meta-analysis/tests/fixtures/metareg.json
##
## Requires the R package metafor (developed against 3.8-1; Debian: r-cran-metafor).
## Numbers are written with 17 significant digits by common.R's writer, after a `provenance`
## object naming the versions, the data and the control settings.

suppressPackageStartupMessages(library(metafor))
## The oracle kit beside this script: JSON writer, helpers, write_fixture() and provenance.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: metafor_metareg.R <dat.raudenbush1985.csv> <out.json>")
raw <- read_oracle_csv(args[1])
out_path <- args[2]

## ---------------------------------------------------------------- controls
## threshold/maxiter/stepadj: Fisher scoring (ML, REML), run to a tight threshold.
## tol/tau2.max: uniroot() of PM. CONFINT: uniroot() of the Q-profile bounds.
CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5, tol = 1e-14, tau2.max = 1e7)
CONFINT <- list(tol = 1e-13, maxiter = 10000)
METHODS <- c("REML", "ML", "DL", "HE", "SJ", "PM", "EE")
TESTS <- c("z", "knha")
BOUNDARY <- 1e-9

## ---------------------------------------------------------------- datasets
## Each dataset: ids, yi, vi and named moderator columns (numeric or character).
datasets <- list()
add <- function(d) datasets[[d$name]] <<- d

add(list(name = "raudenbush1985", ids = raw$id, yi = raw$yi, vi = raw$vi,
         columns = list(weeks = raw$weeks, year = raw$year, setting = raw$setting,
                        tester = raw$tester, n1i = raw$n1i, n2i = raw$n2i,
                        weeks_capped = pmin(raw$weeks, 3)),
         notes = "dat.raudenbush1985 from the exemplar's CSV; weeks_capped = pmin(weeks, 3) (Raudenbush 1984's capped moderator), passed to the engine as custom records"))

set.seed(20260213)
k <- 30
x1 <- signif(runif(k, 0, 10), 6)
x2 <- signif(rnorm(k), 6)
grp <- sample(c("a", "b", "c"), k, replace = TRUE)
site <- c(sample(c("n", "s"), k - 1, replace = TRUE), "w")
vi <- signif(runif(k, 0.01, 0.1), 6)
yi <- signif(0.2 + 0.05 * x1 - 0.1 * x2 + c(a = 0, b = 0.3, c = -0.2)[grp] +
               rnorm(k, 0, 0.2) + rnorm(k, 0, sqrt(vi)), 6)
add(list(name = "generated", ids = paste0("g", seq_len(k)), yi = unname(yi), vi = vi,
         columns = list(x1 = x1, x2 = x2, grp = grp, site = site),
         notes = "k = 30: yi = 0.2 + 0.05 x1 - 0.1 x2 + (0, 0.3, -0.2 for grp a, b, c) + N(0, 0.04) + N(0, vi); site has a level (w) with one record"))

x <- signif(c(1.5, 3.2, 4.1, 6.3, 8.8), 6)
vi <- signif(runif(5, 0.02, 0.08), 6)
yi <- signif(0.1 + 0.08 * x + rnorm(5, 0, 0.15) + rnorm(5, 0, sqrt(vi)), 6)
add(list(name = "k5", ids = paste0("f", 1:5), yi = yi, vi = vi, columns = list(x = x),
         notes = "k = 5, one numeric moderator"))

vi <- signif(runif(8, 0.02, 0.06), 6)
yi <- signif(0.3 + rnorm(8, 0, 0.2 * sqrt(vi)), 6)
add(list(name = "homogeneous", ids = paste0("h", 1:8), yi = yi, vi = vi, columns = list(),
         notes = "Q below the lower chi2 quantile: both Q-profile bounds at 0 (the null set)"))
vi <- signif(runif(8, 0.02, 0.06), 6)
yi <- signif(0.3 + rnorm(8, 0, 1.4 * sqrt(vi)), 6)
add(list(name = "mild", ids = paste0("m", 1:8), yi = yi, vi = vi, columns = list(),
         notes = "Q near k - 1: the lower Q-profile bound at 0, the upper a root"))

## ---------------------------------------------------------------- helpers
## design() (common.R): the design without its intercept, in the engine's coding.
quiet_rma <- function(...) {
  warns <- character(0)
  fit <- withCallingHandlers(rma(...), warning = function(w) {
    warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") })
  list(fit = fit, warnings = warns)
}

## rma with the exact boundary: metafor's Fisher scoring halves steps that would cross 0, so
## an estimate whose exact value is 0 ends as a tiny positive number; refit with tau2 = 0
## there (se_tau2 kept from the free fit, metafor gives none for a fixed tau2).
fit_exact <- function(yi, vi, X, method, test, level) {
  r <- if (is.null(X)) quiet_rma(yi, vi, method = method, test = test, level = level, control = CTRL)
       else quiet_rma(yi, vi, mods = X, method = method, test = test, level = level, control = CTRL)
  fit <- r$fit; warns <- r$warnings; boundary <- FALSE
  if (method %in% c("ML", "REML") && fit$tau2 > 0 && fit$tau2 < BOUNDARY) {
    se <- fit$se.tau2
    fit <- if (is.null(X)) rma(yi, vi, method = method, test = test, level = level, tau2 = 0, control = CTRL)
           else rma(yi, vi, mods = X, method = method, test = test, level = level, tau2 = 0, control = CTRL)
    fit$se.tau2 <- se
    boundary <- TRUE
    warns <- c(warns, sprintf("boundary: metafor's tau2 was below %g; refitted with tau2 = 0", BOUNDARY))
  }
  list(fit = fit, warnings = warns, boundary = boundary)
}

metareg_row <- function(d, mods, method, test, level, at, centre_r2 = FALSE) {
  X <- design(d, mods)
  r <- fit_exact(d$yi, d$vi, X, method, test, level)
  fit <- r$fit
  ## metafor's pseudo-R2 (r2def "1"; for EE the adjusted R2 of the weighted regression).
  ## Recomputed with the same formula where an exact boundary was restored in either model.
  r0 <- fit_exact(d$yi, d$vi, NULL, method, test, level)
  R2 <- num1(fit$R2); r2_note <- "metafor's R2"
  if (centre_r2) {
    ## R2 divides a difference of two tau2s by one of them, so it magnifies their rounding:
    ## with uncentred columns like year (~1970) X'WX is ill-conditioned and metafor's tau2
    ## carries ~1e-10 relative error, ~4e-9 in R2. The same model with centred columns.
    Xc <- scale(X, center = TRUE, scale = FALSE)
    R2 <- num1(fit_exact(d$yi, d$vi, Xc, method, test, level)$fit$R2)
    r2_note <- "metafor's R2 of the same model with the moderator columns centred (better conditioned)"
  }
  if (method != "EE" && (r$boundary || r0$boundary)) {
    R2 <- if (r0$fit$tau2 == 0) 0 else max(0, 100 * (r0$fit$tau2 - fit$tau2) / r0$fit$tau2)
    r2_note <- "recomputed: 100 * max(0, (tau2_0 - tau2) / tau2_0), 0 when tau2_0 = 0, with exact-boundary tau2s"
  }
  preds <- list()
  for (a in at) {
    newmods <- design(list(columns = lapply(setNames(mods, mods), function(m) {
      v <- d$columns[[m]]
      if (is.character(v)) c(a[[m]], sort(unique(v), method = "radix")) else c(a[[m]], v)
    })), mods)[1, , drop = FALSE]
    pr <- predict(fit, newmods = newmods, level = level)
    preds[[length(preds) + 1]] <- list(
      at = a, pred = num1(pr$pred), se = num1(pr$se), ci_lb = num1(pr$ci.lb), ci_ub = num1(pr$ci.ub),
      pi_lb = num1(if (is.null(pr$pi.lb)) pr$ci.lb else pr$pi.lb),
      pi_ub = num1(if (is.null(pr$pi.ub)) pr$ci.ub else pr$pi.ub))
  }
  list(mods = I(mods), method = method, test = test, level = level, k = fit$k, p = fit$p,
       names = I(c("intercept", colnames(X))),
       tau2 = num1(fit$tau2), se_tau2 = num1(fit$se.tau2),
       beta = I(as.numeric(fit$beta)), se = I(unname(fit$se)), zval = I(unname(fit$zval)),
       pval = I(unname(fit$pval)), ci_lb = I(unname(fit$ci.lb)), ci_ub = I(unname(fit$ci.ub)),
       ddf = if (test == "z") NA else num1(fit$ddf),
       QM = num1(fit$QM), QMdf = I(as.numeric(fit$QMdf)), QMp = num1(fit$QMp),
       QE = num1(fit$QE), QEp = num1(fit$QEp), I2 = num1(fit$I2), H2 = num1(fit$H2),
       R2 = R2, r2_note = r2_note, predictions = preds,
       warnings = if (length(r$warnings)) I(r$warnings) else NA)
}

subgroup_row <- function(d, by, method, test, level) {
  g <- d$columns[[by]]
  levels <- sort(unique(g), method = "radix")
  groups <- list(); est <- c(); se <- c()
  for (l in levels) {
    s <- g == l
    r <- fit_exact(d$yi[s], d$vi[s], NULL, method, test, level)
    f <- r$fit
    groups[[length(groups) + 1]] <- list(
      level = l, k = f$k, estimate = num1(f$beta), se = num1(f$se), zval = num1(f$zval),
      pval = num1(f$pval), ci_lb = num1(f$ci.lb), ci_ub = num1(f$ci.ub), tau2 = num1(f$tau2),
      QE = num1(f$QE), I2 = num1(f$I2), test = f$test,
      warnings = if (length(r$warnings)) I(r$warnings) else NA)
    est <- c(est, f$beta[1]); se <- c(se, f$se)
  }
  ## The test for subgroup differences: Cochran's Q of the subgroup estimates.
  between <- rma(est, sei = se, method = "EE")
  X <- design(d, by)
  common <- fit_exact(d$yi, d$vi, X, method, test, level)$fit
  list(by = by, method = method, test = test, level = level, groups = groups,
       Q_between = num1(between$QE), Q_between_df = length(levels) - 1, Q_between_p = num1(between$QEp),
       QM_common = num1(common$QM), QMp_common = num1(common$QMp))
}

confint_row <- function(d, method, level) {
  fit <- fit_exact(d$yi, d$vi, NULL, method, "z", level)$fit
  ## confint() needs an estimated tau2: the free fit (the bounds do not depend on it).
  free <- quiet_rma(d$yi, d$vi, method = method, level = level, control = CTRL)$fit
  ci <- confint(free, control = CONFINT)
  rnd <- ci$random
  list(method = method, level = level, tau2 = num1(fit$tau2), Q = num1(fit$QE),
       tau2_ci = I(as.numeric(rnd["tau^2", 2:3])), tau_ci = I(as.numeric(rnd["tau", 2:3])),
       I2_ci = I(as.numeric(rnd["I^2(%)", 2:3])), H2_ci = I(as.numeric(rnd["H^2", 2:3])),
       I2 = num1(fit$I2), H2 = num1(fit$H2),
       lb_sign = ci$lb.sign, ub_sign = ci$ub.sign, ci_null = ci$ci.null)
}

## ---------------------------------------------------------------- what is fitted
MODELS <- list(
  list(data = "raudenbush1985", mods = c("weeks"),
       at = list(list(weeks = 0), list(weeks = 1), list(weeks = 3), list(weeks = 10))),
  list(data = "raudenbush1985", mods = c("tester"),
       at = list(list(tester = "aware"), list(tester = "blind"))),
  list(data = "raudenbush1985", mods = c("setting"), at = list(list(setting = "indiv"))),
  list(data = "raudenbush1985", mods = c("weeks", "tester", "setting"),
       at = list(list(weeks = 2, tester = "blind", setting = "group"),
                 list(weeks = 0, tester = "aware", setting = "indiv"))),
  list(data = "raudenbush1985", mods = c("year", "n1i", "n2i", "weeks"), centre_r2 = TRUE,
       at = list(list(year = 1970, n1i = 40, n2i = 40, weeks = 1))),
  list(data = "raudenbush1985", mods = c("weeks_capped"),
       at = list(list(weeks_capped = 0), list(weeks_capped = 3))),
  list(data = "generated", mods = c("x1", "x2", "grp"),
       at = list(list(x1 = 5, x2 = 0, grp = "a"), list(x1 = 2.5, x2 = -1, grp = "c"))),
  list(data = "k5", mods = c("x"), at = list(list(x = 5))))

models <- list()
for (m in MODELS) for (method in METHODS) for (test in TESTS) {
  row <- metareg_row(datasets[[m$data]], m$mods, method, test, 0.95, m$at, isTRUE(m$centre_r2))
  row$data <- m$data
  models[[length(models) + 1]] <- row
}
for (test in TESTS) {
  row <- metareg_row(datasets[["raudenbush1985"]], c("weeks"), "REML", test, 0.9, list(list(weeks = 2)))
  row$data <- "raudenbush1985"
  models[[length(models) + 1]] <- row
}

subgroups <- list()
for (s in list(c("raudenbush1985", "tester"), c("raudenbush1985", "setting"),
               c("generated", "grp"), c("generated", "site")))
  for (method in METHODS) for (test in TESTS) {
    row <- subgroup_row(datasets[[s[1]]], s[2], method, test, 0.95)
    row$data <- s[1]
    subgroups[[length(subgroups) + 1]] <- row
  }

intervals <- list()
for (dn in c("raudenbush1985", "generated", "k5", "homogeneous", "mild"))
  for (method in c("REML", "ML", "DL", "HE", "SJ", "PM")) for (level in c(0.95, 0.9)) {
    row <- confint_row(datasets[[dn]], method, level)
    row$data <- dn
    intervals[[length(intervals) + 1]] <- row
  }

res <- list(
  conventions = list(
    design = "intercept, then each moderator: numeric as is, character in treatment coding with levels sorted (radix, i.e. by bytes), the first the reference; mods passed to rma() as a matrix without the intercept column",
    boundary = "ML/REML estimates below `boundary` are refitted with tau2 = 0 (the exact optimum); se_tau2 kept from the free fit",
    R2 = "metafor's R2 (r2def 1; EE: adjusted R2 of lm(yi ~ X, weights = 1/vi)); recomputed by its formula where a boundary refit changed a tau2",
    EE_predict = "predict() gives no PI for EE: pi = ci",
    subgroups = "rma() per level with the same method/test/control (k = 1: metafor sets tau2 = 0 and test z); Q_between = rma(estimates, sei = se, method = 'EE')$QE with the subgroups' reported se; QM_common from rma(yi, vi, mods = factor design)",
    confint = "confint(fit, control = CONFINT) (Q-profile); fit with test z"),
  datasets = lapply(unname(datasets), function(d) list(
    name = d$name, ids = I(d$ids), yi = I(d$yi), vi = I(d$vi),
    columns = lapply(d$columns, I), notes = d$notes)),
  models = models, subgroups = subgroups, intervals = intervals)

write_fixture(res, out_path,
  data = list(csv = csv_source(args[1]),
              simulated = "set.seed(20260213), then runif/rnorm/sample in this script (rounded to 6 significant digits)"),
  control = list(rma = CTRL, confint = CONFINT, boundary = BOUNDARY))
