//! `fit_multilevel`'s general models (issue 44) through the registry, on the engine's
//! oracle fixture (`crates/meta-analysis/tests/fixtures/rma_mv.json`, metafor 3.8-1): the
//! tool's coefficients, SEs, QE and log-likelihood are metafor's with every component fixed
//! at the engine's estimates, within 1e-10.

use exemplar::tools::call;
use serde_json::{json, Value};

fn fixture() -> Value {
    let path = format!(
        "{}/../meta-analysis/tests/fixtures/rma_mv.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn case<'a>(all: &'a Value, name: &str) -> &'a Value {
    all["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap()
}

/// dat.berkey1998's records (trial, outcome, v1i, v2i) rebuilt from the case's V blocks.
fn berkey_records(c: &Value) -> Vec<Value> {
    let yi = c["yi"].as_array().unwrap();
    let term = &c["terms"][0];
    let mut rows: Vec<Value> = (0..yi.len())
        .map(|i| json!({"id": format!("r{}", i + 1), "yi": yi[i], "trial": term["outer"][i], "outcome": term["inner"][i]}))
        .collect();
    for b in c["blocks"].as_array().unwrap() {
        let r: Vec<usize> = b["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect();
        let n = r.len();
        for (a, &row) in r.iter().enumerate() {
            let m = &b["matrix"];
            rows[row]["vi"] = m[a * n + a].clone();
            rows[row]["v1i"] = m[a * n].clone();
            rows[row]["v2i"] = m[a * n + 1].clone();
        }
    }
    rows
}

fn close(what: &str, ours: f64, theirs: f64) {
    assert!(
        (ours - theirs).abs() <= 1e-10 * theirs.abs().max(1.0),
        "{what}: {ours} vs metafor {theirs}"
    );
}

#[test]
fn berkey_structures_through_the_tool_agree_with_metafor() {
    let all = fixture();
    for s in ["UN", "CS", "HCS", "DIAG", "ID"] {
        let c = case(&all, &format!("berkey1998 {s} REML"));
        let r = call(
            "fit_multilevel",
            &json!({"records": berkey_records(c), "random": "~ outcome | trial", "struct": s,
                    "V": {"cluster": "trial", "columns": ["v1i", "v2i"]}, "mods": "~ outcome - 1"}),
        )
        .unwrap_or_else(|e| panic!("{s}: {e:?}"));
        let at = &c["at_ours"];
        for (i, coef) in r["coefficients"].as_array().unwrap().iter().enumerate() {
            close(
                &format!("{s} beta"),
                coef["estimate"].as_f64().unwrap(),
                at["beta"][i].as_f64().unwrap(),
            );
            close(
                &format!("{s} se"),
                coef["se"].as_f64().unwrap(),
                at["se"][i].as_f64().unwrap(),
            );
        }
        close(
            &format!("{s} QE"),
            r["qe"].as_f64().unwrap(),
            at["QE"].as_f64().unwrap(),
        );
        close(
            &format!("{s} loglik"),
            r["loglik"].as_f64().unwrap(),
            at["loglik"].as_f64().unwrap(),
        );
        assert_eq!(r["structure"][0], format!("~ outcome | trial, {s}: 2 x 2"));
    }
}

#[test]
fn the_study_short_form_is_the_three_level_model() {
    let all = fixture();
    let c = case(&all, "konstantopoulos2011 district/school REML");
    let yi = c["yi"].as_array().unwrap();
    let records: Vec<Value> = (0..yi.len())
        .map(|i| json!({"id": c["intercepts"][1]["levels"][i], "yi": yi[i], "vi": c["vi"][i], "district": c["intercepts"][0]["levels"][i]}))
        .collect();
    let old = call(
        "fit_multilevel",
        &json!({"records": records, "study": "district"}),
    )
    .unwrap();
    let new = call(
        "fit_multilevel",
        &json!({"records": records, "random": "~ 1 | district/id"}),
    )
    .unwrap();
    let at = &c["at_ours"];
    close(
        "loglik",
        new["loglik"].as_f64().unwrap(),
        at["loglik"].as_f64().unwrap(),
    );
    close(
        "se",
        new["coefficients"][0]["se"].as_f64().unwrap(),
        at["se"][0].as_f64().unwrap(),
    );
    for i in 0..2 {
        let (a, b) = (
            old["sigma2"][i].as_f64().unwrap(),
            new["sigma2"][i].as_f64().unwrap(),
        );
        assert!(
            (a - b).abs() < 1e-9 * a,
            "sigma2 {i}: three-level {a}, general {b}"
        );
    }
}

/// `btt` picks the coefficients QM tests: one coefficient's QM is its z squared, and both
/// together are the default for a model without an intercept.
#[test]
fn btt_selects_the_coefficients_of_qm() {
    let all = fixture();
    let c = case(&all, "berkey1998 UN REML");
    let args = |btt: Value| {
        let mut a = json!({"records": berkey_records(c), "random": "~ outcome | trial", "struct": "UN",
                           "V": {"cluster": "trial", "columns": ["v1i", "v2i"]}, "mods": "~ outcome - 1"});
        if !btt.is_null() {
            a["btt"] = btt;
        }
        a
    };
    let one = call("fit_multilevel", &args(json!([2]))).unwrap();
    let z = one["coefficients"][1]["statistic"].as_f64().unwrap();
    assert_eq!(one["qm_df"], 1);
    assert!((one["qm"].as_f64().unwrap() - z * z).abs() < 1e-10 * z * z);
    let named = call("fit_multilevel", &args(json!("outcomePD"))).unwrap();
    assert_eq!(named["qm"], one["qm"]);
    let both = call("fit_multilevel", &args(Value::Null)).unwrap();
    assert_eq!(both["qm_df"], 2);
    assert!(call("fit_multilevel", &args(json!([3]))).is_err());
}

/// The tool reports each component's profile-likelihood interval: on dat.berkey1998 UN,
/// metafor's confint(control = list(tol = 1e-10)) bounds (from the engine's fixture).
#[test]
fn the_tool_reports_profile_intervals() {
    let all = fixture();
    let c = case(&all, "berkey1998 UN REML");
    let r = call(
        "fit_multilevel",
        &json!({"records": berkey_records(c), "random": "~ outcome | trial", "struct": "UN",
                "V": {"cluster": "trial", "columns": ["v1i", "v2i"]}, "mods": "~ outcome - 1"}),
    )
    .unwrap();
    let ci = c["metafor_confint"].as_array().unwrap();
    let names: Vec<&str> = r["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["tau2.1", "tau2.2", "rho"]);
    for (i, bounds) in ci.iter().enumerate() {
        for (j, key) in ["ci_lower", "ci_upper"].iter().enumerate() {
            let (a, b) = (
                r["intervals"][i][key].as_f64().unwrap(),
                bounds[j].as_f64().unwrap(),
            );
            assert!(
                (a - b).abs() <= 1e-7 * b.abs().max(1e-2),
                "{} {key}: {a} vs metafor {b}",
                names[i]
            );
        }
    }
}
