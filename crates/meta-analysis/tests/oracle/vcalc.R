## Oracle for the engine's `vcalc` (crates/meta-analysis/src/vcalc.rs): metafor's vcalc() on
## the datasets of its own help page, each V written block by block (the clusters in the
## order they first appear, each block's rows 0-based in input order, row-major).
##
##   Rscript crates/meta-analysis/tests/oracle/vcalc.R crates/meta-analysis/tests/fixtures/vcalc.json
source(file.path(dirname(sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))
suppressPackageStartupMessages(library(metafor))
out_path <- commandArgs(TRUE)[1]

## A case: the columns vcalc read (NULL when not given), rho and phi, and V by cluster.
case <- function(name, V, dat, cluster, obs = NULL, type = NULL, time1 = NULL, time2 = NULL,
                 grp1 = NULL, grp2 = NULL, w1 = NULL, w2 = NULL, rho = NULL, phi = NULL) {
  cl <- as.character(cluster)
  blocks <- lapply(unique(cl), function(c) {
    rows <- which(cl == c)
    list(cluster = c, rows = vec(rows - 1), cov = vec(t(V[rows, rows, drop = FALSE])))
  })
  chr <- function(x) if (is.null(x)) NULL else I(as.character(x))
  num <- function(x) if (is.null(x)) NULL else vec(x)
  columns <- list(vi = vec(dat$vi), cluster = chr(cluster), obs = chr(obs), type = chr(type),
                  time1 = num(time1), time2 = num(time2), grp1 = chr(grp1), grp2 = chr(grp2),
                  w1 = num(w1), w2 = num(w2))
  columns <- columns[!vapply(columns, is.null, TRUE)]
  rho_json <- if (is.null(rho)) NULL else if (is.list(rho)) rho else if (is.matrix(rho))
    list(levels = I(rownames(rho)), values = vec(t(rho))) else vec(rho)
  list(name = name, columns = columns, rho = rho_json, phi = phi, blocks = blocks)
}

cases <- list()
dat <- dat.assink2016
V <- vcalc(vi, cluster = study, obs = esid, data = dat, rho = 0.6)
cases[[1]] <- case("assink2016 obs, rho 0.6", V, dat, dat$study, obs = dat$esid, rho = 0.6)
V <- vcalc(vi, cluster = study, type = deltype, obs = esid, data = dat, rho = c(0.7, 0.5))
cases[[2]] <- case("assink2016 type + obs, rho (0.7, 0.5)", V, dat, dat$study, obs = dat$esid,
                   type = dat$deltype, rho = c(0.7, 0.5))

dat <- dat.ishak2007
dat <- reshape(dat, direction = "long", idvar = "study", v.names = c("yi", "vi"),
               varying = list(c(2, 4, 6, 8), c(3, 5, 7, 9)))
dat <- dat[order(dat$study, dat$time), ]
dat <- dat[!is.na(dat$yi), ]
V <- vcalc(vi, cluster = study, time1 = time, phi = 0.97, data = dat)
cases[[3]] <- case("ishak2007 time1, phi 0.97", V, dat, dat$study, time1 = dat$time, phi = 0.97)

dat <- dat.berkey1998
V <- vcalc(vi = vi, cluster = trial, type = outcome, data = dat, rho = 0.4)
cases[[4]] <- case("berkey1998 type, rho 0.4", V, dat, dat$trial, type = dat$outcome, rho = 0.4)

dat <- dat.kalaian1996
V <- vcalc(vi, cluster = study, type = outcome, data = dat, rho = 0.66)
cases[[5]] <- case("kalaian1996 type, rho 0.66", V, dat, dat$study, type = dat$outcome, rho = 0.66)

dat <- dat.knapp2017
dat$task.diff <- unlist(lapply(split(dat, dat$study), function(x) {
  task.int <- as.integer(factor(x$task))
  diff.int <- as.integer(factor(x$difficulty))
  diff.int[is.na(diff.int)] <- 1
  paste0(task.int, ".", diff.int)}))
R <- matrix(0.4, nrow = 8, ncol = 8)
R[5:8, 1:4] <- R[1:4, 5:8] <- 0.28
diag(R[1:4, 5:8]) <- 0.7
diag(R[5:8, 1:4]) <- 0.7
diag(R) <- 1
rownames(R) <- colnames(R) <- paste0(rep(1:2, each = 4), ".", 1:4)
V <- vcalc(vi, cluster = study, grp1 = group1, grp2 = group2, w1 = n_sz, w2 = n_hc,
           obs = task.diff, rho = R, data = dat)
cases[[6]] <- case("knapp2017 grp1/grp2, w1/w2, obs with a rho matrix", V, dat, dat$study,
                   obs = dat$task.diff, grp1 = dat$group1, grp2 = dat$group2, w1 = dat$n_sz,
                   w2 = dat$n_hc, rho = R)

## time1 and time2 with groups: a made-up cluster of contrasts at two times with a shared
## control group (metafor's formula with every term in play).
dat <- data.frame(vi = c(0.1, 0.2, 0.15, 0.3, 0.05, 0.08), study = c(1, 1, 1, 2, 2, 2),
                  g1 = c("T1", "T2", "T1", "A", "A", "B"), g2 = c("C", "C", "C", "C", "C", "C"),
                  t1 = c(0, 0, 2, 1, 3, 1), t2 = c(0, 0, 2, 1, 1, 1),
                  w1 = c(20, 25, 20, 30, 30, 40), w2 = c(30, 30, 28, 35, 35, 35))
V <- vcalc(vi, cluster = study, grp1 = g1, grp2 = g2, time1 = t1, time2 = t2, w1 = w1, w2 = w2,
           phi = 0.8, data = dat)
cases[[7]] <- case("constructed grp1/grp2, time1/time2, w1/w2, phi 0.8", V, dat, dat$study,
                   grp1 = dat$g1, grp2 = dat$g2, time1 = dat$t1, time2 = dat$t2, w1 = dat$w1,
                   w2 = dat$w2, phi = 0.8)

write_fixture(list(cases = cases), out_path,
  data = c(metadat_source(c("dat.assink2016", "dat.ishak2007", "dat.berkey1998",
                                "dat.kalaian1996", "dat.knapp2017")),
              list(note = "case 7 is constructed in the script")),
  control = list())
