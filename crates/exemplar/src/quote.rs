//! Quoting caller-supplied text in messages: at most a short prefix, so that a refused
//! 20 MB value is not echoed whole into an error (and from there into the ledger and the page).

/// The most characters of a value a message quotes.
pub const MAX_QUOTED_CHARS: usize = 60;

/// `text` as a quoted string literal (Rust's escaping, so control and direction characters
/// show as escapes), cut after [`MAX_QUOTED_CHARS`] characters with a note of its length.
pub fn quoted(text: &str) -> String {
    let count = text.chars().count();
    if count <= MAX_QUOTED_CHARS {
        return format!("{text:?}");
    }
    let prefix: String = text.chars().take(MAX_QUOTED_CHARS).collect();
    format!("{prefix:?}… ({count} characters in all)")
}

/// A JSON value as compact text, cut the same way.
pub fn json_value(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => quoted(text),
        other => {
            let text = other.to_string();
            let count = text.chars().count();
            if count <= MAX_QUOTED_CHARS {
                text
            } else {
                let prefix: String = text.chars().take(MAX_QUOTED_CHARS).collect();
                format!("{prefix}… ({count} characters in all)")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_quoted_whole_and_long_text_is_cut() {
        assert_eq!(quoted("s04"), "\"s04\"");
        assert_eq!(quoted("a\u{202e}b"), "\"a\\u{202e}b\"");
        let long = "x".repeat(20_000_000);
        let q = quoted(&long);
        assert!(q.len() < 120, "{q}");
        assert!(q.ends_with("… (20000000 characters in all)"));
        assert_eq!(json_value(&serde_json::json!(1.5)), "1.5");
        let array = serde_json::json!(vec![1; 1000]);
        assert!(json_value(&array).ends_with("(2001 characters in all)"));
    }
}
