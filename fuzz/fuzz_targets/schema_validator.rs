//! The schema validator with an arbitrary schema and value: the input is two JSON texts one
//! after the other (the schema, then the value). Validation answers Ok or the first violation
//! with a message and a path; a schema of the plain subset is checked without panicking too,
//! and the empty schema accepts every value.

#![no_main]

use exemplar::schema_check;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

fuzz_target!(|data: &[u8]| {
    let mut values = serde_json::Deserializer::from_slice(data).into_iter::<Value>();
    let Some(Ok(schema)) = values.next() else {
        return;
    };
    let value = match values.next() {
        Some(Ok(value)) => value,
        Some(Err(_)) => return,
        None => Value::Null,
    };

    if let Err(violation) = schema_check::validate(&schema, &value) {
        assert!(!violation.message.is_empty());
        assert_eq!(violation.to_string(), violation.message);
    }
    assert_eq!(
        schema_check::validate(&schema, &value),
        schema_check::validate(&schema, &value)
    );
    if let Err(reason) = schema_check::check_plain_subset(&schema) {
        assert!(!reason.is_empty());
    }
    assert!(schema_check::validate(&json!({}), &value).is_ok());
    assert!(schema_check::validate(&json!({}), &schema).is_ok());
});
