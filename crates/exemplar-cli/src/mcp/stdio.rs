//! `exemplar mcp` on stdio: one JSON-RPC message per line, read here rather than by rmcp's
//! own stdio transport, so that every line gets an answer:
//!
//! - each line is at most [`check::MAX_MESSAGE_BYTES`]; a longer one is read to its end
//!   without being kept and answered with an Invalid Request that gives its size, under its
//!   own `id` (found while it streams by) or `"id": null`;
//! - each line is checked as [`check::check`] says (repeated keys, trailing text, parse
//!   errors answered with `"id": null`);
//! - valid JSON that is not a JSON-RPC message is an Invalid Request carrying its `id`; a
//!   notification is never answered (JSON-RPC), so an unknown one is ignored, as rmcp does.
//!
//! Answers and rmcp's messages go to stdout whole, one line each, through one lock.

use super::check::{self, IdScanner, RefusedArguments, Verdict};
use super::gate::MessageBytes;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions, ServerJsonRpcMessage};
use rmcp::service::RoleServer;
use rmcp::transport::Transport;
use serde_json::Value;
use std::sync::Arc;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, Mutex};

/// The transport rmcp serves on: messages from the reader task, replies to `W`.
pub struct LineTransport<W> {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    out: Arc<Mutex<W>>,
}

/// Starts reading `input` on its own task; rmcp serves the returned transport. The task ends
/// at the end of the input (after writing its own answers), which ends the session.
pub fn transport<R, W>(
    input: R,
    output: W,
    max_line: usize,
) -> (LineTransport<W>, tokio::task::JoinHandle<()>)
where
    R: AsyncBufRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let out = Arc::new(Mutex::new(output));
    // One message waits for rmcp at a time, so at most two lines are held.
    let (sender, incoming) = mpsc::channel(1);
    let reader = tokio::spawn(read_lines(input, out.clone(), sender, max_line));
    (LineTransport { incoming, out }, reader)
}

/// Writes one message and its newline at once, so lines never interleave.
async fn write_line<W: AsyncWrite + Unpin>(
    out: &Mutex<W>,
    message: serde_json::Result<Vec<u8>>,
) -> std::io::Result<()> {
    let mut line = message.map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut out = out.lock().await;
    out.write_all(&line).await?;
    out.flush().await
}

/// One line read from the input.
enum Line {
    /// A whole line (without its newline) is in the buffer.
    Whole,
    /// The line was longer than the limit: its length and top-level id.
    TooLong {
        bytes: usize,
        id: Value,
    },
    End,
}

async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    buffer: &mut Vec<u8>,
    max_line: usize,
) -> std::io::Result<Line> {
    buffer.clear();
    let mut skipped: Option<(usize, IdScanner)> = None;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            // The end of the input ends a last line without its newline too.
            return Ok(match skipped {
                Some((bytes, scanner)) => Line::TooLong {
                    bytes,
                    id: scanner.id(),
                },
                None if buffer.is_empty() => Line::End,
                None => Line::Whole,
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let piece = &available[..newline.unwrap_or(available.len())];
        match &mut skipped {
            Some((bytes, scanner)) => {
                *bytes += piece.len();
                scanner.feed(piece);
            }
            None if buffer.len() + piece.len() > max_line => {
                let mut scanner = IdScanner::default();
                scanner.feed(buffer);
                scanner.feed(piece);
                skipped = Some((buffer.len() + piece.len(), scanner));
                buffer.clear();
                buffer.shrink_to(64 * 1024);
            }
            None => buffer.extend_from_slice(piece),
        }
        let consumed = newline.map_or(available.len(), |at| at + 1);
        input.consume(consumed);
        if newline.is_some() {
            return Ok(match skipped {
                Some((bytes, scanner)) => Line::TooLong {
                    bytes,
                    id: scanner.id(),
                },
                None => Line::Whole,
            });
        }
    }
}

async fn read_lines<R, W>(
    mut input: R,
    out: Arc<Mutex<W>>,
    sender: mpsc::Sender<ClientJsonRpcMessage>,
    max_line: usize,
) where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buffer = Vec::new();
    loop {
        let line = match read_line(&mut input, &mut buffer, max_line).await {
            Ok(line) => line,
            Err(e) => {
                eprintln!("exemplar mcp: cannot read stdin: {e}");
                return;
            }
        };
        let answer = match line {
            Line::End => return,
            Line::TooLong { bytes, id } => Some(check::too_large(id, Some(bytes))),
            Line::Whole => {
                let text = buffer.strip_suffix(b"\r").unwrap_or(&buffer);
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match check::check(text) {
                    Verdict::Answer(answer) => Some(answer),
                    Verdict::Pass { message, refused } => {
                        match to_rmcp(message, refused, text.len()) {
                            Ok(Some(message)) => {
                                if sender.send(message).await.is_err() {
                                    return; // The session has ended.
                                }
                                None
                            }
                            Ok(None) => None,
                            Err(answer) => Some(answer),
                        }
                    }
                }
            }
        };
        if let Some(answer) = answer {
            if write_line(&out, serde_json::to_vec(&answer)).await.is_err() {
                return; // Nobody reads the answers any more.
            }
        }
    }
}

/// The message as rmcp's type, with a refusal of its arguments attached; `Ok(None)` for a
/// notification rmcp does not know (never answered); `Err` for the Invalid Request answer.
fn to_rmcp(
    message: Value,
    refused: Option<exemplar::tools::ToolError>,
    bytes: usize,
) -> Result<Option<ClientJsonRpcMessage>, Value> {
    let mut parsed = check::mcp_message(message)?;
    if let Some(ClientJsonRpcMessage::Request(request)) = &mut parsed {
        let extensions = request.request.extensions_mut();
        extensions.insert(MessageBytes(bytes));
        if let Some(refusal) = refused {
            extensions.insert(RefusedArguments(refusal));
        }
    }
    Ok(parsed)
}

impl<W: AsyncWrite + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<W> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        async move { write_line(&out, serde_json::to_vec(&item)).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::gate::CallGate;
    use serde_json::{json, Value};
    use std::sync::Arc;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    /// Issue 25 item 7 on stdio: the waiting room counts each call's line.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_too_large_for_the_waiting_room_is_busy() {
        let (mut client, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, client_out) = tokio::io::duplex(1 << 16);
        // No call ever runs; 50 bytes of messages may wait (a call is about 90).
        let gate = Arc::new(CallGate::new(0, 10, 50));
        let served = tokio::spawn(super::super::serve_lines(
            BufReader::new(server_in),
            server_out,
            gate,
        ));
        for message in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "egger_test", "arguments": {}}}),
        ] {
            client
                .write_all(format!("{message}\n").as_bytes())
                .await
                .unwrap();
        }
        let mut lines = BufReader::new(client_out).lines();
        let reply = tokio::time::timeout(std::time::Duration::from_secs(20), async {
            loop {
                let line = lines.next_line().await.unwrap().expect("a reply");
                let reply: Value = serde_json::from_str(&line).unwrap();
                if reply["id"] == 2 {
                    break reply;
                }
            }
        })
        .await
        .expect("answered at once, not left waiting");
        assert_eq!(reply["result"]["isError"], true);
        let text = reply["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("busy: "), "{text}");
        drop(client);
        served.await.unwrap().unwrap();
    }

    use super::super::gate::GateLimits;
    use super::super::handler::test_hook;

    /// A session served on stdio in this process: the client's input, its replies, and the
    /// server's task.
    struct Stdio {
        input: tokio::io::DuplexStream,
        replies: tokio::io::Lines<BufReader<tokio::io::DuplexStream>>,
        served: tokio::task::JoinHandle<Result<(), String>>,
        gate: Arc<CallGate>,
    }

    impl Stdio {
        async fn start(gate: CallGate) -> Stdio {
            let (input, server_in) = tokio::io::duplex(1 << 16);
            let (server_out, client_out) = tokio::io::duplex(1 << 16);
            let gate = Arc::new(gate);
            let served = tokio::spawn(super::super::serve_lines(
                BufReader::new(server_in),
                server_out,
                gate.clone(),
            ));
            let mut stdio = Stdio {
                input,
                replies: BufReader::new(client_out).lines(),
                served,
                gate,
            };
            stdio
                .send(
                    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}}),
                )
                .await;
            stdio.reply(1).await;
            stdio
                .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .await;
            stdio
        }

        async fn send(&mut self, message: Value) {
            let line = format!("{message}\n");
            self.input.write_all(line.as_bytes()).await.unwrap();
        }

        /// The reply to request `id`, skipping others.
        async fn reply(&mut self, id: impl Into<Value>) -> Value {
            let id = id.into();
            tokio::time::timeout(std::time::Duration::from_secs(20), async {
                loop {
                    let line = self.replies.next_line().await.unwrap().expect("a reply");
                    let reply: Value = serde_json::from_str(&line).unwrap();
                    if reply["id"] == id {
                        break reply;
                    }
                }
            })
            .await
            .unwrap_or_else(|_| panic!("no reply to {id}"))
        }
    }

    fn slow_call(id: u64, ms: u64, tag: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": test_hook::SLOW_TOOL, "arguments": {"ms": ms, "tag": tag}}})
    }

    /// Issue 29 item 2 on stdio: a call cancelled by `notifications/cancelled` while it waits
    /// never runs; the session goes on.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cancelled_call_leaves_the_waiting_room() {
        let gate = CallGate::with_limits(GateLimits {
            running: 1,
            ..GateLimits::default()
        });
        let mut stdio = Stdio::start(gate).await;
        let tag = "stdio-cancelled";
        // Call 2 holds the one running place before call 3 is sent, so that 3 is the one
        // waiting (sent together, either could start first on a loaded machine).
        stdio.send(slow_call(2, 1500, tag)).await;
        while test_hook::started(tag) == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        stdio.send(slow_call(3, 1500, tag)).await;
        stdio
            .send(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 3, "reason": "the user stopped it"}}),
            )
            .await;
        assert_eq!(stdio.reply(2).await["result"]["isError"], false);
        stdio
            .send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                "params": {"name": "get_dataset", "arguments": {}}}))
            .await;
        assert_eq!(stdio.reply(4).await["result"]["isError"], false);
        assert_eq!(test_hook::started(tag), 1, "the cancelled call never ran");
        drop(stdio.input);
        stdio.served.await.unwrap().unwrap();
    }

    /// Issue 41 item 1 on stdio: calls the client cancels (`notifications/cancelled`) while
    /// the engine runs them stop at its next checkpoint and give their turns back, so the
    /// session's next call runs instead of waiting (and being answered `busy`) behind work
    /// nobody will read.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancelled_running_calls_give_their_turns_back() {
        // The session's 2 turns; a call waits at most 2 s for one.
        let gate = CallGate::with_limits(GateLimits {
            time_limit: std::time::Duration::from_secs(2),
            ..GateLimits::default()
        });
        let mut stdio = Stdio::start(gate).await;
        // influence_diagnostics on 10,000 records: seconds each here (unoptimised).
        let records: Vec<Value> = (0..10_000)
            .map(|i| {
                let (yi, vi) = (
                    0.3 + f64::from(i % 97) / 200.0,
                    0.01 + f64::from(i % 31) / 300.0,
                );
                json!({"id": format!("r{i}"), "yi": yi, "vi": vi})
            })
            .collect();
        for id in [2, 3] {
            stdio
                .send(
                    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                    "name": "influence_diagnostics", "arguments": {"records": records}}}),
                )
                .await;
        }
        let started = std::time::Instant::now();
        while stdio.gate.running() < 2 {
            assert!(started.elapsed().as_secs() < 20, "the calls never ran");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        for id in [2, 3] {
            stdio
                .send(
                    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": id, "reason": "the user stopped it"}}),
                )
                .await;
        }
        stdio
            .send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                "params": {"name": "get_dataset", "arguments": {}}}))
            .await;
        let reply = stdio.reply(4).await;
        assert_eq!(reply["result"]["isError"], false, "{reply}");
        drop(stdio.input);
        stdio.served.await.unwrap().unwrap();
    }

    /// Issue 29 item 12: a tools/call whose params are not its shape (arguments an array or a
    /// string, params null) is invalid params (-32602) naming tools/call, not -32601.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_tools_call_of_the_wrong_shape_is_invalid_params() {
        let mut stdio = Stdio::start(CallGate::default()).await;
        let params = [
            json!({"name": "fit_random_effects", "arguments": []}),
            json!({"name": "fit_random_effects", "arguments": "x"}),
            Value::Null,
            json!({"arguments": {}}),
        ];
        for (id, params) in (10..).zip(params) {
            stdio
                .send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
                .await;
            let reply = stdio.reply(id).await;
            assert_eq!(reply["error"]["code"], -32602, "{params}: {reply}");
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(
                message.starts_with("Invalid params: the params of tools/call must be an object"),
                "{message}"
            );
        }
        // Other methods of the wrong shape too; an unknown method is still -32601.
        stdio
            .send(json!({"jsonrpc": "2.0", "id": 20, "method": "resources/read", "params": {"uri": 3}}))
            .await;
        assert_eq!(stdio.reply(20).await["error"]["code"], -32602);
        stdio
            .send(json!({"jsonrpc": "2.0", "id": 21, "method": "tools/run", "params": {}}))
            .await;
        assert_eq!(stdio.reply(21).await["error"]["code"], -32601);
        drop(stdio.input);
        stdio.served.await.unwrap().unwrap();
    }
}
