//! What the fits of `fit_random_effects`, `refit_excluding`, `leave_one_out` and the plots
//! share: the engine's [`Fit`] with its estimate on the natural scale, and a refit's result.

use super::data::{DataSource, DatasetInfo};
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::{ErrorCode, ToolError};
use crate::printed::{
    estimate_headline, excluded_line, model_context, scale_labels, EstimateTest, InterceptFit,
    NaturalEstimate, Out, Printed,
};
use meta_analysis::{Fit, Test, WeightedError};
use serde::Serialize;

/// The estimate, its CI and prediction interval of `fit` on the natural scale.
pub fn natural(fit: &Fit, scale: &Scale) -> Option<NaturalScale> {
    scale.natural(
        fit.estimate,
        (fit.ci_lower, fit.ci_upper),
        Some((fit.pi_lower, fit.pi_upper)),
    )
}

/// A fit without some records: `refit_excluding`'s result, and the fit of the plots.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RefitResult {
    #[serde(flatten)]
    pub fit: Fit,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// The estimate, CI and prediction interval on the natural scale (null with transform
    /// "none").
    pub natural: Option<NaturalScale>,
    /// The ids left out.
    pub excluded: Vec<String>,
    pub dataset: DatasetInfo,
}

impl RefitResult {
    pub fn of(fit: &Fit, excluded: Vec<String>, data: &DataSource, scale: &Scale) -> Self {
        RefitResult {
            fit: fit.clone(),
            scale: scale.info(),
            natural: natural(fit, scale),
            excluded,
            dataset: data.info().clone(),
        }
    }
}

/// A fit's printed summary: its headline ([`headline`]), then `print.rma.uni`'s body.
impl Printed for RefitResult {
    fn print(&self, out: &mut Out) {
        self.headline(out);
        body(&self.fit, &self.scale, self.natural.as_ref()).print(out);
    }
}

impl RefitResult {
    /// The headline of the fit and the ids left out (a plot's summary).
    pub fn headline(&self, out: &mut Out) {
        headline(
            out,
            &self.fit,
            &self.scale,
            self.natural.as_ref(),
            &self.excluded,
        );
    }
}

/// `est [lower, upper] (95% CI; random-effects REML, k = 19)`, on the natural scale when
/// there is one, then the ids left out.
pub fn headline(
    out: &mut Out,
    fit: &Fit,
    scale: &ScaleInfo,
    natural: Option<&NaturalScale>,
    excluded: &[String],
) {
    out.line(estimate_headline(
        (scale.measure.as_deref(), &scale.transform),
        [fit.estimate, fit.ci_lower, fit.ci_upper],
        natural.map(|n| [n.estimate, n.ci_lower, n.ci_upper]),
        fit.level,
        &model_context(Some(fit.method.name()), fit.k, Some(fit.test.name())),
    ));
    excluded_line(out, excluded);
}

/// The fit as `print.rma.uni` prints it.
pub fn body<'a>(
    fit: &'a Fit,
    scale: &ScaleInfo,
    natural: Option<&NaturalScale>,
) -> InterceptFit<'a> {
    let test = match (fit.test, fit.df) {
        (Test::Knha, Some(df)) => EstimateTest::T {
            t: fit.statistic,
            df,
        },
        _ => EstimateTest::Z(Some(fit.statistic)),
    };
    InterceptFit {
        method: fit.method.name(),
        k: fit.k,
        tau2: fit.tau2,
        se_tau2: fit.se_tau2,
        i2: fit.i2,
        h2: fit.h2,
        q: fit.q,
        q_df: fit.q_df,
        q_p: fit.q_p,
        estimate: fit.estimate,
        se: fit.se,
        test,
        p: fit.p,
        ci_lower: fit.ci_lower,
        ci_upper: fit.ci_upper,
        natural: natural_estimate(scale, natural),
    }
}

/// An estimate on the natural scale as `print.rma.uni` prints it, labelled by the scale;
/// none without a natural scale.
pub fn natural_estimate(
    scale: &ScaleInfo,
    natural: Option<&NaturalScale>,
) -> Option<NaturalEstimate> {
    scale_labels(scale.measure.as_deref(), &scale.transform)
        .1
        .zip(natural)
        .map(|(label, n)| NaturalEstimate {
            label,
            interval: [n.estimate, n.ci_lower, n.ci_upper],
            pi: n.pi_lower.zip(n.pi_upper),
        })
}

/// Whether a `fit_random_effects` call/// Whether a `fit_random_effects` call is drawn as a forest plot with its own arguments: only
/// without user weights (the forest plot fits without them).
pub(super) fn unweighted(args: &serde_json::Value) -> bool {
    args.get("weights").is_none()
}

/// A weighted fit's engine error: a weight that cannot be used (its record named) is the
/// caller's argument, named by its `column`; anything else the fit's own error.
pub(super) fn weighted_error(column: Option<&str>, error: WeightedError) -> ToolError {
    match error {
        WeightedError::Weights(e) => ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "weights {}: {e}",
                crate::quote::quoted(column.unwrap_or_default())
            ),
        ),
        WeightedError::Fit(e) => e.into(),
    }
}
