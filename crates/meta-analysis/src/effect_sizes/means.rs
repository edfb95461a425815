//! Two groups' means, standard deviations and sizes: `MD`, `SMD` and `ROM`.

use super::{finish, Column, EffectSize, EffectSizeError, Measure, RawRow, Shown};
use crate::math::{exp, lgamma, ln};

/// One row's two groups, checked: SDs ≥ 0, sizes > 0 (escalc refuses both otherwise).
struct Groups {
    m1: f64,
    sd1: f64,
    n1: f64,
    m2: f64,
    sd2: f64,
    n2: f64,
}

impl Groups {
    fn read(row: &RawRow) -> Result<Groups, EffectSizeError> {
        let g = Groups {
            m1: row.required(Column::M1i)?,
            sd1: row.required(Column::Sd1i)?,
            n1: row.required(Column::N1i)?,
            m2: row.required(Column::M2i)?,
            sd2: row.required(Column::Sd2i)?,
            n2: row.required(Column::N2i)?,
        };
        for (column, value) in [(Column::Sd1i, g.sd1), (Column::Sd2i, g.sd2)] {
            if value < 0.0 {
                return Err(EffectSizeError::Negative { column, value });
            }
        }
        for (column, value) in [(Column::N1i, g.n1), (Column::N2i, g.n2)] {
            if value <= 0.0 {
                return Err(EffectSizeError::TooSmall {
                    column,
                    value,
                    needed: "more than 0",
                    why: "(a group size)",
                });
            }
        }
        Ok(g)
    }
}

pub(super) fn effect_size(measure: Measure, row: &RawRow) -> Result<EffectSize, EffectSizeError> {
    let g = Groups::read(row)?;
    match measure {
        Measure::Md => mean_difference(&g),
        Measure::Smd => hedges_g(&g),
        Measure::Rom => log_ratio_of_means(&g),
        _ => unreachable!("means::effect_size is called for MD, SMD and ROM only"),
    }
}

/// `MD`: yi = m1i − m2i, vi = sd1i²/n1i + sd2i²/n2i (escalc's vtype "LS", which does not
/// assume equal variances).
fn mean_difference(g: &Groups) -> Result<EffectSize, EffectSizeError> {
    let yi = g.m1 - g.m2;
    let vi = g.sd1 * g.sd1 / g.n1 + g.sd2 * g.sd2 / g.n2;
    if vi == 0.0 {
        let groups = format!(", n1i = {}, n2i = {}", Shown(g.n1), Shown(g.n2));
        return Err(zero_variance(
            g,
            "the sampling variance sd1i²/n1i + sd2i²/n2i",
            &groups,
            SMALLER_UNITS,
        ));
    }
    finish(yi, vi, Column::M1i, "mean difference")
}

/// `SMD`: Hedges' g. With mi = n1i + n2i − 2 and the pooled SD
/// sdpi = √(((n1i − 1)·sd1i² + (n2i − 1)·sd2i²)/mi), d = (m1i − m2i)/sdpi is corrected by the
/// exact factor c(mi) = Γ(mi/2) / (√(mi/2)·Γ((mi − 1)/2)) (Hedges 1981), computed on the log
/// scale as metafor does: yi = c(mi)·d. Its variance is escalc's default large-sample
/// approximation vi = 1/n1i + 1/n2i + yi²/(2·(n1i + n2i)) (vtype "LS"). c(mi) needs mi > 1.
fn hedges_g(g: &Groups) -> Result<EffectSize, EffectSizeError> {
    let ni = g.n1 + g.n2;
    let mi = ni - 2.0;
    if mi <= 1.0 {
        return Err(EffectSizeError::Undefined {
            column: Column::N2i,
            reason: format!(
                "n1i + n2i is {}; Hedges' g needs n1i + n2i - 2 > 1 (at least 4 people in all) for its bias correction",
                Shown(ni)
            ),
        });
    }
    let sdpi = (((g.n1 - 1.0) * g.sd1 * g.sd1 + (g.n2 - 1.0) * g.sd2 * g.sd2) / mi).sqrt();
    if sdpi == 0.0 {
        return Err(zero_variance(
            g,
            "the pooled SD √(((n1i − 1)·sd1i² + (n2i − 1)·sd2i²)/(n1i + n2i − 2))",
            "",
            SMALLER_UNITS,
        ));
    }
    let difference = g.m1 - g.m2;
    let di = difference / sdpi;
    let yi = bias_correction(mi) * di;
    let vi = 1.0 / g.n1 + 1.0 / g.n2 + yi * yi / (2.0 * ni);
    if difference.is_finite() && !(yi.is_finite() && vi.is_finite()) {
        // Not "the sampling variance is inf": what overflowed is a difference standardised
        // by an SD far too small for it.
        return Err(EffectSizeError::Undefined {
            column: Column::Sd1i,
            reason: format!(
                "the pooled SD sdpi = {} is too small against m1i - m2i = {}: Hedges' g is {} \
and its sampling variance 1/n1i + 1/n2i + yi²/(2·(n1i + n2i)) is {} in double precision; check \
the SDs (sd1i = {}, sd2i = {})",
                Shown(sdpi),
                Shown(difference),
                Shown(yi),
                Shown(vi),
                Shown(g.sd1),
                Shown(g.sd2)
            ),
        });
    }
    finish(yi, vi, Column::M1i, "standardized mean difference")
}

/// c(m) = Γ(m/2) / (√(m/2)·Γ((m − 1)/2)), as exp(lnΓ(m/2) − ln√(m/2) − lnΓ((m − 1)/2)) so
/// that it does not overflow for large m (metafor's `.cmicalc`).
pub(crate) fn bias_correction(m: f64) -> f64 {
    exp(lgamma(m / 2.0) - ln((m / 2.0).sqrt()) - lgamma((m - 1.0) / 2.0))
}

/// `ROM`: yi = ln(m1i/m2i), vi = sd1i²/(n1i·m1i²) + sd2i²/(n2i·m2i²) (vtype "LS"; Hedges,
/// Gurevitch & Curtis 1999). For ratio-scale outcomes: both means must be positive.
fn log_ratio_of_means(g: &Groups) -> Result<EffectSize, EffectSizeError> {
    for (column, value) in [(Column::M1i, g.m1), (Column::M2i, g.m2)] {
        if value <= 0.0 {
            return Err(EffectSizeError::Undefined {
                column,
                reason: format!(
                    "{column} is {}; the log ratio of means needs both means greater than 0",
                    Shown(value)
                ),
            });
        }
    }
    let yi = ln(g.m1 / g.m2);
    let vi = g.sd1 * g.sd1 / (g.n1 * g.m1 * g.m1) + g.sd2 * g.sd2 / (g.n2 * g.m2 * g.m2);
    if vi == 0.0 {
        let means = format!(", m1i = {}, m2i = {}", Shown(g.m1), Shown(g.m2));
        return Err(zero_variance(
            g,
            "the sampling variance sd1i²/(n1i·m1i²) + sd2i²/(n2i·m2i²)",
            &means,
            "the SDs are too small against the means for the log ratio of means to have a \
variance (it does not change with the units)",
        ));
    }
    finish(yi, vi, Column::M1i, "log ratio of means")
}

/// Why the variance (or the pooled SD) is 0. With both SDs 0 that is the data. Otherwise it
/// underflowed: a double below about 1.5e-154 squares to less than the smallest normal double
/// (2.2e-308), and 5e-324 is the smallest double of all, so tiny SDs, or SDs tiny against
/// large groups (MD) or large means (ROM), give 0 though no SD is 0. Saying "both 0" then
/// would be false: the message gives the values, the formula that underflowed, and `remedy`.
fn zero_variance(g: &Groups, formula: &str, more: &str, remedy: &str) -> EffectSizeError {
    if g.sd1 == 0.0 && g.sd2 == 0.0 {
        return EffectSizeError::Undefined {
            column: Column::Sd2i,
            reason: "sd1i and sd2i are both 0, so the sampling variance is 0".into(),
        };
    }
    let column = if g.sd1 != 0.0 {
        Column::Sd1i
    } else {
        Column::Sd2i
    };
    EffectSizeError::Undefined {
        column,
        reason: format!(
            "{formula} underflows to 0 in double precision with sd1i = {}, sd2i = {}{more}, though \
the SDs are not both 0 (a number below about 1.5e-154 squares to less than the smallest normal \
double, 2.2e-308); {remedy}",
            Shown(g.sd1),
            Shown(g.sd2)
        ),
    }
}

/// What to do when MD's or SMD's variance underflows.
const SMALLER_UNITS: &str =
    "give the means and SDs in smaller units (e.g. all multiplied by 1e6) so the SDs are not so small";

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(m1: f64, sd1: f64, n1: f64, m2: f64, sd2: f64, n2: f64) -> RawRow {
        let mut row = RawRow::default();
        for (c, v) in [
            (Column::M1i, m1),
            (Column::Sd1i, sd1),
            (Column::N1i, n1),
            (Column::M2i, m2),
            (Column::Sd2i, sd2),
            (Column::N2i, n2),
        ] {
            row.set(c, v);
        }
        row
    }

    /// Issue 25, item 10: SDs of 5e-324 were reported as "both 0". A variance that underflows
    /// says so, with the values as written, and only SDs that are 0 are called 0.
    #[test]
    fn a_variance_that_underflows_is_not_called_both_sds_zero() {
        let tiny = 5e-324;
        for (measure, row, column, says) in [
            (
                Measure::Smd,
                groups(1.0, tiny, 10.0, 0.0, tiny, 10.0),
                Column::Sd1i,
                "the pooled SD √(((n1i − 1)·sd1i² + (n2i − 1)·sd2i²)/(n1i + n2i − 2)) underflows \
to 0 in double precision with sd1i = 5e-324, sd2i = 5e-324, though the SDs are not both 0",
            ),
            (
                Measure::Md,
                groups(1.0, 0.0, 10.0, 0.0, 1e-200, 10.0),
                Column::Sd2i,
                "the sampling variance sd1i²/n1i + sd2i²/n2i underflows to 0 in double precision \
with sd1i = 0, sd2i = 1e-200, n1i = 10, n2i = 10, though",
            ),
            (
                Measure::Md,
                groups(1.0, 1e-160, 1e10, 0.0, 1e-160, 1e10),
                Column::Sd1i,
                "with sd1i = 1e-160, sd2i = 1e-160, n1i = 10000000000, n2i = 10000000000, though",
            ),
            (
                Measure::Rom,
                groups(1e200, 1.0, 10.0, 1e200, 1.0, 10.0),
                Column::Sd1i,
                "sd1i²/(n1i·m1i²) + sd2i²/(n2i·m2i²) underflows to 0 in double precision with \
sd1i = 1, sd2i = 1, m1i = 1e200, m2i = 1e200, though the SDs are not both 0",
            ),
        ] {
            let e = effect_size(measure, &row).unwrap_err();
            let text = e.to_string();
            assert_eq!(e.column(), Some(column), "{text}");
            assert!(text.contains(says), "{measure}: {text}");
            assert!(!text.contains("both 0,"), "{text}");
            assert!(text.len() < 400, "{text}");
        }
        // SDs not small enough to underflow, but too small to standardise by.
        let e =
            effect_size(Measure::Smd, &groups(1.0, 1e-160, 10.0, 0.0, 1e-160, 10.0)).unwrap_err();
        assert_eq!(e.column(), Some(Column::Sd1i));
        // (sdpi is 9.99994e-161: 1e-160 squared is subnormal, with fewer digits.)
        assert!(
            e.to_string()
                .starts_with("sd1i: the pooled SD sdpi = 9.9999"),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("is too small against m1i - m2i = 1: Hedges' g is 9.57"),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("sampling variance 1/n1i + 1/n2i + yi²/(2·(n1i + n2i)) is inf"),
            "{e}"
        );
        // SDs that are 0 are still called so.
        let e = effect_size(Measure::Smd, &groups(1.0, 0.0, 10.0, 0.0, 0.0, 10.0)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "sd2i: sd1i and sd2i are both 0, so the sampling variance is 0"
        );
        // Tiny values are written as numbers, not as 300 zeros.
        let e = effect_size(Measure::Md, &groups(1.0, -1e-300, 10.0, 0.0, 1.0, 10.0)).unwrap_err();
        assert_eq!(e.to_string(), "sd1i is -1e-300; it cannot be negative");
    }

    #[test]
    fn the_exact_correction_approaches_hedges_approximation() {
        // Hedges (1981): c(m) ≈ 1 − 3/(4m − 1), closer as m grows.
        for m in [10.0, 100.0, 1000.0] {
            let approx = 1.0 - 3.0 / (4.0 * m - 1.0);
            assert!((bias_correction(m) - approx).abs() < 1.0 / (m * m), "{m}");
        }
        // c(2) = Γ(1)/(1·Γ(1/2)) = 1/√π.
        assert!((bias_correction(2.0) - 1.0 / std::f64::consts::PI.sqrt()).abs() < 1e-15);
        assert!(bias_correction(1e9).is_finite());
    }
}
