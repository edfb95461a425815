//! `selection_model`: Vevea and Hedges' step-function selection model.

use super::args::{DataArg, ExcludeArg, LevelArg};
use super::data::{DataSource, DatasetInfo};
use super::scale::{NaturalScale, Scale, ScaleArgs, ScaleInfo};
use super::{ErrorCode, Tool, ToolError, ToolGroup};
use meta_analysis::{FitOptions, SelectionModel, SelectionWeight, DEFAULT_STEPS};
use crate::printed::{
    estimate_headline, excluded_line, f4, frame_table, pad_right, pval, r_num, signif_legend, tau2_lines,
    stars, vector_table, width, Out, Printed,
};
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
    summary: "The estimate adjusted for publication bias.",
    group: ToolGroup::Analysis,
    max_records: MAX_SELECTION_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "ML random-effects model as metafor's selmodel(type = \"stepfun\"), at the exact \
maximum: one-sided p values (yi > 0) cut at `steps`, weights delta (the first 1), LRT of no \
selection. Each interval needs a record; k >= steps + 2."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(selection_model; reproducible),
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
        pub scale: ScaleArgs,
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
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// The adjusted estimate and its CI on the natural scale (null with transform "none").
    pub natural: Option<NaturalScale>,
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
    let scale = Scale::of(&args.scale, data)?;
    let model = meta_analysis::selection_model(&kept, &steps, &options)?;
    Ok(SelectionResult {
        natural: scale.natural(model.estimate, (model.ci_lower, model.ci_upper), None),
        scale: scale.info(),
        model,
        excluded,
        dataset: data.info().clone(),
    })
}

impl Printed for SelectionResult {
    /// `print.selmodel.rma.uni`: the ML random-effects model adjusted for selection, the
    /// likelihood-ratio test of no selection and the intervals' weights.
    fn print(&self, out: &mut Out) {
        let m = &self.model;
        let k = m.k;
        out.line(estimate_headline(
            (self.scale.measure.as_deref(), &self.scale.transform),
            [m.estimate, m.ci_lower, m.ci_upper],
            self.natural
                .as_ref()
                .map(|n| [n.estimate, n.ci_lower, n.ci_upper]),
            m.level,
            &format!("step-function selection model, k = {k}"),
        ));
        excluded_line(out, &self.excluded);
        out.blank();
        out.line(format!(
            "Random-Effects Model (k = {k}; tau^2 estimator: ML)"
        ));
        out.blank();
        tau2_lines(out, Some(m.tau2), m.se_tau2, true);
        out.blank();
        out.line("Model Results:");
        out.blank();
        let p = Some(m.p);
        out.lines(vector_table(&[
            ("estimate", f4(Some(m.estimate))),
            ("se", f4(Some(m.se))),
            ("zval", f4(Some(m.statistic))),
            ("pval", pval(p, false, false)),
            ("ci.lb", f4(Some(m.ci_lower))),
            ("ci.ub", f4(Some(m.ci_upper))),
            ("", stars(p)),
        ]));
        out.blank();
        out.line("Test for Selection Model Parameters:");
        out.line(format!(
            "LRT(df = {}) = {}, p-val {}",
            m.lrt_df,
            f4(Some(m.lrt)),
            pval(Some(m.lrt_p), true, false)
        ));
        out.blank();
        out.line("Selection Model Results:");
        out.blank();
        out.lines(weights_table(&m.weights));
        signif_legend(out);
    }
}

/// The intervals of p values, each named `lower < p <= upper`, with their weights; the
/// fixed first weight's inference as "---".
fn weights_table(weights: &[SelectionWeight]) -> Vec<String> {
    let lower_w = weights
        .iter()
        .map(|w| width(&r_num(w.lower)))
        .max()
        .unwrap_or(0);
    let rows: Vec<(String, Vec<String>)> = weights
        .iter()
        .map(|w| {
            let fixed = w.se.is_none();
            let cell = |x: Option<f64>| if fixed { "---".into() } else { f4(x) };
            (
                format!(
                    "{} < p <= {}",
                    pad_right(&r_num(w.lower), lower_w),
                    r_num(w.upper)
                ),
                vec![
                    w.k.to_string(),
                    f4(Some(w.delta)),
                    cell(w.se),
                    cell(w.statistic),
                    if fixed {
                        "---".into()
                    } else {
                        pval(w.p, false, false)
                    },
                    cell(w.ci_lower),
                    cell(w.ci_upper),
                    if fixed { String::new() } else { stars(w.p) },
                ],
            )
        })
        .collect();
    frame_table(
        &["k", "estimate", "se", "zval", "pval", "ci.lb", "ci.ub", ""],
        &rows,
        2,
    )
}

/// `selmodel(rma(yi, vi, method = "ML"), type = "stepfun", steps = ...)`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for SelectionArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, rma};
        use crate::rcode::{number, vector, VEVEA_1995};
        let level = self.level.get()?;
        let steps: Vec<f64> = cx.result["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_f64)
            .collect();
        let mut more = fit_arguments(meta_analysis::Method::Ml, level, meta_analysis::Test::Z);
        // At tau^2 = 0, metafor's optimizer (on ln tau^2) stops at a small positive tau^2:
        // the script fixes tau^2 at the engine's 0, as METHODS.md says.
        let boundary = cx.result["tau2"].as_f64() == Some(0.0);
        if boundary {
            more.push("tau2 = 0".into());
        }
        let fit = rma(cx, &self.exclude.exclude, more);
        out.script.comment(
            "selmodel() maximizes the likelihood with optim(); with its default stopping rule it \
             stops about 1e-7 short of the engine's optimum, so its tolerance is tightened \
             below, and the numbers agree to 1e-6 (docs/METHODS.md).",
        );
        if boundary {
            out.script.comment(
                "tau^2 is fixed at the engine's estimate, 0 (metafor's optimizer, on ln tau^2, \
                 stops at a small positive tau^2).",
            );
        }
        out.script.line(format!(
            "res <- selmodel({fit}, type = \"stepfun\", steps = {},\n    control = list(reltol = 1e-14, maxit = 10000, ndeps = rep(1e-6, {})))",
            vector(steps.iter().map(|s| number(*s))),
            steps.len() + 2
        ));
        let r = cx.result;
        out.loose(1e-6);
        out.check_at("c(coef(res)$beta)[1]", r, "/estimate")
            .check_at("res$se[1]", r, "/se")
            .check_at("res$pval[1]", r, "/p")
            .check_at("res$tau2", r, "/tau2");
        for (j, w) in r["weights"].as_array().into_iter().flatten().enumerate() {
            out.check_at(format!("res$delta[{}]", j + 1), w, "/delta");
        }
        out.methods.say(
            "Publication bias was modelled with a step-function selection model {}: a \
             random-effects model fitted by maximum likelihood with the probability of \
             publication a step function of the one-sided p values.",
            &[&VEVEA_1995],
        );
        Ok(())
    }
}
