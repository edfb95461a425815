//! `selection_model`: Vevea and Hedges' step-function selection model.

use super::args::{DataArg, ExcludeArg, LevelArg};
use super::data::{DataSource, DatasetInfo};
use super::{ErrorCode, Tool, ToolError, ToolGroup};
use meta_analysis::{FitOptions, SelectionModel, DEFAULT_STEPS};
use serde::Serialize;

/// The most steps a selection model takes.
pub const MAX_STEPS: usize = 10;

/// The most records a selection model takes. Its worst case is a likelihood whose maximiser
/// does not converge: measured at 50,000 records (yᵢ = cos(i)/2, vᵢ = 0.02 + (i mod 7)/50, the
/// bridge test's long call), 13.8 s natively for one maximisation's 200 iterations
/// ([`meta_analysis::MAX_SELECTION_ITERATIONS`]) with their step halvings, about 1.4 µs a
/// record an iteration; two maximisations (the boundary τ² = 0 and the interior) at 2,000
/// records are then at most about 1.1 s. A fit that converges takes far less (10 steps at
/// 50,000 records: 0.7 s). Refused by the registry before the records are read. (Issue 41:
/// 10⁵ until its probe, 50,000 until the worst case was measured.)
pub const MAX_SELECTION_RECORDS: usize = 2_000;

pub static SELECTION_MODEL: Tool = Tool {
    name: "selection_model",
    title: "Step-function selection model",
    summary: "Vevea and Hedges' estimate adjusted for publication bias.",
    group: ToolGroup::Analysis,
    max_records: MAX_SELECTION_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "On the ML random-effects model, as metafor's selmodel(type = \"stepfun\"), at the exact \
maximum: one-sided p values (yi > 0) cut at `steps`, interval weights delta (the first 1), LRT \
of no selection. Each interval needs a record; k >= steps + 2."
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

composed_args! {
    /// `selection_model`'s arguments.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct SelectionArgs {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "steps_schema"))]
        pub steps: Option<Vec<f64>>,
        #[flat]
        pub level: LevelArg,
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
    }
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

/// `selection_model`'s result: the engine's model, the ids left out and the data.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct SelectionResult {
    #[serde(flatten)]
    pub model: SelectionModel,
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
    Ok(SelectionResult {
        model: meta_analysis::selection_model(&kept, &steps, &options)?,
        excluded,
        dataset: data.info().clone(),
    })
}

/// Bridge: the printer not yet written here, typed, reads the serialized result.
impl crate::printed::Printed for SelectionResult {
    fn print(&self, out: &mut crate::printed::Out) {
        let v = serde_json::to_value(self).expect("results serialize");
        let mut print = || -> Option<()> { crate::summary::selection(out, &v) };
        let _ = print();
    }
}
