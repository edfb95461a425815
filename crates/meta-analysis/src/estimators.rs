//! Estimators of the between-study variance τ², each written as its formula.
//!
//! Notation (as in metafor and `docs/METHODS.md`): k records, p columns of the
//! design X (p = 1 for the intercept-only model), wᵢ = 1/(vᵢ + τ²),
//! P = W − W X (X'WX)⁻¹ X' W, and rᵢ the residuals of the weighted fit.
//! Iterative estimators are solved by [`crate::solver::newton_bracketed`] to a
//! relative change of at most 1e-12 in τ²; the boundary τ² = 0 is taken
//! exactly when the estimating equation is already ≤ 0 there.

use crate::solver::{newton_bracketed, SolveError};
use crate::weighted::{Design, Wls};

use crate::MetaError;

/// A τ² estimator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Method {
    /// Restricted maximum likelihood (Viechtbauer 2005).
    #[default]
    Reml,
    /// Maximum likelihood (Hardy & Thompson 1996; Viechtbauer 2005).
    Ml,
    /// DerSimonian & Laird (1986), the method of moments.
    Dl,
    /// Hedges (1983), the unweighted method of moments ("HE" in metafor).
    He,
    /// Sidik & Jonkman (2005), one step from a crude start.
    Sj,
    /// Paule & Mandel (1982): generalized Q equal to its expectation.
    Pm,
    /// Equal effects: τ² = 0.
    Ee,
}

impl Method {
    pub const ALL: [Method; 7] = [
        Method::Reml,
        Method::Ml,
        Method::Dl,
        Method::He,
        Method::Sj,
        Method::Pm,
        Method::Ee,
    ];

    /// metafor's name of the method.
    pub fn name(self) -> &'static str {
        match self {
            Method::Reml => "REML",
            Method::Ml => "ML",
            Method::Dl => "DL",
            Method::He => "HE",
            Method::Sj => "SJ",
            Method::Pm => "PM",
            Method::Ee => "EE",
        }
    }

    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// An estimate of τ² with its standard error where the method defines one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Tau2 {
    pub tau2: f64,
    pub se: Option<f64>,
    pub iterations: Option<usize>,
}

/// Relative tolerance on τ² of the iterative estimators.
pub(crate) const REL_TOL: f64 = 1e-12;
const MAX_ITER: usize = 500;

pub(crate) fn estimate_tau2(
    method: Method,
    y: &[f64],
    v: &[f64],
    x: &Design,
) -> Result<Tau2, MetaError> {
    let singular = || MetaError::Undefined {
        reason: "the model cannot be fitted: its design matrix is singular".into(),
    };
    match method {
        Method::Ee => Ok(Tau2 {
            tau2: 0.0,
            se: None,
            iterations: None,
        }),
        Method::Dl => dersimonian_laird(y, v, x).ok_or_else(singular),
        Method::He => hedges(y, v, x).ok_or_else(singular),
        Method::Sj => sidik_jonkman(y, v, x).ok_or_else(singular),
        Method::Reml => likelihood_root(method, y, v, x, reml_score, reml_se),
        Method::Ml => likelihood_root(method, y, v, x, ml_score, ml_se),
        Method::Pm => paule_mandel(y, v, x),
    }
}

/// DerSimonian–Laird: τ̂² = max(0, (Q − (k − p)) / tr(P₀)) with P₀ at τ² = 0 (W = diag(1/vᵢ)).
/// SE (metafor): √{(2(k−p) + 4τ̃² tr P₀ + 2τ̃⁴ tr P₀²)} / tr P₀ with τ̃² = max(0, τ̂²).
fn dersimonian_laird(y: &[f64], v: &[f64], x: &Design) -> Option<Tau2> {
    let kp = (y.len() - x.p()) as f64;
    let fe = Wls::random_effects(y, v, x, 0.0)?;
    let tr_p = fe.trace_p();
    let raw = (fe.rss() - kp) / tr_p;
    let t = raw.max(0.0);
    let se = (2.0 * kp + 4.0 * t * tr_p + 2.0 * t * t * fe.trace_pp()).sqrt() / tr_p;
    Some(Tau2 {
        tau2: t,
        se: Some(se),
        iterations: None,
    })
}

/// Hedges: τ̂² = max(0, (RSS − tr(PV)) / (k − p)) with the unweighted projection P = I − X(X'X)⁻¹X'.
/// SE (metafor): √{2 tr(PVPV) + 4τ̃² tr(PV) + 2(k−p)τ̃⁴} / (k − p).
fn hedges(y: &[f64], v: &[f64], x: &Design) -> Option<Tau2> {
    let kp = (y.len() - x.p()) as f64;
    let ols = Wls::new(y, x, vec![1.0; y.len()])?;
    let tr_pv = ols.trace_pv(v);
    let raw = (ols.rss() - tr_pv) / kp;
    let t = raw.max(0.0);
    let se = (2.0 * ols.trace_pvpv(v) + 4.0 * t * tr_pv + 2.0 * kp * t * t).sqrt() / kp;
    Some(Tau2 {
        tau2: t,
        se: Some(se),
        iterations: None,
    })
}

/// Sidik–Jonkman: from the crude start τ₀² = Σ r̃ᵢ² / k (r̃ the OLS residuals),
/// one step τ̂² = τ₀² · y'P y / (k − p) with weights 1/(vᵢ + τ₀²).
/// SE (metafor): τ₀² √{2 tr(PVPV) + 4τ̂² tr(PVP) + 2τ̂⁴ tr(PP)} / (k − p).
fn sidik_jonkman(y: &[f64], v: &[f64], x: &Design) -> Option<Tau2> {
    let k = y.len() as f64;
    let kp = k - x.p() as f64;
    let ols = Wls::new(y, x, vec![1.0; y.len()])?;
    let tau2_0 = ols.r.iter().map(|r| r * r).sum::<f64>() / k;
    let step = Wls::random_effects(y, v, x, tau2_0)?;
    let t = (tau2_0 * step.rss() / kp).max(0.0);
    let se = tau2_0
        * (2.0 * step.trace_pvpv(v) + 4.0 * t * step.trace_pvp(v) + 2.0 * t * t * step.trace_pp())
            .sqrt()
        / kp;
    Some(Tau2 {
        tau2: t,
        se: Some(se),
        iterations: None,
    })
}

/// The quantities of the estimating equations at one τ², with wᵢ = 1/(vᵢ + τ²):
/// y'Py, y'PPy, y'PPPy, tr(P), tr(PP), Σwᵢ and Σwᵢ², and the first coefficient β̂₀
/// with its variance [(X'WX)⁻¹]₀₀.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Moments {
    pub beta0: f64,
    pub var_beta0: f64,
    pub ypy: f64,
    yppy: f64,
    ypppy: f64,
    pub tr_p: f64,
    tr_pp: f64,
    sw: f64,
    sw2: f64,
    log_det_xwx: f64,
}

impl Moments {
    /// `None` when X'WX is singular.
    pub fn at(y: &[f64], v: &[f64], x: &Design, tau2: f64) -> Option<Moments> {
        if x.is_intercept() {
            return Some(Moments::intercept(y, v, tau2));
        }
        let fit = Wls::random_effects(y, v, x, tau2)?;
        Some(Moments {
            beta0: fit.beta[0],
            var_beta0: fit.a.get(0, 0),
            ypy: fit.rss(),
            yppy: fit.ypp_y(),
            ypppy: fit.yppp_y(),
            tr_p: fit.trace_p(),
            tr_pp: fit.trace_pp(),
            sw: fit.w.iter().sum(),
            sw2: fit.w.iter().map(|w| w * w).sum(),
            log_det_xwx: fit.log_det_xwx(),
        })
    }

    /// For X = 1 every quantity is a power sum, computed in two passes without allocating
    /// (r = y − μ̂, μ̂ = Σwy/Σw): tr P = Σw − Σw²/Σw, tr PP = Σw² − 2Σw³/Σw + (Σw²/Σw)²,
    /// y'Py = Σwr², y'PPy = Σw²r², y'PPPy = Σw³r² − (Σw²r)²/Σw.
    fn intercept(y: &[f64], v: &[f64], tau2: f64) -> Moments {
        let (mut sw, mut swy, mut sw2, mut sw3) = (0.0, 0.0, 0.0, 0.0);
        for (yi, vi) in y.iter().zip(v) {
            let w = 1.0 / (vi + tau2);
            let w2 = w * w;
            sw += w;
            swy += w * yi;
            sw2 += w2;
            sw3 += w2 * w;
        }
        let mu = swy / sw;
        let (mut swr2, mut sw2r, mut sw2r2, mut sw3r2) = (0.0, 0.0, 0.0, 0.0);
        for (yi, vi) in y.iter().zip(v) {
            let w = 1.0 / (vi + tau2);
            let r = yi - mu;
            let wr2 = w * r * r;
            swr2 += wr2;
            sw2r += w * w * r;
            sw2r2 += w * wr2;
            sw3r2 += w * w * wr2;
        }
        let h = sw2 / sw;
        Moments {
            beta0: mu,
            var_beta0: 1.0 / sw,
            ypy: swr2,
            yppy: sw2r2,
            ypppy: sw3r2 - sw2r * sw2r / sw,
            tr_p: sw - h,
            tr_pp: sw2 - 2.0 * sw3 / sw + h * h,
            sw,
            sw2,
            log_det_xwx: sw.ln(),
        }
    }
}

/// The (restricted) log-likelihood up to a constant that does not depend on τ²,
/// −½[Σ log(1 + τ²/vᵢ) + y'Py] (REML adds −½ log det X'WX). Needed only at τ² = 0
/// and at the root, to compare the two.
fn log_likelihood(method: Method, v: &[f64], m: &Moments, tau2: f64) -> f64 {
    let reml_term = if method == Method::Reml {
        m.log_det_xwx
    } else {
        0.0
    };
    -0.5 * (sum_log_1p(v, tau2) + reml_term + m.ypy)
}

/// Σ log(1 + τ²/vᵢ), taking one logarithm per block of factors: each factor lies in
/// [1, ∞), and a block's product is logged before it can exceed 1e150.
fn sum_log_1p(v: &[f64], tau2: f64) -> f64 {
    if tau2 == 0.0 {
        return 0.0;
    }
    let (mut sum, mut product) = (0.0, 1.0f64);
    for vi in v {
        let ratio = tau2 / vi;
        if ratio > 1e150 {
            // log(1 + r) = log τ² − log vᵢ to double precision, even where r overflows.
            sum += tau2.ln() - vi.ln();
            continue;
        }
        if product > 1e150 {
            sum += product.ln();
            product = 1.0;
        }
        product *= 1.0 + ratio;
    }
    sum + product.ln()
}

/// REML estimating equation (Viechtbauer 2005, eq. 8):
/// U(τ²) = ½ [y'PPy − tr(P)], with U'(τ²) = ½ [tr(PP) − 2 y'PPPy].
/// SE: √(2 / tr(PP)) at the estimate (inverse Fisher information).
fn reml_score(m: &Moments) -> (f64, f64) {
    (0.5 * (m.yppy - m.tr_p), 0.5 * (m.tr_pp - 2.0 * m.ypppy))
}

fn reml_se(m: &Moments) -> f64 {
    (2.0 / m.tr_pp).sqrt()
}

/// ML estimating equation (Viechtbauer 2005, eq. 6):
/// U(τ²) = ½ [Σ wᵢ² rᵢ² − Σ wᵢ], with U'(τ²) = ½ [Σ wᵢ² − 2 y'PPPy].
/// SE: √(2 / Σ wᵢ²) at the estimate.
fn ml_score(m: &Moments) -> (f64, f64) {
    (0.5 * (m.yppy - m.sw), 0.5 * (m.sw2 - 2.0 * m.ypppy))
}

fn ml_se(m: &Moments) -> f64 {
    (2.0 / m.sw2).sqrt()
}

fn singular_design() -> MetaError {
    MetaError::Undefined {
        reason: "the model cannot be fitted: its design matrix is singular".into(),
    }
}

/// Maximizes a (restricted) likelihood over τ² ≥ 0: τ̂² = 0 when U(0) ≤ 0;
/// otherwise the root of U in a bracket from 0 to an upper bound where U < 0 (see
/// [`upper_bracket`]), unless the likelihood at τ² = 0 is higher still (a bimodal
/// likelihood; metafor makes the same check).
fn likelihood_root(
    method: Method,
    y: &[f64],
    v: &[f64],
    x: &Design,
    score: fn(&Moments) -> (f64, f64),
    se: fn(&Moments) -> f64,
) -> Result<Tau2, MetaError> {
    let at = |tau2: f64| Moments::at(y, v, x, tau2).ok_or_else(singular_design);
    let zero = at(0.0)?;
    if score(&zero).0 <= 0.0 {
        return Ok(Tau2 {
            tau2: 0.0,
            se: Some(se(&zero)),
            iterations: Some(0),
        });
    }
    let hi = upper_bracket(method, y, x, &zero, |t| at(t).map(|m| score(&m).0))?;
    let root = newton_bracketed(
        |t| at(t).map(|m| score(&m)).unwrap_or((f64::NAN, f64::NAN)),
        0.0,
        hi,
        REL_TOL,
        MAX_ITER,
    )
    .map_err(|e| not_converged(method, e))?;
    let there = at(root.x)?;
    if log_likelihood(method, v, &zero, 0.0) > log_likelihood(method, v, &there, root.x) {
        return Ok(Tau2 {
            tau2: 0.0,
            se: Some(se(&zero)),
            iterations: Some(root.iterations),
        });
    }
    Ok(Tau2 {
        tau2: root.x,
        se: Some(se(&there)),
        iterations: Some(root.iterations),
    })
}

/// Paule–Mandel: the τ² ≥ 0 at which the generalized Q, y'Py = Σ wᵢ rᵢ², equals k − p;
/// τ̂² = 0 when Q(0) ≤ k − p. Q is decreasing in τ² with dQ/dτ² = −y'PPy.
/// SE (metafor's, shared with its EB estimator): √(2k² / (k − p)) / Σ wᵢ at the estimate.
fn paule_mandel(y: &[f64], v: &[f64], x: &Design) -> Result<Tau2, MetaError> {
    let kp = (y.len() - x.p()) as f64;
    let k = y.len() as f64;
    let at = |tau2: f64| Moments::at(y, v, x, tau2).ok_or_else(singular_design);
    let equation = |m: &Moments| (m.ypy - kp, -m.yppy);
    let se = |m: &Moments| (2.0 * k * k / kp).sqrt() / m.sw;
    let zero = at(0.0)?;
    if equation(&zero).0 <= 0.0 {
        return Ok(Tau2 {
            tau2: 0.0,
            se: Some(se(&zero)),
            iterations: Some(0),
        });
    }
    let hi = upper_bracket(Method::Pm, y, x, &zero, |t| at(t).map(|m| equation(&m).0))?;
    let root = newton_bracketed(
        |t| at(t).map(|m| equation(&m)).unwrap_or((f64::NAN, f64::NAN)),
        0.0,
        hi,
        REL_TOL,
        MAX_ITER,
    )
    .map_err(|e| not_converged(Method::Pm, e))?;
    Ok(Tau2 {
        tau2: root.x,
        se: Some(se(&at(root.x)?)),
        iterations: Some(root.iterations),
    })
}

/// An upper end of the bracket: twice the DerSimonian–Laird estimate (so that the
/// solver's first iterate, the bracket's midpoint, is that estimate), or Σ(yᵢ − ȳ)²/k when
/// DL is 0, doubled until the equation is negative there. `zero` holds the moments at
/// τ² = 0, from which DL = (Q − (k − p)) / tr(P₀).
fn upper_bracket(
    method: Method,
    y: &[f64],
    x: &Design,
    zero: &Moments,
    f: impl Fn(f64) -> Result<f64, MetaError>,
) -> Result<f64, MetaError> {
    let dl = (zero.ypy - (y.len() - x.p()) as f64) / zero.tr_p;
    let mean = y.iter().sum::<f64>() / y.len() as f64;
    let spread = y.iter().map(|yi| (yi - mean).powi(2)).sum::<f64>() / y.len() as f64;
    let mut hi = if dl > 0.0 {
        2.0 * dl
    } else if spread > 0.0 {
        spread
    } else {
        1.0
    };
    for _ in 0..2100 {
        let value = f(hi)?;
        if value < 0.0 {
            return Ok(hi);
        }
        if !value.is_finite() || !hi.is_finite() {
            break;
        }
        hi *= 2.0;
    }
    Err(MetaError::NotConverged {
        method: method.name(),
        iterations: 2100,
    })
}

fn not_converged(method: Method, e: SolveError) -> MetaError {
    MetaError::NotConverged {
        method: method.name(),
        iterations: match e {
            SolveError::NotConverged { iterations } => iterations,
            SolveError::NotBracketed => 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in Method::ALL {
            assert_eq!(Method::parse(m.name()), Some(m));
        }
        assert_eq!(Method::parse("reml"), None);
    }

    #[test]
    fn homogeneous_data_give_zero_for_every_estimator() {
        let y = [0.1, 0.1, 0.1, 0.1];
        let v = [0.01, 0.02, 0.03, 0.04];
        let x = Design::intercept();
        for m in Method::ALL {
            assert_eq!(
                estimate_tau2(m, &y, &v, &x).unwrap().tau2,
                0.0,
                "{}",
                m.name()
            );
        }
    }

    #[test]
    fn power_sums_agree_with_the_general_projection() {
        let y = [0.5, -0.3, 0.9, 0.1, 1.4];
        let v = [0.04, 0.02, 0.08, 0.03, 0.05];
        let x = Design::intercept();
        for tau2 in [0.0, 0.013, 0.7] {
            let fast = Moments::intercept(&y, &v, tau2);
            let fit = Wls::random_effects(&y, &v, &x, tau2).unwrap();
            let pairs = [
                (fast.beta0, fit.beta[0]),
                (fast.var_beta0, fit.a.get(0, 0)),
                (fast.ypy, fit.rss()),
                (fast.yppy, fit.ypp_y()),
                (fast.ypppy, fit.yppp_y()),
                (fast.tr_p, fit.trace_p()),
                (fast.tr_pp, fit.trace_pp()),
                (fast.log_det_xwx, fit.log_det_xwx()),
            ];
            for (i, (a, b)) in pairs.into_iter().enumerate() {
                assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{i}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn blocked_log_sum_equals_the_plain_sum() {
        let v = [1e-300, 0.04, 3.0, 1e-9, 0.5];
        for tau2 in [0.0f64, 1e-6, 0.3, 1e200] {
            let plain: f64 = v.iter().map(|vi| (tau2 + vi).ln() - vi.ln()).sum();
            let blocked = sum_log_1p(&v, tau2);
            assert!(
                (blocked - plain).abs() <= 1e-13 * plain.abs().max(1.0),
                "{tau2}"
            );
        }
    }

    #[test]
    fn reml_solves_its_score_equation() {
        let y = [0.5, -0.3, 0.9, 0.1, 1.4];
        let v = [0.04, 0.02, 0.08, 0.03, 0.05];
        let x = Design::intercept();
        let est = estimate_tau2(Method::Reml, &y, &v, &x).unwrap();
        assert!(est.tau2 > 0.0);
        let (u, _) = reml_score(&Moments::at(&y, &v, &x, est.tau2).unwrap());
        assert!(u.abs() < 1e-9, "score at the root: {u}");
    }
}
