//! `cargo xtask bridge [--url URL]`: the WebMCP bridge (`crates/xtask/bridge/`), an MCP
//! stdio server that opens a WebMCP page in headless Chromium and serves the page's tools.
//! Without `--url` it builds the project's page and serves it on a free loopback port for
//! as long as the bridge runs.
//!
//! An MCP client starts this command as its server, so stdout belongs to the protocol: the
//! chores before the bridge starts log to stderr, and so do the commands they run
//! ([`toolchain::keep_stdout_for_protocol`]); only the bridge inherits stdout.

use std::path::Path;
use std::process::Command;

use crate::toolchain::{self, describe};
use crate::{build, serve, Result};

/// The bridge script, relative to the workspace root.
pub const SCRIPT: &str = "crates/xtask/bridge/webmcp-bridge.mjs";

/// The npm packages the bridge script imports.
const PACKAGES: [&str; 2] = ["playwright-core", "@modelcontextprotocol/sdk"];

/// With `--url` the page is someone else's: nothing in the checkout is built, installed or
/// rewritten (no `npm ci`, no wasm build). The bridge's own packages must already be in
/// `node_modules`; if one is not, the error says how to install them.
fn check_packages(root: &Path) -> Result<()> {
    for package in PACKAGES {
        if !root.join("node_modules").join(package).is_dir() {
            return Err(format!(
                "the bridge needs the npm package {package}, which {} lacks; install the \
packages once with `npm ci` (or `cargo xtask build`) in {} (with --url the bridge builds and \
installs nothing in the checkout)",
                root.join("node_modules").display(),
                root.display()
            )
            .into());
        }
    }
    Ok(())
}

pub fn run(root: &Path, url: Option<&str>) -> Result<()> {
    toolchain::keep_stdout_for_protocol();
    if url.is_some() {
        check_packages(root)?;
    }
    toolchain::ensure_browser()?;
    // Holds the page's server (when we serve it) until the bridge exits.
    let mut _server = None;
    let url = match url {
        Some(url) => url.to_string(),
        None => {
            toolchain::ensure_build_tools(root)?;
            build::build(root)?;
            let server = serve::spawn_background(root)?;
            let url = format!("{}/", server.url());
            eprintln!("xtask bridge: serving the exemplar page at {url}");
            _server = Some(server);
            url
        }
    };
    let mut cmd = Command::new("node");
    cmd.arg(root.join(SCRIPT))
        .arg("--url")
        .arg(&url)
        .current_dir(root);
    eprintln!("$ {}", describe(&cmd));
    let status = cmd
        .status()
        .map_err(|e| format!("could not start the bridge (node): {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the bridge exited with {status}").into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = walk(dir)
            .into_iter()
            .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
            .collect();
        names.sort();
        names
    }

    fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                out.extend(walk(&path));
            }
            out.push(path);
        }
        out
    }

    /// `--url`: a checkout without the packages is an error saying how to install them, and
    /// nothing is written; with them, the check passes and still writes nothing.
    #[test]
    fn with_a_url_nothing_in_the_checkout_is_built_or_installed() {
        let root = std::env::temp_dir().join(format!("xtask-bridge-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("package-lock.json"), "{}").unwrap();
        let before = listing(&root);
        let error = check_packages(&root).unwrap_err().to_string();
        assert!(
            error.contains("npm ci") && error.contains("playwright-core"),
            "{error}"
        );
        assert_eq!(listing(&root), before, "nothing written");
        for package in PACKAGES {
            std::fs::create_dir_all(root.join("node_modules").join(package)).unwrap();
        }
        let before = listing(&root);
        check_packages(&root).unwrap();
        assert_eq!(listing(&root), before, "nothing written");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
