//! `fail_safe_n`: Rosenthal's, Orwin's and Rosenberg's fail-safe N.

use super::args::FailSafeArgs;
use super::data::{DataSource, DatasetInfo};
use super::{ErrorCode, ToolError};
use serde::Serialize;

/// The default significance level.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// `fail_safe_n`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FailSafeResult {
    /// "Rosenthal", "Orwin" or "Rosenberg".
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The fail-safe number of null studies.
    pub fsn: u64,
    /// Significance level (used by Rosenthal and Rosenberg).
    pub alpha: f64,
    /// Orwin: the effect the mean is brought down to (default half the mean effect); null
    /// for the other types.
    pub target: Option<f64>,
    /// Rosenthal: one-sided p value of Stouffer's combined z; Rosenberg: two-sided p value of
    /// the equal-effects estimate; null for Orwin.
    pub observed_p: Option<f64>,
    /// Orwin: the unweighted mean effect; Rosenberg: the equal-effects estimate; null for
    /// Rosenthal.
    pub observed_effect: Option<f64>,
    pub dataset: DatasetInfo,
}

/// `fail_safe_n`
pub fn fail_safe_n(args: FailSafeArgs, data: &DataSource) -> Result<FailSafeResult, ToolError> {
    let alpha = args.alpha.unwrap_or(DEFAULT_ALPHA);
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("alpha must be strictly between 0 and 1 (for example 0.05), got {alpha}"),
        ));
    }
    let kind = args.kind.unwrap_or_default();
    if args.target.is_some() && kind != meta_analysis::FailSafeType::Orwin {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "target applies only to type \"Orwin\", not to \"{}\"",
                kind.name()
            ),
        ));
    }
    let excluded = data.exclusions(args.exclude)?;
    let n = meta_analysis::fail_safe_n(&data.kept(&excluded), kind, alpha, args.target)?;
    Ok(FailSafeResult {
        kind: n.kind.name(),
        fsn: n.fsn,
        alpha: n.alpha,
        target: n.target,
        observed_p: n.observed_p,
        observed_effect: n.observed_effect,
        dataset: data.info().clone(),
    })
}
