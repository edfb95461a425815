#!/usr/bin/env Rscript
## Golden fixture for issue 42 item 3: the 2x2 tools on part of a dataset. metadat's
## dat.yusuf1985 holds 130 tables of six outcome tables (column `table`: "6", "9", "10",
## "11", "12a", "12b"; ids restart in each); pooled whole they mix outcomes. Each case is a
## tool call (subset, exclude, measure, level) and what metafor's rma.mh() or rma.peto()
## gives for `subset = table %in% ... & !(id %in% exclude)`. Tables with an NA count are
## left out by metafor's na.omit; the fixture lists their ids. The fixture also carries the
## dataset as write.csv writes it, for the CLI's `call --records FILE`.
## crates/exemplar/tests/tables_subset.rs makes each call (inline data, a load_data handle,
## and the CLI) and compares.
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/tables_subset.R \
##       crates/exemplar/tests/fixtures/tables_subset.json
##
## Requires metafor (developed against 3.8-1) and metadat. Both functions are closed forms,
## called with their defaults.

suppressPackageStartupMessages({
  library(metafor)
  library(metadat)
})
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: tables_subset.R <out.json>")
out_path <- args[1]

dat <- dat.yusuf1985
con <- textConnection("csv_lines", "w")
write.csv(dat, con, row.names = FALSE)
close(con)
csv <- paste0(paste(csv_lines, collapse = "\n"), "\n")

## The rows a client sends: the CSV's columns, NA as null.
rows <- lapply(seq_len(nrow(dat)), function(i) list(
  table = dat$table[i], id = dat$id[i], trial = dat$trial[i], ai = dat$ai[i],
  n1i = dat$n1i[i], ci = dat$ci[i], n2i = dat$n2i[i]))

case <- function(name, tool, tables, exclude = character(0), measure = "OR", level = 95) {
  keep <- dat$table %in% tables & !(dat$id %in% exclude)
  omitted <- dat$id[keep & (is.na(dat$ai) | is.na(dat$n1i) | is.na(dat$ci) | is.na(dat$n2i))]
  call_args <- list(level = level / 100)
  subset <- if (length(tables) == 1) list(column = "table", equals = tables)
            else list(column = "table", `in` = I(tables))
  if (length(tables) < length(unique(dat$table))) call_args$subset <- subset
  if (length(exclude) > 0) call_args$exclude <- I(exclude)
  if (tool == "mantel_haenszel") {
    call_args$measure <- measure
    r <- suppressWarnings(rma.mh(ai = ai, n1i = n1i, ci = ci, n2i = n2i, data = dat,
                                 measure = measure, level = level, subset = keep))
    extra <- list(cmh = num1(r$MH), cmh_p = num1(r$MHp), tarone = num1(r$TA),
                  tarone_p = num1(r$TAp))
  } else {
    r <- suppressWarnings(rma.peto(ai = ai, n1i = n1i, ci = ci, n2i = n2i, data = dat,
                                   level = level, subset = keep))
    extra <- list()
  }
  list(name = name, tool = tool, args = call_args, omitted = I(omitted),
       expect = c(list(k = r$k, k_heterogeneity = r$k.yi, estimate = num1(r$beta),
                       se = num1(r$se), z = num1(r$zval), p = num1(r$pval),
                       ci_lower = num1(r$ci.lb), ci_upper = num1(r$ci.ub), q = num1(r$QE),
                       q_p = num1(r$QEp), i2 = num1(r$I2), h2 = num1(r$H2)), extra))
}

cases <- list(
  case("mh_or_table_6", "mantel_haenszel", "6"),
  case("mh_or_table_6_exclude", "mantel_haenszel", "6", exclude = c("1.2", "2.3")),
  case("mh_rr_table_12a", "mantel_haenszel", "12a", measure = "RR", level = 90),
  case("mh_rd_tables_9_10", "mantel_haenszel", c("9", "10"), measure = "RD"),
  case("mh_or_all", "mantel_haenszel", unique(dat$table)),
  case("peto_table_6", "peto_odds_ratio", "6"),
  case("peto_table_11_exclude", "peto_odds_ratio", "11", exclude = c("5.1", "5.3"), level = 90)
)

res <- list(
  conventions = "rma.mh(ai, n1i, ci, n2i, data = dat.yusuf1985, measure, level, subset) and rma.peto(ai, n1i, ci, n2i, data, level, subset), subset = table %in% tables & !(id %in% exclude); every other argument at its default",
  csv = csv, rows = rows, cases = cases)

write_fixture(res, out_path,
  data = list(metadat = metadat_source("dat.yusuf1985")),
  control = list(rma.mh = "defaults (add = 1/2, to = 'only0', drop00 = TRUE for the per-table yi/vi; none for the pooled estimate; correct = TRUE)",
                 rma.peto = "defaults"))
