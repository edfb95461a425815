//! Case-deletion diagnostics of a general rma.mv model, as metafor's cooks.distance(),
//! dfbetas(), rstudent() and hatvalues() of an rma.mv fit (metafor has no influence() for
//! it): each deletion unit (a record, or with `cluster` a cluster) is left out, the model
//! refitted by the engine with the components re-estimated (held where given), and
//!  - Cook's distance (b − b₍₋ᵢ₎)′ Var(b)⁻¹ (b − b₍₋ᵢ₎);
//!  - DFBETAS (b − b₍₋ᵢ₎) / √diag Var₍₋ᵢ₎(b), the full data's Var(b) at the deleted fit's
//!    components;
//!  - the deleted residuals yᵢ − Xᵢb₍₋ᵢ₎, their SEs √diag(M₍₋ᵢ₎[i,i] + XᵢVar(b₍₋ᵢ₎)Xᵢ′)
//!    (M₍₋ᵢ₎ the full data's marginal covariance at the deleted fit's components), and per
//!    cluster X² = eᵢ′(M₍₋ᵢ₎[i,i] + XᵢVar(b₍₋ᵢ₎)Xᵢ′)⁻¹eᵢ.

use super::super::forest_plot::general::{inverse_blocks, spd_inverse, General};
use meta_analysis::rma_mv::{marginal_blocks, rma_mv, MvFit, MvModel, Sampling, VBlock};
use serde::{Deserialize, Serialize};

/// One deletion unit's diagnostics; `None` where the refit fails or cannot be compared (a
/// component's level absent from the data left, where metafor gives NA).
pub(crate) struct Deleted {
    pub cook_d: Option<f64>,
    pub dfbetas: Option<Vec<f64>>,
    /// Per row of the unit, in model-row order.
    pub resid: Vec<Option<f64>>,
    pub se: Vec<Option<f64>>,
    pub x2: Option<f64>,
    /// The deleted fit's components.
    pub del: DeletedComponents,
}

/// The components re-estimated without a unit (metafor's rma.mv refit's sigma2, tau2, rho);
/// empty where the refit failed or the model has none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct DeletedComponents {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sigma2_del: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tau2_del: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rho_del: Vec<f64>,
}

/// A record's row of a general model's diagnostics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MvRecordInfluence {
    pub id: String,
    /// The deleted residual (its record's unit left out: the record, or its cluster), its
    /// SE and their ratio (metafor's rstudent(): resid, se, z).
    pub resid: Option<f64>,
    pub se: Option<f64>,
    pub z: Option<f64>,
    /// Without `cluster`: Cook's distance and DFBETAS (one per coefficient) of leaving the
    /// record out; null with `cluster` (then per cluster).
    pub cook_d: Option<f64>,
    pub dfbetas: Option<Vec<f64>>,
    /// hatvalues(): diag(X(X′WX)⁻¹X′W).
    pub hat: f64,
    /// weights(): diag(W) as percent of its sum.
    pub weight: f64,
    /// Without `cluster`: the components without the record.
    #[serde(flatten)]
    pub del: DeletedComponents,
}

/// A cluster's row (with `cluster`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MvClusterInfluence {
    pub cluster: String,
    /// Records in the cluster.
    pub k: usize,
    pub cook_d: Option<f64>,
    pub dfbetas: Option<Vec<f64>>,
    /// rstudent()'s X² of the cluster's deleted residuals.
    pub x2: Option<f64>,
    /// The components without the cluster.
    #[serde(flatten)]
    pub del: DeletedComponents,
}

/// The model with only the rows `keep` marks (V's blocks and the random terms' labels cut
/// to them).
fn subset(model: &MvModel, keep: &[bool]) -> MvModel {
    let p = model.p;
    let mut at = vec![usize::MAX; keep.len()];
    let mut n = 0;
    for (i, &k) in keep.iter().enumerate() {
        if k {
            at[i] = n;
            n += 1;
        }
    }
    let rows = |v: &[String]| -> Vec<String> {
        v.iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(s, _)| s.clone())
            .collect()
    };
    let sampling = match &model.sampling {
        Sampling::Diagonal(vi) => Sampling::Diagonal(
            vi.iter()
                .zip(keep)
                .filter(|(_, k)| **k)
                .map(|(v, _)| *v)
                .collect(),
        ),
        Sampling::Blocks(blocks) => Sampling::Blocks(
            blocks
                .iter()
                .filter_map(|b| {
                    let m = b.rows.len();
                    let kept: Vec<usize> = (0..m).filter(|&a| keep[b.rows[a]]).collect();
                    (!kept.is_empty()).then(|| VBlock {
                        rows: kept.iter().map(|&a| at[b.rows[a]]).collect(),
                        matrix: kept
                            .iter()
                            .flat_map(|&a| kept.iter().map(move |&c| b.matrix[a * m + c]))
                            .collect(),
                    })
                })
                .collect(),
        ),
    };
    let mut out = model.clone();
    out.yi = rows_of(&model.yi, keep);
    out.x = (0..keep.len())
        .filter(|&i| keep[i])
        .flat_map(|i| model.x[i * p..(i + 1) * p].iter().copied())
        .collect();
    out.sampling = sampling;
    for t in &mut out.intercepts {
        t.levels = rows(&t.levels);
    }
    for t in &mut out.terms {
        t.inner = rows(&t.inner);
        t.outer = rows(&t.outer);
    }
    out
}

fn rows_of(v: &[f64], keep: &[bool]) -> Vec<f64> {
    v.iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(x, _)| *x)
        .collect()
}

/// The full fit with the components of `deleted` (`None` when their number differs).
fn at_components(fit: &MvFit, deleted: &MvFit) -> Option<MvFit> {
    let same = [
        (&fit.sigma2, &deleted.sigma2),
        (&fit.tau2, &deleted.tau2),
        (&fit.rho, &deleted.rho),
        (&fit.gamma2, &deleted.gamma2),
        (&fit.phi, &deleted.phi),
    ]
    .iter()
    .all(|(a, b)| a.len() == b.len());
    same.then(|| MvFit {
        sigma2: deleted.sigma2.clone(),
        tau2: deleted.tau2.clone(),
        rho: deleted.rho.clone(),
        gamma2: deleted.gamma2.clone(),
        phi: deleted.phi.clone(),
        ..fit.clone()
    })
}

/// (X′WX)⁻¹ over W's blocks.
fn vcov(model: &MvModel, w: &[VBlock]) -> Option<Vec<f64>> {
    let p = model.p;
    let mut xwx = vec![0.0; p * p];
    for b in w {
        let n = b.rows.len();
        for a in 0..n {
            for c in 0..n {
                let wac = b.matrix[a * n + c];
                let (ra, rc) = (b.rows[a], b.rows[c]);
                for i in 0..p {
                    for j in 0..p {
                        xwx[i * p + j] += model.x[ra * p + i] * wac * model.x[rc * p + j];
                    }
                }
            }
        }
    }
    spd_inverse(&xwx, p)
}

/// The diagnostics of leaving out each unit: `units[r]` is model row r's unit, `n` units.
pub(crate) fn deletions(g: &General, units: &[usize], n: usize) -> Vec<Deleted> {
    let (model, fit) = (&g.model, &g.fit);
    let p = model.p;
    let svb = spd_inverse(&fit.vcov, p);
    (0..n)
        .map(|u| {
            let rows: Vec<usize> = (0..units.len()).filter(|&r| units[r] == u).collect();
            let failed = || Deleted {
                cook_d: None,
                dfbetas: None,
                resid: vec![None; rows.len()],
                se: vec![None; rows.len()],
                x2: None,
                del: DeletedComponents::default(),
            };
            let keep: Vec<bool> = units.iter().map(|&v| v != u).collect();
            let Ok(del) = rma_mv(&subset(model, &keep), g.method, &g.fixed) else {
                return failed();
            };
            let components = DeletedComponents {
                sigma2_del: del.sigma2.clone(),
                tau2_del: del.tau2.clone(),
                rho_del: del.rho.clone(),
            };
            let dfb: Vec<f64> = (0..p).map(|a| fit.beta[a] - del.beta[a]).collect();
            let cook_d = svb.as_ref().map(|s| {
                (0..p)
                    .map(|a| (0..p).map(|b| dfb[a] * s[a * p + b] * dfb[b]).sum::<f64>())
                    .sum()
            });
            let Some(full) = at_components(fit, &del) else {
                return Deleted {
                    cook_d,
                    del: components,
                    ..failed()
                };
            };
            let (Ok(m), Ok(w)) = (marginal_blocks(model, &full), inverse_blocks(model, &full))
            else {
                return Deleted {
                    cook_d,
                    del: components,
                    ..failed()
                };
            };
            let dfbetas = vcov(model, &w)
                .map(|vb| (0..p).map(|a| dfb[a] / vb[a * p + a].sqrt()).collect());
            // M₍₋ᵢ₎ between two rows (0 across blocks).
            let mut place = vec![(0, 0); units.len()];
            for (bi, b) in m.iter().enumerate() {
                for (a, &r) in b.rows.iter().enumerate() {
                    place[r] = (bi, a);
                }
            }
            let entry = |r: usize, c: usize| {
                let ((br, ar), (bc, ac)) = (place[r], place[c]);
                if br == bc {
                    let nb = m[br].rows.len();
                    m[br].matrix[ar * nb + ac]
                } else {
                    0.0
                }
            };
            let xr = |r: usize| &model.x[r * p..(r + 1) * p];
            let q = rows.len();
            let mut s = vec![0.0; q * q];
            for (a, &ra) in rows.iter().enumerate() {
                for (c, &rc) in rows.iter().enumerate() {
                    let v: f64 = (0..p)
                        .map(|i| (0..p).map(|j| xr(ra)[i] * del.vcov[i * p + j] * xr(rc)[j]).sum::<f64>())
                        .sum();
                    s[a * q + c] = entry(ra, rc) + v;
                }
            }
            let resid: Vec<f64> = rows
                .iter()
                .map(|&r| {
                    let e = model.yi[r] - xr(r).iter().zip(&del.beta).map(|(x, b)| x * b).sum::<f64>();
                    if e.abs() < 100.0 * f64::EPSILON {
                        0.0
                    } else {
                        e
                    }
                })
                .collect();
            let x2 = spd_inverse(&s, q).map(|si| {
                (0..q)
                    .map(|a| (0..q).map(|c| resid[a] * si[a * q + c] * resid[c]).sum::<f64>())
                    .sum()
            });
            Deleted {
                cook_d,
                dfbetas,
                resid: resid.into_iter().map(Some).collect(),
                se: (0..q).map(|a| Some(s[a * q + a].sqrt())).collect(),
                x2,
                del: components,
            }
        })
        .collect()
}
