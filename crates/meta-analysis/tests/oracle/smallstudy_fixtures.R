#!/usr/bin/env Rscript
## Golden fixtures for the small-study and sensitivity analyses (trim-and-fill, the rank
## correlation test, fail-safe N, cumulative meta-analysis, influence diagnostics), produced
## with metafor. The influence diagnostics, with the z test and Knapp-Hartung's, are also
## made for dat.bcg's log risk ratios (`influence_datasets`: metadat's data, escalc("RR")).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/smallstudy_fixtures.R \
##       crates/exemplar/data/dat.raudenbush1985.csv \
##       crates/meta-analysis/tests/fixtures/smallstudy.json
##
## Requires metafor (developed against 3.8-1; Debian: r-cran-metafor). Numbers are written
## with 17 significant digits by common.R's writer, after a `provenance` object naming the
## versions, the data and the control settings.

suppressPackageStartupMessages({
  library(metafor)
})
## The oracle kit beside this script: JSON writer, helpers, write_fixture() and provenance.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: smallstudy_fixtures.R <dat.raudenbush1985.csv> <out.json>")
csv_path <- args[1]
out_path <- args[2]

## Tight controls for every rma() fit, also inside trimfill() (its `...` reaches every
## rma.uni() call it makes: the side regression, each trimmed fit and the final refit),
## influence() and cumul() (which reuse x$control).
CTRL <- list(threshold = 1e-12, maxiter = 10000, tol = 1e-14, tau2.max = 1e7)

## ---------------------------------------------------------------- datasets
raw <- read_oracle_csv(csv_path)
datasets <- list()
add <- function(d) datasets[[length(datasets) + 1]] <<- d
add(list(name = "raudenbush1985", ids = raw$id, yi = raw$yi, vi = raw$vi, year = raw$year,
         notes = "dat.raudenbush1985; year has ties (1968, 1969, 1970, 1971, 1972, 1973, 1974)"))

set.seed(20250114)
gen <- function(name, yi, vi, year, notes) {
  list(name = name, ids = sprintf("g%02d", seq_along(yi)), yi = signif(yi, 6),
       vi = signif(vi, 6), year = year, notes = notes)
}
## A strong small-study effect: effects grow with the standard error, and the small studies
## with small effects are missing.
vi <- runif(40, 0.004, 0.3)
yi <- 0.15 + 1.6 * sqrt(vi) + rnorm(40, 0, sqrt(vi + 0.01))
keep <- sqrt(vi) < 0.2 | yi > 0.45
add(gen("small_study", yi[keep], vi[keep], sample(1990:2000, sum(keep), replace = TRUE),
        "strong small-study effect: yi = 0.15 + 1.6 sqrt(vi) + N(0, vi + 0.01), small studies with yi <= 0.45 dropped"))
## Symmetric: pairs on either side of 0.3 with nearly equal distances and variances, plus
## the centre. (Exact mirror images would tie |yi - estimate| to the last bit, and the ranks
## of trim-and-fill would then depend on rounding.)
v <- runif(7, 0.01, 0.2); d <- runif(7, 0.05, 0.6); j <- runif(7, 0.97, 1.03)
add(gen("symmetric", c(0.3, 0.3 + d, 0.3 - d * j), c(0.05, v, v * j), rep(2001:2005, length.out = 15),
        "nearly symmetric funnel: 0.3 and the pairs 0.3 + d_j, 0.3 - d_j c_j (vi and vi c_j), c_j ~ U(0.97, 1.03)"))
## Three records.
add(gen("k3", c(0.12, 0.45, -0.05), c(0.02, 0.09, 0.04), c(2010, 2008, 2010), "k = 3"))
## tau^2 at 0: effects far less spread than their variances allow.
vi <- runif(10, 0.02, 0.1)
add(gen("tau2_zero", 0.25 + rnorm(10, 0, 0.05 * sqrt(vi)), vi, rep(c(2000, 2000, 2001, 2003, 2003), 2),
        "homogeneous: yi = 0.25 + N(0, (0.05 sd_i)^2), so tau2 = 0 for REML, ML, DL, PM"))
## k = 60 without ties: the rank test's normal approximation (k >= 50).
vi <- runif(60, 0.01, 0.2)
add(gen("k60", rnorm(60, 0.2 + 0.5 * sqrt(vi), sqrt(vi + 0.02)), vi, sample(1980:2020, 60, replace = TRUE),
        "k = 60, continuous yi and vi: no ties"))

## ---------------------------------------------------------------- helpers
METHODS <- c("REML", "ML", "DL", "PM", "EE")
BOUNDARY <- 1e-10
fit <- function(d, method, test = "z", level = 95) {
  suppressWarnings(rma(d$yi, d$vi, method = method, test = test, level = level, control = CTRL))
}

trim_one <- function(d, method, estimator, side) {
  f <- fit(d, method)
  tf <- if (is.null(side)) {
    suppressWarnings(trimfill(f, estimator = estimator, control = CTRL))
  } else {
    suppressWarnings(trimfill(f, estimator = estimator, side = side, control = CTRL))
  }
  filled <- if (tf$k0 > 0) which(tf$fill) else integer(0)
  list(method = method, estimator = estimator, side_given = if (is.null(side)) NA else side,
       side = tf$side, k0 = tf$k0, se_k0 = num1(tf$se.k0), k = tf$k,
       estimate = num1(tf$beta[1]), se = num1(tf$se), zval = num1(tf$zval), pval = num1(tf$pval),
       ci_lb = num1(tf$ci.lb), ci_ub = num1(tf$ci.ub), tau2 = num1(tf$tau2),
       filled_yi = vec(tf$yi[filled]), filled_vi = vec(tf$vi[filled]))
}

rank_one <- function(d) {
  f <- fit(d, "REML")
  ties <- length(unique(d$vi)) < length(d$vi)
  exact <- length(d$yi) < 50 && !ties
  ## cor.test's own rule (exact when k < 50 and there are no ties); metafor's ranktest asks
  ## for the exact p value whatever k is, which differs only for k >= 50 without ties.
  r <- suppressWarnings(ranktest(f, exact = exact))
  list(tau = num1(r$tau), pval = num1(r$pval), exact = exact, ties = ties)
}

fsn_one <- function(d, type, alpha, target = NULL) {
  r <- if (is.null(target)) fsn(d$yi, d$vi, type = type, alpha = alpha)
       else fsn(d$yi, d$vi, type = type, alpha = alpha, target = target)
  list(type = type, alpha = alpha, target_given = if (is.null(target)) NA else target,
       fsnum = num1(r$fsnum), pval = num1(r$pval), meanes = num1(r$meanes), target = num1(r$target))
}

cumul_one <- function(d, method, test, level, decreasing) {
  ord <- order(d$year, decreasing = decreasing)  # stable: ties keep record order
  e <- list(yi = d$yi[ord], vi = d$vi[ord])
  f <- fit(e, method, test, level)
  cm <- suppressWarnings(cumul(f))
  ## metafor's Fisher scoring stops a hair above an optimum at tau2 = 0: such steps are
  ## refitted with tau2 = 0 (as metafor_fixtures.R does for leave-one-out).
  if (method %in% c("ML", "REML")) for (i in seq_along(cm$tau2)) {
    if (!is.na(cm$tau2[i]) && cm$tau2[i] > 0 && cm$tau2[i] < BOUNDARY) {
      f0 <- suppressWarnings(rma(e$yi[1:i], e$vi[1:i], method = method, test = test, level = level,
                                 tau2 = 0, control = CTRL))
      cm$estimate[i] <- f0$beta[1]; cm$se[i] <- f0$se; cm$pvals[i] <- f0$pval
      if (test == "z") cm$zval[i] <- f0$zval else cm$tval[i] <- f0$zval
      cm$ci.lb[i] <- f0$ci.lb; cm$ci.ub[i] <- f0$ci.ub; cm$tau2[i] <- 0
      cm$Q[i] <- f0$QE; cm$I2[i] <- f0$I2
    }
  }
  stat <- if (test == "z") cm$zval else cm$tval
  list(method = method, test = test, level = level / 100, order_by = "year", descending = decreasing,
       order = I(d$ids[ord]), estimate = vec(cm$estimate), se = vec(cm$se), statistic = vec(stat),
       pval = vec(cm$pvals), ci_lb = vec(cm$ci.lb), ci_ub = vec(cm$ci.ub),
       tau2 = if (is.null(cm$tau2)) I(rep(0, length(ord))) else vec(cm$tau2),
       I2 = vec(cm$I2), Q = vec(cm$Q))
}

infl_one <- function(d, method, test) {
  f <- fit(d, method, test)
  inf <- influence(f)
  ## metafor's Fisher scoring stops a hair above an optimum at tau2 = 0 (as in cumul_one):
  ## such tau2.del are the exact boundary 0. The other columns, computed at that tau2, differ
  ## from theirs at 0 by far less than 1e-9 relative and are kept.
  if (method %in% c("ML", "REML")) {
    tiny <- inf$inf$tau2.del > 0 & inf$inf$tau2.del < BOUNDARY
    inf$inf$tau2.del[tiny] <- 0
  }
  list(method = method, test = test, rstudent = vec(inf$inf$rstudent), dffits = vec(inf$inf$dffits),
       cook_d = vec(inf$inf$cook.d), cov_r = vec(inf$inf$cov.r), tau2_del = vec(inf$inf$tau2.del),
       QE_del = vec(inf$inf$QE.del), hat = vec(inf$inf$hat), weight = vec(inf$inf$weight),
       dfbetas = vec(inf$dfbs$intrcpt), influential = I(unname(inf$is.infl)))
}

## ---------------------------------------------------------------- main loop
out_ds <- list()
for (d in datasets) {
  trims <- list()
  for (m in METHODS) for (est in c("L0", "R0")) {
    r <- try(trim_one(d, m, est, NULL), silent = TRUE)
    if (!inherits(r, "try-error")) trims[[length(trims) + 1]] <- r
  }
  for (side in c("left", "right")) {
    r <- try(trim_one(d, "REML", "L0", side), silent = TRUE)
    if (!inherits(r, "try-error")) trims[[length(trims) + 1]] <- r
  }
  fsns <- list(fsn_one(d, "Rosenthal", 0.05), fsn_one(d, "Rosenthal", 0.01),
               fsn_one(d, "Orwin", 0.05), fsn_one(d, "Orwin", 0.05, target = 0.05),
               fsn_one(d, "Rosenberg", 0.05), fsn_one(d, "Rosenberg", 0.1))
  cumuls <- list()
  for (m in c("REML", "DL", "EE")) for (t in c("z", "knha"))
    cumuls[[length(cumuls) + 1]] <- cumul_one(d, m, t, 95, FALSE)
  ## Descending with DL: REML's restricted likelihood is bimodal at one step of
  ## dat.raudenbush1985 in this order (see docs/METHODS.md, "Cumulative meta-analysis").
  cumuls[[length(cumuls) + 1]] <- cumul_one(d, "DL", "z", 90, TRUE)
  infls <- list()
  for (t in c("z", "knha")) for (m in METHODS) infls[[length(infls) + 1]] <- infl_one(d, m, t)
  out_ds[[length(out_ds) + 1]] <- list(
    name = d$name, ids = I(d$ids), yi = I(d$yi), vi = I(d$vi), year = I(d$year), k = length(d$yi),
    trimfill = trims, ranktest = rank_one(d), fsn = fsns, cumul = cumuls, influence = infls,
    notes = d$notes)
}

## ---------------------------------------------------------------- influence only
## dat.bcg (13 trials of the BCG vaccine), log risk ratios: large effects, large
## heterogeneity, s2w far from 1 under Knapp-Hartung.
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
infl_ds <- list()
for (d in list(list(name = "bcg_log_rr", ids = sprintf("bcg%02d", dat.bcg$trial),
                    yi = as.numeric(bcg$yi), vi = as.numeric(bcg$vi),
                    notes = "dat.bcg, escalc(measure = \"RR\", ai = tpos, bi = tneg, ci = cpos, di = cneg)"))) {
  infls <- list()
  for (t in c("z", "knha")) for (m in METHODS) infls[[length(infls) + 1]] <- infl_one(d, m, t)
  infl_ds[[length(infl_ds) + 1]] <- list(name = d$name, ids = I(d$ids), yi = I(d$yi), vi = I(d$vi),
                                         k = length(d$yi), influence = infls, notes = d$notes)
}

res <- list(
  conventions = list(
    trimfill = "trimfill(fit, estimator, [side], control = CTRL): the control list reaches every rma.uni() call trimfill makes; the final refit uses the default test (z) and level (95).",
    ranktest = "ranktest(fit, exact = k < 50 && no ties in vi) (cor.test's default rule; metafor's own default asks for the exact p whatever k is).",
    fsn = "fsn(yi, vi, type, alpha, [target]) with metafor's defaults (Stouffer for Rosenthal, unweighted for Orwin).",
    cumul = "the data reordered by order(year, decreasing) (stable), refitted, then cumul(fit); EE models have no tau2 column (0 here).",
    influence = "influence(fit) of rma(yi, vi, method, test, control = CTRL), test z and knha (s2w of each fit scales rstudent, dffits, dfbetas, cook.d and cov.r): the inf columns, dfbs$intrcpt and is.infl."),
  datasets = out_ds,
  influence_datasets = infl_ds)

write_fixture(res, out_path,
  data = list(csv = csv_source(csv_path), metadat = metadat_source("dat.bcg"),
              simulated = "set.seed(20250114), then runif/rnorm/sample in this script (rounded to 6 significant digits)",
              constructed = "the dataset k3, written in this script"),
  control = CTRL)
