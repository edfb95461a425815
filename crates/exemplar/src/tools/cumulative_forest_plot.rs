//! `cumulative_forest_plot`: the cumulative fits, one row per step.

use super::cumulative::{result, run, CumulativeArgs, CumulativeResult};
use super::data::DataSource;
use super::plot::{measure_heading, measure_title, model_name, with_data};
use super::scale::Scale;
#[cfg(feature = "definitions")]
use super::CUMULATIVE_META_ANALYSIS;
use super::{Tool, ToolError, ToolGroup, MAX_CUMULATIVE_RECORDS};
use crate::plots::{self, CumulativeInput};
use meta_analysis::{Method, Test};
use serde::Serialize;
use serde_json::Value;

pub static CUMULATIVE_FOREST_PLOT: Tool = Tool {
    name: "cumulative_forest_plot",
    title: "Cumulative forest plot (SVG)",
    summary: "The cumulative fits, one row per step.",
    group: ToolGroup::Plot,
    max_records: MAX_CUMULATIVE_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "{cm} as a forest plot: a row per step, labelled with the record added, with the \
pooled estimate and CI so far.",
            cm = CUMULATIVE_META_ANALYSIS.name,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(cumulative_forest_plot; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![
        json!({"order_by": "year"}),
        json!({"records": examples::records(), "level": 0.9}),
    ]
}

/// `cumulative_forest_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct CumulativePlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The cumulative meta-analysis drawn.
    pub cumulative: CumulativeResult,
}

/// `cumulative_forest_plot`
pub fn cumulative_forest_plot(
    args: CumulativeArgs,
    data: &DataSource,
) -> Result<CumulativePlotResult, ToolError> {
    let scale = Scale::of(&args.fit.scale, data)?;
    let (steps, options) = run(&args, data)?;
    let model = format!(
        "{} ({}), {}",
        if options.method == Method::Ee {
            "Equal-effects model"
        } else if options.method == Method::Fe {
            "Fixed-effects model"
        } else {
            "Random-effects model"
        },
        options.method.name(),
        match options.test {
            Test::Z => "z test",
            Test::Knha => "Knapp–Hartung test (z at k = 1)",
        }
    );
    let order = match &args.order_by {
        Some(column) => format!(
            "in {} order of {column} (ties in record order)",
            if args.descending {
                "descending"
            } else {
                "ascending"
            }
        ),
        None => "in record order".to_string(),
    };
    let plot = plots::cumulative(&CumulativeInput {
        steps: &steps,
        level: options.level,
        model: &model,
        order: &order,
        title: &measure_title("Cumulative forest", &scale, true),
        subtitle: Some(&with_data(
            format!("{}, k = {}", model_name(options.method), steps.len()),
            data,
        )),
        measure: measure_heading(&scale),
        x_label: &scale.natural_axis_title(),
        transform: scale.transform,
    })?;
    Ok(CumulativePlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        cumulative: result(&args, &steps, options.level, data, &scale),
    })
}

impl crate::printed::Printed for CumulativePlotResult {
    /// The headline of the analysis drawn.
    fn print(&self, out: &mut crate::printed::Out) {
        self.cumulative.headline(out);
    }
}
