//! `cargo xtask test`: every suite, one summary line each, non-zero exit on
//! any failure. A failing suite does not stop the others.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::toolchain::{self, cargo, run, CHROMEDRIVER, WASM_TARGET};
use crate::{build, serve, Result};

const WASM_CRATE: &str = "exemplar-wasm";
/// The wasm crate's test of `renderFigure` (`tests/figures.rs`), which only the figures
/// module (feature `figures`) compiles.
const FIGURES_TEST: &str = "figures";

/// How long `cargo xtask test` runs each fuzz target: long enough to replay every seed and
/// the corpus kept so far and to explore some, short enough that the suite stays near two
/// minutes on two cores. The long runs are `cargo xtask fuzz --seconds N`.
const FUZZ_SECONDS: u64 = 10;

type Suite<'a> = (&'static str, Box<dyn Fn() -> Result<()> + 'a>);

struct Outcome {
    name: &'static str,
    took: Duration,
    result: Result<()>,
}

pub fn run_all(root: &Path) -> Result<()> {
    let started = Instant::now();
    toolchain::ensure_build_tools(root)?;
    toolchain::ensure_browser()?;
    toolchain::ensure_fuzz_tools()?;

    let (wasm_node, wasm_browser) = wasm_test_targets(root)?;
    let suites: Vec<Suite> = vec![
        (
            "tidy (fmt, clippy -D warnings, codegen --check; fuzz/ too)",
            Box::new(|| tidy(root)),
        ),
        ("native (cargo test --workspace)", Box::new(|| native(root))),
        (
            "new-tool scaffold (scratch copy: new-tool, codegen, its tests)",
            Box::new(|| crate::new_tool::check_in_scratch(root)),
        ),
        (
            "wasm in Node (wasm-bindgen-test; the three modules)",
            Box::new(move || {
                wasm_tests(root, &wasm_node, &[])?;
                wasm_tests(root, &wasm_node, &["--no-default-features"])?;
                // The figures module: its own test file only (the others are core's, run
                // just above).
                wasm_tests(
                    root,
                    &[FIGURES_TEST.to_string()],
                    &["--no-default-features", "--features", "figures"],
                )
            }),
        ),
        (
            "wasm in headless Chromium (wasm-bindgen-test)",
            Box::new(move || wasm_tests(root, &wasm_browser, &[])),
        ),
        (
            "browser end-to-end (node --test tests/)",
            Box::new(|| end_to_end(root)),
        ),
        (
            "python wheel, cargo install, README routes, server.json",
            Box::new(|| crate::packaging::python_and_routes(root)),
        ),
        (
            "npm package (npm pack, installed, used from Node)",
            Box::new(|| crate::packaging::npm_package(root)),
        ),
        (
            "cargo publish --dry-run (the CLI's crates, in order)",
            Box::new(|| crate::packaging::publish_dry_run(root)),
        ),
        (
            "fuzz (cargo fuzz, 10 s per target)",
            Box::new(|| crate::fuzz::run_all(root, FUZZ_SECONDS, &[])),
        ),
    ];

    let mut outcomes = Vec::new();
    for (name, suite) in &suites {
        println!("\n=== {name}");
        let t = Instant::now();
        let result = suite();
        if let Err(e) = &result {
            eprintln!("xtask: suite `{name}` failed: {e}");
        }
        outcomes.push(Outcome {
            name,
            took: t.elapsed(),
            result,
        });
    }

    println!("\n=== summary");
    for o in &outcomes {
        let verdict = if o.result.is_ok() { "ok  " } else { "FAIL" };
        println!("{verdict} {:<48} {:>6.1} s", o.name, o.took.as_secs_f64());
    }
    let failed = outcomes.iter().filter(|o| o.result.is_err()).count();
    println!(
        "{} of {} suites passed in {:.0} s",
        outcomes.len() - failed,
        outcomes.len(),
        started.elapsed().as_secs_f64()
    );
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("{failed} suite(s) failed").into())
    }
}

fn tidy(root: &Path) -> Result<()> {
    crate::codegen::check(root)?;
    run(cargo().args(["fmt", "--all", "--check"]).current_dir(root))?;
    // The fuzz crate is a workspace of its own; it lints on stable too.
    let fuzz_manifest = root.join("fuzz").join("Cargo.toml");
    run(cargo()
        .args(["fmt", "--check", "--manifest-path"])
        .arg(&fuzz_manifest)
        .current_dir(root))?;
    run(cargo()
        .args(["clippy", "--all-targets", "--manifest-path"])
        .arg(&fuzz_manifest)
        .args(["--", "-D", "warnings"])
        .current_dir(root))?;
    run(cargo()
        .args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ])
        .current_dir(root))?;
    // Both of the page's modules: the whole engine, and the first module without `full`.
    for features in [&[][..], &["--no-default-features"][..]] {
        run(cargo()
            .args([
                "clippy",
                "-p",
                WASM_CRATE,
                "--target",
                WASM_TARGET,
                "--all-targets",
            ])
            .args(features)
            .args(["--", "-D", "warnings"])
            .current_dir(root))?;
    }
    // The engine library without its default features (the page's first module), tests
    // included, compiles and lints; its unit tests run (those of tools beyond the
    // benchmark's are gated on `extended`).
    run(cargo()
        .args([
            "clippy",
            "-p",
            "living-evidence-exemplar",
            "--no-default-features",
        ])
        .args(["--all-targets", "--", "-D", "warnings"])
        .current_dir(root))?;
    run(cargo()
        .args([
            "test",
            "-p",
            "living-evidence-exemplar",
            "--no-default-features",
            "--lib",
        ])
        .current_dir(root))?;
    Ok(())
}

fn native(root: &Path) -> Result<()> {
    run(cargo().args(["test", "--workspace"]).current_dir(root))
}

/// The wasm crate's integration tests, split by where they run: a file that
/// calls `wasm_bindgen_test_configure!(run_in_browser)` runs in Chromium,
/// the others in Node.
fn wasm_test_targets(root: &Path) -> Result<(Vec<String>, Vec<String>)> {
    let dir = root.join("crates").join(WASM_CRATE).join("tests");
    let mut node = Vec::new();
    let mut browser = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        if std::fs::read_to_string(&file)?.contains("run_in_browser") {
            browser.push(name);
        } else {
            node.push(name);
        }
    }
    Ok((node, browser))
}

/// `features`: extra cargo arguments (`--no-default-features` tests the page's first module).
fn wasm_tests(root: &Path, targets: &[String], features: &[&str]) -> Result<()> {
    if targets.is_empty() {
        return Err("no test files for this runner in crates/exemplar-wasm/tests".into());
    }
    let mut cmd = cargo();
    cmd.args(["test", "-p", WASM_CRATE, "--target", WASM_TARGET]);
    cmd.args(features);
    for t in targets {
        cmd.args(["--test", t]);
    }
    // No `-q`: the runner rejects `--quiet` (TOOLCHAIN.md).
    run(cmd
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
            "wasm-bindgen-test-runner",
        )
        .env("CHROMEDRIVER", CHROMEDRIVER)
        .current_dir(root))
}

fn end_to_end(root: &Path) -> Result<()> {
    build::build(root)?;
    run(cargo()
        .args(["build", "-p", "exemplar-cli"])
        .current_dir(root))?;
    let exemplar = crate::target_dir(root).join("debug").join("exemplar");
    let server = serve::spawn_background(root)?;
    println!("test server at {}", server.url());

    let mut tests: Vec<PathBuf> = std::fs::read_dir(root.join("tests"))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    tests.sort();
    std::fs::create_dir_all(root.join("artifacts"))?;
    run(Command::new("node")
        .arg("--test")
        .arg("--test-concurrency=1")
        .args(&tests)
        .env("BASE_URL", server.url())
        .env("EXEMPLAR_BIN", &exemplar)
        .env("ARTIFACTS_DIR", root.join("artifacts"))
        .current_dir(root))
}
