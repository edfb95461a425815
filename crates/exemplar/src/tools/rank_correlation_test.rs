//! `rank_correlation_test`: Begg & Mazumdar's rank correlation test.

use super::args::{DataArg, ExcludeArg};
use super::data::{DataSource, DatasetInfo};
use super::{Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
use crate::printed::{f4, pval, Out, Printed};
use serde::Serialize;

pub static RANK_CORRELATION_TEST: Tool = Tool {
    name: "rank_correlation_test",
    title: "Rank correlation test (Begg & Mazumdar)",
    summary: "Funnel-plot asymmetry tested by Kendall's tau.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "As metafor's ranktest(): Kendall's tau between standardized deviates and vi; exact \
p when k < {} without ties, else normal. Needs 3 records, vi not all equal.",
            meta_analysis::EXACT_BELOW,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(rank_correlation_test; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![json!({}), json!({"records": examples::records()})]
}

composed_args! {
    /// `rank_correlation_test`'s arguments: `exclude` (and `records`).
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct RankTestArgs {
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
    }
}

/// `rank_correlation_test`'s result: the engine's test and the data.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RankTestResult {
    #[serde(flatten)]
    pub test: meta_analysis::RankTest,
    pub dataset: DatasetInfo,
}

/// `rank_correlation_test`
pub fn rank_correlation_test(
    args: RankTestArgs,
    data: &DataSource,
) -> Result<RankTestResult, ToolError> {
    let excluded = args.exclude.of(data)?;
    Ok(RankTestResult {
        test: meta_analysis::rank_correlation_test(&data.kept(&excluded))?,
        dataset: data.info().clone(),
    })
}

impl Printed for RankTestResult {
    /// `print.ranktest`, after a headline.
    fn print(&self, out: &mut Out) {
        let test = &self.test;
        let line = format!(
            "Kendall's tau = {}, p {}",
            f4(Some(test.tau)),
            pval(Some(test.p), true, false)
        );
        out.line(format!(
            "Rank correlation test: {line} (k = {}{})",
            test.k,
            if test.exact { ", exact" } else { "" }
        ));
        out.blank();
        out.line("Rank Correlation Test for Funnel Plot Asymmetry");
        out.blank();
        out.line(line);
    }
}

/// `ranktest(yi, vi)`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for RankTestArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        let mut args = vec!["yi".to_string(), "vi".into(), "data = dat".into()];
        args.extend(super::reproduce::record_arguments(cx, &self.exclude.exclude));
        out.script.line(format!(
            "res <- {}",
            crate::rcode::Script::call("ranktest", &args)
        ));
        out.check_at("res$tau", cx.result, "/tau")
            .check_at("res$pval", cx.result, "/p");
        out.methods.say(
            "Funnel plot asymmetry was tested with the rank correlation test {}, Kendall's tau \
             between the standardized outcomes and their sampling variances.",
            &[&crate::rcode::BEGG_1994],
        );
        Ok(())
    }
}
