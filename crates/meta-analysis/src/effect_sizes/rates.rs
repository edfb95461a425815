//! Events over person-time: two groups' `IRR`, `IRD`, `IRSD` (events `x1i`, `x2i` over
//! person-times `t1i`, `t2i`) and a single group's `IR`, `IRLN`, `IRS`, `IRFT` (events `xi`
//! over person-time `ti`).

use super::{finish, Column, Correction, EffectSize, EffectSizeError, Measure, RawRow};
use crate::math::ln;

const PERSON_TIME: &str = "(a person-time)";

/// Two groups: with the events corrected as `to` says (`add` to both counts when either is
/// 0, by default) and ir1i = x1i/t1i, ir2i = x2i/t2i:
/// - `IRR`: ln ir1i − ln ir2i, vi = 1/x1i + 1/x2i;
/// - `IRD`: ir1i − ir2i, vi = ir1i/t1i + ir2i/t2i;
/// - `IRSD`: √ir1i − √ir2i, vi = 1/(4t1i) + 1/(4t2i) (escalc's default `add` is 0 here).
///
/// With `drop00`, a row with no events in either group gives none.
pub(super) fn compute_two_groups(
    measure: Measure,
    rows: &[RawRow],
    correction: &Correction,
) -> Vec<Result<EffectSize, EffectSizeError>> {
    let read: Vec<Result<[f64; 4], EffectSizeError>> = rows
        .iter()
        .map(|row| {
            let x1 = row.nonnegative(Column::X1i)?;
            let t1 = row.positive(Column::T1i, PERSON_TIME)?;
            let x2 = row.nonnegative(Column::X2i)?;
            let t2 = row.positive(Column::T2i, PERSON_TIME)?;
            if correction.drop00 && x1 == 0.0 && x2 == 0.0 {
                return Err(EffectSizeError::Undefined {
                    column: Column::X1i,
                    reason: "x1i and x2i are both 0 and drop00 is set, so the row is left out"
                        .into(),
                });
            }
            Ok([x1, t1, x2, t2])
        })
        .collect();
    let has_zero = |[x1, _, x2, _]: &[f64; 4]| *x1 == 0.0 || *x2 == 0.0;
    let any_zero = read.iter().any(|r| r.as_ref().is_ok_and(has_zero));
    read.into_iter()
        .map(|r| {
            let values = r?;
            let add = correction.add_for(has_zero(&values), any_zero);
            let [x1, t1, x2, t2] = values;
            let (x1, x2) = (x1 + add, x2 + add);
            let (ir1, ir2) = (x1 / t1, x2 / t2);
            let (yi, vi) = match measure {
                Measure::Irr => (ln(ir1) - ln(ir2), 1.0 / x1 + 1.0 / x2),
                Measure::Ird => (ir1 - ir2, ir1 / t1 + ir2 / t2),
                Measure::Irsd => (ir1.sqrt() - ir2.sqrt(), 1.0 / (4.0 * t1) + 1.0 / (4.0 * t2)),
                _ => unreachable!("rates::compute_two_groups is called for IRR, IRD, IRSD"),
            };
            zero_events(yi, vi, x1, x2, correction, measure)?;
            finish(yi, vi, Column::X1i, measure.title())
        })
        .collect()
}

/// One group: with xi corrected as `to` says and iri = xi/ti:
/// - `IR`: iri, vi = iri/ti;
/// - `IRLN`: ln iri, vi = 1/xi;
/// - `IRS`: √iri, vi = 1/(4ti);
/// - `IRFT`: ½(√iri + √(iri + 1/ti)) (Freeman & Tukey 1950), vi = 1/(4ti).
pub(super) fn compute_single(
    measure: Measure,
    rows: &[RawRow],
    correction: &Correction,
) -> Vec<Result<EffectSize, EffectSizeError>> {
    let read: Vec<Result<(f64, f64), EffectSizeError>> = rows
        .iter()
        .map(|row| {
            let xi = row.nonnegative(Column::Xi)?;
            let ti = row.positive(Column::Ti, PERSON_TIME)?;
            Ok((xi, ti))
        })
        .collect();
    let any_zero = read
        .iter()
        .any(|r| r.as_ref().is_ok_and(|(x, _)| *x == 0.0));
    read.into_iter()
        .map(|r| {
            let (xi, ti) = r?;
            let xi = xi + correction.add_for(xi == 0.0, any_zero);
            let iri = xi / ti;
            let (yi, vi) = match measure {
                Measure::Ir => (iri, iri / ti),
                Measure::Irln => (ln(iri), 1.0 / xi),
                Measure::Irs => (iri.sqrt(), 1.0 / (4.0 * ti)),
                Measure::Irft => (
                    1.0 / 2.0 * (iri.sqrt() + (iri + 1.0 / ti).sqrt()),
                    1.0 / (4.0 * ti),
                ),
                _ => unreachable!("rates::compute_single is called for IR, IRLN, IRS, IRFT"),
            };
            zero_events(yi, vi, xi, 1.0, correction, measure)?;
            finish(yi, vi, Column::Xi, measure.title())
        })
        .collect()
}

/// The error of a row left with no events and no correction, when that leaves the measure
/// undefined.
fn zero_events(
    yi: f64,
    vi: f64,
    x1: f64,
    x2: f64,
    correction: &Correction,
    measure: Measure,
) -> Result<(), EffectSizeError> {
    if (x1 == 0.0 || x2 == 0.0) && !(yi.is_finite() && vi.is_finite() && vi >= 0.0) {
        let column = match (measure.columns()[0], x1 == 0.0) {
            (Column::X1i, false) => Column::X2i,
            (first, _) => first,
        };
        return Err(EffectSizeError::Undefined {
            column,
            reason: format!(
                "{column} is 0 and no continuity correction applies (add = {}, to = \"{}\"), so the {} is undefined",
                correction.add,
                correction.to.name(),
                measure.title()
            ),
        });
    }
    Ok(())
}
