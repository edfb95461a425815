//! Strict JSON against serde_json. Where the text repeats no key in any object, both must
//! agree exactly: the same value (to the bit, `to_string` tells -0.0 from 0.0) or the same
//! error text, except for a lone surrogate escape, which the strict parser names where
//! serde_json only speaks of a hex escape: it must be one, at the place named. Where the text
//! repeats a key, serde_json keeps the last and the strict parser must refuse, naming a
//! duplicate key. Whether the text repeats a key is decided independently of the strict
//! parser: serde_json's parse, counting every key it reads, against the keys its value holds.
//! `parse_first` finds the same value where the whole text is one.

#![no_main]

use exemplar::strict_json::{self, StrictJsonError};
use libfuzzer_sys::fuzz_target;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::fmt;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = strict_json::parse(text);
    let theirs = serde_json::from_str::<Value>(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b);
            assert_eq!(a.to_string(), b.to_string());
            assert_eq!(
                keys_read(text),
                Some(keys_held(b)),
                "a duplicate was accepted: {text:?}"
            );
        }
        (Err(StrictJsonError::DuplicateKey { key, .. }), Ok(b)) => {
            assert!(
                keys_read(text).unwrap() > keys_held(b),
                "no key repeats in {text:?}"
            );
            // The key repeats in one object of the text (serde_json's value may not hold it:
            // keeping the last of a repeated key, it can drop the subtree that repeats it).
            assert!(
                repeated_keys(text).contains(key),
                "{key:?} repeats in no object of {text:?}"
            );
        }
        (Err(StrictJsonError::DuplicateKey { .. }), Err(_)) => {
            // serde_json failed past the duplicate; nothing to compare.
        }
        (Err(StrictJsonError::ByteOrderMark), Err(_)) => assert!(text.starts_with('\u{FEFF}')),
        (Err(StrictJsonError::TooDeep { line, column }), Err(b)) => {
            assert_eq!((*line, *column), (b.line(), b.column()));
            assert_eq!(
                b.to_string(),
                format!("recursion limit exceeded at line {line} column {column}")
            );
        }
        (
            Err(StrictJsonError::LoneSurrogate {
                escape,
                high,
                line,
                column,
            }),
            Err(b),
        ) => {
            // serde_json's two surrogate messages; the escape named is at the place named,
            // before where serde_json stopped, and is the half it says.
            let message = b.to_string();
            assert!(
                message.starts_with("unexpected end of hex escape")
                    || message.starts_with("lone leading surrogate in hex escape"),
                "{message} for {text:?}"
            );
            assert!((*line, *column) < (b.line(), b.column()), "{text:?}");
            let start = text
                .split_inclusive('\n')
                .take(line - 1)
                .map(str::len)
                .sum::<usize>()
                + column
                - 1;
            assert_eq!(&text[start..start + 6], escape, "{text:?}");
            let n = u16::from_str_radix(&escape[2..], 16).unwrap();
            let range = if *high {
                0xD800..=0xDBFF
            } else {
                0xDC00..=0xDFFF
            };
            assert!(range.contains(&n), "{escape} in {text:?}");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (Err(a), Ok(_)) => panic!("strict refused what serde_json reads: {a:?} in {text:?}"),
        (Ok(_), Err(b)) => panic!("strict read what serde_json refuses: {b} in {text:?}"),
    }

    if let Ok(value) = &ours {
        let (first, end) = strict_json::parse_first(text).expect("a whole value is a first value");
        assert_eq!(&first, value);
        assert!(text[end..].bytes().all(|b| b" \t\n\r".contains(&b)));
    }
});

/// Every object key serde_json reads in `text`, counted; `None` when it is not JSON.
fn keys_read(text: &str) -> Option<usize> {
    let count = Cell::new(0);
    let repeated = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    Counter(&count, &repeated).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(count.get())
}

/// The keys that some object of `text` holds more than once, as serde_json reads them (up to
/// where it stops).
fn repeated_keys(text: &str) -> Vec<String> {
    let count = Cell::new(0);
    let repeated = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = Counter(&count, &repeated).deserialize(&mut de);
    repeated.into_inner()
}

/// The keys of every object in `value`.
fn keys_held(value: &Value) -> usize {
    match value {
        Value::Array(items) => items.iter().map(keys_held).sum(),
        Value::Object(map) => map.len() + map.values().map(keys_held).sum::<usize>(),
        _ => 0,
    }
}

/// Counts the keys read, and records each key an object repeats.
#[derive(Clone, Copy)]
struct Counter<'a>(&'a Cell<usize>, &'a RefCell<Vec<String>>);

impl<'de> DeserializeSeed<'de> for Counter<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counter<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            self.0.set(self.0.get() + 1);
            if !seen.insert(key.clone()) {
                self.1.borrow_mut().push(key);
            }
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}
