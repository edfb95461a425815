//! What the fits of `fit_random_effects`, `refit_excluding`, `leave_one_out` and the plots
//! share: a fit's head and numbers, written as the answer shape names them, and a refit's
//! result.

use super::data::{DataSource, DatasetInfo};
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::{ErrorCode, ToolError};
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

/// Whether a `fit_random_effects` call is drawn as a forest plot with its own arguments: only
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
