//! `cumulative_meta_analysis` and its plot, `cumulative_forest_plot`.

use super::args::CumulativeArgs;
use super::columns::column_values;
use super::data::{DataSource, DatasetInfo};
use super::plot::title;
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::ToolError;
use crate::plots::{self, CumulativeInput};
use meta_analysis::{CumulativeStep, FitOptions, Method, Record, Test};
use serde::Serialize;
use serde_json::Value;

/// One step: the fit of the records up to and including `added`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct CumulativeRow {
    /// The id of the record added at this step.
    pub added: String,
    /// Records pooled so far.
    pub k: usize,
    pub estimate: f64,
    pub se: f64,
    /// z (t with k - 1 df under test "knha", from k = 2 on; z at k = 1).
    pub statistic: f64,
    /// Two-sided p value of estimate = 0.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    /// estimate and CI on the natural scale (no prediction interval: null).
    pub natural: Option<NaturalScale>,
    pub tau2: f64,
    /// I^2 in percent.
    pub i2: f64,
    /// Cochran's Q.
    pub q: f64,
}

/// `cumulative_meta_analysis`' result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct CumulativeResult {
    /// The column the records were ordered by; null for record order.
    pub order_by: Option<String>,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// One fit per step, in the order the records were added.
    pub results: Vec<CumulativeRow>,
    pub dataset: DatasetInfo,
}

/// `cumulative_forest_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct CumulativePlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The cumulative meta-analysis drawn.
    pub cumulative: CumulativeResult,
}

/// The records not excluded, ordered by `order_by` (stable: ties keep record order, also
/// when descending), and the steps of the analysis.
fn run(
    args: &CumulativeArgs,
    data: &DataSource,
) -> Result<(Vec<CumulativeStep>, FitOptions), ToolError> {
    let options = args.fit.options()?;
    let excluded = data.exclusions(args.exclude.clone())?;
    let excluded = super::data::id_set(&excluded);
    let mut kept: Vec<(usize, &Record)> = data
        .records()
        .iter()
        .enumerate()
        .filter(|(_, r)| !excluded.contains(r.id.as_str()))
        .collect();
    if let Some(column) = &args.order_by {
        let values = column_values(data, column)?;
        kept.sort_by(|a, b| {
            let order = values[a.0].cmp(&values[b.0]);
            if args.descending {
                order.reverse()
            } else {
                order
            }
        });
    }
    let ordered: Vec<Record> = kept.into_iter().map(|(_, r)| r.clone()).collect();
    Ok((meta_analysis::cumulative(&ordered, &options)?, options))
}

fn result(
    args: &CumulativeArgs,
    steps: &[CumulativeStep],
    data: &DataSource,
    scale: &Scale,
) -> CumulativeResult {
    CumulativeResult {
        order_by: args.order_by.clone(),
        scale: scale.info(),
        results: steps
            .iter()
            .map(|s| CumulativeRow {
                added: s.added.clone(),
                k: s.k,
                estimate: s.estimate,
                se: s.se,
                statistic: s.statistic,
                p: s.p,
                ci_lower: s.ci_lower,
                ci_upper: s.ci_upper,
                natural: scale.natural(s.estimate, (s.ci_lower, s.ci_upper), None),
                tau2: s.tau2,
                i2: s.i2,
                q: s.q,
            })
            .collect(),
        dataset: data.info().clone(),
    }
}

/// `cumulative_meta_analysis`
pub fn cumulative_meta_analysis(
    args: CumulativeArgs,
    data: &DataSource,
) -> Result<CumulativeResult, ToolError> {
    let scale = Scale::of(&args.fit.scale, data)?;
    let (steps, _) = run(&args, data)?;
    Ok(result(&args, &steps, data, &scale))
}

/// `cumulative_forest_plot`
pub fn cumulative_forest_plot(
    args: CumulativeArgs,
    data: &DataSource,
) -> Result<CumulativePlotResult, ToolError> {
    let scale = Scale::of(&args.fit.scale, data)?;
    let (steps, options) = run(&args, data)?;
    let model = format!(
        "{} ({}), {}",
        if options.method == Method::Ee {
            "Equal-effects model"
        } else {
            "Random-effects model"
        },
        options.method.name(),
        match options.test {
            Test::Z => "z test",
            Test::Knha => "Knapp–Hartung test (z at k = 1)",
        }
    );
    let order = match &args.order_by {
        Some(column) => format!(
            "in {} order of {column} (ties in record order)",
            if args.descending {
                "descending"
            } else {
                "ascending"
            }
        ),
        None => "in record order".to_string(),
    };
    let plot = plots::cumulative(&CumulativeInput {
        steps: &steps,
        level: options.level,
        model: &model,
        order: &order,
        title: &title("Cumulative forest", data),
        x_label: &scale.natural_axis_title(),
        transform: scale.transform,
    })?;
    Ok(CumulativePlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        cumulative: result(&args, &steps, data, &scale),
    })
}
