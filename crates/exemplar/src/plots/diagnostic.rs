//! The diagnostic plots (Baujat, radial, L'Abbé, normal Q-Q): a scatter of the engine's
//! points ([`meta_analysis::DiagnosticPoint`]) with the reference lines and the shaded band
//! the caller gives, drawn for a phone: 390 units wide, so that text of 12 (notes 11) stays
//! at least 11 px when the plot is drawn 390 px wide, and with as many ticks as leave room
//! between their labels.

use super::document::{self, LEFT};
use super::scale::{fitting, nice, span, Labelled, Linear, ScaleError};
use super::svg::{fixed, px, px_value, Writer};
use super::{axis, id_label, id_text, PlotError, PlotOutput, FILL, GREY, INK};
use meta_analysis::DiagnosticPoint;
use serde_json::{json, Value};

/// The most points a diagnostic plot draws.
pub const MAX_DIAGNOSTIC_POINTS: usize = 10_000;

/// A straight reference line y = intercept + slope·x, drawn where it crosses the plot.
#[derive(Debug, Clone)]
pub struct RefLine {
    pub intercept: f64,
    pub slope: f64,
    pub dashed: bool,
    /// The legend's text.
    pub label: String,
}

/// A shaded band between y = lower + slope·x and y = upper + slope·x over the x axis from
/// `from_x` to its end (the radial plot's confidence region).
#[derive(Debug, Clone)]
pub struct Band {
    pub lower: f64,
    pub upper: f64,
    pub slope: f64,
    pub from_x: f64,
    pub label: String,
}

/// What a diagnostic plot shows.
#[derive(Debug, Clone)]
pub struct DiagnosticInput<'a> {
    /// "baujat", "radial", "labbe" or "qq" (the plot's class and `data-plot`).
    pub kind: &'static str,
    pub points: &'a [DiagnosticPoint],
    /// Per point, a size relative to 1 (L'Abbé: metafor's `cex`); `None`: all alike.
    pub sizes: Option<&'a [f64]>,
    /// Label every point with its id (Baujat).
    pub label_points: bool,
    pub lines: &'a [RefLine],
    pub band: Option<&'a Band>,
    /// Both axes over one domain (L'Abbé: both are arm outcomes on one scale).
    pub same_axes: bool,
    /// The axes start at 0 (x, y): radial's precision, Baujat's both.
    pub from_zero: (bool, bool),
    /// The x axis reaches this multiple of the largest x (radial: 1.3, as metafor's; else 1).
    pub x_room: f64,
    pub title: &'a str,
    /// What was fitted, under the title (e.g. "REML, k = 19, SMD").
    pub subtitle: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    /// A sentence on what the axes are, for the accessible description.
    pub description: &'a str,
}

const WIDTH: f64 = 390.0;
const PLOT_X0: f64 = 62.0;
const PLOT_X1: f64 = 376.0;
const PLOT_Y0: f64 = 56.0;
const PLOT_Y1: f64 = 336.0;
const RADIUS: f64 = 3.5;
const LEGEND_Y: f64 = PLOT_Y1 + 58.0;
const LEGEND_STEP: f64 = 16.0;
/// The axes' text size.
const FONT: f64 = 12.0;

/// Draws a diagnostic plot: checks the input, fits the axes to it, then draws.
pub fn diagnostic(input: &DiagnosticInput) -> Result<PlotOutput, PlotError> {
    validate(input)?;
    let n = input.points.len();
    let axes = fit_axes(input)?;
    let legend = legend(input);
    let height = LEGEND_Y + legend.len().saturating_sub(1) as f64 * LEGEND_STEP + 14.0;
    let numbers = numbers(input, &axes.x, &axes.y, &axes.x_ticks, &axes.y_ticks)?;
    let desc = format!(
        "{} {} {} record{}.",
        input.title,
        input.description,
        n,
        if n == 1 { "" } else { "s" }
    );
    draw(input, &axes, &legend, height, &desc, numbers)
}

/// Checks the input: some points and not too many, finite coordinates, one finite size
/// per point when sizes are given, and finite reference lines.
fn validate(input: &DiagnosticInput) -> Result<(), PlotError> {
    let n = input.points.len();
    if n == 0 {
        return Err(PlotError::NoRecords);
    }
    if n > MAX_DIAGNOSTIC_POINTS {
        return Err(PlotError::TooManyRecords {
            plot: "diagnostic",
            max: MAX_DIAGNOSTIC_POINTS,
            got: n,
        });
    }
    for p in input.points {
        super::finite(p.x, "a point's x")?;
        super::finite(p.y, "a point's y")?;
    }
    if let Some(sizes) = input.sizes {
        if sizes.len() != n {
            return Err(PlotError::ColumnLength {
                what: "the point sizes",
                records: n,
                got: sizes.len(),
            });
        }
        for &s in sizes {
            super::finite(s, "a point's size")?;
        }
    }
    for l in input.lines {
        super::finite(l.intercept, "a reference line")?;
        super::finite(l.slope, "a reference line")?;
    }
    Ok(())
}

/// The plot's two scales and their ticks.
struct Axes {
    x: Linear,
    y: Linear,
    x_ticks: Labelled,
    y_ticks: Labelled,
}

/// Fits the axes to the points, the band and the options (from zero, room on the right,
/// the same scale on both axes), padded by 4% each side.
fn fit_axes(input: &DiagnosticInput) -> Result<Axes, PlotError> {
    let (mut x_lo, mut x_hi) = extent(input.points.iter().map(|p| p.x));
    let (mut y_lo, mut y_hi) = extent(input.points.iter().map(|p| p.y));
    if input.from_zero.0 {
        x_lo = x_lo.min(0.0);
    }
    if input.from_zero.1 {
        y_lo = y_lo.min(0.0);
    }
    super::finite(input.x_room, "the x axis's room")?;
    x_hi *= input.x_room.max(1.0);
    if let Some(b) = input.band {
        for v in [
            b.lower,
            b.upper,
            b.lower + b.slope * x_hi,
            b.upper + b.slope * x_hi,
        ] {
            super::finite(v, "the band")?;
            y_lo = y_lo.min(v);
            y_hi = y_hi.max(v);
        }
    }
    if input.same_axes {
        (x_lo, x_hi) = (x_lo.min(y_lo), x_hi.max(y_hi));
        (y_lo, y_hi) = (x_lo, x_hi);
    }
    let pad = |lo: f64, hi: f64| -> Result<(f64, f64), ScaleError> {
        let p = 0.04 * span(lo, hi)?;
        Ok((lo - p, hi + p))
    };
    let (x0, x1) = pad(x_lo, x_hi)?;
    let (y0, y1) = pad(y_lo, y_hi)?;
    let x0 = if input.from_zero.0 && x_lo >= 0.0 {
        0.0
    } else {
        x0
    };
    let y0 = if input.from_zero.1 && y_lo >= 0.0 {
        0.0
    } else {
        y0
    };
    let x_ticks = fitting(x0, x1, PLOT_X1 - PLOT_X0, FONT)?;
    let mut y_ticks = Labelled::plain(&nice(y0, y1, 6)?);
    if input.same_axes {
        y_ticks = x_ticks.clone();
    }
    let x = Linear::new(x_ticks.domain, (PLOT_X0, PLOT_X1))?;
    let y = Linear::new(y_ticks.domain, (PLOT_Y1, PLOT_Y0))?;
    Ok(Axes {
        x,
        y,
        x_ticks,
        y_ticks,
    })
}

/// Writes the SVG document: subtitle, plot area (frame, band, lines, points), axes and
/// legend.
fn draw(
    input: &DiagnosticInput,
    axes: &Axes,
    legend: &[(Sample, String)],
    height: f64,
    desc: &str,
    numbers: Value,
) -> Result<PlotOutput, PlotError> {
    let Axes {
        x,
        y,
        x_ticks,
        y_ticks,
    } = axes;
    let mut w = Writer::default();
    document::open(
        &mut w,
        input.kind,
        (WIDTH, height),
        input.title,
        desc,
        &numbers,
    );
    w.text(
        "text",
        &[("class", "plot-subtitle"), ("x", &px(LEFT)), ("y", "42.00")],
        input.subtitle,
    );
    w.open(
        "g",
        &[
            ("class", "plot-area"),
            ("data-x-domain", &format!("{} {}", x.domain.0, x.domain.1)),
            ("data-y-domain", &format!("{} {}", y.domain.0, y.domain.1)),
        ],
    );
    document::frame(&mut w, (PLOT_X0, PLOT_X1), (PLOT_Y0, PLOT_Y1));
    if let Some(b) = input.band {
        draw_band(&mut w, b, x, y)?;
    }
    for l in input.lines {
        draw_line(&mut w, l, x, y)?;
    }
    draw_points(&mut w, input, x, y)?;
    w.close("g");
    axis::bottom(&mut w, x, x_ticks, PLOT_Y1, input.x_label)?;
    axis::left(&mut w, y, y_ticks, PLOT_X0, input.y_label)?;
    draw_legend(&mut w, legend);
    Ok(document::finish(w, numbers))
}

fn extent(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

/// The part of y = a + b·x inside the plot, as two (x, y) ends; `None` when it misses it.
fn clip(a: f64, b: f64, (x0, x1): (f64, f64), (y0, y1): (f64, f64)) -> Option<[(f64, f64); 2]> {
    let (mut lo, mut hi) = (x0, x1);
    if b == 0.0 {
        if !(y0..=y1).contains(&a) {
            return None;
        }
    } else {
        let (xa, xb) = ((y0 - a) / b, (y1 - a) / b);
        lo = lo.max(xa.min(xb));
        hi = hi.min(xa.max(xb));
        if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) {
            return None;
        }
    }
    let at = |x: f64| (a + b * x).clamp(y0, y1);
    Some([(lo, at(lo)), (hi, at(hi))])
}

fn draw_line(w: &mut Writer, l: &RefLine, x: &Linear, y: &Linear) -> Result<(), ScaleError> {
    let Some([(xa, ya), (xb, yb)]) = clip(l.intercept, l.slope, x.domain, y.domain) else {
        return Ok(());
    };
    w.open("g", &[("class", "reference-line")]);
    w.text("title", &[], &l.label);
    stroke(
        w,
        (x.map(xa)?, y.map(ya)?),
        (x.map(xb)?, y.map(yb)?),
        l.dashed,
    );
    w.close("g");
    Ok(())
}

fn stroke(w: &mut Writer, (x1, y1): (f64, f64), (x2, y2): (f64, f64), dashed: bool) {
    let (x1, y1, x2, y2) = (px(x1), px(y1), px(x2), px(y2));
    let mut attrs = vec![
        ("x1", x1.as_str()),
        ("y1", y1.as_str()),
        ("x2", x2.as_str()),
        ("y2", y2.as_str()),
        ("stroke", INK),
    ];
    if dashed {
        attrs.push(("stroke-dasharray", "5 3"));
    }
    w.empty("line", &attrs);
}

fn draw_band(w: &mut Writer, b: &Band, x: &Linear, y: &Linear) -> Result<(), ScaleError> {
    let (from, to) = (b.from_x.max(x.domain.0), x.domain.1);
    let corners = [
        (from, b.lower + b.slope * from),
        (to, b.lower + b.slope * to),
        (to, b.upper + b.slope * to),
        (from, b.upper + b.slope * from),
    ];
    let mut points = Vec::with_capacity(4);
    for (cx, cy) in corners {
        let cy = cy.clamp(y.domain.0, y.domain.1);
        points.push(format!("{},{}", px(x.map(cx)?), px(y.map(cy)?)));
    }
    w.open("g", &[("class", "band")]);
    w.text("title", &[], &b.label);
    w.empty("polygon", &[("points", &points.join(" ")), ("fill", FILL)]);
    for edge in [b.lower, b.upper] {
        if let Some([(xa, ya), (xb, yb)]) = clip(edge, b.slope, (from, to), y.domain) {
            stroke(w, (x.map(xa)?, y.map(ya)?), (x.map(xb)?, y.map(yb)?), true);
        }
    }
    w.close("g");
    Ok(())
}

fn draw_points(
    w: &mut Writer,
    input: &DiagnosticInput,
    x: &Linear,
    y: &Linear,
) -> Result<(), ScaleError> {
    // The largest first, so a small point is never hidden under a large one (as metafor).
    let mut order: Vec<usize> = (0..input.points.len()).collect();
    if let Some(sizes) = input.sizes {
        order.sort_by(|&i, &j| sizes[j].total_cmp(&sizes[i]));
    }
    let mut placed = Vec::with_capacity(order.len());
    for i in order {
        let p = &input.points[i];
        let (cx, cy) = (x.map(p.x)?, y.map(p.y)?);
        let r = input.sizes.map_or(RADIUS, |s| sized_radius(s[i]));
        let filled = input.sizes.is_none();
        w.open(
            "circle",
            &[
                ("class", "point"),
                ("data-id", p.id.as_str()),
                ("cx", &px(cx)),
                ("cy", &px(cy)),
                ("r", &px(r)),
                ("fill", if filled { INK } else { FILL }),
                ("stroke", INK),
            ],
        );
        w.text(
            "title",
            &[],
            &format!(
                "{}: x = {}, y = {}",
                id_text(&p.id),
                fixed(p.x, 3),
                fixed(p.y, 3)
            ),
        );
        w.close("circle");
        placed.push((i, cx, cy, r));
    }
    if input.label_points {
        draw_labels(w, input.points, &mut placed);
    }
    Ok(())
}

/// Labels points by their ids, beside them, the farthest from the plot's lower left corner
/// first; a label that would overlap one already written (or leave the plot) is left out:
/// every id stays in its point's tooltip.
fn draw_labels(w: &mut Writer, points: &[DiagnosticPoint], placed: &mut [(usize, f64, f64, f64)]) {
    const HEIGHT: f64 = 11.0;
    const CHAR: f64 = 6.2;
    placed.sort_by(|a, b| {
        // The squared distance from the origin's corner: the same order as the distance,
        // with no platform transcendental (native and wasm draw alike).
        let far = |p: &(usize, f64, f64, f64)| {
            let (dx, dy) = (p.1 - PLOT_X0, PLOT_Y1 - p.2);
            dx * dx + dy * dy
        };
        far(b).total_cmp(&far(a))
    });
    let middle = (PLOT_X0 + PLOT_X1) / 2.0;
    let mut boxes: Vec<(f64, f64, f64, f64)> = Vec::new();
    for &(i, cx, cy, r) in placed.iter() {
        let text = id_label(&points[i].id, 16);
        let width = text.chars().count() as f64 * CHAR;
        let (lx, anchor) = if cx > middle {
            (cx - r - 3.0, "end")
        } else {
            (cx + r + 3.0, "start")
        };
        let (left, right) = if anchor == "end" {
            (lx - width, lx)
        } else {
            (lx, lx + width)
        };
        let (top, bottom) = (cy + 4.0 - HEIGHT, cy + 4.0);
        let inside = left >= PLOT_X0 && right <= PLOT_X1 && top >= PLOT_Y0 && bottom <= PLOT_Y1;
        let overlaps = boxes
            .iter()
            .any(|b| left < b.1 && b.0 < right && top < b.3 && b.2 < bottom);
        if !inside || overlaps {
            continue;
        }
        boxes.push((left, right, top, bottom));
        w.text(
            "text",
            &[
                ("class", "point-label"),
                ("x", &px(lx)),
                ("y", &px(cy + 4.0)),
                ("text-anchor", anchor),
                ("font-size", "11"),
                ("fill", GREY),
            ],
            &text,
        );
    }
}

/// The radius of a point of relative size `cex` (metafor's 0.5 to 3.5): 2.5 to 10.
fn sized_radius(cex: f64) -> f64 {
    2.5 + 2.5 * (cex - 0.5)
}

/// A legend entry: its sample (a point, a solid or dashed line, the band) and its text.
enum Sample {
    Point { sized: bool },
    Line { dashed: bool },
    Band,
}

fn legend(input: &DiagnosticInput) -> Vec<(Sample, String)> {
    let n = input.points.len();
    let what = if input.sizes.is_some() {
        format!("Record (k = {n}), area by precision")
    } else {
        format!("Record (k = {n})")
    };
    let mut items = vec![(
        Sample::Point {
            sized: input.sizes.is_some(),
        },
        what,
    )];
    if let Some(b) = input.band {
        items.push((Sample::Band, b.label.clone()));
    }
    for l in input.lines {
        items.push((Sample::Line { dashed: l.dashed }, l.label.clone()));
    }
    items
}

fn draw_legend(w: &mut Writer, items: &[(Sample, String)]) {
    const SAMPLE_X0: f64 = LEFT;
    const SAMPLE_X1: f64 = LEFT + 24.0;
    w.open("g", &[("class", "legend"), ("font-size", "11")]);
    for (i, (sample, text)) in items.iter().enumerate() {
        let y = LEGEND_Y + i as f64 * LEGEND_STEP;
        let mid = (SAMPLE_X0 + SAMPLE_X1) / 2.0;
        match sample {
            Sample::Point { sized } => w.empty(
                "circle",
                &[
                    ("cx", &px(mid)),
                    ("cy", &px(y - 4.0)),
                    ("r", &px(RADIUS)),
                    ("fill", if *sized { FILL } else { INK }),
                    ("stroke", INK),
                ],
            ),
            Sample::Line { dashed } => {
                stroke(w, (SAMPLE_X0, y - 4.0), (SAMPLE_X1, y - 4.0), *dashed)
            }
            Sample::Band => w.empty(
                "rect",
                &[
                    ("x", &px(SAMPLE_X0)),
                    ("y", &px(y - 10.0)),
                    ("width", &px(SAMPLE_X1 - SAMPLE_X0)),
                    ("height", "12.00"),
                    ("fill", FILL),
                    ("stroke", INK),
                    ("stroke-dasharray", "5 3"),
                ],
            ),
        }
        w.text("text", &[("x", &px(SAMPLE_X1 + 8.0)), ("y", &px(y))], text);
    }
    w.close("g");
}

fn numbers(
    input: &DiagnosticInput,
    x: &Linear,
    y: &Linear,
    x_ticks: &Labelled,
    y_ticks: &Labelled,
) -> Result<Value, ScaleError> {
    let points = input
        .points
        .iter()
        .map(|p| {
            Ok(json!({
                "id": p.id,
                "x": p.x,
                "y": p.y,
                "px": px_value(x.map(p.x)?),
                "py": px_value(y.map(p.y)?),
            }))
        })
        .collect::<Result<Vec<Value>, ScaleError>>()?;
    let lines: Vec<Value> = input
        .lines
        .iter()
        .map(|l| json!({"intercept": l.intercept, "slope": l.slope, "label": l.label}))
        .collect();
    Ok(json!({
        "plot": input.kind,
        "x_axis": axis::numbers(x, x_ticks),
        "y_axis": axis::numbers(y, y_ticks),
        "points": points,
        "lines": lines,
        "band": input.band.map(|b| json!({"lower": b.lower, "upper": b.upper, "slope": b.slope})),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(id: &str, x: f64, y: f64) -> DiagnosticPoint {
        DiagnosticPoint {
            id: id.into(),
            x,
            y,
        }
    }

    fn input<'a>(points: &'a [DiagnosticPoint], lines: &'a [RefLine]) -> DiagnosticInput<'a> {
        DiagnosticInput {
            kind: "qq",
            points,
            sizes: None,
            label_points: true,
            lines,
            band: None,
            same_axes: false,
            from_zero: (false, false),
            x_room: 1.0,
            title: "Normal Q-Q plot",
            subtitle: "REML, k = 3",
            x_label: "Theoretical quantiles",
            y_label: "Standardized residuals",
            description: "Standardized residuals against normal quantiles.",
        }
    }

    #[test]
    fn tick_labels_leave_room_between_them() {
        // Long labels over a short axis get fewer ticks.
        let t = fitting(-12345.0, 98765.0, 314.0, FONT).unwrap();
        assert!(t.fits(314.0, FONT), "{t:?}");
        for (lo, hi) in [(0.0, 1.0), (-0.033, 0.041), (-2.5, 2.5), (0.0, 1e6)] {
            let t = fitting(lo, hi, PLOT_X1 - PLOT_X0, FONT).unwrap();
            assert!(t.fits(PLOT_X1 - PLOT_X0, FONT), "{lo} {hi}: {t:?}");
            assert!(t.values.len() >= 2);
        }
    }

    #[test]
    fn lines_are_clipped_to_the_plot() {
        assert_eq!(
            clip(0.0, 1.0, (-1.0, 2.0), (0.0, 1.0)),
            Some([(0.0, 0.0), (1.0, 1.0)])
        );
        assert_eq!(clip(5.0, 0.0, (0.0, 1.0), (0.0, 1.0)), None);
        assert_eq!(clip(3.0, 1.0, (0.0, 1.0), (0.0, 1.0)), None);
    }

    #[test]
    fn points_lines_and_text_are_drawn_for_a_phone() {
        let pts = [
            point("a", -1.0, -0.8),
            point("b", 0.0, 0.1),
            point("c<", 1.0, 1.3),
        ];
        let lines = [RefLine {
            intercept: 0.0,
            slope: 1.0,
            dashed: false,
            label: "y = x".into(),
        }];
        let out = diagnostic(&input(&pts, &lines)).unwrap();
        assert!(out.svg.starts_with("<svg"));
        assert!(out.svg.contains("viewBox=\"0 0 390.00 "));
        assert_eq!(out.svg.matches("class=\"point\"").count(), 3);
        assert!(out.svg.contains("c&lt;"));
        assert_eq!(out.svg.matches("class=\"reference-line\"").count(), 1);
        // Every font size is at least 11 at 390 wide.
        for size in out.svg.split("font-size=\"").skip(1) {
            let n: f64 = size.split('"').next().unwrap().parse().unwrap();
            assert!(n >= 11.0, "{n}");
        }
        assert_eq!(out.numbers["points"][2]["id"], "c<");
        assert_eq!(out.numbers["points"][0]["x"], -1.0);
        let empty = diagnostic(&input(&[], &lines)).unwrap_err();
        assert_eq!(empty, PlotError::NoRecords);
        let bad = [point("a", f64::NAN, 0.0)];
        assert!(diagnostic(&input(&bad, &lines)).is_err());
    }
}
