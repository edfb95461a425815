//! `cargo xtask codegen`: every generated file the repository commits, written from its Rust
//! source, natively (no wasm toolchain, no npm). `cargo xtask codegen --check` writes nothing
//! and fails naming each file that differs; the tidy suite runs the same check (and so does
//! `cargo test -p xtask`), so a generated file can never drift from its source.
//!
//! What it writes, and from what:
//!
//! | file | source |
//! | --- | --- |
//! | `www/generated/tools.json` | the tool registry's definitions (what the page registers before its wasm loads) |
//! | `www/generated/output-schemas.json` | each tool's output schema, derived from its result type |
//! | `crates/exemplar/src/tools/input_schemas.json` | each tool's input schema, derived from its argument type (what every build, the page's wasm included, validates calls with) |
//! | `www/generated/engine.schema.json`, `engine.d.ts` | the run report's and the page metadata's types |
//! | `crates/exemplar/tests/fixtures/bit_identity.json` | the hashes of each call of [`bit_identity`], computed natively (the wasm tests assert the same) |
//! | `crates/exemplar/tests/golden/` | the SVG of each call of [`golden`] (a changed plot shows as a readable diff) |
//! | `fuzz/seeds/<target>/`, `fuzz/json.dict` | the fuzz targets' seeds and dictionary ([`crate::fuzz_seeds`]) |
//! | `crates/exemplar/src/tools/snapshots/<tool>.txt`, for a tool that has none | the printed summaries of the tool's examples (`exemplar::tools::summary_snapshot`) |
//! | the table between `<!-- codegen:tool-list-size -->` markers in `docs/PERFORMANCE.md` | each tool definition's size |
//! | the list between `<!-- codegen:generated-files -->` markers in `docs/ARCHITECTURE.md` | this list of outputs ([`generated_files_list`]) |
//!
//! A folder in the table is generated whole: a file in it that codegen would not write is
//! stale. A region is the text between a document's two markers; the rest is hand-written.
//! A summary snapshot is written once, when its tool has none, and never overwritten: from
//! then on it is a test's record (`tests/summary_snapshots.rs` holds the summaries to it, and
//! `UPDATE_SNAPSHOTS=1` re-records it), so `--check` fails only on a missing one.

pub mod bit_identity;
pub mod golden;

use std::collections::BTreeMap;
use std::path::Path;

use crate::Result;

/// One generated output: a file, or a folder generated whole (its files by name).
pub enum Output {
    File {
        path: String,
        bytes: Vec<u8>,
    },
    Folder {
        path: String,
        files: BTreeMap<String, Vec<u8>>,
    },
    /// The lines between `<!-- codegen:NAME -->` and `<!-- /codegen:NAME -->` of a document.
    Region {
        path: String,
        name: &'static str,
        text: String,
    },
    /// A file written only when it is missing (a test's record from then on).
    Once {
        path: String,
        bytes: Vec<u8>,
    },
}

impl Output {
    fn file(path: &str, text: String) -> Output {
        Output::File {
            path: path.into(),
            bytes: text.into_bytes(),
        }
    }
}

/// Where the page reads the tool definitions it registers before the wasm has loaded.
pub const TOOL_DEFINITIONS: &str = "www/generated/tools.json";
/// Every tool's output schema, for review (the MCP server serves the same as a resource).
pub const OUTPUT_SCHEMAS: &str = "www/generated/output-schemas.json";
/// The input schemas every build validates calls with.
pub const INPUT_SCHEMAS: &str = "crates/exemplar/src/tools/input_schemas.json";
/// The JSON Schema of what the page receives from the engine.
pub const ENGINE_SCHEMA: &str = "www/generated/engine.schema.json";
/// Its TypeScript declarations.
pub const ENGINE_TYPES: &str = "www/generated/engine.d.ts";
/// The native half of the bit-identity check.
pub const BIT_IDENTITY: &str = "crates/exemplar/tests/fixtures/bit_identity.json";
/// The plots' golden SVG files.
pub const GOLDEN: &str = "crates/exemplar/tests/golden";
/// The document that reports the tool list's size per tool.
pub const PERFORMANCE: &str = "docs/PERFORMANCE.md";
/// The map of the code, which lists the generated files.
pub const ARCHITECTURE: &str = "docs/ARCHITECTURE.md";
/// The region of [`ARCHITECTURE`] that lists them.
const GENERATED_FILES: &str = "generated-files";
/// Each tool's summary snapshot, `<tool>.txt` (the folder `tests/summary_snapshots.rs` reads).
pub const SNAPSHOTS: &str = "crates/exemplar/src/tools/snapshots";

/// The committed generated files, one Markdown list item per output (the fuzz targets' seed
/// folders as one), ending with the list itself: what docs/ARCHITECTURE.md says codegen
/// writes is what it writes.
pub fn generated_files_list(outputs: &[Output]) -> String {
    let seeds = format!("{}/", crate::fuzz_seeds::SEEDS_DIR);
    let mut targets = Vec::new();
    let mut snapshots = 0;
    let mut list = String::new();
    for output in outputs {
        match output {
            Output::File { path, .. } => list.push_str(&format!("- `{path}`\n")),
            Output::Folder { path, .. } => match path.strip_prefix(&seeds) {
                Some(target) => targets.push(format!("`{target}`")),
                None => list.push_str(&format!("- `{path}/` (the whole folder)\n")),
            },
            Output::Region { path, name, .. } => {
                list.push_str(&format!("- `{path}`, between its `{name}` markers\n"))
            }
            Output::Once { path, .. } if path.starts_with(&format!("{SNAPSHOTS}/")) => {
                snapshots += 1
            }
            Output::Once { path, .. } => {
                list.push_str(&format!("- `{path}`, when it is missing\n"))
            }
        }
    }
    if snapshots > 0 {
        list.push_str(&format!(
            "- `{SNAPSHOTS}/<tool>.txt`, each tool's summary snapshot, only when the tool has \
             none (never overwritten: `tests/summary_snapshots.rs` holds it)\n"
        ));
    }
    if !targets.is_empty() {
        list.push_str(&format!(
            "- `{seeds}<target>/` (each whole) for the fuzz targets {}\n",
            targets.join(", ")
        ));
    }
    list.push_str(&format!(
        "- `{ARCHITECTURE}`, between its `{GENERATED_FILES}` markers (this list)\n"
    ));
    list
}

/// Each tool definition's size in compact JSON (what tools/list carries), as a Markdown table.
pub fn tool_list_size_table() -> String {
    let list = exemplar::tools::definitions_json();
    let definitions = list.as_array().expect("the definitions are a list");
    let size = |v: &serde_json::Value| v.to_string().len();
    let mut table = String::from(
        "| tool | definition (bytes) | description | input schema |\n|---|---:|---:|---:|\n",
    );
    for d in definitions {
        table.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            d["name"].as_str().unwrap_or_default(),
            size(d),
            size(&d["description"]),
            size(&d["inputSchema"]),
        ));
    }
    let total = size(&list);
    table.push_str(&format!(
        "| **{} tools** | **{total}** ({} a tool on average; budget {} a tool, {} on average) | | |\n",
        definitions.len(),
        total / definitions.len().max(1),
        exemplar::tools::MAX_DEFINITION_BYTES,
        exemplar::tools::MEAN_DEFINITION_BYTES,
    ));
    table
}

/// `document` with the text between `name`'s markers replaced by `text`; None when the
/// document lacks either marker.
fn with_region(document: &str, name: &str, text: &str) -> Option<String> {
    let open = format!("<!-- codegen:{name} -->\n");
    let close = format!("<!-- /codegen:{name} -->");
    let start = document.find(&open)? + open.len();
    let end = start + document[start..].find(&close)?;
    Some(format!("{}{text}{}", &document[..start], &document[end..]))
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON values serialize") + "\n"
}

/// The tool definitions as the page registers them (`exemplar tools` prints the same JSON).
pub fn tool_definitions_text() -> String {
    pretty(&exemplar::tools::definitions_json())
}

/// The JSON Schema of the run report and the page's metadata (`exemplar::session::engine_schema`).
pub fn engine_schema_text() -> String {
    pretty(&exemplar::session::engine_schema())
}

/// The TypeScript declarations of [`engine_schema_text`]'s definitions.
pub fn engine_types_text() -> String {
    crate::typescript::declarations(
        &exemplar::session::engine_schema(),
        "What the page receives from the engine: written by `cargo xtask codegen` from the Rust\n\
types (exemplar::session::RunReport, exemplar::page::PageMetadata) through their JSON Schema\n\
(engine.schema.json). Do not edit.",
    )
    .expect("the engine's schema is in the subset the declarations know")
}

/// Every generated output, computed now.
pub fn outputs() -> Result<Vec<Output>> {
    let mut outputs = vec![
        Output::file(TOOL_DEFINITIONS, tool_definitions_text()),
        Output::file(
            OUTPUT_SCHEMAS,
            pretty(&exemplar::tools::output_schemas_json()),
        ),
        Output::file(
            INPUT_SCHEMAS,
            pretty(&exemplar::tools::derived_input_schemas()),
        ),
        Output::file(ENGINE_SCHEMA, engine_schema_text()),
        Output::file(ENGINE_TYPES, engine_types_text()),
        Output::file(BIT_IDENTITY, pretty(&bit_identity::fixture()?)),
        Output::Folder {
            path: GOLDEN.into(),
            files: golden::files()?,
        },
    ];
    for (target, files) in crate::fuzz_seeds::seeds() {
        outputs.push(Output::Folder {
            path: format!("{}/{target}", crate::fuzz_seeds::SEEDS_DIR),
            files,
        });
    }
    outputs.push(Output::file(
        crate::fuzz_seeds::DICTIONARY,
        crate::fuzz_seeds::dictionary(),
    ));
    for tool in exemplar::tools::REGISTRY {
        outputs.push(Output::Once {
            path: format!("{SNAPSHOTS}/{}.txt", tool.name),
            bytes: exemplar::tools::summary_snapshot(tool).into_bytes(),
        });
    }
    outputs.push(Output::Region {
        path: PERFORMANCE.into(),
        name: "tool-list-size",
        text: tool_list_size_table(),
    });
    let list = generated_files_list(&outputs);
    outputs.push(Output::Region {
        path: ARCHITECTURE.into(),
        name: GENERATED_FILES,
        text: list,
    });
    Ok(outputs)
}

/// What differs between `output` and the repository: one line per stale file.
fn differences(root: &Path, output: &Output) -> Vec<String> {
    match output {
        Output::File { path, bytes } => match std::fs::read(root.join(path)) {
            Ok(written) if &written == bytes => vec![],
            Ok(_) => vec![format!("{path}: differs from what its source generates")],
            Err(_) => vec![format!("{path}: missing")],
        },
        Output::Folder { path, files } => {
            let written = read_folder(&root.join(path));
            let mut lines = Vec::new();
            for (name, bytes) in files {
                match written.get(name) {
                    Some(w) if w == bytes => {}
                    Some(_) => lines.push(format!(
                        "{path}/{name}: differs from what its source generates"
                    )),
                    None => lines.push(format!("{path}/{name}: missing")),
                }
            }
            for name in written.keys().filter(|n| !files.contains_key(*n)) {
                lines.push(format!("{path}/{name}: no longer generated"));
            }
            lines
        }
        Output::Region { path, name, text } => {
            let document = std::fs::read_to_string(root.join(path)).unwrap_or_default();
            match with_region(&document, name, text) {
                Some(new) if new == document => vec![],
                Some(_) => vec![format!("{path} ({name}): differs from what its source generates")],
                None => vec![format!("{path}: the markers <!-- codegen:{name} --> and <!-- /codegen:{name} --> are missing")],
            }
        }
        Output::Once { path, .. } => match root.join(path).exists() {
            true => vec![],
            false => vec![format!("{path}: missing")],
        },
    }
}

fn read_folder(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((name, std::fs::read(&p).ok()?))
        })
        .collect()
}

/// Every generated file that is not what its source generates (empty when all are current).
pub fn stale(root: &Path) -> Result<Vec<String>> {
    Ok(outputs()?
        .iter()
        .flat_map(|o| differences(root, o))
        .collect())
}

/// Writes every generated output, removing a generated folder's files it no longer writes.
pub fn write(root: &Path) -> Result<()> {
    let outputs = outputs()?;
    let mut changed = 0;
    for output in &outputs {
        let lines = differences(root, output);
        if lines.is_empty() {
            continue;
        }
        changed += lines.len();
        for line in &lines {
            println!("{line}");
        }
        match output {
            Output::File { path, bytes } | Output::Once { path, bytes } => {
                let file = root.join(path);
                std::fs::create_dir_all(file.parent().expect("a folder"))?;
                std::fs::write(&file, bytes).map_err(|e| format!("cannot write {path}: {e}"))?;
            }
            Output::Region { path, name, text } => {
                let document = std::fs::read_to_string(root.join(path))?;
                let new = with_region(&document, name, text).ok_or_else(|| {
                    format!("{path}: add the markers <!-- codegen:{name} --> and <!-- /codegen:{name} --> where the table goes")
                })?;
                std::fs::write(root.join(path), new)?;
            }
            Output::Folder { path, files } => {
                let dir = root.join(path);
                std::fs::create_dir_all(&dir)?;
                for name in read_folder(&dir).keys() {
                    if !files.contains_key(name) {
                        std::fs::remove_file(dir.join(name))?;
                    }
                }
                for (name, bytes) in files {
                    std::fs::write(dir.join(name), bytes)
                        .map_err(|e| format!("cannot write {path}/{name}: {e}"))?;
                }
            }
        }
    }
    if changed == 0 {
        println!("every generated file is current");
    } else {
        println!("{changed} generated file(s) rewritten: review the diff and commit it");
    }
    Ok(())
}

/// `--check`: an error listing every stale file, and how to regenerate them.
pub fn check(root: &Path) -> Result<()> {
    let stale = stale(root)?;
    if stale.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} generated file(s) are stale; run `cargo xtask codegen`, review the diff and commit \
         it:\n  {}",
        stale.len(),
        stale.join("\n  ")
    )
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check `cargo xtask codegen --check` makes, as an ordinary test.
    #[test]
    fn every_generated_file_is_current() {
        if let Err(e) = check(&crate::workspace_root()) {
            panic!("{e}");
        }
    }

    #[test]
    fn a_changed_missing_or_extra_file_is_stale() {
        let root = crate::target_dir(&crate::workspace_root())
            .join("xtask-tests")
            .join(format!("codegen-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("out")).unwrap();
        std::fs::write(root.join("a.txt"), "old").unwrap();
        std::fs::write(root.join("out/extra"), "x").unwrap();
        std::fs::write(root.join("out/same"), "s").unwrap();
        let file = Output::file("a.txt", "new".into());
        assert_eq!(
            differences(&root, &file),
            ["a.txt: differs from what its source generates"]
        );
        assert_eq!(
            differences(&root, &Output::file("b.txt", String::new())),
            ["b.txt: missing"]
        );
        // Written once: a file there (whatever it holds) is current, a missing one is not.
        let once = |path: &str| Output::Once {
            path: path.into(),
            bytes: b"new".to_vec(),
        };
        assert!(differences(&root, &once("a.txt")).is_empty());
        assert_eq!(differences(&root, &once("c.txt")), ["c.txt: missing"]);
        let folder = Output::Folder {
            path: "out".into(),
            files: BTreeMap::from([
                ("same".to_string(), b"s".to_vec()),
                ("new".to_string(), b"n".to_vec()),
            ]),
        };
        assert_eq!(
            differences(&root, &folder),
            ["out/new: missing", "out/extra: no longer generated"]
        );
        std::fs::write(
            root.join("doc.md"),
            "a\n<!-- codegen:t -->\nold\n<!-- /codegen:t -->\nb\n",
        )
        .unwrap();
        let region = |text: &str| Output::Region {
            path: "doc.md".into(),
            name: "t",
            text: text.into(),
        };
        assert!(differences(&root, &region("old\n")).is_empty());
        assert_eq!(
            differences(&root, &region("new\n")),
            ["doc.md (t): differs from what its source generates"]
        );
        assert_eq!(
            with_region(
                "x\n<!-- codegen:t -->\nold\n<!-- /codegen:t -->\n",
                "t",
                "new\n"
            )
            .unwrap(),
            "x\n<!-- codegen:t -->\nnew\n<!-- /codegen:t -->\n"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
