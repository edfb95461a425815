//! `cumulative_meta_analysis`: the pooled fit as records are added one at a time.

use super::cumulative::{result, run, CumulativeArgs, CumulativeResult};
use super::data::DataSource;
use super::scale::Scale;
use super::{
    Companion, Tool, ToolError, ToolGroup, CUMULATIVE_FOREST_PLOT, MAX_CUMULATIVE_RECORDS,
};

pub static CUMULATIVE_META_ANALYSIS: Tool = Tool {
    name: "cumulative_meta_analysis",
    title: "Cumulative meta-analysis",
    summary: "The pooled fit as records are added one at a time.",
    group: ToolGroup::Analysis,
    max_records: MAX_CUMULATIVE_RECORDS,
    companion: Some(Companion::same_arguments(&CUMULATIVE_FOREST_PLOT)),
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "As metafor's cumul(): the model fitted to the first 1, 2, ..., k records in \
`order_by`'s order; step 1 is the record alone (tau2 = 0, z test)."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(cumulative_meta_analysis; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::{json, Value};
    let mut calls: Vec<Value> = ["REML", "EE", "DL"]
        .into_iter()
        .map(|m| json!({"method": m, "order_by": "year", "test": "knha"}))
        .collect();
    calls.push(json!({}));
    calls.push(json!({"order_by": "author", "descending": true, "exclude": ["s01"]}));
    calls.push(json!({"records": examples::records(), "order_by": "vi"}));
    calls
}

/// `cumulative_meta_analysis`
pub fn cumulative_meta_analysis(
    args: CumulativeArgs,
    data: &DataSource,
) -> Result<CumulativeResult, ToolError> {
    let scale = Scale::of(&args.fit.scale, data)?;
    let (steps, options) = run(&args, data)?;
    Ok(result(&args, &steps, options.level, data, &scale))
}

