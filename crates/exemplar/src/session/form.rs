//! A person's run from a tool's form: the text typed in each field, read as the argument its
//! input schema describes. The page gathers the text; how it reads, and why a field cannot
//! be read, are said here.
//!
//! A field reads by its schema's type: an `enum` (a choice whose value is JSON text) and
//! anything without a simpler reading (an object, an array of objects) as JSON; a number
//! as a finite decimal; a boolean as `true`; an array of strings or numbers as
//! comma-separated items (an item that is not a number goes as `null`, for the tool's own
//! argument check to name, and the ledger to record, as a wrong type); a string as it is.
//! A field that takes a formula or a list of terms (`mods`) reads as the formula when it has a
//! `~`, else as comma-separated terms; one that takes positions or names (`btt`) reads each
//! item as a number when it is one.
//! An empty field is left out; a required one is named, unless the run is on Your data
//! (`lenient`), which may fill it (the engine names any required argument still missing).

use serde_json::{Map, Value};

/// The arguments from the text typed in each field (`fields`: name → text, the fields the
/// person could type in), read by the tool's input schema; or the sentence naming the first
/// field, in the schema's order, that must be fixed.
pub fn args(
    input_schema: &Value,
    fields: &Map<String, Value>,
    lenient: bool,
) -> Result<Map<String, Value>, String> {
    let required: Vec<&str> = input_schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut args = Map::new();
    let Some(properties) = input_schema["properties"].as_object() else {
        return Ok(args);
    };
    for (name, schema) in properties {
        let Some(text) = fields.get(name).and_then(Value::as_str) else {
            continue;
        };
        let raw = text.trim();
        if raw.is_empty() {
            if required.contains(&name.as_str()) && !lenient {
                return Err(format!("{name} is required"));
            }
            continue;
        }
        args.insert(name.clone(), value(name, schema, raw)?);
    }
    Ok(args)
}

/// The schema's type, other than `null`.
fn type_of(schema: &Value) -> Option<&str> {
    match &schema["type"] {
        Value::String(t) => Some(t),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        _ => None,
    }
}

/// Whether the schema's `type` is or includes `ty`.
fn has_type(schema: &Value, ty: &str) -> bool {
    match &schema["type"] {
        Value::String(t) => t == ty,
        Value::Array(types) => types.iter().any(|t| t == ty),
        _ => false,
    }
}

/// The comma-separated items of a field, trimmed, empty ones left out.
fn items(raw: &str) -> impl Iterator<Item = &str> {
    raw.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// A finite number, as a person types it, or none.
fn number(raw: &str) -> Option<f64> {
    crate::csv_table::finite_decimal(raw)
}

fn json_number(n: f64) -> Value {
    serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
}

/// One field's text (trimmed, not empty) as its argument.
fn value(name: &str, schema: &Value, raw: &str) -> Result<Value, String> {
    let json =
        || serde_json::from_str::<Value>(raw).map_err(|e| format!("{name}: not valid JSON ({e})"));
    if schema.get("enum").is_some() {
        return json();
    }
    // A formula or a list of terms (`mods`): a formula when it has a `~`, JSON when it is
    // an array, else comma-separated terms.
    if has_type(schema, "string")
        && has_type(schema, "array")
        && !has_type(&schema["items"], "integer")
    {
        return if raw.starts_with('[') {
            json()
        } else if raw.contains('~') {
            Ok(Value::String(raw.to_string()))
        } else {
            Ok(Value::Array(
                items(raw).map(|s| Value::String(s.to_string())).collect(),
            ))
        };
    }
    match type_of(schema) {
        Some("number" | "integer") => number(raw)
            .map(json_number)
            .ok_or_else(|| format!("{name}: \"{raw}\" is not a number")),
        Some("boolean") => Ok(Value::Bool(raw == "true")),
        Some("string") => Ok(Value::String(raw.to_string())),
        // Positions or names (`btt`): each item a number when it reads as one, else text.
        Some("array")
            if has_type(&schema["items"], "string") && has_type(&schema["items"], "integer") =>
        {
            Ok(Value::Array(
                items(raw)
                    .map(|s| match s.parse::<i64>() {
                        Ok(n) => Value::from(n),
                        Err(_) => Value::String(s.to_string()),
                    })
                    .collect(),
            ))
        }
        Some("array") => match type_of(&schema["items"]) {
            Some(item @ ("string" | "number" | "integer")) => Ok(Value::Array(
                items(raw)
                    .map(|s| match item {
                        "string" => Value::String(s.to_string()),
                        _ => number(s).map_or(Value::Null, json_number),
                    })
                    .collect(),
            )),
            _ => json(),
        },
        _ => json(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "method": {"type": "string", "enum": ["REML", "DL"]},
                "level": {"type": "number", "minimum": 0},
                "k": {"type": ["integer", "null"]},
                "knha": {"type": "boolean"},
                "exclude": {"type": "array", "items": {"type": "string"}},
                "at": {"type": "array", "items": {"type": "number"}},
                "records": {"type": "array", "items": {"type": "object"}},
                "by": {"type": "string"}
            },
            "required": ["records"]
        })
    }

    fn fields(pairs: &[(&str, &str)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect()
    }

    #[test]
    fn a_formula_field_reads_a_formula_or_terms_and_btt_positions_or_names() {
        let schema = json!({"type": "object", "properties": {
            "mods": {"type": ["string", "array"], "items": {"type": "string"}},
            "btt": {"type": ["array", "integer", "string"], "items": {"type": ["integer", "string"]}}
        }});
        let read = |mods: &str, btt: &str| {
            args(&schema, &fields(&[("mods", mods), ("btt", btt)]), false).unwrap()
        };
        let a = read("~ weeks + factor(tester)", "2, 3");
        assert_eq!(a["mods"], json!("~ weeks + factor(tester)"));
        assert_eq!(a["btt"], json!([2, 3]));
        let b = read("weeks, I(weeks^2)", "tester");
        assert_eq!(b["mods"], json!(["weeks", "I(weeks^2)"]));
        assert_eq!(b["btt"], json!(["tester"]));
        assert_eq!(read("[\"weeks\"]", "")["mods"], json!(["weeks"]));
    }

    #[test]
    fn each_field_reads_by_its_schema() {
        let read = args(
            &schema(),
            &fields(&[
                ("method", "\"DL\""),
                ("level", " 0.9 "),
                ("k", "1e1"),
                ("knha", "false"),
                ("exclude", "s04, s05,, "),
                ("at", "1, 2.5, x"),
                ("records", r#"[{"id":"a","yi":1,"vi":1}]"#),
                ("by", "  setting "),
            ]),
            false,
        )
        .unwrap();
        assert_eq!(
            Value::Object(read),
            json!({
                "method": "DL", "level": 0.9, "k": 10.0, "knha": false,
                "exclude": ["s04", "s05"], "at": [1.0, 2.5, null],
                "records": [{"id": "a", "yi": 1, "vi": 1}], "by": "setting"
            })
        );
    }

    #[test]
    fn a_field_that_cannot_be_read_is_named_in_the_schemas_order() {
        let s = schema();
        let bad = fields(&[("records", "[1"), ("level", "Infinity"), ("k", "")]);
        assert_eq!(
            args(&s, &bad, false).unwrap_err(),
            "level: \"Infinity\" is not a number"
        );
        let bad = fields(&[("records", "[1")]);
        assert!(args(&s, &bad, false)
            .unwrap_err()
            .starts_with("records: not valid JSON (EOF while parsing a list"));
        assert_eq!(
            args(&s, &fields(&[("level", "0.9"), ("records", "")]), false).unwrap_err(),
            "records is required"
        );
        // On Your data the records may stay empty: Your data gives them.
        assert_eq!(
            Value::Object(args(&s, &fields(&[("records", " ")]), true).unwrap()),
            json!({})
        );
        // A field the person could not type in (Your data's) is not read.
        assert_eq!(
            Value::Object(args(&s, &fields(&[]), true).unwrap()),
            json!({})
        );
    }
}
