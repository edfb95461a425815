//! Issue 42 item 4: a column mixing numbers and text (dat.debruin2009's `sens`: "<400" and
//! "400") is read as text, as R's read.csv reads it, and fits as a factor in `mods` and as
//! `by`, with a note naming the column and the value that is no number. The records are
//! given as an MCP client gives them (400 as a number beside "<400"), and all as text (what
//! a CSV reader hands over); `fixtures/mixed_columns.json` is metafor 3.8-1's answer
//! (written by `crates/meta-analysis/tests/oracle/mixed_columns.R`), compared at 1e-8.
//! The CLI reads the same CSV in crates/exemplar-cli/tests/mixed_columns.rs.

use exemplar::tools::{self, call, DataStore};
use serde_json::{json, Value};

const TOLERANCE: f64 = 1e-8;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/mixed_columns.json")).expect("JSON")
}

fn close(what: &str, got: &Value, want: &Value) {
    let (g, w) = (got.as_f64().unwrap(), want.as_f64().unwrap());
    assert!(
        (g - w).abs() <= TOLERANCE * w.abs().max(1.0),
        "{what} = {g}, metafor {w}"
    );
}

/// The records with every value of `sens` as text.
fn as_text(records: &Value) -> Value {
    let mut records = records.clone();
    for r in records.as_array_mut().unwrap() {
        if let Some(n) = r["sens"].as_f64() {
            r["sens"] = json!(n.to_string());
        }
    }
    records
}

fn check_regression(result: &Value, want: &Value) {
    assert_eq!(result["k"], want["k"]);
    let names: Vec<&str> = result["coefficients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(json!(names), want["coefficient_names"]);
    for (ours, theirs) in result["coefficients"]
        .as_array()
        .unwrap()
        .iter()
        .zip(want["coefficients"].as_array().unwrap())
    {
        for key in ["estimate", "se", "statistic", "p", "ci_lower", "ci_upper"] {
            close(key, &ours[key], &theirs[key]);
        }
    }
    for key in ["tau2", "qm", "qm_p", "qe", "i2"] {
        close(key, &result[key], &want[key]);
    }
}

fn check_subgroups(result: &Value, want: &Value) {
    let groups = result["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    for theirs in want["groups"].as_array().unwrap() {
        let ours = groups
            .iter()
            .find(|g| g["level"] == theirs["level"])
            .unwrap_or_else(|| panic!("no level {}", theirs["level"]));
        assert_eq!(ours["k"], theirs["k"]);
        for key in ["estimate", "se", "ci_lower", "ci_upper", "tau2", "q"] {
            close(key, &ours[key], &theirs[key]);
        }
    }
    for key in [
        "q_between",
        "q_between_p",
        "qm_common_tau2",
        "qm_common_tau2_p",
    ] {
        close(key, &result[key], &want[key]);
    }
}

/// The note every result of a call reading `sens` carries.
fn check_note(result: &Value) {
    let notes = result["dataset"]["notes"]
        .as_array()
        .expect("dataset.notes");
    assert_eq!(notes.len(), 1, "{notes:?}");
    let note = notes[0].as_str().unwrap();
    assert!(
        note.starts_with("the column sens was read as text (categorical)")
            && note.contains("\"<400\"")
            && note.contains("is not a number"),
        "{note}"
    );
}

#[test]
fn a_column_mixing_numbers_and_text_is_a_factor_as_in_metafor() {
    let fixture = fixture();
    let mixed = &fixture["records_mixed"];
    for records in [mixed.clone(), as_text(mixed)] {
        for mods in [json!("~ sens"), json!("~ factor(sens)"), json!(["sens"])] {
            let result = call(
                "meta_regression",
                &json!({"mods": mods, "records": records}),
            )
            .unwrap_or_else(|e| panic!("~ sens: {e}"));
            let mut want = fixture["meta_regression"].clone();
            if mods == json!("~ factor(sens)") {
                want["coefficient_names"] = json!(["intercept", "factor(sens)400"]);
            }
            check_regression(&result, &want);
            check_note(&result);
        }
        let result = call(
            "subgroup_analysis",
            &json!({"by": "sens", "records": records}),
        )
        .unwrap_or_else(|e| panic!("by sens: {e}"));
        check_subgroups(&result, &fixture["subgroup_analysis"]);
        check_note(&result);
        // A column that is all text, or all numbers, carries no note.
        let plain = call(
            "subgroup_analysis",
            &json!({"by": "ni", "records": records, "exclude": ["1", "2"]}),
        );
        if let Ok(plain) = plain {
            assert!(plain["dataset"].get("notes").is_none(), "{plain}");
        }
    }
}

/// A handle of load_data reads the column as the records do: the same factor, the same note.
#[test]
fn a_handle_reads_the_mixed_column_as_text() {
    let fixture = fixture();
    let mut store = DataStore::new();
    let loaded = tools::call_in(
        "load_data",
        &json!({"records": fixture["records_mixed"]}),
        &mut store,
    )
    .unwrap();
    let args = json!({"data_id": loaded["data_id"], "mods": "~ sens"});
    let result = tools::call_in("meta_regression", &args, &mut store).unwrap();
    check_regression(&result, &fixture["meta_regression"]);
    check_note(&result);
    // The printed summary says it too.
    let printed = exemplar::tools::summary("meta_regression", &result).unwrap_or_default();
    assert!(
        printed.contains("Note: the column sens was read as text (categorical)"),
        "{printed}"
    );
    let args = json!({"data_id": loaded["data_id"], "by": "sens"});
    let result = tools::call_in("subgroup_analysis", &args, &mut store).unwrap();
    check_subgroups(&result, &fixture["subgroup_analysis"]);
    check_note(&result);
}
