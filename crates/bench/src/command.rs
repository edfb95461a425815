//! Running the programs behind the external figures (Node, Chromium, R, Python): a command's
//! standard output, its last line as JSON, and where Chromium is.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Chromium's path (`CHROMIUM`, else /usr/bin/chromium) once it and playwright-core are
/// there, or what is missing.
pub(crate) fn chromium(root: &Path) -> Result<String, String> {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).is_file() {
        return Err(format!("{chromium} is missing"));
    }
    if !root.join("node_modules").join("playwright-core").is_dir() {
        return Err("node_modules/playwright-core is missing (npm install)".into());
    }
    Ok(chromium)
}

/// The standard output of a command that succeeds; else its status and the last lines of its
/// standard error.
pub(crate) fn stdout_of(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        return Err(format!(
            "{} ({})",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The last stdout line, parsed as JSON.
pub(crate) fn json_line(cmd: &mut Command) -> Result<Value, String> {
    let text = stdout_of(cmd)?;
    let line = text.lines().last().ok_or("no output")?;
    serde_json::from_str(line).map_err(|e| format!("{e}: {line}"))
}
