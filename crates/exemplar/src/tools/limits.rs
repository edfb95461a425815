//! The registry's limits on a call: its arguments' size, the records each kind of tool
//! accepts (a tool's entry names its cap, `Tool::max_records`) and what a session's store
//! of loaded data holds.

/// The most records a tool accepts in `records` (the engine's own limit is far larger; this
/// keeps a page responsive).
pub const MAX_TOOL_RECORDS: usize = 100_000;

/// The most records `leave_one_out` accepts: it returns a whole fit per record (each
/// omission costs O(k), so 2,000 records take a few milliseconds natively; the cap keeps the
/// result a readable size).
pub const MAX_LEAVE_ONE_OUT_RECORDS: usize = 2_000;

/// The most rows of raw data `compute_effect_sizes` accepts. Its answer holds every record
/// with all its columns, twice (as text and as structured content): at 20,000 rows a few
/// MB, which the page receives from its engine's worker within a 50 ms task. A CSV table
/// holds as many ([`crate::csv_table::MAX_CSV_ROWS`], set there: the tools read tables, not
/// the reverse).
pub const MAX_RAW_DATA_ROWS: usize = crate::csv_table::MAX_CSV_ROWS;

/// The largest arguments text a tool call accepts: 16 MiB.
pub const MAX_ARGS_BYTES: usize = 16 * 1024 * 1024;

/// The most records `cumulative_meta_analysis` accepts: it fits k times, on 1, 2, …, k
/// records (its cost grows as k²), and its plot draws one row per step.
pub const MAX_CUMULATIVE_RECORDS: usize = crate::plots::MAX_CUMULATIVE_ROWS;

/// The most records `influence_diagnostics` accepts (10⁴ records take well under a second
/// natively: each omission costs O(k)).
pub const MAX_INFLUENCE_RECORDS: usize = 10_000;

/// The most handles a store holds; loading one more drops the oldest.
pub const MAX_HANDLES: usize = 16;

/// The most bytes of records a store holds (each handle counted at the larger of its
/// canonical JSON and the heap it takes); a load beyond it drops the oldest handles until it
/// fits. One load is at most the arguments' own limit (16 MiB).
pub const MAX_HELD_BYTES: usize = 32 * 1024 * 1024;
