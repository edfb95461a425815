//! The HTZ Wald test of several coefficients under CR2 (Pustejovsky & Tipton 2018, §3.2;
//! clubSandwich's `Wald_test(test = "HTZ")`): an approximate Hotelling T².
//!
//! For q constraints Kβ = c (K q × p of rank q), Q = (Kβ̂ − c)′(K V_R K′)⁻¹(Kβ̂ − c). Under
//! the working model K V_R K′ is approximated by a Wishart matrix with ν degrees of freedom,
//! Ω/ν · W(ν), Ω = E[K V_R K′] = K M (Σ_c Ψ_c) M K′, so that
//! F = (ν − q + 1)/(ν q) · Q ~ F(q, ν − q + 1). ν matches the total variance of the
//! standardized Ω^(−½) K V_R K′ Ω^(−½) to the Wishart's: ν = q(q + 1) / Σ_{s,t} Var_st.
//!
//! With D = Ω^(−½) K M, LL′ = M, and per cluster (the pieces CR2 keeps: `robust.rs`)
//! S_c = D(Ψ_c + C_c M C_c′)D′ and a_c = D C_c L, clubSandwich's array over pairs of
//! clusters is B(c, d) = δ_cd S_c − a_c a_d′ (its `get_P_array`, standardized), and
//! Var_st = Σ_{c,d} [B_st(c,d) B_ts(c,d) + B_ss(c,d) B_tt(c,d)] (its `total_variance_mat`).
//! Each sum Σ_{c,d} B_xy B_zw expands into per-cluster sums and
//! Σ_{k,l} T_xz(k,l) T_yw(k,l) with T_xz(k,l) = Σ_c a_c[x,k] a_c[z,l]: O(m q² p²), never a
//! pair of clusters.

use super::eigen::Eigen;
use crate::distributions::f_sf;
use crate::MetaError;

/// The HTZ test's answer (clubSandwich's columns: Fstat, delta, df_num, df_denom, p_val).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct HtzWald {
    /// Q, the Wald statistic (K V_R K′)⁻¹ quadratic form.
    pub q_stat: f64,
    /// F = delta · Q / q.
    pub f: f64,
    /// (ν − q + 1)/ν, at least 0.
    pub delta: f64,
    pub df_num: usize,
    /// ν − q + 1.
    pub df_denom: f64,
    /// Upper tail of F(df_num, df_denom); NaN when df_denom ≤ 0.
    pub p: f64,
}

fn undefined(reason: &str) -> MetaError {
    MetaError::Undefined {
        reason: reason.to_string(),
    }
}

/// A p × p row-major product a · b.
fn mul(a: &[f64], b: &[f64], rows: usize, inner: usize, cols: usize) -> Vec<f64> {
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        for l in 0..inner {
            let x = a[r * inner + l];
            for c in 0..cols {
                out[r * cols + c] += x * b[l * cols + c];
            }
        }
    }
    out
}

fn transpose(a: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    (0..rows * cols)
        .map(|rc| a[(rc % rows) * cols + rc / rows])
        .collect()
}

/// The lower Cholesky factor of a symmetric positive-definite n × n matrix.
fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let d = a[j * n + j] - (0..j).map(|k| l[j * n + k] * l[j * n + k]).sum::<f64>();
        if d.is_nan() || d <= 0.0 {
            return None;
        }
        l[j * n + j] = d.sqrt();
        for i in j + 1..n {
            let s = a[i * n + j] - (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum::<f64>();
            l[i * n + j] = s / l[j * n + j];
        }
    }
    Some(l)
}

/// The symmetric power x^(−½) (and x⁻¹) of a positive-definite q × q matrix by its
/// eigenvalues; `None` when an eigenvalue is at most 1e-12 of the largest.
fn inverse_roots(x: &[f64], q: usize) -> Option<(Vec<f64>, Vec<f64>)> {
    let mut a = x.to_vec();
    let mut carried = vec![0.0; q * q];
    for k in 0..q {
        carried[k * q + k] = 1.0;
    }
    let values = Eigen::default()
        .decompose(&mut a, q, &mut carried)?
        .to_vec();
    let largest = values.iter().fold(0.0f64, |m, v| m.max(*v));
    if largest.is_nan()
        || largest <= 0.0
        || values.iter().any(|v| v.is_nan() || *v <= 1e-12 * largest)
    {
        return None;
    }
    // carried[k·q + i] = E[k][i], eigenvector i's entry k.
    let power = |f: &dyn Fn(f64) -> f64| -> Vec<f64> {
        (0..q * q)
            .map(|rc| {
                let (r, c) = (rc / q, rc % q);
                (0..q)
                    .map(|i| carried[r * q + i] * f(values[i]) * carried[c * q + i])
                    .sum()
            })
            .collect()
    };
    Some((power(&|v| 1.0 / v.sqrt()), power(&|v| 1.0 / v)))
}

/// The HTZ test of `k_mat` β = `null` (K q × p row-major), from the model's β̂, M, the robust
/// covariance V_R (p × p row-major) and each cluster's C_c and Ψ_c (p × p row-major, cluster
/// after cluster).
pub(super) fn htz(
    beta: &[f64],
    mm: &[f64],
    vr: &[f64],
    c_all: &[f64],
    psi_all: &[f64],
    k_mat: &[f64],
    null: &[f64],
) -> Result<HtzWald, MetaError> {
    let p = beta.len();
    let q = null.len();
    // Q = (Kβ − c)′ (K V_R K′)⁻¹ (Kβ − c).
    let kt = transpose(k_mat, q, p);
    let kvk = mul(&mul(k_mat, vr, q, p, p), &kt, q, p, q);
    let (_, kvk_inv) = inverse_roots(&kvk, q).ok_or_else(|| {
        undefined(
            "the robust covariance of the tested combinations is not positive definite: \
             the HTZ test cannot be computed (a coefficient estimated within one cluster, or \
             constraints that repeat each other)",
        )
    })?;
    let d_vec: Vec<f64> = (0..q)
        .map(|r| (0..p).map(|a| k_mat[r * p + a] * beta[a]).sum::<f64>() - null[r])
        .collect();
    let q_stat: f64 = (0..q)
        .map(|r| {
            (0..q)
                .map(|s| d_vec[r] * kvk_inv[r * q + s] * d_vec[s])
                .sum::<f64>()
        })
        .sum();
    // Ω = K M (Σ Ψ_c) M K′ and D = Ω^(−½) K M.
    let mut psi_sum = vec![0.0; p * p];
    for psi in psi_all.chunks_exact(p * p) {
        psi_sum.iter_mut().zip(psi).for_each(|(s, x)| *s += x);
    }
    let km = mul(k_mat, mm, q, p, p);
    let omega = mul(&mul(&km, &psi_sum, q, p, p), &transpose(&km, q, p), q, p, q);
    let (omega_nsqrt, _) = inverse_roots(&omega, q).ok_or_else(|| {
        undefined(
            "the expected robust covariance of the tested combinations is not positive \
             definite: the HTZ test cannot be computed",
        )
    })?;
    let d = mul(&omega_nsqrt, &km, q, q, p);
    let dt = transpose(&d, q, p);
    let l = cholesky(mm, p)
        .ok_or_else(|| undefined("the model's (X'WX)^-1 is not positive definite"))?;
    let qq = q * q;
    let mut s_s = Vec::with_capacity(c_all.len() / (p * p) * qq);
    let mut a_s = Vec::with_capacity(c_all.len() / (p * p) * q * p);
    for (c, psi) in c_all.chunks_exact(p * p).zip(psi_all.chunks_exact(p * p)) {
        let cmc = mul(&mul(c, mm, p, p, p), &transpose(c, p, p), p, p, p);
        let inner: Vec<f64> = psi.iter().zip(&cmc).map(|(a, b)| a + b).collect();
        s_s.extend(mul(&mul(&d, &inner, q, p, p), &dt, q, p, q));
        a_s.extend(mul(&mul(&d, c, q, p, p), &l, q, p, p));
    }
    // T[x][z] = Σ_c a_c[x,·] ⊗ a_c[z,·] (p × p each).
    let pp = p * p;
    let mut t = vec![0.0; qq * pp];
    for a in a_s.chunks_exact(q * p) {
        for x in 0..q {
            for z in 0..q {
                let block = &mut t[(x * q + z) * pp..(x * q + z + 1) * pp];
                for kk in 0..p {
                    for ll in 0..p {
                        block[kk * p + ll] += a[x * p + kk] * a[z * p + ll];
                    }
                }
            }
        }
    }
    // Σ_{c,d} B_xy(c,d) B_zw(c,d).
    let pair_sum = |x: usize, y: usize, z: usize, w: usize| -> f64 {
        let mut total = 0.0;
        for (s, a) in s_s.chunks_exact(qq).zip(a_s.chunks_exact(q * p)) {
            let aa = |u: usize, v: usize| -> f64 {
                (0..p).map(|kk| a[u * p + kk] * a[v * p + kk]).sum::<f64>()
            };
            total +=
                s[x * q + y] * s[z * q + w] - s[x * q + y] * aa(z, w) - aa(x, y) * s[z * q + w];
        }
        let txz = &t[(x * q + z) * pp..(x * q + z + 1) * pp];
        let tyw = &t[(y * q + w) * pp..(y * q + w + 1) * pp];
        total + txz.iter().zip(tyw).map(|(a, b)| a * b).sum::<f64>()
    };
    let mut total_variance = 0.0;
    for s in 0..q {
        for u in 0..q {
            total_variance += pair_sum(s, u, u, s) + pair_sum(s, s, u, u);
        }
    }
    let nu = (q * (q + 1)) as f64 / total_variance;
    let df_denom = nu - q as f64 + 1.0;
    let delta = (df_denom / nu).max(0.0);
    let f = delta * q_stat / q as f64;
    let p_value = if df_denom > 0.0 {
        f_sf(f, q as f64, df_denom)
    } else {
        f64::NAN
    };
    if !(q_stat.is_finite() && f.is_finite() && nu.is_finite()) {
        return Err(MetaError::NonFiniteResult {
            quantity: "HTZ Wald test",
        });
    }
    Ok(HtzWald {
        q_stat,
        f,
        delta,
        df_num: q,
        df_denom,
        p: p_value,
    })
}
