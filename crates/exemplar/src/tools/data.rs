//! The data one tool call analyses: the frozen dataset, or the caller's `records`.
//!
//! Built once per call, before the handler runs, so the custom records are read and hashed
//! once however many analyses the handler makes of them. Besides `id`, `yi` and `vi` a
//! record may carry further properties (numbers or strings): the moderator columns of
//! meta-regression and subgroup analysis. The frozen dataset's are
//! [`dataset::moderator_columns`].

use super::{ErrorCode, ToolError};
use crate::{canonical, dataset};
use meta_analysis::{IdSet, Moderator, Record};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

mod cells;

use cells::{Builder, Columns, Texts};
pub use cells::{Cell, Column};

/// A row of raw data left out: it gives no effect size.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct Omitted {
    /// The row's id, or row1, row2, ... by position.
    pub id: String,
    /// Why, naming the column and what was read (e.g. "ai is blank").
    pub reason: String,
}

/// The properties every record has, which are not moderators.
const RECORD_FIELDS: [&str; 3] = ["id", "yi", "vi"];

/// `dataset` in every result: which data the numbers come from.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct DatasetInfo {
    /// "dat.raudenbush1985" for the frozen dataset, "custom records" otherwise.
    pub name: crate::tools::Word,
    /// SHA-256 of the frozen dataset's CSV bytes, or of the canonical JSON of `records`.
    pub sha256: String,
    /// The handle the records were read from (`data_id`), when a call named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_id: Option<String>,
    /// The records kept by `subset`, when a call gave one (e.g. `grp in "FERT", "LOW": 12 of
    /// 26 records`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subset: Option<String>,
    /// How the columns the call read were read, where R would read them so too but a
    /// reader might not expect it (a column mixing numbers and text read as text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The name `dataset` carries for records given by the caller.
pub const CUSTOM_RECORDS: &str = "custom records";

/// The records of one call and where they come from.
#[derive(Debug, Clone)]
pub struct DataSource {
    records: Cow<'static, [Record]>,
    /// The column of study labels a call named (`slab`), if any.
    slab: Option<String>,
    /// The records' further properties (shared: a handle's calls read the same columns).
    columns: Arc<Columns>,
    info: DatasetInfo,
}

/// One item of the `records` argument (the input schema has checked its shape): `id`, `yi`
/// and `vi`; its other properties are read from the arguments in place ([`Builder`]).
struct RecordArg {
    id: String,
    yi: f64,
    vi: f64,
}

impl<'de> Deserialize<'de> for RecordArg {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = RecordArg;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object {id, yi, vi, …}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RecordArg, A::Error> {
                let (mut id, mut yi, mut vi) = (None, None, None);
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "id" => id = Some(map.next_value()?),
                        "yi" => yi = Some(map.next_value()?),
                        "vi" => vi = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(RecordArg {
                    id: id.ok_or_else(|| de::Error::missing_field("id"))?,
                    yi: yi.ok_or_else(|| de::Error::missing_field("yi"))?,
                    vi: vi.ok_or_else(|| de::Error::missing_field("vi"))?,
                })
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

impl DataSource {
    /// The frozen dataset (its records and columns built once and borrowed on every call).
    pub fn frozen() -> Self {
        static FROZEN: OnceLock<(Vec<Record>, Arc<Columns>)> = OnceLock::new();
        let (records, columns) = FROZEN.get_or_init(|| {
            let rows: Vec<Vec<(&str, Value)>> = dataset::rows()
                .iter()
                .map(|r| {
                    let Ok(Value::Object(mut row)) = serde_json::to_value(r) else {
                        unreachable!("a row serializes to an object")
                    };
                    dataset::moderator_columns()
                        .map(|name| (name, row.remove(name).unwrap_or_default()))
                        .collect()
                })
                .collect();
            let mut builder = Builder::new();
            for row in &rows {
                for (name, value) in row {
                    builder.push(name, value);
                }
                builder.end_record();
            }
            (dataset::records(), Arc::new(builder.finish()))
        });
        DataSource {
            records: Cow::Borrowed(records),
            columns: Arc::clone(columns),
            info: DatasetInfo {
                name: dataset::NAME.into(),
                sha256: dataset::sha256().to_string(),
                data_id: None,
                subset: None,
                notes: Vec::new(),
            },
            slab: None,
        }
    }

    /// The caller's `records` argument, hashed once (canonical JSON, as the ledger hashes it).
    pub fn custom(records_arg: &Value) -> Result<Self, ToolError> {
        Self::custom_sized(records_arg).map(|(data, _)| data)
    }

    /// [`DataSource::custom`], and the length of the records' canonical JSON. The further
    /// columns are read from the argument in place into their compact form, never copied
    /// as JSON values.
    pub(super) fn custom_sized(records_arg: &Value) -> Result<(Self, usize), ToolError> {
        // Hashed first, so that its text (as long as the records' JSON) is gone before the
        // records are built: a load's peak is the larger of the two, not their sum.
        let (sha256, canonical_bytes) = {
            let text = canonical::to_string(records_arg);
            (crate::sha256_hex(text.as_bytes()), text.len())
        };
        let items: Vec<RecordArg> = Vec::deserialize(records_arg).map_err(|e| {
            ToolError::new(
                ErrorCode::WrongType,
                format!("records must be an array of {{id, yi, vi}} objects: {e}"),
            )
        })?;
        let records = items
            .into_iter()
            .map(|r| Record::new(r.id, r.yi, r.vi))
            .collect();
        let mut builder = Builder::new();
        for item in records_arg.as_array().into_iter().flatten() {
            for (name, value) in item.as_object().into_iter().flatten() {
                if !RECORD_FIELDS.contains(&name.as_str()) {
                    builder.push(name, value);
                }
            }
            builder.end_record();
        }
        let data = DataSource {
            records: Cow::Owned(records),
            columns: Arc::new(builder.finish()),
            info: DatasetInfo {
                name: CUSTOM_RECORDS.into(),
                sha256,
                data_id: None,
                subset: None,
                notes: Vec::new(),
            },
            slab: None,
        };
        Ok((data, canonical_bytes))
    }

    /// Rows of raw data (a 2x2 tool's inline `data`) as records: each row's `id` (text or
    /// a number), else `row1`, `row2`, ... by position as escalc's rows are named; yi and vi
    /// NaN (no effect size is computed); every other property a column, so that `subset`,
    /// `slab` and `exclude` read the rows as they read records.
    pub fn raw_rows(
        rows: &[serde_json::Map<String, Value>],
        name: &'static str,
        sha256: String,
    ) -> Self {
        let mut builder = Builder::new();
        let mut records = Vec::with_capacity(rows.len());
        for (at, row) in rows.iter().enumerate() {
            let id = match row.get("id") {
                Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => format!("row{}", at + 1),
            };
            records.push(Record::new(id, f64::NAN, f64::NAN));
            for (column, value) in row {
                if column != "id" {
                    builder.push(column, value);
                }
            }
            builder.end_record();
        }
        DataSource {
            records: Cow::Owned(records),
            columns: Arc::new(builder.finish()),
            info: DatasetInfo {
                name: name.into(),
                sha256,
                data_id: None,
                subset: None,
                notes: Vec::new(),
            },
            slab: None,
        }
    }

    /// The data named by `args`: its `records`, or the frozen dataset.
    pub fn from_args(args: &Value) -> Result<Self, ToolError> {
        match args.get("records") {
            Some(records) => DataSource::custom(records),
            None => Ok(DataSource::frozen()),
        }
    }

    pub fn records(&self) -> &[Record] {
        &self.records
    }

    pub fn info(&self) -> &DatasetInfo {
        &self.info
    }

    pub fn is_frozen(&self) -> bool {
        matches!(self.records, Cow::Borrowed(_))
    }

    /// The `exclude` ids, checked: distinct, and each among the records; the first id
    /// that breaks either rule is named. O((n + m) log n) in the records and the ids
    /// ([`IdSet`]), however many are excluded.
    pub fn exclusions(&self, ids: Vec<String>) -> Result<Vec<String>, ToolError> {
        let known: IdSet = self.records.iter().map(|r| r.id.as_str()).collect();
        let repeated = IdSet::repeated(ids.iter().map(String::as_str));
        // Per repeated id, whether an earlier place of the list held it.
        let mut seen = vec![false; repeated.len()];
        for id in &ids {
            let again = repeated
                .position(id)
                .is_some_and(|at| std::mem::replace(&mut seen[at], true));
            if again {
                return Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!("exclude lists {} more than once", crate::quote::quoted(id)),
                ));
            }
            if !known.contains(id.as_str()) {
                return Err(ToolError::new(
                    ErrorCode::UnknownRecord,
                    format!(
                        "there is no record with id {} among the {} records",
                        crate::quote::quoted(id),
                        self.records.len()
                    ),
                ));
            }
        }
        Ok(ids)
    }

    /// The records not in `excluded`.
    pub fn kept(&self, excluded: &[String]) -> Vec<Record> {
        let excluded = id_set(excluded);
        self.records
            .iter()
            .filter(|r| !excluded.contains(r.id.as_str()))
            .cloned()
            .collect()
    }

    /// The further column `name`: each record's value in it, if any record has one.
    pub fn column(&self, name: &str) -> Option<Column<'_>> {
        self.columns.column(name)
    }

    /// The names of the records' further columns, in order of first appearance.
    pub fn column_names(&self) -> Vec<&str> {
        self.columns.names().collect()
    }

    /// Column `name` of the records not in `excluded`, as a moderator: numbers (a numeric
    /// moderator) or strings (a factor). Every such record must hold a value, all of one type.
    pub fn moderator(&self, name: &str, excluded: &[String]) -> Result<Moderator, ToolError> {
        if RECORD_FIELDS.contains(&name) {
            return Err(ToolError::new(
                ErrorCode::InvalidArguments,
                format!(
                    "{name} is one of the record fields id, yi and vi, not a moderator column{}",
                    self.known_columns()
                ),
            ));
        }
        if !self.column_names().contains(&name) {
            return Err(ToolError::new(
                ErrorCode::InvalidArguments,
                format!("there is no column {name:?}{}", self.known_columns()),
            ));
        }
        // One reading of values (`raw_columns::read_value`): a JSON number, or text that
        // reads as one ("6", " 8 "), is a number; a column all of whose values read as numbers
        // is a numeric moderator, as R reads a CSV column. Non-numeric text makes a factor.
        let excluded = id_set(excluded);
        let column = self.columns.column(name);
        let mut values: Vec<(&str, Cell)> = Vec::new();
        for (at, record) in self.records.iter().enumerate() {
            if excluded.contains(record.id.as_str()) {
                continue;
            }
            let cell = column.and_then(|c| c.get(at));
            let value = cell.as_ref().map(Cell::to_value);
            if let super::raw_columns::Reading::Missing(missing) =
                super::raw_columns::read_value(value.as_ref())
            {
                return Err(ToolError::new(
                    ErrorCode::InvalidRecords,
                    format!(
                        "record {:?}: {}; the moderator {name} needs a value in every record \
                         analysed (leave the record out with exclude)",
                        record.id,
                        missing.describe(name)
                    ),
                ));
            }
            values.push((
                &record.id,
                cell.expect("a value that is not missing is present"),
            ));
        }
        let reading = |cell: &Cell| match cell {
            Cell::Number(n) => n.as_f64(),
            Cell::Text(s) => crate::csv_table::number(s.trim()),
            Cell::Other(_) => None,
        };
        if values.iter().all(|(_, cell)| reading(cell).is_some()) {
            let numbers = values.iter().map(|(_, c)| reading(c).unwrap_or(f64::NAN));
            return Ok(Moderator::numeric(name, numbers.collect()));
        }
        // A value that reads as no number makes the column text, every value a level (a
        // number as R writes it), as R's read.csv reads a column mixing "<400" and "400";
        // the result says so ([`DataSource::read_as_text`]).
        let mut texts = Vec::with_capacity(values.len());
        for (id, cell) in &values {
            match cell {
                Cell::Text(s) => texts.push((*s).to_owned()),
                Cell::Number(n) => {
                    texts.push(meta_analysis::r_number(n.as_f64().unwrap_or(f64::NAN)))
                }
                Cell::Other(v) => {
                    return Err(ToolError::new(
                        ErrorCode::InvalidRecords,
                        format!(
                            "record {id:?} has {v} in the column {name}: a moderator's values \
                             are numbers or text"
                        ),
                    ))
                }
            }
        }
        Ok(Moderator::factor(name, texts))
    }

    /// Why column `name` of the records not in `excluded` is read as text although some of
    /// its values read as numbers: "the column sens was read as text (categorical), as R's
    /// read.csv reads it: its value "<400" (record "1") is not a number"; none for a column
    /// all numbers or all non-numeric text.
    pub fn read_as_text(&self, name: &str, excluded: &[String]) -> Option<String> {
        use super::raw_columns::{read_value, Reading};
        let column = self.columns.column(name)?;
        let excluded = id_set(excluded);
        let (mut number, mut text) = (false, None);
        for (at, record) in self.records.iter().enumerate() {
            if excluded.contains(record.id.as_str()) {
                continue;
            }
            let value = column.get(at).map(|c| c.to_value());
            match read_value(value.as_ref()) {
                Reading::Number(_) => number = true,
                Reading::NotANumber(Value::String(s)) if text.is_none() => {
                    text = Some((s.clone(), record.id.clone()))
                }
                _ => {}
            }
        }
        let (value, id) = text.filter(|_| number)?;
        Some(format!(
            "the column {name} was read as text (categorical), as R's read.csv reads it: its \
             value {} (record {}) is not a number",
            crate::quote::quoted(&value),
            crate::quote::quoted(&id)
        ))
    }

    /// The notes of [`DataSource::read_as_text`] for each of `columns`.
    pub fn text_notes(&self, columns: &[String], excluded: &[String]) -> Vec<String> {
        columns
            .iter()
            .filter_map(|c| self.read_as_text(c, excluded))
            .collect()
    }

    /// The records whose value in `subset.column` matches (metafor's `subset`), with their
    /// columns; the result's `dataset.subset` says which and how many. A value matches when
    /// it equals one given: numbers (and numeric text) by value, other text exactly; a
    /// record without a value never matches. Keeping none is an error.
    pub fn subset(&self, subset: &Subset) -> Result<DataSource, ToolError> {
        let invalid = |message: String| ToolError::new(ErrorCode::InvalidArguments, message);
        let name = subset.column.as_str();
        let Some(column) = self.columns.column(name) else {
            return Err(invalid(format!(
                "subset: there is no column {name:?}{}",
                self.known_columns()
            )));
        };
        let mut kept = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for at in 0..self.records.len() {
            let value = column.get(at).map(|c| c.to_value());
            let key = SubsetKey::of(value.as_ref());
            if let Some(key) = &key {
                if seen.len() < 8 && !seen.contains(&key.to_string()) {
                    seen.push(key.to_string());
                }
            }
            if key.is_some_and(|k| subset.keeps(&k)) {
                kept.push(at);
            }
        }
        let (records, columns) = self.rows_at(&kept);
        if records.is_empty() {
            return Err(ToolError::new(
                ErrorCode::InvalidRecords,
                format!(
                    "subset keeps no record: no value of {name} is {}; its values include {}",
                    subset.wanted(),
                    seen.join(", ")
                ),
            ));
        }
        let description = format!(
            "{name} {}: {} of {} records",
            subset.wanted(),
            records.len(),
            self.records.len()
        );
        Ok(DataSource {
            records: Cow::Owned(records),
            slab: self.slab.clone(),
            columns: Arc::new(columns),
            info: DatasetInfo {
                subset: Some(description),
                ..self.info.clone()
            },
        })
    }

    /// The records not in `ids`, with their columns (a forest plot's by leaves out the
    /// records that have no group: they have no place among the groups' rows).
    pub fn without(&self, ids: &[String]) -> DataSource {
        let left_out = id_set(ids);
        let kept: Vec<usize> = (0..self.records.len())
            .filter(|&at| !left_out.contains(self.records[at].id.as_str()))
            .collect();
        let (records, columns) = self.rows_at(&kept);
        DataSource {
            records: Cow::Owned(records),
            slab: self.slab.clone(),
            columns: Arc::new(columns),
            info: self.info.clone(),
        }
    }

    /// The records at positions `kept` (in order) and their rows of the further columns: what
    /// a subset or a leaving-out keeps.
    fn rows_at(&self, kept: &[usize]) -> (Vec<Record>, Columns) {
        // The builder borrows each value it is given: the rows are read out first.
        let rows: Vec<Vec<(&str, Value)>> = kept
            .iter()
            .map(|&at| {
                self.columns
                    .row(at)
                    .map(|(column, cell)| (column, cell.to_value()))
                    .collect()
            })
            .collect();
        let mut builder = Builder::new();
        for row in &rows {
            for (column, value) in row {
                builder.push(column, value);
            }
            builder.end_record();
        }
        let records = kept.iter().map(|&at| self.records[at].clone()).collect();
        (records, builder.finish())
    }

    /// The same data with `slab` as the column of study labels (checked to exist).
    pub fn with_slab(mut self, slab: &str) -> Result<DataSource, ToolError> {
        let known = self.column_names().contains(&slab)
            || (self.info.name == dataset::NAME && dataset::COLUMNS.contains(&slab));
        if !known {
            return Err(ToolError::new(
                ErrorCode::InvalidArguments,
                format!("slab: there is no column {slab:?}{}", self.known_columns()),
            ));
        }
        self.slab = Some(slab.to_string());
        Ok(self)
    }

    /// The column of study labels a call named (`slab`).
    pub fn slab(&self) -> Option<&str> {
        self.slab.as_deref()
    }

    /// metafor's na.action = "na.omit": `excluded` extended by the records (not excluded
    /// already) that have no value (absent, null, blank or NA: [`super::raw_columns::read_value`])
    /// in one of `columns`, and those records with the reason. Columns the records do not
    /// have are skipped here (the reader of each names them in its error). A call that
    /// leaves no record is an error giving the first reasons.
    pub fn na_omit(
        &self,
        columns: &[String],
        mut excluded: Vec<String>,
    ) -> Result<(Vec<String>, Vec<Omitted>), ToolError> {
        let read: Vec<(&str, Column<'_>)> = columns
            .iter()
            .filter_map(|name| Some((name.as_str(), self.columns.column(name)?)))
            .collect();
        let mut omitted = Vec::new();
        if read.is_empty() {
            return Ok((excluded, omitted));
        }
        let before = id_set(&excluded);
        let mut kept = 0usize;
        let mut newly = Vec::new();
        for (at, record) in self.records.iter().enumerate() {
            if before.contains(record.id.as_str()) {
                continue;
            }
            let reasons: Vec<String> = read
                .iter()
                .filter_map(|(name, column)| {
                    let value = column.get(at).as_ref().map(Cell::to_value);
                    match super::raw_columns::read_value(value.as_ref()) {
                        super::raw_columns::Reading::Missing(missing) => {
                            Some(missing.describe(name))
                        }
                        _ => None,
                    }
                })
                .collect();
            if reasons.is_empty() {
                kept += 1;
            } else {
                newly.push(record.id.clone());
                omitted.push(Omitted {
                    id: record.id.clone(),
                    reason: reasons.join("; "),
                });
            }
        }
        if kept == 0 && !omitted.is_empty() {
            let first: Vec<String> = omitted
                .iter()
                .take(5)
                .map(|o| format!("{}: {}", o.id, o.reason))
                .collect();
            return Err(ToolError::new(
                ErrorCode::InvalidRecords,
                format!(
                    "no record is left to analyse: each of the {} records lacks a value the \
                     model needs ({}{})",
                    omitted.len(),
                    first.join("; "),
                    if omitted.len() > first.len() {
                        "; …"
                    } else {
                        ""
                    }
                ),
            ));
        }
        excluded.extend(newly);
        Ok((excluded, omitted))
    }

    /// Column `name` of every record as a number, numeric text read as one (`None` where a
    /// record has none).
    pub fn numbers(&self, name: &str) -> Vec<Option<f64>> {
        match self.columns.column(name) {
            Some(column) => column
                .iter()
                .map(|c| match c? {
                    Cell::Text(s) => crate::csv_table::number(s.trim()),
                    cell => cell.as_f64(),
                })
                .collect(),
            None => vec![None; self.records.len()],
        }
    }

    /// "; the columns are …" for an error message.
    fn known_columns(&self) -> String {
        let names = self.column_names();
        if names.is_empty() {
            "; these records have no columns besides id, yi and vi".to_string()
        } else {
            format!("; the records' columns are {}", names.join(", "))
        }
    }
}

/// `ids` as a set, for membership in O(log n) (an `exclude` list may be as long as the
/// records).
pub fn id_set(ids: &[String]) -> IdSet<'_> {
    ids.iter().map(String::as_str).collect()
}

/// A data handle's records as [`super::DataStore`] holds them: ids one after another in one
/// buffer, yi and vi as numbers, the further columns compact and shared. Each call by the
/// handle gets a [`DataSource`] of its own ([`Stored::source`]), which it drops at its end.
#[derive(Debug)]
pub(super) struct Stored {
    ids: Texts,
    yi: Vec<f64>,
    vi: Vec<f64>,
    columns: Arc<Columns>,
    info: DatasetInfo,
}

impl Stored {
    pub(super) fn new(data: DataSource) -> Stored {
        let mut ids = Texts::default();
        let (mut yi, mut vi) = (Vec::new(), Vec::new());
        for record in data.records.iter() {
            ids.push(&record.id);
            yi.push(record.yi);
            vi.push(record.vi);
        }
        ids.shrink();
        yi.shrink_to_fit();
        vi.shrink_to_fit();
        Stored {
            ids,
            yi,
            vi,
            columns: data.columns,
            info: data.info,
        }
    }

    /// The records as a call by handle `data_id` reads them.
    pub(super) fn source(&self, data_id: String) -> DataSource {
        let records = (self.ids.iter().zip(&self.yi).zip(&self.vi))
            .map(|((id, &yi), &vi)| Record::new(id, yi, vi))
            .collect();
        DataSource {
            records: Cow::Owned(records),
            slab: None,
            columns: Arc::clone(&self.columns),
            info: DatasetInfo {
                data_id: Some(data_id),
                ..self.info.clone()
            },
        }
    }

    /// The first value other than null of each further column, in order of first appearance
    /// of those values (what a companion's rule reads).
    pub(super) fn sample(&self) -> serde_json::Map<String, Value> {
        let mut sample = serde_json::Map::new();
        let width = self.columns.names().count();
        for record in 0..self.columns.records() {
            if sample.len() == width {
                break;
            }
            for (name, cell) in self.columns.row(record) {
                if !cell.is_null() && !sample.contains_key(name) {
                    sample.insert(name.to_owned(), cell.to_value());
                }
            }
        }
        sample
    }

    /// The bytes it takes on the heap that grow with the records (every buffer at its
    /// capacity); the fixed bytes of a handle (its structs and the hash) are not counted.
    pub(super) fn heap_bytes(&self) -> usize {
        self.ids.heap_bytes()
            + (self.yi.capacity() + self.vi.capacity()) * size_of::<f64>()
            + self.columns.heap_bytes()
    }
}

/// `subset`: keep the records whose `column` has one of the values (`in`) or the value
/// (`equals`), as metafor's `subset` argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Subset {
    pub column: String,
    /// The values as given, in order, for messages.
    keep: Vec<SubsetKey>,
    /// The same values as a set: `in` may list as many values as there are records, and a
    /// scan of the list per record made 10⁵ × 10⁵ comparisons (issue 41 item 6).
    wanted: HashSet<SubsetKey>,
    /// `in` (a list) rather than `equals`.
    listed: bool,
}

/// One value a subset compares: a number (a JSON number or numeric text), or other text.
#[derive(Debug, Clone)]
enum SubsetKey {
    Number(f64),
    Text(String),
}

/// Numbers compare by value (−0 equals 0; the readings are finite, so no NaN), text exactly.
impl PartialEq for SubsetKey {
    fn eq(&self, other: &SubsetKey) -> bool {
        match (self, other) {
            (SubsetKey::Number(x), SubsetKey::Number(y)) => x == y,
            (SubsetKey::Text(a), SubsetKey::Text(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for SubsetKey {}

/// Consistent with `eq`: a number hashes by the bits of its value with −0 read as 0.
impl Hash for SubsetKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            SubsetKey::Number(x) => {
                0u8.hash(state);
                (if *x == 0.0 { 0.0f64 } else { *x }).to_bits().hash(state);
            }
            SubsetKey::Text(s) => {
                1u8.hash(state);
                s.hash(state);
            }
        }
    }
}

impl SubsetKey {
    fn of(value: Option<&Value>) -> Option<SubsetKey> {
        match super::raw_columns::read_value(value) {
            super::raw_columns::Reading::Number(x) => Some(SubsetKey::Number(x)),
            super::raw_columns::Reading::Missing(_) => None,
            super::raw_columns::Reading::NotANumber(Value::String(s)) => {
                Some(SubsetKey::Text(s.trim().to_string()))
            }
            super::raw_columns::Reading::NotANumber(other) => {
                Some(SubsetKey::Text(other.to_string()))
            }
        }
    }
}

impl fmt::Display for SubsetKey {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SubsetKey::Number(x) => write!(f, "{}", meta_analysis::r_number(*x)),
            SubsetKey::Text(s) => write!(f, "{s:?}"),
        }
    }
}

impl Subset {
    /// `{"column": ..., "in": [...]}` or `{"column": ..., "equals": value}`.
    pub fn parse(value: &Value) -> Result<Subset, ToolError> {
        let invalid = |message: &str| {
            ToolError::new(
                ErrorCode::InvalidArguments,
                format!(
                    "subset {message}: give {{\"column\": \"grp\", \"in\": [\"A\", \"B\"]}} or \
                     {{\"column\": \"year\", \"equals\": 1990}}"
                ),
            )
        };
        let Some(object) = value.as_object() else {
            return Err(invalid("is not an object"));
        };
        if let Some(key) = object
            .keys()
            .find(|k| !["column", "in", "equals"].contains(&k.as_str()))
        {
            return Err(invalid(&format!("has an unknown property {key:?}")));
        }
        let Some(column) = object.get("column").and_then(Value::as_str) else {
            return Err(invalid("needs a column name"));
        };
        let (values, listed): (Vec<&Value>, bool) = match (object.get("in"), object.get("equals")) {
            (Some(Value::Array(items)), None) => (items.iter().collect(), true),
            (None, Some(value)) => (vec![value], false),
            (Some(_), Some(_)) => return Err(invalid("takes in or equals, not both")),
            (Some(_), None) => return Err(invalid("in must be a list of values")),
            (None, None) => return Err(invalid("needs in or equals")),
        };
        if values.is_empty() {
            return Err(invalid("in is empty"));
        }
        if values.len() > super::MAX_TOOL_RECORDS {
            return Err(invalid(&format!(
                "in lists {} values, at most {}",
                values.len(),
                super::MAX_TOOL_RECORDS
            )));
        }
        let keep = values
            .into_iter()
            .map(|v| match v {
                Value::Number(_) | Value::String(_) => SubsetKey::of(Some(v))
                    .ok_or_else(|| invalid("compares with a blank or NA value")),
                _ => Err(invalid("compares with values that are numbers or text")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Subset {
            column: column.to_string(),
            wanted: keep.iter().cloned().collect(),
            keep,
            listed,
        })
    }

    /// Whether a record whose value is `key` is kept.
    fn keeps(&self, key: &SubsetKey) -> bool {
        self.wanted.contains(key)
    }

    /// "in "FERT", "LOW"" or "= 1990", for messages and the result's `dataset.subset`: a
    /// long list is cut after its first [`SHOWN_VALUES`] values, since it may have as many
    /// values as records and the answer must stay in proportion to its input.
    fn wanted(&self) -> String {
        const SHOWN_VALUES: usize = 8;
        let mut values: Vec<String> = self
            .keep
            .iter()
            .take(SHOWN_VALUES)
            .map(ToString::to_string)
            .collect();
        if self.keep.len() > SHOWN_VALUES {
            values.push(format!("… ({} values)", self.keep.len()));
        }
        if self.listed {
            format!("in {}", values.join(", "))
        } else {
            format!("= {}", values.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Issue 41 item 6: `in` may list as many values as there are records (it was a scan
    /// of the list per record, 10¹⁰ comparisons at the caps); the records kept are exactly
    /// those whose value is listed, numbers by value whether given as numbers or as text.
    #[test]
    fn a_subset_with_many_values_keeps_exactly_the_records_listed() {
        let k = 30_000;
        let records: Vec<Value> = (0..k)
            .map(|i| json!({"id": format!("r{i}"), "yi": 0.1, "vi": 0.01, "n": i}))
            .collect();
        let data = DataSource::custom(&Value::Array(records)).unwrap();
        // Every third record, alternately as a number and as numeric text, then as many
        // values that match no record; -0 matches the record whose n is 0.
        let mut values: Vec<Value> = vec![json!(-0.0)];
        for i in (3..k).step_by(3) {
            values.push(if i % 2 == 0 {
                json!(i)
            } else {
                json!(format!("{i}"))
            });
        }
        values.extend((0..k).map(|i| json!(k + i)));
        values.push(json!("r7"));
        let listed = values.len();
        let subset = Subset::parse(&json!({"column": "n", "in": values})).unwrap();
        let kept = data.subset(&subset).unwrap();
        let ids: Vec<&str> = kept.records().iter().map(|r| r.id.as_str()).collect();
        let want: Vec<String> = (0..k).step_by(3).map(|i| format!("r{i}")).collect();
        assert_eq!(ids, want);
        // The description names the first values and how many, not all of them.
        assert_eq!(
            kept.info().subset.as_deref(),
            Some(
                format!(
                    "n in 0, 3, 6, 9, 12, 15, 18, 21, … ({listed} values): \
                     10000 of {k} records"
                )
                .as_str()
            )
        );
    }
}
