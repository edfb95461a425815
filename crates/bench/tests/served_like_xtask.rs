//! `scripts/served.mjs` (the server of `scripts/page.mjs` and `scripts/longtasks.mjs`) serves the page with the headers of `cargo xtask serve`
//! (crates/xtask/src/serve.rs `security_headers`), so that the page is timed
//! as it is served: a header added there and not here (a CSP directive, a
//! new isolation header) would make the bench measure another page. This
//! reads both sources and holds the two header lists equal.

use std::path::Path;

fn read(relative: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap();
    std::fs::read_to_string(root.join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The body of the first `"…"` Rust string literal at or after `from`, with
/// line continuations (`\` newline, then leading whitespace) removed.
fn rust_string_after(text: &str, from: usize) -> String {
    let start = from + text[from..].find('"').expect("a string literal") + 1;
    let end = start + text[start..].find('"').expect("its closing quote");
    let mut out = String::new();
    let mut lines = text[start..end].split("\\\n");
    out.push_str(lines.next().unwrap_or_default());
    for line in lines {
        out.push_str(line.trim_start());
    }
    out
}

/// `(name, value)` of every header `security_headers` sends, in order.
fn xtask_headers() -> Vec<(String, String)> {
    let serve = read("crates/xtask/src/serve.rs");
    let page_csp = rust_string_after(&serve, serve.find("macro_rules! page_csp").unwrap());
    let csp_const = serve
        .find("const CSP: &str = concat!(page_csp!(),")
        .unwrap();
    let csp = page_csp + &rust_string_after(&serve, csp_const + "concat!(page_csp!(),".len());
    let start = serve.find("fn security_headers()").unwrap();
    let body = &serve[start..start + serve[start..].find("\n}\n").unwrap()];
    let mut names = Vec::new();
    let mut values = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("header::") {
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                .collect();
            names.push(name.to_ascii_lowercase().replace('_', "-"));
        } else if rest.starts_with("HeaderName::from_static(") {
            names.push(rust_string_after(rest, 0));
        } else if let Some(after) = rest.strip_prefix("HeaderValue::from_static(") {
            values.push(if after.starts_with("CSP)") {
                csp.clone()
            } else {
                rust_string_after(after, 0)
            });
        }
        let mut chars = rest.chars();
        chars.next();
        rest = chars.as_str();
    }
    assert_eq!(
        names.len(),
        values.len(),
        "serve.rs: names {names:?}, values {values:?}"
    );
    assert!(!names.is_empty(), "no headers found in serve.rs");
    names.into_iter().zip(values).collect()
}

/// `(name, value)` of served.mjs's `HEADERS` object (page.mjs and longtasks.mjs serve with it): quoted strings, alternately key and value.
fn bench_headers() -> Vec<(String, String)> {
    let page = read("crates/bench/scripts/served.mjs");
    let start = page
        .find("export const HEADERS = {")
        .expect("served.mjs has HEADERS");
    let block = &page[start..start + page[start..].find("};").unwrap()];
    let mut strings = Vec::new();
    let mut chars = block.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == '\'' || c == '"' {
            let len = block[i + 1..].find(c).expect("a closing quote");
            strings.push(block[i + 1..i + 1 + len].to_string());
            chars.nth(len);
        }
    }
    assert!(strings.len() % 2 == 0, "served.mjs HEADERS: {strings:?}");
    strings
        .chunks(2)
        .map(|kv| (kv[0].clone(), kv[1].clone()))
        .collect()
}

#[test]
fn the_bench_serves_the_headers_of_xtask_serve() {
    let xtask = xtask_headers();
    assert!(
        xtask
            .iter()
            .any(|(n, v)| n == "content-security-policy" && v.contains("frame-ancestors 'none'")),
        "the parse of serve.rs lost the CSP: {xtask:?}"
    );
    assert_eq!(bench_headers(), xtask);
}
