//! The data handles of all sessions of one server, bounded together. Each session's
//! [`DataStore`] holds at most 16 handles and 32 MiB of records (counted at the larger of
//! their canonical JSON and the heap they take), but an HTTP server keeps up to 1,000
//! sessions (`sessions.rs`): 32 GB at most. Every session's store is registered here, weakly (a closed session's store is dropped with it and no longer counts); after
//! each load the oldest handles of the whole server, whichever session holds them, are
//! dropped until all stores together hold at most [`HeldData`]'s budget, as one store drops
//! its own oldest. A dropped handle answers `unknown_data` (expired), as any other.

use exemplar::tools::{DataStore, MAX_HELD_BYTES};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// The bytes of records all sessions of one `exemplar mcp` may hold together: 4 sessions'
/// full stores. A handle counts the larger of its canonical JSON and the heap its compact
/// stored form takes, and holds no more than that plus a few hundred fixed bytes
/// (`crates/exemplar/tests/held_memory.rs`), so this bounds the handles' heap at 128 MiB.
/// It is at least [`MAX_HELD_BYTES`], so one load (at most 16 MiB of arguments) always fits
/// and is never dropped by its own load.
pub const HELD_BUDGET: usize = 4 * MAX_HELD_BYTES;

/// One session's store, shared by its server's clones and the calls it runs.
pub type SessionStore = Arc<Mutex<DataStore>>;

/// The stores of a server's sessions and the bytes they may hold together.
#[derive(Debug)]
pub struct HeldData {
    budget: usize,
    /// Every session's store, weakly; a dead one is pruned when met.
    stores: Mutex<Vec<Weak<Mutex<DataStore>>>>,
}

impl Default for HeldData {
    fn default() -> Self {
        HeldData::new(HELD_BUDGET)
    }
}

impl HeldData {
    /// All stores together hold at most `budget` bytes of records. A budget below
    /// [`MAX_HELD_BYTES`] (for tests) can be passed by one load alone: that load's handle is
    /// then kept, being the only one left.
    pub fn new(budget: usize) -> Self {
        HeldData {
            budget,
            stores: Mutex::new(Vec::new()),
        }
    }

    /// A new session's store, counted from now on until it is dropped.
    pub fn session_store(&self) -> SessionStore {
        let store = Arc::new(Mutex::new(DataStore::sharing(self.budget)));
        let mut stores = self.stores();
        stores.retain(|weak| weak.strong_count() > 0);
        stores.push(Arc::downgrade(&store));
        store
    }

    /// Drops the oldest handles of all live stores, oldest first, until they hold at most
    /// the budget together (or one handle is left). Returns the handles dropped from `own`
    /// (the store that just loaded), oldest first; those of other sessions are theirs to
    /// find expired. Called without holding any store's lock: it locks one at a time.
    pub fn make_room(&self, own: &SessionStore) -> Vec<String> {
        let mut stores = self.stores();
        let mut live: Vec<SessionStore> = Vec::with_capacity(stores.len());
        stores.retain(|weak| match weak.upgrade() {
            Some(store) => {
                live.push(store);
                true
            }
            None => false,
        });
        // Each store by the load order of its oldest handle, the oldest on top.
        let (mut total, mut handles) = (0, 0);
        let mut by_oldest = BinaryHeap::new();
        for (index, store) in live.iter().enumerate() {
            let held = lock(store);
            total += held.bytes();
            handles += held.len();
            if let Some(load) = held.oldest_load() {
                by_oldest.push(Reverse((load, index)));
            }
        }
        let mut dropped = Vec::new();
        while total > self.budget && handles > 1 {
            let Some(Reverse((_, index))) = by_oldest.pop() else {
                break;
            };
            let store = &live[index];
            let mut held = lock(store);
            let before = held.bytes();
            let Some(handle) = held.drop_oldest() else {
                continue;
            };
            total -= before - held.bytes();
            handles -= 1;
            if let Some(load) = held.oldest_load() {
                by_oldest.push(Reverse((load, index)));
            }
            if Arc::ptr_eq(store, own) {
                dropped.push(handle);
            }
        }
        dropped
    }

    /// Bytes held by all live stores.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.stores()
            .iter()
            .filter_map(Weak::upgrade)
            .map(|store| lock(&store).bytes())
            .sum()
    }

    fn stores(&self) -> MutexGuard<'_, Vec<Weak<Mutex<DataStore>>>> {
        self.stores
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A store's lock; a call that panicked holding it left it whole (a load inserts at its end).
pub fn lock(store: &Mutex<DataStore>) -> MutexGuard<'_, DataStore> {
    store
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::super::handler::ExemplarServer;
    use super::*;
    use rmcp::model::CallToolResult;
    use serde_json::{json, Value};

    /// `n` records whose canonical JSON is the same length for every `tag` of one length.
    fn records(n: usize, tag: &str) -> Value {
        Value::Array(
            (0..n)
                .map(|i| json!({"id": format!("{tag}{i:04}"), "yi": 0.25, "vi": 0.0625}))
                .collect(),
        )
    }

    fn bytes_of(value: &Value) -> usize {
        exemplar::canonical::to_string(value).len()
    }

    fn call(session: &ExemplarServer, name: &str, args: Value) -> CallToolResult {
        let Value::Object(args) = args else {
            unreachable!()
        };
        session.run_tool(name, Some(args)).unwrap()
    }

    /// Loads `records` in `session`: its handle and the handles the load lists as expired.
    fn load(session: &ExemplarServer, records: &Value) -> (String, Vec<Value>) {
        let loaded = call(session, "load_data", json!({"records": records}));
        let result = loaded.structured_content.expect("loaded");
        let id = result["data_id"].as_str().unwrap().to_owned();
        (id, result["expired"].as_array().unwrap().clone())
    }

    /// A fit by handle: its result, or the error's text.
    fn fit(session: &ExemplarServer, id: &str) -> Result<Value, String> {
        let answer = call(session, "fit_random_effects", json!({"data_id": id}));
        match (answer.is_error, answer.structured_content) {
            // The result names the handle it read; the rest is the inline call's.
            (Some(false), Some(mut result)) => {
                let named = result["dataset"].as_object_mut().unwrap().remove("data_id");
                assert_eq!(named, Some(json!(id)));
                Ok(result)
            }
            _ => Err(serde_json::to_value(&answer.content).unwrap()[0]["text"]
                .as_str()
                .unwrap()
                .to_owned()),
        }
    }

    fn inline_fit(records: &Value) -> Value {
        exemplar::tools::call("fit_random_effects", &json!({"records": records})).unwrap()
    }

    #[test]
    fn the_oldest_handle_of_the_server_is_dropped_first_whichever_session_holds_it() {
        let (a_data, b_data, c_data) = (records(50, "a"), records(50, "b"), records(50, "c"));
        let one = bytes_of(&a_data);
        assert_eq!((bytes_of(&b_data), bytes_of(&c_data)), (one, one));
        // Three loads fit, a fourth does not.
        let held = Arc::new(HeldData::new(3 * one + one / 2));
        let gate = Arc::default();
        let [a, b, c] = [(); 3].map(|()| ExemplarServer::new(Arc::clone(&gate), held.clone()));
        assert_eq!(load(&a, &a_data), ("d1".into(), vec![]));
        assert_eq!(load(&b, &b_data), ("d1".into(), vec![]));
        assert_eq!(load(&c, &c_data), ("d1".into(), vec![]));
        assert_eq!(held.bytes(), 3 * one);
        // c's second load passes the budget: a's handle, the oldest of the server, goes; the
        // load lists only c's own handles as expired.
        assert_eq!(load(&c, &a_data), ("d2".into(), vec![]));
        assert_eq!(held.bytes(), 3 * one);
        let e = fit(&a, "d1").unwrap_err();
        assert_eq!(
            e,
            format!(
                "unknown_data: the data handle \"d1\" has expired: a session keeps at most 16 \
handles and 32 MiB of records, and all sessions of this server together {} bytes, dropping the \
oldest first; load the data again with load_data (this session holds no handles)",
                3 * one + one / 2
            )
        );
        assert_eq!(fit(&c, "d2"), Ok(inline_fit(&a_data)), "the newest works");
        assert_eq!(fit(&b, "d1"), Ok(inline_fit(&b_data)));
        assert_eq!(fit(&c, "d1"), Ok(inline_fit(&c_data)));
        // Then b's; then c's own first handle, which c's load lists.
        assert_eq!(load(&a, &a_data), ("d2".into(), vec![]));
        assert!(fit(&b, "d1").unwrap_err().contains("\"d1\" has expired"));
        assert_eq!(load(&c, &c_data), ("d3".into(), vec![json!("d1")]));
        assert!(fit(&c, "d1").unwrap_err().contains("\"d1\" has expired"));
        assert_eq!(fit(&c, "d2"), Ok(inline_fit(&a_data)));
        assert_eq!(held.bytes(), 3 * one);
        // A load three times as large drops the three oldest: c's d2, a's own d2, c's d3.
        let large = records(150, "l");
        assert_eq!(bytes_of(&large), 3 * one - 2);
        assert_eq!(load(&a, &large), ("d3".into(), vec![json!("d2")]));
        assert_eq!(fit(&a, "d3"), Ok(inline_fit(&large)));
        for id in ["d2", "d3"] {
            assert!(fit(&c, id).unwrap_err().contains("has expired"), "{id}");
        }
        assert_eq!(held.bytes(), 3 * one - 2);
    }

    #[test]
    fn a_closed_sessions_store_no_longer_counts() {
        let data = records(40, "x");
        let one = bytes_of(&data);
        let held = Arc::new(HeldData::new(2 * one + one / 2));
        let gate = Arc::default();
        let first = ExemplarServer::new(Arc::clone(&gate), held.clone());
        let closing = ExemplarServer::new(Arc::clone(&gate), held.clone());
        let clone = closing.clone();
        load(&first, &data);
        load(&closing, &data);
        assert_eq!(held.bytes(), 2 * one);
        // A session's clones share its store; once all are gone, its bytes are not counted.
        drop(closing);
        assert_eq!(held.bytes(), 2 * one);
        drop(clone);
        assert_eq!(held.bytes(), one);
        // Had the closed session counted, this load would drop the first session's handle.
        assert_eq!(load(&first, &data), ("d2".into(), vec![]));
        assert_eq!(fit(&first, "d1"), Ok(inline_fit(&data)));
        assert_eq!(held.stores().len(), 1, "the dead store was pruned");
    }

    #[test]
    fn a_load_larger_than_a_small_budget_keeps_its_own_handle() {
        let data = records(40, "y");
        let held = Arc::new(HeldData::new(bytes_of(&data) / 2));
        let session = ExemplarServer::new(Arc::default(), held.clone());
        assert_eq!(load(&session, &data), ("d1".into(), vec![]));
        assert_eq!(load(&session, &data), ("d2".into(), vec![json!("d1")]));
        assert_eq!(fit(&session, "d2"), Ok(inline_fit(&data)));
        // The server's own budget is never below one store's, so there one load always fits.
        const { assert!(HELD_BUDGET >= MAX_HELD_BYTES) };
    }
}
