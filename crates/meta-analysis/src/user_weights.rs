//! User-supplied weights aᵢ > 0 for the fixed effects, as metafor's
//! `rma(yi, vi, weights = a, …)` (metafor 3.8-1, `rma.uni`).
//!
//! Only the fixed effects change. With A = diag(a) and M = diag(vᵢ + τ̂²):
//!
//! - τ̂² is the estimate without weights, for every estimator (metafor's estimators never
//!   read `weights`; only its GENQ estimators do, which the engine does not offer);
//! - β̂ = (X′AX)⁻¹X′Ay, and Var β̂ = (X′AX)⁻¹X′AMAX(X′AX)⁻¹, the sandwich: the variance of
//!   a linear estimator under the model, exact for any fixed weights (for the intercept
//!   model μ̂ = Σaᵢyᵢ/Σaᵢ, Var μ̂ = Σaᵢ²(vᵢ + τ̂²)/(Σaᵢ)²);
//! - under Knapp–Hartung the sandwich is multiplied by the s² of the unweighted fit,
//!   s² = Σwᵢ(yᵢ − xᵢ′β̂_W)²/(k − p) with wᵢ = 1/(vᵢ + τ̂²) and β̂_W the inverse-variance
//!   estimate (0 when that sum is at most machine epsilon), and t(k − p) replaces the normal;
//! - QM is the Wald form of the moderators' coefficients in the (scaled) sandwich;
//!   predictions and the prediction interval, x₀′β̂ ± crit·√(x₀′Var β̂ x₀ + τ̂²), use it too;
//! - Q (QE), I², H² and their p values are those of the unweighted fit (the equal-effects
//!   fit with weights 1/vᵢ), and so is the pseudo-R² of the τ² estimators (a ratio of τ̂²s);
//!   for the equal-effects model the pseudo-R² is the adjusted R² of the least-squares fit
//!   with weights aᵢ (R's `summary(lm(yi ~ X, weights = a))$adj.r.squared`).
//!
//! β̂ and Var β̂ do not change when every aᵢ is multiplied by one constant, so the weights
//! are divided by the largest before any sum is formed (no sum of aᵢ² can overflow).

use crate::estimators::{estimate_tau2, Moments};
use crate::meta_regression::fit_coded_with;
use crate::model::assemble;
use crate::moderators::{Coding, Moderator};
use crate::records::{validate, Record};
use crate::weighted::{coefficients_with_weights, Degenerate, Design};
use crate::{Fit, FitOptions, MetaError, MetaRegression, Test};
use std::fmt;

/// Why the weights cannot be used.
#[derive(Debug, Clone, PartialEq)]
pub enum WeightError {
    /// Not one weight per record.
    Length { weights: usize, records: usize },
    /// A weight is NaN or infinite.
    NotFinite { id: String, weight: f64 },
    /// A weight is zero or negative.
    NotPositive { id: String, weight: f64 },
}

impl fmt::Display for WeightError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightError::Length { weights, records } => write!(
                f,
                "{weights} weights were given for {records} records; each record needs one weight"
            ),
            WeightError::NotFinite { id, weight } => write!(
                f,
                "record {id:?} has weight {weight}; a weight must be a finite number"
            ),
            WeightError::NotPositive { id, weight } => write!(
                f,
                "record {id:?} has weight {weight}; a weight must be greater than 0"
            ),
        }
    }
}

impl std::error::Error for WeightError {}

/// Why a fit with user weights could not be carried out: its weights, or the fit itself.
#[derive(Debug, Clone, PartialEq)]
pub enum WeightedError {
    Weights(WeightError),
    Fit(MetaError),
}

impl fmt::Display for WeightedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightedError::Weights(e) => e.fmt(f),
            WeightedError::Fit(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for WeightedError {}

impl From<MetaError> for WeightedError {
    fn from(e: MetaError) -> Self {
        WeightedError::Fit(e)
    }
}

impl From<WeightError> for WeightedError {
    fn from(e: WeightError) -> Self {
        WeightedError::Weights(e)
    }
}

/// [`crate::fit`] with user weights for the pooled estimate (see the module's formulas);
/// `None` is exactly [`crate::fit`]. The records are checked first, then the weights.
pub fn fit_weighted(
    records: &[Record],
    weights: Option<&[f64]>,
    options: &FitOptions,
) -> Result<Fit, WeightedError> {
    let Some(weights) = weights else {
        return Ok(crate::fit(records, options)?);
    };
    let data = validate(records, 2, "a meta-analysis")?;
    let a = checked(weights, records.len(), &|i| records[i].id.clone())?;
    Ok(fit_data_weighted(&data.yi, &data.vi, &a, options)?)
}

/// [`crate::meta_regression`] with user weights for the coefficients (see the module's
/// formulas); `None` is exactly [`crate::meta_regression`]. The records and moderators are
/// checked first, then the weights.
pub fn meta_regression_weighted(
    records: &[Record],
    moderators: &[Moderator],
    weights: Option<&[f64]>,
    options: &FitOptions,
) -> Result<MetaRegression, WeightedError> {
    let Some(weights) = weights else {
        return Ok(crate::meta_regression(records, moderators, options)?);
    };
    let data = validate(records, 2, "a meta-regression")?;
    let coding = Coding::new(moderators, &|i| records[i].id.clone(), data.k())?;
    let a = checked(weights, records.len(), &|i| records[i].id.clone())?;
    Ok(fit_coded_with(
        &data.yi,
        &data.vi,
        coding,
        Some(&a),
        options,
    )?)
}

/// [`crate::meta_regression_design`] with user weights for the coefficients; `None` is
/// exactly [`crate::meta_regression_design`].
pub fn meta_regression_design_weighted(
    records: &[Record],
    design: &crate::ModelMatrix,
    weights: Option<&[f64]>,
    options: &FitOptions,
) -> Result<MetaRegression, WeightedError> {
    let Some(weights) = weights else {
        return Ok(crate::meta_regression_design(records, design, options)?);
    };
    let data = validate(records, 2, "a meta-regression")?;
    crate::meta_regression::check_design_size(design, data.k())?;
    let a = checked(weights, records.len(), &|i| records[i].id.clone())?;
    Ok(fit_coded_with(
        &data.yi,
        &data.vi,
        design.coding.clone(),
        Some(&a),
        options,
    )?)
}

/// One finite weight > 0 per record, divided by the largest (see the module's last
/// paragraph); a record is named by `id(i)`.
fn checked(
    weights: &[f64],
    k: usize,
    id: &dyn Fn(usize) -> String,
) -> Result<Vec<f64>, WeightError> {
    if weights.len() != k {
        return Err(WeightError::Length {
            weights: weights.len(),
            records: k,
        });
    }
    for (i, &weight) in weights.iter().enumerate() {
        if !weight.is_finite() {
            return Err(WeightError::NotFinite { id: id(i), weight });
        }
        if weight <= 0.0 {
            return Err(WeightError::NotPositive { id: id(i), weight });
        }
    }
    let largest = weights.iter().fold(0.0f64, |m, w| m.max(*w));
    Ok(weights.iter().map(|w| w / largest).collect())
}

/// The intercept-only fit with weights `a` (checked) on validated columns: τ̂², Q, I², H²
/// as without weights; μ̂ and its variance from [`coefficients`]; under Knapp–Hartung the
/// s² of the inverse-variance fit, 0 when its residual sum is at most machine epsilon
/// (metafor's `RSS.knha`), so that the standard error is then 0 and refused.
fn fit_data_weighted(
    yi: &[f64],
    vi: &[f64],
    a: &[f64],
    options: &FitOptions,
) -> Result<Fit, MetaError> {
    options.validate()?;
    let x = Design::intercept();
    let tau2 = estimate_tau2(options.method, yi, vi, &x)?;
    let mut re = Moments::at(yi, vi, &x, tau2.tau2).map_err(Degenerate::error)?;
    let fe = Moments::at(yi, vi, &x, 0.0).map_err(Degenerate::error)?;
    // μ̂ = Σaᵢyᵢ/Σaᵢ and Var μ̂ = Σaᵢ²(vᵢ + τ̂²)/(Σaᵢ)²: the intercept-only case of
    // [`coefficients`].
    let (beta, sandwich) =
        coefficients_with_weights(yi, vi, &x, a, tau2.tau2).map_err(Degenerate::error)?;
    // `assemble` reads the estimate, its model variance and the Knapp–Hartung residual sum
    // from the moments at τ̂²: the first two become the weighted ones, the sum stays.
    re.beta0 = beta[0];
    re.var_beta0 = sandwich.get(0, 0);
    if options.test == Test::Knha && re.ypy <= f64::EPSILON {
        re.ypy = 0.0;
    }
    assemble(yi.len(), tau2, &re, &fe, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{fit, meta_regression, Method};

    fn records() -> Vec<Record> {
        [
            (0.30, 0.04),
            (0.12, 0.02),
            (0.65, 0.05),
            (0.02, 0.01),
            (0.48, 0.03),
            (-0.05, 0.02),
            (0.90, 0.08),
        ]
        .iter()
        .enumerate()
        .map(|(i, &(y, v))| Record::new(format!("r{i}"), y, v))
        .collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    fn all_options() -> Vec<FitOptions> {
        let mut out = Vec::new();
        for method in Method::ALL {
            for test in [Test::Z, Test::Knha] {
                out.push(FitOptions {
                    method,
                    test,
                    ..FitOptions::default()
                });
            }
        }
        out
    }

    #[test]
    fn without_weights_nothing_changes() {
        let recs = records();
        let x = Moderator::numeric("x", vec![1.0, 2.0, 3.0, 1.5, 4.0, 0.5, 5.0]);
        for options in all_options() {
            assert_eq!(
                fit_weighted(&recs, None, &options).unwrap(),
                fit(&recs, &options).unwrap()
            );
            assert_eq!(
                meta_regression_weighted(&recs, std::slice::from_ref(&x), None, &options).unwrap(),
                meta_regression(&recs, std::slice::from_ref(&x), &options).unwrap()
            );
        }
    }

    /// With aᵢ = 1/(vᵢ + τ̂²) the weighted estimate is the inverse-variance one and the
    /// sandwich collapses to (X′WX)⁻¹: the weighted fit is the unweighted fit.
    #[test]
    fn inverse_variance_weights_give_the_unweighted_fit() {
        let recs = records();
        let x = Moderator::numeric("x", vec![1.0, 2.0, 3.0, 1.5, 4.0, 0.5, 5.0]);
        for options in all_options() {
            let plain = fit(&recs, &options).unwrap();
            let w: Vec<f64> = recs.iter().map(|r| 7.0 / (r.vi + plain.tau2)).collect();
            let weighted = fit_weighted(&recs, Some(&w), &options).unwrap();
            for (ours, theirs) in [
                (weighted.estimate, plain.estimate),
                (weighted.se, plain.se),
                (weighted.p, plain.p),
                (weighted.pi_lower, plain.pi_lower),
                (weighted.q, plain.q),
            ] {
                assert!(close(ours, theirs), "{options:?}: {ours} vs {theirs}");
            }
            let plain = meta_regression(&recs, std::slice::from_ref(&x), &options).unwrap();
            let w: Vec<f64> = recs.iter().map(|r| 1.0 / (r.vi + plain.tau2)).collect();
            let weighted =
                meta_regression_weighted(&recs, std::slice::from_ref(&x), Some(&w), &options)
                    .unwrap();
            assert!(close(weighted.qm, plain.qm), "{options:?}");
            assert!(close(weighted.r2, plain.r2), "{options:?}");
            for (c, d) in weighted.coefficients.iter().zip(&plain.coefficients) {
                assert!(
                    close(c.estimate, d.estimate) && close(c.se, d.se),
                    "{options:?}"
                );
            }
        }
    }

    /// Equal weights: the plain mean, with variance Σ(vᵢ + τ̂²)/k².
    #[test]
    fn equal_weights_give_the_plain_mean_and_its_variance() {
        let recs = records();
        let k = recs.len() as f64;
        let options = FitOptions {
            method: Method::Dl,
            ..FitOptions::default()
        };
        let model = fit_weighted(&recs, Some(&[3.0; 7]), &options).unwrap();
        let mean = recs.iter().map(|r| r.yi).sum::<f64>() / k;
        let var = recs.iter().map(|r| r.vi + model.tau2).sum::<f64>() / (k * k);
        assert!(close(model.estimate, mean));
        assert!(close(model.se, var.sqrt()));
        // The scale of the weights does not matter, however large or small.
        for scale in [1e-300, 1e300] {
            let again = fit_weighted(&recs, Some(&[scale; 7]), &options).unwrap();
            assert!(close(again.estimate, model.estimate) && close(again.se, model.se));
        }
    }

    #[test]
    fn bad_weights_are_refused_naming_the_record() {
        let recs = records();
        let options = FitOptions::default();
        let mut w = vec![1.0; 7];
        w[2] = 0.0;
        let e = fit_weighted(&recs, Some(&w), &options).unwrap_err();
        assert_eq!(
            e,
            WeightedError::Weights(WeightError::NotPositive {
                id: "r2".into(),
                weight: 0.0
            })
        );
        assert_eq!(
            e.to_string(),
            "record \"r2\" has weight 0; a weight must be greater than 0"
        );
        w[2] = f64::NAN;
        assert!(matches!(
            fit_weighted(&recs, Some(&w), &options),
            Err(WeightedError::Weights(WeightError::NotFinite { .. }))
        ));
        w[2] = -1.0;
        let x = Moderator::numeric("x", vec![1.0, 2.0, 3.0, 1.5, 4.0, 0.5, 5.0]);
        assert!(matches!(
            meta_regression_weighted(&recs, std::slice::from_ref(&x), Some(&w), &options),
            Err(WeightedError::Weights(WeightError::NotPositive { .. }))
        ));
        let e = fit_weighted(&recs, Some(&[1.0; 6]), &options).unwrap_err();
        assert_eq!(
            e.to_string(),
            "6 weights were given for 7 records; each record needs one weight"
        );
        // The records are checked before the weights.
        let e = fit_weighted(&recs[..1], Some(&[1.0; 6]), &options).unwrap_err();
        assert!(matches!(
            e,
            WeightedError::Fit(MetaError::TooFewRecords { .. })
        ));
    }

    /// Knapp–Hartung with yᵢ all equal: s² = 0, so the standard error is 0 and refused.
    #[test]
    fn knapp_hartung_with_no_residual_spread_is_refused() {
        let recs: Vec<Record> = (0..4)
            .map(|i| Record::new(format!("e{i}"), 0.5, 0.01 * (i + 1) as f64))
            .collect();
        let options = FitOptions {
            test: Test::Knha,
            ..FitOptions::default()
        };
        let e = fit_weighted(&recs, Some(&[1.0, 2.0, 3.0, 4.0]), &options).unwrap_err();
        assert!(
            matches!(e, WeightedError::Fit(MetaError::Undefined { .. })),
            "{e}"
        );
    }
}
