//! Cluster-robust (sandwich) variance of the coefficients of a fitted model: the
//! random-effects fit, a meta-regression or the three-level model.
//!
//! With the model's weights W = V̂⁻¹ (block diagonal, its blocks inside the clusters),
//! M = (X′WX)⁻¹ and residuals e = y − Xβ̂, the estimator over m clusters c is
//! V_R = M [Σ_c s_c s_c′] M with s_c = X_c′W_c A_c e_c, and
//! - CR1: A_c = I and V_R multiplied by m/(m − p) (metafor's `robust(fit, cluster,
//!   adjust = TRUE)`; Hedges, Tipton & Johnson 2010); t tests with m − p df;
//! - CR2 (Bell & McCaffrey 2002; Pustejovsky & Tipton 2018, as clubSandwich's
//!   `vcovCR(type = "CR2")` with the model's V̂ as the working model): with Φ_c = V̂_c = F′F,
//!   B_c = Φ_c − X_c M X_c′ (which is (I − H)_c Φ (I − H)_c′ for inverse-variance weights) and
//!   G_c = F B_c F′, A_c = F′ G_c^(+½) F, which makes V_R exactly unbiased under the working
//!   model. Eigenvalues of G_c below 1e-10 of its largest are left out of G_c^(+½), as
//!   clubSandwich's `matrix_power` does.
//!
//! Any two factors F of Φ_c differ by an orthogonal matrix, which cancels in A_c (G_c is
//! similar to B_cΦ_c, A_c = Φ_c(B_cΦ_c)^(+½)); here F is the symmetric square root, block by
//! block ([`Factor`]). Then FΦF′ = (FF′)² = G_c + Z_cMZ_c′ with Z_c = F X_c, and F W_c = F′⁻¹,
//! so with U_c = F′⁻¹X_c and G_c = E Λ E′ everything CR2 needs is a bilinear form in E′U_c,
//! E′Z_c and E′F e_c:
//! - s_c = U_c′ G^(+½) F e_c,
//! - C_c = X_c′W_c A_c X_c = U_c′ G^(+½) Z_c,
//! - Ψ_c = U_c′ G^(+½) G G^(+½) U_c = U_c′ Π U_c (Π projects on the eigenvectors kept),
//!
//! found from one symmetric eigendecomposition of G_c that carries the 2p + 1 vectors instead
//! of forming E ([`eigen`]): (4/3)n_c³ + O(n_c² p) flops per cluster, never an n_c × n_c
//! matrix beyond G_c itself, and p × p matrices kept per cluster.
//!
//! Each coefficient j gets Satterthwaite degrees of freedom (Pustejovsky & Tipton 2018,
//! eq. 11; clubSandwich's `coef_test(test = "Satterthwaite")`): with m_j = M e_j,
//! g_c = A_c W_c X_c m_j, a_c = g_c′Φ_c g_c, w_c = C_c′ m_j, n_c = w_c′ M w_c and
//! K = Σ_c w_c w_c′,
//! df = (Σ_c (a_c − n_c))² / (Σ_c a_c² − 2 Σ_c a_c n_c + tr(K M K M)),
//! which is 2E²/Var of the quadratic form e_j′V_R e_j under the working model. Since
//! ‖F g_c‖² = m_j′U_c′G^(+½)(G + Z M Z′)G^(+½)U_c m_j, a_c − n_c = m_j′Ψ_c m_j: the df cost
//! O(p²) per cluster and coefficient, not pairs of clusters.

mod eigen;
mod htz;
mod mv;

pub use htz::HtzWald;
pub use mv::robust_rma_mv;

use std::collections::HashMap;

use crate::distributions::{t_quantile, t_two_sided_p, upper_quantile_point};
use crate::formula::ModelMatrix;
use crate::gls::{Covariance, GlsModel};
use crate::meta_regression::meta_regression_design;
use crate::model::fit;
use crate::moderators::Moderator;
use crate::multilevel::{multilevel, multilevel_design, MultilevelOptions};
use crate::records::Record;
use crate::{FitOptions, MetaError, Test};
use eigen::{axpy, dot, Eigen};

/// The most records one cluster may hold.
pub const MAX_CLUSTER_RECORDS: usize = 2_000;
/// The largest Σ n_c³ over the clusters (CR2 costs about (4/3) n_c³ flops per cluster:
/// about a second natively at this bound, `cargo xtask bench`'s `cr2_bound_*` rows).
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
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RobustCoefficient {
    /// "intercept", a numeric moderator's name, or "column:level".
    pub name: String,
    pub estimate: f64,
    /// Cluster-robust standard error.
    pub se: f64,
    /// t = estimate / se.
    pub statistic: f64,
    /// Satterthwaite (CR2) or m − p (CR1).
    pub df: f64,
    /// Two-sided p value from t with df.
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
    /// Whether the first coefficient is the intercept: the moderators' test leaves it out,
    /// and tests every coefficient of a model without one (metafor's default btt, 1:p).
    pub intercept: bool,
    pub n_clusters: usize,
    pub coefficients: Vec<RobustCoefficient>,
    /// The robust covariance of the coefficients.
    pub covariance: Vec<Vec<f64>>,
    /// What the HTZ test needs of CR2 (none under CR1).
    cr2: Option<Cr2Kept>,
}

/// CR2's per-cluster pieces and the model's M and β̂, kept for [`RobustTest::htz_wald`]
/// (p × p row-major each; C_c and Ψ_c cluster after cluster).
#[derive(Debug, Clone, PartialEq)]
struct Cr2Kept {
    beta: Vec<f64>,
    mm: Vec<f64>,
    c: Vec<f64>,
    psi: Vec<f64>,
}

/// The test of every coefficient but the intercept (every one in a model without it) under
/// CR1, as metafor's
/// `robust(adjust = TRUE)` prints it: F = b' V⁻¹ b / m on (m, clusters − p) df, V the
/// robust covariance of those m coefficients.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RobustWald {
    pub f: f64,
    pub df1: usize,
    pub df2: usize,
    pub p: f64,
}

impl RobustTest {
    /// clubSandwich's `Wald_test(constraints, vcov = "CR2", test = "HTZ")` of
    /// `constraints` β = `null` (q rows of p entries): the approximate Hotelling T² of
    /// Pustejovsky & Tipton (2018; `robust/htz.rs`). Refused under CR1, for a constraint of
    /// the wrong length, and for a constraint matrix without full row rank.
    pub fn htz_wald(&self, constraints: &[Vec<f64>], null: &[f64]) -> Result<HtzWald, MetaError> {
        let Some(kept) = &self.cr2 else {
            return Err(MetaError::Undefined {
                reason: "the HTZ test is clubSandwich's under CR2; CR1 gives metafor's F test"
                    .into(),
            });
        };
        let p = self.p;
        if constraints.is_empty() || constraints.len() != null.len() {
            return Err(MetaError::Coefficients {
                reason: format!(
                    "the Wald test needs at least one constraint and one null value for each \
                     ({} constraints, {} null values)",
                    constraints.len(),
                    null.len()
                ),
            });
        }
        if let Some(row) = constraints.iter().find(|r| r.len() != p) {
            return Err(MetaError::Coefficients {
                reason: format!(
                    "each constraint needs {p} entries, one per coefficient; one has {}",
                    row.len()
                ),
            });
        }
        if constraints
            .iter()
            .flatten()
            .chain(null)
            .any(|x| !x.is_finite())
        {
            return Err(MetaError::Coefficients {
                reason: "the constraints and null values must be finite numbers".into(),
            });
        }
        let vr: Vec<f64> = self.covariance.iter().flatten().copied().collect();
        let k_mat: Vec<f64> = constraints.iter().flatten().copied().collect();
        htz::htz(&kept.beta, &kept.mm, &vr, &kept.c, &kept.psi, &k_mat, null)
    }

    /// [`RobustTest::htz_wald`] of the coefficients `btt` (0-based) being zero.
    pub fn htz_wald_btt(&self, btt: &[usize]) -> Result<HtzWald, MetaError> {
        let rows: Vec<Vec<f64>> = btt
            .iter()
            .map(|&j| (0..self.p).map(|a| f64::from(u8::from(a == j))).collect())
            .collect();
        self.htz_wald(&rows, &vec![0.0; btt.len()])
    }

    /// The CR1 Wald test of the moderators; `None` under CR2 (see [`RobustTest::htz_wald`])
    /// or without moderators (p = 1), or when V is singular.
    pub fn cr1_wald(&self) -> Option<RobustWald> {
        let first = usize::from(self.intercept);
        if self.vcov != RobustVcov::Cr1 || self.p <= first {
            return None;
        }
        self.cr1_wald_of(&(first..self.p).collect::<Vec<_>>())
    }

    /// The CR1 Wald test that the coefficients at `positions` (0-based, each once) are zero:
    /// F = b' V⁻¹ b / m on (m, clusters − p) df, as metafor's `robust(adjust = TRUE)` tests
    /// `btt`; `None` under CR2, for an empty selection or when V is singular.
    pub fn cr1_wald_of(&self, positions: &[usize]) -> Option<RobustWald> {
        if self.vcov != RobustVcov::Cr1 || positions.is_empty() || self.n_clusters <= self.p {
            return None;
        }
        let m = positions.len();
        let mut sub = crate::weighted::Matrix::zeros(m);
        for (a, &ja) in positions.iter().enumerate() {
            for (b, &jb) in positions.iter().enumerate() {
                sub.set(a, b, self.covariance[ja][jb]);
            }
        }
        let beta: Vec<f64> = positions
            .iter()
            .map(|&j| self.coefficients[j].estimate)
            .collect();
        let f = sub.inverse().ok()?.quad(&beta) / m as f64;
        let df2 = self.n_clusters - self.p;
        Some(RobustWald {
            f,
            df1: m,
            df2,
            p: crate::distributions::f_sf(f, m as f64, df2 as f64),
        })
    }
}

/// Robust tests of the random-effects fit's pooled estimate (`options.test` is not used:
/// robust inference replaces it).
pub fn robust_fit(
    records: &[Record],
    options: &FitOptions,
    clusters: &[String],
    vcov: RobustVcov,
) -> Result<RobustTest, MetaError> {
    let groups = Clusters::group(clusters, records.len())?;
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
    robust(&model, &groups, vcov, options.level)
}

/// Robust tests of a meta-regression's coefficients.
pub fn robust_meta_regression(
    records: &[Record],
    moderators: &[Moderator],
    options: &FitOptions,
    clusters: &[String],
    vcov: RobustVcov,
) -> Result<RobustTest, MetaError> {
    // The same order of checks as the fit's: clusters, records, then the moderators.
    Clusters::group(clusters, records.len())?;
    crate::records::validate(records, 2, "a meta-regression")?;
    let design =
        ModelMatrix::from_moderators(moderators, &|i| records[i].id.clone(), records.len())?;
    robust_meta_regression_design(records, &design, options, clusters, vcov)
}

/// Robust tests of a meta-regression's coefficients, its design built from a formula
/// ([`crate::Formula::model_matrix`]).
pub fn robust_meta_regression_design(
    records: &[Record],
    design: &ModelMatrix,
    options: &FitOptions,
    clusters: &[String],
    vcov: RobustVcov,
) -> Result<RobustTest, MetaError> {
    let groups = Clusters::group(clusters, records.len())?;
    let z = FitOptions {
        test: Test::Z,
        ..*options
    };
    let model = meta_regression_design(records, design, &z)?;
    let p = model.p;
    let beta: Vec<f64> = model.coefficients.iter().map(|c| c.estimate).collect();
    let mut x = vec![1.0; records.len() * p];
    for i in 0..records.len() {
        for a in 0..p {
            x[i * p + a] = design.value(i, a);
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
    robust(&gls, &groups, vcov, options.level)
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
    let groups = Clusters::group(clusters, records.len())?;
    check_nesting(studies, clusters)?;
    let model = multilevel(records, studies, moderators, options)?;
    robust(&model.robust_input(), &groups, vcov, options.level)
}

/// The model's studies lie inside the clusters.
fn check_nesting(studies: &[String], clusters: &[String]) -> Result<(), MetaError> {
    let mut cluster_of: HashMap<&str, &str> = HashMap::new();
    for (s, c) in studies.iter().zip(clusters) {
        if let Some(prev) = cluster_of.insert(s.as_str(), c.as_str()) {
            if prev != c {
                return Err(MetaError::Undefined {
                    reason: format!(
                        "the study {s:?} has records in the clusters {prev:?} and {c:?}; the \
                         model's studies must lie inside the clusters (cluster by study, or by \
                         a coarser grouping)"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// [`robust_multilevel`] with the design built from a formula.
pub fn robust_multilevel_design(
    records: &[Record],
    studies: &[String],
    design: &ModelMatrix,
    options: &MultilevelOptions,
    clusters: &[String],
    vcov: RobustVcov,
) -> Result<RobustTest, MetaError> {
    let groups = Clusters::group(clusters, records.len())?;
    check_nesting(studies, clusters)?;
    let model = multilevel_design(records, studies, design, options)?;
    robust(&model.robust_input(), &groups, vcov, options.level)
}

/// The records grouped by cluster, in the order the clusters first appear: cluster c's
/// records are `rows[start[c]..start[c + 1]]`, in record order.
struct Clusters<'a> {
    labels: Vec<&'a str>,
    start: Vec<usize>,
    rows: Vec<usize>,
}

impl<'a> Clusters<'a> {
    /// Groups `k` records by `clusters[i]`, refusing an empty label, fewer than 2 clusters,
    /// and clusters whose CR2 would cost more than [`MAX_CLUSTER_COST`]: before any work.
    fn group(clusters: &'a [String], k: usize) -> Result<Self, MetaError> {
        if clusters.len() != k {
            return Err(MetaError::Undefined {
                reason: format!(
                    "the cluster column has {} values for {k} records",
                    clusters.len()
                ),
            });
        }
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut labels: Vec<&str> = Vec::new();
        let mut cluster_of = Vec::with_capacity(k);
        for (i, c) in clusters.iter().enumerate() {
            if c.trim().is_empty() {
                return Err(MetaError::Undefined {
                    reason: format!("record {} has an empty cluster", i + 1),
                });
            }
            let j = *index.entry(c.as_str()).or_insert(labels.len());
            if j == labels.len() {
                labels.push(c.as_str());
            }
            cluster_of.push(j);
        }
        drop(index);
        let m = labels.len();
        let mut start = vec![0usize; m + 1];
        for &j in &cluster_of {
            start[j + 1] += 1;
        }
        for j in 0..m {
            start[j + 1] += start[j];
        }
        let mut fill = start.clone();
        let mut rows = vec![0; k];
        for (i, &j) in cluster_of.iter().enumerate() {
            rows[fill[j]] = i;
            fill[j] += 1;
        }
        let groups = Clusters {
            labels,
            start,
            rows,
        };
        if m < 2 {
            return Err(MetaError::Undefined {
                reason: "all records are in one cluster: a cluster-robust variance needs at \
                         least 2 clusters"
                    .into(),
            });
        }
        groups.check_cost()?;
        Ok(groups)
    }

    fn len(&self) -> usize {
        self.labels.len()
    }

    fn rows(&self, c: usize) -> &[usize] {
        &self.rows[self.start[c]..self.start[c + 1]]
    }

    /// Each cluster costs O(n³) (for CR2, the eigenvalues of its adjustment): the total is
    /// bounded so that no call runs for long.
    fn check_cost(&self) -> Result<(), MetaError> {
        let sizes = (0..self.len()).map(|c| self.start[c + 1] - self.start[c]);
        let cost: f64 = sizes.clone().map(|n| n as f64 * n as f64 * n as f64).sum();
        let largest = sizes.max().unwrap_or(0);
        if largest > MAX_CLUSTER_RECORDS || cost > MAX_CLUSTER_COST {
            return Err(MetaError::Undefined {
                reason: format!(
                    "the clusters are too large for a cluster-robust variance here: the largest \
                     has {largest} records (at most {MAX_CLUSTER_RECORDS} are accepted) and the \
                     sum of the cubes of their sizes is {cost:e} (at most {MAX_CLUSTER_COST:e}), \
                     each cluster costing the cube of its size; cluster more finely"
                ),
            });
        }
        Ok(())
    }

    /// m > p: a cluster-robust variance has m − p df.
    fn check_supports(&self, p: usize) -> Result<(), MetaError> {
        let m = self.len();
        if m <= p {
            return Err(MetaError::Undefined {
                reason: format!(
                    "{m} clusters cannot support {p} coefficients: a cluster-robust variance \
                     needs more clusters than coefficients (its df are m − p = {})",
                    m as i64 - p as i64
                ),
            });
        }
        Ok(())
    }
}

/// The robust covariance and tests of `model` over the clusters `groups`.
fn robust(
    model: &GlsModel,
    groups: &Clusters,
    vcov: RobustVcov,
    level: f64,
) -> Result<RobustTest, MetaError> {
    FitOptions {
        level,
        ..FitOptions::default()
    }
    .validate()?;
    let p = model.beta.len();
    groups.check_supports(p)?;
    let m = groups.len();
    let (meat, pieces) = match vcov {
        RobustVcov::Cr1 => (cr1_meat(model, groups)?, None),
        RobustVcov::Cr2 => {
            let pieces = Cr2Pieces::new(model, groups)?;
            (pieces.meat.clone(), Some(pieces))
        }
    };
    let scale = match vcov {
        RobustVcov::Cr1 => m as f64 / (m - p) as f64,
        RobustVcov::Cr2 => 1.0,
    };
    let covariance = sandwich(&model.vb, &meat, scale);
    let coefficients = (0..p)
        .map(|j| {
            let df = match &pieces {
                None => (m - p) as f64,
                Some(pieces) => pieces.satterthwaite(&model.vb, j),
            };
            coefficient_test(model, &covariance, j, df, level)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RobustTest {
        vcov,
        level,
        k: model.residuals.len(),
        p,
        intercept: model.names.first().is_some_and(|n| n == "intercept"),
        n_clusters: m,
        coefficients,
        covariance,
        cr2: pieces.map(|pieces| Cr2Kept {
            beta: model.beta.clone(),
            mm: model.vb.iter().flatten().copied().collect(),
            c: pieces.c,
            psi: pieces.psi,
        }),
    })
}

/// V_R = scale · M (Σ_c s_c s_c′) M.
fn sandwich(mm: &[Vec<f64>], meat: &[f64], scale: f64) -> Vec<Vec<f64>> {
    let p = mm.len();
    let left: Vec<f64> = (0..p * p)
        .map(|rc| (0..p).map(|l| mm[rc / p][l] * meat[l * p + rc % p]).sum())
        .collect();
    (0..p)
        .map(|r| {
            (0..p)
                .map(|c| scale * (0..p).map(|l| left[r * p + l] * mm[l][c]).sum::<f64>())
                .collect()
        })
        .collect()
}

/// Coefficient j's t test: t = β̂_j / √V_R[j][j] with `df`, and its interval.
fn coefficient_test(
    model: &GlsModel,
    covariance: &[Vec<f64>],
    j: usize,
    df: f64,
    level: f64,
) -> Result<RobustCoefficient, MetaError> {
    let se = covariance[j][j].max(0.0).sqrt();
    // Zero up to rounding against the model's own standard error (metafor's robust()
    // returns a number of the size of rounding error, or NaN).
    if se.is_nan() || se <= 1e-6 * model.vb[j][j].sqrt() {
        return Err(zero_se_error(model, j));
    }
    if !(df.is_finite() && df > 0.0) {
        return Err(MetaError::NonFiniteResult {
            quantity: "Satterthwaite degrees of freedom",
        });
    }
    let estimate = model.beta[j];
    let statistic = estimate / se;
    let crit = t_quantile(upper_quantile_point(level), df);
    let c = RobustCoefficient {
        name: model.names[j].clone(),
        estimate,
        se,
        statistic,
        df,
        p: t_two_sided_p(statistic, df),
        ci_lower: estimate - crit * se,
        ci_upper: estimate + crit * se,
    };
    let finite = [c.se, c.statistic, c.df, c.p, c.ci_lower, c.ci_upper]
        .iter()
        .all(|x| x.is_finite());
    if !finite {
        return Err(MetaError::NonFiniteResult {
            quantity: "robust test of a coefficient",
        });
    }
    Ok(c)
}

/// Why coefficient j's robust standard error is zero: every residual is zero up to rounding
/// (the model fits each effect size exactly, as with identical yᵢ: the meat is zero), or
/// the coefficient is estimated from the records of a single cluster, which carry no
/// information on its variance across clusters.
fn zero_se_error(model: &GlsModel, j: usize) -> MetaError {
    let p = model.beta.len();
    let exact = model.residuals.iter().enumerate().all(|(i, e)| {
        let fitted: f64 = (0..p).map(|a| model.x[i * p + a] * model.beta[a]).sum();
        e.abs() <= 1e-9 * (model.covariance.variance(i).sqrt() + fitted.abs())
    });
    let reason = if exact {
        "the robust standard errors are zero: the model fits every effect size exactly (all \
         residuals are zero up to rounding, as when every yi is the same), so the records \
         show no variation from which to estimate a variance; robust tests need effect sizes \
         that differ"
            .to_string()
    } else {
        format!(
            "the robust standard error of {} is zero up to rounding: it is estimated from the \
             records of a single cluster (for example a moderator level found in one cluster \
             only), so the clusters say nothing about its variance; leave that column out or \
             cluster differently",
            model.names[j]
        )
    };
    MetaError::Undefined { reason }
}

/// CR1's meat Σ_c s_c s_c′ with s_c = X_c′W_c e_c = U_c′ F′⁻¹e_c (p × p, row-major).
fn cr1_meat(model: &GlsModel, groups: &Clusters) -> Result<Vec<f64>, MetaError> {
    let p = model.beta.len();
    let mut meat = vec![0.0; p * p];
    let mut factor = Factor::default();
    let mut u = Vec::new();
    let mut we = Vec::new();
    let mut s = vec![0.0; p];
    for c in 0..groups.len() {
        crate::cancel::checkpoint()?;
        let rows = groups.rows(c);
        let n = rows.len();
        factor.build(&model.covariance, rows)?;
        u.resize(p * n, 0.0);
        we.resize(n, 0.0);
        factor.apply_ft_inv(|i| model.residuals[rows[i]], &mut we);
        for (a, col) in u.chunks_exact_mut(n).enumerate() {
            factor.apply_ft_inv(|i| model.x[rows[i] * p + a], col);
            s[a] = dot(col, &we);
        }
        add_outer(&mut meat, &s, 1.0);
    }
    Ok(meat)
}

/// m ← m + α v v′ (row-major).
fn add_outer(m: &mut [f64], v: &[f64], alpha: f64) {
    for (row, vr) in m.chunks_exact_mut(v.len()).zip(v) {
        axpy(row, alpha * vr, v);
    }
}

/// What CR2 keeps of each cluster (p × p, row-major, cluster after cluster): C_c and Ψ_c,
/// and the meat Σ_c s_c s_c′ (the module's formulas).
struct Cr2Pieces {
    p: usize,
    meat: Vec<f64>,
    c: Vec<f64>,
    psi: Vec<f64>,
}

impl Cr2Pieces {
    fn new(model: &GlsModel, groups: &Clusters) -> Result<Self, MetaError> {
        let p = model.beta.len();
        let m = groups.len();
        let mut pieces = Cr2Pieces {
            p,
            meat: vec![0.0; p * p],
            c: vec![0.0; m * p * p],
            psi: vec![0.0; m * p * p],
        };
        let mut work = Cr2Work::default();
        let mut s = vec![0.0; p];
        for c in 0..m {
            crate::cancel::checkpoint()?;
            let range = c * p * p..(c + 1) * p * p;
            work.cluster(model, groups.rows(c), &mut s)
                .map_err(|e| match e {
                    Cr2Failure::Undefined => MetaError::Undefined {
                        reason: format!(
                            "the CR2 adjustment of the cluster {:?} is undefined: the model's \
                             coefficients fit its records exactly, so its residuals carry no \
                             information on their variance; cluster more coarsely",
                            groups.labels[c]
                        ),
                    },
                    Cr2Failure::Meta(e) => e,
                })?;
            work.c_and_psi(p, &mut pieces.c[range.clone()], &mut pieces.psi[range]);
            add_outer(&mut pieces.meat, &s, 1.0);
        }
        Ok(pieces)
    }

    /// Coefficient j's Satterthwaite df (the module's formula), in O(m p²).
    fn satterthwaite(&self, mm: &[Vec<f64>], j: usize) -> f64 {
        let p = self.p;
        let flat: Vec<f64> = mm.iter().flatten().copied().collect();
        let mj = &flat[j * p..(j + 1) * p];
        let quad = |a: &[f64], v: &[f64]| -> f64 {
            a.chunks_exact(p)
                .zip(v)
                .map(|(row, vr)| vr * dot(row, v))
                .sum()
        };
        let (mut sum_e, mut sum_a2, mut sum_an) = (0.0, 0.0, 0.0);
        let mut kmat = vec![0.0; p * p];
        let mut w = vec![0.0; p];
        for (c, psi) in self.c.chunks_exact(p * p).zip(self.psi.chunks_exact(p * p)) {
            // w = C′m_j.
            w.iter_mut().for_each(|x| *x = 0.0);
            for (row, ma) in c.chunks_exact(p).zip(mj) {
                axpy(&mut w, *ma, row);
            }
            let e = quad(psi, mj);
            let n = quad(&flat, &w);
            let a = e + n;
            sum_e += e;
            sum_a2 += a * a;
            sum_an += a * n;
            add_outer(&mut kmat, &w, 1.0);
        }
        let km: Vec<f64> = (0..p * p)
            .map(|rc| {
                (0..p)
                    .map(|l| kmat[rc / p * p + l] * flat[l * p + rc % p])
                    .sum()
            })
            .collect();
        let tr_kmkm: f64 = (0..p)
            .map(|r| (0..p).map(|c| km[r * p + c] * km[c * p + r]).sum::<f64>())
            .sum();
        sum_e * sum_e / (sum_a2 - 2.0 * sum_an + tr_kmkm)
    }
}

/// Why one cluster's CR2 adjustment failed.
enum Cr2Failure {
    /// G_c is zero: the model fits the cluster's records exactly.
    Undefined,
    Meta(MetaError),
}

impl From<MetaError> for Cr2Failure {
    fn from(e: MetaError) -> Self {
        Cr2Failure::Meta(e)
    }
}

/// One cluster's CR2 work, its buffers kept from cluster to cluster.
#[derive(Default)]
struct Cr2Work {
    factor: Factor,
    eigen: Eigen,
    /// G_c, n × n row-major (lower triangle).
    g: Vec<f64>,
    /// U_c′, Z_c′ and (F e_c)′, n entries each; after the eigendecomposition, E′ of each.
    carried: Vec<f64>,
    /// Z_c and Z_c M, n × p row-major.
    z: Vec<f64>,
    zm: Vec<f64>,
    /// λᵢ^(−½), or 0 for an eigenvalue left out.
    root: Vec<f64>,
    n: usize,
}

impl Cr2Work {
    /// Fills G_c and the carried vectors for the cluster `rows`, decomposes G_c, and writes
    /// s_c = U_c′ G^(+½) F e_c into `s`.
    fn cluster(
        &mut self,
        model: &GlsModel,
        rows: &[usize],
        s: &mut [f64],
    ) -> Result<(), Cr2Failure> {
        let p = model.beta.len();
        let n = rows.len();
        self.n = n;
        self.factor.build(&model.covariance, rows)?;
        self.carried.clear();
        self.carried.resize((2 * p + 1) * n, 0.0);
        {
            let (u, rest) = self.carried.split_at_mut(p * n);
            let (z, fe) = rest.split_at_mut(p * n);
            for a in 0..p {
                let x = |i: usize| model.x[rows[i] * p + a];
                self.factor.apply_ft_inv(x, &mut u[a * n..(a + 1) * n]);
                self.factor.apply_f(x, &mut z[a * n..(a + 1) * n]);
            }
            self.factor.apply_f(|i| model.residuals[rows[i]], fe);
        }
        // Z_c row by row, and Z_c M.
        self.z.clear();
        self.zm.clear();
        for i in 0..n {
            self.z.extend((0..p).map(|a| self.carried[(p + a) * n + i]));
        }
        for zi in self.z.chunks_exact(p) {
            self.zm
                .extend((0..p).map(|b| (0..p).map(|a| zi[a] * model.vb[a][b]).sum::<f64>()));
        }
        self.fill_g();
        // G_c scaled by a power of two near its largest diagonal entry (exact), so that the
        // reduction works on numbers near 1 whatever the units of yᵢ.
        let largest_diagonal = (0..n).fold(0.0f64, |m, i| m.max(self.g[i * n + i].abs()));
        if !largest_diagonal.is_finite() {
            return Err(MetaError::NonFiniteResult {
                quantity: "CR2 adjustment of a cluster",
            }
            .into());
        }
        if largest_diagonal == 0.0 {
            return Err(Cr2Failure::Undefined);
        }
        let unit = power_of_two_at_most(largest_diagonal);
        let inverse = 1.0 / unit;
        for i in 0..n {
            self.g[i * n..i * n + i + 1]
                .iter_mut()
                .for_each(|x| *x *= inverse);
        }
        let values = self
            .eigen
            .decompose(&mut self.g, n, &mut self.carried)
            .ok_or(MetaError::NonFiniteResult {
                quantity: "eigenvalues of a cluster's CR2 adjustment",
            })?;
        let largest = values.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        // The eigenvalues are finite: G_c is zero when the largest is.
        if largest <= 0.0 {
            return Err(Cr2Failure::Undefined);
        }
        self.root.clear();
        self.root.extend(values.iter().map(|&x| {
            if x > 1e-10 * largest {
                1.0 / (x * unit).sqrt()
            } else {
                0.0
            }
        }));
        let (u, rest) = self.carried.split_at(p * n);
        let fe = &rest[p * n..];
        for (a, sa) in s.iter_mut().enumerate() {
            let ua = &u[a * n..(a + 1) * n];
            *sa = (0..n).map(|i| ua[i] * self.root[i] * fe[i]).sum();
        }
        Ok(())
    }

    /// G_c = FΦ_cF′ − Z_c M Z_c′ on the lower triangle, FΦF′ block by block
    /// ([`Factor::phi_squared`]).
    fn fill_g(&mut self) {
        let n = self.n;
        let p = self.zm.len() / n.max(1);
        self.g.clear();
        self.g.resize(n * n, 0.0);
        for i in 0..n {
            let zmi = &self.zm[i * p..(i + 1) * p];
            let row = &mut self.g[i * n..i * n + i + 1];
            for (j, x) in row.iter_mut().enumerate() {
                *x = self.factor.phi_squared(i, j) - dot(zmi, &self.z[j * p..(j + 1) * p]);
            }
        }
    }

    /// C_c = U_c′ G^(+½) Z_c and Ψ_c = U_c′ Π U_c from the carried vectors (E′U_c, E′Z_c).
    fn c_and_psi(&self, p: usize, c: &mut [f64], psi: &mut [f64]) {
        let n = self.n;
        let (u, rest) = self.carried.split_at(p * n);
        for a in 0..p {
            let ua = &u[a * n..(a + 1) * n];
            for b in 0..p {
                let zb = &rest[b * n..(b + 1) * n];
                let ub = &u[b * n..(b + 1) * n];
                c[a * p + b] = (0..n).map(|i| ua[i] * self.root[i] * zb[i]).sum();
                psi[a * p + b] = (0..n)
                    .filter(|&i| self.root[i] != 0.0)
                    .map(|i| ua[i] * ub[i])
                    .sum();
            }
        }
    }
}

/// The largest power of two at most x (x positive and finite), or 1 when x is subnormal.
fn power_of_two_at_most(x: f64) -> f64 {
    let y = f64::from_bits(x.to_bits() & 0x7ff0_0000_0000_0000);
    if y > 0.0 && y.is_finite() {
        y
    } else {
        1.0
    }
}

/// A cluster's covariance Φ_c = F′F by its symmetric square root F, block by block.
///
/// A block is one study's records (the three-level model: Φ_b = Δ + σ₁² 11′ with
/// Δ = diag(vᵢ + σ₂²)) or one record (a diagonal covariance: Δ = vᵢ + τ², σ₁² = 0). With
/// u = Δ^(−½)1 and û = u/‖u‖, Φ_b = Δ^(½)(I + σ₁²‖u‖² ûû′)Δ^(½), whose square root is
/// F = S Δ^(½) with S = I + γ ûû′, (1 + γ)² = 1 + σ₁²‖u‖². Then
/// - F y = S Δ^(½) y and F′⁻¹ y = S⁻¹ Δ^(−½) y with S⁻¹ = I − γ/(1 + γ) ûû′ (O(n) each);
/// - FΦF′ = SΔ²S + σ₁² (F1)(F1)′ = Δ² + γ(û r′ + r û′) + γ²(û′r) ûû′ + σ₁² (F1)(F1)′
///   with r = Δ²û (O(1) per entry).
#[derive(Debug, Default)]
struct Factor {
    /// Per record: Δᵢ, Δᵢ^(½), ûᵢ, (F1)ᵢ and its block.
    delta: Vec<f64>,
    sd: Vec<f64>,
    u: Vec<f64>,
    f1: Vec<f64>,
    block: Vec<usize>,
    /// Per block: γ, û′Δ²û and a scratch sum.
    gamma: Vec<f64>,
    ur: Vec<f64>,
    sum: Vec<f64>,
    /// σ₁².
    shared: f64,
    /// Study index → block of the current cluster (`usize::MAX` when absent).
    local: Vec<usize>,
    /// A general model's cluster (dense blocks of M): F, F′⁻¹ and FΦF′ = Φ² as dense
    /// n × n matrices, with F = EΛ^(½)E′ from Φ_c = EΛE′ (clubSandwich factors Φ_c by
    /// Cholesky; any factor gives the same A_c); `None` for the structured kinds.
    dense: Option<Dense>,
}

/// The dense factor of one cluster of a general model.
#[derive(Debug, Default)]
struct Dense {
    n: usize,
    f: Vec<f64>,
    ft_inv: Vec<f64>,
    phi2: Vec<f64>,
    eigen: Eigen,
}

impl Dense {
    /// F, F′⁻¹ and Φ² of Φ_c, the cluster `rows` of `covariance`.
    fn build(&mut self, covariance: &Covariance, rows: &[usize]) -> Result<(), MetaError> {
        let n = rows.len();
        self.n = n;
        let mut phi = vec![0.0; n * n];
        for (a, &ra) in rows.iter().enumerate() {
            for (b, &rb) in rows.iter().enumerate().take(a + 1) {
                phi[a * n + b] = covariance.entry(ra, rb);
            }
        }
        // The identity carried: row i of the carried block ends as E′eᵢ, i.e. E's row i.
        let mut e = vec![0.0; n * n];
        (0..n).for_each(|i| e[i * n + i] = 1.0);
        let values = self
            .eigen
            .decompose(&mut phi, n, &mut e)
            .ok_or(MetaError::NonFiniteResult {
                quantity: "a cluster's covariance",
            })?
            .to_vec();
        let largest = values.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if !(largest.is_finite() && values.iter().all(|&x| x > 1e-14 * largest)) {
            return Err(MetaError::NonFiniteResult {
                quantity: "a cluster's covariance (not positive definite)",
            });
        }
        let form = |power: f64, out: &mut Vec<f64>| {
            let scaled: Vec<f64> = values.iter().map(|&x| crate::math::pow(x, power)).collect();
            out.clear();
            out.extend((0..n * n).map(|ij| {
                let (ei, ej) = (
                    &e[ij / n * n..(ij / n + 1) * n],
                    &e[ij % n * n..(ij % n + 1) * n],
                );
                (0..n).map(|l| ei[l] * scaled[l] * ej[l]).sum::<f64>()
            }));
        };
        form(0.5, &mut self.f);
        form(-0.5, &mut self.ft_inv);
        form(2.0, &mut self.phi2);
        Ok(())
    }

    /// out = A y for the n × n matrix A.
    fn apply(a: &[f64], y: impl Fn(usize) -> f64, out: &mut [f64]) {
        let n = out.len();
        let y: Vec<f64> = (0..n).map(y).collect();
        for (o, row) in out.iter_mut().zip(a.chunks_exact(n)) {
            *o = dot(row, &y);
        }
    }
}

impl Factor {
    /// The factor of the cluster `rows` (whose studies, for the three-level model, lie
    /// inside it).
    fn build(&mut self, covariance: &Covariance, rows: &[usize]) -> Result<(), MetaError> {
        self.delta.clear();
        self.block.clear();
        if let Covariance::Blocks { .. } = covariance {
            return self
                .dense
                .get_or_insert_with(Dense::default)
                .build(covariance, rows);
        }
        self.dense = None;
        let blocks = match covariance {
            Covariance::Blocks { .. } => unreachable!("handled above"),
            Covariance::Diagonal(d) => {
                self.shared = 0.0;
                self.delta.extend(rows.iter().map(|&r| d[r]));
                self.block.extend(0..rows.len());
                rows.len()
            }
            Covariance::Multilevel { v, study, sigma2 } => {
                self.shared = sigma2[0];
                let mut blocks = 0;
                for &r in rows {
                    let s = study[r];
                    if s >= self.local.len() {
                        self.local.resize(s + 1, usize::MAX);
                    }
                    if self.local[s] == usize::MAX {
                        self.local[s] = blocks;
                        blocks += 1;
                    }
                    self.block.push(self.local[s]);
                    self.delta.push(v[r] + sigma2[1]);
                }
                for &r in rows {
                    self.local[study[r]] = usize::MAX;
                }
                blocks
            }
        };
        let positive = self.delta.iter().all(|&d| d > 0.0 && d.is_finite());
        if !(positive && self.shared >= 0.0 && self.shared.is_finite()) {
            return Err(MetaError::NonFiniteResult {
                quantity: "a cluster's covariance",
            });
        }
        self.sd.clear();
        self.sd.extend(self.delta.iter().map(|d| d.sqrt()));
        // ‖u‖² per block, then û, γ, û′Δ²û and F1 = Δ^(½)1 + γ û (û′Δ^(½)1).
        let sum = &mut self.sum;
        sum.clear();
        sum.resize(blocks, 0.0);
        for (&b, &d) in self.block.iter().zip(&self.delta) {
            sum[b] += 1.0 / d;
        }
        self.gamma.clear();
        self.gamma.extend(sum.iter().map(|&nu2| {
            let x = self.shared * nu2;
            x / ((1.0 + x).sqrt() + 1.0)
        }));
        self.u.clear();
        self.u.extend(
            self.block
                .iter()
                .zip(&self.sd)
                .map(|(&b, sd)| 1.0 / sd / sum[b].sqrt()),
        );
        self.ur.clear();
        self.ur.resize(blocks, 0.0);
        sum.iter_mut().for_each(|x| *x = 0.0);
        for i in 0..self.block.len() {
            let (b, ui, d) = (self.block[i], self.u[i], self.delta[i]);
            self.ur[b] += d * d * ui * ui;
            sum[b] += ui * self.sd[i];
        }
        self.f1.clear();
        self.f1.extend(
            (0..self.block.len())
                .map(|i| self.sd[i] + self.gamma[self.block[i]] * self.u[i] * sum[self.block[i]]),
        );
        Ok(())
    }

    /// out = F y, y given record by record.
    fn apply_f(&mut self, y: impl Fn(usize) -> f64, out: &mut [f64]) {
        self.apply(y, false, out)
    }

    /// out = F′⁻¹ y = W F′ y.
    fn apply_ft_inv(&mut self, y: impl Fn(usize) -> f64, out: &mut [f64]) {
        self.apply(y, true, out)
    }

    /// out = S Δ^(½) y, or S⁻¹ Δ^(−½) y when `inverse`, block by block.
    fn apply(&mut self, y: impl Fn(usize) -> f64, inverse: bool, out: &mut [f64]) {
        if let Some(d) = &self.dense {
            return Dense::apply(if inverse { &d.ft_inv } else { &d.f }, y, out);
        }
        for (i, o) in out.iter_mut().enumerate() {
            *o = if inverse {
                y(i) / self.sd[i]
            } else {
                self.sd[i] * y(i)
            };
        }
        if self.shared == 0.0 {
            // S = I.
            return;
        }
        self.sum.iter_mut().for_each(|x| *x = 0.0);
        for (i, o) in out.iter().enumerate() {
            self.sum[self.block[i]] += self.u[i] * o;
        }
        for (i, o) in out.iter_mut().enumerate() {
            let b = self.block[i];
            let g = if inverse {
                -self.gamma[b] / (1.0 + self.gamma[b])
            } else {
                self.gamma[b]
            };
            *o += g * self.u[i] * self.sum[b];
        }
    }

    /// (FΦF′)ᵢⱼ.
    fn phi_squared(&self, i: usize, j: usize) -> f64 {
        if let Some(d) = &self.dense {
            return d.phi2[i * d.n + j];
        }
        let b = self.block[i];
        if b != self.block[j] {
            return 0.0;
        }
        let diagonal = if i == j {
            self.delta[i] * self.delta[i]
        } else {
            0.0
        };
        if self.shared == 0.0 {
            return diagonal;
        }
        let (g, ui, uj) = (self.gamma[b], self.u[i], self.u[j]);
        let (ri, rj) = (
            self.delta[i] * self.delta[i] * ui,
            self.delta[j] * self.delta[j] * uj,
        );
        diagonal
            + g * (ui * rj + ri * uj)
            + g * g * self.ur[b] * ui * uj
            + self.shared * self.f1[i] * self.f1[j]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dense Φ_c of `rows` under `covariance`.
    fn dense_phi(covariance: &Covariance, n: usize) -> Vec<f64> {
        let mut phi = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                phi[i * n + j] = match covariance {
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
                    Covariance::Blocks { .. } => covariance.entry(i, j),
                };
            }
        }
        phi
    }

    #[test]
    fn the_factor_is_a_square_root_of_the_covariance() {
        let n = 7;
        let multilevel = Covariance::Multilevel {
            v: vec![0.02, 0.05, 0.01, 0.3, 0.07, 0.02, 0.11],
            study: vec![4, 4, 1, 4, 0, 1, 2],
            sigma2: [0.09, 0.04],
        };
        let diagonal = Covariance::Diagonal(vec![0.02, 0.05, 0.01, 0.3, 0.07, 0.02, 0.11]);
        for covariance in [multilevel, diagonal] {
            let phi = dense_phi(&covariance, n);
            let rows: Vec<usize> = (0..n).collect();
            let mut factor = Factor::default();
            factor.build(&covariance, &rows).unwrap();
            // Columns of F and of F′⁻¹, by applying them to unit vectors.
            let mut f = vec![0.0; n * n];
            let mut ft_inv = vec![0.0; n * n];
            let mut col = vec![0.0; n];
            for c in 0..n {
                factor.apply_f(|i| if i == c { 1.0 } else { 0.0 }, &mut col);
                (0..n).for_each(|r| f[r * n + c] = col[r]);
                factor.apply_ft_inv(|i| if i == c { 1.0 } else { 0.0 }, &mut col);
                (0..n).for_each(|r| ft_inv[r * n + c] = col[r]);
            }
            for i in 0..n {
                for j in 0..n {
                    // F′F = Φ, F′⁻¹ F′ = I and FΦF′ as phi_squared has it.
                    let ftf: f64 = (0..n).map(|l| f[l * n + i] * f[l * n + j]).sum();
                    assert!((ftf - phi[i * n + j]).abs() < 1e-15, "{i} {j}");
                    let id: f64 = (0..n).map(|l| ft_inv[i * n + l] * f[j * n + l]).sum();
                    assert!(
                        (id - if i == j { 1.0 } else { 0.0 }).abs() < 1e-13,
                        "{i} {j}"
                    );
                    let fpf: f64 = (0..n)
                        .flat_map(|a| (0..n).map(move |b| (a, b)))
                        .map(|(a, b)| f[i * n + a] * phi[a * n + b] * f[j * n + b])
                        .sum();
                    assert!((fpf - factor.phi_squared(i, j)).abs() < 1e-15, "{i} {j}");
                }
            }
        }
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
