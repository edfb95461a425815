//! `fit_multilevel`: the three-level random-effects model for several effect sizes per
//! study (metafor's `rma.mv(yi, vi, random = ~ 1 | study/id)`).

use super::args::{model_data, BttArg};
use super::data::{DataSource, DatasetInfo};
use super::data::Omitted;
use super::multilevel::{labels, MultilevelArgs};
use super::multilevel_general::{fit_general, Dfs, GeneralFields, How, Printing, RandomArgs};
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::vcalc_arg::ReturnVArg;
use super::{Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
use crate::printable::{label, LABEL_CHARS};
use crate::printed::{
    coefficient_table, default_btt, df, dropped_line, estimate_headline, f4, frame_table,
    natural_block, notes_and_omitted_lines, pval, scale_labels, signif_legend, stars,
    vector_table, CoefficientRow, ModeratorTest, Out, Printed,
};
use meta_analysis::{BoundKind, Multilevel};
use serde::Serialize;
#[cfg(feature = "extended")]
use serde_json::Value;

pub static FIT_MULTILEVEL: Tool = Tool {
    name: "fit_multilevel",
    title: "Three-level meta-analysis",
    summary: "Several effect sizes per study.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "metafor's rma.mv: by default the three-level model, with random = ~ 1 | study/id.".to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(fit_multilevel; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![
        json!({"records": examples::nested()}),
        json!({"records": examples::nested(), "mods": ["x"], "method": "ML", "test": "t", "exclude": ["e1"]}),
        json!({"records": examples::multivariate(), "random": "~ outcome | trial", "struct": "UN",
               "V": {"cluster": "trial", "columns": ["v1i", "v2i"]}, "mods": "~ outcome - 1"}),
        json!({"records": examples::nested(), "random": ["~ 1 | study", "~ 1 | x"], "sigma2": [null, 0.01], "test": "t"}),
        json!({"records": examples::nested(), "mods": ["x"], "test": "t", "dfs": "contain"}),
        json!({"records": examples::multivariate(), "random": "~ outcome | trial", "struct": "HCS",
               "V": {"cluster": "trial", "columns": ["v1i", "v2i"]}}),
    ]
}

/// `fit_multilevel`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MultilevelResult {
    /// Records fitted.
    pub k: usize,
    /// Studies (the outer level).
    pub n_studies: usize,
    /// The column naming the studies.
    pub study: String,
    /// "REML" or "ML".
    pub method: crate::tools::Word,
    /// "z" or "t".
    pub test: crate::tools::Word,
    pub level: f64,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// [between studies, within studies]: sigma^2 of the study level and of the effect sizes within a study.
    pub sigma2: Vec<f64>,
    /// Profile-likelihood lower bounds of sigma2 (0 when the profile at 0 is inside the interval).
    pub sigma2_ci_lower: Vec<f64>,
    /// Profile-likelihood upper bounds of sigma2 (null when beyond the search range).
    pub sigma2_ci_upper: Vec<Option<f64>>,
    /// Without moderators: the pooled estimate (else null).
    pub estimate: Option<f64>,
    pub se: Option<f64>,
    /// z, or t with k - p df.
    pub statistic: Option<f64>,
    /// k - p with test "t", else null.
    pub df: Option<f64>,
    pub p: Option<f64>,
    pub ci_lower: Option<f64>,
    pub ci_upper: Option<f64>,
    /// Prediction interval of a new effect size (without moderators; else null).
    pub pi_lower: Option<f64>,
    pub pi_upper: Option<f64>,
    /// Without moderators and with a transform: the pooled estimate and its intervals on the
    /// natural scale (else null).
    pub natural: Option<NaturalScale>,
    /// The tests, log-likelihood and coefficients.
    #[serde(flatten)]
    pub model: Multilevel,
    /// Sentences on bounds at 0 or beyond the search range.
    pub notes: Vec<String>,
    /// The moderators' formula, as metafor writes it (null without mods).
    pub formula: Option<String>,
    /// Coefficients dropped as aliased: design columns that are linear combinations of the
    /// intercept and the columns before them (an interaction with an empty cell), dropped as
    /// metafor drops them ("Redundant predictors dropped from the model."); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// Records left out because a column the model reads (the moderators', `study`) has no
    /// value there (metafor's na.omit); `k` counts the records fitted.
    pub omitted: Vec<Omitted>,
    pub dataset: DatasetInfo,
    /// General models only (`random`, `struct`, `V` or a fixed component given).
    #[serde(flatten)]
    pub general: GeneralFields,
}

composed_args! {
    /// `fit_multilevel`'s arguments: the three-level model's, and the general model's.
    #[derive(Debug, Default)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct FitMultilevelArgs {
        #[flat]
        pub model: MultilevelArgs,
        #[flat]
        pub general: RandomArgs,
        #[flat]
        pub btt: BttArg,
        #[flat]
        pub return_v: ReturnVArg,
        // With test t: residual (k-p df) or contain (metafor's dfs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "dfs_schema"))]
        pub dfs: Option<String>,
    }
}

/// `dfs`: one of [`Dfs::ALL`].
#[cfg(feature = "definitions")]
fn dfs_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = Dfs::ALL.iter().map(|d| d.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names,
        "default": names[0], "description": "t's df."}))
        .expect("an object schema")
}

/// `fit_multilevel`
pub fn fit_multilevel(
    args: FitMultilevelArgs,
    data: &DataSource,
) -> Result<MultilevelResult, ToolError> {
    let dfs = match args.dfs.as_deref() {
        None => Dfs::default(),
        Some(name) => Dfs::parse(name).ok_or_else(|| {
            super::multilevel::invalid(format!(
                "dfs must be \"residual\" or \"contain\", got {name:?}"
            ))
        })?,
    };
    // dfs "contain" is the general model's rule: the three-level model is then fitted as
    // `~ 1 | study/id` by the general engine.
    if args.general.given() || dfs == Dfs::Contain {
        let scale = Scale::of(&args.model.scale, data)?;
        let btt = args.btt.get()?;
        let how = How {
            btt: btt.as_ref(),
            dfs,
            return_v: args.return_v.return_v == Some(true),
        };
        let mut g = fit_general(args.model, &args.general, how, data)?;
        let single = g.model.p == 1;
        let c0 = g.model.coefficients[0].clone();
        let ci = (c0.ci_lower, c0.ci_upper);
        for row in &mut g.general.pi_levels {
            row.natural = scale.natural(c0.estimate, ci, Some((row.pi_lower, row.pi_upper)));
        }
        let natural = single
            .then(|| scale.natural(c0.estimate, ci, g.pi))
            .flatten();
        return Ok(MultilevelResult {
            k: g.k,
            n_studies: g.n_studies,
            study: g.study,
            method: g.model.method.name().into(),
            test: g.model.test.name().into(),
            level: g.model.level,
            scale: scale.info(),
            sigma2: g.sigma2,
            sigma2_ci_lower: Vec::new(),
            sigma2_ci_upper: Vec::new(),
            estimate: single.then_some(c0.estimate),
            se: single.then_some(c0.se),
            statistic: single.then_some(c0.statistic),
            df: g.df,
            p: single.then_some(c0.p),
            ci_lower: single.then_some(c0.ci_lower),
            ci_upper: single.then_some(c0.ci_upper),
            pi_lower: g.pi.map(|p| p.0),
            pi_upper: g.pi.map(|p| p.1),
            natural,
            model: g.model,
            notes: g.notes,
            formula: g.data.formula_text(),
            dropped: g.data.dropped(),
            omitted: g.data.omitted,
            dataset: DatasetInfo {
                notes: g.data.notes,
                ..data.info().clone()
            },
            general: g.general,
        });
    }
    if args.return_v.return_v == Some(true) {
        return Err(super::multilevel::invalid(
            "return_v returns a V given by V or vcalc; without them V is diagonal (vi)".into(),
        ));
    }
    if args.btt.btt.is_some() {
        return Err(super::multilevel::invalid(
            "btt applies to general models (give random); the three-level model tests all but \
             the intercept"
                .into(),
        ));
    }
    three_level(args.model, data)
}

/// The three-level model `~ 1 | study/id` with diagonal V.
fn three_level(args: MultilevelArgs, data: &DataSource) -> Result<MultilevelResult, ToolError> {
    let options = args.options()?;
    let scale = Scale::of(&args.scale, data)?;
    let study = args.study.get().to_string();
    let excluded = args.exclude.of(data)?;
    let model_data = model_data(args.mods.mods.as_ref(), &[&study], excluded, data)?;
    let excluded = &model_data.excluded;
    let studies = labels(data, &study, "study", excluded)?;
    let kept = data.kept(excluded);
    let model = match model_data.matrix() {
        Some(design) => meta_analysis::multilevel_design(&kept, &studies, design, &options)?,
        None => meta_analysis::multilevel(&kept, &studies, &[], &options)?,
    };
    let intervals = model.profile_intervals()?;
    let mut notes = Vec::new();
    let which = ["between-study", "within-study"];
    for (r, ci) in intervals.iter().enumerate() {
        if ci.lower.kind == BoundKind::Zero {
            notes.push(format!(
                "The lower bound of the {} sigma^2 is 0: the profile likelihood at 0 lies inside \
                 the interval.",
                which[r]
            ));
        }
        if ci.upper.kind == BoundKind::BeyondSearch {
            notes.push(format!(
                "The upper bound of the {} sigma^2 lies beyond {} (the search range), so it is \
                 reported as null.",
                which[r], ci.upper.tau2
            ));
        }
    }
    let single = model.p == 1;
    let c0 = &model.coefficients[0];
    let natural = if single {
        scale.natural(
            c0.estimate,
            (c0.ci_lower, c0.ci_upper),
            model.pi_lower.zip(model.pi_upper),
        )
    } else {
        None
    };
    Ok(MultilevelResult {
        k: model.k,
        n_studies: model.n_studies,
        study,
        method: model.method.name().into(),
        test: model.test.name().into(),
        level: model.level,
        scale: scale.info(),
        sigma2: model.sigma2.to_vec(),
        sigma2_ci_lower: intervals.iter().map(|c| c.lower.tau2).collect(),
        sigma2_ci_upper: intervals
            .iter()
            .map(|c| (c.upper.kind != BoundKind::BeyondSearch).then_some(c.upper.tau2))
            .collect(),
        estimate: single.then_some(c0.estimate),
        se: single.then_some(c0.se),
        statistic: single.then_some(c0.statistic),
        df: model.df,
        p: single.then_some(c0.p),
        ci_lower: single.then_some(c0.ci_lower),
        ci_upper: single.then_some(c0.ci_upper),
        pi_lower: model.pi_lower,
        pi_upper: model.pi_upper,
        natural,
        model,
        notes,
        formula: model_data.formula_text(),
        dropped: model_data.dropped(),
        omitted: model_data.omitted,
        dataset: DatasetInfo {
            notes: model_data.notes,
            ..data.info().clone()
        },
        general: GeneralFields::default(),
    })
}

/// `print.rma.mv` of the three-level model, after the pooled estimate (or the moderators'
/// test) as headline. The engine's k, method, test, sigma2 and df are not serialized with
/// [`Multilevel`]: they are read from the result's own fields.
impl Printed for MultilevelResult {
    fn print(&self, out: &mut Out) {
        if !self.general.structure.is_empty() {
            let printing = Printing {
                k: self.k,
                method: &self.method,
                test: &self.test,
                df: self.df,
                sigma2: &self.sigma2,
                model: &self.model,
                notes: &self.notes,
            };
            return self.general.print(&printing, out);
        }
        let k = self.k;
        let coefficients = &self.model.coefficients;
        let names: Vec<&str> = coefficients.iter().map(|c| c.name.as_str()).collect();
        let btt = default_btt(&names);
        // Intercept only: one coefficient, the intercept (`~ 0 + x` has one that is a slope).
        let int_only = coefficients.len() <= 1 && btt.is_empty();
        let moderator_test = ModeratorTest {
            qm: self.model.qm,
            qm_df: self.model.qm_df,
            qm_df2: self.model.qm_df2.map(|d| d as f64),
            qm_p: self.model.qm_p,
        };
        if !self.headline(out, int_only, &btt, &moderator_test) {
            return;
        }
        notes_and_omitted_lines(
            out,
            &self.dataset.notes,
            self.omitted.iter().map(|o| o.id.as_str()),
        );
        dropped_line(out, &self.dropped);
        out.blank();
        out.line(format!(
            "Multivariate Meta-Analysis Model (k = {k}; method: {})",
            self.method
        ));
        out.blank();
        self.variance_components(out);
        out.blank();
        let (heading, q) = if int_only {
            ("Test for Heterogeneity:", "Q")
        } else {
            ("Test for Residual Heterogeneity:", "QE")
        };
        out.line(heading);
        out.line(format!(
            "{q}(df = {}) = {}, p-val {}",
            self.model.qe_df,
            f4(Some(self.model.qe)),
            pval(Some(self.model.qe_p), true, false)
        ));
        // print.rma.mv tests the moderators only with more than one coefficient (with one,
        // QM is its z^2).
        if !int_only && coefficients.len() > 1 {
            out.blank();
            let (heading, line) = moderator_test.lines(&btt);
            out.line(heading);
            out.line(line);
        }
        out.blank();
        out.line("Model Results:");
        out.blank();
        self.model_results(out, int_only);
        for note in &self.notes {
            out.blank();
            out.line(note.as_str());
        }
        signif_legend(out);
    }
}

impl MultilevelResult {
    /// The headline: the pooled estimate of a model without moderators, else the test of
    /// the moderators; false when there is none to print (a pooled estimate without its
    /// interval), and then no summary.
    fn headline(
        &self,
        out: &mut Out,
        int_only: bool,
        btt: &[u64],
        moderator_test: &ModeratorTest,
    ) -> bool {
        let k = self.k;
        match (self.estimate, self.ci_lower, self.ci_upper) {
            (Some(estimate), Some(lower), Some(upper)) if int_only => {
                let natural = self
                    .natural
                    .as_ref()
                    .map(|n| [n.estimate, n.ci_lower, n.ci_upper]);
                out.line(estimate_headline(
                    (self.scale.measure.as_deref(), &self.scale.transform),
                    [estimate, lower, upper],
                    natural,
                    self.level,
                    &format!(
                        "three-level ({}), k = {k} in {} studies",
                        self.method, self.n_studies
                    ),
                ));
            }
            // A pooled estimate without its interval has no headline, and no summary.
            (Some(_), _, _) if int_only => return false,
            _ => {
                let (_, test) = moderator_test.lines(btt);
                out.line(format!(
                    "Moderators {}: {} (three-level, k = {k})",
                    self.formula.as_deref().unwrap_or(""),
                    test.replace(", p-val ", ", p ")
                ));
            }
        }
        true
    }

    /// print.rma.mv's variance components: sigma^2 between studies and within them, with
    /// their levels and factors.
    fn variance_components(&self, out: &mut Out) {
        let k = self.k;
        out.line("Variance Components:");
        out.blank();
        let nlvls = [self.n_studies, k];
        let study = label(&self.study, LABEL_CHARS);
        let factors = [study.clone(), format!("{study}/id")];
        let rows: Vec<(String, Vec<String>)> = self
            .sigma2
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                (
                    format!("sigma^2.{}", i + 1),
                    vec![
                        f4(Some(s)),
                        f4(Some(s.sqrt())),
                        nlvls.get(i).map_or("NA".into(), usize::to_string),
                        "no".into(),
                        factors.get(i).cloned().unwrap_or_default(),
                    ],
                )
            })
            .collect();
        out.lines(frame_table(
            &["estim", "sqrt", "nlvls", "fixed", "factor"],
            &rows,
            2,
        ));
    }

    /// The coefficients (with their natural scale for a model without moderators).
    fn model_results(&self, out: &mut Out, int_only: bool) {
        let coefficients = &self.model.coefficients;
        let df_all = self.df.filter(|_| self.test != "z");
        if int_only {
            let Some(c) = coefficients.first() else {
                return;
            };
            let p = Some(c.p);
            let mut cols = vec![("estimate", f4(Some(c.estimate))), ("se", f4(Some(c.se)))];
            match df_all {
                Some(d) => {
                    cols.push(("tval", f4(Some(c.statistic))));
                    cols.push(("df", df(d)));
                }
                None => cols.push(("zval", f4(Some(c.statistic)))),
            }
            cols.extend([
                ("pval", pval(p, false, false)),
                ("ci.lb", f4(Some(c.ci_lower))),
                ("ci.ub", f4(Some(c.ci_upper))),
                ("", stars(p)),
            ]);
            out.lines(vector_table(&cols));
            let (_, natural_label) =
                scale_labels(self.scale.measure.as_deref(), &self.scale.transform);
            if let (Some(label), Some(n)) = (natural_label, &self.natural) {
                natural_block(
                    out,
                    &label,
                    [n.estimate, n.ci_lower, n.ci_upper],
                    n.pi_lower.zip(n.pi_upper),
                );
            }
        } else {
            let rows: Vec<CoefficientRow> = coefficients
                .iter()
                .map(|c| CoefficientRow {
                    name: &c.name,
                    estimate: c.estimate,
                    se: c.se,
                    statistic: c.statistic,
                    df: None,
                    p: Some(c.p),
                    ci_lower: c.ci_lower,
                    ci_upper: c.ci_upper,
                })
                .collect();
            out.lines(coefficient_table(&rows, df_all));
        }
    }
}

/// `rma.mv(yi, V, mods, random, struct, sigma2/tau2/rho, subset, method, test, level, btt)`,
/// V the diagonal vi, or built in R from `V`'s columns or by `vcalc()`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for FitMultilevelArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use crate::rcode::Script;
        let options = self.model.options()?;
        let r = cx.result;
        let RmaMv {
            args,
            random: terms,
            short,
        } = rma_mv_arguments(self, cx, out)?;
        out.script
            .line(format!("res <- {}", Script::call("rma.mv", &args)));
        let numbers = |key: &str| result_numbers(r, key);
        for (j, _) in r["coefficients"].as_array().into_iter().flatten().enumerate() {
            let at = j + 1;
            let c = format!("/coefficients/{j}");
            out.check_at(format!("c(coef(res))[{at}]"), r, &format!("{c}/estimate"))
                .check_at(format!("res$se[{at}]"), r, &format!("{c}/se"))
                .check_at(format!("res$pval[{at}]"), r, &format!("{c}/p"))
                .check_at(format!("res$ci.lb[{at}]"), r, &format!("{c}/ci_lower"));
        }
        for key in ["sigma2", "tau2", "rho", "gamma2", "phi"] {
            for (i, x) in numbers(key).into_iter().enumerate() {
                out.check(format!("res${key}[{}]", i + 1), Some(x));
            }
        }
        out.check_at("res$QE", r, "/qe")
            .check_at("res$QEp", r, "/qe_p")
            .check_at("c(logLik(res))", r, "/loglik");
        if !short {
            // nlminb stops within about 1e-9 of the optimum (its finite differences), which
            // QM, a quadratic form in the coefficients, can amplify past 1e-8 (METHODS.md).
            out.loose(1e-6);
        }
        out.check_at("res$QM", r, "/qm")
            .check_at("res$QMp", r, "/qm_p");
        prediction_checks(r, out);
        multilevel_methods(out, options, r["measure"].as_str(), &terms);
        if self.general.vcalc.is_some() {
            out.methods.say(
                "The sampling covariances of effect sizes within a cluster were computed as \
                 metafor's vcalc() does, from the assumed correlations given in the R code.",
                &[],
            );
        } else if self.general.v.is_some() {
            out.methods.say(
                "The known sampling covariances of the effect sizes within a cluster were used.",
                &[],
            );
        }
        if short {
            out.methods.say(
                "Variance components at a bound of the parameter space (or of a structure for \
                 which metafor's optimizer stops short) are reported at the engine's optimum.",
                &[],
            );
        }
        Ok(())
    }
}

/// `rma.mv()`'s arguments for the model `args` describes, its random terms as R formulas,
/// and whether metafor stops short there (the components then fixed at the result's `sigma2`,
/// `tau2` and `rho`). The lines that build V come first in `out`'s script. Other tools that
/// fit this model in R (`robust_test`, `compare_models`) call it too.
#[cfg(feature = "extended")]
pub(super) fn rma_mv_arguments(
    args: &FitMultilevelArgs,
    cx: &super::reproduce::RContext,
    out: &mut super::reproduce::Reproduction,
) -> Result<RmaMv, ToolError> {
    use super::reproduce::record_arguments;
    use crate::rcode::{number, vector};
    let options = args.model.options()?;
    let r = cx.result;
    let v = known_v(args, cx, out)?;
    let random = r_random(args)?;
    let mut a = vec!["yi".to_string(), v, "data = dat".into()];
    if let Some(mods) = &args.model.mods.mods {
        a.push(format!("mods = {}", mods.formula()?.text()));
    }
    a.push(format!("random = {random}"));
    if let Some(s) = &args.general.structure {
        let list = match s {
            super::multilevel_general::OneOrMany::One(s) => vec![s.clone()],
            super::multilevel_general::OneOrMany::Many(v) => v.clone(),
        };
        a.push(format!("struct = {}", crate::rcode::strings(&list)));
    }
    let short = stops_short(r);
    a.extend(fixed_components(args, r, short, out));
    a.extend(record_arguments(cx, &args.model.exclude.exclude));
    a.push(format!("method = {}", crate::rcode::string(options.method.name())));
    if options.test == meta_analysis::MultilevelTest::T {
        a.push("test = \"t\"".into());
        if args.dfs.as_deref() == Some(Dfs::Contain.name()) {
            a.push("dfs = \"contain\"".into());
        }
    }
    if options.level != 0.95 {
        a.push(format!("level = {}", number(100.0 * options.level)));
    }
    if let Some(btt) = r["btt"].as_array().filter(|b| !b.is_empty()) {
        a.push(format!(
            "btt = {}",
            vector(btt.iter().map(|b| number(b.as_f64().unwrap_or(f64::NAN))))
        ));
    }
    a.push("control = list(rel.tol = 1e-10, iter.max = 10000, eval.max = 10000)".into());
    Ok(RmaMv {
        args: a,
        random,
        short,
    })
}

/// [`rma_mv_arguments`]' answer.
#[cfg(feature = "extended")]
pub(super) struct RmaMv {
    /// The arguments of `rma.mv(...)`, in order.
    pub args: Vec<String>,
    /// The random terms as R formulas (one, or a `list(...)`).
    pub random: String,
    /// Whether the components are fixed at the engine's estimates ([`stops_short`]).
    pub short: bool,
}

/// predict(res)'s prediction intervals: the one of an intercept-only model, or one per
/// inner level (`pi_levels`, in predict()'s rows' order).
#[cfg(feature = "extended")]
fn prediction_checks(r: &Value, out: &mut super::reproduce::Reproduction) {
    if r["pi_lower"].is_number() {
        out.check_at("predict(res)$pi.lb[1]", r, "/pi_lower")
            .check_at("predict(res)$pi.ub[1]", r, "/pi_upper");
    }
    for (i, _) in r["pi_levels"].as_array().into_iter().flatten().enumerate() {
        out.check_at(
            format!("predict(res)$pi.lb[{}]", i + 1),
            r,
            &format!("/pi_levels/{i}/pi_lower"),
        )
        .check_at(
            format!("predict(res)$pi.ub[{}]", i + 1),
            r,
            &format!("/pi_levels/{i}/pi_upper"),
        );
    }
}

/// The result's numbers at `key` (an array; empty when absent).
#[cfg(feature = "extended")]
fn result_numbers(r: &Value, key: &str) -> Vec<f64> {
    r[key]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// Whether metafor's optimizer stops short of the engine's optimum here: a structure it
/// does not converge on with tight control (METHODS.md, rma.mv), or a component on a bound.
#[cfg(feature = "extended")]
fn stops_short(r: &Value) -> bool {
    let numbers = |key: &str| result_numbers(r, key);
    r["inner_outer"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["structure"].as_str())
        .any(|s| matches!(s, "UN" | "HCS" | "DIAG" | "AR" | "HAR"))
        || r["boundary"].as_array().is_some_and(|b| !b.is_empty())
        || ["sigma2", "tau2", "gamma2"]
            .iter()
            .any(|k| numbers(k).contains(&0.0))
        || ["rho", "phi"]
            .iter()
            .any(|k| numbers(k).iter().any(|&x| x.abs() == 1.0))
}

/// `sigma2 = `, `tau2 = `, `rho = `, `gamma2 = `, `phi = `: as given (NA free), or, where metafor stops short, every
/// component fixed at the engine's estimates (said in a comment).
#[cfg(feature = "extended")]
fn fixed_components(
    args: &FitMultilevelArgs,
    r: &Value,
    short: bool,
    out: &mut super::reproduce::Reproduction,
) -> Vec<String> {
    use crate::rcode::{maybe_number, numbers, vector};
    let given = |v: &Option<Vec<Option<f64>>>| {
        v.as_ref()
            .map(|v| vector(v.iter().map(|x| maybe_number(*x))))
    };
    let fixed: [(&str, Option<String>); 5] = if short {
        out.script.comment(
            "metafor's optimizer stops short of the optimum for this structure or at a \
             bound (METHODS.md, rma.mv): the components are fixed at the engine's estimates.",
        );
        ["sigma2", "tau2", "rho", "gamma2", "phi"].map(|k| {
            let v = result_numbers(r, k);
            (k, (!v.is_empty()).then(|| numbers(&v)))
        })
    } else {
        [
            ("sigma2", given(&args.general.sigma2)),
            ("tau2", given(&args.general.tau2)),
            ("rho", given(&args.general.rho)),
            ("gamma2", None),
            ("phi", None),
        ]
    };
    fixed
        .into_iter()
        .filter_map(|(key, value)| value.map(|v| format!("{key} = {v}")))
        .collect()
}

/// The R expression of V, with the lines that build it: `vi` (diagonal), the blocks of
/// `V`'s columns, or `vcalc()`.
#[cfg(feature = "extended")]
fn known_v(
    args: &FitMultilevelArgs,
    cx: &super::reproduce::RContext,
    out: &mut super::reproduce::Reproduction,
) -> Result<String, ToolError> {
    use crate::rcode::{name, number, strings};
    if let Some(spec) = &args.general.vcalc {
        use super::vcalc_arg::{Rho, RhoValue};
        let value = |r: &RhoValue| match r {
            RhoValue::Constant(x) => Ok(number(*x)),
            RhoValue::Matrix { .. } => Err(super::multilevel::invalid(
                "r_code: vcalc's rho as a matrix over levels is not written in R yet".into(),
            )),
        };
        let mut a = vec!["vi".to_string(), format!("cluster = {}", name(&spec.cluster))];
        for (key, column) in [
            ("subgroup", &spec.subgroup),
            ("obs", &spec.obs),
            ("type", &spec.kind),
            ("time1", &spec.time1),
            ("time2", &spec.time2),
            ("grp1", &spec.grp1),
            ("grp2", &spec.grp2),
            ("w1", &spec.w1),
            ("w2", &spec.w2),
        ] {
            if let Some(c) = column {
                a.push(format!("{key} = {}", name(c)));
            }
        }
        match &spec.rho {
            Some(Rho::One(r)) => a.push(format!("rho = {}", value(r)?)),
            Some(Rho::Two([w, b])) => a.push(format!("rho = c({}, {})", value(w)?, value(b)?)),
            None => {}
        }
        if let Some(phi) = spec.phi {
            a.push(format!("phi = {}", number(phi)));
        }
        a.push("data = dat".into());
        out.script.line(format!(
            "V <- {}",
            crate::rcode::Script::call("vcalc", &a)
        ));
        return Ok("V".into());
    }
    let Some(v) = &args.general.v else {
        return Ok("vi".into());
    };
    // The records fitted: those of `subset` and not excluded nor left out for a missing value.
    let mut gone = args.model.exclude.exclude.clone();
    gone.extend(
        cx.result["omitted"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|o| o["id"].as_str().map(str::to_string)),
    );
    let keep = super::reproduce::subset_expression(cx, &gone).unwrap_or_else(|| "TRUE".into());
    out.script.comment(
        "V: each cluster's block over the records fitted, its a-th row read from the columns at \
         its a-th record (rma.mv's subset then drops the other rows).",
    );
    out.script
        .line(format!("keep <- rep_len(with(dat, {keep}), nrow(dat))"));
    out.script.line("V <- diag(nrow(dat))");
    out.script.line(format!(
        "for (r in split(which(keep), dat[[{}]][keep])) V[r, r] <- as.matrix(dat[r, {}])[, seq_along(r)]",
        crate::rcode::string(&v.cluster),
        strings(&v.columns)
    ));
    Ok("V".into())
}

/// The random terms as R formulas (one, or a list).
#[cfg(feature = "extended")]
fn r_random(args: &FitMultilevelArgs) -> Result<String, ToolError> {
    use crate::rcode::name;
    let texts = match &args.general.random {
        Some(super::multilevel_general::OneOrMany::One(t)) => vec![t.clone()],
        Some(super::multilevel_general::OneOrMany::Many(v)) => v.clone(),
        None => vec![format!("~ 1 | {}/id", args.model.study.get())],
    };
    let formulas = texts
        .iter()
        .map(|t| {
            let (lhs, rhs) = t
                .trim()
                .strip_prefix('~')
                .and_then(|b| b.split_once('|'))
                .ok_or_else(|| super::multilevel::invalid(format!("random term {t:?}")))?;
            let lhs = match lhs.trim() {
                "1" => "1".to_string(),
                l => name(l),
            };
            let rhs: Vec<String> = rhs.split('/').map(|p| name(p.trim())).collect();
            Ok(format!("~ {lhs} | {}", rhs.join("/")))
        })
        .collect::<Result<Vec<_>, ToolError>>()?;
    Ok(if formulas.len() == 1 {
        formulas[0].clone()
    } else {
        format!("list({})", formulas.join(", "))
    })
}

/// The methods sentences of a multilevel or multivariate model.
#[cfg(feature = "extended")]
fn multilevel_methods(
    out: &mut super::reproduce::Reproduction,
    options: meta_analysis::MultilevelOptions,
    measure: Option<&str>,
    random: &str,
) {
    use crate::rcode::VIECHTBAUER_2005;
    if let Some(measure) = measure {
        out.methods.say(
            &format!("The analysis was carried out using the {measure} as the outcome measure."),
            &[],
        );
    }
    out.methods.say(
        &format!(
            "A multilevel (multivariate) meta-analytic model was fitted to the data, with \
             random effects {random}."
        ),
        &[],
    );
    let name = match options.method {
        meta_analysis::Method::Ml => "maximum-likelihood",
        _ => "restricted maximum-likelihood",
    };
    out.methods.say(
        &format!(
            "The variance components were estimated by {name} {{}}, at the exact optimum of \
             the likelihood."
        ),
        &[&VIECHTBAUER_2005],
    );
    out.methods.say(
        "The Q-test for (residual) heterogeneity {} is reported.",
        &[&crate::rcode::COCHRAN_1954],
    );
    let percent = crate::rcode::number(100.0 * options.level);
    out.methods.say(
        &match options.test {
            meta_analysis::MultilevelTest::T => format!(
                "Tests and {percent}% confidence intervals are based on the t distribution with \
                 k - p degrees of freedom."
            ),
            meta_analysis::MultilevelTest::Z => format!(
                "Tests and {percent}% confidence intervals are based on the standard normal \
                 distribution."
            ),
        },
        &[],
    );
}
