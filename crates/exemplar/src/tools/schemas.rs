//! The JSON Schemas of the tools: the input schemas' shared parts, written once, and the
//! output schemas, derived from the result types.
//!
//! Both use the plain subset [`crate::schema`] validates (no `$ref`, no `format`), so an
//! agent or a client can read them without a full JSON Schema implementation.

use meta_analysis::Method;
use serde_json::{json, Value};

pub(super) fn method() -> Value {
    let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
    json!({
        "type": "string",
        "enum": names,
        "default": "REML",
        "description": "tau^2 estimator."
    })
}

pub(super) fn level() -> Value {
    json!({
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "default": 0.95,
        "description": "Confidence level."
    })
}

pub(super) fn test() -> Value {
    json!({
        "type": "string",
        "enum": ["z", "knha"],
        "default": "z",
        "description": "z, or knha (t)."
    })
}

pub(super) fn variant(description: &str) -> Value {
    json!({"type": "string", "enum": ["classic", "rma"], "default": "classic", "description": description})
}

pub(super) fn records(max: usize) -> Value {
    json!({
        "type": "array",
        "description": format!("At most {max}."),
        "items": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "yi": {"type": "number"}, "vi": {"type": "number"}},
            "required": ["id", "yi", "vi"],
            "additionalProperties": {"type": ["number", "string"]}
        }
    })
}

/// `mods`: the moderator columns of a meta-regression.
pub(super) fn mods() -> Value {
    json!({
        "type": "array",
        "items": {"type": "string"},
        "description": format!("Moderator columns, distinct, at most {}, e.g. [\"weeks\", \"tester\"].", meta_analysis::MAX_MODERATORS)
    })
}

/// `weights`: the column of user weights of a fit or a meta-regression.
pub(super) fn weights() -> Value {
    json!({
        "type": "string",
        "description": "Numeric column of weights (> 0) for the fixed effects, as metafor's; default none."
    })
}

/// `at`: the moderator values at which a meta-regression predicts.
pub(super) fn at(max: usize) -> Value {
    json!({
        "type": "array",
        "items": {
            "type": "object",
            "additionalProperties": {"type": ["number", "string"]}
        },
        "description": format!("Points to predict at (at most {max}), e.g. [{{\"weeks\": 0}}]; default none.")
    })
}

/// A column name (the `by` of a subgroup analysis, the `mod` of a bubble plot).
pub(super) fn column(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

/// `exclude`'s usual description.
pub(super) const EXCLUDE: &str = "Ids to leave out first.";

pub(super) fn exclude(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": description})
}

/// The input of a fit: `exclude` (described, when the tool takes it), `method`, `level`,
/// `test` and `records` (at most `max`).
pub(super) fn fit_input(exclude: Option<&str>, required: &[&str], max: usize) -> Value {
    let mut properties = serde_json::Map::new();
    if let Some(description) = exclude {
        properties.insert("exclude".into(), self::exclude(description));
    }
    properties.insert("method".into(), method());
    properties.insert("level".into(), level());
    properties.insert("test".into(), test());
    properties.insert("records".into(), records(max));
    let mut schema = object(Value::Object(properties), required);
    super::scale::add_properties(&mut schema);
    schema
}

/// The input of `trim_and_fill` and its plot.
pub(super) fn trim_and_fill_input(max: usize) -> Value {
    let mut schema = object(
        json!({
            "estimator": {"type": "string", "enum": ["L0", "R0"], "default": "L0", "description": "Estimator of the number missing."},
            "side": {"type": "string", "enum": ["left", "right"], "description": "Side where records are missing; default: estimated as metafor does."},
            "method": method(),
            "exclude": exclude(EXCLUDE),
            "records": records(max)
        }),
        &[],
    );
    super::scale::add_properties(&mut schema);
    schema
}

/// The input of `fail_safe_n`.
pub(super) fn fail_safe_input(max: usize) -> Value {
    object(
        json!({
            "type": {"type": "string", "enum": ["Rosenthal", "Orwin", "Rosenberg"], "default": "Rosenthal", "description": "The method."},
            "alpha": {"type": "number", "minimum": 0, "maximum": 1, "default": super::fail_safe::DEFAULT_ALPHA, "description": "Significance level."},
            "target": {"type": "number", "description": "Orwin only: the mean effect to reach (default half the mean; not 0)."},
            "exclude": exclude(EXCLUDE),
            "records": records(max)
        }),
        &[],
    )
}

/// The input of `cumulative_meta_analysis` and its plot.
pub(super) fn cumulative_input(max: usize) -> Value {
    let mut schema = fit_input(Some(EXCLUDE), &[], max);
    schema["properties"]["order_by"] = json!({"type": "string", "description": "Column to add the records in order of, e.g. \"year\" (also id, yi, vi); default: record order."});
    schema["properties"]["descending"] =
        json!({"type": "boolean", "default": false, "description": "Descending order_by."});
    schema
}

/// `{"type": "object", "properties": …, "required": …, "additionalProperties": false}`
/// A tool that takes `records` also takes a handle to records kept by `load_data`.
pub(super) fn object(mut properties: Value, required: &[&str]) -> Value {
    if let Some(list) = properties.as_object_mut() {
        if list.contains_key("records") {
            list.insert(
                super::DATA_ID.into(),
                json!({"type": "string", "description": format!("A {} handle.", super::LOAD_DATA.name)}),
            );
        }
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema["additionalProperties"] = json!(false);
    schema
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
