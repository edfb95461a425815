//! Model comparison: each fit's log-likelihood and information criteria (metafor 3.8-1's
//! `fitstats()`), the likelihood-ratio test of two nested fits of the same data (`anova(full,
//! reduced)`) and the Wald test of a set of coefficients of one fit (`anova(fit, btt = )`).
//!
//! With wᵢ = 1/(vᵢ + τ̂²), β̂ the weighted least-squares estimate and RSS = Σ wᵢ(yᵢ − xᵢ′β̂)²
//! (`rma.uni`'s `RSS.f`):
//! - ML: ℓ = −½[k log 2π + Σ log(vᵢ + τ̂²) + RSS];
//! - REML: ℓ = −½[(k − p) log 2π − log det X′X + Σ log(vᵢ + τ̂²) + log det X′WX + RSS];
//! - the three-level model's ℓ is its own (`multilevel.rs`).
//!
//! Every fit has both: metafor's `fit.stats` holds an ML and a REML column for every fit,
//! each ℓ evaluated at the fit's own estimates whatever its estimator (`rma.uni.r`: `ll.ML`
//! and `ll.REML`, τ̂² = 0 for an equal-effects fit; `rma.mv.r`: its `llvals`), with `parms` =
//! p plus the variance components estimated: deviance −2ℓ under REML and −2(ℓ − ℓ_sat) under
//! ML with ℓ_sat = −½ Σ log(2π vᵢ) (0 when k ≤ p); AIC = −2ℓ + 2 parms; BIC = −2ℓ + parms log
//! n; AICc = −2ℓ + 2 parms · max(n, parms + 2)/(max(n, parms + 2) − parms − 1), with n = k
//! under ML and k − p under REML ([`FitColumns`]).
//!
//! Which column is read: one fit alone, its own (REML for a REML fit, else ML: `fitstats(fit)`);
//! two fits, the full model's, for both fits (`anova.rma`: `fit.stats["dev", "REML"]` of
//! both when `model.f$method == "REML"`, else the ML column; the same as `fitstats(full,
//! reduced)`). So a REML fit against an equal-effects fit reads the equal-effects fit's REML
//! likelihood, not its ML one ([`Comparison::reml`]).
//!
//! The likelihood-ratio test: LRT = dev_reduced − dev_full (0 when negative) on
//! parms_full − parms_reduced df, χ² upper tail. metafor's refusals are kept (different
//! outcomes or variances, ML against REML, a full equal-effects model against a random
//! reduced one) and where metafor only warns (REML fits with different fixed effects,
//! estimators other than ML and REML) or says nothing (models that are not nested) no LRT is
//! given and a note says why.

use crate::distributions::{chi2_sf, f_sf};
use crate::{MetaError, Method};

/// A fit's log-likelihood and information criteria under one likelihood (one column of
/// metafor's `fit.stats`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FitStatistics {
    /// Whether ℓ is restricted (a REML fit).
    pub reml: bool,
    pub k: usize,
    /// Fixed-effects coefficients.
    pub p: usize,
    /// Coefficients plus the variance components estimated.
    pub parms: usize,
    pub loglik: f64,
    pub deviance: f64,
    pub aic: f64,
    pub bic: f64,
    pub aicc: f64,
}

/// The statistics of a fit with log-likelihood `loglik` (the module's formulas).
pub fn fit_statistics(
    loglik: f64,
    reml: bool,
    vi: &[f64],
    p: usize,
    parms: usize,
) -> FitStatistics {
    let k = vi.len();
    let n = if reml { k - p } else { k };
    let deviance = if reml {
        -2.0 * loglik
    } else if k > p {
        let saturated: f64 = vi
            .iter()
            .map(|v| -0.5 * crate::math::ln(2.0 * std::f64::consts::PI * v))
            .sum();
        -2.0 * (loglik - saturated)
    } else {
        0.0
    };
    let (parms_f, n_f) = (parms as f64, n as f64);
    let m = n_f.max(parms_f + 2.0);
    FitStatistics {
        reml,
        k,
        p,
        parms,
        loglik,
        deviance,
        aic: -2.0 * loglik + 2.0 * parms_f,
        bic: -2.0 * loglik + parms_f * crate::math::ln(n_f),
        aicc: -2.0 * loglik + 2.0 * parms_f * m / (m - parms_f - 1.0),
    }
}

/// metafor's `fit.stats`: a fit's statistics under ML and under REML, both at the fit's own
/// estimates (the module's formulas).
#[derive(Debug, Clone, PartialEq)]
pub struct FitColumns {
    pub ml: FitStatistics,
    pub reml: FitStatistics,
}

impl FitColumns {
    /// The two columns from ℓ_ML and ℓ_REML at the fit's estimates.
    pub fn new(loglik_ml: f64, loglik_reml: f64, vi: &[f64], p: usize, parms: usize) -> Self {
        FitColumns {
            ml: fit_statistics(loglik_ml, false, vi, p, parms),
            reml: fit_statistics(loglik_reml, true, vi, p, parms),
        }
    }

    /// The REML column when `reml`, else the ML one.
    pub fn on(&self, reml: bool) -> &FitStatistics {
        if reml {
            &self.reml
        } else {
            &self.ml
        }
    }

    /// The column `fitstats(fit)` prints for a fit by `method` alone: REML for a REML fit,
    /// else ML.
    pub fn own(&self, method: Method) -> &FitStatistics {
        self.on(method == Method::Reml)
    }

    pub fn parms(&self) -> usize {
        self.ml.parms
    }
}

/// log det of a symmetric positive-definite p × p matrix, and its Cholesky factor.
fn cholesky(a: &[f64], p: usize) -> Option<(f64, Vec<f64>)> {
    let mut l = vec![0.0; p * p];
    let mut log_det = 0.0;
    for j in 0..p {
        let d = a[j * p + j] - (0..j).map(|m| l[j * p + m] * l[j * p + m]).sum::<f64>();
        if d.is_nan() || d <= 0.0 {
            return None;
        }
        let root = d.sqrt();
        log_det += 2.0 * crate::math::ln(root);
        l[j * p + j] = root;
        for i in j + 1..p {
            l[i * p + j] =
                (a[i * p + j] - (0..j).map(|m| l[i * p + m] * l[j * p + m]).sum::<f64>()) / root;
        }
    }
    Some((log_det, l))
}

/// The log-likelihood of the random-effects model (or meta-regression) with τ² = `tau2` on
/// the design `x` (k × p, row-major): ML or REML (the module's formulas).
pub fn uni_loglik(
    yi: &[f64],
    vi: &[f64],
    x: &[f64],
    tau2: f64,
    reml: bool,
) -> Result<f64, MetaError> {
    let k = yi.len();
    let p = x.len() / k.max(1);
    let singular = || MetaError::Undefined {
        reason: "the design's X'WX is singular: no log-likelihood".into(),
    };
    let w: Vec<f64> = vi.iter().map(|v| 1.0 / (v + tau2)).collect();
    let (mut xwx, mut xx, mut xwy) = (vec![0.0; p * p], vec![0.0; p * p], vec![0.0; p]);
    for i in 0..k {
        let row = &x[i * p..(i + 1) * p];
        for a in 0..p {
            xwy[a] += w[i] * row[a] * yi[i];
            for b in 0..p {
                xwx[a * p + b] += w[i] * row[a] * row[b];
                xx[a * p + b] += row[a] * row[b];
            }
        }
    }
    let (log_det_xwx, l) = cholesky(&xwx, p).ok_or_else(singular)?;
    // β̂ = (X′WX)⁻¹X′Wy by the two triangular solves.
    let mut z = vec![0.0; p];
    for a in 0..p {
        z[a] = (xwy[a] - (0..a).map(|b| l[a * p + b] * z[b]).sum::<f64>()) / l[a * p + a];
    }
    let mut beta = vec![0.0; p];
    for a in (0..p).rev() {
        beta[a] = (z[a] - (a + 1..p).map(|b| l[b * p + a] * beta[b]).sum::<f64>()) / l[a * p + a];
    }
    let rss: f64 = (0..k)
        .map(|i| {
            let fitted: f64 = (0..p).map(|a| x[i * p + a] * beta[a]).sum();
            w[i] * (yi[i] - fitted) * (yi[i] - fitted)
        })
        .sum();
    let log_var: f64 = vi.iter().map(|v| crate::math::ln(v + tau2)).sum();
    let log_2pi = crate::math::ln(2.0 * std::f64::consts::PI);
    let ll = if reml {
        let (log_det_xx, _) = cholesky(&xx, p).ok_or_else(singular)?;
        -0.5 * ((k - p) as f64 * log_2pi - log_det_xx + log_var + log_det_xwx + rss)
    } else {
        -0.5 * (k as f64 * log_2pi + log_var + rss)
    };
    if ll.is_finite() {
        Ok(ll)
    } else {
        Err(MetaError::NonFiniteResult {
            quantity: "log-likelihood",
        })
    }
}

/// [`FitColumns`] of a random-effects fit or meta-regression with τ̂² = `tau2` (0 for an
/// equal-effects fit, as rma.uni evaluates both columns of its `fit.stats` at τ² = 0) on the
/// design `x` (k × p, row-major), with `parms` parameters.
pub fn uni_fit_columns(
    yi: &[f64],
    vi: &[f64],
    x: &[f64],
    tau2: f64,
    parms: usize,
) -> Result<FitColumns, MetaError> {
    let p = x.len() / yi.len().max(1);
    Ok(FitColumns::new(
        uni_loglik(yi, vi, x, tau2, false)?,
        uni_loglik(yi, vi, x, tau2, true)?,
        vi,
        p,
        parms,
    ))
}

/// The random part of a fit, for nesting: none (equal effects) inside one variance (τ²)
/// inside the three-level model's two (σ₁², σ₂²; τ² is σ₁² = 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RandomPart {
    None,
    Tau2,
    ThreeLevel,
}

/// One fit as the comparison reads it.
#[derive(Debug, Clone)]
pub struct Candidate<'a> {
    pub method: Method,
    pub random: RandomPart,
    pub coefficients: &'a [String],
    /// Both columns: the comparison reads the full model's.
    pub stats: &'a FitColumns,
    pub yi: &'a [f64],
    pub vi: &'a [f64],
}

/// The likelihood-ratio test of two fits: `full` and `reduced` index the fits as given.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct LikelihoodRatio {
    pub full: usize,
    pub reduced: usize,
    pub df: usize,
    pub chi2: f64,
    pub p: f64,
}

/// What the comparison of two fits gives: which is the full model (the one with more
/// parameters), the likelihood the comparison reads, the likelihood-ratio test when it is
/// meaningful, and notes on why not.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub full: usize,
    pub reduced: usize,
    /// Both fits' statistics are read in the REML column when the full model is a REML fit,
    /// else in the ML column (metafor's `anova.rma`; [`comparison_scale`]).
    pub reml: bool,
    pub nested: bool,
    pub lrt: Option<LikelihoodRatio>,
    pub notes: Vec<String>,
}

fn refused(reason: &str) -> MetaError {
    MetaError::Undefined {
        reason: reason.to_string(),
    }
}

fn equal_effects(m: Method) -> bool {
    matches!(m, Method::Ee | Method::Fe)
}

/// The column two fits are compared in: REML when the full model's method is REML, else ML,
/// for both fits whatever the reduced model's method (metafor 3.8-1's `anova.rma`: `if
/// (model.f$method == "REML") LRT <- model.r$fit.stats["dev","REML"] -
/// model.f$fit.stats["dev","REML"]`, the ML column otherwise; the printed `fit.stats.f` and
/// `fit.stats.r` are the same column). A REML random-effects fit against an equal-effects
/// fit thus compares their REML likelihoods, the equal-effects one at τ² = 0.
pub fn comparison_scale(full: Method) -> bool {
    full == Method::Reml
}

/// metafor's `anova(a, b)`: the refusals, the full model, nesting and the LRT.
pub fn compare(a: &Candidate, b: &Candidate) -> Result<Comparison, MetaError> {
    if a.yi != b.yi || a.vi != b.vi {
        return Err(refused(
            "Observed outcomes and/or sampling variances not equal in the full and reduced \
             model (metafor's anova()): compare fits of the same records (check exclude and \
             records left out for missing moderator values)",
        ));
    }
    let (full, reduced) = if a.stats.parms() >= b.stats.parms() {
        (0, 1)
    } else {
        (1, 0)
    };
    let (f, r) = if full == 0 { (a, b) } else { (b, a) };
    if equal_effects(f.method) && !equal_effects(r.method) {
        return Err(refused(
            "Full model uses a fixed- and reduced model uses a random/mixed-effects model \
             (metafor's anova())",
        ));
    }
    let ml_reml = |x: Method, y: Method| x == Method::Ml && y == Method::Reml;
    if ml_reml(f.method, r.method) || ml_reml(r.method, f.method) {
        return Err(refused(&format!(
            "Mismatch between the use of {} and {} estimation in the full versus reduced model \
             (metafor's anova())",
            f.method.name(),
            r.method.name()
        )));
    }
    let nested = r.random <= f.random
        && r.coefficients.iter().all(|c| f.coefficients.contains(c))
        && a.stats.parms() != b.stats.parms();
    let mut notes = Vec::new();
    let likelihood = |m: Method| matches!(m, Method::Ml | Method::Reml) || equal_effects(m);
    if a.stats.parms() == b.stats.parms() {
        notes.push(
            "Models have the same number of parameters. LRT not meaningful (metafor's \
             anova()); compare them by AIC, BIC and AICc."
                .to_string(),
        );
    } else if !nested {
        notes.push(
            "The models are not nested (the reduced model's coefficients and random effects \
             are not all in the full model's): no LRT; compare them by AIC, BIC and AICc."
                .to_string(),
        );
    } else if !(likelihood(f.method) && likelihood(r.method)) {
        notes.push(
            "LRTs should be based on ML/REML estimation (metafor's anova()): no LRT; fit both \
             models with method ML or REML."
                .to_string(),
        );
    } else if f.method == Method::Reml && f.coefficients != r.coefficients {
        notes.push(
            "REML comparisons not meaningful for models with different fixed effects \
             (metafor's anova()): no LRT; fit both models with method ML."
                .to_string(),
        );
    }
    let reml = comparison_scale(f.method);
    let lrt = notes.is_empty().then(|| {
        let chi2 = (r.stats.on(reml).deviance - f.stats.on(reml).deviance).max(0.0);
        let df = f.stats.parms() - r.stats.parms();
        LikelihoodRatio {
            full,
            reduced,
            df,
            chi2,
            p: chi2_sf(chi2, df as f64),
        }
    });
    Ok(Comparison {
        full,
        reduced,
        reml,
        nested,
        lrt,
        notes,
    })
}

/// The Wald test that the coefficients `positions` (0-based) are zero: QM = b′V⁻¹b on m df
/// (χ²), or F = QM/m on (m, `df2`) df when the fit's tests are t tests (metafor's
/// `anova(fit, btt = )`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct WaldBtt {
    /// The coefficients tested, by position from 1.
    pub btt: Vec<usize>,
    /// QM, or F under t tests.
    pub statistic: f64,
    pub df1: usize,
    /// Null under z tests.
    pub df2: Option<f64>,
    pub p: f64,
}

/// [`WaldBtt`] from a fit's β̂ and Var(β̂).
pub fn wald_btt(
    beta: &[f64],
    vb: &[Vec<f64>],
    positions: &[usize],
    df2: Option<f64>,
) -> Result<WaldBtt, MetaError> {
    let m = positions.len();
    let mut sub = crate::weighted::Matrix::zeros(m);
    for (a, &ja) in positions.iter().enumerate() {
        for (b, &jb) in positions.iter().enumerate() {
            sub.set(a, b, vb[ja][jb]);
        }
    }
    let b: Vec<f64> = positions.iter().map(|&j| beta[j]).collect();
    let qm = sub
        .inverse()
        .map_err(|_| refused("the covariance of the tested coefficients is singular"))?
        .quad(&b);
    let (statistic, p) = match df2 {
        None => (qm, chi2_sf(qm, m as f64)),
        Some(d) => (qm / m as f64, f_sf(qm / m as f64, m as f64, d)),
    };
    Ok(WaldBtt {
        btt: positions.iter().map(|j| j + 1).collect(),
        statistic,
        df1: m,
        df2,
        p,
    })
}

/// One linear combination x′β̂ of [`wald_contrasts`]: its estimate, se, z (or t with `df`)
/// and two-sided p.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Hypothesis {
    /// x′β̂ (metafor's Xb; its "estimate" column).
    pub xb: f64,
    pub se: f64,
    pub statistic: f64,
    pub df: Option<f64>,
    pub p: f64,
}

/// metafor's `anova(fit, X = )`: each row x of X tested as x′β = 0, and, when X has full row
/// rank, the omnibus test QM = (Xβ̂)′(X V X′)⁻¹(Xβ̂) on m df (χ²), or QM/m on (m, `df2`) df under
/// t tests.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Contrasts {
    pub hypotheses: Vec<Hypothesis>,
    /// Null when the rows are linearly dependent.
    pub omnibus: Option<WaldBtt>,
}

/// [`Contrasts`] of the rows `x` (p entries each) from a fit's β̂ and Var(β̂).
pub fn wald_contrasts(
    beta: &[f64],
    vb: &[Vec<f64>],
    x: &[Vec<f64>],
    df2: Option<f64>,
) -> Result<Contrasts, MetaError> {
    let p = beta.len();
    if x.is_empty() || x.iter().any(|row| row.len() != p) {
        return Err(MetaError::Coefficients {
            reason: format!("X needs rows of {p} numbers, one per coefficient (anova's X)"),
        });
    }
    if x.iter().flatten().any(|v| !v.is_finite()) {
        return Err(MetaError::Coefficients {
            reason: "X must hold finite numbers".into(),
        });
    }
    let m = x.len();
    let xb: Vec<f64> = x
        .iter()
        .map(|row| row.iter().zip(beta).map(|(a, b)| a * b).sum())
        .collect();
    let vxb: Vec<f64> = (0..m * m)
        .map(|rc| {
            let (r, c) = (&x[rc / m], &x[rc % m]);
            (0..p)
                .map(|a| r[a] * (0..p).map(|b| vb[a][b] * c[b]).sum::<f64>())
                .sum()
        })
        .collect();
    let hypotheses = (0..m)
        .map(|j| {
            let se = vxb[j * m + j].max(0.0).sqrt();
            let statistic = xb[j] / se;
            let p = match df2 {
                None => crate::distributions::normal_two_sided_p(statistic),
                Some(d) => crate::distributions::t_two_sided_p(statistic, d),
            };
            Hypothesis {
                xb: xb[j],
                se,
                statistic,
                df: df2,
                p,
            }
        })
        .collect();
    let omnibus = cholesky(&vxb, m).map(|(_, l)| {
        // QM = ‖L⁻¹ Xβ̂‖².
        let mut z = vec![0.0; m];
        for a in 0..m {
            z[a] = (xb[a] - (0..a).map(|b| l[a * m + b] * z[b]).sum::<f64>()) / l[a * m + a];
        }
        let qm: f64 = z.iter().map(|v| v * v).sum();
        let (statistic, p) = match df2 {
            None => (qm, chi2_sf(qm, m as f64)),
            Some(d) => (qm / m as f64, f_sf(qm / m as f64, m as f64, d)),
        };
        WaldBtt {
            btt: Vec::new(),
            statistic,
            df1: m,
            df2,
            p,
        }
    });
    Ok(Contrasts {
        hypotheses,
        omnibus,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intercept_only_ml_loglik_is_the_normal_density() {
        // One record, τ² = 0: ℓ = log φ(y; μ̂ = y, v) = −½ log 2πv, so the deviance is 0.
        let ll = uni_loglik(&[0.3, 0.5], &[0.1, 0.1], &[1.0, 1.0], 0.0, false).unwrap();
        let expected = -0.5 * (2.0 * (2.0 * std::f64::consts::PI * 0.1).ln() + 0.2);
        assert!((ll - expected).abs() < 1e-14, "{ll} vs {expected}");
        let s = fit_statistics(ll, false, &[0.1, 0.1], 1, 1);
        assert!((s.deviance - 0.2).abs() < 1e-13);
        assert!((s.aic - (-2.0 * ll + 2.0)).abs() < 1e-13);
    }

    fn candidate<'a>(
        method: Method,
        coefficients: &'a [String],
        stats: &'a FitColumns,
        yi: &'a [f64],
        vi: &'a [f64],
    ) -> Candidate<'a> {
        let random = if equal_effects(method) {
            RandomPart::None
        } else {
            RandomPart::Tau2
        };
        Candidate {
            method,
            random,
            coefficients,
            stats,
            yi,
            vi,
        }
    }

    #[test]
    fn different_data_and_ml_against_reml_are_refused() {
        let names = ["intercept".to_string()];
        let vi = [0.1, 0.1, 0.1];
        let s1 = FitColumns::new(-1.0, -1.5, &vi, 1, 2);
        let s2 = FitColumns::new(-2.0, -2.5, &vi, 1, 1);
        let base = candidate(Method::Ml, &names, &s1, &[1.0, 2.0, 3.0], &vi);
        let other = Candidate {
            stats: &s2,
            yi: &[1.0, 2.0, 4.0],
            ..base.clone()
        };
        assert!(compare(&base, &other)
            .unwrap_err()
            .to_string()
            .contains("not equal"));
        let reml = Candidate {
            stats: &s2,
            method: Method::Reml,
            ..base.clone()
        };
        assert!(compare(&base, &reml)
            .unwrap_err()
            .to_string()
            .contains("Mismatch"));
        let ee = candidate(Method::Ee, &names, &s2, base.yi, &vi);
        let c = compare(&base, &ee).unwrap();
        assert_eq!((c.full, c.reduced, c.reml), (0, 1, false));
        let lrt = c.lrt.unwrap();
        assert_eq!(lrt.df, 1);
        assert!((lrt.chi2 - (s2.ml.deviance - s1.ml.deviance)).abs() < 1e-15);
        // An equal-effects full model against a random-effects reduced one is refused.
        let ee_full = candidate(Method::Ee, &names, &s1, base.yi, &vi);
        let re = candidate(Method::Reml, &names, &s2, base.yi, &vi);
        assert!(compare(&ee_full, &re)
            .unwrap_err()
            .to_string()
            .contains("fixed- and reduced"));
    }

    /// Five estimates, their variances and the intercept-only design.
    fn five() -> ([f64; 5], [f64; 5], [f64; 5]) {
        (
            [0.1, 0.8, -0.3, 0.5, 1.2],
            [0.04, 0.02, 0.05, 0.03, 0.06],
            [1.0; 5],
        )
    }

    #[test]
    fn the_equal_effects_reml_column_is_the_reml_likelihood_at_tau2_zero() {
        // k records, intercept only, τ² = 0: ℓ_REML = −½[(k − 1) log 2π − log k + Σ log vᵢ
        // + log Σ(1/vᵢ) + Σ(yᵢ − ȳ_w)²/vᵢ] (rma.uni's ll.REML of an EE fit).
        let (yi, vi, x) = five();
        let w: Vec<f64> = vi.iter().map(|v| 1.0 / v).collect();
        let sw: f64 = w.iter().sum();
        let mean = yi.iter().zip(&w).map(|(y, w)| y * w).sum::<f64>() / sw;
        let rss: f64 = yi.iter().zip(&w).map(|(y, w)| w * (y - mean).powi(2)).sum();
        let k = yi.len() as f64;
        let log_2pi = (2.0 * std::f64::consts::PI).ln();
        let by_hand = -0.5
            * ((k - 1.0) * log_2pi - k.ln()
                + vi.iter().map(|v| v.ln()).sum::<f64>()
                + sw.ln()
                + rss);
        let columns = uni_fit_columns(&yi, &vi, &x, 0.0, 1).unwrap();
        assert!((columns.reml.loglik - by_hand).abs() < 1e-13);
        assert!(columns.reml.reml && !columns.ml.reml);
        assert!((columns.reml.deviance + 2.0 * by_hand).abs() < 1e-12);
        // BIC under REML counts k − p records.
        assert!((columns.reml.bic - (-2.0 * by_hand + (k - 1.0).ln())).abs() < 1e-12);
    }

    /// The REML random-effects fit against the equal-effects one reads both fits' REML
    /// column (metafor's anova.rma); the ML column's LRT is another number.
    #[test]
    fn a_reml_fit_against_equal_effects_reads_the_reml_column() {
        let (yi, vi, x) = five();
        let names = ["intercept".to_string()];
        let tau2 = 0.1;
        let re = uni_fit_columns(&yi, &vi, &x, tau2, 2).unwrap();
        let ee = uni_fit_columns(&yi, &vi, &x, 0.0, 1).unwrap();
        for (a, b) in [(0, 1), (1, 0)] {
            let fits = [
                candidate(Method::Reml, &names, &re, &yi, &vi),
                candidate(Method::Ee, &names, &ee, &yi, &vi),
            ];
            let c = compare(&fits[a], &fits[b]).unwrap();
            assert!(c.reml);
            assert_eq!((c.full, c.reduced), (a, b));
            let lrt = c.lrt.unwrap();
            let want = ee.reml.deviance - re.reml.deviance;
            assert!((lrt.chi2 - want).abs() < 1e-12, "{} vs {want}", lrt.chi2);
            let ml = ee.ml.deviance - re.ml.deviance;
            assert!((lrt.chi2 - ml).abs() > 1e-3, "the ML column gives {ml} too");
        }
        // ML against EE, EE against EE and a non-likelihood estimator as the full model read
        // the ML column.
        let ee_reg_x: Vec<f64> = (0..5).flat_map(|i| [1.0, i as f64]).collect();
        let ee_reg = uni_fit_columns(&yi, &vi, &ee_reg_x, 0.0, 2).unwrap();
        let two = ["intercept".to_string(), "x".to_string()];
        let c = compare(
            &candidate(Method::Ee, &two, &ee_reg, &yi, &vi),
            &candidate(Method::Ee, &names, &ee, &yi, &vi),
        )
        .unwrap();
        assert!(!c.reml);
        let lrt = c.lrt.unwrap();
        assert!((lrt.chi2 - (ee.ml.deviance - ee_reg.ml.deviance)).abs() < 1e-12);
        let ml = uni_fit_columns(&yi, &vi, &x, tau2, 2).unwrap();
        let c = compare(
            &candidate(Method::Ml, &names, &ml, &yi, &vi),
            &candidate(Method::Ee, &names, &ee, &yi, &vi),
        )
        .unwrap();
        assert!(!c.reml);
        assert!((c.lrt.unwrap().chi2 - (ee.ml.deviance - ml.ml.deviance).max(0.0)).abs() < 1e-12);
        let dl = uni_fit_columns(&yi, &vi, &ee_reg_x, tau2, 3).unwrap();
        let c = compare(
            &candidate(Method::Dl, &two, &dl, &yi, &vi),
            &candidate(Method::Reml, &names, &re, &yi, &vi),
        )
        .unwrap();
        assert!(!c.reml && c.lrt.is_none() && c.notes[0].contains("ML/REML"));
        // The same number of parameters: the first fit's column, as fitstats(fit1, fit2).
        let c = compare(
            &candidate(Method::Reml, &names, &re, &yi, &vi),
            &candidate(Method::Dl, &names, &re, &yi, &vi),
        )
        .unwrap();
        assert!(c.reml && c.lrt.is_none());
    }
}
