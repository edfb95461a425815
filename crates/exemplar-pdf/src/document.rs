//! Block-level building: headings, paragraphs, lists, code and display blocks, tables. Each
//! block becomes [`Line`]s for the paginator.

use crate::fonts::Font;
use crate::layout::{shape, width, wrap, Color, Item, Line, Span, Style, TEXT_WIDTH};
use crate::PdfError;

pub const BODY: Style = Style::new(Font::Helvetica, 10.0);
pub const BODY_LEADING: f32 = 14.0;
pub const CODE: Style = Style::new(Font::Courier, 8.6);
const CODE_LEADING: f32 = 11.4;
const CODE_PAD: f32 = 5.0;
const CODE_GRAY: f32 = 0.945;
const PARAGRAPH_GAP: f32 = 6.0;
pub const LIST_INDENT: f32 = 16.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Default)]
pub struct Doc {
    pub lines: Vec<Line>,
    /// Set after a heading: the next line is kept with the one after it too.
    keep_next: bool,
}

fn baseline(leading: f32, size: f32) -> f32 {
    (leading - size) / 2.0 + 0.78 * size
}

impl Doc {
    fn push(&mut self, mut line: Line) {
        if self.keep_next {
            line.keep_with_next = true;
            self.keep_next = false;
        }
        self.lines.push(line);
    }

    fn text_line(
        spans: &[Span],
        x: f32,
        leading: f32,
        size: f32,
        space_before: f32,
    ) -> Result<Line, PdfError> {
        let mut line = Line::new(leading, baseline(leading, size));
        line.space_before = space_before;
        let (pieces, _) = shape(spans, x)?;
        line.items.extend(pieces.into_iter().map(Item::Text));
        Ok(line)
    }

    /// Vertical space before the next block.
    pub fn gap(&mut self, space: f32) {
        let mut line = Line::new(0.0, 0.0);
        line.space_before = space;
        // An empty line of no height: its space is dropped at a page top like any other.
        self.lines.push(line);
    }

    pub fn heading(&mut self, level: u8, spans: &[Span]) -> Result<(), PdfError> {
        let (size, leading, before, color) = match level {
            0 => (21.0, 26.0, 0.0, Color::Text),
            1 => (15.0, 20.0, 20.0, Color::Accent),
            2 => (12.0, 16.0, 13.0, Color::Accent),
            _ => (10.5, 14.0, 9.0, Color::Text),
        };
        let spans: Vec<Span> = spans
            .iter()
            .map(|(t, s)| {
                let font = if s.font == Font::Courier {
                    Font::Courier
                } else {
                    Font::HelveticaBold
                };
                (t.clone(), Style::new(font, size).color(color))
            })
            .collect();
        let lines = wrap(&spans, TEXT_WIDTH, TEXT_WIDTH)?;
        for (i, l) in lines.iter().enumerate() {
            let mut line =
                Self::text_line(l, 0.0, leading, size, if i == 0 { before } else { 0.0 })?;
            line.keep_with_next = true;
            if level == 1 && i + 1 == lines.len() {
                line.items.push(Item::Rule {
                    x: 0.0,
                    y: leading + 1.5,
                    w: TEXT_WIDTH,
                    thickness: 0.6,
                    gray: 0.7,
                });
                line.height += 4.0;
            }
            self.push(line);
        }
        self.keep_next = true;
        Ok(())
    }

    /// A paragraph at `indent`, optionally with a marker (bullet or number) hanging left of it.
    pub fn paragraph(
        &mut self,
        spans: &[Span],
        indent: f32,
        marker: Option<&str>,
        space_before: f32,
    ) -> Result<(), PdfError> {
        let max = TEXT_WIDTH - indent;
        let lines = wrap(spans, max, max)?;
        let count = lines.len();
        for (i, l) in lines.iter().enumerate() {
            let before = if i == 0 { space_before } else { 0.0 };
            let mut line = Self::text_line(l, indent, BODY_LEADING, BODY.size, before)?;
            if i == 0 {
                if let Some(marker) = marker {
                    let spans = [(marker.to_string(), BODY)];
                    let w = width(&spans)?;
                    let (pieces, _) = shape(&spans, indent - 5.0 - w)?;
                    line.items.extend(pieces.into_iter().map(Item::Text));
                }
            }
            // No single first or last line of a paragraph alone at a page edge.
            line.keep_with_next = count >= 3 && (i == 0 || i + 2 == count);
            if count == 2 && i == 0 {
                line.keep_with_next = true;
            }
            self.push(line);
        }
        Ok(())
    }

    pub fn paragraph_gap() -> f32 {
        PARAGRAPH_GAP
    }

    /// Keeps the last line pushed on the same page as the next one.
    pub fn keep_last(&mut self) {
        if let Some(line) = self.lines.last_mut() {
            line.keep_with_next = true;
        }
    }

    /// Preformatted text in Courier on a grey ground; long lines wrap at spaces or after commas,
    /// their continuation rows indented by two characters. `together` keeps the whole block
    /// on one page.
    pub fn code_block(&mut self, text: &str, indent: f32, together: bool) -> Result<(), PdfError> {
        let x = indent + CODE_PAD;
        let max = TEXT_WIDTH - indent - 2.0 * CODE_PAD;
        let hang = width(&[("  ".to_string(), CODE)])?;
        let mut rows: Vec<(f32, String)> = Vec::new();
        for source in text.trim_end_matches('\n').split('\n') {
            let wrapped = wrap_code(source, max, max - hang)?;
            rows.extend(
                wrapped
                    .into_iter()
                    .enumerate()
                    .map(|(i, row)| (if i == 0 { 0.0 } else { hang }, row)),
            );
        }
        let fill = |y: f32, h: f32| Item::Fill {
            x: indent,
            y,
            w: TEXT_WIDTH - indent,
            h,
            gray: CODE_GRAY,
        };
        let mut top = Line::new(CODE_PAD, 0.0);
        top.space_before = PARAGRAPH_GAP;
        top.keep_with_next = true;
        top.items.push(fill(0.0, CODE_PAD + 0.5));
        self.push(top);
        let count = rows.len();
        for (i, (shift, row)) in rows.iter().enumerate() {
            let mut line = Self::text_line(
                &[(row.clone(), CODE)],
                x + shift,
                CODE_LEADING,
                CODE.size,
                0.0,
            )?;
            line.items.insert(0, fill(-0.25, CODE_LEADING + 0.5));
            line.keep_with_next = together || i == 0 || i + 2 >= count;
            self.push(line);
        }
        let mut bottom = Line::new(CODE_PAD, 0.0);
        bottom.items.push(fill(0.0, CODE_PAD));
        self.push(bottom);
        Ok(())
    }

    /// A displayed formula (a Markdown indented code block): Helvetica, indented, spaces kept.
    pub fn display(&mut self, text: &str, indent: f32) -> Result<(), PdfError> {
        let x = indent + 18.0;
        let max = TEXT_WIDTH - x;
        let sources: Vec<&str> = text.trim_end_matches('\n').split('\n').collect();
        let count = sources.len();
        for (i, source) in sources.iter().enumerate() {
            for (j, l) in wrap(&[(source.to_string(), BODY)], max, max)?
                .iter()
                .enumerate()
            {
                let before = if i == 0 && j == 0 {
                    PARAGRAPH_GAP + 2.0
                } else {
                    0.0
                };
                let mut line = Self::text_line(l, x, BODY_LEADING + 2.0, BODY.size, before)?;
                line.keep_with_next = i + 1 < count;
                self.push(line);
            }
        }
        self.gap(PARAGRAPH_GAP);
        Ok(())
    }

    /// A table with a bold header, rules above and below, light banding, and columns spread
    /// over the text width.
    pub fn table(
        &mut self,
        header: &[&str],
        align: &[Align],
        rows: &[Vec<String>],
    ) -> Result<(), PdfError> {
        const SIZE: f32 = 9.0;
        const ROW: f32 = 13.6;
        const PAD: f32 = 4.0;
        let cell = Style::new(Font::Helvetica, SIZE);
        let head = Style::new(Font::HelveticaBold, SIZE);
        let mut widths: Vec<f32> = header
            .iter()
            .map(|h| width(&[(h.to_string(), head)]))
            .collect::<Result<_, _>>()?;
        for row in rows {
            for (w, text) in widths.iter_mut().zip(row) {
                *w = w.max(width(&[(text.clone(), cell)])?);
            }
        }
        let natural: f32 = widths.iter().sum();
        let gap = (TEXT_WIDTH - natural - 2.0 * PAD) / (widths.len() - 1) as f32;
        let mut lefts = Vec::with_capacity(widths.len());
        let mut x = PAD;
        for w in &widths {
            lefts.push(x);
            x += w + gap;
        }
        let row_line = |texts: &[String], style: Style| -> Result<Line, PdfError> {
            let mut line = Line::new(ROW, baseline(ROW, SIZE));
            for (i, text) in texts.iter().enumerate() {
                let spans = [(text.clone(), style)];
                let x = match align[i] {
                    Align::Left => lefts[i],
                    Align::Right => lefts[i] + widths[i] - width(&spans)?,
                };
                line.items
                    .extend(shape(&spans, x)?.0.into_iter().map(Item::Text));
            }
            line.keep_with_next = true;
            Ok(line)
        };
        let rule = |y: f32, thickness: f32| Item::Rule {
            x: 0.0,
            y,
            w: TEXT_WIDTH,
            thickness,
            gray: 0.0,
        };
        let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
        let mut line = row_line(&header, head)?;
        line.space_before = PARAGRAPH_GAP + 2.0;
        line.items.push(rule(0.0, 0.9));
        line.items.push(rule(ROW, 0.5));
        self.push(line);
        for (i, row) in rows.iter().enumerate() {
            let mut line = row_line(row, cell)?;
            if i % 2 == 1 {
                line.items.insert(
                    0,
                    Item::Fill {
                        x: 0.0,
                        y: 0.0,
                        w: TEXT_WIDTH,
                        h: ROW,
                        gray: 0.95,
                    },
                );
            }
            if i + 1 == rows.len() {
                line.items.push(rule(ROW, 0.9));
                line.keep_with_next = false;
            }
            self.push(line);
        }
        Ok(())
    }
}

/// Splits one line of code into rows no wider than `first_max` (the first) and `max` (the
/// others), preferring breaks after a space or a comma, so that joining the rows gives back the
/// line.
fn wrap_code(source: &str, first_max: f32, max: f32) -> Result<Vec<String>, PdfError> {
    let mut rows: Vec<String> = Vec::new();
    let mut rest: &str = source;
    loop {
        let max = if rows.is_empty() { first_max } else { max };
        if width(&[(rest.to_string(), CODE)])? <= max {
            break;
        }
        let chars: Vec<(usize, char)> = rest.char_indices().collect();
        // The longest prefix that fits.
        let mut fit = 0;
        for (n, _) in chars.iter().enumerate() {
            let end = chars.get(n + 1).map_or(rest.len(), |(i, _)| *i);
            if width(&[(rest[..end].to_string(), CODE)])? > max {
                break;
            }
            fit = end;
        }
        let cut = rest[..fit]
            .rfind([' ', ','])
            .map(|i| i + 1)
            .filter(|&i| i > fit / 5)
            .unwrap_or(fit.max(chars.get(1).map_or(rest.len(), |(i, _)| *i)));
        rows.push(rest[..cut].to_string());
        rest = &rest[cut..];
    }
    rows.push(rest.to_string());
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_wraps_after_commas_and_rejoins_exactly() {
        let json = exemplar::protocol::ANSWER_SHAPE;
        let rows = wrap_code(json, 300.0, 300.0).unwrap();
        assert!(rows.len() > 1);
        assert_eq!(rows.concat(), json);
        for row in &rows {
            assert!(width(&[(row.clone(), CODE)]).unwrap() <= 300.0);
        }
        assert!(
            rows[..rows.len() - 1]
                .iter()
                .all(|r| r.ends_with(',') || r.ends_with(' ')),
            "{rows:?}"
        );
    }
}
