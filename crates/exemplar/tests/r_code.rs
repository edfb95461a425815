//! Every result reproducible in R (issue 46): for every tool that writes R code, each of its
//! registry examples and a set of calls on metadat datasets the examples do not use
//! (`fixtures/r_code_unseen.json`, written by `oracle/r_code_unseen.R`) are called with
//! `r_code: true`; every script is run in ONE R process (Rscript, metafor 3.8-1) and the
//! numbers of its `res` are compared with the tool's result (1e-8 relative to max(1, |x|),
//! or the looser tolerance a check states). A script that fails to run fails the test.

use exemplar::rcode;
use exemplar::tools::{self, reproduce::Check, REGISTRY};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

/// One call, its script and the numbers its `res` must give.
struct Case {
    label: String,
    script: String,
    checks: Vec<Check>,
}

fn unseen() -> Value {
    serde_json::from_str(include_str!("fixtures/r_code_unseen.json")).expect("the fixture parses")
}

/// Calls on the unseen datasets, by tool.
fn unseen_calls() -> Vec<(&'static str, Value)> {
    let data = unseen();
    let bcg = &data["bcg"]["records"];
    let molloy = &data["molloy2014"]["records"];
    let hack = &data["hackshaw1998"]["records"];
    let fit = tools::FIT_RANDOM_EFFECTS.name;
    vec![
        (fit, json!({"records": bcg, "measure": "RR"})),
        (fit, json!({"records": bcg, "method": "DL", "test": "knha", "level": 0.9})),
        (fit, json!({"records": bcg, "method": "PM", "subset": {"column": "alloc", "in": ["random", "alternate"]}, "slab": "author"})),
        (fit, json!({"records": bcg, "method": "ML", "weights": "year"})),
        (fit, json!({"records": molloy, "method": "SJ", "measure": "ZCOR"})),
        (fit, json!({"records": molloy, "method": "HE", "subset": {"column": "quality", "equals": 2}})),
        (fit, json!({"records": hack, "method": "EE"})),
        (fit, json!({"records": hack, "subset": {"column": "design", "equals": "cohort"}})),
    ]
}

/// Every case: each reproducible tool's examples, then the unseen calls.
fn cases() -> Vec<Case> {
    let mut calls: Vec<(&'static str, Value)> = Vec::new();
    for tool in REGISTRY.iter().filter(|t| tools::reproducible(t)) {
        for example in (tool.examples)() {
            calls.push((tool.name, example));
        }
    }
    calls.extend(unseen_calls());
    calls
        .into_iter()
        .enumerate()
        .map(|(i, (name, args))| {
            let (result, written) = tools::reproduced(name, &args)
                .unwrap_or_else(|e| panic!("{name} {args}: {e}"));
            assert!(
                written.r_code.ends_with("print(res)\n"),
                "{name}: {}",
                written.r_code
            );
            assert!(!written.checks.is_empty(), "{name} {args}: no numbers checked");
            let _ = result;
            Case {
                label: format!("#{i} {name} {}", short(&args)),
                script: written.r_code,
                checks: written.checks,
            }
        })
        .collect()
}

fn short(args: &Value) -> String {
    let mut shown = args.clone();
    if let Some(fields) = shown.as_object_mut() {
        for key in ["records", "data", "rows"] {
            if fields.contains_key(key) {
                fields.insert(key.into(), json!("…"));
            }
        }
    }
    shown.to_string()
}

/// The batch: each script evaluated in its own environment, its printout captured, then its
/// checks' expressions; one JSON array of {ok, values} or {ok: false, error}.
fn batch(cases: &[Case]) -> String {
    let mut r = String::from(
        "suppressPackageStartupMessages({library(metafor); library(jsonlite)})\n\
         run <- function(code, checks) {\n\
         \x20 env <- new.env()\n\
         \x20 tryCatch({\n\
         \x20   printed <- capture.output(suppressWarnings(eval(parse(text = code), envir = env)))\n\
         \x20   values <- vapply(checks, function(e) as.numeric(eval(parse(text = e), envir = env))[1], 0)\n\
         \x20   list(ok = TRUE, printed = length(printed) > 0, values = I(unname(values)))\n\
         \x20 }, error = function(e) list(ok = FALSE, error = conditionMessage(e)))\n\
         }\n\
         out <- list()\n",
    );
    for case in cases {
        let checks: Vec<String> = case.checks.iter().map(|c| c.r.clone()).collect();
        r.push_str(&format!(
            "out[[length(out) + 1]] <- run({}, {})\n",
            rcode::string(&case.script),
            rcode::strings(&checks)
        ));
    }
    r.push_str("cat(toJSON(out, auto_unbox = TRUE, digits = NA, na = \"null\"))\n");
    r
}

#[test]
fn every_script_reproduces_its_result_in_one_r_process() {
    let cases = cases();
    let mut child = Command::new("Rscript")
        .args(["--vanilla", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Rscript runs (R with metafor 3.8-1 and jsonlite: CI installs them)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(batch(&cases).as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "Rscript failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<Value> = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("R's answer is JSON: {e}\n{stdout}"));
    assert_eq!(answers.len(), cases.len());
    let mut problems = Vec::new();
    for (case, answer) in cases.iter().zip(&answers) {
        if answer["ok"] != json!(true) {
            problems.push(format!("{}: the script failed: {}", case.label, answer["error"]));
            continue;
        }
        assert_eq!(answer["printed"], json!(true), "{}", case.label);
        for (check, value) in case.checks.iter().zip(answer["values"].as_array().unwrap()) {
            let ok = value.as_f64().is_some_and(|r| {
                (r - check.value).abs() <= check.tolerance * check.value.abs().max(1.0)
            });
            if !ok {
                problems.push(format!(
                    "{}: {} is {value} in R, {} here",
                    case.label, check.r, check.value
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} scripts disagree:\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n")
    );
}
