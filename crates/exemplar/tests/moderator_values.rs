//! Issue 31 item 1: one reading of a moderator's values. Numbers that arrive as text (as CSV
//! rows give them) are numbers: meta_regression fits one slope, as metafor does on a CSV
//! column read by R, never dummy terms per value; non-numeric text is a factor; a column that
//! mixes numbers and non-numeric text is text, a factor, as R's read.csv reads it, and the
//! result says so (issue 42 item 4; it was an error before); a record with a blank value is
//! left out and listed, as metafor's na.omit (item 2).

use exemplar::tools::{call, ErrorCode};
use serde_json::{json, Value};

fn records(dose: impl Fn(usize) -> Value) -> Value {
    let yi = [0.1, 0.35, 0.2, 0.55, 0.4, 0.72, 0.61, 0.9];
    Value::Array(
        (0..yi.len())
            .map(|i| json!({"id": format!("r{i}"), "yi": yi[i], "vi": 0.02 + 0.005 * i as f64, "dose": dose(i)}))
            .collect(),
    )
}

#[test]
fn numeric_text_is_a_number_and_fits_one_slope() {
    let numbers = call(
        "meta_regression",
        &json!({"mods": ["dose"], "records": records(|i| json!(i * 2))}),
    )
    .unwrap();
    let text = call(
        "meta_regression",
        &json!({"mods": ["dose"], "records": records(|i| json!(format!(" {} ", i * 2)))}),
    )
    .unwrap();
    let names = |r: &Value| -> Vec<Value> {
        r["coefficients"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].clone())
            .collect()
    };
    assert_eq!(names(&text), [json!("intercept"), json!("dose")]);
    assert_eq!(text["coefficients"], numbers["coefficients"]);
    assert_eq!(text["tau2"], numbers["tau2"]);
}

#[test]
fn non_numeric_text_is_a_factor_and_so_is_a_mixture() {
    let groups = call(
        "meta_regression",
        &json!({"mods": ["dose"], "records": records(|i| json!(["low", "high"][i % 2]))}),
    )
    .unwrap();
    // metafor's name: the column and the level (levels in R's order, "high" the reference).
    assert_eq!(groups["coefficients"][1]["name"], "doselow");
    let mixed = call(
        "meta_regression",
        &json!({"mods": ["dose"], "records": records(|i| if i == 3 { json!("n/a") } else { json!(i % 2) })}),
    )
    .unwrap();
    // Every value a level: numbers written as R writes them, "0" the reference.
    let names: Vec<&str> = mixed["coefficients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["intercept", "dose1", "dosen/a"]);
    assert_eq!(
        mixed["dataset"]["notes"],
        json!([
            "the column dose was read as text (categorical), as R's read.csv reads it: its \
                value \"n/a\" (record \"r3\") is not a number"
        ])
    );
}

#[test]
fn a_blank_value_leaves_its_record_out_and_says_so() {
    let blank = call(
        "meta_regression",
        &json!({"mods": ["dose"], "records": records(|i| if i == 5 { json!("") } else { json!(i) })}),
    )
    .unwrap();
    assert_eq!(blank["k"], 7);
    assert_eq!(
        blank["omitted"],
        json!([{"id": "r5", "reason": "dose is blank"}])
    );
    // The same fit as leaving the record out by hand.
    let by_hand = call(
        "meta_regression",
        &json!({"mods": ["dose"], "records": records(|i| json!(i)), "exclude": ["r5"]}),
    )
    .unwrap();
    assert_eq!(blank["coefficients"], by_hand["coefficients"]);
    assert_eq!(by_hand["omitted"], json!([]));
    // Nothing left is an error naming the reasons.
    let none = call(
        "meta_regression",
        &json!({"mods": ["dose"], "records": records(|_| json!("NA"))}),
    )
    .unwrap_err();
    assert_eq!(none.code, ErrorCode::InvalidRecords);
    assert!(none.message.contains("r0: dose is NA"), "{}", none.message);
}

#[test]
fn a_formula_and_the_list_of_its_terms_fit_the_same_model() {
    let rows = records(|i| json!(i));
    let formula = call(
        "meta_regression",
        &json!({"mods": "~ dose + I(dose^2)", "records": rows}),
    )
    .unwrap();
    let list = call(
        "meta_regression",
        &json!({"mods": ["dose", "I(dose^2)"], "records": rows}),
    )
    .unwrap();
    assert_eq!(formula["coefficients"], list["coefficients"]);
    assert_eq!(formula["formula"], "~ dose + I(dose^2)");
    assert_eq!(formula["coefficients"][2]["name"], "I(dose^2)");
    // factor() makes a coded column categorical: one coefficient per level but the first.
    let coded = call(
        "meta_regression",
        &json!({"mods": "~ factor(g)", "records": records(|i| json!(i % 3 + 1)).as_array().unwrap().iter().map(|r| { let mut r = r.clone(); r["g"] = r["dose"].clone(); r }).collect::<Vec<_>>()}),
    )
    .unwrap();
    let names: Vec<&str> = coded["coefficients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["intercept", "factor(g)2", "factor(g)3"]);
    // btt by name tests those coefficients; by position the same.
    let by_name = call(
        "meta_regression",
        &json!({"mods": "~ dose + I(dose^2)", "records": rows, "btt": "I(dose^2)"}),
    )
    .unwrap();
    let by_position = call(
        "meta_regression",
        &json!({"mods": "~ dose + I(dose^2)", "records": rows, "btt": [3]}),
    )
    .unwrap();
    assert_eq!(by_name["qm"], by_position["qm"]);
    assert_eq!(by_name["btt"], json!([3]));
    assert_eq!(by_name["qm_df"], 1);
    // QM of one coefficient is its z^2.
    let z = formula["coefficients"][2]["statistic"].as_f64().unwrap();
    let qm = by_name["qm"].as_f64().unwrap();
    assert!((qm - z * z).abs() < 1e-9 * qm, "{qm} vs {}", z * z);
}

/// Issue 41 item 5: the levels of a numeric column are its values as R prints them (15
/// significant digits), one rule everywhere: doses 0.3 and 0.1 + 0.2 are one level in
/// factor() (metafor's QM, fixture `formulas.json` from `tests/oracle/formulas.R`), one
/// subgroup, and one study of a three-level model.
#[test]
fn numbers_that_print_alike_are_one_level_in_every_tool() {
    let fixture: Value = serde_json::from_str(include_str!(
        "../../meta-analysis/tests/fixtures/formulas.json"
    ))
    .unwrap();
    let ds = fixture["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "doses")
        .unwrap();
    let metafor = fixture["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["data"] == "doses" && m["test"] == "z")
        .unwrap();
    let dose = ds["columns"]["dose"].as_array().unwrap();
    assert!(dose.contains(&json!(0.3)) && dose.contains(&json!(0.1 + 0.2)));
    let rows: Vec<Value> = (0..dose.len())
        .map(|i| {
            json!({"id": ds["ids"][i], "yi": ds["yi"][i], "vi": ds["vi"][i], "dose": dose[i],
                   "study": dose[i]})
        })
        .collect();
    let fit = call(
        "meta_regression",
        &json!({"mods": "~ factor(dose)", "records": rows}),
    )
    .unwrap();
    let names: Vec<&str> = fit["coefficients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["intercept", "factor(dose)0.3", "factor(dose)0.5"]);
    let (qm, r_qm) = (fit["qm"].as_f64().unwrap(), metafor["qm"].as_f64().unwrap());
    assert!((qm - r_qm).abs() <= 1e-9 * r_qm, "QM {qm}, metafor {r_qm}");

    let groups = call("subgroup_analysis", &json!({"by": "dose", "records": rows})).unwrap();
    let levels: Vec<(&str, u64)> = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["level"].as_str().unwrap(), g["k"].as_u64().unwrap()))
        .collect();
    assert_eq!(levels, [("0.1", 3), ("0.3", 6), ("0.5", 3)]);

    let multilevel = call(
        "fit_multilevel",
        &json!({"study": "study", "records": rows}),
    )
    .unwrap();
    assert_eq!(multilevel["n_studies"], 3);
}
