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
    let id = check::id_of(&message);
    let notification = message.get("id").is_none() && message.get("method").is_some();
    match serde_json::from_value::<ClientJsonRpcMessage>(message) {
        Ok(mut parsed) => {
            if let ClientJsonRpcMessage::Request(request) = &mut parsed {
                let extensions = request.request.extensions_mut();
                extensions.insert(MessageBytes(bytes));
                if let Some(refusal) = refused {
                    extensions.insert(RefusedArguments(refusal));
                }
            }
            Ok(Some(parsed))
        }
        Err(_) if notification => Ok(None),
        Err(e) => Err(check::error(
            id,
            check::INVALID_REQUEST,
            format!("Invalid Request: not a JSON-RPC 2.0 message of MCP: {e}"),
        )),
    }
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
}
