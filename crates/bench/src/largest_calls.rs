//! Issue 41 item 6: calls the limits admitted that took far past a second natively, each at
//! the largest the limits now admit, against the one second the limits promise (the engine
//! alone, natively, through the tools as a client calls them).
//!
//! - `subset` with `in` listing 10⁵ values on 10⁵ records (a scan of the list per record
//!   took 14-20 s; the values are now a set).
//! - `compute_effect_sizes` with UCOR and vtype "UB" on the most rows raw data takes, each row
//!   where the two hypergeometric series converge slowest.
//! - "Your data"'s view of the largest CSV it takes: the most rows, and the most columns that
//!   many rows may have ([`exemplar::csv_table::MAX_CSV_CELLS`]).

use std::fmt::Write;
use std::time::Duration;

use exemplar::csv_table::{MAX_CSV_CELLS, MAX_CSV_COLUMNS, MAX_CSV_ROWS};
use exemplar::tools::{self, MAX_RAW_DATA_ROWS, MAX_TOOL_RECORDS};
use serde_json::{json, Value};

use crate::harness::{cpu_ms, time};
use crate::report::{Report, Target};

/// What "about a second natively" is held to.
const TARGET_MS: f64 = 1000.0;

/// One row: the median time of `f` (at least three calls after one warm-up), and beside it
/// the CPU time of one more call, which other work on the machine hardly changes.
pub fn row<R>(report: &mut Report, key: &str, what: String, mut f: impl FnMut() -> R) {
    eprintln!("bench: {what}");
    let t = time(Duration::from_secs(4), 3, &mut f);
    report.add_target(key, what, t.median_ms(), "ms", Target::AtMost(TARGET_MS));
    let cpu = cpu_ms(f);
    report.add(
        format!("{}_cpu_ms", key.trim_end_matches("_ms")),
        "  CPU time of one call (10 ms ticks)",
        cpu,
        "ms",
    );
}

/// `fit_random_effects` on [`MAX_TOOL_RECORDS`] records with a numeric column `n`, keeping
/// the records whose `n` is one of [`MAX_TOOL_RECORDS`] values (every other record's, and
/// as many that match none).
pub fn subset_args() -> Value {
    let k = MAX_TOOL_RECORDS;
    let records: Vec<Value> = (0..k)
        .map(|i| {
            json!({"id": format!("r{i}"), "yi": ((i % 97) as f64 - 48.0) / 100.0,
                   "vi": 0.01 + (i % 13) as f64 / 100.0, "n": i})
        })
        .collect();
    let values: Vec<Value> = (0..k).map(|i| json!(2 * i)).collect();
    json!({"records": records, "subset": {"column": "n", "in": values}})
}

/// The (ri, ni) whose UCOR with vtype "UB" costs most: ₂F₁(½, ½; (ni − 2)/2; 1 − ri²) and
/// ₂F₁(1, 1; ni/2; 1 − ri²) at 1 − ri² close enough to 1 that their series need the most
/// terms the evaluation sums before it turns to Euler's integral, or go to the integral.
pub const UCOR_WORST: [(f64, f64); 4] = [(0.0, 5.0), (0.03, 6.0), (0.045, 5.0), (0.0, 7.0)];

/// `compute_effect_sizes` with UCOR, vtype "UB", on [`MAX_RAW_DATA_ROWS`] rows of
/// [`UCOR_WORST`] in turn.
pub fn ucor_args() -> Value {
    let data: Vec<Value> = (0..MAX_RAW_DATA_ROWS)
        .map(|i| {
            let (ri, ni) = UCOR_WORST[i % UCOR_WORST.len()];
            json!({"id": format!("s{i}"), "ri": ri, "ni": ni})
        })
        .collect();
    json!({"measure": "UCOR", "vtype": "UB", "data": data})
}

/// The largest CSV "Your data" takes: [`MAX_CSV_ROWS`] rows of SMD's columns and an id,
/// with as many further one-digit columns as [`MAX_CSV_CELLS`] and [`MAX_CSV_COLUMNS`] allow.
pub fn your_data_wide_csv() -> String {
    let columns = (MAX_CSV_CELLS / MAX_CSV_ROWS).min(MAX_CSV_COLUMNS);
    let extra = columns - 7;
    let mut out = String::from("id,m1i,sd1i,n1i,m2i,sd2i,n2i");
    for c in 0..extra {
        write!(out, ",x{c}").expect("writing to a String");
    }
    out.push('\n');
    for i in 0..MAX_CSV_ROWS {
        write!(
            out,
            "s{i},{},1.{},{},10,1.5,{}",
            10 + i % 7,
            i % 9,
            20 + i % 31,
            25 + i % 17
        )
        .expect("writing to a String");
        for c in 0..extra {
            write!(out, ",{}", (i + c) % 10).expect("writing to a String");
        }
        out.push('\n');
    }
    out
}

pub fn run(report: &mut Report) {
    let args = subset_args();
    row(
        report,
        "subset_in_largest_ms",
        format!(
            "{}, subset in {MAX_TOOL_RECORDS} values on {MAX_TOOL_RECORDS} records",
            tools::FIT_RANDOM_EFFECTS.name
        ),
        || tools::call(tools::FIT_RANDOM_EFFECTS.name, &args).expect("the call is admitted"),
    );
    let args = ucor_args();
    row(
        report,
        "ucor_ub_largest_ms",
        format!(
            "{}, UCOR with vtype UB on {MAX_RAW_DATA_ROWS} rows (the slowest rows)",
            tools::COMPUTE_EFFECT_SIZES.name
        ),
        || tools::call(tools::COMPUTE_EFFECT_SIZES.name, &args).expect("the call is admitted"),
    );
    let request = json!({"csv": your_data_wide_csv(), "measure": "SMD"}).to_string();
    row(
        report,
        "your_data_view_largest_ms",
        format!(
            "Your data's view of {MAX_CSV_ROWS} rows x {} columns with SMD (the engine's part)",
            (MAX_CSV_CELLS / MAX_CSV_ROWS).min(MAX_CSV_COLUMNS)
        ),
        // As the page's worker asks for it: the view as JSON text.
        || {
            let view = exemplar::your_data::view_text(&request);
            assert!(
                view.contains("\"error\":null"),
                "{}",
                &view[..view.len().min(300)]
            );
            view
        },
    );
}
