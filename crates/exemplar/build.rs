//! The input schemas a build without schemars embeds (the page's wasm; see
//! `src/tools/schema_derivation.rs`): `src/tools/input_schemas.json` written compactly, and,
//! without the `extended` feature, only the benchmark's own tools (those `registry!` in
//! `src/tools/mod.rs` lists under `benchmark:`, a tool's file being named for it). The
//! committed file stays pretty for review; the page's first wasm module carries 3 KB of
//! schemas instead of 58 KB (issue 30 item 8). Only the standard library: the file is JSON
//! that `cargo xtask codegen` writes, an object of tool name → schema.

use std::path::Path;

const SCHEMAS: &str = "src/tools/input_schemas.json";
const REGISTRY: &str = "src/tools/mod.rs";

fn main() {
    println!("cargo:rerun-if-changed={SCHEMAS}");
    println!("cargo:rerun-if-changed={REGISTRY}");
    let text = std::fs::read_to_string(SCHEMAS).expect("src/tools/input_schemas.json is readable");
    let compact = compact(&text);
    let kept = if std::env::var_os("CARGO_FEATURE_EXTENDED").is_some() {
        compact
    } else {
        let registry = std::fs::read_to_string(REGISTRY).expect("src/tools/mod.rs is readable");
        only(&compact, &benchmark_tools(&registry))
    };
    let out = Path::new(&std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("input_schemas.json");
    std::fs::write(out, kept).expect("OUT_DIR is writable");
}

/// JSON text without the whitespace between tokens.
fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !c.is_ascii_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// The tool names `registry!` lists under `benchmark: [...]` (`module::STATIC`, the module
/// named for the tool).
fn benchmark_tools(registry: &str) -> Vec<String> {
    let call = registry
        .find("registry! {")
        .expect("src/tools/mod.rs calls `registry! {`");
    let start = registry[call..]
        .find("benchmark: [")
        .expect("registry! in src/tools/mod.rs lists `benchmark: [...]`");
    let list = &registry[call + start + "benchmark: [".len()..];
    let list = &list[..list.find(']').expect("the benchmark list ends with ]")];
    let names: Vec<String> = list
        .split(',')
        .map(|entry| {
            // Comments between entries are not names.
            let lines = entry.lines().map(str::trim);
            lines
                .filter(|line| !line.starts_with("//"))
                .collect::<String>()
        })
        .filter_map(|entry| entry.split("::").next().map(str::to_string))
        .filter(|name| !name.is_empty())
        .collect();
    assert!(!names.is_empty(), "registry! lists no benchmark tools");
    names
}

/// The compact object `json` (`{name: value, ...}`) keeping only the members named in `names`,
/// in their order there; fails the build when one is missing.
fn only(json: &str, names: &[String]) -> String {
    let members = members(json);
    let kept: Vec<String> = names
        .iter()
        .map(|name| {
            let value = members
                .iter()
                .find(|(key, _)| key == name)
                .unwrap_or_else(|| panic!("{SCHEMAS} has no schema for {name}"))
                .1;
            format!("\"{name}\":{value}")
        })
        .collect();
    format!("{{{}}}", kept.join(","))
}

/// The top-level members of a compact JSON object whose keys need no escapes: (key, value text).
fn members(json: &str) -> Vec<(String, &str)> {
    let bytes = json.as_bytes();
    assert_eq!(bytes.first(), Some(&b'{'), "{SCHEMAS} is a JSON object");
    let mut members = Vec::new();
    let mut i = 1;
    while i < bytes.len() && bytes[i] == b'"' {
        let key_end = i + 1 + json[i + 1..].find('"').expect("a key ends");
        let key = json[i + 1..key_end].to_string();
        assert_eq!(bytes[key_end + 1], b':', "a key is followed by :");
        let value_start = key_end + 2;
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        let mut j = value_start;
        while j < bytes.len() {
            let b = bytes[j];
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
            } else {
                match b {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' if depth > 0 => depth -= 1,
                    b',' | b'}' if depth == 0 => break,
                    _ => {}
                }
            }
            j += 1;
        }
        members.push((key, &json[value_start..j]));
        i = j + 1;
    }
    members
}
