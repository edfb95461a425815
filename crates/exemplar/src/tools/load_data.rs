//! `load_data`: keeps a caller's records (or the records computed from raw data) in the
//! session's [`DataStore`](super::DataStore) and returns a handle. The dispatch reads the
//! data and keeps them; the handler describes them.

use super::args::RecordsSlot;
use super::compute_effect_sizes::{compute_effect_sizes, EffectSizeArgs};
use super::data::{DataSource, DatasetInfo};
use super::data::Omitted;
use super::effect_sizes::EscalcSettings;
#[cfg(feature = "definitions")]
use super::limits::{MAX_HANDLES, MAX_HELD_BYTES};
use super::{Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
#[cfg(feature = "definitions")]
use super::COMPUTE_EFFECT_SIZES;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The tool's name, for the messages that name it. Code the page's first wasm module runs
/// names it by this constant, never as `LOAD_DATA.name`: formatting or comparing the static's
/// field takes the static's address, which links this handler (raw data, effect sizes) into
/// that module (issue 30 item 8: 19 KB gzip).
pub const LOAD_DATA_NAME: &str = "load_data";

pub static LOAD_DATA: Tool = Tool {
    name: LOAD_DATA_NAME,
    title: "Load data under a handle",
    summary: "Keeps your records in this session for later calls.",
    group: ToolGroup::Data,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description,
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(describe),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![
        json!({"records": examples::records()}),
        json!({"measure": "RR", "data": [{"ai": 4, "bi": 119, "ci": 11, "di": 128}, {"ai": 6, "bi": 300, "ci": 29, "di": 274}]}),
    ]
}

#[cfg(feature = "definitions")]
fn description() -> String {
    use super::DATA_ID;
    format!(
        "Keeps records in this session's memory under a handle (\"d1\", ...), the `{DATA_ID}` \
of any tool taking `records`. At most {MAX_HANDLES} handles and {} MiB, oldest dropped first \
(`expired`); an unknown handle is unknown_data. Never on disk.",
        MAX_HELD_BYTES / (1024 * 1024),
    )
}

/// `load_data`'s arguments: `records`, or raw `data` with `compute_effect_sizes`' own
/// arguments. The dispatch reads the data and keeps their records; the handler reads the raw
/// data again only to say which rows were left out.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LoadArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "definitions",
        schemars(schema_with = "super::effect_sizes::measure_schema")
    )]
    pub measure: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "super::effect_sizes::data_schema", description = format!("Raw data instead of records, as {} takes it (with `measure`, then required); its effect sizes are kept.", COMPUTE_EFFECT_SIZES.name)))]
    pub data: Option<Vec<Map<String, Value>>>,
    // compute_effect_sizes' own arguments, described (and checked, by its schema) there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "number"))]
    pub add: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "text"))]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "text"))]
    pub vtype: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "boolean"))]
    pub drop00: Option<bool>,
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "object"))]
    pub columns: Option<Map<String, Value>>,
    #[serde(default, rename = "records")]
    #[cfg_attr(
        feature = "definitions",
        schemars(schema_with = "super::schema_derivation::records_slot")
    )]
    pub _records: RecordsSlot,
}

leaf_args!(LoadArgs);

/// The schemas of the raw-data options `load_data` passes on to `compute_effect_sizes`, whose
/// schema describes and checks them (the dispatch validates raw data against it): a type and
/// a word each.
#[cfg(feature = "definitions")]
fn plain(value: Value) -> schemars::Schema {
    schemars::Schema::try_from(value).expect("an object schema")
}
#[cfg(feature = "definitions")]
fn number(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    plain(
        serde_json::json!({"type": "number", "description": "escalc's add (default by measure)."}),
    )
}
#[cfg(feature = "definitions")]
fn text(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    plain(serde_json::json!({"type": "string", "description": "As for raw data."}))
}
#[cfg(feature = "definitions")]
fn boolean(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    plain(
        serde_json::json!({"type": "boolean", "default": false, "description": "escalc's drop00."}),
    )
}
#[cfg(feature = "definitions")]
fn object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    plain(serde_json::json!({"type": "object", "description": "escalc's columns renamed."}))
}

/// `load_data`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LoadDataResult {
    /// The handle: pass it as `data_id` to any tool that takes `records`.
    pub data_id: String,
    /// Records held.
    pub k: usize,
    /// The records' further columns (moderators), in order of first appearance.
    pub columns: Vec<String>,
    /// The escalc measure the records were computed with (raw `data`), else null.
    pub measure: Option<String>,
    /// Size of the records as canonical JSON, in bytes.
    pub bytes: usize,
    /// Rows of raw `data` that give no effect size, each with its reason, left out of the
    /// records held; empty for `records`.
    pub omitted: Vec<Omitted>,
    /// What was done to rows of raw `data` that are kept (compute_effect_sizes' `notes`);
    /// absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Handles dropped to make room (oldest first); calls naming them now fail.
    pub expired: Vec<String>,
    /// The data, named and hashed exactly as the same records given inline.
    pub dataset: DatasetInfo,
}

/// `load_data`'s handler: what the records hold. The handle, their size and the handles
/// dropped are filled in by the dispatch, which holds the store.
pub fn describe(args: LoadArgs, data: &DataSource) -> Result<LoadDataResult, ToolError> {
    let (omitted, notes) = match (&args.measure, args.data) {
        (Some(measure), Some(rows)) => {
            let raw = EffectSizeArgs {
                measure: measure.clone(),
                data: rows,
                escalc: EscalcSettings {
                    add: args.add,
                    to: args.to,
                    vtype: args.vtype,
                    drop00: args.drop00,
                },
                columns: args.columns,
            };
            let result = compute_effect_sizes(raw, data)?;
            (result.omitted, result.notes)
        }
        _ => (Vec::new(), Vec::new()),
    };
    Ok(LoadDataResult {
        data_id: String::new(),
        k: data.records().len(),
        columns: data.column_names().into_iter().map(String::from).collect(),
        measure: args.measure,
        bytes: 0,
        omitted,
        notes,
        expired: Vec::new(),
        dataset: data.info().clone(),
    })
}

/// The rows the summary line lists before "and n more".
const LISTED_OMITTED: usize = 3;

/// How many rows were kept and which were left out (the first few with their reasons), so
/// that dropped rows are said without reading `omitted`; then the notes.
impl crate::printed::Printed for LoadDataResult {
    fn print(&self, out: &mut crate::printed::Out) {
        let k = self.k;
        if self.omitted.is_empty() {
            let unit = if self.measure.is_some() {
                "rows"
            } else {
                "records"
            };
            out.line(format!("kept {k} of {k} {unit}; none left out"));
        } else {
            let left_out = self.omitted.len();
            let listed: Vec<String> = self
                .omitted
                .iter()
                .take(LISTED_OMITTED)
                .map(|o| format!("{} ({})", o.id, o.reason))
                .collect();
            let more = left_out.saturating_sub(LISTED_OMITTED);
            out.line(format!(
                "kept {k} of {} rows; {left_out} left out: {}{}",
                k + left_out,
                listed.join(", "),
                if more > 0 {
                    format!(" and {more} more (listed in omitted)")
                } else {
                    String::new()
                }
            ));
        }
        for note in &self.notes {
            out.line(format!("Note: {note}"));
        }
    }
}
