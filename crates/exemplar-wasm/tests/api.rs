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
fn tool_definitions_match_native() {
    common::tool_definitions_match_native();
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
fn ledger_chain() {
    common::ledger_chain();
}

/// A ledger append with arguments that are not JSON throws a JS error.
#[wasm_bindgen_test]
fn ledger_append_rejects_non_json() {
    let mut ledger = exemplar_wasm::Ledger::new();
    assert!(ledger
        .append("fit_random_effects", "{oops", "{}", "t")
        .is_err());
    assert!(ledger.append("fit_random_effects", "{}", "", "t").is_err());
    assert_eq!(ledger.entries_json(), "[]");
}

#[wasm_bindgen_test]
fn companion_plots_match_native() {
    common::companion_plots_match_native();
}
