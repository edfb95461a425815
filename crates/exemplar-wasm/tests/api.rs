//! The wasm API as the page calls it, compared with the `exemplar` crate (Node by default).

mod common;

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn metadata_describes_the_frozen_artifacts() {
    common::metadata_describes_the_frozen_artifacts();
}

#[wasm_bindgen_test]
fn dataset_csv_and_json() {
    common::dataset_csv_and_json();
}

#[wasm_bindgen_test]
fn every_tool_matches_native() {
    common::every_tool_matches_native();
}

#[wasm_bindgen_test]
fn tool_results_score_13_of_13() {
    common::tool_results_score_13_of_13();
}

#[wasm_bindgen_test]
fn tool_errors_are_json_never_throws() {
    common::tool_errors_are_json_never_throws();
}

#[wasm_bindgen_test]
fn scorer_matches_native() {
    common::scorer_matches_native();
}

#[wasm_bindgen_test]
fn sha256_hex_matches_native() {
    common::sha256_hex_matches_native();
}

#[wasm_bindgen_test]
fn session_runs_and_ledger() {
    common::session_runs_and_ledger();
}

/// Arguments JavaScript accepts but strict JSON refuses (a lone surrogate, a repeated key,
/// nesting past the limit) are an `invalid_json` error, ledgered with the text as given;
/// nothing throws.
#[wasm_bindgen_test]
fn arguments_that_are_not_strict_json_are_ledgered_errors() {
    let mut session = exemplar_wasm::Session::new();
    let deep = format!("{{\"records\":{}{}}}", "[".repeat(200), "]".repeat(200));
    for args in [
        r#"{"method":"\ud800"}"#,
        r#"{"method":"DL","method":"REML"}"#,
        &deep,
    ] {
        let report: serde_json::Value =
            serde_json::from_str(&session.run("fit_random_effects", args, "t")).unwrap();
        assert_eq!(report["error"]["code"], "invalid_json", "{args:.60}");
        let entry: serde_json::Value = serde_json::from_str(&session.last_entry_json()).unwrap();
        assert_eq!(entry["args"], serde_json::json!(args));
        assert_eq!(entry["hash"], report["entry"]["hash"]);
        assert_eq!(report["entry"]["status"], "error");
    }
    assert!(session.verify().contains("\"length\":3"));
}

#[cfg(feature = "full")]
#[wasm_bindgen_test]
fn companion_plots_match_native() {
    common::companion_plots_match_native();
}

#[wasm_bindgen_test]
fn the_first_module_hands_on_what_it_leaves_out() {
    common::the_first_module_hands_on_what_it_leaves_out();
}

#[cfg(feature = "full")]
#[wasm_bindgen_test]
fn your_data_view_matches_native() {
    common::your_data_view_matches_native();
}

/// A form's text is read as arguments by the engine, by the tool's input schema, as the page
/// calls it: the page only gathers the text, and shows the sentence naming a field to fix.
/// Only in the whole engine: the page reads a form there (`www/engine.js` `formArgs`).
#[cfg(feature = "full")]
#[wasm_bindgen_test]
fn a_forms_text_is_read_by_the_tools_schema() {
    use serde_json::{json, Value};
    let schema = r#"{"type":"object","properties":{"level":{"type":"number"},"exclude":{"type":"array","items":{"type":"string"}}},"required":["exclude"]}"#;
    let read = |fields: &str, lenient| -> Value {
        serde_json::from_str(&exemplar_wasm::form_args(schema, fields, lenient)).unwrap()
    };
    assert_eq!(
        read(r#"{"level":" 0.9","exclude":"s04, s05"}"#, false),
        json!({"ok": {"level": 0.9, "exclude": ["s04", "s05"]}})
    );
    assert_eq!(
        read(r#"{"level":"x","exclude":"s04"}"#, false),
        json!({"error": "level: \"x\" is not a number"})
    );
    assert_eq!(
        read(r#"{"exclude":""}"#, false),
        json!({"error": "exclude is required"})
    );
    assert_eq!(read(r#"{"exclude":""}"#, true), json!({"ok": {}}));
    assert!(read("[", false)["error"].is_string());
}

/// A plot that could not be drawn is an error the engine words, as the page shows it.
#[wasm_bindgen_test]
fn a_plot_that_could_not_be_drawn_is_worded_by_the_engine() {
    let answer: serde_json::Value = serde_json::from_str(&exemplar_wasm::plot_failure(
        "fit_random_effects",
        true,
        "x",
    ))
    .unwrap();
    assert_eq!(answer["tool"], "forest_plot");
    assert_eq!(answer["error"]["code"], "internal_error");
    assert_eq!(
        answer["error"]["message"],
        "the engine stopped while drawing the plot and was restarted"
    );
}

/// The whole engine restores a session with the arguments of the loads the page kept: the
/// handles are made again, and the ledger goes on.
#[cfg(feature = "full")]
#[wasm_bindgen_test]
fn a_session_is_restored_with_the_loads_the_page_kept() {
    let mut session = exemplar_wasm::Session::new();
    let load = r#"{"records":[{"id":"a","yi":0.1,"vi":0.01},{"id":"b","yi":0.3,"vi":0.02}]}"#;
    session.run("load_data", load, "t");
    assert_eq!(session.kept_loads(), [1]);
    let mut restored = exemplar_wasm::Session::restore_with_loads(
        &session.entries_json(),
        vec![1],
        vec![load.to_string()],
    )
    .unwrap();
    assert_eq!(restored.kept_loads(), [1]);
    let report: serde_json::Value =
        serde_json::from_str(&restored.run("fit_random_effects", r#"{"data_id":"d1"}"#, "t"))
            .unwrap();
    assert_eq!(report["response"]["structuredContent"]["k"], 2, "{report}");
    assert_eq!(report["entry"]["seq"], 2);
}
