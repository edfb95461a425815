//! Case-deletion influence diagnostics of the intercept-only model, as metafor 3.8-1's
//! `influence()` (Viechtbauer & Cheung 2010, "Outlier and influence diagnostics for
//! meta-analysis", Research Synthesis Methods 1, 112–125), with the z test (s²_w = 1).

use crate::distributions::chi2_sf;
use crate::estimators::{estimate_tau2, Method, Moments};
use crate::omission::each_omission;
use crate::records::validate;
use crate::weighted::{Degenerate, Design};
use crate::{MetaError, Record};

/// One record's diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct Influence {
    pub id: String,
    /// Externally studentized residual (yᵢ − μ̂₍₋ᵢ₎) / √(vᵢ + τ̂²₍₋ᵢ₎ + Var μ̂₍₋ᵢ₎).
    pub rstudent: f64,
    /// (μ̂ − μ̂₍₋ᵢ₎) / √(hᵢ (τ̂²₍₋ᵢ₎ + vᵢ)).
    pub dffits: f64,
    /// Cook's distance (μ̂ − μ̂₍₋ᵢ₎)² / Var μ̂.
    pub cook_d: f64,
    /// Covariance ratio Var μ̂₍₋ᵢ₎ / Var μ̂.
    pub cov_r: f64,
    /// τ̂² without the record.
    pub tau2_del: f64,
    /// Cochran's Q without the record.
    pub qe_del: f64,
    /// Hat value hᵢ = wᵢ/Σw of the full model.
    pub hat: f64,
    /// Weight in the full model, percent: 100·wᵢ/Σw.
    pub weight: f64,
    /// DFBETAS of the intercept, (μ̂ − μ̂₍₋ᵢ₎) / √(1/Σⱼ 1/(vⱼ + τ̂²₍₋ᵢ₎)) (all k records).
    pub dfbetas: f64,
    /// metafor's flag (see [`influence_diagnostics`]).
    pub influential: bool,
}

/// Influence diagnostics of every record (at least 3 records, so each deleted fit has 2).
///
/// The full model and each deleted model are fitted with `method` and the z test; for
/// record i, with μ̂, Var μ̂ = 1/Σwⱼ (wⱼ = 1/(vⱼ + τ̂²)) of the full model and μ̂₍₋ᵢ₎,
/// τ̂²₍₋ᵢ₎, Var μ̂₍₋ᵢ₎ of the model without it:
/// rstudent = rᵢ/√(vᵢ + τ̂²₍₋ᵢ₎ + Var μ̂₍₋ᵢ₎) with rᵢ = yᵢ − μ̂₍₋ᵢ₎ set to 0 when
/// |rᵢ| < 100·ε (metafor); dffits, cook_d, cov_r, hat, weight and dfbetas as documented on
/// [`Influence`]; hᵢ > 1 − 10ε is set to 1 (as `lm.influence`). A record is influential
/// when |dffits| > 3√(p/(k − p)), or the χ²₁ distribution function at cook_d exceeds 0.5,
/// or hat > 3p/k, or |dfbetas| > 1 (p = 1; metafor's rule, with its rstudent and cov_r
/// criteria commented out in 3.8-1).
pub fn influence_diagnostics(
    records: &[Record],
    method: Method,
) -> Result<Vec<Influence>, MetaError> {
    let data = validate(records, 3, "influence diagnostics")?;
    let (y, v) = (&data.yi, &data.vi);
    let k = data.k();
    let x = Design::intercept();
    let tau2 = estimate_tau2(method, y, v, &x)?.tau2;
    let full = Moments::at(y, v, &x, tau2).map_err(Degenerate::error)?;
    let (estimate, variance) = (full.beta0, full.var_beta0);
    let omissions = each_omission(y, v, method)?;
    let kf = k as f64;
    let dffits_limit = 3.0 * (1.0 / (kf - 1.0)).sqrt();
    let out: Vec<Influence> = omissions
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let tau2_del = o.tau2.tau2;
            let w = 1.0 / (v[i] + tau2);
            let mut hat = w * variance;
            if hat > 1.0 - 10.0 * f64::EPSILON {
                hat = 1.0;
            }
            let change = estimate - o.re.beta0;
            let mut resid = y[i] - o.re.beta0;
            if resid.abs() < 100.0 * f64::EPSILON {
                resid = 0.0;
            }
            // Var μ̂ of all k records at τ̂²₍₋ᵢ₎: the deleted sum plus record i's weight.
            let var_all_at_del = 1.0 / (1.0 / o.re.var_beta0 + 1.0 / (v[i] + tau2_del));
            let dffits = change / (hat * (tau2_del + v[i])).sqrt();
            let cook_d = change * change / variance;
            let dfbetas = change / var_all_at_del.sqrt();
            let influential = dffits.abs() > dffits_limit
                || chi2_sf(cook_d, 1.0) < 0.5
                || hat > 3.0 / kf
                || dfbetas.abs() > 1.0;
            Influence {
                id: records[i].id.clone(),
                rstudent: resid / (v[i] + o.re.var_beta0 + tau2_del).sqrt(),
                dffits,
                cook_d,
                cov_r: o.re.var_beta0 / variance,
                tau2_del,
                qe_del: o.fe.ypy.max(0.0),
                hat,
                weight: 100.0 * w * variance,
                dfbetas,
                influential,
            }
        })
        .collect();
    for row in &out {
        for (quantity, value) in [
            ("studentized residual", row.rstudent),
            ("DFFITS", row.dffits),
            ("Cook's distance", row.cook_d),
            ("covariance ratio", row.cov_r),
            ("DFBETAS", row.dfbetas),
        ] {
            if !value.is_finite() {
                return Err(MetaError::NonFiniteResult { quantity });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_far_outlier_is_flagged_and_others_are_not() {
        let mut records: Vec<Record> = (0..12)
            .map(|i| {
                Record::new(
                    format!("r{i}"),
                    0.2 + 0.01 * (i % 3) as f64,
                    0.02 + 0.001 * i as f64,
                )
            })
            .collect();
        records[5].yi = 3.0;
        let rows = influence_diagnostics(&records, Method::Reml).unwrap();
        assert!(rows[5].influential);
        assert!(rows[5].rstudent > 3.0);
        assert!(rows.iter().filter(|r| r.influential).count() == 1);
        let total: f64 = rows.iter().map(|r| r.weight).sum();
        assert!((total - 100.0).abs() < 1e-10);
    }

    #[test]
    fn too_few_records_are_refused() {
        let two = [Record::new("a", 0.1, 0.01), Record::new("b", 0.2, 0.02)];
        assert!(matches!(
            influence_diagnostics(&two, Method::Reml),
            Err(MetaError::TooFewRecords { needed: 3, .. })
        ));
    }
}
