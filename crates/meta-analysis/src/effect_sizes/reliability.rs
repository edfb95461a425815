//! Cronbach's alpha (`ARAW`, `AHW`, `ABT`: alpha `ai` of a scale of `mi` items given to `ni`
//! people) and the relative excess heterozygosity `REH` (genotype counts `ai`, `bi`, `ci`).

use super::{finish, Column, EffectSize, EffectSizeError, Measure, RawRow};
use crate::math::{ln, pow};

fn sq(x: f64) -> f64 {
    x * x
}

/// Every row's effect size:
/// - `ARAW`: yi = ai, vi = 2mi(1 − ai)²/((mi − 1)(ni − 2)) (Feldt, Woodruff & Salih 1987);
/// - `AHW`: yi = 1 − (1 − ai)^(1/3), vi = 18mi(ni − 1)(1 − ai)^(2/3)/((mi − 1)(9ni − 11)²)
///   (Hakstian & Whalen 1976);
/// - `ABT`: yi = −ln(1 − ai), vi = 2mi/((mi − 1)(ni − 2)) (Bonett 2002);
/// - `REH`: with ni = ai + bi + ci and p0i, p1i, p2i their shares (homozygotes, heterozygotes,
///   other homozygotes), yi = ln p1i − ln(2√(p0i·p2i)), vi = ((1 − p1i)/(4p0i·p2i) + 1/p1i)/ni.
///
/// escalc refuses ai > 1, mi < 2, ni ≤ 0 for alpha and negative counts for REH.
pub(super) fn compute(
    measure: Measure,
    rows: &[RawRow],
) -> Vec<Result<EffectSize, EffectSizeError>> {
    rows.iter()
        .map(|row| {
            if measure == Measure::Reh {
                return heterozygosity(row);
            }
            let ai = row.required(Column::Ai)?;
            let mi = row.required(Column::Mi)?;
            let ni = row.positive(Column::Ni, "(a sample size)")?;
            if ai > 1.0 {
                return Err(EffectSizeError::Undefined {
                    column: Column::Ai,
                    reason: format!("ai is {ai}; Cronbach's alpha is at most 1"),
                });
            }
            if mi < 2.0 {
                return Err(EffectSizeError::TooSmall {
                    column: Column::Mi,
                    value: mi,
                    needed: "at least 2",
                    why: "(a scale's number of items)",
                });
            }
            let (yi, vi) = match measure {
                Measure::Araw => (ai, 2.0 * mi * sq(1.0 - ai) / ((mi - 1.0) * (ni - 2.0))),
                Measure::Ahw => (
                    1.0 - pow(1.0 - ai, 1.0 / 3.0),
                    18.0 * mi * (ni - 1.0) * pow(1.0 - ai, 2.0 / 3.0)
                        / ((mi - 1.0) * sq(9.0 * ni - 11.0)),
                ),
                _ => (-ln(1.0 - ai), 2.0 * mi / ((mi - 1.0) * (ni - 2.0))),
            };
            finish(yi, vi, Column::Ai, measure.title())
        })
        .collect()
}

fn heterozygosity(row: &RawRow) -> Result<EffectSize, EffectSizeError> {
    let ai = row.nonnegative(Column::Ai)?;
    let bi = row.nonnegative(Column::Bi)?;
    let ci = row.nonnegative(Column::Ci)?;
    let ni = ai + bi + ci;
    let (p0, p1, p2) = (ai / ni, bi / ni, ci / ni);
    let yi = ln(p1) - ln(2.0 * (p0 * p2).sqrt());
    let vi = ((1.0 - p1) / (4.0 * p0 * p2) + 1.0 / p1) / ni;
    let column = [(Column::Ai, ai), (Column::Bi, bi), (Column::Ci, ci)]
        .into_iter()
        .find(|(_, v)| *v == 0.0)
        .map_or(Column::Bi, |(c, _)| c);
    finish(yi, vi, column, Measure::Reh.title())
}
