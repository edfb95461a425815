//! Peak memory of each tool's largest call, against the length of its arguments text
//! (issue 16: a call's memory stays within a stated multiple of its input).
//!
//! Each tool of the registry runs in a child process (`bench tool-memory NAME`) through
//! `Session::run`, the path the page and the CLI take (parse, validate, run, ledger). The
//! child builds the arguments text ([`bench::calls::largest`]), reads `VmRSS` (the baseline:
//! the process with its input), resets the peak (`5` into `/proc/self/clear_refs`), runs the
//! call, and reads `VmHWM`. The figure is (peak − baseline) / input bytes; its target is the
//! bound of [`bench::calls::memory_bound`] for that input and that result, as a multiple of
//! the input.

use std::process::Command;

use bench::calls::{self, INPUT_MULTIPLE, MEMORY_ALLOWANCE_BYTES, RESULT_MULTIPLE};
use exemplar::session::Session;
use exemplar::tools::{self, Tool};
use serde_json::{json, Value};

use crate::memory::status_kib;
use crate::report::{number, Report, Target};

/// The time the child's ledger entry carries (any valid time; it is not measured).
const TIME: &str = "2026-01-01T00:00:00Z";

/// The hidden subcommand: runs `name`'s largest call and prints one JSON object.
pub fn child_main(name: &str) -> Result<(), String> {
    let unavailable = || "/proc/self/status has no VmHWM/VmRSS (not Linux?)".to_string();
    let tool = tools::find(name).ok_or_else(|| format!("no tool named {name:?}"))?;
    let call = calls::largest(tool)?;
    let baseline_rss = status_kib("VmRSS").ok_or_else(unavailable)?;
    let before_hwm = status_kib("VmHWM").ok_or_else(unavailable)?;
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let mut session = Session::new();
    let report = session.run(tool.name, std::hint::black_box(&call.args), TIME);
    let end_hwm = status_kib("VmHWM").ok_or_else(unavailable)?;
    if let Some(error) = &report.error {
        return Err(format!("{name} refused its largest call: {error}"));
    }
    let result_bytes = report.response.content[0].text.len();
    // Without the reset, VmHWM also holds the peak of building the input: the figure is then
    // an upper bound.
    println!(
        "{}",
        json!({
            "tool": name,
            "records": call.records,
            "input_bytes": call.args.len(),
            "result_bytes": result_bytes,
            "baseline_rss_kib": baseline_rss,
            "before_hwm_kib": before_hwm,
            "end_hwm_kib": end_hwm,
            "hwm_reset": reset,
        })
    );
    Ok(())
}

/// What one child measured.
#[derive(Debug, Clone, Copy)]
pub struct ToolPeak {
    pub records: usize,
    pub input_bytes: usize,
    /// The result as compact JSON text (what the agent receives).
    pub result_bytes: usize,
    /// Peak resident set during the call above the resident set once the input was built.
    pub peak_bytes: f64,
    /// Whether the peak was reset before the call (else the figure is an upper bound).
    pub reset: bool,
}

impl ToolPeak {
    pub fn multiple(&self) -> f64 {
        self.peak_bytes / self.input_bytes as f64
    }
}

/// Runs this binary's `tool-memory` subcommand for `tool`.
pub fn measure(tool: &Tool) -> Result<ToolPeak, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .args(["tool-memory", tool.name])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let kib = |f: &str| v[f].as_f64().unwrap_or(f64::NAN) * 1024.0;
    Ok(ToolPeak {
        records: v["records"].as_u64().unwrap_or(0) as usize,
        input_bytes: v["input_bytes"].as_u64().unwrap_or(0) as usize,
        result_bytes: v["result_bytes"].as_u64().unwrap_or(0) as usize,
        peak_bytes: (kib("end_hwm_kib") - kib("baseline_rss_kib")).max(0.0),
        reset: v["hwm_reset"].as_bool().unwrap_or(false),
    })
}

/// One figure per tool: its peak over its input, against the stated bound for its input and
/// result, as a multiple of the input (so a tool taking `{}` is held to its result and the
/// allowance).
pub fn run(report: &mut Report) {
    for tool in tools::REGISTRY {
        eprintln!("bench: memory of {}'s largest call", tool.name);
        let peak = match measure(tool) {
            Ok(peak) => peak,
            Err(e) => {
                report.note(format!("memory of {} not measured: {e}", tool.name));
                continue;
            }
        };
        if !peak.reset {
            report.note(format!(
                "memory of {}: the peak could not be reset, so it includes building the input",
                tool.name
            ));
        }
        let bound_bytes = calls::memory_bound(peak.input_bytes, peak.result_bytes);
        let data = match calls::data_argument(tool) {
            Some("records") => format!("{} records", peak.records),
            Some(_) => format!("{} rows of raw data", peak.records),
            None => "no data".to_string(),
        };
        let figure = report.add_target(
            format!("memory_{}_multiple", tool.name),
            format!(
                "peak / input, {} ({data}: {} in, {} out, {} peak)",
                tool.name,
                size(peak.input_bytes as f64),
                size(peak.result_bytes as f64),
                size(peak.peak_bytes)
            ),
            peak.multiple(),
            "×",
            Target::AtMost(bound_bytes / peak.input_bytes as f64),
        );
        figure.detail = Some(json!({
            "tool": tool.name,
            "records": peak.records,
            "input_bytes": peak.input_bytes,
            "result_bytes": peak.result_bytes,
            "peak_bytes": peak.peak_bytes,
            "bound_bytes": bound_bytes,
        }));
    }
    report.note(format!(
        "memory bound: every tool's largest call peaks at most {}× its arguments text plus {}× \
its result text plus {} KiB (the peak resident set above the process holding its input; \
`bench memory` runs only these figures)",
        number(INPUT_MULTIPLE),
        number(RESULT_MULTIPLE),
        number(MEMORY_ALLOWANCE_BYTES / 1024.0)
    ));
}

/// Bytes in B, kB or MB, three significant digits.
fn size(bytes: f64) -> String {
    if bytes < 1e3 {
        format!("{} B", number(bytes))
    } else if bytes < 1e6 {
        format!("{} kB", number(bytes / 1e3))
    } else {
        format!("{} MB", number(bytes / 1e6))
    }
}
