#!/usr/bin/env Rscript
## Data for the R-code test (issue 46): metadat datasets the tools' examples do not use, as
## the records (and raw rows) an agent would send. crates/exemplar/tests/r_code.rs calls the
## tools on them with `r_code: true` and runs every script in one R process; no metafor
## number is stored here (the scripts compute them).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/r_code_unseen.R \
##       crates/exemplar/tests/fixtures/r_code_unseen.json
##
## Requires metafor (developed against 3.8-1) and metadat.

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
source(file.path(dirname(sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: r_code_unseen.R <out.json>")

records <- function(d, id, yi = "yi", vi = "vi", keep = character(0)) {
  lapply(seq_len(nrow(d)), function(i) {
    r <- list(id = as.character(d[[id]][i]), yi = as.numeric(d[[yi]][i]), vi = as.numeric(d[[vi]][i]))
    for (k in keep) r[[k]] <- if (is.factor(d[[k]])) as.character(d[[k]][i]) else d[[k]][i]
    r
  })
}
rows <- function(d, keep) lapply(seq_len(nrow(d)), function(i) {
  r <- list(); for (k in keep) r[[k]] <- if (is.factor(d[[k]])) as.character(d[[k]][i]) else d[[k]][i]; r
})

bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
bcg$id <- paste0("trial ", bcg$trial)
molloy <- escalc(measure = "ZCOR", ri = ri, ni = ni, data = dat.molloy2014)
molloy$id <- paste0(molloy$authors, " (", molloy$year, ")")
hack <- dat.hackshaw1998
hack$id <- sprintf("h%02d", hack$study)

fixture <- list(
  bcg = list(measure = "RR",
             records = records(bcg, "id", keep = c("author", "year", "ablat", "alloc")),
             raw = rows(dat.bcg, c("trial", "author", "year", "tpos", "tneg", "cpos", "cneg", "ablat", "alloc"))),
  molloy2014 = list(measure = "ZCOR",
                    records = records(molloy, "id", keep = c("authors", "year", "meanage", "quality"))),
  hackshaw1998 = list(measure = "OR",
                      records = records(hack, "id", keep = c("author", "year", "country", "design"))),
  normand1999 = list(raw = rows(dat.normand1999, c("study", "source", "n1i", "m1i", "sd1i", "n2i", "m2i", "sd2i")))
)
write_fixture(fixture, args[1],
  data = metadat_source(c("dat.bcg", "dat.molloy2014", "dat.hackshaw1998", "dat.normand1999")),
  control = list())
