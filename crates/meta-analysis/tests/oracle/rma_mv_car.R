#!/usr/bin/env Rscript
## Oracle fixtures for rma.mv's struct "CAR" (continuous-time autoregressive, `~ time | id`:
## tau2 * rho^|t_i - t_j| over the inner variable's numeric values), on dat.curtis1998 (log
## response ratios, `~ time | paper` with time the days of CO2 exposure, 34 to 1095: unequal
## spacing; metafor's nlminb fails to converge there with tight control), and on
## dat.konstantopoulos2011 (`~ year | district`), where rho lands at its bound 0.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/rma_mv_car.R \
##       crates/meta-analysis/tests/fixtures/rma_mv_car.json [our_estimates.json]
##
## The protocol of rma_mv.R (issue 44): `metafor_best_loglik` is the larger logLik of the
## default and the tight-control fit that converged (ours must be at least that), and given
## our estimates (WRITE_RMA_MV_ESTIMATES=path cargo test -p meta-analysis --test rma_mv)
## `at_ours` holds rma.mv's beta, SEs, QE and logLik with every component fixed there.

suppressPackageStartupMessages({library(metafor); library(jsonlite)})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: rma_mv_car.R <out.json> [our_estimates.json]")
out_path <- args[1]
ours <- if (length(args) >= 2) fromJSON(args[2], simplifyVector = FALSE) else NULL

CTRL_TIGHT <- list(rel.tol = 1e-12, iter.max = 10000, eval.max = 10000)

## ---------------------------------------------------------------- data
cur <- escalc(measure = "ROM", m1i = m1i, sd1i = sd1i, n1i = n1i, m2i = m2i, sd2i = sd2i, n2i = n2i,
              data = dat.curtis1998)
curtis_case <- function(method) {
  list(name = paste("curtis1998 CAR", method), data = cur, yi = as.numeric(cur$yi), vi = as.numeric(cur$vi),
       V = as.numeric(cur$vi), X = model.matrix(~ 1, cur), random = ~ time | paper, struct = "CAR",
       method = method, intercepts = list(),
       terms = list(list(inner = as.character(cur$time), outer = as.character(cur$paper), struct = "CAR")))
}
k11 <- dat.konstantopoulos2011
## Schools by year within districts: the estimate of rho lands at its bound 0 (metafor's
## default fit stops at rho = 2.3e-8; with tight control it fails to converge).
k11_case <- list(name = "konstantopoulos2011 CAR REML (rho at 0)", data = k11, yi = k11$yi, vi = k11$vi,
                 V = k11$vi, X = model.matrix(~ 1, k11), random = ~ year | district, struct = "CAR",
                 method = "REML", intercepts = list(),
                 terms = list(list(inner = as.character(k11$year), outer = as.character(k11$district), struct = "CAR")))
cases <- list(curtis_case("REML"), curtis_case("ML"), k11_case)

fit_case <- function(cs, control = list(), fixed = list()) {
  args <- c(list(yi = cs$yi, V = cs$V, mods = cs$X, intercept = FALSE, random = cs$random,
                 struct = cs$struct, method = cs$method, data = cs$data, control = control), fixed)
  tryCatch(suppressWarnings(do.call(rma.mv, args)), error = function(e) NULL)
}

run_case <- function(cs) {
  fits <- list(fit_case(cs), fit_case(cs, CTRL_TIGHT))
  lls <- sapply(fits, function(f) if (is.null(f)) NA else as.numeric(logLik(f)))
  best <- fits[[which.max(lls)]]
  out <- list(name = cs$name, method = cs$method, yi = vec(cs$yi), p = ncol(cs$X),
              X = vec(t(cs$X)), coef_names = I(colnames(cs$X)),
              intercepts = cs$intercepts, terms = cs$terms, vi = vec(cs$vi),
              metafor_loglik = I(lls), metafor_best_loglik = max(lls, na.rm = TRUE),
              metafor_best = list(sigma2 = vec(best$sigma2), tau2 = vec(best$tau2), rho = vec(best$rho)))
  est <- if (is.null(ours)) NULL else Filter(function(o) o$name == cs$name, ours)
  if (length(est) == 1) {
    e <- est[[1]]
    fx <- list(tau2 = unlist(e$tau2), rho = unlist(e$rho))
    f <- fit_case(cs, list(), fx)
    if (is.null(f)) stop("rma.mv failed with components fixed at ours: ", cs$name)
    out$at_ours <- list(sigma2 = vec(NULL), tau2 = vec(fx$tau2), rho = vec(fx$rho),
                        beta = vec(f$beta), se = vec(f$se), QE = f$QE, QEdf = f$k - f$p,
                        loglik = as.numeric(logLik(f)))
  }
  out
}

res <- list(cases = lapply(cases, run_case))
write_fixture(res, out_path, data = metadat_source(I(c("dat.curtis1998", "dat.konstantopoulos2011"))),
              control = list(tight = CTRL_TIGHT, fixed = "every component fixed at the engine's estimates"))
