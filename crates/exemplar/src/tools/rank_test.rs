//! `rank_correlation_test`: Begg & Mazumdar's rank correlation test.

use super::args::ExcludeArgs;
use super::data::{DataSource, DatasetInfo};
use super::ToolError;
use serde::Serialize;

/// `rank_correlation_test`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RankTestResult {
    /// Records tested.
    pub k: usize,
    /// Kendall's tau (tau-b) between the standardized deviates and the sampling variances.
    pub tau: f64,
    /// Two-sided p value of tau = 0.
    pub p: f64,
    /// true: p from Kendall's exact distribution (k < 50, no ties); false: the normal
    /// approximation with the tie-corrected variance.
    pub exact: bool,
    pub dataset: DatasetInfo,
}

/// `rank_correlation_test`
pub fn rank_correlation_test(
    args: ExcludeArgs,
    data: &DataSource,
) -> Result<RankTestResult, ToolError> {
    let excluded = data.exclusions(args.exclude)?;
    let test = meta_analysis::rank_correlation_test(&data.kept(&excluded))?;
    Ok(RankTestResult {
        k: test.k,
        tau: test.tau,
        p: test.p,
        exact: test.exact,
        dataset: data.info().clone(),
    })
}
