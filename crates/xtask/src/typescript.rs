//! TypeScript declarations from a JSON Schema's `$defs`: one `export interface` per object
//! definition, one `export type` per other definition, each with its description as a doc
//! comment. It knows the subset schemars writes for our types (`type`, a list of types
//! with `null`, `properties` and `required`, `items`, `enum`, `const`, `oneOf`/`anyOf`,
//! `$ref` to `#/$defs/…`, a fixed-length array's `minItems`/`maxItems`, and `true` or `{}`
//! for any JSON value), and fails on anything else rather than guess.

use serde_json::{Map, Value};

/// The declarations of every definition of `schema`, in the order of its `$defs`.
pub fn declarations(schema: &Value, header: &str) -> Result<String, String> {
    let defs = schema["$defs"]
        .as_object()
        .ok_or("the schema has no $defs")?;
    let mut out = String::new();
    for line in header.lines() {
        out.push_str(&format!("// {line}\n").replace("// \n", "//\n"));
    }
    for (name, def) in defs {
        out.push('\n');
        out.push_str(&doc(def, ""));
        let declared = match (def.get("type"), def.get("properties")) {
            (Some(Value::String(t)), Some(Value::Object(properties))) if t == "object" => {
                format!(
                    "export interface {name} {}\n",
                    object(properties, required(def), "").map_err(|e| format!("{name}: {e}"))?
                )
            }
            _ => format!(
                "export type {name} = {};\n",
                type_of(def, "").map_err(|e| format!("{name}: {e}"))?
            ),
        };
        out.push_str(&declared);
    }
    Ok(out)
}

fn required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A doc comment of the schema's description, at `indent`.
fn doc(schema: &Value, indent: &str) -> String {
    let Some(text) = schema.get("description").and_then(Value::as_str) else {
        return String::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() == 1 {
        return format!("{indent}/** {} */\n", lines[0].replace("*/", "* /"));
    }
    let mut out = format!("{indent}/**\n");
    for line in lines {
        let line = line.replace("*/", "* /");
        if line.is_empty() {
            out.push_str(&format!("{indent} *\n"));
        } else {
            out.push_str(&format!("{indent} * {line}\n"));
        }
    }
    out.push_str(&format!("{indent} */\n"));
    out
}

/// `{ name: type; … }`, a property not required optional (`?`).
fn object(
    properties: &Map<String, Value>,
    required: Vec<&str>,
    indent: &str,
) -> Result<String, String> {
    let inner = format!("{indent}  ");
    let mut out = String::from("{\n");
    for (name, schema) in properties {
        out.push_str(&doc(schema, &inner));
        let optional = if required.contains(&name.as_str()) {
            ""
        } else {
            "?"
        };
        let key = if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
        {
            name.clone()
        } else {
            serde_json::to_string(name).expect("a string serializes")
        };
        let t = type_of(schema, &inner).map_err(|e| format!("{name}: {e}"))?;
        out.push_str(&format!("{inner}{key}{optional}: {t};\n"));
    }
    out.push_str(&format!("{indent}}}"));
    Ok(out)
}

/// The TypeScript type of a schema.
fn type_of(schema: &Value, indent: &str) -> Result<String, String> {
    let map = match schema {
        Value::Bool(true) => return Ok("unknown".into()),
        Value::Object(map) if map.keys().all(|k| k == "description") => return Ok("unknown".into()),
        Value::Object(map) => map,
        other => return Err(format!("unsupported schema {other}")),
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        return reference
            .strip_prefix("#/$defs/")
            .map(str::to_string)
            .ok_or_else(|| format!("unsupported $ref {reference}"));
    }
    if let Some(value) = map.get("const") {
        return literal(value);
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        let literals: Result<Vec<String>, String> = values.iter().map(literal).collect();
        return Ok(literals?.join(" | "));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(variants) = map.get(key).and_then(Value::as_array) {
            let types: Result<Vec<String>, String> =
                variants.iter().map(|v| type_of(v, indent)).collect();
            return Ok(types?.join(" | "));
        }
    }
    match map.get("type") {
        Some(Value::String(t)) => single(t, map, indent),
        Some(Value::Array(types)) => {
            let types: Result<Vec<String>, String> = types
                .iter()
                .map(|t| {
                    let t = t.as_str().ok_or("a type that is not a string")?;
                    single(t, map, indent)
                })
                .collect();
            Ok(types?.join(" | "))
        }
        _ => Err(format!("unsupported schema {schema}")),
    }
}

/// One JSON type of a schema (whose other keywords describe it).
fn single(t: &str, map: &Map<String, Value>, indent: &str) -> Result<String, String> {
    Ok(match t {
        "null" => "null".into(),
        "string" => "string".into(),
        "number" | "integer" => "number".into(),
        "boolean" => "boolean".into(),
        "array" => {
            let item = map
                .get("items")
                .map_or(Ok("unknown".into()), |items| type_of(items, indent))?;
            let fixed = map.get("minItems").and_then(Value::as_u64);
            match fixed {
                Some(n) if map.get("maxItems").and_then(Value::as_u64) == Some(n) && n <= 8 => {
                    format!("[{}]", vec![item; n as usize].join(", "))
                }
                _ if item.contains(' ') => format!("({item})[]"),
                _ => format!("{item}[]"),
            }
        }
        "object" => match map.get("properties").and_then(Value::as_object) {
            Some(properties) => {
                let schema = Value::Object(map.clone());
                object(properties, required(&schema), indent)?
            }
            None => "Record<string, unknown>".into(),
        },
        other => return Err(format!("unsupported type {other}")),
    })
}

fn literal(value: &Value) -> Result<String, String> {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => Ok(value.to_string()),
        other => Err(format!("unsupported literal {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_enums_references_and_nullable_types_are_declared() {
        let schema = json!({"$defs": {
            "Report": {
                "type": "object",
                "description": "A report.",
                "properties": {
                    "error": {"anyOf": [{"$ref": "#/$defs/Code"}, {"type": "null"}]},
                    "plot": {"type": ["string", "null"]},
                    "rows": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
                    "pair": {"type": "array", "items": {"$ref": "#/$defs/Code"}, "minItems": 2, "maxItems": 2},
                    "maybe": {"type": "array", "items": {"type": ["integer", "null"]}},
                    "result": true,
                    "any": {"description": "Any value."},
                    "kind": {"type": "string", "const": "text"},
                    "seq": {"type": "integer", "format": "uint64", "minimum": 0},
                    "inline": {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]}
                },
                "required": ["plot", "rows", "pair", "result", "kind", "seq"]
            },
            "Code": {"description": "Why.\n\nTwo paragraphs.", "type": "string", "enum": ["a", "b_c"]}
        }});
        let text = declarations(&schema, "Generated.").unwrap();
        assert_eq!(
            text,
            r#"// Generated.

/** A report. */
export interface Report {
  error?: Code | null;
  plot: string | null;
  rows: string[][];
  pair: [Code, Code];
  maybe?: (number | null)[];
  result: unknown;
  /** Any value. */
  any?: unknown;
  kind: "text";
  seq: number;
  inline?: {
    a: boolean;
  };
}

/**
 * Why.
 *
 * Two paragraphs.
 */
export type Code = "a" | "b_c";
"#
        );
    }

    #[test]
    fn what_it_does_not_know_fails_by_name() {
        let schema = json!({"$defs": {"X": {"type": "object", "properties": {"p": {"$ref": "other.json"}}}}});
        assert_eq!(
            declarations(&schema, "").unwrap_err(),
            "X: p: unsupported $ref other.json"
        );
        assert!(declarations(&json!({}), "").is_err());
    }
}
