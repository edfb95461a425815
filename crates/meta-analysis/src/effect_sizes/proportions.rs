//! Single proportions: `PR`, `PLN`, `PLO`, `PAS` and `PFT`.

use super::{
    finish, weighted_mean, Column, Correction, EffectSize, EffectSizeError, Measure, RawRow, Vtype,
};
use crate::math::{asin, ln};

/// One row's events `xi` and non-events `mi = ni − xi`, checked.
struct Counts {
    xi: f64,
    mi: f64,
}

impl Counts {
    fn read(row: &RawRow) -> Result<Counts, EffectSizeError> {
        let xi = row.required(Column::Xi)?;
        let ni = row.required(Column::Ni)?;
        if xi < 0.0 {
            return Err(EffectSizeError::Negative {
                column: Column::Xi,
                value: xi,
            });
        }
        if ni <= 0.0 {
            return Err(EffectSizeError::TooSmall {
                column: Column::Ni,
                value: ni,
                needed: "more than 0",
                why: "(a sample size)",
            });
        }
        if xi > ni {
            return Err(EffectSizeError::AboveN {
                column: Column::Xi,
                value: xi,
                n_column: Column::Ni,
                n: ni,
            });
        }
        Ok(Counts { xi, mi: ni - xi })
    }

    fn has_zero(&self) -> bool {
        self.xi == 0.0 || self.mi == 0.0
    }
}

/// Every row's effect size: with `add` added to xi and mi when `to` says so (escalc's
/// default: when either is 0) and pi = xi/ni after it:
/// - `PR`: yi = pi, vi = pi(1 − pi)/ni ("LS"; "UB": /(ni − 1); "AV": the weighted mean
///   proportion p̄ in place of pi);
/// - `PLN`: yi = ln pi, vi = 1/xi − 1/ni ("AV": 1/(p̄·ni) − 1/ni);
/// - `PLO`: yi = ln(pi/(1 − pi)), vi = 1/xi + 1/mi ("AV": 1/(p̄·ni) + 1/((1 − p̄)·ni));
/// - `PAS`: yi = asin √pi, vi = 1/(4ni);
/// - `PFT`: yi = ½(asin √(xi/(ni + 1)) + asin √((xi + 1)/(ni + 1))) (Freeman & Tukey
///   1950), vi = 1/(4ni + 2).
///
/// PAS and PFT take `add` = 0 unless given (escalc's default for them).
pub(super) fn compute(
    measure: Measure,
    rows: &[RawRow],
    correction: &Correction,
    vtype: Vtype,
) -> Vec<Result<EffectSize, EffectSizeError>> {
    let counts: Vec<_> = rows.iter().map(Counts::read).collect();
    let any_zero = counts
        .iter()
        .any(|c| c.as_ref().is_ok_and(Counts::has_zero));
    let corrected: Vec<Result<(Counts, f64, f64), EffectSizeError>> = counts
        .into_iter()
        .map(|c| {
            let c = c?;
            let add = correction.add_for(c.has_zero(), any_zero);
            let (xi, mi) = (c.xi + add, c.mi + add);
            Ok((c, xi, mi))
        })
        .collect();
    let average = weighted_mean(
        corrected
            .iter()
            .filter_map(|c| c.as_ref().ok())
            .map(|(_, xi, mi)| (xi / (xi + mi), xi + mi)),
    );
    corrected
        .into_iter()
        .map(|c| {
            let (counts, xi, mi) = c?;
            effect_size(measure, &counts, xi, mi, correction, vtype, average)
        })
        .collect()
}

fn effect_size(
    measure: Measure,
    counts: &Counts,
    xi: f64,
    mi: f64,
    options: &Correction,
    vtype: Vtype,
    average: f64,
) -> Result<EffectSize, EffectSizeError> {
    let ni = xi + mi;
    let pi = xi / ni;
    let av = vtype == Vtype::Av;
    let (yi, vi) = match measure {
        Measure::Pr => (
            pi,
            match vtype {
                Vtype::Ub => pi * (1.0 - pi) / (ni - 1.0),
                Vtype::Av => average * (1.0 - average) / ni,
                _ => pi * (1.0 - pi) / ni,
            },
        ),
        Measure::Pln => (
            ln(pi),
            if av {
                1.0 / (average * ni) - 1.0 / ni
            } else {
                1.0 / xi - 1.0 / ni
            },
        ),
        Measure::Plo => (
            ln(pi / (1.0 - pi)),
            if av {
                1.0 / (average * ni) + 1.0 / ((1.0 - average) * ni)
            } else {
                1.0 / xi + 1.0 / mi
            },
        ),
        Measure::Pas => (asin(pi.sqrt()), 1.0 / (4.0 * ni)),
        Measure::Pft => (
            1.0 / 2.0 * (asin((xi / (ni + 1.0)).sqrt()) + asin(((xi + 1.0) / (ni + 1.0)).sqrt())),
            1.0 / (4.0 * ni + 2.0),
        ),
        _ => unreachable!("proportions::effect_size is called for PR, PLN, PLO, PAS, PFT"),
    };
    if (xi == 0.0 || mi == 0.0) && !(yi.is_finite() && vi.is_finite() && vi >= 0.0) {
        return Err(EffectSizeError::Undefined {
            column: Column::Xi,
            reason: format!(
                "xi is {} of ni = {} and no continuity correction applies (add = {}, to = \"{}\"), so the {} is undefined",
                counts.xi,
                counts.xi + counts.mi,
                options.add,
                options.to.name(),
                measure.title()
            ),
        });
    }
    finish(yi, vi, Column::Xi, measure.title())
}
