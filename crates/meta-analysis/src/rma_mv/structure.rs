//! The covariance G of an `~ inner | outer` term over the J levels of `inner`, for each
//! `struct` of metafor's rma.mv, written G = S R S with S = diag(τ_j) and R a correlation
//! matrix, and its first and second derivatives in the optimizer's parameters θ: log τ²
//! for every variance, atanh ρ for every correlation but CAR's, logit ρ for CAR's (ρ ∈
//! [0, 1]: metafor optimizes CAR's ρ by `qlogis`, the others by `atanh`; rma.mv.r,
//! `.con.E` in misc.func.hidden.rma.mv.r).
//!
//! Every entry is G_ab = s_a s_b R_ab with s_a = τ_{i(a)}, i(a) = a for the heteroscedastic
//! structs (HCS, UN, HAR, DIAG) and 0 otherwise, and R_ab depends on at most one correlation
//! ψ_n. Writing c_l(a, b) = ([i(a) = l] + [i(b) = l]) / 2 for the variance θ_l = log τ_l²:
//! ∂G_ab/∂θ_l = c_l G_ab, ∂²G_ab/∂θ_l∂θ_m = c_l c_m G_ab, ∂G_ab/∂ψ_n = s_a s_b ∂R_ab/∂ψ_n,
//! ∂²G_ab/∂θ_l∂ψ_n = c_l s_a s_b ∂R_ab/∂ψ_n and ∂²G_ab/∂ψ_n² = s_a s_b ∂²R_ab/∂ψ_n²,
//! with, for ρ = tanh ψ (ρ′ = 1 − ρ², ρ″ = −2ρ(1 − ρ²)) and R = r(ρ),
//! ∂R/∂ψ = r′ρ′ and ∂²R/∂ψ² = r″ρ′² + r′ρ″: CS/HCS/UN r = ρ, AR/HAR r = ρ^|a−b|; and for
//! CAR, ρ = 1/(1 + e^−ψ) and R = ρ^d over d = |t_a − t_b| (the levels' numeric values):
//! ∂R/∂ψ = d(1 − ρ)R, ∂²R/∂ψ² = d(1 − ρ)R (d(1 − ρ) − ρ).

use crate::math::{pow, powi};

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
    /// τ² ρ^|t_j − t_k| over the levels' numeric values t (continuous-time
    /// autoregressive), ρ ∈ [0, 1].
    Car,
    /// Random intercepts and slopes (`~ x | id`): G is UN's over the columns (1, x), and rows
    /// a, b of one outer level covary z_a′ G z_b.
    Gen,
}

impl Struct {
    pub const ALL: [Struct; 9] = [
        Struct::Id,
        Struct::Cs,
        Struct::Hcs,
        Struct::Un,
        Struct::Ar,
        Struct::Har,
        Struct::Diag,
        Struct::Car,
        Struct::Gen,
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
            Struct::Car => "CAR",
            Struct::Gen => "GEN",
        }
    }

    pub fn parse(name: &str) -> Option<Struct> {
        Struct::ALL.into_iter().find(|s| s.name() == name)
    }

    /// One variance for every level, or one per level.
    fn heteroscedastic(self) -> bool {
        matches!(
            self,
            Struct::Hcs | Struct::Un | Struct::Har | Struct::Diag | Struct::Gen
        )
    }

    /// Whether the levels are read as numbers (their distances enter G).
    pub fn numeric_levels(self) -> bool {
        self == Struct::Car
    }

    /// The range of the correlations: [0, 1] for CAR, [−1, 1] for the others.
    pub fn correlation_range(self) -> (f64, f64) {
        if self == Struct::Car {
            (0.0, 1.0)
        } else {
            (-1.0, 1.0)
        }
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
            Struct::Cs | Struct::Hcs | Struct::Ar | Struct::Har | Struct::Car => 1,
            Struct::Un | Struct::Gen => j * (j - 1) / 2,
        }
    }
}

/// The pairs (row, column), row > column, of UN's correlations in metafor's order.
fn un_pairs(j: usize) -> Vec<(usize, usize)> {
    (0..j)
        .flat_map(|c| (c + 1..j).map(move |r| (r, c)))
        .collect()
}

/// A term's structure over its levels: the struct, J and (for CAR) the levels' values.
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    pub s: Struct,
    pub j: usize,
    /// The levels' numeric values (read by CAR only; may be empty otherwise).
    pub times: &'a [f64],
}

/// R_ab off the diagonal, with the correlation it depends on (its index) and ∂R/∂ψ,
/// ∂²R/∂ψ² there.
fn correlation_entry(
    shape: Shape,
    rho: &[f64],
    un: &[(usize, usize)],
    a: usize,
    b: usize,
) -> (f64, Option<(usize, f64, f64)>) {
    // r(ρ), r′ and r″ of an entry linear or a power of ρ, then the tanh chain rule.
    let tanh_chain = |n: usize, r: f64, r1: f64, r2: f64| {
        let rr = rho[n];
        let d1 = 1.0 - rr * rr;
        let d2 = -2.0 * rr * d1;
        (r, Some((n, r1 * d1, r2 * d1 * d1 + r1 * d2)))
    };
    match shape.s {
        Struct::Id | Struct::Diag => (0.0, None),
        Struct::Cs | Struct::Hcs => tanh_chain(0, rho[0], 1.0, 0.0),
        Struct::Un | Struct::Gen => {
            let (hi, lo) = (a.max(b), a.min(b));
            let n = un.iter().position(|&p| p == (hi, lo)).expect("a UN pair");
            tanh_chain(n, rho[n], 1.0, 0.0)
        }
        Struct::Ar | Struct::Har => {
            let d = a.abs_diff(b) as i32;
            let r = rho[0];
            let r1 = f64::from(d) * powi(r, d - 1);
            let r2 = if d >= 2 {
                f64::from(d * (d - 1)) * powi(r, d - 2)
            } else {
                0.0
            };
            tanh_chain(0, powi(r, d), r1, r2)
        }
        Struct::Car => {
            let d = (shape.times[a] - shape.times[b]).abs();
            let r = rho[0];
            let big_r = pow(r, d);
            let first = d * (1.0 - r) * big_r;
            (big_r, Some((0, first, first * (d * (1.0 - r) - r))))
        }
    }
}

/// G and its derivatives at one point: `g` (J × J), `d1[i]` = ∂G/∂θ_i and `d2[i * np + m]`
/// = ∂²G/∂θ_i∂θ_m (np = variances + correlations, θ in that order; each J × J, row-major).
pub struct GValues {
    pub g: Vec<f64>,
    pub d1: Vec<Vec<f64>>,
    pub d2: Vec<Vec<f64>>,
}

/// G over the levels of `shape`, from the variances and correlations, with its first
/// derivatives (`first`) and second derivatives (`second`) when asked.
pub fn g_values(shape: Shape, tau2: &[f64], rho: &[f64], first: bool, second: bool) -> GValues {
    let (s, j) = (shape.s, shape.j);
    let nv = tau2.len();
    let np = nv + rho.len();
    let idx = |a: usize| if s.heteroscedastic() { a } else { 0 };
    let un = if matches!(s, Struct::Un | Struct::Gen) {
        un_pairs(j)
    } else {
        Vec::new()
    };
    let mut g = vec![0.0; j * j];
    let mut d1 = if first || second {
        vec![vec![0.0; j * j]; np]
    } else {
        Vec::new()
    };
    let mut d2 = if second {
        vec![vec![0.0; j * j]; np * np]
    } else {
        Vec::new()
    };
    for a in 0..j {
        for b in 0..j {
            let e = a * j + b;
            let (ia, ib) = (idx(a), idx(b));
            let ss = if a == b {
                tau2[ia]
            } else {
                (tau2[ia] * tau2[ib]).sqrt()
            };
            let (r, dr) = if a == b {
                (1.0, None)
            } else {
                correlation_entry(shape, rho, &un, a, b)
            };
            g[e] = if a == b { ss } else { ss * r };
            if d1.is_empty() {
                continue;
            }
            let c = |l: usize| 0.5 * (f64::from(u8::from(ia == l)) + f64::from(u8::from(ib == l)));
            let vars: Vec<usize> = if ia == ib { vec![ia] } else { vec![ia, ib] };
            for &l in &vars {
                d1[l][e] = c(l) * g[e];
            }
            if let Some((n, r1, _)) = dr {
                d1[nv + n][e] = ss * r1;
            }
            if d2.is_empty() {
                continue;
            }
            for &l in &vars {
                for &m in &vars {
                    d2[l * np + m][e] = c(l) * c(m) * g[e];
                }
                if let Some((n, r1, _)) = dr {
                    d2[l * np + nv + n][e] = c(l) * ss * r1;
                    d2[(nv + n) * np + l][e] = c(l) * ss * r1;
                }
            }
            if let Some((n, _, r2)) = dr {
                d2[(nv + n) * np + nv + n][e] = ss * r2;
            }
        }
    }
    GValues { g, d1, d2 }
}

/// G over the levels of `shape`, row-major.
pub fn g_matrix(shape: Shape, tau2: &[f64], rho: &[f64]) -> Vec<f64> {
    g_values(shape, tau2, rho, false, false).g
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMES: [f64; 4] = [0.0, 0.5, 1.75, 4.0];

    /// θ → G for a struct over 4 levels (variances by exp, correlations by tanh or, for
    /// CAR, by the logistic function).
    fn g_at(s: Struct, nv: usize, theta: &[f64]) -> Vec<f64> {
        let (v, c) = theta.split_at(nv);
        let v: Vec<f64> = v.iter().map(|x| x.exp()).collect();
        let c: Vec<f64> = c
            .iter()
            .map(|x| {
                if s == Struct::Car {
                    1.0 / (1.0 + (-x).exp())
                } else {
                    x.tanh()
                }
            })
            .collect();
        let shape = Shape {
            s,
            j: 4,
            times: &TIMES,
        };
        g_matrix(shape, &v, &c)
    }

    /// Each analytic first and second derivative against central differences of G (and
    /// of the analytic first derivative).
    #[test]
    fn derivatives_match_differences() {
        let j = 4;
        for s in Struct::ALL {
            let (nv, nc) = (s.variances(j), s.correlations(j));
            let tau2: Vec<f64> = (0..nv).map(|i| 0.3 + 0.2 * i as f64).collect();
            let rho: Vec<f64> = (0..nc).map(|i| 0.2 + 0.05 * i as f64).collect();
            let shape = Shape {
                s,
                j,
                times: &TIMES,
            };
            let gv = g_values(shape, &tau2, &rho, true, true);
            let mut theta: Vec<f64> = tau2.iter().map(|v| v.ln()).collect();
            theta.extend(rho.iter().map(|r| {
                if s == Struct::Car {
                    (r / (1.0 - r)).ln()
                } else {
                    r.atanh()
                }
            }));
            let np = theta.len();
            assert_eq!(gv.d1.len(), np, "{}", s.name());
            assert!((0..j * j).all(|e| (gv.g[e] - g_at(s, nv, &theta)[e]).abs() < 1e-15));
            let h = 1e-5;
            for i in 0..np {
                let shifted = |sign: f64| {
                    let mut t = theta.clone();
                    t[i] += sign * h;
                    t
                };
                let (up, down) = (shifted(1.0), shifted(-1.0));
                let (gu, gd) = (g_at(s, nv, &up), g_at(s, nv, &down));
                let value = |t: &[f64]| {
                    let (v, c) = t.split_at(nv);
                    let v: Vec<f64> = v.iter().map(|x| x.exp()).collect();
                    let c: Vec<f64> = c
                        .iter()
                        .map(|x| {
                            if s == Struct::Car {
                                1.0 / (1.0 + (-x).exp())
                            } else {
                                x.tanh()
                            }
                        })
                        .collect();
                    g_values(shape, &v, &c, true, false).d1
                };
                let (du, dd) = (value(&up), value(&down));
                for e in 0..j * j {
                    let fd = (gu[e] - gd[e]) / (2.0 * h);
                    assert!(
                        (fd - gv.d1[i][e]).abs() < 1e-8,
                        "{} θ{i} entry {e}: {fd} vs {}",
                        s.name(),
                        gv.d1[i][e]
                    );
                    for m in 0..np {
                        let fd2 = (du[m][e] - dd[m][e]) / (2.0 * h);
                        assert!(
                            (fd2 - gv.d2[i * np + m][e]).abs() < 1e-8,
                            "{} θ{i} θ{m} entry {e}: {fd2} vs {}",
                            s.name(),
                            gv.d2[i * np + m][e]
                        );
                    }
                }
            }
        }
    }

    /// CAR's G is τ² ρ^|t_a − t_b| over the levels' values, as metafor's `outer(g.values,
    /// g.values, function(x, y) rho^abs(x - y))`.
    #[test]
    fn car_reads_the_distances() {
        let shape = Shape {
            s: Struct::Car,
            j: 4,
            times: &TIMES,
        };
        let g = g_matrix(shape, &[2.0], &[0.6]);
        assert_eq!(g[0], 2.0);
        assert!((g[2] - 2.0 * 0.6f64.powf(1.75)).abs() < 1e-15);
        assert!((g[3 * 4 + 1] - 2.0 * 0.6f64.powf(3.5)).abs() < 1e-15);
    }
}
