#!/usr/bin/env Rscript
## Oracle fixtures for rma.mv's struct "GEN" (random intercepts and slopes, `~ x | id`: an
## unstructured G over the columns (1, x), rows a, b of one outer level covarying z_a' G z_b),
## on dat.ishak2007 (`~ time | study`, mods ~ time) and dat.konstantopoulos2011
## (`~ yc | district`, yc = (year - 1990) / 10). In both the correlation of intercept and slope
## lands at 1 (metafor's fits end at rho = 0.9999999999 or 1, or fail to converge).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/rma_mv_gen.R \
##       crates/meta-analysis/tests/fixtures/rma_mv_gen.json [our_estimates.json]
##
## The protocol of rma_mv.R (issue 44), as rma_mv_car.R.

suppressPackageStartupMessages({library(metafor); library(jsonlite)})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: rma_mv_gen.R <out.json> [our_estimates.json]")
out_path <- args[1]
ours <- if (length(args) >= 2) fromJSON(args[2], simplifyVector = FALSE) else NULL

CTRL_TIGHT <- list(rel.tol = 1e-12, iter.max = 10000, eval.max = 10000)

## ---------------------------------------------------------------- data
ish <- reshape(dat.ishak2007, direction = "long", idvar = "study", v.names = c("yi", "vi"),
               varying = list(c(2, 4, 6, 8), c(3, 5, 7, 9)))
ish <- ish[order(ish$study, ish$time), ]
ish <- ish[!is.na(ish$yi), ]
rownames(ish) <- NULL
k11 <- dat.konstantopoulos2011
k11$yc <- (k11$year - 1990) / 10
gen_case <- function(name, d, X, inner, outer, random) {
  list(name = name, data = d, yi = d$yi, vi = d$vi, V = d$vi, X = X, random = random, struct = "GEN",
       method = "REML", intercepts = list(),
       terms = list(list(inner = as.character(inner), outer = as.character(outer), struct = "GEN")))
}
cases <- list(
  gen_case("ishak2007 GEN REML (rho at 1)", ish, model.matrix(~ time, ish), ish$time, ish$study, ~ time | study),
  gen_case("konstantopoulos2011 GEN REML (rho at 1)", k11, model.matrix(~ 1, k11), k11$yc, k11$district, ~ yc | district))

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
write_fixture(res, out_path, data = metadat_source(I(c("dat.ishak2007", "dat.konstantopoulos2011"))),
              control = list(tight = CTRL_TIGHT, fixed = "every component fixed at the engine's estimates"))
