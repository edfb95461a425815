//! Peak memory of one large fit, measured in a child process so that nothing
//! the parent allocated counts.
//!
//! The child (`bench peak-memory K`) reads `VmHWM` (peak resident set) from
//! `/proc/self/status` before building the input (the baseline), builds the
//! yi and vi arrays, resets the peak where the kernel allows (`5` into
//! `/proc/self/clear_refs`), fits, and reads `VmHWM` again.

use std::process::Command;

use serde_json::{json, Value};

use bench::generate;

/// A field of `/proc/self/status` in KiB (`VmHWM`, `VmRSS`).
pub fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The hidden subcommand: prints one JSON object.
pub fn child_main(k: usize) -> Result<(), String> {
    let unavailable = || "/proc/self/status has no VmHWM/VmRSS (not Linux?)".to_string();
    let baseline_hwm = status_kib("VmHWM").ok_or_else(unavailable)?;
    let (yi, vi) = generate::columns(k);
    let input_rss = status_kib("VmRSS").ok_or_else(unavailable)?;
    let input_hwm = status_kib("VmHWM").ok_or_else(unavailable)?;
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let fit = meta_analysis::fit_columns(std::hint::black_box(&yi), &vi, &Default::default())
        .map_err(|e| e.to_string())?;
    let end_hwm = status_kib("VmHWM").ok_or_else(unavailable)?;
    println!(
        "{}",
        json!({
            "k": k,
            "input_bytes": 16 * k,
            "baseline_hwm_kib": baseline_hwm,
            "input_rss_kib": input_rss,
            "input_hwm_kib": input_hwm,
            "end_hwm_kib": end_hwm,
            "hwm_reset": reset,
            "tau2": fit.tau2,
        })
    );
    Ok(())
}

/// What one child measured, in bytes.
#[derive(Debug, Clone, Copy)]
pub struct Peak {
    /// 16·k: the yi and vi arrays.
    pub input_bytes: f64,
    /// Peak resident set above the baseline: the arrays plus the fit.
    pub peak_bytes: f64,
    /// The arrays (resident after building them).
    pub records_bytes: f64,
    /// Peak during the fit above the resident records: the engine's own working memory.
    pub engine_bytes: f64,
}

/// Runs this binary's `peak-memory` subcommand for `k` records.
pub fn measure(k: usize) -> Result<Peak, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .args(["peak-memory", &k.to_string()])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let kib = |f: &str| v[f].as_f64().unwrap_or(f64::NAN) * 1024.0;
    let baseline = kib("baseline_hwm_kib");
    let input_rss = kib("input_rss_kib");
    let end = kib("end_hwm_kib");
    // Without the reset, VmHWM at the end is the larger of the input build's and the fit's peaks.
    let peak = end.max(kib("input_hwm_kib"));
    Ok(Peak {
        input_bytes: v["input_bytes"].as_f64().unwrap_or(f64::NAN),
        peak_bytes: peak - baseline,
        records_bytes: input_rss - baseline,
        engine_bytes: (end - input_rss).max(0.0),
    })
}
