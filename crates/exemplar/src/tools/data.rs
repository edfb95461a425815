//! The data one tool call analyses: the frozen dataset, or the caller's `records`.
//!
//! Built once per call, before the handler runs, so the custom records are read and hashed
//! once however many analyses the handler makes of them.

use super::ToolError;
use crate::{canonical, dataset};
use meta_analysis::Record;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::OnceLock;

/// `dataset` in every result: which data the numbers come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
pub struct DatasetInfo {
    /// "dat.raudenbush1985" for the frozen dataset, "custom records" otherwise.
    pub name: &'static str,
    /// SHA-256 of the frozen dataset's CSV bytes, or of the canonical JSON of `records`.
    pub sha256: String,
}

/// The name `dataset` carries for records given by the caller.
pub const CUSTOM_RECORDS: &str = "custom records";

/// The records of one call and where they come from.
#[derive(Debug, Clone)]
pub struct DataSource {
    records: Cow<'static, [Record]>,
    info: DatasetInfo,
}

/// One item of the `records` argument (the input schema has checked its shape).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordArg {
    id: String,
    yi: f64,
    vi: f64,
}

impl DataSource {
    /// The frozen dataset (its records built once and borrowed on every call).
    pub fn frozen() -> Self {
        static FROZEN: OnceLock<Vec<Record>> = OnceLock::new();
        DataSource {
            records: Cow::Borrowed(FROZEN.get_or_init(dataset::records)),
            info: DatasetInfo {
                name: dataset::NAME,
                sha256: dataset::sha256().to_string(),
            },
        }
    }

    /// The caller's `records` argument, hashed once (canonical JSON, as the ledger hashes it).
    pub fn custom(records: &Value) -> Result<Self, ToolError> {
        let items: Vec<RecordArg> = Vec::deserialize(records).map_err(|e| {
            ToolError::new(
                super::ErrorCode::WrongType,
                format!("records must be an array of {{id, yi, vi}} objects: {e}"),
            )
        })?;
        Ok(DataSource {
            records: Cow::Owned(
                items
                    .into_iter()
                    .map(|r| Record::new(r.id, r.yi, r.vi))
                    .collect(),
            ),
            info: DatasetInfo {
                name: CUSTOM_RECORDS,
                sha256: canonical::sha256_hex(records),
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

    /// The `exclude` ids, checked: distinct, and each among the records.
    pub fn exclusions(&self, ids: Vec<String>) -> Result<Vec<String>, ToolError> {
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(ToolError::new(
                    super::ErrorCode::InvalidArguments,
                    format!("exclude lists {} more than once", crate::quote::quoted(id)),
                ));
            }
            if !self.records.iter().any(|r| &r.id == id) {
                return Err(ToolError::new(
                    super::ErrorCode::UnknownRecord,
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
        self.records
            .iter()
            .filter(|r| !excluded.contains(&r.id))
            .cloned()
            .collect()
    }
}
