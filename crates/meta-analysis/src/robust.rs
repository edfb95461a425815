//! Cluster-robust (sandwich) variance of the coefficients of a fitted model: the
//! random-effects fit, a meta-regression or the three-level model.
//!
//! With the model's weights W = V̂⁻¹ (block diagonal, its blocks inside the clusters),
//! M = (X′WX)⁻¹ and residuals e = y − Xβ̂, the estimator over m clusters c is
//! V_R = M [Σ_c X_c′W_c A_c e_c e_c′A_c′W_c X_c] M, with
//! - CR1: A_c = I and V_R multiplied by m/(m − p) (metafor's `robust(fit, cluster,
//!   adjust = TRUE)`; Hedges, Tipton & Johnson 2010); t tests with m − p df;
//! - CR2 (Bell & McCaffrey 2002; Pustejovsky & Tipton 2018, as clubSandwich's
//!   `vcovCR(type = "CR2")` with the model's V̂ as the working model): with Φ_c = V̂_c = F′F,
//!   B_c = Φ_c − X_c M X_c′ (which is (I − H)_c Φ (I − H)_c′ for inverse-variance weights) and
//!   A_c = F′ (F B_c F′)^(−½) F, which makes V_R exactly unbiased under the working model.
//!   Each coefficient j gets Satterthwaite degrees of freedom (Pustejovsky & Tipton 2018,
//!   eq. 11; clubSandwich's `coef_test(test = "Satterthwaite")`): with m_j = M e_j,
//!   g_c = A_c W_c X_c m_j, a_c = g_c′Φ_c g_c, w_c = (X_c′W_c A_c X_c)′ m_j,
//!   n_c = w_c′ M w_c and K = Σ_c w_c w_c′,
//!   df = (Σ_c (a_c − n_c))² / (Σ_c a_c² − 2 Σ_c a_c n_c + tr(K M K M)),
//!   which is 2E²/Var of the quadratic form e_j′V_R e_j under the working model, computed in
//!   O(Σ n_c³ + k p²) instead of over pairs of clusters.
//!
//! The factor F (a Cholesky factor here) does not change A_c: any two factors of Φ_c differ
//! by an orthogonal matrix, which cancels.

use crate::distributions::{t_quantile, t_two_sided_p};
use crate::meta_regression::meta_regression;
use crate::model::{fit, upper_quantile_point};
use crate::moderators::{Coding, Moderator};
use crate::multilevel::{multilevel, MultilevelOptions};
use crate::records::Record;
use crate::{FitOptions, MetaError, Test};

/// The most records one cluster may hold.
pub const MAX_CLUSTER_RECORDS: usize = 2_000;
/// The largest Σ n_c³ over the clusters (about a second of work natively).
pub const MAX_CLUSTER_COST: f64 = 2e9;

/// Which cluster-robust estimator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RobustVcov {
    /// Bias-reduced linearization with Satterthwaite df (clubSandwich's default).
    #[default]
    Cr2,
    /// The sandwich times m/(m − p), t with m − p df (metafor's `robust(adjust = TRUE)`).
    Cr1,
}

impl RobustVcov {
    pub fn name(self) -> &'static str {
        match self {
            RobustVcov::Cr2 => "CR2",
            RobustVcov::Cr1 => "CR1",
        }
    }

    /// Both estimators, the default (CR2) first.
    pub const ALL: [RobustVcov; 2] = [RobustVcov::Cr2, RobustVcov::Cr1];

    pub fn parse(name: &str) -> Option<Self> {
        RobustVcov::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// One coefficient's robust test.
#[derive(Debug, Clone, PartialEq)]
pub struct RobustCoefficient {
    pub name: String,
    pub estimate: f64,
    pub se: f64,
    /// t = estimate / se.
    pub statistic: f64,
    /// Satterthwaite (CR2) or m − p (CR1).
    pub df: f64,
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
}

/// Cluster-robust tests of every coefficient of a model.
#[derive(Debug, Clone, PartialEq)]
pub struct RobustTest {
    pub vcov: RobustVcov,
    pub level: f64,
    pub k: usize,
    pub p: usize,
    pub n_clusters: usize,
    pub coefficients: Vec<RobustCoefficient>,
    /// The robust covariance of the coefficients.
    pub covariance: Vec<Vec<f64>>,
}

/// The marginal covariance of a fitted model, record by record.
#[derive(Debug, Clone)]
pub(crate) enum Covariance {
    /// vᵢ + τ̂² on the diagonal.
    Diagonal(Vec<f64>),
    /// σ̂₁² between records of one study, plus vᵢ + σ̂₂² on the diagonal.
    Multilevel {
        v: Vec<f64>,
        study: Vec<usize>,
        sigma2: [f64; 2],
    },
}

impl Covariance {
    fn at(&self, i: usize, j: usize) -> f64 {
        match self {
            Covariance::Diagonal(d) => {
                if i == j {
                    d[i]
                } else {
                    0.0
                }
            }
            Covariance::Multilevel { v, study, sigma2 } => {
                let shared = if study[i] == study[j] { sigma2[0] } else { 0.0 };
                shared + if i == j { v[i] + sigma2[1] } else { 0.0 }
            }
        }
    }
}

/// A fitted linear model with inverse-variance weights, as the robust variance needs it.
#[derive(Debug, Clone)]
pub(crate) struct GlsModel {
    pub names: Vec<String>,
    pub beta: Vec<f64>,
    /// M = (X′WX)⁻¹.
    pub vb: Vec<Vec<f64>>,
    /// Uncentred rows, p per record.
    pub x: Vec<f64>,
    pub residuals: Vec<f64>,
    pub covariance: Covariance,
}

/// Robust tests of the random-effects fit's pooled estimate (`options.test` is not used:
/// robust inference replaces it).
pub fn robust_fit(
    records: &[Record],
    options: &FitOptions,
    clusters: &[String],
    vcov: RobustVcov,
) -> Result<RobustTest, MetaError> {
    let z = FitOptions {
        test: Test::Z,
        ..*options
    };
    let f = fit(records, &z)?;
    let model = GlsModel {
        names: vec!["intercept".into()],
        beta: vec![f.estimate],
        vb: vec![vec![f.se * f.se]],
        x: vec![1.0; records.len()],
        residuals: records.iter().map(|r| r.yi - f.estimate).collect(),
        covariance: Covariance::Diagonal(records.iter().map(|r| r.vi + f.tau2).collect()),
    };
    robust(&model, clusters, vcov, options.level)
}

/// Robust tests of a meta-regression's coefficients.
pub fn robust_meta_regression(
    records: &[Record],
    moderators: &[Moderator],
    options: &FitOptions,
    clusters: &[String],
    vcov: RobustVcov,
) -> Result<RobustTest, MetaError> {
    let z = FitOptions {
        test: Test::Z,
        ..*options
    };
    let model = meta_regression(records, moderators, &z)?;
    let coding = Coding::new(moderators, &|i| records[i].id.clone(), records.len())?;
    let p = model.p;
    let beta: Vec<f64> = model.coefficients.iter().map(|c| c.estimate).collect();
    let mut x = vec![1.0; records.len() * p];
    for i in 0..records.len() {
        for a in 1..p {
            x[i * p + a] = coding.centred[a - 1][i] + coding.means[a - 1];
        }
    }
    let residuals = records
        .iter()
        .enumerate()
        .map(|(i, r)| r.yi - (0..p).map(|a| x[i * p + a] * beta[a]).sum::<f64>())
        .collect();
    let gls = GlsModel {
        names: model.coefficients.iter().map(|c| c.name.clone()).collect(),
        beta,
        vb: model.covariance().to_vec(),
        x,
        residuals,
        covariance: Covariance::Diagonal(records.iter().map(|r| r.vi + model.tau2).collect()),
    };
    robust(&gls, clusters, vcov, options.level)
}

/// Robust tests of a three-level model's coefficients; its studies must lie inside the
/// clusters (the usual choice: the clusters are the studies).
pub fn robust_multilevel(
    records: &[Record],
    studies: &[String],
    moderators: &[Moderator],
    options: &MultilevelOptions,
    clusters: &[String],
    vcov: RobustVcov,
) -> Result<RobustTest, MetaError> {
    let model = multilevel(records, studies, moderators, options)?;
    let gls = model.robust_input();
    if clusters.len() == records.len() {
        let mut cluster_of: std::collections::HashMap<&str, &str> =
            std::collections::HashMap::new();
        for (s, c) in studies.iter().zip(clusters) {
            if let Some(prev) = cluster_of.insert(s.as_str(), c.as_str()) {
                if prev != c {
                    return Err(MetaError::Undefined {
                        reason: format!(
                            "the study {s:?} has records in the clusters {prev:?} and {c:?}; the \
                             model's studies must lie inside the clusters (cluster by study, or \
                             by a coarser grouping)"
                        ),
                    });
                }
            }
        }
    }
    robust(&gls, clusters, vcov, options.level)
}

/// The robust covariance and tests of `model` with `clusters[i]` naming record i's cluster.
pub(crate) fn robust(
    model: &GlsModel,
    clusters: &[String],
    vcov: RobustVcov,
    level: f64,
) -> Result<RobustTest, MetaError> {
    FitOptions {
        level,
        ..FitOptions::default()
    }
    .validate()?;
    let k = model.residuals.len();
    let p = model.beta.len();
    if clusters.len() != k {
        return Err(MetaError::Undefined {
            reason: format!(
                "the cluster column has {} values for {k} records",
                clusters.len()
            ),
        });
    }
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut labels: Vec<&str> = Vec::new();
    for (i, c) in clusters.iter().enumerate() {
        if c.trim().is_empty() {
            return Err(MetaError::Undefined {
                reason: format!("record {} has an empty cluster", i + 1),
            });
        }
        let n = index.len();
        let j = *index.entry(c.as_str()).or_insert(n);
        if j == members.len() {
            members.push(Vec::new());
            labels.push(c.as_str());
        }
        members[j].push(i);
    }
    let m = members.len();
    if m < 2 {
        return Err(MetaError::Undefined {
            reason: "all records are in one cluster: a cluster-robust variance needs at least 2 \
                     clusters"
                .into(),
        });
    }
    if m <= p {
        return Err(MetaError::Undefined {
            reason: format!(
                "{m} clusters cannot support {p} coefficients: a cluster-robust variance needs \
                 more clusters than coefficients (its df are m − p = {})",
                m as i64 - p as i64
            ),
        });
    }
    // Each cluster costs O(n³) (its covariance block is factored and, for CR2, its
    // adjustment's eigenvalues found): the total is bounded so that no call runs for long.
    let cost: f64 = members
        .iter()
        .map(|c| {
            let n = c.len() as f64;
            n * n * n
        })
        .sum();
    let largest = members.iter().map(Vec::len).max().unwrap_or(0);
    if largest > MAX_CLUSTER_RECORDS || cost > MAX_CLUSTER_COST {
        return Err(MetaError::Undefined {
            reason: format!(
                "the clusters are too large for a cluster-robust variance here: the largest has \
                 {largest} records (at most {MAX_CLUSTER_RECORDS} are accepted) and the sum of \
                 the cubes of their sizes is {cost:e} (at most {MAX_CLUSTER_COST:e}), each \
                 cluster costing the cube of its size; cluster more finely"
            ),
        });
    }
    if let Covariance::Multilevel { study, .. } = &model.covariance {
        // The covariance blocks must lie inside the clusters.
        let mut cluster_of_study: std::collections::HashMap<usize, usize> =
            std::collections::HashMap::new();
        for (j, rows) in members.iter().enumerate() {
            for &i in rows {
                if let Some(prev) = cluster_of_study.insert(study[i], j) {
                    if prev != j {
                        return Err(MetaError::Undefined {
                            reason: format!(
                                "a study has records in the clusters {:?} and {:?}; the model's \
                                 studies must lie inside the clusters",
                                labels[prev], labels[j]
                            ),
                        });
                    }
                }
            }
        }
    }
    let mm = &model.vb;
    let mut meat = vec![vec![0.0; p]; p];
    // Per cluster, for Satterthwaite: T_c = A_c W_c X_c (n × p), Φ_c, C_c = X_c′W_c A_c X_c.
    let mut pieces: Vec<Piece> = Vec::new();
    for (j, rows) in members.iter().enumerate() {
        let n = rows.len();
        let phi: Vec<Vec<f64>> = rows
            .iter()
            .map(|&a| rows.iter().map(|&b| model.covariance.at(a, b)).collect())
            .collect();
        let l = cholesky(&phi).ok_or(MetaError::NonFiniteResult {
            quantity: "Cholesky factor of a cluster's covariance",
        })?;
        let xc: Vec<Vec<f64>> = rows
            .iter()
            .map(|&i| model.x[i * p..(i + 1) * p].to_vec())
            .collect();
        let ec: Vec<f64> = rows.iter().map(|&i| model.residuals[i]).collect();
        // W_c X_c and W_c e_c by two triangular solves per column.
        let wx: Vec<Vec<f64>> = {
            let cols: Vec<Vec<f64>> = (0..p)
                .map(|a| chol_solve(&l, &xc.iter().map(|r| r[a]).collect::<Vec<_>>()))
                .collect();
            (0..n)
                .map(|i| (0..p).map(|a| cols[a][i]).collect())
                .collect()
        };
        let s: Vec<f64> = match vcov {
            RobustVcov::Cr1 => {
                let we = chol_solve(&l, &ec);
                (0..p)
                    .map(|a| (0..n).map(|i| xc[i][a] * we[i]).sum())
                    .collect()
            }
            RobustVcov::Cr2 => {
                // B = Φ − X M X′, G = L′ B L (F = L′), A = L G^(−½) L′.
                let mut b = phi.clone();
                for r in 0..n {
                    for c in 0..n {
                        let mut h = 0.0;
                        for a in 0..p {
                            for bb in 0..p {
                                h += xc[r][a] * mm[a][bb] * xc[c][bb];
                            }
                        }
                        b[r][c] -= h;
                    }
                }
                let bl = mat_mul(&b, &l);
                let g = mat_mul(&transpose(&l), &bl);
                let g_inv_half = inverse_sqrt(&g).ok_or_else(|| MetaError::Undefined {
                    reason: format!(
                        "the CR2 adjustment of the cluster {:?} is undefined: the model's \
                         coefficients fit its records exactly, so its residuals carry no \
                         information on their variance; cluster more coarsely",
                        labels[j]
                    ),
                })?;
                let a = mat_mul(&mat_mul(&l, &g_inv_half), &transpose(&l));
                let ae = mat_vec(&a, &ec);
                let s = (0..p)
                    .map(|c| (0..n).map(|i| wx[i][c] * ae[i]).sum())
                    .collect();
                let t = mat_mul(&a, &wx);
                let ax = mat_mul(&a, &xc);
                let cmat: Vec<Vec<f64>> = (0..p)
                    .map(|r| {
                        (0..p)
                            .map(|c| (0..n).map(|i| wx[i][r] * ax[i][c]).sum())
                            .collect()
                    })
                    .collect();
                pieces.push((t, phi, cmat));
                s
            }
        };
        for a in 0..p {
            for b in 0..p {
                meat[a][b] += s[a] * s[b];
            }
        }
    }
    let scale = match vcov {
        RobustVcov::Cr1 => m as f64 / (m - p) as f64,
        RobustVcov::Cr2 => 1.0,
    };
    let covariance: Vec<Vec<f64>> = {
        let left = mat_mul(mm, &meat);
        let v = mat_mul(&left, mm);
        v.into_iter()
            .map(|row| row.into_iter().map(|x| scale * x).collect())
            .collect()
    };
    let point = upper_quantile_point(level);
    let mut coefficients = Vec::with_capacity(p);
    for jcoef in 0..p {
        let se = covariance[jcoef][jcoef].max(0.0).sqrt();
        // Zero up to rounding against the model's own standard error: the coefficient is
        // estimated from the records of a single cluster, which carry no information on its
        // variance across clusters (metafor's robust() returns a number of the size of
        // rounding error, or NaN).
        if se.is_nan() || se <= 1e-6 * mm[jcoef][jcoef].sqrt() {
            return Err(MetaError::Undefined {
                reason: format!(
                    "the robust standard error of {} is zero up to rounding: it is estimated \
                     from the records of a single cluster (for example a moderator level found \
                     in one cluster only), so the clusters say nothing about its variance; \
                     leave that column out or cluster differently",
                    model.names[jcoef]
                ),
            });
        }
        let df = match vcov {
            RobustVcov::Cr1 => (m - p) as f64,
            RobustVcov::Cr2 => satterthwaite(&pieces, mm, jcoef),
        };
        if !(df.is_finite() && df > 0.0) {
            return Err(MetaError::NonFiniteResult {
                quantity: "Satterthwaite degrees of freedom",
            });
        }
        let estimate = model.beta[jcoef];
        let statistic = estimate / se;
        let crit = t_quantile(point, df);
        coefficients.push(RobustCoefficient {
            name: model.names[jcoef].clone(),
            estimate,
            se,
            statistic,
            df,
            p: t_two_sided_p(statistic, df),
            ci_lower: estimate - crit * se,
            ci_upper: estimate + crit * se,
        });
    }
    let result = RobustTest {
        vcov,
        level,
        k,
        p,
        n_clusters: m,
        coefficients,
        covariance,
    };
    let finite = result.coefficients.iter().all(|c| {
        [c.se, c.statistic, c.df, c.p, c.ci_lower, c.ci_upper]
            .iter()
            .all(|x| x.is_finite())
    });
    if !finite {
        return Err(MetaError::NonFiniteResult {
            quantity: "robust test of a coefficient",
        });
    }
    Ok(result)
}

/// One cluster's T_c = A_c W_c X_c, Φ_c and C_c = X_c′W_c A_c X_c, for Satterthwaite.
type Piece = (Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<Vec<f64>>);

/// The Satterthwaite df of coefficient `j` (module formula).
fn satterthwaite(pieces: &[Piece], mm: &[Vec<f64>], j: usize) -> f64 {
    let p = mm.len();
    let mj: Vec<f64> = (0..p).map(|a| mm[a][j]).collect();
    let (mut sum_e, mut sum_a2, mut sum_an) = (0.0, 0.0, 0.0);
    let mut kmat = vec![vec![0.0; p]; p];
    for (t, phi, c) in pieces {
        let g = mat_vec(t, &mj);
        let a = quad(phi, &g);
        let w: Vec<f64> = (0..p)
            .map(|col| (0..p).map(|r| c[r][col] * mj[r]).sum())
            .collect();
        let n = quad(mm, &w);
        sum_e += a - n;
        sum_a2 += a * a;
        sum_an += a * n;
        for r in 0..p {
            for col in 0..p {
                kmat[r][col] += w[r] * w[col];
            }
        }
    }
    let km = mat_mul(&kmat, mm);
    let tr_kmkm: f64 = (0..p)
        .map(|r| (0..p).map(|c| km[r][c] * km[c][r]).sum::<f64>())
        .sum();
    sum_e * sum_e / (sum_a2 - 2.0 * sum_an + tr_kmkm)
}

fn mat_mul(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let inner = b.len();
    let cols = b.first().map_or(0, Vec::len);
    a.iter()
        .map(|row| {
            (0..cols)
                .map(|c| (0..inner).map(|l| row[l] * b[l][c]).sum())
                .collect()
        })
        .collect()
}

fn mat_vec(a: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    a.iter()
        .map(|row| row.iter().zip(v).map(|(x, y)| x * y).sum())
        .collect()
}

fn quad(a: &[Vec<f64>], v: &[f64]) -> f64 {
    mat_vec(a, v).iter().zip(v).map(|(x, y)| x * y).sum()
}

fn transpose(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.first().map_or(0, Vec::len);
    (0..n)
        .map(|c| a.iter().map(|row| row[c]).collect())
        .collect()
}

/// The lower Cholesky factor L of a symmetric positive definite Φ = L L′.
fn cholesky(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = a[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>();
            if i == j {
                if !(s > 0.0 && s.is_finite()) {
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

/// Φ⁻¹ b from Φ's Cholesky factor.
fn chol_solve(l: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let n = l.len();
    let mut z = vec![0.0; n];
    for i in 0..n {
        z[i] = (b[i] - (0..i).map(|k| l[i][k] * z[k]).sum::<f64>()) / l[i][i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        x[i] = (z[i] - (i + 1..n).map(|k| l[k][i] * x[k]).sum::<f64>()) / l[i][i];
    }
    x
}

#[allow(clippy::needless_range_loop)]
/// The (Moore–Penrose) G^(−½) of a symmetric positive semi-definite G by Jacobi's
/// eigenvalue method; `None` when G is zero or not finite.
fn inverse_sqrt(g: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = g.len();
    let mut a: Vec<Vec<f64>> = g.to_vec();
    let mut v = vec![vec![0.0; n]; n];
    for (i, row) in v.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    // Sweeps until the off-diagonal mass is at rounding level (quadratic convergence gets
    // there in a few sweeps), or stops falling.
    let mut last_off = f64::INFINITY;
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        let diag: f64 = (0..n).map(|i| a[i][i] * a[i][i]).sum();
        if off <= 1e-30 * diag || off >= last_off {
            break;
        }
        last_off = off;
        for pi in 0..n {
            for q in pi + 1..n {
                if a[pi][q] == 0.0 {
                    continue;
                }
                let theta = (a[q][q] - a[pi][pi]) / (2.0 * a[pi][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for row in a.iter_mut() {
                    let (x, y) = (row[pi], row[q]);
                    row[pi] = c * x - s * y;
                    row[q] = s * x + c * y;
                }
                for col in 0..n {
                    let (x, y) = (a[pi][col], a[q][col]);
                    a[pi][col] = c * x - s * y;
                    a[q][col] = s * x + c * y;
                }
                for row in v.iter_mut() {
                    let (x, y) = (row[pi], row[q]);
                    row[pi] = c * x - s * y;
                    row[q] = s * x + c * y;
                }
            }
        }
    }
    let values: Vec<f64> = (0..n).map(|i| a[i][i]).collect();
    let largest = values.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if !(largest > 0.0 && largest.is_finite()) {
        return None;
    }
    // Eigenvalues that are zero up to rounding (a direction the model's coefficients fit
    // exactly) are left out, as clubSandwich's matrix_power does (its threshold is 1e-12
    // absolute; this one is relative to the largest, so it does not depend on the units).
    let scale: Vec<f64> = values
        .iter()
        .map(|&x| {
            if x > 1e-10 * largest {
                1.0 / x.sqrt()
            } else {
                0.0
            }
        })
        .collect();
    Some(
        (0..n)
            .map(|r| {
                (0..n)
                    .map(|c| (0..n).map(|l| v[r][l] * scale[l] * v[c][l]).sum())
                    .collect()
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_square_root_squares_to_the_inverse() {
        let g = vec![
            vec![4.0, 1.0, 0.5],
            vec![1.0, 3.0, 0.2],
            vec![0.5, 0.2, 2.0],
        ];
        let h = inverse_sqrt(&g).unwrap();
        let prod = mat_mul(&mat_mul(&h, &h), &g);
        for (i, row) in prod.iter().enumerate() {
            for (j, x) in row.iter().enumerate() {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((x - want).abs() < 1e-12, "{prod:?}");
            }
        }
        // Singular: the pseudo-inverse square root, (1/√2)·(½ J) for G = J (eigenvalue 2).
        let h = inverse_sqrt(&[vec![1.0, 1.0], vec![1.0, 1.0]]).unwrap();
        let want = 0.5 / 2f64.sqrt();
        assert!(
            h.iter().flatten().all(|x| (x - want).abs() < 1e-14),
            "{h:?}"
        );
        assert!(inverse_sqrt(&[vec![0.0]]).is_none());
    }

    #[test]
    fn a_cluster_too_large_is_refused_before_any_work() {
        let k = MAX_CLUSTER_RECORDS + 5;
        let recs: Vec<Record> = (0..k)
            .map(|i| Record::new(format!("r{i}"), (i % 7) as f64 * 0.1, 0.02))
            .collect();
        let clusters: Vec<String> = (0..k)
            .map(|i| if i < 5 { format!("c{i}") } else { "big".into() })
            .collect();
        let e = robust_fit(&recs, &FitOptions::default(), &clusters, RobustVcov::Cr2).unwrap_err();
        assert!(e.to_string().contains("too large"), "{e}");
    }

    #[test]
    fn too_few_clusters_are_refused() {
        let recs: Vec<Record> = (0..6)
            .map(|i| Record::new(format!("r{i}"), 0.1 * i as f64, 0.02))
            .collect();
        let one = vec!["a".to_string(); 6];
        let e = robust_fit(&recs, &FitOptions::default(), &one, RobustVcov::Cr2).unwrap_err();
        assert!(e.to_string().contains("at least 2"), "{e}");
        let mods = [Moderator::numeric("x", vec![1.0, 2.0, 3.0, 1.0, 5.0, 2.0])];
        let two: Vec<String> = ["a", "a", "a", "b", "b", "b"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let e = robust_meta_regression(&recs, &mods, &FitOptions::default(), &two, RobustVcov::Cr1)
            .unwrap_err();
        assert!(
            e.to_string().contains("more clusters than coefficients"),
            "{e}"
        );
    }
}
