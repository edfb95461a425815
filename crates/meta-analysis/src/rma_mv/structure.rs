//! The covariance G of an `~ inner | outer` term over the J levels of `inner`, for each
//! `struct` of metafor's rma.mv, written G = S R S with S = diag(τ_j) and R a correlation
//! matrix, and its derivatives in the unconstrained parameters (log τ², atanh ρ).

use crate::math::powi;

/// The structure of an `~ inner | outer` term (metafor's `struct`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Struct {
    /// τ² I.
    Id,
    /// τ² on the diagonal, ρτ² off it (compound symmetry).
    Cs,
    /// τ_j² on the diagonal, ρ τ_j τ_k off it.
    Hcs,
    /// Any positive definite G: τ_j² and ρ_jk.
    Un,
    /// τ² ρ^|j−k| (first-order autoregressive over the order of the levels).
    Ar,
    /// τ_j τ_k ρ^|j−k|.
    Har,
    /// diag(τ_j²).
    Diag,
}

impl Struct {
    pub const ALL: [Struct; 7] = [
        Struct::Id,
        Struct::Cs,
        Struct::Hcs,
        Struct::Un,
        Struct::Ar,
        Struct::Har,
        Struct::Diag,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Struct::Id => "ID",
            Struct::Cs => "CS",
            Struct::Hcs => "HCS",
            Struct::Un => "UN",
            Struct::Ar => "AR",
            Struct::Har => "HAR",
            Struct::Diag => "DIAG",
        }
    }

    pub fn parse(name: &str) -> Option<Struct> {
        Struct::ALL.into_iter().find(|s| s.name() == name)
    }

    /// One variance for every level, or one per level.
    fn heteroscedastic(self) -> bool {
        matches!(self, Struct::Hcs | Struct::Un | Struct::Har | Struct::Diag)
    }

    /// Number of variances over `j` levels.
    pub fn variances(self, j: usize) -> usize {
        if self.heteroscedastic() {
            j
        } else {
            1
        }
    }

    /// Number of correlations over `j` levels (UN's in metafor's order: the lower
    /// triangle column by column, ρ21, ρ31, ρ32 for J = 3).
    pub fn correlations(self, j: usize) -> usize {
        match self {
            Struct::Id | Struct::Diag => 0,
            Struct::Cs | Struct::Hcs | Struct::Ar | Struct::Har => 1,
            Struct::Un => j * (j - 1) / 2,
        }
    }
}

/// The pairs (row, column), row > column, of UN's correlations in metafor's order.
fn un_pairs(j: usize) -> Vec<(usize, usize)> {
    (0..j)
        .flat_map(|c| (c + 1..j).map(move |r| (r, c)))
        .collect()
}

/// G over `j` levels, row-major, from the variances and correlations of `s`.
pub fn g_matrix(s: Struct, j: usize, tau2: &[f64], rho: &[f64]) -> Vec<f64> {
    let sd = |a: usize| tau2[if s.heteroscedastic() { a } else { 0 }].sqrt();
    let r = correlation(s, j, rho);
    let mut g = vec![0.0; j * j];
    for a in 0..j {
        for b in 0..j {
            g[a * j + b] = if a == b {
                tau2[if s.heteroscedastic() { a } else { 0 }]
            } else {
                sd(a) * sd(b) * r[a * j + b]
            };
        }
    }
    g
}

/// R, the correlation matrix of `s`.
fn correlation(s: Struct, j: usize, rho: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; j * j];
    for a in 0..j {
        r[a * j + a] = 1.0;
    }
    match s {
        Struct::Id | Struct::Diag => {}
        Struct::Cs | Struct::Hcs => {
            for a in 0..j {
                for b in 0..j {
                    if a != b {
                        r[a * j + b] = rho[0];
                    }
                }
            }
        }
        Struct::Ar | Struct::Har => {
            for a in 0..j {
                for b in 0..j {
                    r[a * j + b] = powi(rho[0], a.abs_diff(b) as i32);
                }
            }
        }
        Struct::Un => {
            for (n, &(a, b)) in un_pairs(j).iter().enumerate() {
                r[a * j + b] = rho[n];
                r[b * j + a] = rho[n];
            }
        }
    }
    r
}

/// ∂G/∂θ for θ = (log τ²…, atanh ρ…) in that order (each J × J, row-major).
pub fn g_derivatives(s: Struct, j: usize, tau2: &[f64], rho: &[f64]) -> Vec<Vec<f64>> {
    let g = g_matrix(s, j, tau2, rho);
    let mut out = Vec::new();
    if s.heteroscedastic() {
        // G_ab = τ_a τ_b R_ab: ∂/∂ log τ_l² = G_ab ([a = l] + [b = l]) / 2.
        for l in 0..j {
            let mut d = vec![0.0; j * j];
            for a in 0..j {
                for b in 0..j {
                    let m = f64::from(u8::from(a == l) + u8::from(b == l));
                    d[a * j + b] = g[a * j + b] * m / 2.0;
                }
            }
            out.push(d);
        }
    } else {
        out.push(g.clone());
    }
    let sd = |a: usize| tau2[if s.heteroscedastic() { a } else { 0 }].sqrt();
    let scaled = |dr: &dyn Fn(usize, usize) -> f64, r: f64| {
        let mut d = vec![0.0; j * j];
        for a in 0..j {
            for b in 0..j {
                if a != b {
                    d[a * j + b] = (1.0 - r * r) * sd(a) * sd(b) * dr(a, b);
                }
            }
        }
        d
    };
    match s {
        Struct::Id | Struct::Diag => {}
        Struct::Cs | Struct::Hcs => out.push(scaled(&|_, _| 1.0, rho[0])),
        Struct::Ar | Struct::Har => {
            let r = rho[0];
            out.push(scaled(
                &|a, b| {
                    let d = a.abs_diff(b) as i32;
                    f64::from(d) * powi(r, d - 1)
                },
                r,
            ))
        }
        Struct::Un => {
            for (n, &(pa, pb)) in un_pairs(j).iter().enumerate() {
                let hit = move |a: usize, b: usize| {
                    f64::from(u8::from((a, b) == (pa, pb) || (b, a) == (pa, pb)))
                };
                out.push(scaled(&hit, rho[n]));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each analytic derivative against a central difference of G.
    #[test]
    fn derivatives_match_differences() {
        for s in Struct::ALL {
            let j = 3;
            let tau2: Vec<f64> = (0..s.variances(j)).map(|i| 0.3 + 0.2 * i as f64).collect();
            let rho: Vec<f64> = (0..s.correlations(j))
                .map(|i| 0.2 + 0.1 * i as f64)
                .collect();
            let d = g_derivatives(s, j, &tau2, &rho);
            let mut theta: Vec<f64> = tau2.iter().map(|v| v.ln()).collect();
            theta.extend(rho.iter().map(|r| r.atanh()));
            let g_at = |t: &[f64]| {
                let (v, c) = t.split_at(tau2.len());
                let v: Vec<f64> = v.iter().map(|x| x.exp()).collect();
                let c: Vec<f64> = c.iter().map(|x| x.tanh()).collect();
                g_matrix(s, j, &v, &c)
            };
            assert_eq!(d.len(), theta.len(), "{}", s.name());
            for i in 0..theta.len() {
                let h = 1e-6;
                let mut up = theta.clone();
                up[i] += h;
                let mut down = theta.clone();
                down[i] -= h;
                let (gu, gd) = (g_at(&up), g_at(&down));
                for e in 0..j * j {
                    let fd = (gu[e] - gd[e]) / (2.0 * h);
                    assert!(
                        (fd - d[i][e]).abs() < 1e-8,
                        "{} θ{i} entry {e}: {fd} vs {}",
                        s.name(),
                        d[i][e]
                    );
                }
            }
        }
    }
}
