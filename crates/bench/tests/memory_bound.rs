//! The memory bound that `bench memory` measures (docs/RELIABILITY.md, "Memory"), held
//! without timing: every tool of the registry runs a call of 5,000 records (or its cap, when
//! lower) through `Session::run`, the path of the page and the CLI (parse, validate, run,
//! ledger), while a counting global allocator follows the bytes allocated. The peak above
//! what was allocated before the call must stay within `calls::memory_bound` of the
//! arguments text's length.
//!
//! Allocated bytes are deterministic (the same code allocates the same sizes on every
//! machine), unlike a resident set; they leave out the allocator's own overhead, which the
//! bench's resident figures include. The one test of this binary runs alone, so no other
//! thread allocates while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bench::calls::{self, INPUT_MULTIPLE, MEMORY_ALLOWANCE_BYTES, RESULT_MULTIPLE};
use exemplar::session::Session;
use exemplar::tools;

/// Counts the bytes held (`CURRENT`) and the most held since the last reset (`PEAK`).
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = CURRENT.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn shrank(bytes: usize) {
    CURRENT.fetch_sub(bytes, Ordering::Relaxed);
}

// SAFETY: every call is passed on to `System` unchanged; only the counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            // A moved block is briefly held twice; count the peak as the allocator sees it.
            if new_size > layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes `f` held at once, above what was held before it, and its value.
fn peak_of<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let value = f();
    (PEAK.load(Ordering::Relaxed) - before, value)
}

/// The records of each call: moderate, so that the test stays quick in a debug build.
const RECORDS: usize = 5_000;

const TIME: &str = "2026-01-01T00:00:00Z";

#[test]
fn every_tool_stays_within_the_stated_multiple_of_its_input() {
    let mut lines = Vec::new();
    let mut over = Vec::new();
    for tool in tools::REGISTRY {
        // A small call first: what is built once per process (the definitions, the frozen
        // dataset) is not the call's.
        let warm = calls::call(tool, 20).unwrap();
        let report = Session::new().run(tool.name, &warm.args, TIME);
        assert!(report.error.is_none(), "{}: {:?}", tool.name, report.error);

        let call = calls::call(tool, RECORDS).unwrap();
        let mut session = Session::new();
        let (peak, report) = peak_of(|| session.run(tool.name, &call.args, TIME));
        assert!(report.error.is_none(), "{}: {:?}", tool.name, report.error);
        let result_bytes = report.response.content[0].text.len();
        drop(report);
        let bound = calls::memory_bound(call.args.len(), result_bytes);
        let line = format!(
            "{}: {} records, {} bytes in, {} bytes out, peak {} bytes allocated ({:.1}× the \
input; bound {:.0} bytes, {:.1}×)",
            tool.name,
            call.records,
            call.args.len(),
            result_bytes,
            peak,
            peak as f64 / call.args.len() as f64,
            bound,
            bound / call.args.len() as f64
        );
        if peak as f64 > bound {
            over.push(line.clone());
        }
        lines.push(line);
    }
    println!("{}", lines.join("\n"));
    assert!(
        over.is_empty(),
        "over the bound of {INPUT_MULTIPLE}× the arguments text plus {RESULT_MULTIPLE}× the \
result text plus {MEMORY_ALLOWANCE_BYTES} bytes:\n{}",
        over.join("\n")
    );
}
