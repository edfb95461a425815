//! Issue 21 item 6 as a user meets it on the command line: `exemplar plot` reaches every plot
//! tool of the registry, `exemplar escalc` maps its CSV's own column names (`--ai tpos`) and
//! says once which columns are missing and which the CSV has, and leave-one-out takes the
//! common arguments.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let input = stdin.unwrap_or_default().to_vec();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited normally")
}

/// `dat.bcg`'s first five trials, with the CSV's own column names.
const BCG: &str = "trial,tpos,tneg,cpos,cneg,ablat\n\
1,4,119,11,128,44\n2,6,300,29,274,55\n3,3,228,11,209,42\n4,62,13536,248,12619,52\n5,33,5036,47,5761,13\n";

#[test]
fn plot_reaches_every_plot_tool() {
    let tools = stdout_json(&run(&["tools"], None));
    let plots: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["group"]["key"] == "plot")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(plots.len(), 6, "{plots:?}");
    for name in plots {
        let kind = name.strip_suffix("_plot").unwrap();
        let args = if kind == "bubble" {
            r#"{"mod":"weeks"}"#
        } else {
            "{}"
        };
        let out = run(&["plot", kind, args], None);
        assert_eq!(
            code(&out),
            0,
            "{kind}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let svg = String::from_utf8(out.stdout).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{kind}"
        );
    }
    let out = run(&["plot", "pie"], None);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("trim_and_fill"));
}

#[test]
fn escalc_maps_the_csvs_own_column_names() {
    let mapped = run(
        &[
            "escalc",
            "--measure",
            "RR",
            "--ai",
            "tpos",
            "--bi",
            "tneg",
            "--ci",
            "cpos",
            "--di",
            "cneg",
            "-",
        ],
        Some(BCG.as_bytes()),
    );
    assert_eq!(
        code(&mapped),
        0,
        "{}",
        String::from_utf8_lossy(&mapped.stdout)
    );
    let mapped = stdout_json(&mapped);
    assert_eq!(mapped["k"], 5);
    // The same as a CSV whose header already uses escalc's names.
    let renamed = BCG.replacen("trial,tpos,tneg,cpos,cneg", "trial,ai,bi,ci,di", 1);
    let named = stdout_json(&run(
        &["escalc", "--measure", "RR", "-"],
        Some(renamed.as_bytes()),
    ));
    for (a, b) in mapped["records"]
        .as_array()
        .unwrap()
        .iter()
        .zip(named["records"].as_array().unwrap())
    {
        assert_eq!((&a["yi"], &a["vi"]), (&b["yi"], &b["vi"]));
    }
    let first = mapped["records"][0]["yi"].as_f64().unwrap();
    let expected = ((4.0_f64 / 123.0) / (11.0 / 139.0)).ln();
    assert!((first - expected).abs() < 1e-12, "{first} vs {expected}");
}

#[test]
fn escalc_names_the_missing_columns_once_and_the_columns_the_csv_has() {
    let out = run(&["escalc", "--measure", "RR", "-"], Some(BCG.as_bytes()));
    assert_eq!(code(&out), 1);
    let error = stdout_json(&out);
    assert_eq!(error["error"]["code"], "invalid_data");
    let message = error["error"]["message"].as_str().unwrap();
    assert_eq!(message.matches("is missing").count(), 0, "{message}");
    assert_eq!(message.matches("no row has").count(), 1, "{message}");
    assert!(
        message.contains("ai, bi (or n1i), ci, di (or n2i)"),
        "{message}"
    );
    assert!(
        message.contains("The data's columns are trial, tpos, tneg, cpos, cneg, ablat"),
        "{message}"
    );
    assert!(message.contains("--ai your_column"), "{message}");
    // A flag naming a column the CSV lacks says so.
    let out = run(
        &["escalc", "--measure", "RR", "--ai", "events", "-"],
        Some(BCG.as_bytes()),
    );
    assert_eq!(code(&out), 1);
    let message = stdout_json(&out)["error"]["message"].to_string();
    assert!(
        message.contains("maps ai to \\\"events\\\", but the data have no such column"),
        "{message}"
    );
}

#[test]
fn the_compute_effect_sizes_tool_takes_the_same_mapping() {
    let args = r#"{"measure": "RR", "columns": {"ai": "tpos", "bi": "tneg", "ci": "cpos", "di": "cneg"},
        "data": [{"tpos": 4, "tneg": 119, "cpos": 11, "cneg": 128}, {"tpos": 6, "tneg": 300, "cpos": 29, "cneg": 274}]}"#;
    let out = run(&["call", "compute_effect_sizes", args], None);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(stdout_json(&out)["k"], 2);
}

#[test]
fn leave_one_out_takes_the_common_arguments() {
    let out = run(
        &[
            "call",
            "leave_one_out",
            r#"{"method": "DL", "test": "knha", "level": 0.9, "exclude": ["s04"]}"#,
        ],
        None,
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    let loo = stdout_json(&out);
    assert_eq!(
        (
            loo["k"].as_u64(),
            loo["test"].as_str(),
            loo["level"].as_f64()
        ),
        (Some(18), Some("knha"), Some(0.9))
    );
    let refit = stdout_json(&run(
        &[
            "call",
            "refit_excluding",
            r#"{"method": "DL", "test": "knha", "level": 0.9, "exclude": ["s04", "s05"]}"#,
        ],
        None,
    ));
    let row = loo["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["omitted"] == "s05")
        .unwrap();
    // leave_one_out downdates the sums, so the last digits may differ.
    for key in ["estimate", "ci_lower", "ci_upper", "p", "t", "df"] {
        let (a, b) = (row[key].as_f64().unwrap(), refit[key].as_f64().unwrap());
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1e-3),
            "{key}: {a} vs {b}"
        );
    }
}
