//! Issue 31 against metafor: each case of `fixtures/your_data_tools.json` (written by
//! `crates/meta-analysis/tests/oracle/your_data_tools.R`) is a tool call on dat.bcg's risk
//! ratios as a client sends it (formulas, a list of terms, numbers as text, btt by position
//! and name, no intercept, I(), a blank moderator, subset, FE and EE) and the numbers metafor
//! 3.8-1 gives for the same analysis; the call must agree at 1e-8 (relative to the value's
//! size, at least 1) and name every coefficient as metafor does ("intrcpt" is `intercept`).

use exemplar::tools::call;
use serde_json::Value;

const TOLERANCE: f64 = 1e-8;

fn fixture() -> Value {
    let text = include_str!("fixtures/your_data_tools.json");
    serde_json::from_str(text).expect("the fixture is JSON")
}

fn close(case: &str, what: &str, got: &Value, want: &Value) {
    match (got, want) {
        (Value::Number(g), Value::Number(w)) => {
            let (g, w) = (g.as_f64().unwrap(), w.as_f64().unwrap());
            assert!(
                (g - w).abs() <= TOLERANCE * w.abs().max(1.0),
                "{case}: {what} = {g}, metafor {w}"
            );
        }
        (Value::Array(g), Value::Array(w)) => {
            assert_eq!(
                g.len(),
                w.len(),
                "{case}: {what} has {} items, metafor {}",
                g.len(),
                w.len()
            );
            for (i, (g, w)) in g.iter().zip(w).enumerate() {
                close(case, &format!("{what}[{i}]"), g, w);
            }
        }
        (Value::Object(_), Value::Object(w)) => {
            for (key, w) in w {
                let w = match (key.as_str(), w) {
                    ("name", Value::String(n)) if n == "intrcpt" => &Value::from("intercept"),
                    _ => w,
                };
                close(case, &format!("{what}.{key}"), &got[key], w);
            }
        }
        _ => assert_eq!(got, want, "{case}: {what}"),
    }
}

#[test]
fn every_case_agrees_with_metafor() {
    let fixture = fixture();
    let cases = fixture["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 13);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let tool = case["tool"].as_str().unwrap();
        let result = call(tool, &case["args"]).unwrap_or_else(|e| panic!("{name}: {e}"));
        close(name, "result", &result, &case["expect"]);
    }
}

#[test]
fn a_subset_is_named_in_the_result_and_a_bad_one_is_refused() {
    let fixture = fixture();
    let case = fixture["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "subset_equals")
        .unwrap();
    let result = call("fit_random_effects", &case["args"]).unwrap();
    assert_eq!(
        result["dataset"]["subset"],
        "alloc = \"random\": 7 of 13 records"
    );
    let mut args = case["args"].clone();
    args["subset"] = serde_json::json!({"column": "alloc", "equals": "nothing"});
    let none = call("fit_random_effects", &args).unwrap_err();
    assert!(
        none.message
            .contains("subset keeps no record: no value of alloc is = \"nothing\""),
        "{}",
        none.message
    );
    args["subset"] = serde_json::json!({"column": "colour", "in": ["red"]});
    let unknown = call("fit_random_effects", &args).unwrap_err();
    assert!(
        unknown
            .message
            .contains("subset: there is no column \"colour\""),
        "{}",
        unknown.message
    );
    args["subset"] = serde_json::json!({"column": "alloc"});
    let incomplete = call("fit_random_effects", &args).unwrap_err();
    assert!(
        incomplete.message.contains("needs in or equals"),
        "{}",
        incomplete.message
    );
}

#[test]
fn slab_labels_the_forest_plot_rows_from_any_column() {
    let fixture = fixture();
    let records = fixture["cases"][0]["args"]["records"].clone();
    let plot = call(
        "forest_plot",
        &serde_json::json!({"records": records, "slab": "author"}),
    )
    .unwrap();
    let svg = plot["svg"].as_str().unwrap();
    assert!(
        svg.contains("Aronson"),
        "the first study's author labels its row"
    );
    let missing = call(
        "forest_plot",
        &serde_json::json!({"records": records, "slab": "surname"}),
    )
    .unwrap_err();
    assert!(
        missing
            .message
            .contains("slab: there is no column \"surname\""),
        "{}",
        missing.message
    );
}

#[test]
fn fit_multilevel_reports_the_natural_scale_as_the_other_fits() {
    let fixture = fixture();
    let records: Vec<Value> = fixture["cases"][0]["args"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r["study"] = r["alloc"].clone();
            r
        })
        .collect();
    let fit = call(
        "fit_multilevel",
        &serde_json::json!({"records": records, "measure": "RR"}),
    )
    .unwrap();
    assert_eq!(fit["measure"], "RR");
    assert_eq!(fit["transform"], "exp");
    for (natural, model) in [
        ("estimate", "estimate"),
        ("ci_lower", "ci_lower"),
        ("pi_upper", "pi_upper"),
    ] {
        let want = fit[model].as_f64().unwrap().exp();
        let got = fit["natural"][natural].as_f64().unwrap();
        assert!(
            (got - want).abs() <= 1e-15 * want,
            "{natural}: {got} vs {want}"
        );
    }
    let with_mods = call(
        "fit_multilevel",
        &serde_json::json!({"records": records, "measure": "RR", "mods": "~ ablat"}),
    )
    .unwrap();
    assert_eq!(with_mods["natural"], Value::Null);
    assert_eq!(with_mods["formula"], "~ ablat");
}

#[test]
fn a_record_without_a_weight_is_left_out_of_a_weighted_fit() {
    let records: Value = serde_json::json!([
        {"id": "a", "yi": 0.30, "vi": 0.04, "n": 40},
        {"id": "b", "yi": 0.12, "vi": 0.02, "n": "NA"},
        {"id": "c", "yi": 0.45, "vi": 0.05, "n": 25},
        {"id": "d", "yi": 0.05, "vi": 0.03, "n": 60}
    ]);
    let fit = call(
        "fit_random_effects",
        &serde_json::json!({"records": records, "weights": "n"}),
    )
    .unwrap();
    assert_eq!(fit["k"], 3);
    assert_eq!(
        fit["omitted"],
        serde_json::json!([{"id": "b", "reason": "n is NA"}])
    );
    let without: Vec<Value> = records
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["id"] != "b")
        .cloned()
        .collect();
    let by_hand = call(
        "fit_random_effects",
        &serde_json::json!({"records": without, "weights": "n"}),
    )
    .unwrap();
    assert_eq!(fit["estimate"], by_hand["estimate"]);
    assert_eq!(
        by_hand.get("omitted"),
        None,
        "no omitted field when none is left out"
    );
}
