//! The page's WebAssembly surface: thin wrappers over the `exemplar` crate.
//!
//! Every function takes and returns JSON text (or plain strings and bytes), calls `exemplar`
//! and serializes the outcome. There is no statistics or protocol logic here.

use exemplar::{dataset, ledger, protocol, scorer, tools};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// Compact JSON text of `value`, as `Value`'s `Display` writes it but straight into a byte
/// buffer: the `fmt::Write` route costs about a tenth of a tool call.
fn text(value: &Value) -> String {
    serde_json::to_string(value).expect("a serde_json::Value serializes")
}

/// Installs a panic hook so that a panic is reported readably on the console.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// `{baseline_version, dataset_name, dataset_description, dataset_sha256, engine_version,
/// prompt, rule, pdf_sha256, pdf_path}`
#[wasm_bindgen]
pub fn metadata() -> String {
    text(&protocol::metadata())
}

/// The frozen dataset's CSV, byte for byte.
#[wasm_bindgen(js_name = datasetCsv)]
pub fn dataset_csv() -> String {
    dataset::CSV.to_string()
}

/// The frozen dataset as JSON (all rows with all columns, hash, provenance).
#[wasm_bindgen(js_name = datasetJson)]
pub fn dataset_json() -> String {
    text(&dataset::to_json())
}

/// The tool definitions: `[{name, title, description, inputSchema, annotations}]`.
#[wasm_bindgen(js_name = toolDefinitions)]
pub fn tool_definitions() -> String {
    text(&tools::definitions_json())
}

/// Runs a tool: `{"ok": result}` or `{"error": {"code", "message"}}`. Never throws.
#[wasm_bindgen(js_name = callTool)]
pub fn call_tool(name: &str, args_json: &str) -> String {
    text(&tools::call_json(name, args_json))
}

/// The plot that goes with a tool's result (same arguments): `{"tool": name, "ok": result}`,
/// `{"tool": name, "error": {...}}`, or `null` when the tool has none. Never throws.
#[wasm_bindgen(js_name = companionPlot)]
pub fn companion_plot(name: &str, args_json: &str) -> String {
    match tools::companion_plot(name) {
        Some(plot) => {
            let mut out = tools::call_json(plot, args_json);
            out["tool"] = json!(plot);
            text(&out)
        }
        None => text(&Value::Null),
    }
}

/// Scores a raw pasted answer; returns the report JSON.
#[wasm_bindgen]
pub fn score(raw: &str) -> String {
    text(&scorer::score(raw).to_json())
}

/// Lower-case hex SHA-256 of `bytes`.
#[wasm_bindgen(js_name = sha256Hex)]
pub fn sha256_hex(bytes: &[u8]) -> String {
    exemplar::sha256_hex(bytes)
}

fn verification(outcome: Result<usize, ledger::LedgerError>) -> String {
    text(&match outcome {
        Ok(length) => json!({"ok": true, "length": length}),
        Err(e) => json!({"ok": false, "seq": e.seq, "message": e.message}),
    })
}

/// The audit ledger of this visit (in memory only).
#[wasm_bindgen]
#[derive(Default)]
pub struct Ledger {
    inner: ledger::Ledger,
}

#[wasm_bindgen]
impl Ledger {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Ledger {
        Ledger::default()
    }

    /// Appends a tool run and returns the new entry as JSON. Throws if `args_json` or
    /// `result_json` is not JSON.
    pub fn append(
        &mut self,
        tool: &str,
        args_json: &str,
        result_json: &str,
        time_iso: &str,
    ) -> Result<String, JsError> {
        let parse = |what: &str, text: &str| {
            serde_json::from_str::<Value>(text)
                .map_err(|e| JsError::new(&format!("ledger append: {what} is not JSON: {e}")))
        };
        let args = parse("args", args_json)?;
        let result = parse("result", result_json)?;
        let entry = self.inner.append(time_iso, tool, args, &result);
        Ok(serde_json::to_string(&entry).expect("an entry serializes"))
    }

    /// All entries as a JSON array (the export format).
    #[wasm_bindgen(js_name = entriesJson)]
    pub fn entries_json(&self) -> String {
        text(&self.inner.to_json())
    }

    /// `{"ok": true, "length": n}` or `{"ok": false, "seq": n, "message": "..."}`.
    pub fn verify(&self) -> String {
        verification(self.inner.verify().map(|()| self.inner.len()))
    }

    /// Verifies an exported ledger; as [`Ledger::verify`], with `seq: null` when the text is
    /// not a JSON array of entries.
    #[wasm_bindgen(js_name = verifyJson)]
    pub fn verify_json(entries_json: &str) -> String {
        verification(ledger::verify_json(entries_json))
    }
}
