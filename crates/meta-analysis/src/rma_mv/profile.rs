//! Profile-likelihood intervals of the components (metafor's `confint` on rma.mv): for each
//! estimated component, the values where ℓ_p(v) = max ℓ over the other components with
//! this one held at v falls χ²₁(level)/2 below the maximum. The profile's derivative is
//! ∂ℓ/∂v at the inner optimum (the envelope theorem), so the bounds are solved by
//! [`crate::solver::newton_bracketed`] to 1e-10 relative. A variance's interval runs from 0
//! (when ℓ_p(0) is above the cut) and is searched up to max(10, 100 v̂) (metafor's
//! `vc.max` rule; beyond it the bound is None); a correlation's within [−1, 1].

use super::optimizer::maximize;
use super::Prepared;
use crate::distributions::chi2_quantile;
use crate::solver::newton_bracketed;

/// A component's interval; None for a bound beyond the search range, or where the profile's
/// fits fail before it falls to the cut.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentCi {
    /// The component's name as metafor prints it (sigma2.1, tau2, rho.2 …).
    pub name: String,
    pub estimate: f64,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
}

/// The profile ℓ at `v` for component `c` and its derivative in v.
fn profile(
    prepared: &Prepared,
    values: &[f64],
    free: &[usize],
    c: usize,
    v: f64,
    reml: bool,
    scale: f64,
) -> (f64, f64) {
    let mut start = values.to_vec();
    start[c] = v;
    let others: Vec<usize> = free.iter().copied().filter(|&f| f != c).collect();
    let Ok(run) = maximize(prepared, start, others, reml, scale) else {
        return (f64::NEG_INFINITY, 0.0);
    };
    // The score of c at the inner optimum, in θ, then in v.
    let mut with_c = run.free.clone();
    with_c.push(c);
    let slope =
        super::eval::evaluate(prepared, &run.values, &with_c, reml, false).map_or(0.0, |e| {
            let g = e.gradient[with_c.len() - 1];
            let dv = super::optimizer::value_slope(prepared, c, v);
            if dv > 0.0 {
                g / dv
            } else {
                0.0
            }
        });
    (run.evaluation.loglik, slope)
}

/// Every estimated component's interval at `level`.
pub(super) fn intervals(
    prepared: &Prepared,
    values: &[f64],
    free: &[usize],
    loglik: f64,
    reml: bool,
    scale: f64,
    level: f64,
) -> Vec<ComponentCi> {
    let cut = loglik - chi2_quantile(level, 1.0) / 2.0;
    let mut out = Vec::new();
    for &c in free {
        let est = values[c];
        let f = |v: f64| {
            let (l, d) = profile(prepared, values, free, c, v, reml, scale);
            (if l.is_finite() { l - cut } else { -1e300 }, d)
        };
        // A root only where the profile crosses the cut: where the inner fits fail (M not
        // positive definite, or the optimizer refuses) before the cut is reached, the bracket
        // closes on that edge instead, and the bound is unknown (metafor prints "<" there).
        let solve = |lo: f64, hi: f64| {
            newton_bracketed(f, lo, hi, 1e-10, 200)
                .ok()
                .map(|r| r.x)
                .filter(|&x| f(x).0.abs() < 1e-6)
        };
        let (edge_lo, edge_hi) = if prepared.layout.is_variance(c) {
            (0.0, 10f64.max(100.0 * est))
        } else {
            prepared.layout.correlation_range(c)
        };
        let lower = if f(edge_lo).0 >= 0.0 {
            Some(edge_lo)
        } else {
            solve(edge_lo, est)
        };
        let upper = if f(edge_hi).0 >= 0.0 {
            (!prepared.layout.is_variance(c)).then_some(edge_hi)
        } else {
            solve(est, edge_hi)
        };
        out.push(ComponentCi {
            name: prepared.layout.name(c),
            estimate: est,
            lower,
            upper,
        });
    }
    out
}
