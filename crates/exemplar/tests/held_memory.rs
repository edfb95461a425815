//! What a data handle really holds (issue 29 item 4), measured with a counting allocator:
//! for the record shapes that cost most memory per byte of JSON, the heap a handle keeps is
//! at most the bytes the store counts for it (plus a few fixed bytes), so the stores' byte
//! budgets bound memory; and a load's transient peak, beyond the parsed arguments it is
//! given, stays within a small multiple of their canonical JSON.
//!
//! One test (the allocator counts every thread of this binary): run alone, as `cargo test
//! -p living-evidence-exemplar --test held_memory -- --nocapture` prints the figures.

use exemplar::tools::{self, DataStore};
use serde_json::{json, Map, Value};
use std::sync::atomic::Ordering;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{CURRENT, PEAK};

fn current() -> usize {
    CURRENT.load(Ordering::Relaxed)
}

/// `k` records `{id, yi, vi}` with the further columns `columns(i)` gives record `i`.
fn records(k: usize, columns: impl Fn(usize) -> Vec<(String, Value)>) -> Value {
    Value::Array(
        (0..k)
            .map(|i| {
                let mut record = Map::new();
                record.insert("id".into(), json!(format!("s{i}")));
                record.insert("yi".into(), json!(0.25 + (i % 97) as f64 / 100.0));
                record.insert("vi".into(), json!(0.01 + (i % 89) as f64 / 1000.0));
                record.extend(columns(i));
                Value::Object(record)
            })
            .collect(),
    )
}

fn letters(n: usize) -> impl Iterator<Item = String> {
    (b'a'..).take(n).map(|c| char::from(c).to_string())
}

/// What one load of `records` costs: (canonical JSON bytes, bytes the store counts, heap
/// the handle keeps, the load's peak above the arguments).
struct Figures {
    canonical: usize,
    counted: usize,
    retained: usize,
    peak: usize,
}

fn measure(records: Value) -> Figures {
    let args = json!({ "records": records });
    let mut store = DataStore::new();
    let before = current();
    PEAK.store(before, Ordering::Relaxed);
    let result = tools::call_in("load_data", &args, &mut store).expect("loaded");
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let canonical = result["bytes"].as_u64().unwrap() as usize;
    drop(result);
    let retained = current() - before;
    let counted = store.bytes();
    Figures {
        canonical,
        counted,
        retained,
        peak,
    }
}

#[test]
fn a_handle_holds_at_most_the_bytes_it_is_counted_at() {
    // The registry's caches (schemas, the frozen dataset) are built before measuring; a
    // handle answers as its records inline.
    let few = records(30, |i| {
        vec![("g".into(), json!(i)), ("t".into(), json!("x"))]
    });
    let mut store = DataStore::new();
    tools::call_in("load_data", &json!({ "records": few }), &mut store).unwrap();
    for (tool, args) in [
        ("fit_random_effects", json!({"method": "DL"})),
        ("meta_regression", json!({"mods": ["g"]})),
    ] {
        let mut by_handle = args.clone();
        by_handle["data_id"] = json!("d1");
        let mut inline = args;
        inline["records"] = few.clone();
        let mut result = tools::call_in(tool, &by_handle, &mut store).unwrap();
        let handle = result["dataset"].as_object_mut().unwrap().remove("data_id");
        assert_eq!(handle, Some(json!("d1")));
        assert_eq!(result, tools::call(tool, &inline).unwrap());
    }
    let shapes: Vec<(&str, Value)> = vec![
        // The shape: 20 one-character text columns, 15.6 MB of JSON.
        (
            "20 one-character text columns, k = 85,000",
            records(85_000, |i| {
                letters(20)
                    .enumerate()
                    .map(|(c, name)| (name, json!(["x", "y", "z"][(i + c) % 3])))
                    .collect()
            }),
        ),
        (
            "plain {id, yi, vi}, k = 100,000",
            records(100_000, |_| vec![]),
        ),
        // Cells shorter than 8 bytes of JSON (`"a":1,`): counted at their heap.
        (
            "20 one-digit integer columns, k = 50,000",
            records(50_000, |i| {
                letters(20)
                    .enumerate()
                    .map(|(c, name)| (name, json!((i + c) % 10)))
                    .collect()
            }),
        ),
        (
            "a column of its own for each record, k = 50,000",
            records(50_000, |i| vec![(format!("c{i}"), json!(i % 7))]),
        ),
        (
            "distinct 200-character labels, k = 20,000",
            records(20_000, |i| {
                vec![("label".into(), json!(format!("{i:0>200}")))]
            }),
        ),
    ];
    for (shape, records) in shapes {
        let f = measure(records);
        let mib = |b: usize| b as f64 / (1024.0 * 1024.0);
        println!(
            "{shape}: canonical {:.2} MiB, counted {:.2} MiB, held {:.2} MiB ({:.2}x canonical), \
             load peak {:.2} MiB ({:.2}x canonical)",
            mib(f.canonical),
            mib(f.counted),
            mib(f.retained),
            f.retained as f64 / f.canonical as f64,
            mib(f.peak),
            f.peak as f64 / f.canonical as f64,
        );
        assert!(f.counted >= f.canonical, "{shape}");
        // What the store counts bounds what it holds, but for the handle's fixed bytes.
        assert!(
            f.retained <= f.counted + 1024,
            "{shape}: holds {} bytes, counted at {}",
            f.retained,
            f.counted
        );
        // A load's transient peak beyond its parsed arguments: the canonical text it hashes,
        // or the records being built, and the tables that store each text once.
        assert!(
            f.peak <= 2 * f.canonical + 8 * 1024 * 1024,
            "{shape}: a load peaked at {} bytes for {} of JSON",
            f.peak,
            f.canonical
        );
    }
}
