//! Each tool owns its printed summary's snapshot, as a ruff rule owns its message's: the
//! summaries of the tool's own examples (`Tool::examples`), in
//! `src/tools/snapshots/<tool>.txt`. A printer changed on purpose is re-recorded with
//! `UPDATE_SNAPSHOTS=1 cargo test -p living-evidence-exemplar --test summary_snapshots`
//! (`cargo xtask codegen` writes the snapshot of a tool that has none); any other change of
//! a summary's text fails here, naming the tool and the first line that differs.
//!
//! metafor's own printouts are the oracle of the lines it prints (`printed_summaries.rs`);
//! these snapshots hold the rest (headlines, notes, the layout of every example) still.

use exemplar::tools::{self, REGISTRY};
use std::path::PathBuf;

fn snapshot_path(tool: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src/tools/snapshots")
        .join(format!("{tool}.txt"))
}

#[test]
fn every_tools_summaries_match_its_snapshot() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut failures = Vec::new();
    for tool in REGISTRY {
        let text = tools::summary_snapshot(tool);
        let path = snapshot_path(tool.name);
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let Ok(recorded) = std::fs::read_to_string(&path) else {
            failures.push(format!(
                "{}: no snapshot at {} (cargo xtask codegen writes it)",
                tool.name,
                path.display()
            ));
            continue;
        };
        if recorded != text {
            let (n, (want, got)) = recorded
                .lines()
                .chain(std::iter::repeat("<end>"))
                .zip(text.lines().chain(std::iter::repeat("<end>")))
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .unwrap();
            failures.push(format!(
                "{}: line {} differs from its snapshot:\n  recorded: {want}\n  now:      {got}",
                tool.name,
                n + 1
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
