//! One group: its mean, SD and size (`MN`, `MNLN`, `CVLN`, `SDLN`, `SMN`), and its change
//! between two times or conditions, from the means and SDs at each and their correlation
//! (`MC`, `SMCC`, `SMCR`, `SMCRH`, `ROMC`, `CVRC`, `VRC`).

use super::{cmi, finish, Column, EffectSize, EffectSizeError, Measure, RawRow, Vtype};
use crate::math::ln;

const SAMPLE_SIZE: &str = "(a sample size)";

fn sq(x: f64) -> f64 {
    x * x
}

/// With mi the mean, sdi the SD and ni the size (escalc refuses sdi < 0, ni ≤ 0, and a mean
/// below 0 for MNLN and CVLN):
/// - `MN`: yi = mi, vi = sdi²/ni;
/// - `MNLN`: yi = ln mi, vi = sdi²/(ni·mi²);
/// - `CVLN`: yi = ln(sdi/mi) + 1/(2(ni − 1)), vi = 1/(2(ni − 1)) + sdi²/(ni·mi²);
/// - `SDLN`: yi = ln sdi + 1/(2(ni − 1)), vi = 1/(2(ni − 1));
/// - `SMN`: yi = c(ni − 1)·mi/sdi, vi = 1/ni + yi²/(2ni).
pub(super) fn compute_single(
    measure: Measure,
    rows: &[RawRow],
) -> Vec<Result<EffectSize, EffectSizeError>> {
    rows.iter()
        .map(|row| {
            let mean = if measure == Measure::Sdln {
                f64::NAN
            } else {
                row.required(Column::Mi)?
            };
            let sdi = row.nonnegative(Column::Sdi)?;
            let ni = row.positive(Column::Ni, SAMPLE_SIZE)?;
            if matches!(measure, Measure::Mnln | Measure::Cvln) && mean < 0.0 {
                return Err(EffectSizeError::Negative {
                    column: Column::Mi,
                    value: mean,
                });
            }
            let (yi, vi) = match measure {
                Measure::Mn => (mean, sq(sdi) / ni),
                Measure::Mnln => (ln(mean), sq(sdi) / (ni * sq(mean))),
                Measure::Cvln => (
                    ln(sdi / mean) + 1.0 / (2.0 * (ni - 1.0)),
                    1.0 / (2.0 * (ni - 1.0)) + sq(sdi) / (ni * sq(mean)),
                ),
                Measure::Sdln => (ln(sdi) + 1.0 / (2.0 * (ni - 1.0)), 1.0 / (2.0 * (ni - 1.0))),
                _ => {
                    let yi = cmi(ni - 1.0) * mean / sdi;
                    (yi, 1.0 / ni + sq(yi) / (2.0 * ni))
                }
            };
            let column = if measure == Measure::Sdln {
                Column::Sdi
            } else {
                Column::Mi
            };
            finish(yi, vi, column, measure.title())
        })
        .collect()
}

/// With m1i, m2i, sd1i, sd2i the means and SDs at the two times, ri their correlation, ni
/// the size and mi = ni − 1 (Morris & DeShon 2002; Becker 1988; Bonett 2008; Lajeunesse 2011):
/// - `MC`: yi = m1i − m2i, vi = (sd1i² + sd2i² − 2ri·sd1i·sd2i)/ni;
/// - `SMCC`: di = (m1i − m2i)/sddi with sddi² that numerator, yi = c(mi)·di, vi "LS"
///   1/ni + yi²/(2ni), "LS2" c(mi)²(1/ni + di²/(2ni));
/// - `SMCR`: di = (m1i − m2i)/sd1i, yi = c(mi)·di, vi "LS" 2(1 − ri)/ni + yi²/(2ni), "LS2"
///   c(mi)²(2(1 − ri)/ni + di²/(2ni));
/// - `SMCRH`: yi = c(mi)(m1i − m2i)/sd1i, vi = c(mi)²(sddi²/(sd1i²(ni − 1)) + yi²/(2(ni − 1)));
/// - `ROMC`: yi = ln(m1i/m2i), vi = sd1i²/(ni·m1i²) + sd2i²/(ni·m2i²) −
///   2ri·sd1i·sd2i/(m1i·m2i·ni);
/// - `CVRC`: yi = ln(sd1i/m1i) − ln(sd2i/m2i), vi = (1 − ri²)/(ni − 1) + (m1i²sd2i² +
///   m2i²sd1i² − 2m1i·m2i·ri·sd1i·sd2i)/(m1i²m2i²ni);
/// - `VRC`: yi = ln(sd1i/sd2i), vi = (1 − ri²)/(ni − 1).
pub(super) fn compute_change(
    measure: Measure,
    rows: &[RawRow],
    vtype: Vtype,
) -> Vec<Result<EffectSize, EffectSizeError>> {
    rows.iter()
        .map(|row| {
            let needs = |c: Column| measure.columns().contains(&c);
            let value = |c: Column| {
                if needs(c) {
                    row.required(c)
                } else {
                    Ok(f64::NAN)
                }
            };
            let m1 = value(Column::M1i)?;
            let m2 = value(Column::M2i)?;
            let sd1 = row.nonnegative(Column::Sd1i)?;
            let sd2 = if needs(Column::Sd2i) {
                row.nonnegative(Column::Sd2i)?
            } else {
                f64::NAN
            };
            let ri = row.correlation(Column::Ri)?;
            let ni = row.positive(Column::Ni, SAMPLE_SIZE)?;
            let mi = ni - 1.0;
            let vardi = sq(sd1) + sq(sd2) - 2.0 * ri * sd1 * sd2;
            let (yi, vi) = match measure {
                Measure::Mc => (m1 - m2, vardi / ni),
                Measure::Smcc => {
                    let c = cmi(mi);
                    let di = (m1 - m2) / vardi.sqrt();
                    let yi = c * di;
                    let vi = if vtype == Vtype::Ls2 {
                        sq(c) * (1.0 / ni + sq(di) / (2.0 * ni))
                    } else {
                        1.0 / ni + sq(yi) / (2.0 * ni)
                    };
                    (yi, vi)
                }
                Measure::Smcr => {
                    let c = cmi(mi);
                    let di = (m1 - m2) / sd1;
                    let yi = c * di;
                    let vi = if vtype == Vtype::Ls2 {
                        sq(c) * (2.0 * (1.0 - ri) / ni + sq(di) / (2.0 * ni))
                    } else {
                        2.0 * (1.0 - ri) / ni + sq(yi) / (2.0 * ni)
                    };
                    (yi, vi)
                }
                Measure::Smcrh => {
                    let c = cmi(mi);
                    let yi = c * (m1 - m2) / sd1;
                    let vi = vardi / (sq(sd1) * (ni - 1.0)) + sq(yi) / (2.0 * (ni - 1.0));
                    (yi, sq(c) * vi)
                }
                Measure::Romc => (
                    ln(m1 / m2),
                    sq(sd1) / (ni * sq(m1)) + sq(sd2) / (ni * sq(m2))
                        - 2.0 * ri * sd1 * sd2 / (m1 * m2 * ni),
                ),
                Measure::Cvrc => (
                    ln(sd1 / m1) - ln(sd2 / m2),
                    (1.0 - sq(ri)) / (ni - 1.0)
                        + (sq(m1) * sq(sd2) + sq(m2) * sq(sd1) - 2.0 * m1 * m2 * ri * sd1 * sd2)
                            / (sq(m1) * sq(m2) * ni),
                ),
                Measure::Vrc => (ln(sd1 / sd2), (1.0 - sq(ri)) / (ni - 1.0)),
                _ => unreachable!("change::compute_change is called for the change measures"),
            };
            finish(yi, vi, measure.columns()[0], measure.title())
        })
        .collect()
}
