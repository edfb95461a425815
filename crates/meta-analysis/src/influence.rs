//! Case-deletion influence diagnostics of the intercept-only model, as metafor 3.8-1's
//! `influence()` (Viechtbauer & Cheung 2010, "Outlier and influence diagnostics for
//! meta-analysis", Research Synthesis Methods 1, 112–125), with the z test (s²_w = 1) or
//! Knapp–Hartung's (s²_w of each fit, as metafor's `influence.rma.uni` reads it from the
//! fits it makes).

use crate::distributions::chi2_sf;
use crate::estimators::{estimate_tau2, Method, Moments};
use crate::model::Test;
use crate::omission::each_omission;
use crate::records::validate;
use crate::weighted::{Degenerate, Design};
use crate::{MetaError, Record};

/// One record's diagnostics (under Knapp–Hartung, the s²_w factors of
/// [`influence_diagnostics_with_test`] apply; they are 1 under the z test).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Influence {
    /// The record's id.
    pub id: String,
    /// Externally studentized residual (yᵢ − μ̂₍₋ᵢ₎) / √(s²₍₋ᵢ₎ (vᵢ + τ̂²₍₋ᵢ₎ + Var μ̂₍₋ᵢ₎)).
    pub rstudent: f64,
    /// (μ̂ − μ̂₍₋ᵢ₎) / √(s²₍₋ᵢ₎ hᵢ (τ̂²₍₋ᵢ₎ + vᵢ)).
    pub dffits: f64,
    /// Cook's distance (μ̂ − μ̂₍₋ᵢ₎)² / (s² Var μ̂).
    pub cook_d: f64,
    /// Covariance ratio s²₍₋ᵢ₎ Var μ̂₍₋ᵢ₎ / (s² Var μ̂).
    pub cov_r: f64,
    /// τ̂² without the record.
    pub tau2_del: f64,
    /// Cochran's Q without the record.
    pub qe_del: f64,
    /// Hat value hᵢ = wᵢ/Σw of the full model.
    pub hat: f64,
    /// Weight in the full model, percent: 100·wᵢ/Σw.
    pub weight: f64,
    /// DFBETAS of the intercept, (μ̂ − μ̂₍₋ᵢ₎) / √(s²₍₋ᵢ₎ / Σⱼ 1/(vⱼ + τ̂²₍₋ᵢ₎)) (all k
    /// records).
    pub dfbetas: f64,
    /// Influential by metafor's rule (see `influence_diagnostics_with_test`).
    pub influential: bool,
}

/// Influence diagnostics of every record with the z test: [`influence_diagnostics_with_test`]
/// with [`Test::Z`].
pub fn influence_diagnostics(
    records: &[Record],
    method: Method,
) -> Result<Vec<Influence>, MetaError> {
    influence_diagnostics_with_test(records, method, Test::Z)
}

/// Influence diagnostics of every record (at least 3 records, so each deleted fit has 2).
///
/// The full model and each deleted model are fitted with `method`; for record i, with μ̂,
/// Var μ̂ = 1/Σwⱼ (wⱼ = 1/(vⱼ + τ̂²)) of the full model and μ̂₍₋ᵢ₎, τ̂²₍₋ᵢ₎, Var μ̂₍₋ᵢ₎ of the
/// model without it:
/// rstudent = rᵢ/√(s²₍₋ᵢ₎ (vᵢ + τ̂²₍₋ᵢ₎ + Var μ̂₍₋ᵢ₎)) with rᵢ = yᵢ − μ̂₍₋ᵢ₎ set to 0 when
/// |rᵢ| < 100·ε (metafor); dffits, cook_d, cov_r, hat, weight and dfbetas as documented on
/// [`Influence`]; hᵢ > 1 − 10ε is set to 1 (as `lm.influence`). A record is influential
/// when |dffits| > 3√(p/(k − p)), or the χ²₁ distribution function at cook_d exceeds 0.5,
/// or hat > 3p/k, or |dfbetas| > 1 (p = 1; metafor's rule, with its rstudent and cov_r
/// criteria commented out in 3.8-1).
///
/// s² and s²₍₋ᵢ₎ are the Knapp–Hartung factors of the full and the deleted fit: 1 under
/// [`Test::Z`]; under [`Test::Knha`], s² = Σⱼ wⱼ (yⱼ − μ̂)² / (k − 1) at τ̂² and
/// s²₍₋ᵢ₎ = Σⱼ≠ᵢ (yⱼ − μ̂₍₋ᵢ₎)²/(vⱼ + τ̂²₍₋ᵢ₎) / (k − 2), each 0 when its residual sum is at
/// most ε (metafor's `RSS.knha`, `rma.uni`). This is metafor 3.8-1's `influence.rma.uni`,
/// which takes the fits' `vb` = s²·(X′WX)⁻¹ and `s2w`: its `seresid`, `dffits` and `dfbs`
/// multiply the variance by the deleted fit's `s2w`, `cook.d` uses the inverse of the full
/// fit's `vb`, and `cov.r` is the ratio of the two `vb`. A zero s²₍₋ᵢ₎ (the other records all
/// equal) or s² (all records equal) makes a diagnostic infinite or undefined, and is refused.
pub fn influence_diagnostics_with_test(
    records: &[Record],
    method: Method,
    test: Test,
) -> Result<Vec<Influence>, MetaError> {
    let data = validate(records, 3, "influence diagnostics")?;
    let (y, v) = (&data.yi, &data.vi);
    let k = data.k();
    let x = Design::intercept();
    let tau2 = estimate_tau2(method, y, v, &x)?.tau2;
    let full = Moments::at(y, v, &x, tau2).map_err(Degenerate::error)?;
    let (estimate, variance) = (full.beta0, full.var_beta0);
    let omissions = each_omission(y, v, method)?;
    let s2w = knha_factor(test, &full, k);
    if s2w == 0.0 {
        return Err(MetaError::Undefined {
            reason: "under Knapp–Hartung the records' yi are all equal, so the residual \
                     variance s² of the fit is 0 and Cook's distance and the covariance ratio \
                     are undefined"
                .into(),
        });
    }
    let kf = k as f64;
    let dffits_limit = 3.0 * (1.0 / (kf - 1.0)).sqrt();
    let mut out = Vec::with_capacity(k);
    for (i, o) in omissions.iter().enumerate() {
        let tau2_del = o.tau2.tau2;
        let s2w_del = knha_factor(test, &o.re, k - 1);
        if s2w_del == 0.0 {
            return Err(MetaError::Undefined {
                reason: format!(
                    "under Knapp–Hartung the records other than {:?} have equal yi, so the \
                     residual variance s² of the fit without it is 0 and its studentized \
                     residual, DFFITS and DFBETAS are undefined",
                    records[i].id
                ),
            });
        }
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
        let dffits = change / (s2w_del * hat * (tau2_del + v[i])).sqrt();
        let cook_d = change * change / (s2w * variance);
        let dfbetas = change / (s2w_del * var_all_at_del).sqrt();
        let influential = dffits.abs() > dffits_limit
            || chi2_sf(cook_d, 1.0) < 0.5
            || hat > 3.0 / kf
            || dfbetas.abs() > 1.0;
        out.push(Influence {
            id: records[i].id.clone(),
            rstudent: resid / (s2w_del * (v[i] + o.re.var_beta0 + tau2_del)).sqrt(),
            dffits,
            cook_d,
            cov_r: s2w_del * o.re.var_beta0 / (s2w * variance),
            tau2_del,
            qe_del: o.fe.ypy.max(0.0),
            hat,
            weight: 100.0 * w * variance,
            dfbetas,
            influential,
        });
    }
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

/// The Knapp–Hartung factor s²_w of a fit of `k` records from its moments at its τ̂²: 1 under
/// the z test; under Knapp–Hartung y′Py/(k − 1) = Σ wⱼ (yⱼ − μ̂)²/(k − 1), or 0 when that
/// residual sum is at most ε (metafor 3.8-1's `rma.uni`: `s2w <- RSS.knha/(k - p)`, 0 when
/// `RSS.knha <= .Machine$double.eps`).
pub(crate) fn knha_factor(test: Test, moments: &Moments, k: usize) -> f64 {
    match test {
        Test::Z => 1.0,
        Test::Knha if moments.ypy <= f64::EPSILON => 0.0,
        Test::Knha => moments.ypy / (k - 1) as f64,
    }
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

    /// Under Knapp–Hartung every diagnostic is the z test's rescaled by the s² of the fits
    /// involved, each s² read from a plain refit (its knha variance over its z variance):
    /// rstudent, dffits and dfbetas by 1/√s²₍₋ᵢ₎, cook_d by 1/s², cov_r by s²₍₋ᵢ₎/s²; the
    /// rest is the same to the bit.
    #[test]
    fn knha_rescales_the_z_diagnostics_by_each_fits_s2() {
        use crate::model::{fit_data, FitOptions};
        let records: Vec<Record> = (0..9)
            .map(|i| {
                let i = i as f64;
                Record::new(
                    format!("r{i}"),
                    0.3 + 0.4 * (1.7 * i).sin(),
                    0.01 + 0.03 * (0.9 * i).cos().abs(),
                )
            })
            .collect();
        let s2 = |rs: &[Record], method: Method| {
            let yi: Vec<f64> = rs.iter().map(|r| r.yi).collect();
            let vi: Vec<f64> = rs.iter().map(|r| r.vi).collect();
            let se = |test| {
                let options = FitOptions {
                    method,
                    test,
                    level: 0.95,
                };
                fit_data(&yi, &vi, &options).unwrap().se
            };
            (se(Test::Knha) / se(Test::Z)).powi(2)
        };
        let close = |what: &str, got: f64, want: f64| {
            assert!(
                (got - want).abs() <= 1e-12 * want.abs(),
                "{what}: {got:e} vs {want:e}"
            );
        };
        for method in Method::ALL {
            let z = influence_diagnostics_with_test(&records, method, Test::Z).unwrap();
            let knha = influence_diagnostics_with_test(&records, method, Test::Knha).unwrap();
            let s2_full = s2(&records, method);
            // Paule–Mandel's τ̂² solves Σ wⱼ (yⱼ − μ̂)² = k − 1: its s² is 1 by definition.
            assert!(
                method == Method::Pm || (s2_full - 1.0).abs() > 1e-3,
                "{}: s² {s2_full}",
                method.name()
            );
            for (i, (a, b)) in z.iter().zip(&knha).enumerate() {
                let mut rest = records.clone();
                rest.remove(i);
                let s2_del = s2(&rest, method);
                let at = |f: &str| format!("{} #{i} {f}", method.name());
                close(&at("rstudent"), b.rstudent, a.rstudent / s2_del.sqrt());
                close(&at("dffits"), b.dffits, a.dffits / s2_del.sqrt());
                close(&at("dfbetas"), b.dfbetas, a.dfbetas / s2_del.sqrt());
                close(&at("cook_d"), b.cook_d, a.cook_d / s2_full);
                close(&at("cov_r"), b.cov_r, a.cov_r * s2_del / s2_full);
                assert_eq!(
                    (a.tau2_del, a.qe_del, a.hat, a.weight),
                    (b.tau2_del, b.qe_del, b.hat, b.weight)
                );
            }
        }
    }

    /// s² = 0 (metafor's `RSS.knha` at most ε) leaves the Knapp–Hartung diagnostics
    /// undefined: refused for the whole data and for one record's deleted fit, while the z
    /// test answers.
    #[test]
    fn knha_with_a_zero_residual_variance_is_refused() {
        let equal: Vec<Record> = (0..5)
            .map(|i| Record::new(format!("r{i}"), 0.25, 0.02 + 0.01 * i as f64))
            .collect();
        let error = influence_diagnostics_with_test(&equal, Method::Reml, Test::Knha);
        assert!(
            matches!(&error, Err(MetaError::Undefined { reason }) if reason.contains("all equal")),
            "{error:?}"
        );
        let mut one_apart = equal.clone();
        one_apart[2].yi = 0.6;
        assert!(influence_diagnostics_with_test(&one_apart, Method::Reml, Test::Z).is_ok());
        let error = influence_diagnostics_with_test(&one_apart, Method::Reml, Test::Knha);
        assert!(
            matches!(&error, Err(MetaError::Undefined { reason }) if reason.contains("\"r2\"")),
            "{error:?}"
        );
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
