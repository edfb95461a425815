## Oracle for the HTZ Wald test (crates/meta-analysis/src/robust/htz.rs): clubSandwich's
## Wald_test(fit, constraints, vcov = "CR2", test = "HTZ") on a meta-regression (rma.uni,
## REML with tight control) and on three-level fits (rma.mv with sigma2 fixed at the exact
## REML optimum, found by Newton on the dense score as metafor_multilevel.R does, since
## rma.mv's own optimizer stops about 1e-7 short of it).
##
##   Rscript crates/meta-analysis/tests/oracle/robust_htz.R crates/meta-analysis/tests/fixtures/robust_htz.json
source(file.path(dirname(sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))
suppressPackageStartupMessages({library(metafor); library(clubSandwich)})
out_path <- commandArgs(TRUE)[1]
CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5)
CTRL_MV <- list(optimizer = "optim", optmethod = "BFGS", reltol = 1e-15, maxit = 10000)

## The REML score and Hessian of V = s1 ZZ' + diag(vi + s2), dense.
dense <- function(s, y, vi, X, Z) {
  k <- length(y)
  ZZ <- tcrossprod(Z)
  W <- chol2inv(chol(s[1] * ZZ + diag(vi + s[2])))
  XtW <- crossprod(X, W)
  P <- W - t(XtW) %*% solve(XtW %*% X) %*% XtW
  Py <- P %*% y
  Vr <- list(ZZ, diag(k))
  g <- sapply(1:2, function(r) -0.5 * sum(P * t(Vr[[r]])) + 0.5 * drop(crossprod(Py, Vr[[r]] %*% Py)))
  H <- matrix(0, 2, 2)
  for (r in 1:2) for (t in 1:2)
    H[r, t] <- 0.5 * sum(diag(P %*% Vr[[r]] %*% P %*% Vr[[t]])) -
      drop(crossprod(Py, Vr[[r]] %*% P %*% Vr[[t]] %*% Py))
  list(g = g, H = H)
}
newton <- function(s, y, vi, X, Z) {
  for (it in 1:100) {
    d <- dense(s, y, vi, X, Z)
    step <- -solve(d$H, d$g)
    s <- s + step
    if (all(abs(step) <= 1e-14 * abs(s))) break
  }
  if (any(abs(step) > 1e-10 * abs(s)) || any(s <= 0)) stop("Newton did not converge inside")
  s
}

## A three-level fit at the exact REML optimum.
three_level <- function(dat, mods) {
  free <- rma.mv(yi, vi, mods = mods, random = ~ 1 | study/esid, data = dat, control = CTRL_MV)
  X <- model.matrix(mods, data = dat)
  Z <- model.matrix(~ factor(study) - 1, data = dat)
  s <- newton(free$sigma2, dat$yi, dat$vi, X, Z)
  rma.mv(yi, vi, mods = mods, random = ~ 1 | study/esid, data = dat, sigma2 = s)
}

## One HTZ test: the constraint matrix (rows) and clubSandwich's answer (its Q recovered
## from F). clubSandwich 0.5.8 has no null_constant (later versions subtract it from C beta
## before the quadratic form; the df do not depend on it): `Q_null` is that Q for the null
## values `null`, written out with vcovCR's covariance.
htz <- function(label, fit, cluster, C, null = rep(0, nrow(C))) {
  w <- Wald_test(fit, constraints = C, vcov = "CR2", cluster = cluster, test = "HTZ")
  V <- vcovCR(fit, cluster = cluster, type = "CR2")
  b <- C %*% coef(fit) - null
  list(label = label, constraints = lapply(seq_len(nrow(C)), function(r) vec(C[r, ])),
       null = vec(null), Q_null = drop(t(b) %*% solve(C %*% V %*% t(C)) %*% b),
       Q = w$Fstat * w$df_num / w$delta, F = w$Fstat,
       delta = w$delta, df_num = w$df_num, df_denom = w$df_denom, p = w$p_val)
}

dat <- dat.assink2016
cases <- list()
reg <- rma(yi, vi, mods = ~ deltype + year, data = dat, method = "REML", control = CTRL)
cases[[1]] <- list(
  model = "regression", data = "assink2016", mods = I(c("deltype", "year")), tau2 = reg$tau2,
  tests = list(
    htz("deltype", reg, dat$study, constrain_zero(2:3, coef(reg))),
    htz("all moderators", reg, dat$study, constrain_zero(2:4, coef(reg))),
    htz("general = overt, year = 0.01", reg, dat$study,
        rbind(c(0, 1, -1, 0), c(0, 0, 0, 1)), null = c(0, 0.01))))
ml <- three_level(dat, ~ deltype)
cases[[2]] <- list(
  model = "multilevel", data = "assink2016", mods = I("deltype"), sigma2 = vec(ml$sigma2),
  tests = list(
    htz("deltype", ml, dat$study, constrain_zero(2:3, coef(ml))),
    htz("every coefficient", ml, dat$study, constrain_zero(1:3, coef(ml)))))
ml2 <- three_level(dat, ~ year + pubstatus)
cases[[3]] <- list(
  model = "multilevel", data = "assink2016", mods = I(c("year", "pubstatus")),
  sigma2 = vec(ml2$sigma2),
  tests = list(htz("year and pubstatus", ml2, dat$study, constrain_zero(2:3, coef(ml2)))))

data <- list(
  study = I(as.character(dat$study)), ids = I(sprintf("s%d-e%d", dat$study, dat$esid)),
  yi = vec(dat$yi), vi = vec(dat$vi), deltype = I(dat$deltype), year = vec(dat$year),
  pubstatus = vec(dat$pubstatus))
write_fixture(list(assink2016 = data, cases = cases), out_path,
  data = metadat_source("dat.assink2016"), control = list(rma = CTRL, rma_mv = CTRL_MV))
