//! Each tool's input schema, which every call is checked against: derived from the tool's
//! argument type, or the committed copy of that derivation where schemars is not linked.

use super::Tool;
#[cfg(feature = "definitions")]
use super::REGISTRY;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// `tool`'s input schema, built once: derived from its argument type where the derivation is
/// linked (native builds), else the committed copy of that derivation (`input_schemas.json`:
/// the page's wasm links no schemars). `cargo xtask codegen --check` holds the two equal, so
/// one codegen pass writes every file that depends on a schema.
pub(crate) fn input_schema_of(tool: &Tool) -> &'static Value {
    static SCHEMAS: OnceLock<Map<String, Value>> = OnceLock::new();
    SCHEMAS
        .get_or_init(|| {
            #[cfg(feature = "definitions")]
            let schemas = derived_input_schemas()
                .as_object()
                .cloned()
                .unwrap_or_default();
            #[cfg(not(feature = "definitions"))]
            let schemas = serde_json::from_str(super::schema_derivation::INPUT_SCHEMAS_JSON)
                .expect("input_schemas.json is a JSON object");
            schemas
        })
        .get(tool.name)
        .expect("every tool's input schema is committed (see schema_derivation.rs)")
}

/// Every registered tool's input schema derived from its argument type, by name, in
/// registry order: what `input_schemas.json` holds.
#[cfg(feature = "definitions")]
pub fn derived_input_schemas() -> Value {
    Value::Object(
        REGISTRY
            .iter()
            .map(|tool| (tool.name.to_string(), tool.derived_input_schema()))
            .collect(),
    )
}
