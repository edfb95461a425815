//! The mixed-effects meta-regression yᵢ = xᵢ′β + uᵢ + εᵢ, uᵢ ~ N(0, τ²), εᵢ ~ N(0, vᵢ),
//! with an intercept and the moderators of [`crate::moderators`].
//!
//! τ² is estimated by any [`Method`] on the p-column design (the estimators' projection
//! formulas hold for any X, see [`crate::weighted`]); then, with wᵢ = 1/(vᵢ + τ̂²),
//! β̂ = (X′WX)⁻¹X′Wy and Var β̂ = (X′WX)⁻¹ (Viechtbauer 2005; metafor's `rma.uni`). With
//! user weights the coefficients and their variance are those of [`crate::user_weights`].

use crate::distributions::{
    chi2_sf, f_sf, normal_quantile, normal_two_sided_p, t_quantile, t_two_sided_p,
    upper_quantile_point,
};
use crate::estimators::{estimate_tau2, estimate_tau2_with, Memo, Method, Moments};
use crate::formula::ModelMatrix;
use crate::model::Heterogeneity;
use crate::moderators::{Coding, Moderator, ModeratorValue, Term};
use crate::records::{validate, validate_columns, Record};
use crate::weighted::{
    coefficients_with_weights, equal_effects_r2_with_weights, Degenerate, Design, Matrix,
};
use crate::{FitOptions, MetaError, Test};

/// One coefficient of a meta-regression.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Coefficient {
    /// "intercept", or the coefficient's name as metafor gives it (`weeks`, `testerblind`,
    /// `factor(g)B`, `x1:x2`, `I(x^2)`).
    pub name: String,
    pub estimate: f64,
    /// Standard error (Knapp–Hartung adjusted with test "knha").
    pub se: f64,
    /// z, or t with k − p df (test "knha", or "t" in a multilevel model).
    pub statistic: f64,
    /// Two-sided p value of the coefficient = 0.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
}

/// The model's prediction at given moderator values.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// x₀′β̂.
    pub estimate: f64,
    /// √(x₀′ Var(β̂) x₀).
    pub se: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    /// Prediction interval: estimate ± crit·√(se² + τ̂²).
    pub pi_lower: f64,
    pub pi_upper: f64,
}

/// A fitted meta-regression.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaRegression {
    pub method: Method,
    pub test: Test,
    pub level: f64,
    pub k: usize,
    /// Number of coefficients, the intercept included.
    pub p: usize,
    /// Residual heterogeneity τ̂².
    pub tau2: f64,
    pub tau: f64,
    /// Standard error of τ̂² where the estimator defines one (not for PM, not for EE).
    pub se_tau2: Option<f64>,
    /// Iterations of an iterative estimator; `None` for closed forms.
    pub iterations: Option<usize>,
    /// Intercept first, then each moderator's columns in the order given.
    pub coefficients: Vec<Coefficient>,
    /// k − p, the df of the t statistics (`Test::Knha` only).
    pub df: Option<f64>,
    /// The omnibus test of the coefficients in [`Self::btt`] (by default all but the
    /// intercept, all of them without one): the Wald χ² b′V⁻¹b with m = |btt| df, or under
    /// `Test::Knha` the same quadratic form divided by m, an F(m, k − p) statistic.
    pub qm: f64,
    /// m, the number of coefficients tested.
    pub qm_df: usize,
    /// k − p under `Test::Knha`, else `None`.
    pub qm_df2: Option<usize>,
    pub qm_p: f64,
    /// The residual heterogeneity test QE = Σ (1/vᵢ) rᵢ², with rᵢ the residuals of the
    /// equal-effects (τ² = 0) fit of the same design; df k − p.
    pub qe: f64,
    pub qe_df: usize,
    pub qe_p: f64,
    /// Residual I² (percent) and H².
    pub i2: f64,
    pub h2: f64,
    /// Pseudo-R² in percent (see [`pseudo_r2`]); 0 for a model without intercept, where
    /// metafor reports none ([`Self::pseudo_r2`] is then `None`).
    pub r2: f64,
    /// The 1-based positions of the coefficients QM tests (metafor's `btt`).
    pub btt: Vec<usize>,
    coding: Coding,
    /// Var(β̂), p × p, of the uncentred coefficients.
    vb: Vec<Vec<f64>>,
    /// The critical value of the intervals.
    crit: f64,
}

/// Fits the meta-regression of `records` on `moderators` (each with one value per record).
pub fn meta_regression(
    records: &[Record],
    moderators: &[Moderator],
    options: &FitOptions,
) -> Result<MetaRegression, MetaError> {
    let data = validate(records, 2, "a meta-regression")?;
    let coding = Coding::new(moderators, &|i| records[i].id.clone(), data.k())?;
    fit_coded(&data.yi, &data.vi, coding, options)
}

/// Fits the meta-regression of `records` on a design built from a formula
/// ([`crate::Formula::model_matrix`]) for these records.
pub fn meta_regression_design(
    records: &[Record],
    design: &ModelMatrix,
    options: &FitOptions,
) -> Result<MetaRegression, MetaError> {
    let data = validate(records, 2, "a meta-regression")?;
    check_design_size(design, data.k())?;
    fit_coded(&data.yi, &data.vi, design.coding.clone(), options)
}

/// The design was built for as many records as the fit is given.
pub(crate) fn check_design_size(design: &ModelMatrix, k: usize) -> Result<(), MetaError> {
    if design.k() == k {
        Ok(())
    } else {
        Err(MetaError::Moderator {
            reason: format!(
                "the design was built for {} records, but {k} were given",
                design.k()
            ),
        })
    }
}

/// Which coefficients the omnibus test QM takes (metafor's `btt`).
#[derive(Debug, Clone, PartialEq)]
pub enum Btt {
    /// 1-based positions, as in metafor (the intercept, when there is one, is 1).
    Positions(Vec<usize>),
    /// Coefficient names: each selects the coefficient of that name (`"intercept"`,
    /// `"factor(alloc)random"`), or, when no name is equal to it, every coefficient whose
    /// name contains it (`"alloc"` selects all of alloc's coefficients), as metafor's
    /// `btt = "alloc"` does.
    Names(Vec<String>),
}

impl Btt {
    /// The 0-based positions this selection makes of the coefficients `names` (sorted, each
    /// once), refusing a position or name that is not there and an empty selection.
    pub fn positions(&self, names: &[&str]) -> Result<Vec<usize>, MetaError> {
        let p = names.len();
        let list = || {
            names
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = Vec::new();
        match self {
            Btt::Positions(positions) => {
                for &j in positions {
                    if j == 0 || j > p {
                        return Err(MetaError::Coefficients {
                            reason: format!(
                                "btt position {j} does not exist: the model has {} \
                                 coefficients, numbered from 1 ({})",
                                p,
                                list()
                            ),
                        });
                    }
                    out.push(j - 1);
                }
            }
            Btt::Names(wanted) => {
                for w in wanted {
                    let exact: Vec<usize> = (0..names.len()).filter(|&j| names[j] == w).collect();
                    let chosen = if exact.is_empty() {
                        (0..names.len())
                            .filter(|&j| names[j].contains(w.as_str()))
                            .collect()
                    } else {
                        exact
                    };
                    if chosen.is_empty() {
                        return Err(MetaError::Coefficients {
                            reason: format!(
                                "btt {w:?} is not the name of a coefficient, nor part of one: \
                                 the coefficients are {}",
                                list()
                            ),
                        });
                    }
                    out.extend(chosen);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        if out.is_empty() {
            return Err(MetaError::Coefficients {
                reason: format!(
                    "btt selects no coefficient; the coefficients are {}",
                    list()
                ),
            });
        }
        Ok(out)
    }
}

/// [`meta_regression`] on columns `yi`, `vi` (records without ids, for large k); a record is
/// named by its position.
pub fn meta_regression_columns(
    yi: &[f64],
    vi: &[f64],
    moderators: &[Moderator],
    options: &FitOptions,
) -> Result<MetaRegression, MetaError> {
    validate_columns(yi, vi, 2, "a meta-regression")?;
    let coding = Coding::new(moderators, &|i| format!("#{}", i + 1), yi.len())?;
    fit_coded(yi, vi, coding, options)
}

impl MetaRegression {
    /// The same model with QM testing the coefficients `btt` selects (sorted, each once; the
    /// F test under Knapp–Hartung with (m, k − p) df), as metafor's `rma(..., btt = )`.
    pub fn with_btt(mut self, btt: &Btt) -> Result<MetaRegression, MetaError> {
        let positions = self.select(btt)?;
        let beta: Vec<f64> = self.coefficients.iter().map(|c| c.estimate).collect();
        let (qm, qm_df2, qm_p) = omnibus(&beta, &self.vb, &positions, self.test, self.k, self.p)?;
        self.qm = qm;
        self.qm_df = positions.len();
        self.qm_df2 = qm_df2;
        self.qm_p = qm_p;
        self.btt = positions.iter().map(|j| j + 1).collect();
        self.check_finite()?;
        Ok(self)
    }

    /// The 0-based positions `btt` selects.
    fn select(&self, btt: &Btt) -> Result<Vec<usize>, MetaError> {
        let names: Vec<&str> = self.coefficients.iter().map(|c| c.name.as_str()).collect();
        btt.positions(&names)
    }

    /// metafor's pseudo-R² (percent), or `None` for a model without intercept.
    pub fn pseudo_r2(&self) -> Option<f64> {
        self.coding.intercept.then_some(self.r2)
    }

    /// The coefficients dropped as aliased (metafor's "Redundant predictors dropped from the
    /// model."), in the design's order; empty for a design of full rank.
    pub fn dropped(&self) -> Vec<String> {
        self.coding.dropped.iter().map(|d| d.name.clone()).collect()
    }

    /// Whether the first coefficient is the intercept.
    pub fn has_intercept(&self) -> bool {
        self.coding.intercept
    }

    /// How each moderator is coded (its sorted levels for a factor).
    pub fn terms(&self) -> &[Term] {
        &self.coding.terms
    }

    /// Var(β̂) as a p × p matrix (rows and columns in the order of the coefficients).
    pub fn covariance(&self) -> &[Vec<f64>] {
        &self.vb
    }

    /// The prediction at one value per moderator, in the order of [`Self::terms`]: a number
    /// for a numeric moderator, a level for a factor.
    pub fn predict(&self, at: &[ModeratorValue]) -> Result<Prediction, MetaError> {
        let x = self.coding.row(at)?;
        let estimate: f64 = x
            .iter()
            .zip(&self.coefficients)
            .map(|(x, c)| x * c.estimate)
            .sum();
        let variance: f64 = (0..self.p)
            .map(|a| {
                (0..self.p)
                    .map(|b| x[a] * self.vb[a][b] * x[b])
                    .sum::<f64>()
            })
            .sum();
        let se = variance.max(0.0).sqrt();
        let pi_half = self.crit * (variance.max(0.0) + self.tau2).sqrt();
        let prediction = Prediction {
            estimate,
            se,
            ci_lower: estimate - self.crit * se,
            ci_upper: estimate + self.crit * se,
            pi_lower: estimate - pi_half,
            pi_upper: estimate + pi_half,
        };
        let values = [
            prediction.estimate,
            prediction.se,
            prediction.ci_lower,
            prediction.ci_upper,
            prediction.pi_lower,
            prediction.pi_upper,
        ];
        if values.iter().all(|v| v.is_finite()) {
            Ok(prediction)
        } else {
            Err(MetaError::NonFiniteResult {
                quantity: "prediction at the given moderator values",
            })
        }
    }
}

/// Fits a coded design to validated columns.
///
/// Under Knapp–Hartung, Var β̂ is multiplied by s² = Σwᵢrᵢ² / (k − p) (metafor 3.8: not
/// truncated; 0 when the residual sum is at most machine epsilon) and t(k − p) replaces the
/// normal. The estimators and β̂ work on the centred columns (the same model, better
/// conditioned); the intercept and its covariances are restored afterwards.
pub(crate) fn fit_coded(
    yi: &[f64],
    vi: &[f64],
    coding: Coding,
    options: &FitOptions,
) -> Result<MetaRegression, MetaError> {
    fit_coded_with(yi, vi, coding, None, options)
}

/// [`fit_coded`] with optional user weights `a` (checked, one per record): τ̂², QE, I², H²
/// as without them; β̂, Var β̂ (the sandwich, scaled by the same Knapp–Hartung s²), QM and
/// the equal-effects pseudo-R² from [`crate::user_weights`].
pub(crate) fn fit_coded_with(
    yi: &[f64],
    vi: &[f64],
    coding: Coding,
    weights: Option<&[f64]>,
    options: &FitOptions,
) -> Result<MetaRegression, MetaError> {
    options.validate()?;
    let k = yi.len();
    let p = coding.names.len();
    let x = coding.design();
    // The moments at τ² = 0 (for QE, I², H²) and at the estimate (the fit) are those the
    // estimator has evaluated already, for the iterative ones.
    // metafor 3.8-1 estimates τ² and computes QE on the effects centred on their plain mean
    // (rma.uni's `Ymc`): the same as on y when the columns span a constant, and followed here
    // for a model without intercept whose columns do not; β and Knapp–Hartung's s² take y.
    let centred_y: Vec<f64>;
    let y_tau = if coding.intercept {
        yi
    } else {
        let mean = yi.iter().sum::<f64>() / k as f64;
        centred_y = yi.iter().map(|y| y - mean).collect();
        &centred_y
    };
    let memo = Memo::new(y_tau, vi, &x);
    let tau2 = estimate_tau2_with(options.method, &memo)?;
    let at_estimate = if coding.intercept {
        memo.at(tau2.tau2)?
    } else {
        Moments::at(yi, vi, &x, tau2.tau2).map_err(Degenerate::error)?
    };
    let rss = at_estimate.ypy;
    let Some(wls) = at_estimate.wls else {
        return Err(Degenerate::Singular.error());
    };
    let user = weights
        .map(|w| coefficients_with_weights(yi, vi, &x, w, tau2.tau2))
        .transpose()
        .map_err(Degenerate::error)?;
    // Without weights A = (X′WX)⁻¹; with them, the sandwich.
    let (beta_centred, a) = match &user {
        None => (&wls.0, &wls.1),
        Some((beta, sandwich)) => (beta, sandwich),
    };
    let df_resid = (k - p) as f64;
    let scale = knha_scale(options.test, rss, df_resid);
    let vb_centred: Vec<Vec<f64>> = (0..p)
        .map(|i| (0..p).map(|j| scale * a.get(i, j)).collect())
        .collect();

    let (beta, vb) = coding.uncentre(beta_centred, &vb_centred);
    // The moderators' coefficients and their covariances are the same (bit for bit) in the
    // centred and the uncentred design; only the intercept's row and column differ.
    let btt = coding.default_btt();
    let (qm, qm_df2, qm_p) = omnibus(&beta, &vb, &btt, options.test, k, p)?;
    let (crit, df) = critical_value(options.test, options.level, df_resid);
    let coefficients = coefficient_table(&coding.names, &beta, &vb, options.test, crit, df_resid)?;

    let heterogeneity = Heterogeneity::from_fe(&memo.at(0.0)?, k, p, options.method, tau2.tau2);
    let qe = heterogeneity.q.max(0.0);
    let r2 = match weights {
        Some(w) if options.method.is_equal_effects() && coding.intercept => {
            (100.0 * equal_effects_r2_with_weights(yi, &x, w, beta_centred)).max(0.0)
        }
        _ if !coding.intercept => 0.0,
        _ => pseudo_r2(options.method, yi, vi, tau2.tau2, qe, p)?,
    };
    let model = MetaRegression {
        method: options.method,
        test: options.test,
        level: options.level,
        k,
        p,
        tau2: tau2.tau2,
        tau: tau2.tau2.sqrt(),
        se_tau2: tau2.se,
        iterations: tau2.iterations,
        coefficients,
        df,
        qm,
        qm_df: btt.len(),
        qm_df2,
        qm_p,
        qe,
        qe_df: k - p,
        qe_p: chi2_sf(qe, df_resid),
        i2: heterogeneity.i2,
        h2: heterogeneity.h2,
        r2,
        btt: btt.iter().map(|j| j + 1).collect(),
        coding,
        vb,
        crit,
    };
    model.check_finite()?;
    Ok(model)
}

/// The factor on Var β̂: 1 under the z test; under Knapp–Hartung s² = Σwᵢrᵢ² / (k − p)
/// (`rss / df_resid`; metafor 3.8: not truncated; 0 when the residual sum is at most machine
/// epsilon).
fn knha_scale(test: Test, rss: f64, df_resid: f64) -> f64 {
    match test {
        Test::Z => 1.0,
        Test::Knha => {
            if rss <= f64::EPSILON {
                0.0
            } else {
                rss / df_resid
            }
        }
    }
}

/// The critical value of the intervals at `level` and the test's df: the normal quantile
/// (no df) under the z test, t(k − p)'s under Knapp–Hartung.
fn critical_value(test: Test, level: f64, df_resid: f64) -> (f64, Option<f64>) {
    let point = upper_quantile_point(level);
    match test {
        Test::Z => (normal_quantile(point), None),
        Test::Knha => (t_quantile(point, df_resid), Some(df_resid)),
    }
}

/// Each coefficient's Wald test and interval: se = √Var β̂ⱼ (refused when 0), statistic
/// β̂ⱼ/se with its two-sided p (normal, or t(k − p) under Knapp–Hartung), and β̂ⱼ ± crit·se.
fn coefficient_table(
    names: &[String],
    beta: &[f64],
    vb: &[Vec<f64>],
    test: Test,
    crit: f64,
    df_resid: f64,
) -> Result<Vec<Coefficient>, MetaError> {
    let mut coefficients = Vec::with_capacity(names.len());
    for (j, name) in names.iter().enumerate() {
        let se = vb[j][j].max(0.0).sqrt();
        if se == 0.0 {
            return Err(zero_se());
        }
        let statistic = beta[j] / se;
        let p_value = match test {
            Test::Z => normal_two_sided_p(statistic),
            Test::Knha => t_two_sided_p(statistic, df_resid),
        };
        coefficients.push(Coefficient {
            name: name.clone(),
            estimate: beta[j],
            se,
            statistic,
            p: p_value,
            ci_lower: beta[j] - crit * se,
            ci_upper: beta[j] + crit * se,
        });
    }
    Ok(coefficients)
}

/// The Wald test of the coefficients at `positions` (0-based): χ² with m df, or under
/// Knapp–Hartung F = χ²/m with (m, k − p) df.
fn omnibus(
    beta: &[f64],
    vb: &[Vec<f64>],
    positions: &[usize],
    test: Test,
    k: usize,
    p: usize,
) -> Result<(f64, Option<usize>, f64), MetaError> {
    let m = positions.len();
    let mut sub = Matrix::zeros(m);
    for (a, &i) in positions.iter().enumerate() {
        for (b, &j) in positions.iter().enumerate() {
            sub.set(a, b, vb[i][j]);
        }
    }
    let b: Vec<f64> = positions.iter().map(|&j| beta[j]).collect();
    let wald = sub.inverse().map_err(|_| zero_se())?.quad(&b);
    Ok(match test {
        Test::Z => (wald, None, chi2_sf(wald, m as f64)),
        Test::Knha => {
            let f = wald / m as f64;
            (f, Some(k - p), f_sf(f, m as f64, (k - p) as f64))
        }
    })
}

fn zero_se() -> MetaError {
    MetaError::Undefined {
        reason: "a coefficient's standard error is zero, so no test or interval is defined \
                 (under Knapp–Hartung this happens when the model fits every yi exactly)"
            .into(),
    }
}

/// metafor's pseudo-R² (its default `r2def`), in percent and never below 0.
///
/// For a τ² estimator: the proportional reduction of τ² against the model without
/// moderators fitted by the same method, 100·(τ̂²₀ − τ̂²)/τ̂²₀, and 0 when τ̂²₀ = 0
/// (Raudenbush 1994). For the equal-effects model: the adjusted R² of the weighted least
/// squares regression with weights 1/vᵢ, 1 − (QE/Q₀)·(k − 1)/(k − p), with Q₀ the Q of the
/// model without moderators (0 when all yᵢ are equal).
fn pseudo_r2(
    method: Method,
    yi: &[f64],
    vi: &[f64],
    tau2: f64,
    qe: f64,
    p: usize,
) -> Result<f64, MetaError> {
    let k = yi.len() as f64;
    let r2 = if method.is_equal_effects() {
        if yi.iter().all(|y| *y == yi[0]) {
            0.0
        } else {
            let q0 = Moments::at(yi, vi, &Design::intercept(), 0.0)
                .map_err(Degenerate::error)?
                .ypy;
            1.0 - (qe / q0) * (k - 1.0) / (k - p as f64)
        }
    } else {
        let tau2_0 = estimate_tau2(method, yi, vi, &Design::intercept())?.tau2;
        if tau2_0 == 0.0 {
            0.0
        } else {
            (tau2_0 - tau2) / tau2_0
        }
    };
    Ok((100.0 * r2).max(0.0))
}

impl MetaRegression {
    /// Every reported number finite, or the first that is not named in the error.
    fn check_finite(&self) -> Result<(), MetaError> {
        let mut quantities = vec![
            ("τ² estimate", self.tau2),
            ("standard error of τ²", self.se_tau2.unwrap_or(0.0)),
            ("QM statistic", self.qm),
            ("p value of QM", self.qm_p),
            ("QE statistic", self.qe),
            ("p value of QE", self.qe_p),
            ("I² statistic", self.i2),
            ("H² statistic", self.h2),
            ("pseudo-R²", self.r2),
        ];
        for c in &self.coefficients {
            quantities.extend([
                ("coefficient", c.estimate),
                ("standard error of a coefficient", c.se),
                ("test statistic of a coefficient", c.statistic),
                ("p value of a coefficient", c.p),
                ("confidence interval of a coefficient", c.ci_lower),
                ("confidence interval of a coefficient", c.ci_upper),
            ]);
        }
        match quantities.iter().find(|(_, value)| !value.is_finite()) {
            Some(&(quantity, _)) => Err(MetaError::NonFiniteResult { quantity }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit;

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

    /// An indicator of one record absorbs that record's effect: P then ignores it, so
    /// every estimator built on P alone (REML, PM, DL, HE; EE trivially) gives the τ² of the
    /// other records, and the intercept is their pooled estimate with its standard error.
    #[test]
    fn an_indicator_of_one_record_leaves_the_fit_of_the_others_in_the_intercept() {
        let recs = records();
        let mut dummy = vec![0.0; 7];
        dummy[6] = 1.0;
        for method in [Method::Reml, Method::Pm, Method::Dl, Method::He, Method::Ee] {
            for test in [Test::Z, Test::Knha] {
                let options = FitOptions {
                    method,
                    test,
                    ..FitOptions::default()
                };
                let model =
                    meta_regression(&recs, &[Moderator::numeric("d", dummy.clone())], &options)
                        .unwrap();
                let six = fit(&recs[..6], &options).unwrap();
                let close = |a: f64, b: f64| (a - b).abs() < 1e-10 * b.abs().max(1.0);
                let c = &model.coefficients[0];
                assert!(close(model.tau2, six.tau2), "{method:?}");
                assert!(close(c.estimate, six.estimate), "{method:?}");
                assert!(close(c.se, six.se), "{method:?} {test:?}");
                assert!(close(model.qe, six.q), "{method:?}");
                assert_eq!((model.qe_df, model.coefficients[1].name.as_str()), (5, "d"));
            }
        }
    }

    #[test]
    fn predictions_at_the_records_reproduce_the_fitted_values() {
        let recs = records();
        let x = vec![1.0, 2.0, 3.0, 1.5, 4.0, 0.5, 5.0];
        let model = meta_regression(
            &recs,
            &[Moderator::numeric("x", x.clone())],
            &FitOptions::default(),
        )
        .unwrap();
        let b = &model.coefficients;
        let at = model.predict(&[ModeratorValue::Number(2.0)]).unwrap();
        assert!((at.estimate - (b[0].estimate + 2.0 * b[1].estimate)).abs() < 1e-12);
        let at0 = model.predict(&[ModeratorValue::Number(0.0)]).unwrap();
        assert!((at0.se - b[0].se).abs() < 1e-12);
        assert!(at.pi_lower <= at.ci_lower && at.ci_upper <= at.pi_upper);
    }
}
