//! The one rule for text a caller supplied (record ids, column names and levels, labels) where
//! a person reads it: the printed summaries (`exemplar call --text`, the MCP server's text
//! content, the page), the page's result tables and the plots' labels.
//!
//! - [`printable`]: a character that is not text but an instruction to whatever shows it is
//!   written as a visible escape, `\u` and four lowercase hex digits (U+202E reads `\u202e`,
//!   as JSON writes it): the C0 controls (U+0000–U+001F, so also newline, tab and the ESC
//!   that starts a terminal's escape sequence), DEL (U+007F), the C1 controls
//!   (U+0080–U+009F, among them the 8-bit CSI and OSC), the line and paragraph separators
//!   (U+2028, U+2029) and the bidirectional controls ([`is_direction_control`]). A newline
//!   in an id then cannot forge a line of a summary, an OSC 52 sequence cannot write a
//!   terminal's clipboard, and a right-to-left override cannot make "0.1318" read "8131.0".
//!   A backslash is left as it is, so an id that holds the six characters `\u202e` prints
//!   as one that held U+202E; the JSON tells them apart.
//! - [`label`]: a name in a table's row or a plot's label column, escaped and cut to at
//!   most [`LABEL_CHARS`] characters, the last one "…" (the JSON keeps it whole). A table
//!   pads every row to its longest name, so without the cut one long id would be written
//!   once per row: a 0.17 MB call answered 200 MB (issue 41, item 3).

use std::borrow::Cow;

/// The most characters of a name in a printed table's rows (ids, coefficient names, subgroup
/// levels) and of an ilab cell in a forest plot; the plots' other name labels (a bubble
/// plot's moderator, a subgroup's level) keep as many. Long enough for metafor's
/// coefficient names of a factor (`factor(tester)blind`, 19).
pub const LABEL_CHARS: usize = 24;

/// Whether `c` is a Unicode bidirectional control (UAX #9): U+061C ARABIC LETTER MARK,
/// U+200E/U+200F LEFT-TO-RIGHT and RIGHT-TO-LEFT MARK, the embeddings and overrides
/// U+202A–U+202E and the isolates U+2066–U+2069.
pub fn is_direction_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

/// Whether [`printable`] escapes `c`: a C0 or C1 control, DEL, a line or paragraph separator
/// or a direction control.
pub fn is_unprintable(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') || is_direction_control(c)
}

/// `c` as the escape [`printable`] writes: `\u` and four lowercase hex digits (every
/// character it escapes is in the Basic Multilingual Plane).
pub fn escape(c: char) -> String {
    format!("\\u{:04x}", c as u32)
}

/// `text` with every character [`is_unprintable`] holds written as its escape ([`escape`]);
/// `text` itself, not copied, when it has none.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.contains(is_unprintable) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unprintable(c) {
            out.push_str(&escape(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// JSON text (as serde_json writes it) with the characters [`printable`] escapes written as
/// JSON `\uXXXX` escapes, but for the white space between tokens (a pretty-printed line
/// break): the same JSON value. serde_json escapes the C0 controls inside strings but writes
/// the C1 controls, DEL and the direction controls raw; outside strings JSON allows none of
/// them, so each one escaped here is inside a string.
pub fn printable_json(json: &str) -> Cow<'_, str> {
    let escaped = |c: char| is_unprintable(c) && !matches!(c, '\n' | '\r' | '\t');
    if !json.contains(escaped) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if escaped(c) {
            out.push_str(&escape(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// What [`cut`] keeps of `text`: its first `max_chars` − 1 characters when it is longer than
/// `max_chars` (the "…" goes after them), `None` when it is not. The plots' labels, which
/// isolate the kept part before the "…", are cut by it.
pub fn kept(text: &str, max_chars: usize) -> Option<&str> {
    text.char_indices().nth(max_chars)?;
    let end = text
        .char_indices()
        .nth(max_chars.saturating_sub(1))
        .map_or(text.len(), |(i, _)| i);
    Some(&text[..end])
}

/// `text` cut to at most `max_chars` characters (`max_chars` ≥ 1), the last one "…" when
/// cut; `text` itself when it is no longer.
pub fn cut(text: &str, max_chars: usize) -> Cow<'_, str> {
    match kept(text, max_chars) {
        None => Cow::Borrowed(text),
        Some(head) => Cow::Owned(format!("{head}…")),
    }
}

/// `text` as a label: escaped ([`printable`]), then cut to `max_chars` characters ([`cut`]),
/// so the escapes count towards its width. Reads at most `max_chars` + 1 characters of
/// `text`, however long it is.
pub fn label(text: &str, max_chars: usize) -> String {
    let head = match text.char_indices().nth(max_chars + 1) {
        Some((end, _)) => &text[..end],
        None => text,
    };
    cut(&printable(head), max_chars).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_direction_controls_are_written_as_visible_escapes() {
        assert_eq!(printable("s01"), "s01");
        assert!(matches!(printable("Frimodt-Møller 1973"), Cow::Borrowed(_)));
        assert_eq!(printable("a\u{202E}"), "a\\u202e");
        assert_eq!(printable("a\nb\tc\r"), "a\\u000ab\\u0009c\\u000d");
        // OSC 52 (write the clipboard), ended by BEL, and the 8-bit CSI.
        assert_eq!(
            printable("\u{1b}]52;c;aGk=\u{7}x\u{9b}2J"),
            "\\u001b]52;c;aGk=\\u0007x\\u009b2J"
        );
        for c in [
            '\u{0}', '\u{7f}', '\u{85}', '\u{61C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}',
            '\u{202C}', '\u{202D}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{2028}',
            '\u{2029}',
        ] {
            let text = printable(&c.to_string()).into_owned();
            assert_eq!(text, format!("\\u{:04x}", c as u32));
            assert!(!text.contains(is_unprintable));
        }
        // Right-to-left letters are text, not controls.
        assert_eq!(printable("\u{5D0}\u{5D1}"), "\u{5D0}\u{5D1}");
    }

    #[test]
    fn json_keeps_its_value_and_its_line_breaks() {
        let value = serde_json::json!({"id": "a\u{9b}2J\u{202e}\u{7f}\n\u{1b}", "k": [1, 2]});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let escaped = printable_json(&text);
        assert!(!escaped.contains(|c: char| is_unprintable(c) && c != '\n'));
        assert_eq!(escaped.lines().count(), text.lines().count());
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back, value);
        assert!(matches!(printable_json("{\"a\": 1}"), Cow::Borrowed(_)));
    }

    #[test]
    fn labels_are_cut_after_escaping_and_read_only_their_head() {
        assert_eq!(cut("abcdefgh", 5), "abcd…");
        assert_eq!(cut("abcde", 5), "abcde");
        assert_eq!(cut("ééééééé", 3), "éé…");
        assert_eq!(label("s01", LABEL_CHARS), "s01");
        assert_eq!(label("a\u{202E}", 8), "a\\u202e");
        // Cut after escaping: an escape may be cut too, never a control written.
        assert_eq!(label("a\u{202E}b", 7), "a\\u202…");
        let long = "x".repeat(1_000_000);
        assert_eq!(label(&long, LABEL_CHARS).chars().count(), LABEL_CHARS);
        assert_eq!(
            label(&"y".repeat(LABEL_CHARS), LABEL_CHARS),
            "y".repeat(LABEL_CHARS)
        );
    }
}
