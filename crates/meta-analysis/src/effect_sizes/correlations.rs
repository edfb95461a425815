//! Correlation coefficients: `COR`, `UCOR` and `ZCOR`; partial and semi-partial correlations from a
//! regression's t statistic: `PCOR`, `ZPCOR` and `SPCOR`.

use super::{finish, weighted_mean, Column, EffectSize, EffectSizeError, Measure, RawRow, Vtype};
use crate::math::{ln, sq};
use crate::special::hyp2f1;

/// Every row's effect size; "AV" averages the rows' correlations weighted by ni.
pub(super) fn compute(
    measure: Measure,
    rows: &[RawRow],
    vtype: Vtype,
) -> Vec<Result<EffectSize, EffectSizeError>> {
    let partial = matches!(measure, Measure::Pcor | Measure::Zpcor | Measure::Spcor);
    let read: Vec<Result<(f64, f64, f64, f64), EffectSizeError>> = rows
        .iter()
        .map(|row| {
            if partial {
                read_partial(measure, row)
            } else {
                let ri = row.required(Column::Ri)?;
                let ni = row.required(Column::Ni)?;
                Ok((ri, ni, 0.0, 0.0))
            }
        })
        .collect();
    let average =
        (vtype == Vtype::Av).then(|| {
            weighted_mean(read.iter().filter_map(|r| r.as_ref().ok()).map(
                |&(value, ni, mi, r2i)| match measure {
                    Measure::Pcor => (value / (value * value + (ni - mi - 1.0)).sqrt(), ni),
                    Measure::Spcor => (value * (1.0 - r2i).sqrt() / (ni - mi - 1.0).sqrt(), ni),
                    // escalc averages UCOR's yi, which it leaves NA for ni <= 4.
                    Measure::Ucor if ni <= 4.0 => (f64::NAN, ni),
                    Measure::Ucor => (unbiased_correlation(value, ni), ni),
                    _ => (value, ni),
                },
            ))
        });
    read.into_iter()
        .zip(rows)
        .map(|(r, row)| {
            // UCOR's 2F1 series makes a row cost up to a third of a millisecond.
            if crate::cancel::cancelled() {
                return Err(EffectSizeError::Cancelled);
            }
            let (value, ni, mi, r2i) = r?;
            if partial {
                partial_effect_size(measure, value, ni, mi, r2i, vtype, average)
            } else {
                effect_size(measure, row, vtype, average)
            }
        })
        .collect()
}

/// ti, ni, mi (and r2i for SPCOR), checked as escalc checks them: ni > 0, mi ≥ 0,
/// ni − mi − 1 > 0, r2i in [0, 1].
fn read_partial(measure: Measure, row: &RawRow) -> Result<(f64, f64, f64, f64), EffectSizeError> {
    let ti = row.required(Column::Ti)?;
    let ni = row.positive(Column::Ni, "(a sample size)")?;
    let mi = row.nonnegative(Column::Mi)?;
    if ni - mi - 1.0 <= 0.0 {
        return Err(EffectSizeError::TooSmall {
            column: Column::Ni,
            value: ni,
            needed: "more than mi + 1",
            why: "(the residual degrees of freedom ni - mi - 1 must be positive)",
        });
    }
    let r2i = if measure == Measure::Spcor {
        let r2i = row.required(Column::R2i)?;
        if !(0.0..=1.0).contains(&r2i) {
            return Err(EffectSizeError::Undefined {
                column: Column::R2i,
                reason: format!("r2i is {r2i}; an R² must lie in [0, 1]"),
            });
        }
        r2i
    } else {
        0.0
    };
    Ok((ti, ni, mi, r2i))
}

/// With dfi = ni − mi − 1 (Aloe & Becker 2012; Aloe & Thompson 2013):
/// - `PCOR`: yi = ti/√(ti² + dfi), vi = (1 − yi²)²/dfi ("AV": the ni-weighted mean in place
///   of yi);
/// - `ZPCOR`: Fisher's z of that, vi = 1/dfi;
/// - `SPCOR`: yi = ti·√(1 − r2i)/√dfi, vi = (r2i² − 2r2i + (r2i − yi²) + 1 − (r2i − yi²)²)/ni.
fn partial_effect_size(
    measure: Measure,
    ti: f64,
    ni: f64,
    mi: f64,
    r2i: f64,
    vtype: Vtype,
    average: Option<f64>,
) -> Result<EffectSize, EffectSizeError> {
    let df = ni - mi - 1.0;
    let (yi, vi) = match measure {
        Measure::Pcor => {
            let yi = ti / (ti * ti + df).sqrt();
            let r = if vtype == Vtype::Av {
                average.unwrap_or(f64::NAN)
            } else {
                yi
            };
            (yi, sq(1.0 - r * r) / df)
        }
        Measure::Zpcor => {
            let r = ti / (ti * ti + df).sqrt();
            (1.0 / 2.0 * ln((1.0 + r) / (1.0 - r)), 1.0 / df)
        }
        _ => {
            let yi = ti * (1.0 - r2i).sqrt() / df.sqrt();
            let r = if vtype == Vtype::Av {
                average.unwrap_or(f64::NAN)
            } else {
                yi
            };
            (
                yi,
                (r2i * r2i - 2.0 * r2i + (r2i - r * r) + 1.0 - sq(r2i - r * r)) / ni,
            )
        }
    };
    finish(yi, vi, Column::Ti, measure.title())
}

/// - `COR`: yi = ri, vi = (1 − ri²)²/(ni − 1) (vtype "LS"; "AV": the ni-weighted mean
///   correlation in place of ri);
/// - `UCOR`: the unbiased estimate of Olkin & Pratt (1958), yi = ri·₂F₁(½, ½; (ni − 2)/2;
///   1 − ri²), with vi = (1 − yi²)²/(ni − 1) ("LS"), the ni-weighted mean yi in its place
///   ("AV"), or the unbiased vi = yi² − (1 − (ni − 3)/(ni − 2)·(1 − ri²)·₂F₁(1, 1; ni/2;
///   1 − ri²)) ("UB"; Hedges 1989); escalc gives neither for ni ≤ 4 (₂F₁ needs c > a + b);
/// - `ZCOR`: yi = ½·ln((1 + ri)/(1 − ri)) (Fisher's z), vi = 1/(ni − 3).
///
/// escalc leaves vi missing for ni ≤ 3 for all three, so they need ni > 3; r = ±1 has no z and
/// a raw variance of 0.
fn effect_size(
    measure: Measure,
    row: &RawRow,
    vtype: Vtype,
    average: Option<f64>,
) -> Result<EffectSize, EffectSizeError> {
    let ri = row.required(Column::Ri)?;
    let ni = row.required(Column::Ni)?;
    if !(-1.0..=1.0).contains(&ri) {
        return Err(EffectSizeError::OutOfRange {
            column: Column::Ri,
            value: ri,
        });
    }
    if measure == Measure::Ucor && ni <= 4.0 {
        return Err(EffectSizeError::TooSmall {
            column: Column::Ni,
            value: ni,
            needed: "more than 4",
            why: "(escalc gives no unbiased correlation for ni <= 4)",
        });
    }
    if ni <= 3.0 {
        return Err(EffectSizeError::TooSmall {
            column: Column::Ni,
            value: ni,
            needed: "more than 3",
            why: "(escalc gives no sampling variance of a correlation for ni <= 3)",
        });
    }
    // r = ±1 gives COR and UCOR a sampling variance of 0, which escalc returns (and the
    // analyses refuse by name); Fisher's z of ±1 is infinite, NA in escalc.
    if ri.abs() == 1.0 && measure == Measure::Zcor {
        return Err(EffectSizeError::Undefined {
            column: Column::Ri,
            reason: format!(
                "ri is {ri}; a correlation of exactly -1 or 1 has no finite Fisher's z"
            ),
        });
    }
    let (yi, vi) = match measure {
        Measure::Cor => {
            let r = average.unwrap_or(ri);
            (ri, sq(1.0 - r * r) / (ni - 1.0))
        }
        Measure::Ucor => {
            let yi = unbiased_correlation(ri, ni);
            let vi = match (vtype, average) {
                (Vtype::Ub, _) => {
                    yi * yi
                        - (1.0
                            - (ni - 3.0) / (ni - 2.0)
                                * (1.0 - ri * ri)
                                * hyp2f1(1.0, 1.0, ni / 2.0, 1.0 - ri * ri))
                }
                (_, Some(r)) => sq(1.0 - r * r) / (ni - 1.0),
                _ => sq(1.0 - yi * yi) / (ni - 1.0),
            };
            (yi, vi)
        }
        Measure::Zcor => (0.5 * ln((1.0 + ri) / (1.0 - ri)), 1.0 / (ni - 3.0)),
        _ => unreachable!("correlations::effect_size is called for COR, UCOR and ZCOR only"),
    };
    finish(yi, vi, Column::Ri, measure.title())
}

/// Olkin & Pratt's (1958) unbiased correlation, ri·₂F₁(½, ½; (ni − 2)/2; 1 − ri²), as escalc
/// computes it (metafor's `.Fcalc`, GSL's `hyperg_2F1`), for ni > 4.
fn unbiased_correlation(ri: f64, ni: f64) -> f64 {
    ri * hyp2f1(0.5, 0.5, (ni - 2.0) / 2.0, 1.0 - ri * ri)
}
