//! Figures 1–3: the engine natively (REML at k = 19 and at large k, its peak
//! memory, leave-one-out), plus the tool path the wasm figure is compared with
//! and the diagnostics that say where the time goes.

use std::hint::black_box;
use std::time::{Duration, Instant};

use meta_analysis::{
    fit, fit_columns, influence_diagnostics, leave_one_out, meta_regression_columns, FitOptions,
    Method, Moderator, Record,
};

use crate::harness::time;
use crate::memory;
use crate::report::{Report, Target};
use bench::generate;

const LARGE: [(usize, &str); 3] = [(10_000, "10^4"), (100_000, "10^5"), (1_000_000, "10^6")];

pub fn run(report: &mut Report) {
    let reml = FitOptions::default();
    small_fits(report, &reml);
    large_fits(report, &reml);
    refits(report, &reml);
    let records = generate::records(1000);
    let t = time(Duration::from_millis(500), 5, || {
        fit(black_box(&records), &reml)
    });
    report.add("reml_k1000_ms", "REML fit, k = 1000", t.median_ms(), "ms");

    meta_regressions(report);
}

/// The frozen dataset's REML and EE fits, and the tool's JSON round trip.
fn small_fits(report: &mut Report, reml: &FitOptions) {
    let ee = FitOptions {
        method: Method::Ee,
        ..FitOptions::default()
    };
    let frozen = exemplar::dataset::records();
    eprintln!("bench: REML, 19 records");
    let t = time(Duration::from_millis(1500), 20, || {
        fit(black_box(&frozen), reml)
    });
    let model = fit(&frozen, reml).expect("the frozen records fit");
    report.add_target(
        "reml_k19_median_us",
        "REML fit, 19 records, median",
        t.median_us(),
        "µs",
        Target::AtMost(2.0),
    );
    report.add(
        "reml_k19_fits_per_s",
        "REML fits per second, 19 records",
        1e9 / t.median_ns,
        "fits/s",
    );
    report.add(
        "reml_k19_iterations",
        "REML Newton iterations, 19 records",
        model.iterations.unwrap_or(0) as f64,
        "",
    );
    let t = time(Duration::from_millis(500), 20, || {
        fit(black_box(&frozen), &ee)
    });
    report.add(
        "ee_k19_median_us",
        "  of which without τ² (EE fit: validation, Q, inference)",
        t.median_us(),
        "µs",
    );
    let t = time(Duration::from_millis(800), 20, || {
        // What the wasm `callTool` does: dispatch, then the result as compact JSON text.
        serde_json::to_string(&exemplar::tools::call_json(
            black_box(exemplar::tools::FIT_RANDOM_EFFECTS.name),
            black_box("{}"),
        ))
    });
    report.add(
        "tool_native_median_us",
        format!(
            "{} tool, JSON in/out, native, median",
            exemplar::tools::FIT_RANDOM_EFFECTS.name
        ),
        t.median_us(),
        "µs",
    );
}

/// REML fits of 10⁴ to 10⁶ records (yi, vi arrays) and their peak memory.
fn large_fits(report: &mut Report, reml: &FitOptions) {
    for (k, name) in LARGE {
        eprintln!("bench: REML, k = {name}");
        let records = generate::records(k);
        let (yi, vi) = generate::columns(k);
        let budget = Duration::from_millis(if k >= 1_000_000 { 3000 } else { 1000 });
        // The input arrays yi and vi (`fit_columns`): the figure the target is about.
        let t = time(budget, 5, || {
            fit_columns(black_box(&yi), black_box(&vi), reml)
        });
        let (key, label) = match k {
            10_000 => ("reml_k1e4_ms", "REML fit, k = 10^4 (yi, vi arrays)"),
            100_000 => ("reml_k1e5_ms", "REML fit, k = 10^5 (yi, vi arrays)"),
            _ => ("reml_k1e6_ms", "REML fit, k = 10^6 (yi, vi arrays)"),
        };
        if k == 1_000_000 {
            report.add_target(key, label, t.median_ms(), "ms", Target::AtMost(50.0));
            large_k_diagnostics(report, &records, &yi, &vi);
        } else {
            report.add(key, label, t.median_ms(), "ms");
        }
        match memory::measure(k) {
            Ok(peak) => add_peak(report, k, peak),
            Err(e) => report.note(format!("peak memory at k = {name} not measured: {e}")),
        }
    }
}

/// Leave-one-out on the frozen dataset and on 10⁴ records, and influence diagnostics.
fn refits(report: &mut Report, reml: &FitOptions) {
    let frozen = exemplar::dataset::records();
    eprintln!("bench: leave-one-out");
    let t = time(Duration::from_millis(1000), 20, || {
        leave_one_out(black_box(&frozen), reml)
    });
    report.add_target(
        "loo_k19_median_us",
        "leave-one-out, 19 records, median",
        t.median_us(),
        "µs",
        Target::AtMost(50.0),
    );
    let records = generate::records(10_000);
    // One call each: 10⁴ omissions of an O(k) fit (downdated sums, then Newton passes).
    let start = Instant::now();
    black_box(leave_one_out(black_box(&records), reml).ok());
    report.add_target(
        "loo_k1e4_ms",
        "leave-one-out, k = 10^4 (10^4 omissions, one run)",
        start.elapsed().as_secs_f64() * 1e3,
        "ms",
        Target::AtMost(1000.0),
    );
    eprintln!("bench: influence diagnostics");
    let start = Instant::now();
    black_box(influence_diagnostics(black_box(&records), Method::Reml).ok());
    report.add_target(
        "influence_k1e4_ms",
        "influence diagnostics, k = 10^4 (REML, one run)",
        start.elapsed().as_secs_f64() * 1e3,
        "ms",
        Target::AtMost(1000.0),
    );
}

/// A REML meta-regression on four numeric moderators (issue 13's target at k = 10⁵), and at
/// k = 1000 for the comparison with metafor.
fn meta_regressions(report: &mut Report) {
    let reml = FitOptions::default();
    for (k, key, label) in [
        (
            100_000,
            "metareg_k1e5_ms",
            "meta-regression, 4 moderators, REML, k = 10^5 (yi, vi arrays)",
        ),
        (
            1000,
            "metareg_k1000_ms",
            "meta-regression, 4 moderators, REML, k = 1000",
        ),
    ] {
        eprintln!("bench: meta-regression, k = {k}");
        let (yi, vi, x) = generate::moderated(k);
        let mods: Vec<Moderator> = generate::MODERATORS
            .iter()
            .zip(x)
            .map(|(name, column)| Moderator::numeric(*name, column))
            .collect();
        let t = time(Duration::from_millis(1000), 5, || {
            meta_regression_columns(black_box(&yi), black_box(&vi), &mods, &reml)
        });
        if k == 100_000 {
            report.add_target(key, label, t.median_ms(), "ms", Target::AtMost(20.0));
            let iterations = meta_regression_columns(&yi, &vi, &mods, &reml)
                .ok()
                .and_then(|m| m.iterations)
                .unwrap_or(0);
            report.add(
                "metareg_k1e5_iterations",
                "  REML Newton iterations",
                iterations as f64,
                "",
            );
        } else {
            report.add(key, label, t.median_ms(), "ms");
        }
    }
}

/// Where the time of a k = 10⁶ fit goes: the same fit from `Vec<Record>` (ids checked
/// for duplicates by sorting), a fit without τ² (EE), and the Newton iterations.
fn large_k_diagnostics(report: &mut Report, records: &[Record], yi: &[f64], vi: &[f64]) {
    let ee = FitOptions {
        method: Method::Ee,
        ..FitOptions::default()
    };
    let budget = Duration::from_millis(1500);
    let t = time(budget, 5, || {
        fit(black_box(records), &FitOptions::default())
    });
    report.add(
        "reml_records_k1e6_ms",
        "  the same fit from records with ids (duplicate-id check included)",
        t.median_ms(),
        "ms",
    );
    let t = time(budget, 5, || fit_columns(black_box(yi), black_box(vi), &ee));
    report.add(
        "ee_k1e6_ms",
        "  of which without τ² (EE fit), k = 10^6",
        t.median_ms(),
        "ms",
    );
    let iterations = fit_columns(yi, vi, &FitOptions::default())
        .ok()
        .and_then(|f| f.iterations)
        .unwrap_or(0);
    report.add(
        "reml_k1e6_iterations",
        "REML Newton iterations, k = 10^6",
        iterations as f64,
        "",
    );
}

fn add_peak(report: &mut Report, k: usize, peak: memory::Peak) {
    let ratio = peak.peak_bytes / peak.input_bytes;
    let mb = |b: f64| b / 1e6;
    match k {
        10_000 => {
            report.add(
                "peak_k1e4_ratio",
                "peak memory / input bytes, k = 10^4",
                ratio,
                "×",
            );
        }
        100_000 => {
            report.add(
                "peak_k1e5_ratio",
                "peak memory / input bytes, k = 10^5",
                ratio,
                "×",
            );
        }
        _ => {
            report.add_target(
                "peak_k1e6_ratio",
                "peak memory / input bytes, k = 10^6",
                ratio,
                "×",
                Target::AtMost(3.0),
            );
            report.add(
                "input_k1e6_mb",
                "  input bytes: the yi and vi arrays, 16·k",
                mb(peak.input_bytes),
                "MB",
            );
            report.add(
                "peak_k1e6_mb",
                "  peak above baseline, k = 10^6",
                mb(peak.peak_bytes),
                "MB",
            );
            report.add(
                "records_k1e6_mb",
                "  of which the input arrays themselves",
                mb(peak.records_bytes),
                "MB",
            );
            report.add(
                "engine_k1e6_mb",
                "  of which the engine's working memory",
                mb(peak.engine_bytes),
                "MB",
            );
        }
    }
}
