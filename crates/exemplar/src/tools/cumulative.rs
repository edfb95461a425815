//! What `cumulative_meta_analysis` and its plot, `cumulative_forest_plot`, share: their
//! arguments, the ordered steps and the result.

use super::args::{ExcludeArg, FitArgs};
use super::columns::column_values;
use super::data::{DataSource, DatasetInfo};
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::ToolError;
use meta_analysis::{CumulativeStep, FitOptions, Record};
use serde::Serialize;

/// One step: the fit of the records up to and including `added`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
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
    /// The p value of Q (1 at k = 1).
    pub q_p: f64,
    /// H^2 (1 at k = 1).
    pub h2: f64,
}

/// `cumulative_meta_analysis`' result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct CumulativeResult {
    /// The column the records were ordered by; null for record order.
    pub order_by: Option<String>,
    /// The test of each step from k = 2 on: "z" or "knha" (t with k - 1 df).
    pub test: crate::tools::Word,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// One fit per step, in the order the records were added.
    pub results: Vec<CumulativeRow>,
    pub dataset: DatasetInfo,
}

/// The records not excluded, ordered by `order_by` (stable: ties keep record order, also
/// when descending), and the steps of the analysis.
pub(super) fn run(
    args: &CumulativeArgs,
    data: &DataSource,
) -> Result<(Vec<CumulativeStep>, FitOptions), ToolError> {
    let options = args.fit.options()?;
    let excluded = data.exclusions(args.exclude.exclude.clone())?;
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

/// The result of the steps.
pub(super) fn result(
    args: &CumulativeArgs,
    steps: &[CumulativeStep],
    data: &DataSource,
    scale: &Scale,
) -> CumulativeResult {
    CumulativeResult {
        order_by: args.order_by.clone(),
        test: args.fit.test.get().name().into(),
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
                q_p: s.q_p,
                h2: s.h2,
            })
            .collect(),
        dataset: data.info().clone(),
    }
}

composed_args! {
    /// The arguments of `cumulative_meta_analysis` and its plot.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct CumulativeArgs {
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub fit: FitArgs,
        /// Column giving the order, e.g. "year" (or id, yi, vi); default: record order.
        pub order_by: Option<String>,
        /// Descending order_by.
        #[serde(default)]
        pub descending: bool,
    }
}
