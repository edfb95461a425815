//! `trim_and_fill` and its plot, `trim_and_fill_plot`: Duval & Tweedie's trim-and-fill.

use super::args::TrimFillArgs;
use super::data::{DataSource, DatasetInfo};
use super::plot::title;
use super::scale::{NaturalScale, Scale, ScaleInfo};
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
    #[serde(flatten)]
    pub scale: ScaleInfo,
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
    /// 95% prediction interval of the adjusted fit.
    pub pi_lower: f64,
    pub pi_upper: f64,
    pub natural: Option<NaturalScale>,
    /// tau^2 of the adjusted fit.
    pub tau2: f64,
    /// The filled records, mirror images of the k0 most extreme records on the other side.
    pub filled: Vec<FilledRecord>,
    pub dataset: DatasetInfo,
}

impl TrimAndFillResult {
    fn of(t: &TrimAndFill, data: &DataSource, scale: &Scale) -> Self {
        TrimAndFillResult {
            estimator: t.estimator.name(),
            side: t.side.name(),
            k0: t.k0,
            se_k0: t.se_k0,
            k: t.fit.k,
            scale: scale.info(),
            estimate: t.fit.estimate,
            se: t.fit.se,
            statistic: t.fit.statistic,
            p: t.fit.p,
            ci_lower: t.fit.ci_lower,
            ci_upper: t.fit.ci_upper,
            pi_lower: t.fit.pi_lower,
            pi_upper: t.fit.pi_upper,
            natural: scale.natural(
                t.fit.estimate,
                (t.fit.ci_lower, t.fit.ci_upper),
                Some((t.fit.pi_lower, t.fit.pi_upper)),
            ),
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

fn run(
    args: TrimFillArgs,
    data: &DataSource,
) -> Result<(TrimAndFill, Vec<String>, Scale), ToolError> {
    let scale = Scale::of(&args.scale, data)?;
    let excluded = data.exclusions(args.exclude)?;
    let result = meta_analysis::trim_and_fill(
        &data.kept(&excluded),
        args.estimator.unwrap_or(Estimator::L0),
        args.side,
        args.method.unwrap_or_default(),
    )?;
    Ok((result, excluded, scale))
}

/// `trim_and_fill`
pub fn trim_and_fill(
    args: TrimFillArgs,
    data: &DataSource,
) -> Result<TrimAndFillResult, ToolError> {
    let (result, _, scale) = run(args, data)?;
    Ok(TrimAndFillResult::of(&result, data, &scale))
}

/// `trim_and_fill_plot`: the funnel plot with the filled records drawn open, centred on the
/// adjusted estimate.
pub fn trim_and_fill_plot(
    args: TrimFillArgs,
    data: &DataSource,
) -> Result<TrimAndFillPlotResult, ToolError> {
    let (result, excluded, scale) = run(args, data)?;
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
        x_label: &scale.axis_title(),
    })?;
    Ok(TrimAndFillPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        trim_and_fill: TrimAndFillResult::of(&result, data, &scale),
    })
}
