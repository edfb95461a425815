//! `trim_and_fill` and its plot, `trim_and_fill_plot`: Duval & Tweedie's trim-and-fill.

use super::args::TrimFillArgs;
use super::data::{DataSource, DatasetInfo};
use super::plot::{title, EFFECT_LABEL};
use super::ToolError;
use crate::plots::{self, Filled, FunnelInput};
use meta_analysis::{Estimator, TrimAndFill};
use serde::Serialize;
use serde_json::Value;

/// A filled record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FilledRecord {
    pub yi: f64,
    pub vi: f64,
}

/// `trim_and_fill`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TrimAndFillResult {
    /// "L0" or "R0".
    pub estimator: &'static str,
    /// "left" or "right": where records are estimated to be missing.
    pub side: &'static str,
    /// Estimated number of missing records.
    pub k0: usize,
    /// Standard error of k0; null where metafor's L0 variance formula is negative.
    pub se_k0: Option<f64>,
    /// Records in the adjusted fit: the records plus the k0 filled ones.
    pub k: usize,
    /// Adjusted pooled estimate (the fit of the records and the filled ones).
    pub estimate: f64,
    pub se: f64,
    /// z statistic of the adjusted estimate.
    pub statistic: f64,
    /// Two-sided p value of the adjusted estimate.
    pub p: f64,
    /// 95% confidence interval of the adjusted estimate.
    pub ci_lower: f64,
    pub ci_upper: f64,
    /// tau^2 of the adjusted fit.
    pub tau2: f64,
    /// The filled records, mirror images of the k0 most extreme records on the other side.
    pub filled: Vec<FilledRecord>,
    pub dataset: DatasetInfo,
}

impl TrimAndFillResult {
    fn of(t: &TrimAndFill, data: &DataSource) -> Self {
        TrimAndFillResult {
            estimator: t.estimator.name(),
            side: t.side.name(),
            k0: t.k0,
            se_k0: t.se_k0,
            k: t.fit.k,
            estimate: t.fit.estimate,
            se: t.fit.se,
            statistic: t.fit.statistic,
            p: t.fit.p,
            ci_lower: t.fit.ci_lower,
            ci_upper: t.fit.ci_upper,
            tau2: t.fit.tau2,
            filled: t
                .filled
                .iter()
                .map(|&(yi, vi)| FilledRecord { yi, vi })
                .collect(),
            dataset: data.info().clone(),
        }
    }
}

/// `trim_and_fill_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TrimAndFillPlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The trim-and-fill result drawn.
    pub trim_and_fill: TrimAndFillResult,
}

fn run(args: TrimFillArgs, data: &DataSource) -> Result<(TrimAndFill, Vec<String>), ToolError> {
    let excluded = data.exclusions(args.exclude)?;
    let result = meta_analysis::trim_and_fill(
        &data.kept(&excluded),
        args.estimator.unwrap_or(Estimator::L0),
        args.side,
        args.method.unwrap_or_default(),
    )?;
    Ok((result, excluded))
}

/// `trim_and_fill`
pub fn trim_and_fill(
    args: TrimFillArgs,
    data: &DataSource,
) -> Result<TrimAndFillResult, ToolError> {
    let (result, _) = run(args, data)?;
    Ok(TrimAndFillResult::of(&result, data))
}

/// `trim_and_fill_plot`: the funnel plot with the filled records drawn open, centred on the
/// adjusted estimate.
pub fn trim_and_fill_plot(
    args: TrimFillArgs,
    data: &DataSource,
) -> Result<TrimAndFillPlotResult, ToolError> {
    let (result, excluded) = run(args, data)?;
    let plot = plots::funnel(&FunnelInput {
        records: data.records(),
        excluded: &excluded,
        pooled: Some(result.fit.estimate),
        egger: None,
        filled: Some(Filled {
            records: &result.filled,
            estimator: result.estimator.name(),
            side: result.side.name(),
        }),
        title: &title("Trim-and-fill funnel", data),
        x_label: EFFECT_LABEL,
    })?;
    Ok(TrimAndFillPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        trim_and_fill: TrimAndFillResult::of(&result, data),
    })
}
