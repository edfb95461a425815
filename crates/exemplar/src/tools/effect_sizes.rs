//! Records `{id, yi, vi, …}` from study-level raw data, by metafor's `escalc` (the formulas
//! are `meta_analysis::effect_sizes`'), and the arguments that say how.
//!
//! [`compute`] does the work row by row, for `compute_effect_sizes` (which refuses the call
//! when a row is bad, listing every bad row), `load_data` and the page's "Your data" (which
//! shows each bad row's error beside it).

use super::{ErrorCode, ToolError};
use crate::csv_table;
#[cfg(feature = "definitions")]
use meta_analysis::effect_sizes::Column;
use meta_analysis::effect_sizes::{escalc, AddTo, EffectSizeError, EscalcOptions, Measure, RawRow};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;

/// The argument holding the raw data (hashed for `dataset` and the ledger).
pub const DATA_ARGUMENT: &str = "data";

/// The name `dataset` carries for raw data given by the caller.
pub const RAW_DATA_NAME: &str = "raw data";

/// The measures' columns, e.g. "MD, SMD, ROM: m1i, sd1i, n1i, m2i, sd2i, n2i; …" (measures
/// with the same columns together).
#[cfg(feature = "definitions")]
pub(super) fn columns_by_measure() -> String {
    let mut groups: Vec<(Vec<&str>, &[Column])> = Vec::new();
    for m in Measure::ALL {
        match groups
            .iter_mut()
            .find(|(_, columns)| *columns == m.columns())
        {
            Some((names, _)) => names.push(m.name()),
            None => groups.push((vec![m.name()], m.columns())),
        }
    }
    groups
        .iter()
        .map(|(names, columns)| {
            let columns: Vec<&str> = columns.iter().map(|c| c.name()).collect();
            format!("{}: {}", names.join(", "), columns.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One computed record: id, yi, vi, then the row's other columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct EffectSizeRecord {
    /// The row's id, or row1, row2, ... by position.
    pub id: String,
    /// The effect size.
    pub yi: f64,
    /// Its sampling variance (> 0).
    pub vi: f64,
    /// `measure` (the measure's name, which the analyses read), then the row's other
    /// columns, as given (a column named yi, vi or measure is replaced).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Why one row gives no record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowError {
    /// 1-based position of the row in the data.
    pub row: usize,
    /// The row's id as given, if any.
    pub id: Option<String>,
    /// The column at fault (none when the fault concerns every row, such as `add`).
    pub column: Option<String>,
    /// What is wrong, naming the column.
    pub message: String,
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "row {}", self.row)?;
        if let Some(id) = &self.id {
            write!(f, " ({id:?})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The escalc options from `add` and `to` (defaults 0.5 and "only0").
pub fn options(add: Option<f64>, to: Option<&str>) -> Result<EscalcOptions, ToolError> {
    let defaults = EscalcOptions::default();
    let to = match to {
        Some(name) => AddTo::parse(name).ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidArguments,
                format!("unknown to {name:?}; one of all, only0, if0all, none"),
            )
        })?,
        None => defaults.to,
    };
    let add = add.unwrap_or(defaults.add);
    if !(add.is_finite() && add >= 0.0) {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("add must be a number >= 0, got {add}"),
        ));
    }
    Ok(EscalcOptions { add, to })
}

/// The record of every row, in order, or the reason a row gives none. Rows without an id
/// get `row{n}`; a repeated id is an error of the later row.
pub fn compute(
    measure: Measure,
    rows: &[Map<String, Value>],
    options: &EscalcOptions,
) -> Vec<Result<EffectSizeRecord, RowError>> {
    let read: Vec<Result<(String, RawRow), RowError>> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| read_row(measure, i + 1, row))
        .collect();
    let raw: Vec<RawRow> = read
        .iter()
        .filter_map(|r| r.as_ref().ok().map(|(_, raw)| raw.clone()))
        .collect();
    let mut sizes = escalc(measure, &raw, options).into_iter();
    let mut first_row_of: HashMap<String, usize> = HashMap::new();
    read.into_iter()
        .zip(rows)
        .enumerate()
        .map(|(i, (read, row))| {
            let (id, _) = read?;
            let n = i + 1;
            let given_id = given_id(row);
            let size = sizes
                .next()
                .expect("one effect size per row read")
                .map_err(|e| row_error(n, &given_id, &e))?;
            if let Some(&first) = first_row_of.get(&id) {
                return Err(RowError {
                    row: n,
                    id: given_id,
                    column: Some("id".into()),
                    message: format!("the id {id:?} is also row {first}'s; ids must be unique"),
                });
            }
            first_row_of.insert(id.clone(), n);
            // The measure first, so that the analyses read it (see `scale`).
            let other = std::iter::once((
                super::scale::MEASURE_COLUMN.to_string(),
                Value::from(measure.name()),
            ))
            .chain(
                row.iter()
                    .filter(|(k, _)| {
                        !matches!(
                            k.as_str(),
                            "id" | "yi" | "vi" | super::scale::MEASURE_COLUMN
                        )
                    })
                    .map(|(k, v)| (k.clone(), v.clone())),
            )
            .collect();
            Ok(EffectSizeRecord {
                id,
                yi: size.yi,
                vi: size.vi,
                other,
            })
        })
        .collect()
}

fn given_id(row: &Map<String, Value>) -> Option<String> {
    match row.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

fn row_error(row: usize, id: &Option<String>, e: &EffectSizeError) -> RowError {
    RowError {
        row,
        id: id.clone(),
        column: e.column().map(|c| c.name().to_string()),
        message: e.to_string(),
    }
}

/// A row's id and its measure columns as numbers.
fn read_row(
    measure: Measure,
    n: usize,
    row: &Map<String, Value>,
) -> Result<(String, RawRow), RowError> {
    let id = given_id(row);
    let fail = |column: &str, message: String| RowError {
        row: n,
        id: id.clone(),
        column: Some(column.to_string()),
        message,
    };
    match row.get("id") {
        None | Some(Value::Null | Value::String(_) | Value::Number(_)) => {}
        Some(other) => return Err(fail("id", format!("id is {other}; an id must be text"))),
    }
    let mut raw = RawRow::default();
    for &column in measure.columns() {
        let name = column.name();
        match row.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::Number(x)) => raw.set(column, x.as_f64().unwrap_or(f64::NAN)),
            Some(Value::String(s)) if s.trim().is_empty() => {}
            Some(Value::String(s)) => match csv_table::number(s.trim()) {
                Some(x) => raw.set(column, x),
                None => return Err(fail(name, format!("{name} is {s:?}, not a number"))),
            },
            Some(other) => return Err(fail(name, format!("{name} is {other}, not a number"))),
        }
    }
    Ok((id.unwrap_or_else(|| format!("row{n}")), raw))
}

/// `measure`: one of escalc's measures (no default).
#[cfg(feature = "definitions")]
pub(super) fn measure_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = Measure::ALL.iter().map(|m| m.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "description": "The effect-size measure, by escalc's name (no default)."}))
        .expect("an object schema")
}

/// `data`: one object per study, its id a string if given (the field describes the rest).
#[cfg(feature = "definitions")]
pub(super) fn data_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "array", "items": {"type": "object", "properties": {"id": {"type": ["string", "null"]}}}}))
        .expect("an object schema")
}

/// `add`: the continuity correction.
#[cfg(feature = "definitions")]
pub(super) fn add_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "number", "minimum": 0, "default": EscalcOptions::default().add, "description": "Continuity correction for 2x2 tables and proportions."}))
        .expect("an object schema")
}

/// `to`: which rows get `add`, one of [`AddTo::ALL`].
#[cfg(feature = "definitions")]
pub(super) fn to_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = AddTo::ALL.iter().map(|t| t.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "default": EscalcOptions::default().to.name(), "description": "Which rows get add: with a zero cell, all, all if any has a zero (if0all), none."}))
        .expect("an object schema")
}

#[cfg(test)]
mod tests {
    use super::super::MAX_RAW_DATA_ROWS;
    use super::super::{
        call, dataset_sha256_for, outcome, COMPUTE_EFFECT_SIZES, FIT_RANDOM_EFFECTS,
    };
    use super::*;
    use crate::canonical;
    use serde_json::json;

    fn es(args: Value) -> Result<Value, ToolError> {
        call(COMPUTE_EFFECT_SIZES.name, &args)
    }

    fn smd_rows() -> Value {
        json!([
            {"id": "a", "m1i": 10.2, "sd1i": 2.1, "n1i": 20, "m2i": 9.1, "sd2i": 2.4, "n2i": 22, "dose": 5},
            {"m1i": "3.1", "sd1i": 1.0, "n1i": 2, "m2i": 3.9, "sd2i": 1.5, "n2i": 2, "dose": null},
            {"id": "c", "m1i": 12, "sd1i": 4, "n1i": 12, "m2i": 14.5, "sd2i": 3.5, "n2i": 15, "yi": 99}
        ])
    }

    #[test]
    fn records_carry_id_yi_vi_and_the_other_columns() {
        let out = es(json!({"measure": "SMD", "data": smd_rows()})).unwrap();
        assert_eq!(
            (out["measure"].as_str(), out["k"].as_u64()),
            (Some("SMD"), Some(3))
        );
        let records = out["records"].as_array().unwrap();
        let ids: Vec<&str> = records.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["a", "row2", "c"]);
        // metafor 3.8-1: escalc("SMD", ...) of the first row (tests/fixtures/escalc.json).
        assert!((records[0]["yi"].as_f64().unwrap() - 0.47701210405237254).abs() < 1e-12);
        assert!((records[0]["vi"].as_f64().unwrap() - 0.09816336149517012).abs() < 1e-12);
        let keys: Vec<&str> = records[0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["id", "yi", "vi", "measure", "m1i", "sd1i", "n1i", "m2i", "sd2i", "n2i", "dose"]
        );
        assert_eq!(records[1]["dose"], Value::Null);
        // A yi column of the data is replaced by the computed one.
        assert_ne!(records[2]["yi"], 99);
        assert_eq!(
            out["dataset"],
            json!({"name": RAW_DATA_NAME, "sha256": canonical::sha256_hex(&smd_rows())})
        );
        let args = json!({"measure": "SMD", "data": smd_rows()});
        assert_eq!(
            dataset_sha256_for(&args),
            canonical::sha256_hex(&smd_rows())
        );
        assert_eq!(
            outcome(COMPUTE_EFFECT_SIZES.name, &args).dataset_sha256,
            dataset_sha256_for(&args)
        );

        // The records go straight into a fit (as {id, yi, vi}).
        let records: Vec<Value> = records
            .iter()
            .map(|r| json!({"id": r["id"], "yi": r["yi"], "vi": r["vi"]}))
            .collect();
        let fit = call(FIT_RANDOM_EFFECTS.name, &json!({"records": records})).unwrap();
        assert_eq!(fit["k"], 3);
    }

    #[test]
    fn every_bad_row_is_listed_with_its_column() {
        let data = json!([
            {"id": "a", "ri": 0.3, "ni": 50},
            {"id": "b", "ri": 1.3, "ni": 50},
            {"ri": "strong", "ni": 50},
            {"id": "d", "ri": 0.2},
            {"id": "a", "ri": 0.1, "ni": 20}
        ]);
        let e = es(json!({"measure": "ZCOR", "data": data})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidData);
        assert_eq!(
            e.message,
            "4 of 5 rows give no ZCOR (Fisher's z-transformed correlation): \
row 2 (\"b\"): ri is 1.3; a correlation must lie in [-1, 1]; \
row 3: ri is \"strong\", not a number; \
row 4 (\"d\"): ni is missing (sample size); \
row 5 (\"a\"): the id \"a\" is also row 1's; ids must be unique"
        );
        let outcomes = compute(
            Measure::Zcor,
            &serde_json::from_value::<Vec<Map<String, Value>>>(data).unwrap(),
            &EscalcOptions::default(),
        );
        let columns: Vec<Option<&str>> = outcomes
            .iter()
            .map(|o| o.as_ref().err().and_then(|e| e.column.as_deref()))
            .collect();
        assert_eq!(
            columns,
            [None, Some("ri"), Some("ri"), Some("ni"), Some("id")]
        );
        let many: Vec<Value> = (0..30).map(|_| json!({"xi": -1, "ni": 10})).collect();
        let e = es(json!({"measure": "PR", "data": many})).unwrap_err();
        assert!(e.message.ends_with("and 10 more"), "{}", e.message);
    }

    #[test]
    fn options_and_arguments_are_checked() {
        let table = json!([{"ai": 0, "bi": 10, "ci": 3, "n2i": 10}]);
        let default = es(json!({"measure": "OR", "data": table})).unwrap();
        assert_eq!(
            default["records"][0]["vi"],
            1.0 / 0.5 + 1.0 / 10.5 + 1.0 / 3.5 + 1.0 / 7.5
        );
        let none = es(json!({"measure": "OR", "data": table, "to": "none"})).unwrap_err();
        assert!(
            none.message
                .contains("ai is 0 and no continuity correction"),
            "{}",
            none.message
        );
        let all = es(json!({"measure": "OR", "data": table, "add": 1, "to": "all"})).unwrap();
        assert_eq!(
            all["records"][0]["vi"],
            1.0 + 1.0 / 11.0 + 1.0 / 4.0 + 1.0 / 8.0
        );
        for (args, code) in [
            (json!({"measure": "OR"}), "invalid_arguments"),
            (json!({"data": table}), "invalid_arguments"),
            (json!({"measure": "XX", "data": table}), "invalid_arguments"),
            (json!({"measure": "OR", "data": []}), "invalid_arguments"),
            (
                json!({"measure": "OR", "data": table, "add": -1}),
                "invalid_arguments",
            ),
            (
                json!({"measure": "OR", "data": table, "to": "some"}),
                "invalid_arguments",
            ),
            (json!({"measure": "OR", "data": [1]}), "wrong_type"),
            (
                json!({"measure": "OR", "data": [{"id": 3, "ai": 1}]}),
                "wrong_type",
            ),
            (
                json!({"measure": "OR", "data": table, "records": []}),
                "unknown_property",
            ),
        ] {
            assert_eq!(es(args.clone()).unwrap_err().code.as_str(), code, "{args}");
        }
        let many: Vec<Value> = (0..=MAX_RAW_DATA_ROWS).map(|_| json!({})).collect();
        assert_eq!(
            es(json!({"measure": "PR", "data": many})).unwrap_err().code,
            ErrorCode::TooManyRecords
        );
    }
}
