//! The `exemplar` command under the Python package's name, so that `uvx
//! living-evidence-exemplar mcp` (and the MCP registry's server.json, which runs the package by
//! its name) starts the server. Built only for the wheel (feature `wheel`,
//! packaging/python/pyproject.toml), which installs it beside `exemplar`.
//!
//! It runs the `exemplar` installed beside it with the same arguments, standard streams and
//! exit status (on Unix it becomes that program: `exec`), rather than compiling the command a
//! second time into the wheel.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// The `exemplar` binary in this program's own directory.
fn sibling() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let dir = me
        .parent()
        .ok_or_else(|| format!("{} has no directory", me.display()))?;
    let name = format!("exemplar{}", std::env::consts::EXE_SUFFIX);
    let path = dir.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} is missing: the package installs it beside {}; reinstall living-evidence-exemplar",
            path.display(),
            me.display()
        ))
    }
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let path = match sibling() {
        Ok(path) => path,
        Err(message) => {
            eprintln!("living-evidence-exemplar: {message}");
            return ExitCode::FAILURE;
        }
    };
    let mut command = Command::new(&path);
    command.args(&args);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Returns only when the program could not be started.
        let error = command.exec();
        eprintln!(
            "living-evidence-exemplar: cannot run {}: {error}",
            path.display()
        );
        ExitCode::FAILURE
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::FAILURE,
        },
        Err(error) => {
            eprintln!(
                "living-evidence-exemplar: cannot run {}: {error}",
                path.display()
            );
            ExitCode::FAILURE
        }
    }
}
