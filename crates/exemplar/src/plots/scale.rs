//! Linear scales and "nice" axis ticks (steps of 1, 2 or 5 times a power of ten).

use super::svg::fixed;
use meta_analysis::math::{log10, powi};

/// Why an axis cannot be computed. Every step (the span, the tick step, each tick, each pixel
/// position) is checked, so an axis over values too far apart is an error, never an infinity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScaleError {
    /// The interval from `lo` to `hi` cannot be divided into ticks: an end, its span, a tick
    /// step or a tick is not a finite number, or it would need more than [`MAX_TICKS`] ticks.
    Span { lo: f64, hi: f64 },
    /// A scale was asked for the pixel position of `value`, and it is not a finite number
    /// (`value` lies too far outside the domain).
    Position { value: f64 },
}

/// The most ticks an axis gets; "nice" steps give about the count asked for, so this is only
/// reached by arithmetic gone wrong, which is then an error rather than an unbounded list.
pub const MAX_TICKS: usize = 100;

/// `hi - lo` when it is a finite number.
pub fn span(lo: f64, hi: f64) -> Result<f64, ScaleError> {
    let span = hi - lo;
    if span.is_finite() {
        Ok(span)
    } else {
        Err(ScaleError::Span { lo, hi })
    }
}

/// A tick step m·10^e with m ∈ {1, 2, 5}; kept as integers so tick values are the nearest
/// doubles to their decimal values (0.3, not 0.30000000000000004) and format exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub mantissa: i64,
    pub exponent: i32,
}

impl Step {
    /// The step closest to `span / count` in the 1-2-5 sequence (as in d3's `tickIncrement`);
    /// `None` when `span` is not a positive finite number or the step is not representable.
    pub fn for_span(span: f64, count: usize) -> Option<Step> {
        let raw = span / count.max(1) as f64;
        if !(raw.is_finite() && raw > 0.0) {
            return None;
        }
        // log10 of a positive finite double lies in [-324, 309), well inside i32.
        let mut exponent = log10(raw).floor() as i32;
        // Guard against log10 rounding just below an integer (log10(1000) = 2.9999…).
        if powi(10.0, exponent + 1) <= raw {
            exponent += 1;
        }
        let error = raw / powi(10.0, exponent);
        let mantissa = if error >= 50f64.sqrt() {
            10
        } else if error >= 10f64.sqrt() {
            5
        } else if error >= 2f64.sqrt() {
            2
        } else {
            1
        };
        let step = if mantissa == 10 {
            Step {
                mantissa: 1,
                exponent: exponent + 1,
            }
        } else {
            Step { mantissa, exponent }
        };
        // A step below the normal doubles (or above the largest) has no exact decimal value.
        let value = step.multiple(1)?;
        (value.is_normal() && value > 0.0).then_some(step)
    }

    /// i · step: the double nearest to the decimal (i·m)e(exponent), so ticks format exactly
    /// (Rust's parsing rounds correctly, also where 10^exponent is not a double); `None` when
    /// it is not a finite number.
    pub fn multiple(self, i: i64) -> Option<f64> {
        let n = i.checked_mul(self.mantissa)?;
        let value: f64 = format!("{n}e{}", self.exponent).parse().ok()?;
        value.is_finite().then_some(value)
    }

    /// The multiples of the step at or just below `lo` and at or just above `hi`, as integers;
    /// `None` when they are out of reach of exact integer arithmetic.
    fn bounds(self, lo: f64, hi: f64) -> Option<(i64, i64)> {
        // Below 2^53 every integer is a double, so the casts are exact.
        const EXACT: f64 = 9_007_199_254_740_992.0;
        let step = self.multiple(1)?;
        let (first, last) = ((lo / step).floor(), (hi / step).ceil());
        let exact = |x: f64| x.is_finite() && x.abs() < EXACT;
        if !(exact(first) && exact(last)) {
            return None;
        }
        let (mut first, mut last) = (first as i64, last as i64);
        // lo / step is rounded, so the multiple found may miss `lo` (or `hi`) by a step.
        if self.multiple(first)? > lo {
            first -= 1;
        }
        if self.multiple(last)? < hi {
            last += 1;
        }
        Some((first, last))
    }

    /// Decimals needed to write every multiple of the step exactly.
    pub fn decimals(self) -> usize {
        (-self.exponent).max(0) as usize
    }
}

/// Ticks over a domain that has been widened to whole steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticks {
    pub step: Step,
    /// The tick values, from the domain's lower to its upper end (at least two).
    pub values: Vec<f64>,
}

impl Ticks {
    pub fn label(&self, value: f64) -> String {
        fixed(value, self.step.decimals())
    }

    /// The first and last tick: the widened domain.
    pub fn domain(&self) -> (f64, f64) {
        (self.values[0], self.values[self.values.len() - 1])
    }
}

/// Widens `[lo, hi]` to whole multiples of a nice step giving about `count` intervals.
/// A degenerate or reversed interval is first widened around its centre. An interval whose
/// span (or whose widened ends) overflow is an error, as is one needing more than
/// [`MAX_TICKS`] ticks.
pub fn nice(lo: f64, hi: f64, count: usize) -> Result<Ticks, ScaleError> {
    let error = ScaleError::Span { lo, hi };
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(error);
    }
    let (mut lo, mut hi) = (lo.min(hi), lo.max(hi));
    if span(lo, hi)? <= f64::EPSILON * lo.abs().max(hi.abs()).max(1.0) {
        let pad = (lo.abs() * 0.1).max(0.5);
        lo -= pad;
        hi += pad;
        span(lo, hi).map_err(|_| error)?;
    }
    let mut step = Step::for_span(hi - lo, count).ok_or(error)?;
    // A second pass: widening can change which step is nicest (as in d3's `nice`).
    for _ in 0..2 {
        let (first, last) = step.bounds(lo, hi).ok_or(error)?;
        let widened = match (step.multiple(first), step.multiple(last)) {
            (Some(a), Some(b)) => Step::for_span(b - a, count).ok_or(error)?,
            _ => return Err(error),
        };
        if widened == step {
            break;
        }
        step = widened;
    }
    let (first, last) = step.bounds(lo, hi).ok_or(error)?;
    if last <= first || (last - first) as u64 >= MAX_TICKS as u64 {
        return Err(error);
    }
    let values = (first..=last)
        .map(|i| step.multiple(i))
        .collect::<Option<Vec<f64>>>()
        .ok_or(error)?;
    // The pixel maps divide by the domain's span, so it must be finite too.
    span(values[0], values[values.len() - 1]).map_err(|_| error)?;
    Ok(Ticks { step, values })
}

/// Maps the domain `[d0, d1]` linearly onto the pixel range `[r0, r1]` (either may be
/// reversed). Built only over a domain whose span is a finite, non-zero number, so every value
/// within the domain has a finite position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linear {
    pub domain: (f64, f64),
    pub range: (f64, f64),
}

impl Linear {
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Result<Self, ScaleError> {
        let (d0, d1) = domain;
        let error = ScaleError::Span { lo: d0, hi: d1 };
        // A NaN or infinite end makes the span NaN or infinite too.
        let domain_span = span(d0, d1).map_err(|_| error)?;
        let range_span = span(range.0, range.1).map_err(|_| error)?;
        if domain_span == 0.0 || range_span == 0.0 {
            return Err(error);
        }
        Ok(Linear { domain, range })
    }

    /// The pixel position of `x`; an error when it is not a finite number.
    pub fn map(&self, x: f64) -> Result<f64, ScaleError> {
        let (d0, d1) = self.domain;
        let (r0, r1) = self.range;
        let px = r0 + (x - d0) / (d1 - d0) * (r1 - r0);
        if px.is_finite() {
            Ok(px)
        } else {
            Err(ScaleError::Position { value: x })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_follow_one_two_five() {
        let s = |span, n| {
            let st = Step::for_span(span, n).unwrap();
            (st.mantissa, st.exponent)
        };
        assert_eq!(s(1.0, 5), (2, -1));
        assert_eq!(s(1.0, 10), (1, -1));
        assert_eq!(s(2.3, 5), (5, -1));
        assert_eq!(s(1000.0, 1), (1, 3));
        assert_eq!(s(7.0, 1), (5, 0));
        assert_eq!(s(7.5, 1), (1, 1));
        assert_eq!(s(0.003, 6), (5, -4));
    }

    #[test]
    fn nice_ticks_cover_the_data_with_exact_decimal_values() {
        let t = nice(-0.57, 1.91, 6).unwrap();
        assert_eq!(t.values.first(), Some(&-1.0));
        assert_eq!(t.values.last(), Some(&2.0));
        assert_eq!(t.values, vec![-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0]);
        assert_eq!(t.domain(), (-1.0, 2.0));
        let t = nice(0.0, 0.373, 5).unwrap();
        assert_eq!(t.values, vec![0.0, 0.1, 0.2, 0.3, 0.4]);
        assert_eq!(t.label(0.3), "0.3");
        assert_eq!(t.label(0.0), "0.0");
    }

    #[test]
    fn degenerate_domains_are_widened() {
        let t = nice(0.2, 0.2, 5).unwrap();
        assert!(t.values.len() >= 2);
        assert!(t.values[0] < 0.2 && *t.values.last().unwrap() > 0.2);
        let t = nice(3.0, 1.0, 4).unwrap();
        assert!(t.values[0] <= 1.0 && *t.values.last().unwrap() >= 3.0);
    }

    #[test]
    fn linear_maps_reversed_ranges() {
        let y = Linear::new((0.0, 0.4), (400.0, 40.0)).unwrap();
        assert_eq!(y.map(0.0), Ok(400.0));
        assert!((y.map(0.4).unwrap() - 40.0).abs() < 1e-12);
    }

    // Issue 10: the old code overflowed (a panic in debug builds, "capacity overflow" or an
    // unbounded allocation in release builds) on each of these.

    #[test]
    fn spans_beyond_the_largest_double_are_errors() {
        for (lo, hi) in [
            (-1e308, 1e308),
            (-9e307, 9e307),
            (-f64::MAX, f64::MAX),
            (0.0, f64::INFINITY),
            (f64::NAN, 1.0),
        ] {
            assert!(
                matches!(nice(lo, hi, 5), Err(ScaleError::Span { .. })),
                "{lo} to {hi}"
            );
        }
        assert_eq!(
            span(-1e308, 1e308),
            Err(ScaleError::Span {
                lo: -1e308,
                hi: 1e308
            })
        );
    }

    #[test]
    fn ticks_widened_past_the_largest_double_are_errors() {
        // The span is finite (1.6e308), but whole steps of 5e307 reach ±1e308 and their span
        // is not.
        assert!(nice(-8e307, 8e307, 5).is_err());
        // A degenerate interval at the top of the range cannot be widened around its centre.
        assert!(nice(f64::MAX, f64::MAX, 5).is_err());
        assert!(nice(-f64::MAX, -f64::MAX, 5).is_err());
    }

    #[test]
    fn the_largest_drawable_spans_and_the_smallest_values_give_a_few_ticks() {
        for (lo, hi) in [
            (0.0, 1e308),
            (-1e308, 0.0),
            (0.0, f64::MAX / 4.0),
            (0.0, 5e-324),
            (-f64::MIN_POSITIVE, f64::MIN_POSITIVE),
            (1e300, 1e300 * (1.0 + 1e-15)),
            (f64::MAX / 2.0, f64::MAX / 2.0),
            (-1e-308, 1e-308),
        ] {
            let t = nice(lo, hi, 5).unwrap_or_else(|e| panic!("{lo:e} to {hi:e}: {e:?}"));
            assert!(t.values.len() >= 2 && t.values.len() <= MAX_TICKS, "{t:?}");
            assert!(t.values.iter().all(|v| v.is_finite()));
            let (d0, d1) = t.domain();
            assert!(d0 <= lo && d1 >= hi && d0 < d1, "{lo:e} to {hi:e}: {t:?}");
            let x = Linear::new(t.domain(), (150.0, 410.0)).unwrap();
            for v in [lo, hi, d0, d1] {
                let px = x.map(v).unwrap();
                assert!((150.0..=410.0).contains(&px), "{v:e} at {px}");
            }
        }
    }

    #[test]
    fn steps_are_only_representable_doubles() {
        assert_eq!(Step::for_span(f64::INFINITY, 5), None);
        assert_eq!(Step::for_span(0.0, 5), None);
        assert_eq!(Step::for_span(-1.0, 5), None);
        assert_eq!(Step::for_span(f64::NAN, 5), None);
        // 1e-323 / 5 would need a step of 2e-324, below the smallest double.
        assert_eq!(Step::for_span(1e-323, 5), None);
        // f64::MAX / 1 rounds up to a step of 1e309.
        assert_eq!(Step::for_span(f64::MAX, 1), None);
        let step = Step::for_span(1e308, 1).unwrap();
        assert_eq!(step.multiple(1), Some(1e308));
        assert_eq!(step.multiple(2), None);
        assert_eq!(step.multiple(i64::MAX), None);
    }

    #[test]
    fn scales_need_a_finite_non_empty_domain_and_finite_positions() {
        assert!(Linear::new((-1e308, 1e308), (0.0, 1.0)).is_err());
        assert!(Linear::new((1.0, 1.0), (0.0, 1.0)).is_err());
        assert!(Linear::new((0.0, f64::NAN), (0.0, 1.0)).is_err());
        assert!(Linear::new((0.0, 1.0), (0.0, f64::INFINITY)).is_err());
        let x = Linear::new((0.0, 1e-300), (0.0, 100.0)).unwrap();
        assert_eq!(x.map(1e10), Err(ScaleError::Position { value: 1e10 }));
    }
}
