//! `fit_multilevel` (the three-level model, metafor's `rma.mv(random = ~ 1 | study/es)`) and
//! `robust_test` (cluster-robust tests of a fit, a meta-regression or a multilevel model).
//! Their argument types live here, beside their handlers.

use super::data::{DataSource, DatasetInfo};
use super::metareg::{moderators, CoefficientRow};
use super::{ErrorCode, ToolError};
use meta_analysis::{
    BoundKind, FitOptions, Method, Moderator, MultilevelOptions, MultilevelTest, RobustVcov,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The default name of the study column.
pub const DEFAULT_STUDY: &str = "study";

fn invalid(message: String) -> ToolError {
    ToolError::new(ErrorCode::InvalidArguments, message)
}

/// `fit_multilevel`'s arguments.
#[derive(Debug, Deserialize)]
pub struct MultilevelArgs {
    /// The column naming each record's study (default "study").
    pub study: Option<String>,
    #[serde(default)]
    pub mods: Vec<String>,
    pub method: Option<String>,
    pub level: Option<f64>,
    pub test: Option<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
}

impl MultilevelArgs {
    fn options(&self) -> Result<MultilevelOptions, ToolError> {
        let method = match self.method.as_deref() {
            None | Some("REML") => Method::Reml,
            Some("ML") => Method::Ml,
            Some(other) => {
                return Err(invalid(format!("method must be REML or ML, got {other:?}")))
            }
        };
        let test = match self.test.as_deref() {
            None => MultilevelTest::Z,
            Some(name) => MultilevelTest::parse(name)
                .ok_or_else(|| invalid(format!("test must be \"z\" or \"t\", got {name:?}")))?,
        };
        let level = self.level.unwrap_or(0.95);
        if !(level > 0.0 && level < 1.0) {
            return Err(invalid(format!(
                "level must be strictly between 0 and 1 (for example 0.95), got {level}"
            )));
        }
        Ok(MultilevelOptions {
            method,
            level,
            test,
        })
    }
}

/// Column `name` of the records not in `excluded`, as labels: a string as it is, a number
/// as JSON writes it. Every such record must hold a value.
pub fn labels(
    data: &DataSource,
    name: &str,
    what: &str,
    excluded: &[String],
) -> Result<Vec<String>, ToolError> {
    if !data.column_names().contains(&name) {
        let known = data.column_names();
        return Err(invalid(format!(
            "there is no column {name:?} to use as the {what}{}",
            if known.is_empty() {
                "; these records have no columns besides id, yi and vi (give each record a \
                 property naming its group, e.g. \"study\": \"s1\")"
                    .to_string()
            } else {
                format!("; the records' columns are {}", known.join(", "))
            }
        )));
    }
    let excluded = super::data::id_set(excluded);
    let mut out = Vec::new();
    for (record, columns) in data.records().iter().zip(data.record_columns()) {
        if excluded.contains(record.id.as_str()) {
            continue;
        }
        let label = match columns.get(name) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                return Err(ToolError::new(
                    ErrorCode::InvalidRecords,
                    format!(
                        "record {:?} has no value for the {what} column {name}, which every \
                         record analysed needs (a string or a number)",
                        record.id
                    ),
                ))
            }
        };
        out.push(label);
    }
    Ok(out)
}

/// `fit_multilevel`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MultilevelResult {
    /// Records fitted.
    pub k: usize,
    /// Studies (the outer level).
    pub n_studies: usize,
    /// The column naming the studies.
    pub study: String,
    /// "REML" or "ML".
    pub method: &'static str,
    /// "z" or "t".
    pub test: &'static str,
    pub level: f64,
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
    /// Omnibus test of the moderators (null without moderators): chi^2, or F with test "t".
    pub qm: Option<f64>,
    pub qm_df: usize,
    pub qm_df2: Option<usize>,
    pub qm_p: Option<f64>,
    /// Test of residual heterogeneity, k - p df.
    pub qe: f64,
    pub qe_df: usize,
    pub qe_p: f64,
    /// The (restricted) log-likelihood at the optimum, as metafor's logLik.
    pub loglik: f64,
    pub iterations: usize,
    /// Intercept first, then each moderator's coefficients.
    pub coefficients: Vec<CoefficientRow>,
    /// Sentences on bounds at 0 or beyond the search range.
    pub notes: Vec<String>,
    pub dataset: DatasetInfo,
}

/// `fit_multilevel`
pub fn fit_multilevel(
    args: MultilevelArgs,
    data: &DataSource,
) -> Result<MultilevelResult, ToolError> {
    let options = args.options()?;
    let study = args
        .study
        .clone()
        .unwrap_or_else(|| DEFAULT_STUDY.to_string());
    let excluded = data.exclusions(args.exclude.clone())?;
    let studies = labels(data, &study, "study", &excluded)?;
    let mods = optional_moderators(&args.mods, &excluded, data)?;
    let model = meta_analysis::multilevel(&data.kept(&excluded), &studies, &mods, &options)?;
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
    Ok(MultilevelResult {
        k: model.k,
        n_studies: model.n_studies,
        study,
        method: model.method.name(),
        test: model.test.name(),
        level: model.level,
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
        qm: model.qm,
        qm_df: model.qm_df,
        qm_df2: model.qm_df2,
        qm_p: model.qm_p,
        qe: model.qe,
        qe_df: model.qe_df,
        qe_p: model.qe_p,
        loglik: model.loglik,
        iterations: model.iterations,
        coefficients: model
            .coefficients
            .iter()
            .map(|c| CoefficientRow {
                name: c.name.clone(),
                estimate: c.estimate,
                se: c.se,
                statistic: c.statistic,
                p: c.p,
                ci_lower: c.ci_lower,
                ci_upper: c.ci_upper,
            })
            .collect(),
        notes,
        dataset: data.info().clone(),
    })
}

fn optional_moderators(
    mods: &[String],
    excluded: &[String],
    data: &DataSource,
) -> Result<Vec<Moderator>, ToolError> {
    if mods.is_empty() {
        Ok(Vec::new())
    } else {
        moderators(mods, excluded, data)
    }
}

/// `robust_test`'s arguments.
#[derive(Debug, Deserialize)]
pub struct RobustArgs {
    /// "random_effects" (default), "regression" or "multilevel".
    pub model: Option<String>,
    pub cluster: String,
    pub vcov: Option<String>,
    #[serde(flatten)]
    pub multilevel: MultilevelArgs,
}

/// One coefficient's robust test.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RobustRow {
    /// "intercept", a numeric moderator's name, or "column:level".
    pub name: String,
    pub estimate: f64,
    /// Cluster-robust standard error.
    pub se: f64,
    /// t = estimate / se.
    pub statistic: f64,
    /// Satterthwaite df (CR2) or clusters - p (CR1).
    pub df: f64,
    /// Two-sided p value from t with df.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
}

/// `robust_test`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RobustResult {
    /// "random_effects", "regression" or "multilevel".
    pub model: String,
    /// "CR2" or "CR1".
    pub vcov: &'static str,
    /// The cluster column.
    pub cluster: String,
    pub k: usize,
    pub n_clusters: usize,
    /// The model's estimator (REML, ML, ...).
    pub method: &'static str,
    pub level: f64,
    pub coefficients: Vec<RobustRow>,
    pub dataset: DatasetInfo,
}

/// The models `robust_test` takes.
pub const MODELS: [&str; 3] = ["random_effects", "regression", "multilevel"];

/// `robust_test`
pub fn robust_test(args: RobustArgs, data: &DataSource) -> Result<RobustResult, ToolError> {
    let model = args.model.clone().unwrap_or_else(|| MODELS[0].to_string());
    let vcov = match args.vcov.as_deref() {
        None => RobustVcov::Cr2,
        Some(name) => RobustVcov::parse(name)
            .ok_or_else(|| invalid(format!("vcov must be \"CR2\" or \"CR1\", got {name:?}")))?,
    };
    let a = &args.multilevel;
    let excluded = data.exclusions(a.exclude.clone())?;
    let clusters = labels(data, &args.cluster, "cluster", &excluded)?;
    let records = data.kept(&excluded);
    let (test, method) = match model.as_str() {
        "multilevel" => {
            let options = a.options()?;
            let study = a.study.clone().unwrap_or_else(|| DEFAULT_STUDY.to_string());
            let studies = labels(data, &study, "study", &excluded)?;
            let mods = optional_moderators(&a.mods, &excluded, data)?;
            (
                meta_analysis::robust_multilevel(
                    &records, &studies, &mods, &options, &clusters, vcov,
                )?,
                options.method,
            )
        }
        "random_effects" | "regression" => {
            if a.study.is_some() || a.test.is_some() {
                return Err(invalid(format!(
                    "study and test belong to the multilevel model; model {model:?} takes \
                     method, level, mods (regression), exclude and cluster"
                )));
            }
            let method = match a.method.as_deref() {
                None => Method::Reml,
                Some(name) => Method::parse(name)
                    .ok_or_else(|| invalid(format!("unknown method {name:?}")))?,
            };
            let level = a.level.unwrap_or(0.95);
            let options = FitOptions {
                method,
                level,
                ..FitOptions::default()
            };
            let result = if model == "regression" {
                let mods = moderators(&a.mods, &excluded, data)?;
                meta_analysis::robust_meta_regression(&records, &mods, &options, &clusters, vcov)?
            } else {
                if !a.mods.is_empty() {
                    return Err(invalid(
                        "mods belong to model \"regression\" or \"multilevel\"".into(),
                    ));
                }
                meta_analysis::robust_fit(&records, &options, &clusters, vcov)?
            };
            (result, method)
        }
        other => {
            return Err(invalid(format!(
                "model must be one of {}, got {other:?}",
                MODELS.join(", ")
            )))
        }
    };
    Ok(RobustResult {
        model,
        vcov: test.vcov.name(),
        cluster: args.cluster,
        k: test.k,
        n_clusters: test.n_clusters,
        method: method.name(),
        level: test.level,
        coefficients: test
            .coefficients
            .iter()
            .map(|c| RobustRow {
                name: c.name.clone(),
                estimate: c.estimate,
                se: c.se,
                statistic: c.statistic,
                df: c.df,
                p: c.p,
                ci_lower: c.ci_lower,
                ci_upper: c.ci_upper,
            })
            .collect(),
        dataset: data.info().clone(),
    })
}

/// The input schema of `fit_multilevel` (and, with `cluster`, `vcov` and `model`, of
/// `robust_test`).
pub fn multilevel_input(max: usize, robust: bool) -> Value {
    use serde_json::json;
    let mut properties = json!({
        "study": {"type": "string", "default": DEFAULT_STUDY, "description": "The column naming each record's study (a string or number per record)."},
        "mods": super::schemas::mods(),
        "method": {"type": "string", "enum": ["REML", "ML"], "default": "REML", "description": "Estimator of sigma2."},
        "level": super::schemas::level(),
        "test": {"type": "string", "enum": ["z", "t"], "default": "z", "description": "z, or t with k-p df (F for QM)."},
        "exclude": super::schemas::exclude("Ids to leave out first."),
        "records": super::schemas::records(max)
    });
    let mut required: Vec<&str> = Vec::new();
    if robust {
        let p = properties.as_object_mut().expect("an object");
        p.insert("model".into(), json!({"type": "string", "enum": MODELS, "default": MODELS[0], "description": "The intercept-only random-effects fit, a meta-regression on mods, or the three-level model on study."}));
        p.insert("cluster".into(), json!({"type": "string", "description": "The column naming each record's cluster, usually the study (a string or number per record)."}));
        p.insert("vcov".into(), json!({"type": "string", "enum": ["CR2", "CR1"], "default": "CR2", "description": "CR2 (Satterthwaite df) or CR1 (m-p df)."}));
        let methods: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
        p.insert("method".into(), json!({"type": "string", "enum": methods, "default": "REML", "description": "The model's estimator (REML or ML for multilevel)."}));
        p.insert("test".into(), json!({"type": "string", "enum": ["z", "t"], "default": "z", "description": "Multilevel only; robust tests are t tests whatever it is."}));
        required.push("cluster");
    }
    super::schemas::object(properties, &required)
}

#[cfg(test)]
mod tests {
    use super::super::{call, FIT_MULTILEVEL, ROBUST_TEST};
    use serde_json::{json, Value};

    fn records() -> Value {
        let rows = [
            ("a", 0.10, 0.02, 1.0),
            ("a", 0.30, 0.03, 2.0),
            ("a", -0.20, 0.01, 0.5),
            ("b", 0.50, 0.05, 3.0),
            ("b", 0.40, 0.04, 2.5),
            ("c", 0.00, 0.02, 1.0),
            ("c", 0.25, 0.03, 1.5),
            ("c", 0.60, 0.06, 4.0),
            ("d", -0.10, 0.02, 0.0),
            ("d", 0.20, 0.01, 2.0),
            ("e", 0.35, 0.04, 3.5),
            ("e", 0.15, 0.03, 1.0),
        ];
        Value::Array(
            rows.iter()
                .enumerate()
                .map(|(i, (s, y, v, x))| json!({"id": format!("r{i}"), "yi": y, "vi": v, "study": s, "x": x}))
                .collect(),
        )
    }

    #[test]
    fn the_tools_fit_and_test_records_with_a_study_column() {
        let fit = call(FIT_MULTILEVEL.name, &json!({"records": records()})).unwrap();
        assert_eq!(fit["n_studies"], 5);
        assert_eq!(fit["sigma2"].as_array().unwrap().len(), 2);
        assert!(fit["estimate"].is_number() && fit["pi_lower"].is_number());
        let lower = fit["sigma2_ci_lower"][1].as_f64().unwrap();
        assert!(lower <= fit["sigma2"][1].as_f64().unwrap());
        let reg = call(
            FIT_MULTILEVEL.name,
            &json!({"records": records(), "mods": ["x"], "test": "t"}),
        )
        .unwrap();
        assert!(reg["estimate"].is_null() && reg["qm"].is_number());
        assert_eq!(reg["coefficients"][1]["name"], "x");

        for model in ["random_effects", "regression", "multilevel"] {
            for vcov in ["CR2", "CR1"] {
                let mut args =
                    json!({"records": records(), "cluster": "study", "model": model, "vcov": vcov});
                if model != "random_effects" {
                    args["mods"] = json!(["x"]);
                }
                let r =
                    call(ROBUST_TEST.name, &args).unwrap_or_else(|e| panic!("{model} {vcov}: {e}"));
                assert_eq!(r["n_clusters"], 5);
                let c = &r["coefficients"][0];
                assert!(c["ci_lower"].as_f64().unwrap() < c["estimate"].as_f64().unwrap());
                if vcov == "CR1" {
                    assert_eq!(
                        c["df"].as_f64().unwrap(),
                        5.0 - r["coefficients"].as_array().unwrap().len() as f64
                    );
                }
            }
        }
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let e = call(FIT_MULTILEVEL.name, &json!({})).unwrap_err();
        assert!(e.message.contains("no column \"study\""), "{}", e.message);
        let mut recs = records();
        recs[3].as_object_mut().unwrap().remove("study");
        let e = call(FIT_MULTILEVEL.name, &json!({"records": recs})).unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_records");
        // Every study with one record: the two variances are not identified.
        let single: Vec<Value> = records()
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut r = r.clone();
                r["study"] = json!(format!("s{i}"));
                r
            })
            .collect();
        let e = call(FIT_MULTILEVEL.name, &json!({"records": single})).unwrap_err();
        assert_eq!(e.code.as_str(), "analysis_failed");
        assert!(e.message.contains("single effect size"), "{}", e.message);
        // Two clusters cannot support two coefficients.
        let mut two = records();
        for (i, r) in two.as_array_mut().unwrap().iter_mut().enumerate() {
            r["g"] = json!(if i < 6 { "p" } else { "q" });
        }
        let e = call(
            ROBUST_TEST.name,
            &json!({"records": two, "cluster": "g", "model": "regression", "mods": ["x"]}),
        )
        .unwrap_err();
        assert!(
            e.message.contains("more clusters than coefficients"),
            "{}",
            e.message
        );
        let e = call(
            ROBUST_TEST.name,
            &json!({"records": records(), "cluster": "study", "study": "study"}),
        )
        .unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_arguments");
    }
}

/// The page's "Your data" hands the tools every CSV column of a row: a study column read
/// there is the `study` (and `cluster`) of these tools.
#[cfg(test)]
mod your_data {
    use super::super::{call, FIT_MULTILEVEL, ROBUST_TEST};
    use serde_json::json;

    #[test]
    fn records_read_from_a_csv_run_both_tools_by_its_study_column() {
        let csv = "id,yi,vi,district\n\
                   a1,0.10,0.02,11\na2,0.30,0.03,11\na3,-0.20,0.01,11\n\
                   b1,0.50,0.05,12\nb2,0.40,0.04,12\n\
                   c1,0.00,0.02,18\nc2,0.25,0.03,18\nc3,0.60,0.06,18\n\
                   d1,-0.10,0.02,27\nd2,0.20,0.01,27\n";
        let records = crate::workspace::records_from_text(csv, None, None, None).unwrap();
        let fit = call(
            FIT_MULTILEVEL.name,
            &json!({"records": records, "study": "district"}),
        )
        .unwrap();
        assert_eq!(fit["n_studies"], 4);
        let robust = call(
            ROBUST_TEST.name,
            &json!({"records": records, "cluster": "district", "model": "multilevel", "study": "district"}),
        )
        .unwrap();
        assert_eq!(robust["n_clusters"], 4);
        assert_eq!(robust["coefficients"][0]["estimate"], fit["estimate"]);
    }
}
