//! `forest_plot`: each record's effect and CI, and the pooled diamond, as SVG.

use super::args::{ExcludeArg, FitArgs};
use super::data::DataSource;
use super::fit::RefitResult;
use super::plot::{record_labels, title};
use super::scale::Scale;
use super::subgroup_analysis::{run_subgroups, SubgroupResult};
use super::{ErrorCode, Tool, ToolError, ToolGroup};
#[cfg(feature = "definitions")]
use super::{REFIT_EXCLUDING, SUBGROUP_ANALYSIS};
use crate::plots::{self, ForestGroups, ForestInput};
use meta_analysis::ModeratorColumn;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub static FOREST_PLOT: Tool = Tool {
    name: "forest_plot",
    title: "Forest plot (SVG)",
    summary: "Each record's effect and CI, and the pooled diamond, as SVG.",
    group: ToolGroup::Plot,
    max_records: crate::plots::MAX_FOREST_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Forest plot (SVG) of {refit}'s fit: a row per record (its `label`, else author and \
year, else id), the pooled diamond and PI; excluded records grey. With `by`: rows grouped, a \
diamond per level, {subgroups}' tests in the footer.",
            refit = REFIT_EXCLUDING.name,
            subgroups = SUBGROUP_ANALYSIS.name,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(forest_plot),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::{json, Value};
    let mut calls: Vec<Value> = examples::fit_options()
        .into_iter()
        .flat_map(|o| {
            [
                examples::with(o.clone(), "exclude", json!(["s04"])),
                examples::with(o, "by", json!("setting")),
            ]
        })
        .collect();
    calls.push(json!({"records": examples::records(), "exclude": ["a"]}));
    calls
}

/// `forest_plot`'s arguments: a refit's and, optionally, the text column to group rows by.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ForestArgs {
    #[serde(flatten)]
    pub exclude: ExcludeArg,
    #[serde(flatten)]
    pub fit: FitArgs,
    /// Text column to group the rows by, e.g. "tester"; default: no groups.
    #[serde(default)]
    pub by: Option<String>,
}

/// `forest_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ForestPlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The fit drawn, with the ids left out (a refit result).
    pub fit: RefitResult,
    /// With `by`: the subgroup analysis drawn (as the subgroup analysis tool returns it); else
    /// null.
    pub subgroups: Option<SubgroupResult>,
}

/// `forest_plot`
pub fn forest_plot(args: ForestArgs, data: &DataSource) -> Result<ForestPlotResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let excluded = args.exclude.of(data)?;
    let fit = meta_analysis::refit_excluding(data.records(), &excluded, &options)?;
    let grouped = match &args.by {
        Some(by) => {
            let analysis = run_subgroups(by, &excluded, &options, data)?;
            // Every record's level, the excluded ones' too: rows are drawn under their level.
            let ModeratorColumn::Factor(levels) = data.moderator(by, &[])?.column else {
                return Err(ToolError::new(
                    ErrorCode::InvalidRecords,
                    format!("the column {by} holds numbers in the excluded records"),
                ));
            };
            Some((by.as_str(), analysis, levels))
        }
        None => None,
    };
    let labels = record_labels(data);
    let plot = plots::forest(&ForestInput {
        records: data.records(),
        excluded: &excluded,
        fit: Some(&fit),
        title: &title("Forest", data),
        x_label: &scale.natural_axis_title(),
        labels: labels.as_deref(),
        transform: scale.transform,
        groups: grouped.as_ref().map(|(by, analysis, levels)| ForestGroups {
            by,
            record_levels: levels,
            analysis,
        }),
    })?;
    Ok(ForestPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        fit: RefitResult::of(&fit, excluded, data, &scale),
        subgroups: grouped.map(|(by, analysis, _)| SubgroupResult::of(by, &analysis, data, &scale)),
    })
}
