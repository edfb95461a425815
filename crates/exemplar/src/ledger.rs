//! The audit ledger: a SHA-256 hash chain over the tool runs on the page.
//!
//! Each entry is `{seq, time, tool, status, args, dataset_sha256, engine_version,
//! result_sha256, prev_hash, hash}`:
//! - `seq` counts from 1; `time` is the caller's timestamp text (ISO 8601 on the page);
//! - `status` is how the run ended: `ok`, `error` (the tool refused it), `internal_error`
//!   (the engine failed; on the page, a trap of the WebAssembly instance) or `cancelled`;
//! - `args` are the tool arguments as given (arguments that are not JSON as one string; the
//!   page's session ledgers long ones as their size and SHA-256, `session::LEDGER_ARGS_BYTES`);
//! - `dataset_sha256` is the data the run was about: the frozen dataset's hash, or the hash
//!   of the canonical JSON of `records`;
//! - `result_sha256` is the SHA-256 of the canonical JSON ([`crate::canonical`]) of the result;
//! - `prev_hash` is the previous entry's `hash`; the first entry's is 64 zeros.
//!
//! `hash` is the lower-case hex SHA-256 of the canonical JSON of the entry without `hash`:
//! the object `{seq, time, tool, status, args, dataset_sha256, engine_version, result_sha256,
//! prev_hash}`, written compactly with the keys of every object (the entry and everything in
//! `args`) sorted by their UTF-8 bytes. For example a first entry, a call with no arguments,
//! hashes the text
//! `{"args":{},"dataset_sha256":"…","engine_version":"…","prev_hash":"000…0","result_sha256":"…","seq":1,"status":"ok","time":"…","tool":"…"}`
//! (`tool`: the tool's registry name; the test `the_hash_is_of_the_documented_canonical_text`
//! writes one out whole).
//!
//! Only tool runs are appended; scores never enter the ledger.

use crate::canonical;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Value};
use std::fmt;

/// `prev_hash` of the first entry.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The tool returned a result.
    Ok,
    /// The tool refused the call with an error (bad arguments, unanalysable records).
    Error,
    /// The engine failed unexpectedly (on the page: the WebAssembly instance trapped).
    InternalError,
    /// The caller cancelled the run before it finished.
    Cancelled,
}

impl Status {
    /// Every status, in declaration order.
    const ALL: [Status; 4] = [
        Status::Ok,
        Status::Error,
        Status::InternalError,
        Status::Cancelled,
    ];

    /// The name the ledger writes (`ok`, `error`, `internal_error`, `cancelled`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::InternalError => "internal_error",
            Status::Cancelled => "cancelled",
        }
    }

    /// The status the ledger names `name`, or `None`.
    pub fn from_name(name: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// The fields of an entry, in the order they are written (a test holds them to what an
/// entry serializes).
pub const ENTRY_FIELDS: [&str; 10] = [
    "seq",
    "time",
    "tool",
    "status",
    "args",
    "dataset_sha256",
    "engine_version",
    "result_sha256",
    "prev_hash",
    "hash",
];

/// One ledger entry. An exported entry is read by [`Entry::from_value`] (serde's
/// `Deserialize` reads it the same way): a derived deserializer would link serde's generic
/// struct reading into the page's first module, which reads a ledger only to restore one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub seq: u64,
    pub time: String,
    pub tool: String,
    pub status: Status,
    pub args: Value,
    pub dataset_sha256: String,
    pub engine_version: String,
    pub result_sha256: String,
    pub prev_hash: String,
    pub hash: String,
}

impl Entry {
    /// The entry `value` writes, as an exported ledger holds it: an object with exactly the
    /// ten fields, each of its type. Otherwise the sentence serde's derived reading gives
    /// (without the position): the first field, in the text's order, that is unknown or of
    /// the wrong type, else the first field missing.
    pub fn from_value(value: &Value) -> Result<Entry, String> {
        let object = value
            .as_object()
            .ok_or_else(|| invalid_type(value, "struct Entry"))?;
        let mut fields: [Option<&Value>; 10] = [None; 10];
        for (key, field) in object {
            let at = ENTRY_FIELDS
                .iter()
                .position(|name| name == key)
                .ok_or_else(|| unknown_field(key))?;
            check_field(at, field)?;
            fields[at] = Some(field);
        }
        let field =
            |at: usize| fields[at].ok_or_else(|| format!("missing field `{}`", ENTRY_FIELDS[at]));
        let text = |at: usize| field(at).map(|v| v.as_str().unwrap_or_default().to_string());
        Ok(Entry {
            seq: field(0)?.as_u64().unwrap_or_default(),
            time: text(1)?,
            tool: text(2)?,
            status: Status::from_name(field(3)?.as_str().unwrap_or_default()).unwrap_or(Status::Ok),
            args: field(4)?.clone(),
            dataset_sha256: text(5)?,
            engine_version: text(6)?,
            result_sha256: text(7)?,
            prev_hash: text(8)?,
            hash: text(9)?,
        })
    }

    /// The hash this entry should carry: SHA-256 of the canonical JSON of every field but `hash`.
    pub fn compute_hash(&self) -> String {
        // `args` (megabytes, perhaps) is not copied into a second tree to be hashed: its
        // canonical text opens the object, `args` being the first key in byte order, and the
        // other fields follow.
        let others = canonical::to_string(&json!({
            "seq": self.seq,
            "time": self.time,
            "tool": self.tool,
            "status": self.status,
            "dataset_sha256": self.dataset_sha256,
            "engine_version": self.engine_version,
            "result_sha256": self.result_sha256,
            "prev_hash": self.prev_hash,
        }));
        let mut text = canonical::to_string(&self.args);
        text.insert_str(0, "{\"args\":");
        text.push(',');
        text.push_str(&others[1..]);
        crate::sha256_hex(text.as_bytes())
    }
}

impl<'de> Deserialize<'de> for Entry {
    /// As [`Entry::from_value`] reads it.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Entry::from_value(&value).map_err(serde::de::Error::custom)
    }
}

/// Whether field `ENTRY_FIELDS[at]` holds a value of its type: `seq` a non-negative
/// integer, `status` a status's name, `args` anything, the others text.
fn check_field(at: usize, value: &Value) -> Result<(), String> {
    match (ENTRY_FIELDS[at], value) {
        ("args", _) => Ok(()),
        ("seq", Value::Number(n)) if n.is_u64() => Ok(()),
        ("seq", Value::Number(n)) if n.is_i64() => Err(format!(
            "invalid value: {}, expected u64",
            unexpected(value)
        )),
        ("seq", _) => Err(invalid_type(value, "u64")),
        ("status", Value::String(name)) => match Status::from_name(name) {
            Some(_) => Ok(()),
            None => Err(format!(
                "unknown variant `{name}`, expected one of {}",
                quoted_list(Status::ALL.map(Status::as_str).iter())
            )),
        },
        // serde read a status written as an object (`{"ok": null}`) too; the ledger never
        // writes one.
        ("status", Value::Object(_)) => Err(invalid_type(value, "a status name")),
        ("status", _) => Err("expected value".to_string()),
        (_, Value::String(_)) => Ok(()),
        _ => Err(invalid_type(value, "a string")),
    }
}

/// serde's sentence for a value of the wrong type.
fn invalid_type(value: &Value, expected: &str) -> String {
    format!("invalid type: {}, expected {expected}", unexpected(value))
}

/// serde's sentence for a field an entry does not have.
fn unknown_field(key: &str) -> String {
    format!(
        "unknown field `{key}`, expected one of {}",
        quoted_list(ENTRY_FIELDS.iter())
    )
}

/// `` `a`, `b`, `c` ``, as serde lists what it expected.
fn quoted_list<'a>(names: impl Iterator<Item = &'a &'a str>) -> String {
    names
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How serde names a value it did not expect (`serde::de::Unexpected`).
fn unexpected(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) => match n.as_f64() {
            Some(_) if n.is_i64() || n.is_u64() => format!("integer `{n}`"),
            _ => format!("floating point `{n}`"),
        },
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "sequence".to_string(),
        Value::Object(_) => "map".to_string(),
    }
}

/// An entry without its `args`: what a run's report carries (the arguments may be
/// megabytes; the ledger keeps them, or their size and SHA-256 when long).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct EntryHeader {
    pub seq: u64,
    pub time: String,
    pub tool: String,
    pub status: Status,
    pub dataset_sha256: String,
    pub engine_version: String,
    pub result_sha256: String,
    pub prev_hash: String,
    pub hash: String,
}

impl From<&Entry> for EntryHeader {
    fn from(entry: &Entry) -> Self {
        EntryHeader {
            seq: entry.seq,
            time: entry.time.clone(),
            tool: entry.tool.clone(),
            status: entry.status,
            dataset_sha256: entry.dataset_sha256.clone(),
            engine_version: entry.engine_version.clone(),
            result_sha256: entry.result_sha256.clone(),
            prev_hash: entry.prev_hash.clone(),
            hash: entry.hash.clone(),
        }
    }
}

/// Where and why a chain does not verify. `seq` is the first broken entry's position
/// (1-based), or `None` when the ledger text itself cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerError {
    pub seq: Option<u64>,
    pub message: String,
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.seq {
            Some(seq) => write!(f, "entry {seq}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for LedgerError {}

/// What one run adds to the ledger.
#[derive(Debug, Clone)]
pub struct Run<'a> {
    pub time: &'a str,
    pub tool: &'a str,
    pub status: Status,
    /// Moved into the entry, not copied: they may be megabytes.
    pub args: Value,
    pub dataset_sha256: &'a str,
    /// The result, or `{"error": …}` for a run that did not return one.
    pub result: &'a Value,
}

/// An append-only chain of entries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ledger {
    entries: Vec<Entry>,
}

impl Ledger {
    pub fn new() -> Self {
        Ledger::default()
    }

    /// A ledger continuing `entries`, which must verify (the page rebuilds its ledger this way
    /// after a trap discarded the WebAssembly instance that held it).
    pub fn from_entries(entries: Vec<Entry>) -> Result<Self, LedgerError> {
        verify(&entries)?;
        Ok(Ledger { entries })
    }

    /// Appends `run`, chained to the last entry; the entry appended.
    pub fn append(&mut self, run: Run) -> &Entry {
        let mut entry = Entry {
            seq: self.entries.len() as u64 + 1,
            time: run.time.to_string(),
            tool: run.tool.to_string(),
            status: run.status,
            args: run.args,
            dataset_sha256: run.dataset_sha256.to_string(),
            engine_version: crate::ENGINE_VERSION.to_string(),
            result_sha256: canonical::sha256_hex(run.result),
            prev_hash: self
                .entries
                .last()
                .map_or(GENESIS_HASH.to_string(), |e| e.hash.clone()),
            hash: String::new(),
        };
        entry.hash = entry.compute_hash();
        self.entries.push(entry);
        &self.entries[self.entries.len() - 1]
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries as a JSON array (the export format, readable by [`verify_json`]).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(&self.entries).expect("entries serialize")
    }

    pub fn verify(&self) -> Result<(), LedgerError> {
        verify(&self.entries)
    }

    /// Verifies entries `start..` only, the first against entry `start - 1` (whose own
    /// verification is the caller's): the incremental check of a growing ledger.
    pub fn verify_from(&self, start: usize) -> Result<(), LedgerError> {
        let start = start.min(self.entries.len());
        let prev = match start {
            0 => GENESIS_HASH,
            n => self.entries[n - 1].hash.as_str(),
        };
        verify_chain(&self.entries[start..], start as u64, prev)
    }
}

/// Checks the chain: `seq` runs 1, 2, …; each `prev_hash` is the previous `hash` (64 zeros
/// first); each `hash` is the entry's own. Reports the first entry that breaks.
pub fn verify(entries: &[Entry]) -> Result<(), LedgerError> {
    verify_chain(entries, 0, GENESIS_HASH)
}

/// Checks `entries`, the chain's entries from position `offset + 1`, the first linked to
/// `prev`.
fn verify_chain(entries: &[Entry], offset: u64, prev: &str) -> Result<(), LedgerError> {
    let mut prev = prev;
    for (i, entry) in entries.iter().enumerate() {
        let position = offset + i as u64 + 1;
        let broken = |message: String| {
            Err(LedgerError {
                seq: Some(position),
                message,
            })
        };
        if entry.seq != position {
            return broken(format!(
                "seq is {} where {position} was expected",
                entry.seq
            ));
        }
        if entry.prev_hash != prev {
            return broken("prev_hash is not the previous entry's hash".to_string());
        }
        if entry.hash != entry.compute_hash() {
            return broken("hash does not match the entry's contents".to_string());
        }
        prev = &entry.hash;
    }
    Ok(())
}

/// Reads an exported ledger: a JSON array of entries, read strictly (a key repeated in any
/// object is refused, as in a tool's arguments: [`crate::strict_json`]). The error, with
/// `seq` `None`, says why the text is not one, and which entry (1-based) when one is not an
/// entry.
pub fn parse_entries(text: &str) -> Result<Vec<Entry>, LedgerError> {
    let unreadable = |why: String| LedgerError {
        seq: None,
        message: format!("the ledger is not a JSON array of entries: {why}"),
    };
    let value = crate::strict_json::parse(text).map_err(|e| unreadable(e.to_string()))?;
    let Value::Array(items) = value else {
        return Err(unreadable(invalid_type(&value, "a sequence")));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            Entry::from_value(item).map_err(|why| unreadable(format!("entry {}: {why}", i + 1)))
        })
        .collect()
}

/// Reads an exported ledger (a JSON array of entries, [`parse_entries`]) and verifies it;
/// returns its length.
pub fn verify_json(text: &str) -> Result<usize, LedgerError> {
    let entries = parse_entries(text)?;
    verify(&entries)?;
    Ok(entries.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A successful run of the frozen dataset (or of `records`, when the arguments hold some).
    fn ok_run<'a>(time: &'a str, tool: &'a str, args: Value, result: &'a Value) -> Run<'a> {
        Run {
            time,
            tool,
            status: Status::Ok,
            dataset_sha256: match args.get("records") {
                Some(records) => leak(canonical::sha256_hex(records)),
                None => crate::dataset::sha256(),
            },
            args,
            result,
        }
    }

    fn leak(text: String) -> &'static str {
        Box::leak(text.into_boxed_str())
    }

    fn three() -> Ledger {
        let mut ledger = Ledger::new();
        ledger.append(ok_run(
            "2026-09-04T10:00:00Z",
            "get_dataset",
            json!({}),
            &json!({"k": 19}),
        ));
        ledger.append(ok_run(
            "2026-09-04T10:00:01Z",
            "fit_random_effects",
            json!({"method": "REML", "level": 0.95}),
            &json!({"estimate": 0.5}),
        ));
        ledger.append(ok_run(
            "2026-09-04T10:00:02Z",
            "refit_excluding",
            json!({"exclude": ["s04"], "records": [{"id": "a", "yi": 1, "vi": 0.1}]}),
            &json!({"estimate": 0.25}),
        ));
        ledger
    }

    #[test]
    fn three_appends_verify() {
        let ledger = three();
        assert_eq!(ledger.len(), 3);
        ledger.verify().unwrap();
        let e = ledger.entries();
        assert_eq!(e[0].prev_hash, GENESIS_HASH);
        assert_eq!(e[1].prev_hash, e[0].hash);
        assert_eq!(e[2].prev_hash, e[1].hash);
        assert_eq!(e.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(e[0].dataset_sha256, crate::dataset::sha256());
        assert_ne!(e[2].dataset_sha256, crate::dataset::sha256());
        assert_eq!(e[0].engine_version, crate::ENGINE_VERSION);
        assert_eq!(e[0].result_sha256, crate::sha256_hex(br#"{"k":19}"#));
        assert!(e.iter().all(|e| e.hash.len() == 64));
        assert_eq!(verify_json(&ledger.to_json().to_string()), Ok(3));
        verify(&[]).unwrap();
    }

    #[test]
    fn the_hash_is_of_the_documented_canonical_text() {
        let ledger = three();
        let first = &ledger.entries()[0];
        let text = format!(
            r#"{{"args":{{}},"dataset_sha256":"{}","engine_version":"{}","prev_hash":"{GENESIS_HASH}","result_sha256":"{}","seq":1,"status":"ok","time":"2026-09-04T10:00:00Z","tool":"get_dataset"}}"#,
            first.dataset_sha256, first.engine_version, first.result_sha256
        );
        assert_eq!(first.hash, crate::sha256_hex(text.as_bytes()));
    }

    #[test]
    fn the_hash_ignores_key_order_in_args() {
        let mut a = Ledger::new();
        let mut b = Ledger::new();
        let x = a.append(ok_run(
            "t",
            "fit_random_effects",
            json!({"method": "DL", "level": 0.9}),
            &json!(1),
        ));
        let args: Value = serde_json::from_str(r#"{"level": 0.9, "method": "DL"}"#).unwrap();
        let y = b.append(ok_run("t", "fit_random_effects", args, &json!(1)));
        assert_eq!(x.hash, y.hash);
    }

    /// The hash splices the canonical text of `args` into that of the other fields: the same
    /// text as the canonical JSON of the whole object, whatever the fields hold.
    #[test]
    fn the_hash_is_of_the_canonical_json_of_the_whole_entry() {
        let args = [
            json!({}),
            json!(null),
            json!(-1e-7),
            json!("a \"quoted\" \u{202e} text\n"),
            json!([1, {"b": 2, "a": [0.5, "é"]}]),
            json!({"zz": 1, "a\n": {"y": true, "x": null}, "": []}),
        ];
        let mut ledger = Ledger::new();
        for args in args {
            let entry = ledger.append(Run {
                time: "2026 \"t\" é",
                tool: "tool\u{1}",
                status: Status::Cancelled,
                args,
                dataset_sha256: "d",
                result: &json!(null),
            });
            let whole = canonical::sha256_hex(&json!({
                "seq": entry.seq,
                "time": entry.time,
                "tool": entry.tool,
                "status": entry.status,
                "args": entry.args,
                "dataset_sha256": entry.dataset_sha256,
                "engine_version": entry.engine_version,
                "result_sha256": entry.result_sha256,
                "prev_hash": entry.prev_hash,
            }));
            assert_eq!(entry.hash, whole, "{}", entry.args);
        }
        assert_eq!(ledger.verify(), Ok(()));
    }

    fn broken_at(entries: &[Entry]) -> Option<u64> {
        verify(entries).unwrap_err().seq
    }

    #[test]
    fn tampering_is_reported_at_the_first_broken_entry() {
        let ledger = three();
        let mut e = ledger.entries().to_vec();
        e[1].args = json!({"method": "DL", "level": 0.95});
        assert_eq!(broken_at(&e), Some(2));

        let mut e = ledger.entries().to_vec();
        e[2].result_sha256 = crate::sha256_hex(b"something else");
        let error = verify(&e).unwrap_err();
        assert_eq!(error.seq, Some(3));
        assert_eq!(
            error.to_string(),
            "entry 3: hash does not match the entry's contents"
        );

        let mut e = ledger.entries().to_vec();
        e[1].prev_hash = GENESIS_HASH.to_string();
        e[1].hash = e[1].compute_hash();
        assert_eq!(broken_at(&e), Some(2));

        // Re-hashing a tampered entry breaks the link to the next one.
        let mut e = ledger.entries().to_vec();
        e[0].time = "2020-01-01T00:00:00Z".into();
        e[0].hash = e[0].compute_hash();
        let error = verify(&e).unwrap_err();
        assert_eq!(
            (error.seq, error.message.as_str()),
            (Some(2), "prev_hash is not the previous entry's hash")
        );

        let mut e = ledger.entries().to_vec();
        e.remove(1);
        assert_eq!(broken_at(&e), Some(2));
        let mut e = ledger.entries().to_vec();
        e.swap(0, 1);
        assert_eq!(broken_at(&e), Some(1));
    }

    #[test]
    fn exported_json_round_trips_and_bad_text_is_reported() {
        let ledger = three();
        let text = serde_json::to_string_pretty(&ledger.to_json()).unwrap();
        assert_eq!(verify_json(&text), Ok(3));
        let tampered = text.replacen("\"s04\"", "\"s05\"", 1);
        assert_eq!(verify_json(&tampered).unwrap_err().seq, Some(3));
        let error = verify_json("{\"not\": \"a ledger\"}").unwrap_err();
        assert_eq!(error.seq, None);
        assert!(error
            .message
            .starts_with("the ledger is not a JSON array of entries"));
        assert_eq!(verify_json("[]"), Ok(0));
    }

    #[test]
    fn the_entry_fields_and_status_names_are_what_an_entry_serializes() {
        let ledger = three();
        let written = serde_json::to_value(&ledger.entries()[0]).unwrap();
        let keys: Vec<&str> = written
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ENTRY_FIELDS);
        for status in Status::ALL {
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
            assert_eq!(Status::from_name(status.as_str()), Some(status));
        }
        assert_eq!(Status::from_name("Ok"), None);
    }

    /// serde's derived reading of an entry, which [`Entry::from_value`] replaced: the twin
    /// its errors are compared with.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Derived {
        seq: u64,
        time: String,
        tool: String,
        status: Status,
        args: Value,
        dataset_sha256: String,
        engine_version: String,
        result_sha256: String,
        prev_hash: String,
        hash: String,
    }

    /// serde's message for `text` read as derived entries, without its position.
    fn derived_error(text: &str) -> String {
        let error = serde_json::from_str::<Vec<Derived>>(text)
            .unwrap_err()
            .to_string();
        let at = error.rfind(" at line ").expect("a position");
        error[..at].replace("struct Derived", "struct Entry")
    }

    #[test]
    fn an_entry_that_is_not_one_is_refused_as_serde_refused_it() {
        let good = three().to_json()[0].clone();
        let with = |key: &str, value: Value| {
            let mut entry = good.clone();
            entry[key] = value;
            entry
        };
        let without = |key: &str| {
            let mut entry = good.clone();
            entry.as_object_mut().unwrap().shift_remove(key);
            entry
        };
        let cases = [
            json!(1),
            json!("entry"),
            json!(null),
            with("seq", json!(-1)),
            with("seq", json!(1.5)),
            with("seq", json!("1")),
            with("seq", json!(null)),
            with("time", json!(7)),
            with("tool", json!(true)),
            with("hash", json!({"a": 1})),
            with("prev_hash", json!([])),
            with("status", json!("done")),
            with("status", json!(3)),
            with("status", json!(null)),
            with("extra", json!(1)),
            without("seq"),
            without("hash"),
            without("args"),
            json!({"time": 1, "seq": "x"}),
            json!({"seq": 1}),
            json!({"nope": 1, "seq": "x"}),
        ];
        for case in cases {
            let text = Value::Array(vec![case.clone()]).to_string();
            let ours = parse_entries(&text).unwrap_err();
            assert_eq!(ours.seq, None);
            assert_eq!(
                ours.message,
                format!(
                    "the ledger is not a JSON array of entries: entry 1: {}",
                    derived_error(&text)
                ),
                "{case}"
            );
        }
        for text in ["{\"a\": 1}", "1", "\"x\""] {
            assert_eq!(
                parse_entries(text).unwrap_err().message,
                format!(
                    "the ledger is not a JSON array of entries: {}",
                    derived_error(text)
                ),
                "{text}"
            );
        }
        // serde also read an entry written as an array of its ten values in order; the
        // ledger never writes one, and it is refused.
        assert_eq!(
            Entry::from_value(&json!([1])).unwrap_err(),
            "invalid type: sequence, expected struct Entry"
        );
        assert_eq!(
            Entry::from_value(&with("status", json!({"ok": null}))).unwrap_err(),
            "invalid type: map, expected a status name"
        );
        // Read through serde, an entry is read the same way.
        let text = good.to_string();
        assert_eq!(
            serde_json::from_str::<Entry>(&text).unwrap(),
            Entry::from_value(&good).unwrap()
        );
        let error = serde_json::from_str::<Entry>(&without("seq").to_string()).unwrap_err();
        assert!(
            error.to_string().starts_with("missing field `seq`"),
            "{error}"
        );
    }

    /// A key repeated in an exported ledger (an entry's field, or a key inside its `args`) is
    /// refused, not read last-wins: the text says two things.
    #[test]
    fn a_repeated_key_in_an_exported_ledger_is_refused() {
        let text = three().to_json().to_string();
        let seq_twice = text.replacen("{\"seq\":1,", "{\"seq\":1,\"seq\":1,", 1);
        assert_ne!(seq_twice, text);
        let inner_twice = text.replacen(
            "\"method\":\"REML\"",
            "\"method\":\"DL\",\"method\":\"REML\"",
            1,
        );
        assert_ne!(inner_twice, text);
        for (twice, key) in [(seq_twice, "seq"), (inner_twice, "method")] {
            let error = verify_json(&twice).unwrap_err();
            assert_eq!(error.seq, None);
            assert!(
                error.message.starts_with(&format!(
                    "the ledger is not a JSON array of entries: duplicate key \"{key}\" at line 1"
                )),
                "{}",
                error.message
            );
            assert_eq!(crate::session::Session::restore(&twice).unwrap_err(), error);
        }
    }

    #[test]
    fn verify_from_checks_only_the_new_entries_against_their_predecessor() {
        let mut ledger = three();
        assert_eq!(ledger.verify_from(0), Ok(()));
        ledger.entries[2].result_sha256 = crate::sha256_hex(b"else");
        assert_eq!(ledger.verify_from(2).unwrap_err().seq, Some(3));
        assert_eq!(ledger.verify_from(1).unwrap_err().seq, Some(3));
        // Entries before `start` are the caller's: not checked again.
        assert_eq!(ledger.verify_from(3), Ok(()));
        let mut ledger = three();
        ledger.entries[2].prev_hash = GENESIS_HASH.to_string();
        ledger.entries[2].hash = ledger.entries[2].compute_hash();
        assert_eq!(ledger.verify_from(2).unwrap_err().seq, Some(3));
    }
}
