//! Linear scales and "nice" axis ticks (steps of 1, 2 or 5 times a power of ten).

use super::svg::fixed;

/// A tick step m·10^e with m ∈ {1, 2, 5}; kept as integers so tick values are the nearest
/// doubles to their decimal values (0.3, not 0.30000000000000004) and format exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub mantissa: i64,
    pub exponent: i32,
}

impl Step {
    /// The step closest to `span / count` in the 1-2-5 sequence (as in d3's `tickIncrement`).
    pub fn for_span(span: f64, count: usize) -> Step {
        let raw = span / count.max(1) as f64;
        let mut exponent = raw.log10().floor() as i32;
        // Guard against log10 rounding just below an integer (log10(1000) = 2.9999…).
        if 10f64.powi(exponent + 1) <= raw {
            exponent += 1;
        }
        let error = raw / 10f64.powi(exponent);
        let mantissa = if error >= 50f64.sqrt() {
            10
        } else if error >= 10f64.sqrt() {
            5
        } else if error >= 2f64.sqrt() {
            2
        } else {
            1
        };
        if mantissa == 10 {
            Step {
                mantissa: 1,
                exponent: exponent + 1,
            }
        } else {
            Step { mantissa, exponent }
        }
    }

    /// i · step, computed as an integer divided (or multiplied) by a power of ten.
    pub fn multiple(self, i: i64) -> f64 {
        let n = (i * self.mantissa) as f64;
        if self.exponent < 0 {
            n / 10f64.powi(-self.exponent)
        } else {
            n * 10f64.powi(self.exponent)
        }
    }

    fn as_f64(self) -> f64 {
        self.multiple(1)
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
    /// The tick values, from the domain's lower to its upper end.
    pub values: Vec<f64>,
}

impl Ticks {
    pub fn label(&self, value: f64) -> String {
        fixed(value, self.step.decimals())
    }
}

/// Widens `[lo, hi]` to whole multiples of a nice step giving about `count` intervals.
/// A degenerate or reversed interval is first widened around its centre.
pub fn nice(lo: f64, hi: f64, count: usize) -> Ticks {
    let (mut lo, mut hi) = (lo.min(hi), lo.max(hi));
    if hi - lo <= f64::EPSILON * lo.abs().max(hi.abs()).max(1.0) {
        let pad = (lo.abs() * 0.1).max(0.5);
        lo -= pad;
        hi += pad;
    }
    let mut step = Step::for_span(hi - lo, count);
    // A second pass: widening can change which step is nicest (as in d3's `nice`).
    for _ in 0..2 {
        let first = (lo / step.as_f64()).floor() as i64;
        let last = (hi / step.as_f64()).ceil() as i64;
        let widened = Step::for_span(step.multiple(last) - step.multiple(first), count);
        if widened == step {
            break;
        }
        step = widened;
    }
    let first = (lo / step.as_f64()).floor() as i64;
    let last = (hi / step.as_f64()).ceil() as i64;
    Ticks {
        step,
        values: (first..=last).map(|i| step.multiple(i)).collect(),
    }
}

/// Maps the domain `[d0, d1]` linearly onto the pixel range `[r0, r1]` (either may be reversed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linear {
    pub domain: (f64, f64),
    pub range: (f64, f64),
}

impl Linear {
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Self {
        Linear { domain, range }
    }

    pub fn map(&self, x: f64) -> f64 {
        let (d0, d1) = self.domain;
        let (r0, r1) = self.range;
        r0 + (x - d0) / (d1 - d0) * (r1 - r0)
    }

    pub fn invert(&self, px: f64) -> f64 {
        let (d0, d1) = self.domain;
        let (r0, r1) = self.range;
        d0 + (px - r0) / (r1 - r0) * (d1 - d0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_follow_one_two_five() {
        let s = |span, n| {
            let st = Step::for_span(span, n);
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
        let t = nice(-0.57, 1.91, 6);
        assert_eq!(t.values.first(), Some(&-1.0));
        assert_eq!(t.values.last(), Some(&2.0));
        assert_eq!(t.values, vec![-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0]);
        let t = nice(0.0, 0.373, 5);
        assert_eq!(t.values, vec![0.0, 0.1, 0.2, 0.3, 0.4]);
        assert_eq!(t.label(0.3), "0.3");
        assert_eq!(t.label(0.0), "0.0");
    }

    #[test]
    fn degenerate_domains_are_widened() {
        let t = nice(0.2, 0.2, 5);
        assert!(t.values.len() >= 2);
        assert!(t.values[0] < 0.2 && *t.values.last().unwrap() > 0.2);
        let t = nice(3.0, 1.0, 4);
        assert!(t.values[0] <= 1.0 && *t.values.last().unwrap() >= 3.0);
    }

    #[test]
    fn linear_maps_and_inverts_reversed_ranges() {
        let y = Linear::new((0.0, 0.4), (400.0, 40.0));
        assert_eq!(y.map(0.0), 400.0);
        assert!((y.map(0.4) - 40.0).abs() < 1e-12);
        assert!((y.invert(y.map(0.123)) - 0.123).abs() < 1e-12);
    }
}
