//! Run records, parsed and checked as `exemplar runs check` and `cargo xtask build` do: the
//! input is one or more record files separated by NUL bytes (which JSON text cannot hold
//! unescaped). A file that parses as a record is named as its run id asks, so that the checks
//! past the file name are reached. The check reports errors or keeps the records, whose
//! stored scores equal fresh ones; the kept records summarize and read back unchanged.

#![no_main]

use exemplar::runs::{self, RunRecord};
use exemplar::scorer;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let files: Vec<(String, String)> = data
        .split(|&b| b == 0)
        .take(16)
        .map(|bytes| {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let name = serde_json::from_str::<RunRecord>(&text)
                .map_or_else(|_| "unnamed.json".to_string(), |r| r.file_name());
            (name, text)
        })
        .collect();

    let report = runs::check(&files);
    assert_eq!(report.ok(), report.errors.is_empty());
    assert!(report.errors.iter().all(|e| !e.is_empty()));
    assert!(report.runs.len() <= files.len());
    for run in &report.runs {
        assert_eq!(run.score, scorer::score(&run.answer));
        let text = serde_json::to_string_pretty(run).expect("a record serializes");
        let back: RunRecord = serde_json::from_str(&text).expect("a kept record reads back");
        assert_eq!(&back, run);
    }
    let summary = runs::summarize(&report.runs);
    assert!(summary.to_json().is_object());
});
