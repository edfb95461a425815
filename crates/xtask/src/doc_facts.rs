//! The documents' checkable facts, held by ordinary tests (issue 43 item 5): the xtask
//! commands that docs/ARCHITECTURE.md and the README list are exactly clap's subcommands
//! ([`crate::Cli`]); every cargo command the README shows parses (an xtask command through
//! clap, a `cargo run`, `build` or `install` against the workspace's packages and binaries);
//! each budget or limit a document quotes beside its constant's name is the constant's
//! value; the list of generated files in docs/ARCHITECTURE.md is codegen's own list (a
//! region `cargo xtask codegen` writes, so `codegen --check` holds it); ARCHITECTURE.md says
//! that every estimate-bearing result carries the natural scale, states each `exemplar`
//! module's uses of the others as its code has them, and the layers' dependency rules as the
//! manifests have them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use clap::{CommandFactory, Parser};

fn read(path: &str) -> String {
    let full = crate::workspace_root().join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// `cargo xtask`'s subcommands, in the order clap declares them.
fn xtask_commands() -> Vec<String> {
    crate::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|name| name != "help")
        .collect()
}

/// The lists written as `` `cargo xtask a | b | c` `` in a document.
fn listed_commands(text: &str) -> Vec<Vec<String>> {
    let mut lists = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("`cargo xtask ") {
        let after = &rest[start + "`cargo xtask ".len()..];
        let end = after.find('`').expect("a closed code span");
        if after[..end].contains(" | ") {
            lists.push(after[..end].split(" | ").map(str::to_string).collect());
        }
        rest = &after[end..];
    }
    lists
}

/// The lines of the fenced code blocks of a Markdown text, with the fence's language.
fn code_lines(text: &str) -> Vec<(String, String)> {
    let mut lines = Vec::new();
    let mut fence: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_end();
        match (&fence, trimmed.strip_prefix("```")) {
            (None, Some(lang)) => fence = Some(lang.to_string()),
            (Some(_), Some("")) => fence = None,
            (Some(lang), _) => lines.push((lang.clone(), line.to_string())),
            (None, None) => {}
        }
    }
    lines
}

#[test]
fn the_architecture_page_and_the_readme_list_exactly_the_xtask_commands() {
    let commands = xtask_commands();
    for doc in ["docs/ARCHITECTURE.md", "README.md"] {
        let lists = listed_commands(&read(doc));
        assert!(
            !lists.is_empty(),
            "{doc} lists no xtask commands as `cargo xtask a | b | …`"
        );
        for list in lists {
            assert_eq!(
                list, commands,
                "{doc} lists the xtask commands {list:?}; clap's are {commands:?} \
                 (crates/xtask/src/main.rs)"
            );
        }
    }
    // The README's chores: a `cargo xtask NAME` line of a shell block for every command.
    let shown: BTreeSet<String> = code_lines(&read("README.md"))
        .into_iter()
        .filter(|(lang, _)| lang == "sh")
        .filter_map(|(_, line)| {
            let rest = line.trim().strip_prefix("cargo xtask ")?;
            Some(rest.split_whitespace().next()?.to_string())
        })
        .collect();
    let commands: BTreeSet<String> = commands.into_iter().collect();
    assert_eq!(
        shown, commands,
        "the README's `cargo xtask` lines are not clap's subcommands"
    );
}

/// A cargo command written in the README: its words, without a trailing `# comment`; an
/// ellipsis (`…`, "any arguments") is dropped.
fn words(command: &str) -> Vec<String> {
    let command = command.split(" # ").next().unwrap_or(command);
    command
        .split_whitespace()
        .filter(|w| *w != "…")
        .map(|w| w.trim_matches('\'').to_string())
        .collect()
}

/// Every cargo command the README shows: shell lines, inline code spans that start with
/// `cargo `, and the `cargo` entries of its client configurations (JSON).
fn readme_cargo_commands() -> Vec<Vec<String>> {
    let text = read("README.md");
    let lines = code_lines(&text);
    let mut commands: Vec<Vec<String>> = lines
        .iter()
        .filter(|(lang, _)| lang == "sh")
        .filter(|(_, line)| line.trim_start().starts_with("cargo "))
        .map(|(_, line)| words(line))
        .collect();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if in_fence {
            continue;
        }
        // The odd pieces between backticks are code spans.
        for span in line.split('`').skip(1).step_by(2) {
            if span.starts_with("cargo ") && !span.contains(" | ") {
                commands.push(words(span));
            }
        }
    }
    let json: String = lines
        .iter()
        .filter(|(lang, _)| lang == "json")
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    for block in json.split("\n}\n").filter(|b| b.contains("\"mcpServers\"")) {
        let config: serde_json::Value =
            serde_json::from_str(&format!("{block}\n}}")).expect("the configuration is JSON");
        for entry in config["mcpServers"].as_object().expect("servers").values() {
            if entry["command"] == "cargo" {
                let args = entry["args"].as_array().expect("args");
                let mut command = vec!["cargo".to_string()];
                command.extend(args.iter().map(|a| a.as_str().unwrap().to_string()));
                commands.push(command);
            }
        }
    }
    commands
}

/// `cargo metadata` of the workspace's own packages.
fn metadata() -> serde_json::Value {
    let out = crate::toolchain::cargo()
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(crate::workspace_root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata failed");
    serde_json::from_slice(&out.stdout).expect("cargo metadata writes JSON")
}

/// The workspace's packages, each with the binaries it builds and its folder.
fn packages() -> BTreeMap<String, (Vec<String>, String)> {
    let root = crate::workspace_root();
    metadata()["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let bins = p["targets"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "bin"))
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect();
            let manifest = Path::new(p["manifest_path"].as_str().unwrap());
            let dir = manifest.parent().unwrap().strip_prefix(&root).unwrap();
            (
                p["name"].as_str().unwrap().to_string(),
                (bins, dir.to_string_lossy().into_owned()),
            )
        })
        .collect()
}

/// Why a cargo command the README shows would not run as written, if it would not.
fn refusal(
    command: &[String],
    packages: &BTreeMap<String, (Vec<String>, String)>,
) -> Option<String> {
    let words: Vec<&str> = command.iter().map(String::as_str).collect();
    let (before, after) = match words.iter().position(|w| *w == "--") {
        Some(i) => (&words[..i], &words[i + 1..]),
        None => (&words[..], &[][..]),
    };
    let option = |names: &[&str]| -> Option<&str> {
        let i = before.iter().position(|w| names.contains(w))?;
        before.get(i + 1).copied()
    };
    match before.get(1).copied() {
        Some("xtask") => {
            let args = std::iter::once("xtask").chain(before[2..].iter().copied());
            crate::Cli::try_parse_from(args)
                .err()
                .map(|e| e.to_string())
        }
        Some(sub @ ("run" | "build" | "install" | "test")) => {
            let package = match (option(&["-p", "--package"]), option(&["--path"])) {
                (Some(name), _) => name.to_string(),
                (None, Some(path)) => packages
                    .iter()
                    .find(|(_, (_, dir))| dir == path)
                    .map(|(name, _)| name.clone())?,
                // The whole workspace (`--workspace`, or the root's default members).
                (None, None) if sub != "run" => return None,
                (None, None) => return Some("`cargo run` names no package".to_string()),
            };
            let Some((bins, _)) = packages.get(&package) else {
                return Some(format!("no package {package} in the workspace"));
            };
            if let Some(bin) = option(&["--bin"]) {
                if !bins.iter().any(|b| b == bin) {
                    return Some(format!("{package} has no binary {bin}: {bins:?}"));
                }
            } else if sub == "run" && bins.len() != 1 {
                return Some(format!(
                    "`cargo run` cannot tell which of {package}'s binaries {bins:?} to run: \
                     name one with --bin"
                ));
            }
            if package == "xtask" && sub == "run" {
                let args = std::iter::once("xtask").chain(after.iter().copied());
                return crate::Cli::try_parse_from(args)
                    .err()
                    .map(|e| e.to_string());
            }
            None
        }
        _ => None,
    }
}

#[test]
fn every_cargo_command_of_the_readme_runs_as_written() {
    let packages = packages();
    let commands = readme_cargo_commands();
    assert!(
        commands
            .iter()
            .any(|c| c[1] == "run" && c[3] == "exemplar-cli"),
        "the README shows no `cargo run -p exemplar-cli`: {commands:?}"
    );
    for command in &commands {
        if let Some(why) = refusal(command, &packages) {
            panic!("the README's `{}`: {why}", command.join(" "));
        }
    }
}

#[test]
fn a_command_that_cannot_run_is_named() {
    let packages = packages();
    let refused = |c: &str| refusal(&words(c), &packages);
    // The README's command before issue 43: the package has two binaries.
    assert!(refused("cargo run -p exemplar-cli -- call x")
        .unwrap()
        .contains("--bin"));
    assert!(refused("cargo run -p exemplar-cli --bin exemplar -- call x").is_none());
    assert!(refused("cargo xtask golden").is_some());
    assert!(refused("cargo xtask codegen --check").is_none());
    assert!(refused("cargo build -p no-such-crate").is_some());
    assert!(refused("cargo install --locked --path crates/exemplar-cli").is_none());
}

/// `n` as the documents write it: thousands separated by commas, or in KiB or MiB when it is
/// a whole number of them.
fn written(n: usize) -> String {
    const KIB: usize = 1024;
    if n >= KIB * KIB && n.is_multiple_of(KIB * KIB) {
        return format!("{} MiB", n / (KIB * KIB));
    }
    if n >= KIB && n.is_multiple_of(KIB) && n < KIB * KIB {
        return format!("{} KiB", n / KIB);
    }
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The constants the documents quote by name, with their values.
fn constants() -> Vec<(&'static str, usize)> {
    use exemplar::tools;
    vec![
        ("MAX_DEFINITION_BYTES", tools::MAX_DEFINITION_BYTES),
        ("MEAN_DEFINITION_BYTES", tools::MEAN_DEFINITION_BYTES),
        ("MAX_DESCRIPTION_CHARS", tools::MAX_DESCRIPTION_CHARS),
        ("MAX_HANDLES", tools::MAX_HANDLES),
        ("MAX_HELD_BYTES", tools::MAX_HELD_BYTES),
        ("MAX_TOOL_RECORDS", tools::MAX_TOOL_RECORDS),
        ("MAX_RAW_DATA_ROWS", tools::MAX_RAW_DATA_ROWS),
        ("MAX_SELECTION_RECORDS", tools::MAX_SELECTION_RECORDS),
        ("MAX_CSV_CELLS", exemplar::csv_table::MAX_CSV_CELLS),
        ("MAX_ARGS_BYTES", tools::MAX_ARGS_BYTES),
        ("MAX_DEPTH", exemplar::strict_json::MAX_DEPTH),
        ("MAX_ANSWER_BYTES", exemplar::scorer::MAX_ANSWER_BYTES),
        ("MAX_FORMULA_TERMS", meta_analysis::MAX_FORMULA_TERMS),
        ("MAX_COEFFICIENTS", meta_analysis::MAX_COEFFICIENTS),
        ("MAX_CLUSTER_RECORDS", meta_analysis::MAX_CLUSTER_RECORDS),
        (
            "MAX_SELECTION_ITERATIONS",
            meta_analysis::MAX_SELECTION_ITERATIONS,
        ),
        ("MAX_BUBBLE_RECORDS", exemplar::plots::MAX_BUBBLE_RECORDS),
        ("MAX_DRAWN_SVG_CHARS", exemplar::page::MAX_DRAWN_SVG_CHARS),
        ("CELL_CHARS", exemplar::your_data::CELL_CHARS),
        (
            "RESULT_DISPLAY_CHARS",
            exemplar::session::RESULT_DISPLAY_CHARS,
        ),
    ]
}

/// The quoted facts: `{}` stands for the constant's value as written; whitespace (a line
/// break included) is one space. Every mention of a constant of [`constants`] in a document
/// below must lie inside one of its facts, so a number quoted beside a constant's name
/// cannot drift from the code.
const FACTS: &[(&str, &str, &str)] = &[
    (
        "docs/ARCHITECTURE.md",
        "MAX_DEFINITION_BYTES",
        "at most {} bytes of compact JSON (`MAX_DEFINITION_BYTES`)",
    ),
    (
        "docs/ARCHITECTURE.md",
        "MEAN_DEFINITION_BYTES",
        "at most {} bytes a tool on average (`MEAN_DEFINITION_BYTES`",
    ),
    (
        "docs/ARCHITECTURE.md",
        "MAX_DESCRIPTION_CHARS",
        "at most {} characters, `MAX_DESCRIPTION_CHARS`",
    ),
    (
        "docs/ARCHITECTURE.md",
        "MAX_HANDLES",
        "{} handles (`MAX_HANDLES`)",
    ),
    (
        "docs/ARCHITECTURE.md",
        "MAX_HELD_BYTES",
        "{} (`MAX_HELD_BYTES`)",
    ),
    (
        "docs/PERFORMANCE.md",
        "MAX_DEFINITION_BYTES",
        "`MAX_DEFINITION_BYTES`, {} bytes",
    ),
    (
        "docs/PERFORMANCE.md",
        "MEAN_DEFINITION_BYTES",
        "`MEAN_DEFINITION_BYTES`, {} bytes",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_TOOL_RECORDS",
        "{} (`MAX_TOOL_RECORDS`)",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_TOOL_RECORDS",
        "{} records (`MAX_TOOL_RECORDS`)",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_RAW_DATA_ROWS",
        "{} rows of raw data (`MAX_RAW_DATA_ROWS`",
    ),
    ("docs/RELIABILITY.md", "MAX_DEPTH", "{} (`MAX_DEPTH`)"),
    (
        "docs/RELIABILITY.md",
        "MAX_ARGS_BYTES",
        "{} (the tools' `MAX_ARGS_BYTES`",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_ARGS_BYTES",
        "{} of JSON text (`MAX_ARGS_BYTES`",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_RAW_DATA_ROWS",
        "more than {} rows (`MAX_RAW_DATA_ROWS`)",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_CLUSTER_RECORDS",
        "more than {} records in one (`MAX_CLUSTER_RECORDS`)",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_SELECTION_ITERATIONS",
        "after {} iterations (`MAX_SELECTION_ITERATIONS`)",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_BUBBLE_RECORDS",
        "{} records (`MAX_BUBBLE_RECORDS`)",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_DRAWN_SVG_CHARS",
        "longer than {} characters (`MAX_DRAWN_SVG_CHARS`",
    ),
    (
        "docs/RELIABILITY.md",
        "CELL_CHARS",
        "longer than {} characters (`CELL_CHARS`)",
    ),
    (
        "docs/RELIABILITY.md",
        "RESULT_DISPLAY_CHARS",
        "at {} characters (`RESULT_DISPLAY_CHARS`",
    ),
    (
        "docs/METHODS.md",
        "MAX_FORMULA_TERMS",
        "at most {} in any part, `MAX_FORMULA_TERMS`",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_ANSWER_BYTES",
        "{} (`MAX_ANSWER_BYTES`)",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_HANDLES",
        "at most {} handles (`MAX_HANDLES`)",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_HELD_BYTES",
        "{} of records (`MAX_HELD_BYTES`)",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_FORMULA_TERMS",
        "at most {} in any part while it is expanded (`MAX_FORMULA_TERMS`",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_COEFFICIENTS",
        "{} (`MAX_COEFFICIENTS`)",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_RAW_DATA_ROWS",
        "{} (`MAX_RAW_DATA_ROWS`);",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_SELECTION_RECORDS",
        "{} (`MAX_SELECTION_RECORDS`;",
    ),
    (
        "docs/RELIABILITY.md",
        "MAX_CSV_CELLS",
        "{} cells, rows × columns (`MAX_CSV_CELLS`,",
    ),
    (
        "docs/PERFORMANCE.md",
        "MAX_SELECTION_RECORDS",
        "at most {} records (`MAX_SELECTION_RECORDS`;",
    ),
    (
        "docs/PERFORMANCE.md",
        "MAX_CSV_CELLS",
        "at most {} CSV cells, rows × columns (`MAX_CSV_CELLS`:",
    ),
];

/// Whitespace runs as one space.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn each_limit_a_document_quotes_is_its_constant() {
    let values: BTreeMap<&str, usize> = constants().into_iter().collect();
    let docs: BTreeSet<&str> = FACTS.iter().map(|(doc, _, _)| *doc).collect();
    for doc in docs {
        let text = flat(&read(doc));
        let mut covered: Vec<(usize, usize)> = Vec::new();
        for (_, name, fact) in FACTS.iter().filter(|(d, _, _)| *d == doc) {
            let phrase = fact.replace("{}", &written(values[name]));
            let found: Vec<(usize, usize)> = text
                .match_indices(&phrase)
                .map(|(at, p)| (at, at + p.len()))
                .collect();
            assert!(
                !found.is_empty(),
                "{doc} does not say {phrase:?} ({name} is {} in the code)",
                values[name]
            );
            covered.extend(found);
        }
        for (name, value) in &values {
            let mention = format!("`{name}`");
            for (at, _) in text.match_indices(&mention) {
                assert!(
                    covered.iter().any(|(s, e)| *s <= at && at < *e),
                    "{doc} names {name} at byte {at} ({:?}) without a fact of FACTS that \
                     holds its number ({value})",
                    &text[at.saturating_sub(80)..(at + mention.len()).min(text.len())]
                );
            }
        }
    }
}

#[test]
fn numbers_are_written_as_the_documents_write_them() {
    assert_eq!(written(1_840), "1,840");
    assert_eq!(written(100_000), "100,000");
    assert_eq!(written(600), "600");
    assert_eq!(written(32 * 1024 * 1024), "32 MiB");
    assert_eq!(written(64 * 1024), "64 KiB");
}

/// Whether a JSON Schema has a property `key` at any depth.
fn has_property(schema: &serde_json::Value, key: &str) -> bool {
    match schema {
        serde_json::Value::Object(map) => {
            map.get("properties").and_then(|p| p.get(key)).is_some()
                || map.values().any(|v| has_property(v, key))
        }
        serde_json::Value::Array(items) => items.iter().any(|v| has_property(v, key)),
        _ => false,
    }
}

/// docs/ARCHITECTURE.md says every estimate-bearing result carries the natural scale
/// (`natural`), and the output schemas show it: none has an `estimate` without `natural`.
#[test]
fn the_architecture_page_says_every_estimate_carries_the_natural_scale() {
    let schemas = exemplar::tools::output_schemas_json();
    let lacking: Vec<&String> = schemas
        .as_object()
        .expect("one schema by tool name")
        .iter()
        .filter(|(_, s)| has_property(s, "estimate") && !has_property(s, "natural"))
        .map(|(name, _)| name)
        .collect();
    assert!(
        lacking.is_empty(),
        "results with an estimate but no `natural`: {lacking:?}"
    );
    let text = flat(&read("docs/ARCHITECTURE.md"));
    assert!(
        text.contains("every estimate-bearing result carries `measure` and `transform`"),
        "docs/ARCHITECTURE.md states the convention"
    );
}

/// The modules of `crates/exemplar/src/` another module's non-test code names as
/// `crate::module`, by module (a file `m.rs` with its folder `m/`, if any), as
/// `module_graph.rs` reads them.
fn exemplar_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    crate::module_graph::top_level_uses(&crate::workspace_root().join("crates/exemplar/src"))
}

/// What docs/ARCHITECTURE.md says each module of `exemplar` uses: the clauses after
/// "holds this): ", up to the sentence's end, each "`m` on `a`, `b` and `c`" or "`m`
/// depends on nothing"; a parenthesis is a remark, not a dependency.
fn stated_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let text = flat(&read("docs/ARCHITECTURE.md"));
    let marker = "(`crates/xtask/src/doc_facts.rs` holds this): ";
    let start = text
        .find(marker)
        .expect("ARCHITECTURE.md states the modules' dependencies")
        + marker.len();
    let end = start + text[start..].find(". ").expect("a sentence");
    let mut stated = BTreeMap::new();
    for clause in text[start..end].split("; ") {
        let mut plain = String::new();
        let mut depth = 0;
        for c in clause.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ if depth == 0 => plain.push(c),
                _ => {}
            }
        }
        let mut names = plain.split('`').skip(1).step_by(2).map(str::to_string);
        let module = names.next().expect("a clause names its module");
        stated.insert(module, names.collect());
    }
    stated
}

#[test]
fn the_architecture_page_states_the_exemplar_modules_dependencies() {
    let actual = exemplar_dependencies();
    let stated = stated_dependencies();
    assert!(stated.len() >= 5, "{stated:?}");
    for (module, uses) in &stated {
        let found = actual
            .get(module)
            .unwrap_or_else(|| panic!("ARCHITECTURE.md names a module {module} that is not one"));
        assert_eq!(
            found, uses,
            "docs/ARCHITECTURE.md says `{module}` uses {uses:?}; its code uses {found:?}"
        );
    }
}

/// A package's normal dependencies (not dev or build), each with the features it turns on
/// and whether it takes the defaults.
fn dependencies(package: &str) -> Vec<(String, Vec<String>, bool)> {
    let meta = metadata();
    let package = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == package)
        .unwrap_or_else(|| panic!("no package {package}"));
    package["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"].is_null())
        .map(|d| {
            let features = d["features"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap().to_string())
                .collect();
            let name = d["name"].as_str().unwrap().to_string();
            (name, features, d["uses_default_features"] == true)
        })
        .collect()
}

/// "`meta-analysis` has no I/O, no JSON and no wasm. `exemplar` has no wasm and no PDF
/// code", and "the page's wasm links no schemars": as the manifests declare them.
#[test]
fn the_layers_depend_as_the_architecture_page_says() {
    let text = flat(&read("docs/ARCHITECTURE.md"));
    assert!(
        text.contains("`meta-analysis` has no I/O, no JSON and no wasm. `exemplar` has no wasm and no PDF code"),
        "the page no longer states the layers' rule this test holds"
    );
    let names = |package: &str| -> Vec<String> {
        dependencies(package)
            .into_iter()
            .map(|(n, _, _)| n)
            .collect()
    };
    let engine = names("meta-analysis");
    for crate_ in [
        "serde_json",
        "wasm-bindgen",
        "js-sys",
        "living-evidence-exemplar",
    ] {
        assert!(
            !engine.contains(&crate_.to_string()),
            "meta-analysis depends on {crate_}"
        );
    }
    assert!(
        text.contains("`exemplar-figures` depends on no crate of ours"),
        "the page no longer states the figures crate's rule this test holds"
    );
    let figures = names("exemplar-figures");
    for crate_ in [
        "meta-analysis",
        "living-evidence-exemplar",
        "exemplar-pdf",
        "exemplar-cli",
        "exemplar-wasm",
    ] {
        assert!(
            !figures.contains(&crate_.to_string()),
            "exemplar-figures depends on {crate_}"
        );
    }
    let exemplar = names("living-evidence-exemplar");
    for crate_ in [
        "wasm-bindgen",
        "js-sys",
        "pdf-writer",
        "exemplar-pdf",
        "exemplar-figures",
        "resvg",
    ] {
        assert!(
            !exemplar.contains(&crate_.to_string()),
            "exemplar depends on {crate_}"
        );
    }
    // The wasm crate takes exemplar without its defaults, so without `definitions`, the
    // feature that brings schemars.
    let wasm = dependencies("exemplar-wasm");
    let (_, features, defaults) = wasm
        .iter()
        .find(|(n, _, _)| n == "living-evidence-exemplar")
        .expect("the wasm crate depends on exemplar");
    assert!(!defaults, "exemplar-wasm takes exemplar's default features");
    assert!(
        !features.iter().any(|f| f == "definitions"),
        "exemplar-wasm turns on exemplar's definitions (schemars)"
    );
    assert!(!names("exemplar-wasm").contains(&"schemars".to_string()));
}
