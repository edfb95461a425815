//! Estimators of the between-study variance τ², each written as its formula.
//!
//! Notation (as in metafor and `docs/METHODS.md`): k records, p columns of the
//! design X (p = 1 for the intercept-only model), wᵢ = 1/(vᵢ + τ²),
//! P = W − W X (X'WX)⁻¹ X' W, and rᵢ the residuals of the weighted fit.
//! Iterative estimators are solved by [`crate::solver::newton_bracketed`] to a
//! relative change of at most 1e-12 in τ²; the boundary τ² = 0 is taken
//! exactly when the estimating equation is already ≤ 0 there.

use crate::math::ln;
use crate::passes;
use crate::solver::{newton_bracketed, Root, SolveError};
use crate::weighted::{centre, plain_mean_spread, Degenerate, Design, Matrix, Wls};
use std::cell::RefCell;
use std::rc::Rc;

use crate::MetaError;

/// A τ² estimator (serialized by its [`Method::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "UPPERCASE"))]
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
    /// Fixed effects: metafor's other name for [`Method::Ee`] (`method = "FE"`), the same
    /// model and numbers; a result names the method as the call gave it.
    Fe,
}

impl Method {
    pub const ALL: [Method; 8] = [
        Method::Reml,
        Method::Ml,
        Method::Dl,
        Method::He,
        Method::Sj,
        Method::Pm,
        Method::Ee,
        Method::Fe,
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
            Method::Fe => "FE",
        }
    }

    /// Whether τ² is fixed at 0: the equal-effects model, by either of its names (EE, FE).
    pub fn is_equal_effects(self) -> bool {
        matches!(self, Method::Ee | Method::Fe)
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
    estimate_tau2_with(method, &Memo::new(y, v, x))
}

/// [`estimate_tau2`] with the moments it evaluates kept in `memo`, for a caller that needs
/// them again (at τ² = 0 and at the estimate).
pub(crate) fn estimate_tau2_with(method: Method, memo: &Memo) -> Result<Tau2, MetaError> {
    let (y, v, x) = (memo.y, memo.v, memo.x);
    match method {
        Method::Ee | Method::Fe => Ok(Tau2 {
            tau2: 0.0,
            se: None,
            iterations: None,
        }),
        Method::Dl => dersimonian_laird(y, v, x).map_err(Degenerate::error),
        Method::He => hedges(y, v, x).map_err(Degenerate::error),
        Method::Sj => sidik_jonkman(y, v, x),
        Method::Reml => likelihood_root(method, memo, reml_score, reml_se),
        Method::Ml => likelihood_root(method, memo, ml_score, ml_se),
        Method::Pm => paule_mandel(memo),
    }
}

/// DerSimonian–Laird: τ̂² = max(0, (Q − (k − p)) / tr(P₀)) with P₀ at τ² = 0 (W = diag(1/vᵢ)).
/// SE (metafor): √{(2(k−p) + 4τ̃² tr P₀ + 2τ̃⁴ tr P₀²)} / tr P₀ with τ̃² = max(0, τ̂²).
fn dersimonian_laird(y: &[f64], v: &[f64], x: &Design) -> Result<Tau2, Degenerate> {
    let kp = (y.len() - x.p()) as f64;
    let fe = Wls::random_effects(y, v, x, 0.0)?;
    let tr_p = fe.trace_p();
    let raw = (fe.rss() - kp) / tr_p;
    let t = raw.max(0.0);
    let se = (2.0 * kp + 4.0 * t * tr_p + 2.0 * t * t * fe.trace_pp()).sqrt() / tr_p;
    Ok(Tau2 {
        tau2: t,
        se: Some(se),
        iterations: None,
    })
}

/// Hedges: τ̂² = max(0, (RSS − tr(PV)) / (k − p)) with the unweighted projection P = I − X(X'X)⁻¹X'.
/// SE (metafor): √{2 tr(PVPV) + 4τ̃² tr(PV) + 2(k−p)τ̃⁴} / (k − p).
fn hedges(y: &[f64], v: &[f64], x: &Design) -> Result<Tau2, Degenerate> {
    let kp = (y.len() - x.p()) as f64;
    let ols = Wls::new(y, x, vec![1.0; y.len()])?;
    let tr_pv = ols.trace_pv(v);
    let raw = (ols.rss() - tr_pv) / kp;
    let t = raw.max(0.0);
    let se = (2.0 * ols.trace_pvpv(v) + 4.0 * t * tr_pv + 2.0 * kp * t * t).sqrt() / kp;
    Ok(Tau2 {
        tau2: t,
        se: Some(se),
        iterations: None,
    })
}

/// Sidik–Jonkman: from the crude start τ₀² = Σ (yᵢ − ȳ)² / k (the variance of the
/// effects about their plain mean, whatever the moderators: metafor 3.8's start), one step
/// τ̂² = τ₀² · y'P y / (k − p) with weights 1/(vᵢ + τ₀²).
/// SE (metafor): τ₀² √{2 tr(PVPV) + 4τ̂² tr(PVP) + 2τ̂⁴ tr(PP)} / (k − p).
fn sidik_jonkman(y: &[f64], v: &[f64], x: &Design) -> Result<Tau2, MetaError> {
    let k = y.len() as f64;
    let kp = k - x.p() as f64;
    let (_, tau2_0) = plain_mean_spread(y);
    if !tau2_0.is_finite() {
        return Err(MetaError::NonFiniteResult {
            quantity: "Sidik–Jonkman starting value τ₀² (the mean squared residual)",
        });
    }
    let step = Wls::random_effects(y, v, x, tau2_0).map_err(Degenerate::error)?;
    let t = (tau2_0 * step.rss() / kp).max(0.0);
    let se = tau2_0
        * (2.0 * step.trace_pvpv(v) + 4.0 * t * step.trace_pvp(v) + 2.0 * t * t * step.trace_pp())
            .sqrt()
        / kp;
    Ok(Tau2 {
        tau2: t,
        se: Some(se),
        iterations: None,
    })
}

/// The quantities of the estimating equations at one τ², with wᵢ = 1/(vᵢ + τ²):
/// y'Py, y'PPy, y'PPPy, tr(P), tr(PP), Σwᵢ and Σwᵢ², and the first coefficient β̂₀
/// with its variance [(X'WX)⁻¹]₀₀.
#[derive(Debug, Clone)]
pub(crate) struct Moments {
    pub beta0: f64,
    pub var_beta0: f64,
    pub ypy: f64,
    pub yppy: f64,
    pub ypppy: f64,
    pub tr_p: f64,
    pub tr_pp: f64,
    pub sw: f64,
    pub sw2: f64,
    pub log_det_xwx: f64,
    /// For a design with moderators: the whole β̂ and A = (X'WX)⁻¹ (shared, not copied).
    pub wls: Option<Rc<(Vec<f64>, Matrix)>>,
}

impl Moments {
    /// Fails when the weighted fit cannot be formed (see [`Degenerate`]); for the intercept
    /// model nothing is checked here, and a non-finite moment shows in the caller's results.
    pub fn at(y: &[f64], v: &[f64], x: &Design, tau2: f64) -> Result<Moments, Degenerate> {
        if x.is_intercept() {
            return Ok(Moments::intercept(y, v, tau2));
        }
        Moments::general(y, v, x, tau2)
    }

    /// For a general design, the formulas of [`crate::weighted`] by the two fused passes of
    /// [`crate::passes`]: y'PPPy = Σw³r² − (X'W²r)' A (X'W²r), tr P = Σw − tr(A G(w²)),
    /// tr PP = Σw² − 2 tr(A G(w³)) + tr(A G(w²) A G(w²)). O(k p²) time.
    fn general(y: &[f64], v: &[f64], x: &Design, tau2: f64) -> Result<Moments, Degenerate> {
        // On y − c (see [`centre`]); β₀ gets c back once the residual sums are taken.
        let c = x.centre(y, v.iter().map(|vi| -vi));
        let first = passes::first(y, c, v, x.rows(), x.p(), tau2)?;
        let a = first.g1.inverse()?;
        let mut beta = a.times_vec(&first.xwy);
        let second = passes::second(y, c, v, x.rows(), &beta, tau2);
        beta[0] += c;
        let ag2 = a.mul(&first.g2);
        let ag3 = a.mul(&first.g3);
        Ok(Moments {
            beta0: beta[0],
            var_beta0: a.get(0, 0),
            ypy: second.wr2,
            yppy: second.w2r2,
            ypppy: second.w3r2 - a.quad(&second.xw2r),
            tr_p: first.sw - ag2.trace(),
            tr_pp: first.sw2 - 2.0 * ag3.trace() + ag2.mul(&ag2).trace(),
            sw: first.sw,
            sw2: first.sw2,
            log_det_xwx: -ln(a.det()),
            wls: Some(Rc::new((beta, a))),
        })
    }

    /// For X = 1 every quantity is a power sum, computed in two passes without allocating
    /// (r = y − μ̂, μ̂ = Σwy/Σw, both taken about the centre c of [`centre`]):
    /// tr P = Σw − Σw²/Σw, tr PP = Σw² − 2Σw³/Σw + (Σw²/Σw)²,
    /// y'Py = Σwr², y'PPy = Σw²r², y'PPPy = Σw³r² − (Σw²r)²/Σw.
    fn intercept(y: &[f64], v: &[f64], tau2: f64) -> Moments {
        let c = centre(y, v.iter().map(|vi| -vi));
        let (mut sw, mut swy, mut sw2, mut sw3) = (0.0, 0.0, 0.0, 0.0);
        for (yi, vi) in y.iter().zip(v) {
            let w = 1.0 / (vi + tau2);
            let w2 = w * w;
            sw += w;
            swy += w * (yi - c);
            sw2 += w2;
            sw3 += w2 * w;
        }
        let mu = swy / sw;
        let (mut swr2, mut sw2r, mut sw2r2, mut sw3r2) = (0.0, 0.0, 0.0, 0.0);
        for (yi, vi) in y.iter().zip(v) {
            let w = 1.0 / (vi + tau2);
            let r = (yi - c) - mu;
            let wr2 = w * r * r;
            swr2 += wr2;
            sw2r += w * w * r;
            sw2r2 += w * wr2;
            sw3r2 += w * w * wr2;
        }
        let h = sw2 / sw;
        Moments {
            beta0: c + mu,
            var_beta0: 1.0 / sw,
            ypy: swr2,
            yppy: sw2r2,
            ypppy: sw3r2 - sw2r * sw2r / sw,
            tr_p: sw - h,
            tr_pp: sw2 - 2.0 * sw3 / sw + h * h,
            sw,
            sw2,
            log_det_xwx: ln(sw),
            wls: None,
        }
    }
}

/// The moments at the last few τ² evaluated: the solver evaluates the ends of its bracket
/// again, a meta-regression needs those at 0 and at the estimate, and each costs two passes
/// over the records.
pub(crate) struct Memo<'a> {
    y: &'a [f64],
    v: &'a [f64],
    x: &'a Design,
    seen: RefCell<Vec<(f64, Moments)>>,
}

impl<'a> Memo<'a> {
    pub fn new(y: &'a [f64], v: &'a [f64], x: &'a Design) -> Self {
        Memo {
            y,
            v,
            x,
            seen: RefCell::new(Vec::new()),
        }
    }

    /// The moments at τ² (kept: those at 0 always, else the last three).
    pub fn at(&self, tau2: f64) -> Result<Moments, MetaError> {
        if let Some((_, m)) = self.seen.borrow().iter().find(|(t, _)| *t == tau2) {
            return Ok(m.clone());
        }
        let m = Moments::at(self.y, self.v, self.x, tau2).map_err(Degenerate::error)?;
        let mut seen = self.seen.borrow_mut();
        if let Some(oldest) = (seen.len() >= 4)
            .then(|| seen.iter().position(|(t, _)| *t != 0.0))
            .flatten()
        {
            seen.remove(oldest);
        }
        seen.push((tau2, m.clone()));
        Ok(m)
    }
}

/// The (restricted) log-likelihood up to a constant that does not depend on τ²,
/// −½[Σ log(1 + τ²/vᵢ) + y'Py] (REML adds −½ log det X'WX). Needed only at τ² = 0
/// and at the root, to compare the two.
fn log_likelihood(method: Method, v: &[f64], m: &Moments, tau2: f64) -> f64 {
    log_likelihood_from(method, sum_log_1p(v, tau2), m)
}

/// [`log_likelihood`] from a precomputed Σ log(1 + τ²/vᵢ).
pub(crate) fn log_likelihood_from(method: Method, sum_log_1p: f64, m: &Moments) -> f64 {
    let reml_term = if method == Method::Reml {
        m.log_det_xwx
    } else {
        0.0
    };
    -0.5 * (sum_log_1p + reml_term + m.ypy)
}

/// The estimating equation of an iterative estimator of the intercept-only model on `k`
/// records, with its derivative in τ² ([`reml_score`], [`ml_score`], Paule–Mandel's
/// Q − (k − 1) with derivative −y'PPy), and the standard error of τ̂² at the estimate;
/// `None` for the closed-form estimators.
pub(crate) fn intercept_equation(
    method: Method,
    m: &Moments,
    k: usize,
) -> Option<((f64, f64), f64)> {
    let kf = k as f64;
    match method {
        Method::Reml => Some((reml_score(m), reml_se(m))),
        Method::Ml => Some((ml_score(m), ml_se(m))),
        Method::Pm => Some((
            (m.ypy - (kf - 1.0), -m.yppy),
            (2.0 * kf * kf / (kf - 1.0)).sqrt() / m.sw,
        )),
        Method::Ee | Method::Fe | Method::Dl | Method::He | Method::Sj => None,
    }
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
            sum += ln(tau2) - ln(*vi);
            continue;
        }
        if product > 1e150 {
            sum += ln(product);
            product = 1.0;
        }
        product *= 1.0 + ratio;
    }
    sum + ln(product)
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

/// Maximizes a (restricted) likelihood over τ² ≥ 0. Its candidates: τ² = 0; when U(0) > 0,
/// the root of U in a bracket from 0 to an upper bound where U < 0 (see [`upper_bracket`]);
/// and the peak nearest the Hedges estimate, where metafor's Fisher scoring starts (see
/// [`bracket_near_hedges`]). The one of highest likelihood is τ̂² (a likelihood can have
/// several peaks; metafor compares with τ² = 0 too).
fn likelihood_root(
    method: Method,
    memo: &Memo,
    score: fn(&Moments) -> (f64, f64),
    se: fn(&Moments) -> f64,
) -> Result<Tau2, MetaError> {
    let (y, v, x) = (memo.y, memo.v, memo.x);
    let at = |tau2: f64| memo.at(tau2);
    let zero = at(0.0)?;
    let solve = |lo: f64, hi: f64| {
        newton_bracketed(
            |t| at(t).map(|m| score(&m)).unwrap_or((f64::NAN, f64::NAN)),
            lo,
            hi,
            REL_TOL,
            MAX_ITER,
        )
        .map_err(|e| solve_error(method, e))
    };
    let mut peaks = Vec::new();
    // A score that is not finite at 0 goes to the bracket's search, which names it.
    let u0 = score(&zero).0;
    if u0 > 0.0 || u0.is_nan() {
        let hi = upper_bracket(method, y, x, &zero, |t| at(t).map(|m| score(&m).0))?;
        peaks.push(solve(0.0, hi)?);
    }
    if let Some((lo, hi)) = bracket_near_hedges(memo, score) {
        peaks.push(solve(lo, hi)?);
    }
    let loglik = |t: f64| at(t).map(|m| log_likelihood(method, v, &m, t));
    // The first peak found stands unless another, distinct one is higher (the two brackets
    // usually meet the same root, to within the solver's tolerance).
    let mut best: Option<(&Root, f64)> = None;
    for peak in &peaks {
        let l = loglik(peak.x)?;
        let higher = best.is_none_or(|(b, bl)| {
            l > bl && (peak.x - b.x).abs() > 1e-8 * b.x.abs().max(f64::MIN_POSITIVE)
        });
        if higher {
            best = Some((peak, l));
        }
    }
    match best {
        Some((peak, l)) if l >= log_likelihood(method, v, &zero, 0.0) => Ok(Tau2 {
            tau2: peak.x,
            se: Some(se(&at(peak.x)?)),
            iterations: Some(peak.iterations),
        }),
        _ => Ok(Tau2 {
            tau2: 0.0,
            se: Some(se(&zero)),
            iterations: Some(peaks.first().map_or(0, |p| p.iterations)),
        }),
    }
}

/// The bracket [a, b], U(a) > 0 > U(b), of the likelihood's peak nearest the Hedges
/// estimate τ_H², where metafor starts its Fisher scoring: from τ_H², doubling while U > 0,
/// else halving while U ≤ 0 (at most 64 times each way). A likelihood can peak more than
/// once: dat.bcg's meta-regression on `ablat + factor(alloc)` has, under ML, a local maximum
/// at τ² = 0 (ℓ = −7.2088) and the global one at 0.0294 (ℓ = −7.0135); under REML the
/// score is positive at 0, falls below 0 and rises again before the global peak at 0.1446.
/// None when τ_H² = 0 or no sign change is met.
fn bracket_near_hedges(memo: &Memo, score: fn(&Moments) -> (f64, f64)) -> Option<(f64, f64)> {
    let he = hedges(memo.y, memo.v, memo.x).ok()?.tau2;
    let u = |t: f64| {
        memo.at(t)
            .ok()
            .map(|m| score(&m).0)
            .filter(|u| u.is_finite())
    };
    if !(he.is_finite() && he > 0.0) {
        return None;
    }
    let mut t = he;
    if u(t)? > 0.0 {
        for _ in 0..64 {
            let next = 2.0 * t;
            if u(next)? < 0.0 {
                return Some((t, next));
            }
            t = next;
        }
    } else {
        for _ in 0..64 {
            let next = 0.5 * t;
            if u(next)? > 0.0 {
                return Some((next, t));
            }
            t = next;
        }
    }
    None
}

/// Paule–Mandel: the τ² ≥ 0 at which the generalized Q, y'Py = Σ wᵢ rᵢ², equals k − p;
/// τ̂² = 0 when Q(0) ≤ k − p. Q is decreasing in τ² with dQ/dτ² = −y'PPy.
/// SE (metafor's, shared with its EB estimator): √(2k² / (k − p)) / Σ wᵢ at the estimate.
fn paule_mandel(memo: &Memo) -> Result<Tau2, MetaError> {
    let (y, x) = (memo.y, memo.x);
    let kp = (y.len() - x.p()) as f64;
    let k = y.len() as f64;
    let at = |tau2: f64| memo.at(tau2);
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
    .map_err(|e| solve_error(Method::Pm, e))?;
    Ok(Tau2 {
        tau2: root.x,
        se: Some(se(&at(root.x)?)),
        iterations: Some(root.iterations),
    })
}

/// An upper end of the bracket: twice the DerSimonian–Laird estimate (so that the
/// solver's first iterate, the bracket's midpoint, is that estimate), or Σ(yᵢ − ȳ)²/k when
/// DL is 0 (or not finite), doubled until the equation is negative there. `zero` holds the
/// moments at τ² = 0, from which DL = (Q − (k − p)) / tr(P₀).
fn upper_bracket(
    method: Method,
    y: &[f64],
    x: &Design,
    zero: &Moments,
    f: impl Fn(f64) -> Result<f64, MetaError>,
) -> Result<f64, MetaError> {
    let dl = (zero.ypy - (y.len() - x.p()) as f64) / zero.tr_p;
    let (_, spread) = plain_mean_spread(y);
    // The first finite positive candidate: a start that overflowed is skipped, so that a
    // failure below names a τ² at which the equation itself is not finite.
    let mut hi = [2.0 * dl, spread, 1.0]
        .into_iter()
        .find(|h| h.is_finite() && *h > 0.0)
        .unwrap_or(1.0);
    // hi starts at least at the smallest positive double, so 2100 doublings pass f64::MAX:
    // the loop ends on a sign change or on a non-finite value, never by running out.
    for _ in 0..2100 {
        let value = f(hi)?;
        if value < 0.0 {
            return Ok(hi);
        }
        if !value.is_finite() {
            return Err(MetaError::NonFiniteEquation {
                method: method.name(),
                tau2: hi,
            });
        }
        if !(2.0 * hi).is_finite() {
            break;
        }
        hi *= 2.0;
    }
    Err(MetaError::NoBracket {
        method: method.name(),
        upper: hi,
    })
}

/// The solver's reason, told as the estimator's.
fn solve_error(method: Method, e: SolveError) -> MetaError {
    let method = method.name();
    match e {
        SolveError::NotBracketed { hi, .. } => MetaError::NoBracket { method, upper: hi },
        SolveError::NonFiniteValue { x, .. } => MetaError::NonFiniteEquation { method, tau2: x },
        SolveError::IterationLimit { iterations } => MetaError::NotConverged { method, iterations },
        SolveError::Cancelled => MetaError::Cancelled,
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
    fn the_two_pass_moments_agree_with_the_projection() {
        let y = [0.5, -0.3, 0.9, 0.1, 1.4, 0.2, -0.6];
        let v = [0.04, 0.02, 0.08, 0.03, 0.05, 0.01, 0.07];
        let x = Design::intercept_and_columns(vec![
            vec![1.0, 3.0, 2.0, 7.0, 4.0, 0.0, 5.0],
            vec![0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0],
        ]);
        for tau2 in [0.0, 0.013, 0.7] {
            let fast = Moments::general(&y, &v, &x, tau2).unwrap();
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
                (fast.sw, fit.w.iter().sum()),
            ];
            for (i, (a, b)) in pairs.into_iter().enumerate() {
                assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{i}: {a} vs {b}");
            }
        }
        assert_eq!(
            Moments::general(&y, &[0.0; 7], &x, 0.0).unwrap_err(),
            Degenerate::NonFinite
        );
    }

    #[test]
    fn blocked_log_sum_equals_the_plain_sum() {
        let v = [1e-300, 0.04, 3.0, 1e-9, 0.5];
        for tau2 in [0.0f64, 1e-6, 0.3, 1e200] {
            let plain: f64 = v.iter().map(|vi| ln(tau2 + vi) - ln(*vi)).sum();
            let blocked = sum_log_1p(&v, tau2);
            assert!(
                (blocked - plain).abs() <= 1e-13 * plain.abs().max(1.0),
                "{tau2}"
            );
        }
    }

    /// dat.bcg's log risk ratios on `ablat + factor(alloc)`: a likelihood with two peaks
    /// (see [`bracket_near_hedges`]) under ML and REML, the global one inside, where metafor 3.8-1 (Fisher
    /// scoring from the Hedges estimate, threshold 1e-12) finds it: its τ² below (its
    /// log-likelihoods there: −7.0135 ML, −7.3983 REML; at 0 under ML −7.2088). Until the inner peak was looked for, both gave τ̂² = 0.
    #[test]
    // R's sprintf("%.17g"): every digit of each double, as metafor had it.
    #[allow(clippy::excessive_precision)]
    fn a_likelihood_peaking_inside_beyond_a_local_maximum_at_zero_is_maximized_inside() {
        let y = [
            -0.88931133392020545,
            -1.5853886572014306,
            -1.3480731482996933,
            -1.4415511900213054,
            -0.21754732221129558,
            -0.78611558581886398,
            -1.6208982235983918,
            0.011952333523840508,
            -0.4694176487381494,
            -1.3713448034727844,
            -0.33935882833839059,
            0.44591340057137874,
            -0.017313948216879815,
        ];
        let v = [
            0.32558476500396133,
            0.19458112139814385,
            0.41536796536796539,
            0.020010031902247573,
            0.051210172169630863,
            0.0069056184559087574,
            0.22301724757231517,
            0.0039615792978177295,
            0.056434210463248966,
            0.07302479361302891,
            0.01241221397155972,
            0.53250584520015276,
            0.071404659683986293,
        ];
        let ablat = [
            44., 55., 42., 52., 13., 44., 19., 13., 27., 42., 18., 33., 33.,
        ];
        let alloc = "rrrraarrrssss";
        let dummy = |c: char| alloc.chars().map(|a| f64::from(u8::from(a == c))).collect();
        let x = Design::intercept_and_columns(vec![ablat.to_vec(), dummy('r'), dummy('s')]);
        let memo = Memo::new(&y, &v, &x);
        for (method, tau2) in [
            (Method::Ml, 0.0293898694391092),
            (Method::Reml, 0.144594297359287),
        ] {
            let score = if method == Method::Ml {
                ml_score
            } else {
                reml_score
            };
            let est = estimate_tau2(method, &y, &v, &x).unwrap();
            assert!(
                (est.tau2 - tau2).abs() < 1e-7,
                "{method:?}: {} vs {tau2}",
                est.tau2
            );
            // Relative log-likelihoods (no constants): the inner peak is above τ² = 0's.
            let ours = log_likelihood(method, &v, &memo.at(est.tau2).unwrap(), est.tau2);
            let at_zero = log_likelihood(method, &v, &memo.at(0.0).unwrap(), 0.0);
            assert!(
                ours > at_zero,
                "{method:?}: {ours} not above {at_zero} at 0"
            );
            assert!(score(&memo.at(est.tau2).unwrap()).0.abs() < 1e-9);
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

    /// The estimators' own errors, below the input checks that now refuse these records:
    /// each names its real cause (issue 10).
    #[test]
    fn an_overflowing_equation_is_not_called_a_convergence_failure() {
        let x = Design::intercept();
        // vi = 1e-308: Σ1/vᵢ² overflows at τ² = 0. This used to read "did not converge to its
        // root within 0 iterations".
        let y = [0.1, 0.3, -0.1, 0.2];
        let v = [0.01, 0.02, 0.03, 1e-308];
        let e = estimate_tau2(Method::Reml, &y, &v, &x).unwrap_err();
        assert_eq!(
            e,
            MetaError::NonFiniteEquation {
                method: "REML",
                tau2: 0.0
            }
        );
        assert!(
            e.to_string().contains("stopped on a non-finite value"),
            "{e}"
        );
        // yi = ±1e308: the squares overflow while the bracket is sought. This used to read
        // "did not converge to its root within 2100 iterations".
        let y = [1e308, -1e308, 0.1, 0.3];
        let v = [0.01, 0.02, 0.03, 0.04];
        for method in [Method::Reml, Method::Ml, Method::Pm] {
            let e = estimate_tau2(method, &y, &v, &x).unwrap_err();
            assert!(
                matches!(e, MetaError::NonFiniteEquation { .. }),
                "{}: {e}",
                method.name()
            );
            assert!(!e.to_string().contains("iterations"), "{e}");
        }
    }

    #[test]
    fn sidik_jonkman_names_its_overflowing_start_not_a_singular_design() {
        // yi = ±1e200: τ₀² = Σr²/k overflows. This used to read "its design matrix is singular".
        let y = [1e200, -1e200, 0.1, 0.3];
        let v = [0.01, 0.02, 0.03, 0.04];
        let e = estimate_tau2(Method::Sj, &y, &v, &Design::intercept()).unwrap_err();
        assert!(
            matches!(e, MetaError::NonFiniteResult { quantity } if quantity.contains("τ₀²")),
            "{e}"
        );
        assert!(!e.to_string().contains("singular"), "{e}");
    }

    #[test]
    fn each_solver_failure_keeps_its_cause() {
        assert_eq!(
            solve_error(
                Method::Pm,
                SolveError::NotBracketed {
                    lo: 0.0,
                    hi: 8.0,
                    f_lo: 1.0,
                    f_hi: 2.0
                }
            ),
            MetaError::NoBracket {
                method: "PM",
                upper: 8.0
            }
        );
        assert_eq!(
            solve_error(
                Method::Ml,
                SolveError::NonFiniteValue {
                    x: 0.5,
                    iterations: 3
                }
            ),
            MetaError::NonFiniteEquation {
                method: "ML",
                tau2: 0.5
            }
        );
        assert_eq!(
            solve_error(Method::Reml, SolveError::IterationLimit { iterations: 500 }),
            MetaError::NotConverged {
                method: "REML",
                iterations: 500
            }
        );
        let messages = [
            MetaError::NoBracket {
                method: "PM",
                upper: 8.0,
            },
            MetaError::NonFiniteEquation {
                method: "PM",
                tau2: 8.0,
            },
            MetaError::NotConverged {
                method: "PM",
                iterations: 500,
            },
        ]
        .map(|e| e.to_string());
        assert!(
            messages[0].contains("could not be bracketed"),
            "{}",
            messages[0]
        );
        assert!(messages[1].contains("non-finite value"), "{}", messages[1]);
        assert!(
            messages[2].contains("within 500 iterations"),
            "{}",
            messages[2]
        );
    }
}
