//! `forest_plot` and `funnel_plot`: the SVG plots, drawn from the same fits the analysis
//! tools return.

use super::args::{EggerArgs, ExcludeFitArgs};
use super::data::DataSource;
use super::egger::{run_egger, EggerTestResult};
use super::fit::RefitResult;
use super::ToolError;
use crate::plots::{self, EggerLine, ForestInput, FunnelInput};
use crate::protocol::rule;
use meta_analysis::FitOptions;
use serde::Serialize;
use serde_json::Value;

/// The axis label of both plots.
pub(super) const EFFECT_LABEL: &str = "Standardized mean difference (yi)";

/// `forest_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
pub struct ForestPlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(feature = "schemas", schemars(with = "serde_json::Map<String, Value>"))]
    pub numbers: Value,
    /// The fit drawn, with the ids left out (a refit result).
    pub fit: RefitResult,
}

/// `funnel_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
pub struct FunnelPlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(feature = "schemas", schemars(with = "serde_json::Map<String, Value>"))]
    pub numbers: Value,
    /// The pooled REML fit the funnel is centred on.
    pub fit: RefitResult,
    /// The Egger test result whose line is drawn.
    pub egger: EggerTestResult,
}

/// "<Kind> plot of dat.raudenbush1985", or "… of the given records".
pub(super) fn title(kind: &str, data: &DataSource) -> String {
    if data.is_frozen() {
        format!("{kind} plot of {}", data.info().name)
    } else {
        format!("{kind} plot of the given records")
    }
}

/// `forest_plot`
pub fn forest_plot(args: ExcludeFitArgs, data: &DataSource) -> Result<ForestPlotResult, ToolError> {
    let options = args.fit.options()?;
    let excluded = data.exclusions(args.exclude)?;
    let fit = meta_analysis::refit_excluding(data.records(), &excluded, &options)?;
    let plot = plots::forest(&ForestInput {
        records: data.records(),
        excluded: &excluded,
        fit: Some(&fit),
        title: &title("Forest", data),
        x_label: EFFECT_LABEL,
    })?;
    Ok(ForestPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        fit: RefitResult::of(&fit, excluded, data),
    })
}

/// `funnel_plot`
pub fn funnel_plot(args: EggerArgs, data: &DataSource) -> Result<FunnelPlotResult, ToolError> {
    let (test, excluded) = run_egger(args, data)?;
    let kept = data.kept(&excluded);
    let fit = meta_analysis::fit(&kept, &FitOptions::default())?;
    let plot = plots::funnel(&FunnelInput {
        records: data.records(),
        excluded: &excluded,
        pooled: Some(fit.estimate),
        egger: Some(EggerLine {
            variant: test.variant.name(),
            line_at_se0: test.line_at_se0,
            line_per_se: test.line_per_se,
            p: test.p,
            rule_outcome: rule(test.p).name(),
        }),
        filled: None,
        title: &title("Funnel", data),
        x_label: EFFECT_LABEL,
    })?;
    Ok(FunnelPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        fit: RefitResult::of(&fit, excluded.clone(), data),
        egger: EggerTestResult::of(&test, excluded, data),
    })
}
