//! A Rust source file as the program's code: comments (doc comments too) and the items under
//! `#[cfg(test)]` cut, string and character literals told apart from the code around them.
//! Used by the registry's tests (a tool's name written once outside tests) and by xtask's
//! module graph (`crates/xtask/src/module_graph.rs`, which includes this file), so that both
//! read a file the same way.

#![allow(dead_code)]

/// A piece of a source file: code, or a literal (a string or a character, as written).
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Code(char),
    Literal(String),
}

/// The pieces of `text` outside comments, in order.
fn lexed(text: &str) -> Vec<Piece> {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let starts = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(j, c)| chars.get(i + j) == Some(&c))
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < n {
        let c = chars[i];
        let after_ident = i > 0 && ident(chars[i - 1]);
        if starts(i, "//") {
            while i < n && chars[i] != '\n' {
                i += 1;
            }
        } else if starts(i, "/*") {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < n {
                if starts(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if starts(i, "*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            pieces.push(Piece::Code(' '));
        } else if !after_ident && (c == 'r' || starts(i, "br")) && {
            let mut j = i + if c == 'r' { 1 } else { 2 };
            while j < n && chars[j] == '#' {
                j += 1;
            }
            j < n && chars[j] == '"'
        } {
            // A raw string: r"…", r#"…"#, br"…".
            let start = i;
            i += if c == 'r' { 1 } else { 2 };
            let mut hashes = 0;
            while chars[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            while i < n && !starts(i, &close) {
                i += 1;
            }
            i = (i + close.chars().count()).min(n);
            pieces.push(Piece::Literal(chars[start..i].iter().collect()));
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < n && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(n);
            pieces.push(Piece::Literal(chars[start..i].iter().collect()));
        } else if c == '\'' && (starts(i + 1, "\\") || (i + 2 < n && chars[i + 2] == '\'')) {
            // A character ('x', '\n', '\u{7f}'); a lifetime ('a) is code.
            let start = i;
            i += 1;
            if chars[i] == '\\' {
                i += 2;
            }
            while i < n && chars[i] != '\'' {
                i += 1;
            }
            i = (i + 1).min(n);
            pieces.push(Piece::Literal(chars[start..i].iter().collect()));
        } else {
            pieces.push(Piece::Code(c));
            i += 1;
        }
    }
    pieces
}

/// The pieces of `text` outside comments and outside the items `#[cfg(test)]` marks (a
/// module of tests, a test-only `use` or function), in order.
pub fn pieces(text: &str) -> Vec<Piece> {
    let all = lexed(text);
    let code_at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(j, c)| all.get(i + j) == Some(&Piece::Code(c)))
    };
    let mut kept = Vec::new();
    let mut i = 0;
    while i < all.len() {
        if !code_at(i, "#[cfg(test)]") {
            kept.push(all[i].clone());
            i += 1;
            continue;
        }
        i += "#[cfg(test)]".len();
        // The item: its further attributes, then up to its `;` or its closing brace.
        let mut depth = 0usize;
        let mut brackets = 0usize;
        while i < all.len() {
            let Piece::Code(c) = all[i] else {
                i += 1;
                continue;
            };
            i += 1;
            match c {
                '[' => brackets += 1,
                ']' => brackets = brackets.saturating_sub(1),
                '{' if brackets == 0 => depth += 1,
                '}' if brackets == 0 => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                ';' if depth == 0 && brackets == 0 => break,
                _ => {}
            }
        }
    }
    kept
}

/// The code of `text` (comments and test items cut), its literals written as they are.
pub fn code(text: &str) -> String {
    pieces(text)
        .into_iter()
        .map(|piece| match piece {
            Piece::Code(c) => c.to_string(),
            Piece::Literal(literal) => literal,
        })
        .collect()
}

/// The code of `text` with every literal blanked to `""`: paths and names only.
pub fn code_without_literals(text: &str) -> String {
    pieces(text)
        .into_iter()
        .map(|piece| match piece {
            Piece::Code(c) => c.to_string(),
            Piece::Literal(_) => "\"\"".to_string(),
        })
        .collect()
}

/// The string literals of the code of `text`, as written (quotes included).
pub fn literals(text: &str) -> Vec<String> {
    pieces(text)
        .into_iter()
        .filter_map(|piece| match piece {
            Piece::Literal(literal) if !literal.starts_with('\'') => Some(literal),
            _ => None,
        })
        .collect()
}

/// Every `.rs` file under `dir`, sorted.
pub fn rust_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The module path of a file under a crate's `src` (`tools/mod.rs` and `tools.rs` are
/// `["tools"]`, `lib.rs` and `main.rs` the root, `[]`); `None` for a binary's own root under
/// `bin/`, a crate of its own.
pub fn module_path(src: &std::path::Path, file: &std::path::Path) -> Option<Vec<String>> {
    let relative = file.strip_prefix(src).ok()?;
    let mut path: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if path.first().is_some_and(|first| first == "bin") {
        return None;
    }
    let last = path.pop()?;
    let stem = last.strip_suffix(".rs")?.to_string();
    if stem != "mod" && !(path.is_empty() && (stem == "lib" || stem == "main")) {
        path.push(stem);
    }
    Some(path)
}

/// Whether `code` declares a module `name` (`mod name;` or `mod name {`).
fn declares(code: &str, name: &str) -> bool {
    let needle = format!("mod {name}");
    code.match_indices(&needle).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + needle.len()..].trim_start().chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && matches!(after, Some(';' | '{'))
    })
}

/// The files of a crate's program under `src`: every `.rs` file but the modules of tests (a
/// file its parent declares only under `#[cfg(test)]`, such as `serve/tests.rs` behind
/// `#[cfg(test)] mod tests;`, and the files below it). A module declared by a macro
/// (`registry!`'s `mod $tool;`) is the program's.
pub fn program_files(src: &std::path::Path) -> Vec<std::path::PathBuf> {
    fn of_tests(src: &std::path::Path, file: &std::path::Path) -> bool {
        let Some(path) = module_path(src, file) else {
            return false;
        };
        let Some((name, parent)) = path.split_last() else {
            return false;
        };
        let parents = if parent.is_empty() {
            vec![src.join("lib.rs"), src.join("main.rs")]
        } else {
            let dir = src.join(parent.join("/"));
            vec![dir.join("mod.rs"), dir.with_extension("rs")]
        };
        parents.iter().any(|p| {
            std::fs::read_to_string(p).is_ok_and(|text| {
                let with_tests: String = lexed(&text)
                    .into_iter()
                    .map(|piece| match piece {
                        Piece::Code(c) => c.to_string(),
                        Piece::Literal(literal) => literal,
                    })
                    .collect();
                declares(&with_tests, name) && !declares(&code(&text), name)
            }) || of_tests(src, p)
        })
    }
    rust_files(src)
        .into_iter()
        .filter(|file| !of_tests(src, file))
        .collect()
}

#[cfg(test)]
mod lexer_tests {
    use super::*;

    #[test]
    fn comments_tests_and_literals_are_told_apart() {
        let text = r##"
/// "doc_name" in a doc comment
fn f() -> &'static str { let c = '{'; let r = r#"a "raw" }"#; "kept" } // "comment"
/* "block /* nested */ comment" */
#[cfg(test)]
#[allow(unused)]
mod tests { fn g() { let s = "}"; "in_test"; } }
#[cfg(test)]
use x::y;
const AFTER: &str = "after";
"##;
        let code = code(text);
        assert!(
            !code.contains("doc_name") && !code.contains("comment"),
            "{code}"
        );
        assert!(
            !code.contains("in_test") && !code.contains("x::y"),
            "{code}"
        );
        assert!(
            code.contains("\"kept\"") && code.contains("\"after\""),
            "{code}"
        );
        assert!(code.contains("&'static str"), "{code}");
        assert_eq!(
            literals(text),
            ["r#\"a \"raw\" }\"#", "\"kept\"", "\"after\""]
        );
        assert!(!code_without_literals(text).contains("kept"));
    }
}
