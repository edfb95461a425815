//! The open connections, so that idle ones cannot keep a visitor out. The
//! accept loop never waits for a place: at the cap, the connection idle
//! longest (none of its requests being answered, the longest since it was
//! accepted or its last request) is closed to make room. A connection that
//! never sends a header is idle from the start, so 200 of them cost a visitor
//! nothing (before, each held one of 64 places until its header timeout: a
//! visitor waited about 30 s, issue 41). Only when every connection is
//! answering a request is a new one refused. A request is being answered
//! until its response is handed to hyper; a body still being written counts
//! as idle (since it was handed over), so a client that never reads its
//! answer cannot hold a place either.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Notify;

/// What happens to a new connection.
pub enum Admission {
    /// Served as `id`; `evict` is notified when it must close to make room.
    Admitted { id: u64, evict: Arc<Notify> },
    /// Every place holds a connection answering a request.
    Refused,
}

struct Open {
    /// When it was accepted, or when its last request began or ended.
    since: Instant,
    /// Requests being answered on it (HTTP/1.1 answers one at a time).
    answering: usize,
    evict: Arc<Notify>,
}

/// The open connections, at most `cap`.
pub struct Connections {
    cap: usize,
    next_id: u64,
    open: HashMap<u64, Open>,
}

impl Connections {
    pub fn new(cap: usize) -> Connections {
        Connections {
            cap: cap.max(1),
            next_id: 0,
            open: HashMap::new(),
        }
    }

    /// Admits a connection accepted at `now`, closing the one idle longest
    /// when the cap is reached (it is forgotten at once: the place is the new
    /// one's), or refuses it when none is idle.
    pub fn admit(&mut self, now: Instant) -> Admission {
        if self.open.len() >= self.cap {
            let idle_longest = self
                .open
                .iter()
                .filter(|(_, c)| c.answering == 0)
                .min_by_key(|(id, c)| (c.since, **id))
                .map(|(id, _)| *id);
            match idle_longest.and_then(|id| self.open.remove(&id)) {
                // `notify_one` keeps the wake-up for a task not yet waiting.
                Some(evicted) => evicted.evict.notify_one(),
                None => return Admission::Refused,
            }
        }
        let id = self.next_id;
        self.next_id += 1;
        let evict = Arc::new(Notify::new());
        self.open.insert(
            id,
            Open {
                since: now,
                answering: 0,
                evict: evict.clone(),
            },
        );
        Admission::Admitted { id, evict }
    }

    /// A request's headers arrived on `id` at `now`.
    pub fn request_started(&mut self, id: u64, now: Instant) {
        if let Some(c) = self.open.get_mut(&id) {
            c.answering += 1;
            c.since = now;
        }
    }

    /// A request's answer on `id` was handed to the connection at `now`.
    pub fn request_ended(&mut self, id: u64, now: Instant) {
        if let Some(c) = self.open.get_mut(&id) {
            c.answering = c.answering.saturating_sub(1);
            c.since = now;
        }
    }

    /// Connection `id` closed (or was evicted, and is already forgotten).
    pub fn close(&mut self, id: u64) {
        self.open.remove(&id);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.open.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn admitted(a: Admission) -> (u64, Arc<Notify>) {
        match a {
            Admission::Admitted { id, evict } => (id, evict),
            Admission::Refused => panic!("refused"),
        }
    }

    /// Whether `evict` was told to close its connection.
    async fn told(evict: &Notify) -> bool {
        tokio::time::timeout(Duration::from_millis(10), evict.notified())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn the_longest_idle_gives_way_and_busy_ones_keep_their_place() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut open = Connections::new(3);
        let (a, evict_a) = admitted(open.admit(at(0)));
        let (_, evict_b) = admitted(open.admit(at(1)));
        let (c, evict_c) = admitted(open.admit(at(2)));
        // `a` is answering: `b`, idle longest, gives way.
        open.request_started(a, at(3));
        let (d, evict_d) = admitted(open.admit(at(4)));
        assert_eq!(open.len(), 3);
        assert!(told(&evict_b).await);
        // A request that ended renews its connection: now `c` is idle longest.
        open.request_ended(a, at(5));
        admitted(open.admit(at(6)));
        assert!(told(&evict_c).await);
        assert_eq!(open.len(), 3);
        // Its task closing later forgets nothing else.
        open.close(c);
        assert_eq!(open.len(), 3);
        open.close(d);
        assert_eq!(open.len(), 2);
        assert!(!told(&evict_a).await && !told(&evict_d).await);
    }

    #[tokio::test]
    async fn a_connection_is_refused_only_when_every_place_is_answering() {
        let t0 = Instant::now();
        let mut open = Connections::new(2);
        let (x, _) = admitted(open.admit(t0));
        let (y, _) = admitted(open.admit(t0));
        open.request_started(x, t0);
        open.request_started(y, t0);
        assert!(matches!(open.admit(t0), Admission::Refused));
        open.request_ended(y, t0);
        admitted(open.admit(t0));
        assert_eq!(open.len(), 2);
    }
}
