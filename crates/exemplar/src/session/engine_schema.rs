//! The JSON Schema of what the page receives from the engine: the run report
//! ([`super::RunReport`]) and the page's metadata ([`crate::page::PageMetadata`]), from which
//! `cargo xtask codegen` writes `www/generated/engine.schema.json` and its TypeScript
//! declaration `www/generated/engine.d.ts` (its `--check` runs in the tidy suite).
//!
//! Every type the report holds derives `JsonSchema` where it is defined (the ledger's entry
//! header, a tool's error, the result's view), so the schema is the types'.

use serde_json::Value;

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
    use crate::session::Session;

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
