//! Single proportions: `PR` and `PLO`.

use super::{
    corrected, finish, Column, EffectSize, EffectSizeError, EscalcOptions, Measure, RawRow,
};

/// One row's events `xi` and non-events `mi = ni − xi`, checked.
pub(super) struct Counts {
    xi: f64,
    mi: f64,
}

impl Counts {
    pub(super) fn read(row: &RawRow) -> Result<Counts, EffectSizeError> {
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

    pub(super) fn has_zero(&self) -> bool {
        self.xi == 0.0 || self.mi == 0.0
    }
}

/// With `add` added to xi and mi when `to` says so (escalc's default: when either is 0) and
/// pi = xi/ni after it:
/// - `PR`: yi = pi, vi = pi(1 − pi)/ni (vtype "LS");
/// - `PLO`: yi = ln(pi/(1 − pi)), vi = 1/xi + 1/mi.
pub(super) fn effect_size(
    measure: Measure,
    counts: Counts,
    options: &EscalcOptions,
    any_zero: bool,
) -> Result<EffectSize, EffectSizeError> {
    let add = if corrected(options.to, counts.has_zero(), any_zero) {
        options.add
    } else {
        0.0
    };
    let (xi, mi) = (counts.xi + add, counts.mi + add);
    let ni = xi + mi;
    let pi = xi / ni;
    let (yi, vi) = match measure {
        Measure::Pr => (pi, pi * (1.0 - pi) / ni),
        Measure::Plo => (crate::math::ln(pi / (1.0 - pi)), 1.0 / xi + 1.0 / mi),
        _ => unreachable!("proportions::effect_size is called for PR and PLO only"),
    };
    if (xi == 0.0 || mi == 0.0) && !(yi.is_finite() && vi.is_finite() && vi > 0.0) {
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
