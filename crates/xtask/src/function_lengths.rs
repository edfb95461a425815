//! Functions stay short enough to read as one job (issue 43 item 6): no non-test function of
//! the workspace is longer than [`MAX_FUNCTION_LINES`] lines, but those listed in
//! [`ONE_JOB`], each with why it is long. The list only shrinks: a listed function
//! that is no longer long fails the test too, so that it leaves the list.

use std::collections::BTreeSet;
use std::path::Path;

/// The most lines a function spans, from its signature to its closing brace.
const MAX_FUNCTION_LINES: usize = 120;

/// The functions longer than [`MAX_FUNCTION_LINES`] (file, function), each one job however
/// long it is: a match of one kind of case, a list of one kind of item.
const ONE_JOB: &[(&str, &str)] = &[
    // One match: each error's message.
    ("crates/meta-analysis/src/error.rs", "fmt"),
    // One list: the calls compared natively and in wasm.
    ("crates/xtask/src/codegen/bit_identity.rs", "calls"),
];

/// Every function of `text` (its test module cut) longer than `max` lines, by name.
fn long_functions(text: &str, max: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod tests"))
        .unwrap_or(lines.len());
    let mut long = Vec::new();
    let mut i = 0;
    while i < end {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let rest = line.trim_start();
        let rest = rest
            .strip_prefix("pub(crate) ")
            .or_else(|| rest.strip_prefix("pub(super) "))
            .or_else(|| rest.strip_prefix("pub "))
            .unwrap_or(rest);
        let rest = rest.strip_prefix("const ").unwrap_or(rest);
        if let Some(signature) = rest.strip_prefix("fn ") {
            let name: String = signature
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // A declaration without a body (a trait's) ends on its line.
            if !line.trim_end().ends_with(';') {
                let close = format!("{}}}", " ".repeat(indent));
                if let Some(j) = (i + 1..end).find(|&j| lines[j] == close) {
                    if j - i + 1 > max {
                        long.push((name, j - i + 1));
                    }
                    i = j;
                }
            }
        }
        i += 1;
    }
    long
}

fn rust_sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_function_is_longer_than_the_limit_but_those_listed() {
    let root = crate::workspace_root();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let src = entry.path().join("src");
        if src.is_dir() {
            rust_sources(&src, &mut files);
        }
    }
    files.sort();
    let mut found = BTreeSet::new();
    let mut unlisted = Vec::new();
    for path in &files {
        let file = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(path).unwrap();
        for (name, lines) in long_functions(&text, MAX_FUNCTION_LINES) {
            if ONE_JOB.contains(&(file.as_str(), name.as_str())) {
                found.insert((file.clone(), name));
            } else {
                unlisted.push(format!("{file}: fn {name} is {lines} lines"));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "functions longer than {MAX_FUNCTION_LINES} lines: split them where they mix jobs\n{}",
        unlisted.join("\n")
    );
    let stale: Vec<String> = ONE_JOB
        .iter()
        .filter(|(f, n)| !found.contains(&(f.to_string(), n.to_string())))
        .map(|(f, n)| format!("{f}: fn {n}"))
        .collect();
    assert!(
        stale.is_empty(),
        "no longer over {MAX_FUNCTION_LINES} lines (or gone): take them off ONE_JOB\n{}",
        stale.join("\n")
    );
}

#[test]
fn a_long_function_is_found_and_a_test_module_is_not_read() {
    let body = "    let x = 1;\n".repeat(130);
    let text = format!(
        "fn short() {{\n}}\n\npub(crate) fn long() {{\n{body}}}\n\n#[cfg(test)]\nmod tests {{\n    fn also_long() {{\n{body}    }}\n}}\n"
    );
    assert_eq!(long_functions(&text, 120), vec![("long".to_string(), 132)]);
}
