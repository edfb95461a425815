## Fixture for crates/exemplar/tests/forest_options.rs: forests of general rma.mv models
## (issue 45 item 2). For each case, metafor 3.8-1's weights() of the rma.mv fit (type
## "diagonal": diag(M^-1) as percent), its fitted values with their confidence limits
## (predict() at each record's moderators; and their prediction limits for a model of
## `~ 1 | id` terms alone) and, intercept-only, the pooled estimate, CI
## and PI.
##  - dat.berkey1998: random = ~ outcome | trial, struct = "UN", V from v1i/v2i per trial,
##    mods = ~ outcome - 1, with tau2 and rho held at the engine's exact optimum (`at_ours`
##    of ../fixtures/rma_mv.json, issue 44's protocol: metafor stops short of it, its weights
##    then differing by 4e-6 relative);
##  - dat.konstantopoulos2011: random = ~ 1 | district/school, intercept-only and with
##    mods = ~ year.
##
## metafor's defaults otherwise (tight control fails to converge on the third case); the
## test's tolerance is 1e-6 relative.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/forest_rma_mv.R \
##       crates/exemplar/tests/fixtures/forest_rma_mv.json
suppressPackageStartupMessages({library(metafor); library(jsonlite)})
source(file.path(dirname(sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: forest_rma_mv.R <out.json>")

b98 <- dat.berkey1998
V_b98 <- bldiag(lapply(split(b98[, c("v1i", "v2i")], b98$trial), as.matrix))
k11 <- dat.konstantopoulos2011

case <- function(res, records) {
  pr <- predict(res)
  out <- list(records = records, weights = vec(weights(res)),
              coefficients = vec(coef(res)), sigma2 = vec(res$sigma2),
              tau2 = vec(res$tau2), rho = vec(res$rho), loglik = as.numeric(logLik(res)))
  if (res$int.only) {
    out$estimate <- num1(coef(res)); out$ci_lower <- res$ci.lb; out$ci_upper <- res$ci.ub
    out$pi_lower <- num1(pr$pi.lb); out$pi_upper <- num1(pr$pi.ub)
  } else {
    out$fitted <- vec(pr$pred); out$fitted_ci_lower <- vec(pr$ci.lb)
    out$fitted_ci_upper <- vec(pr$ci.ub)
    ## Prediction intervals of models of `~ 1 | id` terms alone (Σσ² added).
    if (!res$withG) {
      out$fitted_pi_lower <- vec(pr$pi.lb); out$fitted_pi_upper <- vec(pr$pi.ub)
    }
  }
  out
}

b98_records <- lapply(seq_len(nrow(b98)), function(i)
  list(id = sprintf("%s-%s", b98$trial[i], b98$outcome[i]), yi = b98$yi[i], vi = b98$vi[i],
       trial = as.character(b98$trial[i]), outcome = as.character(b98$outcome[i]),
       v1i = b98$v1i[i], v2i = b98$v2i[i]))
k11_records <- lapply(seq_len(nrow(k11)), function(i)
  list(id = sprintf("e%02d", i), yi = k11$yi[i], vi = k11$vi[i],
       district = as.character(k11$district[i]), school = as.character(k11$school[i]),
       year = k11$year[i]))

ours <- Filter(function(c) c$name == "berkey1998 UN REML",
               fromJSON(file.path(REPO_ROOT, "crates/meta-analysis/tests/fixtures/rma_mv.json"),
                        simplifyVector = FALSE)$cases)[[1]]$at_ours
berkey <- rma.mv(yi, V_b98, mods = ~ outcome - 1, random = ~ outcome | trial, struct = "UN",
                 tau2 = unlist(ours$tau2), rho = unlist(ours$rho), data = b98)
k11_int <- rma.mv(yi, vi, random = ~ 1 | district / school, data = k11)
k11_year <- rma.mv(yi, vi, mods = ~ year, random = ~ 1 | district / school, data = k11)

out <- list(
  berkey1998 = case(berkey, b98_records),
  konstantopoulos2011 = case(k11_int, k11_records),
  konstantopoulos2011_year = case(k11_year, k11_records)
)
write_fixture(out, args[1],
              data = metadat_source(c("dat.berkey1998", "dat.konstantopoulos2011")),
              control = list())
