//! Issue 44 item 6: `influence_diagnostics` on general rma.mv models gives metafor 3.8-1's
//! cooks.distance(), dfbetas(), rstudent(), hatvalues() and weights() of the rma.mv fit, per
//! record and per cluster (`cluster`), on the oracle's fixture
//! (crates/meta-analysis/tests/oracle/influence_rma_mv.R).
#![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]

use exemplar::tools::call;
use serde_json::{json, Value};

fn fixture(name: &str) -> Value {
    let all: Value = serde_json::from_str(include_str!("fixtures/influence_rma_mv.json")).unwrap();
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

/// metafor's own diagnostics (at its default control) in the shape of `at_ours`.
fn metafors_own(case: &Value) -> Value {
    let r = &case["rstudent"];
    json!({
        "hat": case["hat"], "weights": case["weights"],
        "records": {"cook_d": case["cook_d"], "dfbetas": case["dfbetas"],
                    "resid": r["resid"], "se": r["se"], "z": r["z"]},
        "cluster": case["cluster"],
    })
}

/// Every diagnostic of `per_cluster` (a call with `cluster`) and `per_record` (without)
/// against `want` (metafor's, in `at_ours`' shape), within `tol`.
fn check(per_record: &Value, per_cluster: &Value, want: &Value, tol: f64) {
    let col =
        |rows: &[Value], key: &str| -> Vec<Value> { rows.iter().map(|r| r[key].clone()).collect() };
    let rows = per_record["general"]["records"].as_array().unwrap();
    let w = &want["records"];
    for (key, theirs) in [
        ("hat", &want["hat"]),
        ("weight", &want["weights"]),
        ("cook_d", &w["cook_d"]),
        ("resid", &w["resid"]),
        ("se", &w["se"]),
        ("z", &w["z"]),
    ] {
        close_all(&col(rows, key).iter().collect::<Vec<_>>(), theirs, tol, key);
    }
    for (r, d) in rows.iter().zip(w["dfbetas"].as_array().unwrap()) {
        let got: Vec<&Value> = r["dfbetas"].as_array().unwrap().iter().collect();
        close_all(&got, d, tol, "dfbetas");
    }
    // Per cluster: metafor orders them by their label; the tool by their first record.
    let c = &want["cluster"];
    let clusters = per_cluster["general"]["clusters"].as_array().unwrap();
    for (i, level) in c["levels"].as_array().unwrap().iter().enumerate() {
        let row = clusters.iter().find(|r| r["cluster"] == *level).unwrap();
        close(&row["cook_d"], &c["cook_d"][i], tol, "cluster cook_d");
        close(&row["x2"], &c["x2"][i], tol, "cluster X2");
        assert_eq!(row["k"].as_f64(), c["k"][i].as_f64());
        let got: Vec<&Value> = row["dfbetas"].as_array().unwrap().iter().collect();
        close_all(&got, &c["dfbetas"][i], tol, "cluster dfbetas");
    }
    let rows = per_cluster["general"]["records"].as_array().unwrap();
    for key in ["resid", "se", "z"] {
        close_all(
            &col(rows, key).iter().collect::<Vec<_>>(),
            &c[key],
            tol,
            key,
        );
    }
    assert!(rows.iter().all(|r| r["cook_d"].is_null()));
}

/// Ours within 1e-8 of metafor's functions at the engine's components, and within 1e-4
/// (relative) of metafor's own fits, which stop short of the optimum (their Cook's
/// distances differ by 2.4e-6 relative on dat.konstantopoulos2011, 1.6e-5 on
/// dat.berkey1998).
fn check_both(per_record: &Value, per_cluster: &Value, case: &Value) {
    check(per_record, per_cluster, &case["at_ours"], 1e-8);
    check(per_record, per_cluster, &metafors_own(case), 1e-4);
}

/// The engine's components for the oracle's second check (`at_ours`): the full fit's (as
/// fit_multilevel gives them) and each deletion's, written to $WRITE_INFLUENCE_RMA_MV when
/// set (the file holds every case: each test adds its own).
fn write_ours(case: &str, args: &Value, per_record: &Value, per_cluster: &Value) {
    let Ok(path) = std::env::var("WRITE_INFLUENCE_RMA_MV") else {
        return;
    };
    let mut fit_args = args.clone();
    for key in ["general", "cluster"] {
        fit_args.as_object_mut().unwrap().remove(key);
    }
    for (k, v) in args["general"].as_object().unwrap() {
        fit_args[k] = v.clone();
    }
    let fit = call("fit_multilevel", &fit_args).unwrap();
    let del = |r: &Value| json!({"sigma2_del": r["sigma2_del"], "tau2_del": r["tau2_del"], "rho_del": r["rho_del"]});
    let ours = json!({
        "full": {"sigma2": fit["sigma2"], "tau2": fit["tau2"], "rho": fit["rho"]},
        "records": per_record["general"]["records"].as_array().unwrap().iter().map(del).collect::<Vec<_>>(),
        "clusters": per_cluster["general"]["clusters"].as_array().unwrap().iter()
            .map(|r| (r["cluster"].as_str().unwrap().to_string(), del(r)))
            .collect::<serde_json::Map<_, _>>(),
    });
    let _lock = WRITING.lock().unwrap();
    let mut all: Value = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}));
    all[case] = ours;
    std::fs::write(&path, serde_json::to_string_pretty(&all).unwrap()).unwrap();
}

static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
    write_ours("konstantopoulos2011", &args, &per_record, &per_district);
    check_both(&per_record, &per_district, &want);
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
    write_ours("berkey1998", &args, &per_record, &per_trial);
    check_both(&per_record, &per_trial, &want);
}

/// `mods` and `cluster` belong to a general model; `general` takes fit_multilevel's model
/// arguments only.
#[cfg(feature = "extended")]
#[test]
fn the_general_arguments_are_refused_where_they_do_not_apply() {
    let records = fixture("konstantopoulos2011")["records"].clone();
    for (args, named) in [
        (json!({"cluster": "district"}), "general"),
        (json!({"mods": "~ year"}), "general"),
        (
            json!({"general": {"random": "~ 1 | district", "cluster": "x"}}),
            "general takes",
        ),
    ] {
        let mut args = args;
        args["records"] = records.clone();
        let e = call("influence_diagnostics", &args).unwrap_err();
        assert!(e.message.contains(named), "{args}: {e}");
    }
}
