//! What every plot's document has, written once so the plots cannot drift apart: the root
//! element with its accessible name and description, the visible title, the frame of a
//! two-axis plot, the notes under it, and the end that hands back the numbers drawn.

use super::svg::{self, fixed, px, Writer};
use super::{PlotOutput, INK};
use serde_json::Value;

/// The left margin of the title, the row labels and the notes.
pub(super) const LEFT: f64 = 12.0;
/// The notes' line height in the row plots (forest, cumulative forest).
pub(super) const NOTE_LINE: f64 = 15.0;

const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";

/// Opens the document: the root element, its accessible name and description, a white
/// background (for dark page themes and print) and the title in bold.
pub(super) fn open(
    w: &mut Writer,
    kind: &str,
    size: (f64, f64),
    title: &str,
    desc: &str,
    numbers: &Value,
) {
    let (width, height) = size;
    let (title_id, desc_id) = element_ids(kind, title, numbers);
    let view_box = format!("0 0 {} {}", px(width), px(height));
    let class = format!("exemplar-plot exemplar-{kind}");
    w.open(
        "svg",
        &[
            ("xmlns", "http://www.w3.org/2000/svg"),
            ("viewBox", &view_box),
            ("width", "100%"),
            ("role", "img"),
            ("aria-labelledby", &title_id),
            ("aria-describedby", &desc_id),
            ("class", &class),
            ("data-plot", kind),
            ("font-family", FONT),
            ("font-size", "12"),
            ("fill", INK),
        ],
    );
    w.text("title", &[("id", &title_id)], title);
    w.text("desc", &[("id", &desc_id)], desc);
    w.empty(
        "rect",
        &[
            ("width", &px(width)),
            ("height", &px(height)),
            ("fill", "#ffffff"),
        ],
    );
    w.text(
        "text",
        &[
            ("class", "plot-title"),
            ("x", &px(LEFT)),
            ("y", "24.00"),
            ("font-size", &title_font(title, width)),
            ("font-weight", "bold"),
        ],
        title,
    );
}

/// The title's size: 14 px, less (to 11 px, the least any text is drawn at) for a title that
/// would not fit the plot's width otherwise, in whole pixels.
fn title_font(title: &str, width: f64) -> String {
    let fits = (width - 2.0 * LEFT) / text_width(title, 1.0, true);
    fixed(fits.floor().clamp(NOTE_FONT, 14.0), 0)
}

/// The baseline of the subtitle under the title.
pub(super) const SUBTITLE_Y: f64 = 42.0;

/// The line under the title (what was fitted, on which data), at 11 px.
pub(super) fn subtitle(w: &mut Writer, text: &str) {
    w.text(
        "text",
        &[
            ("class", "plot-subtitle"),
            ("x", &px(LEFT)),
            ("y", &px(SUBTITLE_Y)),
            ("font-size", "11"),
        ],
        text,
    );
}

/// The average advance of a character of text, in em, as the layouts measure it: digits
/// and lower-case letters of the sans-serif faces named are 0.5–0.56 em; capitals wider,
/// spaces and punctuation narrower.
pub(super) const TEXT_EM: f64 = 0.56;

/// How wide `text` is drawn at `font` pixels (bold about 8% wider), as the layouts reckon it.
pub(super) fn text_width(text: &str, font: f64, bold: bool) -> f64 {
    let width = text.chars().count() as f64 * TEXT_EM * font;
    if bold {
        width * 1.08
    } else {
        width
    }
}

/// `text` broken at spaces into lines at most `width` pixels wide at `font` pixels (a word
/// longer than a line keeps a line of its own).
pub(super) fn wrap(text: &str, width: f64, font: f64) -> Vec<String> {
    let chars = ((width / (TEXT_EM * font)).floor() as usize).max(8);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// Every note wrapped to the plot's `width` (less the margins) at the notes' 11 px.
pub(super) fn wrap_notes(notes: &[String], width: f64) -> Vec<String> {
    notes
        .iter()
        .flat_map(|n| wrap(n, width - 2.0 * LEFT, NOTE_FONT))
        .collect()
}

/// The notes' font size: the least any plot text is drawn at (readable at 11 px on a phone
/// when the plot is 390 wide).
pub(super) const NOTE_FONT: f64 = 11.0;

/// Ids unique to the content, so several plots can share one page without their
/// `aria-labelledby` targets colliding.
fn element_ids(kind: &str, title: &str, numbers: &Value) -> (String, String) {
    let hash = crate::sha256_hex(format!("{kind}\n{title}\n{numbers}").as_bytes());
    let base = format!("{kind}-plot-{}", &hash[..10]);
    (format!("{base}-title"), format!("{base}-desc"))
}

/// The frame around the plot area of a plot with two axes (funnel, bubble).
pub(super) fn frame(w: &mut Writer, (x0, x1): (f64, f64), (y0, y1): (f64, f64)) {
    w.empty(
        "rect",
        &[
            ("x", &px(x0)),
            ("y", &px(y0)),
            ("width", &px(x1 - x0)),
            ("height", &px(y1 - y0)),
            ("fill", "none"),
            ("stroke", INK),
        ],
    );
}

/// The notes under the axis, one line each from `top` down, `line_height` apart.
pub(super) fn notes(w: &mut Writer, notes: &[String], top: f64, line_height: f64) {
    w.open("g", &[("class", "notes"), ("font-size", "11")]);
    for (i, note) in notes.iter().enumerate() {
        w.text(
            "text",
            &[("x", &px(LEFT)), ("y", &px(top + i as f64 * line_height))],
            note,
        );
    }
    w.close("g");
}

/// The y of the first note under the bottom axis at `axis_y` (below its tick labels and title).
pub(super) fn notes_top(axis_y: f64) -> f64 {
    axis_y + 58.0
}

/// Closes the document and hands it back with the numbers it draws.
pub(super) fn finish(mut w: svg::Writer, numbers: Value) -> PlotOutput {
    w.close("svg");
    PlotOutput {
        svg: w.finish(),
        numbers,
    }
}
