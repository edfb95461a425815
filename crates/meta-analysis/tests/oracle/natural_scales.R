#!/usr/bin/env Rscript
## Golden fixture for the natural scale of the measures whose back-transformation is one of
## metafor's own (issue 33): raw data through escalc, a REML fit, and predict(fit, transf =
## ...) as a metafor user writes it. crates/exemplar/tests/natural_scales.rs gives the same
## raw data to compute_effect_sizes, fits the records with fit_random_effects (transform
## "auto") and compares `natural`.
##
##   PFT  dat.pritz1997 (xi, ni)   transf.ipft.hm, targs = list(ni = dat$ni)
##   PAS  dat.pritz1997            transf.iarcsin
##   IRFT dat.hart1999 (x1i, t1i)  transf.iirft, targs = 1/mean(1/dat$ti): metafor has no
##                                 harmonic-mean form of it; predict() hands targs to
##                                 transf.iirft as its ti, the person-time at which to invert
##   IRS  dat.hart1999             transf.isqrt
##   AHW  dat.bonett2010           transf.iahw
##   ABT  dat.bonett2010           transf.iabt
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/natural_scales.R \
##       crates/exemplar/tests/fixtures/natural_scales.json

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: natural_scales.R <out.json>")
out_path <- args[1]

CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5)

pred <- function(p) list(estimate = p$pred, ci_lower = p$ci.lb, ci_upper = p$ci.ub,
                         pi_lower = p$pi.lb, pi_upper = p$pi.ub)

cases <- list()
case <- function(measure, transform, raw, transf, targs = NULL) {
  dat <- do.call(escalc, c(list(measure = measure), as.list(raw)))
  fit <- rma(yi, vi, data = dat, method = "REML", control = CTRL)
  p <- if (is.null(targs)) predict(fit, transf = transf) else predict(fit, transf = transf, targs = targs)
  rows <- lapply(seq_len(nrow(raw)), function(i) c(list(id = sprintf("s%02d", i)), as.list(raw[i, ])))
  cases[[length(cases) + 1]] <<- list(measure = measure, transform = transform, data = rows,
                                      estimate = fit$beta[1], natural = pred(p))
}

pritz <- data.frame(xi = dat.pritz1997$xi, ni = dat.pritz1997$ni)
case("PFT", "ipft.hm", pritz, transf.ipft.hm, list(ni = pritz$ni))
case("PAS", "iarcsin", pritz, transf.iarcsin)
hart <- data.frame(xi = dat.hart1999$x1i, ti = dat.hart1999$t1i)
case("IRFT", "iirft", hart, transf.iirft, 1 / mean(1 / hart$ti))
case("IRS", "isqrt", hart, transf.isqrt)
bonett <- data.frame(ai = dat.bonett2010$ai, mi = dat.bonett2010$mi, ni = dat.bonett2010$ni)
case("AHW", "iahw", bonett, transf.iahw)
case("ABT", "iabt", bonett, transf.iabt)

write_fixture(list(cases = cases), out_path,
              data = metadat_source(c("dat.pritz1997", "dat.hart1999", "dat.bonett2010")),
              control = CTRL)
