//! Tidy: the engine's crates compute every transcendental function with
//! `meta_analysis::math` (the portable `libm` crate), never with the platform's
//! `f64::ln`, `exp`, `powf`, `powi`…, whose last bits differ between the CLI (native)
//! and the page (wasm). See `src/math.rs` and docs/METHODS.md, "Numerics".

use std::path::{Path, PathBuf};

/// Method calls (`x.ln()`) and paths (`f64::ln(x)`) of the platform's functions.
const FORBIDDEN: &[&str] = &[
    "ln", "log", "log10", "log2", "ln_1p", "exp", "exp2", "exp_m1", "powf", "powi", "sin", "cos",
    "tan", "sin_cos", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "cbrt", "hypot", "ln_gamma", "gamma",
];

/// The crates whose numbers the engine reports.
const CRATES: &[&str] = &["meta-analysis", "exemplar"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The forbidden calls on one line of code, as `.name(` or `f64::name(`.
fn violations(line: &str) -> Vec<String> {
    let code = match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    };
    let mut found = Vec::new();
    for name in FORBIDDEN {
        for prefix in [".", "f64::", "f32::"] {
            let needle = format!("{prefix}{name}(");
            let mut from = 0;
            while let Some(at) = code[from..].find(&needle) {
                let start = from + at;
                // `math::ln(` and `libm::log(` are the portable ones (`::ln(` does
                // not match `.ln(`); `f64::ln(` is not.
                let before = &code[..start];
                let portable = before.ends_with("math:") || before.ends_with("libm:");
                if !portable {
                    found.push(needle.clone());
                }
                from = start + needle.len();
            }
        }
    }
    found
}

/// A file's forbidden calls with their line numbers, outside its unit-test modules
/// (`#[cfg(test)] mod … { … }`, which report nothing).
fn file_violations(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    // Inside a test module: its brace depth so far.
    let mut in_tests: Option<i64> = None;
    for (n, line) in lines.iter().enumerate() {
        let next = lines.get(n + 1).map_or("", |l| l.trim());
        if in_tests.is_none()
            && line.trim() == "#[cfg(test)]"
            && next.starts_with("mod ")
            && !next.ends_with(';')
        {
            in_tests = Some(0);
            continue;
        }
        if let Some(depth) = in_tests.as_mut() {
            *depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
            if *depth <= 0 && line.contains('}') {
                in_tests = None;
            }
            continue;
        }
        found.extend(violations(line).into_iter().map(|call| (n + 1, call)));
    }
    found
}

#[test]
fn no_platform_transcendentals_in_the_engine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in CRATES {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut bad = Vec::new();
    for file in &files {
        if file.ends_with("meta-analysis/src/math.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(&root).unwrap_or(file);
        for (n, call) in file_violations(&text) {
            bad.push(format!("crates/{}:{n}: {call}", shown.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "platform transcendental functions differ between native and wasm; use \
         meta_analysis::math (crates/meta-analysis/src/math.rs) instead:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_sees_what_it_forbids() {
    assert_eq!(violations("let y = (p1 / p2).ln();"), vec![".ln("]);
    assert_eq!(
        violations("let z = x.powi(2) + f64::exp(x);"),
        vec!["f64::exp(", ".powi("]
    );
    assert!(violations("let y = math::ln(x) + crate::math::exp(y) + libm::log(z);").is_empty());
    assert!(violations("let y = x.sqrt().abs().mul_add(a, b); // x.ln() in a comment").is_empty());
    assert!(violations("let n = lengths.len();").is_empty());
}

#[test]
fn test_modules_are_skipped_and_the_code_after_them_is_not() {
    let text = "fn a() -> f64 { 2f64.ln() }\n\
                #[cfg(test)]\n\
                mod tests {\n\
                    fn t() { let _ = 1f64.exp(); }\n\
                }\n\
                fn b(x: f64) -> f64 { x.powf(0.5) }\n\
                #[cfg(test)]\n\
                mod outside;\n\
                fn c(x: f64) -> f64 { x.sin() }\n";
    assert_eq!(
        file_violations(text),
        vec![
            (1, ".ln(".to_string()),
            (6, ".powf(".to_string()),
            (9, ".sin(".to_string())
        ]
    );
}
