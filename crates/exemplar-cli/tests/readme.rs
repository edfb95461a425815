//! The README's MCP client configuration starts a binary that the README's own command
//! builds (issue 21 item 6): the `exemplar` entry's command is the path `cargo build -p
//! exemplar-cli` writes, and that command is written next to it.

use serde_json::Value;
use std::path::{Component, Path};

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fenced ```json blocks of a Markdown text.
fn json_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```json") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// The last `n` components of `path`, as text.
fn tail(path: &Path, n: usize) -> Vec<String> {
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    parts[parts.len().saturating_sub(n)..].to_vec()
}

#[test]
fn the_mcp_configuration_names_the_binary_the_documented_command_builds() {
    let text = readme();
    let config: Value = json_blocks(&text)
        .iter()
        .find(|block| block.contains("\"mcpServers\""))
        .map(|block| serde_json::from_str(block).expect("the configuration is valid JSON"))
        .expect("a ```json block with mcpServers");
    let entry = &config["mcpServers"]["exemplar"];
    assert_eq!(entry["args"], serde_json::json!(["mcp"]), "{entry}");
    let command = Path::new(entry["command"].as_str().expect("a command"));

    // `cargo build -p <this package>` (no --release) writes the binary to target/debug/.
    let build = format!("cargo build -p {}", env!("CARGO_PKG_NAME"));
    assert!(
        text.contains(&format!("\n{build}\n")),
        "the README does not give the command `{build}` on a line of its own"
    );
    let built = Path::new(env!("CARGO_BIN_EXE_exemplar"));
    let binary = built.file_name().unwrap().to_string_lossy().into_owned();
    let folder = built.parent().unwrap();
    // Under the dev profile (`cargo test` without --release) the binary this test runs sits
    // in the folder the documented command writes to.
    if cfg!(debug_assertions) {
        assert_eq!(folder.file_name().unwrap(), "debug", "{}", built.display());
    }
    let documented = format!(
        "{}{}",
        command.file_name().unwrap().to_string_lossy(),
        std::env::consts::EXE_SUFFIX
    );
    assert_eq!(
        documented, binary,
        "the configuration starts {command:?}, but the package's binary is {binary}"
    );
    assert_eq!(
        tail(command, 3),
        ["target", "debug", "exemplar"],
        "the configuration starts {command:?}, not the checkout's target/debug/exemplar"
    );
    // And the path that command builds is the one written in the prose beside it.
    assert!(
        text.contains("builds at `target/debug/exemplar`"),
        "the README does not say where `{build}` puts the binary"
    );
}

#[test]
fn json_blocks_are_found() {
    let text = "a\n```json\n{\"x\": 1}\n```\n```sh\nls\n```\n";
    assert_eq!(json_blocks(text), ["{\"x\": 1}\n"]);
}

/// Issue 42 item 9: the install routes by registry (uvx, pip, npm) are not published yet,
/// and the README says so where it lists them, with the routes that work from a checkout
/// (`cargo install --path`, and the packages `cargo xtask package` builds, installed as files).
#[test]
fn the_unpublished_install_routes_are_said_to_be_so_with_the_route_that_works() {
    let text = readme();
    let section = text
        .find("## Install without a checkout")
        .expect("the README's install section");
    let routes = text.find("<!-- install:begin").expect("the routes' marker");
    assert!(section < routes);
    let before = &text[section..routes];
    assert!(
        before.contains("**Not published yet.**"),
        "the README lists the uvx, pip and npm routes without saying they are not published"
    );
    for works in [
        "cargo install --locked --path crates/exemplar-cli",
        "cargo xtask package",
        "pip install target/packaging/dist/wheel/",
        "npm install ./target/packaging/dist/npm/",
    ] {
        assert!(
            before.contains(works),
            "the notice does not give the route that works today: `{works}`"
        );
    }
    let install = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/INSTALL.md"),
    )
    .expect("docs/INSTALL.md");
    assert!(
        install.contains("**Status: not published.**"),
        "docs/INSTALL.md does not say the packages are not published"
    );
}
