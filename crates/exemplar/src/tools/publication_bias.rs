//! The selection-model and PET-PEESE tools: estimates adjusted for publication bias (the
//! statistics are `meta_analysis`').

use super::data::{DataSource, DatasetInfo};
use super::{ErrorCode, ToolError};
use meta_analysis::{
    Alternative, Coefficient, FitOptions, MetaRegression, PetPeeseOptions, Test, DEFAULT_STEPS,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The most steps a selection model takes.
pub const MAX_STEPS: usize = 10;

pub fn selection_input(max: usize) -> Value {
    super::schemas::object(
        json!({
            "steps": {
                "type": "array",
                "items": {"type": "number", "minimum": 0, "maximum": 1},
                "default": DEFAULT_STEPS,
                "description": format!("One-sided p-value cutpoints in (0, 1), at most {MAX_STEPS}; 1 is added.")
            },
            "level": super::schemas::level(),
            "exclude": super::schemas::exclude(super::schemas::EXCLUDE),
            "records": super::schemas::records(max)
        }),
        &[],
    )
}

pub fn pet_peese_input(max: usize) -> Value {
    super::schemas::object(
        json!({
            "test": {"type": "string", "enum": ["knha", "z"], "default": "knha", "description": "knha: multiplicative error, t tests; z: fixed effect."},
            "level": super::schemas::level(),
            "alpha": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.05, "description": "Level of PET's intercept test."},
            "alternative": {"type": "string", "enum": ["two.sided", "greater", "less"], "default": "two.sided", "description": "Alternative of PET's intercept test."},
            "exclude": super::schemas::exclude(super::schemas::EXCLUDE),
            "records": super::schemas::records(max)
        }),
        &[],
    )
}

#[derive(Debug, Deserialize)]
pub struct SelectionArgs {
    steps: Option<Vec<f64>>,
    level: Option<f64>,
    #[serde(default)]
    exclude: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct PetPeeseArgs {
    test: Option<String>,
    level: Option<f64>,
    alpha: Option<f64>,
    alternative: Option<String>,
    #[serde(default)]
    exclude: Vec<String>,
}

/// One interval of p values and its selection weight.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct WeightRow {
    /// The interval (lower, upper] of one-sided p values.
    pub lower: f64,
    pub upper: f64,
    /// Records in it.
    pub k: usize,
    /// Relative likelihood of publication (the first interval's is 1, fixed).
    pub delta: f64,
    /// se, z = (delta - 1)/se, two-sided p and CI (lower end cut at 0); null for the first.
    pub se: Option<f64>,
    pub z: Option<f64>,
    pub p: Option<f64>,
    pub ci_lower: Option<f64>,
    pub ci_upper: Option<f64>,
}

/// `selection_model`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct SelectionResult {
    /// Records fitted.
    pub k: usize,
    pub level: f64,
    /// The cutpoints, with 1 added.
    pub steps: Vec<f64>,
    /// The estimate adjusted for selection, with its Wald test and CI.
    pub estimate: f64,
    pub se: f64,
    pub z: f64,
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub tau2: f64,
    /// Null when tau2 is 0 (the boundary).
    pub se_tau2: Option<f64>,
    pub tau2_ci_lower: Option<f64>,
    pub tau2_ci_upper: Option<f64>,
    /// One per interval of p values.
    pub weights: Vec<WeightRow>,
    /// The likelihood-ratio test of no selection (all delta = 1), on lrt_df df.
    pub lrt: f64,
    pub lrt_df: usize,
    pub lrt_p: f64,
    pub log_likelihood: f64,
    /// The log-likelihood of the ML random-effects model without selection.
    pub log_likelihood_null: f64,
    /// The ML random-effects estimate and tau2 without selection.
    pub unadjusted_estimate: f64,
    pub unadjusted_tau2: f64,
    /// Newton iterations of the likelihood maximisation.
    pub iterations: usize,
    /// The ids left out.
    pub excluded: Vec<String>,
    pub dataset: DatasetInfo,
}

/// One coefficient of PET or PEESE.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RegressionCoefficient {
    pub estimate: f64,
    pub se: f64,
    /// t (test knha, k - 2 df) or z.
    pub statistic: f64,
    /// Two-sided p value of the coefficient = 0.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
}

impl RegressionCoefficient {
    fn of(c: &Coefficient) -> Self {
        RegressionCoefficient {
            estimate: c.estimate,
            se: c.se,
            statistic: c.statistic,
            p: c.p,
            ci_lower: c.ci_lower,
            ci_upper: c.ci_upper,
        }
    }
}

/// PET (yi on sqrt(vi)) or PEESE (yi on vi).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct Regression {
    pub intercept: RegressionCoefficient,
    pub slope: RegressionCoefficient,
    /// k - 2 with test knha, null with z.
    pub df: Option<f64>,
}

impl Regression {
    fn of(m: &MetaRegression) -> Self {
        Regression {
            intercept: RegressionCoefficient::of(&m.coefficients[0]),
            slope: RegressionCoefficient::of(&m.coefficients[1]),
            df: m.df,
        }
    }
}

/// `pet_peese`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct PetPeeseResult {
    /// Records fitted.
    pub k: usize,
    /// "knha" or "z".
    pub test: &'static str,
    pub level: f64,
    pub pet: Regression,
    pub peese: Regression,
    /// The rule: PEESE's intercept if PET's intercept test (alternative, alpha) rejects, else PET's.
    pub alpha: f64,
    pub alternative: &'static str,
    /// The p value of PET's intercept under alternative.
    pub pet_intercept_p: f64,
    pub pet_rejects: bool,
    /// "PET" or "PEESE".
    pub choice: &'static str,
    /// The chosen intercept: the estimate corrected for small-study effects.
    pub estimate: f64,
    pub se: f64,
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    /// The ids left out.
    pub excluded: Vec<String>,
    pub dataset: DatasetInfo,
}

fn level(level: Option<f64>) -> Result<f64, ToolError> {
    let level = level.unwrap_or(0.95);
    if !(level > 0.0 && level < 1.0) {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("level must be strictly between 0 and 1 (for example 0.95), got {level}"),
        ));
    }
    Ok(level)
}

/// `selection_model`
pub fn selection_model(
    args: SelectionArgs,
    data: &DataSource,
) -> Result<SelectionResult, ToolError> {
    let excluded = data.exclusions(args.exclude)?;
    let kept = data.kept(&excluded);
    let steps = args.steps.unwrap_or_else(|| DEFAULT_STEPS.to_vec());
    if steps.len() > MAX_STEPS {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "{} steps given; at most {MAX_STEPS} are accepted",
                steps.len()
            ),
        ));
    }
    let options = FitOptions {
        level: level(args.level)?,
        ..FitOptions::default()
    };
    let m = meta_analysis::selection_model(&kept, &steps, &options)?;
    Ok(SelectionResult {
        k: m.k,
        level: m.level,
        steps: m.steps.clone(),
        estimate: m.estimate,
        se: m.se,
        z: m.statistic,
        p: m.p,
        ci_lower: m.ci_lower,
        ci_upper: m.ci_upper,
        tau2: m.tau2,
        se_tau2: m.se_tau2,
        tau2_ci_lower: m.tau2_ci_lower,
        tau2_ci_upper: m.tau2_ci_upper,
        weights: m
            .weights
            .iter()
            .map(|w| WeightRow {
                lower: w.lower,
                upper: w.upper,
                k: w.k,
                delta: w.delta,
                se: w.se,
                z: w.statistic,
                p: w.p,
                ci_lower: w.ci_lower,
                ci_upper: w.ci_upper,
            })
            .collect(),
        lrt: m.lrt,
        lrt_df: m.lrt_df,
        lrt_p: m.lrt_p,
        log_likelihood: m.log_likelihood,
        log_likelihood_null: m.log_likelihood_null,
        unadjusted_estimate: m.unadjusted_estimate,
        unadjusted_tau2: m.unadjusted_tau2,
        iterations: m.iterations,
        excluded,
        dataset: data.info().clone(),
    })
}

/// `pet_peese`
pub fn pet_peese(args: PetPeeseArgs, data: &DataSource) -> Result<PetPeeseResult, ToolError> {
    let excluded = data.exclusions(args.exclude)?;
    let kept = data.kept(&excluded);
    let invalid = |m: String| ToolError::new(ErrorCode::InvalidArguments, m);
    let test = match args.test.as_deref() {
        None => Test::Knha,
        Some(name) => Test::parse(name).ok_or_else(|| invalid(format!("unknown test {name:?}")))?,
    };
    let alternative = match args.alternative.as_deref() {
        None => Alternative::TwoSided,
        Some(name) => Alternative::parse(name)
            .ok_or_else(|| invalid(format!("unknown alternative {name:?}")))?,
    };
    let alpha = args.alpha.unwrap_or(0.05);
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(invalid(format!(
            "alpha must be strictly between 0 and 1 (for example 0.05), got {alpha}"
        )));
    }
    let options = PetPeeseOptions {
        test,
        level: level(args.level)?,
        alpha,
        alternative,
    };
    let r = meta_analysis::pet_peese(&kept, &options)?;
    let chosen = r.chosen();
    Ok(PetPeeseResult {
        k: r.pet.k,
        test: test.name(),
        level: options.level,
        pet: Regression::of(&r.pet),
        peese: Regression::of(&r.peese),
        alpha,
        alternative: alternative.name(),
        pet_intercept_p: r.pet_intercept_p,
        pet_rejects: r.pet_rejects,
        choice: r.choice.name(),
        estimate: chosen.estimate,
        se: chosen.se,
        p: chosen.p,
        ci_lower: chosen.ci_lower,
        ci_upper: chosen.ci_upper,
        excluded,
        dataset: data.info().clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{call, PET_PEESE, SELECTION_MODEL};
    use super::*;

    #[test]
    fn the_frozen_dataset_has_a_selection_model_and_pet_peese() {
        let records = crate::dataset::records();
        let out = call(SELECTION_MODEL.name, &json!({})).unwrap();
        let lib = meta_analysis::selection_model(&records, &DEFAULT_STEPS, &FitOptions::default())
            .unwrap();
        assert_eq!(out["estimate"].as_f64(), Some(lib.estimate));
        assert_eq!(out["steps"], json!([0.025, 0.5, 1.0]));
        assert_eq!(out["weights"].as_array().unwrap().len(), 3);
        assert_eq!(out["weights"][0]["se"], Value::Null);
        // dat.raudenbush1985's maximum lies at tau2 = 0: no se of tau2.
        assert_eq!(out["tau2"], 0.0);
        assert_eq!(out["se_tau2"], Value::Null);

        let out = call(PET_PEESE.name, &json!({"exclude": ["s04"]})).unwrap();
        assert_eq!(out["k"], 18);
        assert_eq!(out["pet"]["df"], 16.0);
        let chosen = if out["pet_rejects"] == true {
            "peese"
        } else {
            "pet"
        };
        assert_eq!(out["estimate"], out[chosen]["intercept"]["estimate"]);
    }

    #[test]
    fn bad_arguments_are_refused() {
        for (tool, args, code) in [
            (
                SELECTION_MODEL.name,
                json!({"steps": [0.0]}),
                "analysis_failed",
            ),
            (
                SELECTION_MODEL.name,
                json!({"steps": [0.3, 0.31, 0.32]}),
                "analysis_failed",
            ),
            (
                SELECTION_MODEL.name,
                json!({"steps": [0.5, 2]}),
                "invalid_arguments",
            ),
            (PET_PEESE.name, json!({"alpha": 0}), "invalid_arguments"),
            (
                PET_PEESE.name,
                json!({"alternative": "up"}),
                "invalid_arguments",
            ),
        ] {
            let e = call(tool, &args).unwrap_err();
            assert_eq!(e.code.as_str(), code, "{tool} {args}: {}", e.message);
        }
    }
}
