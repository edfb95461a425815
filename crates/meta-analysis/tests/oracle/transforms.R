#!/usr/bin/env Rscript
## Golden values of metafor's back-transformations beyond exp, ilogit and ztor: transf.iarcsin,
## transf.ipft.hm (with its sample sizes), transf.iirft (at one person-time), transf.isqrt,
## transf.iahw and transf.iabt, on grids that cross each transform's range and its bounds.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/transforms.R \
##       crates/meta-analysis/tests/fixtures/transforms.json
##
## A case gives the transform (the engine's name: metafor's without "transf."), its argument
## (`ni`: the sample sizes whose harmonic mean transf.ipft.hm takes, NA for a missing one;
## `ti`: the person-time of transf.iirft), the points x and metafor's values z.

suppressPackageStartupMessages(library(metafor))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: transforms.R <out.json>")
out_path <- args[1]

cases <- list()
case <- function(transform, x, z, ni = NULL, ti = NULL) {
  cs <- list(transform = transform, x = vec(x), z = vec(z))
  if (!is.null(ni)) cs$ni <- vec(ni)
  if (!is.null(ti)) cs$ti <- ti
  cases[[length(cases) + 1]] <<- cs
}

grid <- function(lo, hi, extra = numeric(0)) sort(unique(c(seq(lo, hi, length.out = 97), extra)))

case("iarcsin", grid(-0.5, 2, c(0, asin(1), asin(sqrt(0.25)))), transf.iarcsin(grid(-0.5, 2, c(0, asin(1), asin(sqrt(0.25))))))
case("isqrt", grid(-1, 3, c(0, 1e-8)), transf.isqrt(grid(-1, 3, c(0, 1e-8))))
case("iahw", grid(-0.5, 1.5, c(0, 1, 0.2)), transf.iahw(grid(-0.5, 1.5, c(0, 1, 0.2))))
case("iabt", grid(-1, 8, c(0, 1e-10, 40)), transf.iabt(grid(-1, 8, c(0, 1e-10, 40))))

for (ni in list(c(10, 20, 35), 1, c(5, NA, 120, 7.5), c(2, 3), 1e6)) {
  nhm <- 1 / mean(1 / ni, na.rm = TRUE)
  x <- grid(-0.2, 1.8, c(transf.pft(0, nhm), transf.pft(1, nhm), transf.pft(c(0.01, 0.5, 0.99), nhm), pi / 4))
  case("ipft.hm", x, transf.ipft.hm(x, targs = list(ni = ni)), ni = ni)
}

for (ti in c(0.5, 10, 1234.5, 1e5)) {
  x <- grid(0, 3, c(transf.irft(0, ti), transf.irft(c(1e-3, 0.2, 2), ti)))
  case("iirft", x, transf.iirft(x, ti), ti = ti)
}

write_fixture(list(cases = cases), out_path,
              data = list(notes = "grids of points across each transform's range; no dataset"),
              control = NULL)
