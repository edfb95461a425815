//! The standard 14 fonts the document uses, how a Unicode character is drawn with them, and
//! their widths. Nothing is embedded: every PDF reader ships these fonts.
//!
//! Latin text uses Helvetica (or Courier) with WinAnsiEncoding; Greek letters and math symbols
//! come from the Symbol font; sub- and superscript characters are drawn smaller and shifted;
//! combining accents are drawn over the previous glyph. Every shifted or overlaid glyph carries
//! its original text as `/ActualText`, so text extraction gives back the Unicode source.

use crate::metrics;

/// The PDF fonts, in resource order (`/F1` … `/F5`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Font {
    Helvetica,
    HelveticaBold,
    HelveticaOblique,
    Courier,
    Symbol,
}

impl Font {
    pub const ALL: [Font; 5] = [
        Font::Helvetica,
        Font::HelveticaBold,
        Font::HelveticaOblique,
        Font::Courier,
        Font::Symbol,
    ];

    pub fn base_name(self) -> &'static str {
        match self {
            Font::Helvetica => "Helvetica",
            Font::HelveticaBold => "Helvetica-Bold",
            Font::HelveticaOblique => "Helvetica-Oblique",
            Font::Courier => "Courier",
            Font::Symbol => "Symbol",
        }
    }

    pub fn resource_name(self) -> &'static str {
        match self {
            Font::Helvetica => "F1",
            Font::HelveticaBold => "F2",
            Font::HelveticaOblique => "F3",
            Font::Courier => "F4",
            Font::Symbol => "F5",
        }
    }

    /// Width of the glyph at `code` in 1/1000 em.
    pub fn width(self, code: u8) -> f32 {
        let w = match self {
            Font::Helvetica | Font::HelveticaOblique => metrics::HELVETICA[code as usize],
            Font::HelveticaBold => metrics::HELVETICA_BOLD[code as usize],
            Font::Courier => 600,
            Font::Symbol => metrics::SYMBOL[code as usize],
        };
        f32::from(w)
    }
}

/// One drawn glyph: which font and code, its scale relative to the text size, its baseline
/// shift in em, and whether it is an accent drawn over the previous glyph.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glyph {
    pub font: Font,
    pub code: u8,
    pub scale: f32,
    pub rise: f32,
    pub overlay: bool,
}

const SCRIPT_SCALE: f32 = 0.62;
/// Aligns drawn superscripts with Helvetica's own ¹ ² ³ (which sit from 0.28 to 0.70 em).
const SUPER_RISE: f32 = 0.29;
const SUB_RISE: f32 = -0.14;

/// The WinAnsiEncoding code of `c`, if it has one (Latin-1 plus the cp1252 extras).
pub fn win_ansi(c: char) -> Option<u8> {
    let u = c as u32;
    match u {
        0x20..=0x7E | 0xA0..=0xFF => Some(u as u8),
        _ => WIN_ANSI_HIGH
            .iter()
            .find(|(ch, _)| *ch == c)
            .map(|(_, code)| *code),
    }
}

const WIN_ANSI_HIGH: [(char, u8); 27] = [
    ('€', 0x80),
    ('‚', 0x82),
    ('ƒ', 0x83),
    ('„', 0x84),
    ('…', 0x85),
    ('†', 0x86),
    ('‡', 0x87),
    ('ˆ', 0x88),
    ('‰', 0x89),
    ('Š', 0x8A),
    ('‹', 0x8B),
    ('Œ', 0x8C),
    ('Ž', 0x8E),
    ('‘', 0x91),
    ('’', 0x92),
    ('“', 0x93),
    ('”', 0x94),
    ('•', 0x95),
    ('–', 0x96),
    ('—', 0x97),
    ('˜', 0x98),
    ('™', 0x99),
    ('š', 0x9A),
    ('›', 0x9B),
    ('œ', 0x9C),
    ('ž', 0x9E),
    ('Ÿ', 0x9F),
];

fn symbol(c: char) -> Option<u8> {
    metrics::SYMBOL_CODES
        .binary_search_by_key(&c, |(ch, _)| *ch)
        .ok()
        .map(|i| metrics::SYMBOL_CODES[i].1)
}

/// The plain character a sub- or superscript character stands for, and whether it is raised.
fn script(c: char) -> Option<(char, bool)> {
    const SUPER: [(char, char); 17] = [
        ('⁰', '0'),
        ('¹', '1'),
        ('²', '2'),
        ('³', '3'),
        ('⁴', '4'),
        ('⁵', '5'),
        ('⁶', '6'),
        ('⁷', '7'),
        ('⁸', '8'),
        ('⁹', '9'),
        ('⁺', '+'),
        ('⁻', '−'),
        ('⁼', '='),
        ('⁽', '('),
        ('⁾', ')'),
        ('ⁱ', 'i'),
        ('ⁿ', 'n'),
    ];
    const SUB: [(char, char); 30] = [
        ('₀', '0'),
        ('₁', '1'),
        ('₂', '2'),
        ('₃', '3'),
        ('₄', '4'),
        ('₅', '5'),
        ('₆', '6'),
        ('₇', '7'),
        ('₈', '8'),
        ('₉', '9'),
        ('₊', '+'),
        ('₋', '−'),
        ('₌', '='),
        ('₍', '('),
        ('₎', ')'),
        ('ₐ', 'a'),
        ('ₑ', 'e'),
        ('ₒ', 'o'),
        ('ₓ', 'x'),
        ('ₕ', 'h'),
        ('ₖ', 'k'),
        ('ₗ', 'l'),
        ('ₘ', 'm'),
        ('ₙ', 'n'),
        ('ₚ', 'p'),
        ('ₛ', 's'),
        ('ₜ', 't'),
        ('ᵢ', 'i'),
        ('ⱼ', 'j'),
        ('ᵣ', 'r'),
    ];
    if let Some((_, plain)) = SUPER.iter().find(|(s, _)| *s == c) {
        return Some((*plain, true));
    }
    SUB.iter()
        .find(|(s, _)| *s == c)
        .map(|(_, plain)| (*plain, false))
}

/// Combining accents drawn as an overlay: the spacing accent in WinAnsi.
fn combining(c: char) -> Option<u8> {
    match c {
        '\u{0302}' => Some(0x88),              // circumflex: a hat, as in μ̂
        '\u{0303}' => Some(0x98),              // tilde
        '\u{0304}' | '\u{0305}' => Some(0xAF), // macron / overline: a bar, as in ȳ
        '\u{0301}' => Some(0xB4),              // acute
        '\u{0300}' => Some(0x60),              // grave
        '\u{0308}' => Some(0xA8),              // dieresis
        _ => None,
    }
}

/// Precomposed characters outside WinAnsi that are drawn as a base letter and an accent.
fn decompose(c: char) -> Option<(char, char)> {
    match c {
        'ȳ' => Some(('y', '\u{0304}')),
        'ā' => Some(('a', '\u{0304}')),
        'ē' => Some(('e', '\u{0304}')),
        'ō' => Some(('o', '\u{0304}')),
        'ū' => Some(('u', '\u{0304}')),
        _ => None,
    }
}

/// How `c` is drawn in `font`: one glyph, or for a precomposed accented letter two (the second
/// an overlay). `None` if the standard fonts cannot show it.
pub fn glyphs(c: char, font: Font) -> Option<Vec<Glyph>> {
    let plain = |font: Font, code: u8| Glyph {
        font,
        code,
        scale: 1.0,
        rise: 0.0,
        overlay: false,
    };
    if matches!(c, '¹' | '²' | '³') {
        // Helvetica has these glyphs; Courier's are too faint at small sizes.
        if font != Font::Courier {
            return Some(vec![plain(font, c as u8)]);
        }
    }
    if let Some((base, raised)) = script(c) {
        let mut g = glyphs(base, font)?;
        for glyph in &mut g {
            glyph.scale = SCRIPT_SCALE;
            glyph.rise = if raised { SUPER_RISE } else { SUB_RISE };
        }
        return Some(g);
    }
    if let Some(code) = combining(c) {
        let accent_font = if font == Font::Courier {
            Font::Helvetica
        } else {
            font
        };
        return Some(vec![Glyph {
            overlay: true,
            ..plain(accent_font, code)
        }]);
    }
    if let Some((base, accent)) = decompose(c) {
        let mut g = glyphs(base, font)?;
        g.extend(glyphs(accent, font)?);
        return Some(g);
    }
    if let Some(code) = win_ansi(c) {
        return Some(vec![plain(font, code)]);
    }
    // Unicode's minus sign is Symbol's; in Courier a hyphen keeps columns aligned.
    if c == '−' && font == Font::Courier {
        return Some(vec![plain(font, b'-')]);
    }
    symbol(c).map(|code| vec![plain(Font::Symbol, code)])
}

/// Whether `c` is shown by something other than one plain glyph, so that its drawn form needs
/// an `/ActualText` to extract as the original character.
pub fn needs_actual_text(c: char) -> bool {
    // Readers extract Symbol's mu, Delta and Omega as the micro, increment and ohm signs.
    matches!(c, 'μ' | 'Δ' | 'Ω')
        || script(c).is_some() && !matches!(c, '¹' | '²' | '³')
        || combining(c).is_some()
        || decompose(c).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_match_the_afm_files() {
        assert_eq!(Font::Helvetica.width(b'a'), 556.0);
        assert_eq!(Font::Helvetica.width(b' '), 278.0);
        assert_eq!(Font::HelveticaBold.width(b'a'), 556.0);
        assert_eq!(Font::HelveticaBold.width(b'W'), 944.0);
        assert_eq!(Font::Helvetica.width(0x96), 556.0); // en dash
        assert_eq!(Font::Symbol.width(0x74), 439.0); // tau
        assert_eq!(Font::Courier.width(b'i'), 600.0);
    }

    #[test]
    fn greek_and_math_come_from_symbol() {
        for (c, code) in [
            ('τ', 0x74),
            ('μ', 0x6D),
            ('Σ', 0x53),
            ('√', 0xD6),
            ('≤', 0xA3),
            ('≥', 0xB3),
            ('−', 0x2D),
            ('≈', 0xBB),
            ('∞', 0xA5),
            ('χ', 0x63),
            ('ν', 0x6E),
            ('α', 0x61),
            ('Φ', 0x46),
            ('′', 0xA2),
        ] {
            assert_eq!(
                glyphs(c, Font::Helvetica).unwrap(),
                vec![Glyph {
                    font: Font::Symbol,
                    code,
                    scale: 1.0,
                    rise: 0.0,
                    overlay: false
                }],
                "{c}"
            );
        }
        // Latin-1 stays in Helvetica, including × and ± and the micro sign.
        assert_eq!(
            glyphs('×', Font::Helvetica).unwrap()[0].font,
            Font::Helvetica
        );
        assert_eq!(glyphs('–', Font::Helvetica).unwrap()[0].code, 0x96);
    }

    #[test]
    fn scripts_and_accents() {
        let sub = glyphs('ᵢ', Font::Helvetica).unwrap();
        assert_eq!((sub[0].code, sub[0].rise < 0.0), (b'i', true));
        let sup = glyphs('⁻', Font::Helvetica).unwrap();
        assert_eq!((sup[0].font, sup[0].rise > 0.0), (Font::Symbol, true));
        assert!(glyphs('\u{302}', Font::Helvetica).unwrap()[0].overlay);
        assert_eq!(glyphs('ȳ', Font::Helvetica).unwrap().len(), 2);
        assert!(glyphs('漢', Font::Helvetica).is_none());
        assert!(glyphs('😀', Font::Courier).is_none());
    }
}
