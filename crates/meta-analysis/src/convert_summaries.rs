//! Conversions of the summaries papers report into what a meta-analysis needs, as metafor's
//! `conv.fivenum` and `conv.wald` (metafor 4 and later; read at metafor 5.1-12):
//!
//! - [`fivenum`]: a mean and SD from a median with the range and/or the interquartile range,
//!   assuming normal data: the mean by Luo et al. (2018), the SD by Wan et al. (2014) or, with
//!   all five numbers, Shi et al. (2020) (metafor's default "luo/wan/shi"), or by Wan et al.
//!   (2014), Hozo et al. (2005) or Bland (2015); and the skewness test of Shi et al. (2023),
//!   which metafor applies first (a row it flags is not converted).
//! - [`wald`]: yi and vi from an estimate with its confidence interval, or with its two-sided
//!   p value, assuming a Wald-type interval or test (estimate ± z·SE) on the scale of yi.
//!
//! `docs/METHODS.md` ("Converting reported summaries") states every formula and its source.

use crate::distributions::normal_quantile;
use crate::math::{ln, pow, sq};
use std::fmt;

/// How [`fivenum`] estimates the mean and the SD (metafor's `method`, one value for both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FivenumMethod {
    /// "luo/wan/shi" (metafor's default): the mean by Luo et al. (2018), the SD by Wan et al.
    /// (2014), or by Shi et al. (2020) when all five numbers are given.
    #[default]
    LuoWanShi,
    /// "wan2014": Wan et al. (2014) for both.
    Wan2014,
    /// "hozo2005": Hozo et al. (2005), for the median with the range only.
    Hozo2005,
    /// "bland2015": Bland (2015), for all five numbers only.
    Bland2015,
}

impl FivenumMethod {
    pub const ALL: [FivenumMethod; 4] = [
        FivenumMethod::LuoWanShi,
        FivenumMethod::Wan2014,
        FivenumMethod::Hozo2005,
        FivenumMethod::Bland2015,
    ];

    /// metafor's name of the method.
    pub fn name(self) -> &'static str {
        match self {
            FivenumMethod::LuoWanShi => "luo/wan/shi",
            FivenumMethod::Wan2014 => "wan2014",
            FivenumMethod::Hozo2005 => "hozo2005",
            FivenumMethod::Bland2015 => "bland2015",
        }
    }

    /// The method named `name` (exactly as [`FivenumMethod::name`] gives it).
    pub fn parse(name: &str) -> Option<FivenumMethod> {
        FivenumMethod::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// A study's reported summary of one group: the median with the range (min, max), the
/// quartiles (q1, q3), or both, and its size n.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FiveNumbers {
    pub min: Option<f64>,
    pub q1: Option<f64>,
    pub median: Option<f64>,
    pub q3: Option<f64>,
    pub max: Option<f64>,
    pub n: Option<f64>,
}

/// Which numbers a row gives (Wan et al.'s scenarios).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum FivenumCase {
    /// Scenario 1: min, median, max.
    Range,
    /// Scenario 2: q1, median, q3.
    Iqr,
    /// Scenario 3: min, q1, median, q3, max.
    RangeAndIqr,
}

impl FivenumCase {
    /// The case's name, as it is serialized.
    pub fn name(self) -> &'static str {
        match self {
            FivenumCase::Range => "range",
            FivenumCase::Iqr => "iqr",
            FivenumCase::RangeAndIqr => "range_and_iqr",
        }
    }
}

/// Shi et al.'s (2023) test of the normality the conversion assumes: the statistic, its
/// critical value at the 5% level, and whether it rejects (statistic ≥ critical value).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SkewnessTest {
    pub statistic: f64,
    pub critical: f64,
    pub skewed: bool,
}

/// A row's estimated mean and SD.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FivenumEstimate {
    pub mean: f64,
    pub sd: f64,
    pub case: FivenumCase,
    pub skewness: SkewnessTest,
}

/// Why a row gives no conversion.
#[derive(Debug, Clone, PartialEq)]
pub enum ConversionError {
    /// A value is needed and absent, or the numbers given fit no case.
    Missing(String),
    /// A value is not a finite number, or out of its range.
    Invalid(String),
    /// The skewness test rejects normality and `test` is on (metafor gives NA).
    Skewed(SkewnessTest),
    /// The method has no formula for the numbers given.
    NotForCase(FivenumMethod, FivenumCase),
}

impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConversionError::Missing(s) | ConversionError::Invalid(s) => f.write_str(s),
            ConversionError::Skewed(t) => write!(
                f,
                "the skewness test rejects normality (statistic {} >= critical value {}), so a mean and SD from these numbers would be biased; not converted (test: false converts anyway)",
                t.statistic, t.critical
            ),
            ConversionError::NotForCase(m, c) => write!(
                f,
                "method {} has no formula for {}",
                m.name(),
                match c {
                    FivenumCase::Range => "the median with the range only",
                    FivenumCase::Iqr => "the median with the quartiles only",
                    FivenumCase::RangeAndIqr => "all five numbers",
                }
            ),
        }
    }
}

impl std::error::Error for ConversionError {}

/// Wan et al.'s (2014) ξ(n) = 2Φ⁻¹((n − 0.375)/(n + 0.25)), the expected range of n standard
/// normal values (their eq. 9, Blom's approximation).
fn xi(n: f64) -> f64 {
    2.0 * normal_quantile((n - 0.375) / (n + 0.25))
}

/// Wan et al.'s (2014) η(n) = 2Φ⁻¹((0.75n − 0.125)/(n + 0.25)), the expected interquartile
/// range of n standard normal values (their eq. 16).
fn eta(n: f64) -> f64 {
    2.0 * normal_quantile((0.75 * n - 0.125) / (n + 0.25))
}

/// The mean and SD of one row, as metafor's `conv.fivenum(..., dist = "norm")`:
///
/// - the row needs n ≥ 5 (metafor leaves smaller samples out), the median, and min and max,
///   q1 and q3, or all four, in order (min ≤ q1 ≤ median ≤ q3 ≤ max);
/// - Shi et al.'s (2023) skewness test first: for the range, T = |(min + max − 2·median)/
///   (max − min)| against 1/ln(n + 9) + 2.5/(n + 1); for the quartiles, T = |(q1 + q3 −
///   2·median)/(q3 − q1)| against 2.65/√n − 6/n²; for both, T = max(2.65·ln(0.6n)/√n ×
///   the range's statistic, the quartiles' statistic) against 3/√n − 40/n³; with `test`, a
///   row it rejects is not converted;
/// - then the method's formulas (docs/METHODS.md).
pub fn fivenum(
    row: &FiveNumbers,
    method: FivenumMethod,
    test: bool,
) -> Result<FivenumEstimate, ConversionError> {
    let (n, median, case) = checked_case(row)?;
    let s = Summary {
        a: row.min.unwrap_or(f64::NAN),
        b: row.max.unwrap_or(f64::NAN),
        q1: row.q1.unwrap_or(f64::NAN),
        q3: row.q3.unwrap_or(f64::NAN),
        m: median,
        n,
    };
    let skewness = skewness_test(case, &s);
    if test && skewness.skewed {
        return Err(ConversionError::Skewed(skewness));
    }
    let (mean, sd) = mean_and_sd(case, method, &s)?;
    Ok(FivenumEstimate {
        mean,
        sd,
        case,
        skewness,
    })
}

/// A row's numbers once checked: min `a`, max `b`, the quartiles `q1`, `q3`, the median `m`
/// and the size `n`; an absent number is NaN (its case's formulas do not read it).
#[derive(Clone, Copy)]
struct Summary {
    a: f64,
    b: f64,
    q1: f64,
    q3: f64,
    m: f64,
    n: f64,
}

/// The row's n, median and case, once it is checked: every number given finite, n ≥ 5, the
/// median given with min and max, q1 and q3, or all four, and the numbers in order.
fn checked_case(row: &FiveNumbers) -> Result<(f64, f64, FivenumCase), ConversionError> {
    let given = [
        ("min", row.min),
        ("q1", row.q1),
        ("median", row.median),
        ("q3", row.q3),
        ("max", row.max),
        ("n", row.n),
    ];
    for (name, value) in given {
        if let Some(v) = value {
            if !v.is_finite() {
                return Err(ConversionError::Invalid(format!(
                    "{name} is {v}, not a finite number"
                )));
            }
        }
    }
    let n = row
        .n
        .ok_or_else(|| ConversionError::Missing("n (the group's size) is missing".into()))?;
    if n < 5.0 {
        return Err(ConversionError::Invalid(format!(
            "n is {n}; conv.fivenum converts samples of 5 or more"
        )));
    }
    let median = row
        .median
        .ok_or_else(|| ConversionError::Missing("median is missing".into()))?;
    let case = match (row.min, row.q1, row.q3, row.max) {
        (Some(_), None, None, Some(_)) => FivenumCase::Range,
        (None, Some(_), Some(_), None) => FivenumCase::Iqr,
        (Some(_), Some(_), Some(_), Some(_)) => FivenumCase::RangeAndIqr,
        _ => {
            return Err(ConversionError::Missing(
                "give min and max, q1 and q3, or all four, with the median".into(),
            ))
        }
    };
    let ordered: Vec<f64> = [row.min, row.q1, Some(median), row.q3, row.max]
        .into_iter()
        .flatten()
        .collect();
    if ordered.windows(2).any(|w| w[0] > w[1]) {
        return Err(ConversionError::Invalid(
            "the numbers are not in order: min <= q1 <= median <= q3 <= max must hold".into(),
        ));
    }
    Ok((n, median, case))
}

/// Shi et al.'s (2023) skewness test of the case's numbers (the statistics and critical
/// values are in [`fivenum`]'s doc comment).
fn skewness_test(case: FivenumCase, s: &Summary) -> SkewnessTest {
    let Summary { a, b, q1, q3, m, n } = *s;
    let range_stat = || ((a + b - 2.0 * m) / (b - a)).abs();
    let iqr_stat = || ((q1 + q3 - 2.0 * m) / (q3 - q1)).abs();
    let (statistic, critical) = match case {
        FivenumCase::Range => (range_stat(), 1.0 / ln(n + 9.0) + 2.5 / (n + 1.0)),
        FivenumCase::Iqr => (iqr_stat(), 2.65 / n.sqrt() - 6.0 / sq(n)),
        FivenumCase::RangeAndIqr => (
            (2.65 * ln(0.6 * n) / n.sqrt() * range_stat()).max(iqr_stat()),
            3.0 / n.sqrt() - 40.0 / pow(n, 3.0),
        ),
    };
    // metafor: isTRUE(tval >= crit); a statistic of NaN (a zero range or IQR) is no rejection.
    SkewnessTest {
        statistic,
        critical,
        skewed: statistic >= critical,
    }
}

/// The method's mean and SD for the case: Hozo et al. (2005), Wan et al. (2014), Bland
/// (2015), or Luo et al. (2018) for the mean with Wan et al. (2014) and Shi et al. (2020)
/// for the SD (docs/METHODS.md); a method without a formula for the case is refused.
fn mean_and_sd(
    case: FivenumCase,
    method: FivenumMethod,
    s: &Summary,
) -> Result<(f64, f64), ConversionError> {
    let Summary { a, b, q1, q3, m, n } = *s;
    let not_for_case = || ConversionError::NotForCase(method, case);
    let (mean, sd) = match (case, method) {
        (FivenumCase::Range, FivenumMethod::LuoWanShi | FivenumMethod::Wan2014) => {
            let mean = if method == FivenumMethod::Wan2014 {
                (a + 2.0 * m + b) / 4.0
            } else {
                // Luo et al. (2018), eq. (7).
                let w = 4.0 / (4.0 + pow(n, 0.75));
                w * (a + b) / 2.0 + (1.0 - w) * m
            };
            (mean, (b - a) / xi(n))
        }
        (FivenumCase::Range, FivenumMethod::Hozo2005) => {
            let mean = if n <= 25.0 {
                (a + 2.0 * m + b) / 4.0
            } else {
                m
            };
            let sd = if n <= 15.0 {
                1.0 / 12f64.sqrt() * (sq(a - 2.0 * m + b) / 4.0 + sq(b - a)).sqrt()
            } else if n <= 70.0 {
                (b - a) / 4.0
            } else {
                (b - a) / 6.0
            };
            (mean, sd)
        }
        (FivenumCase::Iqr, FivenumMethod::LuoWanShi | FivenumMethod::Wan2014) => {
            let mean = if method == FivenumMethod::Wan2014 {
                (q1 + m + q3) / 3.0
            } else {
                // Luo et al. (2018), eq. (11).
                let w = 0.7 + 0.39 / n;
                w * (q1 + q3) / 2.0 + (1.0 - w) * m
            };
            (mean, (q3 - q1) / eta(n))
        }
        (FivenumCase::RangeAndIqr, FivenumMethod::LuoWanShi) => {
            // Luo et al. (2018), eq. (15); Shi et al. (2020), eq. (10).
            let w1 = 2.2 / (2.2 + pow(n, 0.75));
            let w2 = 0.7 - 0.72 / pow(n, 0.55);
            let mean = w1 * (a + b) / 2.0 + w2 * (q1 + q3) / 2.0 + (1.0 - w1 - w2) * m;
            let w = 1.0 / (1.0 + 0.07 * pow(n, 0.6));
            (mean, w * (b - a) / xi(n) + (1.0 - w) * (q3 - q1) / eta(n))
        }
        (FivenumCase::RangeAndIqr, FivenumMethod::Wan2014 | FivenumMethod::Bland2015) => {
            let mean = (a + 2.0 * q1 + 2.0 * m + 2.0 * q3 + b) / 8.0;
            let sd = if method == FivenumMethod::Wan2014 {
                1.0 / 2.0 * ((b - a) / xi(n) + (q3 - q1) / eta(n))
            } else {
                ((sq(a) + 2.0 * sq(q1) + 2.0 * sq(m) + 2.0 * sq(q3) + sq(b)) / 16.0
                    + (a * q1 + q1 * m + m * q3 + q3 * b) / 8.0
                    - sq(a + 2.0 * q1 + 2.0 * m + 2.0 * q3 + b) / 64.0)
                    .sqrt()
            };
            (mean, sd)
        }
        _ => return Err(not_for_case()),
    };
    Ok((mean, sd))
}

/// How the reported estimate and bounds map to yi (metafor's `transf`, here by name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WaldTransform {
    /// yi is the reported scale (a mean difference, an SMD, a risk difference, a log ratio).
    #[default]
    None,
    /// yi = ln of the reported value (odds, risk, hazard or rate ratios).
    Log,
    /// yi = atanh of the reported value (a correlation, to Fisher's z).
    Atanh,
}

impl WaldTransform {
    pub const ALL: [WaldTransform; 3] = [
        WaldTransform::None,
        WaldTransform::Log,
        WaldTransform::Atanh,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WaldTransform::None => "none",
            WaldTransform::Log => "log",
            WaldTransform::Atanh => "atanh",
        }
    }

    pub fn parse(name: &str) -> Option<WaldTransform> {
        WaldTransform::ALL.into_iter().find(|t| t.name() == name)
    }

    fn apply(self, x: f64) -> f64 {
        match self {
            WaldTransform::None => x,
            WaldTransform::Log => ln(x),
            WaldTransform::Atanh => crate::math::atanh(x),
        }
    }
}

/// A reported estimate (`out`) with its confidence interval and/or two-sided p value.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WaldSummary {
    pub out: Option<f64>,
    pub ci_lb: Option<f64>,
    pub ci_ub: Option<f64>,
    pub pval: Option<f64>,
}

/// What [`wald`]'s vi came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum WaldSource {
    /// Both bounds: vi = ((ci_ub − ci_lb)/(2z))².
    Interval,
    /// The upper bound and the estimate: vi = ((ci_ub − yi)/z)².
    UpperBound,
    /// The p value: vi = (yi/z_p)², z_p = Φ⁻¹(1 − p/2).
    PValue,
}

impl WaldSource {
    /// The source's name, as it is serialized.
    pub fn name(self) -> &'static str {
        match self {
            WaldSource::Interval => "interval",
            WaldSource::UpperBound => "upper_bound",
            WaldSource::PValue => "p_value",
        }
    }
}

/// yi and vi of one row.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct WaldEstimate {
    pub yi: f64,
    pub vi: f64,
    pub source: WaldSource,
    /// |(ci_lb + ci_ub)/2 − yi| / (ci_ub − ci_lb) on the scale of yi, when both bounds are given:
    /// metafor warns above 0.1 (the interval is then not symmetric about yi on that scale).
    pub asymmetry: Option<f64>,
}

/// α of a confidence `level` as metafor reads one (its `.level`, used by `conv.wald`): a
/// level of 1 or more is a percentage, α = (100 − level)/100 (so 1 is a 1% interval); a level
/// in (0.5, 1) is a coverage, α = 1 − level; a level in (0, 0.5] is α itself (0.05 is a 95%
/// interval). 0 and 100 give no interval (z = 0 or ∞) and are refused, as is anything outside
/// (0, 100).
pub fn level_alpha(level: f64) -> Result<f64, ConversionError> {
    if !(level.is_finite() && level > 0.0 && level < 100.0) {
        return Err(ConversionError::Invalid(format!(
            "level is {level}; give a confidence level in (0, 100), e.g. 95"
        )));
    }
    Ok(if level >= 1.0 {
        (100.0 - level) / 100.0
    } else if level > 0.5 {
        1.0 - level
    } else {
        level
    })
}

/// yi and vi from a reported estimate with its `level`% confidence interval or its two-sided
/// p value, as metafor's `conv.wald`: with z = Φ⁻¹(1 − α/2), α from `level` as [`level_alpha`]
/// reads it, and yi, the bounds taken through `transf`:
/// vi = ((ci_ub − ci_lb)/(2z))² from both bounds, else ((ci_ub − yi)/z)² from the upper bound,
/// else (yi/z_p)² with z_p = Φ⁻¹(1 − p/2) from the p value.
pub fn wald(
    row: &WaldSummary,
    level: f64,
    transf: WaldTransform,
) -> Result<WaldEstimate, ConversionError> {
    let alpha = level_alpha(level)?;
    // Φ⁻¹(1 − α/2) as −Φ⁻¹(α/2), from the tail, as R's qnorm(α/2, lower.tail = FALSE).
    let z = -normal_quantile(alpha / 2.0);
    let read = |name: &str, value: Option<f64>| -> Result<Option<f64>, ConversionError> {
        let Some(v) = value else { return Ok(None) };
        let t = transf.apply(v);
        if t.is_finite() {
            Ok(Some(t))
        } else {
            Err(ConversionError::Invalid(format!(
                "{name} is {v}, which has no finite {} value",
                transf.name()
            )))
        }
    };
    let yi = read("out", row.out)?
        .ok_or_else(|| ConversionError::Missing("out (the reported estimate) is missing".into()))?;
    let (lb, ub) = (read("ci_lb", row.ci_lb)?, read("ci_ub", row.ci_ub)?);
    if let (Some(lb), Some(ub)) = (lb, ub) {
        if lb > ub {
            return Err(ConversionError::Invalid(
                "ci_lb is above ci_ub; give the interval's lower bound first".into(),
            ));
        }
    }
    let (vi, source) = match (lb, ub) {
        (Some(lb), Some(ub)) => (sq((ub - lb) / (2.0 * z)), WaldSource::Interval),
        (None, Some(ub)) => (sq((ub - yi) / z), WaldSource::UpperBound),
        _ => {
            let p = row.pval.ok_or_else(|| {
                ConversionError::Missing(
                    "give both bounds, the upper bound, or the p value (ci_lb alone is not enough)"
                        .into(),
                )
            })?;
            if !(p.is_finite() && p > 0.0 && p <= 1.0) {
                return Err(ConversionError::Invalid(format!(
                    "pval is {p}; a p value must lie in (0, 1]"
                )));
            }
            (sq(yi / -normal_quantile(p / 2.0)), WaldSource::PValue)
        }
    };
    if !(vi.is_finite() && vi > 0.0) {
        return Err(ConversionError::Invalid(format!(
            "the sampling variance comes out as {vi}, not a positive number (a zero-width interval, an estimate of 0 with its p value, or p = 1)"
        )));
    }
    let asymmetry = match (lb, ub) {
        (Some(lb), Some(ub)) => Some(((ub + lb) / 2.0 - yi).abs() / (ub - lb)),
        _ => None,
    };
    Ok(WaldEstimate {
        yi,
        vi,
        source,
        asymmetry,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn five(min: f64, q1: f64, median: f64, q3: f64, max: f64, n: f64) -> FiveNumbers {
        FiveNumbers {
            min: Some(min),
            q1: Some(q1),
            median: Some(median),
            q3: Some(q3),
            max: Some(max),
            n: Some(n),
        }
    }

    #[test]
    fn symmetric_normal_quantiles_give_back_their_mean() {
        // A symmetric summary: every method's mean is the median.
        let row = five(10.0, 20.0, 25.0, 30.0, 40.0, 50.0);
        for method in [
            FivenumMethod::LuoWanShi,
            FivenumMethod::Wan2014,
            FivenumMethod::Bland2015,
        ] {
            let est = fivenum(&row, method, true).unwrap();
            assert!((est.mean - 25.0).abs() < 1e-12, "{method:?}");
            assert_eq!(est.case, FivenumCase::RangeAndIqr);
        }
    }

    #[test]
    fn refusals_say_why() {
        let mut row = five(10.0, 20.0, 25.0, 30.0, 40.0, 4.0);
        assert!(fivenum(&row, FivenumMethod::LuoWanShi, true)
            .unwrap_err()
            .to_string()
            .contains("5 or more"));
        row.n = Some(50.0);
        row.q1 = Some(26.0);
        assert!(fivenum(&row, FivenumMethod::LuoWanShi, true)
            .unwrap_err()
            .to_string()
            .contains("not in order"));
        let skewed = five(0.0, 1.0, 2.0, 10.0, 100.0, 200.0);
        assert!(matches!(
            fivenum(&skewed, FivenumMethod::LuoWanShi, true),
            Err(ConversionError::Skewed(_))
        ));
        assert!(fivenum(&skewed, FivenumMethod::LuoWanShi, false).is_ok());
        let range_only = FiveNumbers {
            q1: None,
            q3: None,
            ..five(10.0, 0.0, 25.0, 0.0, 40.0, 50.0)
        };
        assert!(matches!(
            fivenum(&range_only, FivenumMethod::Bland2015, true),
            Err(ConversionError::NotForCase(..))
        ));
    }

    /// metafor's `.level`: 1 and more are percentages (1 is a 1% interval, not 100%), a level
    /// above 0.5 and below 1 a coverage, one of 0.5 or less α itself.
    #[test]
    fn levels_are_read_as_metafor_reads_them() {
        let close = |level: f64, alpha: f64| (level_alpha(level).unwrap() - alpha).abs() < 1e-15;
        assert!(close(95.0, 0.05));
        assert!(close(1.0, 0.99));
        assert!(close(0.95, 0.05));
        assert!(close(0.9, 0.1));
        assert!(close(0.05, 0.05));
        assert!(close(0.5, 0.5));
        for bad in [0.0, 100.0, -1.0, 101.0, f64::NAN] {
            assert!(level_alpha(bad).is_err(), "{bad}");
        }
        // A 1% interval is 99 times narrower in z than a 95% one would be read as 100%:
        // its vi is finite and far larger than the 95% interval's.
        let row = WaldSummary {
            out: Some(0.0),
            ci_lb: Some(-1.0),
            ci_ub: Some(1.0),
            pval: None,
        };
        let one = wald(&row, 1.0, WaldTransform::None).unwrap();
        let z = -normal_quantile(0.99 / 2.0);
        assert!((one.vi - sq(1.0 / z)).abs() < 1e-12 * one.vi);
    }

    #[test]
    fn wald_uses_the_interval_then_the_upper_bound_then_the_p_value() {
        let z = normal_quantile(0.975);
        let both = WaldSummary {
            out: Some(2.0),
            ci_lb: Some(1.0),
            ci_ub: Some(4.0),
            pval: Some(0.01),
        };
        let est = wald(&both, 95.0, WaldTransform::Log).unwrap();
        assert_eq!(est.source, WaldSource::Interval);
        assert!((est.vi - sq((ln(4.0) - ln(1.0)) / (2.0 * z))).abs() < 1e-15);
        let p_only = WaldSummary {
            ci_lb: None,
            ci_ub: None,
            ..both
        };
        let est = wald(&p_only, 0.95, WaldTransform::None).unwrap();
        assert_eq!(est.source, WaldSource::PValue);
        assert!(wald(&both, 100.0, WaldTransform::None).is_err());
        let lower_only = WaldSummary {
            ci_ub: None,
            pval: None,
            ..both
        };
        assert!(wald(&lower_only, 95.0, WaldTransform::None).is_err());
    }
}
