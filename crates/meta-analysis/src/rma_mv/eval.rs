//! The (restricted) log-likelihood of the model, its gradient and its expected information
//! in the unconstrained parameters, summed over the clusters of M.
//!
//! With W = M⁻¹, A = X′WX, F = WX and P = W − F A⁻¹ F′ (Harville 1977):
//! ML:   ℓ = −½[k log 2π + log det M + y′Py],
//! REML: ℓ = −½[(k − p) log 2π − log det X′X + log det M + log det A + y′Py]
//! (metafor's, constants included). With D_c = ∂M/∂θ_c,
//! ∂ℓ/∂θ_c = −½ tr(Q D_c) + ½ (Py)′ D_c (Py), Q = P (REML) or W (ML), and the expected
//! information is ½ tr(Q D_c Q D_d). P couples the clusters only through the p × p matrix
//! A⁻¹, so tr(P D_c) = Σ_b tr(W_b D_cb) − tr(A⁻¹ Σ_b F_b′ D_cb F_b) and
//! tr(P D_c P D_d) = Σ tr(W D_c W D_d) − 2 tr(A⁻¹ Σ F′ D_c W D_d F) + tr(A⁻¹ B_c A⁻¹ B_d),
//! B_c = Σ_b F_b′ D_cb F_b.

use super::blocks::backward_in_place;
use super::blocks::{block_matrices, cholesky, inverse, log_det, mul, term_values, tmul, DMatrix};
use super::Prepared;
use crate::math::ln;

/// One evaluation at the natural values of the components.
pub(super) struct Evaluation {
    pub loglik: f64,
    /// y′Py, the weighted residual sum of squares.
    pub rss: f64,
    /// log det M.
    pub logdet: f64,
    pub beta: Vec<f64>,
    /// (X′WX)⁻¹, p × p.
    pub vcov: Vec<f64>,
    /// ∂ℓ/∂θ over the free components.
    pub gradient: Vec<f64>,
    /// The expected information over the free components (q × q), when asked.
    pub information: Vec<f64>,
    /// −∂²ℓ/∂θ∂θ′ over the free components (q × q), when asked ([`super::hessian`]).
    pub hessian: Vec<f64>,
}

pub(super) struct BlockParts {
    /// W = M⁻¹ on the block (n × n).
    pub w: Vec<f64>,
    /// F = WX (n × p).
    pub f: Vec<f64>,
    /// ∂M/∂θ_c on the block for each free c.
    pub d: Vec<DMatrix>,
}

/// The blocks factorized at one point, with β̂, (X′WX)⁻¹ and ℓ.
pub(super) struct Solved {
    pub parts: Vec<BlockParts>,
    pub loglik: f64,
    pub rss: f64,
    pub logdet: f64,
    pub beta: Vec<f64>,
    pub vcov: Vec<f64>,
}

/// ℓ and its derivatives, or None where an M is not positive definite (G need not be, as in metafor).
pub(super) fn evaluate(
    model: &Prepared,
    values: &[f64],
    free: &[usize],
    reml: bool,
    information: bool,
) -> Option<Evaluation> {
    let s = solve(model, values, free, reml)?;
    let (gradient, info) = derivatives(
        model,
        &s.parts,
        &s.beta,
        &s.vcov,
        free.len(),
        reml,
        information,
    );
    let (beta, vcov) = natural(model, &s.beta, &s.vcov);
    Some(Evaluation {
        loglik: s.loglik,
        rss: s.rss,
        logdet: s.logdet,
        beta,
        vcov,
        gradient,
        information: info,
        hessian: Vec::new(),
    })
}

/// Factorizes M block by block at `values` and solves for β̂; None where an M is
/// not positive definite.
pub(super) fn solve(
    model: &Prepared,
    values: &[f64],
    free: &[usize],
    reml: bool,
) -> Option<Solved> {
    let layout = &model.layout;
    let p = layout.p;
    let tv = term_values(layout, values);
    let mut a = vec![0.0; p * p];
    let mut c = vec![0.0; p];
    let (mut ywy, mut logdet) = (0.0, 0.0);
    let mut parts = Vec::with_capacity(model.blocks.len());
    for (b, block) in model.blocks.iter().enumerate() {
        let n = block.rows.len();
        let (m, d) = block_matrices(layout, block, values, &tv, free);
        let l = cholesky(&m, n)?;
        logdet += log_det(&l, n);
        let w = inverse(&l, n);
        let (xb, yb) = (&model.xb[b], &model.yb[b]);
        let f = mul(&w, xb, n, n, p);
        let wy = mul(&w, yb, n, n, 1);
        for (e, v) in tmul(xb, &f, n, p, p).into_iter().enumerate() {
            a[e] += v;
        }
        for (e, v) in tmul(&f, yb, n, p, 1).into_iter().enumerate() {
            c[e] += v;
        }
        ywy += yb.iter().zip(&wy).map(|(y, v)| y * v).sum::<f64>();
        parts.push(BlockParts { w, f, d });
    }
    let la = cholesky(&a, p)?;
    let vcov = inverse(&la, p);
    let mut beta = mul(&vcov, &c, p, p, 1);
    let rss = ywy - beta.iter().zip(&c).map(|(b, c)| b * c).sum::<f64>();
    // One step of iterative refinement, β += A⁻¹ X′W(y − Xβ): an ill-conditioned X′WX
    // (a moderator like year ≈ 2000) leaves β̂ off by cond(A)·ε, and the score (through
    // Py) with it.
    let mut correction = vec![0.0; p];
    for (b, part) in parts.iter().enumerate() {
        let n = model.blocks[b].rows.len();
        let fitted = mul(&model.xb[b], &beta, n, p, 1);
        let resid: Vec<f64> = model.yb[b]
            .iter()
            .zip(&fitted)
            .map(|(y, f)| y - f)
            .collect();
        for (e, v) in tmul(&part.f, &resid, n, p, 1).into_iter().enumerate() {
            correction[e] += v;
        }
    }
    for (b, d) in beta.iter_mut().zip(mul(&vcov, &correction, p, p, 1)) {
        *b += d;
    }
    let k = layout.k as f64;
    let two_pi = ln(2.0 * std::f64::consts::PI);
    let loglik = if reml {
        -0.5 * ((k - p as f64) * two_pi - model.log_det_xx + logdet + log_det(&la, p) + rss)
    } else {
        -0.5 * (k * two_pi + logdet + rss)
    };
    Some(Solved {
        parts,
        loglik,
        rss,
        logdet,
        beta,
        vcov,
    })
}

/// β = L⁻ᵀβ̃ and its covariance L⁻ᵀ(X̃′WX̃)⁻¹L⁻¹ in X's own basis, from those of X̃ = XL⁻ᵀ.
pub(super) fn natural(model: &Prepared, beta: &[f64], vcov: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (p, l) = (model.layout.p, &model.x_factor);
    let mut b = beta.to_vec();
    backward_in_place(l, p, &mut b);
    let mut v = vcov.to_vec();
    for pass in 0..2 {
        // Columns, then (the result being symmetric) rows: L⁻ᵀ V, then (L⁻ᵀ (L⁻ᵀV)′)′.
        for c in 0..p {
            let mut col: Vec<f64> = (0..p).map(|r| v[r * p + c]).collect();
            backward_in_place(l, p, &mut col);
            for r in 0..p {
                v[r * p + c] = col[r];
            }
        }
        if pass == 0 {
            v = (0..p * p).map(|e| v[(e % p) * p + e / p]).collect();
        }
    }
    (b, v)
}

/// Py on block `b`: W_b(y_b − X_b β̂).
pub(super) fn py(model: &Prepared, part: &BlockParts, b: usize, beta: &[f64]) -> Vec<f64> {
    let n = model.blocks[b].rows.len();
    let p = model.layout.p;
    let fitted = mul(&model.xb[b], beta, n, p, 1);
    let resid: Vec<f64> = model.yb[b]
        .iter()
        .zip(&fitted)
        .map(|(y, f)| y - f)
        .collect();
    mul(&part.w, &resid, n, n, 1)
}

/// tr(A B) for n × n A and B.
pub(super) fn trace_product(a: &[f64], b: &[f64], n: usize) -> f64 {
    (0..n)
        .map(|i| (0..n).map(|j| a[i * n + j] * b[j * n + i]).sum::<f64>())
        .sum()
}

/// The score and (when asked) the expected information, from the blocks' parts.
pub(super) fn derivatives(
    model: &Prepared,
    parts: &[BlockParts],
    beta: &[f64],
    vcov: &[f64],
    q: usize,
    reml: bool,
    information: bool,
) -> (Vec<f64>, Vec<f64>) {
    let p = model.layout.p;
    let mut score = vec![0.0; q];
    let mut info = if information {
        vec![0.0; q * q]
    } else {
        Vec::new()
    };
    // B_c = Σ F′ D_c F and C_cd = Σ F′ D_c W D_d F (REML's corrections).
    let mut bc = vec![vec![0.0; p * p]; q];
    let mut ccd = vec![vec![0.0; p * p]; q * q];
    for (b, part) in parts.iter().enumerate() {
        let n = model.blocks[b].rows.len();
        let py = py(model, part, b, beta);
        let df: Vec<Vec<f64>> = part.d.iter().map(|d| d.times(&part.f, n, p)).collect();
        // D_c W (zeros of D_c skipped): tr(W D_c W D_d) = tr(D_c W D_d W).
        let dw: Vec<Vec<f64>> = if information {
            part.d.iter().map(|d| d.times(&part.w, n, n)).collect()
        } else {
            Vec::new()
        };
        let wdf: Vec<Vec<f64>> = if information && reml {
            df.iter().map(|x| mul(&part.w, x, n, n, p)).collect()
        } else {
            Vec::new()
        };
        for c in 0..q {
            let dpy = part.d[c].times(&py, n, 1);
            let d = &part.d[c].dense;
            let quad: f64 = py.iter().zip(&dpy).map(|(a, b)| a * b).sum();
            let tr: f64 = (0..n)
                .map(|i| {
                    (0..n)
                        .map(|j| part.w[i * n + j] * d[j * n + i])
                        .sum::<f64>()
                })
                .sum();
            score[c] += -0.5 * tr + 0.5 * quad;
            if reml {
                for (e, v) in tmul(&part.f, &df[c], n, p, p).into_iter().enumerate() {
                    bc[c][e] += v;
                }
            }
            if information {
                for dd in 0..q {
                    let tr2 = trace_product(&dw[c], &dw[dd], n);
                    info[c * q + dd] += 0.5 * tr2;
                    if reml {
                        for (e, v) in tmul(&df[c], &wdf[dd], n, p, p).into_iter().enumerate() {
                            ccd[c * q + dd][e] += v;
                        }
                    }
                }
            }
        }
    }
    if reml {
        let tr_ab = |a: &[f64], b: &[f64]| -> f64 {
            (0..p)
                .map(|i| (0..p).map(|j| a[i * p + j] * b[j * p + i]).sum::<f64>())
                .sum()
        };
        for c in 0..q {
            score[c] += 0.5 * tr_ab(vcov, &bc[c]);
            if information {
                let ab_c = mul(vcov, &bc[c], p, p, p);
                for dd in 0..q {
                    let ab_d = mul(vcov, &bc[dd], p, p, p);
                    info[c * q + dd] += -tr_ab(vcov, &ccd[c * q + dd]) + 0.5 * tr_ab(&ab_c, &ab_d);
                }
            }
        }
    }
    (score, info)
}
