//! The tool definitions the page registers and `exemplar tools` prints, built from the
//! registry's entries, and the output schemas served beside them (only where definitions are
//! written: the page's wasm registers none).

use super::{find, input_schema_of, GroupDefinition, Tool, LOAD_DATA, REGISTRY};
use serde::Serialize;
use serde_json::Value;
use std::sync::OnceLock;

/// `annotations` of a tool definition: only the hints WebMCP specifies. Every tool reads
/// and computes, and changes nothing (`readOnlyHint`). `untrustedContentHint` marks a result
/// that can carry text a caller supplied: the record ids that refits, tests, leave-one-out
/// and the plots' SVG labels echo.
#[cfg(feature = "definitions")]
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Annotations {
    #[serde(rename = "readOnlyHint")]
    pub read_only_hint: bool,
    #[serde(rename = "untrustedContentHint")]
    pub untrusted_content_hint: bool,
}

/// One tool as the page registers it and `exemplar tools` prints it.
#[cfg(feature = "definitions")]
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct ToolDefinition {
    pub name: &'static str,
    pub title: &'static str,
    /// One line on what the tool gives (the page's list; not part of WebMCP's tool).
    pub summary: &'static str,
    /// Where the page lists the tool (not part of WebMCP's tool).
    pub group: GroupDefinition,
    pub description: String,
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    /// Null in the tool list, which stays lean (see the rules at the top of `tools/mod.rs`): a
    /// tool's output schema is [`output_schema`]'s.
    #[serde(rename = "outputSchema", skip_serializing_if = "Value::is_null")]
    pub output_schema: Value,
    pub annotations: Annotations,
}

#[cfg(feature = "definitions")]
impl Tool {
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name,
            title: self.title,
            summary: self.summary,
            group: GroupDefinition {
                key: self.group.key(),
                title: self.group.title(),
            },
            description: (self.description)(),
            input_schema: input_schema_of(self).clone(),
            output_schema: Value::Null,
            annotations: Annotations {
                // Loading data keeps them in the session; every other tool changes nothing.
                read_only_hint: !std::ptr::eq(self, &LOAD_DATA),
                untrusted_content_hint: self.echoes_caller_text,
            },
        }
    }
}

/// Every tool definition, in registry order.
#[cfg(feature = "definitions")]
pub fn definitions() -> Vec<ToolDefinition> {
    cached_definitions().to_vec()
}

/// The definitions, built once: the descriptions and schemas are constant, and building
/// them (formatting, JSON schema trees) cost more than a whole fit on every call.
#[cfg(feature = "definitions")]
fn cached_definitions() -> &'static [ToolDefinition] {
    static DEFINITIONS: OnceLock<Vec<ToolDefinition>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| REGISTRY.iter().map(|tool| tool.definition()).collect())
}

/// The output schema of tool `name`: every field of its result with its type (and, for a
/// field of the tool's own, its meaning), closed, so that a result with an undeclared field
/// fails. Not part of the tool list; offered on its own ([`output_schemas_json`]).
#[cfg(feature = "definitions")]
pub fn output_schema(name: &str) -> Option<Value> {
    find(name).map(tool_output_schema)
}

/// A tool's output schema: its result type's, and for a tool that writes R code the two
/// string fields `r_code: true` adds (`r_code`, `methods_text`), optional.
fn tool_output_schema(tool: &super::Tool) -> Value {
    let mut schema = (tool.handler.output_schema)();
    if super::reproducible(tool) {
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            properties.insert(
                "r_code".into(),
                serde_json::json!({"type": "string", "description": "With r_code: true, the R script that reproduces the result with metafor."}),
            );
            properties.insert(
                "methods_text".into(),
                serde_json::json!({"type": "string", "description": "With r_code: true, a methods paragraph with references."}),
            );
        }
    }
    schema
}

/// The output schema of any result type `T`, derived as a tool's is: what a part of a
/// result (an engine type a tool returns) contributes to the tool's output schema.
#[cfg(feature = "definitions")]
pub fn output_schema_of<T: schemars::JsonSchema>() -> Value {
    super::schema_derivation::output_of::<T>()
}

/// Every tool's output schema, by name, in registry order.
#[cfg(feature = "definitions")]
pub fn output_schemas_json() -> Value {
    Value::Object(
        REGISTRY
            .iter()
            .map(|tool| (tool.name.to_string(), tool_output_schema(tool)))
            .collect(),
    )
}

/// The tool definitions as a JSON array (what the page registers).
#[cfg(feature = "definitions")]
pub fn definitions_json() -> Value {
    serde_json::to_value(cached_definitions()).expect("definitions serialize")
}
