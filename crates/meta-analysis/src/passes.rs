//! The two passes over the records that one evaluation of a general design needs, fused:
//! the first accumulates G(w), G(w²), G(w³) and X'Wy (w = 1/(v + τ²)), the second the
//! residual sums Σwr², Σw²r², Σw³r² and X'W²r. O(k p²) time, no allocation proportional to k.
//!
//! Both passes read y − c for a centre c (one of the yᵢ, see
//! [`crate::weighted::centre`]), so that β and the residuals are computed at the scale of
//! the effects' spread, not of their size: β₀ here is the intercept minus c.
//!
//! The design is read row by row from its row-major copy; for p ≤ 6 the row length
//! is a compile-time constant, so the loops over a row unroll (several times faster at p = 5
//! than the same loops over a run-time length, which remain for larger designs).

use crate::weighted::{Degenerate, Matrix};

/// The sums of the first pass.
pub(crate) struct First {
    pub g1: Matrix,
    pub g2: Matrix,
    pub g3: Matrix,
    pub xwy: Vec<f64>,
    pub sw: f64,
    pub sw2: f64,
}

/// The sums of the second pass, with r = y − Xβ.
pub(crate) struct Second {
    pub wr2: f64,
    pub w2r2: f64,
    pub w3r2: f64,
    pub xw2r: Vec<f64>,
}

/// The first pass over `rows` (row-major, p per row), on y − c. Fails when a weight is not
/// a finite positive number.
pub(crate) fn first(
    y: &[f64],
    c: f64,
    v: &[f64],
    rows: &[f64],
    p: usize,
    tau2: f64,
) -> Result<First, Degenerate> {
    match p {
        2 => first_n::<2>(y, c, v, rows.as_chunks().0, tau2),
        3 => first_n::<3>(y, c, v, rows.as_chunks().0, tau2),
        4 => first_n::<4>(y, c, v, rows.as_chunks().0, tau2),
        5 => first_n::<5>(y, c, v, rows.as_chunks().0, tau2),
        6 => first_n::<6>(y, c, v, rows.as_chunks().0, tau2),
        _ => first_any(y, c, v, rows, p, tau2),
    }
}

/// The second pass on y − c, given the β of y − c.
pub(crate) fn second(
    y: &[f64],
    c: f64,
    v: &[f64],
    rows: &[f64],
    beta: &[f64],
    tau2: f64,
) -> Second {
    match beta.len() {
        2 => second_n::<2>(y, c, v, rows.as_chunks().0, beta, tau2),
        3 => second_n::<3>(y, c, v, rows.as_chunks().0, beta, tau2),
        4 => second_n::<4>(y, c, v, rows.as_chunks().0, beta, tau2),
        5 => second_n::<5>(y, c, v, rows.as_chunks().0, beta, tau2),
        6 => second_n::<6>(y, c, v, rows.as_chunks().0, beta, tau2),
        _ => second_any(y, c, v, rows, beta, tau2),
    }
}

fn weight(vi: f64, tau2: f64) -> Result<f64, Degenerate> {
    let w = 1.0 / (vi + tau2);
    if w.is_finite() && w > 0.0 {
        Ok(w)
    } else {
        Err(Degenerate::NonFinite)
    }
}

/// The symmetric matrix whose upper triangle is `upper` (row-major, p × p).
fn symmetric(upper: &[f64], p: usize) -> Matrix {
    let mut m = Matrix::zeros(p);
    for a in 0..p {
        for b in a..p {
            m.set(a, b, upper[a * p + b]);
            m.set(b, a, upper[a * p + b]);
        }
    }
    m
}

fn first_n<const N: usize>(
    y: &[f64],
    c: f64,
    v: &[f64],
    rows: &[[f64; N]],
    tau2: f64,
) -> Result<First, Degenerate> {
    let (mut g1, mut g2, mut g3) = ([[0.0; N]; N], [[0.0; N]; N], [[0.0; N]; N]);
    let mut xwy = [0.0; N];
    let (mut sw, mut sw2) = (0.0, 0.0);
    for ((yi, vi), x) in y.iter().zip(v).zip(rows) {
        let w = weight(*vi, tau2)?;
        let w2 = w * w;
        sw += w;
        sw2 += w2;
        for a in 0..N {
            let wxa = w * x[a];
            xwy[a] += wxa * (yi - c);
            for b in a..N {
                let t = wxa * x[b];
                g1[a][b] += t;
                g2[a][b] += t * w;
                g3[a][b] += t * w2;
            }
        }
    }
    let flat = |g: [[f64; N]; N]| symmetric(g.as_flattened(), N);
    Ok(First {
        g1: flat(g1),
        g2: flat(g2),
        g3: flat(g3),
        xwy: xwy.to_vec(),
        sw,
        sw2,
    })
}

fn first_any(
    y: &[f64],
    c: f64,
    v: &[f64],
    rows: &[f64],
    p: usize,
    tau2: f64,
) -> Result<First, Degenerate> {
    let (mut g1, mut g2, mut g3) = (vec![0.0; p * p], vec![0.0; p * p], vec![0.0; p * p]);
    let mut xwy = vec![0.0; p];
    let (mut sw, mut sw2) = (0.0, 0.0);
    for ((yi, vi), x) in y.iter().zip(v).zip(rows.chunks_exact(p)) {
        let w = weight(*vi, tau2)?;
        let w2 = w * w;
        sw += w;
        sw2 += w2;
        for a in 0..p {
            let wxa = w * x[a];
            xwy[a] += wxa * (yi - c);
            for b in a..p {
                let t = wxa * x[b];
                g1[a * p + b] += t;
                g2[a * p + b] += t * w;
                g3[a * p + b] += t * w2;
            }
        }
    }
    Ok(First {
        g1: symmetric(&g1, p),
        g2: symmetric(&g2, p),
        g3: symmetric(&g3, p),
        xwy,
        sw,
        sw2,
    })
}

fn second_n<const N: usize>(
    y: &[f64],
    c: f64,
    v: &[f64],
    rows: &[[f64; N]],
    beta: &[f64],
    tau2: f64,
) -> Second {
    let mut b = [0.0; N];
    b.copy_from_slice(beta);
    let (mut wr2, mut w2r2, mut w3r2) = (0.0, 0.0, 0.0);
    let mut xw2r = [0.0; N];
    for ((yi, vi), x) in y.iter().zip(v).zip(rows) {
        let w = 1.0 / (vi + tau2);
        let mut fitted = 0.0;
        for a in 0..N {
            fitted += x[a] * b[a];
        }
        let r = (yi - c) - fitted;
        let wr = w * r;
        let wr2_i = wr * r;
        wr2 += wr2_i;
        w2r2 += w * wr2_i;
        w3r2 += w * w * wr2_i;
        let w2r = w * wr;
        for a in 0..N {
            xw2r[a] += w2r * x[a];
        }
    }
    Second {
        wr2,
        w2r2,
        w3r2,
        xw2r: xw2r.to_vec(),
    }
}

fn second_any(y: &[f64], c: f64, v: &[f64], rows: &[f64], beta: &[f64], tau2: f64) -> Second {
    let p = beta.len();
    let (mut wr2, mut w2r2, mut w3r2) = (0.0, 0.0, 0.0);
    let mut xw2r = vec![0.0; p];
    for ((yi, vi), x) in y.iter().zip(v).zip(rows.chunks_exact(p)) {
        let w = 1.0 / (vi + tau2);
        let fitted: f64 = x.iter().zip(beta).map(|(x, b)| x * b).sum();
        let r = (yi - c) - fitted;
        let wr = w * r;
        let wr2_i = wr * r;
        wr2 += wr2_i;
        w2r2 += w * wr2_i;
        w3r2 += w * w * wr2_i;
        let w2r = w * wr;
        for (c, xa) in xw2r.iter_mut().zip(x) {
            *c += w2r * xa;
        }
    }
    Second {
        wr2,
        w2r2,
        w3r2,
        xw2r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unrolled instances and the general loop compute the same sums.
    #[test]
    fn unrolled_and_general_passes_agree() {
        for p in 2..=7 {
            let k = 9;
            let rows: Vec<f64> = (0..k * p)
                .map(|i| {
                    if i % p == 0 {
                        1.0
                    } else {
                        ((i * 7919) % 13) as f64 / 3.0
                    }
                })
                .collect();
            let y: Vec<f64> = (0..k).map(|i| crate::math::sin(i as f64 * 0.37)).collect();
            let v: Vec<f64> = (0..k).map(|i| 0.01 + 0.01 * i as f64).collect();
            let a = first(&y, 0.25, &v, &rows, p, 0.05).unwrap();
            let b = first_any(&y, 0.25, &v, &rows, p, 0.05).unwrap();
            assert_eq!(
                (a.g1.a, a.g2.a, a.g3.a, a.xwy),
                (b.g1.a, b.g2.a, b.g3.a, b.xwy)
            );
            let beta: Vec<f64> = (0..p).map(|j| 0.1 * j as f64 - 0.2).collect();
            let (c, d) = (
                second(&y, 0.25, &v, &rows, &beta, 0.05),
                second_any(&y, 0.25, &v, &rows, &beta, 0.05),
            );
            assert_eq!(
                (c.wr2, c.w2r2, c.w3r2, c.xw2r),
                (d.wr2, d.w2r2, d.w3r2, d.xw2r)
            );
        }
    }
}
