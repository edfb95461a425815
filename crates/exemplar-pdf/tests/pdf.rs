//! The frozen PDF as a reader and a verifier meet it: the committed bytes, their released hash,
//! the text a PDF reader extracts, and what must never be in the file.
//!
//! Needs poppler's `pdftotext` and `pdftoppm` and `qpdf` (Debian: poppler-utils, qpdf); a
//! missing tool fails the test, it never skips it.

use exemplar::{baselines, dataset, protocol};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn rendered() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| exemplar_pdf::render().unwrap_or_else(|e| panic!("render failed: {e}")))
}

/// The rendered PDF written to a scratch file for the command-line tools.
fn rendered_file() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("benchmark-baseline.pdf");
        std::fs::write(&path, rendered()).unwrap();
        path
    })
}

/// Runs a tool, failing loudly (not skipping) when it is not installed or reports an error.
fn run(tool: &str, package: &str, args: &[&str]) -> String {
    let output = Command::new(tool).args(args).output().unwrap_or_else(|e| {
        panic!(
            "cannot run `{tool}` ({e}): install Debian's {package} \
             (`apt-get install {package}`; `cargo xtask test` does this)"
        )
    });
    assert!(
        output.status.success(),
        "`{tool} {}` failed ({}):\n{}{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("tool output is UTF-8")
}

fn extracted_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let path = rendered_file().to_str().unwrap();
        run("pdftotext", "poppler-utils", &["-layout", path, "-"])
    })
}

/// The extracted text with every run of whitespace as one space (wrapped lines rejoined).
fn flowing_text() -> String {
    extracted_text()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

const REGENERATE: &str = "regenerate with `cargo xtask pdf` and add a new baseline version \
                          (crates/exemplar/src/baselines.rs)";

#[test]
fn rendering_is_reproducible_and_equals_the_committed_file() {
    let again = exemplar_pdf::render().unwrap();
    assert!(
        again == rendered(),
        "two renders differ: the PDF is not reproducible"
    );
    let committed_path = root().join(protocol::PDF_PATH);
    let committed = std::fs::read(&committed_path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}; {REGENERATE}",
            committed_path.display()
        )
    });
    assert!(
        committed == rendered(),
        "the committed benchmark-baseline.pdf (SHA-256 {}) differs from the rendered PDF \
         (SHA-256 {}): {REGENERATE}",
        exemplar::sha256_hex(&committed),
        exemplar::sha256_hex(rendered())
    );
}

#[test]
fn the_released_baseline_records_this_pdf() {
    let current = baselines::current();
    assert_eq!(current.version, protocol::BASELINE_VERSION);
    let hash = exemplar::sha256_hex(rendered());
    assert!(
        hash == current.pdf_sha256,
        "the PDF's SHA-256 is {hash}, but baseline {} records {}: the PDF's bytes changed; \
         {REGENERATE}",
        current.version,
        current.pdf_sha256
    );
}

#[test]
fn nothing_executable_or_embedded() {
    for token in [
        "/JavaScript",
        "/JS",
        "/OpenAction",
        "/AA",
        "/Launch",
        "/EmbeddedFile",
        "/AcroForm",
        "/Annots",
        "/URI",
    ] {
        assert!(
            !rendered()
                .windows(token.len())
                .any(|w| w == token.as_bytes()),
            "the PDF contains {token}"
        );
    }
    // Only the standard fonts, none embedded.
    for token in ["/FontFile", "/FontFile2", "/FontFile3"] {
        assert!(!rendered()
            .windows(token.len())
            .any(|w| w == token.as_bytes()));
    }
}

#[test]
fn no_creation_date_and_a_content_derived_id() {
    let text = String::from_utf8_lossy(rendered());
    assert!(!text.contains("/CreationDate") && !text.contains("/ModDate"));
    assert!(text.contains("/ID ["));
}

#[test]
fn text_extraction_finds_the_data_and_the_methods() {
    let text = extracted_text();
    let rows = dataset::rows();
    assert_eq!(rows.len(), 19);
    for (line, row) in dataset::CSV.lines().skip(1).zip(rows) {
        let fields: Vec<&str> = line.split(',').collect();
        let (yi, vi) = (fields[fields.len() - 2], fields[fields.len() - 1]);
        // The table row: id, author, ..., yi, vi in one extracted line.
        let found = text.lines().any(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.first() == Some(&row.id.as_str())
                && words.ends_with(&[yi, vi])
                && l.contains(&row.author)
        });
        assert!(
            found,
            "no table row for {} with yi {yi} and vi {vi}",
            row.id
        );
        // And the CSV line verbatim.
        assert!(text.contains(line), "the CSV line {line:?} is missing");
    }
    let flowing = flowing_text();
    for needle in [
        "REML",
        "Egger",
        "restricted maximum likelihood",
        "passed if p ≥ 0.10",
        "failed if p < 0.05",
        "otherwise inconclusive",
        protocol::RULE_TEXT,
        "dat.raudenbush1985",
        "Raudenbush 1984",
        "18 experiments",
        "19 effect-size records",
        "Pellegrini & Hicks",
        dataset::sha256(),
        protocol::BASELINE_VERSION,
        "page 1 of",
    ] {
        assert!(
            flowing.contains(needle),
            "the extracted text lacks {needle:?}"
        );
    }
    // The prompt, line by line (long lines are wrapped, so compare with whitespace collapsed).
    for line in protocol::PROMPT.lines().filter(|l| !l.is_empty()) {
        let collapsed = line.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flowing.contains(&collapsed)
                || flowing
                    .replace(", ", ",")
                    .contains(&collapsed.replace(", ", ",")),
            "the prompt line {line:?} is missing"
        );
    }
}

/// Whether `number` occurs in `text` as a whole number (0.084 is not in 0.0841).
fn contains_number(text: &str, number: &str) -> bool {
    text.match_indices(number).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + number.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit() || c == '.')
            && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

#[test]
fn no_reference_numbers_of_the_tasks() {
    assert!(contains_number("x 0.084, y", "0.084") && !contains_number("0.0841", "0.084"));
    let answer = protocol::reference_answer();
    let numbers = [
        answer.overall.estimate,
        answer.overall.ci_lower,
        answer.overall.ci_upper,
        answer.overall.p,
        answer.exclude_s04.estimate,
        answer.exclude_s04.ci_lower,
        answer.exclude_s04.ci_upper,
        answer.exclude_s04.p,
        answer.bias.egger_p,
    ];
    let text = extracted_text();
    for x in numbers {
        for formatted in [format!("{x:.3}"), format!("{x:.4}")] {
            let unsigned = formatted.trim_start_matches('-');
            assert!(
                !contains_number(text, unsigned),
                "the PDF shows {formatted}, a reference number of the benchmark tasks"
            );
        }
    }
}

#[test]
fn renders_and_passes_qpdf_check() {
    let path = rendered_file().to_str().unwrap();
    let out = run("qpdf", "qpdf", &["--check", path]);
    assert!(out.contains("No syntax or stream encoding errors"), "{out}");
    let artifacts = root().join("artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let prefix = artifacts.join("pdf-page-1");
    run(
        "pdftoppm",
        "poppler-utils",
        &[
            "-png",
            "-r",
            "80",
            "-f",
            "1",
            "-l",
            "1",
            "-singlefile",
            path,
            prefix.to_str().unwrap(),
        ],
    );
    let target = artifacts.join("pdf-page-1.png");
    let bytes = std::fs::read(&target).unwrap();
    assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000);
}

/// Frozen and growing apart (issue 23, item 5): the PDF is made of the baseline version, the
/// dataset, the benchmark's own methods and the prompt, so adding a tool or rewording one
/// (its description, the engine's `docs/METHODS.md`) cannot change its bytes.
#[test]
fn adding_or_describing_a_tool_leaves_the_pdf_unchanged() {
    // What the renderer reads: no tool registry, no engine methods.
    let src = root().join("crates/exemplar-pdf/src");
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for reader in [
            "exemplar::tools",
            "exemplar::methods_markdown",
            "METHODS.md\")",
        ] {
            assert!(
                !text.contains(reader),
                "{} reads {reader}: the PDF would change when a tool is added or described",
                path.display()
            );
        }
    }
    // And nothing of the registry is in the document: no tool's name, no sentence of a
    // tool's description, no heading of the engine's methods that the benchmark's lack.
    let text = flowing_text();
    for definition in exemplar::tools::definitions() {
        assert!(
            !text.contains(definition.name),
            "the PDF names the tool {}",
            definition.name
        );
        let first = definition.description.split(". ").next().unwrap();
        assert!(
            !text.contains(first),
            "the PDF holds {}'s description: {first:?}",
            definition.name
        );
    }
    let benchmark = exemplar::benchmark_methods_markdown();
    for heading in exemplar::methods_markdown()
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter(|h| !benchmark.contains(h))
    {
        assert!(
            !text.contains(heading),
            "the PDF holds the engine's section {heading:?}"
        );
    }
    // The benchmark's methods are there, word for word (each paragraph's first words).
    for heading in benchmark.lines().filter_map(|l| l.strip_prefix("## ")) {
        assert!(
            text.contains(heading),
            "the PDF lacks the section {heading:?}"
        );
    }
}
