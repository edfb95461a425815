//! `cargo xtask new-tool NAME`: the recipe of docs/ARCHITECTURE.md ("Adding a tool") as
//! files to fill in. For a snake_case NAME it writes
//!
//! - `crates/meta-analysis/src/NAME.rs`: the engine module (a small working statistic, the
//!   equal-effects mean with its Wald test and interval as metafor's `rma(method = "EE")`,
//!   with its unit tests), declared and re-exported in the engine's `lib.rs`;
//! - `crates/meta-analysis/tests/oracle/NAME.R` (metafor, through `common.R`: the numbers,
//!   and metafor's printouts beside the tool calls that make them) and
//!   `crates/meta-analysis/tests/NAME.rs` (the numbers read with `oracle_kit`; the printouts
//!   are held by `crates/exemplar/tests/printed_summaries.rs`), and runs the script to write
//!   `tests/fixtures/NAME.json` when Rscript has metafor;
//! - `crates/exemplar/src/tools/NAME.rs`: the tool's entry, argument and result types,
//!   handler, description, example calls and printer (`Printed`, of the typed result), with
//!   its line in `registry!`'s `extended` group (after the last analysis, before the plots).
//!
//! `cargo xtask codegen` then writes the tool's summary snapshot (`tests/summary_snapshots.rs`).
//!
//! Everything is checked before anything is written: a name that is not snake_case, a tool
//! or engine item of that name, or any of the files already there is refused, and nothing
//! changes. The templates are `crates/xtask/templates/new_tool/*.tmpl`; the places the
//! maintainer replaces say `FILL IN`.
//!
//! [`check_in_scratch`] is the `cargo xtask test` step that holds the promise: in a copy of
//! the workspace, the scaffold plus `cargo xtask codegen` passes `cargo test --workspace`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::toolchain::{self, cargo, run};
use crate::Result;

/// The marker of every place the maintainer fills in.
pub const MARKER: &str = "FILL IN";

/// The longest name accepted (the scaffold's lines stay within rustfmt's width).
const MAX_NAME_LEN: usize = 40;

const ENGINE_TEMPLATE: &str = include_str!("../templates/new_tool/engine.rs.tmpl");
const ENGINE_TEST_TEMPLATE: &str = include_str!("../templates/new_tool/engine_test.rs.tmpl");
const ORACLE_TEMPLATE: &str = include_str!("../templates/new_tool/oracle.R.tmpl");
const TOOL_TEMPLATE: &str = include_str!("../templates/new_tool/tool.rs.tmpl");

const ENGINE_LIB: &str = "crates/meta-analysis/src/lib.rs";
const TOOLS_MOD: &str = "crates/exemplar/src/tools/mod.rs";
/// The data the oracle scripts read (their first argument).
const ORACLE_DATA: &str = "crates/exemplar/data/dat.raudenbush1985.csv";

/// Why the scaffold wrote nothing (or, for [`NewToolError::Oracle`], no fixture).
#[derive(Debug)]
pub enum NewToolError {
    /// The name is not a snake_case Rust identifier the scaffold can use.
    BadName { name: String, why: String },
    /// A file or folder the scaffold would create is already there.
    Exists { name: String, paths: Vec<String> },
    /// The engine or the registry already has an item of that name.
    Taken {
        name: String,
        file: &'static str,
        item: String,
    },
    /// A file the scaffold edits does not have the shape it edits.
    Shape { file: &'static str, what: String },
    /// Reading or writing a file failed.
    Io { path: String, error: std::io::Error },
    /// The oracle script ran and failed (the scaffold's files are written).
    Oracle { command: String, status: String },
}

impl fmt::Display for NewToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NewToolError::BadName { name, why } => write!(
                f,
                "{name:?} is not a usable tool name: {why}. A name is snake_case: lower-case \
                 ASCII letters and digits in words joined by single underscores, starting with \
                 a letter, at most {MAX_NAME_LEN} characters (e.g. radial_plot); nothing was \
                 written"
            ),
            NewToolError::Exists { name, paths } => write!(
                f,
                "a tool {name:?} cannot be scaffolded because these are already there: {}; \
                 nothing was written",
                paths.join(", ")
            ),
            NewToolError::Taken { name, file, item } => write!(
                f,
                "a tool {name:?} cannot be scaffolded because {file} already has {item}; \
                 choose another name; nothing was written"
            ),
            NewToolError::Shape { file, what } => write!(
                f,
                "cannot wire the tool in: {file} {what}; nothing was written"
            ),
            NewToolError::Io { path, error } => write!(f, "{path}: {error}"),
            NewToolError::Oracle { command, status } => write!(
                f,
                "the scaffold is written, but its oracle script failed ({status}); fix it and \
                 run `{command}`"
            ),
        }
    }
}

impl std::error::Error for NewToolError {}

// ------------------------------------------------------------------ the name

/// Rust's keywords (strict, reserved and 2018+): none can name a module or function.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// The forms of a tool's name the templates use.
#[derive(Debug, Clone, PartialEq)]
pub struct Names {
    /// `radial_plot`: the tool, its files, modules and functions.
    pub name: String,
    /// `RADIAL_PLOT`: the tool's entry.
    pub upper: String,
    /// `RadialPlot`: the engine's result type (and the tool's `…Args`, `…Result`).
    pub camel: String,
    /// `Radial plot`: the tool's title.
    pub title: String,
    /// `radial plot`: the name in prose.
    pub words: String,
}

impl Names {
    pub fn new(name: &str) -> std::result::Result<Names, NewToolError> {
        let bad = |why: &str| NewToolError::BadName {
            name: name.to_string(),
            why: why.to_string(),
        };
        if name.is_empty() {
            return Err(bad("it is empty"));
        }
        if name.len() > MAX_NAME_LEN {
            return Err(bad(&format!("it has {} characters", name.len())));
        }
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_'))
        {
            return Err(bad(&format!("it contains {c:?}")));
        }
        if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
            return Err(bad("it does not start with a letter"));
        }
        if name.ends_with('_') || name.contains("__") {
            return Err(bad("its words are not joined by single underscores"));
        }
        if KEYWORDS.contains(&name) {
            return Err(bad("it is a Rust keyword"));
        }
        let words: Vec<&str> = name.split('_').collect();
        let capitalized = |w: &str| {
            let mut c = w.chars();
            c.next()
                .map(|first| first.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        };
        Ok(Names {
            name: name.to_string(),
            upper: name.to_ascii_uppercase(),
            camel: words.iter().map(|w| capitalized(w)).collect(),
            title: capitalized(&words.join(" ")),
            words: words.join(" "),
        })
    }

    /// A template with its placeholders filled in.
    pub fn fill(&self, template: &str) -> String {
        template
            .replace("{{name}}", &self.name)
            .replace("{{NAME}}", &self.upper)
            .replace("{{Camel}}", &self.camel)
            .replace("{{Title}}", &self.title)
            .replace("{{words}}", &self.words)
    }
}

// ------------------------------------------------------------------ the plan

/// What the scaffold writes: new files and edited files, each as its whole new text, all
/// computed (and checked) before anything is written.
#[derive(Debug)]
pub struct Plan {
    pub names: Names,
    pub created: Vec<(String, String)>,
    pub edited: Vec<(String, String)>,
}

impl Plan {
    pub fn oracle_script(&self) -> String {
        format!("crates/meta-analysis/tests/oracle/{}.R", self.names.name)
    }

    pub fn fixture(&self) -> String {
        format!(
            "crates/meta-analysis/tests/fixtures/{}.json",
            self.names.name
        )
    }

    /// The command that writes the fixture, from the repository root.
    pub fn oracle_command(&self) -> String {
        format!(
            "Rscript {} {ORACLE_DATA} {}",
            self.oracle_script(),
            self.fixture()
        )
    }
}

fn read(root: &Path, path: &str) -> std::result::Result<String, NewToolError> {
    std::fs::read_to_string(root.join(path)).map_err(|error| NewToolError::Io {
        path: path.to_string(),
        error,
    })
}

/// Whether `text`, outside its comment lines, has `word` as a whole identifier (not inside a
/// longer one).
fn has_identifier(text: &str, word: &str) -> bool {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let text = code.as_str();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Checks the name against the workspace and computes every file the scaffold writes.
pub fn plan(root: &Path, name: &str) -> std::result::Result<Plan, NewToolError> {
    let names = Names::new(name)?;
    let n = &names.name;
    let created = vec![
        (
            format!("crates/meta-analysis/src/{n}.rs"),
            names.fill(ENGINE_TEMPLATE),
        ),
        (
            format!("crates/meta-analysis/tests/oracle/{n}.R"),
            names.fill(ORACLE_TEMPLATE),
        ),
        (
            format!("crates/meta-analysis/tests/{n}.rs"),
            names.fill(ENGINE_TEST_TEMPLATE),
        ),
        (
            format!("crates/exemplar/src/tools/{n}.rs"),
            names.fill(TOOL_TEMPLATE),
        ),
    ];
    // What the new files would collide with: the files themselves, a folder module of the
    // same name, the fixture the oracle writes.
    let mut taken: Vec<String> = created.iter().map(|(p, _)| p.clone()).collect();
    taken.extend([
        format!("crates/meta-analysis/src/{n}"),
        format!("crates/meta-analysis/tests/{n}"),
        format!("crates/meta-analysis/tests/fixtures/{n}.json"),
        format!("crates/exemplar/src/tools/{n}"),
    ]);
    let existing: Vec<String> = taken
        .into_iter()
        .filter(|p| root.join(p).exists())
        .collect();
    if !existing.is_empty() {
        return Err(NewToolError::Exists {
            name: n.clone(),
            paths: existing,
        });
    }

    let lib = read(root, ENGINE_LIB)?;
    for item in [&names.name, &names.camel] {
        if has_identifier(&lib, item) {
            return Err(NewToolError::Taken {
                name: n.clone(),
                file: ENGINE_LIB,
                item: format!("an item named `{item}`"),
            });
        }
    }
    let tools = read(root, TOOLS_MOD)?;
    for item in [&names.name, &names.upper] {
        if has_identifier(&tools, item) {
            return Err(NewToolError::Taken {
                name: n.clone(),
                file: TOOLS_MOD,
                item: format!("an item named `{item}`"),
            });
        }
    }
    let edited = vec![
        (ENGINE_LIB.to_string(), wire_engine(&lib, &names)?),
        (
            TOOLS_MOD.to_string(),
            register_tool(&tools, &names, |module| {
                let dir = root.join("crates/exemplar/src/tools");
                std::fs::read_to_string(dir.join(format!("{module}.rs")))
                    .or_else(|_| std::fs::read_to_string(dir.join(module).join("mod.rs")))
                    .ok()
            })?,
        ),
    ];
    Ok(Plan {
        names,
        created,
        edited,
    })
}

/// The engine's `lib.rs` with `mod NAME;` among its module declarations and `pub use
/// NAME::{NAME, Camel};` among its re-exports, each where rustfmt's ordering puts it.
pub fn wire_engine(lib: &str, names: &Names) -> std::result::Result<String, NewToolError> {
    let shape = |what: &str| NewToolError::Shape {
        file: ENGINE_LIB,
        what: what.to_string(),
    };
    let lines: Vec<&str> = lib.lines().collect();
    let module_of = |line: &str| -> Option<String> {
        let rest = line
            .strip_prefix("pub mod ")
            .or_else(|| line.strip_prefix("mod "))?;
        rest.strip_suffix(';').map(str::to_string)
    };
    // The first block of top-level `mod x;` lines.
    let first = lines
        .iter()
        .position(|l| module_of(l).is_some())
        .ok_or_else(|| shape("has no `mod …;` declaration"))?;
    let end = first
        + lines[first..]
            .iter()
            .take_while(|l| module_of(l).is_some())
            .count();
    let mod_at = (first..end)
        .find(|&i| module_of(lines[i]).unwrap() > names.name)
        .unwrap_or(end);

    let use_line = format!(
        "pub use {n}::{{{n}, {c}}};",
        n = names.name,
        c = names.camel
    );
    let use_text = if use_line.len() <= 100 {
        use_line
    } else {
        format!(
            "pub use {n}::{{\n    {n}, {c},\n}};",
            n = names.name,
            c = names.camel
        )
    };
    // The `pub use module::…;` statements (one line or several) at the top level.
    let uses: Vec<(usize, String)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let path = l.strip_prefix("pub use ")?;
            let module = path.split("::").next()?;
            Some((i, module.to_string()))
        })
        .collect();
    if uses.is_empty() {
        return Err(shape("has no `pub use …;` re-export"));
    }
    let use_at = uses
        .iter()
        .find(|(_, module)| module.as_str() > names.name.as_str())
        .map(|(i, _)| *i)
        .unwrap_or_else(|| {
            // After the last statement: past its closing `;`.
            let last = uses.last().unwrap().0;
            last + lines[last..].iter().position(|l| l.ends_with(';')).unwrap() + 1
        });
    if use_at <= mod_at {
        return Err(shape("has its re-exports before its module declarations"));
    }

    let mut out: Vec<String> = Vec::with_capacity(lines.len() + 2);
    for (i, line) in lines.iter().enumerate() {
        if i == mod_at {
            out.push(format!("mod {};", names.name));
        }
        if i == use_at {
            out.push(use_text.clone());
        }
        out.push(line.to_string());
    }
    if use_at == lines.len() {
        out.push(use_text);
    }
    let mut text = out.join("\n");
    if lib.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// `tools/mod.rs` with `NAME::NAME_UPPER,` in `registry!`'s `extended` list, after its
/// analyses (before the first entry whose file says `ToolGroup::Plot` or `ToolGroup::Data`;
/// `source` reads a tool module's file).
pub fn register_tool(
    tools: &str,
    names: &Names,
    source: impl Fn(&str) -> Option<String>,
) -> std::result::Result<String, NewToolError> {
    let shape = |what: &str| NewToolError::Shape {
        file: TOOLS_MOD,
        what: what.to_string(),
    };
    let lines: Vec<&str> = tools.lines().collect();
    let registry = lines
        .iter()
        .position(|l| l.trim_end() == "registry! {")
        .ok_or_else(|| shape("has no `registry! {` invocation"))?;
    let extended = registry
        + lines[registry..]
            .iter()
            .position(|l| l.trim() == "extended: [")
            .ok_or_else(|| shape("has no `extended: [` list in `registry!`"))?;
    let close = extended
        + lines[extended..]
            .iter()
            .position(|l| l.trim_start().starts_with(']'))
            .ok_or_else(|| shape("does not close its `extended` list"))?;
    let entry = |line: &str| -> Option<String> {
        let (module, tool) = line.trim().strip_suffix(',')?.split_once("::")?;
        let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
        (ident(module) && ident(tool)).then(|| module.to_string())
    };
    let mut at = close;
    let mut indent = "        ".to_string();
    for i in extended + 1..close {
        let Some(module) = entry(lines[i]) else {
            continue;
        };
        indent = lines[i][..lines[i].len() - lines[i].trim_start().len()].to_string();
        let file = source(&module).unwrap_or_default();
        if file.contains("group: ToolGroup::Plot") || file.contains("group: ToolGroup::Data") {
            at = i;
            break;
        }
    }
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out.insert(at, format!("{indent}{}::{},", names.name, names.upper));
    let mut text = out.join("\n");
    if tools.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

// ------------------------------------------------------------------ writing

/// Writes the plan: new files first (never over an existing one), then the edits. A failure
/// part-way removes the new files and restores the edited ones.
fn write(root: &Path, plan: &Plan) -> std::result::Result<(), NewToolError> {
    let mut created: Vec<PathBuf> = Vec::new();
    let mut restore: Vec<(PathBuf, String)> = Vec::new();
    let outcome = (|| {
        for (path, text) in &plan.created {
            let full = root.join(path);
            let io = |error| NewToolError::Io {
                path: path.clone(),
                error,
            };
            let mut file = std::fs::File::options()
                .write(true)
                .create_new(true)
                .open(&full)
                .map_err(io)?;
            created.push(full);
            std::io::Write::write_all(&mut file, text.as_bytes()).map_err(io)?;
        }
        for (path, text) in &plan.edited {
            let full = root.join(path);
            let before = read(root, path)?;
            restore.push((full.clone(), before));
            std::fs::write(&full, text).map_err(|error| NewToolError::Io {
                path: path.clone(),
                error,
            })?;
        }
        Ok(())
    })();
    if outcome.is_err() {
        for path in &created {
            let _ = std::fs::remove_file(path);
        }
        for (path, text) in &restore {
            let _ = std::fs::write(path, text);
        }
    }
    outcome
}

/// Whether `Rscript` runs with metafor (and jsonlite, which the oracle scripts may use).
pub fn r_has_metafor() -> bool {
    toolchain::output(Command::new("Rscript").args([
        "-e",
        "suppressPackageStartupMessages({library(metafor); library(jsonlite)})",
    ]))
    .is_some()
}

/// `cargo xtask new-tool NAME`.
pub fn new_tool(root: &Path, name: &str) -> Result<()> {
    let plan = plan(root, name)?;
    write(root, &plan)?;
    // The templates are formatted for a short name; a long one may move a line break.
    let rust: Vec<&str> = plan
        .created
        .iter()
        .map(|(p, _)| p.as_str())
        .filter(|p| p.ends_with(".rs"))
        .collect();
    let formatted = Command::new("rustfmt")
        .args(["--edition", "2021"])
        .args(&rust)
        .current_dir(root)
        .status();
    if !formatted.is_ok_and(|s| s.success()) {
        eprintln!("note: rustfmt did not run on the new files; run `cargo fmt` before committing");
    }

    println!("Created:");
    for (path, _) in &plan.created {
        println!("  {path}");
    }
    println!("Edited:");
    println!(
        "  {ENGINE_LIB} (mod {n}; pub use {n}::{{{n}, {c}}};)",
        n = plan.names.name,
        c = plan.names.camel
    );
    println!(
        "  {TOOLS_MOD} ({}::{} in registry!'s extended group)",
        plan.names.name, plan.names.upper
    );

    let command = plan.oracle_command();
    if r_has_metafor() {
        println!("Writing the oracle's fixture:");
        let status = Command::new("Rscript")
            .args([&plan.oracle_script(), ORACLE_DATA, &plan.fixture()])
            .current_dir(root)
            .status()
            .map_err(|e| format!("could not start Rscript: {e}"))?;
        if !status.success() {
            return Err(NewToolError::Oracle {
                command,
                status: status.to_string(),
            }
            .into());
        }
    } else {
        println!(
            "Rscript with metafor and jsonlite is not available here (Debian: apt-get install \
             r-cran-metafor r-cran-jsonlite), so the fixture is not written yet. Write it, and \
             again whenever the oracle script changes, from the repository root with:\n  \
             {command}"
        );
    }
    println!(
        "\nFill in the places marked {MARKER} (grep -rn \"{MARKER}\" {}), rerun the oracle \
         script if you changed it ({command}), then:\n  cargo xtask codegen\n  cargo xtask test",
        rust.iter()
            .copied()
            .chain([plan.oracle_script().as_str()])
            .collect::<Vec<_>>()
            .join(" ")
    );
    Ok(())
}

// ------------------------------------------------------------------ the suite's check

/// The name the check scaffolds in its scratch copy. Written in two parts: in the copy it is
/// a registered tool, whose name the workspace's test of names
/// (`each_tool_name_is_written_once_outside_tests`) requires written once, in its entry.
const PROBE: &str = concat!("scaffold", "_probe");

/// The tests of `crates/exemplar-pdf/tests/pdf.rs` that compare the PDF's bytes, which hold
/// the crate's version, with the committed file: the scratch copy's version differs.
const VERSIONED_TESTS: [&str; 2] = [
    "rendering_is_reproducible_and_equals_the_committed_file",
    "the_released_baseline_records_this_pdf",
];

/// In a scratch copy of the workspace (the files `git ls-files` lists, untracked ones not
/// ignored included, as the other suites see them): `cargo xtask new-tool`, `cargo xtask
/// codegen`, then `cargo test --workspace`, clippy and rustfmt's check of the new files,
/// with the real target directory so that dependencies are reused. Needs Rscript with
/// metafor: the scaffold's oracle runs for real.
pub fn check_in_scratch(root: &Path) -> Result<()> {
    let outcome = scaffold_in_scratch(root);
    // The copy's `cargo xtask` put its binary at target/debug/xtask; put the workspace's back.
    let restored = run(cargo()
        .args(["build", "-q", "-p", "xtask"])
        .current_dir(root));
    outcome.and(restored)
}

fn scaffold_in_scratch(root: &Path) -> Result<()> {
    if !r_has_metafor() {
        return Err(
            "the new-tool check needs Rscript with the R packages metafor and jsonlite \
                    (Debian: apt-get install r-cran-metafor r-cran-jsonlite; `cargo xtask test` \
                    installs them when /usr/lib/R/site-library lacks them)"
                .into(),
        );
    }
    let scratch = std::env::temp_dir().join("exemplar-new-tool-check");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)
            .map_err(|e| format!("cannot clear {}: {e}", scratch.display()))?;
    }
    copy_workspace(root, &scratch)?;
    own_version(&scratch)?;
    let target = crate::target_dir(root);
    let in_scratch = |cmd: &mut Command| -> Result<()> {
        run(cmd.env("CARGO_TARGET_DIR", &target).current_dir(&scratch))
    };

    in_scratch(cargo().args(["xtask", "new-tool", PROBE]))?;
    let fixture = scratch.join(format!("crates/meta-analysis/tests/fixtures/{PROBE}.json"));
    if !fixture.exists() {
        return Err(format!(
            "new-tool did not write its oracle's fixture {}",
            fixture.display()
        )
        .into());
    }
    in_scratch(cargo().args(["xtask", "codegen"]))?;
    let snapshot = scratch.join(format!("{}/{PROBE}.txt", crate::codegen::SNAPSHOTS));
    if !snapshot.exists() {
        return Err(format!(
            "codegen did not write the new tool's summary snapshot {}",
            snapshot.display()
        )
        .into());
    }
    // Every test of the workspace, the registry-wide ones included (tests/registry.rs,
    // summary_snapshots.rs, printed_summaries.rs with the new tool's own metafor printouts,
    // tools::guide's lean definitions, the CLI's tool_list_size, xtask's doc facts and
    // `codegen --check`): what the native suite runs on the workspace itself. But two, whose
    // answer is the copy's own version (see `own_version`): the PDF's bytes hold the version,
    // so its committed file and baseline hash cannot match the copy's; that a tool leaves
    // the PDF unchanged is held by a test that runs (`adding_or_describing_a_tool_…`).
    let mut test = cargo();
    test.args(["test", "--workspace", "--no-fail-fast", "--", "--exact"]);
    for name in VERSIONED_TESTS {
        test.args(["--skip", name]);
    }
    in_scratch(&mut test)?;
    // The tidy suite's lints, on the crates the scaffold writes to.
    in_scratch(cargo().args([
        "clippy",
        "-p",
        "meta-analysis",
        "-p",
        "living-evidence-exemplar",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    in_scratch(
        Command::new("rustfmt")
            .args(["--check", "--edition", "2021"])
            .arg(format!("crates/meta-analysis/src/{PROBE}.rs"))
            .arg(format!("crates/meta-analysis/tests/{PROBE}.rs"))
            .arg(format!("crates/exemplar/src/tools/{PROBE}.rs"))
            .arg(ENGINE_LIB),
    )?;
    std::fs::remove_dir_all(&scratch)
        .map_err(|e| format!("cannot remove {}: {e}", scratch.display()))?;
    Ok(())
}

/// Gives the scratch copy's packages a version of their own (the workspace's, with build
/// metadata `+new-tool-check`). Cargo names a workspace package's artifacts by its path
/// relative to the workspace root, name and version, so a copy at another path with the same
/// version would build over the real workspace's artifacts in the shared target directory
/// (and the real workspace could then link the copy's code, scaffolded tool included). The
/// version keeps them apart while the dependencies, unchanged, are reused.
fn own_version(scratch: &Path) -> Result<()> {
    let manifest = scratch.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let mut in_package = false;
    let mut patched = false;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            if line.starts_with('[') {
                in_package = line.trim() == "[workspace.package]";
            } else if in_package && !patched {
                if let Some(version) = line
                    .strip_prefix("version = \"")
                    .and_then(|v| v.strip_suffix('"'))
                {
                    patched = true;
                    return format!("version = \"{version}+new-tool-check\"");
                }
            }
            line.to_string()
        })
        .collect();
    if !patched {
        return Err(
            "the workspace's Cargo.toml has no `version = \"…\"` in [workspace.package]: \
                    the scratch copy cannot be given a version of its own"
                .into(),
        );
    }
    std::fs::write(&manifest, lines.join("\n") + "\n")
        .map_err(|e| format!("cannot write {}: {e}", manifest.display()))?;
    Ok(())
}

/// Copies the workspace's files (`git ls-files`: tracked, and untracked but not ignored)
/// into `to`.
fn copy_workspace(root: &Path, to: &Path) -> Result<()> {
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("could not start git: {e}"))?;
    if !listed.status.success() {
        return Err(format!(
            "`git ls-files` failed in {}: {}",
            root.display(),
            String::from_utf8_lossy(&listed.stderr).trim()
        )
        .into());
    }
    let text = String::from_utf8(listed.stdout).map_err(|_| "a file name is not UTF-8")?;
    for path in text.split('\0').filter(|p| !p.is_empty()) {
        let from = root.join(path);
        // Listed but deleted in the working tree: the suites do not see it either.
        if !from.is_file() {
            continue;
        }
        let dest = to.join(path);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::copy(&from, &dest).map_err(|e| format!("cannot copy {path}: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(name: &str) -> Names {
        Names::new(name).unwrap()
    }

    #[test]
    fn a_name_gives_each_form_the_templates_use() {
        let n = names("radial_plot2");
        assert_eq!(
            (n.upper.as_str(), n.camel.as_str(), n.title.as_str()),
            ("RADIAL_PLOT2", "RadialPlot2", "Radial plot2")
        );
        assert_eq!(n.words, "radial plot2");
        assert_eq!(
            n.fill("{{name}} {{NAME}} {{Camel}}"),
            "radial_plot2 RADIAL_PLOT2 RadialPlot2"
        );
    }

    #[test]
    fn a_bad_name_is_refused_saying_why() {
        for (name, why) in [
            ("", "empty"),
            ("Radial", "'R'"),
            ("radial-plot", "'-'"),
            ("2radial", "start with a letter"),
            ("_radial", "start with a letter"),
            ("radial_", "single underscores"),
            ("radial__plot", "single underscores"),
            ("match", "keyword"),
            (&"a".repeat(MAX_NAME_LEN + 1), "characters"),
        ] {
            let err = Names::new(name).unwrap_err().to_string();
            assert!(err.contains(why), "{name}: {err}");
            assert!(err.contains("nothing was written"), "{err}");
        }
    }

    #[test]
    fn every_placeholder_of_every_template_is_filled() {
        let n = names("radial");
        for template in [
            ENGINE_TEMPLATE,
            ENGINE_TEST_TEMPLATE,
            ORACLE_TEMPLATE,
            TOOL_TEMPLATE,
        ] {
            let filled = n.fill(template);
            assert!(!filled.contains("{{"), "{filled}");
            assert!(filled.contains(MARKER));
        }
    }

    const LIB: &str = "//! The engine.\n\nmod cumulative;\npub mod distributions;\nmod \
                       egger;\nmod records;\n\npub use cumulative::{cumulative, Step};\npub use \
                       egger::{\n    egger_test, EggerResult,\n};\npub use \
                       records::Record;\n\npub const VERSION: &str = \"1\";\n";

    #[test]
    fn the_engine_module_is_declared_and_exported_in_order() {
        let wired = wire_engine(LIB, &names("radial")).unwrap();
        assert_eq!(
            wired,
            LIB.replace("mod records;\n", "mod radial;\nmod records;\n")
                .replace(
                    "pub use records::Record;",
                    "pub use radial::{radial, Radial};\npub use records::Record;"
                )
        );
        // First and last places, after a statement of several lines.
        let first = wire_engine(LIB, &names("alpha")).unwrap();
        assert!(first.contains("\nmod alpha;\nmod cumulative;\n"), "{first}");
        assert!(first.contains("\npub use alpha::{alpha, Alpha};\npub use cumulative"));
        let last = wire_engine(LIB, &names("zeta")).unwrap();
        assert!(last.contains("mod records;\nmod zeta;\n"), "{last}");
        assert!(last.contains("pub use records::Record;\npub use zeta::{zeta, Zeta};\n\npub const"));
        let between = wire_engine(LIB, &names("elm")).unwrap();
        assert!(between.contains("pub use egger::{\n    egger_test, EggerResult,\n};\npub use elm::{elm, Elm};\npub use records"), "{between}");
        assert!(
            between.contains("mod egger;\nmod elm;\nmod records;"),
            "{between}"
        );
    }

    #[test]
    fn a_lib_without_modules_or_exports_is_refused() {
        let err = wire_engine("//! nothing\n", &names("radial")).unwrap_err();
        assert!(err.to_string().contains("no `mod"), "{err}");
        let err = wire_engine("mod a;\n", &names("radial")).unwrap_err();
        assert!(err.to_string().contains("no `pub use"), "{err}");
    }

    const TOOLS: &str = "registry! {\n    benchmark: [\n        get_dataset::GET_DATASET,\n    \
                         ],\n    // Every further tool.\n    extended: [\n        \
                         heterogeneity::HETEROGENEITY,\n        forest_plot::FOREST_PLOT,\n        \
                         load_data::LOAD_DATA,\n    ],\n}\n";

    fn group(module: &str) -> Option<String> {
        Some(
            match module {
                "forest_plot" => "group: ToolGroup::Plot",
                "load_data" => "group: ToolGroup::Data",
                _ => "group: ToolGroup::Analysis",
            }
            .to_string(),
        )
    }

    #[test]
    fn the_tool_is_registered_after_the_analyses() {
        let registered = register_tool(TOOLS, &names("radial"), group).unwrap();
        assert_eq!(
            registered,
            TOOLS.replace(
                "        forest_plot::FOREST_PLOT,",
                "        radial::RADIAL,\n        forest_plot::FOREST_PLOT,"
            )
        );
        // Without plots or data tools: at the end of the list.
        let analyses_only = |_: &str| Some("group: ToolGroup::Analysis".to_string());
        let registered = register_tool(TOOLS, &names("radial"), analyses_only).unwrap();
        assert!(
            registered.contains("        load_data::LOAD_DATA,\n        radial::RADIAL,\n    ],")
        );
        let err = register_tool("mod args;\n", &names("radial"), group).unwrap_err();
        assert!(err.to_string().contains("registry!"), "{err}");
    }

    /// The real workspace: an existing tool, engine item or file is refused, naming it.
    #[test]
    fn an_existing_tool_or_item_is_refused() {
        let root = crate::workspace_root();
        let err = plan(&root, "fail_safe_n").unwrap_err().to_string();
        assert!(
            err.contains("crates/exemplar/src/tools/fail_safe_n.rs"),
            "{err}"
        );
        let err = plan(&root, "fit_columns").unwrap_err().to_string();
        assert!(
            err.contains("lib.rs already has an item named `fit_columns`"),
            "{err}"
        );
        let err = plan(&root, "max_tool_records").unwrap_err().to_string();
        assert!(err.contains("an item named `MAX_TOOL_RECORDS`"), "{err}");
        let err = plan(&root, "effect_sizes").unwrap_err().to_string();
        assert!(
            err.contains("crates/meta-analysis/src/effect_sizes"),
            "{err}"
        );
        let err = plan(&root, "common").unwrap_err().to_string();
        assert!(err.contains("oracle/common.R"), "{err}");
        let err = plan(&root, "args").unwrap_err().to_string();
        assert!(err.contains("tools/args.rs"), "{err}");
        // Not PROBE: this test runs in the check's scratch copy too, where PROBE is a tool.
        let fresh = plan(&root, "scaffold_fresh_name").unwrap();
        assert_eq!(fresh.created.len(), 4);
        assert_eq!(fresh.edited.len(), 2);
    }

    /// The `cargo xtask test` step alone (minutes: it builds the scratch copy's crates):
    /// `cargo test -p xtask scratch -- --ignored`.
    #[test]
    #[ignore]
    fn the_scaffold_passes_its_tests_in_a_scratch_copy() {
        check_in_scratch(&crate::workspace_root()).unwrap();
    }

    /// docs/ARCHITECTURE.md's recipe ("Adding a tool") is the scaffold as it is: it names
    /// every file the scaffold writes and the command that rewrites the fixture, the snapshot
    /// codegen writes, and its only commands are `new-tool`, `codegen` and `test`.
    #[test]
    fn the_architecture_pages_recipe_is_the_scaffold() {
        let root = crate::workspace_root();
        let page = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
        let start = page.find("**Adding a tool**").expect("the recipe");
        let end = start + page[start..].find("\n**").expect("the paragraph after it");
        let recipe = page[start..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let name = "scaffold_fresh_name";
        let plan = plan(&root, name).unwrap();
        let generic = |text: &str| text.replace(name, "NAME");
        let mut named: Vec<String> = plan.created.iter().map(|(p, _)| generic(p)).collect();
        named.extend([
            generic(&plan.fixture()),
            generic(&plan.oracle_command()),
            format!("{}/NAME.txt", crate::codegen::SNAPSHOTS),
            "crates/exemplar/tests/printed_summaries.rs".to_string(),
            "Printed".to_string(),
            "`lib.rs`".to_string(),
            "`registry!`".to_string(),
            "check_in_scratch".to_string(),
            "`cargo test --workspace`".to_string(),
        ]);
        for text in named {
            assert!(recipe.contains(&text), "the recipe does not name {text}");
        }
        let commands: Vec<&str> = recipe
            .split("`cargo xtask ")
            .skip(1)
            .map(|rest| &rest[..rest.find('`').unwrap()])
            .collect();
        assert_eq!(commands, ["new-tool NAME", "codegen", "test"]);
        // The places to fill in are found by the scaffold's own marker.
        assert!(recipe.contains(&format!("`{MARKER}`")), "{recipe}");
    }

    /// The tests the scratch check skips are the PDF's (a renamed one would run and fail).
    #[test]
    fn the_skipped_tests_are_the_pdfs_byte_comparisons() {
        let root = crate::workspace_root();
        let pdf = std::fs::read_to_string(root.join("crates/exemplar-pdf/tests/pdf.rs")).unwrap();
        for name in VERSIONED_TESTS {
            assert!(pdf.contains(&format!("fn {name}()")), "{name}");
        }
    }

    #[test]
    fn has_identifier_matches_whole_words_only() {
        assert!(has_identifier("pub use a::{fit, Fit};", "fit"));
        assert!(!has_identifier("pub use a::{fit_columns};", "fit"));
        assert!(!has_identifier("refit", "fit"));
        assert!(!has_identifier("/// a fit\nmod a;", "fit"));
    }
}
