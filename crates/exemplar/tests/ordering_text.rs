//! Issue 42 item 2: numbers sent as text (what a CSV reader hands an MCP call) order by
//! value in `order_by` (cumulative_meta_analysis, cumulative_forest_plot) and `order`
//! (forest_plot), as R orders the numeric column read.csv makes of them; a column with text
//! that reads as no number orders as text, by bytes (R's order() on a character column in
//! the C locale). Each case of `fixtures/ordering_text.json` (written by
//! `crates/meta-analysis/tests/oracle/ordering_text.R`, dat.bangertdrowns2004 with `ni` as
//! text) is a tool call and what metafor 3.8-1's cumul() and forest() give; numbers agree at
//! 1e-8 (relative to the value's size, at least 1).

use exemplar::tools::call;
use serde_json::Value;

const TOLERANCE: f64 = 1e-8;

fn fixture() -> Value {
    let text = include_str!("fixtures/ordering_text.json");
    serde_json::from_str(text).expect("the fixture is JSON")
}

fn close(case: &str, what: &str, got: f64, want: &Value) {
    let w = want.as_f64().unwrap();
    assert!(
        (got - w).abs() <= TOLERANCE * w.abs().max(1.0),
        "{case}: {what} = {got}, metafor {w}"
    );
}

fn ids(values: &[Value], key: &str) -> Vec<String> {
    values
        .iter()
        .map(|v| v[key].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn orderings_by_numeric_text_agree_with_metafor() {
    let fixture = fixture();
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let tool = case["tool"].as_str().unwrap();
        let result = call(tool, &case["args"]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expect = &case["expect"];
        let want: Vec<String> = expect["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        if tool == "forest_plot" {
            let mut rows = result["numbers"]["rows"].as_array().unwrap().clone();
            rows.sort_by(|a, b| {
                a["y"]
                    .as_f64()
                    .unwrap()
                    .total_cmp(&b["y"].as_f64().unwrap())
            });
            assert_eq!(ids(&rows, "id"), want, "{name}: rows top to bottom");
            continue;
        }
        let steps = if tool == "cumulative_forest_plot" {
            &result["cumulative"]["results"]
        } else {
            &result["results"]
        };
        let steps = steps.as_array().unwrap();
        assert_eq!(
            ids(steps, "added"),
            want,
            "{name}: the order records are added in"
        );
        for (i, step) in steps.iter().enumerate() {
            for (ours, theirs) in [
                ("estimate", "estimate"),
                ("se", "se"),
                ("ci_lower", "ci_lower"),
                ("ci_upper", "ci_upper"),
                ("tau2", "tau2"),
                ("q", "q"),
                ("i2", "i2"),
            ] {
                close(
                    name,
                    &format!("step {} {ours}", i + 1),
                    step[ours].as_f64().unwrap(),
                    &expect[theirs][i],
                );
            }
        }
    }
}
