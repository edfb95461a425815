//! `cargo xtask fuzz`: every `cargo fuzz` target of `fuzz/`, one after another, each for a
//! fixed time, failing on the first crash, timeout or out-of-memory of any of them.
//!
//! The targets are built once (nightly, libFuzzer, debug assertions and overflow checks on,
//! no sanitizer: the code under test is safe Rust, and a sanitizer halves the executions).
//! Each runs single-process with the JSON dictionary, reading its committed seeds
//! (`fuzz/seeds/<target>`, never written) and keeping what it finds in `fuzz/corpus/<target>`
//! (ignored by git), so later runs start where earlier ones stopped. libFuzzer's output goes
//! to `<target dir>/fuzz/logs/<target>.log`; one line per target gives its figures.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::fuzz_seeds::{DICTIONARY, SEEDS_DIR};
use crate::toolchain::{self, output, run};
use crate::Result;

/// The longest one input may take before libFuzzer reports a timeout, in seconds. Every
/// call is bounded; the slowest seeded one takes milliseconds.
const INPUT_TIMEOUT_SECONDS: u32 = 10;

/// How the fuzz targets are built and run: `cargo fuzz` under the nightly toolchain.
fn cargo_fuzz(root: &Path) -> Command {
    let mut cmd = Command::new("rustup");
    cmd.args(["run", "nightly", "cargo", "fuzz"])
        .current_dir(root);
    cmd
}

/// The build options shared by `build` and `run` (the same flags, so `run` rebuilds nothing).
fn build_options(root: &Path) -> Vec<String> {
    let target_dir = crate::target_dir(root).join("fuzz");
    vec![
        "--sanitizer".into(),
        "none".into(),
        "--target-dir".into(),
        target_dir.to_string_lossy().into_owned(),
    ]
}

/// The fuzz targets, as `cargo fuzz list` names them.
pub fn targets(root: &Path) -> Result<Vec<String>> {
    let listed = output(cargo_fuzz(root).arg("list"))
        .ok_or("`cargo fuzz list` failed: is cargo-fuzz installed (cargo install cargo-fuzz)?")?;
    let targets: Vec<String> = listed.lines().map(str::to_string).collect();
    if targets.is_empty() {
        return Err("fuzz/ has no fuzz targets".into());
    }
    Ok(targets)
}

/// What libFuzzer reported at the end of a run.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Figures {
    pub executions: u64,
    pub execs_per_second: u64,
    pub coverage: Option<u64>,
    pub features: Option<u64>,
    pub corpus: Option<u64>,
    pub peak_rss_mb: Option<u64>,
}

impl Figures {
    /// Reads `-print_final_stats=1`'s `stat::` lines and the last status line
    /// (`#N DONE cov: C ft: F corp: U/…`).
    pub fn parse(log: &str) -> Figures {
        let mut figures = Figures::default();
        for line in log.lines() {
            let stat = |name: &str| {
                line.strip_prefix(name)
                    .and_then(|rest| rest.trim_start_matches(':').trim().parse::<u64>().ok())
            };
            if let Some(n) = stat("stat::number_of_executed_units") {
                figures.executions = n;
            } else if let Some(n) = stat("stat::average_exec_per_sec") {
                figures.execs_per_second = n;
            } else if let Some(n) = stat("stat::peak_rss_mb") {
                figures.peak_rss_mb = Some(n);
            } else if line.starts_with('#') {
                let field = |name: &str| {
                    let mut words = line.split_whitespace();
                    words.find(|w| *w == name)?;
                    words.next()?.split('/').next()?.parse::<u64>().ok()
                };
                figures.coverage = field("cov:").or(figures.coverage);
                figures.features = field("ft:").or(figures.features);
                figures.corpus = field("corp:").or(figures.corpus);
            }
        }
        figures
    }
}

fn show(n: Option<u64>) -> String {
    n.map_or_else(|| "?".to_string(), |n| n.to_string())
}

/// Builds every target, then runs each for `seconds` (all of them, or those named in
/// `only`); fails naming every target that crashed, with its log and crash input.
pub fn run_all(root: &Path, seconds: u64, only: &[String]) -> Result<()> {
    let mut targets = targets(root)?;
    if !only.is_empty() {
        if let Some(unknown) = only.iter().find(|t| !targets.contains(t)) {
            return Err(format!(
                "no fuzz target {unknown:?}; the targets are {}",
                targets.join(", ")
            )
            .into());
        }
        targets.retain(|t| only.contains(t));
    }
    let t = Instant::now();
    run(cargo_fuzz(root).arg("build").args(build_options(root)))?;
    eprintln!(
        "built the fuzz targets in {:.0} s",
        t.elapsed().as_secs_f64()
    );

    let logs = crate::target_dir(root).join("fuzz").join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
    let mut failed = Vec::new();
    for target in &targets {
        let log = logs.join(format!("{target}.log"));
        let started = Instant::now();
        let outcome = run_one(root, target, seconds, &log);
        let took = started.elapsed().as_secs_f64();
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let f = Figures::parse(&text);
        println!(
            "{} {target:<18} {:>11} runs {:>7} exec/s  cov {:>5}  ft {:>6}  corpus {:>5}  rss {:>4} MB  {took:>5.0} s",
            if outcome.is_ok() { "ok  " } else { "FAIL" },
            f.executions,
            f.execs_per_second,
            show(f.coverage),
            show(f.features),
            show(f.corpus),
            show(f.peak_rss_mb),
        );
        if let Err(e) = outcome {
            let tail: Vec<&str> = text.lines().rev().take(40).collect();
            for line in tail.into_iter().rev() {
                eprintln!("  | {line}");
            }
            eprintln!(
                "xtask: fuzz target {target} failed: {e}; the whole log is {}",
                log.display()
            );
            failed.push(target.clone());
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "fuzz target(s) {} failed; the inputs that crashed are in fuzz/artifacts/<target>/ \
             (reproduce with `cargo +nightly fuzz run --sanitizer none <target> <file>`)",
            failed.join(", ")
        )
        .into())
    }
}

fn run_one(root: &Path, target: &str, seconds: u64, log: &Path) -> Result<()> {
    let corpus = root.join("fuzz").join("corpus").join(target);
    let seeds: PathBuf = root.join(SEEDS_DIR).join(target);
    for dir in [&corpus, &seeds] {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let log_file =
        std::fs::File::create(log).map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    let mut cmd = cargo_fuzz(root);
    cmd.arg("run")
        .args(build_options(root))
        .arg(target)
        .arg(&corpus)
        .arg(&seeds)
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-dict={}", root.join(DICTIONARY).display()))
        .arg(format!("-timeout={INPUT_TIMEOUT_SECONDS}"))
        .arg("-print_final_stats=1")
        .stdout(Stdio::from(log_file.try_clone()?))
        .stderr(Stdio::from(log_file));
    eprintln!("$ {}  (log: {})", toolchain::describe(&cmd), log.display());
    let status = cmd
        .status()
        .map_err(|e| format!("could not start cargo fuzz: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("libFuzzer stopped with {status}").into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_read_from_libfuzzers_final_lines() {
        let log = "\
INFO: seed corpus: files: 24 min: 2b max: 1417b total: 9536b rss: 40Mb
#2\tINITED cov: 812 ft: 1203 corp: 20/8211b exec/s: 0 rss: 43Mb
#4096\tpulse  cov: 901 ft: 1500 corp: 40/10Kb lim: 1421 exec/s: 2048 rss: 60Mb
#70000\tDONE   cov: 1021 ft: 2210 corp: 131/31Kb lim: 1421 exec/s: 3500 rss: 71Mb
Done 70000 runs in 20 second(s)
stat::number_of_executed_units: 70000
stat::average_exec_per_sec:     3500
stat::new_units_added:          111
stat::slowest_unit_time_sec:    0
stat::peak_rss_mb:              71
";
        assert_eq!(
            Figures::parse(log),
            Figures {
                executions: 70000,
                execs_per_second: 3500,
                coverage: Some(1021),
                features: Some(2210),
                corpus: Some(131),
                peak_rss_mb: Some(71),
            }
        );
        assert_eq!(Figures::parse(""), Figures::default());
    }
}
