//! Data handles: `load_data` keeps a caller's records (or the records computed from raw
//! data) in a session's [`DataStore`], and every tool that takes `records` accepts the
//! handle instead (`data_id: "d1"`), so an agent sends thousands of records once.
//!
//! A store lives in memory only, one per MCP session and one per page visit (in its
//! [`crate::session::Session`]); nothing is written anywhere. It is bounded: at most
//! [`MAX_HANDLES`] handles and [`MAX_HELD_BYTES`] bytes of records; a load beyond either
//! drops the oldest handles first. A handle that was dropped is "expired", one never made is
//! "unknown": both are an `unknown_data` error naming it.
//!
//! A handle's bytes are the larger of its records' canonical JSON (what `load_data`
//! reports) and the heap its stored form takes ([`Stored`]: ids in one buffer, numbers as
//! f64, further columns as 8-byte cells with each text stored once), so the bound is a bound
//! on memory: a handle takes at most its counted bytes plus a few hundred fixed bytes
//! (`tests/held_memory.rs` measures it with a counting allocator).
//!
//! A server holding many stores (one per MCP session) may bound them together: every handle
//! carries its place in the process's order of loads ([`DataStore::oldest_load`]), so the
//! server can find the oldest handle of all its sessions and drop it
//! ([`DataStore::drop_oldest`]), as one store drops its own oldest.

use super::data::{DataSource, Stored};
use super::limits::{MAX_HANDLES, MAX_HELD_BYTES};
use super::{ErrorCode, ToolError, DATA_ID};
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Loads made in this process, over all stores: the next load's place in their order.
static LOADS: AtomicU64 = AtomicU64::new(0);

/// One handle's data.
#[derive(Debug)]
struct Held {
    number: u64,
    /// Its place in the order of every load of the process (all stores).
    load: u64,
    data: Stored,
    /// What it counts against the bounds: the larger of its canonical JSON and its heap.
    bytes: usize,
}

/// The handles of one session, oldest first.
#[derive(Debug, Clone, Default)]
pub struct DataStore {
    held: VecDeque<Arc<Held>>,
    /// The number of the next handle (`d1` is the first).
    next: u64,
    bytes: usize,
    /// The bound on the bytes of all stores together, when a server bounds them (only named
    /// in the message of an expired handle: the server enforces it).
    shared_budget: Option<usize>,
}

impl DataStore {
    pub fn new() -> Self {
        DataStore::default()
    }

    /// A store of one of a server's sessions, which together hold at most `budget` bytes of
    /// records: the server drops their oldest handles beyond it, and an expired handle's
    /// error says so.
    pub fn sharing(budget: usize) -> Self {
        DataStore {
            shared_budget: Some(budget),
            ..DataStore::default()
        }
    }

    /// How many handles it holds.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether it holds no handle.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Where its oldest handle's load stands in the order of all loads of the process (a
    /// smaller number was loaded earlier, whichever store holds it); `None` when empty.
    pub fn oldest_load(&self) -> Option<u64> {
        self.held.front().map(|h| h.load)
    }

    /// Drops its oldest handle, which then answers as expired; returns that handle.
    pub fn drop_oldest(&mut self) -> Option<String> {
        let oldest = self.held.pop_front()?;
        self.bytes -= oldest.bytes;
        Some(handle(oldest.number))
    }

    /// Whether this session has loaded data, whether or not its handles are still held.
    pub fn has_loaded(&self) -> bool {
        self.next > 0
    }

    /// Handles held, oldest first.
    pub fn handles(&self) -> Vec<String> {
        self.held.iter().map(|h| handle(h.number)).collect()
    }

    /// Bytes of records held, each handle counted at the larger of its canonical JSON and
    /// the heap it takes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Uses up the next handle's number without holding anything under it: a restored
    /// session's load whose data is gone (it was dropped before the restore) leaves its handle
    /// expired, and the later loads keep their numbers.
    pub fn skip_handle(&mut self) {
        self.next += 1;
    }

    /// Keeps `data` (`canonical` bytes of canonical JSON) under a new handle, dropping the
    /// oldest handles beyond the bounds. Returns the handle and the handles dropped.
    fn insert(&mut self, data: DataSource, canonical: usize) -> (String, Vec<String>) {
        let data = Stored::new(data);
        let bytes = canonical.max(data.heap_bytes());
        let mut expired = Vec::new();
        while !self.held.is_empty()
            && (self.held.len() >= MAX_HANDLES || self.bytes + bytes > MAX_HELD_BYTES)
        {
            expired.extend(self.drop_oldest());
        }
        self.next += 1;
        self.bytes += bytes;
        self.held.push_back(Arc::new(Held {
            number: self.next,
            load: LOADS.fetch_add(1, Ordering::Relaxed),
            data,
            bytes,
        }));
        (handle(self.next), expired)
    }

    /// The handle `id` of the first module (built without `extended`): none is ever made
    /// there (`load_data` is the whole engine's), so a `data_id` is handed to the whole
    /// engine (`whole_engine`, as for the other arguments the first module leaves out), which
    /// answers it with the session's handles or the error naming them. The first module then
    /// links none of the stored data's reading nor the messages of a missing handle.
    #[cfg(not(feature = "extended"))]
    fn find(&self, _id: &str) -> Result<&Held, ToolError> {
        Err(super::error::whole_engine(&format!("`{DATA_ID}`")))
    }

    /// The handle `id`, or the `unknown_data` error saying whether it expired or never was,
    /// and which handles the session holds.
    #[cfg(feature = "extended")]
    fn find(&self, id: &str) -> Result<&Held, ToolError> {
        let number = id
            .strip_prefix('d')
            .filter(|n| !n.starts_with('0'))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(held) = number.and_then(|n| self.held.iter().find(|h| h.number == n)) {
            return Ok(held);
        }
        let quoted = crate::quote::quoted(id);
        let holds = if self.held.is_empty() {
            "this session holds no handles".to_string()
        } else {
            format!("this session holds {}", self.handles().join(", "))
        };
        let shared = match self.shared_budget {
            Some(budget) => format!(
                ", and all sessions of this server together {}",
                mebibytes(budget)
            ),
            None => String::new(),
        };
        let message = match number {
            Some(n) if n >= 1 && n <= self.next => format!(
                "the data handle {quoted} has expired: a session keeps at most {MAX_HANDLES} \
handles and {} MiB of records{shared}, dropping the oldest first; load the data again with {} \
({holds})",
                MAX_HELD_BYTES / (1024 * 1024),
                super::LOAD_DATA_NAME
            ),
            _ => format!(
                "there is no data handle {quoted}: handles are made by {} and live only in \
the session that made them ({holds})",
                super::LOAD_DATA_NAME
            ),
        };
        Err(ToolError::new(ErrorCode::UnknownData, message))
    }

    /// The data behind handle `id`, for one call.
    pub fn get(&self, id: &str) -> Result<Arc<DataSource>, ToolError> {
        self.find(id)
            .map(|held| Arc::new(held.data.source(handle(held.number))))
    }

    /// For a companion's rule: none in the first module (built without `extended`), which
    /// holds no handle (see [`DataStore::find`]).
    #[cfg(not(feature = "extended"))]
    pub(super) fn stand_in(&self, _args: &Value) -> Option<Value> {
        None
    }

    /// For a companion's rule: `args` with the handle replaced by one stand-in record
    /// holding the first value of each of its columns (the rule reads only those).
    #[cfg(feature = "extended")]
    pub(super) fn stand_in(&self, args: &Value) -> Option<Value> {
        let id = args.get(DATA_ID)?.as_str()?;
        let held = self.find(id).ok()?;
        let mut args = args.clone();
        let object = args.as_object_mut()?;
        object.remove(DATA_ID);
        object.insert(
            "records".into(),
            Value::Array(vec![Value::Object(held.data.sample())]),
        );
        Some(args)
    }
}

fn handle(number: u64) -> String {
    format!("d{number}")
}

/// `bytes` in MiB when whole (every bound the server uses), else in bytes (a test's).
fn mebibytes(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// The data a `load_data` call keeps, and its size: its `records`. No records at all are
/// refused: a handle of nothing would drop the session's oldest handle to make room.
pub(super) fn source_of(records: &Value) -> Result<(DataSource, usize), ToolError> {
    let (data, bytes) = DataSource::custom_sized(records)?;
    if data.records().is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidRecords,
            format!(
                "there are no records to load: {} keeps at least one record (nothing was \
loaded, and no handle was dropped)",
                super::LOAD_DATA_NAME
            ),
        ));
    }
    Ok((data, bytes))
}

/// Keeps `data` in `store` and completes `load_data`'s result with its handle.
pub(super) fn keep(store: &mut DataStore, data: DataSource, bytes: usize, result: &mut Value) {
    let (id, expired) = store.insert(data, bytes);
    result["data_id"] = Value::String(id);
    result["bytes"] = Value::from(bytes);
    result["expired"] = Value::from(expired);
}

/// The data `load_data`'s arguments name: `records` as they are, or the records
/// `compute_effect_sizes` computes from raw `data` (with `measure` and its options); and
/// their size.
pub(super) fn load_source(args: &Value) -> Result<(DataSource, usize), ToolError> {
    let raw = args.get(super::effect_sizes::DATA_ARGUMENT);
    match (args.get("records"), raw) {
        (Some(records), None) => {
            if let Some(key) = args
                .as_object()
                .and_then(|o| o.keys().find(|k| *k != "records"))
            {
                return Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!("{key} goes with raw data (`data`), not with `records`"),
                ));
            }
            source_of(records)
        }
        (None, Some(_)) => {
            let escalc = &super::COMPUTE_EFFECT_SIZES;
            crate::schema_check::validate(super::input_schema_of(escalc), args)?;
            let computed = escalc.run(args, &DataSource::frozen())?;
            source_of(&computed["records"])
        }
        (Some(_), Some(_)) => Err(ToolError::new(
            ErrorCode::InvalidArguments,
            "give either records or raw data (`data` with `measure`), not both",
        )),
        (None, None) => Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "{} needs `records` ({{id, yi, vi, ...}} objects) or raw `data` with `measure`",
                super::LOAD_DATA_NAME
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical;
    use serde_json::json;

    fn records(n: usize, tag: &str) -> Value {
        Value::Array(
            (0..n)
                .map(|i| json!({"id": format!("{tag}{i}"), "yi": i as f64 / 10.0, "vi": 0.01 + i as f64 / 100.0, "dose": i}))
                .collect(),
        )
    }

    fn load(store: &mut DataStore, value: &Value) -> (String, Vec<String>) {
        let (data, bytes) = source_of(value).unwrap();
        store.insert(data, bytes)
    }

    #[cfg(feature = "extended")]
    #[test]
    fn handles_are_numbered_and_found() {
        let mut store = DataStore::new();
        let a = records(3, "a");
        assert_eq!(load(&mut store, &a), ("d1".to_string(), vec![]));
        assert_eq!(load(&mut store, &records(4, "b")).0, "d2");
        let data = store.get("d1").unwrap();
        assert_eq!(data.records().len(), 3);
        assert_eq!(data.info().sha256, canonical::sha256_hex(&a));
        assert_eq!(store.get("d2").unwrap().records()[0].id, "b0");
        assert_eq!(store.handles(), ["d1", "d2"]);
        assert_eq!(
            store.bytes(),
            canonical::to_string(&a).len() + canonical::to_string(&records(4, "b")).len()
        );
    }

    #[cfg(feature = "extended")]
    #[test]
    fn unknown_and_expired_handles_are_errors_naming_them() {
        let mut store = DataStore::new();
        let e = store.get("d1").unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownData);
        assert!(
            e.message.contains("no data handle \"d1\"") && e.message.contains("holds no handles"),
            "{}",
            e.message
        );
        for _ in 0..MAX_HANDLES + 2 {
            load(&mut store, &records(2, "x"));
        }
        assert_eq!(store.handles().len(), MAX_HANDLES);
        assert_eq!(store.handles()[0], "d3");
        let e = store.get("d2").unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownData);
        assert!(
            e.message.starts_with("the data handle \"d2\" has expired"),
            "{}",
            e.message
        );
        for id in ["d99", "x1", "d01", "d0", "", "d-1"] {
            let e = store.get(id).unwrap_err();
            assert!(
                e.message.starts_with("there is no data handle"),
                "{id}: {}",
                e.message
            );
            assert!(
                e.message.contains("this session holds d3, d4"),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn the_bytes_bound_drops_the_oldest_first() {
        let mut store = DataStore::new();
        let big = records(40_000, "big-record-id-");
        let bytes = canonical::to_string(&big).len();
        let fits = MAX_HELD_BYTES / bytes;
        assert!((2..MAX_HANDLES).contains(&fits), "{bytes} bytes");
        for _ in 0..fits {
            assert!(load(&mut store, &big).1.is_empty());
        }
        let (id, expired) = load(&mut store, &big);
        assert_eq!(id, format!("d{}", fits + 1));
        assert_eq!(expired, ["d1"]);
        assert!(store.bytes() <= MAX_HELD_BYTES);
        assert_eq!(store.handles().len(), fits);
    }

    #[cfg(feature = "extended")]
    #[test]
    fn a_server_finds_and_drops_the_oldest_handle_of_all_its_stores() {
        let budget = 64 * 1024 * 1024;
        let (mut a, mut b) = (DataStore::sharing(budget), DataStore::sharing(budget));
        assert_eq!(
            (a.oldest_load(), a.drop_oldest(), a.len(), a.is_empty()),
            (None, None, 0, true)
        );
        let first = records(3, "a");
        load(&mut a, &first);
        load(&mut b, &records(4, "b"));
        load(&mut a, &records(5, "c"));
        assert_eq!((a.len(), b.len(), a.is_empty()), (2, 1, false));
        assert!(a.oldest_load().unwrap() < b.oldest_load().unwrap());
        let before = a.bytes();
        assert_eq!(a.drop_oldest().as_deref(), Some("d1"));
        assert_eq!(a.bytes(), before - canonical::to_string(&first).len());
        assert_eq!(a.handles(), ["d2"]);
        // Now b's handle is the oldest of the two stores; a's next handle is still d3.
        assert!(b.oldest_load().unwrap() < a.oldest_load().unwrap());
        assert_eq!(load(&mut a, &records(2, "d")).0, "d3");
        let e = a.get("d1").unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownData);
        assert_eq!(
            e.message,
            "the data handle \"d1\" has expired: a session keeps at most 16 handles and 32 MiB \
of records, and all sessions of this server together 64 MiB, dropping the oldest first; load \
the data again with load_data (this session holds d2, d3)"
        );
        assert!(a.get("d2").is_ok());
        assert_eq!(b.drop_oldest().as_deref(), Some("d1"));
        assert_eq!(
            (b.bytes(), b.oldest_load(), b.drop_oldest()),
            (0, None, None)
        );
        let e = b.get("d1").unwrap_err();
        assert!(
            e.message.contains("has expired") && e.message.contains("holds no handles"),
            "{}",
            e.message
        );
        // A store of its own (a page visit) names no server; a budget in bytes reads so.
        let mut own = DataStore::new();
        load(&mut own, &first);
        own.drop_oldest();
        assert!(!own.get("d1").unwrap_err().message.contains("server"));
        let mut small = DataStore::sharing(1000);
        load(&mut small, &first);
        small.drop_oldest();
        let e = small.get("d1").unwrap_err();
        assert!(e.message.contains("together 1000 bytes,"), "{}", e.message);
    }

    #[cfg(feature = "extended")]
    #[test]
    fn a_session_that_loaded_data_must_name_the_data_of_each_call() {
        let frozen = || super::super::call("fit_random_effects", &json!({})).unwrap();
        // A session that loaded nothing analyses the frozen dataset, as the benchmark does.
        let mut store = DataStore::new();
        assert_eq!(
            super::super::call_in("fit_random_effects", &json!({}), &mut store).unwrap(),
            frozen()
        );
        super::super::call_in(
            "load_data",
            &json!({"records": records(5, "r")}),
            &mut store,
        )
        .unwrap();
        for tool in [
            "fit_random_effects",
            "egger_test",
            "funnel_plot",
            "leave_one_out",
        ] {
            let e = super::super::call_in(tool, &json!({}), &mut store).unwrap_err();
            assert_eq!(e.code, ErrorCode::DataNotNamed, "{tool}: {e}");
            assert!(
                e.message.contains("it holds d1")
                    && e.message.contains("\"dataset\": \"dat.raudenbush1985\""),
                "{}",
                e.message
            );
        }
        // Named explicitly, the frozen dataset answers exactly as before.
        let named = json!({"dataset": "dat.raudenbush1985"});
        assert_eq!(
            super::super::call_in("fit_random_effects", &named, &mut store).unwrap(),
            frozen()
        );
        // A tool that reads no records is not affected.
        assert!(super::super::call_in("get_dataset", &json!({}), &mut store).is_ok());
        // Two data named at once are refused.
        let both = json!({"dataset": "dat.raudenbush1985", "data_id": "d1"});
        let e = super::super::call_in("fit_random_effects", &both, &mut store).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArguments, "{e}");
        // Once its handles have expired the session still does not fall back silently.
        store.drop_oldest();
        let e = super::super::call_in("fit_random_effects", &json!({}), &mut store).unwrap_err();
        assert!(e.message.contains("expired"), "{}", e.message);
    }

    #[cfg(feature = "extended")]
    #[test]
    fn a_tool_given_a_handle_answers_as_with_the_records_inline() {
        let mut store = DataStore::new();
        let value = records(30, "r");
        let loaded =
            super::super::call_in("load_data", &json!({"records": value}), &mut store).unwrap();
        assert_eq!(loaded["data_id"], "d1");
        assert_eq!(loaded["k"], 30);
        assert_eq!(loaded["columns"], json!(["dose"]));
        assert_eq!(loaded["dataset"]["sha256"], canonical::sha256_hex(&value));
        for (tool, extra) in [
            (
                "fit_random_effects",
                json!({"method": "DL", "test": "knha"}),
            ),
            ("leave_one_out", json!({"exclude": ["r3"], "level": 0.9})),
            ("meta_regression", json!({"mods": ["dose"]})),
            ("egger_test", json!({})),
        ] {
            let mut by_handle = extra.clone();
            by_handle["data_id"] = json!("d1");
            let mut inline = extra;
            inline["records"] = value.clone();
            let outcome = super::super::outcome_in(tool, &by_handle, &mut store);
            // The same numbers, and the result names the handle it read.
            let mut result = outcome.result.unwrap();
            assert_eq!(result["dataset"]["data_id"], "d1", "{tool}");
            result["dataset"].as_object_mut().unwrap().remove("data_id");
            assert_eq!(result, super::super::call(tool, &inline).unwrap(), "{tool}");
            assert_eq!(outcome.dataset_sha256, canonical::sha256_hex(&value));
        }
        // The companion of a handle's call reads its columns, and draws from the handle.
        let args = json!({"mods": ["dose"], "data_id": "d1"});
        let (plot, plot_args) =
            super::super::companion_call_in("meta_regression", &args, &store).unwrap();
        assert_eq!(plot_args, json!({"mod": "dose", "data_id": "d1"}));
        assert!(super::super::call_in(plot, &plot_args, &mut store).unwrap()["svg"].is_string());
        let both = json!({"data_id": "d1", "records": value});
        let e = super::super::call_in("fit_random_effects", &both, &mut store).unwrap_err();
        assert_eq!(e.message, "give records or data_id, not both");
        let e = super::super::call_in("fit_random_effects", &json!({"data_id": "d2"}), &mut store)
            .unwrap_err();
        assert_eq!(
            (e.code, e.message.contains("\"d2\"")),
            (ErrorCode::UnknownData, true)
        );
        // Without a session's store a handle is unknown.
        let e = super::super::call("fit_random_effects", &json!({"data_id": "d1"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownData);
    }

    #[cfg(feature = "extended")]
    #[test]
    fn raw_data_are_loaded_as_their_effect_sizes() {
        let mut store = DataStore::new();
        let raw = json!({"measure": "RR", "data": [{"id": "a", "ai": 4, "bi": 119, "ci": 11, "di": 128}, {"id": "b", "ai": 6, "bi": 300, "ci": 29, "di": 274}, {"id": "c", "ai": 3, "bi": 228, "ci": 11, "di": 209}]});
        let loaded = super::super::call_in("load_data", &raw, &mut store).unwrap();
        assert_eq!(
            (loaded["k"].as_u64(), loaded["measure"].as_str()),
            (Some(3), Some("RR"))
        );
        let computed = super::super::call(super::super::COMPUTE_EFFECT_SIZES.name, &raw).unwrap();
        let fit =
            super::super::call_in("fit_random_effects", &json!({"data_id": "d1"}), &mut store)
                .unwrap();
        let inline = super::super::call(
            "fit_random_effects",
            &json!({"records": computed["records"]}),
        )
        .unwrap();
        let mut fit = fit;
        assert_eq!(
            fit["dataset"].as_object_mut().unwrap().remove("data_id"),
            Some(json!("d1"))
        );
        assert_eq!(fit, inline);
        for (args, says) in [
            (json!({}), "needs `records`"),
            (
                json!({"records": [], "measure": "RR"}),
                "measure goes with raw data",
            ),
            (json!({"records": [], "data": []}), "not both"),
            (json!({"data": [{"ai": 1}]}), "measure"),
        ] {
            let e = super::super::call_in("load_data", &args, &mut store).unwrap_err();
            assert!(e.message.contains(says), "{args}: {}", e.message);
        }
        assert_eq!(store.handles(), ["d1"], "a refused load makes no handle");
    }

    /// Issue 29 item 11: an empty record list made a handle of k = 0, dropping the session's
    /// oldest handle when the store was full.
    #[cfg(feature = "extended")]
    #[test]
    fn no_records_are_refused_before_any_handle_is_dropped() {
        let mut store = DataStore::new();
        for _ in 0..MAX_HANDLES {
            load(&mut store, &records(2, "x"));
        }
        let before = (store.handles(), store.bytes());
        let e =
            super::super::call_in("load_data", &json!({"records": []}), &mut store).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidRecords);
        assert_eq!(
            e.message,
            "there are no records to load: load_data keeps at least one record (nothing was \
loaded, and no handle was dropped)"
        );
        assert_eq!((store.handles(), store.bytes()), before);
        // Raw data with no rows were refused already (by compute_effect_sizes' rule).
        let raw = json!({"measure": "RR", "data": []});
        assert!(super::super::call_in("load_data", &raw, &mut store).is_err());
        assert_eq!((store.handles(), store.bytes()), before);
        assert!(store.get("d1").is_ok());
    }

    #[cfg(feature = "extended")]
    #[test]
    fn a_handle_with_more_records_than_a_tool_takes_is_refused_by_it() {
        let mut store = DataStore::new();
        let many = records(super::super::MAX_LEAVE_ONE_OUT_RECORDS + 1, "m");
        super::super::call_in("load_data", &json!({"records": many}), &mut store).unwrap();
        let e = super::super::call_in("leave_one_out", &json!({"data_id": "d1"}), &mut store)
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::TooManyRecords);
        assert!(e.message.contains("\"d1\" holds 2001"), "{}", e.message);
        assert!(
            super::super::call_in("fit_random_effects", &json!({"data_id": "d1"}), &mut store)
                .is_ok()
        );
    }

    #[cfg(feature = "extended")]
    #[test]
    fn a_stand_in_record_carries_the_first_value_of_each_column() {
        let mut store = DataStore::new();
        let value = json!([{"id": "a", "yi": 0.1, "vi": 0.1, "arm": "x"}, {"id": "b", "yi": 0.2, "vi": 0.1, "dose": 3}]);
        load(&mut store, &value);
        let args = store
            .stand_in(&json!({"mods": ["dose"], "data_id": "d1"}))
            .unwrap();
        assert_eq!(
            args,
            json!({"mods": ["dose"], "records": [{"arm": "x", "dose": 3}]})
        );
        assert_eq!(store.stand_in(&json!({"data_id": "d7"})), None);
        assert_eq!(store.stand_in(&json!({})), None);
    }
}
