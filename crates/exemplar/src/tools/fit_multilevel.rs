//! `fit_multilevel`: the three-level random-effects model for several effect sizes per
//! study (metafor's `rma.mv(yi, vi, random = ~ 1 | study/es)`).

use super::args::model_data;
use super::data::{DataSource, DatasetInfo};
use super::data::Omitted;
use super::multilevel::{labels, MultilevelArgs};
use super::scale::{NaturalScale, Scale, ScaleInfo};
#[cfg(feature = "definitions")]
use super::META_REGRESSION;
use super::{Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
use meta_analysis::{BoundKind, Multilevel};
use serde::Serialize;

pub static FIT_MULTILEVEL: Tool = Tool {
    name: "fit_multilevel",
    title: "Multilevel (three-level) meta-analysis",
    summary: "Several effect sizes per study: between- and within-study variances with profile CIs, the pooled estimate or moderators.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Three-level random-effects model for several effect sizes per study, as metafor's \
rma.mv(yi, vi, mods, random = ~ 1 | study/es): sigma2 = [between studies, within studies] by \
REML or ML at the exact optimum, with profile-likelihood CIs as confint(). Without mods: the \
pooled estimate with its CI and prediction interval; with mods (columns as in {}): \
coefficients and the QM test. Test t uses k-p df. Needs at least 2 studies, one of them with \
more than one record.",
            META_REGRESSION.name
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(fit_multilevel),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![
        json!({"records": examples::nested()}),
        json!({"records": examples::nested(), "mods": ["x"], "method": "ML", "test": "t", "exclude": ["e1"]}),
    ]
}

/// `fit_multilevel`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MultilevelResult {
    /// Records fitted.
    pub k: usize,
    /// Studies (the outer level).
    pub n_studies: usize,
    /// The column naming the studies.
    pub study: String,
    /// "REML" or "ML".
    pub method: crate::tools::Word,
    /// "z" or "t".
    pub test: crate::tools::Word,
    pub level: f64,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// [between studies, within studies]: sigma^2 of the study level and of the effect sizes within a study.
    pub sigma2: Vec<f64>,
    /// Profile-likelihood lower bounds of sigma2 (0 when the profile at 0 is inside the interval).
    pub sigma2_ci_lower: Vec<f64>,
    /// Profile-likelihood upper bounds of sigma2 (null when beyond the search range).
    pub sigma2_ci_upper: Vec<Option<f64>>,
    /// Without moderators: the pooled estimate (else null).
    pub estimate: Option<f64>,
    pub se: Option<f64>,
    /// z, or t with k - p df.
    pub statistic: Option<f64>,
    /// k - p with test "t", else null.
    pub df: Option<f64>,
    pub p: Option<f64>,
    pub ci_lower: Option<f64>,
    pub ci_upper: Option<f64>,
    /// Prediction interval of a new effect size (without moderators; else null).
    pub pi_lower: Option<f64>,
    pub pi_upper: Option<f64>,
    /// Without moderators and with a transform: the pooled estimate and its intervals on the
    /// natural scale (else null).
    pub natural: Option<NaturalScale>,
    /// The tests, log-likelihood and coefficients.
    #[serde(flatten)]
    pub model: Multilevel,
    /// Sentences on bounds at 0 or beyond the search range.
    pub notes: Vec<String>,
    /// The moderators' formula, as metafor writes it (null without mods).
    pub formula: Option<String>,
    /// Coefficients dropped as aliased: design columns that are linear combinations of the
    /// intercept and the columns before them (an interaction with an empty cell), dropped as
    /// metafor drops them ("Redundant predictors dropped from the model."); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// Records left out because a column the model reads (the moderators', `study`) has no
    /// value there (metafor's na.omit); `k` counts the records fitted.
    pub omitted: Vec<Omitted>,
    pub dataset: DatasetInfo,
}

/// `fit_multilevel`
pub fn fit_multilevel(
    args: MultilevelArgs,
    data: &DataSource,
) -> Result<MultilevelResult, ToolError> {
    let options = args.options()?;
    let scale = Scale::of(&args.scale, data)?;
    let study = args.study.get().to_string();
    let excluded = args.exclude.of(data)?;
    let model_data = model_data(args.mods.mods.as_ref(), &[&study], excluded, data)?;
    let excluded = &model_data.excluded;
    let studies = labels(data, &study, "study", excluded)?;
    let kept = data.kept(excluded);
    let model = match model_data.matrix() {
        Some(design) => meta_analysis::multilevel_design(&kept, &studies, design, &options)?,
        None => meta_analysis::multilevel(&kept, &studies, &[], &options)?,
    };
    let intervals = model.profile_intervals()?;
    let mut notes = Vec::new();
    let which = ["between-study", "within-study"];
    for (r, ci) in intervals.iter().enumerate() {
        if ci.lower.kind == BoundKind::Zero {
            notes.push(format!(
                "The lower bound of the {} sigma^2 is 0: the profile likelihood at 0 lies inside \
                 the interval.",
                which[r]
            ));
        }
        if ci.upper.kind == BoundKind::BeyondSearch {
            notes.push(format!(
                "The upper bound of the {} sigma^2 lies beyond {} (the search range), so it is \
                 reported as null.",
                which[r], ci.upper.tau2
            ));
        }
    }
    let single = model.p == 1;
    let c0 = &model.coefficients[0];
    let natural = if single {
        scale.natural(
            c0.estimate,
            (c0.ci_lower, c0.ci_upper),
            model.pi_lower.zip(model.pi_upper),
        )
    } else {
        None
    };
    Ok(MultilevelResult {
        k: model.k,
        n_studies: model.n_studies,
        study,
        method: model.method.name().into(),
        test: model.test.name().into(),
        level: model.level,
        scale: scale.info(),
        sigma2: model.sigma2.to_vec(),
        sigma2_ci_lower: intervals.iter().map(|c| c.lower.tau2).collect(),
        sigma2_ci_upper: intervals
            .iter()
            .map(|c| (c.upper.kind != BoundKind::BeyondSearch).then_some(c.upper.tau2))
            .collect(),
        estimate: single.then_some(c0.estimate),
        se: single.then_some(c0.se),
        statistic: single.then_some(c0.statistic),
        df: model.df,
        p: single.then_some(c0.p),
        ci_lower: single.then_some(c0.ci_lower),
        ci_upper: single.then_some(c0.ci_upper),
        pi_lower: model.pi_lower,
        pi_upper: model.pi_upper,
        natural,
        model,
        notes,
        formula: model_data.formula_text(),
        dropped: model_data.dropped(),
        omitted: model_data.omitted,
        dataset: DatasetInfo {
            notes: model_data.notes,
            ..data.info().clone()
        },
    })
}

/// Bridge: the printer not yet written here, typed, reads the serialized result.
impl crate::printed::Printed for MultilevelResult {
    fn print(&self, out: &mut crate::printed::Out) {
        let v = serde_json::to_value(self).expect("results serialize");
        let mut print = || -> Option<()> { crate::summary::multilevel(out, &v) };
        let _ = print();
    }
}
