//! `fit_random_effects`, `refit_excluding` and `leave_one_out`: the pooled fit and its
//! variants, with results written as the answer shape names them.

use super::args::{ExcludeFitArgs, FitArgs};
use super::data::{DataSource, DatasetInfo};
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::{ErrorCode, ToolError};
use meta_analysis::{Fit, Test};
use serde::Serialize;

/// The model's description: method, test, level and k.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FitHead {
    /// The tau^2 estimator (REML, ML, DL, HE, SJ, PM or EE).
    pub method: &'static str,
    /// "z" or "knha".
    pub test: &'static str,
    /// Confidence level of the intervals.
    pub level: f64,
    /// Records fitted.
    pub k: usize,
}

/// The fitted numbers, in reading order.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// Two-sided p value of estimate = 0.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub tau2: f64,
    pub tau: f64,
    /// Standard error of tau^2; null where the estimator defines none (PM, EE).
    pub se_tau2: Option<f64>,
    /// Cochran's Q.
    pub q: f64,
    pub q_df: usize,
    pub q_p: f64,
    /// I^2 in percent.
    pub i2: f64,
    pub h2: f64,
    /// Prediction interval.
    pub pi_lower: f64,
    pub pi_upper: f64,
    pub natural: Option<NaturalScale>,
    /// Iterations of an iterative estimator; null for closed forms.
    pub iterations: Option<usize>,
}

impl FitHead {
    pub fn of(fit: &Fit) -> Self {
        FitHead {
            method: fit.method.name(),
            test: fit.test.name(),
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
            p: fit.p,
            ci_lower: fit.ci_lower,
            ci_upper: fit.ci_upper,
            tau2: fit.tau2,
            tau: fit.tau,
            se_tau2: fit.se_tau2,
            q: fit.q,
            q_df: fit.q_df,
            q_p: fit.q_p,
            i2: fit.i2,
            h2: fit.h2,
            pi_lower: fit.pi_lower,
            pi_upper: fit.pi_upper,
            natural: scale.natural(
                fit.estimate,
                (fit.ci_lower, fit.ci_upper),
                Some((fit.pi_lower, fit.pi_upper)),
            ),
            iterations: fit.iterations,
        }
    }
}

/// `fit_random_effects`' result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FitResult {
    #[serde(flatten)]
    pub head: FitHead,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    #[serde(flatten)]
    pub stats: FitStats,
    pub dataset: DatasetInfo,
}

/// A fit without some records: `refit_excluding`'s result, and the fit of the plots.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

/// One row of `leave_one_out`: the fit without record `omitted`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LeaveOneOutRow {
    /// The id of the record left out.
    pub omitted: String,
    #[serde(flatten)]
    pub head: FitHead,
    #[serde(flatten)]
    pub stats: FitStats,
}

/// `leave_one_out`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LeaveOneOutResult {
    pub method: &'static str,
    pub test: &'static str,
    pub level: f64,
    /// All records (each row fits k - 1).
    pub k: usize,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// One fit per record, in record order.
    pub results: Vec<LeaveOneOutRow>,
    pub dataset: DatasetInfo,
}

/// `fit_random_effects`
pub fn fit_random_effects(args: FitArgs, data: &DataSource) -> Result<FitResult, ToolError> {
    let scale = Scale::of(&args.scale, data)?;
    let fit = meta_analysis::fit(data.records(), &args.options()?)?;
    Ok(FitResult {
        head: FitHead::of(&fit),
        scale: scale.info(),
        stats: FitStats::of(&fit, &scale),
        dataset: data.info().clone(),
    })
}

/// `refit_excluding`
pub fn refit_excluding(args: ExcludeFitArgs, data: &DataSource) -> Result<RefitResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let excluded = data.exclusions(args.exclude)?;
    if excluded.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            "exclude must list at least one record id, e.g. [\"s04\"]",
        ));
    }
    let fit = meta_analysis::refit_excluding(data.records(), &excluded, &options)?;
    Ok(RefitResult::of(&fit, excluded, data, &scale))
}

/// `leave_one_out`: each record left out in turn, of the records left after `exclude`.
pub fn leave_one_out(
    args: ExcludeFitArgs,
    data: &DataSource,
) -> Result<LeaveOneOutResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let excluded = data.exclusions(args.exclude)?;
    let kept = data.kept(&excluded);
    let rows = meta_analysis::leave_one_out(&kept, &options)?;
    Ok(LeaveOneOutResult {
        method: options.method.name(),
        test: options.test.name(),
        level: options.level,
        k: kept.len(),
        scale: scale.info(),
        results: rows
            .iter()
            .map(|row| LeaveOneOutRow {
                omitted: row.id.clone(),
                head: FitHead::of(&row.fit),
                stats: FitStats::of(&row.fit, &scale),
            })
            .collect(),
        dataset: data.info().clone(),
    })
}
