# metafor's forest() of dat.bcg with ilab, at, header and mlab: the call that
# forest_bcg_exemplar.svg (forest_plot, the golden file
# crates/exemplar/tests/golden/forest_bcg_metafor.svg) draws, for the two to be read side by side.
# metafor 3.8-1 places ilab columns only where told (ilab.xpos, with xlim), as its own
# example does; forest_plot lays them out itself. Run from this folder: Rscript forest_bcg_metafor.R
library(metafor)
dat <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg,
              slab = paste(author, year, sep = ", "))
res <- rma(yi, vi, data = dat)
png("forest_bcg_metafor.png", width = 1100, height = 720, res = 120)
forest(res, atransf = exp, at = log(c(0.05, 0.25, 1, 4)),
       ilab = cbind(tpos, tneg, cpos, cneg), ilab.lab = c("ai", "bi", "ci", "di"),
       xlim = c(-16, 6), ilab.xpos = c(-9.5, -8, -6, -4.5),
       header = c("Author(s) and Year", "Risk Ratio [95% CI]"),
       mlab = "RE Model for All Studies", addpred = TRUE, cex = 0.8)
invisible(dev.off())
