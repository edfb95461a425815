//! Issue 42 item 4 through the command: `exemplar call --records debruin2009.csv --measure
//! PR` reads `sens` ("<400" beside "400") as text, as R's read.csv does, and fits `~ sens`,
//! `~ factor(sens)` and a subgroup analysis by sens as metafor 3.8-1 does (the fixture of
//! crates/meta-analysis/tests/oracle/mixed_columns.R, at 1e-8), saying so in
//! `dataset.notes`. The tool layer's test is crates/exemplar/tests/mixed_columns.rs.

use serde_json::Value;
use std::process::Command;

const TOLERANCE: f64 = 1e-8;

fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../exemplar/tests/fixtures")
}

fn call(tool: &str, args: &str) -> Value {
    let csv = fixtures().join("debruin2009.csv");
    let output = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(["call", tool, args, "--records"])
        .arg(&csv)
        .args(["--measure", "PR"])
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "{tool} {args}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

fn close(what: &str, got: &Value, want: &Value) {
    let (g, w) = (got.as_f64().unwrap(), want.as_f64().unwrap());
    assert!(
        (g - w).abs() <= TOLERANCE * w.abs().max(1.0),
        "{what} = {g}, metafor {w}"
    );
}

fn check_note(result: &Value) {
    let notes = result["dataset"]["notes"]
        .as_array()
        .expect("dataset.notes");
    let note = notes[0].as_str().unwrap();
    assert!(
        note.starts_with("the column sens was read as text (categorical)")
            && note.contains("\"<400\"")
            && note.contains("is not a number"),
        "{note}"
    );
}

#[test]
fn the_csv_s_mixed_column_fits_as_a_factor_as_in_metafor() {
    let text = std::fs::read_to_string(fixtures().join("mixed_columns.json")).unwrap();
    let fixture: Value = serde_json::from_str(&text).unwrap();
    let want = &fixture["meta_regression"];
    for (mods, second) in [("~ sens", "sens400"), ("~ factor(sens)", "factor(sens)400")] {
        let result = call("meta_regression", &format!("{{\"mods\": \"{mods}\"}}"));
        assert_eq!(result["k"], want["k"]);
        let coefficients = result["coefficients"].as_array().unwrap();
        assert_eq!(coefficients[0]["name"], "intercept");
        assert_eq!(coefficients[1]["name"], second);
        for (ours, theirs) in coefficients
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
        check_note(&result);
    }
    let want = &fixture["subgroup_analysis"];
    let result = call("subgroup_analysis", "{\"by\": \"sens\"}");
    for theirs in want["groups"].as_array().unwrap() {
        let ours = result["groups"]
            .as_array()
            .unwrap()
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
    check_note(&result);
}
