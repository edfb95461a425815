//! The oracle scripts share one JSON writer and every fixture says where it came from
//! (issue 43 item 6): `tests/oracle/common.R` is the only R file of the repository that
//! writes JSON, every R script beside it sources it and ends with its `write_fixture`, and
//! every fixture of the engine's and the exemplar's tests carries a `provenance` naming a
//! generator that exists.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The files under `dir` (not `target/` or a hidden folder) whose name ends with `suffix`.
fn files(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && name != "node_modules" && !name.starts_with('.') {
                files(&path, suffix, out);
            }
        } else if name.ends_with(suffix) {
            out.push(path);
        }
    }
}

/// Whether an R script defines a JSON writer of its own.
fn defines_a_json_writer(text: &str) -> bool {
    text.lines().any(|line| {
        let code = line.split('#').next().unwrap_or("");
        ["to_json <-", "json_atom <-", "to_json<-", "json_atom<-"]
            .iter()
            .any(|d| code.contains(d))
    })
}

#[test]
fn common_r_is_the_only_json_writer_and_every_oracle_script_uses_it() {
    let mut scripts = Vec::new();
    files(&root().join("crates"), ".R", &mut scripts);
    let common = root().join("crates/meta-analysis/tests/oracle/common.R");
    assert!(
        scripts.iter().any(|s| s.ends_with("tests/oracle/common.R")),
        "no common.R"
    );
    for script in &scripts {
        let text = std::fs::read_to_string(script).unwrap();
        if script.ends_with("tests/oracle/common.R") {
            assert!(defines_a_json_writer(&text), "common.R writes no JSON");
            continue;
        }
        assert!(
            !defines_a_json_writer(&text),
            "{} has a JSON writer of its own: source {} and end with write_fixture",
            script.display(),
            common.display()
        );
        if script.parent() == common.parent() {
            assert!(
                text.contains("\"common.R\"))") && text.contains("write_fixture("),
                "{} does not source common.R and end with write_fixture",
                script.display()
            );
        }
    }
}

/// Fixtures not written by an oracle script: the bit-identity hashes are written by
/// `cargo xtask codegen` from the engine itself, and the distribution functions' values are
/// mpmath's, a bare list whose script (`tests/oracle/distributions.py`) the README names.
const WITHOUT_PROVENANCE: [&str; 2] = ["bit_identity.json", "distributions.json"];

#[test]
fn every_fixture_names_its_generator() {
    let mut fixtures = Vec::new();
    for dir in [
        "crates/meta-analysis/tests/fixtures",
        "crates/exemplar/tests/fixtures",
    ] {
        files(&root().join(dir), ".json", &mut fixtures);
    }
    assert!(fixtures.len() > 10, "{fixtures:?}");
    for fixture in &fixtures {
        let name = fixture.file_name().unwrap().to_string_lossy();
        if WITHOUT_PROVENANCE.contains(&name.as_ref()) {
            continue;
        }
        let text = std::fs::read_to_string(fixture).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let generator = json["provenance"]["generator"]
            .as_str()
            .unwrap_or_else(|| panic!("{} has no provenance.generator", fixture.display()));
        assert!(
            root().join(generator).is_file(),
            "{}: its generator {generator} does not exist",
            fixture.display()
        );
        assert!(
            json["provenance"]["R"].is_string() || generator.ends_with(".py"),
            "{}: an R generator's provenance names R's version",
            fixture.display()
        );
    }
}
