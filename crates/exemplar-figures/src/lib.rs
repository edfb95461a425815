//! A plot's SVG as a figure in the formats papers take: PNG at a chosen resolution (300 dpi
//! by default) and PDF with its font embedded.
//!
//! Rendering is resvg's (PNG) and svg2pdf's (PDF), both over one usvg tree. Every text is
//! drawn with Liberation Sans (Regular, Bold, Italic), embedded in this crate
//! (`fonts/`, SIL Open Font License 1.1): the SVG's `font-family` list (system-ui, …,
//! Helvetica, Arial, sans-serif, the plots' list) names no font the database holds but the
//! generic `sans-serif`, which is Liberation Sans, metrically Arial's twin, whose widths the
//! plots' layouts assume. No system font, file or URL is ever read, so a figure is the same
//! bytes on every machine, natively and in WebAssembly.
//!
//! Sizes: an SVG pixel is a CSS pixel, 1/96 inch ([`CSS_DPI`]). The PNG of a plot `w` pixels
//! wide at `dpi` is ⌈w / 96 × dpi⌉ pixels wide (and likewise high), and says its resolution
//! in its `pHYs` chunk; the PDF's page is `w × 72 / 96` points wide. Limits are checked
//! before the work they bound: the SVG's length before it is parsed ([`MAX_SVG_BYTES`]), the
//! image's pixels before any is allocated ([`MAX_PIXELS`]).

mod pdf_order;

use resvg::tiny_skia::{Color, Pixmap, Transform};
use resvg::usvg::{self, fontdb, ImageHrefResolver, Tree};
use std::fmt;
use std::io::Write;
use std::sync::{Arc, OnceLock};

/// The resolution a PNG is rendered at unless another is asked for: what journals ask of
/// figures with text.
pub const DEFAULT_DPI: u32 = 300;
/// The highest resolution a PNG may be asked for (journals ask at most 1,200 dpi of line
/// art).
pub const MAX_DPI: u32 = 2400;
/// The most pixels a PNG may have (width × height): 24 megapixels (a 4-inch-wide forest
/// plot 10 inches long is 14.4 at 600 dpi). Its pixmap is 96 MB, which a browser tab holds.
pub const MAX_PIXELS: u64 = 24_000_000;
/// The longest SVG text read (16 MiB): a forest of thousands of records is far less.
pub const MAX_SVG_BYTES: usize = 16 << 20;
/// Pixels an inch of an SVG's user units (CSS pixels), by which sizes become inches.
pub const CSS_DPI: f32 = 96.0;
/// The family every text of a figure is drawn in.
pub const FONT_FAMILY: &str = "Liberation Sans";

/// The font files, unaltered (Liberation Sans 2.1.5; `fonts/OFL.txt`).
const FACES: [&[u8]; 3] = [
    include_bytes!("../fonts/LiberationSans-Regular.ttf"),
    include_bytes!("../fonts/LiberationSans-Bold.ttf"),
    include_bytes!("../fonts/LiberationSans-Italic.ttf"),
];

/// What a figure is rendered as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A PNG (8-bit RGB, flattened onto white, as print has no transparency) at `dpi` pixels
    /// an inch.
    Png { dpi: u32 },
    /// A one-page PDF the plot's size, its text as text in the embedded font's subset.
    Pdf,
}

impl Format {
    /// A PNG at [`DEFAULT_DPI`].
    pub const PNG: Format = Format::Png { dpi: DEFAULT_DPI };

    /// The format named `name` (`png` or `pdf`), a PNG at `dpi` (default [`DEFAULT_DPI`]):
    /// how a caller that passes text (the page's wasm) names one. A resolution is a PNG's.
    pub fn named(name: &str, dpi: Option<u32>) -> Result<Format, FigureError> {
        match (name, dpi) {
            ("png", dpi) => Ok(Format::Png {
                dpi: dpi.unwrap_or(DEFAULT_DPI),
            }),
            ("pdf", None) => Ok(Format::Pdf),
            ("pdf", Some(_)) => Err(FigureError::Format(
                "a resolution (dpi) is a PNG's, not a PDF's".into(),
            )),
            (other, _) => Err(FigureError::Format(format!(
                "a figure is png or pdf, not {other:?}"
            ))),
        }
    }

    /// The media type of the bytes [`render`] returns.
    pub fn mime_type(self) -> &'static str {
        match self {
            Format::Png { .. } => "image/png",
            Format::Pdf => "application/pdf",
        }
    }
}

/// Why a figure was not rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FigureError {
    /// A format named as none is ([`Format::named`]).
    Format(String),
    /// The SVG text is longer than [`MAX_SVG_BYTES`].
    SvgTooLong { bytes: usize },
    /// The SVG declares a document type; the plots write none, and its entities are not
    /// expanded here.
    Doctype,
    /// The text is not an SVG usvg reads (its message).
    InvalidSvg(String),
    /// The resolution is 0 or over [`MAX_DPI`].
    Dpi(u32),
    /// The PNG would have more than [`MAX_PIXELS`] pixels.
    TooManyPixels { width: u64, height: u64 },
    /// svg2pdf could not write the PDF (its message).
    Pdf(String),
    /// The PNG could not be encoded (its message).
    Png(String),
}

impl fmt::Display for FigureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FigureError::Format(message) => f.write_str(message),
            FigureError::SvgTooLong { bytes } => write!(
                f,
                "the SVG is {bytes} bytes, over the {MAX_SVG_BYTES} a figure is made from"
            ),
            FigureError::Doctype => f.write_str("the SVG declares a document type, which a figure does not read"),
            FigureError::InvalidSvg(message) => write!(f, "the SVG cannot be read: {message}"),
            FigureError::Dpi(dpi) => write!(
                f,
                "the resolution must be 1 to {MAX_DPI} dpi, not {dpi}"
            ),
            FigureError::TooManyPixels { width, height } => write!(
                f,
                "the PNG would be {width} × {height} pixels, over the {MAX_PIXELS} a figure may have: ask for fewer dpi"
            ),
            FigureError::Pdf(message) => write!(f, "the PDF cannot be written: {message}"),
            FigureError::Png(message) => write!(f, "the PNG cannot be encoded: {message}"),
        }
    }
}

impl std::error::Error for FigureError {}

/// The SVG `svg` as a figure in `format`: the PNG's or the PDF's bytes.
pub fn render(svg: &str, format: Format) -> Result<Vec<u8>, FigureError> {
    if let Format::Png { dpi } = format {
        if dpi == 0 || dpi > MAX_DPI {
            return Err(FigureError::Dpi(dpi));
        }
    }
    let tree = parse(svg)?;
    match format {
        Format::Png { dpi } => png(&tree, dpi),
        Format::Pdf => pdf(&tree),
    }
}

/// The pixels (width, height) of a PNG of an SVG `size` CSS pixels large at `dpi`:
/// ⌈size / 96 × dpi⌉ each.
pub fn pixel_size(size: (f32, f32), dpi: u32) -> (u64, u64) {
    // A hair under each whole pixel counts as it, so that rounding in the product never adds
    // a column (96 × 300 / 96 is 300, not 301).
    let side = |css: f32| (f64::from(css) * f64::from(dpi) / f64::from(CSS_DPI) - 1e-6).ceil();
    (side(size.0).max(1.0) as u64, side(size.1).max(1.0) as u64)
}

/// The font database every figure is drawn with: the embedded faces, and every generic
/// family (`sans-serif`, `serif`, …) mapped to them. Built once.
fn fonts() -> Arc<fontdb::Database> {
    static FONTS: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = fontdb::Database::new();
            for face in FACES {
                db.load_font_source(fontdb::Source::Binary(Arc::new(face)));
            }
            db.set_sans_serif_family(FONT_FAMILY);
            db.set_serif_family(FONT_FAMILY);
            db.set_monospace_family(FONT_FAMILY);
            db.set_cursive_family(FONT_FAMILY);
            db.set_fantasy_family(FONT_FAMILY);
            Arc::new(db)
        })
        .clone()
}

/// The SVG read into usvg's tree with our fonts, its text shaped into outlines; an `<image>`
/// is never fetched (neither a file nor a data URL: the plots draw none).
fn parse(svg: &str) -> Result<Tree, FigureError> {
    if svg.len() > MAX_SVG_BYTES {
        return Err(FigureError::SvgTooLong { bytes: svg.len() });
    }
    if svg.contains("<!DOCTYPE") {
        return Err(FigureError::Doctype);
    }
    let options = usvg::Options {
        font_family: FONT_FAMILY.to_string(),
        fontdb: fonts(),
        image_href_resolver: ImageHrefResolver {
            resolve_data: Box::new(|_, _, _| None),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    };
    Tree::from_str(svg, &options).map_err(|e| FigureError::InvalidSvg(e.to_string()))
}

/// The tree drawn at `dpi` on white, as an RGB PNG whose `pHYs` says `dpi`.
fn png(tree: &Tree, dpi: u32) -> Result<Vec<u8>, FigureError> {
    let size = tree.size();
    let (width, height) = pixel_size((size.width(), size.height()), dpi);
    if width.saturating_mul(height) > MAX_PIXELS {
        return Err(FigureError::TooManyPixels { width, height });
    }
    // Both sides are at most MAX_PIXELS, which fits a u32.
    let (width, height) = (width as u32, height as u32);
    let mut pixmap = Pixmap::new(width, height)
        .ok_or_else(|| FigureError::Png(format!("no {width} × {height} pixmap")))?;
    pixmap.fill(Color::WHITE);
    let scale = dpi as f32 / CSS_DPI;
    resvg::render(
        tree,
        Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    encode_png(&pixmap, dpi).map_err(|e| FigureError::Png(e.to_string()))
}

/// An opaque pixmap as an 8-bit PNG with its resolution, a row at a time: greyscale when
/// every pixel is a grey (most plots: a third of the pixels to compress), else RGB.
fn encode_png(pixmap: &Pixmap, dpi: u32) -> Result<Vec<u8>, png::EncodingError> {
    let grey = pixmap
        .pixels()
        .iter()
        .all(|p| p.red() == p.green() && p.green() == p.blue());
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(if grey {
        png::ColorType::Grayscale
    } else {
        png::ColorType::Rgb
    });
    encoder.set_depth(png::BitDepth::Eight);
    // pHYs counts pixels a metre.
    let per_metre = (f64::from(dpi) / 0.0254).round() as u32;
    encoder.set_pixel_dims(Some(png::PixelDimensions {
        xppu: per_metre,
        yppu: per_metre,
        unit: png::Unit::Meter,
    }));
    // The smallest of the png crate's settings tried on the plots (a forest at 300 dpi: 143 KB,
    // against 203 KB by default).
    encoder.set_compression(png::Compression::Best);
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut writer = encoder.write_header()?;
    {
        let mut stream = writer.stream_writer()?;
        let mut row = Vec::with_capacity(pixmap.width() as usize * 3);
        for line in pixmap.data().chunks_exact(pixmap.width() as usize * 4) {
            row.clear();
            // Every pixel is opaque (the pixmap was white first), so premultiplied RGB is RGB.
            if grey {
                row.extend(line.chunks_exact(4).map(|p| p[0]));
            } else {
                row.extend(line.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]));
            }
            stream.write_all(&row)?;
        }
        stream.finish()?;
    }
    writer.finish()?;
    Ok(out)
}

/// The tree as a one-page PDF the plot's size (96 CSS pixels an inch), its text embedded.
fn pdf(tree: &Tree) -> Result<Vec<u8>, FigureError> {
    let conversion = svg2pdf::ConversionOptions {
        compress: true,
        embed_text: true,
        ..svg2pdf::ConversionOptions::default()
    };
    let page = svg2pdf::PageOptions { dpi: CSS_DPI };
    let pdf =
        svg2pdf::to_pdf(tree, conversion, page).map_err(|e| FigureError::Pdf(e.to_string()))?;
    // svg2pdf's font objects come in a hash map's order; put them in one. Should its layout
    // ever surprise the reader, its own bytes are still a valid PDF.
    Ok(pdf_order::canonical(&pdf).unwrap_or(pdf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_holds_our_three_faces_and_no_other() {
        let db = fonts();
        let faces: Vec<_> = db.faces().collect();
        assert_eq!(faces.len(), 3);
        for face in &faces {
            assert_eq!(face.families[0].0, FONT_FAMILY);
        }
        let styles: Vec<_> = faces.iter().map(|f| (f.weight.0, f.style)).collect();
        assert!(styles.contains(&(400, fontdb::Style::Normal)), "{styles:?}");
        assert!(styles.contains(&(700, fontdb::Style::Normal)), "{styles:?}");
        assert!(styles.contains(&(400, fontdb::Style::Italic)), "{styles:?}");
    }

    #[test]
    fn formats_are_named_as_files_are() {
        assert_eq!(Format::named("png", None), Ok(Format::PNG));
        assert_eq!(
            Format::named("png", Some(600)),
            Ok(Format::Png { dpi: 600 })
        );
        assert_eq!(Format::named("pdf", None), Ok(Format::Pdf));
        for (name, dpi) in [("pdf", Some(300)), ("svg", None), ("PNG", None)] {
            let error = Format::named(name, dpi).unwrap_err();
            assert!(matches!(error, FigureError::Format(_)), "{name}: {error}");
        }
        assert_eq!(Format::PNG.mime_type(), "image/png");
        assert_eq!(Format::Pdf.mime_type(), "application/pdf");
    }

    #[test]
    fn pixel_sizes_are_inches_times_dpi_rounded_up() {
        assert_eq!(pixel_size((96.0, 48.0), 300), (300, 150));
        assert_eq!(pixel_size((390.0, 648.0), 300), (1219, 2025));
        assert_eq!(pixel_size((390.0, 648.0), 96), (390, 648));
        assert_eq!(pixel_size((0.5, 0.5), 1), (1, 1));
    }
}
