//! Issue 42 item 3 against metafor: `mantel_haenszel` and `peto_odds_ratio` on part of
//! metadat's dat.yusuf1985 (130 tables of six outcome tables, ids restarting in each). Each
//! case of `fixtures/tables_subset.json` (written by
//! `crates/meta-analysis/tests/oracle/tables_subset.R`) is a call with `subset`, `exclude`,
//! `measure` and `level`, and what rma.mh() or rma.peto() gives with the same subset; the
//! call on the rows inline, and on a load_data handle of them, must agree at 1e-9 (relative
//! to the value's size, at least 1), and leave out the tables metafor's na.omit leaves out.

use exemplar::tools::{call, call_in, DataStore};
use serde_json::{json, Value};

const TOLERANCE: f64 = 1e-9;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/tables_subset.json")).expect("JSON")
}

fn agree(case: &str, got: &Value, want: &Value) {
    for (key, w) in want.as_object().expect("expect is an object") {
        let g = &got[key];
        match (g.as_f64(), w.as_f64()) {
            (Some(g), Some(w)) => assert!(
                (g - w).abs() <= TOLERANCE * w.abs().max(1.0),
                "{case}: {key} = {g}, metafor {w}"
            ),
            _ => assert_eq!(g, w, "{case}: {key}"),
        }
    }
}

fn omitted_ids(result: &Value) -> Value {
    Value::Array(
        result["omitted"]
            .as_array()
            .map(|o| o.iter().map(|o| o["id"].clone()).collect())
            .unwrap_or_default(),
    )
}

#[test]
fn subsets_and_exclusions_of_the_rows_agree_with_metafor() {
    let fixture = fixture();
    let cases = fixture["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 7);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut args = case["args"].clone();
        args["data"] = fixture["rows"].clone();
        let result =
            call(case["tool"].as_str().unwrap(), &args).unwrap_or_else(|e| panic!("{name}: {e}"));
        agree(name, &result, &case["expect"]);
        assert_eq!(omitted_ids(&result), case["omitted"], "{name}");
        if case["args"].get("subset").is_some() {
            assert!(
                result["dataset"]["subset"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("table ")),
                "{name}: {}",
                result["dataset"]
            );
        }
    }
    // The whole data pool three outcomes' tables; table 6 alone is metafor's 0.93.
    let six = cases.iter().find(|c| c["name"] == "mh_or_table_6").unwrap();
    let natural = meta_analysis::math::exp(six["expect"]["estimate"].as_f64().unwrap());
    assert!((natural - 0.9334).abs() < 5e-5, "{natural}");
}

/// The same subsets on a load_data handle of the rows (its records keep the counts): the
/// dispatch applies `subset`, the tool `exclude`. Table 6 only: its ids are the data's first
/// and unique (how repeated ids load is issue 42 item 1's).
#[test]
fn subsets_of_a_handle_agree_with_metafor() {
    let fixture = fixture();
    let mut store = DataStore::new();
    let loaded = call_in(
        "load_data",
        &json!({"measure": "OR", "data": fixture["rows"]}),
        &mut store,
    )
    .unwrap();
    let id = loaded["data_id"].as_str().unwrap().to_string();
    let mut checked = 0;
    for case in fixture["cases"].as_array().unwrap() {
        if case["args"]["subset"] != json!({"column": "table", "equals": "6"}) {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let mut args = case["args"].clone();
        args["data_id"] = json!(id);
        let result = call_in(case["tool"].as_str().unwrap(), &args, &mut store)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        agree(name, &result, &case["expect"]);
        checked += 1;
    }
    assert_eq!(checked, 3);
}

#[test]
fn a_bad_subset_exclude_or_mapping_is_refused_naming_it() {
    let fixture = fixture();
    let rows = fixture["rows"].clone();
    let mh = |extra: Value| {
        let mut args = extra;
        args["data"] = rows.clone();
        call("mantel_haenszel", &args).unwrap_err()
    };
    let e = mh(json!({"subset": {"column": "outcome", "equals": "6"}}));
    assert!(e.message.contains("no column \"outcome\""), "{}", e.message);
    let e = mh(json!({"subset": {"column": "table", "equals": "7"}}));
    assert!(
        e.message.contains("subset keeps no record"),
        "{}",
        e.message
    );
    let e = mh(json!({"subset": {"column": "table", "equals": "6"}, "exclude": ["9.9"]}));
    assert!(
        e.message.contains("no record with id \"9.9\""),
        "{}",
        e.message
    );
    // Ids repeat across the tables: without a subset, "5.1" names four tables.
    let e = mh(json!({"exclude": ["5.1"]}));
    assert!(
        e.message
            .contains("exclude names \"5.1\", which more than one table has"),
        "{}",
        e.message
    );
    // slab labels the rows an error names.
    let mut bad = rows.clone();
    bad[1]["ai"] = json!("x");
    let e = call(
        "mantel_haenszel",
        &json!({"data": bad, "slab": "trial", "subset": {"column": "table", "equals": "6"}}),
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("record \"1.2\" (\"Clausen\"): ai \"x\" is not a number"),
        "{}",
        e.message
    );
    let e = mh(json!({"slab": "author"}));
    assert!(
        e.message.contains("slab: there is no column"),
        "{}",
        e.message
    );
    // Columns named otherwise are mapped; a mapping to no column is refused.
    let renamed: Vec<Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let ai = r.as_object_mut().unwrap().remove("ai").unwrap();
            r["events_t"] = ai;
            r
        })
        .collect();
    let six = json!({"column": "table", "equals": "6"});
    let mapped = call(
        "mantel_haenszel",
        &json!({"data": renamed, "columns": {"ai": "events_t"}, "subset": six}),
    )
    .unwrap();
    let plain = call("mantel_haenszel", &json!({"data": rows, "subset": six})).unwrap();
    assert_eq!(mapped["estimate"], plain["estimate"]);
    let e = call(
        "mantel_haenszel",
        &json!({"data": renamed, "columns": {"ai": "events"}}),
    )
    .unwrap_err();
    assert!(e.message.contains("maps ai to \"events\""), "{}", e.message);
}
