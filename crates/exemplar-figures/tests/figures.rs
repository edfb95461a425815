//! Figures as papers take them, from a forest plot as `exemplar` draws it
//! (`fixtures/forest.svg`: dat.bcg's risk ratios, 390 × 648 CSS pixels, a copy of a golden
//! SVG kept here so that a change of the plots does not move these bytes).
//!
//! `fixtures/forest.sha256` holds the SHA-256 of the PNG at 300 dpi and of the PDF: the
//! native bytes, which the page's wasm must give too (`crates/exemplar-wasm/tests/figures.rs`).
//! A new resvg, svg2pdf or png changes them on purpose: re-record with
//! `UPDATE_SNAPSHOTS=1 cargo test -p exemplar-figures --test figures`.

use exemplar_figures::{
    pixel_size, render, FigureError, Format, MAX_DPI, MAX_PIXELS, MAX_SVG_BYTES,
};
use sha2::{Digest, Sha256};

const FOREST: &str = include_str!("fixtures/forest.svg");
const HASHES: &str = "tests/fixtures/forest.sha256";

/// A decoded PNG: its size, its pixels per metre, whether it is greyscale, its RGB bytes.
struct Decoded {
    width: u32,
    height: u32,
    per_metre: Option<(u32, u32)>,
    grey: bool,
    rgb: Vec<u8>,
}

fn decode(bytes: &[u8]) -> Decoded {
    let decoder = png::Decoder::new(bytes);
    let mut reader = decoder.read_info().expect("a PNG");
    let info = reader.info();
    let grey = match info.color_type {
        png::ColorType::Grayscale => true,
        png::ColorType::Rgb => false,
        other => panic!("{other:?}: neither greyscale nor RGB (a figure has no alpha)"),
    };
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let per_metre = info.pixel_dims.map(|d| {
        assert_eq!(d.unit, png::Unit::Meter);
        (d.xppu, d.yppu)
    });
    let mut rgb = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut rgb).expect("its pixels");
    rgb.truncate(frame.buffer_size());
    if grey {
        rgb = rgb.iter().flat_map(|&g| [g, g, g]).collect();
    }
    Decoded {
        width: frame.width,
        height: frame.height,
        per_metre,
        grey,
        rgb,
    }
}

impl Decoded {
    /// How many pixels of the box (x, y, width, height in CSS pixels, at `dpi`) are dark
    /// (each channel under 128): ink of text or lines on the white ground.
    fn dark_in(&self, dpi: u32, (x, y, w, h): (f64, f64, f64, f64)) -> usize {
        let s = f64::from(dpi) / 96.0;
        let (x0, y0) = ((x * s) as usize, (y * s) as usize);
        let (x1, y1) = (((x + w) * s) as usize, ((y + h) * s) as usize);
        let mut dark = 0;
        for row in y0..y1.min(self.height as usize) {
            for col in x0..x1.min(self.width as usize) {
                let at = (row * self.width as usize + col) * 3;
                if self.rgb[at..at + 3].iter().all(|&c| c < 128) {
                    dark += 1;
                }
            }
        }
        dark
    }
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_png_is_the_plot_in_inches_times_the_dpi() {
    for (dpi, size) in [(300, (1219, 2025)), (96, (390, 648)), (150, (610, 1013))] {
        let png = decode(&render(FOREST, Format::Png { dpi }).unwrap());
        assert_eq!((png.width, png.height), size, "{dpi} dpi");
        assert_eq!(
            pixel_size((390.0, 648.0), dpi),
            (size.0.into(), size.1.into())
        );
        // pHYs: dpi / 0.0254 pixels a metre (300 dpi is 11811).
        let per_metre = (f64::from(dpi) / 0.0254).round() as u32;
        assert_eq!(png.per_metre, Some((per_metre, per_metre)), "{dpi} dpi");
    }
    assert_eq!(Format::PNG, Format::Png { dpi: 300 });
}

/// A plot in greys (the forest) is a greyscale PNG, a third of the bytes to compress; a
/// colour keeps its RGB.
#[test]
fn a_png_is_grey_when_the_plot_is() {
    assert!(decode(&render(FOREST, Format::Png { dpi: 96 }).unwrap()).grey);
    let red = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect x="2" y="2" width="4" height="4" fill="#d00000"/></svg>"##;
    let png = decode(&render(red, Format::Png { dpi: 96 }).unwrap());
    assert!(!png.grey);
    let at = |x: usize, y: usize| &png.rgb[(y * 10 + x) * 3..(y * 10 + x) * 3 + 3];
    assert_eq!(at(3, 3), [0xd0, 0, 0]);
    assert_eq!(at(8, 8), [255, 255, 255]);
}

#[test]
fn the_png_draws_the_text_in_the_embedded_font() {
    let png = decode(&render(FOREST, Format::PNG).unwrap());
    // The ground is white (the SVG's own background, and the PNG is flattened onto white).
    assert_eq!(&png.rgb[..3], &[255, 255, 255]);
    // The title "Forest plot: Risk ratio" (bold 14 px, baseline y = 24, from x = 12) is
    // ink; the margin above it is not. Without a font, usvg drops the text and both are white.
    let title = png.dark_in(300, (12.0, 12.0, 150.0, 14.0));
    assert!(title > 2000, "{title} dark pixels in the title");
    assert_eq!(png.dark_in(300, (0.0, 0.0, 390.0, 8.0)), 0);
    // The header "Study" (bold 11 px at x = 12, baseline y = 64) is drawn too.
    assert!(png.dark_in(300, (12.0, 54.0, 30.0, 12.0)) > 300);
}

/// Each face is the one asked for: bold text has more ink than regular, italic text other
/// pixels than upright.
#[test]
fn bold_and_italic_are_their_own_faces() {
    let text = |attrs: &str| {
        let svg = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 40" font-family="system-ui, Helvetica, Arial, sans-serif" font-size="20"><rect width="200" height="40" fill="#fff"/><text x="4" y="28" {attrs}>Forest plot</text></svg>"##
        );
        decode(&render(&svg, Format::Png { dpi: 96 }).unwrap())
    };
    let all = (0.0, 0.0, 200.0, 40.0);
    let (regular, bold, italic) = (
        text(""),
        text(r#"font-weight="bold""#),
        text(r#"font-style="italic""#),
    );
    let ink = |png: &Decoded| png.dark_in(96, all);
    assert!(ink(&regular) > 100, "{}", ink(&regular));
    assert!(
        ink(&bold) as f64 > 1.3 * ink(&regular) as f64,
        "bold {} vs regular {}",
        ink(&bold),
        ink(&regular)
    );
    assert_ne!(italic.rgb, regular.rgb);
}

#[test]
fn the_pdf_is_one_page_the_plot_s_size_with_its_font_embedded() {
    let pdf = render(FOREST, Format::Pdf).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    assert!(pdf.trim_ascii_end().ends_with(b"%%EOF"));
    let text = String::from_utf8_lossy(&pdf);
    // 390 × 648 CSS pixels are 292.5 × 486 points (72 a 96-pixel inch).
    assert!(
        text.contains("/MediaBox [0 0 292.5 486]"),
        "{}",
        &text[..600.min(text.len())]
    );
    assert_eq!(
        text.matches("/Type /Page\n").count()
            + text.matches("/Type /Page/").count()
            + text.matches("/Type /Page ").count(),
        1
    );
    // The font is in the file (a TrueType subset, FontFile2), named for Liberation Sans,
    // with a ToUnicode map so the text can be searched and copied.
    assert!(text.contains("/FontFile2"));
    assert!(text.contains("LiberationSans"), "no Liberation Sans font");
    assert!(text.contains("LiberationSans-Bold"), "no bold face");
    assert!(text.contains("/ToUnicode"));
}

#[test]
fn a_figure_is_the_same_bytes_each_time_and_as_recorded() {
    let png = render(FOREST, Format::PNG).unwrap();
    let pdf = render(FOREST, Format::Pdf).unwrap();
    assert!(png == render(FOREST, Format::PNG).unwrap());
    assert!(pdf == render(FOREST, Format::Pdf).unwrap());
    let hashes = format!("png-300 {}\npdf {}\n", sha256(&png), sha256(&pdf));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(HASHES, &hashes).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(HASHES).unwrap(),
        hashes,
        "the figures' bytes changed (re-record on purpose: UPDATE_SNAPSHOTS=1)"
    );
}

#[test]
fn limits_are_refused_before_the_work() {
    assert_eq!(
        render(FOREST, Format::Png { dpi: 0 }),
        Err(FigureError::Dpi(0))
    );
    assert_eq!(
        render(FOREST, Format::Png { dpi: MAX_DPI + 1 }),
        Err(FigureError::Dpi(MAX_DPI + 1))
    );
    // At 2,400 dpi the forest is 9,750 × 16,200 pixels: refused before a pixmap is made.
    let (width, height) = pixel_size((390.0, 648.0), MAX_DPI);
    assert!(width * height > MAX_PIXELS);
    assert_eq!(
        render(FOREST, Format::Png { dpi: MAX_DPI }),
        Err(FigureError::TooManyPixels { width, height })
    );
    let long = format!("{FOREST}{}", " ".repeat(MAX_SVG_BYTES));
    assert_eq!(
        render(&long, Format::Pdf),
        Err(FigureError::SvgTooLong { bytes: long.len() })
    );
    let entities = r#"<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><text>&a;</text></svg>"#;
    assert_eq!(render(entities, Format::PNG), Err(FigureError::Doctype));
    let error = render("<p>not an svg</p>", Format::PNG).unwrap_err();
    assert!(matches!(error, FigureError::InvalidSvg(_)), "{error:?}");
    assert!(
        error.to_string().starts_with("the SVG cannot be read: "),
        "{error}"
    );
    assert!(FigureError::TooManyPixels { width, height }
        .to_string()
        .contains("9750 × 16200"));
}
