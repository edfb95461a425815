//! What the forest plot and the cumulative forest plot share: rows of an estimate with its
//! confidence interval under a header of columns, one x axis with the dashed line of no
//! effect, and every number written on the natural scale of a back-transformation
//! (positions stay on yi's scale). Written once, so the two plots cannot drift apart.

use super::document::LEFT;
use super::scale::{natural_ticks, Labelled, Linear, ScaleError};
use super::svg::{fixed, px, Writer};
use super::{PlotError, GREY, INK};
use meta_analysis::Transform;

/// The baseline of the header's column titles.
pub(super) const HEADER_Y: f64 = 64.0;
const FIRST_ROW_Y: f64 = 86.0;
/// The rows' text size: 11 px, readable on a phone when the plot is drawn 390 px wide.
pub(super) const ROW_FONT: f64 = 11.0;
pub(super) const ROW_HEIGHT: f64 = 18.0;
/// The distance between the lines of a row label wrapped onto more than one line.
pub(super) const LABEL_LINE: f64 = 13.0;

/// The centre line of the `n`th row (from 0), every row one line high.
pub(super) fn row_y(n: usize) -> f64 {
    FIRST_ROW_Y + n as f64 * ROW_HEIGHT
}

/// The height of a row whose label takes `lines` lines: each line past the first adds
/// [`LABEL_LINE`].
pub(super) fn row_height(lines: usize) -> f64 {
    ROW_HEIGHT + lines.saturating_sub(1) as f64 * LABEL_LINE
}

/// Where a row plot's columns sit, left to right: the label at [`LEFT`], the plot area, the
/// estimate with its interval (right-aligned), and a last column (right-aligned: the weight,
/// the number of records).
#[derive(Debug, Clone, Copy)]
pub(super) struct Columns {
    pub plot: (f64, f64),
    pub estimate_x: f64,
    pub last_x: f64,
}

impl Columns {
    /// The bold column titles and the rule under them; `more` are further titles, each
    /// right-aligned at its x (a forest plot's ilab columns).
    pub fn header(
        &self,
        w: &mut Writer,
        label: &str,
        estimate: &str,
        last: &str,
        more: &[(f64, &str)],
    ) {
        w.open("g", &[("class", "header"), ("font-weight", "bold")]);
        w.text("text", &[("x", &px(LEFT)), ("y", &px(HEADER_Y))], label);
        for (x, title) in more {
            right_text(w, *x, &px(HEADER_Y), title);
        }
        right_text(w, self.estimate_x, &px(HEADER_Y), estimate);
        right_text(w, self.last_x, &px(HEADER_Y), last);
        w.close("g");
        self.rule(w, HEADER_Y + 7.0);
    }

    /// A thin line across the columns, from the labels to the last column.
    pub fn rule(&self, w: &mut Writer, y: f64) {
        w.empty(
            "line",
            &[
                ("x1", &px(LEFT)),
                ("y1", &px(y)),
                ("x2", &px(self.last_x)),
                ("y2", &px(y)),
                ("stroke", INK),
                ("stroke-width", "0.5"),
            ],
        );
    }

    /// The x axis over the plot column, covering every interval drawn and 0 (the line of no
    /// effect), its ticks at round values of `t`'s natural scale that leave room between
    /// their labels.
    pub fn x_axis(
        &self,
        intervals: impl IntoIterator<Item = (f64, f64)>,
        t: Transform,
    ) -> Result<(Labelled, Linear), PlotError> {
        let (lo, hi) = intervals
            .into_iter()
            .fold((0.0f64, 0.0f64), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
        let ticks = natural_ticks(lo, hi, t, self.plot.1 - self.plot.0, ROW_FONT)?;
        let x = Linear::new(ticks.domain, self.plot)?;
        Ok((ticks, x))
    }

    /// Opens the plot area (its domain and range as data attributes, for a reader of the SVG)
    /// and draws the reference line (`refline`, yi's scale: 0, no effect, unless a forest
    /// plot says otherwise) from the header down to the axis at `axis_y`, when it lies
    /// inside the domain. The rows follow until the caller closes the group.
    pub fn open_plot_area(
        &self,
        w: &mut Writer,
        x: &Linear,
        axis_y: f64,
        refline: Option<f64>,
    ) -> Result<(), ScaleError> {
        let (d0, d1) = x.domain;
        w.open(
            "g",
            &[
                ("class", "plot-area"),
                ("data-x-domain", &format!("{d0} {d1}")),
                (
                    "data-x-range",
                    &format!("{} {}", px(self.plot.0), px(self.plot.1)),
                ),
            ],
        );
        if let Some(at) = refline.filter(|at| d0 < *at && *at < d1) {
            let zero = px(x.map(at)?);
            w.empty(
                "line",
                &[
                    ("class", "null-line"),
                    ("x1", &zero),
                    ("y1", &px(HEADER_Y + 8.0)),
                    ("x2", &zero),
                    ("y2", &px(axis_y)),
                    ("stroke", GREY),
                    ("stroke-dasharray", "2 3"),
                ],
            );
        }
        Ok(())
    }
}

/// How a row's interval and square are painted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Paint {
    /// In the row's own fill (the cumulative steps).
    Inherit,
    /// Black and solid (a record in the fit).
    Solid,
    /// Grey, a dashed interval and a hollow square (a record left out of the fit): never
    /// told apart by colour alone.
    Hollow,
}

/// One row's marks, drawn after its `<title>`.
pub(super) struct RowMarks<'a> {
    /// The centre line of the row's first line: its interval, its square and the text of
    /// its columns sit there.
    pub y: f64,
    /// The label's lines, top to bottom: the first beside the interval, each further one
    /// [`LABEL_LINE`] below (the row grows to hold them).
    pub label: &'a [String],
    pub estimate: f64,
    pub ci: (f64, f64),
    /// The side of the estimate's square.
    pub side: f64,
    pub paint: Paint,
    /// The estimate column's text.
    pub estimate_text: &'a str,
    /// The last column's text.
    pub last_text: &'a str,
    /// The axis' ends (metafor's `alim`): the interval is cut there, ending in an arrow,
    /// and an estimate beyond is not drawn. `None`: drawn whole.
    pub clip: Option<(f64, f64)>,
}

impl RowMarks<'_> {
    /// The label, the interval, the estimate's square, and the two right-aligned columns.
    pub fn draw(&self, w: &mut Writer, columns: &Columns, x: &Linear) -> Result<(), ScaleError> {
        let text_y = px(self.y + 4.0);
        for (n, line) in self.label.iter().enumerate() {
            let y = px(self.y + 4.0 + n as f64 * LABEL_LINE);
            w.text("text", &[("x", &px(LEFT)), ("y", &y)], line);
        }
        let ink = if self.paint == Paint::Hollow {
            GREY
        } else {
            INK
        };
        let (a, b) = self.clip.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
        let (lo, hi) = (self.ci.0.max(a), self.ci.1.min(b));
        if lo > self.ci.0 {
            arrow(w, x.map(a)?, self.y, true, ink);
        }
        if hi < self.ci.1 {
            arrow(w, x.map(b)?, self.y, false, ink);
        }
        if lo < hi {
            self.interval(w, x, (lo, hi), ink)?;
        }
        if (a..=b).contains(&self.estimate) {
            self.square(w, x, ink)?;
        }
        right_text(w, columns.estimate_x, &text_y, self.estimate_text);
        right_text(w, columns.last_x, &text_y, self.last_text);
        Ok(())
    }

    fn interval(
        &self,
        w: &mut Writer,
        x: &Linear,
        (lo, hi): (f64, f64),
        ink: &str,
    ) -> Result<(), ScaleError> {
        let (x1, x2, cy) = (px(x.map(lo)?), px(x.map(hi)?), px(self.y));
        let mut line = vec![
            ("class", "ci"),
            ("x1", x1.as_str()),
            ("y1", cy.as_str()),
            ("x2", x2.as_str()),
            ("y2", cy.as_str()),
            ("stroke", ink),
        ];
        if self.paint == Paint::Hollow {
            line.push(("stroke-dasharray", "4 2"));
        }
        w.empty("line", &line);
        Ok(())
    }

    fn square(&self, w: &mut Writer, x: &Linear, ink: &str) -> Result<(), ScaleError> {
        let half = self.side / 2.0;
        let (sx, sy, side) = (
            px(x.map(self.estimate)? - half),
            px(self.y - half),
            px(self.side),
        );
        let mut square = vec![
            ("class", "point"),
            ("x", sx.as_str()),
            ("y", sy.as_str()),
            ("width", side.as_str()),
            ("height", side.as_str()),
        ];
        match self.paint {
            Paint::Inherit => {}
            Paint::Solid => square.extend([("fill", INK), ("stroke", "none")]),
            Paint::Hollow => square.extend([("fill", "#ffffff"), ("stroke", ink)]),
        }
        w.empty("rect", &square);
        Ok(())
    }
}

/// The arrow metafor draws where an interval runs past the axis: a triangle whose tip is at
/// `tip` (pixels), pointing left or right.
pub(super) fn arrow(w: &mut Writer, tip: f64, y: f64, left: bool, ink: &str) {
    const LENGTH: f64 = 6.0;
    const HALF: f64 = 3.5;
    let base = if left { tip + LENGTH } else { tip - LENGTH };
    let points = format!(
        "{},{} {},{} {},{}",
        px(tip),
        px(y),
        px(base),
        px(y - HALF),
        px(base),
        px(y + HALF)
    );
    w.empty(
        "polygon",
        &[
            ("class", "arrow"),
            ("points", &points),
            ("fill", ink),
            ("stroke", "none"),
        ],
    );
}

/// Text ending at `x` (the numeric columns), on the baseline `y` as written.
pub(super) fn right_text(w: &mut Writer, x: f64, y: &str, text: &str) {
    w.text(
        "text",
        &[("x", &px(x)), ("y", y), ("text-anchor", "end")],
        text,
    );
}

/// The heading of the estimate column: the measure's name on the scale written (e.g. "RR
/// [95% CI]"), else "Estimate [95% CI]".
pub(super) fn estimate_heading(measure: Option<&str>, level: f64) -> String {
    format!("{} [{}% CI]", measure.unwrap_or("Estimate"), percent(level))
}

/// A confidence level as a percentage: "95", "97.5".
pub(super) fn percent(level: f64) -> String {
    let p = 100.0 * level;
    if (p - p.round()).abs() < 1e-9 {
        fixed(p, 0)
    } else {
        fixed(p, 1)
    }
}

/// "estimate [lo, hi]" on the natural scale of `t`, two decimals.
pub(super) fn interval_text(t: Transform, estimate: f64, (lo, hi): (f64, f64)) -> String {
    format!(
        "{} [{}, {}]",
        shown(t, estimate),
        shown(t, lo),
        shown(t, hi)
    )
}

/// `v` on the natural scale of `t`, two decimals.
pub(super) fn shown(t: Transform, v: f64) -> String {
    fixed(t.apply(v), 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_drops_needless_decimals() {
        assert_eq!(percent(0.95), "95");
        assert_eq!(percent(0.975), "97.5");
    }

    #[test]
    fn a_hollow_row_is_grey_dashed_and_open_and_an_inherited_one_has_no_paint_of_its_own() {
        let columns = Columns {
            plot: (100.0, 200.0),
            estimate_x: 300.0,
            last_x: 350.0,
        };
        let x = Linear::new((-1.0, 1.0), columns.plot).unwrap();
        let draw = |paint| {
            let mut w = Writer::default();
            let marks = RowMarks {
                y: 80.0,
                label: &["s01".to_string()],
                estimate: 0.0,
                ci: (-0.5, 0.5),
                side: 6.0,
                paint,
                estimate_text: "0.00 [-0.50, 0.50]",
                last_text: "3",
                clip: None,
            };
            marks.draw(&mut w, &columns, &x).unwrap();
            w.finish()
        };
        let hollow = draw(Paint::Hollow);
        assert!(hollow.contains("stroke=\"#6b6b6b\" stroke-dasharray=\"4 2\"/>"));
        assert!(hollow.contains("fill=\"#ffffff\" stroke=\"#6b6b6b\"/>"));
        let inherit = draw(Paint::Inherit);
        assert!(inherit.contains(
            "<rect class=\"point\" x=\"147.00\" y=\"77.00\" width=\"6.00\" height=\"6.00\"/>"
        ));
        assert!(!inherit.contains("dasharray"));
    }
}
