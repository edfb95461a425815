//! A validator for the plain JSON Schema subset the tool definitions use.
//!
//! Keywords: `type` (one type, or an array of types for a nullable value), `properties`, `required`, `enum`, `items`, `minimum`, `maximum`,
//! `description`, `additionalProperties` (a boolean, or a schema every undeclared property
//! must match). No `$ref`, no `format`. The tool
//! arguments are checked by walking the very schema JSON the page registers, so the schema
//! and the validation cannot drift apart.

use serde_json::Value;
use std::fmt;

/// The keywords a schema may use.
pub const KEYWORDS: [&str; 9] = [
    "type",
    "properties",
    "required",
    "enum",
    "items",
    "minimum",
    "maximum",
    "description",
    "additionalProperties",
];

/// What kind of rule a value broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViolationKind {
    /// A property that `properties` does not declare, with `additionalProperties: false`.
    UnknownProperty,
    /// The value's JSON type is not the declared `type`.
    WrongType,
    /// A `required` property is absent.
    Missing,
    /// The value is not one of the `enum` values.
    NotInEnum,
    /// A number below `minimum` or above `maximum`.
    OutOfRange,
}

/// The first rule a value breaks, with the path to the offending value.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub kind: ViolationKind,
    /// Where the value is, e.g. `records[2].vi` (empty for the arguments object itself).
    pub path: String,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Checks `value` against `schema`; returns the first violation found.
pub fn validate(schema: &Value, value: &Value) -> Result<(), Violation> {
    check(schema, value, "")
}

/// Checks that `schema` uses only the plain subset ([`KEYWORDS`]) with well-formed values.
pub fn check_plain_subset(schema: &Value) -> Result<(), String> {
    subset(schema, "#")
}

fn describe(path: &str) -> String {
    if path.is_empty() {
        "the arguments".to_string()
    } else {
        path.to_string()
    }
}

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "number" => value.as_f64().is_some_and(f64::is_finite),
        "integer" => {
            value.is_i64()
                || value.is_u64()
                || value
                    .as_f64()
                    .is_some_and(|x| x.is_finite() && x.fract() == 0.0)
        }
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}

fn with_article(ty: &str) -> String {
    match ty {
        "integer" | "array" | "object" => format!("an {ty}"),
        "null" => "null".to_string(),
        _ => format!("a {ty}"),
    }
}

fn violation(kind: ViolationKind, path: &str, message: String) -> Violation {
    Violation {
        kind,
        path: path.to_string(),
        message,
    }
}

/// Checks `value` (at `path`) against `schema`: its type, its enum, its bounds, then an
/// object's properties or an array's items; the first violation found.
fn check(schema: &Value, value: &Value, path: &str) -> Result<(), Violation> {
    check_type(schema, value, path)?;
    check_enum(schema, value, path)?;
    if let Some(x) = value.as_f64() {
        check_bounds(schema, value, x, path)?;
    }
    if let Value::Object(object) = value {
        check_object(schema, object, path)?;
    }
    if let (Value::Array(items), Some(sub)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check(sub, item, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

/// Checks `value` has one of the types `schema` names (when it names any).
fn check_type(schema: &Value, value: &Value, path: &str) -> Result<(), Violation> {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !types.is_empty() && !types.iter().any(|ty| has_type(value, ty)) {
        let got = if value.is_number() {
            "a number"
        } else {
            &with_article(type_of(value))
        };
        let expected: Vec<String> = types.iter().map(|ty| with_article(ty)).collect();
        // "a number or a string", "a number, a string or null".
        let expected = match expected.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => expected.join(""),
        };
        return Err(violation(
            ViolationKind::WrongType,
            path,
            format!("{} must be {}, got {got}", describe(path), expected),
        ));
    }
    Ok(())
}

/// Checks `value` is one of `schema`'s enum values (when it has an enum).
fn check_enum(schema: &Value, value: &Value, path: &str) -> Result<(), Violation> {
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
            return Err(violation(
                ViolationKind::NotInEnum,
                path,
                format!(
                    "{} must be one of {}, got {}",
                    describe(path),
                    list.join(", "),
                    crate::quote::json_value(value)
                ),
            ));
        }
    }
    Ok(())
}

/// Checks the number `x` (`value`) is within `schema`'s minimum and maximum.
fn check_bounds(schema: &Value, value: &Value, x: f64, path: &str) -> Result<(), Violation> {
    // Bounds and values as JSON writes them (-1e-300, not 0.000… with 300 digits).
    let json = |v: &Value| crate::quote::json_value(v);
    if let Some(bound) = schema.get("minimum").filter(|b| b.is_number()) {
        if bound.as_f64().is_some_and(|min| x < min) {
            return Err(violation(
                ViolationKind::OutOfRange,
                path,
                format!(
                    "{} must be at least {}, got {}",
                    describe(path),
                    json(bound),
                    json(value)
                ),
            ));
        }
    }
    if let Some(bound) = schema.get("maximum").filter(|b| b.is_number()) {
        if bound.as_f64().is_some_and(|max| x > max) {
            return Err(violation(
                ViolationKind::OutOfRange,
                path,
                format!(
                    "{} must be at most {}, got {}",
                    describe(path),
                    json(bound),
                    json(value)
                ),
            ));
        }
    }
    Ok(())
}

/// Checks an object: no property `schema` does not allow, every required one present, and
/// each property against its schema.
fn check_object(
    schema: &Value,
    object: &serde_json::Map<String, Value>,
    path: &str,
) -> Result<(), Violation> {
    let properties = schema.get("properties").and_then(Value::as_object);
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        for key in object.keys() {
            if !properties.is_some_and(|p| p.contains_key(key)) {
                let allowed: Vec<&str> = properties
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                let allowed = if allowed.is_empty() {
                    "no properties are accepted".to_string()
                } else {
                    format!("allowed: {}", allowed.join(", "))
                };
                return Err(violation(
                    ViolationKind::UnknownProperty,
                    &join(path, key),
                    format!(
                        "unknown property {} in {} ({allowed})",
                        crate::quote::quoted(key),
                        describe(path)
                    ),
                ));
            }
        }
    }
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = name.as_str().unwrap_or_default();
        if !object.contains_key(name) {
            return Err(violation(
                ViolationKind::Missing,
                &join(path, name),
                format!("{} is required", join(path, name)),
            ));
        }
    }
    let extra = schema
        .get("additionalProperties")
        .filter(|extra| extra.is_object());
    for (key, item) in object {
        if let Some(sub) = properties.and_then(|p| p.get(key)).or(extra) {
            check(sub, item, &join(path, key))?;
        }
    }
    Ok(())
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn subset(schema: &Value, at: &str) -> Result<(), String> {
    let object = schema
        .as_object()
        .ok_or(format!("{at}: a schema must be an object"))?;
    for (key, value) in object {
        let ok = match key.as_str() {
            "type" => {
                let known = |t: &Value| {
                    t.as_str().is_some_and(|t| {
                        [
                            "null", "boolean", "number", "integer", "string", "array", "object",
                        ]
                        .contains(&t)
                    })
                };
                match value {
                    Value::Array(list) => !list.is_empty() && list.iter().all(known),
                    one => known(one),
                }
            }
            "description" => value.is_string(),
            // An annotation for the reader (the value used when the argument is left out).
            "default" => true,
            "minimum" | "maximum" => value.is_number(),
            "additionalProperties" => {
                if value.is_object() {
                    subset(value, &format!("{at}/additionalProperties"))?;
                }
                value.is_boolean() || value.is_object()
            }
            "enum" => value.as_array().is_some_and(|v| !v.is_empty()),
            "required" => value.as_array().is_some_and(|names| {
                names.iter().all(|n| {
                    n.as_str()
                        .is_some_and(|n| object.get("properties").and_then(|p| p.get(n)).is_some())
                })
            }),
            "items" => {
                subset(value, &format!("{at}/items"))?;
                true
            }
            "properties" => {
                let properties = value
                    .as_object()
                    .ok_or(format!("{at}/properties must be an object"))?;
                for (name, sub) in properties {
                    subset(sub, &format!("{at}/properties/{name}"))?;
                }
                true
            }
            other => {
                return Err(format!(
                    "{at}: keyword {other:?} is outside the plain subset"
                ))
            }
        };
        if !ok {
            return Err(format!("{at}: {key} is malformed"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "method": {"type": "string", "enum": ["REML", "DL"], "description": "estimator"},
                "level": {"type": "number", "minimum": 0, "maximum": 1},
                "n": {"type": "integer", "minimum": 1},
                "ids": {"type": "array", "items": {"type": "string"}},
                "records": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "vi": {"type": "number"}},
                    "required": ["id", "vi"],
                    "additionalProperties": false
                }}
            },
            "required": ["method"],
            "additionalProperties": false
        })
    }

    fn kind(value: Value) -> (ViolationKind, String, String) {
        let v = validate(&schema(), &value).unwrap_err();
        (v.kind, v.path, v.message)
    }

    #[test]
    fn undeclared_properties_can_be_held_to_a_schema() {
        let schema = json!({
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "additionalProperties": {"type": ["number", "string"]}
        });
        check_plain_subset(&schema).unwrap();
        validate(&schema, &json!({"id": "a", "weeks": 3, "tester": "blind"})).unwrap();
        let v = validate(&schema, &json!({"id": "a", "weeks": true})).unwrap_err();
        assert_eq!(
            (v.kind, v.path.as_str(), v.message.as_str()),
            (
                ViolationKind::WrongType,
                "weeks",
                "weeks must be a number or a string, got a boolean"
            )
        );
        let v = validate(&schema, &json!({"id": 1})).unwrap_err();
        assert_eq!(v.path, "id");
        let bad = json!({"type": "object", "additionalProperties": {"format": "x"}});
        assert!(check_plain_subset(&bad).is_err());
    }

    #[test]
    fn accepts_valid_values() {
        validate(&schema(), &json!({"method": "REML"})).unwrap();
        validate(
            &schema(),
            &json!({"method": "DL", "level": 0.9, "n": 3, "ids": ["a"], "records": [{"id": "a", "vi": 1}]}),
        )
        .unwrap();
        validate(&schema(), &json!({"method": "DL", "n": 3.0})).unwrap();
    }

    #[test]
    fn reports_each_kind_with_its_path() {
        use ViolationKind::*;
        let (k, p, m) = kind(json!({"method": "REML", "extra": 1}));
        assert_eq!((k, p.as_str()), (UnknownProperty, "extra"));
        assert_eq!(
            m,
            "unknown property \"extra\" in the arguments (allowed: method, level, n, ids, records)"
        );
        let (k, p, m) = kind(json!({"level": 0.5}));
        assert_eq!(
            (k, p.as_str(), m.as_str()),
            (Missing, "method", "method is required")
        );
        let (k, _, m) = kind(json!({"method": "reml"}));
        assert_eq!(
            (k, m.as_str()),
            (
                NotInEnum,
                "method must be one of \"REML\", \"DL\", got \"reml\""
            )
        );
        let (k, p, m) = kind(json!({"method": "REML", "level": "0.9"}));
        assert_eq!(
            (k, p.as_str(), m.as_str()),
            (WrongType, "level", "level must be a number, got a string")
        );
        let (k, _, m) = kind(json!({"method": "REML", "level": 2}));
        assert_eq!(
            (k, m.as_str()),
            (OutOfRange, "level must be at most 1, got 2")
        );
        let (k, _, m) = kind(json!({"method": "REML", "n": 0}));
        assert_eq!((k, m.as_str()), (OutOfRange, "n must be at least 1, got 0"));
        // A tiny value is written as JSON writes it, not as 300 digits (issue 25, item 10).
        let (k, _, m) = kind(json!({"method": "REML", "level": -1e-300}));
        assert_eq!(
            (k, m.as_str()),
            (OutOfRange, "level must be at least 0, got -1e-300")
        );
        let (k, _, m) = kind(json!({"method": "REML", "n": 1.5}));
        assert_eq!(
            (k, m.as_str()),
            (WrongType, "n must be an integer, got a number")
        );
        let (k, p, _) = kind(json!({"method": "REML", "ids": ["a", 3]}));
        assert_eq!((k, p.as_str()), (WrongType, "ids[1]"));
        let (k, p, _) =
            kind(json!({"method": "REML", "records": [{"id": "a", "vi": 1}, {"id": "b"}]}));
        assert_eq!((k, p.as_str()), (Missing, "records[1].vi"));
        let (k, p, _) = kind(json!({"method": "REML", "records": [{"id": "a", "vi": 1, "yi": 2}]}));
        assert_eq!((k, p.as_str()), (UnknownProperty, "records[0].yi"));
        let (k, p, m) = kind(json!([1]));
        assert_eq!(
            (k, p.as_str(), m.as_str()),
            (
                WrongType,
                "",
                "the arguments must be an object, got an array"
            )
        );
    }

    #[test]
    fn plain_subset_check() {
        check_plain_subset(&schema()).unwrap();
        let with_ref = json!({"type": "object", "properties": {"a": {"$ref": "#/x"}}});
        assert!(check_plain_subset(&with_ref)
            .unwrap_err()
            .contains("\"$ref\" is outside"));
        let with_format = json!({"type": "string", "format": "date"});
        assert!(check_plain_subset(&with_format).is_err());
        let bad_required = json!({"type": "object", "properties": {}, "required": ["a"]});
        assert!(check_plain_subset(&bad_required)
            .unwrap_err()
            .contains("required is malformed"));
        assert!(check_plain_subset(&json!({"type": "float"})).is_err());
    }
}
