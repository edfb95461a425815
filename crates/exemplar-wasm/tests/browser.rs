//! A subset of the wasm API checks in headless Chromium (the page's real host).

mod common;

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn metadata_describes_the_frozen_artifacts() {
    common::metadata_describes_the_frozen_artifacts();
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
fn scorer_matches_native() {
    common::scorer_matches_native();
}

#[wasm_bindgen_test]
fn session_runs_and_ledger() {
    common::session_runs_and_ledger();
}

#[cfg(feature = "full")]
#[wasm_bindgen_test]
fn companion_plots_match_native() {
    common::companion_plots_match_native();
}

#[cfg(feature = "full")]
#[wasm_bindgen_test]
fn your_data_view_matches_native() {
    common::your_data_view_matches_native();
}
