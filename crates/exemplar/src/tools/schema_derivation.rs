//! The tools' JSON Schemas, derived from their types: the input schema of a tool from its
//! handler's argument type, its output schema from the handler's result type (schemars, with
//! every subschema inlined and reduced to the plain subset [`crate::schema_check`] validates:
//! no `$ref`, no `format`), so an argument struct and its schema cannot drift.
//!
//! An argument whose schema every tool shares is written once here (`method`, `level`,
//! `test`, `exclude`, `records`, …) and named by the field that takes it
//! (`#[schemars(schema_with = "…")]`); a field's doc comment is its description.
//!
//! Derivation needs schemars, which the page's wasm does not link: every build validates
//! with the committed `input_schemas.json`, and a test holds it equal to the derived
//! schemas (`cargo xtask codegen` rewrites it, and its check fails when it is stale).

#[cfg(feature = "definitions")]
use meta_analysis::Method;
#[cfg(feature = "definitions")]
use schemars::{Schema, SchemaGenerator};
#[cfg(feature = "definitions")]
use serde_json::{json, Value};

/// The input schemas of every registered tool, as committed: `{tool name: schema}` (what a
/// build without the derivation validates calls with), written compactly by `build.rs`, and
/// without the `extended` feature only the benchmark's tools (the page's first wasm module).
#[cfg(not(feature = "definitions"))]
pub(super) const INPUT_SCHEMAS_JSON: &str =
    include_str!(concat!(env!("OUT_DIR"), "/input_schemas.json"));

/// A schema written as JSON, for `schema_with`.
#[cfg(feature = "definitions")]
fn schema(value: Value) -> Schema {
    Schema::try_from(value).expect("an object schema")
}

/// `method`: the tau^2 estimator, one of [`Method::ALL`].
#[cfg(feature = "definitions")]
pub(super) fn method(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
    schema(json!({
        "type": "string",
        "enum": names,
        "default": meta_analysis::FitOptions::default().method.name(),
        "description": "tau^2 estimator."
    }))
}

/// `level`: a confidence level.
#[cfg(feature = "definitions")]
pub(super) fn level(_: &mut SchemaGenerator) -> Schema {
    schema(json!({
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "default": meta_analysis::FitOptions::default().level,
        "description": "CI level."
    }))
}

/// `test`: z, or Knapp-Hartung's t.
#[cfg(feature = "definitions")]
pub(super) fn test(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = meta_analysis::Test::ALL.iter().map(|t| t.name()).collect();
    schema(json!({
        "type": "string",
        "enum": names,
        "default": meta_analysis::FitOptions::default().test.name(),
        "description": "knha: t."
    }))
}

/// `variant` of Egger's test (the field's doc comment describes it).
#[cfg(feature = "definitions")]
pub(super) fn variant(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = meta_analysis::EggerVariant::ALL
        .iter()
        .map(|v| v.name())
        .collect();
    schema(json!({"type": "string", "enum": names, "default": names[0]}))
}

/// `exclude`'s usual description.
#[cfg(feature = "definitions")]
pub(super) const EXCLUDE: &str = "Ids left out.";

/// `exclude`: record ids (the field's doc comment, or [`EXCLUDE`], describes it).
#[cfg(feature = "definitions")]
pub(super) fn exclude(_: &mut SchemaGenerator) -> Schema {
    schema(json!({"type": "array", "items": {"type": "string"}}))
}

/// `mods`: a model formula or a list of terms.
#[cfg(feature = "definitions")]
pub(super) fn mods(_: &mut SchemaGenerator) -> Schema {
    schema(json!({
        "type": ["string", "array"],
        "items": {"type": "string"},
        "description": "Moderators."
    }))
}

/// `btt`: the coefficients the omnibus test takes.
#[cfg(feature = "definitions")]
pub(super) fn btt(_: &mut SchemaGenerator) -> Schema {
    schema(json!({
        "type": ["array", "integer", "string"],
        "items": {"type": ["integer", "string"]},
        "description": "QM's coefficients."
    }))
}

/// `weights`: the column of user weights of a fit or a meta-regression.
#[cfg(feature = "definitions")]
pub(super) fn weights(_: &mut SchemaGenerator) -> Schema {
    schema(json!({
        "type": "string",
        "description": "Column of weights (> 0); default none."
    }))
}

/// The placeholder of `records` in an argument type: where the property sits. [`input_of`]
/// replaces it with [`records`] of the tool's cap.
#[cfg(feature = "definitions")]
pub(super) fn records_slot(_: &mut SchemaGenerator) -> Schema {
    schema(json!({"type": "array"}))
}

/// `records`: at most `max`, each with id, yi and vi, and further columns of numbers or text
/// (null is a missing value, left out as na.omit does when the analysis reads its column).
#[cfg(feature = "definitions")]
pub(super) fn records(max: usize) -> Value {
    json!({
        "type": "array",
        "description": format!("At most {max}."),
        "items": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "yi": {"type": "number"}, "vi": {"type": "number"}},
            "required": ["id", "yi", "vi"],
            "additionalProperties": {"type": ["number", "string", "null"]}
        }
    })
}

/// The input schema of argument type `A` for a tool taking at most `max_records` records:
/// schemars' schema, inlined; `records` (where `A` places it) with the cap and a `data_id`
/// after it; a default that says nothing (null, an empty list) dropped; closed
/// (`additionalProperties: false`).
#[cfg(feature = "definitions")]
pub(super) fn input_of<A: schemars::JsonSchema>(max_records: usize) -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let derived = generator.into_root_schema_for::<A>().to_value();
    let mut properties = serde_json::Map::new();
    for (name, mut property) in derived
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
    {
        if name == "records" {
            properties.insert(name, records(max_records));
            // A tool that takes records takes a handle to records kept by `load_data`
            // (which, taking raw `data` too, makes handles and takes none).
            if derived["properties"]
                .get(super::effect_sizes::DATA_ARGUMENT)
                .is_some()
            {
                continue;
            }
            properties.insert(
                super::DATA_ID.into(),
                json!({"type": "string", "description": format!("A {} handle.", super::LOAD_DATA.name)}),
            );
            properties.insert(
                super::DATASET.into(),
                json!({"type": "string", "enum": [crate::dataset::NAME], "description": "The default."}),
            );
            properties.insert(
                super::SUBSET.into(),
                json!({"type": "object", "description": "{column, in: []} or {column, equals}."}),
            );
            properties.insert(
                super::SLAB.into(),
                json!({"type": "string", "description": "Label column."}),
            );
            continue;
        }
        if let Some(object) = property.as_object_mut() {
            // An optional argument is left out, not null.
            if let Some(Value::Array(types)) = object.get("type") {
                if let [one, null] = types.as_slice() {
                    if null == "null" {
                        object.insert("type".into(), one.clone());
                    }
                }
            }
            object.remove("format");
            object.remove("title");
            if matches!(object.get("default"), Some(Value::Null))
                || object.get("default") == Some(&json!([]))
            {
                object.remove("default");
            }
        }
        properties.insert(name, property);
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if let Some(required) = derived
        .get("required")
        .filter(|r| r.as_array().is_some_and(|r| !r.is_empty()))
    {
        schema["required"] = required.clone();
    }
    schema["additionalProperties"] = json!(false);
    schema
}

/// [`input_of`] of a handler's argument type (inferred from the handler, so that a tool's
/// schema is the schema of what its handler reads).
#[cfg(feature = "definitions")]
pub(super) fn input_of_handler<A: schemars::JsonSchema, R>(
    _: fn(A, &super::DataSource) -> Result<R, super::ToolError>,
    max_records: usize,
) -> Value {
    input_of::<A>(max_records)
}

/// [`output_of`] of a handler's result type.
#[cfg(feature = "definitions")]
pub(super) fn output_of_handler<A, R: schemars::JsonSchema>(
    _: fn(A, &super::DataSource) -> Result<R, super::ToolError>,
) -> Value {
    output_of::<R>()
}

/// The output schema of result type `T`, derived by schemars with every subschema inlined
/// and reduced to the plain subset ([`plain`]).
#[cfg(feature = "definitions")]
pub(super) fn output_of<T: schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    plain(&mut schema);
    if let Some(object) = schema.as_object_mut() {
        object.remove("description");
    }
    schema
}

/// Reduces a schemars schema to the plain subset: drops annotations outside it (`$schema`,
/// `title`, `format`, numeric bounds of integer types), turns `const` and `oneOf` lists of
/// constants into `enum`, an `anyOf` of a schema and null into a nullable type, the `true`
/// schema into `{}`, and closes every object that lists its properties
/// (`additionalProperties: false`), so that a result with an undeclared field fails.
#[cfg(feature = "definitions")]
fn plain(schema: &mut Value) {
    if schema == &Value::Bool(true) {
        *schema = json!({});
        return;
    }
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(constant) = object.remove("const") {
        object.insert("enum".into(), json!([constant]));
    }
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(choices)) = object.remove(key) else {
            continue;
        };
        let constants: Option<Vec<Value>> = choices
            .iter()
            .map(|c| c.get("const").or_else(|| c.get("enum")?.get(0)).cloned())
            .collect();
        if let Some(constants) = constants {
            object.insert("enum".into(), Value::Array(constants));
            if let Some(ty) = choices[0].get("type") {
                object.insert("type".into(), ty.clone());
            }
            continue;
        }
        let (nulls, others): (Vec<Value>, Vec<Value>) = choices
            .into_iter()
            .partition(|c| c.get("type") == Some(&json!("null")));
        if let ([_], [other]) = (nulls.as_slice(), others.as_slice()) {
            for (k, v) in other.as_object().into_iter().flatten() {
                object.entry(k.clone()).or_insert_with(|| v.clone());
            }
            if let Some(Value::String(ty)) = object.get("type").cloned() {
                object.insert("type".into(), json!([ty, "null"]));
            }
        }
    }
    object.retain(|key, _| {
        matches!(
            key.as_str(),
            "type"
                | "properties"
                | "required"
                | "items"
                | "enum"
                | "description"
                | "additionalProperties"
        )
    });
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for sub in properties.values_mut() {
            plain(sub);
        }
        object
            .entry("additionalProperties")
            .or_insert(Value::Bool(false));
    }
    if let Some(items) = object.get_mut("items") {
        plain(items);
    }
    if let Some(extra) = object.get_mut("additionalProperties") {
        if !extra.is_boolean() {
            *extra = Value::Bool(true);
        }
    }
}
