#!/usr/bin/env Rscript
## Golden fixtures for the natural-scale (back-transformed) results of the tools: metafor's
## predict(..., transf = ...) after fits, meta-regressions, subgroup fits, cumulative
## meta-analysis and trim-and-fill, on risk ratios and odds ratios (dat.bcg), logit
## proportions (dat.pritz1997) and Fisher's z (dat.molloy2014).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/backtransform_fixtures.R \
##       crates/exemplar/tests/fixtures/backtransform.json
##
## Requires metafor (developed against 3.8-1; Debian: r-cran-metafor) and metadat. Written
## by common.R's write_fixture (17 significant digits, the provenance first).

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: backtransform_fixtures.R <out.json>")
out_path <- args[1]

CTRL <- list(threshold = 1e-12, maxiter = 10000, tol = 1e-14, tau2.max = 1e7)
ilogit <- transf.ilogit
ztor <- transf.ztor
pred <- function(p) list(estimate = vec(p$pred), ci_lower = vec(p$ci.lb), ci_upper = vec(p$ci.ub),
                         pi_lower = vec(p$pi.lb), pi_upper = vec(p$pi.ub))

cases <- list()
add <- function(x) cases[[length(cases) + 1]] <<- x

dataset <- function(dat, measure, transf_name, transf, ids, extra = list()) {
  ds <- list(measure = measure, transform = transf_name, ids = ids,
             yi = vec(dat$yi), vi = vec(dat$vi))
  for (n in names(extra)) ds[[n]] <- extra[[n]]
  fits <- list()
  for (method in c("REML", "DL")) for (test in c("z", "knha")) for (level in c(95, 90)) {
    fit <- rma(yi, vi, data = dat, method = method, test = test, level = level, control = CTRL)
    fits[[length(fits) + 1]] <- list(method = method, test = test, level = level / 100,
                                     natural = pred(predict(fit, transf = transf)))
  }
  ds$fits <- fits
  fit <- rma(yi, vi, data = dat, method = "REML", control = CTRL)
  if (!is.null(extra$year)) {
    cm <- cumul(fit, order = dat$year, transf = transf)
    ds$cumulative <- list(order_by = "year", estimate = vec(cm$estimate),
                          ci_lower = vec(cm$ci.lb), ci_upper = vec(cm$ci.ub))
  }
  tf <- trimfill(fit, control = CTRL)
  ds$trim_and_fill <- list(k0 = tf$k0, natural = pred(predict(tf, transf = transf)))
  ds
}

## dat.bcg: log risk ratios and log odds ratios; ablat for a meta-regression, alloc for
## subgroups, year for the cumulative order.
for (m in c("RR", "OR")) {
  dat <- escalc(measure = m, ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
  ds <- dataset(dat, m, "exp", exp, sprintf("b%02d", seq_len(nrow(dat))),
                list(ablat = vec(dat$ablat), alloc = I(dat$alloc), year = vec(dat$year)))
  mr <- rma(yi, vi, mods = ~ ablat, data = dat, method = "REML", control = CTRL)
  ds$meta_regression <- list(at = vec(c(10, 33.5, 55)),
                             natural = pred(predict(mr, newmods = c(10, 33.5, 55), transf = exp)))
  groups <- list()
  for (level in sort(unique(dat$alloc))) {
    sub <- rma(yi, vi, data = dat, subset = alloc == level, method = "REML", control = CTRL)
    p <- predict(sub, transf = exp)
    groups[[length(groups) + 1]] <- list(level = level, estimate = p$pred, ci_lower = p$ci.lb,
                                         ci_upper = p$ci.ub)
  }
  ds$subgroups <- list(by = "alloc", groups = groups)
  add(ds)
}

## dat.pritz1997: logit proportions.
dat <- escalc(measure = "PLO", xi = xi, ni = ni, data = dat.pritz1997)
add(dataset(dat, "PLO", "ilogit", ilogit, sprintf("p%02d", seq_len(nrow(dat)))))

## dat.molloy2014: Fisher's z.
dat <- escalc(measure = "ZCOR", ri = ri, ni = ni, data = dat.molloy2014)
add(dataset(dat, "ZCOR", "ztor", ztor, sprintf("m%02d", seq_len(nrow(dat))),
            list(year = vec(dat$year))))

write_fixture(list(cases = cases), out_path,
              data = metadat_source(c("dat.bcg", "dat.pritz1997", "dat.molloy2014")),
              control = CTRL)
