//! The bit-identity fixture (`crates/exemplar/tests/fixtures/bit_identity.json`): for each
//! call below, its arguments as JSON text, the SHA-256 of the answer's JSON text
//! (`tools::call_json`, as the page's `callTool` returns it) and the dataset SHA-256 the
//! ledger records, computed natively. `crates/exemplar-wasm/tests/bit_identity.rs` runs the
//! same arguments in wasm and asserts the same hashes: one answer everywhere (issue 21 item 5,
//! issue 25 item 5).
//!
//! The calls: realistic data of every measure, each method and test, and every tool's own
//! example calls (`Tool::examples`), so that a new tool is covered without an edit here.

use exemplar::tools::{self, REGISTRY};
use serde_json::{json, Value};

use crate::Result;

/// dat.bcg (Colditz et al. 1994): BCG vaccine trials, tpos/tneg/cpos/cneg.
const BCG: [(&str, i32, i32, i32, i32, i32, f64); 13] = [
    ("Aronson", 1948, 4, 119, 11, 128, 44.0),
    ("Ferguson & Simes", 1949, 6, 300, 29, 274, 55.0),
    ("Rosenthal et al", 1960, 3, 228, 11, 209, 42.0),
    ("Hart & Sutherland", 1977, 62, 13536, 248, 12619, 52.0),
    ("Frimodt-Moller et al", 1973, 33, 5036, 47, 5761, 13.0),
    ("Stein & Aronson", 1953, 180, 1361, 372, 1079, 44.0),
    ("Vandiviere et al", 1973, 8, 2537, 10, 619, 19.0),
    ("TPT Madras", 1980, 505, 87886, 499, 87892, 13.0),
    ("Coetzee & Berjak", 1968, 29, 7470, 45, 7232, 27.0),
    ("Rosenthal et al", 1961, 17, 1699, 65, 1600, 42.0),
    ("Comstock et al", 1974, 186, 50448, 141, 27197, 18.0),
    ("Comstock & Webster", 1969, 5, 2493, 3, 2338, 33.0),
    ("Comstock et al", 1976, 27, 16886, 29, 17825, 33.0),
];

pub(crate) fn bcg_tables() -> Value {
    BCG.iter()
        .enumerate()
        .map(|(i, (author, year, ai, bi, ci, di, ablat))| {
            json!({"id": format!("t{}", i + 1), "author": author, "year": year,
                   "ai": ai, "bi": bi, "ci": ci, "di": di, "ablat": ablat})
        })
        .collect()
}

/// dat.normand1999: length of stay, specialist vs routine care (n, mean, SD per arm).
fn normand_means() -> Value {
    let rows = [
        (155, 55.0, 47.0, 156, 75.0, 64.0),
        (31, 27.0, 7.0, 32, 29.0, 4.0),
        (75, 64.0, 17.0, 71, 119.0, 29.0),
        (18, 66.0, 20.0, 18, 137.0, 48.0),
        (8, 14.0, 8.0, 13, 18.0, 11.0),
        (57, 19.0, 7.0, 52, 18.0, 4.0),
        (34, 52.0, 45.0, 33, 41.0, 34.0),
        (110, 21.0, 16.0, 183, 31.0, 27.0),
        (60, 30.0, 27.0, 52, 23.0, 20.0),
    ];
    rows.iter()
        .map(|(n1, m1, sd1, n2, m2, sd2)| {
            json!({"n1i": n1, "m1i": m1, "sd1i": sd1, "n2i": n2, "m2i": m2, "sd2i": sd2})
        })
        .collect()
}

/// Correlations in the manner of dat.molloy2014 (conscientiousness and adherence).
fn correlations() -> Value {
    let rows = [
        (0.187, 109),
        (0.162, 749),
        (0.34, 55),
        (0.32, 107),
        (0.04, 74),
        (0.02, 25),
        (0.15, 97),
        (0.12, 36),
        (0.05, 137),
        (0.086, 206),
        (0.36, 163),
        (0.0, 54),
        (0.14, 165),
        (0.19, 85),
        (0.31, 200),
        (0.1, 158),
    ];
    rows.iter()
        .map(|(ri, ni)| json!({"ri": ri, "ni": ni}))
        .collect()
}

/// Proportions (events of n), as in dat.pritz1997.
fn proportions() -> Value {
    let rows = [
        (14, 20),
        (5, 12),
        (71, 100),
        (20, 60),
        (9, 38),
        (35, 120),
        (12, 40),
        (44, 90),
        (3, 31),
        (59, 77),
    ];
    rows.iter()
        .map(|(xi, ni)| json!({"xi": xi, "ni": ni}))
        .collect()
}

fn ok(name: &str, args: &Value) -> Value {
    match tools::call(name, args) {
        Ok(v) => v,
        Err(e) => panic!("{name} {args}: {}", e.to_json()),
    }
}

/// Every tool's calls: the frozen dataset and custom records, each method and test, and
/// effect sizes of every measure from realistic data (where native and wasm used to differ
/// by up to 512 ulp), with fits of those effect sizes.
fn calls() -> Vec<(&'static str, Value)> {
    let four = json!([
        {"id": "a", "yi": 0.1, "vi": 0.01},
        {"id": "b", "yi": 0.3, "vi": 0.02},
        {"id": "c", "yi": -0.1, "vi": 0.04},
        {"id": "d", "yi": 0.5, "vi": 0.03}
    ]);
    let mut calls = vec![("get_dataset", json!({}))];

    // Effect sizes of every measure, and the records they give analysed further.
    let mut bcg_rr = Value::Null;
    // RTET: the bivariate normal, a root and an information matrix behind each row.
    for measure in ["RR", "OR", "RD", "RTET"] {
        let args = json!({"measure": measure, "data": bcg_tables()});
        if measure == "RR" {
            bcg_rr = ok("compute_effect_sizes", &args)["records"].clone();
        }
        calls.push(("compute_effect_sizes", args));
    }
    calls.push((
        "compute_effect_sizes",
        json!({"measure": "OR", "data": bcg_tables(), "add": 0.5, "to": "all"}),
    ));
    for measure in ["SMD", "MD", "ROM"] {
        calls.push((
            "compute_effect_sizes",
            json!({"measure": measure, "data": normand_means()}),
        ));
    }
    for measure in ["ZCOR", "COR", "UCOR"] {
        calls.push((
            "compute_effect_sizes",
            json!({"measure": measure, "data": correlations()}),
        ));
    }
    // UCOR's unbiased variance: a second hypergeometric function.
    calls.push((
        "compute_effect_sizes",
        json!({"measure": "UCOR", "vtype": "UB", "data": correlations()}),
    ));
    for measure in ["PLO", "PR"] {
        calls.push((
            "compute_effect_sizes",
            json!({"measure": measure, "data": proportions()}),
        ));
    }
    // The natural scales that take the records' ni (sin, cos and asin behind them).
    for measure in ["PFT", "PAS"] {
        let args = json!({"measure": measure, "data": proportions()});
        let records = ok("compute_effect_sizes", &args)["records"].clone();
        calls.push(("compute_effect_sizes", args));
        calls.push(("fit_random_effects", json!({"records": records})));
    }
    assert!(bcg_rr.as_array().is_some_and(|r| r.len() == 13), "{bcg_rr}");
    calls.push(("load_data", json!({"measure": "RR", "data": bcg_tables()})));
    calls.push(("load_data", json!({"records": four})));

    for method in ["REML", "ML", "DL", "HE", "SJ", "PM", "EE"] {
        for test in ["z", "knha"] {
            let options = json!({"method": method, "test": test, "level": 0.9});
            calls.push(("fit_random_effects", options.clone()));
            let mut bcg = options.clone();
            bcg["records"] = bcg_rr.clone();
            calls.push(("fit_random_effects", bcg));
            let mut refit = options.clone();
            refit["exclude"] = json!(["s04"]);
            calls.push(("refit_excluding", refit));
            let mut m = json!({"method": method, "test": test});
            m["mods"] = json!(["weeks", "tester"]);
            calls.push(("meta_regression", m));
            let mut s = json!({"method": method, "test": test});
            s["by"] = json!("setting");
            calls.push(("subgroup_analysis", s));
        }
        calls.push(("leave_one_out", json!({"method": method})));
        calls.push(("influence_diagnostics", json!({"method": method})));
        calls.push((
            "cumulative_meta_analysis",
            json!({"method": method, "order_by": "year"}),
        ));
        calls.push(("bubble_plot", json!({"mod": "weeks", "method": method})));
        if method != "EE" {
            calls.push(("heterogeneity", json!({"method": method, "level": 0.9})));
        }
    }
    calls.push((
        "meta_regression",
        json!({"mods": ["ablat", "year"], "records": bcg_rr, "at": [{"ablat": 30, "year": 1960}]}),
    ));
    // User weights (a positive numeric column; issue 22).
    calls.push((
        "fit_random_effects",
        json!({"records": bcg_rr, "weights": "ablat"}),
    ));
    calls.push((
        "meta_regression",
        json!({"mods": ["year"], "records": bcg_rr, "weights": "ablat", "test": "knha"}),
    ));
    calls.push(("heterogeneity", json!({"records": bcg_rr})));
    calls.push(("leave_one_out", json!({"records": bcg_rr})));
    calls.push((
        "influence_diagnostics",
        json!({"records": bcg_rr, "test": "knha"}),
    ));
    for variant in ["classic", "rma"] {
        calls.push(("egger_test", json!({"variant": variant})));
        calls.push(("egger_test", json!({"variant": variant, "records": bcg_rr})));
        calls.push(("funnel_plot", json!({"variant": variant})));
    }
    for estimator in ["L0", "R0"] {
        for side in ["left", "right"] {
            let args = json!({"estimator": estimator, "side": side});
            calls.push(("trim_and_fill", args.clone()));
            calls.push(("trim_and_fill_plot", args));
        }
        calls.push((
            "trim_and_fill",
            json!({"estimator": estimator, "records": bcg_rr}),
        ));
    }
    calls.push(("rank_correlation_test", json!({})));
    calls.push(("rank_correlation_test", json!({"records": bcg_rr})));
    for kind in ["Rosenthal", "Orwin", "Rosenberg"] {
        calls.push(("fail_safe_n", json!({"type": kind})));
        calls.push(("fail_safe_n", json!({"type": kind, "records": bcg_rr})));
    }
    calls.push(("forest_plot", json!({})));
    calls.push(("forest_plot", json!({"records": bcg_rr})));
    calls.push(("forest_plot", json!({"by": "setting"})));
    calls.push(("funnel_plot", json!({"records": bcg_rr})));
    calls.push(("cumulative_forest_plot", json!({"order_by": "year"})));
    calls.push(("cumulative_forest_plot", json!({"records": bcg_rr})));
    calls.push(("bubble_plot", json!({"mod": "ablat", "records": bcg_rr})));
    calls.push(("trim_and_fill_plot", json!({"records": bcg_rr})));
    // Every tool's own example calls: a tool added since is covered by what its file shows.
    for tool in REGISTRY {
        for args in (tool.examples)() {
            if !calls
                .iter()
                .any(|(name, a)| *name == tool.name && *a == args)
            {
                calls.push((tool.name, args));
            }
        }
    }
    calls
}

/// One call's entry: its arguments' text, the answer's hash and the data's hash.
fn entry(name: &str, args: &Value) -> Value {
    let args_text = args.to_string();
    let answer = serde_json::to_string(&tools::call_json(name, &args_text)).unwrap();
    let outcome = tools::outcome(name, args);
    json!({
        "tool": name,
        "args": args_text,
        "ok": outcome.result.is_ok(),
        "sha256": exemplar::sha256_hex(answer.as_bytes()),
        "dataset_sha256": outcome.dataset_sha256,
    })
}

/// The fixture: every call's entry. An error when a tool has no call that succeeds (its
/// examples must be valid calls).
pub fn fixture() -> Result<Value> {
    let entries: Vec<Value> = calls()
        .iter()
        .map(|(name, args)| entry(name, args))
        .collect();
    for tool in REGISTRY {
        if !entries
            .iter()
            .any(|c| c["tool"] == tool.name && c["ok"] == true)
        {
            return Err(format!("{}: none of its bit-identity calls succeeds", tool.name).into());
        }
    }
    Ok(json!({
        "about": "SHA-256 of each tool call's answer (the JSON text callTool returns) and of its data, computed natively; crates/exemplar-wasm/tests/bit_identity.rs asserts the same in wasm. Written by `cargo xtask codegen` (crates/xtask/src/codegen/bit_identity.rs).",
        "calls": entries,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The effect size the issue saw differ (bcg row 9: −0.4694176487381494 natively,
    /// −0.4694176487381485 on the page) is ln(29/7499) − ln(45/7277) =
    /// −0.46941764873814866… (40 digits: Python's decimal) to the accuracy that subtracting two
    /// logarithms allows, on every target.
    #[test]
    fn bcg_row_9_is_the_log_risk_ratio() {
        let rr = ok(
            "compute_effect_sizes",
            &json!({"measure": "RR", "data": bcg_tables()}),
        );
        let yi = rr["records"][8]["yi"].as_f64().unwrap();
        let exact = -0.469_417_648_738_148_7_f64;
        assert!((yi - exact).abs() < 2e-15, "{yi}");
    }
}
