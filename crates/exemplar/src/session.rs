//! One visit of the page: every tool run goes through [`Session::run`], which runs the tool,
//! appends the run to the visit's audit ledger and says how the outcome reads, in one call.
//!
//! The page's JavaScript decides nothing here: how arguments that are not JSON are recorded,
//! how an error reads, what an agent receives and which plot goes with a result all come
//! from this module.

use crate::ledger::{self, EntryHeader, Ledger, LedgerError, Run, Status};
use crate::printable::{escape, is_direction_control};
use crate::tools::{self, ErrorCode, ToolError};
use serde::Serialize;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::fmt::{self, Write as _};

#[cfg(feature = "definitions")]
mod engine_schema;
pub mod form;
#[cfg(feature = "definitions")]
pub use engine_schema::engine_schema;

/// One text item of a tool response.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TextContent {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub text: String,
}

/// What a WebMCP `execute` (or an MCP `tools/call`) returns: the result as text and as
/// structured content, or `isError` with the error's text.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ToolResponse {
    pub content: Vec<TextContent>,
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    #[serde(rename = "isError", skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl ToolResponse {
    /// The response to an outcome: the result's JSON, or `code: message`.
    pub fn of(result: &Result<Value, ToolError>) -> Self {
        match result {
            Ok(value) => ToolResponse::result(value.clone()),
            Err(error) => ToolResponse::error(error),
        }
    }

    /// The response to a result, which it holds.
    fn result(value: Value) -> Self {
        ToolResponse {
            content: vec![TextContent {
                kind: "text",
                text: value.to_string(),
            }],
            structured_content: Some(value),
            is_error: false,
        }
    }

    /// The response to an error: `code: message`.
    fn error(error: &ToolError) -> Self {
        ToolResponse {
            content: vec![TextContent {
                kind: "text",
                text: error.to_string(),
            }],
            structured_content: None,
            is_error: true,
        }
    }
}

/// The report of one run: what the page receives (`www/generated/engine.d.ts` and
/// `engine.schema.json` are written from this type). The result is the response's
/// structured content, held once ([`RunReport::result`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RunReport {
    /// The error, when the tool returned no result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// What the agent receives.
    pub response: ToolResponse,
    /// The ledger entry of the run, without its `args` (which may be megabytes; the ledger
    /// keeps them, or their size and SHA-256 when long): the page shows `args_display`, and keeps the whole entry as the text
    /// [`Session::last_entry_json`] gives, without parsing it.
    pub entry: EntryHeader,
    /// The plot to draw beside a successful result, if one goes with the call (see
    /// [`Session::companion_plot`]).
    pub plot: Option<&'static str>,
    /// How the page shows the result to a person: indented JSON, or `code: message`.
    /// Direction controls are escaped ([`escape_direction_controls`]). A result longer than
    /// [`RESULT_DISPLAY_CHARS`] is cut there with a note of its length (laying out
    /// megabytes of text would hold the page for seconds); the whole result is the
    /// response's structured content.
    pub display: String,
    /// Whether `display` was cut.
    pub display_abridged: bool,
    /// How the page shows a result to a person: the printed summary, tables of rounded
    /// values, and the field holding a plot's SVG ([`crate::result_view`]); none for an
    /// error, and none from the page's first module (built without `extended`), which
    /// leaves the views to the whole engine.
    pub view: Option<crate::result_view::ResultView>,
    /// How the page shows the ledgered arguments, escaped the same way and abridged to
    /// [`DISPLAY_CHARS`] characters.
    pub args_display: String,
}

impl RunReport {
    /// The result, when the tool returned one: the response's structured content.
    pub fn result(&self) -> Option<&Value> {
        self.response.structured_content.as_ref()
    }
}

/// Writes the Unicode direction controls (U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069) as JSON `\uXXXX` escapes, so that text a caller supplied cannot reorder
/// the text around it where the page shows JSON. In JSON text they can only occur inside
/// strings, so the result is the same JSON value.
pub fn escape_direction_controls(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if is_direction_control(c) {
            out.push_str(&escape(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` with its direction controls escaped: `text` itself when it has none (a result's
/// display may be megabytes).
fn escaped(text: String) -> String {
    if text.contains(is_direction_control) {
        escape_direction_controls(&text)
    } else {
        text
    }
}

/// Why a run did not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Interruption {
    /// The engine stopped unexpectedly (a trap of the WebAssembly instance).
    InternalError,
    /// The caller aborted the run.
    Cancelled,
    /// The part of the engine the tool needs could not be loaded (the page's whole module,
    /// fetched when a call needs a tool the first module lacks); `reason` is the loader's
    /// own message, quoted cut.
    EngineUnavailable { reason: String },
}

/// What the page saw of a call that did not finish, or could not start. The page reports
/// every such call; how it is ledgered and how it reads are decided here
/// ([`Session::record_failure`]).
///
/// As JSON: `{"kind": "trapped" | "worker_failed" | "aborted"}`, or `{"kind":
/// "module_unavailable" | "unwritable", "reason": text}` ([`Failure::from_json`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The engine's instance trapped (a Rust panic) during the call.
    Trapped,
    /// The engine's worker failed otherwise (it died, or could not answer).
    WorkerFailed,
    /// The caller aborted the call.
    Aborted,
    /// The module holding the tool could not be loaded; `reason` is the loader's message.
    ModuleUnavailable { reason: String },
    /// The arguments could not be written as JSON text; `reason` is the runtime's message.
    Unwritable { reason: String },
}

impl Failure {
    /// A failure as the page describes it in JSON; none when the text is not one. (Read by
    /// hand: a derived tagged-enum reader costs the page's first wasm module kilobytes.)
    pub fn from_json(text: &str) -> Option<Failure> {
        let value: Value = serde_json::from_str(text).ok()?;
        let reason = || Some(value.get("reason")?.as_str()?.to_string());
        Some(match value.get("kind")?.as_str()? {
            "trapped" => Failure::Trapped,
            "worker_failed" => Failure::WorkerFailed,
            "aborted" => Failure::Aborted,
            "module_unavailable" => Failure::ModuleUnavailable { reason: reason()? },
            "unwritable" => Failure::Unwritable { reason: reason()? },
            _ => return None,
        })
    }
}

/// The visit's tool runs and their ledger.
#[derive(Debug, Default)]
pub struct Session {
    ledger: Ledger,
    /// How many entries, from the first, have been verified: each entry is checked once,
    /// against its predecessor, however long the visit.
    verified: usize,
    /// The visit's data handles (`load_data`), in memory only.
    store: tools::DataStore,
    /// The handle each successful `load_data` made, by its ledger seq: the loads whose
    /// handles are still held are those a restore needs ([`Session::kept_loads`]).
    loads: Vec<(u64, String)>,
}

/// The arguments, parsed (the tool reads them, then the ledger records them: one tree, never
/// copied); or, when they are not (strict) JSON, the error and the text the ledger records
/// instead, as one string.
fn parsed_args(args_text: &str) -> Result<Value, (ToolError, Value)> {
    tools::parse_args(args_text).map_err(|error| {
        let recorded = if args_text.len() > tools::MAX_ARGS_BYTES {
            format!(
                "{}… (refused unread: {} bytes in all, SHA-256 {})",
                prefix(args_text, DISPLAY_CHARS),
                args_text.len(),
                crate::sha256_hex(args_text.as_bytes())
            )
        } else {
            args_text.to_string()
        };
        (error, Value::String(recorded))
    })
}

/// The most characters of the arguments the page shows in a ledger row (the exported ledger
/// has them whole, up to [`LEDGER_ARGS_BYTES`]).
pub const DISPLAY_CHARS: usize = 2_000;

/// The most bytes of arguments a ledger entry holds: arguments whose canonical JSON (or, not
/// being JSON, whose text) is longer are ledgered as their size and SHA-256 with a short
/// prefix ([`summary_of`]), so that a visit's ledger (which the page keeps, to restore its
/// session after a trap) does not hold every call's megabytes for the whole visit. The
/// arguments of the loads whose handles are still held are kept apart, as long as the
/// handles ([`Session::kept_loads`]).
pub const LEDGER_ARGS_BYTES: usize = 64 * 1024;

/// The characters of long arguments a ledger entry keeps before their size and hash.
const LEDGER_PREFIX_CHARS: usize = 200;

/// What the ledger records in place of arguments too long to keep: none when their canonical
/// JSON is at most [`LEDGER_ARGS_BYTES`] (the ledger keeps them whole); otherwise the text
/// `<prefix>… (not kept: N bytes of canonical JSON, SHA-256 <hex>)`, the hash being of those
/// bytes ([`crate::canonical`], as `result_sha256` is of the result). Arguments that are not
/// JSON, ledgered as their text, are bounded the same way (`N bytes of text`, the hash of the
/// text).
fn summary_of(args: &Value) -> Option<Value> {
    let (text, what) = match args {
        Value::String(text) if text.len() <= LEDGER_ARGS_BYTES => return None,
        Value::String(text) => (Cow::Borrowed(text.as_str()), "text"),
        other => {
            let canonical = crate::canonical::to_string(other);
            if canonical.len() <= LEDGER_ARGS_BYTES {
                return None;
            }
            (Cow::Owned(canonical), "canonical JSON")
        }
    };
    Some(Value::String(format!(
        "{}… (not kept: {} bytes of {what}, SHA-256 {})",
        prefix(&text, LEDGER_PREFIX_CHARS),
        text.len(),
        crate::sha256_hex(text.as_bytes())
    )))
}

/// The handle a `load_data` result names.
fn data_id(result: &Value) -> Option<String> {
    Some(result.get(tools::DATA_ID)?.as_str()?.to_string())
}

/// The SHA-256 a ledgered summary of long arguments names ([`summary_of`]).
#[cfg(feature = "extended")]
fn summary_sha256(recorded: &str) -> Option<&str> {
    let tail = recorded.strip_suffix(')')?;
    let (rest, hash) = tail.rsplit_once(", SHA-256 ")?;
    rest.rsplit_once("… (not kept: ")?;
    Some(hash)
}

/// The most characters of a result the page shows in a tool's result area (the page offers
/// the whole result as a download).
pub const RESULT_DISPLAY_CHARS: usize = 20_000;

/// The first `max` characters of `text`.
fn prefix(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// How the page shows `args`: their compact JSON with direction controls escaped, cut after
/// [`DISPLAY_CHARS`] characters with a note of its length. Abridged as it is written, so
/// that the whole text (as long as the arguments, megabytes perhaps) is never held.
fn args_display(args: &Value, kept_whole: bool) -> String {
    let mut display = Abridging::new(DISPLAY_CHARS);
    write!(display, "{args}").expect("abridging never fails");
    display
        .finish(if kept_whole {
            "the exported ledger has them whole"
        } else {
            "the exported ledger has their size and SHA-256"
        })
        .0
}

/// How the page shows a result: its indented JSON with direction controls escaped, cut after
/// [`RESULT_DISPLAY_CHARS`] characters with a note of its length; and whether it was cut.
fn result_display(result: &Value) -> (String, bool) {
    let mut display = Abridging::new(RESULT_DISPLAY_CHARS);
    write!(display, "{result:#}").expect("abridging never fails");
    display.finish("the whole result is in the download below")
}

/// Keeps the first `limit` characters of the text written to it, direction controls escaped,
/// and counts the rest.
struct Abridging {
    limit: usize,
    kept: String,
    kept_chars: usize,
    /// All the characters written, as escaped.
    chars: usize,
}

impl Abridging {
    fn new(limit: usize) -> Self {
        Abridging {
            limit,
            kept: String::new(),
            kept_chars: 0,
            chars: 0,
        }
    }

    fn push(&mut self, c: char) {
        if self.kept_chars < self.limit {
            self.kept.push(c);
            self.kept_chars += 1;
        }
        self.chars += 1;
    }

    /// The text kept, with `… (N characters in all; {whole})` when it was cut; and whether
    /// it was.
    fn finish(self, whole: &str) -> (String, bool) {
        if self.chars <= self.limit {
            return (self.kept, false);
        }
        (
            format!("{}… ({} characters in all; {whole})", self.kept, self.chars),
            true,
        )
    }
}

impl fmt::Write for Abridging {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        for c in text.chars() {
            if is_direction_control(c) {
                escape(c).chars().for_each(|e| self.push(e));
            } else {
                self.push(c);
            }
        }
        Ok(())
    }
}

impl Session {
    pub fn new() -> Self {
        Session::default()
    }

    /// A session continuing an exported ledger (a JSON array of entries that verifies), with
    /// no loads' arguments beside it: as [`Session::restore_with_loads`].
    pub fn restore(entries_json: &str) -> Result<Self, LedgerError> {
        Session::restore_with_loads(entries_json, &[])
    }

    /// A session continuing an exported ledger (a JSON array of entries that verifies). The
    /// handles are made again by replaying the ledgered loads in order: the same handles for
    /// the same data. A load whose arguments the ledger does not hold whole (longer than
    /// [`LEDGER_ARGS_BYTES`]) is replayed from `loads` (ledger seq, arguments text: what the
    /// page kept of [`Session::kept_loads`]) when its text is there and hashes as the ledger
    /// says; otherwise its handle stays expired (its number is used, as it was).
    pub fn restore_with_loads(
        entries_json: &str,
        loads: &[(u64, &str)],
    ) -> Result<Self, LedgerError> {
        let ledger = Ledger::from_entries(ledger::parse_entries(entries_json)?)?;
        let mut session = Session {
            verified: ledger.len(),
            ..Session::default()
        };
        session.replay_loads(ledger.entries(), loads);
        session.ledger = ledger;
        Ok(session)
    }

    /// Makes the handles of the ledgered loads (`entries`) again, in order, from their
    /// ledgered arguments or from `loads` ([`Session::restore_with_loads`]).
    #[cfg(feature = "extended")]
    fn replay_loads(&mut self, entries: &[ledger::Entry], loads: &[(u64, &str)]) {
        for entry in entries {
            if entry.tool != tools::LOAD_DATA_NAME || entry.status != Status::Ok {
                continue;
            }
            let kept = loads.iter().find(|(seq, _)| *seq == entry.seq);
            let args = match (&entry.args, kept) {
                (Value::String(recorded), Some((_, text))) => {
                    tools::parse_args(text).ok().filter(|args| {
                        summary_sha256(recorded) == Some(&crate::canonical::sha256_hex(args))
                    })
                }
                (Value::String(_), None) => None,
                (args, _) => Some(args.clone()),
            };
            match args {
                Some(args) => self.load(entry.seq, &args),
                None => self.store.skip_handle(),
            }
        }
    }

    /// None in the page's first module (built without `extended`): `load_data` is the whole
    /// engine's, so a ledger restored there holds no load (the page restores the first
    /// module only from its own entries, and the whole engine replays them all).
    #[cfg(not(feature = "extended"))]
    fn replay_loads(&mut self, _entries: &[ledger::Entry], _loads: &[(u64, &str)]) {}

    /// Replays the load of ledger entry `seq`, remembering its handle.
    #[cfg(feature = "extended")]
    fn load(&mut self, seq: u64, args: &Value) {
        let outcome = tools::outcome_in(tools::LOAD_DATA_NAME, args, &mut self.store);
        if let Some(handle) = outcome.result.ok().as_ref().and_then(data_id) {
            self.loads.push((seq, handle));
        }
    }

    /// The ledger seqs of the loads whose handles the session still holds, oldest first:
    /// the loads whose arguments a restore needs ([`Session::restore_with_loads`]), at most
    /// [`tools::MAX_HANDLES`].
    pub fn kept_loads(&self) -> Vec<u64> {
        let held = self.store.handles();
        self.loads
            .iter()
            .filter(|(_, handle)| held.contains(handle))
            .map(|(seq, _)| *seq)
            .collect()
    }

    /// Runs `tool` with the arguments text `args_text` (empty means `{}`) at `time`, and
    /// ledgers the run, failed or not.
    pub fn run(&mut self, tool: &str, args_text: &str, time: &str) -> RunReport {
        let (args, result, dataset_sha256) = self.outcome(tool, args_text);
        self.ledgered(tool, time, args, result, &dataset_sha256)
    }

    /// [`Session::run`], or `None` (nothing ledgered) for a call that only the page's whole
    /// engine answers ([`ErrorCode::WholeEngine`]: an argument or scale that the first
    /// module, built without `extended`, leaves out): the page hands it on.
    pub fn run_here(&mut self, tool: &str, args_text: &str, time: &str) -> Option<RunReport> {
        let (args, result, dataset_sha256) = self.outcome(tool, args_text);
        if matches!(&result, Err(e) if e.code == ErrorCode::WholeEngine) {
            return None;
        }
        Some(self.ledgered(tool, time, args, result, &dataset_sha256))
    }

    /// The call's arguments as ledgered, its result and the hash of its data.
    fn outcome(
        &mut self,
        tool: &str,
        args_text: &str,
    ) -> (Value, Result<Value, ToolError>, String) {
        match parsed_args(args_text) {
            Ok(args) => {
                let outcome = tools::outcome_in(tool, &args, &mut self.store);
                (args, outcome.result, outcome.dataset_sha256)
            }
            Err((error, recorded)) => (recorded, Err(error), crate::dataset::sha256().to_string()),
        }
    }

    fn ledgered(
        &mut self,
        tool: &str,
        time: &str,
        args: Value,
        result: Result<Value, ToolError>,
        dataset_sha256: &str,
    ) -> RunReport {
        let status = if result.is_ok() {
            Status::Ok
        } else {
            Status::Error
        };
        let handle = match &result {
            Ok(value) if tool == tools::LOAD_DATA_NAME => data_id(value),
            _ => None,
        };
        let report = self.report(tool, time, status, args, dataset_sha256, result);
        if let Some(handle) = handle {
            self.remember_load(report.entry.seq, handle);
        }
        report
    }

    /// Remembers that the load ledgered at `seq` made `handle`, forgetting the loads whose
    /// handles are no longer held (at most MAX_HANDLES are).
    #[cfg(feature = "extended")]
    fn remember_load(&mut self, seq: u64, handle: String) {
        self.loads.push((seq, handle));
        let held = self.store.handles();
        self.loads.retain(|(_, handle)| held.contains(handle));
    }

    /// Nothing to remember in the page's first module (built without `extended`), which
    /// has no `load_data`.
    #[cfg(not(feature = "extended"))]
    fn remember_load(&mut self, _seq: u64, _handle: String) {}

    /// Ledgers a call the page saw fail (`failure_json`, a [`Failure`] as JSON), and says so
    /// to the caller: a trap or any other failure of the engine as `internal_error`, an
    /// abort as `cancelled`, a module that could not load as `internal_error` naming why,
    /// arguments that cannot be written as JSON as `invalid_json`. A failure described in
    /// a way this does not read is still ledgered, as the engine's failure.
    pub fn record_failure(
        &mut self,
        tool: &str,
        args_text: &str,
        time: &str,
        failure_json: &str,
    ) -> RunReport {
        let failure = Failure::from_json(failure_json).unwrap_or(Failure::WorkerFailed);
        let why = match failure {
            Failure::Trapped | Failure::WorkerFailed => Interruption::InternalError,
            Failure::Aborted => Interruption::Cancelled,
            Failure::ModuleUnavailable { reason } => Interruption::EngineUnavailable { reason },
            Failure::Unwritable { reason } => return self.refuse_unwritable(tool, &reason, time),
        };
        self.record_interruption(tool, args_text, time, why)
    }

    /// Ledgers a run of `tool` that did not finish, and says so to the caller.
    pub fn record_interruption(
        &mut self,
        tool: &str,
        args_text: &str,
        time: &str,
        why: Interruption,
    ) -> RunReport {
        let (args, dataset_sha256) = match parsed_args(args_text) {
            Ok(args) => {
                let dataset_sha256 = tools::dataset_sha256_for(&args);
                (args, dataset_sha256)
            }
            Err((_, recorded)) => (recorded, crate::dataset::sha256().to_string()),
        };
        let (status, error) = match why {
            Interruption::InternalError => (
                Status::InternalError,
                ToolError::new(
                    ErrorCode::InternalError,
                    format!(
                        "internal error in tool {tool}: the engine stopped unexpectedly and was \
restarted; this call has no result, later calls work as before"
                    ),
                ),
            ),
            Interruption::EngineUnavailable { reason } => (
                Status::InternalError,
                ToolError::new(
                    ErrorCode::InternalError,
                    format!(
                        "internal error in tool {tool}: the part of the engine it needs could \
not be loaded ({}); this call has no result, and the benchmark's tools still work",
                        crate::quote::quoted(&reason)
                    ),
                ),
            ),
            Interruption::Cancelled => (
                Status::Cancelled,
                ToolError::new(
                    ErrorCode::Cancelled,
                    format!("the call of {tool} was cancelled before it finished"),
                ),
            ),
        };
        self.report(tool, time, status, args, &dataset_sha256, Err(error))
    }

    /// Ledgers a call whose arguments were given as a value that cannot be written as JSON
    /// text, so that no tool can read them (on the page: a JavaScript BigInt, an object that
    /// contains itself, a `toJSON` that throws), and says so to the caller: refused as
    /// `invalid_json`, as arguments that are not JSON are. `reason` is the caller's runtime's
    /// own message, quoted cut; the ledger records it, as text, in place of the arguments.
    pub fn refuse_unwritable(&mut self, tool: &str, reason: &str, time: &str) -> RunReport {
        let reason = crate::quote::quoted(reason);
        let error = ToolError::new(
            ErrorCode::InvalidJson,
            format!(
                "the arguments cannot be written as JSON text ({reason}); a tool takes JSON \
values only: numbers, strings, true, false, null, and arrays and objects of them, none \
containing itself"
            ),
        );
        let recorded = Value::String(format!(
            "(arguments that cannot be written as JSON: {reason})"
        ));
        let dataset_sha256 = crate::dataset::sha256().to_string();
        self.report(
            tool,
            time,
            Status::Error,
            recorded,
            &dataset_sha256,
            Err(error),
        )
    }

    /// Ledgers the run (the arguments move into the ledger) and reports it. The result is
    /// hashed where it is, not copied.
    fn report(
        &mut self,
        tool: &str,
        time: &str,
        status: Status,
        args: Value,
        dataset_sha256: &str,
        result: Result<Value, ToolError>,
    ) -> RunReport {
        let plot = match &result {
            Ok(_) => tools::companion_plot_in(tool, &args, &self.store),
            Err(_) => None,
        };
        let summary = summary_of(&args);
        let args_display = args_display(&args, summary.is_none());
        let ledgered = match &result {
            Ok(value) => Cow::Borrowed(value),
            Err(error) => Cow::Owned(error.to_json()),
        };
        let entry = EntryHeader::from(self.ledger.append(Run {
            time,
            tool,
            status,
            args: summary.unwrap_or(args),
            dataset_sha256,
            result: &ledgered,
        }));
        // The tables and printed summary are the whole engine's: the page's first module
        // leaves them out, and the page asks the whole engine for them
        // (`crate::result_view::view_of`, `www/engine.js` `resultView`).
        #[cfg(feature = "extended")]
        let view = result
            .as_ref()
            .ok()
            .map(|value| crate::result_view::view_of(tool, value));
        #[cfg(not(feature = "extended"))]
        let view = None;
        let (display, display_abridged) = match &result {
            Ok(value) => result_display(value),
            Err(error) => (escaped(error.to_string()), false),
        };
        // The result moves into the response: it is held once.
        let (response, error) = match result {
            Ok(value) => (ToolResponse::result(value), None),
            Err(error) => (ToolResponse::error(&error), Some(error)),
        };
        RunReport {
            error,
            response,
            entry,
            plot,
            display,
            display_abridged,
            view,
            args_display,
        }
    }

    /// The plot drawn beside `tool`'s result with these arguments (the registry says which
    /// plot and with which of the arguments): `{"tool", "ok"}` or `{"tool", "error"}`; `None`
    /// when no companion plot goes with the call. Not ledgered: it draws a run that is.
    pub fn companion_plot(&self, tool: &str, args_text: &str) -> Option<Value> {
        let args = match tools::parse_args(args_text) {
            Ok(args) => args,
            Err(error) => {
                let mut out = error.to_json();
                out["tool"] = json!(tools::find(tool)?.companion?.plot);
                return Some(out);
            }
        };
        let (plot, plot_args) = tools::companion_call_in(tool, &args, &self.store)?;
        // Drawing reads the handles, never adds one: a copy of the store (shared data).
        let mut out = match tools::call_in(plot, &plot_args, &mut self.store.clone()) {
            Ok(result) => json!({"ok": result}),
            Err(error) => error.to_json(),
        };
        out["tool"] = json!(plot);
        Some(out)
    }

    /// The R code and methods text of `tool`'s result with these arguments
    /// (`{"r_code", "methods_text"}` or `{"error"}`, a tool that writes none among the
    /// errors); `None` for an unknown tool. Not ledgered: it re-runs a run that is, on a copy
    /// of the store.
    #[cfg(feature = "extended")]
    pub fn r_code(&self, tool: &str, args_text: &str) -> Option<Value> {
        if !tools::reproducible(tools::find(tool)?) {
            return Some(tools::reproduce::no_counterpart(tool).to_json());
        }
        let mut args = match tools::parse_args(args_text) {
            Ok(args) => args,
            Err(error) => return Some(error.to_json()),
        };
        if let Some(fields) = args.as_object_mut() {
            fields.insert(tools::reproduce::R_CODE.into(), Value::Bool(true));
        }
        Some(match tools::call_in(tool, &args, &mut self.store.clone()) {
            Ok(result) => json!({
                "r_code": result[tools::reproduce::R_CODE],
                "methods_text": result[tools::reproduce::METHODS_TEXT],
            }),
            Err(error) => error.to_json(),
        })
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The last entry, whole, as JSON text (what the page keeps to restore the session).
    pub fn last_entry_json(&self) -> Option<String> {
        let entry = self.ledger.entries().last()?;
        Some(serde_json::to_string(entry).expect("entries serialize"))
    }

    /// Verifies the entries added since the last verification, each against its predecessor;
    /// the chain's length, or where it breaks.
    pub fn verify(&mut self) -> Result<usize, LedgerError> {
        self.ledger.verify_from(self.verified)?;
        self.verified = self.ledger.len();
        Ok(self.verified)
    }
}

/// The answer for `tool`'s companion plot when it could not be drawn, worded here as
/// [`Session::companion_plot`]'s errors are: `{"tool", "error": {"code": "internal_error",
/// "message"}}`. `trapped`: the engine stopped while drawing it (and was restarted);
/// otherwise `reason` is the runtime's message (the whole module did not load, the worker
/// failed). `tool` names the plot when the registry at hand knows it, else the tool.
pub fn plot_failure(tool: &str, trapped: bool, reason: &str) -> Value {
    let message = if trapped {
        "the engine stopped while drawing the plot and was restarted"
    } else {
        reason
    };
    let mut out = ToolError::new(ErrorCode::InternalError, message).to_json();
    out["tool"] = json!(tools::find(tool)
        .and_then(|t| t.companion)
        .map_or(tool, |c| c.plot));
    out
}

/// Verifies an exported ledger; its length.
pub fn verify_exported(entries_json: &str) -> Result<usize, LedgerError> {
    ledger::verify_json(entries_json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Entry;

    const T: &str = "2026-12-02T10:00:00Z";

    /// The arguments the ledger recorded for the last run (a report's entry goes without).
    fn last_args(session: &Session) -> &Value {
        &session.ledger().entries().last().expect("a run").args
    }

    #[test]
    fn a_run_is_answered_and_ledgered_in_one_call() {
        let mut session = Session::new();
        let report = session.run("fit_random_effects", "{}", T);
        let ok = report.result().unwrap().clone();
        assert_eq!(ok["k"], 19);
        assert_eq!(report.response.content[0].text, ok.to_string());
        assert!(!report.response.is_error);
        assert_eq!(report.entry.seq, 1);
        assert_eq!(report.entry.status, Status::Ok);
        assert_eq!(report.entry.dataset_sha256, crate::dataset::sha256());
        assert_eq!(report.plot, Some("forest_plot"));
        assert_eq!(session.verify(), Ok(1));
        let json = serde_json::to_value(&report).unwrap();
        assert!(json.get("error").is_none());
        assert!(
            json.get("ok").is_none(),
            "the result is the response's, held once"
        );
        assert!(json["entry"].get("args").is_none());
        assert_eq!(json["entry"]["hash"], report.entry.hash);
        let whole: Entry = serde_json::from_str(&session.last_entry_json().unwrap()).unwrap();
        assert_eq!(EntryHeader::from(&whole), report.entry);
        assert_eq!(Some(&whole), session.ledger().entries().last());
        assert_eq!(json["response"].get("isError"), None);
    }

    #[test]
    fn an_error_reads_code_colon_message_and_is_ledgered() {
        let mut session = Session::new();
        let report = session.run("refit_excluding", r#"{"exclude":["s99"]}"#, T);
        assert_eq!(
            report.error.as_ref().unwrap().code,
            ErrorCode::UnknownRecord
        );
        assert!(report.response.is_error);
        assert!(report.response.content[0]
            .text
            .starts_with("unknown_record: there is no record with id \"s99\""));
        assert_eq!(report.entry.status, Status::Error);
        assert_eq!(report.plot, None);
        assert_eq!(session.verify(), Ok(1));
    }

    #[test]
    fn arguments_that_are_not_json_are_recorded_as_text() {
        let mut session = Session::new();
        for text in [
            "{bad",
            r#"{"id":"\ud800"}"#,
            r#"{"method":"DL","method":"REML"}"#,
        ] {
            let report = session.run("fit_random_effects", text, T);
            assert_eq!(report.error.unwrap().code, ErrorCode::InvalidJson, "{text}");
            assert_eq!(last_args(&session), &Value::String(text.to_string()));
            assert_eq!(report.entry.status, Status::Error);
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let report = session.run("fit_random_effects", &deep, T);
        assert_eq!(report.error.unwrap().code, ErrorCode::InvalidJson);
        assert_eq!(session.verify(), Ok(4));
    }

    /// Every failed call is ledgered, arguments no tool could read included (a BigInt or a
    /// cycle on the page, which JavaScript refuses to write as JSON).
    #[test]
    fn arguments_that_cannot_be_written_as_json_are_refused_and_ledgered() {
        let mut session = Session::new();
        session.run("get_dataset", "{}", T);
        let reason = format!(
            "Converting circular structure to JSON{}",
            " --> x".repeat(40)
        );
        let report = session.refuse_unwritable("fit_random_effects", &reason, T);
        assert_eq!(report.error.as_ref().unwrap().code, ErrorCode::InvalidJson);
        assert!(report.response.is_error);
        let text = &report.response.content[0].text;
        assert!(
            text.starts_with("invalid_json: the arguments cannot be written as JSON text (\"Converting circular structure to JSON"),
            "{text}"
        );
        assert!(
            text.contains("characters in all"),
            "the reason is quoted cut: {text}"
        );
        assert_eq!(report.entry.seq, 2);
        assert_eq!(report.entry.status, Status::Error);
        assert_eq!(report.entry.tool, "fit_random_effects");
        assert_eq!(report.plot, None);
        let recorded = last_args(&session).as_str().unwrap();
        assert!(
            recorded.starts_with("(arguments that cannot be written as JSON: \"Converting"),
            "{recorded}"
        );
        assert_eq!(report.display, text.as_str());
        assert_eq!(session.verify(), Ok(2));
        let bigint =
            session.refuse_unwritable("egger_test", "Do not know how to serialize a BigInt", T);
        assert!(bigint.response.content[0]
            .text
            .contains("(\"Do not know how to serialize a BigInt\")"));
        assert_eq!(bigint.entry.prev_hash, report.entry.hash);
        assert_eq!(session.verify(), Ok(3));
    }

    #[test]
    fn interruptions_are_ledgered_and_the_session_restores_from_its_export() {
        let mut session = Session::new();
        session.run("get_dataset", "", T);
        let trap = session.record_interruption(
            "forest_plot",
            r#"{"exclude":["s04"]}"#,
            T,
            Interruption::InternalError,
        );
        assert_eq!(trap.entry.status, Status::InternalError);
        assert!(trap.response.is_error);
        assert!(trap.response.content[0]
            .text
            .starts_with("internal_error: internal error in tool forest_plot"));
        let exported = session.ledger().to_json().to_string();
        let mut restored = Session::restore(&exported).unwrap();
        let cancelled =
            restored.record_interruption("leave_one_out", "{}", T, Interruption::Cancelled);
        assert_eq!(cancelled.entry.seq, 3);
        assert_eq!(cancelled.entry.prev_hash, trap.entry.hash);
        assert_eq!(cancelled.entry.status, Status::Cancelled);
        assert!(cancelled.response.content[0].text.contains("cancelled"));
        assert_eq!(restored.verify(), Ok(3));
        let unavailable = restored.record_interruption(
            "funnel_plot",
            "{}",
            T,
            Interruption::EngineUnavailable {
                reason: format!("Failed to fetch {}", "x".repeat(500)),
            },
        );
        assert_eq!(unavailable.entry.status, Status::InternalError);
        assert_eq!(unavailable.entry.prev_hash, cancelled.entry.hash);
        let text = &unavailable.response.content[0].text;
        assert!(text.starts_with("internal_error: internal error in tool funnel_plot: the part of the engine it needs could not be loaded (\"Failed to fetch"), "{text}");
        assert!(
            text.contains("characters in all"),
            "the reason is quoted cut: {text}"
        );
        assert_eq!(restored.verify(), Ok(4));

        let tampered = exported.replacen("forest_plot", "funnel_plot", 1);
        assert_eq!(Session::restore(&tampered).unwrap_err().seq, Some(2));
        assert_eq!(Session::restore("nope").unwrap_err().seq, None);
    }

    /// Every failure the page reports is ledgered, its status and wording decided here.
    #[test]
    fn the_page_reports_a_failure_and_the_session_decides_how_it_is_ledgered() {
        let mut session = Session::new();
        let cases = [
            (r#"{"kind":"trapped"}"#, Status::InternalError, "internal_error: internal error in tool egger_test: the engine stopped"),
            (r#"{"kind":"worker_failed"}"#, Status::InternalError, "internal_error: internal error in tool egger_test: the engine stopped"),
            (r#"{"kind":"aborted"}"#, Status::Cancelled, "cancelled: the call of egger_test was cancelled"),
            (
                r#"{"kind":"module_unavailable","reason":"Failed to fetch"}"#,
                Status::InternalError,
                "internal_error: internal error in tool egger_test: the part of the engine it needs could not be loaded (\"Failed to fetch\")",
            ),
            (
                r#"{"kind":"unwritable","reason":"BigInt"}"#,
                Status::Error,
                "invalid_json: the arguments cannot be written as JSON text (\"BigInt\")",
            ),
            ("nonsense", Status::InternalError, "internal_error: internal error in tool egger_test"),
            (r#"{"kind":"unwritable"}"#, Status::InternalError, "internal_error: internal error in tool egger_test"),
        ];
        for (i, (failure, status, text)) in cases.into_iter().enumerate() {
            let report = session.record_failure("egger_test", "{}", T, failure);
            assert_eq!(report.entry.seq, i as u64 + 1);
            assert_eq!(report.entry.status, status, "{failure}");
            assert!(
                report.display.starts_with(text),
                "{failure}: {}",
                report.display
            );
            assert!(report.response.is_error);
        }
        assert_eq!(session.verify(), Ok(7));
    }

    #[test]
    fn direction_controls_are_escaped_where_the_page_shows_json() {
        let mut session = Session::new();
        let args = r#"{"exclude":["s04"],"records":[{"id":"\u202eab","yi":0.1,"vi":0.1},{"id":"s04","yi":0.2,"vi":0.1},{"id":"c","yi":0.3,"vi":0.2}]}"#;
        let report = session.run("refit_excluding", args, T);
        assert!(report.result().is_some());
        assert!(!report.args_display.contains('\u{202e}'));
        assert!(report.args_display.contains("\\u202e"));
        let back: Value = serde_json::from_str(&report.args_display).unwrap();
        assert_eq!(&back, last_args(&session));
        let refused = session.run("refit_excluding", r#"{"exclude":["\u2067x"]}"#, T);
        assert!(refused.display.starts_with("unknown_record:"));
        assert!(!refused.display.contains('\u{2067}'), "{}", refused.display);
        assert_eq!(escape_direction_controls("a\u{200f}b"), "a\\u200fb");
    }

    /// A long result is shown cut (laying out megabytes would hold the page), a short one
    /// whole; the response keeps it whole either way.
    #[cfg(feature = "extended")]
    #[test]
    fn a_long_result_is_shown_abridged_and_a_short_one_whole() {
        let mut session = Session::new();
        let short = session.run("fit_random_effects", "{}", T);
        assert!(!short.display_abridged);
        assert_eq!(
            short.display,
            serde_json::to_string_pretty(short.result().unwrap()).unwrap()
        );
        let records: Vec<Value> = (0..500)
            .map(|i| json!({"id": format!("r{i}"), "yi": i as f64 / 1000.0, "vi": 0.01 + (i % 9) as f64 / 100.0}))
            .collect();
        let args = json!({ "records": records }).to_string();
        let long = session.run("leave_one_out", &args, T);
        let whole = serde_json::to_string_pretty(long.result().unwrap()).unwrap();
        assert!(whole.chars().count() > RESULT_DISPLAY_CHARS);
        assert!(long.display_abridged);
        let (kept, note) = long.display.split_once('…').unwrap();
        assert_eq!(kept, prefix(&whole, RESULT_DISPLAY_CHARS));
        assert_eq!(
            note,
            format!(
                " ({} characters in all; the whole result is in the download below)",
                whole.chars().count()
            )
        );
        assert_eq!(
            long.response.content[0].text,
            long.result().unwrap().to_string(),
            "the agent gets the whole result"
        );
    }

    #[test]
    fn huge_arguments_are_refused_unread_and_long_ones_abridged_on_the_page() {
        let mut session = Session::new();
        let method = "x".repeat(tools::MAX_ARGS_BYTES);
        let huge = format!(r#"{{"method":"{method}"}}"#);
        let report = session.run("fit_random_effects", &huge, T);
        let error = report.error.unwrap();
        assert_eq!(error.code, ErrorCode::InvalidArguments);
        assert!(error.message.len() < 200, "{}", error.message);
        let recorded = last_args(&session).as_str().unwrap();
        assert!(recorded.len() < DISPLAY_CHARS + 200);
        assert!(recorded.contains("refused unread"));

        // Under the size limit, a bad value is quoted by a short prefix only.
        let long = format!(r#"{{"method":"{}"}}"#, "y".repeat(50_000));
        let report = session.run("fit_random_effects", &long, T);
        assert!(report.display.len() < 300, "{}", report.display);
        assert!(report
            .args_display
            .ends_with("the exported ledger has them whole)"));
        assert!(report.args_display.chars().count() < DISPLAY_CHARS + 100);
        assert_eq!(
            last_args(&session)["method"].as_str().unwrap().len(),
            50_000
        );
    }

    /// Issue 29 item 13: the page kept every call's arguments for the whole visit (six calls
    /// of 4.7 MB: 13 -> 54 MB of heap). Arguments longer than LEDGER_ARGS_BYTES are ledgered
    /// as their size and SHA-256; the chain verifies as before.
    #[test]
    fn long_arguments_are_ledgered_as_their_size_and_hash() {
        let mut session = Session::new();
        let records: Vec<Value> = (0..3000)
            .map(|i| json!({"id": format!("r{i}"), "yi": i as f64 / 1000.0, "vi": 0.01 + (i % 9) as f64 / 100.0}))
            .collect();
        let args = json!({ "records": records });
        let canonical = crate::canonical::to_string(&args);
        assert!(canonical.len() > LEDGER_ARGS_BYTES);
        let report = session.run("fit_random_effects", &args.to_string(), T);
        assert_eq!(report.result().unwrap()["k"], 3000);
        let recorded = last_args(&session).as_str().unwrap();
        assert!(recorded.len() < 600, "{recorded}");
        assert!(recorded.starts_with(&canonical[..100]), "{recorded}");
        assert!(recorded.ends_with(&format!(
            "… (not kept: {} bytes of canonical JSON, SHA-256 {})",
            canonical.len(),
            crate::canonical::sha256_hex(&args)
        )));
        assert!(report
            .args_display
            .ends_with("the exported ledger has their size and SHA-256)"));
        // Text that is not JSON, as long: its size and the hash of the text.
        let text = format!("{{{}", "x".repeat(LEDGER_ARGS_BYTES));
        session.run("fit_random_effects", &text, T);
        let recorded = last_args(&session).as_str().unwrap();
        assert!(recorded.ends_with(&format!(
            "(not kept: {} bytes of text, SHA-256 {})",
            text.len(),
            crate::sha256_hex(text.as_bytes())
        )));
        // Short arguments stay whole; the chain verifies and restores.
        session.run("fit_random_effects", r#"{"method":"DL"}"#, T);
        assert_eq!(last_args(&session), &json!({"method": "DL"}));
        assert_eq!(session.verify(), Ok(3));
        let exported = session.ledger().to_json().to_string();
        assert!(exported.len() < 4000, "{} bytes", exported.len());
        assert_eq!(Session::restore(&exported).unwrap().ledger().len(), 3);
    }

    /// The loads a restore needs are those whose handles are held (at most MAX_HANDLES): a
    /// load too long for the ledger is replayed from the arguments the page kept, checked
    /// against the ledgered hash; without them its handle is expired, and later handles
    /// keep their numbers.
    #[cfg(feature = "extended")]
    #[test]
    fn a_restore_replays_the_held_loads_from_the_arguments_kept() {
        let big = |tag: &str| {
            let records: Vec<Value> = (0..2000)
                .map(|i| json!({"id": format!("{tag}{i}"), "yi": i as f64 / 1000.0, "vi": 0.02}))
                .collect();
            json!({ "records": records }).to_string()
        };
        let (a, b) = (big("a"), big("b"));
        let mut session = Session::new();
        let small = r#"{"records":[{"id":"x","yi":0.1,"vi":0.01},{"id":"y","yi":0.3,"vi":0.02}]}"#;
        assert_eq!(
            session.run("load_data", small, T).result().unwrap()["data_id"],
            "d1"
        );
        assert_eq!(
            session.run("load_data", &a, T).result().unwrap()["data_id"],
            "d2"
        );
        session.run("get_dataset", "{}", T);
        assert_eq!(
            session.run("load_data", &b, T).result().unwrap()["data_id"],
            "d3"
        );
        assert_eq!(session.kept_loads(), [1, 2, 4]);
        assert!(last_args(&session).is_string(), "b is ledgered as its hash");
        let fit = |s: &mut Session, id: &str| {
            s.run("fit_random_effects", &format!(r#"{{"data_id":"{id}"}}"#), T)
                .display
        };
        let before: Vec<String> = ["d1", "d2", "d3"].map(|d| fit(&mut session, d)).into();
        let exported = session.ledger().to_json().to_string();

        // With b's arguments kept: d1 (whole in the ledger) and d3 as before, d2 expired.
        let mut restored = Session::restore_with_loads(&exported, &[(4, &b)]).unwrap();
        assert_eq!(fit(&mut restored, "d1"), before[0]);
        assert_eq!(fit(&mut restored, "d3"), before[2]);
        assert!(fit(&mut restored, "d2").starts_with("unknown_data"));
        assert_eq!(restored.kept_loads(), [1, 4]);
        assert_eq!(
            restored.run("load_data", small, T).result().unwrap()["data_id"],
            "d4",
            "the numbers go on"
        );
        // Text that is not what was loaded (its hash differs) is not replayed.
        let mut wrong = Session::restore_with_loads(&exported, &[(2, &b), (4, &a)]).unwrap();
        assert!(fit(&mut wrong, "d2").starts_with("unknown_data"));
        assert!(fit(&mut wrong, "d3").starts_with("unknown_data"));
        let mut both = Session::restore_with_loads(&exported, &[(2, &a), (4, &b)]).unwrap();
        let after: Vec<String> = ["d1", "d2", "d3"].map(|d| fit(&mut both, d)).into();
        assert_eq!(after, before);

        // Loads dropped by the store's bounds are not kept.
        for _ in 0..tools::MAX_HANDLES {
            session.run("load_data", small, T);
        }
        let kept = session.kept_loads();
        assert_eq!(kept.len(), tools::MAX_HANDLES);
        assert!(!kept.contains(&1) && !kept.contains(&2) && !kept.contains(&4));
    }

    /// The display is abridged as it is written: the same text as the whole compact JSON,
    /// escaped, then cut, wherever the cut falls (in a multi-byte character's neighbourhood,
    /// inside an escape) and however long the arguments.
    #[test]
    fn the_arguments_display_is_the_whole_text_escaped_then_cut() {
        fn whole_then_cut(args: &Value) -> String {
            let text = escape_direction_controls(&args.to_string());
            let count = text.chars().count();
            if count <= DISPLAY_CHARS {
                return text;
            }
            format!(
                "{}… ({count} characters in all; the exported ledger has them whole)",
                prefix(&text, DISPLAY_CHARS)
            )
        }
        let mut cases = vec![
            json!({}),
            json!(null),
            json!("a\u{202e}b\u{2066}c\u{61c}\n\"é"),
            json!({"records": [{"id": "s\u{200f}1", "yi": 0.1, "vi": 1e-7}]}),
        ];
        // `{"x":"` is 6 characters: a string of `DISPLAY_CHARS - 8 + shift` characters puts the
        // cut around its end, `"}` being the last two.
        for shift in 0..12 {
            for fill in ["a", "é", "\u{1F600}", "\u{202e}"] {
                let body = fill.repeat(DISPLAY_CHARS - 8 + shift);
                cases.push(json!({ "x": body }));
                let mut mixed = "b".repeat(DISPLAY_CHARS - 12 + shift);
                mixed.push_str(&fill.repeat(3));
                cases.push(json!({ "x": mixed }));
            }
        }
        cases.push(json!({"x": "\u{2067}y".repeat(100_000)}));
        for args in &cases {
            assert_eq!(args_display(args, true), whole_then_cut(args), "{args}");
        }
    }

    #[test]
    fn verification_is_incremental() {
        let mut session = Session::new();
        session.run("get_dataset", "", T);
        assert_eq!(session.verify(), Ok(1));
        session.run("fit_random_effects", "{}", T);
        session.run("egger_test", "{}", T);
        assert_eq!(session.verify(), Ok(3));
        assert_eq!(session.verified, 3);
        // Only the new entries are checked, each against its predecessor.
        session.ledger.append(Run {
            time: T,
            tool: "get_dataset",
            status: Status::Ok,
            args: json!({}),
            dataset_sha256: "x",
            result: &json!(1),
        });
        assert_eq!(session.verify(), Ok(4));
        assert_eq!(session.ledger.verify_from(4), Ok(()));
        assert_eq!(session.ledger.verify_from(99), Ok(()));
    }

    /// A visit's handles survive a restore (the page's worker after a trap, or its move to
    /// the whole module): the ledgered loads are replayed, so the same handle names the
    /// same records; a run's view is the page's table of it.
    #[cfg(feature = "extended")]
    #[test]
    fn data_handles_live_in_the_session_and_survive_a_restore() {
        let mut session = Session::new();
        let records = r#"[{"id":"a","yi":0.1,"vi":0.01,"dose":1},{"id":"b","yi":0.3,"vi":0.02,"dose":2},{"id":"c","yi":-0.1,"vi":0.04,"dose":4}]"#;
        let loaded = session.run("load_data", &format!(r#"{{"records":{records}}}"#), "t0");
        assert_eq!(loaded.result().unwrap()["data_id"], "d1");
        let by_handle = session.run("fit_random_effects", r#"{"data_id":"d1"}"#, "t1");
        let inline = session.run(
            "fit_random_effects",
            &format!(r#"{{"records":{records}}}"#),
            "t2",
        );
        let mut by_handle_result = by_handle.result().unwrap().clone();
        let named = by_handle_result["dataset"]
            .as_object_mut()
            .unwrap()
            .remove("data_id");
        assert_eq!(named, Some(serde_json::json!("d1")));
        assert_eq!(&by_handle_result, inline.result().unwrap());
        assert_eq!(by_handle.entry.dataset_sha256, inline.entry.dataset_sha256);
        let view = by_handle.view.as_ref().unwrap();
        assert_eq!(view.tables[0].rows[3], ["k", "3"]);
        let plot = session
            .companion_plot("fit_random_effects", r#"{"data_id":"d1"}"#)
            .unwrap();
        assert!(plot["ok"]["svg"].is_string(), "{plot}");
        let mut restored = Session::restore(&session.ledger().to_json().to_string()).unwrap();
        let again = restored.run("fit_random_effects", r#"{"data_id":"d1"}"#, "t3");
        assert_eq!(again.result(), by_handle.result());
        let unknown = restored.run("fit_random_effects", r#"{"data_id":"d2"}"#, "t4");
        assert!(
            unknown
                .display
                .starts_with("unknown_data: there is no data handle \"d2\""),
            "{}",
            unknown.display
        );
        assert_eq!(unknown.view, None);
    }

    #[test]
    fn a_plot_that_could_not_be_drawn_is_worded_here() {
        let trapped = plot_failure("egger_test", true, "RuntimeError: unreachable");
        assert_eq!(
            trapped,
            json!({"error": {"code": "internal_error", "message": "the engine stopped while drawing the plot and was restarted"}, "tool": "funnel_plot"})
        );
        let unloaded = plot_failure("no_such_tool", false, "Failed to fetch");
        assert_eq!(unloaded["error"]["message"], "Failed to fetch");
        assert_eq!(unloaded["tool"], "no_such_tool");
    }

    #[cfg(feature = "extended")]
    #[test]
    fn companion_plots_follow_the_registry() {
        let session = Session::new();
        let plot = session.companion_plot("egger_test", "{}").unwrap();
        assert_eq!(plot["tool"], "funnel_plot");
        assert!(plot["ok"]["svg"].as_str().unwrap().starts_with("<svg"));
        assert_eq!(session.companion_plot("get_dataset", "{}"), None);
    }

    /// A meta-regression on one numeric moderator is drawn as a bubble plot with the
    /// arguments a bubble plot takes; on a text moderator no plot goes with it.
    #[cfg(feature = "extended")]
    #[test]
    fn the_report_names_the_plot_that_goes_with_these_arguments() {
        let mut session = Session::new();
        let args = r#"{"mods":["weeks"],"test":"knha","at":[{"weeks":3}]}"#;
        assert_eq!(
            session.run("meta_regression", args, T).plot,
            Some("bubble_plot")
        );
        let plot = session.companion_plot("meta_regression", args).unwrap();
        assert_eq!(plot["tool"], "bubble_plot");
        assert_eq!(plot["ok"]["numbers"]["moderator"], "weeks");
        let text = r#"{"mods":["tester"]}"#;
        assert_eq!(session.run("meta_regression", text, T).plot, None);
        assert_eq!(session.companion_plot("meta_regression", text), None);
        let by = r#"{"by":"setting"}"#;
        assert_eq!(
            session.run("subgroup_analysis", by, T).plot,
            Some("forest_plot")
        );
        let forest = session.companion_plot("subgroup_analysis", by).unwrap();
        assert_eq!(forest["ok"]["subgroups"]["by"], "setting");
        let bad = session.companion_plot("meta_regression", "{bad").unwrap();
        assert_eq!(
            (bad["tool"].as_str(), bad["error"]["code"].as_str()),
            (Some("bubble_plot"), Some("invalid_json"))
        );
    }
}
