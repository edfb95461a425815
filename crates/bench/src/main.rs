//! `cargo xtask bench [--json]`, which runs `cargo run --release -p bench -- [--json]`:
//! every figure of issues 7 and 11 in one run, with its target beside it
//! (issue 11's page targets replace issue 7's).
//!
//! - Native (this process): REML at k = 19 and at k = 10⁴…10⁶, leave-one-out,
//!   the tool path; peak memory in a child (`bench peak-memory K`).
//! - Memory (issue 16): each tool's largest call through `Session::run` in a child
//!   (`bench tool-memory NAME`), its peak against its arguments text.
//! - Node: the shipped wasm (`www/pkg`) calling the same tool
//!   (`scripts/wasm-node.mjs`).
//! - Chromium: the page served from the repository beside a bare page that
//!   registers the same definitions with no-op tools (`scripts/page.mjs`,
//!   `scripts/bare-page.mjs`): time to tools registered for both, bytes
//!   fetched before registration, the first tool result, the `executeTool`
//!   round trip.
//! - R metafor and PyMARE on the same records, when installed
//!   (`scripts/metafor.R`, `scripts/pymare.py`).
//! - Dependent effect sizes (issue 22): the three-level model and CR2 natively, and beside
//!   metafor's rma.mv and clubSandwich when R has them (`scripts/dependent.R`); the
//!   largest multilevel fits and selection model the engine's bounds admit
//!   (`multilevel_bounds.rs`, issue 29).
//! - General rma.mv models (issue 44): the three-level and CHE fits by the rma_mv engine at
//!   k = 10³ and 10⁴, beside metafor's rma.mv(sparse = TRUE) at 10³ (`rma_mv_rows.rs`,
//!   `scripts/rma_mv.R`).
//! - The largest admitted calls that once took far past a second (issue 41 item 6: `subset`
//!   with many values, UCOR with vtype UB, Your data's view; `largest_calls.rs`).
//!
//! - The page's main thread (issue 16): the longest task during each tool's largest call
//!   through the page's own registry (`scripts/longtasks.mjs`, which takes each call's
//!   arguments from `bench tool-args NAME`), and while "Your data" takes a pasted CSV of
//!   20,000 rows (issue 25; the CSV from `bench your-data-csv`).
//!
//! Progress goes to stderr; stdout is the table, or with `--json` one JSON object.
//! `--native-only` skips Node, Chromium, R and Python; `bench memory [--json]` runs only the
//! tools' memory figures, `bench longtasks [--json]` only the main-thread figures,
//! `bench dependent [--json] [--native-only]` only issue 22's figures, `bench rma-mv [--json]
//! [--native-only]` only issue 44's, `bench largest [--json]`
//! only the largest admitted calls (issue 41 item 6, with the multilevel and selection bounds).

mod command;
mod dependent;
mod external;
mod harness;
mod largest_calls;
mod longtasks;
mod memory;
mod multilevel_bounds;
mod native;
mod report;
mod rma_mv_rows;
mod robust_bounds;
mod tool_memory;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde_json::{json, Map, Value};

use report::Report;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(code) = child_process(&args) {
        return code;
    }
    const USAGE: &str =
        "usage: bench [memory | longtasks | dependent | rma-mv | largest] [--json] [--native-only]";
    let mut json_out = false;
    let mut native_only = false;
    let mut memory_only = false;
    let mut longtasks_only = false;
    let mut dependent_only = false;
    let mut rma_mv_only = false;
    let mut largest_only = false;
    for (i, arg) in args.iter().enumerate() {
        match arg.as_str() {
            "memory" if i == 0 => memory_only = true,
            "longtasks" if i == 0 => longtasks_only = true,
            "dependent" if i == 0 => dependent_only = true,
            "rma-mv" if i == 0 => rma_mv_only = true,
            "largest" if i == 0 => largest_only = true,
            "--json" => json_out = true,
            "--native-only" => native_only = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("bench: unknown argument {other:?} ({USAGE})");
                return ExitCode::FAILURE;
            }
        }
    }
    if cfg!(debug_assertions) {
        eprintln!("bench: WARNING: a debug build; run with --release for meaningful figures");
    }
    let root = workspace_root();
    let mut report = Report {
        machine: machine(&root),
        ..Report::default()
    };
    if dependent_only {
        dependent::run(&mut report, &root, native_only);
        multilevel_bounds::run(&mut report);
    } else if rma_mv_only {
        rma_mv_rows::run(&mut report, &root, native_only);
    } else if largest_only {
        multilevel_bounds::run(&mut report);
        largest_calls::run(&mut report);
    } else if longtasks_only {
        match external::node_and_pkg(&root) {
            Ok(_) => longtasks::page_long_tasks(&mut report, &root, &external::scripts(&root)),
            Err(why) => report.note(format!("{why}: no main-thread figures")),
        }
    } else {
        if !memory_only {
            native::run(&mut report);
            dependent::run(&mut report, &root, native_only);
            rma_mv_rows::run(&mut report, &root, native_only);
            multilevel_bounds::run(&mut report);
            largest_calls::run(&mut report);
        }
        tool_memory::run(&mut report);
        if !native_only && !memory_only {
            external::run(&mut report, &root);
        }
    }
    // Other work on the machine inflates every time here: say how busy it was.
    report
        .machine
        .insert("loadavg_at_end".into(), json!(loadavg()));
    if json_out {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_table());
    }
    ExitCode::SUCCESS
}

/// The bench run as a child of itself (`peak-memory K`, `tool-memory NAME`, `tool-args
/// NAME`, `your-data-csv`, `nested-csv M`): its exit code, or `None` for a bench run.
fn child_process(args: &[String]) -> Option<ExitCode> {
    if args.first().map(String::as_str) == Some("peak-memory") {
        let k = args.get(1).and_then(|k| k.parse().ok());
        let outcome = k
            .ok_or_else(|| "usage: bench peak-memory K".to_string())
            .and_then(memory::child_main);
        return Some(match outcome {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench peak-memory: {e}");
                ExitCode::FAILURE
            }
        });
    }
    if args.first().map(String::as_str) == Some("tool-memory") {
        let outcome = match args.get(1) {
            Some(name) => tool_memory::child_main(name),
            None => Err("usage: bench tool-memory NAME".to_string()),
        };
        return Some(match outcome {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench tool-memory: {e}");
                ExitCode::FAILURE
            }
        });
    }
    if args.first().map(String::as_str) == Some("tool-args") {
        let outcome = match args.get(1) {
            Some(name) => longtasks::print_args(name),
            None => Err("usage: bench tool-args NAME".to_string()),
        };
        return Some(match outcome {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench tool-args: {e}");
                ExitCode::FAILURE
            }
        });
    }
    if args.first().map(String::as_str) == Some("nested-csv") {
        // The issue-22 records of M studies as `scripts/rma_mv.R` reads them (its k = 10⁴
        // times are measured once by hand: docs/PERFORMANCE.md).
        let Some(m) = args.get(1).and_then(|m| m.parse().ok()) else {
            eprintln!("usage: bench nested-csv M");
            return Some(ExitCode::FAILURE);
        };
        print!("{}", dependent::csv(&bench::generate::nested(m, 10)));
        return Some(ExitCode::SUCCESS);
    }
    if args.first().map(String::as_str) == Some("your-data-csv") {
        // The CSV `scripts/longtasks.mjs` pastes into the page's "Your data".
        let csv = bench::calls::your_data_csv(exemplar::csv_table::MAX_CSV_ROWS);
        let mut out = std::io::stdout().lock();
        return Some(
            match std::io::Write::write_all(&mut out, csv.as_bytes())
                .and_then(|()| std::io::Write::flush(&mut out))
            {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("bench your-data-csv: cannot write the CSV: {e}");
                    ExitCode::FAILURE
                }
            },
        );
    }
    None
}

/// Two levels above this crate's manifest.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/bench sits two levels below the workspace root")
        .to_path_buf()
}

/// Commit, core count, CPU, date and engine version: where the figures come from.
fn machine(root: &Path) -> Map<String, Value> {
    let commit = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|c| {
        c.lines().find_map(|l| {
            l.strip_prefix("model name")?
                .split_once(':')
                .map(|(_, m)| m.trim().to_string())
        })
    });
    let mut m = Map::new();
    m.insert("commit".into(), json!(commit));
    m.insert("nproc".into(), json!(nproc));
    m.insert("cpu".into(), json!(cpu));
    m.insert("date".into(), json!(utc_now()));
    m.insert("engine_version".into(), json!(meta_analysis::VERSION));
    m.insert("loadavg_at_start".into(), json!(loadavg()));
    m
}

/// The 1-, 5- and 15-minute load averages from /proc/loadavg.
fn loadavg() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(
        text.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
