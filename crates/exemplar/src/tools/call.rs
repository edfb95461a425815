//! What callers call: a tool by name, from JSON text or a value, with or without a session's
//! data store, and the outcome the ledger records. Each runs the registry's dispatch.

use super::{dispatch, effect_sizes, DataStore, ErrorCode, ToolError};
use super::{MAX_ARGS_BYTES, MAX_TOOL_RECORDS};
use serde_json::{json, Map, Value};

/// Parses a JSON arguments text; empty text means no arguments. Ambiguous JSON (a key
/// repeated in one object) is refused like malformed JSON.
pub fn parse_args(args_json: &str) -> Result<Value, ToolError> {
    // Refused by its size alone, before any parsing.
    if args_json.len() > MAX_ARGS_BYTES {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "the arguments are {} bytes of JSON; at most {MAX_ARGS_BYTES} bytes are accepted \
(room for {MAX_TOOL_RECORDS} records)",
                args_json.len()
            ),
        ));
    }
    if args_json.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    crate::strict_json::parse(args_json).map_err(|e| {
        ToolError::new(
            ErrorCode::InvalidJson,
            format!("the arguments are not valid JSON: {e}"),
        )
    })
}

/// The outcome of one call and the data it was about (what the ledger records).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub result: Result<Value, ToolError>,
    /// The frozen dataset's hash, or the hash of the canonical JSON of `records`.
    pub dataset_sha256: String,
}

/// Runs a tool from a JSON arguments text and wraps the outcome as the page receives it:
/// `{"ok": <result>}` or `{"error": {"code", "message"}}`. Never fails.
pub fn call_json(name: &str, args_json: &str) -> Value {
    match parse_args(args_json).and_then(|args| call(name, &args)) {
        Ok(result) => json!({"ok": result}),
        Err(error) => error.to_json(),
    }
}

/// Runs tool `name` with `args` (`null` counts as `{}`), exactly as the page does.
pub fn call(name: &str, args: &Value) -> Result<Value, ToolError> {
    outcome(name, args).result
}

/// Runs tool `name` with `args` and says which data it analysed. Without a session's store:
/// `load_data` runs but its handle is forgotten, and a `data_id` is unknown.
pub fn outcome(name: &str, args: &Value) -> Outcome {
    outcome_in(name, args, &mut DataStore::new())
}

/// Runs tool `name` with `args` in a session whose handles are `store`: `load_data` keeps
/// its records there, and a `data_id` names them.
pub fn outcome_in(name: &str, args: &Value, store: &mut DataStore) -> Outcome {
    let empty = Value::Object(Map::new());
    let args = if args.is_null() { &empty } else { args };
    let mut dataset_sha256 = None;
    let result = dispatch(name, args, &mut dataset_sha256, store);
    Outcome {
        result,
        dataset_sha256: dataset_sha256.unwrap_or_else(|| dataset_sha256_for(args)),
    }
}

/// [`outcome_in`]'s result.
pub fn call_in(name: &str, args: &Value, store: &mut DataStore) -> Result<Value, ToolError> {
    outcome_in(name, args, store).result
}

/// The data a call analyses: the frozen dataset's hash, or the hash of the canonical JSON of
/// the `records` argument (whatever it holds), or of the raw `data` of
/// [`super::COMPUTE_EFFECT_SIZES`].
pub fn dataset_sha256_for(args: &Value) -> String {
    match args
        .get("records")
        .or_else(|| args.get(effect_sizes::DATA_ARGUMENT))
    {
        Some(records) => crate::canonical::sha256_hex(records),
        None => crate::dataset::sha256().to_string(),
    }
}
