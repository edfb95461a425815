//! `egger_test`: Egger's regression test, and the benchmark's registered rule on the frozen
//! dataset (the rule belongs to the benchmark: other data get no rule outcome).

use super::args::{DataArg, ExcludeArg};
use super::data::{DataSource, DatasetInfo};
#[cfg(feature = "definitions")]
use super::schema_derivation as schemas;
use super::{Companion, Tool, ToolError, ToolGroup, FUNNEL_PLOT, MAX_TOOL_RECORDS};
use crate::protocol::{rule, RuleOutcome, RULE_TEXT};
use meta_analysis::{EggerResult, EggerVariant};
use crate::printed::{df, excluded_line, f4, pval, var, Out, Printed};
use serde::Serialize;

pub static EGGER_TEST: Tool = Tool {
    name: "egger_test",
    title: "Egger's regression test",
    summary: "Egger's test for funnel-plot asymmetry.",
    group: ToolGroup::Benchmark,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::same_arguments(&FUNNEL_PLOT)),
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "As metafor's regtest(): classic (the benchmark's test, model \"lm\"): t test of the \
intercept of OLS of yi/sqrt(vi) on 1/sqrt(vi); rma (regtest()'s default): z test of the slope of \
REML meta-regression on sqrt(vi). rule_outcome, frozen dataset only: {RULE_TEXT}. Needs 3 records, vi not all equal."
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(egger_test; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    ["classic", "rma"]
        .into_iter()
        .flat_map(|variant| {
            [
                json!({"variant": variant}),
                json!({"variant": variant, "exclude": ["s04"]}),
                json!({"variant": variant, "records": examples::records()}),
            ]
        })
        .collect()
}

/// `egger_test`'s result: the engine's test, then what the tool adds: metafor's words for
/// the model, the statistic and the coefficient, the ids left out and the benchmark's rule.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct EggerTestResult {
    #[serde(flatten)]
    pub test: EggerResult,
    /// The variant as metafor's regtest() names its model: "lm" (classic) or "rma"
    /// (regtest()'s default), so that neither is read as the other.
    pub model: RegtestModel,
    /// The model in print.regtest's words: "weighted regression with multiplicative
    /// dispersion" ("lm") or "mixed-effects meta-regression model" ("rma").
    pub model_description: crate::tools::Word,
    /// "t" (classic) or "z" (rma).
    pub statistic_name: crate::tools::Word,
    /// "intercept" (classic) or "slope on sqrt(vi)" (rma).
    pub coefficient_name: crate::tools::Word,
    /// The ids left out before the test.
    pub excluded: Vec<String>,
    /// The benchmark's registered rule, as text: for the frozen dataset only, else null.
    pub rule: Option<crate::tools::Word>,
    /// The registered rule applied to egger_p: for the frozen dataset only, else null (the
    /// rule belongs to the benchmark, not to other data).
    pub rule_outcome: Option<RuleOutcome>,
    pub dataset: DatasetInfo,
}

/// metafor's `regtest(model = ...)`: the classic test is the weighted regression `lm`, the
/// other the mixed-effects meta-regression `rma` (metafor's default).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub enum RegtestModel {
    #[serde(rename = "lm")]
    Lm,
    #[serde(rename = "rma")]
    Rma,
}

impl RegtestModel {
    /// regtest()'s name of the model (as serialized).
    pub fn name(self) -> &'static str {
        match self {
            RegtestModel::Lm => "lm",
            RegtestModel::Rma => "rma",
        }
    }

    /// print.regtest's words for the model.
    pub fn description(self) -> &'static str {
        match self {
            RegtestModel::Lm => "weighted regression with multiplicative dispersion",
            RegtestModel::Rma => "mixed-effects meta-regression model",
        }
    }
}

impl EggerTestResult {
    pub fn of(result: &EggerResult, excluded: Vec<String>, data: &DataSource) -> Self {
        let (statistic_name, coefficient_name, model) = match result.variant {
            EggerVariant::Classic => ("t", "intercept", RegtestModel::Lm),
            EggerVariant::Rma => ("z", "slope on sqrt(vi)", RegtestModel::Rma),
        };
        EggerTestResult {
            test: result.clone(),
            model,
            model_description: model.description().into(),
            statistic_name: statistic_name.into(),
            coefficient_name: coefficient_name.into(),
            excluded,
            rule: data.is_frozen().then_some(RULE_TEXT.into()),
            rule_outcome: benchmark_rule(result.p, data),
            dataset: data.info().clone(),
        }
    }
}

/// The registered rule's outcome for `p`, on the frozen dataset only: the rule is the
/// benchmark's, and says nothing about other data.
pub fn benchmark_rule(p: f64, data: &DataSource) -> Option<RuleOutcome> {
    data.is_frozen().then(|| rule(p))
}

composed_args! {
    /// `egger_test`'s arguments.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct EggerArgs {
        /// The test.
        #[serde(
            default,
            deserialize_with = "super::args::variant",
            skip_serializing_if = "Option::is_none"
        )]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::variant"))]
        pub variant: Option<EggerVariant>,
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
    }
}

/// The test of `variant` (default classic) on the records left after `exclude`, with the
/// ids left out.
pub fn run_egger(
    variant: Option<EggerVariant>,
    exclude: ExcludeArg,
    data: &DataSource,
) -> Result<(EggerResult, Vec<String>), ToolError> {
    let excluded = exclude.of(data)?;
    let kept = data.kept(&excluded);
    let variant = variant.unwrap_or(EggerVariant::ALL[0]);
    Ok((meta_analysis::egger_test(&kept, variant)?, excluded))
}

/// `egger_test`
pub fn egger_test(args: EggerArgs, data: &DataSource) -> Result<EggerTestResult, ToolError> {
    let (result, excluded) = run_egger(args.variant, args.exclude, data)?;
    Ok(EggerTestResult::of(&result, excluded, data))
}

impl Printed for EggerTestResult {
    /// `print.regtest`, after a headline naming the variant and metafor's model (so that the
    /// classic test, "lm", is not read as regtest()'s default, "rma").
    fn print(&self, out: &mut Out) {
        let t = &self.test;
        let stat_name = &self.statistic_name;
        let p = pval(Some(t.p), true, false);
        let statistic = f4(Some(t.statistic));
        let test = match t.df {
            Some(d) => format!("{stat_name} = {statistic}, df = {}, p {p}", df(d)),
            None => format!("{stat_name} = {statistic}, p {p}"),
        };
        let outcome = self
            .rule_outcome
            .map(|o| format!("; rule: {}", o.name()))
            .unwrap_or_default();
        let model = self.model.name();
        let words = &self.model_description;
        out.line(format!(
            "Egger's test, {} (regtest model \"{model}\", {words}): {test} (k = {}{outcome})",
            t.variant.name(),
            t.k
        ));
        excluded_line(out, &self.excluded);
        out.blank();
        out.line("Regression Test for Funnel Plot Asymmetry");
        out.blank();
        out.line(format!("Model:     {words}"));
        out.line("Predictor: standard error");
        out.blank();
        out.line(format!("Test for Funnel Plot Asymmetry: {test}"));
        out.line(format!(
            "Limit Estimate (as sei -> 0):   b = {} (CI: {}, {})",
            f4(Some(t.line_at_se0)),
            f4(Some(t.limit_ci_lower)),
            f4(Some(t.limit_ci_upper))
        ));
        out.line(format!(
            "Coefficient ({}): {} (SE = {})",
            self.coefficient_name,
            f4(Some(t.coefficient)),
            f4(Some(t.se))
        ));
        if let Some(tau2) = t.tau2 {
            out.line(format!("tau^2 of the regression: {}", var(Some(tau2))));
        }
        if let (Some(rule), Some(outcome)) = (&self.rule, self.rule_outcome) {
            out.blank();
            out.line(format!("Registered rule ({rule}): {}", outcome.name()));
        }
    }
}

/// `regtest(yi, vi, model = "lm")` (classic) or `regtest(rma(...))` (rma).
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for EggerArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, record_arguments, rma};
        use crate::rcode::{EGGER_1997, STERNE_2005};
        let variant = self.variant.unwrap_or(EggerVariant::ALL[0]);
        let excluded = &self.exclude.exclude;
        let call = if variant == EggerVariant::ALL[0] {
            let mut args = vec!["yi".to_string(), "vi".into(), "data = dat".into()];
            args.extend(record_arguments(cx, excluded));
            args.push("model = \"lm\"".into());
            crate::rcode::Script::call("regtest", &args)
        } else {
            let fit = rma(
                cx,
                excluded,
                fit_arguments(meta_analysis::Method::Reml, 0.95, meta_analysis::Test::Z),
            );
            format!("regtest({fit}, model = \"rma\")")
        };
        out.script.line(format!("res <- {call}"));
        let r = cx.result;
        out.check_at("res$zval", r, "/statistic")
            .check_at("res$pval", r, "/egger_p")
            .check_at("res$est", r, "/limit_estimate")
            .check_at("res$ci.lb", r, "/limit_ci_lower")
            .check_at("res$ci.ub", r, "/limit_ci_upper")
            .check_at("coef(res$fit)[2]", r, "/coefficient")
            .check_at("sqrt(diag(vcov(res$fit)))[2]", r, "/se");
        let how = if variant == EggerVariant::ALL[0] {
            "a weighted regression with multiplicative dispersion of the observed outcomes on \
             their standard errors {} (Egger's test), with a t test of the coefficient of the \
             standard error"
        } else {
            "a mixed-effects meta-regression of the observed outcomes on their standard \
             errors, with tau^2 estimated by restricted maximum likelihood {}, and a z test of \
             the coefficient of the standard error"
        };
        out.methods.say(
            &format!("Funnel plot asymmetry was tested with {how}."),
            &[&EGGER_1997, &STERNE_2005],
        );
        Ok(())
    }
}
