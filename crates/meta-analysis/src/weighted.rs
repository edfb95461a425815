//! Weighted least squares for a small design X (k × p, p ≤ a handful of
//! columns) and the traces of the projection matrix the estimators need.
//!
//! With weights W = diag(w), A = (X'WX)⁻¹, β̂ = A X'W y, r = y − Xβ̂ and
//! P = W − W X A X' W, every quantity is a sum over k records plus p × p
//! algebra, writing G(d) = X' diag(d) X:
//!
//! - y'Py = Σ wᵢ rᵢ²,  y'PPy = Σ wᵢ² rᵢ²
//! - u'Pu = Σ wᵢ uᵢ² − (X'Wu)' A (X'Wu)
//! - tr(P) = Σ wᵢ − tr(A G(w²))
//! - tr(PP) = Σ wᵢ² − 2 tr(A G(w³)) + tr(A G(w²) A G(w²))
//!
//! so one evaluation costs O(k p²) time and O(k) memory, never a k × k matrix.

use crate::math::{powi, sq};
use crate::MetaError;

/// Why a weighted least-squares fit cannot be formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Degenerate {
    /// X'WX is singular (for example a moderator column with no spread).
    Singular,
    /// A weight, or a sum in X'WX, is not finite or a weight underflowed to 0: an overflow,
    /// not a property of the design.
    NonFinite,
}

impl Degenerate {
    pub fn error(self) -> MetaError {
        match self {
            Degenerate::Singular => MetaError::Undefined {
                reason: "the model cannot be fitted: its design matrix is singular".into(),
            },
            Degenerate::NonFinite => MetaError::NonFiniteResult {
                quantity: "weighted least-squares fit (a weight or a weighted sum)",
            },
        }
    }
}

/// The centre c on which the weighted fits are computed: the yᵢ of the largest weight
/// (the first of equal ones), a first estimate of the mean that is itself one of the data.
///
/// Every design has an intercept, so fitting y − c gives the same residuals, Q and τ²
/// as y and an intercept smaller by exactly c; the residuals are then computed at the
/// scale of the effects' spread, not of their size (ten identical yᵢ = 10¹² give Q = 0,
/// where y − μ̂ with μ̂ = Σwy/Σw rounded one ulp away from 10¹² gave Q = 7·10⁴), and
/// shifting every yᵢ by a constant shifts c with it and leaves the centred data unchanged.
pub(crate) fn centre(y: &[f64], w: impl IntoIterator<Item = f64>) -> f64 {
    let mut best = (f64::NEG_INFINITY, y.first().copied().unwrap_or(0.0));
    for (wi, yi) in w.into_iter().zip(y) {
        if wi > best.0 {
            best = (wi, *yi);
        }
    }
    if best.1.is_finite() {
        best.1
    } else {
        0.0
    }
}

/// The mean of y and Σ(yᵢ − ȳ)²/k, the unweighted spread, computed about y₀ so that a large
/// common offset does not cost the spread its digits.
pub(crate) fn plain_mean_spread(y: &[f64]) -> (f64, f64) {
    let c = y.first().copied().filter(|c| c.is_finite()).unwrap_or(0.0);
    let k = y.len() as f64;
    let d = y.iter().map(|yi| yi - c).sum::<f64>() / k;
    let spread = y.iter().map(|yi| sq((yi - c) - d)).sum::<f64>() / k;
    (c + d, spread)
}

/// The design matrix X: a column of ones (implicit, never stored) followed by
/// moderator columns of length k, or (a model formula without intercept) the columns alone.
#[derive(Debug, Clone)]
pub(crate) struct Design {
    moderators: Vec<Vec<f64>>,
    /// Whether X has the implicit column of ones first. Without it the fits are not taken
    /// about a centre (see [`centre`]: shifting y is absorbed only by an intercept).
    intercept: bool,
    /// X row by row (the column of ones included), for the fused passes of
    /// [`crate::passes`]; empty for the intercept-only design.
    rows: Vec<f64>,
}

impl Design {
    /// The intercept-only design: one column of ones.
    pub fn intercept() -> Self {
        Design {
            moderators: Vec::new(),
            intercept: true,
            rows: Vec::new(),
        }
    }

    /// An intercept and one moderator.
    pub fn intercept_and(x: Vec<f64>) -> Self {
        Design::intercept_and_columns(vec![x])
    }

    /// An intercept and the given columns (each of length k).
    pub fn intercept_and_columns(columns: Vec<Vec<f64>>) -> Self {
        let k = columns.first().map_or(0, Vec::len);
        let mut rows = Vec::with_capacity(k * (columns.len() + 1));
        for i in 0..k {
            rows.push(1.0);
            rows.extend(columns.iter().map(|c| c[i]));
        }
        Design {
            moderators: columns,
            intercept: true,
            rows,
        }
    }

    /// The given columns alone, without a column of ones (at least one column).
    pub fn columns(columns: Vec<Vec<f64>>) -> Self {
        let k = columns.first().map_or(0, Vec::len);
        let mut rows = Vec::with_capacity(k * columns.len());
        for i in 0..k {
            rows.extend(columns.iter().map(|c| c[i]));
        }
        Design {
            moderators: columns,
            intercept: false,
            rows,
        }
    }

    /// The centre the weighted fits take y about: [`centre`] with an intercept, else 0.
    pub fn centre(&self, y: &[f64], w: impl IntoIterator<Item = f64>) -> f64 {
        if self.intercept {
            centre(y, w)
        } else {
            0.0
        }
    }

    /// X row by row, p values per row (empty for the intercept-only design).
    pub fn rows(&self) -> &[f64] {
        &self.rows
    }

    /// Whether X is the single column of ones (then the estimators use power sums).
    pub fn is_intercept(&self) -> bool {
        self.intercept && self.moderators.is_empty()
    }

    pub fn p(&self) -> usize {
        usize::from(self.intercept) + self.moderators.len()
    }

    /// Column `a` of X; `None` for the column of ones.
    fn column(&self, a: usize) -> Option<&[f64]> {
        if self.intercept {
            a.checked_sub(1).map(|m| self.moderators[m].as_slice())
        } else {
            Some(self.moderators[a].as_slice())
        }
    }

    /// Σᵢ x_{ia} x_{ib} dᵢ.
    fn weighted_product(&self, a: usize, b: usize, d: &[f64]) -> f64 {
        match (self.column(a), self.column(b)) {
            (None, None) => d.iter().sum(),
            (Some(c), None) | (None, Some(c)) => c.iter().zip(d).map(|(x, di)| x * di).sum(),
            (Some(ca), Some(cb)) => ca
                .iter()
                .zip(cb)
                .zip(d)
                .map(|((xa, xb), di)| xa * xb * di)
                .sum(),
        }
    }

    /// G(d) = X' diag(d) X.
    pub fn gram(&self, d: &[f64]) -> Matrix {
        let p = self.p();
        let mut g = Matrix::zeros(p);
        for a in 0..p {
            for b in a..p {
                let s = self.weighted_product(a, b, d);
                g.set(a, b, s);
                g.set(b, a, s);
            }
        }
        g
    }

    /// X' v.
    pub fn cross(&self, v: &[f64]) -> Vec<f64> {
        (0..self.p())
            .map(|a| match self.column(a) {
                None => v.iter().sum(),
                Some(c) => c.iter().zip(v).map(|(x, vi)| x * vi).sum(),
            })
            .collect()
    }

    /// (X β)ᵢ.
    pub fn times(&self, beta: &[f64], i: usize) -> f64 {
        let (constant, slopes) = if self.intercept {
            (beta[0], &beta[1..])
        } else {
            (0.0, beta)
        };
        constant
            + self
                .moderators
                .iter()
                .zip(slopes)
                .map(|(c, b)| c[i] * b)
                .sum::<f64>()
    }

    /// x_{ia}.
    #[cfg(test)]
    pub fn value(&self, a: usize, i: usize) -> f64 {
        self.column(a).map_or(1.0, |c| c[i])
    }
}

/// A small dense symmetric matrix, row-major.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Matrix {
    pub n: usize,
    pub a: Vec<f64>,
}

impl Matrix {
    pub fn zeros(n: usize) -> Self {
        Matrix {
            n,
            a: vec![0.0; n * n],
        }
    }
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.a[i * self.n + j]
    }
    pub fn set(&mut self, i: usize, j: usize, v: f64) {
        self.a[i * self.n + j] = v;
    }

    /// The inverse by Gauss–Jordan elimination with partial pivoting.
    pub fn inverse(&self) -> Result<Matrix, Degenerate> {
        if self.a.iter().any(|v| !v.is_finite()) {
            return Err(Degenerate::NonFinite);
        }
        let n = self.n;
        let mut m = self.clone();
        let mut inv = Matrix::zeros(n);
        for i in 0..n {
            inv.set(i, i, 1.0);
        }
        let scale = self.a.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        for col in 0..n {
            let pivot = (col..n)
                .max_by(|&x, &y| m.get(x, col).abs().total_cmp(&m.get(y, col).abs()))
                .unwrap_or(col);
            let pv = m.get(pivot, col);
            if pv.is_nan() || pv.abs() <= 1e-13 * scale {
                return Err(Degenerate::Singular);
            }
            for j in 0..n {
                let (t1, t2) = (m.get(col, j), m.get(pivot, j));
                m.set(col, j, t2);
                m.set(pivot, j, t1);
                let (t1, t2) = (inv.get(col, j), inv.get(pivot, j));
                inv.set(col, j, t2);
                inv.set(pivot, j, t1);
            }
            for j in 0..n {
                m.set(col, j, m.get(col, j) / pv);
                inv.set(col, j, inv.get(col, j) / pv);
            }
            for row in 0..n {
                if row != col {
                    let f = m.get(row, col);
                    for j in 0..n {
                        m.set(row, j, m.get(row, j) - f * m.get(col, j));
                        inv.set(row, j, inv.get(row, j) - f * inv.get(col, j));
                    }
                }
            }
        }
        Ok(inv)
    }

    /// The determinant by Gaussian elimination with partial pivoting.
    pub fn det(&self) -> f64 {
        let n = self.n;
        let mut m = self.clone();
        let mut det = 1.0;
        for col in 0..n {
            let pivot = (col..n)
                .max_by(|&x, &y| m.get(x, col).abs().total_cmp(&m.get(y, col).abs()))
                .unwrap_or(col);
            if pivot != col {
                det = -det;
                for j in 0..n {
                    let (t1, t2) = (m.get(col, j), m.get(pivot, j));
                    m.set(col, j, t2);
                    m.set(pivot, j, t1);
                }
            }
            let pv = m.get(col, col);
            det *= pv;
            if pv == 0.0 {
                return 0.0;
            }
            for row in col + 1..n {
                let f = m.get(row, col) / pv;
                for j in col..n {
                    m.set(row, j, m.get(row, j) - f * m.get(col, j));
                }
            }
        }
        det
    }

    pub fn mul(&self, other: &Matrix) -> Matrix {
        let n = self.n;
        let mut out = Matrix::zeros(n);
        for i in 0..n {
            for j in 0..n {
                out.set(i, j, (0..n).map(|l| self.get(i, l) * other.get(l, j)).sum());
            }
        }
        out
    }

    pub fn trace(&self) -> f64 {
        (0..self.n).map(|i| self.get(i, i)).sum()
    }

    /// v' M v.
    pub fn quad(&self, v: &[f64]) -> f64 {
        let n = self.n;
        (0..n)
            .map(|i| (0..n).map(|j| v[i] * self.get(i, j) * v[j]).sum::<f64>())
            .sum()
    }

    pub fn times_vec(&self, v: &[f64]) -> Vec<f64> {
        (0..self.n)
            .map(|i| (0..self.n).map(|j| self.get(i, j) * v[j]).sum())
            .collect()
    }
}

/// A weighted least-squares fit of y on X with weights w.
#[derive(Debug, Clone)]
pub(crate) struct Wls<'a> {
    pub x: &'a Design,
    pub w: Vec<f64>,
    /// A = (X'WX)⁻¹, the covariance of β̂ when w are inverse variances.
    pub a: Matrix,
    pub beta: Vec<f64>,
    /// r = y − Xβ̂.
    pub r: Vec<f64>,
}

impl<'a> Wls<'a> {
    /// Fails when a weight is not finite or is 0 (an underflow), or X'WX is singular.
    pub fn new(y: &[f64], x: &'a Design, w: Vec<f64>) -> Result<Self, Degenerate> {
        if w.iter().any(|w| !(w.is_finite() && *w > 0.0)) {
            return Err(Degenerate::NonFinite);
        }
        let a = x.gram(&w).inverse()?;
        // Solved for y − c (see [`centre`]); the intercept gets c back.
        let c = x.centre(y, w.iter().copied());
        let wy: Vec<f64> = w.iter().zip(y).map(|(wi, yi)| wi * (yi - c)).collect();
        let mut beta = a.times_vec(&x.cross(&wy));
        let r = y
            .iter()
            .enumerate()
            .map(|(i, yi)| (yi - c) - x.times(&beta, i))
            .collect();
        beta[0] += c;
        Ok(Wls { x, w, a, beta, r })
    }

    /// With weights 1/(vᵢ + τ²).
    pub fn random_effects(
        y: &[f64],
        v: &[f64],
        x: &'a Design,
        tau2: f64,
    ) -> Result<Self, Degenerate> {
        Self::new(y, x, v.iter().map(|vi| 1.0 / (vi + tau2)).collect())
    }

    fn weights_pow(&self, e: i32) -> Vec<f64> {
        self.w.iter().map(|w| powi(*w, e)).collect()
    }

    /// y'Py = Σ wᵢ rᵢ² (the Q statistic when w = 1/vᵢ).
    pub fn rss(&self) -> f64 {
        self.w.iter().zip(&self.r).map(|(w, r)| w * r * r).sum()
    }

    /// log det(X'WX) = −log det(A).
    #[cfg(test)] // the estimators use the fused sums of `Moments`
    pub fn log_det_xwx(&self) -> f64 {
        -crate::math::ln(self.a.det())
    }

    /// y'PPy = Σ wᵢ² rᵢ².
    #[cfg(test)] // the estimators use the fused sums of `Moments`
    pub fn ypp_y(&self) -> f64 {
        self.w.iter().zip(&self.r).map(|(w, r)| w * w * r * r).sum()
    }

    /// y'PPPy = u'Pu with u = Py = W r.
    #[cfg(test)] // the estimators use the fused sums of `Moments`
    pub fn yppp_y(&self) -> f64 {
        let u: Vec<f64> = self.w.iter().zip(&self.r).map(|(w, r)| w * r).collect();
        let wu: Vec<f64> = self.w.iter().zip(&u).map(|(w, u)| w * u).collect();
        let uwu: f64 = u.iter().zip(&wu).map(|(u, wu)| u * wu).sum();
        uwu - self.a.quad(&self.x.cross(&wu))
    }

    /// tr(P) = Σ wᵢ − tr(A G(w²)).
    pub fn trace_p(&self) -> f64 {
        let sw: f64 = self.w.iter().sum();
        sw - self.a.mul(&self.x.gram(&self.weights_pow(2))).trace()
    }

    /// tr(PP) = Σ wᵢ² − 2 tr(A G(w³)) + tr(A G(w²) A G(w²)).
    pub fn trace_pp(&self) -> f64 {
        let sw2: f64 = self.w.iter().map(|w| w * w).sum();
        let ag2 = self.a.mul(&self.x.gram(&self.weights_pow(2)));
        sw2 - 2.0 * self.a.mul(&self.x.gram(&self.weights_pow(3))).trace() + ag2.mul(&ag2).trace()
    }

    /// tr(PV) = Σ wᵢvᵢ − tr(A G(w²v)).
    pub fn trace_pv(&self, v: &[f64]) -> f64 {
        let swv: f64 = self.w.iter().zip(v).map(|(w, v)| w * v).sum();
        let d: Vec<f64> = self.w.iter().zip(v).map(|(w, v)| w * w * v).collect();
        swv - self.a.mul(&self.x.gram(&d)).trace()
    }

    /// tr(PVPV) = Σ (wᵢvᵢ)² − 2 tr(A G(w³v²)) + tr(A G(w²v) A G(w²v)).
    pub fn trace_pvpv(&self, v: &[f64]) -> f64 {
        let s: f64 = self.w.iter().zip(v).map(|(w, v)| sq(w * v)).sum();
        let d3: Vec<f64> = self
            .w
            .iter()
            .zip(v)
            .map(|(w, v)| powi(*w, 3) * v * v)
            .collect();
        let d2: Vec<f64> = self.w.iter().zip(v).map(|(w, v)| w * w * v).collect();
        let ag = self.a.mul(&self.x.gram(&d2));
        s - 2.0 * self.a.mul(&self.x.gram(&d3)).trace() + ag.mul(&ag).trace()
    }

    /// tr(PVP) = tr(PPV) = Σ wᵢ²vᵢ − 2 tr(A G(w³v)) + tr(A G(w²) A G(w²v)).
    pub fn trace_pvp(&self, v: &[f64]) -> f64 {
        let s: f64 = self.w.iter().zip(v).map(|(w, v)| w * w * v).sum();
        let d3: Vec<f64> = self.w.iter().zip(v).map(|(w, v)| powi(*w, 3) * v).collect();
        let d2v: Vec<f64> = self.w.iter().zip(v).map(|(w, v)| w * w * v).collect();
        let ag2 = self.a.mul(&self.x.gram(&self.weights_pow(2)));
        let ag2v = self.a.mul(&self.x.gram(&d2v));
        s - 2.0 * self.a.mul(&self.x.gram(&d3)).trace() + ag2.mul(&ag2v).trace()
    }
}

/// β̂ = (X′AX)⁻¹X′Ay and the sandwich (X′AX)⁻¹ X′AMAX (X′AX)⁻¹ with M = diag(vᵢ + τ²),
/// y taken about the centre c of [`Design::centre`] (β̂₀ gets c back). Fails as this module's
/// fits do when X′AX is singular or a sum is not finite. User weights' β̂ (`user_weights.rs`).
pub(crate) fn coefficients_with_weights(
    yi: &[f64],
    vi: &[f64],
    x: &Design,
    a: &[f64],
    tau2: f64,
) -> Result<(Vec<f64>, Matrix), Degenerate> {
    let bread = x.gram(a).inverse()?;
    let c = x.centre(yi, a.iter().copied());
    let ay: Vec<f64> = a.iter().zip(yi).map(|(ai, y)| ai * (y - c)).collect();
    let mut beta = bread.times_vec(&x.cross(&ay));
    beta[0] += c;
    let meat: Vec<f64> = a
        .iter()
        .zip(vi)
        .map(|(ai, v)| ai * ai * (v + tau2))
        .collect();
    let sandwich = bread.mul(&x.gram(&meat)).mul(&bread);
    if sandwich.a.iter().any(|v| !v.is_finite()) {
        return Err(Degenerate::NonFinite);
    }
    Ok((beta, sandwich))
}

/// The equal-effects pseudo-R² with weights a: R's adjusted R² of the weighted least-squares
/// fit, 1 − (1 − R²)(k − 1)/(k − p) with R² = mss/(mss + rss), mss = Σaᵢ(fᵢ − f̄)²,
/// rss = Σaᵢ(yᵢ − fᵢ)², f = Xβ̂ and f̄ = Σaᵢfᵢ/Σaᵢ (`summary.lm`), as a fraction, not yet
/// truncated at 0; 0 when all yᵢ are equal (metafor). User weights' pseudo-R² (`user_weights.rs`).
pub(crate) fn equal_effects_r2_with_weights(
    yi: &[f64],
    x: &Design,
    a: &[f64],
    beta: &[f64],
) -> f64 {
    if yi.iter().all(|y| *y == yi[0]) {
        return 0.0;
    }
    let (k, p) = (yi.len() as f64, x.p() as f64);
    let fitted: Vec<f64> = (0..yi.len()).map(|i| x.times(beta, i)).collect();
    let sa: f64 = a.iter().sum();
    let mean = a
        .iter()
        .zip(&fitted)
        .map(|(ai, f)| ai * f / sa)
        .sum::<f64>();
    let mss: f64 = a
        .iter()
        .zip(&fitted)
        .map(|(ai, f)| ai * (f - mean) * (f - mean))
        .sum();
    let rss: f64 = a
        .iter()
        .zip(yi.iter().zip(&fitted))
        .map(|(ai, (y, f))| ai * (y - f) * (y - f))
        .sum();
    let r2 = mss / (mss + rss);
    1.0 - (1.0 - r2) * (k - 1.0) / (k - p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same traces from the explicit k × k matrix P.
    fn explicit_p(x: &Design, w: &[f64]) -> Vec<Vec<f64>> {
        let k = w.len();
        let a = x.gram(w).inverse().unwrap();
        let mut p = vec![vec![0.0; k]; k];
        for i in 0..k {
            for j in 0..k {
                let xi: Vec<f64> = (0..x.p()).map(|a| x.value(a, i)).collect();
                let xj: Vec<f64> = (0..x.p()).map(|a| x.value(a, j)).collect();
                let h: f64 = (0..x.p())
                    .map(|a1| {
                        (0..x.p())
                            .map(|b| xi[a1] * a.get(a1, b) * xj[b])
                            .sum::<f64>()
                    })
                    .sum();
                p[i][j] = if i == j { w[i] } else { 0.0 } - w[i] * h * w[j];
            }
        }
        p
    }

    fn matmul(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let k = a.len();
        (0..k)
            .map(|i| {
                (0..k)
                    .map(|j| (0..k).map(|l| a[i][l] * b[l][j]).sum())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn traces_match_the_explicit_projection() {
        let y = [0.3, -0.1, 0.5, 0.2, 0.9];
        let v = [0.04, 0.01, 0.09, 0.02, 0.05];
        let x = Design::intercept_and(v.iter().map(|v: &f64| v.sqrt()).collect());
        let tau2 = 0.03;
        let fit = Wls::random_effects(&y, &v, &x, tau2).unwrap();
        let p = explicit_p(&x, &fit.w);
        let vd: Vec<Vec<f64>> = (0..5)
            .map(|i| (0..5).map(|j| if i == j { v[i] } else { 0.0 }).collect())
            .collect();
        let tr = |m: &Vec<Vec<f64>>| (0..5).map(|i| m[i][i]).sum::<f64>();
        let pp = matmul(&p, &p);
        let pv = matmul(&p, &vd);
        let close =
            |a: f64, b: f64| assert!((a - b).abs() < 1e-10 * b.abs().max(1.0), "{a} vs {b}");
        close(fit.trace_p(), tr(&p));
        close(fit.trace_pp(), tr(&pp));
        close(fit.trace_pv(&v), tr(&pv));
        close(fit.trace_pvpv(&v), tr(&matmul(&pv, &pv)));
        close(fit.trace_pvp(&v), tr(&matmul(&pv, &p)));
        let py: Vec<f64> = (0..5)
            .map(|i| (0..5).map(|j| p[i][j] * y[j]).sum())
            .collect();
        let ppy: Vec<f64> = (0..5)
            .map(|i| (0..5).map(|j| p[i][j] * py[j]).sum())
            .collect();
        close(fit.rss(), y.iter().zip(&py).map(|(a, b)| a * b).sum());
        close(fit.ypp_y(), py.iter().map(|a| a * a).sum());
        close(fit.yppp_y(), py.iter().zip(&ppy).map(|(a, b)| a * b).sum());
    }

    #[test]
    fn singular_design_is_refused() {
        let x = Design::intercept_and(vec![2.0, 2.0, 2.0]);
        assert_eq!(
            Wls::new(&[1.0, 2.0, 3.0], &x, vec![1.0; 3]).unwrap_err(),
            Degenerate::Singular
        );
    }

    #[test]
    fn overflow_is_not_called_singular() {
        // Weights underflowed to 0 (τ² overflowed) or not finite: not a singular design.
        let x = Design::intercept();
        for w in [
            vec![0.0; 3],
            vec![1.0, f64::INFINITY, 1.0],
            vec![1.0, f64::NAN, 1.0],
        ] {
            assert_eq!(
                Wls::new(&[1.0, 2.0, 3.0], &x, w).unwrap_err(),
                Degenerate::NonFinite
            );
        }
        // A finite design whose weighted sums overflow.
        let x = Design::intercept_and(vec![1e200, -1e200, 3.0]);
        assert_eq!(
            Wls::new(&[1.0, 2.0, 3.0], &x, vec![1.0; 3]).unwrap_err(),
            Degenerate::NonFinite
        );
        assert!(matches!(
            Degenerate::NonFinite.error(),
            MetaError::NonFiniteResult { .. }
        ));
    }
}
