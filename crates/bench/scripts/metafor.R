# metafor on the bench's records: rma(method = "REML") on the 19 frozen
# records, leave1out() of that fit, one rma() at k = 1000, and one REML
# meta-regression on four moderators at k = 1000.
# Usage: Rscript metafor.R K19_CSV K1000_CSV METAREG_K1000_CSV. Prints "key value" lines;
# "absent <reason>" when metafor is not installed.

args <- commandArgs(trailingOnly = TRUE)
if (!suppressWarnings(suppressMessages(requireNamespace("metafor", quietly = TRUE)))) {
  cat("absent metafor is not installed\n")
  quit(status = 0)
}
suppressMessages(library(metafor))
small <- read.csv(args[1])
large <- read.csv(args[2])

# Median over batches of the mean time per call, in ms (proc.time resolves 1 ms).
per_call_ms <- function(f, batches, reps) {
  f()
  times <- vapply(seq_len(batches), function(b) {
    t <- proc.time()[["elapsed"]]
    for (i in seq_len(reps)) f()
    (proc.time()[["elapsed"]] - t) * 1000 / reps
  }, numeric(1))
  median(times)
}

fit <- rma(small$yi, small$vi, method = "REML")
cat("version", as.character(packageVersion("metafor")), "\n")
cat("tau2_k19", fit$tau2, "\n")
cat("rma_k19_ms", per_call_ms(function() rma(small$yi, small$vi, method = "REML"), 5, 50), "\n")
cat("leave1out_k19_ms", per_call_ms(function() leave1out(fit), 5, 4), "\n")
t <- proc.time()[["elapsed"]]
big <- rma(large$yi, large$vi, method = "REML")
cat("rma_k1000_ms", (proc.time()[["elapsed"]] - t) * 1000, "\n")
cat("tau2_k1000", big$tau2, "\n")
mr <- read.csv(args[3])
t <- proc.time()[["elapsed"]]
fit_mr <- rma(mr$yi, mr$vi, mods = cbind(mr$x1, mr$x2, mr$x3, mr$x4), method = "REML")
cat("metareg_k1000_ms", (proc.time()[["elapsed"]] - t) * 1000, "\n")
cat("metareg_tau2_k1000", fit_mr$tau2, "\n")
