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
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::sync::OnceLock;

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
}

/// The name `dataset` carries for records given by the caller.
pub const CUSTOM_RECORDS: &str = "custom records";

/// One record's further properties: column name → number or string.
type Columns = Map<String, Value>;

/// The records of one call and where they come from.
#[derive(Debug, Clone)]
pub struct DataSource {
    records: Cow<'static, [Record]>,
    /// Each record's further properties, in record order; empty when no record has any.
    columns: Cow<'static, [Map<String, Value>]>,
    info: DatasetInfo,
}

/// One item of the `records` argument (the input schema has checked its shape): `id`, `yi`,
/// `vi`, and every other property kept as it is.
struct RecordArg {
    id: String,
    yi: f64,
    vi: f64,
    columns: Map<String, Value>,
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
                let mut columns = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "id" => id = Some(map.next_value()?),
                        "yi" => yi = Some(map.next_value()?),
                        "vi" => vi = Some(map.next_value()?),
                        _ => {
                            let value: Value = map.next_value()?;
                            columns.insert(key, value);
                        }
                    }
                }
                Ok(RecordArg {
                    id: id.ok_or_else(|| de::Error::missing_field("id"))?,
                    yi: yi.ok_or_else(|| de::Error::missing_field("yi"))?,
                    vi: vi.ok_or_else(|| de::Error::missing_field("vi"))?,
                    columns,
                })
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

impl DataSource {
    /// The frozen dataset (its records and columns built once and borrowed on every call).
    pub fn frozen() -> Self {
        static FROZEN: OnceLock<(Vec<Record>, Vec<Columns>)> = OnceLock::new();
        let (records, columns) = FROZEN.get_or_init(|| {
            let columns = dataset::rows()
                .iter()
                .map(|r| {
                    let Ok(Value::Object(mut row)) = serde_json::to_value(r) else {
                        unreachable!("a row serializes to an object")
                    };
                    dataset::moderator_columns()
                        .map(|name| (name.to_string(), row.remove(name).unwrap_or_default()))
                        .collect()
                })
                .collect();
            (dataset::records(), columns)
        });
        DataSource {
            records: Cow::Borrowed(records),
            columns: Cow::Borrowed(columns),
            info: DatasetInfo {
                name: dataset::NAME,
                sha256: dataset::sha256().to_string(),
            },
        }
    }

    /// The caller's `records` argument, hashed once (canonical JSON, as the ledger hashes it).
    pub fn custom(records_arg: &Value) -> Result<Self, ToolError> {
        let items: Vec<RecordArg> = Vec::deserialize(records_arg).map_err(|e| {
            ToolError::new(
                ErrorCode::WrongType,
                format!("records must be an array of {{id, yi, vi}} objects: {e}"),
            )
        })?;
        let any_columns = items.iter().any(|r| !r.columns.is_empty());
        let mut columns = Vec::new();
        let records = items
            .into_iter()
            .map(|r| {
                if any_columns {
                    columns.push(r.columns);
                }
                Record::new(r.id, r.yi, r.vi)
            })
            .collect();
        Ok(DataSource {
            records: Cow::Owned(records),
            columns: Cow::Owned(columns),
            info: DatasetInfo {
                name: CUSTOM_RECORDS,
                sha256: canonical::sha256_hex(records_arg),
            },
        })
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

    /// The names of the records' further columns, in order of first appearance.
    /// Each record's further columns (empty maps when the records have none).
    pub fn record_columns(&self) -> &[Map<String, Value>] {
        &self.columns
    }

    pub fn column_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for record in self.columns.iter() {
            for name in record.keys() {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
        }
        names
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
        let mut numbers = Vec::new();
        let mut texts = Vec::new();
        let mut first: Option<(&str, &str)> = None;
        let excluded = id_set(excluded);
        for (record, columns) in self.records.iter().zip(self.columns.iter()) {
            if excluded.contains(record.id.as_str()) {
                continue;
            }
            let value = columns.get(name).ok_or_else(|| {
                ToolError::new(
                    ErrorCode::InvalidRecords,
                    format!(
                        "record {:?} has no value for the column {name}, which every record \
                         analysed needs",
                        record.id
                    ),
                )
            })?;
            let kind = match value {
                Value::Number(n) => {
                    numbers.push(n.as_f64().unwrap_or(f64::NAN));
                    "a number"
                }
                Value::String(s) => {
                    texts.push(s.clone());
                    "a string"
                }
                _ => "neither a number nor a string",
            };
            match first {
                None => first = Some((kind, &record.id)),
                Some((first_kind, first_id)) if first_kind != kind => {
                    return Err(ToolError::new(
                        ErrorCode::InvalidRecords,
                        format!(
                            "the column {name} is {first_kind} in record {first_id:?} but \
                             {kind} in record {:?}; a moderator is all numbers or all strings",
                            record.id
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        Ok(if texts.is_empty() {
            Moderator::numeric(name, numbers)
        } else {
            Moderator::factor(name, texts)
        })
    }

    /// Column `name` of every record as a number (`None` where a record has none).
    pub fn numbers(&self, name: &str) -> Vec<Option<f64>> {
        if self.columns.is_empty() {
            return vec![None; self.records.len()];
        }
        self.columns
            .iter()
            .map(|c| c.get(name).and_then(Value::as_f64))
            .collect()
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
