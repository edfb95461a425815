//! The engine's root finders, kept apart from the functions they solve: a safeguarded
//! Newton root finder ([`newton_bracketed`]) where the derivative is at hand, and bisection
//! ([`bisect`]) where it is not. A statistic calls one of these; it does not write its own
//! loop.
//!
//! The method is Newton–Raphson inside a bracket that always contains a sign
//! change (Press et al., *Numerical Recipes*, §9.4 `rtsafe`): a Newton step
//! that would leave the bracket, or that does not at least halve the step of
//! two iterations ago, is replaced by bisection. The root is accepted when the
//! step is at most `rel_tol·|x|` (plus a few ulps, below which no double can
//! move), when the function is exactly zero, or when the bracket has shrunk to
//! that width.

use std::fmt;

/// A root and how many iterations it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Root {
    pub x: f64,
    pub iterations: usize,
}

/// Why no root was returned: three distinct causes, each with what was seen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SolveError {
    /// `f(lo)` and `f(hi)` are finite and have the same sign, so no root is known to lie
    /// between them and none was searched for.
    NotBracketed {
        lo: f64,
        hi: f64,
        f_lo: f64,
        f_hi: f64,
    },
    /// `f` returned NaN or ±∞ (typically an overflow) at `x`, after `iterations` iterations
    /// (0: at an end of the bracket).
    NonFiniteValue { x: f64, iterations: usize },
    /// The iteration limit was reached before the tolerance.
    IterationLimit { iterations: usize },
    /// The caller gave the computation up ([`crate::cancel`]).
    Cancelled,
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::NotBracketed { lo, hi, f_lo, f_hi } => write!(
                f,
                "the root could not be bracketed: f({lo}) = {f_lo} and f({hi}) = {f_hi} have \
                 the same sign"
            ),
            SolveError::NonFiniteValue { x, iterations } => write!(
                f,
                "the function is not a finite number at x = {x} (after {iterations} \
                 iterations), for example because a sum overflowed"
            ),
            SolveError::IterationLimit { iterations } => write!(
                f,
                "no root within the tolerance after {iterations} iterations"
            ),
            SolveError::Cancelled => write!(f, "the search was given up by its caller"),
        }
    }
}

impl std::error::Error for SolveError {}

/// Finds x in `[lo, hi]` with `f(x) = 0`, where `f` returns `(f(x), f'(x))` and
/// `f(lo)`, `f(hi)` differ in sign.
pub fn newton_bracketed<F>(
    f: F,
    lo: f64,
    hi: f64,
    rel_tol: f64,
    max_iter: usize,
) -> Result<Root, SolveError>
where
    F: Fn(f64) -> (f64, f64),
{
    let (f_lo, _) = f(lo);
    if !f_lo.is_finite() {
        return Err(SolveError::NonFiniteValue {
            x: lo,
            iterations: 0,
        });
    }
    let (f_hi, _) = f(hi);
    if !f_hi.is_finite() {
        return Err(SolveError::NonFiniteValue {
            x: hi,
            iterations: 0,
        });
    }
    if f_lo == 0.0 {
        return Ok(Root {
            x: lo,
            iterations: 0,
        });
    }
    if f_hi == 0.0 {
        return Ok(Root {
            x: hi,
            iterations: 0,
        });
    }
    if f_lo.signum() == f_hi.signum() {
        return Err(SolveError::NotBracketed { lo, hi, f_lo, f_hi });
    }
    // Orient so that f(neg) < 0 < f(pos).
    let (mut neg, mut pos) = if f_lo < 0.0 { (lo, hi) } else { (hi, lo) };
    let mut x = 0.5 * (lo + hi);
    let mut step_before_last = (hi - lo).abs();
    let mut last_step = step_before_last;
    for iteration in 1..=max_iter {
        if crate::cancel::cancelled() {
            return Err(SolveError::Cancelled);
        }
        let (fx, dfx) = f(x);
        if fx == 0.0 {
            return Ok(Root {
                x,
                iterations: iteration,
            });
        }
        if !fx.is_finite() {
            return Err(SolveError::NonFiniteValue {
                x,
                iterations: iteration,
            });
        }
        if fx < 0.0 {
            neg = x;
        } else {
            pos = x;
        }
        let newton = x - fx / dfx;
        let (a, b) = (neg.min(pos), neg.max(pos));
        let newton_ok = dfx != 0.0
            && newton.is_finite()
            && newton > a
            && newton < b
            && (fx / dfx).abs() * 2.0 <= step_before_last.abs();
        step_before_last = last_step;
        let next = if newton_ok { newton } else { 0.5 * (neg + pos) };
        last_step = next - x;
        x = next;
        let tol = rel_tol * x.abs() + 4.0 * f64::EPSILON * x.abs() + f64::MIN_POSITIVE;
        if last_step.abs() <= tol || (pos - neg).abs() <= tol {
            return Ok(Root {
                x,
                iterations: iteration,
            });
        }
    }
    Err(SolveError::IterationLimit {
        iterations: max_iter,
    })
}

/// The root of `f` in [lo, hi] by bisection, the derivative-free root finder: `f` is
/// negative left of the root and not negative from it on (an increasing function; pass
/// x ↦ −f(x) for a decreasing one). The bracket [x₀, x₁] halves at its midpoint
/// x₀ + (x₁ − x₀)/2 until no double lies strictly between its ends or after
/// `max_iterations` halvings, and the root is the last midpoint. Each step gains one bit,
/// so a bracket within one binade reaches adjacent doubles in about 53 steps (Press et al.,
/// *Numerical Recipes*, §9.1). A NaN of `f` counts as not negative.
pub fn bisect(f: impl Fn(f64) -> f64, lo: f64, hi: f64, max_iterations: usize) -> f64 {
    let (mut x0, mut x1) = (lo, hi);
    for _ in 0..max_iterations {
        let mid = x0 + (x1 - x0) / 2.0;
        if mid <= x0 || mid >= x1 {
            break;
        }
        if f(mid) < 0.0 {
            x0 = mid;
        } else {
            x1 = mid;
        }
    }
    x0 + (x1 - x0) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bisection_reaches_adjacent_doubles() {
        let root = bisect(|x| x * x - 2.0, 0.0, 2.0, 200);
        assert!((root - std::f64::consts::SQRT_2).abs() <= 2.0 * f64::EPSILON);
        // A decreasing function, negated; a step function's jump.
        let root = bisect(|x| -(1.0 - x), 0.0, 4.0, 200);
        assert!((root - 1.0).abs() <= f64::EPSILON);
        let jump = bisect(|x| if x < 0.3 { -1.0 } else { 1.0 }, 0.0, 1.0, 200);
        assert!((jump - 0.3).abs() <= f64::EPSILON);
        // The iteration cap bounds the work: 10 halvings of [0, 1] leave a bracket of 2⁻¹⁰.
        let rough = bisect(|x| x - 0.7, 0.0, 1.0, 10);
        assert!((rough - 0.7).abs() <= 1.0 / 1024.0 && (rough - 0.7).abs() > 1e-6);
    }

    #[test]
    fn finds_square_root_of_two_to_full_precision() {
        let root = newton_bracketed(|x| (x * x - 2.0, 2.0 * x), 0.0, 10.0, 1e-15, 100).unwrap();
        assert!((root.x - std::f64::consts::SQRT_2).abs() <= 2.0 * f64::EPSILON);
    }

    #[test]
    fn falls_back_to_bisection_where_newton_misleads() {
        // f'(x) is wrong on purpose: Newton alone would wander; bisection keeps the bracket.
        let root = newton_bracketed(|x| (x * x * x - 0.5, 1e-9), 0.0, 1.0, 1e-14, 200).unwrap();
        assert!((root.x - crate::math::cbrt(0.5)).abs() < 1e-13);
    }

    #[test]
    fn decreasing_function_is_handled() {
        let root = newton_bracketed(|x| (1.0 - x, -1.0), 0.0, 5.0, 1e-14, 100).unwrap();
        assert!((root.x - 1.0).abs() < 1e-14);
    }

    #[test]
    fn a_function_without_a_sign_change_is_not_bracketed() {
        // x² + 1 > 0 everywhere: there is no root to bracket.
        let e = newton_bracketed(|x| (x * x + 1.0, 2.0 * x), -1.0, 1.0, 1e-12, 50).unwrap_err();
        assert_eq!(
            e,
            SolveError::NotBracketed {
                lo: -1.0,
                hi: 1.0,
                f_lo: 2.0,
                f_hi: 2.0
            }
        );
        assert!(e.to_string().contains("could not be bracketed"), "{e}");
    }

    #[test]
    fn a_function_returning_nan_is_reported_as_such() {
        // Finite with a sign change at the ends, NaN inside: not an iteration limit, not a
        // missing bracket.
        let nan_inside = |x: f64| {
            if x > 0.25 && x < 0.75 {
                (f64::NAN, f64::NAN)
            } else {
                (x - 0.6, 1.0)
            }
        };
        let e = newton_bracketed(nan_inside, 0.0, 1.0, 1e-12, 50).unwrap_err();
        assert_eq!(
            e,
            SolveError::NonFiniteValue {
                x: 0.5,
                iterations: 1
            }
        );
        assert!(
            e.to_string().contains("not a finite number at x = 0.5"),
            "{e}"
        );
        // NaN (or an overflow to ∞) at an end of the bracket: reported at that end.
        assert_eq!(
            newton_bracketed(|x| (x.sqrt() - 1.0, 0.5 / x.sqrt()), -1.0, 4.0, 1e-12, 50),
            Err(SolveError::NonFiniteValue {
                x: -1.0,
                iterations: 0
            })
        );
        assert_eq!(
            newton_bracketed(|x| (1e300 * x - 1.0, 1e300), 0.0, 1e10, 1e-12, 50),
            Err(SolveError::NonFiniteValue {
                x: 1e10,
                iterations: 0
            })
        );
    }

    #[test]
    fn reports_the_iteration_limit() {
        let e = newton_bracketed(|x| (x - 0.3, 1.0e-30), 0.0, 1.0, 1e-15, 3).unwrap_err();
        assert_eq!(e, SolveError::IterationLimit { iterations: 3 });
        assert_eq!(
            e.to_string(),
            "no root within the tolerance after 3 iterations"
        );
    }
}
