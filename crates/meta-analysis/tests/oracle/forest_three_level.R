## Fixture for crates/exemplar/tests/forest_options.rs: metafor 3.8-1's three-level model of
## dat.konstantopoulos2011 (schools within districts), its pooled estimate and interval, and
## weights() of the rma.mv fit (the diagonal of W as percent).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/forest_three_level.R \
##       crates/exemplar/tests/fixtures/forest_three_level.json
suppressPackageStartupMessages(library(metafor))
source(file.path(dirname(sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: forest_three_level.R <out.json>")

dat <- dat.konstantopoulos2011
res <- rma.mv(yi, vi, random = ~ 1 | district / school, data = dat)
pred <- predict(res)
records <- lapply(seq_len(nrow(dat)), function(i)
  list(id = sprintf("e%02d", i), yi = dat$yi[i], vi = dat$vi[i],
       district = as.character(dat$district[i])))
out <- list(
  records = records,
  estimate = num1(coef(res)), ci_lower = res$ci.lb, ci_upper = res$ci.ub,
  pi_lower = pred$pi.lb, pi_upper = pred$pi.ub,
  sigma2 = vec(res$sigma2), weights = vec(weights(res))
)
write_fixture(out, args[1], data = metadat_source("dat.konstantopoulos2011"),
              control = list())
