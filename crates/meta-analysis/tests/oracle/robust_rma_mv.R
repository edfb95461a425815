## Oracle for cluster-robust tests of general rma.mv models (crates/meta-analysis/src/robust/mv.rs):
## clubSandwich's coef_test(fit, vcov = "CR2") and Wald_test(fit, constrain_zero(2:3),
## vcov = "CR2", test = "HTZ") on (a) dat.berkey1998, UN over outcome | trial with V from
## v1i/v2i and mods ~ outcome + year (year less 1983: with year as it is, X's condition number
## is 1.2e6 and both sides lose digits, the HTZ df2 agreeing to 2.6e-8 only), and (b) dat.assink2016's CHE model, V from
## vcalc(vi, cluster = study, obs = esid, rho = 0.6) and random ~ 1 | study/esid, mods ~ deltype.
## Each model is fitted at rma.mv's defaults (tight control does not converge on UN), then refitted with every component fixed at
## those estimates (written as `sigma2`, `tau2`, `rho`): the engine's test fixes the same
## values, so both sides test the same fit whatever the optimizers' last digits.
##
##   Rscript crates/meta-analysis/tests/oracle/robust_rma_mv.R crates/meta-analysis/tests/fixtures/robust_rma_mv.json
source(file.path(dirname(sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))
suppressPackageStartupMessages({library(metafor); library(clubSandwich)})
out_path <- commandArgs(TRUE)[1]

blocks_of <- function(V, cluster) {
  unname(lapply(split(seq_along(cluster), cluster), function(r)
    list(rows = I(r - 1), matrix = I(as.numeric(t(V[r, r, drop = FALSE]))))))
}
tests_of <- function(fit, cluster) {
  ct <- coef_test(fit, vcov = "CR2", cluster = cluster)
  w <- Wald_test(fit, constraints = constrain_zero(2:3), vcov = "CR2", cluster = cluster,
                 test = "HTZ")
  list(beta = vec(ct$beta), se = vec(ct$SE), t = vec(ct$tstat), df = vec(ct$df_Satt),
       p = vec(ct$p_Satt), htz = list(btt = vec(2:3), f = num1(w$Fstat),
       df_num = num1(w$df_num), df_denom = num1(w$df_denom), p = num1(w$p_val)))
}

b98 <- dat.berkey1998
b98$year <- b98$year - 1983
V_b98 <- bldiag(lapply(split(b98[, c("v1i", "v2i")], b98$trial), as.matrix))
free <- rma.mv(yi, V_b98, mods = ~ outcome + year, random = ~ outcome | trial, struct = "UN",
               data = b98)
a <- rma.mv(yi, V_b98, mods = ~ outcome + year, random = ~ outcome | trial, struct = "UN",
            data = b98, tau2 = free$tau2, rho = free$rho)
case_a <- c(list(name = "berkey1998 UN outcome + (year - 1983)", yi = vec(b98$yi),
  X = vec(t(model.matrix(~ outcome + year, b98))), cluster = I(as.character(b98$trial)),
  intercepts = list(), terms = list(list(inner = I(as.character(b98$outcome)),
    outer = I(as.character(b98$trial)), struct = "UN")),
  blocks = blocks_of(V_b98, b98$trial), sigma2 = vec(numeric(0)), tau2 = vec(free$tau2),
  rho = vec(free$rho)), tests_of(a, b98$trial))

dat <- dat.assink2016
V <- vcalc(vi, cluster = study, obs = esid, rho = 0.6, data = dat)
free <- rma.mv(yi, V, random = ~ 1 | study/esid, mods = ~ deltype, data = dat)
b <- rma.mv(yi, V, random = ~ 1 | study/esid, mods = ~ deltype, data = dat, sigma2 = free$sigma2)
case_b <- c(list(name = "assink2016 CHE (vcalc rho 0.6) deltype", yi = vec(dat$yi),
  X = vec(t(model.matrix(~ deltype, dat))), cluster = I(as.character(dat$study)),
  vi = vec(dat$vi), esid = I(as.character(dat$esid)),
  intercepts = list(list(name = "study", levels = I(as.character(dat$study))),
    list(name = "study/esid", levels = I(paste(dat$study, dat$esid, sep = "/")))),
  terms = list(), blocks = blocks_of(V, dat$study), sigma2 = vec(free$sigma2),
  tau2 = vec(numeric(0)), rho = vec(numeric(0))), tests_of(b, dat$study))

write_fixture(list(cases = list(case_a, case_b)), out_path,
  data = metadat_source(c("dat.berkey1998", "dat.assink2016")),
  control = list(rma_mv = "defaults"))
