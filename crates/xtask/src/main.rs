//! `cargo xtask …`: every project chore as one Rust program.
//!
//! - `build`: the wasm package in `www/pkg` and the methods fragment in
//!   `www/generated`, installing missing tools first.
//! - `serve`: build, then serve the page on 127.0.0.1 (`--allow-host` adds `Host` names).
//! - `test`: build, then run every suite and print one summary line each.
//! - `pdf`: regenerate the frozen `benchmark-baseline.pdf` at the repository root.
//! - `codegen`: write every generated file the repository commits (`--check`: write nothing,
//!   fail naming each stale one; the tidy suite runs the same check).
//! - `bench`: build, then run the benchmarks of issue 7 (`crates/bench`).
//! - `bridge`: the WebMCP bridge, an MCP stdio server serving a WebMCP page's tools.
//! - `fuzz`: run every `cargo fuzz` target of `fuzz/` for a while.
//! - `new-tool NAME`: scaffold a tool (engine module, oracle, tool file, registry line).
//! - `package`: the Python wheel and the npm package, into target/packaging/dist.

mod bridge;
mod build;
mod codegen;
#[cfg(test)]
mod doc_facts;
#[cfg(test)]
mod function_lengths;
mod fuzz;
mod fuzz_seeds;
#[cfg(test)]
mod module_graph;
mod new_tool;
mod packaging;
mod pdf;
mod serve;
mod suites;
#[cfg(test)]
mod tidy;
mod toolchain;
mod typescript;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub type Result<T, E = Box<dyn std::error::Error>> = std::result::Result<T, E>;

#[derive(Parser)]
#[command(about = "Build, serve and test the living-evidence exemplar page")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the wasm package and the methods fragment into www/.
    Build,
    /// Build, then serve the page at http://127.0.0.1:PORT.
    Serve {
        #[arg(long, default_value_t = 8000)]
        port: u16,
        /// Also answer to requests for HOST (a name or IP address without a
        /// port), besides 127.0.0.1, localhost and [::1]. Repeatable.
        #[arg(long = "allow-host", value_name = "HOST")]
        allow_host: Vec<serve::AllowedHost>,
    },
    /// Install what is missing, build, and run every test suite.
    Test,
    /// Regenerate benchmark-baseline.pdf at the repository root.
    Pdf,
    /// Write every generated file the repository commits, natively (review the diff).
    Codegen {
        /// Write nothing; fail naming each generated file that is not current.
        #[arg(long)]
        check: bool,
    },
    /// Build, then run every benchmark and print a table (one JSON object with --json).
    Bench {
        #[arg(long)]
        json: bool,
    },
    /// An MCP stdio server that opens a WebMCP page in headless Chromium and serves the
    /// page's tools (for an MCP client without a WebMCP browser). Stdout is the protocol.
    Bridge {
        /// The page to open (http or https). Default: build the exemplar page and serve it
        /// on a free loopback port while the bridge runs.
        #[arg(long)]
        url: Option<String>,
    },
    /// Run every fuzz target of fuzz/ for SECONDS each, one after another (nightly, cargo-fuzz).
    Fuzz {
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Run only this target (repeatable).
        #[arg(long = "target", value_name = "NAME")]
        targets: Vec<String>,
    },
    /// Scaffold a tool NAME (snake_case): the engine module wired into lib.rs, its oracle
    /// script and fixture test, the tool file and its registry line; then fill in the places
    /// marked FILL IN, `cargo xtask codegen` and `cargo xtask test`.
    NewTool {
        /// The tool's name, e.g. radial_plot.
        name: String,
    },
    /// Build the Python wheel of `exemplar` and the npm package of the engine into
    /// target/packaging/dist (docs/INSTALL.md).
    Package,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = workspace_root();
    let outcome = match cli.command {
        Command::Build => toolchain::ensure_build_tools(&root).and_then(|()| build::build(&root)),
        Command::Serve { port, allow_host } => toolchain::ensure_build_tools(&root)
            .and_then(|()| build::build(&root))
            .and_then(|()| serve::serve_forever(&root, port, &allow_host)),
        Command::Test => suites::run_all(&root),
        Command::Pdf => pdf::regenerate(&root),
        Command::Codegen { check: false } => codegen::write(&root),
        Command::Codegen { check: true } => codegen::check(&root),
        Command::Bench { json } => toolchain::ensure_build_tools(&root)
            .and_then(|()| toolchain::ensure_browser())
            .and_then(|()| build::build(&root))
            .and_then(|()| bench(&root, json)),
        Command::Bridge { url } => bridge::run(&root, url.as_deref()),
        Command::Fuzz { seconds, targets } => {
            toolchain::ensure_fuzz_tools().and_then(|()| fuzz::run_all(&root, seconds, &targets))
        }
        Command::NewTool { name } => new_tool::new_tool(&root, &name),
        Command::Package => {
            toolchain::ensure_build_tools(&root).and_then(|()| packaging::package(&root))
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The benchmarks, with the page just built: `cargo run --release -p bench -- [--json]`.
fn bench(root: &Path, json: bool) -> Result<()> {
    let mut cmd = toolchain::cargo();
    cmd.args(["run", "--release", "-p", "bench", "--"]);
    if json {
        cmd.arg("--json");
    }
    toolchain::run(cmd.current_dir(root))
}

/// The workspace root: two levels above this crate's manifest.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/xtask sits two levels below the workspace root")
        .to_path_buf()
}

/// The cargo target directory, honouring `CARGO_TARGET_DIR`.
pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serve_takes_repeated_allow_host() {
        let cli = Cli::try_parse_from([
            "xtask",
            "serve",
            "--allow-host",
            "exemplar.test",
            "--allow-host",
            "[fd00::7]",
        ])
        .unwrap();
        let Command::Serve { port, allow_host } = cli.command else {
            panic!("not serve");
        };
        assert_eq!(port, 8000);
        let expected: Vec<serve::AllowedHost> = ["exemplar.test", "[fd00::7]"]
            .iter()
            .map(|h| h.parse().unwrap())
            .collect();
        assert_eq!(allow_host, expected);
    }

    #[test]
    fn serve_refuses_an_allow_host_with_a_port() {
        let err = Cli::try_parse_from(["xtask", "serve", "--allow-host", "exemplar.test:80"])
            .err()
            .expect("a port is refused");
        assert!(err.to_string().contains("has a port"), "{err}");
    }
}
