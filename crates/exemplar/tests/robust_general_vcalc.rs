//! The CHE-then-CR2 workflow through `robust_test` (issue 44): V built by `vcalc` inside
//! `general` (vcalc(vi, cluster = study, obs = esid, rho = 0.6) on dat.assink2016), the
//! model rma.mv(~ 1 | study/esid, mods = ~ deltype), then clubSandwich 0.5.8's coef_test
//! (CR2, Satterthwaite df) and Wald_test (HTZ) of both deltype coefficients. The oracle is
//! `crates/meta-analysis/tests/fixtures/robust_rma_mv.json` (its generator beside it,
//! `oracle/robust_rma_mv.R`), whose sigma2 the call fixes, so both sides test one fit.
#![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]

use exemplar::tools::call;
use serde_json::{json, Value};

fn che_case() -> Value {
    let path = format!(
        "{}/../meta-analysis/tests/fixtures/robust_rma_mv.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    all["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().unwrap().starts_with("assink2016 CHE"))
        .unwrap()
        .clone()
}

/// dat.assink2016's records: deltype read back from the design's two dummy columns
/// (reference covert).
fn records(case: &Value) -> Vec<Value> {
    let yi = case["yi"].as_array().unwrap();
    let x = case["X"].as_array().unwrap();
    (0..yi.len())
        .map(|i| {
            let (general, overt) = (
                x[i * 3 + 1].as_f64().unwrap(),
                x[i * 3 + 2].as_f64().unwrap(),
            );
            let deltype = if general == 1.0 {
                "general"
            } else if overt == 1.0 {
                "overt"
            } else {
                "covert"
            };
            json!({"id": format!("r{i}"), "yi": yi[i], "vi": case["vi"][i],
                   "study": case["cluster"][i], "esid": case["esid"][i], "deltype": deltype})
        })
        .collect()
}

#[test]
#[cfg(feature = "extended")]
fn vcalc_in_general_gives_club_sandwichs_cr2_and_htz() {
    let case = che_case();
    let args = json!({
        "records": records(&case), "cluster": "study", "mods": "~ deltype", "btt": [2, 3],
        "general": {"random": "~ 1 | study/esid", "sigma2": case["sigma2"],
                    "vcalc": {"cluster": "study", "obs": "esid", "rho": 0.6}},
    });
    let r = call("robust_test", &args).unwrap();
    let close = |what: String, ours: &Value, theirs: &Value| {
        let (ours, theirs) = (ours.as_f64().unwrap(), theirs.as_f64().unwrap());
        let rel = (ours - theirs).abs() / theirs.abs().max(1.0);
        assert!(rel <= 1e-8, "{what}: ours {ours}, clubSandwich {theirs}");
    };
    for (j, c) in r["coefficients"].as_array().unwrap().iter().enumerate() {
        for (ours, theirs) in [
            ("estimate", "beta"),
            ("se", "se"),
            ("statistic", "t"),
            ("df", "df"),
            ("p", "p"),
        ] {
            close(format!("{ours} {j}"), &c[ours], &case[theirs][j]);
        }
    }
    let (m, htz) = (&r["moderators_test"], &case["htz"]);
    close("F".into(), &m["f"], &htz["f"]);
    close("df2".into(), &m["df2"], &htz["df_denom"]);
    close("p".into(), &m["p"], &htz["p"]);

    // Without vcalc V is diagonal: another model, other standard errors.
    let mut diagonal = args.clone();
    diagonal["general"].as_object_mut().unwrap().remove("vcalc");
    let d = call("robust_test", &diagonal).unwrap();
    let (a, b) = (&d["coefficients"][1]["se"], &case["se"][1]);
    assert!((a.as_f64().unwrap() - b.as_f64().unwrap()).abs() > 1e-6);
}

/// `general` takes V or vcalc, not both, as fit_multilevel.
#[test]
#[cfg(feature = "extended")]
fn general_refuses_v_with_vcalc() {
    let case = che_case();
    let args = json!({
        "records": records(&case), "cluster": "study",
        "general": {"random": "~ 1 | study/esid", "V": {"cluster": "study", "columns": ["vi"]},
                    "vcalc": {"cluster": "study", "obs": "esid", "rho": 0.6}},
    });
    let e = call("robust_test", &args).unwrap_err().to_string();
    assert!(e.contains("not both"), "{e}");
}
