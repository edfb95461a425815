//! Tool dispatch: the input is a tool's name (any text: most are no tool), a newline, and the
//! arguments text. Each input goes through both ways the
//! page calls a tool, `tools::call_json` and `Session::run`, which must agree; the session's
//! ledger must verify, in memory and exported; the companion plot must answer.

#![no_main]

use exemplar::ledger;
use exemplar::session::Session;
use exemplar::tools;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const TIME: &str = "2026-12-02T10:00:00Z";

fuzz_target!(|data: &[u8]| {
    let Some(newline) = data.iter().position(|&b| b == b'\n') else {
        return;
    };
    let name = String::from_utf8_lossy(&data[..newline]);
    let name = name.as_ref();
    // The page's arguments are JavaScript strings: always text.
    let args = String::from_utf8_lossy(&data[newline + 1..]);

    let answer = tools::call_json(name, &args);
    let answer = answer
        .as_object()
        .expect("call_json answers with an object");
    assert_eq!(answer.len(), 1, "one of ok or error: {answer:?}");

    let mut session = Session::new();
    let report = session.run(name, &args, TIME);
    match (
        answer.get("ok"),
        answer.get("error"),
        report.result(),
        &report.error,
    ) {
        (Some(ok), None, Some(run_ok), None) => {
            assert_eq!(ok, run_ok);
            assert!(ok.is_object(), "a result is an object: {ok}");
            assert!(!report.response.is_error);
            let parsed =
                tools::parse_args(&args).expect("the call succeeded, so its arguments parse");
            assert_eq!(report.plot, tools::companion_plot(name, &parsed));
        }
        (None, Some(error), None, Some(run_error)) => {
            assert_eq!(error, &run_error.to_json()["error"]);
            assert!(!run_error.message.is_empty());
            assert!(report.response.is_error);
            assert_eq!(report.plot, None);
        }
        _ => panic!("call_json and Session::run disagree: {answer:?} vs {report:?}"),
    }
    assert_eq!(session.verify().expect("the ledger verifies"), 1);
    let exported = session.ledger().to_json().to_string();
    assert_eq!(
        ledger::verify_json(&exported).expect("the export verifies"),
        1
    );

    if let Some(plot) = session.companion_plot(name, &args) {
        let fields = plot.as_object().expect("a plot answer is an object");
        assert!(fields.contains_key("ok") != fields.contains_key("error"));
        // Arguments that do not parse get the plot's error, under the tool's plot name.
        if let Ok(parsed) = tools::parse_args(&args) {
            if let Some(expected) = tools::companion_plot(name, &parsed) {
                assert_eq!(plot["tool"], Value::from(expected));
            }
        }
        assert!(plot["tool"].is_string(), "{plot}");
    }
});
