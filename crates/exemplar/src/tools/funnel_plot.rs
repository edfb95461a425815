//! `funnel_plot`: effects against their standard errors with Egger's line.

use super::args::{DataArg, ExcludeArg};
use super::data::DataSource;
use super::egger_test::{run_egger, EggerTestResult};
use super::fit::RefitResult;
use super::plot::title;
use super::scale::Scale;
#[cfg(feature = "definitions")]
use super::schema_derivation as schemas;
#[cfg(feature = "definitions")]
use super::EGGER_TEST;
use super::{Tool, ToolError, ToolGroup};
use crate::plots::{self, EggerLine, FunnelInput};
use crate::protocol::rule;
use meta_analysis::{EggerVariant, FitOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub static FUNNEL_PLOT: Tool = Tool {
    name: "funnel_plot",
    title: "Funnel plot with Egger's line (SVG)",
    summary: "Effects against their standard errors with Egger's line, as SVG.",
    group: ToolGroup::Plot,
    max_records: crate::plots::MAX_FUNNEL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Funnel plot (SVG): yi against sqrt(vi) (most precise at the top), the pseudo 95% \
confidence funnel around the REML estimate, and the line of {egger} with its p value and rule \
outcome.",
            egger = EGGER_TEST.name,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(funnel_plot),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![
        json!({"variant": "classic", "exclude": ["s05"]}),
        json!({"variant": "rma", "exclude": ["s05"]}),
        json!({"records": examples::records()}),
    ]
}

/// `funnel_plot`'s arguments: the Egger variant drawn, exclusions and the axis's scale.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FunnelArgs {
    /// Egger variant whose line is drawn.
    #[serde(
        default,
        deserialize_with = "super::args::variant",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::variant"))]
    pub variant: Option<EggerVariant>,
    #[serde(flatten)]
    pub exclude: ExcludeArg,
    #[serde(flatten)]
    pub _data: DataArg,
    /// The plot's axis.
    #[serde(flatten)]
    pub scale: super::scale::ScaleArgs,
}

/// `funnel_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FunnelPlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The pooled REML fit the funnel is centred on.
    pub fit: RefitResult,
    /// The Egger test result whose line is drawn.
    pub egger: EggerTestResult,
}

/// `funnel_plot`
pub fn funnel_plot(args: FunnelArgs, data: &DataSource) -> Result<FunnelPlotResult, ToolError> {
    let scale = Scale::of(&args.scale, data)?;
    let (test, excluded) = run_egger(args.variant, args.exclude, data)?;
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
        x_label: &scale.axis_title(),
    })?;
    Ok(FunnelPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        fit: RefitResult::of(&fit, excluded.clone(), data, &scale),
        egger: EggerTestResult::of(&test, excluded, data),
    })
}
