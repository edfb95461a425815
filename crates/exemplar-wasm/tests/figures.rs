//! `renderFigure` as the page calls it (issue 45 item 3), in the figures module (feature
//! `figures`; Node): the bytes of a forest's PNG and PDF are the native ones, whose SHA-256
//! `crates/exemplar-figures/tests/figures.rs` holds in the same fixture.
#![cfg(feature = "figures")]

use exemplar_wasm::render_figure;
use wasm_bindgen_test::wasm_bindgen_test;

const FOREST: &str = include_str!("../../exemplar-figures/tests/fixtures/forest.svg");
const HASHES: &str = include_str!("../../exemplar-figures/tests/fixtures/forest.sha256");

fn native_sha256(what: &str) -> &'static str {
    HASHES
        .lines()
        .find_map(|line| line.strip_prefix(what)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {what} in the fixture"))
}

#[wasm_bindgen_test]
fn a_forest_is_the_native_bytes_as_png_and_pdf() {
    let png = render_figure(FOREST, "png", None).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    // 390 × 648 CSS pixels at 300 dpi (the default).
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((be(16), be(20)), (1219, 2025));
    assert_eq!(exemplar::sha256_hex(&png), native_sha256("png-300"));

    let pdf = render_figure(FOREST, "pdf", None).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    assert_eq!(exemplar::sha256_hex(&pdf), native_sha256("pdf"));

    let small = render_figure(FOREST, "png", Some(96)).unwrap();
    assert_eq!((u32::from_be_bytes(small[16..20].try_into().unwrap())), 390);
}

#[wasm_bindgen_test]
fn a_figure_that_cannot_be_made_is_an_error() {
    // JsError's message is only readable through JS; that each call is refused is what the
    // page relies on, the messages are exemplar-figures' own (tested there).
    assert!(render_figure(FOREST, "svg", None).is_err());
    assert!(render_figure(FOREST, "pdf", Some(300)).is_err());
    assert!(render_figure(FOREST, "png", Some(0)).is_err());
    assert!(render_figure(FOREST, "png", Some(2400)).is_err());
    assert!(render_figure("<p>no svg</p>", "png", None).is_err());
}
