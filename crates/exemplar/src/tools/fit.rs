//! `fit_random_effects`, `refit_excluding` and `leave_one_out`: the pooled fit and its
//! variants, with results written as the answer shape names them.

use super::args::{ExcludeFitArgs, FitArgs};
use super::columns::weight_column;
use super::data::{DataSource, DatasetInfo};
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::{ErrorCode, ToolError};
use meta_analysis::{Fit, Test, WeightedError};
use serde::{Deserialize, Serialize};

/// The model's description: method, test, level and k.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FitHead {
    /// The tau^2 estimator (REML, ML, DL, HE, SJ, PM or EE).
    pub method: &'static str,
    /// "z" or "knha".
    pub test: &'static str,
    /// Confidence level of the intervals.
    pub level: f64,
    /// Records fitted.
    pub k: usize,
}

/// The fitted numbers, in reading order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FitStats {
    /// Pooled estimate.
    pub estimate: f64,
    /// Its standard error (Knapp-Hartung adjusted with test "knha").
    pub se: f64,
    /// z statistic (test "z" only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(with = "f64"))]
    pub z: Option<f64>,
    /// t statistic (test "knha" only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(with = "f64"))]
    pub t: Option<f64>,
    /// Degrees of freedom of t, k - 1 (test "knha" only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(with = "f64"))]
    pub df: Option<f64>,
    /// Two-sided p value of estimate = 0.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub tau2: f64,
    pub tau: f64,
    /// Standard error of tau^2; null where the estimator defines none (PM, EE).
    pub se_tau2: Option<f64>,
    /// Cochran's Q.
    pub q: f64,
    pub q_df: usize,
    pub q_p: f64,
    /// I^2 in percent.
    pub i2: f64,
    pub h2: f64,
    /// Prediction interval.
    pub pi_lower: f64,
    pub pi_upper: f64,
    pub natural: Option<NaturalScale>,
    /// Iterations of an iterative estimator; null for closed forms.
    pub iterations: Option<usize>,
}

impl FitHead {
    pub fn of(fit: &Fit) -> Self {
        FitHead {
            method: fit.method.name(),
            test: fit.test.name(),
            level: fit.level,
            k: fit.k,
        }
    }
}

impl FitStats {
    pub fn of(fit: &Fit, scale: &Scale) -> Self {
        let (z, t) = match fit.test {
            Test::Z => (Some(fit.statistic), None),
            Test::Knha => (None, Some(fit.statistic)),
        };
        FitStats {
            estimate: fit.estimate,
            se: fit.se,
            z,
            t,
            df: fit.df,
            p: fit.p,
            ci_lower: fit.ci_lower,
            ci_upper: fit.ci_upper,
            tau2: fit.tau2,
            tau: fit.tau,
            se_tau2: fit.se_tau2,
            q: fit.q,
            q_df: fit.q_df,
            q_p: fit.q_p,
            i2: fit.i2,
            h2: fit.h2,
            pi_lower: fit.pi_lower,
            pi_upper: fit.pi_upper,
            natural: scale.natural(
                fit.estimate,
                (fit.ci_lower, fit.ci_upper),
                Some((fit.pi_lower, fit.pi_upper)),
            ),
            iterations: fit.iterations,
        }
    }
}

/// `fit_random_effects`' result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FitResult {
    #[serde(flatten)]
    pub head: FitHead,
    /// The column of user weights the estimate was weighted by (only when `weights` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(with = "String"))]
    pub weights: Option<String>,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    #[serde(flatten)]
    pub stats: FitStats,
    pub dataset: DatasetInfo,
}

/// A fit without some records: `refit_excluding`'s result, and the fit of the plots.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RefitResult {
    #[serde(flatten)]
    pub head: FitHead,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// The ids left out.
    pub excluded: Vec<String>,
    #[serde(flatten)]
    pub stats: FitStats,
    pub dataset: DatasetInfo,
}

impl RefitResult {
    pub fn of(fit: &Fit, excluded: Vec<String>, data: &DataSource, scale: &Scale) -> Self {
        RefitResult {
            head: FitHead::of(fit),
            scale: scale.info(),
            excluded,
            stats: FitStats::of(fit, scale),
            dataset: data.info().clone(),
        }
    }
}

/// One row of `leave_one_out`: the fit without record `omitted`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LeaveOneOutRow {
    /// The id of the record left out.
    pub omitted: String,
    #[serde(flatten)]
    pub head: FitHead,
    #[serde(flatten)]
    pub stats: FitStats,
}

/// `leave_one_out`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LeaveOneOutResult {
    pub method: &'static str,
    pub test: &'static str,
    pub level: f64,
    /// All records (each row fits k - 1).
    pub k: usize,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// One fit per record, in record order.
    pub results: Vec<LeaveOneOutRow>,
    pub dataset: DatasetInfo,
}

/// The arguments of a fit with optional user weights: a fit's, and `weights`, the name of a
/// numeric column holding each record's weight (`fit_random_effects`).
#[derive(Debug, Default, Deserialize)]
pub struct WeightedFitArgs {
    pub weights: Option<String>,
    #[serde(flatten)]
    pub fit: FitArgs,
}

/// Whether a `fit_random_effects` call is drawn as a forest plot with its own arguments: only
/// without user weights (the forest plot fits without them).
pub(super) fn unweighted(args: &serde_json::Value) -> bool {
    args.get("weights").is_none()
}

/// A weighted fit's engine error: a weight that cannot be used (its record named) is the
/// caller's argument, named by its `column`; anything else the fit's own error.
pub(super) fn weighted_error(column: Option<&str>, error: WeightedError) -> ToolError {
    match error {
        WeightedError::Weights(e) => ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "weights {}: {e}",
                crate::quote::quoted(column.unwrap_or_default())
            ),
        ),
        WeightedError::Fit(e) => e.into(),
    }
}

/// `fit_random_effects`: [`meta_analysis::fit_weighted`] with the `weights` column's values,
/// or without weights (then exactly [`meta_analysis::fit`]).
pub fn fit_random_effects(
    args: WeightedFitArgs,
    data: &DataSource,
) -> Result<FitResult, ToolError> {
    let scale = Scale::of(&args.fit.scale, data)?;
    let options = args.fit.options()?;
    let weights = match &args.weights {
        Some(column) => Some(weight_column(data, column, &[])?),
        None => None,
    };
    let fit = meta_analysis::fit_weighted(data.records(), weights.as_deref(), &options)
        .map_err(|e| weighted_error(args.weights.as_deref(), e))?;
    Ok(FitResult {
        head: FitHead::of(&fit),
        weights: args.weights,
        scale: scale.info(),
        stats: FitStats::of(&fit, &scale),
        dataset: data.info().clone(),
    })
}

/// `refit_excluding`
pub fn refit_excluding(args: ExcludeFitArgs, data: &DataSource) -> Result<RefitResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let excluded = data.exclusions(args.exclude)?;
    if excluded.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            "exclude must list at least one record id, e.g. [\"s04\"]",
        ));
    }
    let fit = meta_analysis::refit_excluding(data.records(), &excluded, &options)?;
    Ok(RefitResult::of(&fit, excluded, data, &scale))
}

/// `leave_one_out`: each record left out in turn, of the records left after `exclude`.
pub fn leave_one_out(
    args: ExcludeFitArgs,
    data: &DataSource,
) -> Result<LeaveOneOutResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let excluded = data.exclusions(args.exclude)?;
    let kept = data.kept(&excluded);
    let rows = meta_analysis::leave_one_out(&kept, &options)?;
    Ok(LeaveOneOutResult {
        method: options.method.name(),
        test: options.test.name(),
        level: options.level,
        k: kept.len(),
        scale: scale.info(),
        results: rows
            .iter()
            .map(|row| LeaveOneOutRow {
                omitted: row.id.clone(),
                head: FitHead::of(&row.fit),
                stats: FitStats::of(&row.fit, &scale),
            })
            .collect(),
        dataset: data.info().clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{call, companion_plot, FIT_RANDOM_EFFECTS, FOREST_PLOT, META_REGRESSION};
    use serde_json::{json, Value};

    fn records() -> Value {
        json!([
            {"id": "a", "yi": 0.30, "vi": 0.04, "n": 40, "x": 1.0, "arm": "p"},
            {"id": "b", "yi": 0.12, "vi": 0.02, "n": 80, "x": 2.0, "arm": "q"},
            {"id": "c", "yi": 0.65, "vi": 0.05, "n": 30, "x": 3.0, "arm": "p"},
            {"id": "d", "yi": 0.02, "vi": 0.01, "n": 150, "x": 1.5, "arm": "q"},
            {"id": "e", "yi": 0.48, "vi": 0.03, "n": 60, "x": 4.0, "arm": "p"},
            {"id": "f", "yi": -0.05, "vi": 0.02, "n": 90, "x": 0.5, "arm": "q"}
        ])
    }

    fn engine_records(excluded: &[&str]) -> Vec<meta_analysis::Record> {
        records()
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| !excluded.contains(&r["id"].as_str().unwrap()))
            .map(|r| {
                meta_analysis::Record::new(
                    r["id"].as_str().unwrap(),
                    r["yi"].as_f64().unwrap(),
                    r["vi"].as_f64().unwrap(),
                )
            })
            .collect()
    }

    fn column(name: &str, excluded: &[&str]) -> Vec<f64> {
        records()
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| !excluded.contains(&r["id"].as_str().unwrap()))
            .map(|r| r[name].as_f64().unwrap())
            .collect()
    }

    fn valid(name: &str, result: &Value) {
        let schema = super::super::output_schema(name).unwrap();
        crate::schema::validate(&schema, result).unwrap_or_else(|e| panic!("{name}: {e}"));
    }

    #[test]
    fn a_weighted_fit_is_the_engines_and_says_its_column() {
        let options = meta_analysis::FitOptions {
            test: meta_analysis::Test::Knha,
            ..Default::default()
        };
        let args = json!({"records": records(), "weights": "n", "test": "knha"});
        let result = call(FIT_RANDOM_EFFECTS.name, &args).unwrap();
        valid(FIT_RANDOM_EFFECTS.name, &result);
        let engine =
            meta_analysis::fit_weighted(&engine_records(&[]), Some(&column("n", &[])), &options)
                .unwrap();
        assert_eq!(result["weights"], "n");
        assert_eq!(result["estimate"], json!(engine.estimate));
        assert_eq!(result["se"], json!(engine.se));
        assert_eq!(result["pi_lower"], json!(engine.pi_lower));
        // The heterogeneity is the unweighted fit's; the estimate is not.
        let plain = call(
            FIT_RANDOM_EFFECTS.name,
            &json!({"records": records(), "test": "knha"}),
        )
        .unwrap();
        assert!(
            plain.get("weights").is_none(),
            "no weights field without weights"
        );
        for field in ["tau2", "q", "i2", "h2"] {
            assert_eq!(result[field], plain[field], "{field}");
        }
        assert_ne!(result["estimate"], plain["estimate"]);
        // The forest plot draws the unweighted fit, so it does not go with a weighted one.
        assert_eq!(companion_plot(FIT_RANDOM_EFFECTS.name, &args), None);
        assert_eq!(
            companion_plot(FIT_RANDOM_EFFECTS.name, &json!({"records": records()})),
            Some(FOREST_PLOT.name)
        );
        // The frozen dataset's numeric columns serve as weights too.
        let frozen = call(FIT_RANDOM_EFFECTS.name, &json!({"weights": "n1i"})).unwrap();
        assert_eq!(
            (&frozen["weights"], &frozen["k"]),
            (&json!("n1i"), &json!(19))
        );
    }

    #[test]
    fn a_weighted_meta_regression_is_the_engines_on_the_records_kept() {
        let args = json!({"records": records(), "mods": ["x"], "weights": "n", "exclude": ["c"],
            "at": [{"x": 2}]});
        let result = call(META_REGRESSION.name, &args).unwrap();
        valid(META_REGRESSION.name, &result);
        let engine = meta_analysis::meta_regression_weighted(
            &engine_records(&["c"]),
            &[meta_analysis::Moderator::numeric("x", column("x", &["c"]))],
            Some(&column("n", &["c"])),
            &Default::default(),
        )
        .unwrap();
        assert_eq!(result["weights"], "n");
        assert_eq!(result["k"], 5);
        assert_eq!(
            result["coefficients"][1]["se"],
            json!(engine.coefficients[1].se)
        );
        assert_eq!(result["qm"], json!(engine.qm));
        let at = engine
            .predict(&[meta_analysis::ModeratorValue::Number(2.0)])
            .unwrap();
        assert_eq!(result["predictions"][0]["pi_upper"], json!(at.pi_upper));
        // No bubble plot: it draws the unweighted line.
        assert_eq!(companion_plot(META_REGRESSION.name, &args), None);
        let plain = call(
            META_REGRESSION.name,
            &json!({"records": records(), "mods": ["x"], "exclude": ["c"]}),
        )
        .unwrap();
        assert!(plain.get("weights").is_none());
        assert_eq!(plain["tau2"], result["tau2"]);
    }

    #[test]
    fn unusable_weights_are_invalid_arguments_naming_the_record() {
        let mut recs = records();
        recs[3]["n"] = json!(0);
        let cases = [
            (
                json!({"records": records(), "weights": "size"}),
                "invalid_arguments",
                "\"size\" is not a column of the given records",
            ),
            (
                json!({"records": records(), "weights": "arm"}),
                "invalid_arguments",
                "weights: the column \"arm\" holds text in record \"a\"",
            ),
            (
                json!({"records": recs, "weights": "n"}),
                "invalid_arguments",
                "weights \"n\": record \"d\" has weight 0; a weight must be greater than 0",
            ),
        ];
        for tool in [FIT_RANDOM_EFFECTS.name, META_REGRESSION.name] {
            for (args, code, message) in &cases {
                let mut args = args.clone();
                if tool == META_REGRESSION.name {
                    args["mods"] = json!(["x"]);
                }
                let e = call(tool, &args).unwrap_err();
                assert_eq!(e.code.as_str(), *code, "{tool} {args}: {e}");
                assert!(e.message.contains(message), "{tool}: {}", e.message);
            }
        }
        let mut gap = records();
        gap[1].as_object_mut().unwrap().remove("n");
        let e = call(
            FIT_RANDOM_EFFECTS.name,
            &json!({"records": gap, "weights": "n"}),
        )
        .unwrap_err();
        assert_eq!(e.message, "record \"b\" has no value in the column \"n\"");
        // A record left out needs no weight.
        let mut recs = records();
        recs[2]["n"] = json!(-1);
        let args = json!({"records": recs, "mods": ["x"], "weights": "n", "exclude": ["c"]});
        assert!(call(META_REGRESSION.name, &args).is_ok());
    }
}
