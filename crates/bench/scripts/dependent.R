# metafor's rma.mv (three-level REML, default control) and clubSandwich's coef_test(CR2)
# on the bench's nested records (columns yi, vi, study, x).
# Usage: Rscript dependent.R NESTED_CSV. Prints "key value" lines; "absent <reason>" when a
# package is not installed. Each time is the median of 3 runs, in ms.

args <- commandArgs(trailingOnly = TRUE)
for (pkg in c("metafor", "clubSandwich")) {
  if (!suppressWarnings(suppressMessages(requireNamespace(pkg, quietly = TRUE)))) {
    cat("absent", pkg, "is not installed\n")
    quit(status = 0)
  }
}
suppressMessages({library(metafor); library(clubSandwich)})
d <- read.csv(args[1])
d$es <- seq_len(nrow(d))
ms <- function(f) median(vapply(1:3, function(i) {
  t <- proc.time()[["elapsed"]]; f(); (proc.time()[["elapsed"]] - t) * 1000
}, numeric(1)))
cat("metafor", as.character(packageVersion("metafor")), "\n")
cat("clubSandwich", as.character(packageVersion("clubSandwich")), "\n")
mv <- rma.mv(yi, vi, random = ~ 1 | study/es, data = d, method = "REML")
cat("metafor_rma_mv_k1000_ms", ms(function() rma.mv(yi, vi, random = ~ 1 | study/es, data = d, method = "REML")), "\n")
uni <- rma(yi, vi, data = d, method = "REML")
cat("clubsandwich_cr2_k1000_ms", ms(function() coef_test(uni, vcov = "CR2", cluster = d$study)), "\n")
cat("clubsandwich_cr2_mv_k1000_ms", ms(function() coef_test(mv, vcov = "CR2", cluster = d$study)), "\n")
