//! The engine's numerical machinery is written once (issue 43 item 6): the tanh-sinh
//! quadrature only in `src/quadrature.rs` and bisection only in `src/solver.rs`, so a new
//! statistic calls them rather than copying their loops (as a trial tool once copied
//! special.rs's). Read from the sources of the engine and the exemplar crate.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// A source's code lines, without `//` comments.
fn code(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or("").replace(' ', ""))
        .collect()
}

#[test]
fn quadrature_and_bisection_are_written_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["crates/meta-analysis/src", "crates/exemplar/src"] {
        sources(&root.join(dir), &mut files);
    }
    // Marks of each loop: the tanh-sinh node t = 1/(1 + e^(−2s)) taken in logarithms, or its
    // weight π/2·cosh u; a bisection's midpoint test.
    let marks: [(&str, &[&str]); 2] = [
        (
            "quadrature.rs",
            &["ln_1p(exp(-2.0*", "FRAC_PI_2*(eu-emu)", "cosh_u"],
        ),
        ("solver.rs", &["ifmid<=", "(lo+hi)/2", "0.5*(lo+hi)"]),
    ];
    let mut copies = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines = code(&text);
        for (home, patterns) in marks {
            if file.ends_with(home) {
                continue;
            }
            for p in patterns {
                if lines.iter().any(|l| l.contains(p)) {
                    copies.push(format!("{} writes `{p}`: call {home}", file.display()));
                }
            }
        }
    }
    assert!(copies.is_empty(), "{copies:#?}");
}
