//! `leave_one_out`: the fit again without each record in turn.

use super::args::ExcludeFitArgs;
use super::data::{DataSource, DatasetInfo};
use super::fit::natural;
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::{Tool, ToolError, ToolGroup, MAX_LEAVE_ONE_OUT_RECORDS};
use crate::printed::{f4, frame_table, model_context, scale_labels, Out, Printed};
use meta_analysis::{Fit, Test};
use serde::Serialize;

pub static LEAVE_ONE_OUT: Tool = Tool {
    name: "leave_one_out",
    title: "Leave-one-out analysis",
    summary: "The fit again without each record in turn.",
    group: ToolGroup::Analysis,
    max_records: MAX_LEAVE_ONE_OUT_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "As metafor's leave1out(): one fit per record left out, in record order, `omitted` \
naming it."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(leave_one_out; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::{json, Value};
    let mut calls: Vec<Value> = examples::methods().map(|m| json!({"method": m})).collect();
    calls.push(json!({"records": examples::records()}));
    calls.push(json!({"exclude": ["s04"], "test": "knha", "level": 0.9}));
    calls
}

/// One row of `leave_one_out`: the fit without record `omitted`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LeaveOneOutRow {
    /// The id of the record left out.
    pub omitted: String,
    #[serde(flatten)]
    pub fit: Fit,
    /// The estimate, CI and prediction interval on the natural scale (null with transform
    /// "none").
    pub natural: Option<NaturalScale>,
}

/// `leave_one_out`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LeaveOneOutResult {
    pub method: crate::tools::Word,
    pub test: crate::tools::Word,
    pub level: f64,
    /// All records (each row fits k - 1).
    pub k: usize,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// One fit per record, in record order.
    pub results: Vec<LeaveOneOutRow>,
    pub dataset: DatasetInfo,
}

/// `leave_one_out`: each record left out in turn, of the records left after `exclude`.
pub fn leave_one_out(
    args: ExcludeFitArgs,
    data: &DataSource,
) -> Result<LeaveOneOutResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let excluded = args.exclude.of(data)?;
    let kept = data.kept(&excluded);
    let rows = meta_analysis::leave_one_out(&kept, &options)?;
    Ok(LeaveOneOutResult {
        method: options.method.name().into(),
        test: options.test.name().into(),
        level: options.level,
        k: kept.len(),
        scale: scale.info(),
        results: rows
            .iter()
            .map(|row| LeaveOneOutRow {
                omitted: row.id.clone(),
                natural: natural(&row.fit, &scale),
                fit: row.fit.clone(),
            })
            .collect(),
        dataset: data.info().clone(),
    })
}

impl Printed for LeaveOneOutResult {
    /// `print.list.rma` of `leave1out()`: one row per record left out, after a headline with
    /// the range of the estimates.
    fn print(&self, out: &mut Out) {
        let (lo, hi) = self
            .results
            .iter()
            .map(|r| r.fit.estimate)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            });
        let (model, _) = scale_labels(self.scale.measure.as_deref(), &self.scale.transform);
        out.line(format!(
            "Leave-one-out: {model} from {} to {} ({} refits; {})",
            f4(Some(lo)),
            f4(Some(hi)),
            self.results.len(),
            model_context(Some(&self.method), self.k, Some(&self.test))
        ));
        out.blank();
        let knha = self.test == Test::Knha.name();
        let rows: Vec<(String, Vec<String>)> = self
            .results
            .iter()
            .map(|r| {
                let fit = &r.fit;
                let cells = [
                    Some(fit.estimate),
                    Some(fit.se),
                    Some(fit.statistic),
                    Some(fit.p),
                    Some(fit.ci_lower),
                    Some(fit.ci_upper),
                    Some(fit.q),
                    Some(fit.q_p),
                    Some(fit.tau2),
                    Some(fit.i2),
                    Some(fit.h2),
                ];
                (r.omitted.clone(), cells.into_iter().map(f4).collect())
            })
            .collect();
        let stat = if knha { "tval" } else { "zval" };
        out.lines(frame_table(
            &[
                "estimate", "se", stat, "pval", "ci.lb", "ci.ub", "Q", "Qp", "tau2", "I2", "H2",
            ],
            &rows,
            1,
        ));
    }
}

/// `leave1out(rma(...))`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for ExcludeFitArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_methods, rma_of_fit};
        let options = self.fit.options()?;
        out.script.line(format!(
            "res <- leave1out({})",
            rma_of_fit(cx, &self.exclude.exclude, &self.fit)?
        ));
        let rows = cx.result["results"].as_array().cloned().unwrap_or_default();
        for (i, row) in rows.iter().enumerate() {
            let at = i + 1;
            out.check_at(format!("res$estimate[{at}]"), row, "/estimate")
                .check_at(format!("res$se[{at}]"), row, "/se")
                .check_at(format!("res$pval[{at}]"), row, "/p")
                .check_at(format!("res$ci.lb[{at}]"), row, "/ci_lower")
                .check_at(format!("res$Q[{at}]"), row, "/q");
            // leave1out() reports no tau^2 of an equal-effects model.
            if !matches!(
                options.method,
                meta_analysis::Method::Ee | meta_analysis::Method::Fe
            ) {
                out.check_at(format!("res$tau2[{at}]"), row, "/tau2");
            }
        }
        fit_methods(
            &mut out.methods,
            cx.result["measure"].as_str(),
            options.method,
            options.test,
            options.level,
            false,
        );
        out.methods.say(
            "A leave-one-out sensitivity analysis refitted the model with each study left out \
             in turn {}.",
            &[&crate::rcode::VIECHTBAUER_2010B],
        );
        Ok(())
    }
}
