//! How many tool calls run at once in one `exemplar mcp` server, and how many may wait.
//!
//! A call's memory is its parsed arguments (held from the moment rmcp has parsed the message)
//! and its work while it runs. [`MAX_RUNNING_CALLS`] run at once; others wait for a turn
//! while the waiting ones number at most [`MAX_WAITING_CALLS`] and their messages at most
//! [`MAX_WAITING_BYTES`]; a call beyond that is answered at once with a `busy:` tool error
//! (its arguments dropped), which an agent can retry. Many small calls may wait; few large.

use rmcp::model::{CallToolResult, ContentBlock};
use std::sync::{Arc, Mutex};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Tool calls running at once in one server (each on a blocking thread). A call on 100,000
/// records peaks at a few hundred MB (its arguments as JSON values, then its work), and one
/// call uses one core.
pub const MAX_RUNNING_CALLS: usize = 2;
/// Tool calls waiting for a turn in one server.
pub const MAX_WAITING_CALLS: usize = 64;
/// Bytes of messages (arguments and envelope) of the calls waiting in one server: two
/// messages of the largest size.
pub const MAX_WAITING_BYTES: usize = 2 * super::check::MAX_MESSAGE_BYTES;

/// The size of a tool call's message as it arrived, attached by the transport (a stdio line,
/// an HTTP body).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageBytes(pub usize);

#[derive(Debug)]
pub struct CallGate {
    running: Arc<Semaphore>,
    max_running: usize,
    /// The calls waiting: how many, and the bytes of their messages.
    waiting: Mutex<(usize, usize)>,
    max_waiting: usize,
    max_waiting_bytes: usize,
}

impl Default for CallGate {
    fn default() -> Self {
        CallGate::new(MAX_RUNNING_CALLS, MAX_WAITING_CALLS, MAX_WAITING_BYTES)
    }
}

/// A place in the waiting room, given back when the wait ends or is given up (the client
/// went away and rmcp dropped the call).
struct Waiting<'a> {
    gate: &'a CallGate,
    bytes: usize,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut waiting = self.gate.waiting.lock().unwrap();
        waiting.0 -= 1;
        waiting.1 -= self.bytes;
    }
}

impl CallGate {
    pub fn new(max_running: usize, max_waiting: usize, max_waiting_bytes: usize) -> Self {
        CallGate {
            running: Arc::new(Semaphore::new(max_running)),
            max_running,
            waiting: Mutex::new((0, 0)),
            max_waiting,
            max_waiting_bytes,
        }
    }

    /// A turn to run for a call whose message is `bytes` long, after waiting when every
    /// turn is taken; the `busy` answer when the waiting room is full.
    pub async fn enter(&self, bytes: usize) -> Result<OwnedSemaphorePermit, CallToolResult> {
        if let Ok(permit) = self.running.clone().try_acquire_owned() {
            return Ok(permit);
        }
        let _place = {
            let mut waiting = self.waiting.lock().unwrap();
            let (calls, held) = *waiting;
            if calls >= self.max_waiting || held + bytes > self.max_waiting_bytes {
                return Err(CallToolResult::error(vec![ContentBlock::text(format!(
                    "busy: this server is running {} tool calls and {calls} more ({held} bytes \
of messages) are waiting for a turn, its limit ({} calls, {} bytes); call again when one has \
answered",
                    self.max_running, self.max_waiting, self.max_waiting_bytes
                ))]));
            }
            *waiting = (calls + 1, held + bytes);
            Waiting { gate: self, bytes }
        };
        Ok(self
            .running
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed"))
    }

    #[cfg(test)]
    fn waiting(&self) -> (usize, usize) {
        *self.waiting.lock().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn busy_text(busy: CallToolResult) -> String {
        assert_eq!(busy.is_error, Some(true));
        let text = serde_json::to_value(&busy.content).unwrap()[0]["text"].clone();
        text.as_str().unwrap().to_owned()
    }

    /// Issue 25 item 7: concurrent calls are bounded; one past the waiting room is told so.
    #[tokio::test]
    async fn calls_beyond_the_bound_wait_and_past_the_waiting_room_are_busy() {
        let gate = Arc::new(CallGate::new(2, 1, 1000));
        let first = gate.enter(10).await.unwrap();
        let _second = gate.enter(10).await.unwrap();
        let waiting = tokio::spawn({
            let gate = gate.clone();
            async move { gate.enter(10).await.map(|_| ()) }
        });
        while gate.waiting().0 == 0 {
            tokio::task::yield_now().await;
        }
        assert!(!waiting.is_finished(), "a third call waits for a turn");
        assert_eq!(gate.waiting(), (1, 10));
        let text = busy_text(gate.enter(10).await.unwrap_err());
        assert!(text.starts_with("busy: "), "{text}");
        drop(first);
        assert!(
            waiting.await.unwrap().is_ok(),
            "it runs once a call has ended"
        );
        assert_eq!(gate.waiting(), (0, 0));
        // A wait given up (the client went away) leaves the waiting room.
        let _third = gate.enter(10).await.unwrap();
        let given_up = tokio::time::timeout(Duration::from_millis(20), gate.enter(10)).await;
        assert!(given_up.is_err());
        assert_eq!(gate.waiting(), (0, 0));
    }

    /// Many small calls may wait, but not many large ones.
    #[tokio::test]
    async fn the_waiting_room_is_bounded_in_bytes_too() {
        let gate = Arc::new(CallGate::new(1, 10, 100));
        let _running = gate.enter(1).await.unwrap();
        let mut waiting = Vec::new();
        for _ in 0..2 {
            let gate = gate.clone();
            waiting.push(tokio::spawn(
                async move { gate.enter(40).await.map(|_| ()) },
            ));
        }
        while gate.waiting().0 < 2 {
            tokio::task::yield_now().await;
        }
        let text = busy_text(gate.enter(40).await.unwrap_err());
        assert!(text.contains("80 bytes"), "{text}");
        // A small one still fits.
        let small = tokio::spawn({
            let gate = gate.clone();
            async move { gate.enter(20).await.map(|_| ()) }
        });
        while gate.waiting().0 < 3 {
            tokio::task::yield_now().await;
        }
        assert_eq!(gate.waiting(), (3, 100));
        small.abort();
        for task in waiting {
            task.abort();
        }
    }
}
