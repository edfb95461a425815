//! The maximizer of ℓ over the free components in θ = (log σ², atanh ρ, logit ρ for CAR):
//! Newton on the analytic observed Hessian ([`super::hessian`]) wherever it is negative
//! definite, else Fisher scoring (the expected information, [`super::eval`]), step halving
//! whenever ℓ would fall, and components fixed at a bound (a
//! variance at 0, a correlation at ±1, CAR's at 0 or 1) when the iterates run into it with
//! the score pushing outward. It stops where the largest |∂ℓ/∂θ| is below
//! [`GRADIENT_TOL`], or when no step along the direction raises ℓ.

use super::eval::{evaluate, Evaluation};
use super::hessian::evaluate_newton;
use super::{Prepared, GRADIENT_TOL};
use crate::math::{atanh, exp, ln, tanh};
use crate::MetaError;

/// Where the optimizer stopped.
pub(super) struct Run {
    pub values: Vec<f64>,
    pub free: Vec<usize>,
    pub evaluation: Evaluation,
    pub gradient_norm: f64,
    pub iterations: usize,
    /// Components fixed at a bound by the fit, with the bound.
    pub boundary: Vec<(usize, f64)>,
}

const MAX_ITERATIONS: usize = 500;
/// A variance below this fraction of the data's scale, pushed down, is at 0.
const VARIANCE_FLOOR: f64 = 1e-10;
/// A variance below this fraction of the data's scale when the optimizer stops is tried at 0
/// ([`maximize`]).
const SNAP_FLOOR: f64 = 1e-6;
/// A correlation within this of ±1, pushed outward, is at the bound.
const CORRELATION_EDGE: f64 = 1e-9;

/// θ of component `c` at its value `v`: log σ², logit ρ for CAR's ρ, atanh ρ for the
/// other correlations.
pub(super) fn to_theta(prepared: &Prepared, c: usize, v: f64) -> f64 {
    let layout = &prepared.layout;
    if layout.is_variance(c) {
        ln(v)
    } else if layout.correlation_range(c).0 == 0.0 {
        ln(v / (1.0 - v))
    } else {
        atanh(v)
    }
}

/// The value of component `c` at θ = `t` (the inverse of [`to_theta`]).
pub(super) fn from_theta(prepared: &Prepared, c: usize, t: f64) -> f64 {
    let layout = &prepared.layout;
    if layout.is_variance(c) {
        exp(t)
    } else if layout.correlation_range(c).0 == 0.0 {
        1.0 / (1.0 + exp(-t))
    } else {
        tanh(t)
    }
}

/// dv/dθ of component `c` at its value `v`.
pub(super) fn value_slope(prepared: &Prepared, c: usize, v: f64) -> f64 {
    let layout = &prepared.layout;
    if layout.is_variance(c) {
        v
    } else if layout.correlation_range(c).0 == 0.0 {
        v * (1.0 - v)
    } else {
        1.0 - v * v
    }
}

fn theta(prepared: &Prepared, values: &[f64], free: &[usize]) -> Vec<f64> {
    free.iter()
        .map(|&c| to_theta(prepared, c, values[c]))
        .collect()
}

fn set(prepared: &Prepared, values: &mut [f64], free: &[usize], theta: &[f64]) {
    for (&c, &t) in free.iter().zip(theta) {
        values[c] = from_theta(prepared, c, t);
    }
}

fn norm(g: &[f64]) -> f64 {
    g.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// Solves S d = g for symmetric positive definite S (q × q), or None.
fn solve(s: &[f64], g: &[f64]) -> Option<Vec<f64>> {
    let q = g.len();
    let l = super::blocks::cholesky(s, q)?;
    let mut d = g.to_vec();
    super::blocks::solve_in_place(&l, q, &mut d);
    Some(d)
}

/// The ascent direction: Newton's where −H is positive definite, else Fisher scoring's
/// (ridged until it solves), at most 2 in any coordinate.
fn direction(
    prepared: &Prepared,
    e: &Evaluation,
    values: &[f64],
    free: &[usize],
    reml: bool,
) -> Vec<f64> {
    let q = free.len();
    let newton = (e.hessian.len() == q * q)
        .then(|| solve(&e.hessian, &e.gradient))
        .flatten();
    let mut d = newton.unwrap_or_else(|| {
        // The evaluations carry the Hessian, not the information: compute it here.
        let information = if e.information.is_empty() {
            evaluate(prepared, values, free, reml, true)
                .map_or_else(|| vec![0.0; q * q], |x| x.information)
        } else {
            e.information.clone()
        };
        let mut info = information.clone();
        let mut ridge = 0.0;
        loop {
            if let Some(d) = solve(&info, &e.gradient) {
                return d;
            }
            ridge = if ridge == 0.0 { 1e-8 } else { ridge * 10.0 };
            let scale = (0..q)
                .map(|i| information[i * q + i].abs())
                .fold(1e-12, f64::max);
            info = information.clone();
            for i in 0..q {
                info[i * q + i] += ridge * scale;
            }
            if ridge > 1e6 {
                return e.gradient.clone();
            }
        }
    });
    let big = norm(&d);
    if big > 2.0 {
        d.iter_mut().for_each(|x| *x *= 2.0 / big);
    }
    d
}

/// A free component at a bound with the score pushing it outward, with that bound.
fn at_bound(
    prepared: &Prepared,
    values: &[f64],
    free: &[usize],
    gradient: &[f64],
    scale: f64,
) -> Option<(usize, f64)> {
    free.iter().zip(gradient).find_map(|(&c, &g)| {
        let v = values[c];
        if prepared.layout.is_variance(c) {
            return (v < VARIANCE_FLOOR * scale && g <= 0.0).then_some((c, 0.0));
        }
        let (lo, hi) = prepared.layout.correlation_range(c);
        if v < lo + CORRELATION_EDGE && g <= 0.0 {
            Some((c, lo))
        } else if v > hi - CORRELATION_EDGE && g >= 0.0 {
            Some((c, hi))
        } else {
            None
        }
    })
}

fn not_positive_definite() -> MetaError {
    MetaError::Undefined {
        reason: "the marginal covariance is not positive definite at the start values (check V)"
            .into(),
    }
}

/// Maximizes ℓ from `values` over `free`; a variance the optimizer leaves within
/// [`SNAP_FLOOR`] of 0 (where its score in log σ² vanishes whatever its sign, so
/// [`at_bound`] may not see it pushed down: Newton stops there once the gradient is below
/// its tolerance) is then set to 0 and named, and the others refitted, where ℓ there is no
/// lower (to 1e-12 relative); else the first fit stands.
pub(super) fn maximize(
    prepared: &Prepared,
    values: Vec<f64>,
    free: Vec<usize>,
    reml: bool,
    scale: f64,
) -> Result<Run, MetaError> {
    let run = maximize_from(prepared, values, free, reml, scale)?;
    let tiny = run
        .free
        .iter()
        .copied()
        .find(|&c| prepared.layout.is_variance(c) && run.values[c] < SNAP_FLOOR * scale);
    let Some(c) = tiny else {
        return Ok(run);
    };
    let mut at_zero = run.values.clone();
    at_zero[c] = 0.0;
    let rest: Vec<usize> = run.free.iter().copied().filter(|&f| f != c).collect();
    let Ok(mut snapped) = maximize(prepared, at_zero, rest, reml, scale) else {
        return Ok(run);
    };
    let slack = 1e-12 * (1.0 + run.evaluation.loglik.abs());
    if snapped.evaluation.loglik < run.evaluation.loglik - slack {
        return Ok(run);
    }
    let mut boundary = run.boundary;
    boundary.push((c, 0.0));
    boundary.extend(snapped.boundary);
    snapped.boundary = boundary;
    snapped.iterations += run.iterations;
    Ok(snapped)
}

/// [`maximize`]'s Newton iterations from `values` over `free`.
fn maximize_from(
    prepared: &Prepared,
    mut values: Vec<f64>,
    mut free: Vec<usize>,
    reml: bool,
    scale: f64,
) -> Result<Run, MetaError> {
    let mut boundary = Vec::new();
    let mut e =
        evaluate_newton(prepared, &values, &free, reml).ok_or_else(not_positive_definite)?;
    let mut iterations = 0;
    while iterations < MAX_ITERATIONS {
        if let Some((c, bound)) = at_bound(prepared, &values, &free, &e.gradient, scale) {
            values[c] = bound;
            free.retain(|&f| f != c);
            boundary.push((c, bound));
            e = evaluate_newton(prepared, &values, &free, reml)
                .ok_or_else(not_positive_definite)?;
            continue;
        }
        if free.is_empty() || norm(&e.gradient) < GRADIENT_TOL {
            break;
        }
        iterations += 1;
        let d = direction(prepared, &e, &values, &free, reml);
        let t0 = theta(prepared, &values, &free);
        let small = norm(&e.gradient) < 1e-5;
        let mut accepted = None;
        let mut step = 1.0;
        for _ in 0..50 {
            let t: Vec<f64> = t0.iter().zip(&d).map(|(t, d)| t + step * d).collect();
            let mut v = values.clone();
            set(prepared, &mut v, &free, &t);
            // The whole step is usually taken: evaluate it with the Hessian the next
            // direction needs; a halved one without (and again with it once accepted).
            let trial = if step == 1.0 {
                evaluate_newton(prepared, &v, &free, reml)
            } else {
                evaluate(prepared, &v, &free, reml, false)
            };
            if let Some(n) = trial {
                let slack = if small {
                    1e-12 * (1.0 + e.loglik.abs())
                } else {
                    0.0
                };
                if n.loglik > e.loglik - slack
                    && (n.loglik > e.loglik || norm(&n.gradient) < norm(&e.gradient))
                {
                    accepted = Some((v, n));
                    break;
                }
            }
            step /= 2.0;
        }
        match accepted {
            Some((v, n)) => {
                e = if n.hessian.is_empty() {
                    evaluate_newton(prepared, &v, &free, reml).unwrap_or(n)
                } else {
                    n
                };
                values = v;
            }
            None => break,
        }
    }
    let gradient_norm = norm(&e.gradient);
    Ok(Run {
        values,
        free,
        evaluation: e,
        gradient_norm,
        iterations,
        boundary,
    })
}
