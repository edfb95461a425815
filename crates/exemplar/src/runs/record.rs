//! Making a run record: what `exemplar record` is told, checked, scored by the one scorer and
//! stamped with the current baseline.

use super::{run_id, valid_date, valid_pair_id, Condition, Order, RunRecord, SCHEMA};
use crate::scorer::score;

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
            RecordError::BadDate(d) => write!(
                f,
                "date {d:?} must be a calendar date written YYYY-MM-DD (from 1970 on)"
            ),
            RecordError::EmptyModel => write!(f, "the agent model must be named (--model)"),
        }
    }
}

impl std::error::Error for RecordError {}

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
        run_id: run_id(&input.pair, input.condition),
        date: input.date,
        condition: input.condition,
        pair: input.pair,
        order: input.order,
        model: input.model,
        settings: input.settings,
        host: input.host,
        answer: answer.to_string(),
        score: score(answer),
        baseline_version: baseline.version.into(),
        dataset_sha256: crate::dataset::sha256().into(),
        pdf_sha256: baseline.pdf_sha256.into(),
        engine_version: crate::ENGINE_VERSION.into(),
        latency_ms: input.latency_ms,
        tokens: input.tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::input;
    use super::*;

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

    #[test]
    fn an_impossible_date_is_refused_by_name() {
        let mut bad = input("p1", Condition::Pdf, Order::First);
        bad.date = "2026-02-31".into();
        let e = make_record(bad, "{}").unwrap_err();
        assert_eq!(e, RecordError::BadDate("2026-02-31".into()));
        assert!(e.to_string().contains("\"2026-02-31\""), "{e}");
    }

    #[test]
    fn the_record_carries_the_scorers_report() {
        let r = make_record(input("p1", Condition::Webmcp, Order::First), "{}").unwrap();
        assert_eq!(r.run_id, "p1-webmcp");
        assert_eq!(r.file_name(), "p1-webmcp.json");
        assert_eq!(r.score, score("{}"));
    }
}
