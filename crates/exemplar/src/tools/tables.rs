//! What the Mantel–Haenszel and Peto tools share: 2×2 tables read from raw data (`ai`,
//! `ci` and `bi` or `n1i`, `di` or `n2i`, as the effect-size tool takes them), their level
//! and the pooled estimate as both report it (the statistics, as metafor's `rma.mh()` and
//! `rma.peto()`, are `meta_analysis`').

use super::data::DatasetInfo;
use super::effect_sizes::RAW_DATA_NAME;
use super::{ErrorCode, ToolError, MAX_RAW_DATA_ROWS};
use crate::{canonical, csv_table};
use meta_analysis::effect_sizes::{Column, RawRow};
use meta_analysis::{FitOptions, Pooled, Table2x2, TableHeterogeneity};
use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
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

/// The pooled estimate of a table analysis, on the measure's scale (log for OR and RR).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TablesPooled {
    /// Pooled estimate (log odds ratio, log risk ratio or risk difference).
    pub estimate: f64,
    pub se: f64,
    /// z = estimate / se.
    pub z: f64,
    /// Two-sided p value of estimate = 0.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    /// exp(estimate) and exp of the CI: the ratio itself (OR, RR; null for RD).
    pub exp_estimate: Option<f64>,
    pub exp_ci_lower: Option<f64>,
    pub exp_ci_upper: Option<f64>,
    /// Cochran's Q of the tables' own effect sizes about the pooled one.
    pub q: f64,
    pub q_df: usize,
    pub q_p: f64,
    /// I^2 in percent, from Q.
    pub i2: f64,
    pub h2: f64,
    /// Tables in Q: those with events and non-events (double-zero tables left out).
    pub k_heterogeneity: usize,
}

impl TablesPooled {
    pub(super) fn of(pooled: &Pooled, heterogeneity: &TableHeterogeneity, ratio: bool) -> Self {
        let (e, lo, hi) = pooled.exponentiated();
        TablesPooled {
            estimate: pooled.estimate,
            se: pooled.se,
            z: pooled.statistic,
            p: pooled.p,
            ci_lower: pooled.ci_lower,
            ci_upper: pooled.ci_upper,
            exp_estimate: ratio.then_some(e),
            exp_ci_lower: ratio.then_some(lo),
            exp_ci_upper: ratio.then_some(hi),
            q: heterogeneity.q,
            q_df: heterogeneity.q_df,
            q_p: heterogeneity.q_p,
            i2: heterogeneity.i2,
            h2: heterogeneity.h2,
            k_heterogeneity: heterogeneity.k,
        }
    }
}

/// `data` as read, a row at a time: each row's table columns (or why they are not
/// numbers), and the SHA-256 of the rows' canonical JSON (the dataset hash of
/// [`canonical::sha256_hex`] on the whole array, computed without holding the rows twice:
/// a 2x2 row is a few small numbers, whose JSON tree is many times its text).
#[derive(Debug)]
pub struct TableRows {
    rows: Vec<Result<RawRow, String>>,
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
                let mut rows = Vec::new();
                while let Some(row) = seq.next_element::<Map<String, Value>>()? {
                    if !rows.is_empty() {
                        hasher.update(b",");
                    }
                    rows.push(read(&row));
                    hasher.update(canonical::to_string(&Value::Object(row)).as_bytes());
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

/// The tables of `data`, or an error listing every bad row with its column.
pub(super) fn tables(data: &TableRows) -> Result<Vec<Table2x2>, ToolError> {
    let data = &data.rows;
    if data.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            "data is empty; give one 2x2 table per study",
        ));
    }
    if data.len() > MAX_RAW_DATA_ROWS {
        return Err(ToolError::new(
            ErrorCode::TooManyRecords,
            format!(
                "too many rows: {} given, at most {MAX_RAW_DATA_ROWS} are accepted",
                data.len()
            ),
        ));
    }
    let mut tables = Vec::with_capacity(data.len());
    let mut errors = Vec::new();
    for (i, row) in data.iter().enumerate() {
        match row
            .clone()
            .and_then(|raw| Table2x2::from_row(&raw).map_err(|e| e.to_string()))
        {
            Ok(table) => tables.push(table),
            Err(message) => errors.push(format!("row {}: {message}", i + 1)),
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

/// A row's table columns as numbers (numeric text accepted).
fn read(row: &Map<String, Value>) -> Result<RawRow, String> {
    let mut raw = RawRow::default();
    for column in TABLE_COLUMNS {
        let name = column.name();
        match row.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::Number(x)) => raw.set(column, x.as_f64().unwrap_or(f64::NAN)),
            Some(Value::String(s)) if s.trim().is_empty() => {}
            Some(Value::String(s)) => match csv_table::number(s.trim()) {
                Some(x) => raw.set(column, x),
                None => return Err(format!("{name} is {s:?}, not a number")),
            },
            Some(other) => return Err(format!("{name} is {other}, not a number")),
        }
    }
    Ok(raw)
}

/// The options of a table analysis: its level (default 0.95).
pub(super) fn options(level: &super::args::LevelArg) -> Result<FitOptions, ToolError> {
    Ok(FitOptions {
        level: level.get()?,
        ..FitOptions::default()
    })
}

/// The dataset a table analysis read: its raw data's hash.
pub(super) fn dataset(data: TableRows) -> DatasetInfo {
    DatasetInfo {
        name: RAW_DATA_NAME,
        sha256: data.sha256,
    }
}

/// `data`: the 2x2 tables, one per study.
#[cfg(feature = "definitions")]
pub(super) fn data_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({
        "type": "array",
        "items": {"type": "object"},
        "description": format!("One 2x2 table per study: ai, ci, and bi or n1i, di or n2i (numbers or numeric text); at most {MAX_RAW_DATA_ROWS}.")
    }))
    .expect("an object schema")
}

#[cfg(test)]
mod tests {
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
        assert_eq!(out["estimate"].as_f64(), Some(lib.pooled.estimate));
        assert_eq!(
            out["exp_estimate"].as_f64(),
            Some(lib.pooled.exponentiated().0)
        );
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
        assert_eq!(rd["exp_estimate"], Value::Null);
        assert_eq!(rd["cmh"], Value::Null);
        let peto = call(PETO_ODDS_RATIO.name, &json!({"data": bcg(), "level": 0.9})).unwrap();
        assert_eq!(peto["level"], 0.9);
        assert!(peto["estimate"].as_f64().unwrap() < 0.0);
    }

    #[test]
    fn bad_tables_are_listed_and_impossible_pools_named() {
        let e = call(
            MANTEL_HAENSZEL.name,
            &json!({"data": [{"ai": 1, "bi": -2, "ci": 3, "di": 4}, {"ai": "x", "bi": 1, "ci": 1, "di": 1}, {"ai": 1, "ci": 1, "di": 1}]}),
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidData);
        assert!(e.message.starts_with("3 of 3 rows"), "{}", e.message);
        assert!(e.message.contains("row 2: ai is \"x\""), "{}", e.message);
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
}
