//! Cluster-robust tests of a general model (metafor's `rma.mv`), as clubSandwich's
//! `vcovCR.rma.mv`: the working model is the fitted marginal covariance M (its blocks
//! dense), the weights W = M⁻¹, and CR2's adjustment of each cluster comes from the
//! symmetric eigendecomposition of its dense block ([`super::Factor`]).

use super::{robust, Clusters, RobustTest, RobustVcov};
use crate::gls::{Covariance, GlsModel};
use crate::rma_mv::{marginal_blocks, MvFit, MvModel};
use crate::MetaError;

/// Robust tests of `fit`'s coefficients (named `names`) over `clusters`, one label per row.
/// Every block of M (rows joined by a V block or a random term) must lie inside one cluster:
/// clubSandwich requires the random effects to nest in the clustering variable, and a V
/// block across clusters would leave covariance out of the working model.
pub fn robust_rma_mv(
    model: &MvModel,
    fit: &MvFit,
    names: &[String],
    clusters: &[String],
    vcov: RobustVcov,
    level: f64,
) -> Result<RobustTest, MetaError> {
    let k = model.yi.len();
    let p = model.p;
    let groups = Clusters::group(clusters, k)?;
    if names.len() != p || fit.beta.len() != p {
        return Err(MetaError::Undefined {
            reason: format!("{} names for {p} coefficients", names.len()),
        });
    }
    let blocks = marginal_blocks(model, fit)?;
    let mut block = vec![0; k];
    let mut position = vec![0; k];
    for (b, vb) in blocks.iter().enumerate() {
        for (a, &r) in vb.rows.iter().enumerate() {
            (block[r], position[r]) = (b, a);
            let (first, here) = (&clusters[vb.rows[0]], &clusters[r]);
            if first != here {
                return Err(MetaError::Undefined {
                    reason: format!(
                        "the model's random effects (or V) join records of the clusters \
                         {first:?} and {here:?}: they must nest in the clustering variable \
                         (cluster by the model's outermost grouping, or a coarser one)"
                    ),
                });
            }
        }
    }
    let beta = fit.beta.clone();
    let residuals = (0..k)
        .map(|i| {
            let fitted: f64 = (0..p).map(|a| model.x[i * p + a] * beta[a]).sum();
            model.yi[i] - fitted
        })
        .collect();
    let gls = GlsModel {
        names: names.to_vec(),
        beta,
        vb: fit.vcov.chunks_exact(p).map(<[f64]>::to_vec).collect(),
        x: model.x.clone(),
        residuals,
        covariance: Covariance::Blocks {
            block,
            position,
            matrices: blocks
                .into_iter()
                .map(|b| (b.rows.len(), b.matrix))
                .collect(),
        },
    };
    robust(&gls, &groups, vcov, level)
}
