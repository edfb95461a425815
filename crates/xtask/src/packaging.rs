//! `cargo xtask package` and the packaging suites of `cargo xtask test`: the ways people
//! install the tools (docs/INSTALL.md).
//!
//! - the Python wheel of the `exemplar` binary (maturin, `bindings = "bin"`, from
//!   `packaging/python`): with the release profile for `cargo xtask package`, with the dev
//!   profile in `cargo xtask test` (see [`WheelProfile`]);
//! - the npm package of the page's WebAssembly engine (`packaging/npm` plus `www/pkg/full` and
//!   `www/generated`), assembled under `target/packaging/npm` and packed with `npm pack`;
//! - the tools that build and test them (maturin, the official Python MCP SDK `mcp`, `uv`,
//!   and the MCP registry's server.json schemas), pinned in
//!   `packaging/python/tools-requirements.txt` and installed from PyPI into a venv under
//!   `target/packaging`.
//!
//! Everything lands in `target/packaging/dist`. The tests' own scripts are in
//! `tests/packaging/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::toolchain::{cargo, run};
use crate::Result;

/// The names the packages carry on each registry (docs/INSTALL.md records the check).
pub const PYPI_NAME: &str = "living-evidence-exemplar";
pub const NPM_NAME: &str = "living-evidence-exemplar";
/// The crates `cargo install exemplar-cli` needs, in the order they publish.
pub const PUBLISHED_CRATES: [&str; 5] = [
    "meta-analysis",
    "living-evidence-exemplar",
    "exemplar-pdf",
    "exemplar-figures",
    "exemplar-cli",
];

fn packaging_dir(root: &Path) -> PathBuf {
    crate::target_dir(root).join("packaging")
}

pub fn dist_dir(root: &Path) -> PathBuf {
    packaging_dir(root).join("dist")
}

/// `cargo xtask package`: the wheel and the npm tarball, into target/packaging/dist.
pub fn package(root: &Path) -> Result<()> {
    let wheel = build_wheel(root, WheelProfile::Release)?;
    crate::build::build(root)?;
    let tarball = build_npm(root)?;
    eprintln!("{}\n{}", wheel.display(), tarball.display());
    Ok(())
}

/// The venv of the packaging tools, made and filled from PyPI when missing or when the
/// pinned requirements changed since.
pub fn tools_venv(root: &Path) -> Result<PathBuf> {
    let venv = packaging_dir(root).join("tools-venv");
    let requirements = root.join("packaging/python/tools-requirements.txt");
    let wanted = std::fs::read_to_string(&requirements)
        .map_err(|e| format!("cannot read {}: {e}", requirements.display()))?;
    let stamp = venv.join("installed-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) {
        return Ok(venv);
    }
    eprintln!(
        "installing the packaging tools ({}) into {} because they are missing or stale",
        requirements.display(),
        venv.display()
    );
    if venv.exists() {
        std::fs::remove_dir_all(&venv)?;
    }
    run(Command::new(python3()).args(["-m", "venv"]).arg(&venv))?;
    run(Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "-r"])
        .arg(&requirements))?;
    std::fs::write(&stamp, wanted)?;
    Ok(venv)
}

fn python3() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".into())
}

/// The cargo profile a wheel is built with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum WheelProfile {
    /// What `cargo xtask package` ships: optimized.
    Release,
    /// What the test suite installs and drives: the program is the same, only unoptimized,
    /// and built from the dev artifacts the other suites have already compiled. A release
    /// build of the CLI (thin LTO over tokio, rmcp, resvg, …) took minutes of CI's two cores
    /// for calls that take milliseconds either way.
    Dev,
}

/// Builds the wheel into target/packaging/dist/wheel; returns its path.
pub fn build_wheel(root: &Path, profile: WheelProfile) -> Result<PathBuf> {
    let venv = tools_venv(root)?;
    let out = dist_dir(root).join("wheel");
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    let mut maturin = Command::new(venv.join("bin/maturin"));
    maturin.arg("build");
    if profile == WheelProfile::Release {
        maturin.arg("--release");
    }
    run(maturin
        .arg("--out")
        .arg(&out)
        .current_dir(root.join("packaging/python")))?;
    let wheels: Vec<PathBuf> = std::fs::read_dir(&out)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .collect();
    match wheels.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!(
            "expected one wheel in {}, found {}",
            out.display(),
            wheels.len()
        )
        .into()),
    }
}

/// Assembles the npm package from `packaging/npm` and the page's built engine (`www/pkg/full`,
/// `cargo xtask build`) in target/packaging/npm, and packs it; returns the tarball's path.
pub fn build_npm(root: &Path) -> Result<PathBuf> {
    let stage = packaging_dir(root).join("npm");
    if stage.exists() {
        std::fs::remove_dir_all(&stage)?;
    }
    std::fs::create_dir_all(stage.join("wasm"))?;
    let copy = |from: PathBuf, to: &str| -> Result<()> {
        std::fs::copy(&from, stage.join(to))
            .map(|_| ())
            .map_err(|e| {
                format!(
                    "cannot copy {}: {e} (run `cargo xtask build` first?)",
                    from.display()
                )
                .into()
            })
    };
    let npm = root.join("packaging/npm");
    for file in ["package.json", "index.js", "index.d.ts", "README.md"] {
        copy(npm.join(file), file)?;
    }
    let full = root.join("www/pkg/full");
    for file in [
        "exemplar_wasm.js",
        "exemplar_wasm.d.ts",
        "exemplar_wasm_bg.wasm",
    ] {
        copy(full.join(file), &format!("wasm/{file}"))?;
    }
    let generated = root.join("www/generated");
    copy(generated.join("engine.d.ts"), "engine.d.ts")?;
    copy(generated.join("tools.json"), "tools.json")?;
    // An ES module of the definitions: a JSON import needs import attributes, which not every
    // Node.js release or bundler takes.
    let tools = std::fs::read_to_string(generated.join("tools.json"))?;
    std::fs::write(
        stage.join("tools.js"),
        format!(
            "// www/generated/tools.json, as an ES module.\nexport default {};\n",
            tools.trim_end()
        ),
    )?;
    check_npm_version(&stage)?;

    let out = dist_dir(root).join("npm");
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    std::fs::create_dir_all(&out)?;
    run(Command::new("npm")
        .args(["pack", "--silent", "--pack-destination"])
        .arg(&out)
        .current_dir(&stage)
        .stdout(std::process::Stdio::from(std::io::stderr())))?;
    let tarball = out.join(format!("{NPM_NAME}-{}.tgz", env!("CARGO_PKG_VERSION")));
    if !tarball.is_file() {
        return Err(format!("npm pack wrote no {}", tarball.display()).into());
    }
    Ok(tarball)
}

/// The npm package carries the workspace's version (the crates', the wheel's, server.json's).
fn check_npm_version(stage: &Path) -> Result<()> {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stage.join("package.json"))?)?;
    let version = manifest["version"].as_str().unwrap_or_default();
    if version != env!("CARGO_PKG_VERSION") || manifest["name"] != NPM_NAME {
        return Err(format!(
            "packaging/npm/package.json is {}@{version}; the workspace is {NPM_NAME}@{}",
            manifest["name"],
            env!("CARGO_PKG_VERSION")
        )
        .into());
    }
    Ok(())
}

/// The debug `exemplar` the other suites build: the reference answer each route must equal.
fn reference_cli(root: &Path) -> Result<PathBuf> {
    run(cargo()
        .args(["build", "-p", "exemplar-cli"])
        .current_dir(root))?;
    Ok(crate::target_dir(root).join("debug").join("exemplar"))
}

/// Suite: the Python wheel, `cargo install`, server.json and the README's install routes.
///
/// Builds the wheel once (with the dev profile, from the artifacts the earlier suites built;
/// `cargo install` then runs with `--debug` and reuses them), and runs `tests/packaging/install_routes.py` with the official Python MCP SDK: a fresh
/// venv with the wheel driven over MCP, every command and client configuration of the
/// README's install section as written, server.json against the registry's schema.
pub fn python_and_routes(root: &Path) -> Result<()> {
    let exemplar = reference_cli(root)?;
    let venv = tools_venv(root)?;
    let wheel = build_wheel(root, WheelProfile::Dev)?;
    let scratch = packaging_dir(root).join("routes");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)?;
    }
    std::fs::create_dir_all(&scratch)?;
    run(Command::new(venv.join("bin/python"))
        .arg(root.join("tests/packaging/install_routes.py"))
        .env("ROOT", root)
        .env("WHEEL", &wheel)
        .env("TOOLS_VENV", &venv)
        .env("SCRATCH", &scratch)
        .env("EXEMPLAR_BIN", &exemplar)
        .env("CARGO_TARGET_DIR", crate::target_dir(root))
        .env("PYTHON_BIN", python3())
        .env("PACKAGE_NAME", PYPI_NAME)
        .current_dir(root))
}

/// Suite: `cargo publish --dry-run` of every crate the CLI needs, in dependency order (one
/// command: cargo verifies each against the others as packaged).
pub fn publish_dry_run(root: &Path) -> Result<()> {
    forget_packaged_crates(root)?;
    let mut cmd = cargo();
    // --allow-dirty: the check is of what would be packaged, not of the checkout's state.
    cmd.args(["publish", "--dry-run", "--allow-dirty"]);
    for krate in PUBLISHED_CRATES {
        cmd.args(["-p", krate]);
    }
    run(cmd.current_dir(root))
}

/// cargo verifies each packaged crate against the others through a local registry under
/// target/package, unpacks them under CARGO_HOME's `registry/src/-HASH/` (the local
/// registry's directory) and builds them in target/debug, where a registry crate of the same
/// name and version counts as unchanged: a second dry run on one machine (0.1.0 here, while
/// the code changes) verified against the first run's build. So each run starts from none of
/// ours: the local registry, our crates' unpacked copies outside crates.io's directory, and
/// our crates' build fingerprints in target/debug (the next build of them redoes them).
fn forget_packaged_crates(root: &Path) -> Result<()> {
    let target = crate::target_dir(root);
    let packaged = target.join("package");
    if packaged.exists() {
        std::fs::remove_dir_all(&packaged)?;
    }
    if let Ok(fingerprints) = std::fs::read_dir(target.join("debug").join(".fingerprint")) {
        for entry in fingerprints.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let ours = PUBLISHED_CRATES.iter().any(|krate| {
                name.strip_prefix(krate)
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|hash| {
                        hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())
                    })
            });
            if ours {
                std::fs::remove_dir_all(entry.path())?;
            }
        }
    }
    let cargo_home = match std::env::var_os("CARGO_HOME") {
        Some(home) => PathBuf::from(home),
        None => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(".cargo"),
            None => return Ok(()),
        },
    };
    let Ok(registries) = std::fs::read_dir(cargo_home.join("registry").join("src")) else {
        return Ok(());
    };
    let version = env!("CARGO_PKG_VERSION");
    for registry in registries.flatten() {
        // crates.io's is `index.crates.io-HASH`; a local registry's name is empty.
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        for krate in PUBLISHED_CRATES {
            let unpacked = registry.path().join(format!("{krate}-{version}"));
            if unpacked.exists() {
                std::fs::remove_dir_all(&unpacked)?;
            }
        }
    }
    Ok(())
}

/// Suite: the npm package packed, installed from its tarball into a fresh project, and used
/// from Node.js there (`tests/packaging/npm_consumer.test.mjs`, copied into the project as a
/// user's own file would be).
pub fn npm_package(root: &Path) -> Result<()> {
    let exemplar = reference_cli(root)?;
    if !root.join("www/pkg/full/exemplar_wasm_bg.wasm").is_file() {
        crate::build::build(root)?;
    }
    let tarball = build_npm(root)?;
    let project = packaging_dir(root).join("npm-consumer");
    if project.exists() {
        std::fs::remove_dir_all(&project)?;
    }
    std::fs::create_dir_all(&project)?;
    std::fs::write(
        project.join("package.json"),
        "{\n  \"name\": \"consumer\",\n  \"private\": true,\n  \"type\": \"module\"\n}\n",
    )?;
    run(Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--offline"])
        .arg(&tarball)
        .current_dir(&project)
        .stdout(std::process::Stdio::from(std::io::stderr())))?;
    let test = "npm_consumer.test.mjs";
    std::fs::copy(root.join("tests/packaging").join(test), project.join(test))?;
    run(Command::new("node")
        .args(["--test", test])
        .env("EXEMPLAR_BIN", &exemplar)
        .env("PACKAGE_NAME", NPM_NAME)
        .env("ROOT", root)
        .current_dir(&project))
}
