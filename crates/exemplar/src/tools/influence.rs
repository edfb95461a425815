//! `influence_diagnostics`: metafor's case-deletion diagnostics for every record.

use super::args::MethodExcludeArgs;
use super::data::{DataSource, DatasetInfo};
use super::ToolError;
use serde::Serialize;

/// One record's diagnostics.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct InfluenceRow {
    /// The record's id.
    pub id: String,
    /// Externally studentized residual.
    pub rstudent: f64,
    /// DFFITS.
    pub dffits: f64,
    /// Cook's distance.
    pub cook_d: f64,
    /// Covariance ratio (variance of the estimate without the record over with it).
    pub cov_r: f64,
    /// tau^2 without the record.
    pub tau2_del: f64,
    /// Cochran's Q without the record.
    pub qe_del: f64,
    /// Hat value (the record's share of the weights).
    pub hat: f64,
    /// The record's weight in the full model, percent.
    pub weight: f64,
    /// Influential by metafor's rule.
    pub influential: bool,
}

/// `influence_diagnostics`' result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct InfluenceResult {
    /// Records analysed.
    pub k: usize,
    /// One row per record, in record order.
    pub results: Vec<InfluenceRow>,
    pub dataset: DatasetInfo,
}

/// `influence_diagnostics`
pub fn influence_diagnostics(
    args: MethodExcludeArgs,
    data: &DataSource,
) -> Result<InfluenceResult, ToolError> {
    let excluded = data.exclusions(args.exclude)?;
    let kept = data.kept(&excluded);
    let rows = meta_analysis::influence_diagnostics(&kept, args.method.unwrap_or_default())?;
    Ok(InfluenceResult {
        k: kept.len(),
        results: rows
            .into_iter()
            .map(|r| InfluenceRow {
                id: r.id,
                rstudent: r.rstudent,
                dffits: r.dffits,
                cook_d: r.cook_d,
                cov_r: r.cov_r,
                tau2_del: r.tau2_del,
                qe_del: r.qe_del,
                hat: r.hat,
                weight: r.weight,
                influential: r.influential,
            })
            .collect(),
        dataset: data.info().clone(),
    })
}
