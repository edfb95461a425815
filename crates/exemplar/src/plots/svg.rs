//! A tiny XML writer for SVG: every attribute value and text node is escaped, and output is
//! indented one element per line so golden files diff line by line.

use std::fmt::Write;

/// Escapes `s` for XML text and attribute values. Characters XML 1.0 cannot represent at all
/// (most C0 controls, lone U+FFFE/U+FFFF) become U+FFFD, so user-supplied ids can never make
/// the document ill-formed.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE.
const FSI: char = '\u{2068}';
const PDI: char = '\u{2069}';

/// `s` as a bidirectional isolate (Unicode Bidirectional Algorithm, UAX #9): wrapped in FSI …
/// PDI, so that a U+202E RIGHT-TO-LEFT OVERRIDE, a right-to-left letter or any other
/// directional character in it orders only `s` itself, never the text around it. The closing
/// PDI also ends every embedding or override `s` opened. Isolate controls inside `s` are
/// balanced first (a stray PDI dropped, an unclosed isolate closed), so `s` cannot end the
/// isolate early. Only ASCII strings are returned as they are: ASCII holds no right-to-left
/// letter and no directional control, so it cannot reorder anything.
///
/// Isolating characters rather than a `unicode-bidi="isolate"` attribute: they act wherever
/// the text goes, also in `<title>` tooltips and the accessible name and description, which
/// no SVG attribute reaches, and Chromium (like every UAX #9 implementation since Unicode 6.3)
/// honours them in SVG text.
pub fn isolate(s: &str) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    out.push(FSI);
    let mut open = 0usize;
    for c in s.chars() {
        match c {
            // LEFT-TO-RIGHT, RIGHT-TO-LEFT and FIRST STRONG ISOLATE.
            '\u{2066}' | '\u{2067}' | FSI => {
                open += 1;
                out.push(c);
            }
            PDI if open == 0 => {}
            PDI => {
                open -= 1;
                out.push(c);
            }
            c => out.push(c),
        }
    }
    for _ in 0..=open {
        out.push(PDI);
    }
    out
}

/// `x` with a fixed number of decimals, without a negative zero ("-0.00" → "0.00").
pub fn fixed(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => s,
    }
}

/// A pixel coordinate as written in the SVG: two decimals.
pub fn px(x: f64) -> String {
    fixed(x, 2)
}

/// The value of a pixel coordinate as written (what a reader of the SVG sees), for the numbers.
pub fn px_value(x: f64) -> f64 {
    px(x).parse().expect("a formatted finite number parses")
}

/// An SVG document being written.
#[derive(Default)]
pub struct Writer {
    out: String,
    depth: usize,
}

impl Writer {
    fn start_tag(&mut self, name: &str, attrs: &[(&str, &str)]) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        self.out.push('<');
        self.out.push_str(name);
        for (key, value) in attrs {
            let _ = write!(self.out, " {key}=\"{}\"", escape(value));
        }
    }

    /// `<name attrs>`; children follow until [`Writer::close`].
    pub fn open(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.start_tag(name, attrs);
        self.out.push_str(">\n");
        self.depth += 1;
    }

    /// `</name>`.
    pub fn close(&mut self, name: &str) {
        self.depth -= 1;
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        let _ = writeln!(self.out, "</{name}>");
    }

    /// `<name attrs/>`.
    pub fn empty(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.start_tag(name, attrs);
        self.out.push_str("/>\n");
    }

    /// `<name attrs>text</name>` on one line.
    pub fn text(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) {
        self.start_tag(name, attrs);
        let _ = writeln!(self.out, ">{}</{name}>", escape(text));
    }

    pub fn finish(self) -> String {
        debug_assert_eq!(self.depth, 0, "every opened element is closed");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_drops_unrepresentable_characters() {
        assert_eq!(
            escape("<a href=\"x\">&'\u{1}\u{FFFF}"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\u{FFFD}\u{FFFD}"
        );
        assert_eq!(escape("τ² = 0.1\n"), "τ² = 0.1\n");
    }

    #[test]
    fn isolates_all_but_ascii_and_balances_isolates() {
        assert_eq!(isolate("s04"), "s04");
        assert_eq!(isolate("a\u{202E}b"), "\u{2068}a\u{202E}b\u{2069}");
        // A stray PDI would close the isolate early and let the override after it out.
        assert_eq!(isolate("x\u{2069}\u{202E}y"), "\u{2068}x\u{202E}y\u{2069}");
        // An unclosed isolate inside is closed before the outer one.
        assert_eq!(
            isolate("\u{2067}\u{5D0}"),
            "\u{2068}\u{2067}\u{5D0}\u{2069}\u{2069}"
        );
        assert_eq!(
            isolate("\u{2066}a\u{2069}b\u{2069}"),
            "\u{2068}\u{2066}a\u{2069}b\u{2069}"
        );
    }

    #[test]
    fn fixed_never_writes_negative_zero() {
        assert_eq!(fixed(-0.001, 2), "0.00");
        assert_eq!(fixed(-0.0, 1), "0.0");
        assert_eq!(fixed(-0.006, 2), "-0.01");
        assert_eq!(fixed(12.345, 0), "12");
        assert_eq!(px(1.0 / 3.0), "0.33");
    }

    #[test]
    fn writes_nested_elements_with_escaped_attributes() {
        let mut w = Writer::default();
        w.open("g", &[("data-id", "a\"b")]);
        w.empty("rect", &[("x", "1")]);
        w.text("text", &[], "x < y");
        w.close("g");
        assert_eq!(
            w.finish(),
            "<g data-id=\"a&quot;b\">\n  <rect x=\"1\"/>\n  <text>x &lt; y</text>\n</g>\n"
        );
    }
}
