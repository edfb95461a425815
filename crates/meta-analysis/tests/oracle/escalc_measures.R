#!/usr/bin/env Rscript
## Golden fixtures for every measure of escalc beyond the first ten (escalc_fixtures.R has
## MD, SMD, ROM, OR, RR, RD, COR, ZCOR, PR, PLO with their default vtype), made with
## metafor's escalc(): its 2x2, matched-pairs, person-time, two-group, single-group, change,
## partial-correlation, proportion, rate, alpha and heterozygosity measures, each under its
## defaults and its other settings (add, to, drop00, vtype), on data with the edge cases
## (zero cells, sd = 0, n = 1, proportions 0 and 1, r = +-1).
##
## Usage (from the repository root):
##   Rscript crates/meta-analysis/tests/oracle/escalc_measures.R \
##       crates/meta-analysis/tests/fixtures/escalc_measures.json
##
## A case's add, to, drop00 and vtype are null where escalc's default applies (add: 1/2, or
## 0 for AS, PHI, IRSD, PAS, PFT, IRS, IRFT). A row escalc leaves NA (yi or vi) is written as
## null: the engine must refuse it, naming a column.

suppressPackageStartupMessages(library(metafor))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: escalc_measures.R <out.json>")
out_path <- args[1]

cases <- list()
case <- function(name, measure, data, add = NULL, to = NULL, drop00 = NULL, vtype = NULL) {
  call <- c(list(measure = measure), as.list(data))
  if (!is.null(add)) call$add <- add
  if (!is.null(to)) call$to <- to
  if (!is.null(drop00)) call$drop00 <- drop00
  if (!is.null(vtype)) call$vtype <- vtype
  es <- suppressWarnings(do.call(escalc, call))
  cases[[length(cases) + 1]] <<- list(
    name = name, measure = measure,
    add = if (is.null(add)) NA else add, to = if (is.null(to)) NA else to,
    drop00 = if (is.null(drop00)) NA else drop00, vtype = if (is.null(vtype)) NA else vtype,
    columns = I(names(data)),
    rows = lapply(seq_len(nrow(data)), function(i) I(as.numeric(data[i, ]))),
    yi = I(as.numeric(es$yi)), vi = I(as.numeric(es$vi)))
}

## ------------------------------------------------------------ 2x2 tables
tables <- data.frame(
  ai = c(12, 0, 0, 5, 10, 1, 3, 250, 0, 7, 2, 40),
  bi = c(88, 20, 15, 0, 0, 1, 9, 750, 1, 0, 30, 3),
  ci = c(20, 4, 0, 3, 10, 1, 0, 300, 0, 0, 9, 35),
  di = c(80, 16, 15, 7, 0, 1, 12, 700, 1, 5, 21, 8))
for (m in c("AS", "PETO", "PHI", "YUQ", "YUY", "PBIT", "OR2DN", "OR2DL",
            "MPRD", "MPRR", "MPOR", "MPORC", "MPPETO", "OR", "RR", "RD")) {
  low <- tolower(m)
  case(low, m, tables)
  case(paste0(low, "_add1_all"), m, tables, add = 1, to = "all")
  case(paste0(low, "_if0all"), m, tables, add = 1/2, to = "if0all")
  case(paste0(low, "_none"), m, tables, to = "none")
  case(paste0(low, "_drop00"), m, tables, drop00 = TRUE)
  case(paste0(low, "_sizes"), m, data.frame(ai = tables$ai, n1i = tables$ai + tables$bi,
                                            ci = tables$ci, n2i = tables$ci + tables$di))
}
for (v in c("UB", "AV")) case(paste0("rd_", tolower(v)), "RD", tables, vtype = v)
for (v in c("ST", "CS")) case(paste0("phi_", tolower(v)), "PHI", tables, vtype = v)

## ------------------------------------------------------------ person-time, two groups
ptime <- data.frame(
  x1i = c(12, 0, 0, 5, 30, 1, 250),
  t1i = c(1000, 500, 800, 120.5, 2000, 1, 1e5),
  x2i = c(20, 4, 0, 0, 25, 1, 300),
  t2i = c(900, 600, 700, 100, 2100, 3, 1.2e5))
for (m in c("IRR", "IRD", "IRSD")) {
  low <- tolower(m)
  case(low, m, ptime)
  case(paste0(low, "_add1_all"), m, ptime, add = 1, to = "all")
  case(paste0(low, "_if0all"), m, ptime, add = 1/2, to = "if0all")
  case(paste0(low, "_none"), m, ptime, to = "none")
  case(paste0(low, "_drop00"), m, ptime, drop00 = TRUE)
}

## ------------------------------------------------------------ two groups, means and SDs
means <- data.frame(
  m1i  = c(10.2, 3.1, 5.0, 100.0, 0.8, 7.5, 2.2, 50.0, 12.0, 4.0, 6.5),
  sd1i = c(2.1, 1.0, 0.0, 15.0, 0.3, 2.0, 1.1, 9.0, 4.0, 1.0, 0.0),
  n1i  = c(20, 2, 3, 500, 1, 2, 4, 1000, 12, 30, 8),
  m2i  = c(9.1, 3.9, 4.2, 98.0, 0.5, 7.5, 2.9, 47.5, 14.5, 4.0, 6.0),
  sd2i = c(2.4, 1.5, 1.2, 14.0, 0.4, 2.5, 1.0, 10.0, 3.5, 1.0, 0.0),
  n2i  = c(22, 2, 4, 480, 3, 1, 1, 1200, 15, 5, 9))
for (m in c("SMDH", "SMD1", "SMD1H", "CVR", "VR", "RPB", "RBIS", "D2ORN", "D2ORL", "MD", "SMD", "ROM")) {
  case(tolower(m), m, if (m == "VR") means[c("sd1i", "n1i", "sd2i", "n2i")]
                      else if (m == "SMD1") means[c("m1i", "n1i", "m2i", "sd2i", "n2i")]
                      else means)
}
for (v in c("UB", "HO")) case(paste0("md_", tolower(v)), "MD", means, vtype = v)
for (v in c("UB", "LS2", "AV")) {
  case(paste0("smd_", tolower(v)), "SMD", means, vtype = v)
  case(paste0("smd1_", tolower(v)), "SMD1", means[c("m1i", "n1i", "m2i", "sd2i", "n2i")], vtype = v)
}
case("smdh_ls2", "SMDH", means, vtype = "LS2")
for (v in c("HO", "AV", "AVHO")) case(paste0("rom_", tolower(v)), "ROM", means, vtype = v)
for (v in c("ST", "CS")) case(paste0("rpb_", tolower(v)), "RPB", means, vtype = v)

## ------------------------------------------------------------ single groups
single <- data.frame(
  mi  = c(10.2, 3.1, 5.0, 100.0, 0.8, 7.5, 0.0, 50.0, 2.0),
  sdi = c(2.1, 1.0, 0.0, 15.0, 0.3, 2.0, 1.1, 9.0, 0.5),
  ni  = c(20, 2, 3, 500, 1, 2, 4, 1000, 12))
for (m in c("MN", "MNLN", "CVLN", "SMN")) case(tolower(m), m, single)
case("sdln", "SDLN", single[c("sdi", "ni")])
case("mn_negative", "MN", data.frame(mi = c(-3.5, -0.2), sdi = c(1, 2), ni = c(10, 40)))
case("smn_negative", "SMN", data.frame(mi = c(-3.5, -0.2), sdi = c(1, 2), ni = c(10, 40)))

## ------------------------------------------------------------ change (paired)
change <- data.frame(
  m1i  = c(10.2, 3.1, 5.0, 100.0, 0.8, 7.5, 2.2, 50.0, 12.0, 4.0),
  m2i  = c(9.1, 3.9, 4.2, 98.0, 0.5, 7.5, 2.9, 47.5, 14.5, 4.0),
  sd1i = c(2.1, 1.0, 0.0, 15.0, 0.3, 2.0, 1.1, 9.0, 4.0, 1.0),
  sd2i = c(2.4, 1.5, 1.2, 14.0, 0.4, 2.5, 1.0, 10.0, 3.5, 1.0),
  ni   = c(20, 2, 3, 500, 1, 12, 4, 1000, 12, 30),
  ri   = c(0.5, 0.8, 0.2, 1, -1, 0, 0.99, 0.7, -0.3, 1))
for (m in c("MC", "SMCC", "SMCRH", "ROMC", "CVRC")) case(tolower(m), m, change)
case("smcr", "SMCR", change[c("m1i", "m2i", "sd1i", "ni", "ri")])
case("vrc", "VRC", change[c("sd1i", "sd2i", "ni", "ri")])
case("smcc_ls2", "SMCC", change, vtype = "LS2")
case("smcr_ls2", "SMCR", change[c("m1i", "m2i", "sd1i", "ni", "ri")], vtype = "LS2")

## ------------------------------------------------------------ correlations
cors <- data.frame(
  ri = c(0.3, -0.45, 0, 0.999999, -1, 0.5, 0.12, 0.99, 1),
  ni = c(50, 20, 10, 100, 30, 4, 5000, 3, 12))
case("cor_av", "COR", cors, vtype = "AV")
## UCOR: ni = 4 and 5 bracket escalc's ni > 4; r near 0 puts 1 - r^2 near 1, where the
## hypergeometric series converges slowly. Not here: |r| <= 0.05 with an even ni >= 8, where
## GSL's hyperg_2F1 (behind escalc's UCOR) is off by up to 1e-3 relative (integer c - a - b
## at x near 1); escalc_exact.py checks those against mpmath.
ucors <- data.frame(
  ri = c(0.3, -0.45, 0, 0.999999, -1, 0.5, 0.12, 0.99, 1, 0.2, 0.2, 0.7, 0.001, -0.02, 0.05, 0.6),
  ni = c(50, 20, 10, 100, 30, 4, 5000, 3, 12, 5, 6, 1e6, 7, 9, 31, 5.5))
for (v in c("LS", "UB", "AV")) case(paste0("ucor_", tolower(v)), "UCOR", ucors, vtype = v)
case("ucor", "UCOR", ucors)
case("zcor_av", "ZCOR", cors, vtype = "AV")
pcors <- data.frame(
  ti  = c(2.5, -1.2, 0, 30, -0.4, 4.1, 1e3),
  ni  = c(50, 20, 10, 100, 6, 2000, 40),
  mi  = c(3, 1, 0, 5, 4, 10, 2),
  r2i = c(0.3, 0.1, 0, 0.95, 0.5, 1, 0.2))
case("pcor", "PCOR", pcors[c("ti", "ni", "mi")])
case("zpcor", "ZPCOR", pcors[c("ti", "ni", "mi")])
case("spcor", "SPCOR", pcors)
case("pcor_av", "PCOR", pcors[c("ti", "ni", "mi")], vtype = "AV")
case("spcor_av", "SPCOR", pcors, vtype = "AV")

## ------------------------------------------------------------ proportions
props <- data.frame(
  xi = c(12, 0, 10, 1, 0, 3, 499, 1, 25),
  ni = c(40, 25, 10, 1, 1, 7, 1000, 2, 25))
for (m in c("PLN", "PAS", "PFT", "PR", "PLO")) {
  low <- tolower(m)
  case(low, m, props)
  case(paste0(low, "_add1_all"), m, props, add = 1, to = "all")
  case(paste0(low, "_if0all"), m, props, add = 1/2, to = "if0all")
  case(paste0(low, "_none"), m, props, to = "none")
}
case("pr_ub", "PR", props, vtype = "UB")
for (m in c("PR", "PLN", "PLO")) case(paste0(tolower(m), "_av"), m, props, vtype = "AV")

## ------------------------------------------------------------ incidence rates
rates <- data.frame(
  xi = c(12, 0, 10, 1, 0, 3, 499, 250),
  ti = c(1000, 250, 10, 1, 0.5, 7.25, 1e4, 1e6))
for (m in c("IR", "IRLN", "IRS", "IRFT")) {
  low <- tolower(m)
  case(low, m, rates)
  case(paste0(low, "_add1_all"), m, rates, add = 1, to = "all")
  case(paste0(low, "_if0all"), m, rates, add = 1/2, to = "if0all")
  case(paste0(low, "_none"), m, rates, to = "none")
}

## ------------------------------------------------------------ reliability, heterozygosity
alpha <- data.frame(
  ai = c(0.8, 0.95, 0, -0.5, 1, 0.6, 0.99),
  mi = c(10, 2, 5, 3, 20, 2, 40),
  ni = c(200, 50, 2, 30, 100, 3, 1e4))
for (m in c("ARAW", "AHW", "ABT")) case(tolower(m), m, alpha)
reh <- data.frame(
  ai = c(30, 0, 10, 25, 5, 100),
  bi = c(50, 20, 0, 25, 1, 300),
  ci = c(20, 10, 10, 0, 0, 60))
case("reh", "REH", reh)

res <- list(
  conventions = "escalc(measure, <columns>, [add], [to], [drop00], [vtype]); null settings are escalc's defaults; yi/vi null where escalc gives NA",
  cases = cases)

write_fixture(res, out_path,
  data = list(constructed = "the counts, means, SDs, correlations and statistics written in this script"),
  control = list(escalc = "escalc()'s defaults (add = 1/2, or 0 for AS, PHI, IRSD, PAS, PFT, IRS, IRFT; to = 'only0'; drop00 = FALSE; vtype = 'LS'), except a case's own settings (non-null in the case)"))
