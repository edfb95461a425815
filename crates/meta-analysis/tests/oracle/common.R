## The oracle kit, sourced by every script in this folder: the JSON writer, small helpers and
## the fixture's provenance. A script finds this file beside itself (so
## `Rscript crates/meta-analysis/tests/oracle/x.R ...` works from the repository root, or any
## path to the script from anywhere) with
##
##   source(file.path(dirname(sub("^--file=", "",
##     grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "common.R"))
##
## and ends with write_fixture(res, out_path, data = ..., control = ...).

## The script being run (Rscript's --file=) and the repository root, four folders above it.
ORACLE_SCRIPT <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
REPO_ROOT <- normalizePath(file.path(dirname(ORACLE_SCRIPT), "..", "..", "..", ".."))

## A path as seen from the repository root when it lies inside it; else as given.
repo_path <- function(path) {
  full <- normalizePath(path, mustWork = TRUE)
  root <- paste0(REPO_ROOT, "/")
  if (startsWith(full, root)) substring(full, nchar(root) + 1) else path
}

## ---------------------------------------------------------------- helpers
## NULL, empty or a lone NA -> NA (written null); else the value without names.
nn <- function(x) if (is.null(x) || length(x) == 0 || (length(x) == 1 && is.na(x))) NA else unname(x)
## A scalar as a plain number (a 1 x 1 matrix included); longer values as they are, unnamed.
num1 <- function(x) { x <- nn(x); if (length(x) == 1) as.numeric(x) else x }
## A numeric vector always written as a JSON array (even of length 1).
vec <- function(x) I(unname(as.numeric(x)))

## The design matrix without the intercept column, as the engine builds it: each moderator in
## turn, numeric as is, character in treatment coding with its levels sorted by bytes (radix)
## and the first the reference (columns named "name:level"). NULL without moderators.
design <- function(d, mods) {
  if (length(mods) == 0) return(NULL)
  cols <- list(); nms <- character(0)
  for (m in mods) {
    v <- d$columns[[m]]
    if (is.character(v)) {
      lv <- sort(unique(v), method = "radix")
      for (l in lv[-1]) { cols[[length(cols) + 1]] <- as.numeric(v == l); nms <- c(nms, paste0(m, ":", l)) }
    } else {
      cols[[length(cols) + 1]] <- as.numeric(v); nms <- c(nms, m)
    }
  }
  X <- do.call(cbind, cols)
  colnames(X) <- nms
  X
}

## ---------------------------------------------------------------- data sources
## A CSV data file, read after checking it exists; csv_source() is its provenance (the path
## from the repository root and the file's md5).
read_oracle_csv <- function(path) {
  if (!file.exists(path))
    stop("no such data file: ", path, " (the scripts read crates/exemplar/data/dat.raudenbush1985.csv)")
  read.csv(path, stringsAsFactors = FALSE)
}
csv_source <- function(path) list(path = repo_path(path), md5 = unname(tools::md5sum(path)))
## Datasets of the metadat package (shipped with metafor), by name.
metadat_source <- function(names)
  list(package = "metadat", version = as.character(packageVersion("metadat")), datasets = I(names))

## ---------------------------------------------------------------- JSON writer
## Named lists -> objects, unnamed lists -> arrays, atomic length-1 -> scalar (unless wrapped
## in I()), other atomic vectors -> arrays; NA/NaN/Inf -> null. Numbers are written with 17
## significant digits (sprintf("%.17g"), exact for a double; jsonlite caps them at 15).
json_atom <- function(v) {
  if (is.character(v)) return(ifelse(is.na(v), "null", encodeString(v, quote = "\"")))
  if (is.logical(v)) return(ifelse(is.na(v), "null", ifelse(v, "true", "false")))
  v <- as.numeric(v)
  ifelse(is.finite(v), sprintf("%.17g", v), "null")
}
to_json <- function(x, indent = 0) {
  pad <- strrep(" ", indent + 1)
  if (is.null(x)) return("null")
  if (is.list(x)) {
    if (length(x) == 0) return(if (is.null(names(x))) "[]" else "{}")
    parts <- vapply(x, to_json, "", indent = indent + 1)
    if (!is.null(names(x)))
      return(paste0("{\n", paste0(pad, encodeString(names(x), quote = "\""), ": ", parts, collapse = ",\n"), "}"))
    return(paste0("[\n", paste0(pad, parts, collapse = ",\n"), "]"))
  }
  a <- json_atom(unclass(x))
  if (length(x) == 1 && !inherits(x, "AsIs")) return(a)
  paste0("[", paste(a, collapse = ", "), "]")
}

## ---------------------------------------------------------------- the fixture
## Writes `res` (a named list) to out_path with a `provenance` object first: the script that
## made it, R's version, the version of every package attached (metafor first; clubSandwich,
## numDeriv, metadat where the script loads them), the data it read (`data`: csv_source(),
## metadat_source(), notes on simulated or constructed data) and the control settings passed
## to metafor (`control`).
write_fixture <- function(res, out_path, data, control) {
  base <- rownames(installed.packages(priority = "base"))
  attached <- setdiff(sub("^package:", "", grep("^package:", search(), value = TRUE)), base)
  attached <- c(intersect("metafor", attached), sort(setdiff(attached, "metafor")))
  provenance <- list(
    generator = paste0("crates/meta-analysis/tests/oracle/", basename(ORACLE_SCRIPT)),
    R = R.version.string,
    packages = setNames(lapply(attached, function(p) as.character(packageVersion(p))), attached),
    data = data,
    control = control)
  writeLines(to_json(c(list(provenance = provenance), res)), out_path)
  cat("wrote", out_path, "\n")
}
