//! What the Mantel–Haenszel and Peto tools share: 2×2 tables read from raw data (`ai`,
//! `ci` and `bi` or `n1i`, `di` or `n2i`, as the effect-size tool takes them), given inline
//! as `data` or kept by `load_data` under a handle (`data_id`: the records it computed from
//! raw data keep those columns), their level and the pooled estimate as both report it,
//! with its natural scale (the statistics, as metafor's `rma.mh()` and `rma.peto()`, are
//! `meta_analysis`').

use super::data::{Cell, DataSource, DatasetInfo};
use super::effect_sizes::RAW_DATA_NAME;
use super::scale::{NaturalScale, Scale};
use super::{ErrorCode, ToolError, DATA_ID, LOAD_DATA, MAX_RAW_DATA_ROWS};
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

/// The pooled estimate of a table analysis, on the measure's scale (log for OR and RR): the
/// engine's estimate and heterogeneity, with the natural scale between them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TablesPooled {
    #[serde(flatten)]
    pub pooled: Pooled,
    /// The estimate and CI back-transformed (`transform`: the ratio itself for OR and RR);
    /// null when nothing is transformed (RD by default). No prediction interval.
    pub natural: Option<NaturalScale>,
    #[serde(flatten)]
    pub heterogeneity: TableHeterogeneity,
}

impl TablesPooled {
    pub(super) fn of(pooled: &Pooled, heterogeneity: &TableHeterogeneity, scale: &Scale) -> Self {
        TablesPooled {
            pooled: *pooled,
            natural: scale.natural(pooled.estimate, (pooled.ci_lower, pooled.ci_upper), None),
            heterogeneity: *heterogeneity,
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

/// `data` or `data_id`: the 2x2 tables of `mantel_haenszel` and `peto_odds_ratio`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TablesArg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "data_schema"))]
    pub data: Option<TableRows>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "data_id_schema"))]
    pub data_id: Option<String>,
}

leaf_args!(TablesArg);

impl TablesArg {
    /// The tables and the data they are ([`tables_of`]).
    pub(super) fn of(self, source: &DataSource) -> Result<(Vec<Table2x2>, DatasetInfo), ToolError> {
        tables_of(self.data, self.data_id.as_deref(), source)
    }
}

/// The tables a call names: its inline `data`, or the records of its `data_id` (which the
/// dispatch has read into `source`), and the data they are (for the result's `dataset`).
/// Exactly one of the two must be given.
fn tables_of(
    data: Option<TableRows>,
    data_id: Option<&str>,
    source: &DataSource,
) -> Result<(Vec<Table2x2>, DatasetInfo), ToolError> {
    match (data, data_id) {
        (Some(_), Some(_)) => Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("give data or {DATA_ID}, not both"),
        )),
        (None, None) => Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "give data (one 2x2 table per study: ai, ci, and bi or n1i, di or n2i) or \
{DATA_ID} (a {} handle of such raw data)",
                LOAD_DATA.name
            ),
        )),
        (Some(data), None) => {
            let tables = tables(&data)?;
            Ok((tables, dataset(data)))
        }
        (None, Some(id)) => Ok((handle_tables(id, source)?, source.info().clone())),
    }
}

/// The tables of a handle's records, from their columns ai, bi, ci, di, n1i and n2i.
fn handle_tables(id: &str, source: &DataSource) -> Result<Vec<Table2x2>, ToolError> {
    let names = source.column_names();
    if !TABLE_COLUMNS.iter().any(|c| names.contains(&c.name())) {
        let held = if names.is_empty() {
            "no columns besides id, yi and vi".to_string()
        } else {
            format!("the columns {}", names.join(", "))
        };
        return Err(ToolError::new(
            ErrorCode::InvalidData,
            format!(
                "the data of {id:?} hold no 2x2 counts ({held}); load raw 2x2 data (`data` \
with ai, ci, and bi or n1i, di or n2i, and `measure` OR, RR or RD) with {} and pass its \
{DATA_ID}",
                LOAD_DATA.name
            ),
        ));
    }
    let columns: Vec<_> = TABLE_COLUMNS
        .iter()
        .map(|c| (*c, source.column(c.name())))
        .collect();
    let rows: Vec<(String, Result<RawRow, String>)> = source
        .records()
        .iter()
        .enumerate()
        .map(|(at, record)| {
            let mut raw = RawRow::default();
            for (column, values) in &columns {
                let name = column.name();
                match values.as_ref().and_then(|v| v.get(at)) {
                    None => {}
                    Some(Cell::Number(x)) => raw.set(*column, x.as_f64().unwrap_or(f64::NAN)),
                    Some(Cell::Text(s)) if s.trim().is_empty() => {}
                    Some(Cell::Text(s)) => match csv_table::number(s.trim()) {
                        Some(x) => raw.set(*column, x),
                        None => {
                            return (
                                record_label(&record.id),
                                Err(format!("{name} is {s:?}, not a number")),
                            )
                        }
                    },
                    Some(cell) if cell.is_null() => {}
                    Some(cell) => {
                        return (
                            record_label(&record.id),
                            Err(format!("{name} is {}, not a number", cell.to_value())),
                        )
                    }
                }
            }
            (record_label(&record.id), Ok(raw))
        })
        .collect();
    read_tables(&rows)
}

fn record_label(id: &str) -> String {
    format!("record {}", crate::quote::quoted(id))
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
    let rows: Vec<(String, Result<RawRow, String>)> = data
        .iter()
        .enumerate()
        .map(|(i, row)| (format!("row {}", i + 1), row.clone()))
        .collect();
    read_tables(&rows)
}

/// The tables of rows labelled for errors ("row 3", "record \"a\""), or an error listing
/// every bad row with its column.
fn read_tables(data: &[(String, Result<RawRow, String>)]) -> Result<Vec<Table2x2>, ToolError> {
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

/// The dataset a table analysis read inline: its raw data's hash.
fn dataset(data: TableRows) -> DatasetInfo {
    DatasetInfo {
        name: RAW_DATA_NAME,
        sha256: data.sha256,
        data_id: None,
        subset: None,
        notes: Vec::new(),
    }
}

/// `data_id`: a handle of raw 2x2 data, instead of `data`.
#[cfg(feature = "definitions")]
pub(super) fn data_id_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({
        "type": "string",
        "description": format!("A {} handle of raw 2x2 data (its ai, ci, bi or n1i, di or n2i), instead of data.", LOAD_DATA.name)
    }))
    .expect("an object schema")
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

    /// Issue 31 item 6: a handle of raw 2x2 data (load_data keeps their ai, bi, ci, di or
    /// n1i, n2i as columns of its records) answers as the same tables given inline.
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
            e.message.contains("record \"x\": ai is \"many\""),
            "{}",
            e.message
        );
        let e = call_in(MANTEL_HAENSZEL.name, &json!({"data_id": "d9"}), &mut store).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownData);
    }
}
