//! Numerical integration, the engine's one quadrature: tanh-sinh (double-exponential)
//! quadrature over (0, 1), which copes with integrable end-point singularities (Takahasi &
//! Mori 1974; Bailey, Jeyabalan & Li 2005). A statistic that needs an integral writes its
//! integrand and calls [`unit_interval`]; it does not copy the sum.

use crate::math::{exp, ln_1p};

/// A point of (0, 1) as the integrand receives it: t and 1 − t, each with its logarithm,
/// every one computed without cancellation (so 1 − t keeps its digits where t is near 1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct UnitPoint {
    pub t: f64,
    pub one_minus_t: f64,
    pub ln_t: f64,
    pub ln_one_minus_t: f64,
}

/// The step in u (the integrand is summed at u = jh). h = 1/32 meets 40-digit mpmath values of
/// 2F1 as closely as 1/64 did (within 3e-15 over UCOR's arguments), 1/16 does not (5e-10).
const H: f64 = 1.0 / 32.0;
/// |u| ≤ 4.5 = STEPS·h, where t and 1 − t reach about 1e-61.
const STEPS: i32 = 144;

/// One node of the rule: the point and its weight π cosh u.
struct Node {
    point: UnitPoint,
    weight: f64,
}

/// The 289 nodes u = jh, |j| ≤ STEPS: they depend on nothing an integrand gives, so they are
/// computed once, on first use, and an integral costs only its integrand's evaluations.
fn nodes() -> &'static [Node] {
    static NODES: std::sync::OnceLock<Vec<Node>> = std::sync::OnceLock::new();
    NODES.get_or_init(|| {
        (-STEPS..=STEPS)
            .map(|j| {
                let u = f64::from(j) * H;
                let (eu, emu) = (exp(u), exp(-u));
                let s = std::f64::consts::FRAC_PI_2 * (eu - emu) / 2.0;
                let cosh_u = (eu + emu) / 2.0;
                // t = 1/(1 + e^(−2s)), 1 − t = 1/(1 + e^(2s)).
                let ln_t = -ln_1p(exp(-2.0 * s));
                let ln_one_minus_t = -ln_1p(exp(2.0 * s));
                Node {
                    point: UnitPoint {
                        t: exp(ln_t),
                        one_minus_t: exp(ln_one_minus_t),
                        ln_t,
                        ln_one_minus_t,
                    },
                    weight: std::f64::consts::PI * cosh_u,
                }
            })
            .collect()
    })
}

/// ∫₀¹ f(t) dt with t = (1 + tanh(π/2·sinh u))/2, so dt = π cosh u · t(1 − t) du, summed over
/// u = jh for |u| ≤ 4.5 with h = 1/32 (289 evaluations). `f` receives each point and
/// returns f(t)·t(1 − t): the Jacobian's factor t(1 − t) is left to it, which can then fold
/// it into powers of t and 1 − t in logarithms (an integrand like t^(b−1)(1 − t)^(c−b−1)
/// becomes exp(b ln t + (c − b) ln(1 − t))) rather than underflow at the ends. An end-point
/// power t^(α−1) or (1 − t)^(α−1) is integrated to about (1e-61)^α, the mass beyond the
/// truncation: to double precision for α ≥ ¼, to 1e-6 at α = 0.1.
pub(crate) fn unit_interval(f: impl Fn(UnitPoint) -> f64) -> f64 {
    let mut sum = 0.0;
    for node in nodes() {
        sum += node.weight * f(node.point);
    }
    sum * H
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{ln, pow};

    /// f·t(1 − t) as `unit_interval` takes it, from f.
    fn plain(f: impl Fn(f64) -> f64) -> impl Fn(UnitPoint) -> f64 {
        move |p| f(p.t) * p.t * p.one_minus_t
    }

    #[test]
    fn polynomials_and_smooth_functions_to_machine_precision() {
        // Two ulps of 1 (h = 1/32 sums 289 terms: 4.4e-16 for 1, 1.1e-16 for 1/3).
        assert!((unit_interval(plain(|_| 1.0)) - 1.0).abs() <= 5e-16);
        assert!((unit_interval(plain(|t| t * t)) - 1.0 / 3.0).abs() <= 5e-16);
        let e = unit_interval(plain(exp));
        assert!((e - (std::f64::consts::E - 1.0)).abs() <= 1e-15, "{e}");
    }

    #[test]
    fn end_point_singularities_are_integrated() {
        // ∫₀¹ t^(−½) dt = 2 and ∫₀¹ ln t dt = −1, both singular at 0; ∫₀¹ (1 − t)^(−½) = 2.
        let a = unit_interval(|p| exp(0.5 * p.ln_t + p.ln_one_minus_t));
        assert!((a - 2.0).abs() <= 1e-14, "{a}");
        let b = unit_interval(|p| ln(p.t) * p.t * p.one_minus_t);
        assert!((b + 1.0).abs() <= 1e-14, "{b}");
        let c = unit_interval(|p| exp(p.ln_t + 0.5 * p.ln_one_minus_t));
        assert!((c - 2.0).abs() <= 1e-14, "{c}");
        // The truncation's limit: (1 − t)^(α−1) loses about (1e-61)^α, 1e-6 at α = 0.1.
        let d = unit_interval(|p| exp(p.ln_t + 0.1 * p.ln_one_minus_t));
        assert!((d - 10.0).abs() > 1e-7 && (d - 10.0).abs() < 1e-5, "{d}");
        // B(2.5, 0.5) = Γ(2.5)Γ(0.5)/Γ(3) = 3π/8.
        let beta = unit_interval(|p| pow(p.t, 2.5) * pow(p.one_minus_t, 0.5));
        assert!(
            (beta - 3.0 * std::f64::consts::PI / 8.0).abs() <= 1e-14,
            "{beta}"
        );
    }
}
