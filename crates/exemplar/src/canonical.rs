//! Canonical JSON: one byte string per JSON value, so that hashes of values are reproducible.
//!
//! The form is serde_json's compact output (no white space; strings escaped as serde_json
//! escapes them; numbers as serde_json prints them, e.g. `19`, `0.95`, `1e-7`) with the keys
//! of every object sorted by their UTF-8 bytes, at every depth. It does not depend on the
//! order in which keys arrived.

use serde_json::Value;

/// The canonical JSON text of `value`.
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// Lower-case hex SHA-256 of the canonical JSON text of `value`.
pub fn sha256_hex(value: &Value) -> String {
    crate::sha256_hex(to_string(value).as_bytes())
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            // The keys of an object are distinct, so an unstable sort gives the one order.
            // Sorting the keys alone (then looking each up) shares the engine's sort of ids
            // (`meta_analysis::sort_ids`) in the page's WebAssembly.
            let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
            meta_analysis::sort_ids(&mut keys);
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key).to_string());
                out.push(':');
                write(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorts_keys_at_every_depth_and_drops_white_space() {
        let a: Value =
            serde_json::from_str(r#"{"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "é\n"}}"#)
                .unwrap();
        assert_eq!(
            to_string(&a),
            r#"{"a":{"x":"é\n","y":[1,{"c":3,"d":2}]},"b":1}"#
        );
        let b = json!({"a": {"x": "é\n", "y": [1, {"c": 3, "d": 2}]}, "b": 1});
        assert_eq!(to_string(&a), to_string(&b));
        assert_eq!(sha256_hex(&a), sha256_hex(&b));
    }

    #[test]
    fn scalars_print_as_serde_json_does() {
        assert_eq!(to_string(&json!(null)), "null");
        assert_eq!(to_string(&json!(true)), "true");
        assert_eq!(to_string(&json!(0.95)), "0.95");
        assert_eq!(to_string(&json!(19)), "19");
        assert_eq!(to_string(&json!("s04")), "\"s04\"");
    }
}
