//! The modules' dependencies, read from the code (issue 43 item 3): at every level of each
//! crate's module tree, the modules side by side (a crate's top-level modules, the files of
//! `exemplar/src/tools/`, …) use each other without a cycle, so that they stack in layers
//! and a shared item lives in the lower one.
//!
//! A module uses another where its code (comments and `#[cfg(test)]` items cut:
//! `crates/exemplar/tests/support/rust_source.rs`) writes a path through it: `crate::a::…`,
//! `super::b::…`, `self::c::…`, in a `use` (groups included) or in an expression. The use
//! counts between the two modules side by side under their closest common parent: in
//! `tools/fit.rs`, `super::args::FitArgs` makes `fit` use `args`, both in `tools`. A parent
//! and its children are not compared (a parent declares and re-exports them). An item
//! reached through its parent's re-export (`crate::MetaError`, `super::DataSource`: the
//! parent's `pub use error::MetaError;`) is a use of the module it is re-exported from, so
//! that a cycle through the crate root's re-exports is found too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "../../exemplar/tests/support/rust_source.rs"]
mod rust_source;

/// A module's path from its crate's root (`["tools", "fit"]`).
type ModulePath = Vec<String>;

/// For each parent module, which of its children uses which other child, and in which files.
pub(crate) type Uses = BTreeMap<ModulePath, BTreeMap<String, BTreeMap<String, BTreeSet<String>>>>;

/// Every path the code of a module writes from `crate`, `super` or `self`, made absolute.
fn paths_written(module: &[String], code: &str) -> Vec<ModulePath> {
    let chars: Vec<char> = code.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut paths = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if i > 0 && (ident(chars[i - 1]) || chars[i - 1] == ':') {
            i += 1;
            continue;
        }
        let word: String = chars[i..].iter().take_while(|c| ident(**c)).collect();
        let mut base: ModulePath = match word.as_str() {
            "crate" => Vec::new(),
            "super" | "self" => module.to_vec(),
            _ => {
                i += word.chars().count().max(1);
                continue;
            }
        };
        // `super::super::…` climbs once a `super`.
        let mut j = i;
        loop {
            let word: String = chars[j..].iter().take_while(|c| ident(**c)).collect();
            match word.as_str() {
                "super" => {
                    base.pop();
                }
                "crate" | "self" if j == i => {}
                _ => break,
            }
            j += word.chars().count();
            if !(chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':')) {
                break;
            }
            j += 2;
        }
        let (trees, end) = use_tree(&chars, j);
        for tree in trees {
            let mut path = base.clone();
            path.extend(tree);
            paths.push(path);
        }
        i = end.max(i + 1);
    }
    paths
}

/// The paths of a use tree starting at `at` (`a::b`, `a::{b, c::d}`, `*`), and where it ends.
fn use_tree(chars: &[char], at: usize) -> (Vec<ModulePath>, usize) {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = at;
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    if chars.get(i) == Some(&'{') {
        let mut trees = Vec::new();
        i += 1;
        loop {
            let (mut more, end) = use_tree(chars, i);
            trees.append(&mut more);
            i = end;
            while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                i += 1;
            }
            match chars.get(i) {
                Some('}') => return (trees, i + 1),
                // `a as b` or anything else in a group: skip to the next item.
                Some(_) if i > end => {}
                Some(_) => {
                    while chars.get(i).is_some_and(|c| !matches!(c, ',' | '}')) {
                        i += 1;
                    }
                }
                None => return (trees, i),
            }
        }
    }
    let word: String = chars[i.min(chars.len())..]
        .iter()
        .take_while(|c| ident(**c))
        .collect();
    i += word.chars().count();
    if word.is_empty() || word == "self" {
        return (vec![Vec::new()], i);
    }
    if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
        let (trees, end) = use_tree(chars, i + 2);
        let trees = trees
            .into_iter()
            .map(|tree| std::iter::once(word.clone()).chain(tree).collect())
            .collect();
        return (trees, end);
    }
    (vec![vec![word]], i)
}

/// For each module, the items it re-exports from a child (`pub use child::{A, b::C};`, any
/// visibility of `pub`), each with the child: `A` and `C` from `child`.
fn reexports(
    modules: &[(ModulePath, &PathBuf, String)],
    known: &BTreeSet<&ModulePath>,
) -> BTreeMap<(ModulePath, String), String> {
    let mut found = BTreeMap::new();
    for (module, _, code) in modules {
        let chars: Vec<char> = code.chars().collect();
        let mut at = 0;
        while let Some(offset) = code[at..].find("pub") {
            let start = at + offset;
            at = start + 3;
            // `pub use` or `pub(crate) use`, at a word's start.
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = code[at..].trim_start();
            let rest = match rest.strip_prefix('(') {
                Some(r) => r.split_once(')').map_or("", |(_, r)| r).trim_start(),
                None => rest,
            };
            let Some(tree) = rest.strip_prefix("use ") else {
                continue;
            };
            let tree_at = code.len() - tree.len();
            let char_at = code[..tree_at].chars().count();
            let (paths, _) = use_tree(&chars, char_at);
            for path in paths {
                let path: Vec<String> = path.into_iter().skip_while(|p| p == "self").collect();
                let (Some(child), Some(item)) = (path.first(), path.last()) else {
                    continue;
                };
                let mut child_path = module.clone();
                child_path.push(child.clone());
                if path.len() > 1 && known.contains(&child_path) {
                    found.insert((module.clone(), item.clone()), child.clone());
                }
            }
        }
    }
    found
}

/// `target` with an item its parent re-exports from a child replaced by that child
/// (`crate::MetaError` is `crate::error`), where the item is not a module itself.
fn through_reexports(
    target: ModulePath,
    known: &BTreeSet<&ModulePath>,
    reexports: &BTreeMap<(ModulePath, String), String>,
) -> ModulePath {
    for i in 0..target.len() {
        if known.contains(&target[..=i].to_vec()) {
            continue;
        }
        let key = (target[..i].to_vec(), target[i].clone());
        if let Some(child) = reexports.get(&key) {
            let mut resolved = target[..i].to_vec();
            resolved.push(child.clone());
            return resolved;
        }
        break;
    }
    target
}

/// The uses between modules side by side in one crate, from its program's files (path under
/// `src`, text); binaries' own roots (`bin/`) are left out.
pub(crate) fn uses(files: &[(PathBuf, String)]) -> Uses {
    let src = Path::new("");
    let modules: Vec<(ModulePath, &PathBuf, String)> = files
        .iter()
        .filter_map(|(path, text)| {
            let module = rust_source::module_path(src, path)?;
            Some((module, path, rust_source::code_without_literals(text)))
        })
        .collect();
    let known: BTreeSet<&ModulePath> = modules.iter().map(|(m, _, _)| m).collect();
    let reexports = reexports(&modules, &known);
    let mut uses = Uses::new();
    for (module, path, code) in &modules {
        for target in paths_written(module, code) {
            let target = through_reexports(target, &known, &reexports);
            let common = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if common < module.len()
                && common < target.len()
                && known.contains(&target[..=common].to_vec())
            {
                uses.entry(module[..common].to_vec())
                    .or_default()
                    .entry(module[common].clone())
                    .or_default()
                    .entry(target[common].clone())
                    .or_default()
                    .insert(path.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    uses
}

/// A crate's program files under `src`, each with its path under `src`.
pub(crate) fn crate_files(src: &Path) -> Vec<(PathBuf, String)> {
    rust_source::program_files(src)
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            (file.strip_prefix(src).unwrap().to_path_buf(), text)
        })
        .collect()
}

/// What each top-level module of the crate at `src` uses of the others (every top-level
/// module listed, one that uses none with an empty set).
pub(crate) fn top_level_uses(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = crate_files(src);
    let mut graph: BTreeMap<String, BTreeSet<String>> = files
        .iter()
        .filter_map(|(path, _)| {
            rust_source::module_path(Path::new(""), path)?
                .first()
                .cloned()
        })
        .map(|module| (module, BTreeSet::new()))
        .collect();
    if let Some(children) = uses(&files).remove(&Vec::new()) {
        for (module, used) in children {
            graph.entry(module).or_default().extend(used.into_keys());
        }
    }
    graph
}

/// A cycle among the children of one parent, as `a → b → a` with the files behind each use.
fn cycles(children: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Vec<String> {
    // Depth-first search from each child in order; a use back to a module on the stack closes
    // a cycle.
    fn visit(
        node: &str,
        children: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        found: &mut Vec<String>,
    ) {
        if done.contains(node) {
            return;
        }
        if let Some(at) = stack.iter().position(|n| n == node) {
            let cycle: Vec<&String> = stack[at..].iter().chain([&stack[at]]).collect();
            let because: Vec<String> = cycle
                .windows(2)
                .map(|pair| {
                    let files = &children[pair[0].as_str()][pair[1].as_str()];
                    format!("{} uses {} in {files:?}", pair[0], pair[1])
                })
                .collect();
            let names: Vec<&str> = cycle.iter().map(|n| n.as_str()).collect();
            found.push(format!("{} ({})", names.join(" → "), because.join("; ")));
            return;
        }
        stack.push(node.to_string());
        for next in children.get(node).into_iter().flat_map(|uses| uses.keys()) {
            visit(next, children, stack, done, found);
        }
        stack.pop();
        done.insert(node.to_string());
    }
    let mut found = Vec::new();
    let mut done = BTreeSet::new();
    for node in children.keys() {
        visit(node, children, &mut Vec::new(), &mut done, &mut found);
    }
    found
}

/// Every cycle of a crate's uses, each naming its parent module.
fn all_cycles(uses: &Uses) -> Vec<String> {
    uses.iter()
        .flat_map(|(parent, children)| {
            let parent = if parent.is_empty() {
                "the crate's root".to_string()
            } else {
                parent.join("::")
            };
            cycles(children)
                .into_iter()
                .map(move |cycle| format!("under {parent}: {cycle}"))
        })
        .collect()
}

#[test]
fn no_modules_side_by_side_use_each_other_in_a_cycle() {
    let root = crate::workspace_root();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    crates.sort();
    assert!(crates.len() >= 6, "{crates:?}");
    let mut found = Vec::new();
    for krate in &crates {
        let uses = uses(&crate_files(&krate.join("src")));
        let name = krate.file_name().unwrap().to_string_lossy();
        if name == "exemplar" {
            // The tool files (declared by `registry!`, not by a written `mod`) are read.
            let tools = &uses[&vec!["tools".to_string()]];
            assert!(
                tools.len() > 20 && tools.contains_key(exemplar::tools::FOREST_PLOT.name),
                "{tools:?}"
            );
        }
        found.extend(
            all_cycles(&uses)
                .into_iter()
                .map(|cycle| format!("crates/{name}: {cycle}")),
        );
    }
    assert!(
        found.is_empty(),
        "modules that use each other (move what they share to the lower one):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_cycle_is_found_and_named_with_the_files_behind_it() {
    let files = |list: &[(&str, &str)]| -> Vec<(PathBuf, String)> {
        list.iter()
            .map(|(path, text)| (PathBuf::from(path), text.to_string()))
            .collect()
    };
    let tree = files(&[
        ("lib.rs", "mod a; mod b; mod c; mod tools;"),
        ("a.rs", "use crate::b::{x, y as z};"),
        (
            "b.rs",
            "// crate::a in a comment\nconst S: &str = \"crate::a\";\nuse crate::c;",
        ),
        ("c.rs", "fn f() {}"),
        ("tools/mod.rs", "mod fit; mod args; pub use fit::F;"),
        ("tools/fit.rs", "use super::{args::A, Tool};"),
        (
            "tools/args.rs",
            "use super::super::a; #[cfg(test)] mod tests { use super::super::fit; }",
        ),
    ]);
    let uses = uses(&tree);
    // Paths in comments, strings and tests are not uses; a parent and its children are not
    // compared; a child's use of an item of its parent (`Tool`) names no sibling.
    assert_eq!(
        uses[&vec![]].keys().collect::<Vec<_>>(),
        ["a", "b", "tools"]
    );
    assert_eq!(uses[&vec![]]["tools"].keys().collect::<Vec<_>>(), ["a"]);
    assert_eq!(uses[&vec![]]["b"].keys().collect::<Vec<_>>(), ["c"]);
    assert_eq!(
        uses[&vec!["tools".to_string()]]["fit"]
            .keys()
            .collect::<Vec<_>>(),
        ["args"]
    );
    assert!(all_cycles(&uses).is_empty(), "{:?}", all_cycles(&uses));

    let mut cyclic = tree.clone();
    cyclic[3].1.push_str("\nfn h() { crate::tools::fit::g() }");
    let found = all_cycles(&self::uses(&cyclic));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("under the crate's root: a → b → c → tools → a"),
        "{}",
        found[0]
    );
    assert!(
        found[0].contains("c uses tools in {\"c.rs\"}"),
        "{}",
        found[0]
    );
    assert!(
        found[0].contains("tools uses a in {\"tools/args.rs\"}"),
        "{}",
        found[0]
    );
}

#[test]
fn a_cycle_through_the_roots_reexports_is_found() {
    let files = |list: &[(&str, &str)]| -> Vec<(PathBuf, String)> {
        list.iter()
            .map(|(path, text)| (PathBuf::from(path), text.to_string()))
            .collect()
    };
    // `error` names a bound of `records` through the root's re-export, `records` the error
    // the same way: neither writes the other's module name.
    let tree = files(&[
        (
            "lib.rs",
            "mod error; mod records; pub(crate) mod limits;\n\
             pub use error::MetaError;\npub use records::{validate, MAX_VI};",
        ),
        (
            "error.rs",
            "pub enum MetaError {}\nfn f() { crate::MAX_VI; }",
        ),
        (
            "records.rs",
            "use crate::MetaError;\npub const MAX_VI: f64 = 1.0;",
        ),
        ("limits.rs", "pub const MIN_VI: f64 = 0.0;"),
    ]);
    let uses = uses(&tree);
    assert_eq!(
        uses[&vec![]]["error"].keys().collect::<Vec<_>>(),
        ["records"]
    );
    assert_eq!(
        uses[&vec![]]["records"].keys().collect::<Vec<_>>(),
        ["error"]
    );
    let found = all_cycles(&uses);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("under the crate's root: error → records → error"),
        "{}",
        found[0]
    );

    // The bound moved to a module both use, the cycle is gone.
    let mut fixed = tree.clone();
    fixed[0].1 = "mod error; mod records; mod limits;\npub use error::MetaError;\n\
                  pub use limits::MAX_VI;"
        .into();
    fixed[2].1 = "use crate::MetaError;\nuse crate::MAX_VI;".into();
    fixed[3].1 = "pub const MAX_VI: f64 = 1.0;".into();
    let found = all_cycles(&self::uses(&fixed));
    assert!(found.is_empty(), "{found:?}");
}
