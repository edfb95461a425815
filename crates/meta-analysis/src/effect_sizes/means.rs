//! Two groups' means, standard deviations and sizes: `MD`, `SMD`, `SMDH`, `SMD1`, `SMD1H`,
//! `ROM`, `CVR`, `VR`, `RPB`, `RBIS`, `D2ORN` and `D2ORL`.

use super::{
    cmi, finish, weighted_mean, Column, EffectSize, EffectSizeError, Measure, RawRow, Shown, Vtype,
};
use crate::distributions::normal_quantile;
use crate::math::{exp, lgamma, ln, pow};
use std::f64::consts::PI;

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
    /// The row's groups; a column the measure does not read (sd1i of SMD1, the means of VR)
    /// is NaN and never used.
    fn read(measure: Measure, row: &RawRow) -> Result<Groups, EffectSizeError> {
        let needs = |column: Column| measure.columns().contains(&column);
        let value = |column: Column| {
            if needs(column) {
                row.required(column)
            } else {
                Ok(f64::NAN)
            }
        };
        let g = Groups {
            m1: value(Column::M1i)?,
            sd1: value(Column::Sd1i)?,
            n1: value(Column::N1i)?,
            m2: value(Column::M2i)?,
            sd2: value(Column::Sd2i)?,
            n2: value(Column::N2i)?,
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

    /// mi = n1i + n2i − 2 (SMD1, SMD1H: n2i − 1), the degrees of freedom of the SD.
    fn mi(&self, measure: Measure) -> f64 {
        if matches!(measure, Measure::Smd1 | Measure::Smd1h) {
            self.n2 - 1.0
        } else {
            self.n1 + self.n2 - 2.0
        }
    }

    /// The SD standardizing the difference: pooled, or group 2's for SMD1 and SMD1H.
    fn sdpi(&self, measure: Measure) -> f64 {
        if matches!(measure, Measure::Smd1 | Measure::Smd1h) {
            self.sd2
        } else {
            (((self.n1 - 1.0) * self.sd1 * self.sd1 + (self.n2 - 1.0) * self.sd2 * self.sd2)
                / self.mi(measure))
            .sqrt()
        }
    }
}

/// Every row's effect size. The "AV" vtypes (SMD, SMD1, ROM) average over the rows computed.
pub(super) fn compute(
    measure: Measure,
    rows: &[RawRow],
    vtype: Vtype,
) -> Vec<Result<EffectSize, EffectSizeError>> {
    let groups: Vec<Result<Groups, EffectSizeError>> =
        rows.iter().map(|row| Groups::read(measure, row)).collect();
    let ok = || groups.iter().filter_map(|g| g.as_ref().ok());
    let averages = match (measure, vtype) {
        (Measure::Smd | Measure::Smd1, Vtype::Av) => {
            // .wmean(yi, ni): the corrected effects weighted by n1i + n2i.
            let mean = weighted_mean(ok().map(|g| {
                let mi = g.mi(measure);
                (cmi(mi) * ((g.m1 - g.m2) / g.sdpi(measure)), g.n1 + g.n2)
            }));
            Averages {
                yi: mean,
                ..Averages::default()
            }
        }
        (Measure::Rom, Vtype::Av | Vtype::Avho) => {
            let cv1 = weighted_mean(ok().map(|g| (g.sd1 / g.m1, g.n1)));
            let cv2 = weighted_mean(ok().map(|g| (g.sd2 / g.m2, g.n2)));
            let both = ok().filter(|g| !(g.sd1 / g.m1).is_nan() && !(g.sd2 / g.m2).is_nan());
            let (mut sum1, mut sum2, mut n) = (0.0, 0.0, 0.0);
            for g in both {
                sum1 += g.n1 * (g.sd1 / g.m1);
                sum2 += g.n2 * (g.sd2 / g.m2);
                n += g.n1 + g.n2;
            }
            Averages {
                yi: f64::NAN,
                cv1,
                cv2,
                cv: (sum1 + sum2) / n,
            }
        }
        _ => Averages::default(),
    };
    groups
        .into_iter()
        .map(|g| {
            let g = g?;
            match (measure, vtype) {
                (Measure::Md, Vtype::Ls | Vtype::Ub) => mean_difference(&g),
                (Measure::Smd, Vtype::Ls) => hedges_g(&g),
                (Measure::Rom, Vtype::Ls) => log_ratio_of_means(&g),
                (Measure::Rom, _) if g.m1 <= 0.0 || g.m2 <= 0.0 => log_ratio_of_means(&g),
                _ => {
                    let (yi, vi) = formula(measure, &g, vtype, &averages);
                    finish(yi, vi, Column::M1i, measure.title())
                }
            }
        })
        .collect()
}

/// One row alone (the "LS" vtypes), for the tests.
#[cfg(test)]
fn effect_size(measure: Measure, row: &RawRow) -> Result<EffectSize, EffectSizeError> {
    compute(measure, std::slice::from_ref(row), Vtype::Ls)
        .pop()
        .expect("one row")
}

/// What the "AV" vtypes average over the rows.
#[derive(Debug, Default)]
struct Averages {
    yi: f64,
    cv1: f64,
    cv2: f64,
    cv: f64,
}

/// yi and vi as metafor 3.8-1's escalc computes them (in its order of operations), with
/// mi, sdpi as [`Groups::mi`], [`Groups::sdpi`], di = (m1i − m2i)/sdpi, ni = n1i + n2i and
/// c(m) the exact bias correction:
/// - `MD` "HO": vi = sdpi²(1/n1i + 1/n2i);
/// - `SMD`, `SMD1`: yi = c(mi)·di; vi "LS" 1/n1i + 1/n2i + yi²/(2·npi) (npi = ni, SMD1:
///   n2i), "UB" 1/n1i + 1/n2i + (1 − (mi − 2)/(mi·c(mi)²))·yi², "LS2" c(mi)²·(1/n1i + 1/n2i +
///   di²/(2·npi)), "AV" with the ni-weighted mean yi in place of yi;
/// - `SMDH` (Bonett 2009): yi = c(mi)(m1i − m2i)/√((sd1i² + sd2i²)/2); vi "LS"
///   c(mi)²·(yi²(sd1i⁴/(n1i − 1) + sd2i⁴/(n2i − 1))/(2(sd1i² + sd2i²)²) + (sd1i²/(n1i − 1) +
///   sd2i²/(n2i − 1))/((sd1i² + sd2i²)/2)), "LS2" Bonett's;
/// - `SMD1H`: yi = c(n2i − 1)·(m1i − m2i)/sd2i, vi = (sd1i²/sd2i²)/n1i + 1/n2i + yi²/(2n2i);
/// - `ROM` "HO": sdpi² in place of each SD²; "AV": the weighted mean coefficients of
///   variation of each group; "AVHO": of both groups together, times (1/n1i + 1/n2i);
/// - `CVR` (Nakagawa et al. 2015): ln(sd1i/m1i) + 1/(2(n1i − 1)) − ln(sd2i/m2i) −
///   1/(2(n2i − 1)), vi = 1/(2(n1i − 1)) + sd1i²/(n1i·m1i²) + 1/(2(n2i − 1)) + sd2i²/(n2i·m2i²);
/// - `VR`: ln(sd1i/sd2i) + 1/(2(n1i − 1)) − 1/(2(n2i − 1)), vi = 1/(2(n1i − 1)) +
///   1/(2(n2i − 1));
/// - `RPB`: with hi = mi/n1i + mi/n2i, yi = di/√(di² + hi); vi "LS", "ST" hi²/(hi + di²)³ ·
///   (1/n1i + 1/n2i + di²/(2ni)), "CS" (1 − yi²)²(ni·yi²/(4n1i·n2i) + (2 − 3yi²)/(2ni));
/// - `RBIS` (Jacobs & Viechtbauer 2017): with p1i = n1i/ni, zi = Φ⁻¹(1 − p1i) and φ its
///   density, yi = √(p1i·p2i)/φ(zi)·rpb; vi = (p1i·p2i/φ² − (3/2 + (1 − p1i·zi/φ)(1 +
///   p2i·zi/φ))·r² + r⁴)/(ni − 1), r the estimate truncated to [−1, 1];
/// - `D2ORL`: π/√3·di, vi = π²/3·(1/n1i + 1/n2i + di²/(2ni)); `D2ORN`: 1.65·di, vi = 1.65²·(…)
///   (Hasselblad & Hedges 1995; Cox 1970).
fn formula(measure: Measure, g: &Groups, vtype: Vtype, av: &Averages) -> (f64, f64) {
    let (n1, n2) = (g.n1, g.n2);
    let ni = n1 + n2;
    let mi = g.mi(measure);
    let sdpi = g.sdpi(measure);
    let di = (g.m1 - g.m2) / sdpi;
    let sq = |x: f64| x * x;
    match measure {
        Measure::Md => (g.m1 - g.m2, sq(sdpi) * (1.0 / n1 + 1.0 / n2)),
        Measure::Smd | Measure::Smd1 => {
            let c = cmi(mi);
            let yi = c * di;
            let npi = if measure == Measure::Smd1 { n2 } else { ni };
            let vi = match vtype {
                Vtype::Ub => 1.0 / n1 + 1.0 / n2 + (1.0 - (mi - 2.0) / (mi * sq(c))) * sq(yi),
                Vtype::Av => 1.0 / n1 + 1.0 / n2 + sq(av.yi) / (2.0 * npi),
                Vtype::Ls2 => sq(c) * (1.0 / n1 + 1.0 / n2 + sq(di) / (2.0 * npi)),
                _ => 1.0 / n1 + 1.0 / n2 + sq(yi) / (2.0 * npi),
            };
            (yi, vi)
        }
        Measure::Smdh => {
            let c = cmi(mi);
            let (v1, v2) = (sq(g.sd1), sq(g.sd2));
            let si = ((v1 + v2) / 2.0).sqrt();
            let yi = c * (g.m1 - g.m2) / si;
            let vi = if vtype == Vtype::Ls2 {
                sq(yi) * v1 / (2.0 * n1 * sq(v1 + v2))
                    + sq(yi) * v2 / (2.0 * n2 * sq(v1 + v2))
                    + 2.0 * v1 / (n1 * (v1 + v2))
                    + 2.0 * v2 / (n2 * (v1 + v2))
            } else {
                let vi = sq(yi) * (pow(g.sd1, 4.0) / (n1 - 1.0) + pow(g.sd2, 4.0) / (n2 - 1.0))
                    / (2.0 * sq(v1 + v2))
                    + (v1 / (n1 - 1.0) + v2 / (n2 - 1.0)) / ((v1 + v2) / 2.0);
                sq(c) * vi
            };
            (yi, vi)
        }
        Measure::Smd1h => {
            let yi = cmi(mi) * di;
            (
                yi,
                (sq(g.sd1) / sq(g.sd2)) / n1 + 1.0 / n2 + sq(yi) / (2.0 * n2),
            )
        }
        Measure::Rom => {
            let (m1, m2) = (g.m1, g.m2);
            let vi = match vtype {
                Vtype::Ho => sq(sdpi) / (n1 * sq(m1)) + sq(sdpi) / (n2 * sq(m2)),
                Vtype::Av => sq(av.cv1) / n1 + sq(av.cv2) / n2,
                _ => sq(av.cv) * (1.0 / n1 + 1.0 / n2),
            };
            (ln(m1 / m2), vi)
        }
        Measure::Cvr => (
            ln(g.sd1 / g.m1) + 1.0 / (2.0 * (n1 - 1.0))
                - ln(g.sd2 / g.m2)
                - 1.0 / (2.0 * (n2 - 1.0)),
            1.0 / (2.0 * (n1 - 1.0))
                + sq(g.sd1) / (n1 * sq(g.m1))
                + 1.0 / (2.0 * (n2 - 1.0))
                + sq(g.sd2) / (n2 * sq(g.m2)),
        ),
        Measure::Vr => (
            ln(g.sd1 / g.sd2) + 1.0 / (2.0 * (n1 - 1.0)) - 1.0 / (2.0 * (n2 - 1.0)),
            1.0 / (2.0 * (n1 - 1.0)) + 1.0 / (2.0 * (n2 - 1.0)),
        ),
        Measure::Rpb | Measure::Rbis => {
            let hi = mi / n1 + mi / n2;
            let rpb = di / (sq(di) + hi).sqrt();
            if measure == Measure::Rpb {
                let vi = if vtype == Vtype::Cs {
                    sq(1.0 - sq(rpb))
                        * (ni * sq(rpb) / (4.0 * n1 * n2) + (2.0 - 3.0 * sq(rpb)) / (2.0 * ni))
                } else {
                    sq(hi) / pow(hi + sq(di), 3.0) * (1.0 / n1 + 1.0 / n2 + sq(di) / (2.0 * ni))
                };
                return (rpb, vi);
            }
            let (p1, p2) = (n1 / ni, n2 / ni);
            let zi = -normal_quantile(p1);
            let fzi = dnorm(zi);
            let yi = (p1 * p2).sqrt() / fzi * rpb;
            let yt = if yi.abs() > 1.0 { yi.signum() } else { yi };
            let vi = 1.0 / (ni - 1.0)
                * (p1 * p2 / sq(fzi)
                    - (3.0 / 2.0 + (1.0 - p1 * zi / fzi) * (1.0 + p2 * zi / fzi)) * sq(yt)
                    + pow(yt, 4.0));
            (yi, vi)
        }
        Measure::D2orl => (
            PI / 3f64.sqrt() * di,
            sq(PI) / 3.0 * (1.0 / n1 + 1.0 / n2 + sq(di) / (2.0 * ni)),
        ),
        Measure::D2orn => (
            1.65 * di,
            sq(1.65) * (1.0 / n1 + 1.0 / n2 + sq(di) / (2.0 * ni)),
        ),
        _ => unreachable!("means::formula is called for the two-group measures only"),
    }
}

/// The standard normal density as R's `dnorm` computes it for moderate x.
fn dnorm(x: f64) -> f64 {
    const M_1_SQRT_2PI: f64 = 0.398_942_280_401_432_677_939_946_059_934;
    M_1_SQRT_2PI * exp(-0.5 * x * x)
}

/// `MD`: yi = m1i − m2i, vi = sd1i²/n1i + sd2i²/n2i (escalc's vtype "LS", which does not
/// assume equal variances).
fn mean_difference(g: &Groups) -> Result<EffectSize, EffectSizeError> {
    let yi = g.m1 - g.m2;
    let vi = g.sd1 * g.sd1 / g.n1 + g.sd2 * g.sd2 / g.n2;
    // SDs both 0 give escalc's vi = 0, returned as it returns it; a variance that only
    // underflows to 0 is refused, saying so.
    if vi == 0.0 && !(g.sd1 == 0.0 && g.sd2 == 0.0) {
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
    // As MD: SDs both 0 give escalc's vi = 0; an underflow is refused.
    if vi == 0.0 && !(g.sd1 == 0.0 && g.sd2 == 0.0) {
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
            // Reached for SMD only: MD and ROM return escalc's vi = 0 for SDs both 0.
            reason: "sd1i and sd2i are both 0, so the pooled SD is 0 and the standardized difference is undefined".into(),
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
            "sd2i: sd1i and sd2i are both 0, so the pooled SD is 0 and the standardized difference is undefined"
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
