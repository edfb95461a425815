//! How tool calls share one `exemplar mcp` server: how many run at once, which waiting call
//! runs next, how long a call may take, and what becomes of a call whose client has gone.
//!
//! The engine computes synchronously, so what bounds CPU is how many calls are let in: each
//! runs on a blocking thread holding one of [`MAX_RUNNING_CALLS`] turns until the engine
//! returns. A call given up (timed out, its client gone, rmcp dropped it) has its
//! [`CancelToken`] set, and the engine stops at its next checkpoint
//! ([`meta_analysis::cancel`]: every iteration of a solver, every refit, cluster, design
//! column) with an answer nobody reads, so its thread returns and its turn is given back
//! within moments, not when the work would have ended. Threads still finishing after their
//! call was given up hold their turns meanwhile, so they count against
//! [`MAX_RUNNING_CALLS`]: no more than that many engine threads exist at once. Then:
//!
//! - a session's calls hold at most [`MAX_RUNNING_PER_SESSION`] turns (one left over for the
//!   other sessions), and a free turn goes to the waiting call whose session holds the fewest
//!   turns, the oldest first: a session's backlog never puts another session's call behind it;
//! - the waiting calls number at most [`MAX_WAITING_CALLS`] and their messages at most
//!   [`MAX_WAITING_BYTES`] (a waiting call holds its parsed arguments); a call beyond that is
//!   answered at once with a `busy:` tool error (its arguments dropped), which an agent can
//!   retry. Many small calls may wait; few large;
//! - every call is answered within [`CALL_TIME_LIMIT`] of its arrival: still waiting then, it
//!   is `busy:` and never runs; still running, it is `timed_out:` and its work is cancelled;
//! - a call whose client has gone (the HTTP request closed, `notifications/cancelled`, stdio
//!   closed) leaves the waiting room at once and never runs; a running one is answered
//!   `cancelled` (an answer nobody reads) and its work is cancelled.

use exemplar::tools::{ErrorCode, ToolError};
use meta_analysis::cancel::{self, CancelToken};
use rmcp::model::{CallToolResult, ContentBlock};
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::time::Instant;

/// Tool calls running at once in one server, each on a blocking thread, cancelled, timed-out
/// ones included until the engine returns. A call on 100,000 records peaks at a few hundred
/// MB (its arguments as JSON values, then its work), and one call uses one core.
pub const MAX_RUNNING_CALLS: usize = 3;
/// Turns the calls of one session hold at once: one turn is always left to other sessions.
pub const MAX_RUNNING_PER_SESSION: usize = 2;
/// Tool calls waiting for a turn in one server.
pub const MAX_WAITING_CALLS: usize = 64;
/// Bytes of messages (arguments and envelope) of the calls waiting in one server: two
/// messages of the largest size.
pub const MAX_WAITING_BYTES: usize = 2 * super::check::MAX_MESSAGE_BYTES;
/// Every tool call is answered within this time of its arrival.
pub const CALL_TIME_LIMIT: Duration = Duration::from_secs(60);

/// A call whose message was at least this long gives the memory its work freed back to the
/// system when it ends ([`return_freed_memory`]).
pub const TRIM_AFTER_BYTES: usize = 1024 * 1024;

/// Gives the heap's free pages back to the system. glibc keeps what a call freed (its parsed
/// arguments, several times the message, and its work) in its arenas for reuse, so a server
/// that answered a few large calls stayed at their peak resident size while idle (issue 41
/// item 7: 1.9 GB resident after one client's largest calls). `malloc_trim` returns every
/// whole free page (those inside an arena too, by `madvise`); it takes milliseconds, so it
/// runs only after large calls. Other allocators return memory themselves.
pub fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it is safe to call from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The size of a tool call's message as it arrived, attached by the transport (a stdio line,
/// an HTTP body).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageBytes(pub usize);

/// Cancelled when the client of a call has gone (its HTTP request closed), attached by the
/// transport as [`MessageBytes`] is; rmcp's own token covers `notifications/cancelled` and the
/// end of a session.
#[derive(Debug, Clone)]
pub struct ClientGone(pub tokio_util::sync::CancellationToken);

/// The bounds of a [`CallGate`].
#[derive(Debug, Clone)]
pub struct GateLimits {
    pub running: usize,
    pub per_session: usize,
    pub waiting: usize,
    pub waiting_bytes: usize,
    pub time_limit: Duration,
}

impl Default for GateLimits {
    fn default() -> Self {
        GateLimits {
            running: MAX_RUNNING_CALLS,
            per_session: MAX_RUNNING_PER_SESSION,
            waiting: MAX_WAITING_CALLS,
            waiting_bytes: MAX_WAITING_BYTES,
            time_limit: CALL_TIME_LIMIT,
        }
    }
}

#[derive(Debug)]
pub struct CallGate {
    limits: GateLimits,
    state: Mutex<State>,
}

impl Default for CallGate {
    fn default() -> Self {
        CallGate::with_limits(GateLimits::default())
    }
}

#[derive(Debug, Default)]
struct State {
    /// Turns held, by all sessions.
    running: usize,
    /// Turns held, by session.
    by_session: HashMap<u64, usize>,
    /// The calls waiting, in order of arrival.
    waiting: Vec<Waiter>,
    waiting_bytes: usize,
    arrivals: u64,
}

#[derive(Debug)]
struct Waiter {
    arrival: u64,
    session: u64,
    bytes: usize,
    turn: oneshot::Sender<()>,
}

impl State {
    fn may_run(&self, session: u64, limits: &GateLimits) -> bool {
        self.running < limits.running
            && self.by_session.get(&session).copied().unwrap_or(0) < limits.per_session
    }

    fn take_turn(&mut self, session: u64) {
        self.running += 1;
        *self.by_session.entry(session).or_default() += 1;
    }

    fn give_back_turn(&mut self, session: u64, limits: &GateLimits) {
        self.running -= 1;
        if let Some(held) = self.by_session.get_mut(&session) {
            *held -= 1;
            if *held == 0 {
                self.by_session.remove(&session);
            }
        }
        self.hand_out_turns(limits);
    }

    /// Free turns go to the waiting calls whose sessions hold the fewest, oldest first.
    fn hand_out_turns(&mut self, limits: &GateLimits) {
        while self.running < limits.running {
            let next = self
                .waiting
                .iter()
                .enumerate()
                .filter(|(_, waiter)| self.may_run(waiter.session, limits))
                .min_by_key(|(_, waiter)| {
                    let held = self.by_session.get(&waiter.session).copied();
                    (held.unwrap_or(0), waiter.arrival)
                })
                .map(|(at, _)| at);
            let Some(at) = next else { return };
            let waiter = self.waiting.remove(at);
            self.waiting_bytes -= waiter.bytes;
            self.take_turn(waiter.session);
            // A waiter whose receiver is gone gives the turn back when its place drops.
            let _ = waiter.turn.send(());
        }
    }
}

/// Sets a call's token when the call ends, however it ends: after an answer the work is over
/// and the token is read no more; after `timed_out`, `cancelled` or a dropped call (rmcp
/// dropped the future), the engine stops at its next checkpoint.
struct CancelOnDrop(CancelToken);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// A turn to run, held by the call's thread until the engine returns.
struct Turn {
    gate: Arc<CallGate>,
    session: u64,
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut state = self.gate.state.lock().unwrap();
        state.give_back_turn(self.session, &self.gate.limits);
    }
}

/// A place in the waiting room, left when the wait ends or is given up (the client went
/// away, the time limit passed, or rmcp dropped the call); a turn handed to it meanwhile and
/// not taken is given back.
struct Place {
    gate: Arc<CallGate>,
    arrival: u64,
    session: u64,
    taken: bool,
}

impl Drop for Place {
    fn drop(&mut self) {
        if self.taken {
            return;
        }
        let mut state = self.gate.state.lock().unwrap();
        match state.waiting.iter().position(|w| w.arrival == self.arrival) {
            Some(at) => {
                let waiter = state.waiting.remove(at);
                state.waiting_bytes -= waiter.bytes;
            }
            None => state.give_back_turn(self.session, &self.gate.limits),
        }
    }
}

/// Why a call got no result.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The waiting room was full, or the call waited past the time limit.
    Busy(String),
    /// The call ran past the time limit.
    TimedOut(String),
    /// The client went away (`cancelled`), or the thread failed (`internal_error`).
    Error(ToolError),
}

impl Refusal {
    pub fn text(&self) -> String {
        match self {
            Refusal::Busy(text) | Refusal::TimedOut(text) => text.clone(),
            Refusal::Error(error) => error.to_string(),
        }
    }
}

impl From<Refusal> for CallToolResult {
    fn from(refusal: Refusal) -> Self {
        CallToolResult::error(vec![ContentBlock::text(refusal.text())])
    }
}

impl CallGate {
    /// A gate with the default bounds but these three.
    #[cfg(test)]
    pub fn new(max_running: usize, max_waiting: usize, max_waiting_bytes: usize) -> Self {
        CallGate::with_limits(GateLimits {
            running: max_running,
            waiting: max_waiting,
            waiting_bytes: max_waiting_bytes,
            ..GateLimits::default()
        })
    }

    pub fn with_limits(limits: GateLimits) -> Self {
        CallGate {
            limits,
            state: Mutex::default(),
        }
    }

    /// Runs `work` (the call of `tool`, `bytes` long as it arrived, of `session`) on a
    /// blocking thread once it has a turn, and answers its result; or why it has none: the
    /// waiting room is full, the time limit passed, or `gone` (the client went away) ended
    /// first.
    pub async fn run<T, F>(
        self: &Arc<Self>,
        session: u64,
        bytes: usize,
        tool: &str,
        gone: impl Future<Output = ()>,
        work: F,
    ) -> Result<T, Refusal>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let arrived = Instant::now();
        let deadline = arrived + self.limits.time_limit;
        let limit = self.limits.time_limit.as_secs_f64();
        let cancelled = || {
            Refusal::Error(ToolError::new(
                ErrorCode::Cancelled,
                format!("the call of {tool} was cancelled before it finished"),
            ))
        };
        tokio::pin!(gone);
        let turn = match self.enter(session, bytes)? {
            Ok(turn) => turn,
            Err((mut place, granted)) => {
                tokio::select! {
                    biased;
                    () = &mut gone => return Err(cancelled()),
                    Ok(()) = granted => {
                        place.taken = true;
                        Turn { gate: self.clone(), session }
                    }
                    () = tokio::time::sleep_until(deadline) => {
                        return Err(Refusal::Busy(format!(
                            "busy: the call of {tool} waited {limit} s for a turn and did not \
                get one: this server runs {} tool calls at once and answers every call within {limit} s; call \
                again when one has answered",
                            self.limits.running
                        )));
                    }
                }
            }
        };
        let token = CancelToken::new();
        let _stop = CancelOnDrop(token.clone());
        let running = tokio::task::spawn_blocking(move || {
            let answer = cancel::with_token(&token, work);
            // The arguments are freed by now (the work consumed them); the answer is freed
            // once sent, and trimmed after the next large call.
            if bytes >= TRIM_AFTER_BYTES {
                return_freed_memory();
            }
            drop(turn);
            answer
        });
        tokio::select! {
            biased;
            () = &mut gone => Err(cancelled()),
            answer = running => answer.map_err(|e| {
                Refusal::Error(ToolError::new(
                    ErrorCode::InternalError,
                    format!("internal error in tool {tool}: {e}"),
                ))
            }),
            () = tokio::time::sleep_until(deadline) => Err(Refusal::TimedOut(format!(
                "timed_out: the call of {tool} did not finish within {limit} s, this server's \
        limit for one tool call, and has no result; a smaller call (fewer records, fewer moderators or \
        steps) may finish in time"
            ))),
        }
    }

    /// A turn at once, or a place in the waiting room with the channel its turn comes by, or
    /// the `busy` answer when the room is full.
    #[allow(clippy::type_complexity)]
    fn enter(
        self: &Arc<Self>,
        session: u64,
        bytes: usize,
    ) -> Result<Result<Turn, (Place, oneshot::Receiver<()>)>, Refusal> {
        let mut state = self.state.lock().unwrap();
        // Free turns go to waiting calls as soon as they can run, so a free turn this call
        // may take is one no waiting call may (theirs are sessions at their share).
        if state.may_run(session, &self.limits) {
            state.take_turn(session);
            return Ok(Ok(Turn {
                gate: self.clone(),
                session,
            }));
        }
        let (calls, held) = (state.waiting.len(), state.waiting_bytes);
        if calls >= self.limits.waiting || held + bytes > self.limits.waiting_bytes {
            return Err(Refusal::Busy(format!(
                "busy: this server is running {} tool calls and {calls} more ({held} bytes of \
messages) are waiting for a turn, its limit ({} calls, {} bytes); call again when one has \
answered",
                state.running, self.limits.waiting, self.limits.waiting_bytes
            )));
        }
        state.arrivals += 1;
        let arrival = state.arrivals;
        let (sender, receiver) = oneshot::channel();
        state.waiting.push(Waiter {
            arrival,
            session,
            bytes,
            turn: sender,
        });
        state.waiting_bytes += bytes;
        let place = Place {
            gate: self.clone(),
            arrival,
            session,
            taken: false,
        };
        Ok(Err((place, receiver)))
    }

    /// The calls waiting and the bytes of their messages.
    #[cfg(test)]
    pub fn waiting(&self) -> (usize, usize) {
        let state = self.state.lock().unwrap();
        (state.waiting.len(), state.waiting_bytes)
    }

    /// The turns held.
    #[cfg(test)]
    pub fn running(&self) -> usize {
        self.state.lock().unwrap().running
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Condvar;
    use tokio::sync::Notify;

    fn limits(running: usize, per_session: usize) -> GateLimits {
        GateLimits {
            running,
            per_session,
            waiting: 10,
            waiting_bytes: 1000,
            time_limit: Duration::from_secs(30),
        }
    }

    /// Lets blocked calls end, one per [`Release::one`].
    #[derive(Default)]
    struct Release {
        permits: Mutex<usize>,
        ready: Condvar,
    }

    impl Release {
        /// Waits for a permit, at most 20 s (a failed test's runtime waits for its threads).
        fn wait(&self) {
            let started = std::time::Instant::now();
            let mut permits = self.permits.lock().unwrap();
            while *permits == 0 {
                if started.elapsed() > Duration::from_secs(20) {
                    return;
                }
                permits = self
                    .ready
                    .wait_timeout(permits, Duration::from_millis(100))
                    .unwrap()
                    .0;
            }
            *permits -= 1;
        }

        fn one(&self) {
            *self.permits.lock().unwrap() += 1;
            self.ready.notify_all();
        }
    }

    /// A call of `session` that runs until `release` lets it end, recording its start in
    /// `log`; its client goes away when `gone` is notified.
    fn blocked(
        gate: &Arc<CallGate>,
        session: u64,
        log: &Arc<Mutex<Vec<u64>>>,
        release: &Arc<Release>,
        gone: &Arc<Notify>,
    ) -> tokio::task::JoinHandle<Result<u64, Refusal>> {
        let (gate, log, release, gone) = (gate.clone(), log.clone(), release.clone(), gone.clone());
        tokio::spawn(async move {
            gate.run(session, 10, "t", gone.notified_owned(), move || {
                log.lock().unwrap().push(session);
                release.wait();
                session
            })
            .await
        })
    }

    async fn until(mut done: impl FnMut() -> bool) {
        let started = Instant::now();
        while !done() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "waited too long"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    fn never() -> Arc<Notify> {
        Arc::new(Notify::new())
    }

    /// Issue 25 item 7: concurrent calls are bounded; one past the waiting room is told so.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_beyond_the_bound_wait_and_past_the_waiting_room_are_busy() {
        let gate = Arc::new(CallGate::with_limits(GateLimits {
            waiting: 1,
            ..limits(2, 2)
        }));
        let log = Arc::new(Mutex::new(Vec::new()));
        let release = Arc::new(Release::default());
        let first = blocked(&gate, 1, &log, &release, &never());
        let second = blocked(&gate, 1, &log, &release, &never());
        until(|| log.lock().unwrap().len() == 2).await;
        let third = blocked(&gate, 1, &log, &release, &never());
        until(|| gate.waiting() == (1, 10)).await;
        let busy = gate.run(1, 10, "t", never().notified_owned(), || 0).await;
        let text = busy.unwrap_err().text();
        assert!(text.starts_with("busy: "), "{text}");
        release.one();
        until(|| log.lock().unwrap().len() == 3).await;
        assert_eq!(gate.waiting(), (0, 0), "it runs once a call has ended");
        release.one();
        release.one();
        for call in [first, second, third] {
            assert_eq!(call.await.unwrap(), Ok(1));
        }
        assert_eq!(gate.running(), 0);
    }

    /// Many small calls may wait, but not many large ones.
    #[tokio::test]
    async fn the_waiting_room_is_bounded_in_bytes_too() {
        let gate = Arc::new(CallGate::with_limits(GateLimits {
            waiting_bytes: 100,
            ..limits(0, 2)
        }));
        let mut waiting = Vec::new();
        for _ in 0..2 {
            let gate = gate.clone();
            waiting.push(tokio::spawn(async move {
                gate.run(1, 40, "t", never().notified_owned(), || ()).await
            }));
        }
        until(|| gate.waiting().0 == 2).await;
        let busy = gate.run(1, 40, "t", never().notified_owned(), || ()).await;
        let text = busy.unwrap_err().text();
        assert!(text.contains("80 bytes"), "{text}");
        // A small one still fits.
        let small = tokio::spawn({
            let gate = gate.clone();
            async move { gate.run(1, 20, "t", never().notified_owned(), || ()).await }
        });
        until(|| gate.waiting() == (3, 100)).await;
        // A wait given up (rmcp dropped the call) leaves the waiting room.
        small.abort();
        for task in waiting {
            task.abort();
        }
        until(|| gate.waiting() == (0, 0)).await;
    }

    /// Issue 29 item 2: a session's calls hold at most its share of the turns, so another
    /// session's call runs at once while they run; and a free turn goes to the session
    /// holding the fewest, not to the oldest call of a busy session.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn another_sessions_call_does_not_wait_behind_a_sessions_backlog() {
        let gate = Arc::new(CallGate::with_limits(limits(3, 2)));
        let log = Arc::new(Mutex::new(Vec::new()));
        let (first, rest) = (Arc::new(Release::default()), Arc::new(Release::default()));
        // Session 1: two long calls running and three more waiting.
        let mut calls = vec![blocked(&gate, 1, &log, &first, &never())];
        until(|| log.lock().unwrap().len() == 1).await;
        for _ in 0..4 {
            calls.push(blocked(&gate, 1, &log, &rest, &never()));
        }
        until(|| log.lock().unwrap().len() == 2 && gate.waiting().0 == 3).await;
        // Session 2's call runs at once, on the turn left over.
        let started = Instant::now();
        let other = gate.run(2, 10, "t", never().notified_owned(), || 2).await;
        assert_eq!(other, Ok(2));
        assert!(started.elapsed() < Duration::from_secs(1));
        // Session 3 takes that turn; session 4 waits behind session 1's three.
        calls.push(blocked(&gate, 3, &log, &rest, &never()));
        until(|| log.lock().unwrap().len() == 3).await;
        calls.push(blocked(&gate, 4, &log, &rest, &never()));
        until(|| gate.waiting().0 == 4).await;
        // Session 1's first call ends: its turn goes to session 4, which holds none.
        first.one();
        until(|| log.lock().unwrap().len() == 4).await;
        let order = log.lock().unwrap().clone();
        assert_eq!(order, [1, 1, 3, 4]);
        for _ in 0..6 {
            rest.one();
        }
        for call in calls {
            assert!(call.await.unwrap().is_ok());
        }
        assert_eq!(gate.running(), 0);
    }

    /// Issue 29 item 2: a call whose client went away leaves the waiting room and never runs;
    /// a running one is answered at once, and its turn is held until its thread ends.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_whose_client_has_gone_stops_waiting_and_is_not_waited_for() {
        let gate = Arc::new(CallGate::with_limits(limits(1, 1)));
        let log = Arc::new(Mutex::new(Vec::new()));
        let release = Arc::new(Release::default());
        let running_gone = never();
        let running = blocked(&gate, 1, &log, &release, &running_gone);
        until(|| gate.running() == 1).await;
        let waiting_gone = never();
        let ran = Arc::new(AtomicUsize::new(0));
        let waiting = tokio::spawn({
            let (gate, gone, ran) = (gate.clone(), waiting_gone.clone(), ran.clone());
            async move {
                gate.run(2, 10, "t", gone.notified_owned(), move || {
                    ran.fetch_add(1, Ordering::SeqCst)
                })
                .await
            }
        });
        until(|| gate.waiting().0 == 1).await;
        waiting_gone.notify_one();
        let refusal = waiting.await.unwrap().unwrap_err();
        assert!(refusal.text().starts_with("cancelled: "), "{refusal:?}");
        assert_eq!(gate.waiting(), (0, 0), "it left the waiting room");
        running_gone.notify_one();
        let refusal = running.await.unwrap().unwrap_err();
        assert!(refusal.text().starts_with("cancelled: "), "{refusal:?}");
        assert_eq!(gate.running(), 1, "its thread still holds its turn");
        release.one();
        until(|| gate.running() == 0).await;
        assert_eq!(ran.load(Ordering::SeqCst), 0, "the call given up never ran");
    }

    /// Issue 29 item 2: every call is answered within the time limit: `busy` if it never got
    /// a turn, `timed_out` if it was still running.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_call_is_answered_within_the_time_limit() {
        let gate = Arc::new(CallGate::with_limits(GateLimits {
            time_limit: Duration::from_millis(300),
            ..limits(1, 1)
        }));
        let log = Arc::new(Mutex::new(Vec::new()));
        let release = Arc::new(Release::default());
        let started = Instant::now();
        let running = blocked(&gate, 1, &log, &release, &never());
        until(|| gate.running() == 1).await;
        let waiting = gate.run(2, 10, "egger_test", never().notified_owned(), || 0);
        let text = waiting.await.unwrap_err().text();
        assert!(
            text.starts_with("busy: the call of egger_test waited 0.3 s"),
            "{text}"
        );
        let text = running.await.unwrap().unwrap_err().text();
        assert!(
            text.starts_with("timed_out: the call of t did not finish within 0.3 s"),
            "{text}"
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        release.one();
        until(|| gate.running() == 0).await;
    }
}
