//! Issue 41 item 2: a design's coefficients are counted from its factors' levels before any
//! column is built. The probe's call (`mods: "~ g0*g1*g2*g3"`, four text columns of 20
//! levels, 8,000 records: 0.63 MB) built 160,000 columns of 8,000 numbers first and aborted
//! the server; it is now refused naming the cap, and a counting allocator holds that the
//! call's peak stays within a small multiple of its arguments.
//!
//! One test (the allocator counts every thread of this binary).

use exemplar::tools::{self, ErrorCode};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{CURRENT, PEAK};

/// `k` records with the text columns g0..g3, each of 20 levels.
fn records(k: usize) -> Value {
    Value::Array(
        (0..k)
            .map(|i| {
                let mut r = json!({
                    "id": format!("s{i}"),
                    "yi": 0.1 + (i % 37) as f64 / 100.0,
                    "vi": 0.01 + (i % 11) as f64 / 1000.0,
                });
                for g in 0..4 {
                    r[format!("g{g}")] = json!(format!("L{:02}", (i / (g + 1) + 7 * g) % 20));
                }
                r
            })
            .collect(),
    )
}

#[test]
fn interactions_of_many_level_factors_are_refused_before_their_columns_are_built() {
    let args = json!({"mods": "~ g0*g1*g2*g3", "records": records(8_000)});
    let input = serde_json::to_string(&args).unwrap().len();
    // The registry's caches are built before measuring.
    let _ = tools::call(
        "meta_regression",
        &json!({"mods": "~ g0", "records": records(30)}),
    );
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let e = tools::call("meta_regression", &args).unwrap_err();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    eprintln!("arguments {input} bytes, the refused call's peak {peak} bytes");
    assert_eq!(e.code, ErrorCode::InvalidArguments);
    assert!(
        e.message.contains("the formula makes 160000 coefficients")
            && e.message
                .contains("g0:g1:g2:g3: 130321); at most 24 are accepted"),
        "{}",
        e.message
    );
    // The design alone would be 160,000 × 8,000 doubles (10 GB); the refusal's peak is the
    // records read and the factors' levels, a few times the arguments' text.
    assert!(
        peak < 8 * input,
        "peak {peak} bytes for {input} bytes of arguments"
    );
}
