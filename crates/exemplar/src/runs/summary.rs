//! The Living Evidence summary of checked records, in wording that follows the numbers. It
//! reads each record's stored score, which [`check`](super::check()) has compared with a
//! fresh score of the stored answer.

use super::{first_condition_counts, group_pairs, Condition, RunRecord};
use crate::scorer::{ScoreReport, FIELD_COUNT};
use meta_analysis::wilson_interval;
use serde::Serialize;
use serde_json::{json, Value};

/// What the page says when there are no records, and nothing else.
pub const NO_RUNS: &str = "No runs recorded.";

const SINGLE_RUN: &str =
    "A single run is descriptive and does not establish general model performance.";
const HANDFUL: &str = "A handful of runs cannot support a population-level accuracy claim.";
const HARNESS: &str = "The reference answers come from this project's own engine: the harness \
tests whether an agent executes the document-defined tasks, not the engine's validity.";

/// Fewer runs than this per condition count as "a handful".
const HANDFUL_BELOW: usize = 30;

/// The summary of one condition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConditionSummary {
    pub condition: Condition,
    pub runs: usize,
    pub parse_failures: usize,
    /// Mean fields correct out of 13 over the runs that parsed (`None` if none did).
    pub mean_fields_correct: Option<f64>,
    /// Runs scoring 13/13, over all runs (a parse failure is not fully correct).
    pub fully_correct: usize,
    pub fully_correct_rate: Option<f64>,
    /// Wilson 95% interval of that rate.
    pub fully_correct_wilson95: Option<(f64, f64)>,
    /// Per field: the share of parsed runs that got it right.
    pub field_accuracy: Vec<FieldAccuracy>,
    pub mean_latency_ms: Option<f64>,
    pub mean_tokens: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldAccuracy {
    pub path: String,
    pub correct: usize,
    pub of: usize,
}

/// The paired comparison over complete replicate pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedSummary {
    pub complete_pairs: usize,
    /// webmcp − pdf fields correct, for pairs where both answers parsed, by pair id.
    pub differences: Vec<(String, i64)>,
    pub mean_difference: Option<f64>,
    /// Pairs where only the webmcp answer was fully correct.
    pub only_webmcp_fully_correct: usize,
    /// Pairs where only the pdf answer was fully correct.
    pub only_pdf_fully_correct: usize,
    pub pdf_first: usize,
    pub webmcp_first: usize,
    pub order_alternated: bool,
}

/// The summary the page shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub total_runs: usize,
    /// Exactly "No runs recorded." when there are none; otherwise null.
    pub empty_message: Option<&'static str>,
    pub conditions: Vec<ConditionSummary>,
    pub paired: Option<PairedSummary>,
    /// Whether every run of both conditions carries latency and tokens.
    pub cost_comparable: bool,
    /// Honest wording driven by the numbers.
    pub notes: Vec<&'static str>,
}

impl Summary {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|e| json!({ "error": e.to_string() }))
    }
}

/// The stored report of a run whose answer parsed.
fn parsed_report(run: &RunRecord) -> Option<&ScoreReport> {
    run.score.parsed.then_some(&run.score)
}

/// Summarises checked records (see [`check`](super::check())).
pub fn summarize(runs: &[RunRecord]) -> Summary {
    if runs.is_empty() {
        return Summary {
            total_runs: 0,
            empty_message: Some(NO_RUNS),
            conditions: Vec::new(),
            paired: None,
            cost_comparable: false,
            notes: Vec::new(),
        };
    }
    let cost_comparable = runs
        .iter()
        .all(|r| r.latency_ms.is_some() && r.tokens.is_some())
        && Condition::BOTH
            .iter()
            .all(|c| runs.iter().any(|r| r.condition == *c));
    let conditions: Vec<ConditionSummary> = Condition::BOTH
        .iter()
        .map(|&c| summarize_condition(c, runs, cost_comparable))
        .collect();
    let pairs = group_pairs(runs);
    let complete: Vec<(&String, &RunRecord, &RunRecord)> = pairs
        .iter()
        .filter_map(|(id, rs)| {
            let pdf = rs.iter().find(|r| r.condition == Condition::Pdf)?;
            let web = rs.iter().find(|r| r.condition == Condition::Webmcp)?;
            Some((id, *pdf, *web))
        })
        .collect();
    let paired = (!complete.is_empty()).then(|| {
        let differences: Vec<(String, i64)> = complete
            .iter()
            .filter_map(|(id, pdf, web)| {
                let (p, w) = (pdf.score.passed?, web.score.passed?);
                Some(((*id).clone(), w as i64 - p as i64))
            })
            .collect();
        let full = |r: &RunRecord| r.score.passed == Some(FIELD_COUNT);
        let (pdf_first, webmcp_first) = first_condition_counts(&pairs);
        PairedSummary {
            complete_pairs: complete.len(),
            mean_difference: (!differences.is_empty()).then(|| {
                differences.iter().map(|(_, d)| *d as f64).sum::<f64>() / differences.len() as f64
            }),
            differences,
            only_webmcp_fully_correct: complete
                .iter()
                .filter(|(_, p, w)| full(w) && !full(p))
                .count(),
            only_pdf_fully_correct: complete
                .iter()
                .filter(|(_, p, w)| full(p) && !full(w))
                .count(),
            pdf_first,
            webmcp_first,
            order_alternated: pdf_first.abs_diff(webmcp_first) <= 1,
        }
    });
    let mut notes = Vec::new();
    let fewest = conditions.iter().map(|c| c.runs).min().unwrap_or(0);
    if runs.len() == 1 || fewest <= 1 {
        notes.push(SINGLE_RUN);
    }
    if fewest < HANDFUL_BELOW {
        notes.push(HANDFUL);
    }
    notes.push(HARNESS);
    Summary {
        total_runs: runs.len(),
        empty_message: None,
        conditions,
        paired,
        cost_comparable,
        notes,
    }
}

fn summarize_condition(c: Condition, runs: &[RunRecord], cost: bool) -> ConditionSummary {
    let mine: Vec<&RunRecord> = runs.iter().filter(|r| r.condition == c).collect();
    let reports: Vec<&ScoreReport> = mine.iter().filter_map(|r| parsed_report(r)).collect();
    let parsed = reports.len();
    let fully = reports
        .iter()
        .filter(|r| r.passed == Some(FIELD_COUNT))
        .count();
    let n = mine.len();
    let mean = |f: &dyn Fn(&RunRecord) -> Option<u64>| -> Option<f64> {
        (cost && n > 0).then(|| mine.iter().filter_map(|r| f(r)).sum::<u64>() as f64 / n as f64)
    };
    let paths: Vec<String> = reports
        .first()
        .map(|r| r.fields.iter().map(|f| f.path.clone()).collect())
        .unwrap_or_default();
    ConditionSummary {
        condition: c,
        runs: n,
        parse_failures: n - parsed,
        mean_fields_correct: (parsed > 0).then(|| {
            reports
                .iter()
                .map(|r| r.passed.unwrap_or(0) as f64)
                .sum::<f64>()
                / parsed as f64
        }),
        fully_correct: fully,
        fully_correct_rate: (n > 0).then(|| fully as f64 / n as f64),
        fully_correct_wilson95: wilson_interval(fully as u64, n as u64, 0.95),
        field_accuracy: paths
            .iter()
            .enumerate()
            .map(|(i, path)| FieldAccuracy {
                path: path.clone(),
                correct: reports
                    .iter()
                    .filter(|r| r.fields.get(i).is_some_and(|f| f.pass))
                    .count(),
                of: parsed,
            })
            .collect(),
        mean_latency_ms: mean(&|r| r.latency_ms),
        mean_tokens: mean(&|r| r.tokens),
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::super::{make_record, Order};
    use super::*;

    #[test]
    fn no_records_say_only_no_runs_recorded() {
        let s = summarize(&[]);
        assert_eq!(s.empty_message, Some("No runs recorded."));
        assert!(s.conditions.is_empty() && s.notes.is_empty() && s.paired.is_none());
    }

    #[test]
    fn summary_matches_hand_computed_values() {
        let s = summarize(&fixture());
        assert_eq!(s.total_runs, 6);
        let pdf = &s.conditions[0];
        assert_eq!((pdf.runs, pdf.parse_failures, pdf.fully_correct), (3, 1, 1));
        assert_eq!(pdf.mean_fields_correct, Some(12.5)); // (12 + 13) / 2 parsed runs
        assert_eq!(pdf.fully_correct_rate, Some(1.0 / 3.0));
        // Wilson 95% for 1/3, by hand: centre (1/3 + z²/6)/(1 + z²/3), etc.
        let z2 = 1.959963984540054f64.powi(2);
        let (n, p) = (3.0, 1.0 / 3.0);
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = (z2.sqrt() / (1.0 + z2 / n)) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        let (lo, hi) = pdf.fully_correct_wilson95.unwrap();
        assert!((lo - (centre - half)).abs() < 1e-15 && (hi - (centre + half)).abs() < 1e-15);
        let k_field = pdf
            .field_accuracy
            .iter()
            .find(|f| f.path == "overall.k")
            .unwrap();
        assert_eq!((k_field.correct, k_field.of), (1, 2));
        let web = &s.conditions[1];
        assert_eq!((web.runs, web.parse_failures, web.fully_correct), (3, 0, 3));
        assert_eq!(web.mean_fields_correct, Some(13.0));
        let paired = s.paired.unwrap();
        assert_eq!(paired.complete_pairs, 3);
        // p1: 13 − 12 = 1; p2 excluded (pdf did not parse); p3: 0.
        assert_eq!(paired.differences, vec![("p1".into(), 1), ("p3".into(), 0)]);
        assert_eq!(paired.mean_difference, Some(0.5));
        assert_eq!(
            (
                paired.only_webmcp_fully_correct,
                paired.only_pdf_fully_correct
            ),
            (2, 0)
        );
        assert_eq!((paired.pdf_first, paired.webmcp_first), (2, 1));
        assert!(paired.order_alternated);
        assert!(!s.cost_comparable);
        assert!(s.notes.contains(&HANDFUL) && s.notes.contains(&HARNESS));
        assert!(!s.notes.contains(&SINGLE_RUN));
    }

    #[test]
    fn the_summary_of_checked_files_reads_their_stored_scores() {
        let files: Vec<_> = fixture().iter().map(file).collect();
        let report = super::super::check(&files);
        assert!(report.ok(), "{:?}", report.errors);
        assert_eq!(summarize(&report.runs), summarize(&fixture()));
    }

    #[test]
    fn a_single_run_says_so() {
        let one = vec![make_record(input("p1", Condition::Pdf, Order::First), "{}").unwrap()];
        assert!(summarize(&one).notes.contains(&SINGLE_RUN));
    }

    #[test]
    fn cost_is_compared_only_when_every_run_has_it() {
        let mut runs = fixture();
        for r in &mut runs {
            r.latency_ms = Some(1000);
            r.tokens = Some(500);
        }
        let s = summarize(&runs);
        assert!(s.cost_comparable);
        assert_eq!(s.conditions[0].mean_latency_ms, Some(1000.0));
        runs[0].tokens = None;
        let s = summarize(&runs);
        assert!(!s.cost_comparable);
        assert_eq!(s.conditions[0].mean_tokens, None);
    }
}
