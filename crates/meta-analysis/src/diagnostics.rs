//! The coordinates of four diagnostic plots of the intercept-only model, as metafor 3.8-1's
//! `baujat()`, `radial()`, `labbe()` and `qqnorm()` return them (invisibly) for an
//! `rma.uni` fit. The plots' drawing is the caller's; only the numbers are here.
//!
//! With μ̂ and τ̂² of the model (τ̂² = 0 for EE), wᵢ = 1/(vᵢ + τ̂²) and W = Σwᵢ:
//!
//! - **Baujat** (Baujat et al. 2002, *Statistics in Medicine* 21, 2641–2652): xᵢ = (yᵢ − μ̂)²
//!   wᵢ, the record's contribution to the heterogeneity (its squared Pearson residual), and
//!   yᵢ = (μ̂₍₋ᵢ₎ − μ̂)² / Var μ̂₍₋ᵢ₎, its influence on the pooled result, where μ̂₍₋ᵢ₎ and
//!   Var μ̂₍₋ᵢ₎ (times s²₍₋ᵢ₎ under Knapp–Hartung) are those of the model refitted without
//!   the record (τ² re-estimated), as `baujat.rma` refits.
//! - **Radial** (Galbraith 1988, *Statistics in Medicine* 7, 889–894): xᵢ = 1/√(vᵢ + τ̂²),
//!   yᵢ = yᵢ/√(vᵢ + τ̂²) (`radial.rma`, not centred).
//! - **Normal Q-Q** of the standardized residuals (`qqnorm.rma.uni`, type "rstandard"):
//!   yᵢ = eᵢ/√(vᵢ + τ̂² − 1/W) with eᵢ = yᵢ − μ̂ (the diagonal of (I − H) M (I − H)′ for the
//!   intercept-only model, `rstandard.rma.uni`), and xᵢ the normal quantile of the record's
//!   rank as R's `qqnorm` gives it: Φ⁻¹((rᵢ − a)/(k + 1 − 2a)) with a = 3/8 for k ≤ 10 and
//!   1/2 above (`ppoints`), ties ranked in record order. Points are in record order.
//! - **L'Abbé** (L'Abbé, Detsky & O'Rourke 1987, *Annals of Internal Medicine* 107,
//!   224–233): each arm's outcome on the measure's own scale, computed as `labbe.rma` does
//!   with escalc's arm-level measure and the model's continuity correction (rma's defaults:
//!   add 1/2 to the arm with a zero count, `to = "only0"`): RR → log proportions (PLN),
//!   OR → logits (PLO), RD → proportions (PR), AS → arcsine roots (PAS), IRR → log rates
//!   (IRLN), IRD → rates (IR), IRSD → root rates (IRS). xᵢ is group 2's (`ci`, `di`/`n2i`
//!   or `x2i`, `t2i`), yᵢ group 1's (`ai`, `bi`/`n1i` or `x1i`, `t1i`). The point sizes are
//!   metafor's `cex`: √(1/(v₁ᵢ + v₂ᵢ)) rescaled linearly onto [0.5, 3.5] (all 1 when they
//!   span less than √ε).
//!
//! Residuals below 100ε in absolute value are set to 0, as metafor's `resid()` and
//! `rstandard()` do.

use crate::distributions::normal_quantile;
use crate::effect_sizes::{escalc_with, AddTo, Column, Measure, RawRow, Settings};
use crate::estimators::{estimate_tau2, Method, Moments};
use crate::influence::knha_factor;
use crate::model::Test;
use crate::omission::each_omission;
use crate::records::validate;
use crate::weighted::{Degenerate, Design};
use crate::{MetaError, Record};

/// A point of a diagnostic plot: the record it stands for and its coordinates.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct DiagnosticPoint {
    /// The record's id.
    pub id: String,
    pub x: f64,
    pub y: f64,
}

/// The full model's τ̂² and moments at it.
fn full_model(y: &[f64], v: &[f64], method: Method) -> Result<(f64, Moments), MetaError> {
    let x = Design::intercept();
    let tau2 = estimate_tau2(method, y, v, &x)?.tau2;
    let moments = Moments::at(y, v, &x, tau2).map_err(Degenerate::error)?;
    Ok((tau2, moments))
}

/// yᵢ − μ̂, 0 when below 100ε in absolute value (metafor's `resid()`).
fn residual(yi: f64, mu: f64) -> f64 {
    let e = yi - mu;
    if e.abs() < 100.0 * f64::EPSILON {
        0.0
    } else {
        e
    }
}

fn checked(
    points: Vec<DiagnosticPoint>,
    quantity: &'static str,
) -> Result<Vec<DiagnosticPoint>, MetaError> {
    if points.iter().all(|p| p.x.is_finite() && p.y.is_finite()) {
        Ok(points)
    } else {
        Err(MetaError::NonFiniteResult { quantity })
    }
}

/// Baujat's plot of at least 3 records (so that each refit has 2): per record, its squared
/// Pearson residual and its influence on the pooled estimate (see the module's formulas).
pub fn baujat(
    records: &[Record],
    method: Method,
    test: Test,
) -> Result<Vec<DiagnosticPoint>, MetaError> {
    let data = validate(records, 3, "a Baujat plot")?;
    let (y, v) = (&data.yi, &data.vi);
    let k = data.k();
    let (tau2, full) = full_model(y, v, method)?;
    let omissions = each_omission(y, v, method)?;
    let mut points = Vec::with_capacity(k);
    for (i, o) in omissions.iter().enumerate() {
        let s2w = knha_factor(test, &o.re, k - 1);
        if s2w == 0.0 {
            return Err(MetaError::Undefined {
                reason: format!(
                    "under Knapp–Hartung the records other than {:?} have equal yi, so the \
                     variance of the estimate without it is 0 and its influence is undefined",
                    records[i].id
                ),
            });
        }
        let e = residual(y[i], full.beta0);
        let change = o.re.beta0 - full.beta0;
        points.push(DiagnosticPoint {
            id: records[i].id.clone(),
            x: e * e / (tau2 + v[i]),
            y: change * change / (s2w * o.re.var_beta0),
        });
    }
    checked(points, "Baujat plot coordinates")
}

/// The radial (Galbraith) plot of at least 2 records: 1/√(vᵢ + τ̂²) against yᵢ/√(vᵢ + τ̂²).
pub fn radial(records: &[Record], method: Method) -> Result<Vec<DiagnosticPoint>, MetaError> {
    let data = validate(records, 2, "a radial plot")?;
    let tau2 = estimate_tau2(method, &data.yi, &data.vi, &Design::intercept())?.tau2;
    let points = records
        .iter()
        .map(|r| {
            let s = (r.vi + tau2).sqrt();
            DiagnosticPoint {
                id: r.id.clone(),
                x: 1.0 / s,
                y: r.yi / s,
            }
        })
        .collect();
    checked(points, "radial plot coordinates")
}

/// The normal Q-Q plot of the standardized residuals of at least 2 records: per record, in
/// record order, the theoretical quantile of its rank (x) and its standardized residual (y).
pub fn qq_standardized(
    records: &[Record],
    method: Method,
) -> Result<Vec<DiagnosticPoint>, MetaError> {
    let data = validate(records, 2, "a normal Q-Q plot")?;
    let (y, v) = (&data.yi, &data.vi);
    let (tau2, full) = full_model(y, v, method)?;
    let z: Vec<f64> = y
        .iter()
        .zip(v)
        .map(|(&yi, &vi)| residual(yi, full.beta0) / (vi + tau2 - full.var_beta0).sqrt())
        .collect();
    if let Some(i) = z.iter().position(|z| !z.is_finite()) {
        return Err(MetaError::Undefined {
            reason: format!(
                "the standardized residual of record {:?} is undefined: the fit leaves its \
                 residual no variance",
                records[i].id
            ),
        });
    }
    let quantiles = normal_scores(&z);
    let points = records
        .iter()
        .zip(z.iter().zip(quantiles))
        .map(|(r, (&z, q))| DiagnosticPoint {
            id: r.id.clone(),
            x: q,
            y: z,
        })
        .collect();
    checked(points, "normal Q-Q plot coordinates")
}

/// R's `qqnorm(z)$x`: the normal quantile of each value's rank, `qnorm(ppoints(n))` in the
/// order of `order(order(z))` (a stable sort: ties ranked in their order).
fn normal_scores(z: &[f64]) -> Vec<f64> {
    let n = z.len();
    let a = if n <= 10 { 3.0 / 8.0 } else { 0.5 };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| z[i].total_cmp(&z[j]));
    let mut out = vec![0.0; n];
    for (rank, &i) in order.iter().enumerate() {
        let p = (rank as f64 + 1.0 - a) / (n as f64 + 1.0 - 2.0 * a);
        out[i] = normal_quantile(p);
    }
    out
}

/// A L'Abbé plot: each record's arm-level outcomes and metafor's point sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct Labbe {
    /// The arm-level measure (escalc's name: "PLN", "PLO", "PR", "PAS", "IRLN", "IR", "IRS").
    pub arm_measure: Measure,
    /// Per record: x group 2's outcome, y group 1's.
    pub points: Vec<DiagnosticPoint>,
    /// Per record: metafor's `cex`, from 0.5 (least precise) to 3.5 (most precise).
    pub sizes: Vec<f64>,
}

/// The columns of one arm: its events, its non-events (2×2 tables) or person-time, and its
/// total (`n1i`, `n2i`), the alternative to its non-events.
struct Arm {
    events: Column,
    rest: Column,
    total: Option<Column>,
}

/// The L'Abbé plot of the rows of a two-group measure (`measure` RR, OR, RD or AS with `ai`,
/// `bi` or `n1i`, `ci`, `di` or `n2i`; IRR, IRD or IRSD with `x1i`, `t1i`, `x2i`, `t2i`), one
/// per id (see the module's formulas). A row without an arm-level outcome is refused, naming
/// its id and why.
pub fn labbe(measure: Measure, ids: &[String], rows: &[RawRow]) -> Result<Labbe, MetaError> {
    let arm_measure = arm_measure_of(measure)?;
    if ids.len() != rows.len() {
        return Err(MetaError::Undefined {
            reason: format!("{} ids for {} rows of raw data", ids.len(), rows.len()),
        });
    }
    if rows.len() < 2 {
        return Err(MetaError::TooFewRecords {
            needed: 2,
            got: rows.len(),
            analysis: "a L'Abbé plot",
        });
    }
    let (group1, group2) = arms_of(measure);
    let treated = arm_outcomes(&group1, arm_measure, measure, ids, rows)?;
    let control = arm_outcomes(&group2, arm_measure, measure, ids, rows)?;
    let sizes = point_sizes(&treated, &control);
    let points = ids
        .iter()
        .zip(treated.iter().zip(&control))
        .map(|(id, (t, c))| DiagnosticPoint {
            id: id.clone(),
            x: c.0,
            y: t.0,
        })
        .collect();
    Ok(Labbe {
        arm_measure,
        points: checked(points, "L'Abbé plot coordinates")?,
        sizes,
    })
}

/// The arm-level measure of a two-group measure, as metafor's `labbe()` picks it: the log
/// proportion for RR, the log odds for OR, the proportion for RD, the arcsine square root
/// for AS, and the log, raw or square-root incidence rate for IRR, IRD and IRSD.
fn arm_measure_of(measure: Measure) -> Result<Measure, MetaError> {
    match measure {
        Measure::Rr => Ok(Measure::Pln),
        Measure::Or => Ok(Measure::Plo),
        Measure::Rd => Ok(Measure::Pr),
        Measure::As => Ok(Measure::Pas),
        Measure::Irr => Ok(Measure::Irln),
        Measure::Ird => Ok(Measure::Ir),
        Measure::Irsd => Ok(Measure::Irs),
        other => Err(MetaError::Undefined {
            reason: format!(
                "a L'Abbé plot needs a two-group measure of events (RR, OR, RD, AS, IRR, \
                 IRD or IRSD), not {}",
                other.name()
            ),
        }),
    }
}

/// The columns of group 1 and group 2: `x1i`, `t1i` and `x2i`, `t2i` for the incidence-rate
/// measures, otherwise `ai`, `bi`/`n1i` and `ci`, `di`/`n2i`.
fn arms_of(measure: Measure) -> (Arm, Arm) {
    let person_time = matches!(measure, Measure::Irr | Measure::Ird | Measure::Irsd);
    if person_time {
        (
            Arm {
                events: Column::X1i,
                rest: Column::T1i,
                total: None,
            },
            Arm {
                events: Column::X2i,
                rest: Column::T2i,
                total: None,
            },
        )
    } else {
        (
            Arm {
                events: Column::Ai,
                rest: Column::Bi,
                total: Some(Column::N1i),
            },
            Arm {
                events: Column::Ci,
                rest: Column::Di,
                total: Some(Column::N2i),
            },
        )
    }
}

/// One arm's outcome `(yi, vi)` per record: escalc's `arm_measure` of the arm's events and
/// person-time (`xi`, `ti`) or events and total (`xi`, `ni`, with `ni` = events + non-events
/// when the non-events are given), with rma's default of adding 1/2 where a count is zero.
/// A record missing a column or without an outcome is refused, naming its id.
fn arm_outcomes(
    arm: &Arm,
    arm_measure: Measure,
    measure: Measure,
    ids: &[String],
    rows: &[RawRow],
) -> Result<Vec<(f64, f64)>, MetaError> {
    // rma's defaults, which labbe() passes on: add 1/2 where an arm has a zero count.
    let settings = Settings {
        add: Some(0.5),
        to: AddTo::Only0,
        ..Settings::default()
    };
    let mut arm_rows = Vec::with_capacity(rows.len());
    for (id, row) in ids.iter().zip(rows) {
        let missing = |column: Column| MetaError::Undefined {
            reason: format!(
                "record {id:?} has no {} for the L'Abbé plot of {}",
                column.name(),
                measure.name()
            ),
        };
        let events = row.get(arm.events).ok_or_else(|| missing(arm.events))?;
        let mut arm_row = RawRow::default();
        arm_row.set(Column::Xi, events);
        match arm.total {
            None => arm_row.set(
                Column::Ti,
                row.get(arm.rest).ok_or_else(|| missing(arm.rest))?,
            ),
            Some(total) => {
                let n = match (row.get(arm.rest), row.get(total)) {
                    (Some(rest), _) => events + rest,
                    (None, Some(n)) => n,
                    (None, None) => return Err(missing(arm.rest)),
                };
                arm_row.set(Column::Ni, n);
            }
        }
        arm_rows.push(arm_row);
    }
    escalc_with(arm_measure, &arm_rows, &settings)
        .into_iter()
        .zip(ids)
        .map(|(result, id)| {
            result
                .map(|es| (es.yi, es.vi))
                .map_err(|e| MetaError::Undefined {
                    reason: format!("record {id:?} has no arm-level outcome: {e}"),
                })
        })
        .collect()
}

/// metafor's point sizes (`cex`): each record's weight `1/sqrt(v1 + v2)`, rescaled linearly
/// from 0.5 (the smallest weight) to 3.5 (the largest), or 1 for all when the weights are
/// equal (a range within `sqrt(machine epsilon)`).
fn point_sizes(treated: &[(f64, f64)], control: &[(f64, f64)]) -> Vec<f64> {
    let weights: Vec<f64> = treated
        .iter()
        .zip(control)
        .map(|(t, c)| (1.0 / (t.1 + c.1)).sqrt())
        .collect();
    let (lo, hi) = weights
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &w| {
            (lo.min(w), hi.max(w))
        });
    let range = hi - lo;
    weights
        .iter()
        .map(|w| {
            if range <= f64::EPSILON.sqrt() {
                1.0
            } else {
                (w - lo) / range * 3.0 + 0.5
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{fit, FitOptions};

    fn records() -> Vec<Record> {
        [
            (0.1, 0.01),
            (0.3, 0.02),
            (-0.1, 0.04),
            (0.5, 0.03),
            (0.2, 0.05),
        ]
        .iter()
        .enumerate()
        .map(|(i, &(yi, vi))| Record::new(format!("r{i}"), yi, vi))
        .collect()
    }

    /// Radial coordinates are yi and vi rescaled by the fit's τ̂².
    #[test]
    fn radial_points_use_the_fits_tau2() {
        let r = records();
        let tau2 = fit(&r, &FitOptions::default()).unwrap().tau2;
        assert!(tau2 > 0.0);
        for (p, rec) in radial(&r, Method::Reml).unwrap().iter().zip(&r) {
            let s = (rec.vi + tau2).sqrt();
            assert!((p.x - 1.0 / s).abs() < 1e-14 && (p.y - rec.yi / s).abs() < 1e-14);
        }
        // EE: no τ².
        let ee = radial(&r, Method::Ee).unwrap();
        assert!((ee[0].x - 10.0).abs() < 1e-14 && (ee[0].y - 1.0).abs() < 1e-14);
    }

    /// Baujat's x sum to Q when τ² = 0, and y is the squared change of the estimate when a
    /// record is left out, over the variance of the refit.
    #[test]
    fn baujat_x_sums_to_q_under_equal_effects() {
        let r = records();
        let q = fit(
            &r,
            &FitOptions {
                method: Method::Ee,
                ..FitOptions::default()
            },
        )
        .unwrap()
        .q;
        let points = baujat(&r, Method::Ee, Test::Z).unwrap();
        let total: f64 = points.iter().map(|p| p.x).sum();
        assert!((total - q).abs() < 1e-12, "{total} vs {q}");
        let without = fit(
            &r[1..],
            &FitOptions {
                method: Method::Ee,
                ..FitOptions::default()
            },
        )
        .unwrap();
        let full = fit(
            &r,
            &FitOptions {
                method: Method::Ee,
                ..FitOptions::default()
            },
        )
        .unwrap();
        let expected = (without.estimate - full.estimate).powi(2) / without.se.powi(2);
        assert!((points[0].y - expected).abs() < 1e-12);
        assert!(matches!(
            baujat(&r[..2], Method::Reml, Test::Z),
            Err(MetaError::TooFewRecords { needed: 3, .. })
        ));
    }

    /// ppoints: a = 3/8 up to 10 values, then 1/2; ties keep record order.
    #[test]
    fn normal_scores_are_rs_qqnorm() {
        let x = normal_scores(&[0.3, -1.0, 0.3]);
        let q = |p: f64| normal_quantile(p);
        assert_eq!(
            x,
            vec![
                q((2.0 - 0.375) / 3.25),
                q(0.625 / 3.25),
                q((3.0 - 0.375) / 3.25)
            ]
        );
        let eleven: Vec<f64> = (0..11).map(f64::from).collect();
        assert!((normal_scores(&eleven)[0] - q(0.5 / 11.0)).abs() < 1e-15);
        // Standardized residuals of the EE model: (yi − μ̂)/√(vi − 1/Σw).
        let r = records();
        let pts = qq_standardized(&r, Method::Ee).unwrap();
        let sw: f64 = r.iter().map(|r| 1.0 / r.vi).sum();
        let mu: f64 = r.iter().map(|r| r.yi / r.vi).sum::<f64>() / sw;
        let z0 = (r[0].yi - mu) / (r[0].vi - 1.0 / sw).sqrt();
        assert!((pts[0].y - z0).abs() < 1e-13);
    }

    fn table(ai: f64, bi: f64, ci: f64, di: f64) -> RawRow {
        let mut row = RawRow::default();
        for (c, v) in [
            (Column::Ai, ai),
            (Column::Bi, bi),
            (Column::Ci, ci),
            (Column::Di, di),
        ] {
            row.set(c, v);
        }
        row
    }

    /// Log proportions of each arm; a zero count gets 1/2 added in its own arm only.
    #[test]
    fn labbe_arms_on_the_log_scale() {
        let ids = vec!["a".to_string(), "b".to_string()];
        let rows = [table(4.0, 119.0, 11.0, 128.0), table(0.0, 10.0, 3.0, 9.0)];
        let l = labbe(Measure::Rr, &ids, &rows).unwrap();
        assert_eq!(l.arm_measure, Measure::Pln);
        assert!((l.points[0].y - (4.0f64 / 123.0).ln()).abs() < 1e-15);
        assert!((l.points[0].x - (11.0f64 / 139.0).ln()).abs() < 1e-15);
        assert!((l.points[1].y - (0.5f64 / 11.0).ln()).abs() < 1e-15);
        assert!((l.points[1].x - (3.0f64 / 12.0).ln()).abs() < 1e-15);
        // The more precise record is the larger point.
        assert_eq!(l.sizes, vec![3.5, 0.5]);
        let err = labbe(Measure::Smd, &ids, &rows).unwrap_err();
        assert!(err.to_string().contains("two-group measure"), "{err}");
        let mut partial = RawRow::default();
        partial.set(Column::Ai, 1.0);
        let err = labbe(Measure::Or, &ids, &[rows[0].clone(), partial]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "record \"b\" has no bi for the L'Abbé plot of OR"
        );
    }
}
