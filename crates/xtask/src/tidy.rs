//! Checks of the page's sources, run as ordinary tests by `cargo test`.
//!
//! The invariants: tool names, descriptions and schemas live only in Rust;
//! the page has no inline script, style or handler; text reaches the DOM as
//! text, with two reviewed exceptions: the methods fragment we build, inserted
//! as HTML, and the plots' SVG from Rust, parsed as XML (DOMParser).

use std::path::{Path, PathBuf};

fn page_sources(root: &Path) -> Vec<(PathBuf, String)> {
    let mut files = vec![root.join("index.html")];
    let mut www: Vec<PathBuf> = std::fs::read_dir(root.join("www"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "js" || x == "css"))
        .collect();
    www.sort();
    files.extend(www);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

#[test]
fn the_page_restates_no_tool_definition() {
    let root = crate::workspace_root();
    for (path, text) in page_sources(&root) {
        for def in exemplar::tools::definitions() {
            assert!(
                !text.contains(def.name),
                "{} names the tool {}: register what www/generated/tools.json holds instead",
                path.display(),
                def.name
            );
            assert!(
                !text.contains(def.title),
                "{} restates a tool title",
                path.display()
            );
            // The grouping and the one-line summaries come from Rust too.
            assert!(
                !text.contains(def.summary) && !text.contains(def.group.title),
                "{} restates a tool summary or group ({}): read them from the definitions",
                path.display(),
                def.group.title
            );
        }
    }
}

/// The counts and names the page's text states come from the engine's metadata, which the
/// page renders: the HTML and the JavaScript write none of them by hand.
#[test]
fn the_page_restates_no_count_of_the_metadata() {
    let root = crate::workspace_root();
    let meta = exemplar::page::metadata();
    let stated = [
        format!("{} fields", meta.scored_fields),
        format!("{} records", meta.record_count),
        "Nineteen records".to_string(),
        meta.ledger_fields[..3].join(", "),
        format!("{}_000", meta.max_drawn_svg_chars / 1000),
    ];
    for (path, text) in page_sources(&root) {
        for s in &stated {
            assert!(
                !text.contains(s.as_str()),
                "{} states {s:?}: render it from the engine's page metadata",
                path.display()
            );
        }
    }
}

#[test]
fn the_page_has_no_inline_code() {
    let root = crate::workspace_root();
    let html = std::fs::read_to_string(root.join("index.html")).unwrap();
    assert!(
        !html.contains("<style"),
        "index.html has an inline style element"
    );
    assert!(
        !html.contains(" style="),
        "index.html has an inline style attribute"
    );
    for (i, tag) in html.match_indices("<script").map(|(i, _)| (i, &html[i..])) {
        let open = &tag[..tag.find('>').unwrap()];
        assert!(
            open.contains(" src="),
            "index.html has an inline script at byte {i}"
        );
        assert!(
            tag[open.len()..].starts_with("></script>"),
            "a script element has a body"
        );
    }
    let lower = html.to_ascii_lowercase();
    for handler in [
        " onclick=",
        " onload=",
        " onerror=",
        " onsubmit=",
        " oninput=",
        " onchange=",
    ] {
        assert!(
            !lower.contains(handler),
            "index.html has an inline handler{handler}"
        );
    }
}

#[test]
fn html_is_inserted_only_for_the_built_methods_fragment() {
    let root = crate::workspace_root();
    for (path, text) in page_sources(&root) {
        for sink in [
            "insertAdjacentHTML",
            "outerHTML",
            "document.write",
            "eval(",
            "new Function",
        ] {
            assert!(!text.contains(sink), "{} uses {sink}", path.display());
        }
        // Our own Rust-built SVG is parsed as XML, in one place.
        assert!(
            !text.contains("DOMParser") || path.ends_with("www/plots.js"),
            "{} uses DOMParser; only www/plots.js parses (our own) SVG",
            path.display()
        );
        let inner = text.matches("innerHTML").count();
        let allowed = usize::from(path.ends_with("www/app.js"));
        assert_eq!(
            inner,
            allowed,
            "{} uses innerHTML {inner} times",
            path.display()
        );
    }
}

/// What registering the tools needs is fetched at once, not one import level at a time:
/// `www/register.js` is an async module script of index.html (it registers the tools as
/// soon as it and its imports have arrived), and every module that it and the page's own
/// entry module (`www/app.js`) import statically, the tool definitions among them (a JSON
/// module), is modulepreloaded. Nothing else is: the engine's wasm-bindgen glue, the wasm and
/// the page's other modules load after the tools are registered.
#[test]
fn what_registration_needs_is_preloaded_and_nothing_else() {
    let root = crate::workspace_root();
    let html = std::fs::read_to_string(root.join("index.html")).unwrap();
    assert!(
        html.contains("<script type=\"module\" async src=\"www/register.js\"></script>"),
        "index.html does not load www/register.js as an async module"
    );
    // The static import graph of the two entry modules.
    let mut critical = vec!["www/register.js".to_string(), "www/app.js".to_string()];
    let mut next = 0;
    while next < critical.len() {
        let module = critical[next].clone();
        next += 1;
        if !module.ends_with(".js") {
            continue;
        }
        let text = std::fs::read_to_string(root.join(&module)).unwrap();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("import ") else {
                continue;
            };
            let Some(start) = rest.find("'./") else {
                continue;
            };
            let name = &rest[start + 3..];
            let path = format!("www/{}", &name[..name.find('\'').unwrap()]);
            if !critical.contains(&path) {
                critical.push(path);
            }
        }
    }
    assert!(
        critical.contains(&crate::codegen::TOOL_DEFINITIONS.to_string()),
        "www/register.js does not import the tool definitions: {critical:?}"
    );
    let preloaded: Vec<String> = html
        .lines()
        .filter_map(|l| l.trim().strip_prefix("<link rel=\"modulepreload\" href=\""))
        .map(|rest| rest[..rest.find('"').unwrap()].to_string())
        .collect();
    // register.js itself is fetched by its script element at once.
    let mut want: Vec<&String> = critical
        .iter()
        .filter(|m| *m != "www/register.js")
        .collect();
    want.sort();
    let mut got: Vec<&String> = preloaded.iter().collect();
    got.sort();
    assert_eq!(
        got, want,
        "index.html must modulepreload exactly the static imports of register.js and app.js"
    );
    assert!(
        !html.contains("www/pkg/"),
        "index.html preloads the engine, which must load after the tools are registered"
    );
    for module in &critical {
        let text = std::fs::read_to_string(root.join(module)).unwrap();
        assert!(
            !text
                .lines()
                .any(|l| l.starts_with("import ") && l.contains("pkg/")),
            "{module} imports the engine's glue statically"
        );
    }
}
