//! What `trim_and_fill` and its plot, `trim_and_fill_plot`, share: their arguments, Duval
//! & Tweedie's trim-and-fill of the records kept, and its result.

use super::args::{DataArg, ExcludeArg, MethodArg};
use super::data::{DataSource, DatasetInfo};
use super::fit::natural_estimate;
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::ToolError;
use crate::printed::{estimate_headline, f4, pval, EstimateTest, InterceptFit, Out, Printed};
use meta_analysis::{Estimator, Side, TrimAndFill, TrimAndFillSummary};
use serde::Serialize;

/// `trim_and_fill`'s result: the engine's summary, then the scale, the natural-scale
/// estimate and the data.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TrimAndFillResult {
    #[serde(flatten)]
    pub summary: TrimAndFillSummary,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    pub natural: Option<NaturalScale>,
    pub dataset: DatasetInfo,
}

impl TrimAndFillResult {
    pub(super) fn of(t: &TrimAndFill, data: &DataSource, scale: &Scale) -> Self {
        TrimAndFillResult {
            summary: t.summary(),
            scale: scale.info(),
            natural: scale.natural(
                t.fit.estimate,
                (t.fit.ci_lower, t.fit.ci_upper),
                Some((t.fit.pi_lower, t.fit.pi_upper)),
            ),
            dataset: data.info().clone(),
        }
    }
}

/// The level of the adjusted fit's intervals (trimfill() refits at 95%).
const LEVEL: f64 = 0.95;

impl TrimAndFillResult {
    /// The adjusted estimate with its interval, how many were filled on which side.
    pub(super) fn headline(&self, out: &mut Out) {
        let t = &self.summary;
        let context = format!(
            "trim and fill {}, {} filled on the {} side, k = {}",
            t.estimator.name(),
            t.k0,
            t.side.name(),
            t.k
        );
        out.line(estimate_headline(
            (self.scale.measure.as_deref(), &*self.scale.transform),
            [t.estimate, t.ci_lower, t.ci_upper],
            self.natural
                .as_ref()
                .map(|n| [n.estimate, n.ci_lower, n.ci_upper]),
            LEVEL,
            &context,
        ));
    }
}

impl Printed for TrimAndFillResult {
    /// `print.rma.uni` of a `trimfill()` result: the estimated number of missing records (and
    /// for R0 its test), then the fit of the records and the filled ones.
    fn print(&self, out: &mut Out) {
        let t = &self.summary;
        self.headline(out);
        out.blank();
        let side = t.side.name();
        out.line(format!(
            "Estimated number of missing studies on the {side} side: {} (SE = {})",
            t.k0,
            f4(t.se_k0)
        ));
        if let Some(p) = t.k0_p {
            out.line(format!(
                "Test of H0: no missing studies on the {side} side:     {}p-val {}",
                " ".repeat(t.k0.to_string().len()),
                pval(Some(p), true, false)
            ));
        }
        InterceptFit {
            method: t.method.name(),
            k: t.k,
            tau2: t.tau2,
            se_tau2: t.se_tau2,
            i2: t.i2,
            h2: t.h2,
            q: t.q,
            q_df: t.q_df,
            q_p: t.q_p,
            estimate: t.estimate,
            se: t.se,
            test: EstimateTest::Z(Some(t.statistic)),
            p: t.p,
            ci_lower: t.ci_lower,
            ci_upper: t.ci_upper,
            natural: natural_estimate(&self.scale, self.natural.as_ref()),
        }
        .print(out);
    }
}

/// Trim-and-fill of the records left after `exclude`, with the ids left out and the scale.
pub(super) fn run(
    args: TrimFillArgs,
    data: &DataSource,
) -> Result<(TrimAndFill, Vec<String>, Scale), ToolError> {
    let scale = Scale::of(&args.scale, data)?;
    let excluded = args.exclude.of(data)?;
    let result = meta_analysis::trim_and_fill(
        &data.kept(&excluded),
        args.estimator.unwrap_or(Estimator::ALL[0]),
        args.side,
        args.method.get(),
    )?;
    Ok((result, excluded, scale))
}

composed_args! {
    /// The arguments of `trim_and_fill` and its plot.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct TrimFillArgs {
        #[serde(
            default,
            deserialize_with = "super::args::estimator",
            skip_serializing_if = "Option::is_none"
        )]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "estimator_schema"))]
        pub estimator: Option<Estimator>,
        #[serde(
            default,
            deserialize_with = "super::args::side",
            skip_serializing_if = "Option::is_none"
        )]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "side_schema"))]
        pub side: Option<Side>,
        #[flat]
        pub method: MethodArg,
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
        #[flat]
        pub scale: super::scale::ScaleArgs,
    }
}

#[cfg(feature = "definitions")]
fn estimator_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = Estimator::ALL.iter().map(|e| e.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "default": names[0], "description": "k0's estimator."}))
        .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn side_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = Side::ALL.iter().map(|s| s.name()).collect();
    schemars::Schema::try_from(
        serde_json::json!({"type": "string", "enum": names, "description": "Default: estimated."}),
    )
    .expect("an object schema")
}

/// `trimfill(rma(...), side = ..., estimator = ...)`: `trim_and_fill` registers it, and
/// `trim_and_fill_plot`, whose script then draws `funnel(res)`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for TrimFillArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, fit_checks, fit_methods, rma};
        use crate::rcode::string;
        let method = self.method.get();
        // The plot's result holds the analysis (the object with k0) beside its SVG.
        let drawn = cx.result.get("svg").and_then(|_| {
            cx.result
                .as_object()?
                .values()
                .find(|v| v.get("k0").is_some())
        });
        let result = drawn.unwrap_or(cx.result);
        let fit = rma(
            cx,
            &self.exclude.exclude,
            fit_arguments(method, 0.95, meta_analysis::Test::Z),
        );
        let mut args = vec![fit];
        if let Some(side) = result["side"].as_str() {
            args.push(format!("side = {}", string(side)));
        }
        if let Some(estimator) = result["estimator"].as_str() {
            args.push(format!("estimator = {}", string(estimator)));
        }
        // trimfill() passes `...` to each refit, which else stops at rma's default rule.
        if args[0].contains("control = ") {
            args.push("control = list(threshold = 1e-12, tol = 1e-15, maxiter = 1000)".into());
        }
        out.script.line(format!(
            "res <- {}",
            crate::rcode::Script::call("trimfill", &args)
        ));
        if drawn.is_some() {
            out.script.line("funnel(res)");
        }
        out.check_at("res$k0", result, "/k0");
        fit_checks(out, result);
        fit_methods(
            &mut out.methods,
            result["measure"].as_str(),
            method,
            meta_analysis::Test::Z,
            0.95,
            false,
        );
        out.methods.say(
            "The trim and fill method {} estimated the number of studies missing from one side \
             of the funnel plot, and the model was refitted with their mirror images filled in.",
            &[&crate::rcode::DUVAL_2000],
        );
        Ok(())
    }
}
