//! `selection_model`: Vevea and Hedges' step-function selection model.

use super::args::{DataArg, ExcludeArg, LevelArg};
use super::data::{DataSource, DatasetInfo};
use super::{ErrorCode, Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
use meta_analysis::{FitOptions, DEFAULT_STEPS};
use serde::{Deserialize, Serialize};

/// The most steps a selection model takes.
pub const MAX_STEPS: usize = 10;

pub static SELECTION_MODEL: Tool = Tool {
    name: "selection_model",
    title: "Step-function selection model",
    summary: "The estimate adjusted for publication bias by Vevea and Hedges' step-function selection model.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "Vevea & Hedges' step-function selection model on the ML random-effects model, as \
metafor's selmodel(type = \"stepfun\"), at the exact maximum: one-sided p values (yi > 0) cut \
at `steps` into intervals with publication weights delta (the first 1), and the \
likelihood-ratio test of no selection. Each interval needs a record; k >= steps + 2."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(selection_model),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![json!({}), json!({"steps": [0.05], "exclude": ["s04"]})]
}

/// `selection_model`'s arguments.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct SelectionArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "steps_schema"))]
    pub steps: Option<Vec<f64>>,
    #[serde(flatten)]
    pub level: LevelArg,
    #[serde(flatten)]
    pub exclude: ExcludeArg,
    #[serde(flatten)]
    pub _data: DataArg,
}

/// `steps`: the p-value cutpoints, [`DEFAULT_STEPS`] by default.
#[cfg(feature = "definitions")]
fn steps_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({
        "type": "array",
        "items": {"type": "number", "minimum": 0, "maximum": 1},
        "default": DEFAULT_STEPS,
        "description": format!("One-sided p-value cutpoints in (0, 1), at most {MAX_STEPS}; 1 is added.")
    }))
    .expect("an object schema")
}

/// One interval of p values and its selection weight.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct WeightRow {
    /// The interval (lower, upper] of one-sided p values.
    pub lower: f64,
    pub upper: f64,
    /// Records in it.
    pub k: usize,
    /// Relative likelihood of publication (the first interval's is 1, fixed).
    pub delta: f64,
    /// se, z = (delta - 1)/se, two-sided p and CI (lower end cut at 0); null for the first.
    pub se: Option<f64>,
    pub z: Option<f64>,
    pub p: Option<f64>,
    pub ci_lower: Option<f64>,
    pub ci_upper: Option<f64>,
}

/// `selection_model`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct SelectionResult {
    /// Records fitted.
    pub k: usize,
    pub level: f64,
    /// The cutpoints, with 1 added.
    pub steps: Vec<f64>,
    /// The estimate adjusted for selection, with its Wald test and CI.
    pub estimate: f64,
    pub se: f64,
    pub z: f64,
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub tau2: f64,
    /// Null when tau2 is 0 (the boundary).
    pub se_tau2: Option<f64>,
    pub tau2_ci_lower: Option<f64>,
    pub tau2_ci_upper: Option<f64>,
    /// One per interval of p values.
    pub weights: Vec<WeightRow>,
    /// The likelihood-ratio test of no selection (all delta = 1), on lrt_df df.
    pub lrt: f64,
    pub lrt_df: usize,
    pub lrt_p: f64,
    pub log_likelihood: f64,
    /// The log-likelihood of the ML random-effects model without selection.
    pub log_likelihood_null: f64,
    /// The ML random-effects estimate and tau2 without selection.
    pub unadjusted_estimate: f64,
    pub unadjusted_tau2: f64,
    /// Newton iterations of the likelihood maximisation.
    pub iterations: usize,
    /// The ids left out.
    pub excluded: Vec<String>,
    pub dataset: DatasetInfo,
}

/// `selection_model`
pub fn selection_model(
    args: SelectionArgs,
    data: &DataSource,
) -> Result<SelectionResult, ToolError> {
    let excluded = args.exclude.of(data)?;
    let kept = data.kept(&excluded);
    let steps = args.steps.unwrap_or_else(|| DEFAULT_STEPS.to_vec());
    if steps.len() > MAX_STEPS {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "{} steps given; at most {MAX_STEPS} are accepted",
                steps.len()
            ),
        ));
    }
    let options = FitOptions {
        level: args.level.get()?,
        ..FitOptions::default()
    };
    let m = meta_analysis::selection_model(&kept, &steps, &options)?;
    Ok(SelectionResult {
        k: m.k,
        level: m.level,
        steps: m.steps.clone(),
        estimate: m.estimate,
        se: m.se,
        z: m.statistic,
        p: m.p,
        ci_lower: m.ci_lower,
        ci_upper: m.ci_upper,
        tau2: m.tau2,
        se_tau2: m.se_tau2,
        tau2_ci_lower: m.tau2_ci_lower,
        tau2_ci_upper: m.tau2_ci_upper,
        weights: m
            .weights
            .iter()
            .map(|w| WeightRow {
                lower: w.lower,
                upper: w.upper,
                k: w.k,
                delta: w.delta,
                se: w.se,
                z: w.statistic,
                p: w.p,
                ci_lower: w.ci_lower,
                ci_upper: w.ci_upper,
            })
            .collect(),
        lrt: m.lrt,
        lrt_df: m.lrt_df,
        lrt_p: m.lrt_p,
        log_likelihood: m.log_likelihood,
        log_likelihood_null: m.log_likelihood_null,
        unadjusted_estimate: m.unadjusted_estimate,
        unadjusted_tau2: m.unadjusted_tau2,
        iterations: m.iterations,
        excluded,
        dataset: data.info().clone(),
    })
}
