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
                    Verdict::Pass { message, refused } => match to_rmcp(message, refused) {
                        Ok(Some(message)) => {
                            if sender.send(message).await.is_err() {
                                return; // The session has ended.
                            }
                            None
                        }
                        Ok(None) => None,
                        Err(answer) => Some(answer),
                    },
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
) -> Result<Option<ClientJsonRpcMessage>, Value> {
    let id = check::id_of(&message);
    let notification = message.get("id").is_none() && message.get("method").is_some();
    match serde_json::from_value::<ClientJsonRpcMessage>(message) {
        Ok(mut parsed) => {
            if let (Some(refusal), ClientJsonRpcMessage::Request(request)) = (refused, &mut parsed)
            {
                request
                    .request
                    .extensions_mut()
                    .insert(RefusedArguments(refusal));
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
