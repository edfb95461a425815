#!/usr/bin/env Rscript
## Oracle for the engine's diagnostic plots (`diagnostics.rs`): the coordinates metafor's
## baujat(), radial(), qqnorm() (standardized residuals) and labbe() return, invisibly, for
## an rma.uni fit of the intercept-only model.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/diagnostics.R \
##       crates/exemplar/data/dat.raudenbush1985.csv \
##       crates/meta-analysis/tests/fixtures/diagnostics.json
##
## Requires the R packages metafor (developed against 3.8-1) and metadat (dat.bcg,
## dat.nielweise2007, dat.hart1999).
## Numbers are written with 17 significant digits by common.R's writer, after a `provenance`
## object naming the versions, the data and the control settings.

suppressPackageStartupMessages(library(metafor))
## The oracle kit beside this script: JSON writer, helpers, write_fixture() and provenance.
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: diagnostics.R <dat.raudenbush1985.csv> <out.json>")
raw <- read_oracle_csv(args[1])
out_path <- args[2]

## ---------------------------------------------------------------- controls
## threshold/maxiter/stepadj: Fisher scoring (ML, REML) run to a tight threshold, so the
## refits of baujat() are the exact roots too.
CTRL <- list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5)
METHODS <- c("REML", "DL", "EE")
TESTS <- c("z", "knha")

## The plots draw into a null device; only what they return is kept.
pdf(NULL)

## ---------------------------------------------------------------- datasets
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
datasets <- list(
  list(name = "raudenbush1985", ids = raw$id, yi = raw$yi, vi = raw$vi,
       notes = "dat.raudenbush1985 from the exemplar's CSV"),
  list(name = "bcg", ids = sprintf("t%02d", bcg$trial), yi = as.numeric(bcg$yi),
       vi = as.numeric(bcg$vi),
       notes = "metadat's dat.bcg, log risk ratios from escalc(measure = 'RR')"))

## ---------------------------------------------------------------- baujat, radial, qqnorm
points_of <- function(sav) list(x = vec(sav$x), y = vec(sav$y))

plots_of <- function(d, method, test) {
  fit <- rma(d$yi, d$vi, method = method, test = test, control = CTRL)
  list(data = d$name, method = method, test = test, tau2 = num1(fit$tau2),
       baujat = points_of(baujat(fit)),
       radial = points_of(radial(fit)),
       qq = points_of(qqnorm(fit, envelope = FALSE)))
}

results <- list()
for (d in datasets) for (m in METHODS) for (t in TESTS)
  results[[length(results) + 1]] <- plots_of(d, m, t)

## ---------------------------------------------------------------- labbe
## Each case: the raw columns as the records carry them, the measure of the fit and what
## labbe() returns (x: group 2, y: group 1, cex).
nw <- dat.nielweise2007
hart <- dat.hart1999
tables <- list(
  list(name = "bcg", ids = sprintf("t%02d", dat.bcg$trial),
       columns = list(ai = dat.bcg$tpos, bi = dat.bcg$tneg, ci = dat.bcg$cpos, di = dat.bcg$cneg),
       measures = c("RR", "OR", "RD", "AS"),
       notes = "metadat's dat.bcg: ai = tpos, bi = tneg, ci = cpos, di = cneg"),
  list(name = "nielweise2007", ids = sprintf("n%02d", nw$study),
       columns = list(ai = nw$ai, n1i = nw$n1i, ci = nw$ci, n2i = nw$n2i),
       measures = c("RR", "OR", "RD"),
       notes = "metadat's dat.nielweise2007 (zero counts, one study with none in either arm)"),
  list(name = "hart1999", ids = sprintf("h%02d", hart$trial),
       columns = list(x1i = hart$x1i, t1i = hart$t1i, x2i = hart$x2i, t2i = hart$t2i),
       measures = c("IRR", "IRD", "IRSD"),
       notes = "metadat's dat.hart1999 (person-years)"))

labbe_of <- function(tb, measure) {
  fit <- do.call(rma, c(tb$columns, list(measure = measure, method = "REML", control = CTRL)))
  sav <- labbe(fit)
  list(data = tb$name, measure = measure, x = vec(sav$x), y = vec(sav$y), cex = vec(sav$cex))
}

labbe_results <- list()
for (tb in tables) for (m in tb$measures)
  labbe_results[[length(labbe_results) + 1]] <- labbe_of(tb, m)

res <- list(
  conventions = list(
    fit = "rma(yi, vi, method = method, test = test, control = CTRL)",
    baujat = "baujat(fit): x, y",
    radial = "radial(fit): x, y",
    qq = "qqnorm(fit, envelope = FALSE): x (theoretical quantiles), y (standardized residuals), record order",
    labbe = "labbe(rma(ai, bi/n1i, ci, di/n2i or x1i, t1i, x2i, t2i, measure = measure)): x (group 2), y (group 1), cex"),
  datasets = lapply(datasets, function(d) list(
    name = d$name, ids = I(d$ids), yi = I(d$yi), vi = I(d$vi), notes = d$notes)),
  results = results,
  tables = lapply(tables, function(tb) list(
    name = tb$name, ids = I(tb$ids), columns = lapply(tb$columns, vec), notes = tb$notes)),
  labbe = labbe_results)

write_fixture(res, out_path,
  data = list(csv = csv_source(args[1]),
              metadat = metadat_source(c("dat.bcg", "dat.nielweise2007", "dat.hart1999"))),
  control = list(rma = CTRL))
