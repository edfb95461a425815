//! `exemplar mcp` on stdio, as an MCP client starts it, fed hostile lines (issue 25 items 4, 6
//! and 10): every line gets an answer on stdout, and the session goes on.

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

const MAX_ARGS: usize = exemplar::tools::MAX_ARGS_BYTES;
/// The message limit: the arguments' limit plus 1 MiB (`MAX_MESSAGE_BYTES`).
const MAX_MESSAGE: usize = MAX_ARGS + 1024 * 1024;

/// Runs `exemplar mcp` on `lines` (an initialize handshake first) and returns its stdout
/// messages but the initialize result, each checked to be one JSON value on one line.
fn session(lines: &[Vec<u8>]) -> Vec<Value> {
    session_with_init(lines).1
}

/// [`session`], with the reply to initialize.
fn session_with_init(lines: &[Vec<u8>]) -> (Value, Vec<Value>) {
    let mut input = Vec::new();
    for line in [
        json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "stdio-test", "version": "1"}}})
        .to_string()
        .into_bytes(),
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(),
    ]
    .iter()
    .chain(lines)
    {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().expect("every line was read");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let replies: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("each stdout line is one JSON message"))
        .collect();
    // The reader's own answers and rmcp's replies are written as they come, in any order.
    let (mut init, rest): (Vec<Value>, Vec<Value>) =
        replies.into_iter().partition(|reply| reply["id"] == "init");
    assert_eq!(init.len(), 1, "{rest:?}");
    (init.remove(0), rest)
}

fn call(id: u64, name: &str, arguments: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
    )
    .into_bytes()
}

fn by_id(replies: &[Value], id: impl Into<Value>) -> &Value {
    let id = id.into();
    replies
        .iter()
        .find(|reply| reply["id"] == id)
        .unwrap_or_else(|| panic!("no reply for id {id}: {replies:?}"))
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap()
}

/// Issue 21 item 3: the rules every tool shares reach an MCP client once, in the initialize
/// result's `instructions`, exactly as `exemplar::tools::instructions()` writes them.
#[test]
fn initialize_carries_the_shared_instructions() {
    let (init, rest) = session_with_init(&[]);
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(
        init["result"]["instructions"].as_str(),
        Some(exemplar::tools::instructions().as_str()),
        "{init}"
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "exemplar");
}

/// Item 4: a repeated key in the arguments is refused as `exemplar call` refuses it.
#[test]
fn repeated_keys_in_arguments_get_the_clis_error() {
    let arguments = r#"{"method":"REML","method":"DL"}"#;
    let replies = session(&[
        call(1, "fit_random_effects", arguments),
        call(2, "fit_random_effects", r#"{"method":"DL"}"#),
    ]);
    let refused = by_id(&replies, 1);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let cli = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .args(["call", "fit_random_effects", arguments])
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&cli.stdout).unwrap();
    let cli = &cli["error"];
    assert_eq!(
        text(refused),
        format!(
            "{}: {}",
            cli["code"].as_str().unwrap(),
            cli["message"].as_str().unwrap()
        )
    );
    assert!(text(refused).contains("duplicate key \"method\""));
    assert_eq!(by_id(&replies, 2)["result"]["isError"], false);
}

/// Item 10: a parse error is answered with `"id": null`; a message followed by other text
/// is answered under its id, naming the problem; the session goes on.
#[test]
fn parse_errors_and_trailing_text_are_answered() {
    let replies = session(&[
        b"this is not json".to_vec(),
        br#"{"jsonrpc":"2.0","id":5,"method":"ping"} and more"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":6,"method":"ping","id":7}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":8,"method":"no/such/method","params":[]}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#.to_vec(),
    ]);
    let parse = by_id(&replies, Value::Null);
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert!(parse.as_object().unwrap().contains_key("id"));
    assert_eq!(parse["id"], Value::Null);
    let trailing = by_id(&replies, 5);
    assert_eq!(trailing["error"]["code"], -32700);
    let message = trailing["error"]["message"].as_str().unwrap();
    assert!(message.contains("other text follows"), "{message}");
    let repeated = by_id(&replies, 7);
    assert_eq!(repeated["error"]["code"], -32600);
    assert!(repeated["error"]["message"]
        .as_str()
        .unwrap()
        .contains("duplicate key \"id\""));
    assert!(by_id(&replies, 8)["error"].is_object());
    assert_eq!(by_id(&replies, 9)["result"], json!({}));
    assert_eq!(replies.len(), 5, "{replies:?}");
}

/// Item 6: 16 MiB of arguments (the documented limit) can be sent; a line over the message
/// limit is answered under its own id with an error giving its size, and the next works.
#[test]
fn the_argument_limit_is_reachable_and_a_longer_line_is_answered() {
    // White space inside the arguments' object counts toward their size.
    let padded = |size: usize| {
        let core = r#"{"exclude":["s04"]}"#;
        format!(r#"{{"exclude":["s04"]{}}}"#, " ".repeat(size - core.len()))
    };
    let mut too_long = call(3, "refit_excluding", &padded(MAX_MESSAGE));
    // As the JS SDK writes it: the id last, after arguments whose records have ids.
    too_long.truncate(too_long.len() - 1);
    too_long.extend_from_slice(br#","records":[{"id":"s1"}],"id":"the-long-one"}"#);
    let too_long = String::from_utf8(too_long)
        .unwrap()
        .replacen(r#""id":3,"#, "", 1)
        .into_bytes();
    let replies = session(&[
        call(1, "refit_excluding", &padded(MAX_ARGS)),
        call(2, "refit_excluding", &padded(MAX_ARGS + 1)),
        too_long,
        call(4, "egger_test", "{}"),
    ]);
    assert_eq!(
        by_id(&replies, 1)["result"]["isError"],
        false,
        "16 MiB of arguments"
    );
    let over = by_id(&replies, 2);
    assert_eq!(over["result"]["isError"], true);
    assert_eq!(
        text(over),
        exemplar::tools::parse_args(&padded(MAX_ARGS + 1))
            .unwrap_err()
            .to_string()
    );
    let refused = by_id(&replies, "the-long-one");
    assert_eq!(refused["error"]["code"], -32600);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("at most {MAX_MESSAGE} bytes")),
        "{message}"
    );
    assert_eq!(by_id(&replies, 4)["result"]["isError"], false);
}
