//! The JSON Schema of what the page receives from the engine: the run report
//! ([`super::RunReport`]) and the page's metadata ([`crate::page::PageMetadata`]), from which
//! `cargo xtask build` writes `www/generated/engine.schema.json` and its TypeScript
//! declaration `www/generated/engine.d.ts` (checked current by a tidy test).
//!
//! The report holds types of other modules (the ledger's entry header, a tool's error, the
//! result's view) that do not derive `JsonSchema`; each has a remote mirror here. A mirror
//! also derives serde's remote `Serialize`, whose generated code reads every field of the
//! real type by name and type, and matches every variant: a field or variant added, removed
//! or retyped there fails to compile here, so a mirror cannot drift from its type. (Deriving
//! `JsonSchema` on those types where they are defined would make the mirrors unnecessary.)

// The remote serializers exist for their compile-time check; the tests call them too.
#![allow(dead_code)]

use crate::ledger::{EntryHeader, Status};
use crate::result_view::{ResultView, Table};
use crate::tools::{ErrorCode, ToolError};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// Why a tool call was refused.
#[derive(Serialize, JsonSchema)]
#[serde(remote = "ErrorCode", rename_all = "snake_case")]
pub(super) enum ErrorCodeDef {
    UnknownTool,
    InvalidJson,
    InvalidArguments,
    UnknownProperty,
    WrongType,
    UnknownRecord,
    UnknownData,
    TooManyRecords,
    InvalidRecords,
    InvalidData,
    AnalysisFailed,
    NotConverged,
    InternalError,
    Cancelled,
}

/// A refused tool call: a stable code and a message.
#[derive(Serialize, JsonSchema)]
#[serde(remote = "ToolError")]
pub(super) struct ToolErrorDef {
    #[serde(with = "ErrorCodeDef")]
    code: ErrorCode,
    message: String,
}

/// How a run ended.
#[derive(Serialize, JsonSchema)]
#[serde(remote = "Status", rename_all = "snake_case")]
pub(super) enum StatusDef {
    Ok,
    Error,
    InternalError,
    Cancelled,
}

/// A ledger entry without its arguments.
#[derive(Serialize, JsonSchema)]
#[serde(remote = "EntryHeader")]
pub(super) struct EntryHeaderDef {
    seq: u64,
    time: String,
    tool: String,
    #[serde(with = "StatusDef")]
    status: Status,
    dataset_sha256: String,
    engine_version: String,
    result_sha256: String,
    prev_hash: String,
    hash: String,
}

/// One table of a result's view: caption, column headings and rows of cells, all text.
#[derive(Serialize, JsonSchema)]
#[serde(remote = "Table")]
pub(super) struct TableDef {
    caption: String,
    columns: Vec<String>,
    /// Indexes of the columns holding numbers (right-aligned).
    numeric: Vec<usize>,
    rows: Vec<Vec<String>>,
    /// Rows in the result (more than `rows` holds when it was cut).
    total_rows: usize,
}

/// Serializes a table through its mirror (for `Vec<Table>`, which `with` cannot name).
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "Table")]
struct TableItem<'a>(#[serde(with = "TableDef")] &'a Table);

/// A result as tables, and the field holding a plot's SVG.
#[derive(Serialize, JsonSchema)]
#[serde(remote = "ResultView")]
pub(super) struct ResultViewDef {
    #[serde(serialize_with = "tables")]
    #[schemars(with = "Vec<TableDef>")]
    tables: Vec<Table>,
    /// The field of the result that holds an SVG drawn by the engine (a plot tool's `svg`).
    figure: Option<String>,
    /// What the rounding is, said once under the tables.
    note: &'static str,
}

fn tables<S: serde::Serializer>(tables: &[Table], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(tables.iter().map(TableItem))
}

/// The JSON Schema (draft 2020-12) of what the page receives: `$defs` holds `RunReport`,
/// `PageMetadata` and every type they contain, each by its Rust name.
pub fn engine_schema() -> Value {
    // The shape as serialized: a field skipped when empty is optional, an `Option` always
    // written is required (and may be null).
    let mut generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    generator.subschema_for::<super::RunReport>();
    generator.subschema_for::<crate::page::PageMetadata>();
    let defs: serde_json::Map<String, Value> = generator
        .take_definitions(true)
        .into_iter()
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_iter()
        .collect();
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "What the page receives from the engine (exemplar::session, exemplar::page)",
        "$defs": defs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Interruption, Session};

    /// Each mirror serializes its type as the type itself does.
    #[test]
    fn the_mirrors_serialize_as_their_types() {
        let mut session = Session::new();
        let ok = session.run("fit_random_effects", "{}", "t");
        let error = session.record_interruption("egger_test", "{}", "t", Interruption::Cancelled);
        let mirror = |f: &dyn Fn(&mut serde_json::Serializer<&mut Vec<u8>>)| {
            let mut out = Vec::new();
            f(&mut serde_json::Serializer::new(&mut out));
            serde_json::from_slice::<Value>(&out).unwrap()
        };
        for report in [&ok, &error] {
            let header = mirror(&|s| {
                EntryHeaderDef::serialize(&report.entry, s).unwrap();
            });
            assert_eq!(header, serde_json::to_value(&report.entry).unwrap());
        }
        let e = error.error.as_ref().unwrap();
        let mirrored = mirror(&|s| {
            ToolErrorDef::serialize(e, s).unwrap();
        });
        assert_eq!(mirrored, serde_json::to_value(e).unwrap());
        let view = ok.view.as_ref().unwrap();
        let mirrored = mirror(&|s| {
            ResultViewDef::serialize(view, s).unwrap();
        });
        assert_eq!(mirrored, serde_json::to_value(view).unwrap());
    }

    /// Every report kind validates against the schema's `RunReport`, and the metadata
    /// against `PageMetadata`: the schema describes what is sent.
    #[test]
    fn reports_and_metadata_are_what_the_schema_says() {
        let schema = engine_schema();
        let defs = schema["$defs"].as_object().unwrap();
        for name in [
            "RunReport",
            "PageMetadata",
            "ToolResponse",
            "EntryHeader",
            "ToolError",
            "ErrorCode",
            "ResultView",
            "Table",
            "Status",
        ] {
            assert!(defs.contains_key(name), "no {name} in {:?}", defs.keys());
        }
        let report = &defs["RunReport"];
        let properties: Vec<&String> = report["properties"].as_object().unwrap().keys().collect();
        assert!(!properties.iter().any(|p| *p == "ok"), "{properties:?}");
        let codes = defs["ErrorCode"].to_string();
        assert!(codes.contains("\"invalid_json\"") && codes.contains("\"cancelled\""));
        let mut session = Session::new();
        let reports = [
            session.run("fit_random_effects", "{}", "t"),
            session.run("egger_test", "{bad", "t"),
            session.refuse_unwritable("get_dataset", "BigInt", "t"),
        ];
        for sent in &reports {
            let value = serde_json::to_value(sent).unwrap();
            let keys = value.as_object().unwrap().keys();
            for key in keys {
                assert!(properties.contains(&key), "{key} is not in the schema");
            }
            for required in report["required"].as_array().unwrap() {
                let required = required.as_str().unwrap();
                assert!(value.get(required).is_some(), "{required}");
            }
        }
        let meta = serde_json::to_value(crate::page::metadata()).unwrap();
        let declared = defs["PageMetadata"]["properties"].as_object().unwrap();
        assert_eq!(
            meta.as_object().unwrap().keys().collect::<Vec<_>>(),
            declared.keys().collect::<Vec<_>>()
        );
    }
}
