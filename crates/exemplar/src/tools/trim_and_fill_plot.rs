//! `trim_and_fill_plot`: the funnel plot with the records trim-and-fill adds.

use super::data::DataSource;
use super::plot::{measure_title, model_name, with_data};
use super::trim_fill::{run, TrimAndFillResult, TrimFillArgs};
#[cfg(feature = "definitions")]
use super::TRIM_AND_FILL;
use super::{Tool, ToolError, ToolGroup};
use crate::plots::{self, Filled, FunnelInput};
use serde::Serialize;
use serde_json::Value;

pub static TRIM_AND_FILL_PLOT: Tool = Tool {
    name: "trim_and_fill_plot",
    title: "Trim-and-fill funnel plot (SVG)",
    summary: "The funnel with the filled-in records drawn open.",
    group: ToolGroup::Plot,
    max_records: crate::plots::MAX_FUNNEL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "{tf}'s funnel: the records, the filled ones as open circles, and the funnel around \
the adjusted estimate.",
            tf = TRIM_AND_FILL.name,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(trim_and_fill_plot; reproducible),
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
    calls.push(json!({"records": examples::records(), "side": "left"}));
    calls
}

/// `trim_and_fill_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TrimAndFillPlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The trim-and-fill result drawn.
    pub trim_and_fill: TrimAndFillResult,
}

/// `trim_and_fill_plot`: the funnel plot with the filled records drawn open, centred on the
/// adjusted estimate.
pub fn trim_and_fill_plot(
    args: TrimFillArgs,
    data: &DataSource,
) -> Result<TrimAndFillPlotResult, ToolError> {
    let (result, excluded, scale) = run(args, data)?;
    let plot = plots::funnel(&FunnelInput {
        records: data.records(),
        excluded: &excluded,
        pooled: Some(result.fit.estimate),
        egger: None,
        filled: Some(Filled {
            records: &result.filled,
            estimator: result.estimator.name(),
            side: result.side.name(),
        }),
        title: &measure_title("Trim-and-fill funnel", &scale, true),
        subtitle: Some(&with_data(
            format!(
                "{}, k = {} + {} filled",
                model_name(result.fit.method),
                data.records().len() - excluded.len(),
                result.k0
            ),
            data,
        )),
        x_label: &scale.natural_axis_title(),
        transform: scale.transform,
    })?;
    Ok(TrimAndFillPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        trim_and_fill: TrimAndFillResult::of(&result, data, &scale),
    })
}

impl crate::printed::Printed for TrimAndFillPlotResult {
    /// The headline of the trim-and-fill drawn.
    fn print(&self, out: &mut crate::printed::Out) {
        self.trim_and_fill.headline(out);
    }
}
