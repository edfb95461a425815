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

#[cfg(feature = "full")]
#[wasm_bindgen_test]
fn workspace_view_matches_native() {
    common::workspace_view_matches_native();
}
