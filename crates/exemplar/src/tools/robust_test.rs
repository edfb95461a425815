//! `robust_test`: cluster-robust tests of a fit, a meta-regression or a multilevel model.

use super::args::{
    model_data, BttArg, DataArg, ExcludeArg, LevelArg, MethodArg, ModelData, ModsArg,
};
use super::data::Omitted;
use super::data::{DataSource, DatasetInfo};
use super::scale::{NaturalScale, Scale, ScaleArgs, ScaleInfo};
use super::multilevel::{
    invalid, labels, multilevel_options, MultilevelArgs, MultilevelTestArg, StudyArg,
};
use super::multilevel_general::{build_model, random_columns, random_terms, structs, RandomArgs};
use super::{Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
use crate::printed::{
    coefficient_name, df, dropped_line, equal_effects, f4, fcf, format_btt,
    frame_table, i2_h2_lines, interval, level_percent, model_line, notes_and_omitted_lines,
    pval, r_num, signif_legend, stars, tau2_lines, vector_table, Out, Printed,
};
use meta_analysis::{Method, Record, RobustCoefficient, RobustTest, RobustVcov};
use serde::Serialize;

pub static ROBUST_TEST: Tool = Tool {
    name: "robust_test",
    title: "Cluster-robust tests (RVE)",
    summary: "Cluster-robust tests (CR2 or CR1).",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "Sandwich tests over `cluster`: CR2 as clubSandwich's coef_test (btt: its HTZ Wald_test), \
or CR1 as metafor's robust(adjust = TRUE). Models nest in clusters; clusters > \
coefficients."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(robust_test; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![
        json!({"records": examples::nested(), "cluster": "study"}),
        json!({"records": examples::nested(), "cluster": "study", "model": "multilevel", "mods": ["x"], "vcov": "CR1"}),
        json!({"records": examples::nested(), "cluster": "study", "model": "regression", "mods": ["x"], "btt": [1, 2]}),
        json!({"records": examples::nested(), "cluster": "study", "general": {"random": "~ 1 | study/id"}, "mods": ["x"]}),
    ]
}

composed_args! {
    /// `robust_test`'s arguments: the model's (the multilevel model's, with any estimator),
    /// the model and the cluster column and the estimator of the variance.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct RobustArgs {
        #[flat]
        pub study: StudyArg,
        #[flat]
        pub mods: ModsArg,
        // Any estimator; REML or ML for the multilevel model.
        #[flat]
        pub method: MethodArg,
        #[flat]
        pub level: LevelArg,
        // Multilevel only; robust tests are t tests whatever it is.
        #[flat]
        pub test: MultilevelTestArg,
        #[flat]
        pub scale: ScaleArgs,
        #[flat]
        pub exclude: ExcludeArg,
        // The coefficients the moderators' test covers.
        #[flat]
        pub btt: BttArg,
        #[flat]
        pub _data: DataArg,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "model_schema"))]
        pub model: Option<String>,
        /// Cluster column.
        pub cluster: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "vcov_schema"))]
        pub vcov: Option<String>,
        // A general rma.mv model, in fit_multilevel's words.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "general_schema"))]
        pub general: Option<serde_json::Map<String, serde_json::Value>>,
    }
}

/// `general` read as fit_multilevel's general-model arguments, refusing a key they lack.
fn general_args(
    general: Option<serde_json::Map<String, serde_json::Value>>,
) -> Result<Option<RandomArgs>, ToolError> {
    let Some(general) = general else {
        return Ok(None);
    };
    // The keys are RandomArgs's own, read from its Deserialize: one list by construction.
    let keys = RandomArgs::keys();
    if let Some(key) = general.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(invalid(format!(
            "general takes {}; not {key:?}",
            keys.join(", ")
        )));
    }
    serde_json::from_value(serde_json::Value::Object(general))
        .map(Some)
        .map_err(|e| invalid(format!("general: {e}")))
}

#[cfg(feature = "definitions")]
fn general_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    // Its keys are said once, in the instructions (`general`).
    schemars::Schema::try_from(serde_json::json!({"type": "object", "description": "fit_multilevel's model arguments."}))
        .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn model_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = RobustModel::ALL.iter().map(|m| m.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "default": names[0], "description": "regression uses mods, multilevel study."}))
        .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn vcov_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = RobustVcov::ALL.iter().map(|v| v.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "default": names[0], "description": "CR2 (Satterthwaite df) or CR1 (m-p df)."}))
        .expect("an object schema")
}

/// The model whose coefficients `robust_test` tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobustModel {
    /// The intercept-only random-effects fit (the default).
    RandomEffects,
    /// A meta-regression on `mods`.
    Regression,
    /// The three-level model on `study` (and `mods`).
    Multilevel,
}

impl RobustModel {
    /// Every model, the default first.
    pub const ALL: [RobustModel; 3] = [
        RobustModel::RandomEffects,
        RobustModel::Regression,
        RobustModel::Multilevel,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RobustModel::RandomEffects => "random_effects",
            RobustModel::Regression => "regression",
            RobustModel::Multilevel => "multilevel",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        RobustModel::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// `names` as a list a person reads: "a", "b" or "c".
fn one_of(names: impl Iterator<Item = &'static str>) -> String {
    let quoted: Vec<String> = names.map(|n| format!("{n:?}")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// `robust_test`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RobustResult {
    /// "random_effects", "regression" or "multilevel".
    pub model: crate::tools::Word,
    /// "CR2" or "CR1".
    pub vcov: crate::tools::Word,
    /// The cluster column.
    pub cluster: String,
    pub k: usize,
    pub n_clusters: usize,
    /// The model's estimator (REML, ML, ...).
    pub method: crate::tools::Word,
    pub level: f64,
    pub coefficients: Vec<RobustCoefficient>,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// A model without moderators: the pooled estimate and its robust CI on the natural
    /// scale (null with moderators, or with transform "none").
    pub natural: Option<NaturalScale>,
    /// The moderators' formula, as metafor writes it (null without mods).
    pub formula: Option<String>,
    /// Coefficients dropped as aliased: design columns that are linear combinations of the
    /// intercept and the columns before them (an interaction with an empty cell), dropped as
    /// metafor drops them ("Redundant predictors dropped from the model."); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// With moderators or `btt`: the test that the `btt` coefficients (every one but the
    /// intercept by default) are zero, as metafor's robust() prints it: under CR1 F on
    /// (m, clusters - p) df (adjust = TRUE), under CR2 clubSandwich's HTZ test
    /// (Wald_test(test = "HTZ"), fractional df2); null without moderators or btt.
    pub moderators_test: Option<ModeratorsTest>,
    /// Records per cluster, as metafor's robust() prints them.
    pub estimates_per_cluster: ClusterSizes,
    /// The fitted model's heterogeneity (model "random_effects" or "regression"; null for
    /// the multilevel model, whose variance components the three-level fit gives).
    pub heterogeneity: Option<RobustHeterogeneity>,
    /// Records left out because a column the model reads (the moderators', `cluster`,
    /// `study`) has no value there (metafor's na.omit); `k` counts the records fitted.
    pub omitted: Vec<Omitted>,
    pub dataset: DatasetInfo,
}

/// A Wald F test of the moderators.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ModeratorsTest {
    /// The coefficients tested, by position from 1.
    pub btt: Vec<usize>,
    pub f: f64,
    pub df1: usize,
    pub df2: f64,
    pub p: f64,
}

/// The number of records in each cluster: smallest, largest, mean and median.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ClusterSizes {
    pub min: usize,
    pub max: usize,
    pub mean: f64,
    pub median: f64,
}

impl ClusterSizes {
    fn of(clusters: &[String]) -> Self {
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        for c in clusters {
            *counts.entry(c.as_str()).or_default() += 1;
        }
        let mut sizes: Vec<usize> = counts.into_values().collect();
        sizes.sort_unstable();
        let m = sizes.len();
        let median = if m % 2 == 1 {
            sizes[m / 2] as f64
        } else {
            (sizes[m / 2 - 1] + sizes[m / 2]) as f64 / 2.0
        };
        ClusterSizes {
            min: sizes[0],
            max: sizes[m - 1],
            mean: clusters.len() as f64 / m as f64,
            median,
        }
    }
}

/// The heterogeneity of the model whose coefficients are tested (its fit with model-based
/// standard errors: tau^2 and the Q test do not depend on the clusters).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RobustHeterogeneity {
    pub tau2: f64,
    /// Null where the estimator gives none.
    pub se_tau2: Option<f64>,
    /// I^2 in percent (residual with moderators) and H^2.
    pub i2: f64,
    pub h2: f64,
    /// Pseudo-R^2 in percent (model "regression"; null for the random-effects fit).
    pub r2: Option<f64>,
    /// Cochran's Q (QE with moderators), its df and p value.
    pub q: f64,
    pub q_df: usize,
    pub q_p: f64,
}

/// `robust_test`
pub fn robust_test(mut args: RobustArgs, data: &DataSource) -> Result<RobustResult, ToolError> {
    let (model, vcov) = parse_model_and_vcov(&args)?;
    let excluded = std::mem::take(&mut args.exclude).of(data)?;
    let scale = Scale::of(&args.scale, data)?;
    let general_args = general_args(args.general.take())?;
    let general = match &general_args {
        Some(g) if model == RobustModel::Multilevel || args.model.is_none() => Some(g),
        Some(_) => {
            return Err(invalid(format!(
                "general is a multilevel model: leave model out or give {:?}",
                RobustModel::Multilevel.name()
            )))
        }
        None => None,
    };
    let model = if general.is_some() {
        RobustModel::Multilevel
    } else {
        model
    };
    let terms = general
        .map(|g| general_columns(&args.study, g, data))
        .transpose()?;
    let study_column = (model == RobustModel::Multilevel && general.is_none())
        .then(|| args.study.get().to_string());
    let mut also = vec![args.cluster.as_str()];
    also.extend(study_column.as_deref());
    if let Some((_, columns)) = &terms {
        also.extend(columns.iter().map(String::as_str));
    }
    let model_data = model_data(args.mods.mods.as_ref(), &also, excluded, data)?;
    let excluded = &model_data.excluded;
    let clusters = labels(data, &args.cluster, "cluster", excluded)?;
    let records = data.kept(excluded);
    let (test, method, heterogeneity) = match (model, general, &terms) {
        (_, Some(general), Some((parsed, _))) => {
            let (test, method) =
                fit_general(&args, general, parsed, data, &model_data, &clusters, vcov)?;
            (test, method, None)
        }
        (RobustModel::Multilevel, _, _) => {
            let (test, method) =
                fit_multilevel(&args, data, &model_data, &records, &clusters, vcov)?;
            (test, method, None)
        }
        _ => {
            let (test, method, heterogeneity) =
                fit_single_level(&args, model, &model_data, &records, &clusters, vcov)?;
            (test, method, Some(heterogeneity))
        }
    };
    Ok(RobustResult {
        model: model.name().into(),
        vcov: test.vcov.name().into(),
        cluster: args.cluster,
        k: test.k,
        n_clusters: test.n_clusters,
        method: method.name().into(),
        level: test.level,
        moderators_test: moderators_test(&test, &args.btt)?,
        natural: match test.coefficients.as_slice() {
            [only] if model_data.formula_text().is_none() => {
                scale.natural(only.estimate, (only.ci_lower, only.ci_upper), None)
            }
            _ => None,
        },
        scale: scale.info(),
        coefficients: test.coefficients,
        formula: model_data.formula_text(),
        dropped: model_data.dropped(),
        estimates_per_cluster: ClusterSizes::of(&clusters),
        heterogeneity,
        omitted: model_data.omitted,
        dataset: DatasetInfo {
            notes: model_data.notes,
            ..data.info().clone()
        },
    })
}

/// The test that the coefficients `btt` selects are zero (by default every one but the
/// intercept, none without moderators): CR1's F or CR2's HTZ test; null when its df leave
/// no p value (HTZ's df2 at most 0) or CR1's covariance is singular.
fn moderators_test(test: &RobustTest, btt: &BttArg) -> Result<Option<ModeratorsTest>, ToolError> {
    let positions = match btt.get()? {
        Some(btt) => {
            let names: Vec<&str> = test.coefficients.iter().map(|c| c.name.as_str()).collect();
            btt.positions(&names)?
        }
        None => (usize::from(test.intercept)..test.p).collect(),
    };
    if positions.is_empty() {
        return Ok(None);
    }
    let (f, df1, df2, p) = match test.vcov {
        RobustVcov::Cr1 => match test.cr1_wald_of(&positions) {
            Some(w) => (w.f, w.df1, w.df2 as f64, w.p),
            None => return Ok(None),
        },
        RobustVcov::Cr2 => {
            let w = test.htz_wald_btt(&positions)?;
            (w.f, w.df_num, w.df_denom, w.p)
        }
    };
    Ok(p.is_finite().then(|| ModeratorsTest {
        btt: positions.iter().map(|j| j + 1).collect(),
        f,
        df1,
        df2,
        p,
    }))
}

/// Reads `model` and `vcov` (each defaulting to the first of its kind), refusing a name
/// that is neither.
fn parse_model_and_vcov(args: &RobustArgs) -> Result<(RobustModel, RobustVcov), ToolError> {
    let model = match args.model.as_deref() {
        None => RobustModel::ALL[0],
        Some(name) => RobustModel::parse(name).ok_or_else(|| {
            invalid(format!(
                "model must be {}, got {name:?}",
                one_of(RobustModel::ALL.iter().map(|m| m.name()))
            ))
        })?,
    };
    let vcov = match args.vcov.as_deref() {
        None => RobustVcov::ALL[0],
        Some(name) => RobustVcov::parse(name).ok_or_else(|| {
            invalid(format!(
                "vcov must be {}, got {name:?}",
                one_of(RobustVcov::ALL.iter().map(|v| v.name()))
            ))
        })?,
    };
    Ok((model, vcov))
}

/// Fits the multilevel model (with the moderators' design when there is one) and tests it
/// with the cluster-robust variance; gives the test and the estimator used.
fn fit_multilevel(
    args: &RobustArgs,
    data: &DataSource,
    model_data: &ModelData,
    records: &[Record],
    clusters: &[String],
    vcov: RobustVcov,
) -> Result<(RobustTest, Method), ToolError> {
    let options = multilevel_options(
        args.method.method.map(Method::name),
        &args.level,
        &args.test,
    )?;
    let studies = labels(data, args.study.get(), "study", &model_data.excluded)?;
    let test = match model_data.matrix() {
        Some(design) => meta_analysis::robust_multilevel_design(
            records, &studies, design, &options, clusters, vcov,
        )?,
        None => {
            meta_analysis::robust_multilevel(records, &studies, &[], &options, clusters, vcov)?
        }
    };
    Ok((test, options.method))
}

/// Parsed `~ lhs | rhs` terms.
type Terms = Vec<(String, String)>;

/// The terms `general.random` names (by default `~ 1 | study/id`) and every column the
/// general model reads (its terms' and V's), whose records without a value are left out.
fn general_columns(
    study: &StudyArg,
    general: &RandomArgs,
    data: &DataSource,
) -> Result<(Terms, Vec<String>), ToolError> {
    let study = MultilevelArgs {
        study: StudyArg {
            study: study.study.clone(),
        },
        ..MultilevelArgs::default()
    };
    let parsed = random_terms(&study, general)?;
    let columns = random_columns(&parsed, general, data);
    Ok((parsed, columns))
}

/// Fits the general model (fit_multilevel's `random`, `struct`, `V` and fixed components,
/// by REML or ML) and tests it over the clusters, which must nest its random effects and V
/// ([`meta_analysis::robust_rma_mv`]: CR2's working model is the fitted M).
fn fit_general(
    args: &RobustArgs,
    general: &RandomArgs,
    parsed: &[(String, String)],
    data: &DataSource,
    model_data: &ModelData,
    clusters: &[String],
    vcov: RobustVcov,
) -> Result<(RobustTest, Method), ToolError> {
    use meta_analysis::rma_mv::rma_mv;
    let options = multilevel_options(
        args.method.method.map(Method::name),
        &args.level,
        &args.test,
    )?;
    let built = build_model(
        data,
        general,
        parsed,
        &structs(general)?,
        model_data,
        "intercept",
    )?;
    let (model, names) = (built.model, built.names);
    let fixed = general.fixed();
    let fit = rma_mv(&model, options.method, &fixed)?;
    let test =
        meta_analysis::robust_rma_mv(&model, &fit, &names, clusters, vcov, options.level)?;
    Ok((test, options.method))
}

/// Fits the random-effects model or the meta-regression (refusing the multilevel model's
/// arguments, and mods without regression or regression without mods) and tests it with
/// the cluster-robust variance; gives the test, the estimator used and the model's
/// heterogeneity.
fn fit_single_level(
    args: &RobustArgs,
    model: RobustModel,
    model_data: &ModelData,
    records: &[Record],
    clusters: &[String],
    vcov: RobustVcov,
) -> Result<(RobustTest, Method, RobustHeterogeneity), ToolError> {
    if args.study.study.is_some() || args.test.test.is_some() {
        return Err(invalid(format!(
            "study and test belong to the multilevel model; model {:?} takes \
             method, level, mods (regression), exclude and cluster",
            model.name()
        )));
    }
    let options = meta_analysis::FitOptions {
        method: args.method.get(),
        level: args.level.get()?,
        ..Default::default()
    };
    let (result, heterogeneity) = if model == RobustModel::Regression {
        let Some(design) = model_data.matrix() else {
            return Err(invalid(
                "model \"regression\" needs mods, e.g. \"~ weeks\" or [\"weeks\"]".into(),
            ));
        };
        let m = meta_analysis::meta_regression_design(records, design, &options)?;
        let heterogeneity = RobustHeterogeneity {
            tau2: m.tau2,
            se_tau2: m.se_tau2,
            i2: m.i2,
            h2: m.h2,
            r2: m.pseudo_r2(),
            q: m.qe,
            q_df: m.qe_df,
            q_p: m.qe_p,
        };
        let test = meta_analysis::robust_meta_regression_design(
            records, design, &options, clusters, vcov,
        )?;
        (test, heterogeneity)
    } else {
        if args.mods.mods.is_some() {
            return Err(invalid(format!(
                "mods belong to model {:?} or {:?}",
                RobustModel::Regression.name(),
                RobustModel::Multilevel.name()
            )));
        }
        let f = meta_analysis::fit(records, &options)?;
        let heterogeneity = RobustHeterogeneity {
            tau2: f.tau2,
            se_tau2: f.se_tau2,
            i2: f.i2,
            h2: f.h2,
            r2: None,
            q: f.q,
            q_df: f.q_df,
            q_p: f.q_p,
        };
        let test = meta_analysis::robust_fit(records, &options, clusters, vcov)?;
        (test, heterogeneity)
    };
    Ok((result, options.method, heterogeneity))
}

/// `print.robust.rma`: the model's heterogeneity, the clusters, then the coefficients with
/// cluster-robust standard errors, t tests and intervals, each robust column marked with
/// metafor's footnote symbol.
impl Printed for RobustResult {
    fn print(&self, out: &mut Out) {
        let coefficients = &self.coefficients;
        let (vcov, k, clusters) = (&self.vcov, self.k, self.n_clusters);
        let int_only = coefficients.len() == 1;
        let Some(first) = coefficients.first() else {
            return;
        };
        if int_only {
            out.line(format!(
                "{} ({}; cluster-robust {vcov}, k = {k} in {clusters} clusters)",
                interval("Estimate", first.estimate, first.ci_lower, first.ci_upper),
                level_percent(self.level)
            ));
        } else {
            out.line(format!(
                "Cluster-robust ({vcov}) tests of {} coefficients (k = {k} in {clusters} clusters)",
                coefficients.len()
            ));
        }
        notes_and_omitted_lines(
            out,
            &self.dataset.notes,
            self.omitted.iter().map(|o| o.id.as_str()),
        );
        dropped_line(out, &self.dropped);
        out.blank();
        let method = &self.method;
        match &self.heterogeneity {
            Some(h) => {
                model_line(out, method, k, int_only);
                out.blank();
                if !equal_effects(method) {
                    tau2_lines(out, Some(h.tau2), h.se_tau2, int_only);
                }
                i2_h2_lines(out, Some(h.i2), Some(h.h2), h.r2, int_only);
                out.blank();
                let (heading, q) = if int_only {
                    ("Test for Heterogeneity:", "Q")
                } else {
                    ("Test for Residual Heterogeneity:", "QE")
                };
                out.line(heading);
                out.line(format!(
                    "{q}(df = {}) = {}, p-val {}",
                    h.q_df,
                    f4(Some(h.q)),
                    pval(Some(h.q_p), true, false)
                ));
            }
            None => out.line(format!(
                "Multivariate Meta-Analysis Model (k = {k}; method: {method})"
            )),
        }
        out.blank();
        out.line(format!("Number of estimates:   {k}"));
        out.line(format!("Number of clusters:    {clusters}"));
        let sizes = &self.estimates_per_cluster;
        if sizes.min == sizes.max {
            out.line(format!("Estimates per cluster: {}", sizes.min));
        } else {
            out.line(format!(
                "Estimates per cluster: {}-{} (mean: {}, median: {})",
                sizes.min,
                sizes.max,
                fcf(Some(sizes.mean), 2),
                r_num((sizes.median * 100.0).round() / 100.0)
            ));
        }
        if let Some(t) = &self.moderators_test {
            let btt: Vec<u64> = t.btt.iter().map(|&j| j as u64).collect();
            out.blank();
            out.line(format!(
                "Test of Moderators (coefficient{} {}):\u{b9}",
                if t.df1 == 1 { "" } else { "s" },
                format_btt(&btt)
            ));
            out.line(format!(
                "F(df1 = {}, df2 = {}) = {}, p-val {}",
                t.df1,
                df(t.df2),
                f4(Some(t.f)),
                pval(Some(t.p), true, false)
            ));
        }
        out.blank();
        out.line("Model Results:");
        out.blank();
        out.lines(robust_table(coefficients, int_only));
        signif_legend(out);
        out.blank();
        out.line(format!(
            "1) results based on cluster-robust inference (var-cov estimator: {vcov},"
        ));
        out.line(format!(
            "   approx {}, df: {})",
            if int_only {
                "t-test and confidence interval"
            } else {
                "t/F-tests and confidence intervals"
            },
            if *vcov == RobustVcov::Cr2.name() {
                "Satterthwaite approx"
            } else {
                "residual method"
            }
        ));
    }
}

/// The coefficients under cluster-robust inference as `print.robust.rma` lays them out:
/// metafor's `.addfootsym` marks the names of se, tval, df, pval, ci.lb and ci.ub with "¹"
/// and pads their values with a blank; df as `round(df, 2)` pasted as text, so each row keeps
/// its own decimals.
fn robust_table(coefficients: &[RobustCoefficient], int_only: bool) -> Vec<String> {
    const MARK: &str = "\u{b9}";
    let header: Vec<String> = std::iter::once("estimate".to_string())
        .chain(
            ["se", "tval", "df", "pval", "ci.lb", "ci.ub"]
                .iter()
                .map(|h| format!("{h}{MARK}")),
        )
        .chain(std::iter::once(String::new()))
        .collect();
    let rows: Vec<(String, Vec<String>)> = coefficients
        .iter()
        .map(|c| {
            let p = Some(c.p);
            let marked = |v: String| format!("{v} ");
            (
                coefficient_name(&c.name),
                vec![
                    f4(Some(c.estimate)),
                    marked(f4(Some(c.se))),
                    marked(f4(Some(c.statistic))),
                    marked(df(c.df)),
                    marked(pval(p, false, false)),
                    marked(f4(Some(c.ci_lower))),
                    marked(f4(Some(c.ci_upper))),
                    stars(p),
                ],
            )
        })
        .collect();
    if int_only {
        let (_, row) = &rows[0];
        let cols: Vec<(&str, String)> = header
            .iter()
            .map(String::as_str)
            .zip(row.iter().cloned())
            .collect();
        vector_table(&cols)
    } else {
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        frame_table(&header, &rows, 2)
    }
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::*;
    use serde_json::{json, Value};

    /// The engine's oracle (clubSandwich 0.5.8 on rma.mv fits, `robust_rma_mv.R`).
    fn oracle() -> Value {
        serde_json::from_str(include_str!(
            "../../../meta-analysis/tests/fixtures/robust_rma_mv.json"
        ))
        .unwrap()
    }

    fn nums(v: &Value) -> Vec<f64> {
        v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
    }

    /// dat.berkey1998 (year less 1983) as records, v1i and v2i read back from V's blocks.
    fn berkey(case: &Value) -> Value {
        let (yi, x) = (nums(&case["yi"]), nums(&case["X"]));
        let term = &case["terms"][0];
        let mut records = Vec::new();
        for block in case["blocks"].as_array().unwrap() {
            let (rows, matrix) = (nums(&block["rows"]), nums(&block["matrix"]));
            let n = rows.len();
            for (a, &r) in rows.iter().enumerate() {
                let r = r as usize;
                records.push(json!({
                    "id": format!("r{r}"), "yi": yi[r], "vi": matrix[a * n + a],
                    "outcome": term["inner"][r], "trial": term["outer"][r], "year": x[r * 3 + 2],
                    "v1i": matrix[a * n], "v2i": matrix[a * n + 1],
                }));
            }
        }
        Value::Array(records)
    }

    #[test]
    #[cfg(feature = "extended")]
    fn a_general_model_gives_club_sandwichs_cr2_and_htz() {
        let all = oracle();
        let case = &all["cases"][0];
        let args = json!({
            "records": berkey(case), "cluster": "trial", "mods": "~ outcome + year",
            "btt": [2, 3],
            "general": {"random": "~ outcome | trial", "struct": "UN",
                        "V": {"cluster": "trial", "columns": ["v1i", "v2i"]},
                        "tau2": case["tau2"], "rho": case["rho"]},
        });
        let r = super::super::call(ROBUST_TEST.name, &args).unwrap();
        let close = |what: String, ours: &Value, theirs: f64| {
            let ours = ours.as_f64().unwrap();
            let rel = (ours - theirs).abs() / theirs.abs().max(1.0);
            assert!(rel <= 1e-8, "{what}: ours {ours}, clubSandwich {theirs}");
        };
        for (j, c) in r["coefficients"].as_array().unwrap().iter().enumerate() {
            for (ours, theirs) in [("se", "se"), ("statistic", "t"), ("df", "df"), ("p", "p")] {
                close(format!("{ours} {j}"), &c[ours], nums(&case[theirs])[j]);
            }
        }
        let (m, htz) = (&r["moderators_test"], &case["htz"]);
        close("F".into(), &m["f"], htz["f"].as_f64().unwrap());
        close("df2".into(), &m["df2"], htz["df_denom"].as_f64().unwrap());
        close("p".into(), &m["p"], htz["p"].as_f64().unwrap());
        assert_eq!(r["n_clusters"], 5);
    }

    #[test]
    #[cfg(feature = "extended")]
    fn a_general_model_refuses_clusters_that_split_it_and_unknown_keys() {
        let all = oracle();
        let records = berkey(&all["cases"][0]);
        let general = json!({"random": "~ outcome | trial", "struct": "UN",
                             "V": {"cluster": "trial", "columns": ["v1i", "v2i"]}});
        let call = |cluster: &str, general: &Value| {
            let args = json!({"records": records, "cluster": cluster, "general": general});
            super::super::call(ROBUST_TEST.name, &args).unwrap_err().to_string()
        };
        // Each trial's two outcomes in two clusters.
        let e = call("outcome", &general);
        assert!(e.contains("must nest"), "{e}");
        let e = call("trial", &json!({"randm": "~ 1 | trial"}));
        assert!(e.contains("not \"randm\""), "{e}");
    }

    /// `~ 1 | study/id` is the three-level model: its dense CR2 is the structured one's (up to
    /// the two optimizers' tolerance).
    #[test]
    #[cfg(feature = "extended")]
    fn the_general_three_level_model_is_the_multilevel_models() {
        let records = crate::tools::examples::nested();
        let base = json!({"records": records, "cluster": "study", "mods": ["x"]});
        let with = |extra: Value| {
            let mut args = base.clone();
            args.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            super::super::call(ROBUST_TEST.name, &args).unwrap()
        };
        let general = with(json!({"general": {"random": "~ 1 | study/id"}}));
        let multilevel = with(json!({"model": "multilevel"}));
        for (g, m) in general["coefficients"]
            .as_array()
            .unwrap()
            .iter()
            .zip(multilevel["coefficients"].as_array().unwrap())
        {
            for key in ["estimate", "se", "df", "p"] {
                let (g, m) = (g[key].as_f64().unwrap(), m[key].as_f64().unwrap());
                assert!((g - m).abs() <= 1e-6 * m.abs().max(1.0), "{key}: {g} {m}");
            }
        }
    }

    #[test]
    #[cfg(feature = "definitions")]
    fn general_keys_are_fit_multilevels_general_arguments() {
        let schema = schemars::SchemaGenerator::default()
            .into_root_schema_for::<RandomArgs>()
            .to_value();
        let mut keys: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        let mut ours = RandomArgs::keys().to_vec();
        ours.sort_unstable();
        assert_eq!(keys, ours);
    }
}
