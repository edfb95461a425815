//! Issue 44 item 6: `influence_diagnostics` on general rma.mv models gives metafor 3.8-1's
//! cooks.distance(), dfbetas(), rstudent(), hatvalues() and weights() of the rma.mv fit, per
//! record and per cluster (`cluster`), on the oracle's fixture
//! (crates/meta-analysis/tests/oracle/influence_rma_mv.R).
#![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]

use exemplar::tools::call;
use serde_json::{json, Value};

fn fixture(name: &str) -> Value {
    let all: Value =
        serde_json::from_str(include_str!("fixtures/influence_rma_mv.json")).unwrap();
    all[name].clone()
}

/// `got` within `tol` of metafor's `want` (relative to its size, at least 1).
fn close(got: &Value, want: &Value, tol: f64, what: &str) {
    let (a, b) = (got.as_f64().unwrap(), want.as_f64().unwrap());
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: {a} vs metafor {b}"
    );
}

fn close_all(got: &[&Value], want: &Value, tol: f64, what: &str) {
    let want = want.as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        close(g, w, tol, &format!("{what}[{i}]"));
    }
}

/// Every diagnostic of `result` (a call with `cluster`, and `per_record` the one without)
/// against the case `want`.
fn check(per_record: &Value, result: &Value, want: &Value, tol: f64) {
    let rows = per_record["general"]["records"].as_array().unwrap();
    let col = |rows: &[Value], key: &str| -> Vec<Value> { rows.iter().map(|r| r[key].clone()).collect() };
    for (key, theirs) in [("hat", &want["hat"]), ("weight", &want["weights"]), ("cook_d", &want["cook_d"])] {
        close_all(&col(rows, key).iter().collect::<Vec<_>>(), theirs, tol, key);
    }
    for key in ["resid", "se", "z"] {
        close_all(&col(rows, key).iter().collect::<Vec<_>>(), &want["rstudent"][key], tol, key);
    }
    for (r, w) in rows.iter().zip(want["dfbetas"].as_array().unwrap()) {
        let got: Vec<&Value> = r["dfbetas"].as_array().unwrap().iter().collect();
        close_all(&got, w, tol, "dfbetas");
    }
    // Per cluster: metafor orders them by their label; the tool by their first record.
    let c = &want["cluster"];
    let clusters = result["general"]["clusters"].as_array().unwrap();
    for (i, level) in c["levels"].as_array().unwrap().iter().enumerate() {
        let row = clusters.iter().find(|r| r["cluster"] == *level).unwrap();
        close(&row["cook_d"], &c["cook_d"][i], tol, "cluster cook_d");
        close(&row["x2"], &c["x2"][i], tol, "cluster X2");
        assert_eq!(row["k"], c["k"][i]);
        let got: Vec<&Value> = row["dfbetas"].as_array().unwrap().iter().collect();
        close_all(&got, &c["dfbetas"][i], tol, "cluster dfbetas");
    }
    let rows = result["general"]["records"].as_array().unwrap();
    for key in ["resid", "se", "z"] {
        close_all(&col(rows, key).iter().collect::<Vec<_>>(), &c[key], tol, key);
    }
    assert!(rows.iter().all(|r| r["cook_d"].is_null()));
}

#[cfg(feature = "extended")]
#[test]
fn a_three_level_models_diagnostics_are_metafors_per_record_and_per_district() {
    let want = fixture("konstantopoulos2011");
    let general = json!({"random": "~ 1 | district/school"});
    let args = json!({"records": want["records"], "general": general});
    let per_record = call("influence_diagnostics", &args).unwrap();
    let mut args = args;
    args["cluster"] = json!("district");
    let per_district = call("influence_diagnostics", &args).unwrap();
    check(&per_record, &per_district, &want, 1e-8);
}

#[cfg(feature = "extended")]
#[test]
fn a_multivariate_models_diagnostics_are_metafors_per_record_and_per_trial() {
    let want = fixture("berkey1998");
    let args = json!({
        "records": want["records"], "mods": "~ outcome - 1",
        "general": {"random": "~ outcome | trial", "struct": "UN",
                    "V": {"cluster": "trial", "columns": ["v1i", "v2i"]}},
    });
    let per_record = call("influence_diagnostics", &args).unwrap();
    let mut args = args;
    args["cluster"] = json!("trial");
    let per_trial = call("influence_diagnostics", &args).unwrap();
    check(&per_record, &per_trial, &want, 1e-8);
}
