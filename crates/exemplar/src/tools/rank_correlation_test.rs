//! `rank_correlation_test`: Begg & Mazumdar's rank correlation test.

use super::args::{DataArg, ExcludeArg};
use super::data::{DataSource, DatasetInfo};
use super::{Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
use serde::{Deserialize, Serialize};

pub static RANK_CORRELATION_TEST: Tool = Tool {
    name: "rank_correlation_test",
    title: "Rank correlation test (Begg & Mazumdar)",
    summary: "Begg and Mazumdar's rank correlation test for funnel-plot asymmetry (Kendall's tau).",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Begg & Mazumdar's rank correlation test, as metafor's ranktest(): Kendall's tau \
between standardized deviates and vi; exact p when k < {} without ties, else normal. Needs 3 \
records, vi not all equal.",
            meta_analysis::EXACT_BELOW,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(rank_correlation_test),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![json!({}), json!({"records": examples::records()})]
}

/// `rank_correlation_test`'s arguments: `exclude` (and `records`).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RankTestArgs {
    #[serde(flatten)]
    pub exclude: ExcludeArg,
    #[serde(flatten)]
    pub _data: DataArg,
}

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
    args: RankTestArgs,
    data: &DataSource,
) -> Result<RankTestResult, ToolError> {
    let excluded = args.exclude.of(data)?;
    let test = meta_analysis::rank_correlation_test(&data.kept(&excluded))?;
    Ok(RankTestResult {
        k: test.k,
        tau: test.tau,
        p: test.p,
        exact: test.exact,
        dataset: data.info().clone(),
    })
}
