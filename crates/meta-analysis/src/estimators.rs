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
        Method::Reml => likelihood_root(method, y, v, x, reml_score),
        Method::Ml => likelihood_root(method, y, v, x, ml_score),
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

/// REML estimating equation (Viechtbauer 2005, eq. 8):
/// U(τ²) = ½ [y'PPy − tr(P)], with U'(τ²) = ½ [tr(PP) − 2 y'PPPy].
/// SE: √(2 / tr(PP)) at the estimate (inverse Fisher information).
fn reml_score(fit: &Wls) -> Score {
    let tr_pp = fit.trace_pp();
    Score {
        u: 0.5 * (fit.ypp_y() - fit.trace_p()),
        slope: 0.5 * (tr_pp - 2.0 * fit.yppp_y()),
        se: (2.0 / tr_pp).sqrt(),
        log_lik: -0.5 * (log_det_v(fit) + fit.log_det_xwx() + fit.rss()),
    }
}

/// ML estimating equation (Viechtbauer 2005, eq. 6):
/// U(τ²) = ½ [Σ wᵢ² rᵢ² − Σ wᵢ], with U'(τ²) = ½ [Σ wᵢ² − 2 y'PPPy].
/// SE: √(2 / Σ wᵢ²) at the estimate.
fn ml_score(fit: &Wls) -> Score {
    let sw: f64 = fit.w.iter().sum();
    let sw2: f64 = fit.w.iter().map(|w| w * w).sum();
    Score {
        u: 0.5 * (fit.ypp_y() - sw),
        slope: 0.5 * (sw2 - 2.0 * fit.yppp_y()),
        se: (2.0 / sw2).sqrt(),
        log_lik: -0.5 * (log_det_v(fit) + fit.rss()),
    }
}

/// Σ log(vᵢ + τ²) = −Σ log wᵢ.
fn log_det_v(fit: &Wls) -> f64 {
    -fit.w.iter().map(|w| w.ln()).sum::<f64>()
}

/// A likelihood's estimating equation U(τ²), its derivative, the SE of τ̂² if this
/// were the root, and the log-likelihood up to a constant.
struct Score {
    u: f64,
    slope: f64,
    se: f64,
    log_lik: f64,
}

/// Maximizes a (restricted) likelihood over τ² ≥ 0: τ̂² = 0 when U(0) ≤ 0;
/// otherwise the root of U bracketed between 0 and the first doubling of an upper
/// bound with U < 0, unless the likelihood at τ² = 0 is higher still (a bimodal
/// likelihood; metafor makes the same check).
fn likelihood_root(
    method: Method,
    y: &[f64],
    v: &[f64],
    x: &Design,
    score: fn(&Wls) -> Score,
) -> Result<Tau2, MetaError> {
    let at = |tau2: f64| -> Result<Score, MetaError> {
        let fit = Wls::random_effects(y, v, x, tau2).ok_or_else(|| MetaError::Undefined {
            reason: "the model cannot be fitted: its design matrix is singular".into(),
        })?;
        Ok(score(&fit))
    };
    let zero = at(0.0)?;
    if zero.u <= 0.0 {
        return Ok(Tau2 {
            tau2: 0.0,
            se: Some(zero.se),
            iterations: Some(0),
        });
    }
    let hi = upper_bracket(method, y, |t| at(t).map(|s| s.u))?;
    let root = newton_bracketed(
        |t| {
            at(t)
                .map(|s| (s.u, s.slope))
                .unwrap_or((f64::NAN, f64::NAN))
        },
        0.0,
        hi,
        REL_TOL,
        MAX_ITER,
    )
    .map_err(|e| not_converged(method, e))?;
    let there = at(root.x)?;
    if zero.log_lik > there.log_lik {
        return Ok(Tau2 {
            tau2: 0.0,
            se: Some(zero.se),
            iterations: Some(root.iterations),
        });
    }
    Ok(Tau2 {
        tau2: root.x,
        se: Some(there.se),
        iterations: Some(root.iterations),
    })
}

/// Paule–Mandel: the τ² ≥ 0 at which the generalized Q, y'Py = Σ wᵢ rᵢ², equals k − p;
/// τ̂² = 0 when Q(0) ≤ k − p. Q is decreasing in τ² with dQ/dτ² = −Σ wᵢ² rᵢ².
/// SE (metafor's, shared with its EB estimator): √(2k² / (k − p)) / Σ wᵢ at the estimate.
fn paule_mandel(y: &[f64], v: &[f64], x: &Design) -> Result<Tau2, MetaError> {
    let kp = (y.len() - x.p()) as f64;
    let at = |tau2: f64| -> (f64, f64) {
        match Wls::random_effects(y, v, x, tau2) {
            Some(fit) => (fit.rss() - kp, -fit.ypp_y()),
            None => (f64::NAN, f64::NAN),
        }
    };
    let (f0, _) = at(0.0);
    if f0.is_nan() {
        return Err(MetaError::Undefined {
            reason: "the model cannot be fitted: its design matrix is singular".into(),
        });
    }
    let k = y.len() as f64;
    let se = |tau2: f64| {
        let sw: f64 = v.iter().map(|vi| 1.0 / (vi + tau2)).sum();
        (2.0 * k * k / kp).sqrt() / sw
    };
    if f0 <= 0.0 {
        return Ok(Tau2 {
            tau2: 0.0,
            se: Some(se(0.0)),
            iterations: Some(0),
        });
    }
    let hi = upper_bracket(Method::Pm, y, |t| Ok(at(t).0))?;
    let root = newton_bracketed(at, 0.0, hi, REL_TOL, MAX_ITER)
        .map_err(|e| not_converged(Method::Pm, e))?;
    Ok(Tau2 {
        tau2: root.x,
        se: Some(se(root.x)),
        iterations: Some(root.iterations),
    })
}

/// The first of s, 2s, 4s, … (s from the spread of y) at which the equation is negative.
fn upper_bracket(
    method: Method,
    y: &[f64],
    f: impl Fn(f64) -> Result<f64, MetaError>,
) -> Result<f64, MetaError> {
    let mean = y.iter().sum::<f64>() / y.len() as f64;
    let spread = y.iter().map(|yi| (yi - mean).powi(2)).sum::<f64>();
    let mut hi = if spread > 0.0 { spread } else { 1.0 };
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
        let x = Design::intercept(4);
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
    fn reml_solves_its_score_equation() {
        let y = [0.5, -0.3, 0.9, 0.1, 1.4];
        let v = [0.04, 0.02, 0.08, 0.03, 0.05];
        let x = Design::intercept(5);
        let est = estimate_tau2(Method::Reml, &y, &v, &x).unwrap();
        assert!(est.tau2 > 0.0);
        let u = reml_score(&Wls::random_effects(&y, &v, &x, est.tau2).unwrap()).u;
        assert!(u.abs() < 1e-9, "score at the root: {u}");
    }
}
