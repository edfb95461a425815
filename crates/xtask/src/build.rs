//! `cargo xtask build`: the page's generated inputs.
//!
//! - `www/pkg/core`, `www/pkg/full` and `www/pkg/figures`: `crates/exemplar-wasm` for wasm32
//!   (profile `wasm`: release, optimized for size), without and with its `full` feature,
//!   and with its `figures` feature alone, each through `wasm-bindgen --target web` and
//!   shrunk by `wasm-opt -Oz`.
//! - `www/generated/methods.html`: `docs/BENCHMARK_METHODS.md` (the benchmark's
//!   methods, as the frozen PDF carries them) and, folded, `docs/METHODS.md` (the
//!   engine's), as an HTML fragment, so the page carries both from their one source.
//! - `www/generated/runs-summary.json`: the Living Evidence summary of the
//!   records in `runs/`, checked first exactly as `exemplar runs check` does.
//!
//! The committed generated files the page also reads (`www/generated/tools.json`, the engine's
//! JSON Schema and TypeScript declarations) are `cargo xtask codegen`'s, not the build's.

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
    // The records first: an invalid record fails the build in seconds, not after the wasm.
    summarize_runs(root)?;
    build_wasm(root)?;
    render_methods(root)
}

/// Checks `runs/*.json` and writes the summary the page renders. The build fails on any
/// error `exemplar runs check` would report, with the same messages.
pub fn summarize_runs(root: &Path) -> Result<()> {
    let dir = root.join("runs");
    let report = exemplar_cli::check_run_folder(&dir)?.report;
    for w in &report.warnings {
        eprintln!("warning: runs/: {w}");
    }
    if !report.ok() {
        let errors: Vec<String> = report.errors.iter().map(|e| format!("  {e}")).collect();
        return Err(format!(
            "runs/ holds invalid records (exemplar runs check):\n{}",
            errors.join("\n")
        )
        .into());
    }
    let summary = exemplar::runs::summarize(&report.runs).to_json();
    let out_dir = root.join("www").join("generated");
    std::fs::create_dir_all(&out_dir)?;
    std::fs::write(
        out_dir.join("runs-summary.json"),
        serde_json::to_string_pretty(&summary)? + "\n",
    )?;
    eprintln!(
        "www/generated/runs-summary.json: {} run records from runs/",
        report.runs.len()
    );
    Ok(())
}

/// The page's wasm modules, each in its own folder of `www/pkg`.
///
/// - `core`: the benchmark's tools (`ToolGroup::Benchmark`), the scorer and the ledger,
///   built without `exemplar-wasm`'s `full` feature; the page fetches it first, and it
///   answers the first calls.
/// - `full`: every tool, the plots and "Your data"; the page loads it once a call needs
///   what `core` lacks, and moves the visit's ledger into it.
/// - `figures`: `renderFigure`, a plot's SVG as PNG or PDF (resvg, svg2pdf and the embedded
///   font: about a megabyte), beside what `core` has; the page loads it only to save a
///   figure, so neither of the others carries it.
pub const WASM_MODULES: [(&str, &[&str]); 3] = [
    ("core", &["--no-default-features"]),
    ("full", &[]),
    (
        "figures",
        &["--no-default-features", "--features", "figures"],
    ),
];

/// The cargo profile of the page's wasm: release, optimized for size (the root Cargo.toml).
const WASM_PROFILE: &str = "wasm";

/// The figures module's profile: optimized for speed, as it rasterizes and compresses a
/// 300 dpi figure in the visitor's browser (optimized for size it took tens of seconds),
/// with thin LTO (its build is the largest of the three).
const FIGURES_PROFILE: &str = "wasm-figures";

/// The cargo profile `module` is built with.
fn profile_of(module: &str) -> &'static str {
    if module == "figures" {
        FIGURES_PROFILE
    } else {
        WASM_PROFILE
    }
}

fn build_wasm(root: &Path) -> Result<()> {
    let pkg = root.join("www").join("pkg");
    if pkg.exists() {
        std::fs::remove_dir_all(&pkg)?;
    }
    for (module, features) in WASM_MODULES {
        run(cargo()
            .args([
                "build",
                "--profile",
                profile_of(module),
                "-p",
                WASM_CRATE,
                "--target",
                WASM_TARGET,
            ])
            .args(features)
            .current_dir(root))?;
        let wasm = crate::target_dir(root)
            .join(WASM_TARGET)
            .join(profile_of(module))
            .join(WASM_FILE);
        let out_dir = pkg.join(module);
        run(Command::new("wasm-bindgen")
            .args(["--target", "web", "--out-dir"])
            .arg(&out_dir)
            .arg(&wasm))?;
        let bg = out_dir.join("exemplar_wasm_bg.wasm");
        let before = std::fs::metadata(&bg)?.len();
        // `--converge` repeats -Oz while the module shrinks (about 1 KB gzip off the core, the
        // module fetched first); the full module gets one -Oz pass (converging took about
        // 100 s of CI's two cores); the figures module, built for speed by rustc at opt-level
        // 3, one -O1 pass (4.68 MB against -O3's 4.66 MB, in 21 s against 71 s).
        let passes: &[&str] = match module {
            "core" => &["-Oz", "--converge"],
            "figures" => &["-O1"],
            _ => &["-Oz"],
        };
        run(Command::new(npm_bin(root, "wasm-opt"))
            .args(passes)
            .args(WASM_FEATURES)
            .arg(&bg)
            .arg("-o")
            .arg(&bg))?;
        let after = std::fs::metadata(&bg)?.len();
        let gzip = gzip_len(&bg)?;
        eprintln!(
            "www/pkg/{module}/exemplar_wasm_bg.wasm: {:.1} KB gzip, {:.1} KB raw after wasm-opt {} \
             ({:.1} KB before)",
            gzip as f64 / 1000.0,
            after as f64 / 1000.0,
            passes.join(" "),
            before as f64 / 1000.0
        );
        if module == "core" && gzip > CORE_GZIP_BUDGET {
            eprintln!(
                "warning: www/pkg/core is {:.1} KB gzip, over its {:.0} KB budget (docs/PERFORMANCE.md): \
                 keep what only the further tools need out of it (`extended`)",
                gzip as f64 / 1000.0,
                CORE_GZIP_BUDGET as f64 / 1000.0
            );
        }
    }
    Ok(())
}

/// What the page's first module may weigh, gzip (`cargo xtask bench` holds the target too).
const CORE_GZIP_BUDGET: u64 = 150_000;

/// Bytes of `gzip -6` of `path`, what a compressing server sends (the bench's measure).
pub fn gzip_len(path: &Path) -> Result<u64> {
    let out = Command::new("gzip")
        .args(["-6", "-c"])
        .arg(path)
        .output()
        .map_err(|e| format!("cannot run gzip: {e}"))?;
    if !out.status.success() {
        return Err(format!("gzip -6 {} failed", path.display()).into());
    }
    Ok(out.stdout.len() as u64)
}

/// Renders docs/METHODS.md. The fragment is our own build output, so the
/// page may insert it as HTML; pasted and computed text never goes that way.
fn render_methods(root: &Path) -> Result<()> {
    let read = |name: &str| {
        let source = root.join("docs").join(name);
        std::fs::read_to_string(&source)
            .map_err(|e| format!("cannot read {}: {e}", source.display()))
    };
    // The benchmark's own methods, as the frozen PDF carries them, then the engine's
    // methods folded: the page's Methods section shows what the PDF shows, and more only
    // behind a click.
    let mut fragment = markdown_fragment(&read("BENCHMARK_METHODS.md")?);
    fragment.push_str(
        "<details class=\"engine-methods\"><summary>The engine's methods: every tool and \
convention (docs/METHODS.md)</summary>\n",
    );
    fragment.push_str(&markdown_fragment(&read("METHODS.md")?));
    fragment.push_str("</details>\n");
    let out_dir = root.join("www").join("generated");
    std::fs::create_dir_all(&out_dir)?;
    std::fs::write(out_dir.join("methods.html"), fragment)?;
    eprintln!(
        "www/generated/methods.html: rendered from docs/BENCHMARK_METHODS.md and docs/METHODS.md"
    );
    Ok(())
}

/// A Markdown document as an HTML fragment: the page's section heading ("Methods", an h2)
/// replaces the document's title, and the document's sections nest below it.
fn markdown_fragment(markdown: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH;
    let mut fragment = String::with_capacity(markdown.len() * 2);
    let mut in_title = false;
    let mut seen_content = false;
    let events = Parser::new_ext(markdown, options).filter_map(|event| {
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
    fragment
}

fn demote(level: HeadingLevel) -> HeadingLevel {
    HeadingLevel::try_from((level as usize + 1).min(6)).unwrap_or(HeadingLevel::H6)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_root(name: &str) -> std::path::PathBuf {
        let root = crate::target_dir(&crate::workspace_root())
            .join("xtask-tests")
            .join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("runs")).unwrap();
        root
    }

    #[test]
    fn no_records_summarise_as_no_runs_recorded() {
        let root = scratch_root("empty-runs");
        summarize_runs(&root).unwrap();
        let text = std::fs::read_to_string(root.join("www/generated/runs-summary.json")).unwrap();
        let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(summary["empty_message"], "No runs recorded.");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_invalid_record_fails_the_build_with_the_check_message() {
        let root = scratch_root("bad-runs");
        std::fs::write(root.join("runs/p1-pdf.json"), "{}").unwrap();
        let err = summarize_runs(&root).unwrap_err().to_string();
        assert!(err.contains("p1-pdf.json: not a valid run record"), "{err}");
        assert!(!root.join("www/generated/runs-summary.json").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_unreadable_entry_fails_the_build_and_the_rest_are_still_checked() {
        let root = scratch_root("unreadable-runs");
        std::fs::create_dir(root.join("runs/a-folder.json")).unwrap();
        std::fs::write(root.join("runs/p1-pdf.json"), "{}").unwrap();
        let err = summarize_runs(&root).unwrap_err().to_string();
        assert!(err.contains("a-folder.json: not a regular file"), "{err}");
        assert!(err.contains("p1-pdf.json: not a valid run record"), "{err}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
