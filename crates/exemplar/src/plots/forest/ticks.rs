//! The forest plot's axis, as metafor's forest() sets it: `alim` (the axis' ends; intervals
//! beyond end in an arrow), `at` (the ticks), else the ends and ticks chosen from the rows'
//! intervals: round values of the natural scale (a ratio's 0.1, 0.3, 1, 3; a correlation's
//! 0, 0.2, 0.4), as many as leave room between their labels, never overlapping.

use crate::plots::scale::{
    decade_value, fitting, monotone_candidates, natural, nice, ratio_candidates, series, span,
    Labelled, ScaleError,
};
use meta_analysis::math::ln;
use meta_analysis::Transform;

/// The axis over `[lo, hi]` (yi's scale, the intervals it should show), `alim` and `at`
/// (yi's scale) when given, its ticks labelled on `t`'s natural scale to fit `length`
/// pixels at `font` pixels.
pub(super) fn axis(
    (lo, hi): (f64, f64),
    alim: Option<(f64, f64)>,
    at: Option<&[f64]>,
    t: Transform,
    length: f64,
    font: f64,
) -> Result<Labelled, ScaleError> {
    if let Some(at) = at.filter(|at| !at.is_empty()) {
        return given(at, alim, t);
    }
    if let Some((a, b)) = alim {
        return inside(a, b, t, length, font);
    }
    chosen(lo, hi, t, length, font)
}

/// metafor's `at`: the ticks where given, clamped to `alim` (then without repeats); the axis
/// runs over `alim`, else from the first tick to the last.
fn given(at: &[f64], alim: Option<(f64, f64)>, t: Transform) -> Result<Labelled, ScaleError> {
    if let Some(v) = at.iter().find(|v| !v.is_finite()) {
        return Err(ScaleError::Position { value: *v });
    }
    let mut values: Vec<f64> = at.to_vec();
    if let Some((a, b)) = alim {
        values.iter_mut().for_each(|v| *v = v.clamp(a, b));
    }
    values.sort_by(f64::total_cmp);
    values.dedup();
    let (first, last) = (values[0], values[values.len() - 1]);
    let domain = alim.unwrap_or((first, last));
    if span(domain.0, domain.1)? <= 0.0 {
        return Err(ScaleError::Span {
            lo: domain.0,
            hi: domain.1,
        });
    }
    Ok(Labelled {
        domain,
        labels: values.iter().map(|v| natural(t.apply(*v))).collect(),
        values,
    })
}

/// Round ticks inside `alim` = `[a, b]`, which the axis spans.
fn inside(a: f64, b: f64, t: Transform, length: f64, font: f64) -> Result<Labelled, ScaleError> {
    let tolerance = 1e-9 * (b - a).abs();
    let within = |c: &Labelled| {
        let keep: Vec<usize> = (0..c.values.len())
            .filter(|&i| c.values[i] >= a - tolerance && c.values[i] <= b + tolerance)
            .collect();
        Labelled {
            domain: (a, b),
            values: keep.iter().map(|&i| c.values[i]).collect(),
            labels: keep.iter().map(|&i| c.labels[i].clone()).collect(),
        }
    };
    let candidates: Vec<Labelled> = candidates(a, b, t)?.iter().map(within).collect();
    pick(candidates, length, font, |_| 0.0).ok_or(ScaleError::Span { lo: a, hi: b })
}

/// The axis chosen for the intervals `[lo, hi]`: the fitting set of round ticks that covers
/// them over the least span (the least room lost to the widening), more ticks among equals.
fn chosen(lo: f64, hi: f64, t: Transform, length: f64, font: f64) -> Result<Labelled, ScaleError> {
    let (lo, hi) = if span(lo, hi)? <= f64::EPSILON * lo.abs().max(hi.abs()).max(1.0) {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo.min(hi), lo.max(hi))
    };
    pick(candidates(lo, hi, t)?, length, font, |c| {
        c.domain.1 - c.domain.0
    })
    .ok_or(ScaleError::Span { lo, hi })
}

/// The fitting candidate (two ticks or more) of least `cost`, more ticks among equals; when
/// none fits, the sparsest thinned until it does.
fn pick(
    candidates: Vec<Labelled>,
    length: f64,
    font: f64,
    cost: impl Fn(&Labelled) -> f64,
) -> Option<Labelled> {
    let usable: Vec<Labelled> = candidates
        .into_iter()
        .filter(|c| c.values.len() >= 2 && c.domain.1 > c.domain.0)
        .collect();
    let best = usable
        .iter()
        .filter(|c| c.fits(length, font))
        .min_by(|a, b| {
            cost(a)
                .total_cmp(&cost(b))
                .then(b.values.len().cmp(&a.values.len()))
        })
        .cloned();
    best.or_else(|| {
        usable
            .iter()
            .min_by_key(|c| c.values.len())
            .map(|c| c.thinned(length, font))
    })
}

/// Every set of round ticks of `t`'s natural scale around `[lo, hi]`.
fn candidates(lo: f64, hi: f64, t: Transform) -> Result<Vec<Labelled>, ScaleError> {
    Ok(match t {
        Transform::None => (1..=7)
            .rev()
            .filter_map(|count| nice(lo, hi, count).ok())
            .map(|ticks| Labelled::plain(&ticks))
            .collect(),
        Transform::Exp => {
            let mut out = ratio_candidates(lo, hi);
            out.extend(ratio_more(lo, hi));
            out
        }
        t => widened(monotone_candidates(lo, hi, t), lo, hi, t),
    })
    .map(|mut c: Vec<Labelled>| {
        if c.is_empty() {
            // Nothing round in reach: yi's own ticks, labelled on the natural scale.
            if let Ok(mut plain) = fitting(lo, hi, f64::INFINITY, 1.0) {
                plain.labels = plain.values.iter().map(|v| natural(t.apply(*v))).collect();
                c.push(plain);
            }
        }
        c
    })
}

/// More ratio ticks than [`ratio_candidates`] offers: 1 and 3 times powers of ten (0.1, 0.3,
/// 1, 3, 10: nearly even steps), and every 2nd or 3rd power of ten from any start (0.001,
/// 0.1, 10, 1000), each over the least run that covers `[lo, hi]`.
fn ratio_more(lo: f64, hi: f64) -> Vec<Labelled> {
    let covering = |values: Vec<f64>| -> Option<Labelled> {
        let first = values.iter().rposition(|v| ln(*v) <= lo)?;
        let last = values.iter().position(|v| ln(*v) >= hi)?;
        Some(series(values[first..=last].iter().copied()))
    };
    let (d0, d1) = (
        (lo / std::f64::consts::LN_10).floor() - 1.0,
        (hi / std::f64::consts::LN_10).ceil() + 1.0,
    );
    if d1 - d0 >= 600.0 {
        return Vec::new();
    }
    let (d0, d1) = (d0 as i32, d1 as i32);
    let mut out = Vec::new();
    let one_three: Vec<f64> = (d0..=d1)
        .flat_map(|d| [decade_value(1.0, d), decade_value(3.0, d)])
        .collect();
    out.extend(covering(one_three));
    for stride in [2, 3] {
        for phase in 0..stride {
            let decades: Vec<f64> = (d0 - stride..=d1 + stride)
                .filter(|d| (d - phase).rem_euclid(stride) == 0)
                .map(|d| decade_value(1.0, d))
                .collect();
            out.extend(covering(decades));
        }
    }
    out
}

/// [`monotone_candidates`] widened, as metafor's axis runs from its first tick to its last:
/// each set gains the round step just beyond each end where the natural scale reaches it (a
/// correlation's −1 and 1, a proportion's 0 and 1 stay out: their yi is infinite).
fn widened(candidates: Vec<Labelled>, lo: f64, hi: f64, t: Transform) -> Vec<Labelled> {
    let (a, b) = (t.apply(lo), t.apply(hi));
    // A step's yi, where the transform reaches it from near the data: a correlation's 1 is
    // tanh of no number, though atanh(1 − ε) is one far away.
    let reach = |v: f64| -> Option<f64> {
        let y = t.inverse(v);
        let near = (y - lo).abs().max((y - hi).abs()) <= 2.0 * (hi - lo);
        (y.is_finite() && (t.apply(y) - v).abs() < 1e-9 && near).then_some(y)
    };
    candidates
        .into_iter()
        .map(|c| {
            let Some(step) = step_of(&c, t) else {
                return c;
            };
            let mut values = c.values.clone();
            let mut labels = c.labels.clone();
            let decimals = labels
                .first()
                .map_or(0, |l| l.split_once('.').map_or(0, |(_, d)| d.len()));
            let mut domain = c.domain;
            // Below: the round value at or just under a.
            let first = t.apply(values[0]);
            let below = first - step;
            if first > a + 1e-12 && below <= a {
                if let Some(y) = reach(below) {
                    values.insert(0, y);
                    labels.insert(0, crate::plots::svg::fixed(below, decimals));
                    domain.0 = y;
                }
            } else if (first - a).abs() <= 1e-12 {
                domain.0 = values[0];
            }
            let last = t.apply(values[values.len() - 1]);
            let above = last + step;
            if last < b - 1e-12 && above >= b {
                if let Some(y) = reach(above) {
                    values.push(y);
                    labels.push(crate::plots::svg::fixed(above, decimals));
                    domain.1 = y;
                }
            } else if (last - b).abs() <= 1e-12 {
                domain.1 = values[values.len() - 1];
            }
            domain.0 = domain.0.min(lo);
            domain.1 = domain.1.max(hi);
            Labelled {
                domain,
                values,
                labels,
            }
        })
        .collect()
}

/// The natural-scale step between a candidate's ticks (two or more), if any.
fn step_of(c: &Labelled, t: Transform) -> Option<f64> {
    if c.values.len() < 2 {
        return None;
    }
    let step = t.apply(c.values[1]) - t.apply(c.values[0]);
    (step.is_finite() && step > 0.0).then_some(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_axes_cover_the_rows_with_round_ratios_that_leave_room() {
        // dat.bcg's RR intervals, 0.07 to 6.53, over 190 pixels.
        let got = axis(
            (ln(0.07), ln(6.53)),
            None,
            None,
            Transform::Exp,
            190.0,
            11.0,
        )
        .unwrap();
        assert!(got.fits(190.0, 11.0), "{got:?}");
        assert!(got.labels.len() >= 4, "{got:?}");
        let (a, b) = (got.domain.0.exp(), got.domain.1.exp());
        assert!(
            (0.01..=0.07).contains(&a) && (6.53..=20.0).contains(&b),
            "{got:?}"
        );
    }

    #[test]
    fn given_ticks_are_kept_and_clamped_to_alim() {
        let at = [ln(0.05), ln(0.25), ln(1.0), ln(4.0)];
        let got = axis((0.0, 1.0), None, Some(&at), Transform::Exp, 100.0, 11.0).unwrap();
        assert_eq!(got.labels, ["0.05", "0.25", "1", "4"]);
        assert_eq!(got.domain, (ln(0.05), ln(4.0)));
        let alim = Some((ln(0.1), ln(2.0)));
        let clamped = axis((0.0, 1.0), alim, Some(&at), Transform::Exp, 100.0, 11.0).unwrap();
        assert_eq!(clamped.labels, ["0.1", "0.25", "1", "2"]);
    }

    #[test]
    fn a_correlation_axis_never_reaches_one() {
        let got = axis(
            (-0.48f64.atanh(), 0.76f64.atanh()),
            None,
            None,
            Transform::Ztor,
            100.0,
            11.0,
        )
        .unwrap();
        assert!(got.domain.1 < 1.1, "{got:?}");
        assert!(!got.labels.iter().any(|l| l == "1.0"), "{got:?}");
    }

    #[test]
    fn correlation_ticks_never_overlap_however_narrow() {
        for length in [40.0, 80.0, 130.0, 300.0] {
            let got = axis(
                (-0.6f64.atanh(), 0.9f64.atanh()),
                None,
                None,
                Transform::Ztor,
                length,
                11.0,
            )
            .unwrap();
            assert!(got.fits(length, 11.0), "{length}: {got:?}");
        }
    }
}
