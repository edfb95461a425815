#!/usr/bin/env Rscript
## Oracle fixtures for general rma.mv models (issue 44): known sampling covariances (V by
## cluster), `~ inner | outer` structures (UN, CS, HCS, DIAG, ID, AR, HAR), nested and
## crossed `~ 1 | id` terms.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/rma_mv.R \
##       crates/meta-analysis/tests/fixtures/rma_mv.json [our_estimates.json]
##
## metafor's optimizer (nlminb/optim on finite differences) stops short of the optimum and
## fails to converge with tight control on several structures, so its estimates are not the
## reference. The check is the one of ../../../../../shared/RMA_MV.md:
##  1. each case is fitted by rma.mv at its defaults and with tight control (CTRL_TIGHT);
##     the larger log-likelihood of the fits that converged is `metafor_best_loglik` (ours
##     must be at least that);
##  2. given our estimates (the second argument: the JSON the engine's test writes with
##     WRITE_RMA_MV_ESTIMATES=path), rma.mv is refitted with every component fixed there,
##     and its beta, SEs, QE and logLik are `at_ours` (ours must agree within 1e-10).
## Each case carries its design X (model.matrix of its mods), its random terms as per-row
## labels and its V (diagonal vi, or per-cluster blocks read from columns).

suppressPackageStartupMessages({library(metafor); library(jsonlite)})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: rma_mv.R <out.json> [our_estimates.json]")
out_path <- args[1]
ours <- if (length(args) >= 2) fromJSON(args[2], simplifyVector = FALSE) else NULL

CTRL_TIGHT <- list(rel.tol = 1e-12, iter.max = 10000, eval.max = 10000)

## ---------------------------------------------------------------- data
b98 <- dat.berkey1998
V_b98 <- bldiag(lapply(split(b98[, c("v1i", "v2i")], b98$trial), as.matrix))
ish <- reshape(dat.ishak2007, direction = "long", idvar = "study", v.names = c("yi", "vi"),
               varying = list(c(2, 4, 6, 8), c(3, 5, 7, 9)))
ish <- ish[order(ish$study, ish$time), ]
ish <- ish[!is.na(ish$yi), ]
rownames(ish) <- NULL
k11 <- dat.konstantopoulos2011
kal <- dat.kalaian1996
## As metadat's help for dat.kalaian1996: verbal and math within a study correlate 0.66.
V_kal <- vcalc(vi, cluster = study, type = outcome, rho = 0.66, data = kal)

## ---------------------------------------------------------------- cases
## Each: data, the rma.mv arguments, and how the engine reads the terms: `intercepts`
## (name and per-row labels of each `~ 1 | id` term), `terms` (inner/outer labels and
## struct of each `~ inner | outer` term) and V (vi, or the blocks' rows and matrices).
blocks_of <- function(V, cluster) {
  lapply(split(seq_along(cluster), cluster), function(r)
    list(rows = I(r - 1), matrix = I(as.numeric(t(V[r, r, drop = FALSE])))))
}
b98_case <- function(struct, method = "REML", random = ~ outcome | trial, name = NULL) {
  list(name = if (is.null(name)) paste("berkey1998", struct, method) else name,
       data = b98, yi = b98$yi, V = V_b98, X = model.matrix(~ outcome - 1, b98),
       random = random, struct = struct, method = method,
       intercepts = list(), terms = list(list(inner = as.character(b98$outcome),
                                               outer = as.character(b98$trial), struct = struct)),
       blocks = blocks_of(V_b98, b98$trial))
}
cases <- list(
  modifyList(b98_case("UN"), list(confint = TRUE)), b98_case("CS"), b98_case("HCS"), b98_case("DIAG"), b98_case("ID"),
  b98_case("UN", "ML"),
  list(name = "ishak2007 AR REML", data = ish, yi = ish$yi, V = diag(ish$vi),
       X = model.matrix(~ factor(time), ish), random = ~ time | study, struct = "AR", method = "REML",
       intercepts = list(), terms = list(list(inner = as.character(ish$time), outer = as.character(ish$study), struct = "AR")),
       vi = ish$vi),
  list(name = "ishak2007 HAR REML", data = ish, yi = ish$yi, V = diag(ish$vi),
       X = model.matrix(~ factor(time), ish), random = ~ time | study, struct = "HAR", method = "REML",
       intercepts = list(), terms = list(list(inner = as.character(ish$time), outer = as.character(ish$study), struct = "HAR")),
       vi = ish$vi),
  list(name = "konstantopoulos2011 district/school REML", confint = TRUE, data = k11, yi = k11$yi, V = diag(k11$vi),
       X = model.matrix(~ 1, k11), random = ~ 1 | district/school, struct = "CS", method = "REML",
       intercepts = list(list(name = "district", levels = as.character(k11$district)),
                         list(name = "district/school", levels = paste(k11$district, k11$school, sep = "/"))),
       terms = list(), vi = k11$vi),
  list(name = "kalaian1996 UN REML (rho at -1)", data = kal, yi = kal$yi, V = V_kal,
       X = model.matrix(~ outcome - 1, kal), random = ~ outcome | study, struct = "UN", method = "REML",
       intercepts = list(), terms = list(list(inner = as.character(kal$outcome), outer = as.character(kal$study), struct = "UN")),
       blocks = blocks_of(V_kal, kal$study)),
  list(name = "konstantopoulos2011 district/school ML", data = k11, yi = k11$yi, V = diag(k11$vi),
       X = model.matrix(~ year, k11), random = ~ 1 | district/school, struct = "CS", method = "ML",
       intercepts = list(list(name = "district", levels = as.character(k11$district)),
                         list(name = "district/school", levels = paste(k11$district, k11$school, sep = "/"))),
       terms = list(), vi = k11$vi),
  list(name = "berkey1998 crossed trial + outcome REML", data = b98, yi = b98$yi, V = V_b98,
       X = model.matrix(~ 1, b98), random = list(~ 1 | trial, ~ 1 | outcome), struct = "CS", method = "REML",
       intercepts = list(list(name = "trial", levels = as.character(b98$trial)),
                         list(name = "outcome", levels = as.character(b98$outcome))),
       terms = list(), blocks = blocks_of(V_b98, b98$trial))
)

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
              intercepts = cs$intercepts, terms = cs$terms,
              metafor_loglik = I(lls), metafor_best_loglik = max(lls, na.rm = TRUE),
              metafor_best = list(sigma2 = vec(best$sigma2), tau2 = vec(best$tau2), rho = vec(best$rho)))
  if (!is.null(cs$blocks)) out$blocks <- unname(cs$blocks) else out$vi <- vec(cs$vi)
  est <- if (is.null(ours)) NULL else Filter(function(o) o$name == cs$name, ours)
  if (length(est) == 1) {
    e <- est[[1]]
    fx <- list()
    if (length(e$sigma2)) fx$sigma2 <- unlist(e$sigma2)
    if (length(e$tau2)) fx$tau2 <- unlist(e$tau2)
    if (length(e$rho)) fx$rho <- unlist(e$rho)
    f <- fit_case(cs, list(), fx)
    if (is.null(f)) stop("rma.mv failed with components fixed at ours: ", cs$name)
    out$at_ours <- list(sigma2 = vec(fx$sigma2), tau2 = vec(fx$tau2), rho = vec(fx$rho),
                        beta = vec(f$beta), se = vec(f$se), QE = f$QE, QEdf = f$k - f$p,
                        loglik = as.numeric(logLik(f)))
  }
  if (isTRUE(cs$confint)) {
    ## confint(control = list(tol = 1e-10)) on the fit at default control: one (lower, upper) per component,
    ## in the order sigma2, tau2, rho.
    ci <- suppressWarnings(confint(fits[[1]], control = list(tol = 1e-10)))
    rows <- if (inherits(ci, "list.confint.rma")) ci[sapply(ci, inherits, "confint.rma")] else list(ci)
    out$metafor_confint <- unname(lapply(rows, function(r) I(as.numeric(r$random[1, 2:3]))))
  }
  out
}

res <- list(cases = lapply(cases, run_case))
write_fixture(res, out_path,
              data = metadat_source(I(c("dat.berkey1998", "dat.ishak2007", "dat.konstantopoulos2011", "dat.kalaian1996"))),
              control = list(tight = CTRL_TIGHT, fixed = "every component fixed at the engine's estimates"))
