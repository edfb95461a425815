//! `exemplar runs check`: every record on its own (format, stored score against a fresh
//! score, baseline and hashes, file name), then the set (unique ids, complete pairs,
//! alternation of the first condition).

use super::{
    first_condition_counts, group_pairs, run_id, valid_date, valid_pair_id, Condition, RecordError,
    RunRecord, SCHEMA,
};
use crate::scorer::score;
use serde::Serialize;
use std::collections::BTreeSet;

/// The outcome of checking every record.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CheckReport {
    /// Each problem that makes the set invalid, naming its file.
    pub errors: Vec<String>,
    /// Problems that do not invalidate the set (an unbalanced order).
    pub warnings: Vec<String>,
    /// The records that passed their own checks; their stored scores equal fresh ones.
    #[serde(skip)]
    pub runs: Vec<RunRecord>,
}

impl CheckReport {
    pub fn ok(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Checks `(file name, text)` pairs: the format, the stored score against a fresh
/// re-score, the baseline and hashes, the file name (`<run_id>.json`), unique ids, complete
/// pairs with one first and one second run, and alternation of the first condition across
/// pairs.
pub fn check(files: &[(String, String)]) -> CheckReport {
    let mut report = CheckReport::default();
    let mut ids = BTreeSet::new();
    for (name, text) in files {
        let record: RunRecord = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                report
                    .errors
                    .push(format!("{name}: not a valid run record: {e}"));
                continue;
            }
        };
        let mut problems = record_problems(&record);
        if *name != record.file_name() {
            problems.push(format!(
                "the file name must be {:?} (the record's run id, then .json)",
                record.file_name()
            ));
        }
        if !ids.insert(record.run_id.clone()) {
            problems.push(format!("run id {:?} is used twice", record.run_id));
        }
        if problems.is_empty() {
            report.runs.push(record);
        }
        for p in problems {
            report.errors.push(format!("{name}: {p}"));
        }
    }
    let pairs = group_pairs(&report.runs);
    for (pair, runs) in &pairs {
        let conditions: BTreeSet<Condition> = runs.iter().map(|r| r.condition).collect();
        if runs.len() != 2 || conditions.len() != 2 {
            let have: Vec<&str> = runs.iter().map(|r| r.condition.name()).collect();
            report.errors.push(format!(
                "pair {pair:?} is incomplete: it has {} (a pair needs one pdf run and one webmcp run)",
                if have.is_empty() { "no runs".to_string() } else { have.join(" and ") }
            ));
        } else if runs[0].order == runs[1].order {
            report.errors.push(format!(
                "pair {pair:?}: both runs say order {:?}; one must be first and one second",
                runs[0].order
            ));
        } else if runs[0].model != runs[1].model || runs[0].settings != runs[1].settings {
            report.errors.push(format!(
                "pair {pair:?}: the two runs differ in model or settings; a pair compares one agent"
            ));
        }
    }
    let (pdf_first, webmcp_first) = first_condition_counts(&pairs);
    if pdf_first.abs_diff(webmcp_first) > 1 {
        report.warnings.push(format!(
            "the order is unbalanced: pdf went first in {pdf_first} pairs and webmcp in \
             {webmcp_first}; alternate which condition goes first"
        ));
    }
    report
}

fn record_problems(r: &RunRecord) -> Vec<String> {
    let mut problems = Vec::new();
    if r.schema != SCHEMA {
        problems.push(format!("schema is {:?}, expected {SCHEMA:?}", r.schema));
    }
    if !valid_pair_id(&r.pair) {
        problems.push(RecordError::BadPairId(r.pair.clone()).to_string());
    }
    let expected_id = run_id(&r.pair, r.condition);
    if r.run_id != expected_id {
        problems.push(format!(
            "run id {:?} should be {expected_id:?} (pair, then condition)",
            r.run_id,
        ));
    }
    if !valid_date(&r.date) {
        problems.push(RecordError::BadDate(r.date.clone()).to_string());
    }
    if r.model.trim().is_empty() {
        problems.push(RecordError::EmptyModel.to_string());
    }
    if r.score != score(&r.answer) {
        problems.push(
            "the stored score differs from a fresh score of the stored answer; scores are never \
             edited by hand (re-record the run with `exemplar record`)"
                .into(),
        );
    }
    match crate::baselines::find(&r.baseline_version) {
        None => problems.push(format!(
            "baseline version {:?} is not a released baseline",
            r.baseline_version
        )),
        Some(b) if b.pdf_sha256 != r.pdf_sha256 => problems.push(format!(
            "pdf_sha256 {} does not match baseline {}'s PDF ({})",
            r.pdf_sha256, b.version, b.pdf_sha256
        )),
        Some(_) => {}
    }
    if r.dataset_sha256 != crate::dataset::sha256() {
        problems.push(format!(
            "dataset_sha256 {} is not the frozen dataset's hash ({})",
            r.dataset_sha256,
            crate::dataset::sha256()
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::super::Order;
    use super::*;

    #[test]
    fn fixture_records_check_clean() {
        let files: Vec<_> = fixture().iter().map(file).collect();
        let report = check(&files);
        assert!(report.ok(), "{:?}", report.errors);
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert_eq!(report.runs.len(), 6);
    }

    #[test]
    fn an_edited_score_is_rejected() {
        let mut runs = fixture();
        runs[0].score.passed = Some(13);
        let report = check(&runs.iter().map(file).collect::<Vec<_>>());
        assert!(!report.ok());
        assert!(
            report.errors[0].starts_with("p1-pdf.json: the stored score differs"),
            "{:?}",
            report.errors
        );
    }

    #[test]
    fn an_unknown_baseline_hash_is_rejected() {
        let mut runs = fixture();
        runs[1].pdf_sha256 = "f".repeat(64);
        runs[2].baseline_version = "1999-01-01.v9".into();
        let errors = check(&runs.iter().map(file).collect::<Vec<_>>())
            .errors
            .join("\n");
        assert!(
            errors.contains("p1-webmcp.json: pdf_sha256 ffff"),
            "{errors}"
        );
        assert!(
            errors.contains("\"1999-01-01.v9\" is not a released baseline"),
            "{errors}"
        );
    }

    #[test]
    fn an_incomplete_pair_is_reported() {
        let runs = fixture();
        let report = check(&runs[..5].iter().map(file).collect::<Vec<_>>());
        assert_eq!(
            report.errors,
            vec!["pair \"p3\" is incomplete: it has pdf (a pair needs one pdf run and one webmcp run)"]
        );
    }

    #[test]
    fn unbalanced_order_is_a_warning_not_an_error() {
        let mut runs = fixture();
        // Make p2 pdf-first too: 3 pdf-first, 0 webmcp-first.
        runs[2].order = Order::Second;
        runs[3].order = Order::First;
        let report = check(&runs.iter().map(file).collect::<Vec<_>>());
        assert!(report.ok(), "{:?}", report.errors);
        assert_eq!(report.warnings.len(), 1);
        assert!(report.warnings[0].contains("unbalanced"));
    }

    #[test]
    fn malformed_files_and_duplicates_are_named() {
        let mut files: Vec<_> = fixture().iter().map(file).collect();
        files.push(("broken.json".into(), "{ not json".into()));
        files.push((
            "extra.json".into(),
            r#"{"schema":"exemplar-run/1","surprise":1}"#.into(),
        ));
        let dup = files[0].1.clone();
        files.push(("copy.json".into(), dup));
        let errors = check(&files).errors.join("\n");
        assert!(
            errors.contains("broken.json: not a valid run record"),
            "{errors}"
        );
        assert!(
            errors.contains("extra.json: not a valid run record"),
            "{errors}"
        );
        assert!(
            errors.contains("copy.json: run id \"p1-pdf\" is used twice"),
            "{errors}"
        );
    }

    #[test]
    fn the_file_name_must_be_the_run_id() {
        let mut files: Vec<_> = fixture().iter().map(file).collect();
        files[1].0 = "p1-pdf-copy.json".into();
        let report = check(&files);
        assert_eq!(
            report.errors,
            [
                "p1-pdf-copy.json: the file name must be \"p1-webmcp.json\" (the record's run \
                 id, then .json)",
                "pair \"p1\" is incomplete: it has pdf (a pair needs one pdf run and one webmcp run)"
            ]
        );
    }

    #[test]
    fn an_impossible_stored_date_is_rejected() {
        let mut runs = fixture();
        runs[0].date = "2026-02-31".into();
        let errors = check(&runs.iter().map(file).collect::<Vec<_>>()).errors;
        assert!(
            errors[0].starts_with("p1-pdf.json: date \"2026-02-31\" must be a calendar date"),
            "{errors:?}"
        );
    }
}
