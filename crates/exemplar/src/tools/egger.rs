//! `egger_test`: Egger's regression test and the registered rule.

use super::args::EggerArgs;
use super::data::{DataSource, DatasetInfo};
use super::ToolError;
use crate::protocol::{rule, RuleOutcome, RULE_TEXT};
use meta_analysis::{EggerResult, EggerVariant};
use serde::Serialize;

/// `egger_test`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct EggerTestResult {
    /// "classic" or "rma".
    pub variant: &'static str,
    /// Records tested.
    pub k: usize,
    /// The ids left out before the test.
    pub excluded: Vec<String>,
    /// Two-sided p value of the test.
    pub egger_p: f64,
    /// "t" (classic) or "z" (rma).
    pub statistic_name: &'static str,
    pub statistic: f64,
    /// k - 2 for classic; null for rma.
    pub df: Option<f64>,
    /// "intercept" (classic) or "slope on sqrt(vi)" (rma).
    pub coefficient_name: &'static str,
    pub coefficient: f64,
    /// Standard error of the coefficient.
    pub se: f64,
    /// tau^2 of the meta-regression (rma only, else null).
    pub tau2: Option<f64>,
    /// The registered rule, as text.
    pub rule: &'static str,
    /// The rule applied to egger_p.
    pub rule_outcome: RuleOutcome,
    pub dataset: DatasetInfo,
}

impl EggerTestResult {
    pub fn of(result: &EggerResult, excluded: Vec<String>, data: &DataSource) -> Self {
        let (statistic_name, coefficient_name) = match result.variant {
            EggerVariant::Classic => ("t", "intercept"),
            EggerVariant::Rma => ("z", "slope on sqrt(vi)"),
        };
        EggerTestResult {
            variant: result.variant.name(),
            k: result.k,
            excluded,
            egger_p: result.p,
            statistic_name,
            statistic: result.statistic,
            df: result.df,
            coefficient_name,
            coefficient: result.coefficient,
            se: result.se,
            tau2: result.tau2,
            rule: RULE_TEXT,
            rule_outcome: rule(result.p),
            dataset: data.info().clone(),
        }
    }
}

/// The test on the records left after `exclude`, with the ids left out.
pub fn run_egger(
    args: EggerArgs,
    data: &DataSource,
) -> Result<(EggerResult, Vec<String>), ToolError> {
    let excluded = data.exclusions(args.exclude)?;
    let kept = data.kept(&excluded);
    let variant = args.variant.unwrap_or(EggerVariant::Classic);
    Ok((meta_analysis::egger_test(&kept, variant)?, excluded))
}

/// `egger_test`
pub fn egger_test(args: EggerArgs, data: &DataSource) -> Result<EggerTestResult, ToolError> {
    let (result, excluded) = run_egger(args, data)?;
    Ok(EggerTestResult::of(&result, excluded, data))
}
