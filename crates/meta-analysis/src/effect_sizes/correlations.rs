//! Correlation coefficients: `COR` and `ZCOR`.

use super::{finish, Column, EffectSize, EffectSizeError, Measure, RawRow};
use crate::math::{ln, sq};

/// - `COR`: yi = ri, vi = (1 − ri²)²/(ni − 1) (vtype "LS");
/// - `ZCOR`: yi = ½·ln((1 + ri)/(1 − ri)) (Fisher's z), vi = 1/(ni − 3).
///
/// escalc leaves vi missing for ni ≤ 3 for both, so both need ni > 3; r = ±1 has no z and
/// a raw variance of 0.
pub(super) fn effect_size(measure: Measure, row: &RawRow) -> Result<EffectSize, EffectSizeError> {
    let ri = row.required(Column::Ri)?;
    let ni = row.required(Column::Ni)?;
    if !(-1.0..=1.0).contains(&ri) {
        return Err(EffectSizeError::OutOfRange {
            column: Column::Ri,
            value: ri,
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
    if ri.abs() == 1.0 {
        return Err(EffectSizeError::Undefined {
            column: Column::Ri,
            reason: format!(
                "ri is {ri}; a correlation of exactly -1 or 1 has {}",
                if measure == Measure::Zcor {
                    "no finite Fisher's z"
                } else {
                    "a sampling variance of 0"
                }
            ),
        });
    }
    let (yi, vi) = match measure {
        Measure::Cor => (ri, sq(1.0 - ri * ri) / (ni - 1.0)),
        Measure::Zcor => (0.5 * ln((1.0 + ri) / (1.0 - ri)), 1.0 / (ni - 3.0)),
        _ => unreachable!("correlations::effect_size is called for COR and ZCOR only"),
    };
    finish(yi, vi, Column::Ri, measure.title())
}
