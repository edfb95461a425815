//! The known sampling covariance of dependent effect sizes, as metafor's `vcalc()` builds it
//! (metafor 3.8-1, `R/vcalc.r`).
//!
//! Records i and j of the same cluster get Vᵢⱼ = √vᵢ Rᵢⱼ √vⱼ (records of different clusters
//! are uncorrelated), with the correlation
//!
//! Rᵢⱼ = ρᵢⱼ · Tᵢⱼ,
//!
//! - ρᵢⱼ, the construct part: 1 when i and j share the type and the observation; the
//!   within-construct correlation ρ_obs(obsᵢ, obsⱼ) when they share the type but not the
//!   observation; the between-construct correlation ρ_type(typeᵢ, typeⱼ) when their types
//!   differ (whatever their observations);
//! - Tᵢⱼ, the time (and group) part. With a(g, t; g′, t′) = 1 when g = g′ and t = t′,
//!   φ^|t − t′| when g = g′ and t ≠ t′, and 0 when g ≠ g′, each record a contrast of group
//!   grp1 at time1 (weight w1) against group grp2 at time2 (weight w2):
//!
//!   Tᵢⱼ = [a(g1ᵢ,t1ᵢ; g1ⱼ,t1ⱼ)/√(w1ᵢw1ⱼ) − a(g1ᵢ,t1ᵢ; g2ⱼ,t2ⱼ)/√(w1ᵢw2ⱼ)
//!   − a(g2ᵢ,t2ᵢ; g1ⱼ,t1ⱼ)/√(w2ᵢw1ⱼ) + a(g2ᵢ,t2ᵢ; g2ⱼ,t2ⱼ)/√(w2ᵢw2ⱼ)] / (sᵢ sⱼ),
//!
//!   sᵢ = √(1/w1ᵢ + 1/w2ᵢ − 2 a(g1ᵢ,t1ᵢ; g2ᵢ,t2ᵢ)/√(w1ᵢw2ᵢ)).
//!
//!   The defaults (grp1 = 1, grp2 = 2, time2 = time1, w1 = w2 = 1, φ = 1) make Tᵢⱼ =
//!   φ^|time1ᵢ − time1ⱼ|: with only `time1` given, an autocorrelation over time.
//!
//! metafor's rules on what must come together are kept: `type` or `obs` needs its ρ (both:
//! one ρ for each), `time1` or `time2` needs φ, `time2` and `w2` need `grp2`, `grp2` and `w2`
//! need `grp1`/`w1`; ρ and φ lie in [−1, 1]. A correlation between levels is one number for
//! every pair of levels, or a matrix over named levels (metafor's matrix `rho`, read by the
//! levels' names; metafor indexes a matrix by a numeric `obs` by position).
//!
//! Where metafor warns that a cluster's correlation matrix "appears to be not positive
//! definite" (an eigenvalue at most machine epsilon) and returns it anyway, [`vcalc`] refuses
//! it, naming the cluster: a V that is not positive definite cannot be a covariance. The test
//! is a Cholesky factorization of the cluster's R whose pivots must exceed n·ε.
//! metafor's `rvars` (correlations read from columns) and `nearpd` are not offered here.

use crate::MetaError;

/// A correlation between the levels of `obs` or of `type`.
#[derive(Debug, Clone, PartialEq)]
pub enum LevelCorrelation {
    /// The same correlation for every pair of distinct levels.
    Constant(f64),
    /// A symmetric matrix over named levels (row-major, `levels.len()` squared entries);
    /// every level of the column must be among `levels`. The diagonal is not read.
    Matrix {
        levels: Vec<String>,
        values: Vec<f64>,
    },
}

impl LevelCorrelation {
    fn check(&self, what: &str) -> Result<(), MetaError> {
        let values: &[f64] = match self {
            LevelCorrelation::Constant(r) => std::slice::from_ref(r),
            LevelCorrelation::Matrix { levels, values } => {
                let n = levels.len();
                if values.len() != n * n {
                    return undefined(format!(
                        "the {what} correlation matrix has {} entries for {n} levels ({} needed)",
                        values.len(),
                        n * n
                    ));
                }
                for a in 0..n {
                    for b in 0..a {
                        if values[a * n + b] != values[b * n + a] {
                            return undefined(format!(
                                "the {what} correlation matrix is not symmetric: the entries of \
                                 {:?} and {:?} differ",
                                levels[a], levels[b]
                            ));
                        }
                    }
                }
                values
            }
        };
        match values.iter().find(|r| r.is_nan() || r.abs() > 1.0) {
            Some(r) => undefined(format!(
                "the {what} correlation must lie in [-1, 1], got {r}"
            )),
            None => Ok(()),
        }
    }

    /// The correlation of levels `a` and `b` (distinct).
    fn between(&self, a: &str, b: &str, what: &str) -> Result<f64, MetaError> {
        match self {
            LevelCorrelation::Constant(r) => Ok(*r),
            LevelCorrelation::Matrix { levels, values } => {
                let at = |l: &str| {
                    levels
                        .iter()
                        .position(|x| x == l)
                        .ok_or_else(|| MetaError::Undefined {
                            reason: format!(
                                "the {what} value {l:?} has no row in the correlation matrix \
                             (its levels: {levels:?})"
                            ),
                        })
                };
                Ok(values[at(a)? * levels.len() + at(b)?])
            }
        }
    }
}

/// What `vcalc` reads, one entry per record for each column given (metafor's arguments of
/// the same names; `kind` is metafor's `type`).
#[derive(Debug, Clone, Default)]
pub struct VcalcInput<'a> {
    /// The sampling variances vᵢ (non-negative, finite).
    pub vi: &'a [f64],
    /// The cluster of each record (records of different clusters are independent).
    pub cluster: &'a [String],
    /// Splits the clusters further (metafor's `subgroup`: cluster and subgroup together).
    pub subgroup: Option<&'a [String]>,
    /// The observation (sample or participants) a record is measured on.
    pub obs: Option<&'a [String]>,
    /// The construct (outcome type) a record measures.
    pub kind: Option<&'a [String]>,
    pub time1: Option<&'a [f64]>,
    pub time2: Option<&'a [f64]>,
    pub grp1: Option<&'a [String]>,
    pub grp2: Option<&'a [String]>,
    pub w1: Option<&'a [f64]>,
    pub w2: Option<&'a [f64]>,
    /// The correlation of records on different observations of the same construct (needed
    /// with `obs`).
    pub rho_obs: Option<LevelCorrelation>,
    /// The correlation of records on different constructs (needed with `kind`).
    pub rho_type: Option<LevelCorrelation>,
    /// The autocorrelation over time (needed with `time1`), in [−1, 1].
    pub phi: Option<f64>,
}

/// One cluster's block of V.
#[derive(Debug, Clone, PartialEq)]
pub struct VBlock {
    /// The cluster's label (with metafor's `subgroup`: "cluster.subgroup").
    pub cluster: String,
    /// The cluster's records, as indices into the input, in input order.
    pub rows: Vec<usize>,
    /// The covariance of those records: n × n, row-major, symmetric (n = `rows.len()`);
    /// entry (a, b) is V of records `rows[a]` and `rows[b]`.
    pub cov: Vec<f64>,
}

impl VBlock {
    /// V of the block's a-th and b-th records.
    pub fn get(&self, a: usize, b: usize) -> f64 {
        self.cov[a * self.rows.len() + b]
    }
}

fn undefined<T>(reason: String) -> Result<T, MetaError> {
    Err(MetaError::Undefined { reason })
}

/// A column has one value per record.
fn check_len<T>(column: Option<&[T]>, name: &str, k: usize) -> Result<(), MetaError> {
    match column {
        Some(c) if c.len() != k => undefined(format!(
            "the {name} column has {} values for {k} records",
            c.len()
        )),
        _ => Ok(()),
    }
}

/// The argument checks of metafor's `vcalc()`, in its order where the messages overlap.
fn check(input: &VcalcInput) -> Result<(), MetaError> {
    let k = input.vi.len();
    if k < 2 {
        return undefined(format!("vcalc needs at least 2 records, got {k}"));
    }
    check_len(Some(input.cluster), "cluster", k)?;
    check_len(input.subgroup, "subgroup", k)?;
    check_len(input.obs, "obs", k)?;
    check_len(input.kind, "type", k)?;
    check_len(input.time1, "time1", k)?;
    check_len(input.time2, "time2", k)?;
    check_len(input.grp1, "grp1", k)?;
    check_len(input.grp2, "grp2", k)?;
    check_len(input.w1, "w1", k)?;
    check_len(input.w2, "w2", k)?;
    if let Some(i) = input.vi.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        return undefined(format!(
            "record {} has the sampling variance {}: vcalc needs finite vi of at least 0",
            i + 1,
            input.vi[i]
        ));
    }
    if input.kind.is_some() && input.rho_type.is_none() {
        return undefined("type needs rho (the correlation between constructs)".into());
    }
    if input.obs.is_some() && input.rho_obs.is_none() {
        return undefined("obs needs rho (the correlation within a construct)".into());
    }
    if input.grp2.is_some() && input.grp1.is_none() {
        return undefined("grp2 needs grp1 (give grp1 alone, both, or neither)".into());
    }
    if input.time2.is_some() && input.time1.is_none() {
        return undefined("time2 needs time1 (give time1 alone, both, or neither)".into());
    }
    if input.time2.is_some() && input.grp2.is_none() {
        return undefined("time2 needs grp2".into());
    }
    if input.w2.is_some() && input.w1.is_none() {
        return undefined("w2 needs w1 (give w1 alone, both, or neither)".into());
    }
    if input.w2.is_some() && input.grp2.is_none() {
        return undefined("w2 needs grp2".into());
    }
    if input.time1.is_some() && input.phi.is_none() {
        return undefined("time1 needs phi (the autocorrelation over time)".into());
    }
    if let Some(phi) = input.phi {
        if phi.is_nan() || phi.abs() > 1.0 {
            return undefined(format!("phi must lie in [-1, 1], got {phi}"));
        }
    }
    for (column, name) in [
        (input.time1, "time1"),
        (input.time2, "time2"),
        (input.w1, "w1"),
        (input.w2, "w2"),
    ] {
        if let Some(i) = column.and_then(|c| c.iter().position(|x| !x.is_finite())) {
            return undefined(format!("record {} has no finite {name}", i + 1));
        }
    }
    for (column, name) in [(input.w1, "w1"), (input.w2, "w2")] {
        if let Some(i) = column.and_then(|c| c.iter().position(|x| *x <= 0.0)) {
            return undefined(format!("record {} has a {name} of at most 0", i + 1));
        }
    }
    if let Some(r) = &input.rho_obs {
        r.check("within-construct (obs)")?;
    }
    if let Some(r) = &input.rho_type {
        r.check("between-construct (type)")?;
    }
    Ok(())
}

/// The clusters (with `subgroup`, "cluster.subgroup") in the order they first appear, each
/// with its records in input order.
fn clusters(input: &VcalcInput) -> Vec<(String, Vec<usize>)> {
    let labels: Vec<String> = match input.subgroup {
        None => input.cluster.to_vec(),
        Some(s) => input
            .cluster
            .iter()
            .zip(s)
            .map(|(c, s)| format!("{c}.{s}"))
            .collect(),
    };
    let mut order: Vec<(String, Vec<usize>)> = Vec::new();
    let mut index: std::collections::HashMap<&str, usize> = Default::default();
    for (i, c) in labels.iter().enumerate() {
        let j = *index.entry(c.as_str()).or_insert(order.len());
        if j == order.len() {
            order.push((c.clone(), Vec::new()));
        }
        order[j].1.push(i);
    }
    order
}

/// One record's group, time and weight at each of its two ends.
struct Ends<'a> {
    grp: [&'a str; 2],
    time: [f64; 2],
    w: [f64; 2],
}

/// The sampling covariance V of the records, cluster by cluster (metafor's `vcalc()`; the
/// module's formulas). The blocks come in the order the clusters first appear.
pub fn vcalc(input: &VcalcInput) -> Result<Vec<VBlock>, MetaError> {
    check(input)?;
    let k = input.vi.len();
    let order = clusters(input);
    let phi = input.phi.unwrap_or(1.0);
    let one = "1";
    let ends: Vec<Ends> = (0..k)
        .map(|i| {
            let t1 = input.time1.map_or(1.0, |t| t[i]);
            let w1 = input.w1.map_or(1.0, |w| w[i]);
            Ends {
                grp: [
                    input.grp1.map_or(one, |g| g[i].as_str()),
                    input.grp2.map_or("2", |g| g[i].as_str()),
                ],
                time: [t1, input.time2.map_or(t1, |t| t[i])],
                w: [w1, input.w2.map_or(w1, |w| w[i])],
            }
        })
        .collect();
    // a(g, t; g′, t′).
    let a = |gi: &str, ti: f64, gj: &str, tj: f64| -> f64 {
        if gi != gj {
            0.0
        } else if ti == tj {
            1.0
        } else {
            crate::math::pow(phi, (ti - tj).abs())
        }
    };
    let spread = |e: &Ends| -> f64 {
        (1.0 / e.w[0] + 1.0 / e.w[1]
            - 2.0
                * a(e.grp[0], e.time[0], e.grp[1], e.time[1])
                * (1.0 / e.w[0] * (1.0 / e.w[1])).sqrt())
        .sqrt()
    };
    let scale: Vec<f64> = ends.iter().map(spread).collect();
    let time_part = |i: usize, j: usize| -> f64 {
        let (ei, ej) = (&ends[i], &ends[j]);
        let mut sum = 0.0;
        for (x, sx) in [(0, 1.0), (1, -1.0)] {
            for (y, sy) in [(0, 1.0), (1, -1.0)] {
                sum += sx
                    * sy
                    * a(ei.grp[x], ei.time[x], ej.grp[y], ej.time[y])
                    * (1.0 / ei.w[x] * (1.0 / ej.w[y])).sqrt();
            }
        }
        sum / (scale[i] * scale[j])
    };
    let construct_part = |i: usize, j: usize| -> Result<f64, MetaError> {
        let same_type = input.kind.is_none_or(|t| t[i] == t[j]);
        if same_type {
            match input.obs {
                Some(o) if o[i] != o[j] => input
                    .rho_obs
                    .as_ref()
                    .expect("checked")
                    .between(&o[i], &o[j], "obs"),
                _ => Ok(1.0),
            }
        } else {
            let t = input.kind.expect("types differ");
            input
                .rho_type
                .as_ref()
                .expect("checked")
                .between(&t[i], &t[j], "type")
        }
    };
    let mut blocks = Vec::with_capacity(order.len());
    for (cluster, rows) in order {
        crate::cancel::checkpoint()?;
        let n = rows.len();
        let mut r = vec![0.0; n * n];
        for a in 0..n {
            for b in 0..=a {
                let (i, j) = (rows[a], rows[b]);
                let rij = construct_part(i, j)? * time_part(i, j);
                r[a * n + b] = rij;
                r[b * n + a] = rij;
            }
        }
        if !r.iter().all(|x| x.is_finite()) {
            return undefined(format!(
                "the correlations of cluster {cluster:?} are not finite (a record whose two \
                 groups are the same at the same time has no variance in metafor's formula)"
            ));
        }
        if !positive_definite(&r, n) {
            return undefined(format!(
                "the sampling correlation matrix of cluster {cluster:?} is not positive \
                 definite (metafor's vcalc() warns and returns it; a covariance must be \
                 positive definite): check rho and phi, and that no two records of the \
                 cluster share obs and type (they would be correlated 1)"
            ));
        }
        let root: Vec<f64> = rows.iter().map(|&i| input.vi[i].sqrt()).collect();
        let cov = (0..n * n)
            .map(|ab| root[ab / n] * r[ab] * root[ab % n])
            .collect();
        blocks.push(VBlock { cluster, rows, cov });
    }
    Ok(blocks)
}

/// Whether the symmetric n × n matrix `r` (a correlation matrix) is positive definite: its
/// Cholesky factorization has every pivot above n·ε.
fn positive_definite(r: &[f64], n: usize) -> bool {
    let mut l = vec![0.0; n * n];
    let floor = n as f64 * f64::EPSILON;
    for j in 0..n {
        let d = r[j * n + j] - (0..j).map(|m| l[j * n + m] * l[j * n + m]).sum::<f64>();
        if d.is_nan() || d <= floor {
            return false;
        }
        let root = d.sqrt();
        l[j * n + j] = root;
        for i in j + 1..n {
            let s = r[i * n + j] - (0..j).map(|m| l[i * n + m] * l[j * n + m]).sum::<f64>();
            l[i * n + j] = s / root;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn obs_within_a_cluster_gets_rho_and_clusters_are_independent() {
        let vi = [0.04, 0.09, 0.01];
        let cluster = s(&["a", "a", "b"]);
        let obs = s(&["1", "2", "1"]);
        let blocks = vcalc(&VcalcInput {
            vi: &vi,
            cluster: &cluster,
            obs: Some(&obs),
            rho_obs: Some(LevelCorrelation::Constant(0.5)),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].rows, vec![0, 1]);
        assert!((blocks[0].get(0, 1) - 0.5 * 0.2 * 0.3).abs() < 1e-15);
        assert!((blocks[0].get(0, 0) - 0.04).abs() < 1e-17);
        assert!((blocks[1].cov[0] - 0.01).abs() < 1e-17);
    }

    #[test]
    fn time_gives_phi_to_the_power_of_the_distance() {
        let vi = [1.0, 1.0, 1.0];
        let cluster = s(&["a", "a", "a"]);
        let time = [0.0, 1.0, 3.0];
        let b = &vcalc(&VcalcInput {
            vi: &vi,
            cluster: &cluster,
            time1: Some(&time),
            phi: Some(0.5),
            ..Default::default()
        })
        .unwrap()[0];
        assert!((b.get(0, 1) - 0.5).abs() < 1e-15);
        assert!((b.get(0, 2) - 0.125).abs() < 1e-15);
        assert!((b.get(1, 2) - 0.25).abs() < 1e-15);
    }

    #[test]
    fn a_matrix_that_is_not_positive_definite_is_refused_naming_its_cluster() {
        let vi = [1.0, 1.0];
        let cluster = s(&["trial 7", "trial 7"]);
        let obs = s(&["1", "1"]);
        let e = vcalc(&VcalcInput {
            vi: &vi,
            cluster: &cluster,
            obs: Some(&obs),
            rho_obs: Some(LevelCorrelation::Constant(0.5)),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("\"trial 7\"") && e.contains("not positive"),
            "{e}"
        );
    }

    #[test]
    fn rules_of_metafor_are_kept() {
        let vi = [1.0, 1.0];
        let cluster = s(&["a", "a"]);
        let obs = s(&["1", "2"]);
        let time = [1.0, 2.0];
        let base = VcalcInput {
            vi: &vi,
            cluster: &cluster,
            ..Default::default()
        };
        let err = |input: VcalcInput| vcalc(&input).unwrap_err().to_string();
        assert!(err(VcalcInput {
            obs: Some(&obs),
            ..base.clone()
        })
        .contains("obs needs rho"));
        assert!(err(VcalcInput {
            time1: Some(&time),
            ..base.clone()
        })
        .contains("needs phi"));
        let e = err(VcalcInput {
            obs: Some(&obs),
            rho_obs: Some(LevelCorrelation::Constant(1.5)),
            ..base.clone()
        });
        assert!(e.contains("[-1, 1]") && e.contains("1.5"), "{e}");
        let e = err(VcalcInput {
            time1: Some(&time),
            phi: Some(-2.0),
            ..base.clone()
        });
        assert!(e.contains("phi must lie"), "{e}");
    }
}
