//! Issue 31 item 1: one reading of a moderator's values. Numbers that arrive as text (as CSV
//! rows give them) are numbers: meta_regression fits one slope, as metafor does on a CSV
//! column read by R, never dummy terms per value; non-numeric text is a factor; a column that
//! mixes numbers and non-numeric text, or a blank value, is an error that says what was read.

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
fn non_numeric_text_is_a_factor_and_mixtures_and_blanks_are_errors() {
    let groups = call(
        "meta_regression",
        &json!({"mods": ["dose"], "records": records(|i| json!(["low", "high"][i % 2]))}),
    )
    .unwrap();
    assert_eq!(groups["coefficients"][1]["name"], "dose:low");
    let mixed = call(
        "meta_regression",
        &json!({"mods": ["dose"], "records": records(|i| if i == 3 { json!("n/a") } else { json!(i) })}),
    )
    .unwrap_err();
    assert_eq!(mixed.code, ErrorCode::InvalidRecords);
    assert!(
        mixed
            .message
            .contains("holds the number 0 in record \"r0\" but the text \"n/a\" in record \"r3\""),
        "{}",
        mixed.message
    );
    let blank = call(
        "meta_regression",
        &json!({"mods": ["dose"], "records": records(|i| if i == 5 { json!("") } else { json!(i) })}),
    )
    .unwrap_err();
    assert!(
        blank.message.contains("record \"r5\": dose is blank"),
        "{}",
        blank.message
    );
}
