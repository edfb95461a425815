//! Recorded A/B runs: the record format, its validation and the honest summary
//! the page's Living Evidence section shows. Format: `docs/RUNS.md` and
//! `docs/run-record.schema.json`.
//!
//! Nothing here reads or writes files: the command reads `runs/*.json` and
//! hands the texts to [`check`].

use crate::scorer::{score, ScoreReport, FIELD_COUNT};
use meta_analysis::wilson_interval;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The value of every record's `schema` field.
pub const SCHEMA: &str = "exemplar-run/1";

/// What the page says when there are no records, and nothing else.
pub const NO_RUNS: &str = "No runs recorded.";

const SINGLE_RUN: &str =
    "A single run is descriptive and does not establish general model performance.";
const HANDFUL: &str = "A handful of runs cannot support a population-level accuracy claim.";
const HARNESS: &str = "The reference answers come from this project's own engine: the harness \
tests whether an agent executes the document-defined tasks, not the engine's validity.";

/// Fewer runs than this per condition count as "a handful".
const HANDFUL_BELOW: usize = 30;

/// The two conditions of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Condition {
    Pdf,
    Webmcp,
}

impl Condition {
    pub const BOTH: [Condition; 2] = [Condition::Pdf, Condition::Webmcp];

    pub fn name(self) -> &'static str {
        match self {
            Condition::Pdf => "pdf",
            Condition::Webmcp => "webmcp",
        }
    }

    pub fn parse(s: &str) -> Option<Condition> {
        Condition::BOTH.into_iter().find(|c| c.name() == s)
    }
}

/// Which of a replicate pair's two sessions ran first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    First,
    Second,
}

impl Order {
    pub fn parse(s: &str) -> Option<Order> {
        match s {
            "first" => Some(Order::First),
            "second" => Some(Order::Second),
            _ => None,
        }
    }
}

/// One recorded run (one file under `runs/`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    pub schema: String,
    pub run_id: String,
    /// ISO date, YYYY-MM-DD.
    pub date: String,
    pub condition: Condition,
    pub pair: String,
    pub order: Order,
    pub model: String,
    pub settings: String,
    pub host: String,
    /// The agent's raw answer, verbatim.
    pub answer: String,
    /// The scorer's report of `answer` (never typed by hand).
    pub score: Value,
    pub baseline_version: String,
    pub dataset_sha256: String,
    pub pdf_sha256: String,
    pub engine_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

/// What `exemplar record` is told about a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInput {
    pub date: String,
    pub condition: Condition,
    pub pair: String,
    pub order: Order,
    pub model: String,
    pub settings: String,
    pub host: String,
    pub latency_ms: Option<u64>,
    pub tokens: Option<u64>,
}

/// Why a run could not be recorded.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordError {
    BadPairId(String),
    BadDate(String),
    EmptyModel,
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::BadPairId(p) => write!(
                f,
                "pair id {p:?} must be 1 to 64 characters of letters, digits, '-' or '_'"
            ),
            RecordError::BadDate(d) => write!(f, "date {d:?} must be an ISO date, YYYY-MM-DD"),
            RecordError::EmptyModel => write!(f, "the agent model must be named (--model)"),
        }
    }
}

impl std::error::Error for RecordError {}

fn valid_pair_id(p: &str) -> bool {
    (1..=64).contains(&p.len())
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn valid_date(d: &str) -> bool {
    let b = d.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && (1..=12).contains(&d[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&d[8..10].parse::<u32>().unwrap_or(0))
}

/// Scores `answer` and builds the record of the current baseline. The run id is
/// `<pair>-<condition>`, so a pair holds one run per condition.
pub fn make_record(input: RunInput, answer: &str) -> Result<RunRecord, RecordError> {
    if !valid_pair_id(&input.pair) {
        return Err(RecordError::BadPairId(input.pair));
    }
    if !valid_date(&input.date) {
        return Err(RecordError::BadDate(input.date));
    }
    if input.model.trim().is_empty() {
        return Err(RecordError::EmptyModel);
    }
    let baseline = crate::baselines::current();
    Ok(RunRecord {
        schema: SCHEMA.into(),
        run_id: format!("{}-{}", input.pair, input.condition.name()),
        date: input.date,
        condition: input.condition,
        pair: input.pair,
        order: input.order,
        model: input.model,
        settings: input.settings,
        host: input.host,
        answer: answer.to_string(),
        score: score(answer).to_json(),
        baseline_version: baseline.version.into(),
        dataset_sha256: crate::dataset::sha256().into(),
        pdf_sha256: baseline.pdf_sha256.into(),
        engine_version: crate::ENGINE_VERSION.into(),
        latency_ms: input.latency_ms,
        tokens: input.tokens,
    })
}

/// The outcome of checking every record.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CheckReport {
    /// Each problem that makes the set invalid, naming its file.
    pub errors: Vec<String>,
    /// Problems that do not invalidate the set (an unbalanced order).
    pub warnings: Vec<String>,
    /// The records that passed their own checks.
    #[serde(skip)]
    pub runs: Vec<RunRecord>,
}

impl CheckReport {
    pub fn ok(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Checks `(file name, text)` pairs: the format, the stored score against a
/// fresh re-score, the baseline and hashes, unique ids, complete pairs with one
/// first and one second run, and alternation of the first condition across pairs.
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
        let problems = record_problems(&record);
        if !problems.is_empty() {
            for p in problems {
                report.errors.push(format!("{name}: {p}"));
            }
            continue;
        }
        if !ids.insert(record.run_id.clone()) {
            report
                .errors
                .push(format!("{name}: run id {:?} is used twice", record.run_id));
            continue;
        }
        report.runs.push(record);
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
    if r.run_id != format!("{}-{}", r.pair, r.condition.name()) {
        problems.push(format!(
            "run id {:?} should be {:?} (pair, then condition)",
            r.run_id,
            format!("{}-{}", r.pair, r.condition.name())
        ));
    }
    if !valid_date(&r.date) {
        problems.push(RecordError::BadDate(r.date.clone()).to_string());
    }
    if r.model.trim().is_empty() {
        problems.push(RecordError::EmptyModel.to_string());
    }
    if r.score != score(&r.answer).to_json() {
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

fn group_pairs(runs: &[RunRecord]) -> BTreeMap<String, Vec<&RunRecord>> {
    let mut pairs: BTreeMap<String, Vec<&RunRecord>> = BTreeMap::new();
    for r in runs {
        pairs.entry(r.pair.clone()).or_default().push(r);
    }
    pairs
}

/// How many complete pairs ran pdf first, and how many webmcp first.
fn first_condition_counts(pairs: &BTreeMap<String, Vec<&RunRecord>>) -> (usize, usize) {
    let firsts = pairs
        .values()
        .filter(|runs| runs.len() == 2)
        .filter_map(|runs| {
            runs.iter()
                .find(|r| r.order == Order::First)
                .map(|r| r.condition)
        });
    firsts.fold((0, 0), |(p, w), c| match c {
        Condition::Pdf => (p + 1, w),
        Condition::Webmcp => (p, w + 1),
    })
}

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

fn passed_count(score: &Value) -> Option<usize> {
    score["passed"].as_u64().map(|n| n as usize)
}

fn report_of(run: &RunRecord) -> Option<ScoreReport> {
    let report = score(&run.answer);
    report.parsed.then_some(report)
}

/// Summarises checked records (see [`check`]).
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
                let (p, w) = (passed_count(&pdf.score)?, passed_count(&web.score)?);
                Some(((*id).clone(), w as i64 - p as i64))
            })
            .collect();
        let full = |r: &RunRecord| passed_count(&r.score) == Some(FIELD_COUNT);
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
    let reports: Vec<ScoreReport> = mine.iter().filter_map(|r| report_of(r)).collect();
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
                correct: reports.iter().filter(|r| r.fields[i].pass).count(),
                of: parsed,
            })
            .collect(),
        mean_latency_ms: mean(&|r| r.latency_ms),
        mean_tokens: mean(&|r| r.tokens),
    }
}

impl Summary {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|e| json!({ "error": e.to_string() }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::reference_answer;

    fn input(pair: &str, condition: Condition, order: Order) -> RunInput {
        RunInput {
            date: "2026-11-30".into(),
            condition,
            pair: pair.into(),
            order,
            model: "model-x".into(),
            settings: "temperature 0".into(),
            host: "test host".into(),
            latency_ms: None,
            tokens: None,
        }
    }

    fn reference_text() -> String {
        serde_json::to_string(&reference_answer()).unwrap()
    }

    /// The reference answer with `k` wrong in the overall block: 12/13.
    fn one_wrong() -> String {
        let mut v: Value = serde_json::from_str(&reference_text()).unwrap();
        v["overall"]["k"] = json!(18);
        v.to_string()
    }

    fn file(r: &RunRecord) -> (String, String) {
        (
            format!("{}.json", r.run_id),
            serde_json::to_string_pretty(r).unwrap(),
        )
    }

    /// Three pairs: p1 (pdf first; pdf 12/13, webmcp 13/13), p2 (webmcp first; pdf parse
    /// failure, webmcp 13/13), p3 (pdf first; both 13/13).
    fn fixture() -> Vec<RunRecord> {
        use Condition::*;
        use Order::*;
        vec![
            make_record(input("p1", Pdf, First), &one_wrong()).unwrap(),
            make_record(input("p1", Webmcp, Second), &reference_text()).unwrap(),
            make_record(input("p2", Webmcp, First), &reference_text()).unwrap(),
            make_record(input("p2", Pdf, Second), "```json\n{}\n```").unwrap(),
            make_record(input("p3", Pdf, First), &reference_text()).unwrap(),
            make_record(input("p3", Webmcp, Second), &reference_text()).unwrap(),
        ]
    }

    #[test]
    fn no_records_say_only_no_runs_recorded() {
        let s = summarize(&[]);
        assert_eq!(s.empty_message, Some("No runs recorded."));
        assert!(s.conditions.is_empty() && s.notes.is_empty() && s.paired.is_none());
    }

    #[test]
    fn fixture_records_check_clean() {
        let files: Vec<_> = fixture().iter().map(file).collect();
        let report = check(&files);
        assert!(report.ok(), "{:?}", report.errors);
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert_eq!(report.runs.len(), 6);
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

    #[test]
    fn an_edited_score_is_rejected() {
        let mut runs = fixture();
        runs[0].score["passed"] = json!(13);
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
    fn record_inputs_are_validated() {
        let mut bad = input("p 1", Condition::Pdf, Order::First);
        assert!(matches!(
            make_record(bad.clone(), "{}"),
            Err(RecordError::BadPairId(_))
        ));
        bad.pair = "p1".into();
        bad.date = "30/11/2026".into();
        assert!(matches!(
            make_record(bad.clone(), "{}"),
            Err(RecordError::BadDate(_))
        ));
        bad.date = "2026-11-30".into();
        bad.model = " ".into();
        assert_eq!(make_record(bad, "{}"), Err(RecordError::EmptyModel));
    }
}
