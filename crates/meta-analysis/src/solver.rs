//! A safeguarded Newton root finder, kept apart from the score functions it solves.
//!
//! The method is Newton–Raphson inside a bracket that always contains a sign
//! change (Press et al., *Numerical Recipes*, §9.4 `rtsafe`): a Newton step
//! that would leave the bracket, or that does not at least halve the step of
//! two iterations ago, is replaced by bisection. The root is accepted when the
//! step is at most `rel_tol·|x|` (plus a few ulps, below which no double can
//! move), when the function is exactly zero, or when the bracket has shrunk to
//! that width.

/// A root and how many iterations it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Root {
    pub x: f64,
    pub iterations: usize,
}

/// Why no root was returned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SolveError {
    /// `f(lo)` and `f(hi)` have the same sign (or one is not finite).
    NotBracketed,
    /// The iteration limit was reached before the tolerance.
    NotConverged { iterations: usize },
}

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
    let (f_hi, _) = f(hi);
    if !(f_lo.is_finite() && f_hi.is_finite()) {
        return Err(SolveError::NotBracketed);
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
        return Err(SolveError::NotBracketed);
    }
    // Orient so that f(neg) < 0 < f(pos).
    let (mut neg, mut pos) = if f_lo < 0.0 { (lo, hi) } else { (hi, lo) };
    let mut x = 0.5 * (lo + hi);
    let mut step_before_last = (hi - lo).abs();
    let mut last_step = step_before_last;
    for iteration in 1..=max_iter {
        let (fx, dfx) = f(x);
        if fx == 0.0 {
            return Ok(Root {
                x,
                iterations: iteration,
            });
        }
        if !fx.is_finite() {
            return Err(SolveError::NotConverged {
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
    Err(SolveError::NotConverged {
        iterations: max_iter,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_square_root_of_two_to_full_precision() {
        let root = newton_bracketed(|x| (x * x - 2.0, 2.0 * x), 0.0, 10.0, 1e-15, 100).unwrap();
        assert!((root.x - std::f64::consts::SQRT_2).abs() <= 2.0 * f64::EPSILON);
    }

    #[test]
    fn falls_back_to_bisection_where_newton_misleads() {
        // f'(x) is wrong on purpose: Newton alone would wander; bisection keeps the bracket.
        let root = newton_bracketed(|x| (x.powi(3) - 0.5, 1e-9), 0.0, 1.0, 1e-14, 200).unwrap();
        assert!((root.x - 0.5f64.cbrt()).abs() < 1e-13);
    }

    #[test]
    fn decreasing_function_is_handled() {
        let root = newton_bracketed(|x| (1.0 - x, -1.0), 0.0, 5.0, 1e-14, 100).unwrap();
        assert!((root.x - 1.0).abs() < 1e-14);
    }

    #[test]
    fn reports_missing_bracket_and_iteration_limit() {
        assert_eq!(
            newton_bracketed(|x| (x * x + 1.0, 2.0 * x), -1.0, 1.0, 1e-12, 50),
            Err(SolveError::NotBracketed)
        );
        assert!(matches!(
            newton_bracketed(|x| (x - 0.3, 1.0e-30), 0.0, 1.0, 1e-15, 3),
            Err(SolveError::NotConverged { iterations: 3 })
        ));
    }
}
