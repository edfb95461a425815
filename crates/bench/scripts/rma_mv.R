# metafor's rma.mv with sparse = TRUE on the bench's nested records (columns yi, vi, study):
# the three-level model (~ 1 | study/es, diagonal V) and the CHE model (V by
# vcalc(vi, cluster = study, obs = es, rho = 0.6), then ~ 1 | study/es), REML at default control.
# Usage: Rscript rma_mv.R NESTED_CSV [SUFFIX]. Prints "key value" lines (one fit each, in ms;
# keys end in _k1000_ms, or in SUFFIX); "absent <reason>" when metafor is not installed.

args <- commandArgs(trailingOnly = TRUE)
if (!suppressWarnings(suppressMessages(requireNamespace("metafor", quietly = TRUE)))) {
  cat("absent metafor is not installed\n")
  quit(status = 0)
}
suppressMessages(library(metafor))
suffix <- if (length(args) >= 2) args[2] else "k1000_ms"
d <- read.csv(args[1])
d$es <- seq_len(nrow(d))
ms <- function(f) { t <- proc.time()[["elapsed"]]; r <- f(); list(ms = (proc.time()[["elapsed"]] - t) * 1000, fit = r) }
cat("metafor", as.character(packageVersion("metafor")), "\n")
a <- ms(function() rma.mv(yi, vi, random = ~ 1 | study/es, data = d, method = "REML", sparse = TRUE))
cat(paste0("metafor_rma_mv_sparse_three_level_", suffix), a$ms, "\n")
cat("three_level_sigma2", a$fit$sigma2, "\n")
V <- vcalc(vi, cluster = study, obs = es, rho = 0.6, data = d)
b <- ms(function() rma.mv(yi, V, random = ~ 1 | study/es, data = d, method = "REML", sparse = TRUE))
cat(paste0("metafor_rma_mv_sparse_che_", suffix), b$ms, "\n")
cat("che_sigma2", b$fit$sigma2, "\n")
