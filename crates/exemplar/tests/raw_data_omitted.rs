//! Raw-data rows that give no effect size are left out and listed, as metafor's escalc gives
//! them NA and rma's na.action = "na.omit" drops them (issue 31 item 2), in
//! compute_effect_sizes and load_data alike; the kept rows' yi and vi are escalc's
//! (fixture: `crates/meta-analysis/tests/fixtures/raw_data_na.json`, made by
//! `crates/meta-analysis/tests/oracle/raw_data_na.R`).

use exemplar::tools::{self, DataStore};
use serde_json::{json, Map, Value};

fn fixture() -> Value {
    serde_json::from_str(include_str!(
        "../../meta-analysis/tests/fixtures/raw_data_na.json"
    ))
    .expect("fixture JSON")
}

fn case(name: &str) -> Value {
    fixture()["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"))
        .clone()
}

/// The case's rows as raw data with ids s1, s2, ...: numbers as JSON numbers in odd rows and
/// as numeric text (as CSV rows give them) in even rows, and each value the fixture leaves
/// NA written as `missing(row, column)` says.
fn raw_rows(case: &Value, missing: impl Fn(usize, &str) -> Value) -> Vec<Value> {
    let columns: Vec<&str> = case["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    case["rows"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, values)| {
            let mut row = Map::new();
            row.insert("id".into(), json!(format!("s{}", i + 1)));
            for (column, value) in columns.iter().zip(values.as_array().unwrap()) {
                let value = match value.as_f64() {
                    None => missing(i + 1, column),
                    Some(x) if i % 2 == 1 => json!(format!(" {x} ")),
                    Some(_) => value.clone(),
                };
                row.insert((*column).to_string(), value);
            }
            Value::Object(row)
        })
        .collect()
}

fn assert_close(ours: f64, metafor: f64, tol: f64, what: &str) {
    assert!(
        (ours - metafor).abs() <= tol * metafor.abs().max(1.0),
        "{what}: ours {ours:e}, metafor {metafor:e}"
    );
}

/// The kept records' yi and vi equal escalc's (1e-12), and exactly the NA rows are omitted.
fn assert_records_as_escalc(case: &Value, result: &Value) {
    let records = result["records"].as_array().unwrap();
    let mut at = records.iter();
    let mut omitted_ids = Vec::new();
    for (i, (yi, vi)) in case["yi"]
        .as_array()
        .unwrap()
        .iter()
        .zip(case["vi"].as_array().unwrap())
        .enumerate()
    {
        let id = format!("s{}", i + 1);
        match (yi.as_f64(), vi.as_f64()) {
            (Some(yi), Some(vi)) => {
                let record = at.next().expect("a record per row escalc computes");
                assert_eq!(record["id"], id.as_str());
                assert_close(
                    record["yi"].as_f64().unwrap(),
                    yi,
                    1e-12,
                    &format!("{id} yi"),
                );
                assert_close(
                    record["vi"].as_f64().unwrap(),
                    vi,
                    1e-12,
                    &format!("{id} vi"),
                );
            }
            _ => omitted_ids.push(id),
        }
    }
    assert!(at.next().is_none(), "more records than escalc's");
    let listed: Vec<&str> = result["omitted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, omitted_ids);
    assert_eq!(result["k"], case["k"]);
}

/// 26 rows of 2x2 counts (dat.linde2005, RR), 3 without counts written three ways (blank
/// text, null, text that is no number), the rest as numbers or numeric text: 23 records, the
/// 3 rows listed with their reasons, the same through compute_effect_sizes and load_data,
/// and the fit of the loaded records is metafor's rma with na.omit.
#[test]
fn twenty_six_rows_with_three_bad_give_twenty_three_records_and_three_reasons() {
    let case = case("linde2005_rr");
    assert_eq!(
        (case["k"].as_u64(), case["k_all"].as_u64()),
        (Some(23), Some(26))
    );
    let data = raw_rows(&case, |row, column| match (row, column) {
        (5, _) => json!(""),
        (26, _) => Value::Null,
        (11, "n1i") => json!("abc"),
        other => panic!("unexpected NA at {other:?}"),
    });
    let args = json!({"measure": "RR", "data": data});
    let computed = tools::call("compute_effect_sizes", &args).unwrap();
    assert_records_as_escalc(&case, &computed);
    assert_eq!(
        computed["omitted"],
        json!([
            {"id": "s5", "reason": "ai is blank"},
            {"id": "s11", "reason": "n1i \"abc\" is not a number"},
            {"id": "s26", "reason": "ai is empty (null)"}
        ])
    );

    // load_data, with the data's own column names mapped by `columns`.
    let renamed: Vec<Value> = data
        .iter()
        .map(|row| {
            let mut row = row.as_object().unwrap().clone();
            for (from, to) in [("ai", "tpos"), ("n1i", "tn")] {
                let value = row.remove(from).unwrap();
                row.insert(to.into(), value);
            }
            Value::Object(row)
        })
        .collect();
    let mut store = DataStore::new();
    let loaded = tools::call_in(
        "load_data",
        &json!({"measure": "RR", "data": renamed, "columns": {"ai": "tpos", "n1i": "tn"}}),
        &mut store,
    )
    .unwrap();
    assert_eq!(loaded["k"], 23);
    assert_eq!(loaded["omitted"], computed["omitted"]);
    let fit = tools::call_in(
        "fit_random_effects",
        &json!({"data_id": loaded["data_id"]}),
        &mut store,
    )
    .unwrap();
    assert_eq!(fit["k"], 23);
    for key in ["estimate", "se", "tau2"] {
        assert_close(
            fit[key].as_f64().unwrap(),
            case[key].as_f64().unwrap(),
            1e-8,
            key,
        );
    }
    // Records given inline keep an empty list.
    let records = json!({"records": [{"id": "a", "yi": 0.1, "vi": 0.01}]});
    assert_eq!(
        tools::call_in("load_data", &records, &mut store).unwrap()["omitted"],
        json!([])
    );
}

/// Means and SDs (dat.normand1999, SMD) with one SD written as R writes a missing value.
#[test]
fn an_na_sd_leaves_its_row_out() {
    let case = case("normand1999_smd");
    let data = raw_rows(&case, |row, column| {
        assert_eq!((row, column), (3, "sd2i"));
        json!("NA")
    });
    let computed = tools::call(
        "compute_effect_sizes",
        &json!({"measure": "SMD", "data": data}),
    )
    .unwrap();
    assert_records_as_escalc(&case, &computed);
    assert_eq!(
        computed["omitted"],
        json!([{"id": "s3", "reason": "sd2i is NA"}])
    );
}

/// A call with no row left is an error giving the first rows' reasons, and loads nothing.
#[test]
fn data_without_a_single_effect_size_are_an_error_that_says_why() {
    let data: Vec<Value> = (1..=26)
        .map(|i| match i % 2 {
            1 => json!({"id": format!("s{i}"), "ai": "", "n1i": 20, "ci": 3, "n2i": 20}),
            _ => json!({"id": format!("s{i}"), "ai": 2, "n1i": 20, "ci": null, "n2i": 20}),
        })
        .collect();
    let args = json!({"measure": "RR", "data": data});
    let e = tools::call("compute_effect_sizes", &args).unwrap_err();
    assert_eq!(e.code.as_str(), "invalid_data");
    assert_eq!(
        e.message,
        "no row gives a RR (log risk ratio), so there are no records: row 1 (\"s1\"): ai is \
blank; row 2 (\"s2\"): ci is empty (null); row 3 (\"s3\"): ai is blank; row 4 (\"s4\"): ci is empty (null); \
row 5 (\"s5\"): ai is blank; and 21 more"
    );
    let mut store = DataStore::new();
    let e = tools::call_in("load_data", &args, &mut store).unwrap_err();
    assert_eq!(e.code.as_str(), "invalid_data");
    assert!(store.handles().is_empty());
}

/// Issue 41 item 11: a row escalc computes but no fit could take (a proportion of 1 in 10¹⁵:
/// vi ≈ 10⁻³⁰; standard deviations of 10¹⁵⁰: vi ≈ 2·10²⁹⁹) is left out with its reason, the
/// bound every analysis holds records to, and the records kept fit.
#[test]
fn a_row_no_fit_could_take_is_left_out_with_the_bound() {
    let proportions = json!({"measure": "PR", "data": [
        {"id": "a", "xi": 10, "ni": 40},
        {"id": "huge", "xi": 1, "ni": 1e15},
        {"id": "b", "xi": 12, "ni": 50},
        {"id": "c", "xi": 7, "ni": 30}
    ]});
    let computed = tools::call("compute_effect_sizes", &proportions).unwrap();
    assert_eq!(computed["k"], 3);
    let omitted = computed["omitted"].as_array().unwrap();
    assert_eq!(omitted.len(), 1);
    assert_eq!(omitted[0]["id"], "huge");
    let reason = omitted[0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("vi is 9.99999999999999")
            && reason
                .ends_with("e-31, below 1e-25, the smallest sampling variance an analysis accepts"),
        "{reason}"
    );
    let fit = tools::call(
        "fit_random_effects",
        &json!({"records": computed["records"]}),
    )
    .unwrap();
    assert_eq!(fit["k"], 3);

    let means = json!({"measure": "MD", "data": [
        {"id": "a", "m1i": 1.2, "sd1i": 0.5, "n1i": 20, "m2i": 1.0, "sd2i": 0.6, "n2i": 22},
        {"id": "wide", "m1i": 1.0, "sd1i": 1e150, "n1i": 10, "m2i": 0.0, "sd2i": 1e150, "n2i": 10},
        {"id": "b", "m1i": 0.9, "sd1i": 0.4, "n1i": 15, "m2i": 1.1, "sd2i": 0.5, "n2i": 18}
    ]});
    let mut store = DataStore::new();
    let loaded = tools::call_in("load_data", &means, &mut store).unwrap();
    assert_eq!(loaded["k"], 2);
    // vi = 2 · (10¹⁵⁰)² / 10, as escalc computes it.
    assert_eq!(
        loaded["omitted"],
        json!([{"id": "wide", "reason": "vi is 1.9999999999999997e299, above 1e25, the largest \
sampling variance an analysis accepts"}])
    );
}

/// Issue 42 item 8: load_data says in its printed summary how many rows it kept and which it
/// left out (the first three with their reasons, then how many more), so a reader need not
/// open `omitted` to learn that rows were dropped. R: `escalc("OR", ...)` on these rows gives
/// yi NA in the five rows whose ai is missing, and rma() keeps 3 of the 8.
#[test]
fn load_data_prints_how_many_rows_it_kept_and_left_out() {
    let rows: Vec<Value> = (1..=8)
        .map(|i| {
            let ai = if [2, 4, 5, 7, 8].contains(&i) {
                json!("")
            } else {
                json!(4 + i)
            };
            json!({"id": format!("r{i}"), "ai": ai, "bi": 20, "ci": 6, "di": 18})
        })
        .collect();
    let mut store = DataStore::new();
    let loaded = tools::call_in(
        "load_data",
        &json!({"measure": "OR", "data": rows}),
        &mut store,
    )
    .unwrap();
    assert_eq!(loaded["k"], 3);
    let text = exemplar::tools::summary("load_data", &loaded).expect("a summary");
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        "kept 3 of 8 rows; 5 left out: r2 (ai is blank), r4 (ai is blank), \
         r5 (ai is blank) and 2 more (listed in omitted)",
        "{text}"
    );
    let records = json!({"records": [{"id": "a", "yi": 0.1, "vi": 0.01}]});
    let loaded = tools::call_in("load_data", &records, &mut store).unwrap();
    let text = exemplar::tools::summary("load_data", &loaded).expect("a summary");
    assert_eq!(
        text.lines().next().unwrap(),
        "kept 1 of 1 records; none left out"
    );
}
