//! Issue 42 item 1 on the command line: dat.yusuf1985 as a CSV (its ids restart in each
//! outcome table) keeps every row through `exemplar escalc` and `exemplar call --records`
//! (raw data with `--measure`, and records with yi and vi), saying so on stderr, and a table's
//! fit is metafor 3.8-1's (`crates/exemplar/tests/fixtures/repeated_ids.json`, written by
//! `crates/meta-analysis/tests/oracle/repeated_ids.R`).

use serde_json::Value;
use std::process::{Command, Output};

fn fixture() -> Value {
    serde_json::from_str(include_str!(
        "../../exemplar/tests/fixtures/repeated_ids.json"
    ))
    .unwrap()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json(output: &Output) -> Value {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

/// A CSV of `columns` from the fixture's rows, NA where R has NA.
fn csv(rows: &[Value], columns: &[&str], name: &str) -> std::path::PathBuf {
    let mut text = columns.join(",") + "\n";
    for row in rows {
        let fields: Vec<String> = columns
            .iter()
            .map(|c| match &row[*c] {
                Value::Null => "NA".to_string(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        text += &(fields.join(",") + "\n");
    }
    let path = std::env::temp_dir().join(format!("exemplar-{name}-{}.csv", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

fn close(what: &str, got: &Value, want: &Value) {
    let (g, w) = (got.as_f64().unwrap(), want.as_f64().unwrap());
    assert!(
        (g - w).abs() <= 1e-8 * w.abs().max(1.0),
        "{what}: {g}, metafor {w}"
    );
}

#[test]
fn a_csv_whose_ids_repeat_keeps_every_row_and_fits_as_metafor() {
    let fixture = fixture();
    let yusuf = &fixture["yusuf1985"];
    let rows = yusuf["data"].as_array().unwrap();
    let raw = csv(
        rows,
        &["table", "id", "trial", "ai", "n1i", "ci", "n2i"],
        "yusuf",
    );
    let raw = raw.to_str().unwrap();

    let escalc = run(&["escalc", "--measure", "OR", raw]);
    let result = json(&escalc);
    assert_eq!(result["k"], 118);
    assert_eq!(result["omitted"].as_array().unwrap().len(), 12);
    assert!(result["notes"][0]
        .as_str()
        .unwrap()
        .starts_with("25 ids repeat;"));

    let table10 = &yusuf["tables"][0];
    assert_eq!(table10["table"], "10");
    let args = r#"{"subset": {"column": "table", "equals": "10"}}"#;
    let fit = run(&[
        "call",
        "fit_random_effects",
        args,
        "--records",
        raw,
        "--measure",
        "OR",
    ]);
    let stderr = String::from_utf8_lossy(&fit.stderr).to_string();
    assert!(
        stderr.contains("exemplar: note: 25 ids repeat;"),
        "{stderr}"
    );
    let fit = json(&fit);
    assert_eq!(fit["k"], table10["k"]);
    for key in ["estimate", "ci_lower", "ci_upper"] {
        close(key, &fit[key], &table10[key]);
    }

    // Records with yi and vi (the CSV `exemplar escalc --csv` writes, ids as given).
    let records: Vec<Value> = rows
        .iter()
        .zip(yusuf["yi"].as_array().unwrap())
        .zip(yusuf["vi"].as_array().unwrap())
        .filter(|((_, yi), _)| !yi.is_null())
        .map(|((row, yi), vi)| {
            serde_json::json!({"table": row["table"], "id": row["id"], "yi": yi, "vi": vi})
        })
        .collect();
    let path = csv(&records, &["table", "id", "yi", "vi"], "yusuf-records");
    let fit = run(&[
        "call",
        "fit_random_effects",
        args,
        "--records",
        path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&fit.stderr).to_string();
    assert!(stderr.contains("ids repeat;"), "{stderr}");
    let fit = json(&fit);
    assert_eq!(fit["k"], table10["k"]);
    close("estimate", &fit["estimate"], &table10["estimate"]);
}
