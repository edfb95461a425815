//! The data one tool call analyses: the frozen dataset, or the caller's `records`.
//!
//! Built once per call, before the handler runs, so the custom records are read and hashed
//! once however many analyses the handler makes of them. Besides `id`, `yi` and `vi` a
//! record may carry further properties (numbers or strings): the moderator columns of
//! meta-regression and subgroup analysis. The frozen dataset's are
//! [`dataset::moderator_columns`].

use super::{ErrorCode, ToolError};
use crate::{canonical, dataset};
use meta_analysis::{Moderator, Record};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, OnceLock};

mod cells;

use cells::{Builder, Columns, Texts};
pub use cells::{Cell, Column};

/// The properties every record has, which are not moderators.
const RECORD_FIELDS: [&str; 3] = ["id", "yi", "vi"];

/// `dataset` in every result: which data the numbers come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct DatasetInfo {
    /// "dat.raudenbush1985" for the frozen dataset, "custom records" otherwise.
    pub name: &'static str,
    /// SHA-256 of the frozen dataset's CSV bytes, or of the canonical JSON of `records`.
    pub sha256: String,
    /// The handle the records were read from (`data_id`), when a call named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_id: Option<String>,
}

/// The name `dataset` carries for records given by the caller.
pub const CUSTOM_RECORDS: &str = "custom records";

/// The records of one call and where they come from.
#[derive(Debug, Clone)]
pub struct DataSource {
    records: Cow<'static, [Record]>,
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
                name: dataset::NAME,
                sha256: dataset::sha256().to_string(),
                data_id: None,
            },
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
                name: CUSTOM_RECORDS,
                sha256,
                data_id: None,
            },
        };
        Ok((data, canonical_bytes))
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

    /// The `exclude` ids, checked: distinct, and each among the records. Linear in the
    /// records and the ids (hash sets), however many are excluded.
    pub fn exclusions(&self, ids: Vec<String>) -> Result<Vec<String>, ToolError> {
        let known: HashSet<&str> = self.records.iter().map(|r| r.id.as_str()).collect();
        let mut seen: HashSet<&str> = HashSet::with_capacity(ids.len());
        for id in &ids {
            if !seen.insert(id.as_str()) {
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
        let text = values.iter().find(|(_, c)| reading(c).is_none());
        let mut texts = Vec::with_capacity(values.len());
        for (id, cell) in &values {
            match cell {
                Cell::Text(s) => texts.push((*s).to_owned()),
                Cell::Number(n) => {
                    let (text_id, text_cell) = text.expect("a value that is no number");
                    return Err(ToolError::new(
                        ErrorCode::InvalidRecords,
                        format!(
                            "the column {name} holds the number {n} in record {id:?} but the \
                             text {} in record {text_id:?}, which reads as no number; a \
                             moderator is numeric (every value a number or numeric text) or \
                             categorical (text)",
                            text_cell.to_value()
                        ),
                    ));
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

    /// Column `name` of every record as a number (`None` where a record has none).
    pub fn numbers(&self, name: &str) -> Vec<Option<f64>> {
        match self.columns.column(name) {
            Some(column) => column.iter().map(|c| c?.as_f64()).collect(),
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

/// `ids` as a set, for membership in O(1) (an `exclude` list may be as long as the records).
pub fn id_set(ids: &[String]) -> HashSet<&str> {
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
