//! Recorded A/B runs: the record format ([`record`](mod@record)), its validation ([`check`](mod@check)) and the
//! honest summary the page's Living Evidence section shows ([`summary`](mod@summary)). Format:
//! `docs/RUNS.md` and `docs/run-record.schema.json`.
//!
//! Nothing here reads or writes files: `exemplar-cli` reads `runs/*.json` (one reader for the
//! command and `cargo xtask build`) and hands the texts to [`check()`].

pub mod check;
pub mod record;
pub mod summary;

pub use check::{check, CheckReport};
pub use record::{make_record, RecordError, RunInput};
pub use summary::{summarize, ConditionSummary, FieldAccuracy, PairedSummary, Summary, NO_RUNS};

use crate::scorer::ScoreReport;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// The value of every record's `schema` field.
pub const SCHEMA: &str = "exemplar-run/1";

/// The two conditions of the comparison. [`Condition::name`] is the one spelling, in records,
/// on the command line and on the page; serde, `Display` and `FromStr` all use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum Condition {
    Pdf,
    Webmcp,
}

impl Condition {
    pub const BOTH: [Condition; 2] = [Condition::Pdf, Condition::Webmcp];

    pub const fn name(self) -> &'static str {
        match self {
            Condition::Pdf => "pdf",
            Condition::Webmcp => "webmcp",
        }
    }

    /// How the page and the summary name it for a reader.
    pub const fn label(self) -> &'static str {
        match self {
            Condition::Pdf => "PDF",
            Condition::Webmcp => "WebMCP",
        }
    }
}

/// Which of a replicate pair's two sessions ran first. Spelled as [`Order::name`] everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum Order {
    First,
    Second,
}

impl Order {
    pub const BOTH: [Order; 2] = [Order::First, Order::Second];

    pub const fn name(self) -> &'static str {
        match self {
            Order::First => "first",
            Order::Second => "second",
        }
    }
}

/// A word that names no variant of a [`Condition`] or an [`Order`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    pub what: &'static str,
    pub got: String,
    pub expected: [&'static str; 2],
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b] = self.expected;
        write!(f, "{} {:?} must be {a} or {b}", self.what, self.got)
    }
}

impl std::error::Error for UnknownName {}

/// Display, FromStr and the serde conversions of an enum from its `BOTH` and `name`.
macro_rules! spelled_by_name {
    ($enum:ident, $what:literal) => {
        impl fmt::Display for $enum {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $enum {
            type Err = UnknownName;
            fn from_str(s: &str) -> Result<Self, UnknownName> {
                $enum::BOTH
                    .into_iter()
                    .find(|v| v.name() == s)
                    .ok_or_else(|| UnknownName {
                        what: $what,
                        got: s.to_string(),
                        expected: $enum::BOTH.map($enum::name),
                    })
            }
        }

        impl From<$enum> for &'static str {
            fn from(v: $enum) -> &'static str {
                v.name()
            }
        }

        impl TryFrom<String> for $enum {
            type Error = UnknownName;
            fn try_from(s: String) -> Result<Self, UnknownName> {
                s.parse()
            }
        }
    };
}

spelled_by_name!(Condition, "condition");
spelled_by_name!(Order, "order");

/// One recorded run (one file under `runs/`, named `<run_id>.json`).
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
    /// The scorer's report of `answer` (never typed by hand; [`check()`] re-scores it).
    #[serde(deserialize_with = "exact_score")]
    pub score: ScoreReport,
    pub baseline_version: String,
    pub dataset_sha256: String,
    pub pdf_sha256: String,
    pub engine_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

impl RunRecord {
    /// What the record's file must be called.
    pub fn file_name(&self) -> String {
        format!("{}.json", self.run_id)
    }
}

/// The stored score, exactly as the scorer writes it: a field the scorer never writes, or one
/// left out (which serde would fill in), is an edit, not a report.
fn exact_score<'de, D: Deserializer<'de>>(deserializer: D) -> Result<ScoreReport, D::Error> {
    let stored = Value::deserialize(deserializer)?;
    let report: ScoreReport =
        serde_json::from_value(stored.clone()).map_err(serde::de::Error::custom)?;
    if serde_json::to_value(&report).ok().as_ref() != Some(&stored) {
        return Err(serde::de::Error::custom(
            "the score has fields the scorer does not write, or lacks some; scores are never \
             edited by hand",
        ));
    }
    Ok(report)
}

/// The run id of a pair's run in a condition: `<pair>-<condition>`.
fn run_id(pair: &str, condition: Condition) -> String {
    format!("{pair}-{condition}")
}

fn valid_pair_id(p: &str) -> bool {
    (1..=64).contains(&p.len())
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A calendar date written YYYY-MM-DD (from 1970 on), checked by `humantime`'s calendar:
/// 2026-02-31 is refused.
fn valid_date(d: &str) -> bool {
    d.len() == 10 && humantime::parse_rfc3339(&format!("{d}T00:00:00Z")).is_ok()
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

/// Records for the tests of all three modules.
#[cfg(test)]
mod fixtures {
    use super::*;
    use crate::protocol::reference_answer;
    use serde_json::json;

    pub fn input(pair: &str, condition: Condition, order: Order) -> RunInput {
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

    pub fn reference_text() -> String {
        serde_json::to_string(&reference_answer()).unwrap()
    }

    /// The reference answer with `k` wrong in the overall block: 12/13.
    pub fn one_wrong() -> String {
        let mut v: Value = serde_json::from_str(&reference_text()).unwrap();
        v["overall"]["k"] = json!(18);
        v.to_string()
    }

    pub fn file(r: &RunRecord) -> (String, String) {
        (r.file_name(), serde_json::to_string_pretty(r).unwrap())
    }

    /// Three pairs: p1 (pdf first; pdf 12/13, webmcp 13/13), p2 (webmcp first; pdf parse
    /// failure, webmcp 13/13), p3 (pdf first; both 13/13).
    pub fn fixture() -> Vec<RunRecord> {
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
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn each_spelling_is_the_same_in_json_display_and_from_str() {
        for c in Condition::BOTH {
            assert_eq!(serde_json::to_value(c).unwrap(), c.to_string());
            assert_eq!(c.to_string().parse::<Condition>(), Ok(c));
            assert_eq!(
                serde_json::from_value::<Condition>(c.to_string().into()).unwrap(),
                c
            );
        }
        for o in Order::BOTH {
            assert_eq!(serde_json::to_value(o).unwrap(), o.to_string());
            assert_eq!(o.to_string().parse::<Order>(), Ok(o));
        }
        assert_eq!(Condition::BOTH.map(|c| c.to_string()), ["pdf", "webmcp"]);
        assert_eq!(Order::BOTH.map(|o| o.to_string()), ["first", "second"]);
        let err = "paper".parse::<Condition>().unwrap_err().to_string();
        assert_eq!(err, "condition \"paper\" must be pdf or webmcp");
        assert!(serde_json::from_str::<Order>("\"third\"")
            .unwrap_err()
            .to_string()
            .contains("order \"third\" must be first or second"));
    }

    #[test]
    fn dates_are_checked_against_the_calendar() {
        for good in ["2026-11-30", "2028-02-29", "2000-02-29", "1970-01-01"] {
            assert!(valid_date(good), "{good}");
        }
        for bad in [
            "2026-02-31",
            "2025-02-29",
            "2100-02-29",
            "2026-04-31",
            "2026-13-01",
            "2026-00-10",
            "2026-01-00",
            "30/11/2026",
            "2026-11-30T00:00:00Z",
            "2026-11-3",
            "",
        ] {
            assert!(!valid_date(bad), "{bad}");
        }
    }

    #[test]
    fn a_stored_score_reads_back_as_the_scorers_report() {
        for r in fixture() {
            let (_, text) = file(&r);
            let back: RunRecord = serde_json::from_str(&text).unwrap();
            assert_eq!(back.score, crate::scorer::score(&r.answer));
            assert_eq!(back, r);
        }
    }

    #[test]
    fn a_score_with_an_added_or_missing_field_is_not_a_report() {
        let (_, text) = file(&fixture()[0]);
        let mut v: Value = serde_json::from_str(&text).unwrap();
        v["score"]["note"] = "hand-edited".into();
        let e = serde_json::from_value::<RunRecord>(v.clone()).unwrap_err();
        assert!(e.to_string().contains("never edited by hand"), "{e}");
        let mut v: Value = serde_json::from_str(&text).unwrap();
        v["score"].as_object_mut().unwrap().remove("parse_error");
        assert!(serde_json::from_value::<RunRecord>(v).is_err());
    }
}
