//! Linear scales and "nice" axis ticks (steps of 1, 2 or 5 times a power of ten), and the
//! ticks an axis draws: round values of the scale the reader reads (a ratio's 0.25, 0.5, 1, 2,
//! 4 on a log axis, never e^k), thinned until no two labels touch.

use super::svg::fixed;
use meta_analysis::math::{exp, ln, log10, powi};
use meta_analysis::Transform;

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

/// The ticks an axis draws: positions (on the axis' own scale, e.g. yi's) and their labels
/// (on the scale the reader reads), from the domain's lower end to its upper end.
#[derive(Debug, Clone, PartialEq)]
pub struct Labelled {
    /// The axis' domain: its ends are the outer ticks, or the data's ends where the next
    /// round value lies outside the transform's range (0 or 1 of a proportion).
    pub domain: (f64, f64),
    pub values: Vec<f64>,
    pub labels: Vec<String>,
}

impl Labelled {
    /// Ticks labelled on their own scale.
    pub fn plain(ticks: &Ticks) -> Labelled {
        Labelled {
            domain: ticks.domain(),
            values: ticks.values.clone(),
            labels: ticks.values.iter().map(|v| ticks.label(*v)).collect(),
        }
    }

    /// Whether the labels, centred on their ticks over `length` pixels, leave [`LABEL_GAP`]
    /// between neighbours at `font` pixels (each label [`CHAR_EM`] em a character).
    pub fn fits(&self, length: f64, font: f64) -> bool {
        let (d0, d1) = self.domain;
        let at = |v: f64| (v - d0) / (d1 - d0) * length;
        self.values
            .windows(2)
            .zip(self.labels.windows(2))
            .all(|(v, l)| {
                let room = at(v[1]) - at(v[0]);
                room >= (label_width(&l[0], font) + label_width(&l[1], font)) / 2.0 + LABEL_GAP
            })
    }
}

impl Labelled {
    /// Every n-th tick, the least n whose labels fit `length` pixels at `font` (a single
    /// tick always fits): labels never overlap, however narrow the axis.
    pub fn thinned(&self, length: f64, font: f64) -> Labelled {
        let mut n = 1;
        loop {
            let keep = |i: &usize| i.is_multiple_of(n);
            let thinned = Labelled {
                domain: self.domain,
                values: (0..self.values.len())
                    .filter(keep)
                    .map(|i| self.values[i])
                    .collect(),
                labels: (0..self.labels.len())
                    .filter(keep)
                    .map(|i| self.labels[i].clone())
                    .collect(),
            };
            if thinned.values.len() <= 1 || thinned.fits(length, font) {
                return thinned;
            }
            n += 1;
        }
    }
}

/// A tick label's width per character, in em: digits, the point and the minus sign are at
/// most about 0.56 em in the sans-serif faces the plots name; 0.6 leaves a margin.
pub const CHAR_EM: f64 = 0.6;
/// The least room between two tick labels, in pixels.
pub const LABEL_GAP: f64 = 6.0;

/// The width of a tick label at `font` pixels, as the plots measure it.
pub fn label_width(label: &str, font: f64) -> f64 {
    label.chars().count() as f64 * CHAR_EM * font
}

/// Nice ticks over `[lo, hi]`, as many as fit `length` pixels with room between their labels
/// at `font` pixels (from 7 intervals down to 1).
pub fn fitting(lo: f64, hi: f64, length: f64, font: f64) -> Result<Labelled, ScaleError> {
    let mut last = None;
    for count in (1..=7).rev() {
        let ticks = Labelled::plain(&nice(lo, hi, count)?);
        if ticks.fits(length, font) {
            return Ok(ticks);
        }
        last = Some(ticks);
    }
    Ok(last
        .expect("at least one count was tried")
        .thinned(length, font))
}

/// Ticks over `[lo, hi]` (on yi's scale) at round values of `t`'s natural scale, labelled
/// there, as many as fit `length` pixels at `font` pixels. Without a transform, [`fitting`].
///
/// For exp (ratios): the densest of these that fits, the domain widened to its outer ticks:
/// round steps of the ratio itself when the span is narrow (0.8, 0.9, 1.0, 1.1); powers of 2
/// between 1/4 and 4 (0.25, 0.5, 1, 2, 4); 1, 2 and 5 times a power of ten (0.1, 0.2, 0.5, 1,
/// 2, 5, 10); powers of ten (0.01, 0.1, 1, 10), then every 2nd, 5th, 10th … power. For the
/// inverse logit and Fisher's z: round steps of the proportion or correlation strictly
/// inside (0, 1) or (−1, 1), the domain kept at the data's end where the next step is not.
pub fn natural_ticks(
    lo: f64,
    hi: f64,
    t: Transform,
    length: f64,
    font: f64,
) -> Result<Labelled, ScaleError> {
    let error = ScaleError::Span { lo, hi };
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(error);
    }
    let (lo, hi) = if span(lo, hi)? <= f64::EPSILON * lo.abs().max(hi.abs()).max(1.0) {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo.min(hi), lo.max(hi))
    };
    let candidates: Vec<Labelled> = match t {
        Transform::None => return fitting(lo, hi, length, font),
        Transform::Exp => ratio_candidates(lo, hi),
        t => monotone_candidates(lo, hi, t),
    };
    let usable = || candidates.iter().filter(|c| c.values.len() >= 2);
    usable()
        .find(|c| c.fits(length, font))
        .cloned()
        // None fits: the sparsest, thinned until its labels leave room between them.
        .or_else(|| usable().next_back().map(|c| c.thinned(length, font)))
        // Nothing round lies in reach (a span of a few ulps far from 0): yi's own ticks,
        // labelled on the natural scale.
        .map_or_else(
            || {
                let mut plain = fitting(lo, hi, length, font)?;
                plain.labels = plain.values.iter().map(|v| natural(t.apply(*v))).collect();
                Ok(plain)
            },
            Ok,
        )
}

/// A natural-scale value as a label: as few decimals as it needs (0.25, 0.5, 1, 10), in
/// scientific notation beyond 10⁵ or below 10⁻⁴ (2e-6, 1e8).
pub(super) fn natural(x: f64) -> String {
    if x != 0.0 && !(1e-4..1e6).contains(&x.abs()) {
        let s = format!("{x:e}");
        return s;
    }
    for decimals in 0..=6 {
        let s = fixed(x, decimals);
        if (s.parse::<f64>().unwrap_or(f64::NAN) - x).abs() <= 1e-9 * x.abs().max(1e-12) {
            return s;
        }
    }
    fixed(x, 6)
}

/// The candidate tick sets of a ratio axis over log ratios `[lo, hi]`, densest first.
pub(super) fn ratio_candidates(lo: f64, hi: f64) -> Vec<Labelled> {
    let mut out = Vec::new();
    // Narrow spans: round steps of the ratio itself.
    if hi - lo < ln(4.0) {
        let (a, b) = (exp(lo), exp(hi));
        for count in (2..=7).rev() {
            if let Ok(ticks) = nice(a, b, count) {
                if ticks.values[0] > 0.0 {
                    out.push(Labelled {
                        domain: (ln(ticks.values[0]), ln(*ticks.values.last().unwrap())),
                        values: ticks.values.iter().map(|v| ln(*v)).collect(),
                        labels: ticks.values.iter().map(|v| ticks.label(*v)).collect(),
                    });
                }
            }
        }
    }
    // Powers of 2 from 1/4 to 4.
    let (k0, k1) = (
        (lo / std::f64::consts::LN_2).floor(),
        (hi / std::f64::consts::LN_2).ceil(),
    );
    if k0 >= -2.0 && k1 <= 2.0 {
        let ks: Vec<i32> = (k0 as i32..=k1 as i32).collect();
        out.push(series(ks.iter().map(|&k| powi(2.0, k))));
    }
    // Decades in log10 units: lo and hi are finite, so these are far inside i32.
    let (d0, d1) = (
        (lo / std::f64::consts::LN_10).floor(),
        (hi / std::f64::consts::LN_10).ceil(),
    );
    if d1 - d0 > 2000.0 {
        return out;
    }
    let (d0, d1) = (d0 as i32, d1 as i32);
    // 1, 2, 5 times a power of ten, the domain widened to the nearest of them.
    let one_two_five: Vec<f64> = (d0..=d1)
        .flat_map(|d| [1.0, 2.0, 5.0].map(|m| decade_value(m, d)))
        .collect();
    let first = one_two_five.iter().rposition(|v| ln(*v) <= lo).unwrap_or(0);
    let last = one_two_five
        .iter()
        .position(|v| ln(*v) >= hi)
        .unwrap_or(one_two_five.len() - 1);
    out.push(series(one_two_five[first..=last].iter().copied()));
    // Every stride-th power of ten (1, 2, 5, 10, 20, 50, …), stepping from 10⁰.
    for stride in [1, 2, 5, 10, 20, 50, 100, 200, 500] {
        let s0 = d0.div_euclid(stride) * stride;
        let s1 = -((-d1).div_euclid(stride)) * stride;
        let values: Vec<f64> = (s0..=s1)
            .step_by(stride as usize)
            .map(|d| decade_value(1.0, d))
            .collect();
        if values.len() <= MAX_TICKS {
            out.push(series(values.into_iter()));
        }
    }
    out
}

/// m·10^d as the double nearest its decimal value (0.1, not 0.1000000000000000055…).
pub(super) fn decade_value(m: f64, d: i32) -> f64 {
    format!("{m}e{d}").parse().unwrap_or(f64::NAN)
}

/// Ratio ticks at `values` (increasing, positive): positions ln(v), the domain their ends;
/// values that underflow or overflow the log are left out.
pub(super) fn series(values: impl Iterator<Item = f64>) -> Labelled {
    let kept: Vec<f64> = values
        .filter(|v| v.is_finite() && *v > 0.0 && ln(*v).is_finite())
        .collect();
    let positions: Vec<f64> = kept.iter().map(|v| ln(*v)).collect();
    Labelled {
        domain: (
            positions.first().copied().unwrap_or(0.0),
            positions.last().copied().unwrap_or(0.0),
        ),
        values: positions,
        labels: kept.iter().map(|v| natural(*v)).collect(),
    }
}

/// The candidate tick sets of an axis whose labels are an increasing transform of yi (a
/// proportion from its logit, a correlation from Fisher's z, …) over `[lo, hi]`, densest
/// first: round steps of the natural scale between the ends' natural values, each placed at
/// the yi the transform takes to it (found by bisection, so any increasing transform
/// serves). The domain stays `[lo, hi]`: the next round step may lie outside the natural
/// scale's range (a proportion's 0 or 1).
pub(super) fn monotone_candidates(lo: f64, hi: f64, t: Transform) -> Vec<Labelled> {
    let (a, b) = (t.apply(lo), t.apply(hi));
    if !(a.is_finite() && b.is_finite() && a < b) {
        return Vec::new();
    }
    let place = |v: f64| meta_analysis::solver::bisect(|x| t.apply(x) - v, lo, hi, 200);
    let mut out = Vec::new();
    for count in (1..=7).rev() {
        let Ok(ticks) = nice(a, b, count) else {
            continue;
        };
        let kept: Vec<f64> = ticks
            .values
            .iter()
            .copied()
            .filter(|v| (a..=b).contains(v))
            .collect();
        out.push(Labelled {
            domain: (lo, hi),
            values: kept.iter().map(|v| place(*v)).collect(),
            labels: kept.iter().map(|v| ticks.label(*v)).collect(),
        });
    }
    out
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
