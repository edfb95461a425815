//! The frozen evidence artifact of the benchmark's PDF condition: `benchmark-baseline.pdf`.
//!
//! [`render`] writes the dataset (provenance, the full data table, the CSV verbatim), the
//! benchmark's own methods (`docs/BENCHMARK_METHODS.md`, not the engine's growing
//! `docs/METHODS.md`) and the common prompt as a PDF that is the same bytes on every
//! machine: no dates, a document ID derived from the content, the standard 14 fonts (nothing
//! embedded), uncompressed streams. It carries no results of the benchmark tasks and nothing
//! executable: no JavaScript, actions, forms, annotations or embedded files.
//!
//! A crate of its own so that the wasm build of `exemplar` never links a PDF writer.

mod document;
mod fonts;
mod layout;
mod markdown;
mod metrics;

use document::{Align, Doc, BODY};
use exemplar::{dataset, protocol};
use fonts::Font;
use layout::{
    paginate, shape, width, Color, Item, Page, Span, Style, MARGIN_BOTTOM, MARGIN_TOP, MARGIN_X,
    PAGE_HEIGHT, PAGE_WIDTH, TEXT_WIDTH,
};
use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str, TextStr};
use sha2::{Digest, Sha256};
use std::fmt;

/// The document title, also in the PDF's metadata and the running header.
pub const TITLE: &str = "Teacher expectancy and pupil IQ: benchmark baseline";

/// Why the PDF could not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PdfError {
    /// The standard fonts have no glyph for this character.
    Unrenderable { character: char, context: String },
    /// `docs/BENCHMARK_METHODS.md` uses Markdown the PDF does not render.
    Markdown(String),
    /// The embedded CSV does not match the parsed dataset.
    Dataset(String),
}

impl fmt::Display for PdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PdfError::Unrenderable { character, context } => write!(
                f,
                "the character {character:?} (U+{:04X}) cannot be drawn with the standard PDF \
                 fonts; it occurs in {context:?}",
                *character as u32
            ),
            PdfError::Markdown(message) => write!(f, "docs/BENCHMARK_METHODS.md: {message}"),
            PdfError::Dataset(message) => write!(f, "the embedded dataset: {message}"),
        }
    }
}

impl std::error::Error for PdfError {}

/// The PDF bytes: the same on every machine for the same dataset, methods text and prompt.
pub fn render() -> Result<Vec<u8>, PdfError> {
    let doc = build()?;
    Ok(write(paginate(doc.lines)))
}

fn body(text: &str) -> Vec<Span> {
    vec![(text.to_string(), BODY)]
}

/// The yi and vi of each CSV row exactly as written in the file (the table prints these).
fn csv_effect_texts() -> Result<Vec<(String, String)>, PdfError> {
    let rows = dataset::rows();
    let texts: Vec<(String, String)> = dataset::CSV
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut fields = line.trim_end_matches('\r').rsplitn(3, ',');
            let vi = fields.next().unwrap_or_default().to_string();
            let yi = fields.next().unwrap_or_default().to_string();
            (yi, vi)
        })
        .collect();
    if texts.len() != rows.len() {
        return Err(PdfError::Dataset(format!(
            "{} CSV lines but {} rows",
            texts.len(),
            rows.len()
        )));
    }
    for ((yi, vi), row) in texts.iter().zip(rows) {
        if yi.parse::<f64>().ok() != Some(row.yi) || vi.parse::<f64>().ok() != Some(row.vi) {
            return Err(PdfError::Dataset(format!(
                "row {}: yi {yi:?} / vi {vi:?} differ from the parsed values",
                row.id
            )));
        }
    }
    Ok(texts)
}

/// The document: the title block, the facts and purpose, the dataset, the benchmark's
/// methods and the common prompt, in that order.
fn build() -> Result<Doc, PdfError> {
    let mut doc = Doc::default();
    title_block(&mut doc)?;
    facts_and_purpose(&mut doc)?;
    dataset_section(&mut doc)?;
    markdown::render(exemplar::benchmark_methods_markdown(), &mut doc)?;
    prompt_section(&mut doc)?;
    Ok(doc)
}

/// The kicker, the title and the subtitle.
fn title_block(doc: &mut Doc) -> Result<(), PdfError> {
    let muted = Style::new(Font::HelveticaBold, 8.5).color(Color::Accent);
    doc.paragraph(
        &[(
            "FROZEN EVIDENCE ARTIFACT · BENCHMARK BASELINE".to_string(),
            muted,
        )],
        0.0,
        None,
        0.0,
    )?;
    doc.heading(0, &body("Teacher expectancy and pupil IQ"))?;
    doc.paragraph(
        &[(
            "Data and methods for a random-effects meta-analysis benchmark".to_string(),
            Style::new(Font::Helvetica, 12.0).color(Color::Muted),
        )],
        0.0,
        None,
        0.0,
    )?;
    Ok(())
}

/// The facts (baseline version, dataset, records, dataset hash), each after its label in
/// the hanging space, then the paragraph on what the document is.
fn facts_and_purpose(doc: &mut Doc) -> Result<(), PdfError> {
    let label = Style::new(Font::HelveticaBold, 9.5);
    let value = Style::new(Font::Helvetica, 9.5);
    let hash = Style::new(Font::Courier, 9.0);
    let facts: [(&str, Vec<Span>); 4] = [
        (
            "Baseline version",
            vec![(protocol::BASELINE_VERSION.to_string(), value)],
        ),
        (
            "Dataset",
            vec![
                ("metadat ".to_string(), value),
                (dataset::NAME.to_string(), hash),
                (
                    " (Raudenbush 1984; Raudenbush & Bryk 1985)".to_string(),
                    value,
                ),
            ],
        ),
        (
            "Records",
            vec![(
                "19 effect-size records from 18 experiments (s04 and s05 are two samples of one)"
                    .to_string(),
                value,
            )],
        ),
        (
            "Dataset SHA-256",
            vec![(dataset::sha256().to_string(), hash)],
        ),
    ];
    let label_width = 96.0;
    doc.gap(10.0);
    for (name, spans) in facts {
        let mut spans = spans;
        spans.insert(0, (String::new(), value));
        doc.paragraph(&spans, label_width, None, 2.0)?;
        // The label sits in the hanging space left of the value.
        let line = doc.lines.last_mut().expect("just pushed");
        let (pieces, _) = shape(&[(name.to_string(), label)], 0.0)?;
        line.items.extend(pieces.into_iter().map(Item::Text));
    }
    doc.gap(8.0);
    doc.paragraph(
        &body(
            "This document is the evidence artifact of the benchmark's PDF condition. It carries \
             the frozen dataset, the methods context and the common prompt: enough for a careful \
             reader to compute every requested number by hand. By design it contains no results \
             of the benchmark tasks and nothing executable. The dataset SHA-256 is the hash of \
             the exact bytes of the CSV file reproduced at the end of the dataset section.",
        ),
        0.0,
        None,
        Doc::paragraph_gap(),
    )?;
    Ok(())
}

/// The dataset section: its description, the data table with yi and vi as the CSV writes
/// them, the columns' descriptions and the CSV verbatim.
fn dataset_section(doc: &mut Doc) -> Result<(), PdfError> {
    doc.heading(1, &body("The dataset"))?;
    doc.paragraph(&body(dataset::DESCRIPTION), 0.0, None, 2.0)?;
    let texts = csv_effect_texts()?;
    let rows: Vec<Vec<String>> = dataset::rows()
        .iter()
        .zip(&texts)
        .map(|(r, (yi, vi))| {
            vec![
                r.id.clone(),
                r.author.clone(),
                r.year.to_string(),
                r.weeks.to_string(),
                r.setting.clone(),
                r.tester.clone(),
                r.n1i.to_string(),
                r.n2i.to_string(),
                yi.clone(),
                vi.clone(),
            ]
        })
        .collect();
    use Align::{Left as L, Right as R};
    doc.table(&dataset::COLUMNS, &[L, L, R, R, L, L, R, R, R, R], &rows)?;
    doc.heading(3, &body("Columns"))?;
    for (name, description) in dataset::COLUMN_DESCRIPTIONS {
        // The short list stays on one page.
        doc.keep_last();
        doc.paragraph(
            &[
                (name.to_string(), BODY.with_font(Font::HelveticaBold)),
                (format!(": {description}"), BODY),
            ],
            document::LIST_INDENT,
            Some("•"),
            1.0,
        )?;
    }
    doc.heading(3, &body("The CSV file, byte for byte"))?;
    doc.paragraph(
        &body("Its SHA-256 is the dataset hash above (lines end with a line feed)."),
        0.0,
        None,
        2.0,
    )?;
    doc.keep_last();
    doc.code_block(dataset::CSV, 0.0, true)?;
    Ok(())
}

/// The common prompt section: a note on its wrapping, then the prompt verbatim.
fn prompt_section(doc: &mut Doc) -> Result<(), PdfError> {
    doc.heading(1, &body("The common prompt"))?;
    doc.paragraph(
        &body(
            "In both conditions of the benchmark the agent receives this prompt, byte for byte. \
             Long lines are wrapped here after a space or a comma and continue indented; the \
             prompt's own lines start flush left.",
        ),
        0.0,
        None,
        2.0,
    )?;
    doc.keep_last();
    doc.code_block(protocol::PROMPT, 0.0, true)?;
    Ok(())
}

const FOOTER: Style = Style::new(Font::Helvetica, 7.0).color(Color::Muted);
const FOOTER_MONO: Style = Style::new(Font::Courier, 6.8).color(Color::Muted);

/// The running header (pages after the first) and the footer of page `n` of `total`.
fn furniture(n: usize, total: usize) -> Vec<(f32, Vec<Item>)> {
    let mut out = Vec::new();
    let footer_y = MARGIN_BOTTOM - 34.0;
    let left: Vec<Span> = vec![
        (
            format!("Baseline {} · dataset SHA-256 ", protocol::BASELINE_VERSION),
            FOOTER,
        ),
        (dataset::sha256().to_string(), FOOTER_MONO),
    ];
    let right: Vec<Span> = vec![(format!("page {n} of {total}"), FOOTER)];
    let right_x = TEXT_WIDTH - width(&right).expect("ASCII renders");
    let mut items: Vec<Item> = vec![Item::Rule {
        x: 0.0,
        y: -9.0,
        w: TEXT_WIDTH,
        thickness: 0.4,
        gray: 0.6,
    }];
    for (spans, x) in [(left, 0.0), (right, right_x)] {
        let (pieces, _) = shape(&spans, x).expect("ASCII renders");
        items.extend(pieces.into_iter().map(Item::Text));
    }
    out.push((footer_y, items));
    if n > 1 {
        let header: Vec<Span> = vec![(TITLE.to_string(), FOOTER)];
        let (pieces, _) = shape(&header, 0.0).expect("ASCII renders");
        let mut items: Vec<Item> = pieces.into_iter().map(Item::Text).collect();
        items.push(Item::Rule {
            x: 0.0,
            y: -4.0,
            w: TEXT_WIDTH,
            thickness: 0.4,
            gray: 0.6,
        });
        out.push((PAGE_HEIGHT - MARGIN_TOP + 26.0, items));
    }
    out
}

/// Draws `items` with the line's top at `top` (PDF y, upwards) and its baseline `baseline`
/// below that. Item `y` offsets grow downwards.
fn draw(content: &mut Content, items: &[Item], top: f32, baseline: f32) {
    for item in items {
        match *item {
            Item::Fill { x, y, w, h, gray } => {
                content
                    .save_state()
                    .set_fill_gray(gray)
                    .rect(MARGIN_X + x, top - y - h, w, h)
                    .fill_nonzero()
                    .restore_state();
            }
            Item::Rule {
                x,
                y,
                w,
                thickness,
                gray,
            } => {
                content
                    .save_state()
                    .set_stroke_gray(gray)
                    .set_line_width(thickness)
                    .move_to(MARGIN_X + x, top - y)
                    .line_to(MARGIN_X + x + w, top - y)
                    .stroke()
                    .restore_state();
            }
            Item::Text(_) => {}
        }
    }
    let mut text = items
        .iter()
        .filter_map(|item| match item {
            Item::Text(piece) => Some(piece),
            _ => None,
        })
        .peekable();
    if text.peek().is_none() {
        return;
    }
    content.begin_text();
    let mut font: Option<(Font, f32)> = None;
    let mut color = None;
    for piece in text {
        if font != Some((piece.font, piece.size)) {
            content.set_font(Name(piece.font.resource_name().as_bytes()), piece.size);
            font = Some((piece.font, piece.size));
        }
        if color != Some(piece.color) {
            let [r, g, b] = piece.color.rgb();
            content.set_fill_rgb(r, g, b);
            color = Some(piece.color);
        }
        let y = top - baseline + piece.rise;
        content.set_text_matrix([1.0, 0.0, 0.0, 1.0, MARGIN_X + piece.x, y]);
        if let Some(actual) = &piece.actual {
            content
                .begin_marked_content_with_properties(Name(b"Span"))
                .properties()
                .actual_text(TextStr(actual));
        }
        content.show(Str(&piece.bytes));
        if piece.actual.is_some() {
            content.end_marked_content();
        }
    }
    content.end_text();
}

/// The document ID: derived from everything the content depends on, so it is stable.
fn document_id() -> Vec<u8> {
    let mut hasher = Sha256::new();
    for part in [
        protocol::BASELINE_VERSION,
        dataset::CSV,
        exemplar::benchmark_methods_markdown(),
        protocol::PROMPT,
        env!("CARGO_PKG_VERSION"),
    ] {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize()[..16].to_vec()
}

fn write(pages: Vec<Page>) -> Vec<u8> {
    let catalog_id = Ref::new(1);
    let tree_id = Ref::new(2);
    let info_id = Ref::new(3);
    let font_ids: Vec<Ref> = (0..Font::ALL.len() as i32)
        .map(|i| Ref::new(4 + i))
        .collect();
    let first_page = 4 + Font::ALL.len() as i32;
    let page_ids: Vec<Ref> = (0..pages.len() as i32)
        .map(|i| Ref::new(first_page + 2 * i))
        .collect();

    let mut pdf = Pdf::new();
    pdf.set_version(1, 7);
    let id = document_id();
    pdf.set_file_id((id.clone(), id));
    pdf.catalog(catalog_id).pages(tree_id).lang(TextStr("en"));
    pdf.document_info(info_id)
        .title(TextStr(TITLE))
        .subject(TextStr(&format!(
            "Baseline {}; dataset {} (SHA-256 {})",
            protocol::BASELINE_VERSION,
            dataset::NAME,
            dataset::sha256()
        )))
        .creator(TextStr(concat!("exemplar-pdf ", env!("CARGO_PKG_VERSION"))))
        .producer(TextStr("pdf-writer"));
    pdf.pages(tree_id)
        .kids(page_ids.iter().copied())
        .count(page_ids.len() as i32);
    for (font, id) in Font::ALL.iter().zip(&font_ids) {
        let mut f = pdf.type1_font(*id);
        f.base_font(Name(font.base_name().as_bytes()));
        // Symbol keeps its built-in encoding.
        if *font != Font::Symbol {
            f.encoding_predefined(Name(b"WinAnsiEncoding"));
        }
    }

    let total = pages.len();
    for (n, (page, page_id)) in pages.into_iter().zip(&page_ids).enumerate() {
        let content_id = Ref::new(page_id.get() + 1);
        let mut content = Content::new();
        let text_top = PAGE_HEIGHT - MARGIN_TOP;
        for (y_top, line) in &page {
            draw(&mut content, &line.items, text_top - y_top, line.baseline);
        }
        for (baseline_y, items) in furniture(n + 1, total) {
            draw(&mut content, &items, baseline_y, 0.0);
        }
        let mut p = pdf.page(*page_id);
        p.parent(tree_id)
            .media_box(Rect::new(0.0, 0.0, PAGE_WIDTH, PAGE_HEIGHT))
            .contents(content_id);
        let mut resources = p.resources();
        let mut fonts = resources.fonts();
        for (font, id) in Font::ALL.iter().zip(&font_ids) {
            fonts.pair(Name(font.resource_name().as_bytes()), *id);
        }
        fonts.finish();
        resources.finish();
        p.finish();
        pdf.stream(content_id, &content.finish());
    }
    pdf.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_methods_text_renders() {
        let mut doc = Doc::default();
        if let Err(e) = markdown::render(exemplar::benchmark_methods_markdown(), &mut doc) {
            panic!("docs/BENCHMARK_METHODS.md does not render: {e}");
        }
        assert!(doc.lines.len() > 50);
    }

    #[test]
    fn unrenderable_markdown_names_the_character() {
        let mut doc = Doc::default();
        let err = markdown::render("# Title\n\nSome ∮ here.\n", &mut doc).unwrap_err();
        assert!(matches!(
            err,
            PdfError::Unrenderable {
                character: '∮', ..
            }
        ));
        assert!(err.to_string().contains("U+222E"), "{err}");
        let err = markdown::render("> quoted\n", &mut doc).unwrap_err();
        assert!(err.to_string().contains("block quote"), "{err}");
    }

    #[test]
    fn csv_texts_match_the_rows() {
        let texts = csv_effect_texts().unwrap();
        assert_eq!(texts.len(), 19);
        assert_eq!(texts[9], ("0.80".to_string(), "0.0630".to_string()));
    }

    #[test]
    fn every_line_fits_the_text_width() {
        let doc = build().unwrap();
        for line in &doc.lines {
            for item in &line.items {
                if let Item::Text(piece) = item {
                    let w: f32 = piece
                        .bytes
                        .iter()
                        .map(|&b| piece.font.width(b) / 1000.0 * piece.size)
                        .sum();
                    assert!(
                        piece.x >= -30.0 && piece.x + w <= TEXT_WIDTH + 0.5,
                        "overflows: {piece:?}"
                    );
                }
            }
        }
    }
}
