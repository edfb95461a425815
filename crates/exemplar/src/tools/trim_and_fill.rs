//! `trim_and_fill`: Duval and Tweedie's trim-and-fill.

use super::data::DataSource;
use super::trim_fill::{run, TrimAndFillResult, TrimFillArgs};
use super::{Companion, Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS, TRIM_AND_FILL_PLOT};

pub static TRIM_AND_FILL: Tool = Tool {
    name: "trim_and_fill",
    title: "Trim-and-fill (Duval & Tweedie)",
    summary: "The estimate with the missing records filled in.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::same_arguments(&TRIM_AND_FILL_PLOT)),
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "As metafor's trimfill(): estimates k0 records missing on one side, fills their \
mirror images (`filled`), refits (z, 95% CI; at most {} iterations). Needs 3 records; all vi \
equal: give side.",
            meta_analysis::MAX_ITERATIONS,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(trim_and_fill; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    let mut calls = Vec::new();
    for method in ["REML", "EE", "DL"] {
        for estimator in ["L0", "R0"] {
            calls.push(json!({"estimator": estimator, "method": method}));
        }
    }
    calls.push(json!({"side": "right", "exclude": ["s04"]}));
    calls.push(json!({"records": examples::records()}));
    calls
}

/// `trim_and_fill`
pub fn trim_and_fill(
    args: TrimFillArgs,
    data: &DataSource,
) -> Result<TrimAndFillResult, ToolError> {
    let (result, _, scale) = run(args, data)?;
    Ok(TrimAndFillResult::of(&result, data, &scale))
}
