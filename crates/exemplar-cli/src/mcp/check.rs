//! Every incoming MCP message, on stdio and over HTTP, is read by the project's strict JSON
//! parser before rmcp parses it (rmcp parses with serde_json, where a repeated key is
//! last-wins). The outcome is a [`Verdict`]:
//!
//! - a tool call whose arguments text the registry refuses (a key repeated, more than
//!   [`tools::MAX_ARGS_BYTES`]) goes on with that refusal attached, and the handler answers it
//!   as a tool error, word for word what `exemplar call` and the page answer for the same text;
//! - a key repeated anywhere else is an Invalid Request (-32600) naming the key;
//! - text that is not JSON is a Parse error (-32700); a message followed by other text is
//!   answered too, with the message's `id` when it has one, otherwise `"id": null`.
//!
//! A message is at most [`MAX_MESSAGE_BYTES`]: the arguments' limit plus room for the rest.

use exemplar::strict_json;
use exemplar::tools::{self, ToolError};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use serde_json::{json, Value};
use std::ops::Range;

/// Room for everything of a message besides a tool call's arguments.
pub const ENVELOPE_BYTES: usize = 1024 * 1024;
/// The largest message read, on either transport: 17 MiB.
pub const MAX_MESSAGE_BYTES: usize = tools::MAX_ARGS_BYTES + ENVELOPE_BYTES;

/// JSON-RPC's code for text that is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a valid request.
pub const INVALID_REQUEST: i64 = -32600;

/// What to do with one incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Hand it to rmcp. `refused`: the registry's error for a tool call's arguments text.
    Pass {
        message: Value,
        refused: Option<ToolError>,
    },
    /// Answer this JSON-RPC error message instead.
    Answer(Value),
}

/// The refusal of a tool call's arguments, carried to the handler in the request's
/// extensions (stdio) or in its HTTP parts' extensions (Streamable HTTP).
#[derive(Debug, Clone, PartialEq)]
pub struct RefusedArguments(pub ToolError);

/// A JSON-RPC error message; `id` is `null` when the message's id cannot be known.
pub fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

/// The answer to a message longer than [`MAX_MESSAGE_BYTES`]. `size` is its length when known.
pub fn too_large(id: Value, size: Option<usize>) -> Value {
    let size = match size {
        Some(bytes) => format!("{bytes} bytes"),
        None => format!("more than {MAX_MESSAGE_BYTES} bytes"),
    };
    error(
        id,
        INVALID_REQUEST,
        format!(
            "Invalid Request: the message is {size}; at most {MAX_MESSAGE_BYTES} bytes are read \
(a tool call's arguments at most {} bytes of JSON text, plus {ENVELOPE_BYTES} for the rest)",
            tools::MAX_ARGS_BYTES
        ),
    )
}

/// A message's text without a leading byte order mark, which both transports accept (as
/// rmcp's stdio transport does).
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// A message [`check`] passed, as rmcp's type; `Ok(None)` for a notification rmcp does not
/// know (never answered, as JSON-RPC says); `Err`: the Invalid Request answer, for JSON that
/// is not a JSON-RPC message of MCP (a batch array, `[]`, a missing or wrong `jsonrpc`, an id
/// that is not a string or an integer, a method that is not a string, a bare value).
///
/// A tool call's arguments object is set aside while rmcp reads the rest and put back
/// after: rmcp's message type is an untagged enum with flattened fields, which serde reads by
/// buffering the whole input into its own tree, first, and reading it again per variant
/// tried: for 15 MiB of arguments of 20 text columns, 850 MB more than the call itself
/// (issue 41 item 7). Whether rmcp can read the rest does not depend on the arguments.
pub fn mcp_message(mut message: Value) -> Result<Option<ClientJsonRpcMessage>, Value> {
    let id = id_of(&message);
    let notification = message.get("id").is_none() && message.get("method").is_some();
    let call = message.get("method").and_then(Value::as_str) == Some("tools/call");
    let arguments = match message.pointer_mut("/params/arguments") {
        Some(Value::Object(arguments)) if call => Some(std::mem::take(arguments)),
        _ => None,
    };
    match serde_json::from_value::<ClientJsonRpcMessage>(message) {
        Ok(mut parsed) => {
            if let Some(arguments) = arguments {
                if let ClientJsonRpcMessage::Request(request) = &mut parsed {
                    if let ClientRequest::CallToolRequest(call) = &mut request.request {
                        call.params.arguments = Some(arguments);
                    }
                }
            }
            Ok(Some(parsed))
        }
        Err(_) if notification => Ok(None),
        Err(e) => Err(error(
            id,
            INVALID_REQUEST,
            format!("Invalid Request: not a JSON-RPC 2.0 message of MCP: {e}"),
        )),
    }
}

/// A tool call's arguments, as parsed here, handed to the handler beside an HTTP body that
/// no longer carries them ([`set_aside_arguments`]); taken once.
#[derive(Debug, Clone, Default)]
pub struct ParsedArguments(
    pub std::sync::Arc<std::sync::Mutex<Option<serde_json::Map<String, Value>>>>,
);

impl ParsedArguments {
    pub fn take(&self) -> Option<serde_json::Map<String, Value>> {
        self.0.lock().unwrap().take()
    }
}

/// A `tools/call` message's arguments object taken out of `message` (valid JSON `text`), and
/// `text` with `{}` in its place: rmcp reads the rest, and the handler is given the
/// arguments as parsed here (issue 41 item 7: rmcp's own parse of a body buffers it whole
/// several times over, 850 MB for 15 MiB of arguments of 20 text columns). `None` for any
/// other message, or arguments that are not an object.
pub fn set_aside_arguments(
    text: &[u8],
    message: &mut Value,
) -> Option<(serde_json::Map<String, Value>, Vec<u8>)> {
    let text = std::str::from_utf8(without_bom(text)).ok()?;
    let span = arguments_span(text, message)?;
    let Some(Value::Object(arguments)) = message.pointer_mut("/params/arguments") else {
        return None;
    };
    let arguments = std::mem::take(arguments);
    let mut rest = Vec::with_capacity(text.len() - span.len() + 2);
    rest.extend_from_slice(&text.as_bytes()[..span.start]);
    rest.extend_from_slice(b"{}");
    rest.extend_from_slice(&text.as_bytes()[span.end..]);
    Some((arguments, rest))
}

/// [`mcp_message`]'s verdict without reading a tool call's arguments (an HTTP body goes to
/// rmcp as text, which parses it itself): `Ok(true)` to hand it over, `Ok(false)` for a
/// notification rmcp does not know. Arguments that are an object are read as `{}`: whether
/// rmcp can read the rest does not depend on them.
pub fn mcp_envelope(mut message: Value) -> Result<bool, Value> {
    if let Some(arguments) = message.pointer_mut("/params/arguments") {
        if arguments.is_object() {
            *arguments = Value::Object(serde_json::Map::new());
        }
    }
    mcp_message(message).map(|parsed| parsed.is_some())
}

/// Checks one message's text (a stdio line without its newline, an HTTP body).
pub fn check(bytes: &[u8]) -> Verdict {
    let bytes = without_bom(bytes);
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Verdict::Answer(error(
            Value::Null,
            PARSE_ERROR,
            "Parse error: the message is not UTF-8 text",
        ));
    };
    match strict_json::parse(text) {
        Ok(message) => {
            // No key is repeated; only the arguments' size is left to check.
            let refused = arguments_span(text, &message)
                .filter(|span| span.len() > tools::MAX_ARGS_BYTES)
                .and_then(|span| tools::parse_args(&text[span]).err());
            Verdict::Pass { message, refused }
        }
        Err(strict) => match serde_json::from_str::<Value>(text) {
            Err(_) => Verdict::Answer(not_json(text, &strict)),
            Ok(message) => repeated_key(text, message, &strict),
        },
    }
}

/// Text serde_json cannot read either: a Parse error, with the id of a whole message that is
/// followed by other text.
fn not_json(text: &str, strict: &strict_json::StrictJsonError) -> Value {
    if let Ok((first, end)) = strict_json::parse_first(text) {
        if end < text.len() {
            return error(
                id_of(&first),
                PARSE_ERROR,
                format!(
                    "Parse error: the message ends at byte {end} and other text follows it \
({strict}); send one JSON-RPC message at a time"
                ),
            );
        }
    }
    error(Value::Null, PARSE_ERROR, format!("Parse error: {strict}"))
}

/// JSON with a key repeated: in a tool call's arguments, the tool's own refusal; anywhere
/// else, an Invalid Request naming the key.
fn repeated_key(text: &str, message: Value, strict: &strict_json::StrictJsonError) -> Verdict {
    let id = id_of(&message);
    let invalid = |e: &dyn std::fmt::Display| {
        Verdict::Answer(error(
            id.clone(),
            INVALID_REQUEST,
            format!("Invalid Request: {e}"),
        ))
    };
    let Some(span) = arguments_span(text, &message) else {
        return invalid(strict);
    };
    let envelope = format!("{}{{}}{}", &text[..span.start], &text[span.end..]);
    if let Err(e) = strict_json::parse(&envelope) {
        return invalid(&e);
    }
    match tools::parse_args(&text[span]) {
        Err(refusal) => Verdict::Pass {
            message,
            refused: Some(refusal),
        },
        Ok(_) => invalid(strict),
    }
}

/// The request's id, or `null` when it has none that JSON-RPC allows.
pub fn id_of(message: &Value) -> Value {
    match message.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// Where `params.arguments` of a `tools/call` request is in `text` (valid JSON whose value
/// is `message`); the last one when a key is repeated, as serde_json reads it.
fn arguments_span(text: &str, message: &Value) -> Option<Range<usize>> {
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let params = member_span(text, 0..text.len(), "params")?;
    member_span(text, params, "arguments")
}

/// The span of the value of the last member `key` of the object at `object` (valid JSON).
fn member_span(text: &str, object: Range<usize>, key: &str) -> Option<Range<usize>> {
    let bytes = &text.as_bytes()[..object.end];
    let mut at = skip_space(bytes, object.start);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    let mut found = None;
    loop {
        at = skip_space(bytes, at);
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(b'"') => {
                let key_end = string_end(bytes, at);
                let name: String = serde_json::from_str(text.get(at..key_end)?).ok()?;
                at = skip_space(bytes, key_end);
                if bytes.get(at) != Some(&b':') {
                    return None;
                }
                let start = skip_space(bytes, at + 1);
                let end = value_end(bytes, start);
                if name == key {
                    found = Some(start..end);
                }
                at = end;
            }
            _ => return found,
        }
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b" \t\r\n".contains(b)) {
        at += 1;
    }
    at
}

/// Just past the string starting at `at` (its opening quote).
fn string_end(bytes: &[u8], mut at: usize) -> usize {
    at += 1;
    while let Some(&b) = bytes.get(at) {
        at += match b {
            b'\\' => 2,
            b'"' => return at + 1,
            _ => 1,
        };
    }
    bytes.len()
}

/// Just past the value starting at `at`, without recursion.
fn value_end(bytes: &[u8], mut at: usize) -> usize {
    let mut depth = 0usize;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'"' => {
                at = string_end(bytes, at);
                if depth == 0 {
                    return at;
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == 0 {
                    return at;
                }
                depth -= 1;
                if depth == 0 {
                    return at + 1;
                }
            }
            b',' | b' ' | b'\t' | b'\r' | b'\n' if depth == 0 => return at,
            _ => {}
        }
        at += 1;
    }
    bytes.len()
}

/// Finds the top-level `"id"` of a message read piece by piece and never held whole (a line
/// too long to keep), so that its error answers the request that is waiting for it.
#[derive(Debug, Default)]
pub struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1: the next string is a key.
    expect_key: bool,
    /// Reading a key at depth 1 (its raw bytes, kept while short).
    key: Option<Vec<u8>>,
    /// The last key read at depth 1, if it was `id`.
    key_is_id: bool,
    /// Reading the value of `id` (its raw bytes, kept while short).
    value: Option<Vec<u8>>,
    /// The last complete `id` value's raw bytes.
    found: Option<Vec<u8>>,
}

/// An id longer than this is not kept (JSON-RPC ids are short numbers or strings).
const ID_BYTES: usize = 256;

impl IdScanner {
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if let Some(value) = &mut self.value {
            let ends = !self.in_string && self.depth == 1 && (b == b',' || b == b'}');
            if ends {
                self.found = self.value.take();
            } else if value.len() < ID_BYTES {
                value.push(b);
            } else {
                self.value = None;
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if let Some(key) = self.key.take() {
                    self.key_is_id = key == b"id";
                }
                return;
            }
            if let Some(key) = &mut self.key {
                if key.len() < 8 {
                    key.push(b);
                } else {
                    key.clear();
                    key.extend_from_slice(b"too long");
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.key = Some(Vec::new());
                    self.expect_key = false;
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = b == b'{';
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.expect_key = true,
            b':' if self.depth == 1 && self.key_is_id => {
                self.key_is_id = false;
                self.value = Some(Vec::new());
            }
            _ => {}
        }
    }

    /// The id seen, or `null`.
    pub fn id(&self) -> Value {
        let raw = self.found.as_deref().unwrap_or_default();
        serde_json::from_slice::<Value>(raw.trim_ascii())
            .map(|value| id_of(&json!({ "id": value })))
            .unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> Value {
        match check(text.as_bytes()) {
            Verdict::Answer(answer) => answer,
            pass => panic!("{text} passed: {pass:?}"),
        }
    }

    fn refused(text: &str) -> ToolError {
        match check(text.as_bytes()) {
            Verdict::Pass {
                refused: Some(error),
                ..
            } => error,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn a_repeated_key_in_arguments_is_the_registrys_own_refusal() {
        let arguments = r#"{"method":"REML","method":"DL"}"#;
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"fit_random_effects","arguments":{arguments}}}}}"#
        );
        assert_eq!(
            refused(&text),
            tools::parse_args(arguments).unwrap_err(),
            "the CLI's and the page's error for the same arguments text"
        );
        assert!(refused(&text).to_string().starts_with("invalid_json: "));
        // The arguments at the end of the message, after white space and escapes.
        let late = r#"{"params":{"arguments" : {"a":"\"}","a":2}, "name":"x"},"id":"q","jsonrpc":"2.0","method":"tools/call"}"#;
        assert!(refused(late).to_string().contains("duplicate key \"a\""));
    }

    #[test]
    fn a_repeated_key_elsewhere_is_an_invalid_request_naming_it() {
        let text = r#"{"jsonrpc":"2.0","id":3,"id":4,"method":"tools/list"}"#;
        let got = answer(text);
        assert_eq!(got["id"], 4, "serde_json's reading of the id");
        assert_eq!(got["error"]["code"], INVALID_REQUEST);
        assert!(got["error"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate key \"id\""));
        // Two `arguments` keys: the envelope, not the arguments, is ambiguous.
        let twice = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"arguments":{"a":1}}}"#;
        let got = answer(twice);
        assert!(got["error"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate key \"arguments\""));
    }

    /// Issue 41 item 7: a tool call's arguments reach the handler as parsed once, beside the
    /// rest of the message (rmcp reads only the rest); a prompt's arguments stay in place.
    #[test]
    fn a_tool_calls_arguments_are_set_aside_and_put_back() {
        let text = "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\
\"params\":{\"name\":\"egger_test\",\"arguments\":{\"method\":\"DL\",\"x\":[1,2]}}}";
        let Verdict::Pass { mut message, .. } = check(text.as_bytes()) else {
            panic!("passes")
        };
        let (arguments, rest) = set_aside_arguments(text.as_bytes(), &mut message).unwrap();
        assert_eq!(
            Value::Object(arguments),
            json!({"method": "DL", "x": [1, 2]})
        );
        assert_eq!(
            String::from_utf8(rest).unwrap(),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"egger_test","arguments":{}}}"#
        );
        let Verdict::Pass { message, .. } = check(text.as_bytes()) else {
            panic!("passes")
        };
        let Ok(Some(ClientJsonRpcMessage::Request(request))) = mcp_message(message) else {
            panic!("a request")
        };
        let ClientRequest::CallToolRequest(call) = request.request else {
            panic!("a tool call")
        };
        assert_eq!(
            call.params.arguments.map(Value::Object),
            Some(json!({"method": "DL", "x": [1, 2]}))
        );
        let prompt = r#"{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"p","arguments":{"a":"b"}}}"#;
        let Verdict::Pass { mut message, .. } = check(prompt.as_bytes()) else {
            panic!("passes")
        };
        assert!(set_aside_arguments(prompt.as_bytes(), &mut message).is_none());
        let Ok(Some(ClientJsonRpcMessage::Request(request))) = mcp_message(message) else {
            panic!("a request")
        };
        let ClientRequest::GetPromptRequest(get) = request.request else {
            panic!("a prompt request")
        };
        assert_eq!(get.params.arguments.map(|a| a.len()), Some(1));
    }

    #[test]
    fn unambiguous_messages_pass_unchanged() {
        let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":"}"}]}}}"#;
        assert_eq!(
            check(text.as_bytes()),
            Verdict::Pass {
                message: serde_json::from_str(text).unwrap(),
                refused: None
            }
        );
        assert!(matches!(
            check(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"method\":\"x\"}"),
            Verdict::Pass { refused: None, .. }
        ));
    }

    #[test]
    fn arguments_over_the_limit_are_refused_by_the_registry() {
        let big = format!(r#"{{"s":"{}"}}"#, "x".repeat(tools::MAX_ARGS_BYTES));
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{big}}}}}"#
        );
        assert_eq!(refused(&text), tools::parse_args(&big).unwrap_err());
    }

    #[test]
    fn parse_errors_have_an_id_and_trailing_text_is_named() {
        let got = answer("not json");
        assert_eq!(got["id"], Value::Null);
        assert!(got.as_object().unwrap().contains_key("id"));
        assert_eq!(got["error"]["code"], PARSE_ERROR);
        let got = answer(r#"{"jsonrpc":"2.0","id":9,"method":"ping"} garbage"#);
        assert_eq!(got["id"], 9);
        assert_eq!(got["error"]["code"], PARSE_ERROR);
        let message = got["error"]["message"].as_str().unwrap();
        assert!(message.contains("other text follows"), "{message}");
        let got = answer("\u{ff}\u{fe}");
        assert_eq!(got["error"]["code"], PARSE_ERROR);
        assert_eq!(answer_bytes(b"{\"a\":\"\xff\"}")["id"], Value::Null);
    }

    fn answer_bytes(bytes: &[u8]) -> Value {
        match check(bytes) {
            Verdict::Answer(answer) => answer,
            pass => panic!("passed: {pass:?}"),
        }
    }

    /// Issue 29 item 7: JSON that is not a JSON-RPC message of MCP is an Invalid Request
    /// with its id (when it has one JSON-RPC allows), read with or without its arguments; an
    /// unknown notification is left unanswered.
    #[test]
    fn json_that_is_not_an_mcp_message_is_an_invalid_request() {
        for (text, id) in [
            (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, Value::Null),
            ("[]", Value::Null),
            (r#"{"id":1,"method":"ping"}"#, json!(1)),
            (r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#, json!(2)),
            // JSON-RPC allows it (though it should not have a fraction); rmcp does not.
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, json!(1.5)),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                Value::Null,
            ),
            (r#"{"jsonrpc":"2.0","id":"s","method":7}"#, json!("s")),
            ("42", Value::Null),
            (r#""ping""#, Value::Null),
        ] {
            let Verdict::Pass { message, .. } = check(text.as_bytes()) else {
                panic!("{text} is JSON");
            };
            let answer = mcp_message(message.clone()).unwrap_err();
            assert_eq!(answer["error"]["code"], INVALID_REQUEST, "{text}");
            assert_eq!(answer["id"], id, "{text}");
            assert_eq!(mcp_envelope(message).unwrap_err(), answer, "{text}");
        }
        let unknown = json!({"jsonrpc": "2.0", "method": "notifications/unknown", "params": 3});
        assert!(matches!(mcp_message(unknown.clone()), Ok(None)));
        assert_eq!(mcp_envelope(unknown), Ok(false));
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "x", "arguments": {"a": [1, 2]}}});
        assert!(matches!(mcp_message(call.clone()), Ok(Some(_))));
        assert_eq!(mcp_envelope(call), Ok(true));
        // A leading byte order mark is no part of the message.
        assert_eq!(without_bom(b"\xEF\xBB\xBF{}"), b"{}");
    }

    #[test]
    fn the_id_scanner_finds_the_top_level_id_anywhere() {
        let scan = |pieces: &[&str]| {
            let mut scanner = IdScanner::default();
            for piece in pieces {
                scanner.feed(piece.as_bytes());
            }
            scanner.id()
        };
        assert_eq!(scan(&[r#"{"jsonrpc":"2.0","id":12,"method":"x"}"#]), 12);
        // The JS SDK writes the id last, after the arguments, whose records have ids.
        assert_eq!(
            scan(&[
                r#"{"method":"tools/call","params":{"arguments":{"records":[{"id":"s1"},"#,
                r#"{"id":"s\"2"}]}},"jsonrpc":"2.0","i"#,
                r#"d" : "req-5" }"#
            ]),
            "req-5"
        );
        assert_eq!(scan(&[r#"{"id":{"no":1},"method":"x"}"#]), Value::Null);
        assert_eq!(scan(&[r#"{"method":"x","params":{"id":3}"#]), Value::Null);
        assert_eq!(scan(&["garbage"]), Value::Null);
    }
}
