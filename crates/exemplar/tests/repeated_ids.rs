//! Issue 42 items 1 and 6, against `fixtures/repeated_ids.json` (written by
//! `crates/meta-analysis/tests/oracle/repeated_ids.R` with metafor 3.8-1).
//!
//! Item 1: dat.yusuf1985's ids restart in each outcome table (25 ids repeat). Every row of
//! raw data is kept, as R keeps it: the n-th row with an id becomes id#n, `notes` says so,
//! only the rows escalc gives NA are in `omitted`, and each table's fit (`subset`) is
//! metafor's `rma(yi, vi, subset = table == t)`, through compute_effect_sizes and load_data.
//!
//! Item 6: rows for which escalc returns vi = 0 (a proportion of 0 or 1 with to = "none",
//! SDs of 0, r = 1, alpha = 1) give escalc's record, with a note naming the row; a fit on
//! them is refused naming the row.

use exemplar::tools::{self, DataStore};
use serde_json::{json, Value};

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/repeated_ids.json")).expect("the fixture is JSON")
}

fn close(what: &str, got: f64, want: &Value) {
    let w = want
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: metafor has no value"));
    assert!(
        (got - w).abs() <= 1e-8 * w.abs().max(1.0),
        "{what}: {got}, metafor {w}"
    );
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

#[test]
fn repeated_ids_keep_every_row_and_each_table_fits_as_metafor() {
    let fixture = fixture();
    let yusuf = &fixture["yusuf1985"];
    let data = yusuf["data"].clone();
    let computed = tools::call(
        "compute_effect_sizes",
        &json!({"measure": "OR", "data": data}),
    )
    .unwrap();

    // Every row escalc gives a value is a record with escalc's yi and vi, under its unique id.
    let ids = strings(&yusuf["ids"]);
    let (yi, vi) = (
        yusuf["yi"].as_array().unwrap(),
        yusuf["vi"].as_array().unwrap(),
    );
    let records = computed["records"].as_array().unwrap();
    let kept: Vec<usize> = (0..ids.len()).filter(|&i| !yi[i].is_null()).collect();
    assert_eq!(records.len(), kept.len());
    assert_eq!(records.len(), 118);
    for (record, &i) in records.iter().zip(&kept) {
        assert_eq!(record["id"], ids[i], "row {}", i + 1);
        close(
            &format!("yi of {}", ids[i]),
            record["yi"].as_f64().unwrap(),
            &yi[i],
        );
        close(
            &format!("vi of {}", ids[i]),
            record["vi"].as_f64().unwrap(),
            &vi[i],
        );
    }
    // Only escalc's NA rows are omitted, each under its own (unique) id.
    let omitted: Vec<&str> = computed["omitted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    let na: Vec<&str> = (0..ids.len())
        .filter(|&i| yi[i].is_null())
        .map(|i| ids[i])
        .collect();
    assert_eq!(omitted, na);
    let notes = strings(&computed["notes"]);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with(&format!("{} ids repeat;", yusuf["repeated"])),
        "{}",
        notes[0]
    );
    assert!(
        notes[0].contains("\"2.1\" (rows 18, 67, 91)"),
        "{}",
        notes[0]
    );

    // Through load_data too, then a fit per outcome table by `subset`.
    let mut store = DataStore::new();
    let loaded = tools::call_in(
        "load_data",
        &json!({"measure": "OR", "data": yusuf["data"]}),
        &mut store,
    )
    .unwrap();
    assert_eq!(loaded["k"], 118);
    assert_eq!(loaded["notes"], computed["notes"]);
    for table in yusuf["tables"].as_array().unwrap() {
        let t = table["table"].as_str().unwrap();
        let subset = json!({"column": "table", "equals": t});
        for (how, fit) in [
            (
                "records",
                tools::call(
                    "fit_random_effects",
                    &json!({"records": computed["records"], "subset": subset}),
                ),
            ),
            (
                "data_id",
                tools::call_in(
                    "fit_random_effects",
                    &json!({"data_id": loaded["data_id"], "subset": subset}),
                    &mut store,
                ),
            ),
        ] {
            let fit = fit.unwrap_or_else(|e| panic!("table {t} by {how}: {e}"));
            assert_eq!(fit["k"], table["k"], "table {t} by {how}");
            for key in ["estimate", "se", "ci_lower", "ci_upper", "q"] {
                close(
                    &format!("table {t} by {how}: {key}"),
                    fit[key].as_f64().unwrap(),
                    &table[key],
                );
            }
            let tau2 = fit["tau2"].as_f64().unwrap();
            let want = table["tau2"].as_f64().unwrap();
            assert!(
                (tau2 - want).abs() <= 1e-8,
                "table {t}: tau2 {tau2}, {want}"
            );
        }
    }
    // A table the repeated ids used to empty is a value of the column.
    let fit = tools::call(
        "fit_random_effects",
        &json!({"records": computed["records"], "subset": {"column": "table", "equals": "12a"}}),
    )
    .unwrap();
    assert_eq!(fit["k"], 14);
}

#[test]
fn escalc_rows_with_vi_0_are_returned_named_and_refused_by_a_fit() {
    let fixture = fixture();
    let edges = fixture["edges"].as_array().unwrap();
    assert_eq!(edges.len(), 4);
    for edge in edges {
        let name = edge["name"].as_str().unwrap();
        let computed = tools::call("compute_effect_sizes", &edge["args"])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(computed["omitted"], json!([]), "{name}");
        let records = computed["records"].as_array().unwrap();
        let (yi, vi) = (
            edge["yi"].as_array().unwrap(),
            edge["vi"].as_array().unwrap(),
        );
        assert_eq!(records.len(), yi.len(), "{name}");
        for (i, record) in records.iter().enumerate() {
            close(
                &format!("{name}: yi {i}"),
                record["yi"].as_f64().unwrap(),
                &yi[i],
            );
            close(
                &format!("{name}: vi {i}"),
                record["vi"].as_f64().unwrap(),
                &vi[i],
            );
        }
        let zero = strings(&edge["zero_vi"]);
        assert!(!zero.is_empty(), "{name}");
        let notes = strings(&computed["notes"]);
        assert_eq!(notes.len(), 1, "{name}: {notes:?}");
        for id in &zero {
            assert!(
                notes[0].contains(&format!("(\"{id}\")")),
                "{name}: {}",
                notes[0]
            );
        }
        assert!(notes[0].contains("vi = 0"), "{}", notes[0]);
        // metafor's EE fit fails on them too; the engine refuses every fit, naming the row.
        assert_eq!(edge["rma_ee_fits"], false, "{name}");
        let e = tools::call("fit_random_effects", &json!({"records": records})).unwrap_err();
        assert!(
            e.message.contains(&format!("\"{}\"", zero[0])) && e.message.contains("vi = 0"),
            "{name}: {}",
            e.message
        );
    }
}

/// The page's Your data reads the same CSV to the same records, ids made unique, and says so.
#[test]
fn your_data_keeps_every_row_of_a_csv_whose_ids_repeat() {
    let fixture = fixture();
    let yusuf = &fixture["yusuf1985"];
    let columns = ["table", "id", "trial", "ai", "n1i", "ci", "n2i"];
    let mut csv = columns.join(",") + "\n";
    for row in yusuf["data"].as_array().unwrap() {
        let fields: Vec<String> = columns
            .iter()
            .map(|c| match &row[*c] {
                Value::Null => "NA".to_string(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        csv += &(fields.join(",") + "\n");
    }
    let view = exemplar::your_data::view_json(&json!({"csv": csv, "measure": "OR"}).to_string());
    assert_eq!(view["k"], 118, "{}", view["error"]);
    assert_eq!(view["bad_rows"], 12);
    assert!(view["notes"][0]
        .as_str()
        .unwrap()
        .starts_with("25 ids repeat;"));
    let ids = strings(&yusuf["ids"]);
    let yi = yusuf["yi"].as_array().unwrap();
    let want: Vec<&str> = (0..ids.len())
        .filter(|&i| !yi[i].is_null())
        .map(|i| ids[i])
        .collect();
    let got: Vec<&str> = view["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, want);
}

/// Records given as JSON are keyed by their ids (which `exclude` names): a repeated id is
/// refused, naming it and the id the later record could take.
#[test]
fn json_records_with_a_repeated_id_are_refused_naming_it() {
    let records = json!([
        {"id": "2.1", "yi": 0.1, "vi": 0.01},
        {"id": "2.1", "yi": 0.2, "vi": 0.02},
        {"id": "3.1", "yi": 0.3, "vi": 0.03}
    ]);
    let e = tools::call("fit_random_effects", &json!({ "records": records })).unwrap_err();
    assert!(
        e.message
            .contains("\"2.1\" is used by more than one record")
            && e.message.contains("\"2.1#2\""),
        "{}",
        e.message
    );
}
