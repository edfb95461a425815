//! A damped Newton maximiser for small smooth problems with analytic gradient and Hessian,
//! kept apart from the likelihoods it maximises (as `solver.rs` is from the score
//! functions it solves).
//!
//! Each iteration solves (−H + λI) Δ = g by Cholesky: λ = 0 (the Newton step) when −H is
//! positive definite, otherwise the smallest λ of 10⁻⁸·(1 + max|Hᵢᵢ|)·10ʲ that makes it
//! so (Levenberg–Marquardt). A step that lowers the function is retried with a larger λ
//! (at most 60 times). The maximum is accepted when a Newton step (λ = 0) changes no
//! coordinate by more than `rel_tol`·max(1, |xᵢ|): with exact derivatives the error after
//! such a step is of the order of its square.

// Matrix code indexes rows and columns by number, as the formulas do.
#![allow(clippy::needless_range_loop)]

/// The value, gradient and Hessian of the function at a point.
pub(crate) struct Local {
    pub value: f64,
    pub gradient: Vec<f64>,
    pub hessian: Vec<Vec<f64>>,
}

/// Why no maximum was returned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum MaximizeError {
    /// The iteration limit was reached before the tolerance.
    IterationLimit { iterations: usize },
    /// The function, its gradient or Hessian was not finite at an iterate.
    NonFinite { iterations: usize },
    /// No step, however damped, increased the function while the tolerance was not met.
    Stalled { iterations: usize },
    /// The caller gave the computation up ([`crate::cancel`]).
    Cancelled,
}

/// The maximum found and the iterations it took.
pub(crate) struct Maximum {
    pub x: Vec<f64>,
    pub local: Local,
    pub iterations: usize,
}

/// Maximises `f` from `x0`. `f` returns `None` where it is undefined (outside its domain),
/// which is treated as a failed step.
pub(crate) fn maximize<F>(
    f: F,
    x0: Vec<f64>,
    rel_tol: f64,
    max_iter: usize,
) -> Result<Maximum, MaximizeError>
where
    F: Fn(&[f64]) -> Option<Local>,
{
    let finite = |l: &Local| {
        l.value.is_finite()
            && l.gradient.iter().all(|g| g.is_finite())
            && l.hessian.iter().flatten().all(|h| h.is_finite())
    };
    let mut x = x0;
    let mut local = match f(&x) {
        Some(l) if finite(&l) => l,
        _ => return Err(MaximizeError::NonFinite { iterations: 0 }),
    };
    for iteration in 1..=max_iter {
        if crate::cancel::cancelled() {
            return Err(MaximizeError::Cancelled);
        }
        let n = x.len();
        let scale = 1.0
            + (0..n)
                .map(|i| local.hessian[i][i].abs())
                .fold(0.0, f64::max);
        let mut lambda = 0.0;
        let mut accepted = false;
        for _ in 0..60 {
            let Some(step) = damped_step(&local, lambda) else {
                lambda = if lambda == 0.0 {
                    1e-8 * scale
                } else {
                    lambda * 10.0
                };
                continue;
            };
            let newton = lambda == 0.0;
            let small = step
                .iter()
                .zip(&x)
                .all(|(d, xi)| d.abs() <= rel_tol * xi.abs().max(1.0));
            let trial: Vec<f64> = x.iter().zip(&step).map(|(a, d)| a + d).collect();
            match f(&trial) {
                Some(l) if finite(&l) && l.value >= local.value - 1e-13 * local.value.abs() => {
                    x = trial;
                    local = l;
                    if newton && small {
                        return Ok(Maximum {
                            x,
                            local,
                            iterations: iteration,
                        });
                    }
                    accepted = true;
                    break;
                }
                _ => {
                    if newton && small {
                        // The Newton step is below the tolerance and rounding alone keeps
                        // it from increasing the function: the current point is the maximum.
                        return Ok(Maximum {
                            x,
                            local,
                            iterations: iteration,
                        });
                    }
                    lambda = if lambda == 0.0 {
                        1e-8 * scale
                    } else {
                        lambda * 10.0
                    };
                }
            }
        }
        if !accepted {
            return Err(MaximizeError::Stalled {
                iterations: iteration,
            });
        }
    }
    Err(MaximizeError::IterationLimit {
        iterations: max_iter,
    })
}

/// Δ solving (−H + λI) Δ = g, or `None` when −H + λI is not positive definite.
fn damped_step(local: &Local, lambda: f64) -> Option<Vec<f64>> {
    let n = local.gradient.len();
    let a: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| -local.hessian[i][j] + if i == j { lambda } else { 0.0 })
                .collect()
        })
        .collect();
    cholesky_solve(&a, &local.gradient)
}

/// The lower Cholesky factor of a symmetric positive definite `a`, or `None`.
pub(crate) fn cholesky(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i][j];
            for k in 0..j {
                s -= l[i][k] * l[j][k];
            }
            if i == j {
                if s.is_nan() || s <= 0.0 {
                    return None;
                }
                l[i][i] = s.sqrt();
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    Some(l)
}

/// x solving a x = b for symmetric positive definite `a`, or `None`.
pub(crate) fn cholesky_solve(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let l = cholesky(a)?;
    let n = b.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i][k] * y[k]).sum();
        y[i] = (b[i] - s) / l[i][i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k][i] * x[k]).sum();
        x[i] = (y[i] - s) / l[i][i];
    }
    Some(x)
}

/// The inverse of a symmetric positive definite `a`, or `None`.
pub(crate) fn spd_inverse(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inverse = vec![vec![0.0; n]; n];
    for j in 0..n {
        let e: Vec<f64> = (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
        let column = cholesky_solve(a, &e)?;
        for i in 0..n {
            inverse[i][j] = column[i];
        }
    }
    Some(inverse)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::powi;

    /// −(x − 1)⁴ − (y + 2)² − x·y/10: not quadratic, with a flat direction at the start.
    fn f(p: &[f64]) -> Option<Local> {
        let (x, y) = (p[0], p[1]);
        Some(Local {
            value: -powi(x - 1.0, 4) - powi(y + 2.0, 2) - x * y / 10.0,
            gradient: vec![
                -4.0 * powi(x - 1.0, 3) - y / 10.0,
                -2.0 * (y + 2.0) - x / 10.0,
            ],
            hessian: vec![vec![-12.0 * powi(x - 1.0, 2), -0.1], vec![-0.1, -2.0]],
        })
    }

    #[test]
    fn finds_the_maximum_to_the_tolerance() {
        let m = maximize(f, vec![1.0, 0.0], 1e-12, 200).unwrap();
        assert!(
            m.local.gradient.iter().all(|g| g.abs() < 1e-12),
            "{:?}",
            m.local.gradient
        );
        assert!(m.iterations < 200);
    }

    #[test]
    fn an_unbounded_function_reaches_the_limit() {
        let up = |p: &[f64]| {
            Some(Local {
                value: p[0],
                gradient: vec![1.0],
                hessian: vec![vec![0.0]],
            })
        };
        assert!(matches!(
            maximize(up, vec![0.0], 1e-12, 30),
            Err(MaximizeError::IterationLimit { iterations: 30 })
        ));
        let undefined = |_: &[f64]| None;
        assert!(matches!(
            maximize(undefined, vec![0.0], 1e-12, 30),
            Err(MaximizeError::NonFinite { iterations: 0 })
        ));
    }

    #[test]
    fn inverts_a_positive_definite_matrix() {
        let a = vec![vec![4.0, 1.0], vec![1.0, 3.0]];
        let inv = spd_inverse(&a).unwrap();
        assert!((inv[0][0] - 3.0 / 11.0).abs() < 1e-15);
        assert!((inv[0][1] + 1.0 / 11.0).abs() < 1e-15);
        assert!(spd_inverse(&[vec![1.0, 2.0], vec![2.0, 1.0]]).is_none());
    }
}
