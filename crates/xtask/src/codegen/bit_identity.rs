//! The bit-identity fixture (`crates/exemplar/tests/fixtures/bit_identity.json`): for each
//! call below, its arguments as JSON text, the SHA-256 of the answer's JSON text
//! (`tools::call_json`, as the page's `callTool` returns it) and the dataset SHA-256 the
//! ledger records, computed natively. `crates/exemplar-wasm/tests/bit_identity.rs` runs the
//! same arguments in wasm and asserts the same hashes: one answer everywhere (issue 21 item 5,
//! issue 25 item 5).
//!
//! The calls: realistic data of every measure, each method and test, and every tool's own
//! example calls (`Tool::examples`), so that a new tool is covered without an edit here.

use exemplar::tools::{self, Tool, REGISTRY};
use exemplar::tools::{
    BUBBLE_PLOT, COMPUTE_EFFECT_SIZES, CUMULATIVE_FOREST_PLOT, CUMULATIVE_META_ANALYSIS,
    EGGER_TEST, FAIL_SAFE_N, FIT_RANDOM_EFFECTS, FOREST_PLOT, FUNNEL_PLOT, GET_DATASET,
    HETEROGENEITY, INFLUENCE_DIAGNOSTICS, LEAVE_ONE_OUT, LOAD_DATA, META_REGRESSION,
    RANK_CORRELATION_TEST, REFIT_EXCLUDING, SUBGROUP_ANALYSIS, TRIM_AND_FILL, TRIM_AND_FILL_PLOT,
};
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

fn ok(tool: &Tool, args: &Value) -> Value {
    match tools::call(tool.name, args) {
        Ok(v) => v,
        Err(e) => panic!("{} {args}: {}", tool.name, e.to_json()),
    }
}

/// Every tool's calls: the frozen dataset and custom records, each method and test, and
/// effect sizes of every measure from realistic data (where native and wasm used to differ
/// by up to 512 ulp), with fits of those effect sizes.
fn calls() -> Vec<(&'static Tool, Value)> {
    let four = json!([
        {"id": "a", "yi": 0.1, "vi": 0.01},
        {"id": "b", "yi": 0.3, "vi": 0.02},
        {"id": "c", "yi": -0.1, "vi": 0.04},
        {"id": "d", "yi": 0.5, "vi": 0.03}
    ]);
    let mut calls = vec![(&GET_DATASET, json!({}))];

    // Effect sizes of every measure, and the records they give analysed further.
    let mut bcg_rr = Value::Null;
    // RTET: the bivariate normal, a root and an information matrix behind each row.
    for measure in ["RR", "OR", "RD", "RTET"] {
        let args = json!({"measure": measure, "data": bcg_tables()});
        if measure == "RR" {
            bcg_rr = ok(&COMPUTE_EFFECT_SIZES, &args)["records"].clone();
        }
        calls.push((&COMPUTE_EFFECT_SIZES, args));
    }
    calls.push((
        &COMPUTE_EFFECT_SIZES,
        json!({"measure": "OR", "data": bcg_tables(), "add": 0.5, "to": "all"}),
    ));
    for measure in ["SMD", "MD", "ROM"] {
        calls.push((
            &COMPUTE_EFFECT_SIZES,
            json!({"measure": measure, "data": normand_means()}),
        ));
    }
    for measure in ["ZCOR", "COR", "UCOR"] {
        calls.push((
            &COMPUTE_EFFECT_SIZES,
            json!({"measure": measure, "data": correlations()}),
        ));
    }
    // UCOR's unbiased variance: a second hypergeometric function.
    calls.push((
        &COMPUTE_EFFECT_SIZES,
        json!({"measure": "UCOR", "vtype": "UB", "data": correlations()}),
    ));
    for measure in ["PLO", "PR"] {
        calls.push((
            &COMPUTE_EFFECT_SIZES,
            json!({"measure": measure, "data": proportions()}),
        ));
    }
    // The natural scales that take the records' ni (sin, cos and asin behind them).
    for measure in ["PFT", "PAS"] {
        let args = json!({"measure": measure, "data": proportions()});
        let records = ok(&COMPUTE_EFFECT_SIZES, &args)["records"].clone();
        calls.push((&COMPUTE_EFFECT_SIZES, args));
        calls.push((&FIT_RANDOM_EFFECTS, json!({"records": records})));
    }
    assert!(bcg_rr.as_array().is_some_and(|r| r.len() == 13), "{bcg_rr}");
    calls.push((&LOAD_DATA, json!({"measure": "RR", "data": bcg_tables()})));
    calls.push((&LOAD_DATA, json!({"records": four})));

    for method in ["REML", "ML", "DL", "HE", "SJ", "PM", "EE"] {
        for test in ["z", "knha"] {
            let options = json!({"method": method, "test": test, "level": 0.9});
            calls.push((&FIT_RANDOM_EFFECTS, options.clone()));
            let mut bcg = options.clone();
            bcg["records"] = bcg_rr.clone();
            calls.push((&FIT_RANDOM_EFFECTS, bcg));
            let mut refit = options.clone();
            refit["exclude"] = json!(["s04"]);
            calls.push((&REFIT_EXCLUDING, refit));
            let mut m = json!({"method": method, "test": test});
            m["mods"] = json!(["weeks", "tester"]);
            calls.push((&META_REGRESSION, m));
            let mut s = json!({"method": method, "test": test});
            s["by"] = json!("setting");
            calls.push((&SUBGROUP_ANALYSIS, s));
        }
        calls.push((&LEAVE_ONE_OUT, json!({"method": method})));
        calls.push((&INFLUENCE_DIAGNOSTICS, json!({"method": method})));
        calls.push((
            &CUMULATIVE_META_ANALYSIS,
            json!({"method": method, "order_by": "year"}),
        ));
        calls.push((&BUBBLE_PLOT, json!({"mod": "weeks", "method": method})));
        if method != "EE" {
            calls.push((&HETEROGENEITY, json!({"method": method, "level": 0.9})));
        }
    }
    calls.push((
        &META_REGRESSION,
        json!({"mods": ["ablat", "year"], "records": bcg_rr, "at": [{"ablat": 30, "year": 1960}]}),
    ));
    // User weights (a positive numeric column; issue 22).
    calls.push((
        &FIT_RANDOM_EFFECTS,
        json!({"records": bcg_rr, "weights": "ablat"}),
    ));
    calls.push((
        &META_REGRESSION,
        json!({"mods": ["year"], "records": bcg_rr, "weights": "ablat", "test": "knha"}),
    ));
    calls.push((&HETEROGENEITY, json!({"records": bcg_rr})));
    calls.push((&LEAVE_ONE_OUT, json!({"records": bcg_rr})));
    calls.push((
        &INFLUENCE_DIAGNOSTICS,
        json!({"records": bcg_rr, "test": "knha"}),
    ));
    for variant in ["classic", "rma"] {
        calls.push((&EGGER_TEST, json!({"variant": variant})));
        calls.push((&EGGER_TEST, json!({"variant": variant, "records": bcg_rr})));
        calls.push((&FUNNEL_PLOT, json!({"variant": variant})));
    }
    for estimator in ["L0", "R0"] {
        for side in ["left", "right"] {
            let args = json!({"estimator": estimator, "side": side});
            calls.push((&TRIM_AND_FILL, args.clone()));
            calls.push((&TRIM_AND_FILL_PLOT, args));
        }
        calls.push((
            &TRIM_AND_FILL,
            json!({"estimator": estimator, "records": bcg_rr}),
        ));
    }
    calls.push((&RANK_CORRELATION_TEST, json!({})));
    calls.push((&RANK_CORRELATION_TEST, json!({"records": bcg_rr})));
    for kind in ["Rosenthal", "Orwin", "Rosenberg"] {
        calls.push((&FAIL_SAFE_N, json!({"type": kind})));
        calls.push((&FAIL_SAFE_N, json!({"type": kind, "records": bcg_rr})));
    }
    calls.push((&FOREST_PLOT, json!({})));
    calls.push((&FOREST_PLOT, json!({"records": bcg_rr})));
    calls.push((&FOREST_PLOT, json!({"by": "setting"})));
    calls.push((&FUNNEL_PLOT, json!({"records": bcg_rr})));
    calls.push((&CUMULATIVE_FOREST_PLOT, json!({"order_by": "year"})));
    calls.push((&CUMULATIVE_FOREST_PLOT, json!({"records": bcg_rr})));
    calls.push((&BUBBLE_PLOT, json!({"mod": "ablat", "records": bcg_rr})));
    calls.push((&TRIM_AND_FILL_PLOT, json!({"records": bcg_rr})));
    // Every tool's own example calls: a tool added since is covered by what its file shows.
    for tool in REGISTRY {
        for args in (tool.examples)() {
            if !calls
                .iter()
                .any(|(called, a)| std::ptr::eq(*called, *tool) && *a == args)
            {
                calls.push((*tool, args));
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
        .map(|(tool, args)| entry(tool.name, args))
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
            &COMPUTE_EFFECT_SIZES,
            &json!({"measure": "RR", "data": bcg_tables()}),
        );
        let yi = rr["records"][8]["yi"].as_f64().unwrap();
        let exact = -0.469_417_648_738_148_7_f64;
        assert!((yi - exact).abs() < 2e-15, "{yi}");
    }
}
