//! metafor forest()'s layout options, and the marks they add: polygons cut at the axis'
//! ends (`alim`), a shade behind rows (`shade`), a grey polygon per row for a
//! meta-regression's fitted values.

use crate::plots::scale::{Linear, ScaleError};
use crate::plots::svg::{px, Writer};

/// forest()'s options, every value on yi's scale (the caller maps the natural scale's).
#[derive(Debug, Clone, Copy, Default)]
pub struct ForestOptions<'a> {
    /// The ticks (metafor's `at`); `None`: round values of the natural scale.
    pub at: Option<&'a [f64]>,
    /// The axis' ends (metafor's `alim`): intervals beyond end in an arrow, an estimate
    /// beyond is not drawn. `None`: from the rows' intervals.
    pub alim: Option<(f64, f64)>,
    /// The values the plot area spans (metafor's `xlim` of the forest's area), at least the
    /// axis; `None`: the axis.
    pub xlim: Option<(f64, f64)>,
    pub refline: Reference,
    /// The left and right column titles (metafor's `header`); `None`: "Study" (or
    /// "Record") and "<measure> [95% CI]".
    pub header: Option<(&'a str, &'a str)>,
    /// The pooled row's label (metafor's `mlab`); `None`: "RE model" (or "EE", "FE").
    pub mlab: Option<&'a str>,
    /// The weights' column: `None` shows it unless ilab columns need its room.
    pub showweights: Option<bool>,
    /// Whether a random-effects model's prediction interval is drawn (metafor's
    /// `addpred`); `None`: drawn. With fitted values, their intervals are PIs.
    pub addpred: Option<bool>,
    pub shade: Option<Shade>,
    /// The SVG's width; `None`: 390, wider where the columns need it.
    pub width: Option<f64>,
}

/// The vertical reference line (metafor's `refline`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Reference {
    /// At no effect, yi = 0.
    #[default]
    Null,
    At(f64),
    Hidden,
}

/// Rows shaded (metafor's `shade`): every other row from the first, from the second, or all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shade {
    Zebra,
    Zebra2,
    All,
}

impl Shade {
    /// Whether the `n`th row from the top (from 0) is shaded.
    pub(super) fn shades(self, n: usize) -> bool {
        match self {
            Shade::Zebra => n.is_multiple_of(2),
            Shade::Zebra2 => !n.is_multiple_of(2),
            Shade::All => true,
        }
    }
}

/// A meta-regression's fitted values, drawn as metafor's forest() draws a model with
/// moderators: a grey polygon per row over the fitted value's interval, and no pooled row.
#[derive(Debug, Clone, Copy)]
pub struct Fitted<'a> {
    /// Per record, in record order: (fitted value, lower, upper); `None` for a record
    /// excluded from the model.
    pub values: &'a [Option<(f64, f64, f64)>],
    /// The residual τ² (the rows' weights are 1/(vi + τ²)).
    pub tau2: f64,
    /// The model's name for the notes, e.g. "Mixed-effects model (REML) on ~ ablat".
    pub model: &'a str,
    /// Whether the intervals are prediction intervals (else confidence intervals).
    pub prediction: bool,
    /// The model's confidence level (the rows' intervals take it too).
    pub level: f64,
}

/// A multilevel model's rows, grouped by their cluster (the three-level model's study),
/// with the model's own weights: metafor's weights() of an rma.mv fit.
#[derive(Debug, Clone, Copy)]
pub struct Clustered<'a> {
    /// The cluster column's name: each heading reads "name level" (e.g. "district 11").
    pub name: &'a str,
    /// Each record's cluster, in record order (excluded records included).
    pub clusters: &'a [String],
    /// Each record's weight in percent, in record order; `None` for an excluded record.
    pub weights: &'a [Option<f64>],
    /// The model's line in the notes (its variance components), and how the weights are
    /// computed.
    pub notes: [&'a str; 2],
}

/// The polygon `points` (x, y) clipped to `a ≤ x ≤ b` (Sutherland–Hodgman, one edge at a
/// time): what metafor draws of a diamond or fitted polygon inside `alim`.
pub(super) fn clip(points: &[(f64, f64)], (a, b): (f64, f64)) -> Vec<(f64, f64)> {
    let half = |points: Vec<(f64, f64)>, inside: &dyn Fn(f64) -> bool, edge: f64| {
        let mut out = Vec::new();
        for (i, &p) in points.iter().enumerate() {
            let q = points[(i + 1) % points.len()];
            let cross = || {
                let t = (edge - p.0) / (q.0 - p.0);
                (edge, p.1 + t * (q.1 - p.1))
            };
            match (inside(p.0), inside(q.0)) {
                (true, true) => out.push(q),
                (true, false) => out.push(cross()),
                (false, true) => {
                    out.push(cross());
                    out.push(q);
                }
                (false, false) => {}
            }
        }
        // Start where the polygon was given to start.
        let turn = usize::from(!out.is_empty());
        out.rotate_right(turn);
        out
    };
    let left = half(points.to_vec(), &|x| x >= a, a);
    half(left, &|x| x <= b, b)
}

/// A polygon over values on yi's scale, mapped by `x` and clipped to the axis `alim`;
/// nothing when nothing of it lies inside.
pub(super) fn polygon(
    w: &mut Writer,
    points: &[(f64, f64)],
    x: &Linear,
    alim: (f64, f64),
    attrs: &[(&str, &str)],
) -> Result<(), ScaleError> {
    let clipped = clip(points, alim);
    if clipped.len() < 3 {
        return Ok(());
    }
    let mut text = Vec::new();
    for (v, y) in clipped {
        text.push(format!("{},{}", px(x.map(v)?), px(y)));
    }
    let joined = text.join(" ");
    let mut all = vec![("points", joined.as_str())];
    all.extend_from_slice(attrs);
    w.empty("polygon", &all);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_polygon_inside_is_kept_and_one_across_an_end_is_cut_there() {
        let diamond = [(-1.0, 0.0), (0.0, -1.0), (1.0, 0.0), (0.0, 1.0)];
        assert_eq!(clip(&diamond, (-2.0, 2.0)), diamond);
        let cut = clip(&diamond, (-2.0, 0.5));
        assert!(cut.iter().all(|p| p.0 <= 0.5 + 1e-12), "{cut:?}");
        assert!(cut.iter().any(|p| (p.0 - 0.5).abs() < 1e-12), "{cut:?}");
        assert!(clip(&diamond, (2.0, 3.0)).is_empty());
    }
}
