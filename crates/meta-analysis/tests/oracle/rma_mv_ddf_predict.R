## Oracle for fit_multilevel's general models (issue 44): metafor's dfs = "contain"
## (rma.mv's .ddf.calc) and predict.rma.mv's intervals (crates/exemplar/tests/
## rma_mv_ddf_predict.rs). Each case is a fit_multilevel call (its records and arguments)
## beside metafor's numbers for the same model, every component fixed at metafor's
## estimates (the call fixes the same values), so both sides compute at one point:
##   ddf:  per coefficient, QM's F df, t p-values and CIs (test = "t", dfs = "contain") on
##         dat.konstantopoulos2011 nested (district/school; a school-level, a district-level
##         and a mixed moderator), crossed (dat.assink2016, ~ 1 | study and ~ 1 | deltype)
##         and inner | outer (dat.assink2016, CS over deltype | study with deltype and year:
##         deltype is contained in deltype + study's 21 levels; dat.berkey1998, UN over
##         outcome | trial, outcome and year);
##   predict: intercept-only predict() (and with transf = exp) on the three-level model, the
##         two-term CS + ID model (test t, dfs contain: the PI's t df; its gamma2 estimated by
##         the call at metafor's tau2 and rho) and HCS, whose tau2 per level gives one PI per
##         level;
##   confint: profile-likelihood intervals of tau2, rho and gamma2 of a two-term model.
##
##   Rscript crates/meta-analysis/tests/oracle/rma_mv_ddf_predict.R crates/meta-analysis/tests/fixtures/rma_mv_ddf_predict.json
source(file.path(dirname(sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))
suppressPackageStartupMessages(library(metafor))
out_path <- commandArgs(TRUE)[1]
## rma.mv at its defaults (tight control does not converge on most of these models; every
## comparison is at components fixed at metafor's estimates), but the two-term model.
CTRL <- "defaults; the two-term model rel.tol = 1e-12, iter.max = eval.max = 10000"

records_of <- function(d, cols) unname(lapply(seq_len(nrow(d)), function(i) {
  r <- list(id = d$rid[i], yi = d$yi[i], vi = d$vi[i])
  for (c in cols) r[[c]] <- d[[c]][i]
  r
}))
fixed_args <- function(fit) {
  a <- list()
  if (length(fit$sigma2) && fit$withS) a$sigma2 <- vec(fit$sigma2)
  if (fit$withG) { a$tau2 <- vec(fit$tau2); if (length(fit$rho) && !is.element(fit$struct[1], "ID")) a$rho <- vec(fit$rho) }
  a
}
coefs_of <- function(fit) list(beta = vec(fit$beta), se = vec(fit$se), ddf = vec(fit$ddf),
  pval = vec(fit$pval), ci_lb = vec(fit$ci.lb), ci_ub = vec(fit$ci.ub),
  qm = num1(fit$QM), qm_df = vec(fit$QMdf), qm_p = num1(fit$QMp))

k11 <- dat.konstantopoulos2011
k11$rid <- paste0("d", k11$district, "s", k11$school)
k11$slev <- k11$school %% 2
k11$dlev <- (ave(k11$year, k11$district, FUN = function(x) x[1]) - 1985) / 10
k11$yr <- (k11$year - 1985) / 10
a16 <- dat.assink2016
a16$rid <- paste0("s", a16$study, "e", a16$esid)
b98 <- dat.berkey1998
b98$rid <- paste0("t", b98$trial, b98$outcome)
b98$yr <- b98$year - 1983
b98_V <- bldiag(lapply(split(b98[, c("v1i", "v2i")], b98$trial), as.matrix))

ddf_case <- function(name, d, cols, args, refit) {
  free <- refit(NULL)
  fit <- refit(free)
  list(name = name, records = records_of(d, cols), args = c(args, fixed_args(free)), metafor = coefs_of(fit))
}
ddf_cases <- list(
  ddf_case("nested district/school", k11, c("district", "school", "slev", "dlev", "yr"),
    list(random = "~ 1 | district/school", mods = "~ slev + dlev + yr", test = "t", dfs = "contain"),
    function(f) rma.mv(yi, vi, random = ~ 1 | district/school, mods = ~ slev + dlev + yr, data = k11,
      test = "t", dfs = "contain", sigma2 = if (is.null(f)) NA else f$sigma2)),
  ddf_case("crossed study + deltype", a16, c("study", "deltype", "pubstatus", "year"),
    list(random = I(c("~ 1 | study", "~ 1 | deltype")), mods = "~ pubstatus + year", test = "t", dfs = "contain"),
    function(f) rma.mv(yi, vi, random = list(~ 1 | study, ~ 1 | deltype), mods = ~ pubstatus + year,
      data = a16, test = "t", dfs = "contain", sigma2 = if (is.null(f)) NA else f$sigma2)),
  ## deltype is constant within deltype + study (fewer levels than k, more than studies).
  ddf_case("inner | outer CS deltype | study, deltype + year", a16, c("study", "deltype", "year"),
    list(random = "~ deltype | study", struct = "CS", mods = "~ deltype + year", test = "t", dfs = "contain"),
    function(f) rma.mv(yi, vi, random = ~ deltype | study, struct = "CS", mods = ~ deltype + year, data = a16,
      test = "t", dfs = "contain", tau2 = if (is.null(f)) NA else f$tau2, rho = if (is.null(f)) NA else f$rho)),
  ddf_case("inner | outer UN outcome + yr", b98, c("trial", "outcome", "v1i", "v2i", "yr"),
    list(random = "~ outcome | trial", struct = "UN", V = list(cluster = "trial", columns = I(c("v1i", "v2i"))),
         mods = "~ outcome + yr", test = "t", dfs = "contain"),
    function(f) rma.mv(yi, b98_V, random = ~ outcome | trial, struct = "UN", mods = ~ outcome + yr, data = b98,
      test = "t", dfs = "contain", tau2 = if (is.null(f)) NA else f$tau2, rho = if (is.null(f)) NA else f$rho)))

pred_of <- function(p) list(pred = vec(p$pred), ci_lb = vec(p$ci.lb), ci_ub = vec(p$ci.ub),
  pi_lb = vec(p$pi.lb), pi_ub = vec(p$pi.ub),
  tau2_level = if (is.null(p$tau2.level)) NA else I(as.character(p$tau2.level)),
  gamma2_level = if (is.null(p$gamma2.level)) NA else I(as.character(p$gamma2.level)))
three <- rma.mv(yi, vi, random = ~ 1 | district/school, data = k11)
three_at <- rma.mv(yi, vi, random = ~ 1 | district/school, data = k11, sigma2 = three$sigma2)
## CS over deltype (3 levels), ID over esid, at tight control (it converges here): the call
## fixes tau2 and rho (gamma2 is not an argument), and its gamma2, the maximum given those,
## is metafor's to its convergence.
two <- rma.mv(yi, vi, random = list(~ deltype | study, ~ esid | study), struct = c("CS", "ID"), data = a16,
              control = list(rel.tol = 1e-12, iter.max = 10000, eval.max = 10000))
two_at <- rma.mv(yi, vi, random = list(~ deltype | study, ~ esid | study), struct = c("CS", "ID"), data = a16,
                 tau2 = two$tau2, rho = two$rho, gamma2 = two$gamma2, test = "t", dfs = "contain")
hcs <- rma.mv(yi, vi, random = ~ deltype | study, struct = "HCS", data = a16)
hcs_at <- rma.mv(yi, vi, random = ~ deltype | study, struct = "HCS", data = a16, tau2 = hcs$tau2, rho = hcs$rho)
predict_cases <- list(
  list(name = "three levels, exp", records = records_of(k11, c("district", "school")),
       args = list(random = "~ 1 | district/school", sigma2 = vec(three$sigma2), transform = "exp"),
       metafor = pred_of(predict(three_at)), natural = pred_of(predict(three_at, transf = exp))),
  list(name = "CS + ID, t contain", records = records_of(a16, c("study", "esid", "deltype")),
       args = list(random = I(c("~ deltype | study", "~ esid | study")), struct = I(c("CS", "ID")),
                   tau2 = vec(two$tau2), rho = vec(two$rho), test = "t", dfs = "contain"),
       gamma2 = num1(two$gamma2), ddf = vec(two_at$ddf), metafor = pred_of(predict(two_at))),
  list(name = "HCS per level", records = records_of(a16, c("study", "deltype")),
       args = list(random = "~ deltype | study", struct = "HCS", tau2 = vec(hcs$tau2), rho = vec(hcs$rho)),
       metafor = pred_of(predict(hcs_at))))

## CS over deltype (3 levels), ID over esid: every profile stays where G is positive definite
## (rho > -1/2; with CS over esid's 22 levels metafor's profile of tau2 reaches rho = -1).
## confint() at rma.mv's default control (on the tight-control fit its profiles of tau2 and
## gamma2 fail and rho's differs: the tight control carried into each profile fit).
two_ci <- rma.mv(yi, vi, random = list(~ deltype | study, ~ esid | study), struct = c("CS", "ID"), data = a16)
ci <- confint(two_ci, control = list(tol = 1e-12))
confint_case <- list(name = "CS + ID profile intervals", records = records_of(a16, c("study", "esid", "deltype")),
  args = list(random = I(c("~ deltype | study", "~ esid | study")), struct = I(c("CS", "ID"))),
  estimates = list(tau2 = num1(two_ci$tau2), rho = num1(two_ci$rho), gamma2 = num1(two_ci$gamma2),
                   loglik = num1(logLik(two_ci))),
  intervals = unname(lapply(Filter(function(x) is.list(x) && !is.null(x$random), ci), function(x)
    list(name = rownames(x$random)[1], estimate = num1(x$random[1, 1]), lower = num1(x$random[1, 2]),
         upper = num1(x$random[1, 3])))))

write_fixture(list(ddf = ddf_cases, predict = predict_cases, confint = confint_case), out_path,
  data = metadat_source(c("dat.konstantopoulos2011", "dat.assink2016", "dat.berkey1998")),
  control = list(rma_mv = CTRL, confint = list(tol = 1e-12)))
