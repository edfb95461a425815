//! What the fits of `fit_random_effects`, `refit_excluding`, `leave_one_out` and the plots
//! share: a fit's head and numbers, written as the answer shape names them, and a refit's
//! result.

use super::data::{DataSource, DatasetInfo};
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::{ErrorCode, ToolError};
use crate::printed::{
    estimate_headline, excluded_line, model_context, scale_labels, EstimateTest, InterceptFit,
    NaturalEstimate, Out, Printed,
};
use meta_analysis::{Fit, Test, WeightedError};
use serde::Serialize;

/// The model's description: method, test, level and k.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FitHead {
    /// The tau^2 estimator (REML, ML, DL, HE, SJ, PM, EE or FE), as the call named it.
    pub method: crate::tools::Word,
    /// "z" or "knha".
    pub test: crate::tools::Word,
    /// Confidence level of the intervals.
    pub level: f64,
    /// Records fitted.
    pub k: usize,
}

/// The fitted numbers, in reading order: the estimate with its z or t test, then the
/// engine's [`Fit`] (p, CI, tau^2, heterogeneity, prediction interval), the natural scale
/// and the iterations.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FitStats {
    /// Pooled estimate.
    pub estimate: f64,
    /// Its standard error (Knapp-Hartung adjusted with test "knha").
    pub se: f64,
    /// z statistic (test "z" only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(with = "f64"))]
    pub z: Option<f64>,
    /// t statistic (test "knha" only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(with = "f64"))]
    pub t: Option<f64>,
    /// Degrees of freedom of t, k - 1 (test "knha" only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(with = "f64"))]
    pub df: Option<f64>,
    #[serde(flatten)]
    pub fit: Fit,
    pub natural: Option<NaturalScale>,
    /// Iterations of an iterative estimator; null for closed forms.
    pub iterations: Option<usize>,
}

impl FitHead {
    pub fn of(fit: &Fit) -> Self {
        FitHead {
            method: fit.method.name().into(),
            test: fit.test.name().into(),
            level: fit.level,
            k: fit.k,
        }
    }
}

impl FitStats {
    pub fn of(fit: &Fit, scale: &Scale) -> Self {
        let (z, t) = match fit.test {
            Test::Z => (Some(fit.statistic), None),
            Test::Knha => (None, Some(fit.statistic)),
        };
        FitStats {
            estimate: fit.estimate,
            se: fit.se,
            z,
            t,
            df: fit.df,
            natural: scale.natural(
                fit.estimate,
                (fit.ci_lower, fit.ci_upper),
                Some((fit.pi_lower, fit.pi_upper)),
            ),
            iterations: fit.iterations,
            fit: fit.clone(),
        }
    }
}

/// A fit without some records: `refit_excluding`'s result, and the fit of the plots.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RefitResult {
    #[serde(flatten)]
    pub head: FitHead,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// The ids left out.
    pub excluded: Vec<String>,
    #[serde(flatten)]
    pub stats: FitStats,
    pub dataset: DatasetInfo,
}

impl RefitResult {
    pub fn of(fit: &Fit, excluded: Vec<String>, data: &DataSource, scale: &Scale) -> Self {
        RefitResult {
            head: FitHead::of(fit),
            scale: scale.info(),
            excluded,
            stats: FitStats::of(fit, scale),
            dataset: data.info().clone(),
        }
    }
}

/// A fit's printed summary: its headline ([`headline`]), then `print.rma.uni`'s body.
impl Printed for RefitResult {
    fn print(&self, out: &mut Out) {
        self.headline(out);
        self.stats.body(&self.head, &self.scale).print(out);
    }
}

impl RefitResult {
    /// The headline of the fit and the ids left out (a plot's summary).
    pub fn headline(&self, out: &mut Out) {
        headline(out, &self.head, &self.scale, &self.stats, &self.excluded);
    }
}

/// `est [lower, upper] (95% CI; random-effects REML, k = 19)`, on the natural scale when
/// there is one, then the ids left out.
pub fn headline(
    out: &mut Out,
    head: &FitHead,
    scale: &ScaleInfo,
    stats: &FitStats,
    excluded: &[String],
) {
    let natural = stats
        .natural
        .as_ref()
        .map(|n| [n.estimate, n.ci_lower, n.ci_upper]);
    out.line(estimate_headline(
        (scale.measure.as_deref(), &scale.transform),
        [stats.estimate, stats.fit.ci_lower, stats.fit.ci_upper],
        natural,
        head.level,
        &model_context(Some(&head.method), head.k, Some(&head.test)),
    ));
    excluded_line(out, excluded);
}

impl FitStats {
    /// The fit as `print.rma.uni` prints it. The engine's method, k, estimate, se and test
    /// are not serialized with [`Fit`]: they are read from the head and these stats.
    pub fn body<'a>(&self, head: &'a FitHead, scale: &ScaleInfo) -> InterceptFit<'a> {
        let fit = &self.fit;
        let test = match (self.t, self.df) {
            (Some(t), Some(df)) => EstimateTest::T { t, df },
            _ => EstimateTest::Z(self.z),
        };
        let natural = scale_labels(scale.measure.as_deref(), &scale.transform)
            .1
            .zip(self.natural.as_ref())
            .map(|(label, n)| NaturalEstimate {
                label,
                interval: [n.estimate, n.ci_lower, n.ci_upper],
                pi: n.pi_lower.zip(n.pi_upper),
            });
        InterceptFit {
            method: &head.method,
            k: head.k,
            tau2: fit.tau2,
            se_tau2: fit.se_tau2,
            i2: fit.i2,
            h2: fit.h2,
            q: fit.q,
            q_df: fit.q_df,
            q_p: fit.q_p,
            estimate: self.estimate,
            se: self.se,
            test,
            p: fit.p,
            ci_lower: fit.ci_lower,
            ci_upper: fit.ci_upper,
            natural,
        }
    }
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
