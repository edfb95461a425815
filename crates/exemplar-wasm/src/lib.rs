//! The page's WebAssembly surface: thin wrappers over the `exemplar` crate.
//!
//! Every function takes and returns JSON text (or plain strings and bytes), calls `exemplar`
//! and serializes the outcome. There is no statistics, protocol or page policy here: how a
//! run is answered and ledgered is [`exemplar::session`]'s. The tool definitions are not
//! exported: the page registers `www/generated/tools.json`, which `cargo xtask codegen`
//! writes from the same registry, before this module has loaded.

use exemplar::session;
#[cfg(feature = "full")]
use exemplar::your_data;
use exemplar::{dataset, ledger, page, scorer, tools};
use serde::Serialize;
use serde_json::json;
#[cfg(feature = "full")]
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The module's allocator (see Cargo.toml): Talc over the wasm memory, growing it on demand.
#[cfg(target_family = "wasm")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Compact JSON text of `value`.
fn text<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("exemplar's results serialize")
}

/// Installs a panic hook so that a panic is reported readably on the console.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The page's metadata (`PageMetadata` in `www/generated/engine.d.ts`): versions, dataset
/// identity, prompt, PDF, conditions, the counts the page states, the ledger's fields, the
/// largest plot drawn by itself.
#[wasm_bindgen]
pub fn metadata() -> String {
    text(&page::metadata())
}

/// The frozen dataset's CSV, byte for byte.
#[wasm_bindgen(js_name = datasetCsv)]
pub fn dataset_csv() -> String {
    dataset::CSV.to_string()
}

/// The frozen dataset as JSON (all rows with all columns, hash, provenance).
#[wasm_bindgen(js_name = datasetJson)]
pub fn dataset_json() -> String {
    text(dataset::view())
}

/// Whether this module carries tool `name`: the first module (`www/pkg/core`, built without
/// the `full` feature) has the benchmark's tools only; the page moves a call of any other to
/// the whole engine (`www/pkg/full`), as it does a call `Session.runHere` hands on.
#[wasm_bindgen(js_name = hasTool)]
pub fn has_tool(name: &str) -> bool {
    tools::find(name).is_some()
}

/// How the page shows a tool's result (its structured content, JSON text) to a person: the
/// printed summary and the tables (`ResultView`), or `null` when the text is not JSON. Only
/// in the whole engine: the first module's runs carry no view, and the page asks here.
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = resultView)]
pub fn result_view(tool: &str, result_json: &str) -> String {
    match serde_json::from_str::<Value>(result_json) {
        Ok(result) => text(&exemplar::result_view::view_of(tool, &result)),
        Err(_) => "null".to_string(),
    }
}

/// A plot's SVG (a plot tool's `svg`) as a figure for a paper: `format` `"png"` (at `dpi`
/// pixels an inch, 300 when `undefined`; 1 to 2400) or `"pdf"` (the font embedded, no
/// `dpi`). The file's bytes; throws an `Error` saying why a figure cannot be made (an
/// unknown format, too many pixels, not an SVG). Only in the figures module
/// (`www/pkg/figures`, feature `figures`).
#[cfg(feature = "figures")]
#[wasm_bindgen(js_name = renderFigure)]
pub fn render_figure(svg: &str, format: &str, dpi: Option<u32>) -> Result<Vec<u8>, JsError> {
    exemplar_figures::Format::named(format, dpi)
        .and_then(|format| exemplar_figures::render(svg, format))
        .map_err(|e| JsError::new(&e.to_string()))
}

/// Runs a tool without ledgering it: `{"ok": result}` or `{"error": {"code", "message"}}`.
/// Never throws.
#[wasm_bindgen(js_name = callTool)]
pub fn call_tool(name: &str, args_json: &str) -> String {
    text(&tools::call_json(name, args_json))
}

/// "Your data": the view of `{csv, measure, mapping, add, to}` (JSON text): the
/// CSV's columns, the measure's columns matched to them, each row's effect size or error,
/// and the records. Never throws.
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = yourDataView)]
pub fn your_data_view(request_json: &str) -> String {
    your_data::view_text(request_json)
}

/// "Your data" for a person's run of `tool` from its form: the arguments typed (JSON text)
/// completed with Your data's study column where the tool names a study or cluster column,
/// given what the view offers (`{takes, study, k, rows}`, JSON text): `{"ok": {"args",
/// "takes"}}` (the records or rows, attached by the caller, go as `takes`) or `{"error":
/// sentence}`. Never throws.
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = yourDataToolInput)]
pub fn your_data_tool_input(tool: &str, args_json: &str, offer_json: &str) -> String {
    text(&your_data::tool_input_json(tool, args_json, offer_json))
}

/// "Your data": the CSV's rows of a request (JSON text, as [`your_data_view`] takes it) as
/// the tools of raw data take them (`data`): a JSON array, empty when there are none.
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = yourDataRows)]
pub fn your_data_rows(request_json: &str) -> String {
    text(&your_data::rows_json(request_json))
}

/// The rules every tool follows, said once (`exemplar::tools::instructions`): the page shows
/// them beside the tools.
#[cfg(feature = "full")]
#[wasm_bindgen]
pub fn instructions() -> String {
    tools::instructions()
}

/// A person's run from a tool's form: the text typed in each field (`fields_json`, an object
/// of name → text) read by the tool's input schema (`schema_json`, from the definitions the
/// page registered): `{"ok": args}` or `{"error": sentence}` naming the field to fix
/// ([`session::form::args`]). `lenient`: a run on Your data, which may fill a required field.
/// Never throws. Only in the whole engine: the page reads a form there (`www/engine.js`
/// `formArgs`), so the first module carries no form reading.
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = formArgs)]
pub fn form_args(schema_json: &str, fields_json: &str, lenient: bool) -> String {
    let read = || -> Result<Value, String> {
        let schema: Value = serde_json::from_str(schema_json).map_err(|e| e.to_string())?;
        let fields: serde_json::Map<String, Value> =
            serde_json::from_str(fields_json).map_err(|e| e.to_string())?;
        session::form::args(&schema, &fields, lenient).map(Value::Object)
    };
    text(&match read() {
        Ok(args) => json!({ "ok": args }),
        Err(sentence) => json!({ "error": sentence }),
    })
}

/// The answer for `tool`'s companion plot when it could not be drawn (`trapped`: the engine
/// stopped while drawing it; else `reason`, the runtime's message), worded by the session:
/// `{"tool", "error"}` ([`session::plot_failure`]).
#[wasm_bindgen(js_name = plotFailure)]
pub fn plot_failure(tool: &str, trapped: bool, reason: &str) -> String {
    text(&session::plot_failure(tool, trapped, reason))
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

/// Panics, so that the page's recovery from a trapped instance can be tested end to end.
/// No tool reaches it; the page calls it only when a test asks it to.
#[wasm_bindgen(js_name = trapForTest)]
pub fn trap_for_test() {
    panic!("trapForTest: a deliberate panic to test the page's recovery");
}

fn verification(outcome: Result<usize, ledger::LedgerError>) -> String {
    text(&match outcome {
        Ok(length) => json!({"ok": true, "length": length}),
        Err(e) => json!({"ok": false, "seq": e.seq, "message": e.message}),
    })
}

/// This visit's tool runs and their audit ledger (in memory only).
#[wasm_bindgen]
#[derive(Default)]
pub struct Session {
    inner: session::Session,
}

#[wasm_bindgen]
impl Session {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Session {
        Session::default()
    }

    /// A session continuing an exported ledger (after a trap discarded the instance that
    /// held it). Throws if the entries do not verify.
    pub fn restore(entries_json: &str) -> Result<Session, JsError> {
        session::Session::restore(entries_json)
            .map(|inner| Session { inner })
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// A session continuing an exported ledger, with the arguments text of the loads the
    /// page kept ([`Session::kept_loads`]): `load_args[i]` is that of ledger entry
    /// `load_seqs[i]` ([`session::Session::restore_with_loads`]). Throws if the entries do
    /// not verify.
    #[cfg(feature = "full")]
    #[wasm_bindgen(js_name = restoreWithLoads)]
    pub fn restore_with_loads(
        entries_json: &str,
        load_seqs: Vec<u32>,
        load_args: Vec<String>,
    ) -> Result<Session, JsError> {
        let loads: Vec<(u64, &str)> = load_seqs
            .iter()
            .map(|&seq| u64::from(seq))
            .zip(load_args.iter().map(String::as_str))
            .collect();
        session::Session::restore_with_loads(entries_json, &loads)
            .map(|inner| Session { inner })
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The ledger seqs of the loads whose handles the session holds: the page keeps these
    /// loads' arguments (and no other call's) to restore the session after a trap.
    #[cfg(feature = "full")]
    #[wasm_bindgen(js_name = keptLoads)]
    pub fn kept_loads(&self) -> Vec<u32> {
        self.inner
            .kept_loads()
            .into_iter()
            .map(|seq| u32::try_from(seq).unwrap_or(u32::MAX))
            .collect()
    }

    /// Runs a tool and ledgers the run: the report (`RunReport` in
    /// `www/generated/engine.d.ts`), or `null`, with nothing ledgered, for a call only the
    /// whole engine answers (an argument or scale the first module leaves out:
    /// `Session::run_here`), which the page hands on.
    pub fn run(&mut self, tool: &str, args_json: &str, time_iso: &str) -> String {
        match self.inner.run_here(tool, args_json, time_iso) {
            Some(report) => text(&report),
            None => "null".to_string(),
        }
    }

    /// Ledgers a call the page saw fail (`failure_json`: `{"kind": "trapped" | "worker_failed"
    /// | "aborted"}`, or `{"kind": "module_unavailable" | "unwritable", "reason"}` with the
    /// runtime's message); the session decides its status and wording
    /// ([`session::Session::record_failure`]). Returns the report as [`Session::run`] does.
    #[wasm_bindgen(js_name = recordFailure)]
    pub fn record_failure(
        &mut self,
        tool: &str,
        args_json: &str,
        time_iso: &str,
        failure_json: &str,
    ) -> String {
        text(
            &self
                .inner
                .record_failure(tool, args_json, time_iso, failure_json),
        )
    }

    /// The plot drawn beside `tool`'s result: `{"tool", "ok" | "error"}`, or `null`. Only in
    /// the whole engine, which holds the plots: the page draws a plot after moving the worker
    /// to it (`www/engine.js` `companionPlot`).
    #[cfg(feature = "full")]
    #[wasm_bindgen(js_name = companionPlot)]
    pub fn companion_plot(&self, tool: &str, args_json: &str) -> String {
        text(
            &self
                .inner
                .companion_plot(tool, args_json)
                .unwrap_or(Value::Null),
        )
    }

    /// The R code and methods text of `tool`'s result (`{"r_code", "methods_text"}` or
    /// `{"error"}`), or `null` for an unknown tool. Not ledgered. Only in the whole
    /// engine (`www/engine.js` `rCode`).
    #[cfg(feature = "full")]
    #[wasm_bindgen(js_name = rCode)]
    pub fn r_code(&self, tool: &str, args_json: &str) -> String {
        text(&self.inner.r_code(tool, args_json).unwrap_or(Value::Null))
    }

    /// The last ledger entry, whole, as JSON text (empty when there is none).
    #[wasm_bindgen(js_name = lastEntryJson)]
    pub fn last_entry_json(&self) -> String {
        self.inner.last_entry_json().unwrap_or_default()
    }

    /// All entries as a JSON array (the export format).
    #[wasm_bindgen(js_name = entriesJson)]
    pub fn entries_json(&self) -> String {
        text(self.inner.ledger().entries())
    }

    /// `{"ok": true, "length": n}` or `{"ok": false, "seq": n, "message": "..."}`. Each entry
    /// is checked once, against its predecessor.
    pub fn verify(&mut self) -> String {
        verification(self.inner.verify())
    }

    /// Verifies an exported ledger; as [`Session::verify`], with `seq: null` when the text
    /// is not a JSON array of entries.
    #[wasm_bindgen(js_name = verifyJson)]
    pub fn verify_json(entries_json: &str) -> String {
        verification(session::verify_exported(entries_json))
    }
}
