//! `cargo xtask build`: the page's generated inputs.
//!
//! - `www/pkg`: `crates/exemplar-wasm` for wasm32 (release), through
//!   `wasm-bindgen --target web`, shrunk by `wasm-opt -Oz`.
//! - `www/generated/methods.html`: `docs/METHODS.md` as an HTML fragment, so
//!   the page carries the methods from their one source.

use std::path::Path;
use std::process::Command;

use pulldown_cmark::{html, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::toolchain::{cargo, npm_bin, run, WASM_TARGET};
use crate::Result;

const WASM_CRATE: &str = "exemplar-wasm";
const WASM_FILE: &str = "exemplar_wasm.wasm";

/// Post-MVP features that rustc enables by default for wasm32 and Chromium
/// supports; wasm-opt must be told, or it rejects the module it validates.
const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

pub fn build(root: &Path) -> Result<()> {
    build_wasm(root)?;
    render_methods(root)
}

fn build_wasm(root: &Path) -> Result<()> {
    run(cargo()
        .args([
            "build",
            "--release",
            "-p",
            WASM_CRATE,
            "--target",
            WASM_TARGET,
        ])
        .current_dir(root))?;
    let wasm = crate::target_dir(root)
        .join(WASM_TARGET)
        .join("release")
        .join(WASM_FILE);
    let out_dir = root.join("www").join("pkg");
    if out_dir.exists() {
        std::fs::remove_dir_all(&out_dir)?;
    }
    run(Command::new("wasm-bindgen")
        .args(["--target", "web", "--no-typescript", "--out-dir"])
        .arg(&out_dir)
        .arg(&wasm))?;
    let bg = out_dir.join("exemplar_wasm_bg.wasm");
    let before = std::fs::metadata(&bg)?.len();
    run(Command::new(npm_bin(root, "wasm-opt"))
        .arg("-Oz")
        .args(WASM_FEATURES)
        .arg(&bg)
        .arg("-o")
        .arg(&bg))?;
    let after = std::fs::metadata(&bg)?.len();
    println!(
        "www/pkg/exemplar_wasm_bg.wasm: {:.1} KB after wasm-opt -Oz ({:.1} KB before)",
        after as f64 / 1000.0,
        before as f64 / 1000.0
    );
    Ok(())
}

/// Renders docs/METHODS.md. The fragment is our own build output, so the
/// page may insert it as HTML; pasted and computed text never goes that way.
fn render_methods(root: &Path) -> Result<()> {
    let source = root.join("docs").join("METHODS.md");
    let markdown = std::fs::read_to_string(&source)
        .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH;
    let mut fragment = String::with_capacity(markdown.len() * 2);
    // The page's section heading ("Methods", an h2) replaces the document's
    // title, and the document's sections nest below it.
    let mut in_title = false;
    let mut seen_content = false;
    let events = Parser::new_ext(&markdown, options).filter_map(|event| {
        let first = !seen_content;
        seen_content = true;
        match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H1,
                ..
            }) if first => {
                in_title = true;
                None
            }
            Event::End(TagEnd::Heading(HeadingLevel::H1)) if in_title => {
                in_title = false;
                None
            }
            _ if in_title => None,
            Event::Start(Tag::Heading {
                level,
                id,
                classes,
                attrs,
            }) => Some(Event::Start(Tag::Heading {
                level: demote(level),
                id,
                classes,
                attrs,
            })),
            Event::End(TagEnd::Heading(level)) => Some(Event::End(TagEnd::Heading(demote(level)))),
            other => Some(other),
        }
    });
    html::push_html(&mut fragment, events);
    let out_dir = root.join("www").join("generated");
    std::fs::create_dir_all(&out_dir)?;
    std::fs::write(out_dir.join("methods.html"), fragment)?;
    println!("www/generated/methods.html: rendered from docs/METHODS.md");
    Ok(())
}

fn demote(level: HeadingLevel) -> HeadingLevel {
    HeadingLevel::try_from((level as usize + 1).min(6)).unwrap_or(HeadingLevel::H6)
}
