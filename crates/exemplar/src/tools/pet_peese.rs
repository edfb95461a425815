//! `pet_peese`: the effect corrected for small-study effects by PET-PEESE.

use super::args::{DataArg, ExcludeArg, LevelArg};
use super::data::{DataSource, DatasetInfo};
use super::scale::{NaturalScale, Scale, ScaleArgs, ScaleInfo};
use super::{ErrorCode, Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
use meta_analysis::{
    Alternative, PetPeeseOptions, PetPeeseRegression, PetPeeseSummary, RegressionCoefficient, Test,
};
use crate::printed::{
    coefficient_table, excluded_line, f4, i2_h2_lines, interval, level_percent, model_line, pval,
    r_num, signif_legend, CoefficientRow, ModeratorTest, Out, Printed,
};
use serde::Serialize;

/// PET-PEESE's tests, the default (knha: lm's multiplicative error) first.
const TESTS: [Test; 2] = [Test::Knha, Test::Z];

/// The default level of PET's intercept test.
const DEFAULT_ALPHA: f64 = 0.05;

pub static PET_PEESE: Tool = Tool {
    name: "pet_peese",
    title: "PET-PEESE",
    summary: "The effect corrected for small-study effects.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "Stanley & Doucouliagos (2014): WLS of yi on sqrt(vi) (PET) and on vi (PEESE), \
weights 1/vi; PEESE's intercept if PET's intercept test rejects at alpha, else PET's. \
Needs 3 records, unequal vi."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(pet_peese; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![json!({}), json!({"test": "z", "alternative": "greater"})]
}

composed_args! {
    /// `pet_peese`'s arguments.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct PetPeeseArgs {
        /// knha: multiplicative error, t with k-2 df; z: fixed effect.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "test_schema"))]
        pub test: Option<String>,
        #[flat]
        pub level: LevelArg,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "alpha_schema"))]
        pub alpha: Option<f64>,
        /// Alternative of PET's intercept test.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "alternative_schema"))]
        pub alternative: Option<String>,
        #[flat]
        pub scale: ScaleArgs,
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
    }
}

#[cfg(feature = "definitions")]
fn test_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = TESTS.iter().map(|t| t.name()).collect();
    schemars::Schema::try_from(
        serde_json::json!({"type": "string", "enum": names, "default": names[0]}),
    )
    .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn alpha_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_ALPHA, "description": "Level of PET's intercept test."}))
        .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn alternative_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = Alternative::ALL.iter().map(|a| a.name()).collect();
    schemars::Schema::try_from(
        serde_json::json!({"type": "string", "enum": names, "default": names[0]}),
    )
    .expect("an object schema")
}

/// `pet_peese`'s result: the engine's, with the scale and the data the call analysed.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct PetPeeseResult {
    #[serde(flatten)]
    pub pet_peese: PetPeeseSummary,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// The chosen estimate and its CI on the natural scale (null with transform "none").
    pub natural: Option<NaturalScale>,
    /// The ids left out.
    pub excluded: Vec<String>,
    pub dataset: DatasetInfo,
}

/// `pet_peese`
pub fn pet_peese(args: PetPeeseArgs, data: &DataSource) -> Result<PetPeeseResult, ToolError> {
    let excluded = args.exclude.of(data)?;
    let kept = data.kept(&excluded);
    let invalid = |m: String| ToolError::new(ErrorCode::InvalidArguments, m);
    let test = match args.test.as_deref() {
        None => TESTS[0],
        Some(name) => Test::parse(name).ok_or_else(|| invalid(format!("unknown test {name:?}")))?,
    };
    let alternative = match args.alternative.as_deref() {
        None => Alternative::ALL[0],
        Some(name) => Alternative::parse(name)
            .ok_or_else(|| invalid(format!("unknown alternative {name:?}")))?,
    };
    let alpha = args.alpha.unwrap_or(DEFAULT_ALPHA);
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(invalid(format!(
            "alpha must be strictly between 0 and 1 (for example 0.05), got {alpha}"
        )));
    }
    let options = PetPeeseOptions {
        test,
        level: args.level.get()?,
        alpha,
        alternative,
    };
    let scale = Scale::of(&args.scale, data)?;
    let summary = meta_analysis::pet_peese(&kept, &options)?.summary();
    Ok(PetPeeseResult {
        scale: scale.info(),
        natural: scale.natural(summary.estimate, (summary.ci_lower, summary.ci_upper), None),
        pet_peese: summary,
        excluded,
        dataset: data.info().clone(),
    })
}

impl Printed for PetPeeseResult {
    /// PET and PEESE as the two equal-effects meta-regressions metafor users fit
    /// (`rma(yi, vi, mods = ~ sqrt(vi), method = "EE", test = "knha")` and `mods = ~ vi`),
    /// each printed as `print.rma.uni` prints it, then the conditional rule.
    fn print(&self, out: &mut Out) {
        let r = &self.pet_peese;
        let (choice, k, test) = (r.choice.name(), r.k, r.test.name());
        out.line(format!(
            "{} ({}; {choice} chosen, k = {k})",
            interval("Estimate", r.estimate, r.ci_lower, r.ci_upper),
            level_percent(r.level)
        ));
        excluded_line(out, &self.excluded);
        for (name, model, predictor) in [("PET", &r.pet, "sqrt(vi)"), ("PEESE", &r.peese, "vi")] {
            out.blank();
            out.line(format!(
                "{name}: rma(yi, vi, mods = ~ {predictor}, method = \"EE\", test = \"{test}\")"
            ));
            out.blank();
            print_regression(model, out, k, predictor);
        }
        out.blank();
        let alternative = match r.alternative {
            Alternative::TwoSided => "two-sided test".to_string(),
            a => format!("one-sided test (alternative {})", a.name()),
        };
        out.line(format!(
            "PET's intercept, {alternative}: p {} at alpha = {}: {choice} chosen",
            pval(Some(r.pet_intercept_p), true, false),
            r_num(r.alpha)
        ));
        signif_legend(out);
    }
}

/// `print.rma.uni` of the equal-effects regression of `k` records on `predictor`.
fn print_regression(model: &PetPeeseRegression, out: &mut Out, k: usize, predictor: &str) {
    model_line(out, "EE", k, false);
    out.blank();
    i2_h2_lines(out, Some(model.i2), Some(model.h2), Some(model.r2), false);
    out.blank();
    out.line("Test for Residual Heterogeneity:");
    out.line(format!(
        "QE(df = {}) = {}, p-val {}",
        model.qe_df,
        f4(Some(model.qe)),
        pval(Some(model.qe_p), true, false)
    ));
    out.blank();
    // One predictor: the test of moderators is the slope's test (F = t^2, QM = z^2).
    let stat = model.slope.statistic;
    let (heading, line) = ModeratorTest {
        qm: Some(stat * stat),
        qm_df: 1,
        qm_df2: model.df,
        qm_p: Some(model.slope.p),
    }
    .lines(&[2]);
    out.line(heading);
    out.line(line);
    out.blank();
    out.line("Model Results:");
    out.blank();
    let row = |name, c: &RegressionCoefficient| CoefficientRow {
        name,
        estimate: c.estimate,
        se: c.se,
        statistic: c.statistic,
        df: None,
        p: Some(c.p),
        ci_lower: c.ci_lower,
        ci_upper: c.ci_upper,
    };
    out.lines(coefficient_table(
        &[row("intrcpt", &model.intercept), row(predictor, &model.slope)],
        model.df,
    ));
}

/// PET and PEESE as `rma(yi, vi, mods = ~ sqrt(vi) | ~ vi, method = "EE")`, and `res` the
/// model the conditional rule chooses.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for PetPeeseArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, rma};
        use crate::rcode::{number, STANLEY_2014};
        let test = if self.test.as_deref() == Some("z") {
            meta_analysis::Test::Z
        } else {
            meta_analysis::Test::Knha
        };
        let level = self.level.get()?;
        let fit = |mods: &str| {
            let mut more = vec![format!("mods = {mods}")];
            more.extend(fit_arguments(meta_analysis::Method::Ee, level, test));
            rma(cx, &self.exclude.exclude, more)
        };
        let alpha = self.alpha.unwrap_or(0.05);
        let (df, quantile) = match test {
            meta_analysis::Test::Knha => (", df = pet$dfs", "pt"),
            meta_analysis::Test::Z => ("", "pnorm"),
        };
        let p = match self.alternative.as_deref() {
            Some("greater") => format!("{quantile}(pet$zval[1]{df}, lower.tail = FALSE)"),
            Some("less") => format!("{quantile}(pet$zval[1]{df})"),
            _ => "pet$pval[1]".to_string(),
        };
        out.script
            .line(format!("pet <- {}", fit("~ sqrt(vi)")))
            .line(format!("peese <- {}", fit("~ vi")))
            .comment("The conditional rule: PEESE where PET's test of the intercept rejects.")
            .line(format!("pet.p <- {p}"))
            .line(format!("res <- if (pet.p < {}) peese else pet", number(alpha)));
        let r = cx.result;
        for model in ["pet", "peese"] {
            for (j, term) in ["intercept", "slope"].into_iter().enumerate() {
                let at = j + 1;
                let c = format!("/{model}/{term}");
                out.check_at(format!("c(coef({model}))[{at}]"), r, &format!("{c}/estimate"))
                    .check_at(format!("{model}$se[{at}]"), r, &format!("{c}/se"))
                    .check_at(format!("{model}$pval[{at}]"), r, &format!("{c}/p"));
            }
            out.check_at(format!("{model}$QE"), r, &format!("/{model}/qe"));
        }
        out.check_at("pet.p", r, "/pet_intercept_p")
            .check_at("c(coef(res))[1]", r, "/estimate")
            .check_at("res$ci.lb[1]", r, "/ci_lower");
        out.methods.say(
            &format!(
                "Small-study effects were examined with PET-PEESE {{}}: weighted least-squares \
                 meta-regressions of the observed outcomes on their standard errors (PET) and \
                 on their sampling variances (PEESE), the PEESE intercept being the corrected \
                 estimate where PET's test of the intercept rejected at alpha = {}.",
                number(alpha)
            ),
            &[&STANLEY_2014],
        );
        Ok(())
    }
}
