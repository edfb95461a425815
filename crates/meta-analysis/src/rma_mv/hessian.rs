//! The observed Hessian of the (restricted) log-likelihood in the optimizer's parameters θ,
//! summed over the clusters of M (never the dense k × k matrix).
//!
//! With D_i = ∂M/∂θ_i, D_ij = ∂²M/∂θ_i∂θ_j, Q = P (REML) or W = M⁻¹ (ML), u = Py and
//! ∂P/∂θ_j = −P D_j P (Harville 1977, eq. 4.4; Searle, Casella & McCulloch 1992, §6.12),
//! differentiating the score ∂ℓ/∂θ_i = −½ tr(Q D_i) + ½ u′D_i u gives
//!
//! ∂²ℓ/∂θ_i∂θ_j = −½ tr(Q D_ij) + ½ tr(Q D_i Q D_j) + ½ u′D_ij u − u′D_i P D_j u.
//!
//! (ML profiles β out, so its quadratic form is y′Py too and differentiates with P.)
//! Over the blocks b, with F_b = W_b X_b, A = X′WX and h_i = Σ_b F_b′ D_ib u_b:
//! u′D_i P D_j u = Σ_b (D_ib u_b)′ W_b (D_jb u_b) − h_i′ A⁻¹ h_j,
//! tr(P D_ij) = Σ_b tr(W_b D_ijb) − tr(A⁻¹ Σ_b F_b′ D_ijb F_b), and tr(P D_i P D_j) as in
//! [`super::eval`]. The transforms enter through D_i and D_ij ([`super::structure`]): for
//! σ² = e^θ, ∂²M/∂θ² = ∂M/∂θ.

use super::blocks::{block_second, mul, term_second, tmul};
use super::eval::{derivatives, natural, py, solve, trace_product, Evaluation, Solved};
use super::Prepared;

/// ℓ, its gradient and −∂²ℓ/∂θ∂θ′ (in `hessian`) from one factorization of the blocks, or
/// None where M is not positive definite.
pub(super) fn evaluate_newton(
    model: &Prepared,
    values: &[f64],
    free: &[usize],
    reml: bool,
) -> Option<Evaluation> {
    let s = solve(model, values, free, reml)?;
    let (gradient, _) = derivatives(model, &s.parts, &s.beta, &s.vcov, free.len(), reml, false);
    let hessian = negative_hessian_at(model, &s, values, free, reml);
    let (beta, vcov) = natural(model, &s.beta, &s.vcov);
    Some(Evaluation {
        loglik: s.loglik,
        rss: s.rss,
        logdet: s.logdet,
        beta,
        vcov,
        gradient,
        information: Vec::new(),
        hessian,
    })
}

/// −∂²ℓ/∂θ∂θ′ over the free components (q × q, row-major) at the factorized blocks `s`.
fn negative_hessian_at(
    model: &Prepared,
    s: &Solved,
    values: &[f64],
    free: &[usize],
    reml: bool,
) -> Vec<f64> {
    let layout = &model.layout;
    let (p, q) = (layout.p, free.len());
    let d2g = term_second(layout, values);
    let mut hess = vec![0.0; q * q];
    let mut h = vec![vec![0.0; p]; q];
    // REML's corrections: B_i = Σ F′D_iF, C_ij = Σ F′D_iWD_jF and B_ij = Σ F′D_ijF.
    let mut bi = vec![vec![0.0; p * p]; q];
    let mut cij = vec![vec![0.0; p * p]; q * q];
    let mut bij = vec![vec![0.0; p * p]; q * q];
    for (b, part) in s.parts.iter().enumerate() {
        let n = model.blocks[b].rows.len();
        let u = py(model, part, b, &s.beta);
        let du: Vec<Vec<f64>> = part.d.iter().map(|d| d.times(&u, n, 1)).collect();
        let wdu: Vec<Vec<f64>> = du.iter().map(|x| mul(&part.w, x, n, n, 1)).collect();
        // D_i W (zeros of D_i skipped): tr(W D_i W D_j) = tr(D_i W D_j W).
        let dw: Vec<Vec<f64>> = part.d.iter().map(|d| d.times(&part.w, n, n)).collect();
        let (df, wdf): (Vec<Vec<f64>>, Vec<Vec<f64>>) = if reml {
            let df: Vec<Vec<f64>> = part.d.iter().map(|d| d.times(&part.f, n, p)).collect();
            let wdf = df.iter().map(|x| mul(&part.w, x, n, n, p)).collect();
            (df, wdf)
        } else {
            (Vec::new(), Vec::new())
        };
        for i in 0..q {
            for (e, v) in tmul(&part.f, &du[i], n, p, 1).into_iter().enumerate() {
                h[i][e] += v;
            }
            if reml {
                // F′D_iF = X′WD_iWX = (WD_iF)′X.
                for (e, v) in tmul(&wdf[i], &model.xb[b], n, p, p).into_iter().enumerate() {
                    bi[i][e] += v;
                }
            }
            for j in i..q {
                let t2 = trace_product(&dw[i], &dw[j], n);
                let quad: f64 = du[i].iter().zip(&wdu[j]).map(|(a, b)| a * b).sum();
                hess[i * q + j] += 0.5 * t2 - quad;
                if reml {
                    // F′D_iWD_jF = (D_iF)′(WD_jF).
                    for (e, v) in tmul(&df[i], &wdf[j], n, p, p).into_iter().enumerate() {
                        cij[i * q + j][e] += v;
                    }
                }
            }
        }
        for (i, j, dij) in block_second(layout, &model.blocks[b], values, &d2g, free) {
            let tr = trace_product(&part.w, &dij, n);
            let dij_u = mul(&dij, &u, n, n, 1);
            let quad: f64 = u.iter().zip(&dij_u).map(|(a, b)| a * b).sum();
            hess[i * q + j] += -0.5 * tr + 0.5 * quad;
            if reml {
                let dijf = mul(&dij, &part.f, n, n, p);
                for (e, v) in tmul(&part.f, &dijf, n, p, p).into_iter().enumerate() {
                    bij[i * q + j][e] += v;
                }
            }
        }
    }
    let tr_p = |a: &[f64], b: &[f64]| trace_product(a, b, p);
    for i in 0..q {
        let ah_i = mul(&s.vcov, &h[i], p, p, 1);
        let ab_i = mul(&s.vcov, &bi[i], p, p, p);
        for j in i..q {
            let mut x = hess[i * q + j];
            x += ah_i.iter().zip(&h[j]).map(|(a, b)| a * b).sum::<f64>();
            if reml {
                let ab_j = mul(&s.vcov, &bi[j], p, p, p);
                x += -tr_p(&s.vcov, &cij[i * q + j]) + 0.5 * tr_p(&ab_i, &ab_j);
                x += 0.5 * tr_p(&s.vcov, &bij[i * q + j]);
            }
            hess[i * q + j] = -x;
            hess[j * q + i] = -x;
        }
    }
    hess
}

#[cfg(test)]
mod tests {
    use super::super::optimizer::{from_theta, to_theta};
    use super::super::{eval::evaluate, prepare, InnerOuter, MvModel, RandomIntercept, Sampling};
    use super::*;
    use crate::rma_mv::Struct;

    /// 14 clusters of 1–4 rows over 4 inner levels with unequal times, a covariate like a
    /// year (1990 to 2000: X′X ill-conditioned, as dat.konstantopoulos2011's `year`), a
    /// `~ 1 | cluster` term and the struct's `~ time | cluster` term.
    fn model(s: Struct) -> MvModel {
        let mut seed = 12345u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let times = ["0", "0.5", "1.75", "4"];
        let (mut yi, mut x, mut vi, mut cl, mut inner) = (vec![], vec![], vec![], vec![], vec![]);
        for c in 0..14 {
            let rows = 1 + c % 4;
            for r in 0..rows {
                let t = (r + c) % 4;
                yi.push(0.3 * t as f64 + next() - 0.5);
                x.extend([1.0, 1990.0 + 10.0 * next()]);
                vi.push(0.05 + 0.2 * next());
                cl.push(format!("c{c}"));
                inner.push(times[t].to_string());
            }
        }
        MvModel {
            yi,
            x,
            p: 2,
            sampling: Sampling::Diagonal(vi),
            intercepts: vec![RandomIntercept {
                name: "cluster".into(),
                levels: cl.clone(),
            }],
            terms: vec![InnerOuter {
                inner_name: "time".into(),
                outer_name: "cluster".into(),
                inner,
                outer: cl,
                structure: s,
            }],
        }
    }

    /// The analytic Hessian against central differences of the analytic gradient, for
    /// every struct, REML and ML, at three points.
    #[test]
    fn hessian_matches_differences_of_the_gradient() {
        for s in Struct::ALL {
            let prepared = prepare(&model(s)).unwrap();
            let nc = prepared.layout.components.len();
            let free: Vec<usize> = (0..nc).collect();
            for point in 0..3 {
                let values: Vec<f64> = (0..nc)
                    .map(|c| {
                        let f = 0.1 * (point + c) as f64;
                        if prepared.layout.is_variance(c) {
                            0.05 + f
                        } else if s == Struct::Car {
                            0.3 + f / 2.0
                        } else {
                            0.1 + f / 2.0
                        }
                    })
                    .collect();
                for reml in [true, false] {
                    let analytic = evaluate_newton(&prepared, &values, &free, reml)
                        .unwrap()
                        .hessian;
                    let h = 1e-5;
                    let gradient_at = |c: usize, sign: f64| {
                        let mut v = values.clone();
                        v[c] = from_theta(&prepared, c, to_theta(&prepared, c, v[c]) + sign * h);
                        evaluate(&prepared, &v, &free, reml, false)
                            .unwrap()
                            .gradient
                    };
                    let big = analytic.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                    for j in 0..nc {
                        let (up, down) = (gradient_at(j, 1.0), gradient_at(j, -1.0));
                        for i in 0..nc {
                            let fd = -(up[i] - down[i]) / (2.0 * h);
                            let a = analytic[i * nc + j];
                            assert!(
                                (fd - a).abs() <= 1e-6 * big,
                                "{} reml {reml} point {point} ({i}, {j}): analytic {a}, differences {fd}",
                                s.name()
                            );
                        }
                    }
                }
            }
        }
    }
}
