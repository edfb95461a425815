//! Issue 29's figures: the largest `robust_test` calls that the cluster bounds admit
//! (`MAX_CLUSTER_COST`, Σ n_c³ ≤ 2·10⁹), CR2 with Satterthwaite df natively, fit included,
//! each against the one second that docs/RELIABILITY.md states for the bound.

use std::hint::black_box;
use std::time::Duration;

use meta_analysis::{
    robust_fit, robust_meta_regression, robust_multilevel, FitOptions, Moderator,
    MultilevelOptions, Record, RobustVcov, MAX_CLUSTER_COST,
};

use bench::generate::nested;

use crate::harness::time;
use crate::report::{Report, Target};

/// What "about a second natively" is held to.
const TARGET_MS: f64 = 1000.0;

/// `m` clusters of `n` records: their ids, and the cost Σ n_c³ checked against the bound.
fn clusters(m: usize, n: usize) -> Vec<String> {
    let cost = (m * n * n * n) as f64;
    assert!(
        cost <= MAX_CLUSTER_COST,
        "{m} clusters of {n} pass the bound"
    );
    (0..m * n).map(|i| format!("c{}", i / n)).collect()
}

/// `count` numeric moderators for `k` records, uniform on [0, 1) (deterministic).
fn moderators(k: usize, count: usize) -> Vec<Moderator> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    (0..count)
        .map(|a| {
            let values = (0..k)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 11) as f64 / (1u64 << 53) as f64
                })
                .collect();
            Moderator::numeric(format!("x{a}"), values)
        })
        .collect()
}

/// One row: the median time of `f` (at least three calls after one warm-up).
fn row<R>(report: &mut Report, key: &str, what: String, f: impl FnMut() -> R) {
    eprintln!("bench: {what}");
    let t = time(Duration::from_secs(3), 3, f);
    report.add_target(key, what, t.median_ms(), "ms", Target::AtMost(TARGET_MS));
}

pub fn run(report: &mut Report) {
    let options = FitOptions::default();
    // Two clusters at the bound: 2 · 1000³ = 2·10⁹.
    let data = nested(200, 10);
    let two = clusters(2, 1000);
    row(
        report,
        "cr2_bound_fit_2x1000_ms",
        "CR2 of a REML fit, 2 clusters of 1000 records (Σn³ = 2e9, the bound)".into(),
        || robust_fit(black_box(&data.records), &options, &two, RobustVcov::Cr2),
    );
    // The three-level model (studies of 10 records) in the same two clusters.
    let reml = MultilevelOptions::default();
    row(
        report,
        "cr2_bound_multilevel_2x1000_ms",
        "CR2 of the three-level fit, 2 clusters of 1000 records in studies of 10".into(),
        || {
            robust_multilevel(
                black_box(&data.records),
                &data.study,
                &[],
                &reml,
                &two,
                RobustVcov::Cr2,
            )
        },
    );
    // A meta-regression on 8 moderators (9 coefficients) in 20 clusters of 464
    // (20 · 464³ = 2.0·10⁹).
    let wide = nested(928, 10);
    let mods = moderators(wide.records.len(), 8);
    let twenty = clusters(20, 464);
    row(
        report,
        "cr2_bound_regression_20x464_ms",
        "CR2 of a meta-regression on 8 moderators, 20 clusters of 464 (Σn³ = 2.0e9)".into(),
        || {
            robust_meta_regression(
                black_box(&wide.records),
                &mods,
                &options,
                &twenty,
                RobustVcov::Cr2,
            )
        },
    );
    // Many clusters at the bound: k = 5·10⁴ in 250 clusters of 200 (250 · 200³ = 2·10⁹).
    let many = nested(5000, 10);
    let small = clusters(250, 200);
    let records: &[Record] = &many.records;
    row(
        report,
        "cr2_bound_fit_250x200_ms",
        "CR2 of a REML fit, k = 5e4 in 250 clusters of 200 (Σn³ = 2e9)".into(),
        || robust_fit(black_box(records), &options, &small, RobustVcov::Cr2),
    );
}
