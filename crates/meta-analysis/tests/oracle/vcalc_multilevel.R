## Fixture for crates/exemplar/tests/fit_multilevel_general.rs (`vcalc` through
## fit_multilevel): dat.assink2016 (effect sizes within studies) with V built by
## vcalc(vi, cluster = study, obs = esid, rho = 0.6) and the model
## rma.mv(yi, V, random = ~ 1 | study/esid), metafor 3.8-1 with tight control (it converges
## here). Two cases: all records; and records 1 and 10 left out (subset) with `year` as
## moderator and missing at record 20, so V's rows must follow the records fitted.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/vcalc_multilevel.R \
##       crates/exemplar/tests/fixtures/vcalc_multilevel.json
suppressPackageStartupMessages(library(metafor))
source(file.path(dirname(sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: vcalc_multilevel.R <out.json>")

## nlminb converges on the full data at rel.tol = 1e-10 (not 1e-12); on the subset it stops
## 1.4e-8 short in the intercept, where BFGS and Nelder-Mead agree within 1e-9: BFGS there.
CTRL <- list(rel.tol = 1e-10, iter.max = 10000, eval.max = 10000)
CTRL_SUBSET <- list(optimizer = "BFGS", reltol = 1e-14, maxit = 10000)
dat <- dat.assink2016
dat$year[20] <- NA
V <- vcalc(vi, cluster = study, obs = esid, rho = 0.6, data = dat)
fit_out <- function(res, V) list(
  beta = vec(coef(res)), se = vec(res$se), sigma2 = vec(res$sigma2),
  loglik = as.numeric(logLik(res)), qe = res$QE,
  v12 = V[1, 2], v_first_block = V[1:6, 1:6])
full <- rma.mv(yi, V, random = ~ 1 | study / esid, data = dat, control = list(full = CTRL, subset = CTRL_SUBSET))
subset <- rma.mv(yi, V, mods = ~ year, random = ~ 1 | study / esid, data = dat,
                 subset = -c(1, 10), control = CTRL_SUBSET)
records <- lapply(seq_len(nrow(dat)), function(i) {
  r <- list(id = sprintf("r%03d", i), yi = dat$yi[i], vi = dat$vi[i],
            study = dat$study[i], esid = dat$esid[i])
  if (!is.na(dat$year[i])) r$year <- dat$year[i]
  r
})
out <- list(records = records,
            full = fit_out(full, V),
            subset = c(fit_out(subset, V), list(k = subset$k)))
write_fixture(out, args[1], data = metadat_source("dat.assink2016"), control = list(full = CTRL, subset = CTRL_SUBSET))
