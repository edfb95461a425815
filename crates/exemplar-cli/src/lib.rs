//! What the `exemplar` command shares with the project's other programs: reading the folder of
//! run records. `exemplar runs check|summary` and `cargo xtask build` (which writes the page's
//! Living Evidence summary) read `runs/` with this one function, so they cannot disagree about
//! which files a folder holds. `exemplar` itself does no I/O.

use std::io::Read;
use std::path::Path;

/// The largest run record read; a record is a few kilobytes.
pub const MAX_RECORD_BYTES: u64 = 1024 * 1024;

/// Every `*.json` file in `dir`, sorted by name, as (file name, text), ready for
/// `exemplar::runs::check`. A missing folder holds no records. An error names the file.
pub fn read_run_files(dir: &Path) -> Result<Vec<(String, String)>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut bytes = Vec::new();
            std::fs::File::open(&p)
                .and_then(|f| f.take(MAX_RECORD_BYTES).read_to_end(&mut bytes))
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            let text = String::from_utf8(bytes)
                .map_err(|_| format!("{} is not UTF-8 text", p.display()))?;
            Ok((name, text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_holds_no_records() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("no-such-folder");
        assert_eq!(read_run_files(&dir), Ok(Vec::new()));
    }

    #[test]
    fn only_json_files_are_read_in_name_order() {
        let dir = std::env::temp_dir().join(format!("exemplar-run-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.json"), "{}").unwrap();
        std::fs::write(dir.join("a.json"), "[]").unwrap();
        std::fs::write(dir.join("README.md"), "# not a record").unwrap();
        let files = read_run_files(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            files,
            [
                ("a.json".into(), "[]".into()),
                ("b.json".into(), "{}".into())
            ]
        );
    }
}
