//! Eigenvalues of a dense symmetric matrix, with chosen vectors carried into its eigenbasis.
//!
//! Householder reduction to tridiagonal form, G = Q T Q′, then the implicit QL algorithm with
//! Wilkinson shifts on T = V Λ V′ (Golub & Van Loan, *Matrix Computations*, 4th ed., §8.3;
//! EISPACK's `tred2`/`tql2` as JAMA writes them). The eigenvectors E = Q V are never formed:
//! each Householder reflector and each rotation is applied to the carried vectors r instead,
//! which end as E′r (entry i is eᵢ′r). The reduction costs (4/3)n³ flops on the lower
//! triangle, each carried vector O(n²): a cluster-robust CR2 adjustment needs no more
//! (see [`crate::robust`]).
//!
//! Only `+ − × ÷` and `sqrt` (correctly rounded everywhere) in a fixed order: the results are
//! the same natively and in WebAssembly.

/// The buffers of [`Eigen::decompose`], kept between calls so that a loop over many
/// matrices allocates once.
#[derive(Debug, Default)]
pub(crate) struct Eigen {
    /// The diagonal of T, then the eigenvalues (in no particular order).
    values: Vec<f64>,
    /// The subdiagonal of T: off[i] = T[i+1][i], off[n−1] = 0.
    off: Vec<f64>,
    v: Vec<f64>,
    w: Vec<f64>,
}

/// QL iterations allowed per eigenvalue before the matrix is deemed not finite (two or three
/// are the rule for a finite matrix).
const MAX_ITERATIONS: usize = 60;

impl Eigen {
    /// The eigenvalues of the symmetric n × n matrix `a` (row-major; only its lower
    /// triangle, j ≤ i, is read, and it is overwritten). `carried` holds vectors of length n
    /// one after another, each replaced by its coordinates in the eigenbasis, in the order of
    /// the returned eigenvalues. `None` when the iteration does not converge (a matrix with
    /// an infinite or NaN entry).
    pub(crate) fn decompose(
        &mut self,
        a: &mut [f64],
        n: usize,
        carried: &mut [f64],
    ) -> Option<&[f64]> {
        debug_assert!(a.len() == n * n && carried.len().is_multiple_of(n.max(1)));
        self.values.clear();
        self.values.resize(n, 0.0);
        self.off.clear();
        self.off.resize(n, 0.0);
        if n == 0 {
            return Some(&self.values);
        }
        self.tridiagonalize(a, n, carried);
        self.ql(n, carried)?;
        Some(&self.values)
    }

    /// G = Q T Q′ by n − 2 reflectors H = I − β v v′ (v zero above row k + 1), each applied
    /// to the trailing block as G ← H G H = G − v w′ − w v′ with p = β G v and
    /// w = p − (β/2)(v′p) v, and to each carried vector as r ← H r.
    fn tridiagonalize(&mut self, a: &mut [f64], n: usize, carried: &mut [f64]) {
        let (d, e, v, w) = (&mut self.values, &mut self.off, &mut self.v, &mut self.w);
        for k in 0..n {
            d[k] = a[k * n + k];
            if k + 1 == n {
                break;
            }
            let first = k + 1;
            let m = n - first;
            // The column below the diagonal.
            v.clear();
            v.extend((first..n).map(|i| a[i * n + k]));
            let sigma: f64 = v[1..].iter().map(|x| x * x).sum();
            if sigma == 0.0 {
                e[k] = v[0];
                continue;
            }
            let norm = (v[0] * v[0] + sigma).sqrt();
            let alpha = if v[0] > 0.0 { -norm } else { norm };
            v[0] -= alpha;
            let beta = 2.0 / (v[0] * v[0] + sigma);
            e[k] = alpha;
            // p = β T v over the lower triangle of the trailing block T.
            w.clear();
            w.resize(m, 0.0);
            for i in 0..m {
                let row = &a[(first + i) * n + first..(first + i) * n + first + i + 1];
                w[i] += dot(row, &v[..=i]);
                axpy(&mut w[..i], v[i], &row[..i]);
            }
            w.iter_mut().for_each(|x| *x *= beta);
            let half = 0.5 * beta * dot(w, v);
            w.iter_mut()
                .zip(v.iter())
                .for_each(|(x, vi)| *x -= half * vi);
            for i in 0..m {
                let row = &mut a[(first + i) * n + first..(first + i) * n + first + i + 1];
                let (vi, wi) = (v[i], w[i]);
                for ((x, vj), wj) in row.iter_mut().zip(&v[..=i]).zip(&w[..=i]) {
                    *x -= vi * wj + wi * vj;
                }
            }
            for r in carried.chunks_exact_mut(n) {
                let seg = &mut r[first..];
                let t = beta * dot(seg, v);
                axpy(seg, -t, v);
            }
        }
    }

    /// The eigenvalues of T by implicit QL with Wilkinson shifts (JAMA's `tql2`), each
    /// rotation applied to the carried vectors' coordinates i, i + 1.
    fn ql(&mut self, n: usize, carried: &mut [f64]) -> Option<()> {
        let (d, e) = (&mut self.values, &mut self.off);
        e[n - 1] = 0.0;
        let eps = f64::EPSILON;
        let mut shift = 0.0;
        let mut tst1: f64 = 0.0;
        for l in 0..n {
            tst1 = tst1.max(d[l].abs() + e[l].abs());
            let mut m = l;
            while m < n - 1 && e[m].abs() > eps * tst1 {
                m += 1;
            }
            if m > l {
                let mut iterations = 0;
                loop {
                    iterations += 1;
                    if iterations > MAX_ITERATIONS {
                        return None;
                    }
                    let g = d[l];
                    let mut p = (d[l + 1] - g) / (2.0 * e[l]);
                    let mut r = hypot(p, 1.0);
                    if p < 0.0 {
                        r = -r;
                    }
                    d[l] = e[l] / (p + r);
                    d[l + 1] = e[l] * (p + r);
                    let dl1 = d[l + 1];
                    let h = g - d[l];
                    d[l + 2..n].iter_mut().for_each(|x| *x -= h);
                    shift += h;
                    p = d[m];
                    let (mut c, mut c2, mut c3) = (1.0, 1.0, 1.0);
                    let el1 = e[l + 1];
                    let (mut s, mut s2) = (0.0, 0.0);
                    for i in (l..m).rev() {
                        c3 = c2;
                        c2 = c;
                        s2 = s;
                        let g = c * e[i];
                        let h = c * p;
                        let r = hypot(p, e[i]);
                        e[i + 1] = s * r;
                        s = e[i] / r;
                        c = p / r;
                        p = c * d[i] - s * g;
                        d[i + 1] = h + s * (c * g + s * d[i]);
                        for row in carried.chunks_exact_mut(n) {
                            let (x, y) = (row[i], row[i + 1]);
                            row[i + 1] = s * x + c * y;
                            row[i] = c * x - s * y;
                        }
                    }
                    p = -s * s2 * c3 * el1 * e[l] / dl1;
                    e[l] = s * p;
                    d[l] = c * p;
                    if e[l].abs() <= eps * tst1 || e[l].is_nan() {
                        break;
                    }
                }
            }
            d[l] += shift;
            e[l] = 0.0;
        }
        d.iter().all(|x| x.is_finite()).then_some(())
    }
}

/// √(a² + b²) without overflow or underflow on the way.
fn hypot(a: f64, b: f64) -> f64 {
    let (a, b) = (a.abs(), b.abs());
    let (big, small) = if a >= b { (a, b) } else { (b, a) };
    if big == 0.0 || big.is_infinite() {
        return big;
    }
    let q = small / big;
    big * (1.0 + q * q).sqrt()
}

/// Σ aᵢbᵢ in four interleaved partial sums (a fixed order, so the same everywhere; four
/// independent additions in flight instead of one).
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut s = [0.0; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        s[0] += x[0] * y[0];
        s[1] += x[1] * y[1];
        s[2] += x[2] * y[2];
        s[3] += x[3] * y[3];
    }
    (s[0] + s[1]) + (s[2] + s[3]) + tail
}

/// y ← y + a x.
pub(crate) fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symmetric matrix with entries from a fixed sequence.
    fn symmetric(n: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let x = (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                a[i * n + j] = x;
                a[j * n + i] = x;
            }
        }
        a
    }

    /// With the identity carried, the carried rows are E′: G = E Λ E′ and E′E = I.
    fn check_decomposition(n: usize, a: &[f64]) {
        let mut work = a.to_vec();
        let mut carried = vec![0.0; n * n];
        for i in 0..n {
            carried[i * n + i] = 1.0;
        }
        let values = Eigen::default()
            .decompose(&mut work, n, &mut carried)
            .unwrap()
            .to_vec();
        // carried[r·n + i] = (E′ e_r)_i = E[r][i].
        let e = |r: usize, i: usize| carried[r * n + i];
        let scale = a.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for r in 0..n {
            for c in 0..n {
                let g: f64 = (0..n).map(|i| e(r, i) * values[i] * e(c, i)).sum();
                assert!(
                    (g - a[r * n + c]).abs() < 1e-12 * scale * n as f64,
                    "{r} {c}"
                );
                let id: f64 = (0..n).map(|i| e(i, r) * e(i, c)).sum();
                let want = if r == c { 1.0 } else { 0.0 };
                assert!((id - want).abs() < 1e-12 * n as f64, "{r} {c}: {id}");
            }
        }
    }

    #[test]
    fn eigenvalues_and_carried_vectors_reconstruct_the_matrix() {
        for n in [1, 2, 3, 5, 17, 40] {
            check_decomposition(n, &symmetric(n, n as u64));
        }
        // Repeated eigenvalues, already tridiagonal, diagonal, zero and rank one.
        let mut j = vec![1.0; 16];
        check_decomposition(4, &j);
        j.iter_mut().for_each(|x| *x = 0.0);
        check_decomposition(4, &j);
        let tri = [2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 2.0];
        check_decomposition(3, &tri);
        let diag = [3.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 3.0];
        check_decomposition(3, &diag);
    }

    #[test]
    fn known_eigenvalues() {
        // [[2, 1], [1, 2]] has eigenvalues 1 and 3.
        let mut a = [2.0, 1.0, 1.0, 2.0];
        let mut values = Eigen::default()
            .decompose(&mut a, 2, &mut [])
            .unwrap()
            .to_vec();
        values.sort_by(f64::total_cmp);
        assert!((values[0] - 1.0).abs() < 1e-15 && (values[1] - 3.0).abs() < 1e-15);
        let mut bad = [f64::NAN, 1.0, 1.0, 2.0];
        assert!(Eigen::default().decompose(&mut bad, 2, &mut []).is_none());
    }

    #[test]
    fn dot_sums_every_term() {
        let a: Vec<f64> = (1..=11).map(f64::from).collect();
        assert_eq!(dot(&a, &a), 506.0);
        assert_eq!(hypot(3.0, 4.0), 5.0);
        assert_eq!(hypot(0.0, 0.0), 0.0);
    }
}
