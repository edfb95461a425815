//! Installs what a fresh machine lacks, and says so.
//!
//! The measured recipes and their traps are in `../shared/TOOLCHAIN.md`:
//! `cargo install wasm-bindgen-cli` must not use `--locked`, and wasm-opt
//! comes from npm `binaryen` because Debian's build yields modules Chromium
//! rejects.
//!
//! Progress goes to stderr, so that a command's own stdout (`cargo xtask bench
//! --json`) stays clean.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::Result;

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Set by [`keep_stdout_for_protocol`]: children's stdout goes to stderr.
static STDOUT_TO_STDERR: AtomicBool = AtomicBool::new(false);

/// From now on, every command [`run`] starts writes its stdout to stderr: for a chore
/// whose own stdout carries a protocol (`cargo xtask bridge`).
pub fn keep_stdout_for_protocol() {
    STDOUT_TO_STDERR.store(true, Ordering::Relaxed);
}

/// Runs a command with inherited stdio, echoing it first; a non-zero exit is
/// an error naming the command.
pub fn run(cmd: &mut Command) -> Result<()> {
    let shown = describe(cmd);
    eprintln!("$ {shown}");
    if STDOUT_TO_STDERR.load(Ordering::Relaxed) {
        cmd.stdout(std::io::stderr());
    }
    let status = cmd
        .status()
        .map_err(|e| format!("could not start `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})").into())
    }
}

/// Runs a command and returns its trimmed stdout, or `None` when it cannot
/// start or fails.
pub fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub fn describe(cmd: &Command) -> String {
    let mut parts = vec![cmd.get_program().to_string_lossy().into_owned()];
    parts.extend(cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
    parts.join(" ")
}

/// `cargo`, the same one that runs xtask.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

pub fn npm_bin(root: &Path, name: &str) -> PathBuf {
    root.join("node_modules").join(".bin").join(name)
}

/// Everything `build` and `serve` need: the wasm target, the wasm-bindgen CLI
/// matching the crate, and the npm packages of the committed lock file.
pub fn ensure_build_tools(root: &Path) -> Result<()> {
    put_cargo_bin_on_path();
    ensure_wasm_target()?;
    ensure_wasm_bindgen_cli(root)?;
    ensure_npm_packages(root)
}

/// `cargo install` puts binaries in `$CARGO_HOME/bin`, which a fresh shell may
/// not have on PATH; children inherit the amended PATH.
fn put_cargo_bin_on_path() {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(bin) = cargo_home.map(|h| h.join("bin")) else {
        return;
    };
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|p| p == bin) {
        return;
    }
    let mut joined = OsString::from(bin.as_os_str());
    joined.push(":");
    joined.push(&path);
    std::env::set_var("PATH", joined);
}

fn ensure_wasm_target() -> Result<()> {
    let Some(installed) = output(Command::new("rustup").args(["target", "list", "--installed"]))
    else {
        eprintln!("rustup not found: assuming the toolchain already has {WASM_TARGET}");
        return Ok(());
    };
    if installed.lines().any(|l| l.trim() == WASM_TARGET) {
        return Ok(());
    }
    eprintln!("installing the {WASM_TARGET} target because it is missing");
    run(Command::new("rustup").args(["target", "add", WASM_TARGET]))
}

/// The version of the `wasm-bindgen` crate in Cargo.lock: the CLI must match
/// it exactly or the generated glue will not load the module.
pub fn locked_wasm_bindgen_version(root: &Path) -> Result<String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\"" {
            if let Some(version) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = \""))
                .and_then(|v| v.strip_suffix('"'))
            {
                return Ok(version.to_string());
            }
        }
    }
    Err("Cargo.lock has no wasm-bindgen package; is crates/exemplar-wasm in the workspace?".into())
}

fn ensure_wasm_bindgen_cli(root: &Path) -> Result<()> {
    let wanted = locked_wasm_bindgen_version(root)?;
    let have = output(Command::new("wasm-bindgen").arg("--version"));
    let have_version = have
        .as_deref()
        .and_then(|s| s.split_whitespace().nth(1))
        .map(str::to_string);
    let runner_present =
        output(Command::new("wasm-bindgen-test-runner").arg("--version")).is_some();
    if have_version.as_deref() == Some(wanted.as_str()) && runner_present {
        return Ok(());
    }
    match have_version {
        Some(v) => eprintln!(
            "installing wasm-bindgen-cli {wanted} because the installed CLI is {v}, \
             not the version of the wasm-bindgen crate in Cargo.lock"
        ),
        None => eprintln!("installing wasm-bindgen-cli {wanted} because it is missing"),
    }
    // No `--locked`: one of its locked dependency versions is not on the
    // registry (TOOLCHAIN.md).
    run(cargo().args([
        "install",
        "wasm-bindgen-cli",
        "--version",
        &wanted,
        "--no-default-features",
        "--force",
    ]))
}

/// The npm packages of the committed lock file (`npm ci` when they are missing or stale).
pub fn ensure_npm_packages(root: &Path) -> Result<()> {
    let node = output(Command::new("node").arg("--version")).ok_or(
        "node is not installed: install Node.js 20 or newer (it runs wasm-opt and the browser tests)",
    )?;
    let major: u32 = node
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    if major < 20 {
        return Err(
            format!("node {node} is too old: playwright-core needs Node.js 20 or newer").into(),
        );
    }
    let needed = [
        npm_bin(root, "wasm-opt"),
        root.join("node_modules/playwright-core"),
        root.join("node_modules/@modelcontextprotocol/sdk"),
    ];
    let lock = root.join("package-lock.json");
    let installed_lock = root.join("node_modules/.package-lock.json");
    let stale = match (modified(&lock), modified(&installed_lock)) {
        (Some(want), Some(have)) => want > have,
        _ => true,
    };
    if needed.iter().all(|p| p.exists()) && !stale {
        return Ok(());
    }
    eprintln!("installing npm packages from package-lock.json because node_modules is missing or older than the lock file");
    run(Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .stdout(std::process::Stdio::from(std::io::stderr()))
        .current_dir(root))
}

/// The cargo-fuzz release installed when it is missing (any installed release is used).
pub const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// What `cargo xtask fuzz` needs: a nightly toolchain (libFuzzer's instrumentation) and
/// cargo-fuzz. Measured on a fresh 2-core machine in docs/RELIABILITY.md.
pub fn ensure_fuzz_tools() -> Result<()> {
    put_cargo_bin_on_path();
    output(Command::new("rustup").arg("--version")).ok_or(
        "rustup not found: the fuzz targets need rustup and a nightly toolchain \
         (https://rustup.rs)",
    )?;
    if output(Command::new("rustup").args(["run", "nightly", "rustc", "--version"])).is_none() {
        eprintln!(
            "installing the nightly toolchain because it is missing (the fuzz targets need it)"
        );
        run(Command::new("rustup").args([
            "toolchain",
            "install",
            "nightly",
            "--profile",
            "minimal",
        ]))?;
    }
    if output(Command::new("cargo-fuzz").arg("--version")).is_some() {
        return Ok(());
    }
    eprintln!("installing cargo-fuzz {CARGO_FUZZ_VERSION} because it is missing");
    run(cargo().args(["install", "cargo-fuzz", "--version", CARGO_FUZZ_VERSION]))
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Debian's packages the test suites need: Chromium and its driver (browser suites),
/// poppler-utils (pdftotext, pdftoppm) and qpdf (the PDF's tests), R's metafor and jsonlite
/// (the new-tool check runs a scaffolded oracle script; r-cran-metafor brings Rscript), and
/// clubSandwich (robust_test's R code, run by tests/r_code.rs).
pub fn ensure_browser() -> Result<()> {
    let needed = [
        (CHROMIUM, "chromium"),
        (CHROMEDRIVER, "chromium-driver"),
        ("/usr/bin/pdftotext", "poppler-utils"),
        ("/usr/bin/pdftoppm", "poppler-utils"),
        ("/usr/bin/qpdf", "qpdf"),
        ("/usr/lib/R/site-library/metafor", "r-cran-metafor"),
        ("/usr/lib/R/site-library/jsonlite", "r-cran-jsonlite"),
        (
            "/usr/lib/R/site-library/clubSandwich",
            "r-cran-clubsandwich",
        ),
    ];
    let mut missing: Vec<&str> = needed
        .iter()
        .filter(|(path, _)| !Path::new(path).exists())
        .map(|(_, package)| *package)
        .collect();
    missing.dedup();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!(
        "installing {} with apt-get because they are missing",
        missing.join(" ")
    );
    run(Command::new("apt-get")
        .arg("update")
        .stdout(std::process::Stdio::from(std::io::stderr())))?;
    run(Command::new("apt-get")
        .args(["install", "-y"])
        .args(&missing)
        .stdout(std::process::Stdio::from(std::io::stderr()))
        .env("DEBIAN_FRONTEND", "noninteractive"))
}
