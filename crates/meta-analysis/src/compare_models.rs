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
//! A fit's statistics are read on its own scale (REML for a REML fit, else ML, as metafor's
//! `fitstats()` prints them), with `parms` = p plus the variance components estimated:
//! deviance −2ℓ under REML and −2(ℓ − ℓ_sat) under ML with ℓ_sat = −½ Σ log(2π vᵢ) (0 when
//! k ≤ p); AIC = −2ℓ + 2 parms; BIC = −2ℓ + parms log n; AICc = −2ℓ + 2 parms ·
//! max(n, parms + 2)/(max(n, parms + 2) − parms − 1), with n = k under ML and k − p under REML.
//!
//! The likelihood-ratio test: LRT = dev_reduced − dev_full (0 when negative) on
//! parms_full − parms_reduced df, χ² upper tail. metafor's refusals are kept (different
//! outcomes or variances, ML against REML, a full equal-effects model against a random
//! reduced one) and where metafor only warns (REML fits with different fixed effects,
//! estimators other than ML and REML) or says nothing (models that are not nested) no LRT is
//! given and a note says why.

use crate::distributions::{chi2_sf, f_sf};
use crate::{MetaError, Method};

/// A fit's log-likelihood and information criteria, on its own scale.
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
    pub stats: &'a FitStatistics,
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
/// parameters), the likelihood-ratio test when it is meaningful, and notes on why not.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub full: usize,
    pub reduced: usize,
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

/// metafor's `anova(a, b)`: the refusals, the full model, nesting and the LRT.
pub fn compare(a: &Candidate, b: &Candidate) -> Result<Comparison, MetaError> {
    if a.yi != b.yi || a.vi != b.vi {
        return Err(refused(
            "Observed outcomes and/or sampling variances not equal in the full and reduced \
             model (metafor's anova()): compare fits of the same records (check exclude and \
             records left out for missing moderator values)",
        ));
    }
    let (full, reduced) = if a.stats.parms >= b.stats.parms {
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
        && a.stats.parms != b.stats.parms;
    let mut notes = Vec::new();
    let likelihood = |m: Method| matches!(m, Method::Ml | Method::Reml) || equal_effects(m);
    if a.stats.parms == b.stats.parms {
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
    let lrt = notes.is_empty().then(|| {
        let chi2 = (r.stats.deviance - f.stats.deviance).max(0.0);
        let df = f.stats.parms - r.stats.parms;
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

    #[test]
    fn different_data_and_ml_against_reml_are_refused() {
        let names = ["intercept".to_string()];
        let s1 = fit_statistics(-1.0, false, &[0.1, 0.1, 0.1], 1, 2);
        let s2 = fit_statistics(-2.0, false, &[0.1, 0.1, 0.1], 1, 1);
        let base = Candidate {
            method: Method::Ml,
            random: RandomPart::Tau2,
            coefficients: &names,
            stats: &s1,
            yi: &[1.0, 2.0, 3.0],
            vi: &[0.1, 0.1, 0.1],
        };
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
        let ee = Candidate {
            stats: &s2,
            method: Method::Ee,
            random: RandomPart::None,
            ..base.clone()
        };
        let c = compare(&base, &ee).unwrap();
        assert_eq!((c.full, c.reduced), (0, 1));
        let lrt = c.lrt.unwrap();
        assert_eq!(lrt.df, 1);
        assert!((lrt.chi2 - (s2.deviance - s1.deviance)).abs() < 1e-15);
    }
}
