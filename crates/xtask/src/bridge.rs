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

pub fn run(root: &Path, url: Option<&str>) -> Result<()> {
    toolchain::keep_stdout_for_protocol();
    toolchain::ensure_browser()?;
    // Holds the page's server (when we serve it) until the bridge exits.
    let mut _server = None;
    let url = match url {
        Some(url) => {
            toolchain::ensure_npm_packages(root)?;
            url.to_string()
        }
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
