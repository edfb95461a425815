//! `peto_odds_ratio`: Peto's one-step pooled odds ratio of 2x2 tables.

use super::args::LevelArg;
use super::data::{DataSource, DatasetInfo};
use super::tables::{dataset, options, tables, TableRows, TablesPooled};
use super::{Tool, ToolError, ToolGroup};
use serde::{Deserialize, Serialize};

pub static PETO_ODDS_RATIO: Tool = Tool {
    name: "peto_odds_ratio",
    title: "Peto's odds ratio for 2x2 tables",
    summary: "Peto's one-step pooled odds ratio of 2x2 tables, with its Q test.",
    group: ToolGroup::Analysis,
    max_records: 0,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "Pools 2x2 tables by Peto's one-step method as metafor's rma.peto(): ln OR = \
sum(a - E)/sum(V), se = 1/sqrt(sum(V))."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(peto_odds_ratio),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![json!({"data": examples::tables()})]
}

/// `peto_odds_ratio`'s arguments.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct PetoArgs {
    #[cfg_attr(
        feature = "definitions",
        schemars(schema_with = "super::tables::data_schema")
    )]
    pub data: TableRows,
    #[serde(flatten)]
    pub level: LevelArg,
}

/// `peto_odds_ratio`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct PetoResult {
    /// Tables analysed.
    pub k: usize,
    pub level: f64,
    #[serde(flatten)]
    pub pooled: TablesPooled,
    pub dataset: DatasetInfo,
}

/// `peto_odds_ratio`
pub fn peto_odds_ratio(args: PetoArgs, _: &DataSource) -> Result<PetoResult, ToolError> {
    let options = options(&args.level)?;
    let tables = tables(&args.data)?;
    let r = meta_analysis::peto_odds_ratio(&tables, &options)?;
    Ok(PetoResult {
        k: r.k,
        level: r.level,
        pooled: TablesPooled::of(&r.pooled, &r.heterogeneity, true),
        dataset: dataset(args.data),
    })
}
