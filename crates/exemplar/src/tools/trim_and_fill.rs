//! `trim_and_fill`: Duval and Tweedie's trim-and-fill.

use super::data::DataSource;
use super::trim_fill::{run, TrimAndFillResult, TrimFillArgs};
use super::{Companion, Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS, TRIM_AND_FILL_PLOT};

pub static TRIM_AND_FILL: Tool = Tool {
    name: "trim_and_fill",
    title: "Trim-and-fill (Duval & Tweedie)",
    summary:
        "The estimate adjusted for funnel-plot asymmetry by Duval and Tweedie's trim-and-fill.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::same_arguments(&TRIM_AND_FILL_PLOT)),
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Duval & Tweedie's trim-and-fill, as metafor 3.8-1's trimfill(): estimates k0 \
records missing on one side, fills their mirror images (`filled`) and refits (z test, 95% CI; \
at most {} iterations). Needs 3 records; with all vi equal, give side.",
            meta_analysis::MAX_ITERATIONS,
        )
    },
    handler: handler!(trim_and_fill),
};

/// `trim_and_fill`
pub fn trim_and_fill(
    args: TrimFillArgs,
    data: &DataSource,
) -> Result<TrimAndFillResult, ToolError> {
    let (result, _, scale) = run(args, data)?;
    Ok(TrimAndFillResult::of(&result, data, &scale))
}
