//! `heterogeneity`: Q, tau^2, tau, I^2 and H^2 with Q-profile confidence intervals.

use super::args::{DataArg, ExcludeArg, LevelArg, MethodArg};
use super::data::{DataSource, DatasetInfo};
use super::{Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
use crate::printed::{f4, fcf, frame_table, level_percent, Out, Printed};
use meta_analysis::{BoundKind, HeterogeneityEstimates, HeterogeneityIntervals};
use serde::Serialize;

pub static HETEROGENEITY: Tool = Tool {
    name: "heterogeneity",
    title: "Heterogeneity and its CIs",
    summary: "Cochran's Q; tau^2, tau, I^2 and H^2 with their CIs.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "Q-profile confidence intervals (Viechtbauer 2007, as metafor's confint()), solved \
exactly. Method EE is refused."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(heterogeneity; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::{json, Value};
    let mut calls: Vec<Value> = examples::methods()
        .filter(|m| *m != "EE")
        .map(|m| json!({"method": m, "level": 0.9}))
        .collect();
    calls.push(json!({"records": examples::records()}));
    calls
}

composed_args! {
    /// `heterogeneity`'s arguments: the estimator, the level and exclusions (no test: it reports
    /// no pooled estimate).
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct HeterogeneityArgs {
        #[flat]
        pub method: MethodArg,
        #[flat]
        pub level: LevelArg,
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
    }
}

/// `heterogeneity`'s result: the engine's estimates, then how the intervals are computed,
/// notes and the data.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct HeterogeneityResult {
    #[serde(flatten)]
    pub estimates: HeterogeneityEstimates,
    /// How the intervals are computed.
    pub ci_method: CiMethod,
    /// Bounds that are not a root of the Q-profile equation, said in words (empty otherwise).
    pub notes: Vec<String>,
    pub dataset: DatasetInfo,
}

/// The interval method: Q-profile (Viechtbauer 2007).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub enum CiMethod {
    #[serde(rename = "Q-profile")]
    QProfile,
}

/// What a bound that is not a root means.
fn notes(h: &HeterogeneityIntervals) -> Vec<String> {
    let mut notes = Vec::new();
    let q = h.fit.q;
    if h.empty {
        // metafor's two lines (print.confint.rma), then the reason.
        notes.push("The upper and lower CI bounds for tau^2 both fall below 0.".into());
        notes.push("The CIs are therefore equal to the null/empty set.".into());
        notes.push(format!(
            "Q = {q:.4} is below even the lower chi-square quantile {:.4}, so no tau^2 >= 0 \
             is consistent with the data at this level.",
            h.chi2_lower
        ));
        return notes;
    }
    if h.lower.kind == BoundKind::Zero {
        notes.push(format!(
            "The lower bound is 0: Q = {q:.4} is below the upper chi-square quantile {:.4} \
             already at tau^2 = 0, so the interval starts at the edge of the parameter space.",
            h.chi2_upper
        ));
    }
    for (which, bound) in [("lower", h.lower), ("upper", h.upper)] {
        if bound.kind == BoundKind::BeyondSearch {
            notes.push(format!(
                "The {which} bound lies beyond tau^2 = {:e}, the end of the search range; \
                 that end is reported.",
                bound.tau2
            ));
        }
    }
    notes
}

/// `heterogeneity`
pub fn heterogeneity(
    args: HeterogeneityArgs,
    data: &DataSource,
) -> Result<HeterogeneityResult, ToolError> {
    let options = meta_analysis::FitOptions {
        method: args.method.get(),
        level: args.level.get()?,
        ..Default::default()
    };
    let excluded = args.exclude.of(data)?;
    let h = meta_analysis::heterogeneity_intervals(&data.kept(&excluded), &options)?;
    Ok(HeterogeneityResult {
        estimates: h.estimates(),
        ci_method: CiMethod::QProfile,
        notes: notes(&h),
        dataset: data.info().clone(),
    })
}

/// The estimates with their intervals, then `print.confint.rma`'s table and the notes.
impl Printed for HeterogeneityResult {
    fn print(&self, out: &mut Out) {
        let e = &self.estimates;
        // A null-set interval has no bounds: metafor prints each as "<" its edge.
        let bound = |b: String| {
            if e.empty {
                format!("<{b}")
            } else {
                b
            }
        };
        let ci_method = match self.ci_method {
            CiMethod::QProfile => "Q-profile",
        };
        out.line(format!(
            "tau^2 {} [{}, {}], I^2 {}% [{}, {}] ({}, {ci_method}; k = {})",
            f4(Some(e.tau2.estimate)),
            bound(f4(Some(e.tau2.lower))),
            bound(f4(Some(e.tau2.upper))),
            fcf(Some(e.i2.estimate), 2),
            bound(fcf(Some(e.i2.lower), 2)),
            bound(fcf(Some(e.i2.upper), 2)),
            level_percent(e.level),
            e.k
        ));
        out.blank();
        out.line(format!(
            "Heterogeneity (k = {}; tau^2 estimator: {})",
            e.k,
            e.method.name()
        ));
        out.blank();
        crate::printed::heterogeneity_test(out, e.q, e.q_df, e.q_p);
        out.blank();
        let row = |name: &str, [e, lo, hi]: [f64; 3]| {
            (
                name.to_string(),
                vec![f4(Some(e)), bound(f4(Some(lo))), bound(f4(Some(hi)))],
            )
        };
        out.lines(frame_table(
            &["estimate", "ci.lb", "ci.ub"],
            &[
                row("tau^2", [e.tau2.estimate, e.tau2.lower, e.tau2.upper]),
                row("tau", [e.tau.estimate, e.tau.lower, e.tau.upper]),
                row("I^2(%)", [e.i2.estimate, e.i2.lower, e.i2.upper]),
                row("H^2", [e.h2.estimate, e.h2.lower, e.h2.upper]),
            ],
            1,
        ));
        if !self.notes.is_empty() {
            out.blank();
            for note in &self.notes {
                out.line(note.as_str());
            }
        }
    }
}

/// `confint(rma(...))`: the Q-profile intervals of tau^2, tau, I^2 and H^2.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for HeterogeneityArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, rma};
        let method = self.method.get();
        let level = self.level.get()?;
        let fit = rma(
            cx,
            &self.exclude.exclude,
            fit_arguments(method, level, meta_analysis::Test::Z),
        );
        out.script.line(format!("fit <- {fit}"));
        out.script
            .line("res <- confint(fit, control = list(tol = 1e-12, maxiter = 1000))");
        let r = cx.result;
        out.check_at("fit$QE", r, "/q")
            .check_at("fit$QEp", r, "/q_p")
            .check_at("fit$tau2", r, "/tau2")
            .check_at("fit$I2", r, "/i2");
        for (row, field) in [(1, "tau2"), (2, "tau"), (3, "i2"), (4, "h2")] {
            for (col, bound) in [(2, "ci_lower"), (3, "ci_upper")] {
                out.check_at(
                    format!("res$random[{row}, {col}]"),
                    r,
                    &format!("/{field}_{bound}"),
                );
            }
        }
        super::reproduce::fit_methods(
            &mut out.methods,
            None,
            method,
            meta_analysis::Test::Z,
            level,
            false,
        );
        out.methods.say(
            "Confidence intervals for tau^2 and the related measures were obtained with the \
             Q-profile method {}.",
            &[&crate::rcode::Q_PROFILE_2007],
        );
        Ok(())
    }
}
