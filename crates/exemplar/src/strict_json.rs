//! JSON parsing that refuses ambiguous text: a duplicate key is an error.
//!
//! `serde_json` resolves a repeated key last-wins, so `{"method":"DL","method":"REML"}` means
//! REML and an answer with two `overall` objects scores by whichever comes second. Here the
//! same text is an error naming the key and where it is. Everything else is exactly
//! `serde_json::from_str::<Value>`: the same parser (with this crate's `preserve_order` and
//! `float_roundtrip` features, so numbers parse to the same `f64`), the same syntax errors and
//! the same recursion limit ([`MAX_DEPTH`] nested arrays or objects), so hostile nesting is an error,
//! not a stack overflow.
//!
//! Keys are compared after unescaping: `{"a":1,"\u0061":2}` repeats `a`.

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess};
use serde_json::{Map, Number, Value};
use std::cell::Cell;
use std::fmt;

/// Why a text is not one unambiguous JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrictJsonError {
    /// Not JSON: `message` is serde_json's description (e.g. `expected value`, `trailing
    /// characters`), without the position.
    Syntax {
        message: String,
        line: usize,
        column: usize,
    },
    /// An object has the same key twice; the position is the second one's closing quote.
    DuplicateKey {
        key: String,
        line: usize,
        column: usize,
    },
    /// More than [`MAX_DEPTH`] arrays or objects inside one another.
    TooDeep { line: usize, column: usize },
    /// The text begins with U+FEFF, which is not JSON. A caller that accepts a byte order mark
    /// strips it before parsing.
    ByteOrderMark,
    /// A `\uXXXX` escape of half a UTF-16 surrogate pair without its other half: a high
    /// surrogate (`\uD800`–`\uDBFF`) not followed by a low one, or a low one (`\uDC00`–
    /// `\uDFFF`) with no high one before it. The text names no character. `escape` is the
    /// escape as written; the position is its backslash. (serde_json says "unexpected end
    /// of hex escape" or "lone leading surrogate in hex escape", the latter for a low
    /// surrogate too, at the character after.)
    LoneSurrogate {
        escape: String,
        high: bool,
        line: usize,
        column: usize,
    },
}

/// How deep arrays and objects may nest: serde_json's recursion limit of 128 refuses the
/// 128th array or object inside the others.
pub const MAX_DEPTH: usize = 127;

/// Keys longer than this are shortened in messages; the error keeps the whole key.
const KEY_SHOWN_CHARS: usize = 60;

impl fmt::Display for StrictJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrictJsonError::Syntax {
                message,
                line,
                column,
            } => write!(f, "{message} at line {line} column {column}"),
            StrictJsonError::DuplicateKey { key, line, column } => {
                write!(
                    f,
                    "duplicate key {} at line {line} column {column}",
                    shown(key)
                )
            }
            StrictJsonError::TooDeep { line, column } => write!(
                f,
                "arrays and objects are nested more than {MAX_DEPTH} deep at line {line} \
column {column}"
            ),
            StrictJsonError::LoneSurrogate {
                escape,
                high,
                line,
                column,
            } => {
                let half = if *high {
                    "a high surrogate not followed by a low surrogate \\uDC00-\\uDFFF"
                } else {
                    "a low surrogate not preceded by a high surrogate \\uD800-\\uDBFF"
                };
                write!(
                    f,
                    "lone surrogate {escape} ({half}: half of a UTF-16 pair, no character) at \
line {line} column {column}"
                )
            }
            StrictJsonError::ByteOrderMark => f.write_str(
                "the text begins with a byte order mark (BOM, U+FEFF), which is not part of JSON",
            ),
        }
    }
}

impl std::error::Error for StrictJsonError {}

/// A key as JSON text (quoted, control characters escaped), shortened when long.
fn shown(key: &str) -> String {
    if key.chars().count() <= KEY_SHOWN_CHARS {
        Value::from(key).to_string()
    } else {
        let head: String = key.chars().take(KEY_SHOWN_CHARS).collect();
        format!("{}… (a {}-byte key)", Value::from(head), key.len())
    }
}

/// Parses `text` as exactly one JSON value, like `serde_json::from_str::<Value>`, except that
/// a key repeated in any object is an error.
pub fn parse(text: &str) -> Result<Value, StrictJsonError> {
    if text.starts_with('\u{FEFF}') {
        return Err(StrictJsonError::ByteOrderMark);
    }
    let duplicate = Cell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    ValueSeed {
        duplicate: &duplicate,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value))
    .map_err(|e| classify(text, e, duplicate.take()))
}

/// Parses the JSON value at the start of `text` (after white space) and returns it with the
/// byte offset just past it; what follows is left to the caller, who can then say what it is.
/// Errors as [`parse`] would report them for the text up to that offset.
pub fn parse_first(text: &str) -> Result<(Value, usize), StrictJsonError> {
    // Find where the first value ends without building it (serde_json skips values without
    // recursion), then parse exactly that prefix. Positions in the prefix are positions in
    // `text`. If even the skim fails, parsing the whole text reports the first problem.
    let mut skim = serde_json::Deserializer::from_str(text).into_iter::<IgnoredAny>();
    match skim.next() {
        Some(Ok(_)) => {
            let end = skim.byte_offset();
            parse(&text[..end]).map(|value| (value, end))
        }
        _ => parse(text).map(|value| (value, text.len())),
    }
}

fn classify(text: &str, e: serde_json::Error, duplicate: Option<String>) -> StrictJsonError {
    let (line, column) = (e.line(), e.column());
    if let Some(key) = duplicate {
        return StrictJsonError::DuplicateKey { key, line, column };
    }
    let full = e.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    if message == "recursion limit exceeded" {
        StrictJsonError::TooDeep { line, column }
    } else if let Some(lone) = lone_surrogate(text, message, line, column) {
        lone
    } else {
        StrictJsonError::Syntax {
            message: message.to_string(),
            line,
            column,
        }
    }
}

/// The lone surrogate behind serde_json's two surrogate messages, found from where serde_json
/// stopped (its line and column count bytes; the column is the last byte read):
/// - "unexpected end of hex escape": a high surrogate escape, then one more byte (`\uD800"`)
///   or a backslash and one more byte (`\uD800\n`);
/// - "lone leading surrogate in hex escape": a low surrogate escape just read (`\uDC00`), or
///   a high one followed by an escape that is not a low one (`\uD800\u0041`).
fn lone_surrogate(
    text: &str,
    message: &str,
    line: usize,
    column: usize,
) -> Option<StrictJsonError> {
    let bytes = text.as_bytes();
    let line_start = match line {
        0 | 1 => 0,
        _ => {
            bytes
                .iter()
                .enumerate()
                .filter(|(_, &b)| b == b'\n')
                .nth(line - 2)?
                .0
                + 1
        }
    };
    let end = (line_start + column).min(bytes.len());
    let escape_at = |start: usize| -> Option<u16> {
        match bytes.get(start..start + 6)? {
            [b'\\', b'u', hex @ ..] => u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok(),
            _ => None,
        }
    };
    let is_high = |n: u16| (0xD800..=0xDBFF).contains(&n);
    let is_low = |n: u16| (0xDC00..=0xDFFF).contains(&n);
    let (start, high) = match message {
        "unexpected end of hex escape" => (
            [7, 8]
                .into_iter()
                .filter_map(|back| end.checked_sub(back))
                .find(|&start| escape_at(start).is_some_and(is_high))?,
            true,
        ),
        "lone leading surrogate in hex escape" => {
            let last = end.checked_sub(6)?;
            if escape_at(last).is_some_and(is_low) {
                (last, false)
            } else {
                let first = end.checked_sub(12)?;
                escape_at(first).filter(|&n| is_high(n))?;
                (first, true)
            }
        }
        _ => return None,
    };
    let before = &bytes[..start];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let column = start
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
        + 1;
    Some(StrictJsonError::LoneSurrogate {
        escape: text[start..start + 6].to_string(),
        high,
        line,
        column,
    })
}

/// Builds a `Value` as serde_json's own visitor does, refusing a repeated key. The key goes
/// to `duplicate` so the error stays typed; serde_json's error only carries text, and
/// serde_json itself adds the line and column to the error raised here.
#[derive(Clone, Copy)]
struct ValueSeed<'a> {
    duplicate: &'a Cell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> de::Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        // serde_json refuses out-of-range numbers before this; null mirrors its own visitor.
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                let message = format!("duplicate key {}", shown(&key));
                self.duplicate.set(Some(key));
                return Err(de::Error::custom(message));
            }
            let value = map.next_value_seed(self)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn duplicate(text: &str) -> (String, usize, usize) {
        match parse(text) {
            Err(StrictJsonError::DuplicateKey { key, line, column }) => (key, line, column),
            other => panic!("{text:?}: expected a duplicate key, got {other:?}"),
        }
    }

    #[test]
    fn a_repeated_key_is_an_error_naming_it_and_where() {
        let text = r#"{"method":"DL","method":"REML"}"#;
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap()["method"],
            "REML"
        );
        let e = parse(text).unwrap_err();
        assert_eq!(
            e,
            StrictJsonError::DuplicateKey {
                key: "method".into(),
                line: 1,
                column: 23
            }
        );
        assert_eq!(
            e.to_string(),
            r#"duplicate key "method" at line 1 column 23"#
        );
        // The line and column count from the text, across lines.
        assert_eq!(
            duplicate("{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3\n}"),
            ("a".into(), 4, 5)
        );
    }

    #[test]
    fn the_first_repeat_is_named_even_where_a_later_one_replaces_its_subtree() {
        // serde_json keeps the last "c", whose value holds no "k": the repeat of "k" comes
        // first in the text and is the one named (the fuzzer's oracle once looked for "k" in
        // serde_json's value).
        let text = r#"{"c":[{"k":1,"k":2}],"c":{"a":3}}"#;
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            json!({"c": {"a": 3}})
        );
        assert_eq!(duplicate(text), ("k".into(), 1, 16));
    }

    #[test]
    fn duplicates_are_found_at_any_depth() {
        assert_eq!(
            duplicate(r#"{"records":[{"id":"s01"},{"id":"s02","yi":1,"id":"s03"}]}"#).0,
            "id"
        );
        assert_eq!(duplicate(r#"[[1,{"x":{"y":[{"z":1,"z":2}]}}]]"#).0, "z");
        assert_eq!(duplicate(r#"{"a":{},"a":{}}"#).0, "a");
        // Keys compare after unescaping.
        assert_eq!(duplicate(r#"{"a":1,"\u0061":2}"#).0, "a");
    }

    #[test]
    fn the_same_key_in_sibling_or_nested_objects_is_not_a_duplicate() {
        let text = r#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"c":{"a":3}}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
        assert_eq!(
            parse(r#"{"a":1,"A":2,"a ":3}"#)
                .unwrap()
                .as_object()
                .unwrap()
                .len(),
            3
        );
    }

    #[test]
    fn long_and_odd_keys_are_shown_readably() {
        let key = "k".repeat(1000);
        let text = format!(r#"{{"{key}":1,"{key}":2}}"#);
        let e = parse(&text).unwrap_err();
        let message = e.to_string();
        assert!(message.contains("… (a 1000-byte key)"), "{message}");
        assert!(message.len() < 150, "{message}");
        assert!(matches!(e, StrictJsonError::DuplicateKey { key: k, .. } if k == key));
        let e = parse("{\"\\n\\u0000\":1,\"\\n\\u0000\":2}").unwrap_err();
        assert!(
            e.to_string().starts_with(r#"duplicate key "\n\u0000" at"#),
            "{e}"
        );
    }

    /// Issue 25, item 10: serde_json calls `"\uD800"` an "unexpected end of hex escape" and a
    /// lone `\uDC00` a "lone leading surrogate"; the error names the escape and where it is.
    #[test]
    fn a_lone_surrogate_is_named_with_its_escape_and_position() {
        for (text, escape, high, line, column) in [
            (r#""\ud800""#, r"\ud800", true, 1, 2),
            (r#"{"method":"\uD800"}"#, r"\uD800", true, 1, 12),
            (r#"{"method":"\uD800x"}"#, r"\uD800", true, 1, 12),
            (r#"{"method":"\uD800é"}"#, r"\uD800", true, 1, 12),
            (r#"["\uDBFF\n"]"#, r"\uDBFF", true, 1, 3),
            (r#"{"a":"\udc00"}"#, r"\udc00", false, 1, 7),
            (r#"["\ud800\u0041"]"#, r"\ud800", true, 1, 3),
            (r#"["\ud800\ud800\udc00"]"#, r"\ud800", true, 1, 3),
            ("[\n  \"ok\",\n  \"x\\uDFFF\"]", r"\uDFFF", false, 3, 5),
            ("[\"\\uD800\n\"]", r"\uD800", true, 1, 3),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(
                e,
                StrictJsonError::LoneSurrogate {
                    escape: escape.into(),
                    high,
                    line,
                    column
                },
                "{text}"
            );
            assert!(serde_json::from_str::<Value>(text).is_err());
        }
        assert_eq!(
            parse(r#"{"method":"\uD800"}"#).unwrap_err().to_string(),
            "lone surrogate \\uD800 (a high surrogate not followed by a low surrogate \
\\uDC00-\\uDFFF: half of a UTF-16 pair, no character) at line 1 column 12"
        );
        assert!(parse(r#""\uDC00""#)
            .unwrap_err()
            .to_string()
            .starts_with("lone surrogate \\uDC00 (a low surrogate not preceded by a high"));
        // A proper pair is one character; an escaped backslash before "uD800" is no escape.
        assert_eq!(parse(r#""\ud83d\ude00""#).unwrap(), json!("😀"));
        assert_eq!(parse(r#""\\uD800""#).unwrap(), json!("\\uD800"));
    }

    #[test]
    fn nesting_deeper_than_128_is_an_error_not_a_stack_overflow() {
        let n = 100_000;
        let deep = format!("{}{}", "[".repeat(n), "]".repeat(n));
        let e = parse(&deep).unwrap_err();
        assert_eq!(
            e,
            StrictJsonError::TooDeep {
                line: 1,
                column: 128
            }
        );
        assert!(e.to_string().contains("nested more than 127 deep"), "{e}");
        let objects = format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        assert!(matches!(
            parse(&objects),
            Err(StrictJsonError::TooDeep { .. })
        ));
        assert!(matches!(
            parse_first(&deep),
            Err(StrictJsonError::TooDeep { .. })
        ));
        // 127 deep is fine and 128 is not, as in serde_json.
        let nested = |n| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let ok = nested(MAX_DEPTH);
        assert_eq!(
            parse(&ok).unwrap(),
            serde_json::from_str::<Value>(&ok).unwrap()
        );
        assert!(parse(&nested(MAX_DEPTH + 1)).is_err());
        assert!(serde_json::from_str::<Value>(&nested(MAX_DEPTH + 1)).is_err());
    }

    #[test]
    fn a_byte_order_mark_is_named() {
        let e = parse("\u{FEFF}{}").unwrap_err();
        assert_eq!(e, StrictJsonError::ByteOrderMark);
        assert!(e.to_string().contains("byte order mark (BOM, U+FEFF)"));
        assert!(serde_json::from_str::<Value>("\u{FEFF}{}").is_err());
    }

    #[test]
    fn syntax_errors_are_serde_jsons_without_the_position() {
        let e = parse("{\"a\": 1,}").unwrap_err();
        assert_eq!(
            e,
            StrictJsonError::Syntax {
                message: "trailing comma".into(),
                line: 1,
                column: 9
            }
        );
        assert_eq!(
            e.to_string(),
            serde_json::from_str::<Value>("{\"a\": 1,}")
                .unwrap_err()
                .to_string()
        );
        let e = parse("{} {}").unwrap_err();
        assert!(
            matches!(e, StrictJsonError::Syntax { message, .. } if message == "trailing characters")
        );
    }

    #[test]
    fn parse_first_returns_the_value_and_where_it_ends() {
        assert_eq!(
            parse_first(" {\"a\":1} rest").unwrap(),
            (json!({"a": 1}), 8)
        );
        assert_eq!(parse_first("[1] [2]").unwrap(), (json!([1]), 3));
        assert_eq!(duplicate_first(r#"{"a":1,"a":2} {"#), "a");
        assert!(matches!(
            parse_first("{\"a\":"),
            Err(StrictJsonError::Syntax { .. })
        ));
        assert!(matches!(
            parse_first(""),
            Err(StrictJsonError::Syntax { .. })
        ));
        // A number out of range is refused as serde_json refuses it, not skipped.
        assert!(matches!(
            parse_first("[1e999] x"),
            Err(StrictJsonError::Syntax { .. })
        ));
        assert!(matches!(
            parse_first(r#"["\ud800"] x"#),
            Err(StrictJsonError::LoneSurrogate { column: 3, .. })
        ));
    }

    fn duplicate_first(text: &str) -> String {
        match parse_first(text) {
            Err(StrictJsonError::DuplicateKey { key, .. }) => key,
            other => panic!("{text:?}: {other:?}"),
        }
    }

    #[test]
    fn key_order_and_numbers_are_kept_as_serde_json_keeps_them() {
        let text = r#"{"z":1,"a":-2,"m":0.1,"b":1e400000000000000000000}"#;
        assert!(parse(text).is_err());
        let text = r#"{"z":1,"a":-2,"m":0.30000000000000004,"b":-0,"c":18446744073709551616}"#;
        let value = parse(text).unwrap();
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "m", "b", "c"]);
        assert_eq!(
            value.to_string(),
            serde_json::from_str::<Value>(text).unwrap().to_string()
        );
    }

    /// Same Ok/Err, and the same value to the bit (`to_string` tells -0.0 from 0.0).
    fn agrees(text: &str) -> Result<(), TestCaseError> {
        let ours = parse(text);
        let theirs = serde_json::from_str::<Value>(text);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a, b);
                prop_assert_eq!(a.to_string(), b.to_string());
            }
            (Err(StrictJsonError::ByteOrderMark), Err(_)) => {}
            (Err(StrictJsonError::LoneSurrogate { line, column, .. }), Err(b)) => {
                let message = b.to_string();
                prop_assert!(message.contains("hex escape"), "{text:?}: {message}");
                // The escape starts before where serde_json stopped.
                prop_assert!((*line, *column) < (b.line(), b.column()) || *line < b.line());
            }
            (Err(StrictJsonError::Syntax { message, .. }), Err(_))
                if message.contains("hex escape") =>
            {
                prop_assert!(false, "{text:?}: a surrogate error not named: {message}");
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            _ => prop_assert!(false, "{text:?}: {ours:?} vs {theirs:?}"),
        }
        Ok(())
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let number = prop_oneof![
            any::<f64>().prop_filter_map("finite", |x| Number::from_f64(x).map(Value::Number)),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
        ];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            number,
            any::<String>().prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                // A Map has no duplicate keys, so neither has its text.
                prop::collection::vec(("[a-c\u{e9}\"\\\\]{0,2}", inner), 0..6)
                    .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            ]
        })
    }

    /// Number texts serde_json parses in different ways: integers past u64, long mantissas,
    /// large and small exponents, negative zero.
    fn number_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "-?(0|[1-9][0-9]{0,40})(\\.[0-9]{1,40})?([eE][+-]?[0-9]{1,4})?",
            any::<f64>().prop_map(|x| format!("{x:e}")),
            any::<f64>().prop_map(|x| format!("{x:?}")),
            "[-+0-9.eE]{1,12}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn agrees_with_serde_json_on_values_without_duplicates(value in json_value(), cut in any::<prop::sample::Index>()) {
            let compact = value.to_string();
            agrees(&compact)?;
            agrees(&serde_json::to_string_pretty(&value).unwrap())?;
            // Cutting the text short cannot complete a key, so it adds no duplicate.
            let mut end = cut.index(compact.len() + 1);
            while !compact.is_char_boundary(end) {
                end -= 1;
            }
            agrees(&compact[..end])?;
            let found = matches!(parse(&compact), Err(StrictJsonError::DuplicateKey { .. }));
            prop_assert!(!found, "a false duplicate in {}", compact);
        }

        #[test]
        fn agrees_with_serde_json_on_numbers(text in number_text()) {
            agrees(&text)?;
            agrees(&format!("[{text}]"))?;
            agrees(&format!("{{\"x\":{text}}}"))?;
        }

        #[test]
        fn agrees_with_serde_json_on_text(text in prop_oneof![
            ".{0,64}",
            "[\\[\\]{}\",:0-9a-z\\\\ .eE+\u{feff}-]{0,40}",
            "\"(\\\\u[0-9a-fA-FdD]{4}|[a\\\\\"/bfnrtu]){0,6}\"",
        ]) {
            match parse(&text) {
                // Random text may repeat a key; only then may the two differ.
                // Random text may repeat a key; then the two may differ. That no duplicate is
                // reported falsely is what the generated values above check.
                Err(StrictJsonError::DuplicateKey { .. }) => {}
                _ => agrees(&text)?,
            }
        }
    }
}
