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

/// `vcalc` builds V as metafor's vcalc() does, its rows following the records fitted (after
/// `exclude` and records without the moderator); metafor 3.8-1's fits of dat.assink2016
/// (`tests/fixtures/vcalc_multilevel.json`, from `oracle/vcalc_multilevel.R`).
#[test]
fn vcalc_through_the_tool_agrees_with_metafor() {
    let path = format!(
        "{}/tests/fixtures/vcalc_multilevel.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let vcalc = json!({"cluster": "study", "obs": "esid", "rho": 0.6});
    let base = json!({"records": all["records"], "random": "~ 1 | study/esid",
                      "vcalc": vcalc, "return_v": true});
    let mut subset = base.clone();
    subset["mods"] = json!(["year"]);
    subset["exclude"] = json!(["r001", "r010"]);
    for (name, args) in [("full", base), ("subset", subset)] {
        let r = call("fit_multilevel", &args).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let m = &all[name];
        if name == "subset" {
            assert_eq!(m["k"], 97, "two left out and one without year");
        }
        let near = |what: &str, ours: f64, theirs: f64, tol: f64| {
            assert!(
                (ours - theirs).abs() <= tol * theirs.abs().max(1.0),
                "{name} {what}: {ours} vs metafor {theirs}"
            )
        };
        for (i, c) in r["coefficients"].as_array().unwrap().iter().enumerate() {
            near(
                "beta",
                c["estimate"].as_f64().unwrap(),
                m["beta"][i].as_f64().unwrap(),
                1e-8,
            );
            near(
                "se",
                c["se"].as_f64().unwrap(),
                m["se"][i].as_f64().unwrap(),
                1e-8,
            );
        }
        for (i, s) in r["sigma2"].as_array().unwrap().iter().enumerate() {
            near(
                "sigma2",
                s.as_f64().unwrap(),
                m["sigma2"][i].as_f64().unwrap(),
                1e-8,
            );
        }
        let ll = r["loglik"].as_f64().unwrap();
        near("loglik", ll, m["loglik"].as_f64().unwrap(), 1e-8);
        assert!(
            ll >= m["loglik"].as_f64().unwrap() - 1e-10,
            "{name}: below metafor's optimum"
        );
        near(
            "QE",
            r["qe"].as_f64().unwrap(),
            m["qe"].as_f64().unwrap(),
            1e-8,
        );
        // The V used: study 1's block (records r001..r006; from r002 in the subset case).
        let v = &r["v"][0];
        assert_eq!(v["cluster"], "1", "{name}");
        let skip = usize::from(name == "subset");
        assert_eq!(v["ids"].as_array().unwrap().len(), 6 - skip, "{name}");
        assert_eq!(v["ids"][0], format!("r00{}", 1 + skip), "{name}");
        for a in 0..6 - skip {
            for b in 0..6 - skip {
                near(
                    "V",
                    v["v"][a][b].as_f64().unwrap(),
                    m["v_first_block"][(a + skip) * 6 + b + skip]
                        .as_f64()
                        .unwrap(),
                    1e-14,
                );
            }
        }
        assert_eq!(r["k"], m["k"].as_u64().unwrap_or(100), "{name}");
    }
}

#[test]
fn v_and_vcalc_together_are_refused_and_return_v_needs_one() {
    let records = json!([
        {"id": "a1", "yi": 0.1, "vi": 0.04, "study": "A", "es": 1},
        {"id": "a2", "yi": 0.2, "vi": 0.09, "study": "A", "es": 2},
        {"id": "b1", "yi": 0.3, "vi": 0.01, "study": "B", "es": 1}
    ]);
    let e = call(
        "fit_multilevel",
        &json!({"records": records, "V": {"cluster": "study", "columns": ["vi"]},
        "vcalc": {"cluster": "study", "obs": "es", "rho": 0.5}}),
    )
    .unwrap_err();
    assert!(format!("{e:?}").contains("not both"), "{e:?}");
    let e = call(
        "fit_multilevel",
        &json!({"records": records, "return_v": true}),
    )
    .unwrap_err();
    assert!(format!("{e:?}").contains("return_v"), "{e:?}");
}

/// With test t and no coefficient tested (an intercept-only model), QM has no df2 (null), not
/// the infinity of an empty minimum cast to an integer (once usize::MAX: 18446744073709551615
/// natively, 4294967295 on the page's 32-bit wasm).
#[test]
fn an_intercept_only_t_test_has_no_qm_df2() {
    let records: Vec<Value> = (0..8)
        .map(|i| {
            json!({"id": format!("r{i}"), "yi": 0.05 * i as f64 - 0.1, "vi": 0.02 + 0.005 * (i % 3) as f64,
                   "study": format!("s{}", i / 2), "x": (i % 4) as f64})
        })
        .collect();
    let r = call(
        "fit_multilevel",
        &json!({"records": records, "random": ["~ 1 | study", "~ 1 | x"], "sigma2": [null, 0.01], "test": "t"}),
    )
    .unwrap();
    assert_eq!(r["qm_df"], json!(0), "{r}");
    assert!(r["qm_df2"].is_null(), "{}", r["qm_df2"]);
    assert!(r["qm"].is_null() && r["qm_p"].is_null(), "{r}");
}
