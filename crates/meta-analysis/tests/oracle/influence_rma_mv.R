## Fixture for crates/exemplar/tests/influence_rma_mv.rs: metafor 3.8-1's case-deletion
## diagnostics of general rma.mv models (issue 44 item 6): cooks.distance(), dfbetas(),
## hatvalues() and rstudent() of an rma.mv fit, per record and, with `cluster`, per
## cluster (each refit leaves the cluster out and re-estimates the components from the
## full fit's values, as metafor's reestimate = TRUE).
##  - dat.konstantopoulos2011: random = ~ 1 | district/school; per record and per district;
##  - dat.berkey1998: random = ~ outcome | trial, struct = "UN", V from v1i/v2i per trial,
##    mods = ~ outcome - 1; per record and per trial.
## Two checks, as issue 44's protocol (metafor's optimizer stops short of the optimum, on
## each refit too, so its estimates are not the reference):
##  1. metafor's own diagnostics at its default control (with tight control, which the
##     refits inherit, half of dat.konstantopoulos2011's refits fail to converge and come
##     back NA): the test holds ours to them loosely;
##  2. `at_ours`: given the engine's components (the second argument, the JSON the test
##     writes with WRITE_INFLUENCE_RMA_MV=path: the full fit's and each deletion's), the full
##     model is fitted with its components fixed there, and metafor's own per-unit functions
##     (.cooks.distance.rma.mv, .dfbetas.rma.mv, .rstudent.rma.mv with reestimate = FALSE)
##     refit each deletion with the components fixed at the engine's deleted estimates:
##     the test holds ours to these within 1e-8.
##
## Usage (from the repository root):
##   WRITE_INFLUENCE_RMA_MV=/tmp/ours.json cargo test -p living-evidence-exemplar \
##       --test influence_rma_mv
##   Rscript crates/meta-analysis/tests/oracle/influence_rma_mv.R \
##       crates/exemplar/tests/fixtures/influence_rma_mv.json /tmp/ours.json
suppressPackageStartupMessages({library(metafor); library(jsonlite)})
source(file.path(dirname(sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: influence_rma_mv.R <out.json> <ours.json>")
ours <- fromJSON(args[2], simplifyVector = FALSE)
nums <- function(x) if (length(x) == 0) NULL else as.numeric(unlist(x))

b98 <- dat.berkey1998
V_b98 <- bldiag(lapply(split(b98[, c("v1i", "v2i")], b98$trial), as.matrix))
k11 <- dat.konstantopoulos2011

rows_of <- function(m) lapply(seq_len(nrow(m)), function(i) vec(as.numeric(m[i, ])))
diagnostics <- function(res, cluster) {
  per <- function(...) {
    cd <- cooks.distance(res, ...)
    db <- dfbetas(res, ...)
    rs <- rstudent(res, ...)
    list(cook_d = vec(cd), dfbetas = rows_of(as.matrix(db)), names = I(names(cd)), rs = rs)
  }
  rec <- per()
  out <- list(hat = vec(hatvalues(res)), weights = vec(weights(res)),
              cook_d = rec$cook_d, dfbetas = rec$dfbetas,
              rstudent = list(resid = vec(rec$rs$resid), se = vec(rec$rs$se), z = vec(rec$rs$z)))
  if (!is.null(cluster)) {
    cl <- per(cluster = cluster)
    out$cluster <- list(
      levels = cl$names, cook_d = cl$cook_d, dfbetas = cl$dfbetas,
      resid = vec(cl$rs$obs$resid), se = vec(cl$rs$obs$se), z = vec(cl$rs$obs$z),
      x2 = vec(cl$rs$cluster$X2), k = vec(cl$rs$cluster$k))
  }
  out$coefficients <- vec(coef(res))
  out$sigma2 <- vec(res$sigma2); out$tau2 <- vec(res$tau2); out$rho <- vec(res$rho)
  out
}

## metafor's per-unit functions with each deletion's components fixed at the engine's:
## `fixed(comp)` gives rma.mv's arguments for components `comp` ({sigma2, tau2, rho}).
at_ours <- function(fit_at, o, cluster) {
  full <- fit_at(o$full)
  p <- length(coef(full))
  svb <- chol2inv(chol(full$vb))
  unit <- function(cl, del) {
    ids <- unique(cl)
    res <- lapply(seq_along(ids), function(i) {
      d <- del[[i]]
      obj <- full
      if (!is.null(nums(d$sigma2_del))) obj$sigma2 <- nums(d$sigma2_del)
      if (!is.null(nums(d$tau2_del))) obj$tau2 <- nums(d$tau2_del)
      if (!is.null(nums(d$rho_del))) obj$rho <- nums(d$rho_del)
      list(cook = metafor:::.cooks.distance.rma.mv(i, obj, "no", svb, cl, ids, FALSE, seq_len(p))$cook.d,
           dfbs = metafor:::.dfbetas.rma.mv(i, obj, "no", cl, ids, FALSE)$dfbs,
           rs = metafor:::.rstudent.rma.mv(i, obj, "no", cl, ids, FALSE))
    })
    resid <- se <- rep(NA_real_, length(cl))
    for (r in res) { resid[r$rs$pos] <- r$rs$delresid; se[r$rs$pos] <- r$rs$sedelresid }
    list(levels = I(as.character(ids)), cook_d = vec(sapply(res, function(r) c(r$cook))),
         dfbetas = lapply(res, function(r) vec(r$dfbs)),
         resid = vec(resid), se = vec(se), z = vec(resid / se),
         x2 = vec(sapply(res, function(r) r$rs$X2)), k = vec(sapply(res, function(r) r$rs$k.id)))
  }
  rec <- unit(seq_len(full$k), o$records)
  cl <- unit(cluster, lapply(unique(as.character(cluster)), function(l) o$clusters[[l]]))
  list(hat = vec(hatvalues(full)), weights = vec(weights(full)), records = rec, cluster = cl,
       loglik = as.numeric(logLik(full)))
}
fixed_args <- function(comp) {
  a <- list()
  for (n in c("sigma2", "tau2", "rho")) if (!is.null(nums(comp[[n]]))) a[[n]] <- nums(comp[[n]])
  a
}
k11_at <- function(comp) rma.mv(yi, vi, random = ~ 1 | district / school, data = k11,
                                sigma2 = fixed_args(comp)$sigma2)
b98_at <- function(comp) {
  a <- fixed_args(comp)
  rma.mv(yi, V_b98, mods = ~ outcome - 1, random = ~ outcome | trial, struct = "UN", data = b98,
         tau2 = a$tau2, rho = a$rho)
}

b98_records <- lapply(seq_len(nrow(b98)), function(i)
  list(id = sprintf("%s-%s", b98$trial[i], b98$outcome[i]), yi = b98$yi[i], vi = b98$vi[i],
       trial = as.character(b98$trial[i]), outcome = as.character(b98$outcome[i]),
       v1i = b98$v1i[i], v2i = b98$v2i[i]))
k11_records <- lapply(seq_len(nrow(k11)), function(i)
  list(id = sprintf("e%02d", i), yi = k11$yi[i], vi = k11$vi[i],
       district = as.character(k11$district[i]), school = as.character(k11$school[i])))

k11_fit <- rma.mv(yi, vi, random = ~ 1 | district / school, data = k11)
b98_fit <- rma.mv(yi, V_b98, mods = ~ outcome - 1, random = ~ outcome | trial, struct = "UN",
                  data = b98)
out <- list(
  konstantopoulos2011 = c(list(records = k11_records), diagnostics(k11_fit, k11$district),
                          list(at_ours = at_ours(k11_at, ours$konstantopoulos2011, k11$district))),
  berkey1998 = c(list(records = b98_records), diagnostics(b98_fit, b98$trial),
                 list(at_ours = at_ours(b98_at, ours$berkey1998, b98$trial)))
)
write_fixture(out, args[1],
              data = metadat_source(c("dat.konstantopoulos2011", "dat.berkey1998")),
              control = list())
