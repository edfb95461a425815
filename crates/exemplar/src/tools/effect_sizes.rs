//! Records `{id, yi, vi, …}` from study-level raw data, by metafor's `escalc` (the formulas
//! are `meta_analysis::effect_sizes`'), and the arguments that say how.
//!
//! [`compute`] does the work row by row and [`kept`] splits its outcomes into the records
//! and the rows left out (`omitted`, each with its reason, as metafor's escalc gives NA and
//! rma's `na.action = "na.omit"` drops the row), for `compute_effect_sizes`, `load_data`,
//! `exemplar escalc` and the page's "Your data" (which shows each reason beside its row).
//! Values are read by [`super::raw_columns::read_value`].

use super::data::Omitted;
use super::raw_columns::{not_a_number, read_value, Reading};
use super::{ErrorCode, ToolError};
use meta_analysis::effect_sizes::{
    escalc_with, AddTo, Column, EffectSizeError, Measure, RawRow, Settings, Vtype,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;

/// The argument holding the raw data (hashed for `dataset` and the ledger).
pub const DATA_ARGUMENT: &str = "data";

/// The name `dataset` carries for raw data given by the caller.
pub const RAW_DATA_NAME: &str = "raw data";

/// Where the measures' columns are listed (not in the tool list: docs/METHODS.md has the
/// table of every measure and its columns, and a missing column's error names it).
#[cfg(feature = "definitions")]
pub(super) fn columns_by_measure() -> String {
    "named as escalc's arguments, e.g. SMD: m1i, sd1i, n1i, m2i, sd2i, n2i; OR: ai, bi, ci, di"
        .to_string()
}

/// One computed record: id, yi, vi, then the row's other columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct EffectSizeRecord {
    /// The row's id, or row1, row2, ... by position.
    pub id: String,
    /// The effect size.
    pub yi: f64,
    /// Its sampling variance (> 0, or 0 where escalc gives 0: see `notes`).
    pub vi: f64,
    /// `measure` (the measure's name, which the analyses read), then the row's other
    /// columns, as given (a column named yi, vi or measure is replaced).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Why one row gives no record.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
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

/// The most rows the error of data without a single effect size lists.
const LISTED_ROWS: usize = 5;

/// The records of the rows that give one, and the rows left out with their reasons (in row
/// order); an error when no row is left, giving the reasons of the first few rows.
pub fn kept(
    measure: Measure,
    outcomes: Vec<Result<EffectSizeRecord, RowError>>,
) -> Result<(Vec<EffectSizeRecord>, Vec<Omitted>), ToolError> {
    let rows = outcomes.len();
    let mut records = Vec::with_capacity(rows);
    let mut errors = Vec::new();
    for outcome in outcomes {
        match outcome {
            Ok(record) => records.push(record),
            Err(e) => errors.push(e),
        }
    }
    if records.is_empty() && !errors.is_empty() {
        let mut listed: Vec<String> = errors
            .iter()
            .take(LISTED_ROWS)
            .map(RowError::to_string)
            .collect();
        if errors.len() > LISTED_ROWS {
            listed.push(format!("and {} more", errors.len() - LISTED_ROWS));
        }
        return Err(ToolError::new(
            ErrorCode::InvalidData,
            format!(
                "no row gives a {} ({}), so there are no records: {}",
                measure.name(),
                measure.title(),
                listed.join("; ")
            ),
        ));
    }
    let omitted = errors
        .into_iter()
        .map(|e| Omitted {
            id: e.id.unwrap_or_else(|| format!("row{}", e.row)),
            reason: e.message,
        })
        .collect();
    Ok((records, omitted))
}

/// escalc's settings as the tools take them (each optional: escalc's default): `add` (the
/// measure's own, 1/2 or 0), `to` ("only0"), `vtype` ("LS") and `drop00` (false). Flattened
/// into `compute_effect_sizes`' arguments; `load_data`, `exemplar escalc`, `exemplar call
/// --records` and Your data pass the same four on.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct EscalcSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "add_schema"))]
    pub add: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "to_schema"))]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "vtype_schema"))]
    pub vtype: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "drop00_schema"))]
    pub drop00: Option<bool>,
}

leaf_args!(EscalcSettings);

impl EscalcSettings {
    /// The engine's settings for `measure`: `to` and `vtype` by escalc's names, `add` a
    /// number >= 0, and a `vtype` the measure offers (escalc ignores `vtype` for a measure
    /// that has none, and `drop00` where it has no 2x2 table or person-time).
    pub fn settings(&self, measure: Measure) -> Result<Settings, ToolError> {
        let invalid = |message: String| ToolError::new(ErrorCode::InvalidArguments, message);
        let to = match self.to.as_deref() {
            Some(name) => AddTo::parse(name).ok_or_else(|| {
                invalid(format!(
                    "unknown to {name:?}; one of all, only0, if0all, none"
                ))
            })?,
            None => AddTo::default(),
        };
        if let Some(add) = self.add.filter(|add| !(add.is_finite() && *add >= 0.0)) {
            return Err(invalid(format!("add must be a number >= 0, got {add}")));
        }
        let vtype = match self.vtype.as_deref() {
            Some(name) => Vtype::parse(name).ok_or_else(|| {
                let names: Vec<&str> = Vtype::ALL.iter().map(|v| v.name()).collect();
                invalid(format!(
                    "unknown vtype {name:?}; one of {}",
                    names.join(", ")
                ))
            })?,
            None => Vtype::default(),
        };
        if let Some(offered) = measure.vtypes().filter(|offered| !offered.contains(&vtype)) {
            let names: Vec<&str> = offered.iter().map(|v| v.name()).collect();
            return Err(invalid(format!(
                "vtype {:?} is not one of {}'s: {}",
                vtype.name(),
                measure.name(),
                names.join(", ")
            )));
        }
        Ok(Settings {
            add: self.add,
            to,
            drop00: self.drop00.unwrap_or(false),
            vtype,
        })
    }

    /// The settings given, as arguments of `compute_effect_sizes` (written into `args`).
    pub fn write_into(&self, args: &mut Map<String, Value>) {
        if let Some(add) = self.add {
            args.insert("add".into(), add.into());
        }
        for (key, value) in [("to", &self.to), ("vtype", &self.vtype)] {
            if let Some(value) = value {
                args.insert(key.into(), value.clone().into());
            }
        }
        if let Some(drop00) = self.drop00 {
            args.insert("drop00".into(), drop00.into());
        }
    }
}

/// The record of every row, in order, or the reason a row gives none, and the notes on
/// what was done to a row: ids made unique ([`unique_ids`]) and records kept with vi = 0.
/// Rows without an id get `row{n}`.
///
/// A row escalc returns with vi = 0 exactly (a proportion of 0 or 1 with `to: "none"`, SDs
/// of 0, a correlation of ±1, an alpha of 1) is kept as escalc keeps it, with a note naming
/// it: every analysis refuses such a record by name ([`meta_analysis::validate_records`]),
/// where metafor's rma warns and fits it with REML (and fails with EE or DL), so the caller
/// decides whether to exclude it. Any other value outside the engine's range
/// ([`meta_analysis::effect_sizes::EffectSize::analysable`]) is left out, as a row escalc gives NA.
pub fn compute(
    measure: Measure,
    rows: &[Map<String, Value>],
    options: &Settings,
) -> (Vec<Result<EffectSizeRecord, RowError>>, Vec<String>) {
    let read: Vec<Result<(String, RawRow), RowError>> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| read_row(measure, i + 1, row))
        .collect();
    let raw: Vec<RawRow> = read
        .iter()
        .filter_map(|r| r.as_ref().ok().map(|(_, raw)| raw.clone()))
        .collect();
    // A row escalc computes but no analysis could take is left out like one it gives NA;
    // vi = 0 exactly is escalc's own answer, kept (see above).
    let mut sizes = escalc_with(measure, &raw, options).into_iter().map(|size| {
        size.and_then(|s| {
            if s.vi == 0.0 && s.yi.abs() <= meta_analysis::MAX_ABS_YI {
                Ok(s)
            } else {
                s.analysable()
            }
        })
    });
    let ids: Vec<String> = read
        .iter()
        .zip(rows)
        .enumerate()
        .map(|(i, (read, row))| match read {
            Ok((id, _)) => id.clone(),
            Err(_) => given_id(row).unwrap_or_else(|| format!("row{}", i + 1)),
        })
        .collect();
    let (ids, mut notes) = unique_ids(ids);
    let mut zero_vi = Vec::new();
    let outcomes = read
        .into_iter()
        .zip(rows)
        .zip(ids)
        .enumerate()
        .map(|(i, ((read, row), id))| {
            let n = i + 1;
            let given_id = given_id(row).map(|_| id.clone());
            read.map_err(|e| RowError {
                id: given_id.clone(),
                ..e
            })?;
            let size = sizes
                .next()
                .expect("one effect size per row read")
                .map_err(|e| row_error(n, &given_id, row, &e))?;
            if size.vi == 0.0 {
                zero_vi.push(format!("row {n} ({})", crate::quote::quoted(&id)));
            }
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
        .collect();
    if !zero_vi.is_empty() {
        notes.push(format!(
            "{} {} vi = 0, as metafor's escalc gives it; every analysis refuses a record with vi = 0 (metafor's rma fits it only with REML or ML, with a warning): exclude it to analyse the rest",
            listed(&zero_vi),
            if zero_vi.len() == 1 { "has" } else { "have" }
        ));
    }
    (outcomes, notes)
}

/// The most ids or rows a note lists.
const LISTED_IN_NOTE: usize = 5;

/// The first [`LISTED_IN_NOTE`] items, then how many more.
fn listed(items: &[String]) -> String {
    let mut text = items
        .iter()
        .take(LISTED_IN_NOTE)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > LISTED_IN_NOTE {
        text.push_str(&format!(" and {} more", items.len() - LISTED_IN_NOTE));
    }
    text
}

/// Ids made unique, every row kept (R has no key: its rows are told apart by position):
/// the first row with an id keeps it, and the n-th (n ≥ 2) becomes `id#n`, or the next
/// `id#m` (m > n) no row has, so that a renamed id is never one given. With a note listing
/// the repeated ids and their rows when any repeats. O(k log k) in the rows.
pub fn unique_ids(ids: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut taken: std::collections::HashSet<String> = ids.iter().cloned().collect();
    if taken.len() == ids.len() {
        return (ids, Vec::new());
    }
    let mut seen: HashMap<String, (usize, Vec<usize>)> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let renamed: Vec<String> = ids
        .into_iter()
        .enumerate()
        .map(|(i, id)| {
            let entry = seen.entry(id.clone()).or_insert_with(|| {
                order.push(id.clone());
                (0, Vec::new())
            });
            entry.0 += 1;
            entry.1.push(i + 1);
            if entry.0 == 1 {
                return id;
            }
            let mut m = entry.0;
            loop {
                let candidate = format!("{id}#{m}");
                if taken.insert(candidate.clone()) {
                    return candidate;
                }
                m += 1;
            }
        })
        .collect();
    let repeated: Vec<String> = order
        .iter()
        .filter_map(|id| {
            let (count, rows) = &seen[id];
            (*count > 1).then(|| {
                let rows: Vec<String> = rows.iter().map(usize::to_string).collect();
                format!("{} (rows {})", crate::quote::quoted(id), rows.join(", "))
            })
        })
        .collect();
    let note = format!(
        "{} {} repeat{}; every row is kept, the second row with an id renamed id#2, the third id#3, and so on: {}",
        repeated.len(),
        if repeated.len() == 1 { "id" } else { "ids" },
        if repeated.len() == 1 { "s" } else { "" },
        listed(&repeated)
    );
    (renamed, vec![note])
}

fn given_id(row: &Map<String, Value>) -> Option<String> {
    match row.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// The engine's error, with a missing value said as it was read ("ai is blank").
fn row_error(
    n: usize,
    id: &Option<String>,
    row: &Map<String, Value>,
    e: &EffectSizeError,
) -> RowError {
    let missing = |column: Column| match read_value(row.get(column.name())) {
        Reading::Missing(how) => how.describe(column.name()),
        _ => format!("{column} is missing"),
    };
    let message = match e {
        EffectSizeError::Missing { column } => missing(*column),
        EffectSizeError::MissingEither { column, or } => format!(
            "{} and {}: give {column} ({}) or {or} ({})",
            missing(*column),
            missing(*or),
            column.description(),
            or.description()
        ),
        other => other.to_string(),
    };
    RowError {
        row: n,
        id: id.clone(),
        column: match e {
            EffectSizeError::BeyondAnalysisRange { field, .. } => Some((*field).to_string()),
            _ => e.column().map(|c| c.name().to_string()),
        },
        message,
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
        match read_value(row.get(name)) {
            Reading::Number(x) => raw.set(column, x),
            Reading::Missing(_) => {}
            Reading::NotANumber(value) => return Err(fail(name, not_a_number(name, value))),
        }
    }
    Ok((id.unwrap_or_else(|| format!("row{n}")), raw))
}

/// `measure`: one of escalc's measures (no default).
#[cfg(feature = "definitions")]
pub(super) fn measure_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = Measure::ALL.iter().map(|m| m.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "description": "escalc's name; no default."}))
        .expect("an object schema")
}

/// `data`: one object per study, its id a string if given (the field describes the rest).
#[cfg(feature = "definitions")]
pub(super) fn data_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "array", "items": {"type": "object", "properties": {"id": {"type": ["string", "null"]}}}}))
        .expect("an object schema")
}

/// `add`: the continuity correction. Its default depends on the measure, so the schema
/// states it in words rather than as one `default`.
#[cfg(feature = "definitions")]
fn add_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "number", "minimum": 0, "description": "Continuity correction for counts; default 0.5, or 0 for AS, PHI, IRSD, PAS, PFT, IRS, IRFT."}))
        .expect("an object schema")
}

/// `vtype`: escalc's estimate of the sampling variance, one of [`Vtype::ALL`].
#[cfg(feature = "definitions")]
fn vtype_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = Vtype::ALL.iter().map(|v| v.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "default": Vtype::default().name(), "description": "escalc's vtype, if the measure has it."}))
        .expect("an object schema")
}

/// `drop00`: escalc's drop00.
#[cfg(feature = "definitions")]
fn drop00_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "boolean", "default": false, "description": "Drop tables with no or all events in both groups."}))
        .expect("an object schema")
}

/// `to`: which rows get `add`, one of [`AddTo::ALL`].
#[cfg(feature = "definitions")]
fn to_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = AddTo::ALL.iter().map(|t| t.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "default": AddTo::default().name(), "description": "Which rows get add: with a zero cell, all, all if any has a zero (if0all), none."}))
        .expect("an object schema")
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
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

    #[cfg(feature = "extended")]
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

    #[cfg(feature = "extended")]
    #[test]
    fn rows_without_an_effect_size_are_left_out_with_their_reason() {
        let data = json!([
            {"id": "a", "ri": 0.3, "ni": 50},
            {"id": "b", "ri": 1.3, "ni": 50},
            {"ri": "strong", "ni": 50},
            {"id": "d", "ri": 0.2},
            {"id": "a", "ri": 0.1, "ni": 20},
            {"id": "f", "ri": " 0.25 ", "ni": "1e2"},
            {"id": "g", "ri": "0,25", "ni": 40},
            {"id": "h", "ri": 0.1, "ni": true}
        ]);
        let out = es(json!({"measure": "ZCOR", "data": data})).unwrap();
        // The second row with id "a" is kept, renamed (R has no key), and `notes` says so.
        assert_eq!(out["k"], 3);
        let ids: Vec<&str> = out["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["a", "a#2", "f"]);
        assert_eq!(
            out["notes"],
            json!(["1 id repeats; every row is kept, the second row with an id renamed id#2, the third id#3, and so on: \"a\" (rows 1, 5)"])
        );
        // " 0.25 " and "1e2" read as numbers: escalc's z and 1/(n - 3).
        assert_eq!(out["records"][2]["vi"], 1.0 / 97.0);
        assert_eq!(
            out["omitted"],
            json!([
                {"id": "b", "reason": "ri is 1.3; a correlation must lie in [-1, 1]"},
                {"id": "row3", "reason": "ri \"strong\" is not a number"},
                {"id": "d", "reason": "ni is missing"},
                {"id": "g", "reason": "ri \"0,25\" is not a number (a decimal point is read, not a comma: write 0.25)"},
                {"id": "h", "reason": "ni true is not a number"}
            ])
        );
        let (outcomes, _) = compute(
            Measure::Zcor,
            &serde_json::from_value::<Vec<Map<String, Value>>>(data).unwrap(),
            &Settings::default(),
        );
        let columns: Vec<Option<&str>> = outcomes
            .iter()
            .map(|o| o.as_ref().err().and_then(|e| e.column.as_deref()))
            .collect();
        assert_eq!(
            columns,
            [
                None,
                Some("ri"),
                Some("ri"),
                Some("ni"),
                None,
                None,
                Some("ri"),
                Some("ni")
            ]
        );
        // A 2x2 table missing both of a pair says how each was read.
        let table =
            json!([{"ai": 1, "bi": "", "ci": 2, "di": 5}, {"ai": 1, "bi": 3, "ci": 2, "di": 5}]);
        let out = es(json!({"measure": "OR", "data": table})).unwrap();
        assert_eq!(
            out["omitted"][0]["reason"],
            "bi is blank and n1i is missing: give bi (non-events in group 1 (upper right cell; \
or give n1i)) or n1i (size of group 1)"
        );
        // Nothing left: an error giving the first rows' reasons.
        let many: Vec<Value> = (0..30)
            .map(|i| match i % 2 {
                0 => json!({"xi": "NA", "ni": 10}),
                _ => json!({"xi": 1, "ni": ""}),
            })
            .collect();
        let e = es(json!({"measure": "PR", "data": many})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidData);
        assert!(
            e.message.starts_with(
                "no row gives a PR (raw proportion), so there are no records: row 1: xi is NA; \
row 2: ni is blank; row 3: xi is NA; "
            ),
            "{}",
            e.message
        );
        assert!(e.message.ends_with("; and 25 more"), "{}", e.message);
    }

    #[cfg(feature = "extended")]
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
        // vtype and drop00 reach escalc (its own numbers: escalc_measures.json holds them
        // against metafor), in compute_effect_sizes and in load_data.
        let tables = json!([{"id": "a", "ai": 0, "bi": 10, "ci": 0, "di": 12}, {"id": "b", "ai": 3, "bi": 7, "ci": 1, "di": 9}]);
        let rows: Vec<Map<String, Value>> = serde_json::from_value(tables.clone()).unwrap();
        let ub = Settings {
            vtype: Vtype::Ub,
            ..Settings::default()
        };
        let (engine, _) = compute(Measure::Rd, &rows, &ub);
        let ours = es(json!({"measure": "RD", "data": tables, "vtype": "UB"})).unwrap();
        assert_eq!(ours["records"][1]["vi"], engine[1].as_ref().unwrap().vi);
        let ls = es(json!({"measure": "RD", "data": tables})).unwrap();
        assert_ne!(ours["records"][1]["vi"], ls["records"][1]["vi"]);
        let dropped = es(json!({"measure": "RD", "data": tables, "drop00": true})).unwrap();
        assert_eq!(
            (dropped["k"].as_u64(), dropped["omitted"][0]["id"].as_str()),
            (Some(1), Some("a"))
        );
        let loaded = call(
            "load_data",
            &json!({"measure": "RD", "data": tables, "drop00": true, "vtype": "UB"}),
        )
        .unwrap();
        assert_eq!(loaded["k"], 1);
        for (args, message) in [
            (
                json!({"vtype": "HO"}),
                "vtype \"HO\" is not one of RD's: LS, UB, AV",
            ),
            (json!({"vtype": "XX"}), "vtype"),
        ] {
            let mut args = args;
            args["measure"] = json!("RD");
            args["data"] = tables.clone();
            let e = es(args.clone()).unwrap_err();
            assert!(e.message.contains(message), "{args}: {}", e.message);
            let e = call("load_data", &args).unwrap_err();
            assert!(e.message.contains("vtype"), "{args}: {}", e.message);
        }
        // A measure escalc gives no other vtype ignores it, as escalc does.
        assert!(es(json!({"measure": "OR", "data": tables, "vtype": "UB"})).is_ok());
        let many: Vec<Value> = (0..=MAX_RAW_DATA_ROWS).map(|_| json!({})).collect();
        assert_eq!(
            es(json!({"measure": "PR", "data": many})).unwrap_err().code,
            ErrorCode::TooManyRecords
        );
    }
}
