//! The three-level random-effects model (Konstantopoulos 2011; metafor's
//! `rma.mv(yi, vi, mods, random = ~ 1 | study/id)`):
//!
//! yᵢⱼ = xᵢⱼ′β + uⱼ + wᵢⱼ + εᵢⱼ,  uⱼ ~ N(0, σ₁²) (between studies),
//! wᵢⱼ ~ N(0, σ₂²) (between the effect sizes of a study), εᵢⱼ ~ N(0, vᵢⱼ).
//!
//! The marginal covariance is block diagonal by study, Vⱼ = σ₁² J + diag(vᵢ + σ₂²) (J the
//! matrix of ones). With dᵢ = 1/(vᵢ + σ₂²), Sⱼ = Σᵢ dᵢ and cⱼ = σ₁²/(1 + σ₁² Sⱼ), the
//! Sherman–Morrison formula gives Vⱼ⁻¹ = diag(d) − cⱼ d d′ and
//! log det Vⱼ = Σᵢ log(vᵢ + σ₂²) + log(1 + σ₁² Sⱼ), so every quantity of the likelihood and
//! its first and second derivatives is a sum over records: O(k p²) per evaluation.
//!
//! With W = V⁻¹, A = (X′WX)⁻¹ and P = W − W X A X′W (Viechtbauer 2010; Harville 1977), the
//! log-likelihoods maximized are
//! ML:   ℓ = −½[k log 2π + log det V + y′Py],
//! REML: ℓ = −½[(k − p) log 2π − log det X′X + log det V + log det X′WX + y′Py]
//! (metafor's, constants included). With V_r = ∂V/∂σ_r² (V₁ = blockdiag(J), V₂ = I), the
//! score is ∂ℓ/∂σ_r² = −½ tr(Q V_r) + ½ y′P V_r P y and the Hessian
//! ∂²ℓ/∂σ_r²∂σ_s² = ½ tr(Q V_r Q V_s) − y′P V_r P V_s P y, with Q = P for REML and Q = W
//! for ML. They are maximized over σ₁², σ₂² ≥ 0 by Newton's method (Fisher scoring where the
//! Hessian is not negative definite), halving steps that would lower ℓ and holding a
//! component at 0 while its score there is ≤ 0, until every step is at most 1e-13 of its
//! component: the exact optimum, where metafor's optimizer stops at its own tolerance.
//!
//! Then β̂ = A X′Wy and Var β̂ = A; z or t (k − p df) tests, the omnibus Wald test QM of the
//! moderators (χ² with p − 1 df, or F(p − 1, k − p) under t), the residual heterogeneity
//! test QE = Σ (1/vᵢ) rᵢ² of the equal-effects fit of the same design, and for the model
//! without moderators the prediction interval μ̂ ± crit·√(se² + σ₁² + σ₂²), as metafor.
//!
//! Profile-likelihood intervals for each σ_r² (as metafor's `confint` on `rma.mv`): the
//! values where the profile ℓ (maximized over the other component) falls χ²₁(level)/2
//! below its maximum, solved by [`crate::solver::newton_bracketed`] with the profile's
//! derivative ∂ℓ/∂σ_r² at the inner optimum (the envelope theorem); 0 when the profile at 0
//! is above that; searched up to max(10, 100 σ̂_r²), metafor's `vc.max`.

use std::cell::Cell;

use crate::distributions::{
    chi2_quantile, chi2_sf, f_sf, normal_quantile, normal_two_sided_p, t_quantile, t_two_sided_p,
    upper_quantile_point,
};
use crate::estimators::Moments;
use crate::formula::ModelMatrix;
use crate::math::ln;
use crate::meta_regression::check_design_size;
use crate::meta_regression::Coefficient;
use crate::moderators::{Coding, Moderator};
use crate::q_profile::{Bound, BoundKind};
use crate::records::{validate, Record};
use crate::solver::newton_bracketed;
use crate::weighted::{Degenerate, Design, Matrix};
use crate::{FitOptions, MetaError, Method};

/// How the coefficients of a multilevel model are tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MultilevelTest {
    /// Normal (Wald) tests and intervals: metafor's `test = "z"`.
    #[default]
    Z,
    /// t with k − p df (and F for QM): metafor's `test = "t"`.
    T,
}

impl MultilevelTest {
    pub fn name(self) -> &'static str {
        match self {
            MultilevelTest::Z => "z",
            MultilevelTest::T => "t",
        }
    }

    /// Both tests, the default (z) first.
    pub const ALL: [MultilevelTest; 2] = [MultilevelTest::Z, MultilevelTest::T];

    pub fn parse(name: &str) -> Option<Self> {
        MultilevelTest::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Options of a multilevel fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MultilevelOptions {
    /// REML or ML (the other estimators have no multilevel form here).
    pub method: Method,
    pub level: f64,
    pub test: MultilevelTest,
}

impl Default for MultilevelOptions {
    fn default() -> Self {
        MultilevelOptions {
            method: Method::Reml,
            level: 0.95,
            test: MultilevelTest::Z,
        }
    }
}

/// A variance component with its profile-likelihood interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ComponentInterval {
    pub estimate: f64,
    pub lower: Bound,
    pub upper: Bound,
}

/// A fitted three-level model.
///
/// Serialized (feature `serde`), a model is its tests, log-likelihood and coefficients, in
/// the order the tools' answers give them: a tool writes the head (k, studies, method,
/// test, level, σ̂² with its profile intervals) and the pooled estimate of a model without
/// moderators with its prediction interval around fields of its own (the natural scale).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Multilevel {
    #[cfg_attr(feature = "serde", serde(skip))]
    pub method: Method,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub test: MultilevelTest,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub level: f64,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub k: usize,
    /// Coefficients, the intercept included.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub p: usize,
    /// Number of studies (the outer level).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub n_studies: usize,
    /// σ̂₁² (between studies) and σ̂₂² (between effect sizes within a study).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub sigma2: [f64; 2],
    /// k − p under `MultilevelTest::T`.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub df: Option<f64>,
    /// Without moderators: the prediction interval of a new effect size.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub pi_lower: Option<f64>,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub pi_upper: Option<f64>,
    /// The omnibus test of the moderators (null without moderators): χ² on qm_df df, or F
    /// on qm_df and qm_df2 df with test "t".
    pub qm: Option<f64>,
    pub qm_df: usize,
    pub qm_df2: Option<usize>,
    pub qm_p: Option<f64>,
    /// The test of residual heterogeneity, on k − p df.
    pub qe: f64,
    pub qe_df: usize,
    pub qe_p: f64,
    /// The (restricted) log-likelihood at the optimum, constants included (metafor's logLik).
    pub loglik: f64,
    pub iterations: usize,
    /// Intercept first (when the model has one), then the terms' coefficients, named as
    /// metafor names them.
    pub coefficients: Vec<Coefficient>,
    /// Var(β̂) = (X′WX)⁻¹ of the uncentred coefficients.
    #[cfg_attr(feature = "serde", serde(skip))]
    vb: Vec<Vec<f64>>,
    /// The data, kept for the profile intervals and the robust variance.
    #[cfg_attr(feature = "serde", serde(skip))]
    data: Grouped,
}

/// The records grouped by study: positions in study order, the design rows (centred
/// moderators) and the uncentred rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Grouped {
    /// y, v and the design rows (p per record, centred), in study order.
    y: Vec<f64>,
    v: Vec<f64>,
    x: Vec<f64>,
    p: usize,
    /// Block j is positions `starts[j]..starts[j + 1]`.
    starts: Vec<usize>,
    /// The position in study order of each record (in the caller's order).
    pub position: Vec<usize>,
    /// Uncentred design rows in the caller's order (p per record).
    pub x_raw: Vec<f64>,
    /// log det X′X (REML's constant).
    log_det_xx: f64,
    /// Each record's study index (caller's order).
    pub study: Vec<usize>,
}

/// Fits the three-level model to `records`, with `studies[i]` naming record i's study and
/// the `moderators` (possibly none).
pub fn multilevel(
    records: &[Record],
    studies: &[String],
    moderators: &[Moderator],
    options: &MultilevelOptions,
) -> Result<Multilevel, MetaError> {
    let k = records.len();
    let coding = if moderators.is_empty() {
        None
    } else {
        Some(Coding::new(moderators, &|i| records[i].id.clone(), k)?)
    };
    multilevel_coded(records, studies, coding, options)
}

/// Fits the three-level model with the design built from a formula
/// ([`crate::Formula::model_matrix`]) for these records.
pub fn multilevel_design(
    records: &[Record],
    studies: &[String],
    design: &ModelMatrix,
    options: &MultilevelOptions,
) -> Result<Multilevel, MetaError> {
    check_design_size(design, records.len())?;
    multilevel_coded(records, studies, Some(design.coding.clone()), options)
}

fn multilevel_coded(
    records: &[Record],
    studies: &[String],
    coding: Option<Coding>,
    options: &MultilevelOptions,
) -> Result<Multilevel, MetaError> {
    check_options(options)?;
    let data = validate(records, 3, "a multilevel model")?;
    let k = data.k();
    if studies.len() != k {
        return Err(MetaError::Undefined {
            reason: format!(
                "the study column has {} values for {k} records",
                studies.len()
            ),
        });
    }
    let names = coding
        .as_ref()
        .map_or_else(|| vec!["intercept".to_string()], |c| c.names.clone());
    let p = names.len();
    if k <= p {
        return Err(MetaError::TooFewForCoefficients { k, names });
    }
    check_cost(k, p)?;
    let grouped = Grouped::new(&data.yi, &data.vi, studies, coding.as_ref())?;
    let n_studies = grouped.starts.len() - 1;
    check_identified(&grouped, k, n_studies, options.method)?;
    let (sigma2, iterations) = maximize(&grouped, options.method, [true, true], None)?;
    let at = grouped.evaluate(sigma2, options.method, false)?;

    let df_resid = (k - p) as f64;
    let (crit, df) = critical_value(options.test, options.level, df_resid);
    let vb_centred: Vec<Vec<f64>> = (0..p)
        .map(|i| (0..p).map(|j| at.a.get(i, j)).collect())
        .collect();
    // The omnibus test of every coefficient but the intercept (all without one), as
    // metafor's default btt; the slopes' block is the same centred or not.
    let btt = coding.as_ref().map_or_else(Vec::new, Coding::default_btt);
    let (qm, qm_df2, qm_p) = omnibus(&btt, &vb_centred, &at.beta, options.test, k, p)?;
    let (beta, vb) = match &coding {
        Some(c) => c.uncentre(&at.beta, &vb_centred),
        None => (at.beta.clone(), vb_centred),
    };
    let coefficients = coefficient_table(&names, &beta, &vb, options.test, crit, df_resid)?;
    let (pi_lower, pi_upper) = if coding.is_none() {
        let half = crit * (vb[0][0] + sigma2[0] + sigma2[1]).sqrt();
        (Some(beta[0] - half), Some(beta[0] + half))
    } else {
        (None, None)
    };
    let design = match &coding {
        Some(c) => c.design(),
        None => Design::intercept(),
    };
    let qe = Moments::at(&data.yi, &data.vi, &design, 0.0)
        .map_err(Degenerate::error)?
        .ypy
        .max(0.0);
    let model = Multilevel {
        method: options.method,
        test: options.test,
        level: options.level,
        k,
        p,
        n_studies,
        sigma2,
        loglik: at.ll,
        iterations,
        coefficients,
        df,
        qm,
        qm_df: btt.len(),
        qm_df2,
        qm_p,
        qe,
        qe_df: k - p,
        qe_p: chi2_sf(qe, df_resid),
        pi_lower,
        pi_upper,
        vb,
        data: grouped,
    };
    model.check_finite()?;
    Ok(model)
}

/// Refuses a model whose variances are not identified: one study (no between-study
/// variance), one record per study (only σ²₁ + σ²₂ identified), or under REML moderators that
/// fix each study's mean.
fn check_identified(
    grouped: &Grouped,
    k: usize,
    n_studies: usize,
    method: Method,
) -> Result<(), MetaError> {
    if n_studies < 2 {
        return Err(MetaError::Undefined {
            reason: "all records belong to one study, so the between-study variance cannot be \
                     estimated; a multilevel model needs at least 2 studies"
                .into(),
        });
    }
    if n_studies == k {
        return Err(MetaError::Undefined {
            reason: "every study has a single effect size, so the between-study and \
                     within-study variances cannot be told apart (only their sum is \
                     identified): fit the two-level random-effects model instead"
                .into(),
        });
    }
    // Checked before the search: there the flat restricted likelihood leaves no step to
    // take, which would read as a failure to converge.
    if method == Method::Reml && grouped.study_means_are_fixed() {
        return Err(MetaError::Undefined {
            reason: format!(
                "the between-study variance is not identified under REML: the moderators tell \
                 all {n_studies} studies apart (each study's mean is a fixed effect of the \
                 moderators, as when a moderator is the study column itself), so the \
                 restricted likelihood is the same at every between-study variance while the \
                 coefficients' standard errors depend on it; drop the moderators that \
                 separate the studies, group the records by another study column, or fit \
                 with method ML (which estimates that variance as 0)"
            ),
        });
    }
    Ok(())
}

/// The critical value of the intervals at `level` and the test's df: the normal quantile
/// (no df) under the z test, t(k − p)'s under the t test.
fn critical_value(test: MultilevelTest, level: f64, df_resid: f64) -> (f64, Option<f64>) {
    let point = upper_quantile_point(level);
    match test {
        MultilevelTest::Z => (normal_quantile(point), None),
        MultilevelTest::T => (t_quantile(point, df_resid), Some(df_resid)),
    }
}

/// The omnibus test: its statistic (χ² or F), F's second df, and its p value.
type Omnibus = (Option<f64>, Option<usize>, Option<f64>);

/// The omnibus Wald test of the coefficients at `btt` (none: no test): χ² = β̂′V⁻¹β̂ on their
/// block of Var β̂ with m df, or under the t test F = χ²/m with (m, k − p) df.
fn omnibus(
    btt: &[usize],
    vb: &[Vec<f64>],
    beta: &[f64],
    test: MultilevelTest,
    k: usize,
    p: usize,
) -> Result<Omnibus, MetaError> {
    if btt.is_empty() {
        return Ok((None, None, None));
    }
    let df_resid = (k - p) as f64;
    let m = btt.len();
    let mut sub = Matrix::zeros(m);
    for (a, &i) in btt.iter().enumerate() {
        for (b, &j) in btt.iter().enumerate() {
            sub.set(a, b, vb[i][j]);
        }
    }
    let slopes: Vec<f64> = btt.iter().map(|&j| beta[j]).collect();
    let wald = sub.inverse().map_err(Degenerate::error)?.quad(&slopes);
    Ok(match test {
        MultilevelTest::Z => (Some(wald), None, Some(chi2_sf(wald, m as f64))),
        MultilevelTest::T => {
            let f = wald / m as f64;
            (Some(f), Some(k - p), Some(f_sf(f, m as f64, df_resid)))
        }
    })
}

/// Each coefficient's Wald test and interval: se = √Var β̂ⱼ (refused when 0), statistic
/// β̂ⱼ/se with its two-sided p (normal, or t(k − p) under the t test), and β̂ⱼ ± crit·se.
fn coefficient_table(
    names: &[String],
    beta: &[f64],
    vb: &[Vec<f64>],
    test: MultilevelTest,
    crit: f64,
    df_resid: f64,
) -> Result<Vec<Coefficient>, MetaError> {
    let mut coefficients = Vec::with_capacity(names.len());
    for (j, name) in names.iter().enumerate() {
        let se = vb[j][j].max(0.0).sqrt();
        if se == 0.0 {
            return Err(MetaError::Undefined {
                reason: "a coefficient's standard error is zero, so no test or interval is \
                         defined"
                    .into(),
            });
        }
        let statistic = beta[j] / se;
        let p_value = match test {
            MultilevelTest::Z => normal_two_sided_p(statistic),
            MultilevelTest::T => t_two_sided_p(statistic, df_resid),
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

/// The largest k · (p² + 24) a multilevel model takes: each evaluation of ℓ and its
/// derivatives costs about that many operations (the p × p sums of every record, and a
/// block's own work), and the fit with both profile intervals takes 100 to 150 of them, about
/// a second natively at this bound, the tool's reading of its records included (k = 64,000
/// without moderators; 15,238 with 8). Issue 41 lowered it from 2.5e6, whose largest calls
/// took 1.4 to 1.7 s.
pub const MAX_MULTILEVEL_COST: f64 = 1.6e6;

/// Refuses, before any work, a model whose evaluations would cost beyond
/// [`MAX_MULTILEVEL_COST`].
fn check_cost(k: usize, p: usize) -> Result<(), MetaError> {
    let cost = k as f64 * (p * p + 24) as f64;
    if cost <= MAX_MULTILEVEL_COST {
        return Ok(());
    }
    let most = (MAX_MULTILEVEL_COST / (p * p + 24) as f64).floor();
    Err(MetaError::Undefined {
        reason: format!(
            "a multilevel model of {k} records with {p} coefficients is beyond this tool's \
             bound on work (k × (p² + 24) at most {MAX_MULTILEVEL_COST:.0}, about a second of \
             computing): with {p} coefficients at most {most} records are accepted; fit fewer \
             records or fewer moderators"
        ),
    })
}

fn check_options(options: &MultilevelOptions) -> Result<(), MetaError> {
    FitOptions {
        method: options.method,
        level: options.level,
        test: crate::Test::Z,
    }
    .validate()?;
    if !matches!(options.method, Method::Reml | Method::Ml) {
        return Err(MetaError::Undefined {
            reason: format!(
                "a multilevel model is fitted by REML or ML, not {}",
                options.method.name()
            ),
        });
    }
    Ok(())
}

/// The tests and coefficients of a model fitted elsewhere (the general rma.mv engine,
/// [`crate::rma_mv`]), in the shape a tool reports them beside the three-level model's.
#[derive(Debug, Clone, PartialEq)]
pub struct Reported {
    pub qm: Option<f64>,
    pub qm_df: usize,
    pub qm_df2: Option<usize>,
    pub qm_p: Option<f64>,
    pub qe: f64,
    pub qe_df: usize,
    pub qe_p: f64,
    pub loglik: f64,
    pub iterations: usize,
    pub coefficients: Vec<Coefficient>,
}

impl Multilevel {
    /// A model that carries only what is reported (no data for profiles or robust tests).
    pub fn reported(r: Reported, method: Method, test: MultilevelTest, level: f64) -> Multilevel {
        Multilevel {
            method,
            test,
            level,
            k: r.qe_df + r.coefficients.len(),
            p: r.coefficients.len(),
            n_studies: 0,
            sigma2: [f64::NAN; 2],
            df: None,
            pi_lower: None,
            pi_upper: None,
            qm: r.qm,
            qm_df: r.qm_df,
            qm_df2: r.qm_df2,
            qm_p: r.qm_p,
            qe: r.qe,
            qe_df: r.qe_df,
            qe_p: r.qe_p,
            loglik: r.loglik,
            iterations: r.iterations,
            coefficients: r.coefficients,
            vb: Vec::new(),
            data: Grouped::default(),
        }
    }
}

impl Multilevel {
    /// Var(β̂), p × p, in the order of the coefficients.
    pub fn covariance(&self) -> &[Vec<f64>] {
        &self.vb
    }

    /// ℓ at the fit's (σ̂₁², σ̂₂²) under ML, or REML when `reml`, whichever the fit's method
    /// (rma.mv's `fit.stats` holds both columns; `compare_models` reads the full model's).
    pub fn loglik_at_estimates(&self, reml: bool) -> Result<f64, MetaError> {
        let method = if reml { Method::Reml } else { Method::Ml };
        Ok(self.data.evaluate(self.sigma2, method, true)?.ll)
    }

    /// Profile-likelihood intervals of σ₁² and σ₂² at the model's level.
    pub fn profile_intervals(&self) -> Result<[ComponentInterval; 2], MetaError> {
        let target = self.loglik - chi2_quantile(self.level, 1.0) / 2.0;
        let mut out = [ComponentInterval {
            estimate: 0.0,
            lower: Bound {
                tau2: 0.0,
                kind: BoundKind::Zero,
            },
            upper: Bound {
                tau2: 0.0,
                kind: BoundKind::Zero,
            },
        }; 2];
        for (r, slot) in out.iter_mut().enumerate() {
            let est = self.sigma2[r];
            let warm = Cell::new(self.sigma2);
            let mut held = [true, true];
            held[r] = false;
            let profile = |x: f64| -> Result<(f64, f64), MetaError> {
                let mut start = warm.get();
                start[r] = x;
                if start[1 - r] <= 0.0 {
                    start[1 - r] = self.sigma2[1 - r].max(1e-8);
                }
                let (s, _) = maximize(&self.data, self.method, held, Some(start))?;
                warm.set(s);
                let e = self.data.evaluate(s, self.method, false)?;
                // A value within ℓ's rounding is the root: the root finder's own tolerance
                // (10⁻¹² of x) lies below what ℓ resolves at large k, where it bisected
                // rounding noise for ten more inner fits a bound.
                let value = e.ll - target;
                let value = if value.abs() <= PROFILE_ROUNDING * target.abs().max(1.0) {
                    0.0
                } else {
                    value
                };
                Ok((value, e.score[r]))
            };
            // An inner fit that fails stops the search with its own error (not as a
            // non-finite value the root finder would report in its place).
            let inner: Cell<Option<MetaError>> = Cell::new(None);
            let solve = |lo: f64, hi: f64| {
                let found = newton_bracketed(
                    |x| {
                        profile(x).unwrap_or_else(|e| {
                            inner.set(Some(e));
                            (f64::NAN, f64::NAN)
                        })
                    },
                    lo,
                    hi,
                    1e-12,
                    500,
                );
                if let Some(e) = inner.take() {
                    return Err(e);
                }
                found.map_err(|e| MetaError::Undefined {
                    reason: format!(
                        "the profile-likelihood bound of sigma2[{}] could not be found: {e}",
                        r + 1
                    ),
                })
            };
            let lower = if est == 0.0 || profile(0.0)?.0 >= 0.0 {
                Bound {
                    tau2: 0.0,
                    kind: BoundKind::Zero,
                }
            } else {
                warm.set(self.sigma2);
                Bound {
                    tau2: solve(0.0, est)?.x,
                    kind: BoundKind::Root,
                }
            };
            // The upper bound: bracketed by doubling from 2σ̂ (a root is usually within a
            // doubling or two, where bisection from metafor's far end would take many
            // inner fits), up to max(10, 100 σ̂), metafor's `vc.max`.
            let end = (100.0 * est).max(10.0);
            let mean_v = self.data.v.iter().sum::<f64>() / self.data.v.len() as f64;
            let mut below = est;
            let mut x = if est > 0.0 { 2.0 * est } else { 0.1 * mean_v }.min(end);
            warm.set(self.sigma2);
            let upper = loop {
                if profile(x)?.0 < 0.0 {
                    warm.set(self.sigma2);
                    break Bound {
                        tau2: solve(below, x)?.x,
                        kind: BoundKind::Root,
                    };
                }
                if x >= end {
                    break Bound {
                        tau2: end,
                        kind: BoundKind::BeyondSearch,
                    };
                }
                below = x;
                x = (2.0 * x).min(end);
            };
            *slot = ComponentInterval {
                estimate: est,
                lower,
                upper,
            };
        }
        Ok(out)
    }

    /// The model's pieces for a cluster-robust variance: uncentred rows, residuals, β̂,
    /// Var β̂ and each record's covariance block.
    pub(crate) fn robust_input(&self) -> crate::gls::GlsModel {
        let p = self.p;
        let beta: Vec<f64> = self.coefficients.iter().map(|c| c.estimate).collect();
        let x = self.data.x_raw.clone();
        let residuals = (0..self.k)
            .map(|i| {
                self.data.y[self.data.position[i]]
                    - (0..p).map(|a| x[i * p + a] * beta[a]).sum::<f64>()
            })
            .collect();
        let v = self
            .data
            .position
            .iter()
            .map(|&pos| self.data.v[pos])
            .collect();
        crate::gls::GlsModel {
            names: self.coefficients.iter().map(|c| c.name.clone()).collect(),
            beta,
            vb: self.vb.clone(),
            x,
            residuals,
            covariance: crate::gls::Covariance::Multilevel {
                v,
                study: self.data.study.clone(),
                sigma2: self.sigma2,
            },
        }
    }

    fn check_finite(&self) -> Result<(), MetaError> {
        let mut quantities = vec![
            ("between-study variance σ₁²", self.sigma2[0]),
            ("within-study variance σ₂²", self.sigma2[1]),
            ("log-likelihood", self.loglik),
            ("QE statistic", self.qe),
            ("p value of QE", self.qe_p),
            ("QM statistic", self.qm.unwrap_or(0.0)),
            ("p value of QM", self.qm_p.unwrap_or(0.0)),
            ("prediction interval", self.pi_lower.unwrap_or(0.0)),
            ("prediction interval", self.pi_upper.unwrap_or(0.0)),
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

/// The likelihood and its derivatives at one (σ₁², σ₂²).
struct Evaluation {
    ll: f64,
    score: [f64; 2],
    /// Observed Hessian of ℓ.
    hessian: [[f64; 2]; 2],
    /// Expected information (positive semi-definite).
    fisher: [[f64; 2]; 2],
    beta: Vec<f64>,
    a: Matrix,
}

impl Grouped {
    fn new(
        yi: &[f64],
        vi: &[f64],
        studies: &[String],
        coding: Option<&Coding>,
    ) -> Result<Self, MetaError> {
        let k = yi.len();
        // Studies numbered in order of first appearance.
        let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        let mut study = Vec::with_capacity(k);
        for (i, s) in studies.iter().enumerate() {
            if s.trim().is_empty() {
                return Err(MetaError::Undefined {
                    reason: format!("record {} has an empty study", i + 1),
                });
            }
            let n = index.len();
            study.push(*index.entry(s.as_str()).or_insert(n));
        }
        let n_studies = index.len();
        let mut counts = vec![0usize; n_studies + 1];
        for &s in &study {
            counts[s + 1] += 1;
        }
        for j in 0..n_studies {
            counts[j + 1] += counts[j];
        }
        let starts = counts.clone();
        let mut fill = counts;
        let mut position = vec![0; k];
        for (i, &s) in study.iter().enumerate() {
            position[i] = fill[s];
            fill[s] += 1;
        }
        let p = coding.map_or(1, |c| c.names.len());
        let mut y = vec![0.0; k];
        let mut v = vec![0.0; k];
        let mut x = vec![0.0; k * p];
        let mut x_raw = vec![0.0; k * p];
        for i in 0..k {
            let pos = position[i];
            y[pos] = yi[i];
            v[pos] = vi[i];
            match coding {
                Some(c) => {
                    for a in 0..p {
                        x[pos * p + a] = c.centred_value(i, a);
                        x_raw[i * p + a] = c.value(i, a);
                    }
                }
                None => {
                    x[pos * p] = 1.0;
                    x_raw[i * p] = 1.0;
                }
            }
        }
        let mut xx = Matrix::zeros(p);
        for i in 0..k {
            for a in 0..p {
                for b in 0..p {
                    xx.set(a, b, xx.get(a, b) + x[i * p + a] * x[i * p + b]);
                }
            }
        }
        let log_det_xx = ln(xx.det());
        Ok(Grouped {
            y,
            v,
            x,
            p,
            starts,
            position,
            x_raw,
            log_det_xx,
            study,
        })
    }

    /// The likelihood, score and Hessian at `s` (see the module's formulas), in two passes
    /// over the blocks: [`Grouped::gls`] (the GLS fit and log det V), then
    /// [`Grouped::residual_form`] alone (`only_ll`) or [`Grouped::derivative_sums`], whose
    /// sums [`derivatives`] turns into the score and Hessian.
    fn evaluate(
        &self,
        s: [f64; 2],
        method: Method,
        only_ll: bool,
    ) -> Result<Evaluation, MetaError> {
        let d = self.inverse_variances(s[1]);
        let gls = self.gls(s, &d)?;
        if only_ll {
            let ypy = self.residual_form(s[0], &d, &gls.beta);
            return Ok(Evaluation {
                ll: self.log_likelihood(method, &gls, ypy),
                score: [0.0; 2],
                hessian: [[0.0; 2]; 2],
                fisher: [[0.0; 2]; 2],
                beta: gls.beta,
                a: gls.a,
            });
        }
        let sums = self.derivative_sums(s[0], &d, &gls.beta, method);
        let (score, hessian, fisher) = derivatives(&sums, &gls.a, method);
        Ok(Evaluation {
            ll: self.log_likelihood(method, &gls, sums.ypy),
            score,
            hessian,
            fisher,
            beta: gls.beta,
            a: gls.a,
        })
    }

    /// dᵢ = 1/(vᵢ + σ₂²), each record's weight within its block before the study term.
    fn inverse_variances(&self, s2: f64) -> Vec<f64> {
        self.v.iter().map(|v| 1.0 / (v + s2)).collect()
    }

    /// The blocks as position ranges, in study order.
    fn blocks(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.starts.windows(2).map(|w| w[0]..w[1])
    }

    /// Pass 1, the GLS fit: X′WX and X′Wy summed block by block with
    /// Vⱼ⁻¹ = diag(d) − cⱼ d d′ (Sherman–Morrison, cⱼ = σ₁²/(1 + σ₁² Sⱼ)), A = (X′WX)⁻¹,
    /// β̂ = A X′Wy, and log det V = Σⱼ [Σᵢ log(vᵢ + σ₂²) + log(1 + σ₁² Sⱼ)] (the product of
    /// a block's variances taken in pieces that neither overflow nor underflow).
    fn gls(&self, [s1, s2]: [f64; 2], d: &[f64]) -> Result<Gls, MetaError> {
        let p = self.p;
        let mut xwx = Matrix::zeros(p);
        let mut xwy = vec![0.0; p];
        let mut log_det_v = 0.0;
        let mut xd = vec![0.0; p];
        for block in self.blocks() {
            let mut sum_d = 0.0;
            let mut yd = 0.0;
            xd.iter_mut().for_each(|e| *e = 0.0);
            let mut product = 1.0;
            for i in block {
                let di = d[i];
                product *= self.v[i] + s2;
                if !(1e-150..=1e150).contains(&product) {
                    log_det_v += ln(product);
                    product = 1.0;
                }
                sum_d += di;
                yd += di * self.y[i];
                let row = &self.x[i * p..(i + 1) * p];
                for a in 0..p {
                    xd[a] += di * row[a];
                    xwy[a] += di * row[a] * self.y[i];
                    for b in a..p {
                        xwx.a[a * p + b] += di * row[a] * row[b];
                    }
                }
            }
            log_det_v += ln(product) + ln(1.0 + s1 * sum_d);
            let c = s1 / (1.0 + s1 * sum_d);
            for a in 0..p {
                xwy[a] -= c * xd[a] * yd;
                for b in a..p {
                    xwx.a[a * p + b] -= c * xd[a] * xd[b];
                }
            }
        }
        for a in 0..p {
            for b in 0..a {
                xwx.a[a * p + b] = xwx.a[b * p + a];
            }
        }
        let a = xwx.inverse().map_err(Degenerate::error)?;
        let beta = a.times_vec(&xwy);
        let log_det_xwx = -ln(a.det());
        Ok(Gls {
            a,
            beta,
            log_det_v,
            log_det_xwx,
        })
    }

    /// y′Py = Σⱼ rⱼ′Vⱼ⁻¹rⱼ with r = y − Xβ̂: ℓ's quadratic form, when only ℓ is wanted
    /// (the same sums, in the same order, as [`Grouped::derivative_sums`]' `ypy`).
    fn residual_form(&self, s1: f64, d: &[f64], beta: &[f64]) -> f64 {
        let mut ypy = 0.0;
        let mut r = Vec::new();
        for block in self.blocks() {
            r.clear();
            let (mut sd, mut dr) = (0.0, 0.0);
            for i in block.clone() {
                sd += d[i];
                r.push(self.residual(i, beta));
                dr += d[i] * r[r.len() - 1];
            }
            let c = s1 / (1.0 + s1 * sd);
            for (l, i) in block.enumerate() {
                let q = d[i] * (r[l] - c * dr);
                ypy += r[l] * q;
            }
        }
        ypy
    }

    /// rᵢ = yᵢ − xᵢ′β̂ at position `i`.
    fn residual(&self, i: usize, beta: &[f64]) -> f64 {
        let row = &self.x[i * self.p..(i + 1) * self.p];
        let fitted: f64 = row.iter().zip(beta).map(|(x, b)| x * b).sum();
        self.y[i] - fitted
    }

    /// Pass 2: with q = W r (qᵢ = dᵢ(rᵢ − cⱼ Σ d r) in block j) and τⱼ = 1/(1 + σ₁² Sⱼ), the
    /// block sums behind the traces of Q V_r (Q V_s) and the quadratic forms y′P V_r P y and
    /// y′P V_r P V_s P y of the score and Hessian ([`derivatives`]); the p × p matrices G
    /// only for REML, whose Q = P needs them.
    fn derivative_sums(&self, s1: f64, d: &[f64], beta: &[f64], method: Method) -> Sums {
        let p = self.p;
        let reml = method == Method::Reml;
        let mut sums = Sums::new(p, reml);
        // Per block: (WX)ᵢ = dᵢ(xᵢ − cⱼ·X′d) row by row, r, q, and the block's own
        // Σ (WX)ᵢ(WX)ᵢ′ and Σ dᵢ(WX)ᵢ(WX)ᵢ′.
        let mut wx = Vec::new();
        let mut r = Vec::new();
        let mut q = Vec::new();
        let mut xd = vec![0.0; p];
        let mut xu2 = vec![0.0; p];
        let mut dwx = vec![0.0; p];
        let mut block_g2 = vec![0.0; p * p];
        let mut block_g22 = vec![0.0; p * p];
        for block in self.blocks() {
            let (lo, n) = (block.start, block.len());
            wx.resize(n * p, 0.0);
            r.resize(n, 0.0);
            q.resize(n, 0.0);
            let (mut sd, mut sd2, mut sd3, mut dr) = (0.0, 0.0, 0.0, 0.0);
            xd.iter_mut().for_each(|e| *e = 0.0);
            for (l, i) in block.clone().enumerate() {
                let di = d[i];
                sd += di;
                sd2 += di * di;
                sd3 += di * di * di;
                r[l] = self.residual(i, beta);
                dr += di * r[l];
                let row = &self.x[i * p..(i + 1) * p];
                for a in 0..p {
                    xd[a] += di * row[a];
                }
            }
            let c = s1 / (1.0 + s1 * sd);
            let tau = 1.0 / (1.0 + s1 * sd);
            let (mut sum_q, mut dq, mut qq, mut dqq) = (0.0, 0.0, 0.0, 0.0);
            xu2.iter_mut().for_each(|e| *e = 0.0);
            dwx.iter_mut().for_each(|e| *e = 0.0);
            for (l, i) in block.enumerate() {
                let di = d[i];
                q[l] = di * (r[l] - c * dr);
                sums.ypy += r[l] * q[l];
                sum_q += q[l];
                dq += di * q[l];
                qq += q[l] * q[l];
                dqq += di * q[l] * q[l];
                let row = &self.x[i * p..(i + 1) * p];
                let u = tau * di;
                for a in 0..p {
                    let w = di * (row[a] - c * xd[a]);
                    wx[l * p + a] = w;
                    xu2[a] += w * u;
                    dwx[a] += di * w;
                    sums.xwz2[a] += w * q[l];
                }
            }
            sums.t1 += tau * sd;
            sums.t2 += sd - c * sd2;
            sums.t11 += (tau * sd) * (tau * sd);
            sums.t12 += tau * tau * sd2;
            sums.t22 += sd2 - 2.0 * c * sd3 + c * c * sd2 * sd2;
            sums.qv1q += sum_q * sum_q;
            sums.qv2q += qq;
            sums.z11 += sum_q * sum_q * tau * sd;
            sums.z12 += sum_q * tau * dq;
            sums.z22 += dqq - c * dq * dq;
            for (e, x) in sums.xwz1.iter_mut().zip(&xd) {
                *e += sum_q * tau * x;
            }
            let Some(g) = sums.g.as_mut() else {
                continue;
            };
            for a in 0..p {
                let xa = tau * xd[a];
                for b in 0..p {
                    let xb = tau * xd[b];
                    g.g1.a[a * p + b] += xa * xb;
                    g.g11.a[a * p + b] += tau * sd * xa * xb;
                    g.g12.a[a * p + b] += xa * xu2[b];
                }
            }
            block_g2.iter_mut().for_each(|e| *e = 0.0);
            block_g22.iter_mut().for_each(|e| *e = 0.0);
            for l in 0..n {
                let row = &wx[l * p..(l + 1) * p];
                let di = d[lo + l];
                for a in 0..p {
                    let (wa, dwa) = (row[a], di * row[a]);
                    let g2_row = &mut block_g2[a * p..(a + 1) * p];
                    for (e, wb) in g2_row.iter_mut().zip(row) {
                        *e += wa * wb;
                    }
                    let g22_row = &mut block_g22[a * p..(a + 1) * p];
                    for (e, wb) in g22_row.iter_mut().zip(row) {
                        *e += dwa * wb;
                    }
                }
            }
            for a in 0..p {
                for b in 0..p {
                    g.g2.a[a * p + b] += block_g2[a * p + b];
                    g.g22.a[a * p + b] += block_g22[a * p + b] - c * dwx[a] * dwx[b];
                }
            }
        }
        sums
    }

    /// The module's ℓ (ML or REML, constants included) from pass 1's determinants and y′Py.
    fn log_likelihood(&self, method: Method, gls: &Gls, ypy: f64) -> f64 {
        let k = self.y.len();
        let p = self.p;
        match method {
            Method::Reml => {
                -0.5 * ((k - p) as f64 * ln(2.0 * std::f64::consts::PI) - self.log_det_xx
                    + gls.log_det_v
                    + gls.log_det_xwx
                    + ypy)
            }
            _ => -0.5 * (k as f64 * ln(2.0 * std::f64::consts::PI) + gls.log_det_v + ypy),
        }
    }
}

/// Pass 1's GLS fit at one (σ₁², σ₂²).
struct Gls {
    /// A = (X′WX)⁻¹.
    a: Matrix,
    /// β̂ = A X′Wy.
    beta: Vec<f64>,
    log_det_v: f64,
    log_det_xwx: f64,
}

/// Pass 2's sums (see [`Grouped::derivative_sums`]).
struct Sums {
    /// y′Py.
    ypy: f64,
    /// tr(W V₁), tr(W V₂), tr(W V₁ W V₁), tr(W V₁ W V₂), tr(W V₂ W V₂).
    t1: f64,
    t2: f64,
    t11: f64,
    t12: f64,
    t22: f64,
    /// y′P V₁ P y and y′P V₂ P y.
    qv1q: f64,
    qv2q: f64,
    /// z₁′Wz₁, z₁′Wz₂, z₂′Wz₂ and X′Wz₁, X′Wz₂ (z₁ = V₁q, z₂ = q).
    z11: f64,
    z12: f64,
    z22: f64,
    xwz1: Vec<f64>,
    xwz2: Vec<f64>,
    /// REML's p × p sums; `None` for ML.
    g: Option<GSums>,
}

/// X′W V_r W X (G₁, G₂) and X′W V_r W V_s W X (G₁₁, G₁₂, G₂₂), for REML's traces
/// tr(P V_r) = tr(W V_r) − tr(A G_r) and tr(P V_r P V_s).
struct GSums {
    g1: Matrix,
    g2: Matrix,
    g11: Matrix,
    g12: Matrix,
    g22: Matrix,
}

impl Sums {
    fn new(p: usize, reml: bool) -> Sums {
        Sums {
            ypy: 0.0,
            t1: 0.0,
            t2: 0.0,
            t11: 0.0,
            t12: 0.0,
            t22: 0.0,
            qv1q: 0.0,
            qv2q: 0.0,
            z11: 0.0,
            z12: 0.0,
            z22: 0.0,
            xwz1: vec![0.0; p],
            xwz2: vec![0.0; p],
            g: reml.then(|| GSums {
                g1: Matrix::zeros(p),
                g2: Matrix::zeros(p),
                g11: Matrix::zeros(p),
                g12: Matrix::zeros(p),
                g22: Matrix::zeros(p),
            }),
        }
    }
}

/// The score ∂ℓ/∂σ_r² = −½ tr(Q V_r) + ½ y′P V_r P y, the expected information
/// ½ tr(Q V_r Q V_s) and the observed Hessian ½ tr(Q V_r Q V_s) − y′P V_r P V_s P y (the
/// module's formulas), from pass 2's sums and A = (X′WX)⁻¹. For REML (Q = P) the traces
/// subtract A's terms: tr(P V_r) = tr(W V_r) − tr(A G_r) and
/// tr(P V_r P V_s) = tr(W V_r W V_s) − tr(A G_rs) − tr(A G_sr) + tr(A G_r A G_s).
#[allow(clippy::type_complexity)]
fn derivatives(
    sums: &Sums,
    a_inv: &Matrix,
    method: Method,
) -> ([f64; 2], [[f64; 2]; 2], [[f64; 2]; 2]) {
    let Sums {
        t1,
        t2,
        t11,
        t12,
        t22,
        ..
    } = *sums;
    let (tr_q, tr_qq) = match (&sums.g, method) {
        (Some(g), Method::Reml) => {
            let p = a_inv.n;
            let tr = |m: &Matrix| a_inv.mul(m).trace();
            let mut g21 = Matrix::zeros(p);
            for a in 0..p {
                for b in 0..p {
                    g21.set(a, b, g.g12.get(b, a));
                }
            }
            let ag1 = a_inv.mul(&g.g1);
            let ag2 = a_inv.mul(&g.g2);
            (
                [t1 - ag1.trace(), t2 - ag2.trace()],
                [
                    [
                        t11 - 2.0 * tr(&g.g11) + ag1.mul(&ag1).trace(),
                        t12 - tr(&g.g12) - tr(&g21) + ag1.mul(&ag2).trace(),
                    ],
                    [
                        t12 - tr(&g.g12) - tr(&g21) + ag2.mul(&ag1).trace(),
                        t22 - 2.0 * tr(&g.g22) + ag2.mul(&ag2).trace(),
                    ],
                ],
            )
        }
        _ => ([t1, t2], [[t11, t12], [t12, t22]]),
    };
    // y'PV_rPV_sPy = z_r'Wz_s − (X'Wz_r)'A(X'Wz_s).
    let m11 = sums.z11 - a_inv.quad(&sums.xwz1);
    let m22 = sums.z22 - a_inv.quad(&sums.xwz2);
    let m12 = sums.z12
        - sums
            .xwz1
            .iter()
            .zip(a_inv.times_vec(&sums.xwz2))
            .map(|(a, b)| a * b)
            .sum::<f64>();
    let score = [
        -0.5 * tr_q[0] + 0.5 * sums.qv1q,
        -0.5 * tr_q[1] + 0.5 * sums.qv2q,
    ];
    let fisher = [
        [0.5 * tr_qq[0][0], 0.5 * tr_qq[0][1]],
        [0.5 * tr_qq[1][0], 0.5 * tr_qq[1][1]],
    ];
    let hessian = [
        [fisher[0][0] - m11, fisher[0][1] - m12],
        [fisher[1][0] - m12, fisher[1][1] - m22],
    ];
    (score, hessian, fisher)
}

/// Relative step below which the optimum is accepted.
const STEP_TOL: f64 = 1e-13;
/// Relative step below which a step that does not raise ℓ at all ends the search: the score
/// is then rounding noise (at k = 5,000 a component near 10⁻⁴ flipped between two values
/// 4 · 10⁻¹³ apart, relative, with scores ±2 · 10⁻¹¹ and equal ℓ).
const ROUNDING_STEP_TOL: f64 = 1e-10;
const MAX_ITER: usize = 300;
/// Relative change of ℓ within rounding: a trial step may lower ℓ this much and count as
/// no change.
const LL_ROUNDING: f64 = 1e-14;
/// A profile value, relative to ℓ, taken as 0 (its rounding at k = 10⁵ is about 5 · 10⁻¹⁴).
const PROFILE_ROUNDING: f64 = 1e-13;
/// The longest Newton step, relative to its component, taken whole when ℓ cannot judge it.
const BLIND_STEP_TOL: f64 = 1e-4;
/// A promised gain, relative to ℓ, below which ℓ cannot judge a step.
const BLIND_GAIN: f64 = 1e-11;

/// Maximizes ℓ over the components marked `free` (the others held at `start`), σ ≥ 0.
fn maximize(
    data: &Grouped,
    method: Method,
    free: [bool; 2],
    start: Option<[f64; 2]>,
) -> Result<([f64; 2], usize), MetaError> {
    let mut s = start.unwrap_or_else(|| data.start());
    let name = if method == Method::Reml {
        "multilevel REML"
    } else {
        "multilevel ML"
    };
    // The relative size of the last step taken blind (see below), if the last step was.
    let mut last_blind: Option<f64> = None;
    for iteration in 1..=MAX_ITER {
        crate::cancel::checkpoint()?;
        let e = data.evaluate(s, method, false)?;
        // Components at 0 whose score there is ≤ 0 are held (the optimum's boundary).
        let active: Vec<usize> = (0..2)
            .filter(|&r| free[r] && !(s[r] == 0.0 && e.score[r] <= 0.0))
            .collect();
        if active.is_empty() {
            return Ok((s, iteration));
        }
        let (step, is_newton) = ascent_direction(&e, &active, s);
        let Some(mut step) = step else {
            return Err(MetaError::NoAscentStep {
                method: name,
                iteration,
                sigma2: s,
                cause: "the likelihood's curvature there gives no direction of increase \
                        (neither its Hessian nor its expected information is definite)",
            });
        };
        let hit = clip_to_boundary(&mut step, s, &active);
        // What the quadratic model promises the full step gains: ½ g′Δ.
        let gain = 0.5 * (e.score[0] * step[0] + e.score[1] * step[1]);
        // A short Newton step (at most BLIND_STEP_TOL of its component) whose promised gain
        // is within ℓ's rounding (sums of k terms: at k = 10⁵ ℓ moves by 10⁻⁹ for steps of
        // 10⁻¹⁵) cannot be judged by ℓ, only by the quadratic model: it is taken whole.
        let size = active
            .iter()
            .map(|&r| step[r].abs() / s[r].max(f64::MIN_POSITIVE))
            .fold(0.0, f64::max);
        let blind = is_newton
            && hit.is_none()
            && size <= BLIND_STEP_TOL
            && gain <= BLIND_GAIN * e.ll.abs().max(1.0);
        let accepted = line_search(data, method, s, step, hit, &e, blind)?;
        let Some((next, next_ll, halvings)) = accepted else {
            return Err(MetaError::NoAscentStep {
                method: name,
                iteration,
                sigma2: s,
                cause: "no step along the likelihood's direction of increase, halved 60 \
                        times, raised it",
            });
        };
        let within = |tol: f64| {
            active
                .iter()
                .all(|&r| next[r] > 0.0 && (next[r] - s[r]).abs() <= tol * next[r])
        };
        // Converged: a step within STEP_TOL; or, where the score is only rounding noise
        // (a small component whose steps flip between two neighbours that far apart), a
        // full Newton step (not halved: a halved step is short because the full one
        // overshot, not because the optimum is near) within ROUNDING_STEP_TOL that does
        // not raise ℓ at all; or, of two successive blind steps, a second not shorter than
        // half the first: Newton's steps shrink quadratically, so the score is then rounding
        // noise (sums of k terms: at k = 2 · 10⁴ about 10⁻⁴ against a Hessian of 10⁷) and
        // further steps would only wander (20 to 30 steps of 10⁻⁸ of the component, each
        // halved, where the fit took 4).
        let done = within(STEP_TOL)
            || (halvings == 0 && next_ll <= e.ll && within(ROUNDING_STEP_TOL))
            || (blind && last_blind.is_some_and(|last| size > 0.5 * last));
        last_blind = blind.then_some(size);
        s = next;
        if done {
            return Ok((s, iteration));
        }
    }
    Err(MetaError::NotConverged {
        method: name,
        iterations: MAX_ITER,
    })
}

/// The direction of ascent from `s` on the active components, and whether it is Newton's:
/// Newton's step −H⁻¹g, else Fisher scoring's I⁻¹g; one that would push a component at 0
/// further down is replaced by the scaled gradient gᵣ/Iᵣᵣ. `None`: neither H nor I definite.
fn ascent_direction(e: &Evaluation, active: &[usize], s: [f64; 2]) -> (Option<[f64; 2]>, bool) {
    let newton = newton_step(e, active);
    let is_newton = newton.is_some();
    let step = newton.or_else(|| fisher_step(e, active));
    // A step that would push a component sitting at 0 (with a positive score there)
    // further down is replaced by the scaled gradient, which moves it up.
    let step = step.map(|step| {
        if active.iter().any(|&r| s[r] == 0.0 && step[r] < 0.0) {
            let mut g = [0.0; 2];
            for &r in active {
                g[r] = e.score[r] / e.fisher[r][r].max(f64::MIN_POSITIVE);
            }
            g
        } else {
            step
        }
    });
    (step, is_newton)
}

/// Shortens `step` to stay within σ ≥ 0 and returns the component it brings to 0 first, if
/// any (that component is then set to exactly 0 on the first trial).
fn clip_to_boundary(step: &mut [f64; 2], s: [f64; 2], active: &[usize]) -> Option<usize> {
    let mut t = 1.0f64;
    let mut hit = None;
    for &r in active {
        if s[r] + step[r] < 0.0 && s[r] / -step[r] < t {
            t = s[r] / -step[r];
            hit = Some(r);
        }
    }
    *step = [step[0] * t, step[1] * t];
    hit
}

/// Halves `step` from `s` (at most 60 times) until ℓ does not fall by more than its rounding
/// (`LL_ROUNDING`, relative), or takes a `blind` step whole: the point reached, its ℓ and the
/// number of halvings; `None` when every trial lowered ℓ.
fn line_search(
    data: &Grouped,
    method: Method,
    s: [f64; 2],
    mut step: [f64; 2],
    hit: Option<usize>,
    e: &Evaluation,
    blind: bool,
) -> Result<Option<([f64; 2], f64, usize)>, MetaError> {
    let rounding = LL_ROUNDING * e.ll.abs().max(1.0);
    let mut accepted = None;
    for trial in 0..60 {
        let mut next = [(s[0] + step[0]).max(0.0), (s[1] + step[1]).max(0.0)];
        if let (0, Some(r)) = (trial, hit) {
            next[r] = 0.0;
        }
        let here = data.evaluate(next, method, true)?;
        if here.ll >= e.ll - rounding || (trial == 0 && blind) {
            accepted = Some((next, here.ll, trial));
            break;
        }
        step = [step[0] / 2.0, step[1] / 2.0];
    }
    Ok(accepted)
}

/// −H⁻¹g on the active components, when −H is positive definite there.
fn newton_step(e: &Evaluation, active: &[usize]) -> Option<[f64; 2]> {
    solve_pd(|r, c| -e.hessian[r][c], e, active)
}

fn fisher_step(e: &Evaluation, active: &[usize]) -> Option<[f64; 2]> {
    solve_pd(|r, c| e.fisher[r][c], e, active)
}

fn solve_pd(m: impl Fn(usize, usize) -> f64, e: &Evaluation, active: &[usize]) -> Option<[f64; 2]> {
    let mut step = [0.0; 2];
    match active {
        [r] => {
            let h = m(*r, *r);
            if h.is_nan() || h <= 0.0 {
                return None;
            }
            step[*r] = e.score[*r] / h;
        }
        _ => {
            let (a, b, d) = (m(0, 0), m(0, 1), m(1, 1));
            let det = a * d - b * b;
            if a.is_nan() || det.is_nan() || a <= 0.0 || det <= 0.0 {
                return None;
            }
            step[0] = (d * e.score[0] - b * e.score[1]) / det;
            step[1] = (a * e.score[1] - b * e.score[0]) / det;
        }
    }
    step.iter().all(|x| x.is_finite()).then_some(step)
}

impl Grouped {
    /// Whether every study's indicator zⱼ lies in the column space of X (‖zⱼ − X(X′X)⁻¹X′zⱼ‖²
    /// = nⱼ − zⱼ′X(X′X)⁻¹X′zⱼ ≈ 0), so that the random study effects are absorbed by the
    /// fixed effects: then P Z = 0 (P = V⁻¹ − V⁻¹X(X′V⁻¹X)⁻¹X′V⁻¹), y′Py and
    /// log det V + log det X′V⁻¹X do not change with σ²₁ (Harville 1977, REML's invariance
    /// to fixed effects), and the restricted likelihood is flat in σ²₁. The indicators are
    /// linearly independent, so this needs at most p studies (checked first: no work
    /// otherwise). Columns are scaled to unit length before (X′X)⁻¹ for its conditioning.
    fn study_means_are_fixed(&self) -> bool {
        let n_studies = self.starts.len() - 1;
        let p = self.p;
        if n_studies > p {
            return false;
        }
        let k = self.y.len();
        let mut norm = vec![0.0; p];
        for i in 0..k {
            for (a, n) in norm.iter_mut().enumerate() {
                *n += self.x[i * p + a] * self.x[i * p + a];
            }
        }
        let norm: Vec<f64> = norm.iter().map(|n| n.sqrt()).collect();
        if norm.iter().any(|&n| n == 0.0 || !n.is_finite()) {
            return false;
        }
        let mut xx = Matrix::zeros(p);
        for i in 0..k {
            for a in 0..p {
                for b in 0..p {
                    let v = self.x[i * p + a] * self.x[i * p + b] / (norm[a] * norm[b]);
                    xx.set(a, b, xx.get(a, b) + v);
                }
            }
        }
        let Ok(inv) = xx.inverse() else {
            return false;
        };
        self.blocks().all(|block| {
            let n_j = block.len() as f64;
            let mut xz = vec![0.0; p];
            for i in block {
                for (a, s) in xz.iter_mut().enumerate() {
                    *s += self.x[i * p + a] / norm[a];
                }
            }
            let mut fitted = 0.0;
            for a in 0..p {
                for b in 0..p {
                    fitted += xz[a] * inv.get(a, b) * xz[b];
                }
            }
            n_j - fitted <= 1e-9 * n_j
        })
    }

    /// A start inside the parameter space: half of a moment estimate of the total
    /// heterogeneity each (at least a tenth of the mean vᵢ).
    fn start(&self) -> [f64; 2] {
        let k = self.y.len() as f64;
        let mean = self.y.iter().sum::<f64>() / k;
        let var = self.y.iter().map(|y| (y - mean) * (y - mean)).sum::<f64>() / (k - 1.0);
        let mean_v = self.v.iter().sum::<f64>() / k;
        let total = (var - mean_v).max(0.1 * mean_v);
        [total / 2.0, total / 2.0]
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;

    /// A dense evaluation of the same likelihood, score and Hessian (k × k matrices).
    fn dense(data: &Grouped, s: [f64; 2], method: Method) -> (f64, [f64; 2], [[f64; 2]; 2]) {
        let k = data.y.len();
        let p = data.p;
        let mut study = vec![0; k];
        for j in 0..data.starts.len() - 1 {
            for s in study
                .iter_mut()
                .take(data.starts[j + 1])
                .skip(data.starts[j])
            {
                *s = j;
            }
        }
        let mut v = vec![vec![0.0; k]; k];
        for i in 0..k {
            for l in 0..k {
                v[i][l] = if study[i] == study[l] { s[0] } else { 0.0 };
            }
            v[i][i] += data.v[i] + s[1];
        }
        let inv = |m: &Vec<Vec<f64>>| {
            let n = m.len();
            let mut mm = Matrix::zeros(n);
            for i in 0..n {
                for l in 0..n {
                    mm.set(i, l, m[i][l]);
                }
            }
            mm.inverse().unwrap()
        };
        let w = inv(&v);
        let x = |i: usize, a: usize| data.x[i * p + a];
        let mut xwx = Matrix::zeros(p);
        for a in 0..p {
            for b in 0..p {
                let mut t = 0.0;
                for i in 0..k {
                    for l in 0..k {
                        t += x(i, a) * w.get(i, l) * x(l, b);
                    }
                }
                xwx.set(a, b, t);
            }
        }
        let amat = xwx.inverse().unwrap();
        let mut pm = Matrix::zeros(k);
        let wx: Vec<Vec<f64>> = (0..k)
            .map(|i| {
                (0..p)
                    .map(|a| (0..k).map(|l| w.get(i, l) * x(l, a)).sum())
                    .collect()
            })
            .collect();
        for i in 0..k {
            for l in 0..k {
                let h: f64 = (0..p)
                    .map(|a| {
                        (0..p)
                            .map(|b| wx[i][a] * amat.get(a, b) * wx[l][b])
                            .sum::<f64>()
                    })
                    .sum();
                pm.set(i, l, w.get(i, l) - h);
            }
        }
        let q = if method == Method::Reml { &pm } else { &w };
        let v1 = {
            let mut m = Matrix::zeros(k);
            for i in 0..k {
                for l in 0..k {
                    m.set(i, l, if study[i] == study[l] { 1.0 } else { 0.0 });
                }
            }
            m
        };
        let mut v2 = Matrix::zeros(k);
        for i in 0..k {
            v2.set(i, i, 1.0);
        }
        let vr = [v1, v2];
        let py = pm.times_vec(&data.y);
        let mut score = [0.0; 2];
        let mut hess = [[0.0; 2]; 2];
        for r in 0..2 {
            let vpy = vr[r].times_vec(&py);
            score[r] = -0.5 * q.mul(&vr[r]).trace()
                + 0.5 * py.iter().zip(&vpy).map(|(a, b)| a * b).sum::<f64>();
            for c in 0..2 {
                let t = q.mul(&vr[r]).mul(q).mul(&vr[c]).trace();
                let z = pm.times_vec(&vr[c].times_vec(&py));
                let m: f64 = vpy.iter().zip(&z).map(|(a, b)| a * b).sum();
                hess[r][c] = 0.5 * t - m;
            }
        }
        let ypy: f64 = data.y.iter().zip(&py).map(|(a, b)| a * b).sum();
        let mut vm = Matrix::zeros(k);
        for i in 0..k {
            for l in 0..k {
                vm.set(i, l, v[i][l]);
            }
        }
        let two_pi = ln(2.0 * std::f64::consts::PI);
        let ll = if method == Method::Reml {
            -0.5 * ((k - p) as f64 * two_pi - data.log_det_xx + ln(vm.det()) + ln(xwx.det()) + ypy)
        } else {
            -0.5 * (k as f64 * two_pi + ln(vm.det()) + ypy)
        };
        (ll, score, hess)
    }

    /// [`example`]'s records (ids r0, r1, …) and their studies.
    fn example_records() -> (Vec<Record>, Vec<String>) {
        let (y, v, s, _) = example();
        let recs = y
            .iter()
            .zip(&v)
            .enumerate()
            .map(|(i, (y, v))| Record::new(format!("r{i}"), *y, *v))
            .collect();
        (recs, s)
    }

    fn example() -> (Vec<f64>, Vec<f64>, Vec<String>, Vec<f64>) {
        let y = vec![0.1, 0.3, -0.2, 0.5, 0.4, 0.0, 0.25, 0.6, -0.1, 0.2, 0.35];
        let v = vec![
            0.02, 0.03, 0.01, 0.05, 0.04, 0.02, 0.03, 0.06, 0.02, 0.01, 0.04,
        ];
        let s = ["a", "a", "a", "b", "b", "c", "c", "c", "c", "d", "e"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let x = vec![1.0, 2.0, 0.5, 3.0, 2.5, 1.0, 1.5, 4.0, 0.0, 2.0, 3.5];
        (y, v, s, x)
    }

    #[test]
    fn block_formulas_match_the_dense_likelihood_and_derivatives() {
        let (y, v, s, x) = example();
        let coding =
            Coding::new(&[Moderator::numeric("x", x)], &|i| i.to_string(), y.len()).unwrap();
        for coding in [None, Some(&coding)] {
            let g = Grouped::new(&y, &v, &s, coding).unwrap();
            for method in [Method::Reml, Method::Ml] {
                for sig in [[0.03, 0.01], [0.0, 0.02], [0.1, 0.0]] {
                    let e = g.evaluate(sig, method, false).unwrap();
                    let (ll, score, hess) = dense(&g, sig, method);
                    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
                    assert!(close(e.ll, ll), "{method:?} {sig:?} ll {} {}", e.ll, ll);
                    for r in 0..2 {
                        assert!(
                            close(e.score[r], score[r]),
                            "{method:?} {sig:?} score {r}: {} {}",
                            e.score[r],
                            score[r]
                        );
                        for c in 0..2 {
                            assert!(
                                close(e.hessian[r][c], hess[r][c]),
                                "{method:?} {sig:?} H {r}{c}: {} {}",
                                e.hessian[r][c],
                                hess[r][c]
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_optimum_has_a_zero_score() {
        let (recs, s) = example_records();
        for method in [Method::Reml, Method::Ml] {
            let options = MultilevelOptions {
                method,
                ..MultilevelOptions::default()
            };
            let m = multilevel(&recs, &s, &[], &options).unwrap();
            let e = m.data.evaluate(m.sigma2, method, false).unwrap();
            for r in 0..2 {
                assert!(
                    m.sigma2[r] == 0.0 && e.score[r] <= 0.0 || e.score[r].abs() < 1e-8,
                    "{method:?} {:?} {:?}",
                    m.sigma2,
                    e.score
                );
            }
        }
    }

    /// Both likelihoods at the estimates: the fit's own is its `loglik`; the other is the
    /// module's ℓ of the other method at the same (σ̂₁², σ̂₂²) (compare_models reads it).
    #[test]
    fn both_likelihoods_at_the_estimates() {
        let (recs, s) = example_records();
        for method in [Method::Reml, Method::Ml] {
            let options = MultilevelOptions {
                method,
                ..MultilevelOptions::default()
            };
            let m = multilevel(&recs, &s, &[], &options).unwrap();
            let reml = method == Method::Reml;
            assert_eq!(m.loglik_at_estimates(reml).unwrap(), m.loglik);
            let other = if reml { Method::Ml } else { Method::Reml };
            let (ll, _, _) = dense(&m.data, m.sigma2, other);
            let theirs = m.loglik_at_estimates(!reml).unwrap();
            assert!((theirs - ll).abs() < 1e-9, "{method:?}: {theirs} vs {ll}");
            assert!((theirs - m.loglik).abs() > 1e-3);
        }
    }

    /// A moderator that is the study column (study means fixed effects): REML is refused
    /// before the search, in words; the search itself, run there, stops for want of a step
    /// and says so (it once said "did not converge … within 1 iterations").
    #[test]
    fn a_study_variance_the_moderators_absorb_is_named_not_an_iteration_limit() {
        let (y, v, _, _) = example();
        let (recs, s) = example_records();
        let mods = [Moderator::factor("study", s.clone())];
        let e = multilevel(&recs, &s, &mods, &MultilevelOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not identified under REML") && e.contains("all 5 studies"),
            "{e}"
        );
        let coding = Coding::new(&mods, &|i| i.to_string(), y.len()).unwrap();
        let g = Grouped::new(&y, &v, &s, Some(&coding)).unwrap();
        assert!(g.study_means_are_fixed());
        match maximize(&g, Method::Reml, [true, true], None) {
            Err(e @ MetaError::NoAscentStep { .. }) => {
                let text = e.to_string();
                assert!(text.contains("could not take a step"), "{text}");
                assert!(!text.contains("iteration limit"), "{text}");
            }
            other => panic!("{other:?}"),
        }
        // A study-level moderator that does not separate every study leaves σ²₁ identified.
        let some = Coding::new(
            &[Moderator::numeric(
                "x",
                vec![1.0, 1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 3.0, 2.0],
            )],
            &|i| i.to_string(),
            y.len(),
        )
        .unwrap();
        assert!(!Grouped::new(&y, &v, &s, Some(&some))
            .unwrap()
            .study_means_are_fixed());
        // ML is not refused: its likelihood falls as σ²₁ grows, so σ²₁ = 0.
        let ml = MultilevelOptions {
            method: Method::Ml,
            ..MultilevelOptions::default()
        };
        assert_eq!(multilevel(&recs, &s, &mods, &ml).unwrap().sigma2[0], 0.0);
    }

    #[test]
    fn a_model_beyond_the_work_bound_is_refused_before_any_work() {
        // 8 moderators: 9 coefficients, so at most 1.6e6 / 105 = 15,238 records.
        let k = 15_239;
        let recs: Vec<Record> = (0..k)
            .map(|i| Record::new(format!("r{i}"), (i % 7) as f64 * 0.1, 0.02))
            .collect();
        let studies: Vec<String> = (0..k).map(|i| format!("s{}", i / 2)).collect();
        let mods: Vec<Moderator> = (0..8u64)
            .map(|m| {
                let column = (0..k as u64)
                    .map(|i| ((i * (2 * m + 7919) + m * m * 104_729) % 1009) as f64)
                    .collect();
                Moderator::numeric(format!("x{m}"), column)
            })
            .collect();
        let e = multilevel(&recs, &studies, &mods, &MultilevelOptions::default()).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("bound on work")
                && text.contains("at most 1600000")
                && text.contains("at most 15238 records"),
            "{text}"
        );
        assert!(check_cost(15_238, 9).is_ok() && check_cost(64_000, 1).is_ok());
        assert!(check_cost(64_001, 1).is_err());
    }

    #[test]
    fn unidentified_designs_are_refused() {
        let recs: Vec<Record> = (0..4)
            .map(|i| Record::new(format!("r{i}"), i as f64 * 0.1, 0.01))
            .collect();
        let one: Vec<String> = vec!["a".into(); 4];
        let each: Vec<String> = (0..4).map(|i| format!("s{i}")).collect();
        let o = MultilevelOptions::default();
        assert!(multilevel(&recs, &one, &[], &o)
            .unwrap_err()
            .to_string()
            .contains("one study"));
        assert!(multilevel(&recs, &each, &[], &o)
            .unwrap_err()
            .to_string()
            .contains("single effect size"));
        let dl = MultilevelOptions {
            method: Method::Dl,
            ..o
        };
        assert!(multilevel(&recs, &one, &[], &dl)
            .unwrap_err()
            .to_string()
            .contains("REML or ML"));
    }
}
