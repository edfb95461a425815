//! A small line-based layout engine: styled text is shaped into positioned pieces, wrapped into
//! lines, and the lines are broken into pages (keeping headings with what follows them and
//! avoiding single lines of a paragraph at a page edge).

use crate::fonts::{glyphs, needs_actual_text, Font};
use crate::PdfError;

/// A4 in points.
pub const PAGE_WIDTH: f32 = 595.276;
pub const PAGE_HEIGHT: f32 = 841.89;
pub const MARGIN_X: f32 = 64.0;
pub const MARGIN_TOP: f32 = 66.0;
pub const MARGIN_BOTTOM: f32 = 70.0;
pub const TEXT_WIDTH: f32 = PAGE_WIDTH - 2.0 * MARGIN_X;
pub const BODY_HEIGHT: f32 = PAGE_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Color {
    Text,
    Accent,
    Muted,
}

impl Color {
    pub fn rgb(self) -> [f32; 3] {
        match self {
            Color::Text => [0.0, 0.0, 0.0],
            Color::Accent => [0.08, 0.22, 0.40],
            Color::Muted => [0.38, 0.38, 0.38],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    pub font: Font,
    pub size: f32,
    pub color: Color,
}

impl Style {
    pub const fn new(font: Font, size: f32) -> Self {
        Style {
            font,
            size,
            color: Color::Text,
        }
    }

    pub const fn color(self, color: Color) -> Self {
        Style { color, ..self }
    }

    pub fn with_font(self, font: Font) -> Self {
        Style { font, ..self }
    }
}

/// Styled text before shaping.
pub type Span = (String, Style);

/// A shaped run of text in one font, size and baseline shift, at `x` from the left margin.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub font: Font,
    pub size: f32,
    pub rise: f32,
    pub x: f32,
    pub bytes: Vec<u8>,
    pub color: Color,
    /// The text to extract instead of the drawn glyphs (for shifted or overlaid glyphs).
    pub actual: Option<String>,
}

/// Something drawn on a line. Positions are relative to the left margin and the line's top,
/// y growing downwards.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Text(Piece),
    Fill {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        gray: f32,
    },
    Rule {
        x: f32,
        y: f32,
        w: f32,
        thickness: f32,
        gray: f32,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub height: f32,
    /// Distance from the line's top to its baseline.
    pub baseline: f32,
    /// Space above the line, dropped at the top of a page.
    pub space_before: f32,
    /// Keep this line on the same page as the next one.
    pub keep_with_next: bool,
    pub items: Vec<Item>,
}

impl Line {
    pub fn new(height: f32, baseline: f32) -> Self {
        Line {
            height,
            baseline,
            space_before: 0.0,
            keep_with_next: false,
            items: Vec::new(),
        }
    }
}

/// Shapes `spans` into pieces starting at `x`; returns them and the advance width.
pub fn shape(spans: &[Span], x: f32) -> Result<(Vec<Piece>, f32), PdfError> {
    let mut pieces: Vec<Piece> = Vec::new();
    let mut pen = x;
    // The advance and font of the last base glyph, for centring accents over it.
    let mut last_advance = 0.0;
    let mut last_tall = false;
    for (text, style) in spans {
        for c in text.chars() {
            let drawn = glyphs(c, style.font).ok_or_else(|| PdfError::Unrenderable {
                character: c,
                context: text.clone(),
            })?;
            let separate = needs_actual_text(c);
            for (i, g) in drawn.iter().enumerate() {
                let size = style.size * g.scale;
                let advance = g.font.width(g.code) / 1000.0 * size;
                let mut rise = g.rise * style.size;
                let mut at = pen;
                if g.overlay {
                    at = pen - (last_advance + advance) / 2.0;
                    if last_tall {
                        rise += 0.19 * style.size;
                    }
                } else {
                    last_advance = advance;
                    last_tall = c.is_uppercase() || "Σ√ΦΔΩbdfhklt".contains(c);
                }
                let actual = separate.then(|| if i == 0 { c.to_string() } else { String::new() });
                let extend = !separate
                    && !g.overlay
                    && pieces.last().is_some_and(|p| {
                        p.font == g.font
                            && p.size == size
                            && p.rise == rise
                            && p.color == style.color
                            && p.actual.is_none()
                    });
                if extend {
                    pieces.last_mut().expect("checked").bytes.push(g.code);
                } else {
                    pieces.push(Piece {
                        font: g.font,
                        size,
                        rise,
                        x: at,
                        bytes: vec![g.code],
                        color: style.color,
                        actual,
                    });
                }
                if !g.overlay {
                    pen += advance;
                }
            }
        }
    }
    Ok((pieces, pen - x))
}

pub fn width(spans: &[Span]) -> Result<f32, PdfError> {
    Ok(shape(spans, 0.0)?.1)
}

enum Token {
    Word(Vec<Span>),
    Space(Style),
    Break,
}

fn tokens(spans: &[Span]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word: Vec<Span> = Vec::new();
    let flush = |word: &mut Vec<Span>, out: &mut Vec<Token>| {
        if !word.is_empty() {
            out.push(Token::Word(std::mem::take(word)));
        }
    };
    for (text, style) in spans {
        for c in text.chars() {
            if c == '\n' {
                flush(&mut word, &mut out);
                out.push(Token::Break);
            } else if c == ' ' {
                flush(&mut word, &mut out);
                out.push(Token::Space(*style));
            } else {
                match word.last_mut() {
                    Some((t, s)) if s == style => t.push(c),
                    _ => word.push((c.to_string(), *style)),
                }
            }
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Splits a word wider than `max` into pieces that fit, character by character.
fn split_word(word: Vec<Span>, max: f32) -> Result<Vec<Vec<Span>>, PdfError> {
    let mut parts = Vec::new();
    let mut current: Vec<Span> = Vec::new();
    for (text, style) in word {
        for c in text.chars() {
            let mut candidate = current.clone();
            match candidate.last_mut() {
                Some((t, s)) if *s == style => t.push(c),
                _ => candidate.push((c.to_string(), style)),
            }
            if width(&candidate)? > max && !current.is_empty() {
                parts.push(std::mem::take(&mut current));
                current.push((c.to_string(), style));
            } else {
                current = candidate;
            }
        }
    }
    if !current.is_empty() {
        parts.push(current);
    }
    Ok(parts)
}

/// Wraps styled text into lines no wider than `max` (`first_max` for the first line). Runs of
/// spaces are kept inside a line; a line never starts with a space after a wrap.
pub fn wrap(spans: &[Span], first_max: f32, max: f32) -> Result<Vec<Vec<Span>>, PdfError> {
    let mut lines: Vec<Vec<Span>> = Vec::new();
    let mut line: Vec<Span> = Vec::new();
    let mut line_width = 0.0;
    let mut pending_spaces: Vec<Style> = Vec::new();
    let limit = |lines: &Vec<Vec<Span>>| if lines.is_empty() { first_max } else { max };
    for token in tokens(spans) {
        match token {
            Token::Break => {
                lines.push(std::mem::take(&mut line));
                line_width = 0.0;
                pending_spaces.clear();
            }
            Token::Space(style) => pending_spaces.push(style),
            Token::Word(word) => {
                let spaces: Vec<Span> = pending_spaces
                    .drain(..)
                    .map(|s| (" ".to_string(), s))
                    .collect();
                let space_width = width(&spaces)?;
                let word_width = width(&word)?;
                if line.is_empty() {
                    // Leading spaces count only at the very start (indentation), not after a wrap.
                    if lines.is_empty() {
                        line_width = space_width;
                        line.extend(spaces);
                    }
                } else if line_width + space_width + word_width <= limit(&lines) + 0.01 {
                    line.extend(spaces);
                    line_width += space_width;
                } else {
                    lines.push(std::mem::take(&mut line));
                    line_width = 0.0;
                }
                if line_width + word_width > limit(&lines) + 0.01 {
                    let parts = split_word(word, limit(&lines) - line_width)?;
                    let count = parts.len();
                    for (i, part) in parts.into_iter().enumerate() {
                        line_width += width(&part)?;
                        line.extend(part);
                        if i + 1 < count {
                            lines.push(std::mem::take(&mut line));
                            line_width = 0.0;
                        }
                    }
                } else {
                    line_width += word_width;
                    line.extend(word);
                }
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    Ok(lines)
}

/// A page: its lines with the y of each line's top, measured from the top of the text area.
pub type Page = Vec<(f32, Line)>;

/// Breaks lines into pages. A line that keeps with the next moves to a new page together with
/// the chain it starts, unless that chain is taller than a page.
pub fn paginate(lines: Vec<Line>) -> Vec<Page> {
    let mut pages: Vec<Page> = vec![Vec::new()];
    let mut y = 0.0;
    for i in 0..lines.len() {
        let at_top = pages.last().expect("one page").is_empty();
        let space = if at_top { 0.0 } else { lines[i].space_before };
        let mut chain = space + lines[i].height;
        let mut j = i;
        while lines[j].keep_with_next && j + 1 < lines.len() {
            j += 1;
            chain += lines[j].space_before + lines[j].height;
        }
        let need = if chain > BODY_HEIGHT {
            space + lines[i].height
        } else {
            chain
        };
        let (y_top, fresh) = if !at_top && y + need > BODY_HEIGHT {
            (0.0, true)
        } else {
            (y + space, false)
        };
        if fresh {
            pages.push(Vec::new());
        }
        y = y_top + lines[i].height;
        pages
            .last_mut()
            .expect("one page")
            .push((y_top, lines[i].clone()));
    }
    pages
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: Style = Style::new(Font::Helvetica, 10.0);

    fn text(lines: &[Vec<Span>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.iter().map(|(t, _)| t.as_str()).collect())
            .collect()
    }

    #[test]
    fn widths_add_up() {
        // "ab" = (556 + 556) / 1000 * 10
        assert!((width(&[("ab".into(), BODY)]).unwrap() - 11.12).abs() < 1e-4);
    }

    #[test]
    fn wraps_at_spaces_and_splits_long_words() {
        let spans = vec![("aaaa bbbb cccc".to_string(), BODY)];
        let w = width(&[("aaaa bbbb".into(), BODY)]).unwrap();
        assert_eq!(text(&wrap(&spans, w, w).unwrap()), ["aaaa bbbb", "cccc"]);
        let long = vec![("abcdefgh".to_string(), BODY)];
        let four = width(&[("abcd".into(), BODY)]).unwrap();
        assert_eq!(text(&wrap(&long, four, four).unwrap()), ["abcd", "efgh"]);
        let breaks = vec![("a\nb".to_string(), BODY)];
        assert_eq!(text(&wrap(&breaks, 100.0, 100.0).unwrap()), ["a", "b"]);
    }

    #[test]
    fn unrenderable_characters_are_named() {
        let err = shape(&[("x 漢 y".into(), BODY)], 0.0).unwrap_err();
        assert!(err.to_string().contains('漢'), "{err}");
    }

    #[test]
    fn keep_with_next_moves_the_chain() {
        let mut lines: Vec<Line> = (0..60).map(|_| Line::new(12.0, 9.0)).collect();
        let per_page = (BODY_HEIGHT / 12.0).floor() as usize;
        lines[per_page - 1].keep_with_next = true;
        let pages = paginate(lines);
        assert_eq!(pages[0].len(), per_page - 1);
    }
}
