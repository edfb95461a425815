//! What the Mantel–Haenszel and Peto tools share: 2×2 tables read from raw data (`ai`,
//! `ci` and `bi` or `n1i`, `di` or `n2i`, as the effect-size tool takes them), given inline
//! as `data` or kept by `load_data` under a handle (`data_id`: the records it computed from
//! raw data keep those columns), their level and the pooled estimate as both report it,
//! with its natural scale (the statistics, as metafor's `rma.mh()` and `rma.peto()`, are
//! `meta_analysis`').

use super::data::Omitted;
use super::data::{DataSource, DatasetInfo};
use super::effect_sizes::RAW_DATA_NAME;
use super::raw_columns::{not_a_number, read_value, Reading};
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::{ErrorCode, ToolError, DATA_ID, LOAD_DATA, MAX_RAW_DATA_ROWS};
use crate::canonical;
use crate::printed::{estimate_headline, f4, fcf, pval, scale_labels, vector_table, Out};
use meta_analysis::effect_sizes::{Column, Measure, RawRow};
use meta_analysis::{FitOptions, Pooled, Table2x2, TableHeterogeneity};
use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fmt;

/// The columns a table is read from (the rest of a row is ignored).
const TABLE_COLUMNS: [Column; 6] = [
    Column::Ai,
    Column::Bi,
    Column::Ci,
    Column::Di,
    Column::N1i,
    Column::N2i,
];

/// The natural scale of a table analysis's pooled estimate (null when nothing is
/// transformed; no prediction interval).
pub(super) fn natural(pooled: &Pooled, scale: &Scale) -> Option<NaturalScale> {
    scale.natural(pooled.estimate, (pooled.ci_lower, pooled.ci_upper), None)
}

/// `print.rma.mh` and `print.rma.peto` of the estimate of `k` tables pooled by `method`
/// (named in the headline): the equal-effects model's heterogeneity, then the estimate on
/// the measure's scale (log for OR, RR and IRR) and on the natural scale.
pub(super) fn print_pooled(
    out: &mut Out,
    (pooled, natural, h): (&Pooled, Option<&NaturalScale>, &TableHeterogeneity),
    scale: &ScaleInfo,
    (k, level): (usize, f64),
    method: &str,
) {
    let measure = scale.measure.as_deref();
    out.line(estimate_headline(
        (measure, &*scale.transform),
        [pooled.estimate, pooled.ci_lower, pooled.ci_upper],
        natural.map(|n| [n.estimate, n.ci_lower, n.ci_upper]),
        level,
        &format!("{method}, k = {k}"),
    ));
    out.blank();
    out.line(format!("Equal-Effects Model (k = {k})"));
    out.blank();
    out.line(format!(
        "I^2 (total heterogeneity / total variability):  {}%",
        fcf(Some(h.i2), 2)
    ));
    out.line(format!(
        "H^2 (total variability / sampling variability): {}",
        fcf(Some(h.h2), 2)
    ));
    out.blank();
    out.line("Test for Heterogeneity:");
    out.line(format!(
        "Q(df = {}) = {}, p-val {}",
        h.q_df,
        f4(Some(h.q)),
        pval(Some(h.q_p), true, false)
    ));
    out.blank();
    let log_scale = matches!(measure, Some("OR" | "RR" | "IRR"));
    out.line(if log_scale {
        "Model Results (log scale):"
    } else {
        "Model Results:"
    });
    out.blank();
    out.lines(vector_table(&[
        ("estimate", f4(Some(pooled.estimate))),
        ("se", f4(Some(pooled.se))),
        ("zval", f4(Some(pooled.statistic))),
        ("pval", pval(Some(pooled.p), false, false)),
        ("ci.lb", f4(Some(pooled.ci_lower))),
        ("ci.ub", f4(Some(pooled.ci_upper))),
    ]));
    if let Some(n) = natural {
        // A ratio back-transformed by exp is called by the measure's name ("OR scale").
        let label = match measure {
            Some(m) if log_scale && scale.transform == "exp" => m.to_string(),
            _ => scale_labels(measure, &scale.transform)
                .1
                .unwrap_or_default(),
        };
        out.blank();
        out.line(format!("Model Results ({label} scale):"));
        out.blank();
        out.lines(vector_table(&[
            ("estimate", f4(Some(n.estimate))),
            ("ci.lb", f4(Some(n.ci_lower))),
            ("ci.ub", f4(Some(n.ci_upper))),
        ]));
    }
}

/// `data` as read: its rows, and the SHA-256 of the rows' canonical JSON (the dataset hash
/// of [`canonical::sha256_hex`] on the whole array, computed a row at a time).
#[derive(Debug)]
pub struct TableRows {
    rows: Vec<Map<String, Value>>,
    sha256: String,
}

impl<'de> Deserialize<'de> for TableRows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Rows;
        impl<'de> Visitor<'de> for Rows {
            type Value = TableRows;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of 2x2 tables (objects)")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<TableRows, S::Error> {
                // The canonical text of an array is its items' canonical texts, comma
                // separated, in brackets.
                let mut hasher = Sha256::new();
                hasher.update(b"[");
                let mut rows: Vec<Map<String, Value>> = Vec::new();
                while let Some(row) = seq.next_element::<Map<String, Value>>()? {
                    if !rows.is_empty() {
                        hasher.update(b",");
                    }
                    let row = Value::Object(row);
                    hasher.update(canonical::to_string(&row).as_bytes());
                    let Value::Object(row) = row else {
                        unreachable!("an object stays one")
                    };
                    rows.push(row);
                }
                hasher.update(b"]");
                let sha256 = hasher
                    .finalize()
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                Ok(TableRows { rows, sha256 })
            }
        }
        deserializer.deserialize_seq(Rows)
    }
}

/// `data` or `data_id`: the 2x2 tables of `mantel_haenszel` and `peto_odds_ratio`, and which
/// of them: `subset`, `exclude` and `slab` as every tool that reads records takes them (on a
/// handle the dispatch applies `subset` and `slab`; on inline `data`, [`TablesArg::of`]),
/// and `columns` (escalc's names mapped onto the data's, as `compute_effect_sizes` takes it).
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TablesArg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "data_schema"))]
    pub data: Option<TableRows>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "data_id_schema"))]
    pub data_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "columns_schema"))]
    pub columns: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "subset_schema"))]
    pub subset: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "slab_schema"))]
    pub slab: Option<String>,
    #[serde(default)]
    #[cfg_attr(
        feature = "definitions",
        schemars(
            schema_with = "super::schema_derivation::exclude",
            description = "Ids to leave out."
        )
    )]
    pub exclude: Vec<String>,
}

leaf_args!(TablesArg);

/// The tables a call analyses, the rows left out by na.omit, and the data they are.
#[derive(Debug)]
pub(super) struct Tables {
    pub tables: Vec<Table2x2>,
    pub omitted: Vec<Omitted>,
    pub dataset: DatasetInfo,
}

impl TablesArg {
    /// The tables the call names: its inline `data` (read as records: [`DataSource::raw_rows`],
    /// then `subset` and `slab`), or the records of its `data_id` (which the dispatch has
    /// read into `source`, `subset` and `slab` applied); without `exclude`, then without the
    /// rows missing a count (metafor's na.omit, listed). Exactly one of `data` and `data_id`.
    pub(super) fn of(self, source: &DataSource) -> Result<Tables, ToolError> {
        let inline;
        // Inline rows are renamed once, on reading; a handle's columns keep their names.
        let mut mapping = self.columns.as_ref();
        let source = match (self.data, self.data_id.as_deref()) {
            (Some(_), Some(_)) => {
                return Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!("give data or {DATA_ID}, not both"),
                ))
            }
            (None, None) => {
                return Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "give data (one 2x2 table per study: ai, ci, and bi or n1i, di or n2i) \
or {DATA_ID} (a {} handle of such raw data)",
                        LOAD_DATA.name
                    ),
                ))
            }
            (Some(data), None) => {
                if data.rows.is_empty() {
                    return Err(ToolError::new(
                        ErrorCode::InvalidArguments,
                        "data is empty; give one 2x2 table per study",
                    ));
                }
                if data.rows.len() > MAX_RAW_DATA_ROWS {
                    return Err(too_many(data.rows.len()));
                }
                let rows =
                    super::raw_columns::mapped(Measure::Or, self.columns.as_ref(), &data.rows)?;
                let rows = DataSource::raw_rows(&rows, RAW_DATA_NAME, data.sha256);
                inline = super::restrict(&rows, self.subset.as_ref(), self.slab.as_deref())?;
                mapping = None;
                &inline
            }
            (None, Some(_)) => {
                if let Some(mapping) = mapping {
                    handle_mapping(mapping, source)?;
                }
                source
            }
        };
        let excluded = source.exclusions(self.exclude)?;
        let (tables, omitted) = handle_tables(source, mapping, &excluded)?;
        Ok(Tables {
            tables,
            omitted,
            dataset: source.info().clone(),
        })
    }
}

/// The tables of `source`'s records not in `excluded`, from their columns ai, bi, ci, di,
/// n1i and n2i (or the columns `mapping` names for them); a record missing a count (absent,
/// null, blank or NA) is left out and listed, as metafor's na.omit leaves out such a table.
fn handle_tables(
    source: &DataSource,
    mapping: Option<&Map<String, Value>>,
    excluded: &[String],
) -> Result<(Vec<Table2x2>, Vec<Omitted>), ToolError> {
    check_holds_counts(source, mapping)?;
    check_excluded_name_one(source, excluded)?;
    let columns: Vec<_> = TABLE_COLUMNS
        .iter()
        .map(|c| {
            let name = mapped_name(mapping, *c);
            (*c, name.clone(), source.column(&name))
        })
        .collect();
    let excluded = super::data::id_set(excluded);
    let slab = source.slab().and_then(|name| source.column(name));
    let mut rows: Vec<(String, Result<RawRow, String>)> = Vec::new();
    let mut omitted = Vec::new();
    for (at, record) in source.records().iter().enumerate() {
        if excluded.contains(record.id.as_str()) {
            continue;
        }
        let label = match slab.as_ref().and_then(|c| c.get(at)) {
            Some(cell) if !cell.is_null() => format!(
                "{} ({})",
                record_label(&record.id),
                crate::quote::json_value(&cell.to_value())
            ),
            _ => record_label(&record.id),
        };
        match read_counts(&columns, at) {
            Err(NoTable::NotANumber(message)) => rows.push((label, Err(message))),
            Err(NoTable::Lacking(reason)) => omitted.push(Omitted {
                id: record.id.clone(),
                reason,
            }),
            Ok(raw) => rows.push((label, Ok(raw))),
        }
    }
    if rows.is_empty() {
        let first: Vec<String> = omitted
            .iter()
            .take(5)
            .map(|o| format!("{}: {}", record_label(&o.id), o.reason))
            .collect();
        return Err(ToolError::new(
            ErrorCode::InvalidData,
            format!("no table is left to pool: {}", first.join("; ")),
        ));
    }
    Ok((read_tables(&rows)?, omitted))
}

/// The name of the data's column read as `column`: the one `mapping` names for it, or its
/// own.
fn mapped_name(mapping: Option<&Map<String, Value>>, column: Column) -> String {
    mapping
        .and_then(|m| m.get(column.name()))
        .and_then(Value::as_str)
        .unwrap_or(column.name())
        .to_string()
}

/// Refuses data with none of the table columns (under their own names or the mapped ones),
/// saying which columns it holds.
fn check_holds_counts(
    source: &DataSource,
    mapping: Option<&Map<String, Value>>,
) -> Result<(), ToolError> {
    let names = source.column_names();
    if !TABLE_COLUMNS
        .iter()
        .any(|c| names.contains(&mapped_name(mapping, *c).as_str()))
    {
        let held = if names.is_empty() {
            "no columns besides id, yi and vi".to_string()
        } else {
            format!("the columns {}", names.join(", "))
        };
        let what = match source.info().data_id.as_deref() {
            Some(id) => format!("the data of {id:?}"),
            None => "the data".to_string(),
        };
        return Err(ToolError::new(
            ErrorCode::InvalidData,
            format!(
                "{what} hold no 2x2 counts ({held}); give raw 2x2 data (ai, ci, and bi or \
n1i, di or n2i, or map yours with columns), or load it (`measure` OR, RR or RD) with {} and \
pass its {DATA_ID}",
                LOAD_DATA.name
            ),
        ));
    }
    Ok(())
}

/// An id `exclude` names must pick one table: ids that repeat are refused, naming them.
fn check_excluded_name_one(source: &DataSource, excluded: &[String]) -> Result<(), ToolError> {
    if !excluded.is_empty() {
        let repeated =
            meta_analysis::IdSet::repeated(source.records().iter().map(|r| r.id.as_str()));
        if let Some(id) = excluded.iter().find(|id| repeated.position(id).is_some()) {
            return Err(ToolError::new(
                ErrorCode::InvalidArguments,
                format!(
                    "exclude names {}, which more than one table has as its id; exclude \
needs ids that name one table each (or narrow the tables first with subset)",
                    crate::quote::quoted(id)
                ),
            ));
        }
    }
    Ok(())
}

/// Why a record gives no table.
enum NoTable {
    /// The message for the first count that is not a number.
    NotANumber(String),
    /// The counts the table lacks (it is NA and left out), joined.
    Lacking(String),
}

/// Reads the table of the record at `at` from `columns` (each table column, the data's name
/// for it and its values), or why it has none.
fn read_counts(
    columns: &[(Column, String, Option<super::data::Column<'_>>)],
    at: usize,
) -> Result<RawRow, NoTable> {
    let mut raw = RawRow::default();
    let mut missing = Vec::new();
    let mut bad = None;
    for (column, name, values) in columns {
        let value = values
            .as_ref()
            .and_then(|v| v.get(at))
            .map(|c| c.to_value());
        match read_value(value.as_ref()) {
            Reading::Number(x) => raw.set(*column, x),
            Reading::Missing(how) => missing.push((*column, how.describe(name))),
            Reading::NotANumber(v) => {
                bad.get_or_insert_with(|| not_a_number(name, v));
            }
        }
    }
    if let Some(message) = bad {
        return Err(NoTable::NotANumber(message));
    }
    // A table needs ai and ci, and bi or n1i, and di or n2i: without one it is NA.
    let has = |c: Column| !missing.iter().any(|(m, _)| *m == c);
    let lacking: Vec<&str> = [
        (Column::Ai, None),
        (Column::Ci, None),
        (Column::Bi, Some(Column::N1i)),
        (Column::Di, Some(Column::N2i)),
    ]
    .iter()
    .filter(|(c, or)| !has(*c) && or.is_none_or(|o| !has(o)))
    .filter_map(|(c, or)| {
        // Of a pair neither given, the one the data hold (n1i NA rather than bi absent).
        let why = |c: &Column| missing.iter().find(|(m, _)| m == c).map(|(_, w)| w);
        let held = |c: &Column| !values_absent(columns, *c);
        match or {
            Some(o) if !held(c) && held(o) => why(o),
            _ => why(c),
        }
        .map(String::as_str)
    })
    .collect();
    if !lacking.is_empty() {
        return Err(NoTable::Lacking(lacking.join(", ")));
    }
    Ok(raw)
}

/// `columns` on a handle: each key one of the table columns, each value a column its
/// records keep (their ids are the handle's own).
fn handle_mapping(mapping: &Map<String, Value>, source: &DataSource) -> Result<(), ToolError> {
    let names = source.column_names();
    for (target, given) in mapping {
        if !TABLE_COLUMNS.iter().any(|c| c.name() == target) {
            return Err(ToolError::new(
                ErrorCode::InvalidArguments,
                format!(
                    "columns maps {}, which is not a table column (ai, bi, ci, di, n1i, n2i; \
a handle's ids are its records')",
                    crate::quote::quoted(target)
                ),
            ));
        }
        if !given.as_str().is_some_and(|g| names.contains(&g)) {
            return Err(ToolError::new(
                ErrorCode::InvalidData,
                format!(
                    "columns maps {target} to {}, but the records have no such column; their \
columns are {}",
                    crate::quote::json_value(given),
                    names.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Whether the data have no column for `column` at all.
fn values_absent(
    columns: &[(Column, String, Option<super::data::Column<'_>>)],
    column: Column,
) -> bool {
    columns
        .iter()
        .find(|(c, _, _)| *c == column)
        .is_none_or(|(_, _, values)| values.is_none())
}

fn record_label(id: &str) -> String {
    format!("record {}", crate::quote::quoted(id))
}

fn too_many(n: usize) -> ToolError {
    ToolError::new(
        ErrorCode::TooManyRecords,
        format!("too many rows: {n} given, at most {MAX_RAW_DATA_ROWS} are accepted"),
    )
}

/// The tables of rows labelled for errors ("record \"a\""), or an error listing every bad
/// row with its column.
fn read_tables(data: &[(String, Result<RawRow, String>)]) -> Result<Vec<Table2x2>, ToolError> {
    if data.len() > MAX_RAW_DATA_ROWS {
        return Err(too_many(data.len()));
    }
    let mut tables = Vec::with_capacity(data.len());
    let mut errors = Vec::new();
    for (label, row) in data {
        match row
            .clone()
            .and_then(|raw| Table2x2::from_row(&raw).map_err(|e| e.to_string()))
        {
            Ok(table) => tables.push(table),
            Err(message) => errors.push(format!("{label}: {message}")),
        }
    }
    if errors.is_empty() {
        return Ok(tables);
    }
    let total = errors.len();
    errors.truncate(20);
    if total > 20 {
        errors.push(format!("and {} more", total - 20));
    }
    Err(ToolError::new(
        ErrorCode::InvalidData,
        format!(
            "{total} of {} rows are not 2x2 tables: {}",
            data.len(),
            errors.join("; ")
        ),
    ))
}

/// The options of a table analysis: its level (default 0.95).
pub(super) fn options(level: &super::args::LevelArg) -> Result<FitOptions, ToolError> {
    Ok(FitOptions {
        level: level.get()?,
        ..FitOptions::default()
    })
}

/// `subset`: the tables to keep, by one column's values (as the records' `subset`).
#[cfg(feature = "definitions")]
pub(super) fn subset_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(
        serde_json::json!({"type": "object", "description": "{column, in: []} or {column, equals}."}),
    )
    .expect("an object schema")
}

/// `columns`: the data's names of the table columns (as `compute_effect_sizes`' `columns`).
#[cfg(feature = "definitions")]
pub(super) fn columns_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(
        serde_json::json!({"type": "object", "description": "Yours for ai..n2i, id: {\"ai\": \"tpos\"}."}),
    )
    .expect("an object schema")
}

/// `slab`: the column of study labels (in errors).
#[cfg(feature = "definitions")]
pub(super) fn slab_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(
        serde_json::json!({"type": "string", "description": "Label column."}),
    )
    .expect("an object schema")
}

/// `data_id`: a handle of raw 2x2 data, instead of `data`.
#[cfg(feature = "definitions")]
pub(super) fn data_id_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({
        "type": "string",
        "description": format!("A {} handle.", LOAD_DATA.name)
    }))
    .expect("an object schema")
}

/// `data`: the 2x2 tables, one per study.
#[cfg(feature = "definitions")]
pub(super) fn data_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({
        "type": "array",
        "items": {"type": "object"},
        "description": format!("A 2x2 table per study: ai, ci, bi or n1i, di or n2i; at most {MAX_RAW_DATA_ROWS}.")
    }))
    .expect("an object schema")
}

/// The arguments of metafor's 2x2 functions (`rma.mh`, `rma.peto`, `escalc`) for the
/// call's tables: `ai`, `ci`, and `bi` or `n1i`, `di` or `n2i` by their (mapped) column
/// names, then `subset` and `slab`. Rows that give `n1i` where others give `bi` (or `n2i`
/// for `di`) are completed first, in a line of the script, as the engine reads them.
#[cfg(feature = "extended")]
pub(super) fn r_table_arguments(
    tables: &TablesArg,
    cx: &super::reproduce::RContext,
    script: &mut crate::rcode::Script,
) -> Vec<String> {
    use crate::rcode::name;
    let mapping = tables.columns.as_ref();
    let column = |c: Column| mapped_name(mapping, c);
    let has = |c: Column| cx.data.column(&column(c)).is_some();
    let mut args = Vec::new();
    for (cell, total, arm) in [
        (Column::Bi, Column::N1i, Column::Ai),
        (Column::Di, Column::N2i, Column::Ci),
    ] {
        args.push(format!("{} = {}", arm.name(), name(&column(arm))));
        let (cell_name, total_name) = (name(&column(cell)), name(&column(total)));
        if has(cell) && has(total) {
            script.line(format!(
                "dat${cell_name} <- ifelse(is.na(dat${cell_name}), dat${total_name} - dat${}, dat${cell_name})",
                name(&column(arm))
            ));
        }
        if has(cell) || !has(total) {
            args.push(format!("{} = {cell_name}", cell.name()));
        } else {
            args.push(format!("{} = {total_name}", total.name()));
        }
    }
    args.push("data = dat".into());
    args.extend(super::reproduce::record_arguments(cx, &tables.exclude));
    args
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::super::{call, MANTEL_HAENSZEL, PETO_ODDS_RATIO};
    use super::*;
    use meta_analysis::MhMeasure;
    use serde_json::json;

    fn bcg() -> Value {
        // The first four trials of metadat's dat.bcg, one given with group sizes.
        json!([
            {"id": "Aronson", "ai": 4, "bi": 119, "ci": 11, "di": 128},
            {"id": "Ferguson", "ai": 6, "bi": 300, "ci": 29, "di": 274},
            {"ai": "3", "n1i": 231, "ci": 11, "n2i": 220},
            {"ai": 62, "bi": 13536, "ci": 248, "di": 12619}
        ])
    }

    #[cfg(feature = "extended")]
    #[test]
    fn the_tools_pool_tables_as_the_library_does() {
        let out = call(MANTEL_HAENSZEL.name, &json!({"data": bcg()})).unwrap();
        let rows = [
            (4.0, 119.0, 11.0, 128.0),
            (6.0, 300.0, 29.0, 274.0),
            (3.0, 228.0, 11.0, 209.0),
            (62.0, 13536.0, 248.0, 12619.0),
        ];
        let tables: Vec<Table2x2> = rows
            .iter()
            .map(|&(a, b, c, d)| Table2x2::new(a, b, c, d).unwrap())
            .collect();
        let lib =
            meta_analysis::mantel_haenszel(&tables, MhMeasure::Or, &FitOptions::default()).unwrap();
        assert_eq!(out["measure"], "OR");
        assert_eq!(out["transform"], "exp");
        assert_eq!(out["estimate"].as_f64(), Some(lib.pooled.estimate));
        let (e, lo, hi) = lib.pooled.exponentiated();
        assert_eq!(
            out["natural"],
            json!({"estimate": e, "ci_lower": lo, "ci_upper": hi, "pi_lower": null, "pi_upper": null})
        );
        assert!(out.get("exp_estimate").is_none());
        assert_eq!(out["tarone_df"], 3);
        assert_eq!(out["dataset"]["name"], RAW_DATA_NAME);
        // The hash made a row at a time is the canonical hash of the whole array, as the
        // ledger computes it.
        assert_eq!(out["dataset"]["sha256"], canonical::sha256_hex(&bcg()));
        assert_eq!(
            out["dataset"]["sha256"],
            super::super::dataset_sha256_for(&json!({"data": bcg()}))
        );
        let rd = call(
            MANTEL_HAENSZEL.name,
            &json!({"data": bcg(), "measure": "RD"}),
        )
        .unwrap();
        assert_eq!(
            (rd["measure"].as_str(), rd["transform"].as_str()),
            (Some("RD"), Some("none"))
        );
        assert_eq!(rd["natural"], Value::Null);
        assert_eq!(rd["cmh"], Value::Null);
        let peto = call(PETO_ODDS_RATIO.name, &json!({"data": bcg(), "level": 0.9})).unwrap();
        assert_eq!(peto["level"], 0.9);
        assert!(peto["estimate"].as_f64().unwrap() < 0.0);
        assert_eq!(
            (peto["measure"].as_str(), peto["transform"].as_str()),
            (Some("OR"), Some("exp"))
        );
        assert_eq!(
            peto["natural"]["ci_upper"].as_f64(),
            Some(meta_analysis::math::exp(peto["ci_upper"].as_f64().unwrap()))
        );
        // transform as on the other fits: none leaves natural out, another is applied.
        let plain = call(
            PETO_ODDS_RATIO.name,
            &json!({"data": bcg(), "transform": "none"}),
        )
        .unwrap();
        assert_eq!(
            (plain["transform"].as_str(), plain["natural"].clone()),
            (Some("none"), Value::Null)
        );
        let rd_exp = call(
            MANTEL_HAENSZEL.name,
            &json!({"data": bcg(), "measure": "RD", "transform": "exp"}),
        )
        .unwrap();
        assert_eq!(
            rd_exp["natural"]["estimate"].as_f64(),
            Some(meta_analysis::math::exp(
                rd_exp["estimate"].as_f64().unwrap()
            ))
        );
        let e = call(
            MANTEL_HAENSZEL.name,
            &json!({"data": bcg(), "transform": "log"}),
        )
        .unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_arguments", "{}", e.message);
    }

    #[cfg(feature = "extended")]
    #[test]
    fn bad_tables_are_listed_and_impossible_pools_named() {
        let e = call(
            MANTEL_HAENSZEL.name,
            &json!({"data": [{"ai": 1, "bi": -2, "ci": 3, "di": 4}, {"ai": "x", "bi": 1, "ci": 1, "di": 1}, {"ai": 1, "ci": 1, "di": 1}]}),
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidData);
        // The table without bi or n1i is left out (na.omit), the two bad ones listed.
        assert!(e.message.starts_with("2 of 2 rows"), "{}", e.message);
        assert!(
            e.message
                .contains("record \"row2\": ai \"x\" is not a number"),
            "{}",
            e.message
        );
        let zeros =
            json!([{"ai": 0, "bi": 10, "ci": 0, "di": 12}, {"ai": 0, "bi": 5, "ci": 0, "di": 7}]);
        for tool in [MANTEL_HAENSZEL.name, PETO_ODDS_RATIO.name] {
            let e = call(tool, &json!({"data": zeros})).unwrap_err();
            assert_eq!(e.code, ErrorCode::AnalysisFailed, "{tool}: {}", e.message);
        }
        let e = call(
            PETO_ODDS_RATIO.name,
            &json!({"data": bcg(), "measure": "RR"}),
        )
        .unwrap_err();
        assert_eq!(e.code.as_str(), "unknown_property");
        let e = call(MANTEL_HAENSZEL.name, &json!({"data": []})).unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_arguments");
    }

    /// Issue 31 item 6: a handle of raw 2x2 data (load_data keeps their ai, bi, ci, di or
    /// n1i, n2i as columns of its records) answers as the same tables given inline.
    #[cfg(feature = "extended")]
    #[test]
    fn a_handle_of_raw_tables_answers_as_the_tables_inline() {
        use super::super::{call_in, DataStore};
        let mut store = DataStore::new();
        let loaded = call_in(
            "load_data",
            &json!({"measure": "OR", "data": bcg()}),
            &mut store,
        )
        .unwrap();
        assert_eq!(loaded["k"], 4);
        // Records carrying the counts as columns make a handle as good.
        let records = json!([
            {"id": "a", "yi": 0.1, "vi": 0.1, "ai": 4, "bi": 119, "ci": 11, "di": 128},
            {"id": "b", "yi": 0.1, "vi": 0.1, "ai": 6, "n1i": "306", "ci": 29, "n2i": 303},
            {"id": "c", "yi": 0.1, "vi": 0.1, "ai": 3, "bi": 228, "ci": 11, "di": 209}
        ]);
        call_in("load_data", &json!({"records": records}), &mut store).unwrap();
        let inline_c = json!([
            {"ai": 4, "bi": 119, "ci": 11, "di": 128},
            {"ai": 6, "bi": 300, "ci": 29, "di": 274},
            {"ai": 3, "bi": 228, "ci": 11, "di": 209}
        ]);
        for (id, inline) in [("d1", bcg()), ("d2", inline_c)] {
            for (tool, extra) in [
                (MANTEL_HAENSZEL.name, json!({})),
                (MANTEL_HAENSZEL.name, json!({"measure": "RR", "level": 0.9})),
                (MANTEL_HAENSZEL.name, json!({"measure": "RD"})),
                (PETO_ODDS_RATIO.name, json!({"transform": "none"})),
            ] {
                let mut by_handle = extra.clone();
                by_handle["data_id"] = json!(id);
                let mut given = extra;
                given["data"] = inline.clone();
                let mut a = call_in(tool, &by_handle, &mut store).unwrap();
                let mut b = call(tool, &given).unwrap();
                assert_eq!(a["dataset"]["name"], crate::tools::CUSTOM_RECORDS);
                assert_eq!(b["dataset"]["name"], RAW_DATA_NAME);
                a.as_object_mut().unwrap().remove("dataset");
                b.as_object_mut().unwrap().remove("dataset");
                assert_eq!(a, b, "{tool} {by_handle}");
            }
        }
        // A handle without counts, both or neither source, a bad count: each said plainly.
        let plain = json!([{"id": "a", "yi": 0.1, "vi": 0.1, "dose": 1}, {"id": "b", "yi": 0.2, "vi": 0.1}]);
        call_in("load_data", &json!({"records": plain}), &mut store).unwrap();
        let e = call_in(MANTEL_HAENSZEL.name, &json!({"data_id": "d3"}), &mut store).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidData);
        assert!(
            e.message.contains("hold no 2x2 counts (the columns dose)"),
            "{}",
            e.message
        );
        let e = call_in(
            PETO_ODDS_RATIO.name,
            &json!({"data_id": "d1", "data": bcg()}),
            &mut store,
        )
        .unwrap_err();
        assert_eq!(e.message, "give data or data_id, not both");
        let e = call_in(PETO_ODDS_RATIO.name, &json!({}), &mut store).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        assert!(
            e.message.starts_with("give data (one 2x2 table"),
            "{}",
            e.message
        );
        let bad =
            json!([{"id": "x", "yi": 0.1, "vi": 0.1, "ai": "many", "bi": 1, "ci": 1, "di": 1}]);
        call_in("load_data", &json!({"records": bad}), &mut store).unwrap();
        let e = call_in(MANTEL_HAENSZEL.name, &json!({"data_id": "d4"}), &mut store).unwrap_err();
        assert!(
            e.message
                .contains("record \"x\": ai \"many\" is not a number"),
            "{}",
            e.message
        );
        // A handle's columns named otherwise are mapped; a bad mapping is refused naming it.
        let renamed = json!([
            {"id": "a", "yi": 0.1, "vi": 0.1, "t": 4, "bi": 119, "ci": 11, "di": 128},
            {"id": "b", "yi": 0.1, "vi": 0.1, "t": 6, "bi": 300, "ci": 29, "di": 274}
        ]);
        call_in("load_data", &json!({"records": renamed}), &mut store).unwrap();
        let mapped = call_in(
            MANTEL_HAENSZEL.name,
            &json!({"data_id": "d5", "columns": {"ai": "t"}}),
            &mut store,
        )
        .unwrap();
        let inline = call(
            MANTEL_HAENSZEL.name,
            &json!({"data": [{"ai": 4, "bi": 119, "ci": 11, "di": 128}, {"ai": 6, "bi": 300, "ci": 29, "di": 274}]}),
        )
        .unwrap();
        assert_eq!(mapped["estimate"], inline["estimate"]);
        for (columns, says) in [
            (
                json!({"id": "t"}),
                "columns maps \"id\", which is not a table column",
            ),
            (
                json!({"ai": "u"}),
                "columns maps ai to \"u\", but the records have no such",
            ),
        ] {
            let e = call_in(
                MANTEL_HAENSZEL.name,
                &json!({"data_id": "d5", "columns": columns}),
                &mut store,
            )
            .unwrap_err();
            assert!(e.message.contains(says), "{}", e.message);
        }
        let e = call_in(MANTEL_HAENSZEL.name, &json!({"data_id": "d9"}), &mut store).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownData);
    }
}
