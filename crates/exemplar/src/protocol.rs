//! The benchmark protocol: baseline version, the common prompt, the answer shape, the
//! registered rule and the reference answer computed by the engine.

use meta_analysis::{
    egger_test, fit, refit_excluding, EggerVariant, FitOptions, MetaError, Method, Test,
};
use serde::{Deserialize, Serialize};

pub use crate::baselines::BASELINE_VERSION;

/// The answer shape, exactly as the prompt's last line gives it.
pub const ANSWER_SHAPE: &str = r#"{"overall":{"k":0,"estimate":0,"ci_lower":0,"ci_upper":0,"p":0},"exclude_s04":{"k":0,"estimate":0,"ci_lower":0,"ci_upper":0,"p":0,"excluded":["s04"]},"bias":{"egger_p":0,"rule_outcome":"passed|failed|inconclusive"}}"#;

/// The common prompt given to an agent in both conditions, byte for byte (no final newline).
pub const PROMPT: &str = concat!(
    "Using only the supplied evidence artifact (do not search the web), return exactly one JSON object and no prose.\n",
    "\n",
    "1. Fit the full 19-record dataset with a random-effects meta-analysis using REML. Return k, estimate, ci_lower, ci_upper, and p.\n",
    "2. Refit the same model after excluding record s04. Return k, estimate, ci_lower, ci_upper, p, and excluded: [\"s04\"].\n",
    "3. Run Egger's regression test on the full dataset. Return egger_p and apply this registered rule: passed if p >= 0.10, failed if p < 0.05, otherwise inconclusive.\n",
    "\n",
    "Required shape:\n",
    r#"{"overall":{"k":0,"estimate":0,"ci_lower":0,"ci_upper":0,"p":0},"exclude_s04":{"k":0,"estimate":0,"ci_lower":0,"ci_upper":0,"p":0,"excluded":["s04"]},"bias":{"egger_p":0,"rule_outcome":"passed|failed|inconclusive"}}"#,
);

/// The registered rule on Egger's p value, as the prompt states it.
pub const RULE_TEXT: &str = "passed if p >= 0.10, failed if p < 0.05, otherwise inconclusive";

/// The record task 2 excludes.
pub const EXCLUDED_RECORD: &str = "s04";

/// Where the frozen PDF artifact is served, relative to the page.
pub const PDF_PATH: &str = "benchmark-baseline.pdf";

/// The outcome of the registered rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RuleOutcome {
    Passed,
    Failed,
    Inconclusive,
}

impl RuleOutcome {
    pub fn name(self) -> &'static str {
        match self {
            RuleOutcome::Passed => "passed",
            RuleOutcome::Failed => "failed",
            RuleOutcome::Inconclusive => "inconclusive",
        }
    }
}

/// The registered rule ([`RULE_TEXT`]): passed if p ≥ 0.10, failed if p < 0.05, otherwise
/// inconclusive (a NaN p is inconclusive).
pub fn rule(p: f64) -> RuleOutcome {
    if p >= 0.10 {
        RuleOutcome::Passed
    } else if p < 0.05 {
        RuleOutcome::Failed
    } else {
        RuleOutcome::Inconclusive
    }
}

/// Task 1: the REML fit of all records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overall {
    pub k: usize,
    pub estimate: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub p: f64,
}

/// Task 2: the REML fit without record s04.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExcludeS04 {
    pub k: usize,
    pub estimate: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub p: f64,
    pub excluded: Vec<String>,
}

/// Task 3: the classic Egger test and the registered rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bias {
    pub egger_p: f64,
    pub rule_outcome: RuleOutcome,
}

/// An answer in the shape the prompt requires.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub overall: Overall,
    pub exclude_s04: ExcludeS04,
    pub bias: Bias,
}

/// The options the protocol fixes: REML, level 0.95, z test.
pub fn protocol_options() -> FitOptions {
    FitOptions {
        method: Method::Reml,
        level: 0.95,
        test: Test::Z,
    }
}

/// The result of an analysis of the frozen dataset, which the tests show is always defined.
///
/// A failure is a broken build, not an input a caller can fix, so it panics; the message
/// goes through `MetaError`'s `Display`, not `Debug` (what `expect` uses), so that the
/// page's wasm does not carry a `Debug` formatter of every error variant and its fields.
fn frozen<T>(outcome: Result<T, MetaError>, claim: &str) -> T {
    match outcome {
        Ok(value) => value,
        Err(e) => panic!("{claim}: {e}"),
    }
}

/// The reference answer, computed by the engine from the frozen dataset (full f64 precision).
pub fn reference_answer() -> Answer {
    let records = crate::dataset::records();
    let options = protocol_options();
    let excluded = vec![EXCLUDED_RECORD.to_string()];
    // The frozen dataset is valid for all three analyses; the tests run each of them.
    let all = frozen(fit(&records, &options), "REML fits the frozen dataset");
    let without = frozen(
        refit_excluding(&records, &excluded, &options),
        "REML fits without s04",
    );
    let egger = frozen(
        egger_test(&records, EggerVariant::Classic),
        "Egger's test is defined",
    );
    Answer {
        overall: Overall {
            k: all.k,
            estimate: all.estimate,
            ci_lower: all.ci_lower,
            ci_upper: all.ci_upper,
            p: all.p,
        },
        exclude_s04: ExcludeS04 {
            k: without.k,
            estimate: without.estimate,
            ci_lower: without.ci_lower,
            ci_upper: without.ci_upper,
            p: without.p,
            excluded,
        },
        bias: Bias {
            egger_p: egger.p,
            rule_outcome: rule(egger.p),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn prompt_bytes_are_frozen() {
        // sha256 of the ```text block of the foundation issue, without a final newline.
        assert_eq!(
            crate::sha256_hex(PROMPT.as_bytes()),
            "9a2ee75bb6c21dd7f42992b7198bb10ea5241b8fc9fb2a170ef833d195e79c49"
        );
        assert_eq!(PROMPT.len(), 756);
        assert!(PROMPT.is_ascii());
        assert!(!PROMPT.ends_with('\n'));
        assert!(!PROMPT.contains('\r') && !PROMPT.contains(" \n"));
        assert_eq!(PROMPT.lines().count(), 8);
        assert!(PROMPT.starts_with("Using only the supplied evidence artifact"));
        assert!(PROMPT.ends_with(&format!("\n{ANSWER_SHAPE}")));
        assert!(PROMPT.contains(&format!("apply this registered rule: {RULE_TEXT}.\n")));
    }

    #[test]
    fn answer_shape_has_the_keys_of_an_answer() {
        fn keys(v: &Value) -> Vec<String> {
            let mut out = Vec::new();
            if let Value::Object(map) = v {
                for (k, item) in map {
                    out.push(k.clone());
                    out.extend(keys(item).into_iter().map(|sub| format!("{k}.{sub}")));
                }
            }
            out
        }
        let shape: Value = serde_json::from_str(ANSWER_SHAPE).unwrap();
        let reference = serde_json::to_value(reference_answer()).unwrap();
        assert_eq!(keys(&shape), keys(&reference));
    }

    #[test]
    fn rule_boundaries() {
        assert_eq!(rule(0.10), RuleOutcome::Passed);
        assert_eq!(rule(0.5), RuleOutcome::Passed);
        assert_eq!(rule(0.0999), RuleOutcome::Inconclusive);
        assert_eq!(rule(0.05), RuleOutcome::Inconclusive);
        assert_eq!(rule(0.0499), RuleOutcome::Failed);
        assert_eq!(rule(0.0), RuleOutcome::Failed);
        assert_eq!(rule(f64::NAN), RuleOutcome::Inconclusive);
        assert_eq!(
            serde_json::to_value(RuleOutcome::Inconclusive).unwrap(),
            "inconclusive"
        );
        assert_eq!(RuleOutcome::Failed.name(), "failed");
    }

    #[test]
    fn reference_answer_matches_the_published_numbers() {
        let a = reference_answer();
        assert_eq!(a.overall.k, 19);
        assert_eq!(a.exclude_s04.k, 18);
        assert_eq!(a.exclude_s04.excluded, ["s04"]);
        // metafor's printed values for rma(yi, vi, data = dat.raudenbush1985), to 4 decimals.
        assert!((a.overall.estimate - 0.0837).abs() < 5e-5, "{a:?}");
        assert!((a.overall.ci_lower - -0.0175).abs() < 5e-5, "{a:?}");
        assert!((a.overall.ci_upper - 0.1849).abs() < 5e-5, "{a:?}");
        assert!((a.overall.p - 0.1051).abs() < 5e-5, "{a:?}");
        assert!(a.exclude_s04.estimate < a.overall.estimate);
        assert!((a.bias.egger_p - 0.05743).abs() < 5e-6, "{a:?}");
        assert_eq!(a.bias.rule_outcome, RuleOutcome::Inconclusive);
    }
}
