//! What `cumulative_meta_analysis` and its plot, `cumulative_forest_plot`, share: their
//! arguments, the ordered steps and the result.

use super::args::{ExcludeArg, FitArgs};
use super::columns::column_values;
use super::data::{DataSource, DatasetInfo};
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::ToolError;
use crate::printed::{estimate_headline, f4, frame_table, Out, Printed};
use meta_analysis::{CumulativeStep, FitOptions, Record, Test};
use serde::Serialize;

/// One step: the engine's fit of the records up to and including `added`, and its estimate
/// on the natural scale.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct CumulativeRow {
    #[serde(flatten)]
    pub step: CumulativeStep,
    /// estimate and CI on the natural scale (no prediction interval: null).
    pub natural: Option<NaturalScale>,
}

/// `cumulative_meta_analysis`' result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct CumulativeResult {
    /// The column the records were ordered by; null for record order.
    pub order_by: Option<String>,
    /// The test of each step from k = 2 on: "z" or "knha" (t with k - 1 df).
    pub test: crate::tools::Word,
    /// Confidence level of every step's interval.
    pub level: f64,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// One fit per step, in the order the records were added.
    pub results: Vec<CumulativeRow>,
    pub dataset: DatasetInfo,
}

impl CumulativeResult {
    /// The last step's estimate (all the records), and the order they were added in.
    pub(super) fn headline(&self, out: &mut Out) {
        let Some(last) = self.results.last() else {
            return;
        };
        let order = self
            .order_by
            .as_ref()
            .map(|o| format!("ordered by {o}"))
            .unwrap_or_else(|| "in record order".into());
        let step = &last.step;
        out.line(estimate_headline(
            (self.scale.measure.as_deref(), &*self.scale.transform),
            [step.estimate, step.ci_lower, step.ci_upper],
            last.natural
                .as_ref()
                .map(|n| [n.estimate, n.ci_lower, n.ci_upper]),
            self.level,
            &format!("cumulative, {order}, after {} records", step.k),
        ));
    }
}

impl Printed for CumulativeResult {
    /// `print.cumul.rma`: one row per step, named by the record added.
    fn print(&self, out: &mut Out) {
        if self.results.is_empty() {
            return;
        }
        self.headline(out);
        out.blank();
        let rows: Vec<(String, Vec<String>)> = self
            .results
            .iter()
            .map(|CumulativeRow { step: r, .. }| {
                let cells = [
                    r.estimate,
                    r.se,
                    r.statistic,
                    r.p,
                    r.ci_lower,
                    r.ci_upper,
                    r.q,
                    r.q_p,
                    r.tau2,
                    r.i2,
                    r.h2,
                ];
                (
                    r.added.clone(),
                    cells.into_iter().map(|x| f4(Some(x))).collect(),
                )
            })
            .collect();
        let stat = if self.test == Test::Knha.name() {
            "tval"
        } else {
            "zval"
        };
        out.lines(frame_table(
            &[
                "estimate", "se", stat, "pvals", "ci.lb", "ci.ub", "Q", "Qp", "tau2", "I2", "H2",
            ],
            &rows,
            1,
        ));
    }
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
    level: f64,
    data: &DataSource,
    scale: &Scale,
) -> CumulativeResult {
    CumulativeResult {
        order_by: args.order_by.clone(),
        test: args.fit.test.get().name().into(),
        level,
        scale: scale.info(),
        results: steps
            .iter()
            .map(|s| CumulativeRow {
                natural: scale.natural(s.estimate, (s.ci_lower, s.ci_upper), None),
                step: s.clone(),
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
        /// Order column (or id, yi, vi); default: record order.
        pub order_by: Option<String>,
        /// Descending order_by.
        #[serde(default)]
        pub descending: bool,
    }
}

/// `cumul(rma(...), order = <column>, decreasing = ...)`: `cumulative_meta_analysis`
/// registers it, and `cumulative_forest_plot`, whose script then draws `forest(res)`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for CumulativeArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_methods, rma_of_fit};
        let options = self.fit.options()?;
        // The plot's result holds the analysis (the object with its steps) beside its SVG.
        let drawn = cx.result.get("svg").and_then(|_| {
            cx.result
                .as_object()?
                .values()
                .find(|v| v.get("results").is_some())
        });
        let result = drawn.unwrap_or(cx.result);
        let mut args = vec![rma_of_fit(cx, &self.exclude.exclude, &self.fit)?];
        if let Some(column) = &self.order_by {
            args.push(format!("order = {}", crate::rcode::name(column)));
            if self.descending {
                args.push("decreasing = TRUE".into());
            }
        }
        out.script.line(format!(
            "res <- {}",
            crate::rcode::Script::call("cumul", &args)
        ));
        if drawn.is_some() {
            out.script.line("forest(res)");
        }
        for (i, row) in result["results"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let at = i + 1;
            out.check_at(format!("res$estimate[{at}]"), row, "/estimate")
                .check_at(format!("res$se[{at}]"), row, "/se")
                .check_at(format!("res$pval[{at}]"), row, "/p")
                .check_at(format!("res$ci.ub[{at}]"), row, "/ci_upper")
                .check_at(format!("res$Q[{at}]"), row, "/q");
            if !matches!(
                options.method,
                meta_analysis::Method::Ee | meta_analysis::Method::Fe
            ) {
                out.check_at(format!("res$tau2[{at}]"), row, "/tau2");
            }
        }
        fit_methods(
            &mut out.methods,
            result["measure"].as_str(),
            options.method,
            options.test,
            options.level,
            false,
        );
        let order = match &self.order_by {
            Some(column) => format!(" in order of {column:?}"),
            None => String::new(),
        };
        out.methods.say(
            &format!(
                "A cumulative meta-analysis {{}} added the studies one at a time{order}, \
                 refitting the model at each step."
            ),
            &[&crate::rcode::LAU_1992],
        );
        Ok(())
    }
}
