//! The pooled result of a forest plot: the fit, checked for drawing, and its diamond and
//! prediction interval under the rows.

use super::{diamond, Below, DIAMOND_HALF_HEIGHT};
use crate::plots::document::LEFT;
use crate::plots::rows::{arrow, interval_text, percent, right_text, shown, Columns};
use crate::plots::scale::{Linear, ScaleError};
use crate::plots::svg::{px, Writer};
use crate::plots::{finite, PlotError, INK};
use meta_analysis::{Fit, Method, Transform};

/// How the pooled row is drawn: its label (`mlab`), whether its prediction interval is
/// (`addpred`), at which level, cut at which axis ends (`alim`).
pub(super) struct How {
    pub(super) label: String,
    pub(super) pi: bool,
    pub(super) level: f64,
    pub(super) alim: (f64, f64),
}

/// The fit, checked for drawing.
pub(super) struct Pooled<'a> {
    pub(super) fit: &'a Fit,
}

impl<'a> Pooled<'a> {
    pub(super) fn of(fit: &'a Fit, included: usize) -> Result<Self, PlotError> {
        if fit.k != included {
            return Err(PlotError::FitMismatch {
                fit_k: fit.k,
                included,
            });
        }
        finite(fit.estimate, "the pooled estimate")?;
        finite(fit.ci_lower, "the lower confidence limit")?;
        finite(fit.ci_upper, "the upper confidence limit")?;
        finite(fit.pi_lower, "the lower prediction limit")?;
        finite(fit.pi_upper, "the upper prediction limit")?;
        finite(fit.tau2, "tau²")?;
        finite(fit.level, "the confidence level")?;
        if fit.tau2 < 0.0 {
            return Err(PlotError::NegativeTau2 { tau2: fit.tau2 });
        }
        if !(fit.level > 0.0 && fit.level < 1.0) {
            return Err(PlotError::InvalidLevel { level: fit.level });
        }
        Ok(Pooled { fit })
    }

    /// A prediction interval belongs to a random-effects model.
    pub(super) fn shows_pi(&self) -> bool {
        !self.fit.method.is_equal_effects()
    }

    /// The pooled row's label: `mlab` where given, else [`Self::short_name`].
    pub(super) fn label(&self, mlab: Option<&str>) -> String {
        mlab.map_or_else(|| self.short_name(), str::to_string)
    }

    /// The pooled row's label, as metafor's forest writes it ("RE Model"); the estimator is
    /// in the subtitle and the notes.
    pub(super) fn short_name(&self) -> String {
        match self.fit.method {
            Method::Ee => "EE model".into(),
            Method::Fe => "FE model".into(),
            _ => "RE model".into(),
        }
    }

    pub(super) fn long_name(&self) -> String {
        match self.fit.method {
            Method::Ee => "Equal-effects model".into(),
            Method::Fe => "Fixed-effects model".into(),
            m => format!("Random-effects model ({})", m.name()),
        }
    }

    /// The pooled result under the rule: for a random-effects model with `addpred`, the
    /// prediction interval as metafor's forest() draws it, a dotted line through the diamond
    /// (its limits on the line below); the diamond with the estimate and "100%".
    pub(super) fn draw(
        &self,
        w: &mut Writer,
        t: Transform,
        x: &Linear,
        below: &Below,
        how: &How,
        columns: &Columns,
    ) -> Result<(), ScaleError> {
        if how.pi {
            self.draw_prediction_interval(w, t, x, (below.diamond_y, below.pi_y), how, columns)?;
        }
        self.draw_diamond(w, t, x, below.diamond_y, how, columns)
    }

    fn draw_diamond(
        &self,
        w: &mut Writer,
        t: Transform,
        x: &Linear,
        y: f64,
        how: &How,
        columns: &Columns,
    ) -> Result<(), ScaleError> {
        let f = self.fit;
        let interval = interval_text(t, f.estimate, (f.ci_lower, f.ci_upper));
        let text_y = px(y + 4.0);
        w.open("g", &[("class", "pooled"), ("font-weight", "bold")]);
        w.text(
            "title",
            &[],
            &format!(
                "Pooled estimate ({}, k = {}): {interval}",
                self.long_name(),
                f.k,
            ),
        );
        w.text("text", &[("x", &px(LEFT)), ("y", &text_y)], &how.label);
        diamond(
            w,
            (f.ci_lower, f.estimate, f.ci_upper),
            (x, how.alim),
            y,
            DIAMOND_HALF_HEIGHT,
            INK,
        )?;
        right_text(w, columns.estimate_x, &text_y, &interval);
        if columns.last_x > columns.estimate_x {
            right_text(w, columns.last_x, &text_y, "100%");
        }
        w.close("g");
        Ok(())
    }

    fn draw_prediction_interval(
        &self,
        w: &mut Writer,
        t: Transform,
        x: &Linear,
        (line_y, y): (f64, f64),
        how: &How,
        columns: &Columns,
    ) -> Result<(), ScaleError> {
        let (f, level, alim) = (self.fit, how.level, how.alim);
        let (lo, hi) = (f.pi_lower.max(alim.0), f.pi_upper.min(alim.1));
        let limits = format!("[{}, {}]", shown(t, f.pi_lower), shown(t, f.pi_upper));
        let text_y = px(y + 4.0);
        w.open("g", &[("class", "prediction-interval")]);
        w.text(
            "title",
            &[],
            &format!("{}% prediction interval {limits}", percent(level)),
        );
        w.text(
            "text",
            &[("x", &px(LEFT)), ("y", &text_y)],
            &format!("{}% PI", percent(level)),
        );
        if lo < hi {
            let (a, b) = (x.map(lo)?, x.map(hi)?);
            w.empty(
                "line",
                &[
                    ("class", "pi"),
                    ("x1", &px(a)),
                    ("y1", &px(line_y)),
                    ("x2", &px(b)),
                    ("y2", &px(line_y)),
                    ("stroke", INK),
                    ("stroke-dasharray", "1 2"),
                ],
            );
        }
        // Each end: a short bar, or an arrow where the interval runs past the axis.
        for (value, clipped, left) in [
            (lo, f.pi_lower < alim.0, true),
            (hi, f.pi_upper > alim.1, false),
        ] {
            let end = x.map(value)?;
            if clipped {
                arrow(w, end, line_y, left, INK);
            } else {
                w.empty(
                    "line",
                    &[
                        ("x1", &px(end)),
                        ("y1", &px(line_y - 4.0)),
                        ("x2", &px(end)),
                        ("y2", &px(line_y + 4.0)),
                        ("stroke", INK),
                    ],
                );
            }
        }
        right_text(w, columns.estimate_x, &text_y, &limits);
        w.close("g");
        Ok(())
    }
}
