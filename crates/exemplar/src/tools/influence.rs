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

#[cfg(test)]
mod tests {
    use super::super::{call, ErrorCode, INFLUENCE_DIAGNOSTICS};
    use serde_json::json;

    /// metafor 3.8-1 on the frozen dataset (REML, threshold 1e-14): `influence(rma(yi, vi))`
    /// gives s01 rstudent -0.302736769759548052 and cook.d 0.049738947248233585, and flags s10;
    /// with `test = "knha"` the same record has -0.260947850508333412 and 0.034979256837833067
    /// and no record is flagged. The tool gives the z-test values, and refuses `test` and
    /// `level` rather than answer a knha call with them.
    #[test]
    fn the_z_test_values_and_no_test_or_level() {
        let result = call(INFLUENCE_DIAGNOSTICS.name, &json!({})).unwrap();
        let s01 = &result["results"][0];
        assert_eq!(s01["id"], "s01");
        let close = |got: &serde_json::Value, want: f64| {
            let got = got.as_f64().unwrap();
            assert!(
                ((got - want) / want).abs() < 1e-9,
                "{got} vs metafor {want}"
            );
        };
        close(&s01["rstudent"], -0.30273676975954805);
        close(&s01["cook_d"], 0.049738947248233585);
        let flagged: Vec<&str> = result["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|row| row["influential"] == true)
            .map(|row| row["id"].as_str().unwrap())
            .collect();
        assert_eq!(flagged, ["s10"]);
        for (name, value) in [("test", json!("knha")), ("level", json!(0.9))] {
            let error = call(INFLUENCE_DIAGNOSTICS.name, &json!({ name: value })).unwrap_err();
            assert_eq!(error.code, ErrorCode::UnknownProperty, "{error}");
            assert!(error.message.contains(&format!("\"{name}\"")), "{error}");
        }
    }
}
