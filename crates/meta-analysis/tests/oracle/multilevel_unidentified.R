#!/usr/bin/env Rscript
## Golden fixture for a three-level model whose between-study variance the REML likelihood
## cannot identify: dat.mcdaniel1994 with the study column `type` and mods = ~ type + struct.
## Each study's mean is then a fixed effect (the study column is a function of the
## moderators), so the random study effects lie in the column space of X: y'Py and
## log det V + log det X'V^-1 X do not change with sigma^2_1, and neither does the
## restricted log-likelihood. metafor's rma.mv returns its start value for sigma^2_1
## (about 0.0217) while the standard errors of the coefficients depend on it; the fixture
## records the restricted log-likelihood and the standard errors at three fixed sigma^2_1
## (sigma^2_2 free), showing the flat likelihood and the moving standard errors, and the ML
## fit (sigma^2_1 = 0: the ML likelihood falls as sigma^2_1 grows), refitted with
## sigma^2_1 fixed at 0 and sigma^2_2 at rma()'s exact ML tau^2 of that two-level model, so
## that its other numbers are metafor's at the optimum.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/multilevel_unidentified.R \
##       crates/meta-analysis/tests/fixtures/multilevel_unidentified.json
##
## Requires metafor (developed against 3.8-1) with metadat.

suppressPackageStartupMessages(library(metafor))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: multilevel_unidentified.R <out.json>")
out_path <- args[1]

## rma.mv's tightest working control, as metafor_multilevel.R.
CTRL_MV <- list(optimizer = "optim", optmethod = "BFGS", reltol = 1e-15, maxit = 10000)

mc <- escalc(measure = "ZCOR", ri = ri, ni = ni, data = metadat::dat.mcdaniel1994)
mc <- mc[!is.na(mc$type) & !is.na(mc$struct), ]
mc$es <- seq_len(nrow(mc))

dataset <- list(name = "mcdaniel_by_type", ids = paste0("r", mc$es), yi = as.numeric(mc$yi),
                vi = as.numeric(mc$vi), study = mc$type,
                columns = list(type = mc$type, struct = mc$struct),
                notes = "dat.mcdaniel1994, escalc(measure = 'ZCOR'), records with type and struct; study = type")

fit <- function(method, sigma2 = c(NA, NA))
  rma.mv(yi, vi, mods = ~ type + struct, random = ~ 1 | type/es, data = mc, method = method,
         sigma2 = sigma2, control = CTRL_MV)

free <- fit("REML")
fixed <- lapply(c(0, free$sigma2[1], 0.1), function(s1) {
  f <- fit("REML", c(s1, NA))
  list(sigma2 = vec(f$sigma2), loglik = as.numeric(logLik(f)), beta = vec(f$beta), se = vec(f$se))
})
ll <- sapply(fixed, function(f) f$loglik)
## The restricted log-likelihood is flat in sigma^2_1 (to rma.mv's optimizer tolerance).
stopifnot(diff(range(ll)) < 1e-9)
## ... while the standard error of the intercept is not.
stopifnot(fixed[[3]]$se[1] > 1.5 * fixed[[1]]$se[1])

ml_free <- fit("ML")
## With sigma^2_1 = 0 the model is rma's two-level model with tau^2 = sigma^2_2, whose ML
## estimate Fisher scoring finds to a threshold of 1e-13 (formulas.R's control); rma.mv is
## then refitted with both components fixed there, so every number is metafor's at the
## optimum rather than where its optimizer stopped (~1e-8 short here).
CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5, tol = 1e-14, tau2.max = 1e7)
two <- rma(yi, vi, mods = ~ type + struct, data = mc, method = "ML", control = CTRL)
ml <- fit("ML", c(0, two$tau2))
stopifnot(ml_free$sigma2[1] < 1e-6, as.numeric(logLik(ml)) >= as.numeric(logLik(ml_free)) - 1e-12)
nm <- rownames(ml$beta); nm[nm == "intrcpt"] <- "intercept"

res <- list(
  datasets = list(dataset),
  formula = "~ type + struct",
  reml = list(metafor_free_sigma2 = vec(free$sigma2), metafor_free_loglik = as.numeric(logLik(free)),
              fixed_sigma2_1 = fixed),
  ml = list(metafor_free_sigma2 = vec(ml_free$sigma2), names = I(nm), sigma2 = vec(ml$sigma2),
            loglik = as.numeric(logLik(ml)), beta = vec(ml$beta), se = vec(ml$se),
            zval = vec(ml$zval), pval = vec(ml$pval), ci_lb = vec(ml$ci.lb), ci_ub = vec(ml$ci.ub),
            qm = ml$QM, qm_p = ml$QMp, qe = ml$QE))
write_fixture(res, out_path, data = metadat_source("dat.mcdaniel1994"),
              control = list(rma = CTRL, rma_mv = CTRL_MV))
