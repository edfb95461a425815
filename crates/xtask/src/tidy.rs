//! Checks of the page's sources, run as ordinary tests by `cargo test`.
//!
//! The invariants: tool names, descriptions and schemas live only in Rust;
//! the page has no inline script, style or handler; text reaches the DOM as
//! text, with one reviewed exception (the methods fragment we build).

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
                "{} names the tool {}: register what toolDefinitions() returns instead",
                path.display(),
                def.name
            );
            assert!(
                !text.contains(def.title),
                "{} restates a tool title",
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
