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
    let (outcome, written) = run_in(name, args, store);
    let result = match (outcome.result, written) {
        (Ok(mut result), Some(Ok(written))) => {
            if let Value::Object(fields) = &mut result {
                fields.insert(R_CODE.into(), Value::String(written.r_code));
                fields.insert(METHODS_TEXT.into(), Value::String(written.methods_text));
            }
            Ok(result)
        }
        (Ok(_), Some(Err(e))) => Err(e),
        (result, _) => result,
    };
    Outcome {
        result,
        dataset_sha256: outcome.dataset_sha256,
    }
}

/// `r_code: true` (the whole engine only: the page's first module hands such a call on).
#[cfg(feature = "extended")]
use super::reproduce::{Written, METHODS_TEXT, R_CODE};

#[cfg(not(feature = "extended"))]
const R_CODE: &str = "r_code";
#[cfg(not(feature = "extended"))]
const METHODS_TEXT: &str = "methods_text";
#[cfg(not(feature = "extended"))]
struct Written {
    r_code: String,
    methods_text: String,
}

/// Runs the tool; with `r_code: true` also writes its R code (`None` when not asked).
fn run_in(
    name: &str,
    args: &Value,
    store: &mut DataStore,
) -> (Outcome, Option<Result<Written, ToolError>>) {
    let empty = Value::Object(Map::new());
    let args = if args.is_null() { &empty } else { args };
    let fail = |e: ToolError| Outcome {
        result: Err(e),
        dataset_sha256: dataset_sha256_for(args),
    };
    let (args, wants_r) = match take_r_code(name, args) {
        Ok(taken) => taken,
        Err(e) => return (fail(e), None),
    };
    let args = args.as_ref();
    let mut dataset_sha256 = None;
    let mut source = None;
    let result = dispatch(name, args, &mut dataset_sha256, store, &mut source);
    let written = match (&result, wants_r, source) {
        (Ok(result), true, Some(data)) => Some(write_r(name, args, &data, result)),
        _ => None,
    };
    let outcome = Outcome {
        result,
        dataset_sha256: dataset_sha256.unwrap_or_else(|| dataset_sha256_for(args)),
    };
    (outcome, written)
}

/// The arguments without `r_code`, and whether it asked for R code: a boolean, given to a
/// tool that writes R code (refused before the run otherwise).
#[cfg(feature = "extended")]
fn take_r_code<'a>(
    name: &str,
    args: &'a Value,
) -> Result<(std::borrow::Cow<'a, Value>, bool), ToolError> {
    let Some(flag) = args.get(R_CODE) else {
        return Ok((std::borrow::Cow::Borrowed(args), false));
    };
    let Some(wants) = flag.as_bool() else {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("{R_CODE} must be true or false, got {flag}"),
        ));
    };
    if let Some(tool) = super::find(name) {
        if wants && !super::reproducible(tool) {
            return Err(super::reproduce::no_counterpart(name));
        }
    }
    let mut without = args.clone();
    if let Value::Object(fields) = &mut without {
        fields.remove(R_CODE);
    }
    Ok((std::borrow::Cow::Owned(without), wants))
}

/// The page's first module writes no R code: a call asking for it is the whole engine's
/// (`Session::run_here` hands it on).
#[cfg(not(feature = "extended"))]
fn take_r_code<'a>(
    _name: &str,
    args: &'a Value,
) -> Result<(std::borrow::Cow<'a, Value>, bool), ToolError> {
    if args.get(R_CODE).is_some() {
        return Err(super::error::whole_engine("`r_code`"));
    }
    Ok((std::borrow::Cow::Borrowed(args), false))
}

#[cfg(feature = "extended")]
fn write_r(
    name: &str,
    args: &Value,
    data: &super::DataSource,
    result: &Value,
) -> Result<Written, ToolError> {
    let tool = super::find(name).expect("a tool that ran");
    match tool.handler.reproduce {
        Some(reproduce) => reproduce(args, data, result),
        None => Err(super::reproduce::no_counterpart(name)),
    }
}

#[cfg(not(feature = "extended"))]
fn write_r(
    _name: &str,
    _args: &Value,
    _data: &super::DataSource,
    _result: &Value,
) -> Result<Written, ToolError> {
    unreachable!("r_code is not taken without the whole engine")
}

/// Runs tool `name` with `args` (without `r_code`) and writes its R code: the result, the
/// script, the methods text and the numbers the script's `res` must give (the R test's).
#[cfg(feature = "extended")]
pub fn reproduced(name: &str, args: &Value) -> Result<(Value, Written), ToolError> {
    let mut with = args.clone();
    if let Value::Object(fields) = &mut with {
        fields.insert(R_CODE.into(), Value::Bool(true));
    }
    let (outcome, written) = run_in(name, &with, &mut DataStore::new());
    let result = outcome.result?;
    let written = written.expect("asked for")?;
    Ok((result, written))
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// The page's first module hands a call asking for R code to the whole engine.
    #[cfg(not(feature = "extended"))]
    #[test]
    fn r_code_is_the_whole_engines() {
        let e = super::call("fit_random_effects", &json!({"r_code": true})).unwrap_err();
        assert_eq!(e.code, super::ErrorCode::WholeEngine, "{e}");
        assert!(super::call("fit_random_effects", &json!({})).is_ok());
    }

    /// The whole engine takes `r_code` out before the schema check, whatever else is given.
    #[cfg(feature = "extended")]
    #[test]
    fn r_code_is_taken_before_the_schema_check() {
        let asked = super::call(
            "refit_excluding",
            &json!({"exclude": ["s04"], "r_code": true}),
        )
        .unwrap();
        let script = asked["r_code"].as_str().unwrap();
        assert!(
            script.contains("subset = !(id %in% c(\"s04\"))"),
            "{script}"
        );
        // Still an unknown property is refused.
        let e = super::call(
            "refit_excluding",
            &json!({"exclude": ["s04"], "r_codes": true}),
        )
        .unwrap_err();
        assert_eq!(e.code.as_str(), "unknown_property", "{e}");
    }
}
