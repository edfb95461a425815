//! Issue 42 item 5: an interaction with an empty cell (`~ type * struct` on
//! dat.mcdaniel1994, no record has type "s" with struct "u") is fitted by the tools as
//! metafor's rma() fits it: the aliased coefficient dropped and named in the result
//! (`dropped`) and in the printed summary (metafor's "Redundant predictors dropped from the
//! model."), every number of the rest as metafor 3.8-1 gives it (the fixture
//! `crates/meta-analysis/tests/fixtures/aliased.json`, made by
//! `crates/meta-analysis/tests/oracle/aliased.R`).

use exemplar::tools::call;
use exemplar::tools::summary;
use serde_json::{json, Value};

const TOLERANCE: f64 = 1e-8;

fn fixture() -> Value {
    let text = include_str!("../../meta-analysis/tests/fixtures/aliased.json");
    serde_json::from_str(text).expect("the fixture is JSON")
}

/// The dataset's records as a client sends them, each with its moderator columns.
fn records(all: &Value, name: &str) -> Value {
    let ds = all["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name)
        .unwrap();
    let k = ds["ids"].as_array().unwrap().len();
    let rows: Vec<Value> = (0..k)
        .map(|i| {
            let mut row = json!({"id": ds["ids"][i], "yi": ds["yi"][i], "vi": ds["vi"][i]});
            for (column, values) in ds["columns"].as_object().unwrap() {
                row[column] = values[i].clone();
            }
            row
        })
        .collect();
    Value::from(rows)
}

fn close(what: &str, got: &Value, want: &Value) {
    let (g, w) = (got.as_f64().unwrap(), want.as_f64().unwrap());
    assert!(
        (g - w).abs() <= TOLERANCE * w.abs().max(1.0),
        "{what} = {g}, metafor {w}"
    );
}

#[test]
fn meta_regression_drops_and_names_the_aliased_coefficient() {
    let all = fixture();
    for model in all["models"].as_array().unwrap() {
        let case = format!(
            "{} {} {} {}",
            model["data"], model["formula"], model["method"], model["test"]
        );
        let args = json!({
            "records": records(&all, model["data"].as_str().unwrap()),
            "mods": model["formula"],
            "method": model["method"],
            "test": model["test"],
        });
        let result = call("meta_regression", &args).unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(result["dropped"], model["dropped"], "{case}");
        assert_eq!(result["k"], model["k"], "{case}");
        let coefficients = result["coefficients"].as_array().unwrap();
        assert_eq!(coefficients.len(), model["names"].as_array().unwrap().len());
        for (j, c) in coefficients.iter().enumerate() {
            assert_eq!(c["name"], model["names"][j], "{case}");
            close(&format!("{case} b[{j}]"), &c["estimate"], &model["beta"][j]);
            close(&format!("{case} se[{j}]"), &c["se"], &model["se"][j]);
        }
        for (ours, theirs) in [
            ("tau2", "tau2"),
            ("qm", "qm"),
            ("qm_p", "qm_p"),
            ("qe", "qe"),
        ] {
            close(&format!("{case} {ours}"), &result[ours], &model[theirs]);
        }
        let printed = summary("meta_regression", &result).unwrap();
        let dropped = model["dropped"][0].as_str().unwrap();
        assert!(
            printed.lines().any(
                |l| l.starts_with("Redundant predictors dropped from the model")
                    && l.ends_with(dropped)
            ),
            "{case}:\n{printed}"
        );
    }
}

/// The other tools that take `mods` fit the same design and list the same dropped column;
/// a design of full rank lists none (the field is absent).
#[test]
fn fit_multilevel_and_robust_test_list_the_dropped_coefficient() {
    let all = fixture();
    // Clusters of three consecutive records (a constructed grouping: the studies are one
    // record each).
    let mut records = records(&all, "mcdaniel");
    for (i, row) in records.as_array_mut().unwrap().iter_mut().enumerate() {
        row["group"] = json!(format!("g{}", i / 3));
    }
    for (tool, extra) in [
        ("fit_multilevel", json!({"study": "group"})),
        (
            "robust_test",
            json!({"cluster": "group", "model": "regression"}),
        ),
    ] {
        let mut args = json!({"records": records, "mods": "~ type * struct"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let result = call(tool, &args).unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert_eq!(result["dropped"], json!(["types:structu"]), "{tool}");
        let printed = summary(tool, &result).unwrap();
        assert!(
            printed.contains("Redundant predictors dropped from the model"),
            "{tool}:\n{printed}"
        );
        let names: Vec<&str> = result["coefficients"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert!(!names.contains(&"types:structu"), "{tool}: {names:?}");
    }
    let full = call(
        "meta_regression",
        &json!({"records": records, "mods": "~ type + struct"}),
    )
    .unwrap();
    assert!(full.get("dropped").is_none(), "{full}");
}
