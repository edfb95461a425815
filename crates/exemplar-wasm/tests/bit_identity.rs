//! One answer everywhere, the wasm half (issue 21 item 5, issue 25 item 5): each call of
//! `crates/exemplar/tests/fixtures/bit_identity.json` (written natively by
//! `cargo xtask codegen`: crates/xtask/src/codegen/bit_identity.rs) gives, through the page's `callTool`, an answer
//! whose SHA-256 is the native one, and the same dataset SHA-256 for the ledger.
//! Runs in Node (both modules: the first module skips the tools it does not carry).

use exemplar_wasm as api;
use serde_json::Value;
use wasm_bindgen_test::wasm_bindgen_test;

const FIXTURE: &str = include_str!("../../exemplar/tests/fixtures/bit_identity.json");

#[wasm_bindgen_test]
fn every_call_answers_the_native_bytes() {
    let fixture: Value = serde_json::from_str(FIXTURE).unwrap();
    let calls = fixture["calls"].as_array().unwrap();
    assert!(calls.len() > 100, "{} calls", calls.len());
    let mut checked = 0;
    let mut differ = Vec::new();
    for call in calls {
        let name = call["tool"].as_str().unwrap();
        let args = call["args"].as_str().unwrap();
        if !api::has_tool(name) {
            // The first module (without `full`): the page moves the call to the whole engine.
            if cfg!(feature = "full") {
                panic!("{name} missing from the whole engine");
            }
            continue;
        }
        let answer = api::call_tool(name, args);
        if !cfg!(feature = "full") && answer.contains(r#""code":"whole_engine""#) {
            // An argument or scale the first module leaves out: the page hands it on too.
            continue;
        }
        let sha256 = api::sha256_hex(answer.as_bytes());
        if sha256 != call["sha256"] {
            differ.push(format!("{name} {args:.200}: {answer:.400}"));
        }
        let parsed: Value = serde_json::from_str(args).unwrap();
        let data = exemplar::tools::outcome(name, &parsed).dataset_sha256;
        if data != call["dataset_sha256"] {
            differ.push(format!("{name} {args:.200}: dataset SHA-256 {data}"));
        }
        checked += 1;
    }
    assert!(
        differ.is_empty(),
        "{} answers or dataset hashes of {checked} calls differ from the native ones:\n{}",
        differ.len(),
        differ.join("\n")
    );
    if cfg!(feature = "full") {
        assert_eq!(checked, calls.len());
    } else {
        assert!(checked >= 10, "{checked}");
    }
}
