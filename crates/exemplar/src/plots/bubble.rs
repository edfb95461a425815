//! The bubble plot of a meta-regression on one numeric moderator: each record's yi against
//! its moderator value, the point's area proportional to its weight 1/(vi + τ²), the fitted
//! line with its confidence band, and the model's numbers written beside it.

use super::document;
use super::scale::{fitting, nice, span, Labelled, Linear, ScaleError};
use super::svg::{fixed, px, px_value, Writer};
use super::{
    axis, finite, id_label, id_text, included_weights, p_text, validate, PlotError, PlotOutput,
    FILL, GREY, INK,
};
use meta_analysis::{MetaRegression, ModeratorValue, Record, Term, Test};
use serde_json::{json, Value};

/// The most records a bubble plot draws: its answer (the SVG and every number drawn) stays a
/// few MB, which the page receives from its engine's worker within a 50 ms task.
pub const MAX_BUBBLE_RECORDS: usize = 5_000;

/// What a bubble plot shows.
#[derive(Debug, Clone, Copy)]
pub struct BubbleInput<'a> {
    /// All records (excluded ones are drawn hollow and grey where they have a value).
    pub records: &'a [Record],
    /// Ids left out of the model.
    pub excluded: &'a [String],
    /// Each record's moderator value, in record order (`None`: not drawn).
    pub values: &'a [Option<f64>],
    /// The meta-regression of the records not excluded on that one numeric moderator.
    pub model: &'a MetaRegression,
    pub title: &'a str,
    /// The line under the title (what was fitted, on which data).
    pub subtitle: Option<&'a str>,
    /// The effect measure, written beside the y axis.
    pub y_label: &'a str,
}

/// Drawn for a phone, as the diagnostic plots: 390 wide, so text of 12 (notes 11) stays at
/// least 11 px when the plot is drawn 390 px wide.
const WIDTH: f64 = 390.0;
const PLOT_X0: f64 = 62.0;
const PLOT_X1: f64 = 376.0;
const PLOT_Y0: f64 = 56.0;
const PLOT_Y1: f64 = 336.0;
const FONT: f64 = 12.0;
/// Radius of the point with the largest weight; others scale by area.
const MAX_RADIUS: f64 = 10.0;
const MIN_RADIUS: f64 = 2.0;
/// Points along the confidence band.
const BAND_POINTS: usize = 41;
const NOTES_Y: f64 = PLOT_Y1 + 58.0;
const NOTE_STEP: f64 = 15.0;

struct Point<'r> {
    record: &'r Record,
    x: f64,
    excluded: bool,
    weight_percent: Option<f64>,
    radius: f64,
}

/// Draws a bubble plot.
pub fn bubble(input: &BubbleInput) -> Result<PlotOutput, PlotError> {
    let checked = check(input)?;
    let (name, model) = (checked.name, input.model);
    let weights = included_weights(input.records, &checked.is_excluded, model.tau2)?;
    let points = points(input, &checked.is_excluded, &weights);
    let kept_x = || points.iter().filter(|p| !p.excluded).map(|p| p.x);
    let (x_min, x_max) = (
        kept_x().fold(f64::INFINITY, f64::min),
        kept_x().fold(f64::NEG_INFINITY, f64::max),
    );
    let band = band(model, (x_min, x_max))?;
    let (x, x_ticks, y, y_ticks) = scales(&points, &band)?;

    let notes = document::wrap_notes(&notes(input, name, &points), WIDTH);
    let height = NOTES_Y + (notes.len() as f64 - 1.0) * NOTE_STEP + 16.0;
    let mut numbers = numbers(
        input,
        name,
        &points,
        &band,
        checked.line,
        (x_min, x_max),
        &x,
        &y,
    )
    .map_err(PlotError::from)?;
    numbers["x_axis"] = axis::numbers(&x, &x_ticks);
    numbers["y_axis"] = axis::numbers(&y, &y_ticks);
    let desc = description(input, name, &points);

    let mut w = Writer::default();
    document::open(
        &mut w,
        "bubble",
        (WIDTH, height),
        input.title,
        &desc,
        &numbers,
    );
    if let Some(subtitle) = input.subtitle {
        document::subtitle(&mut w, subtitle);
    }
    w.open(
        "g",
        &[
            ("class", "plot-area"),
            ("data-x-domain", &format!("{} {}", x.domain.0, x.domain.1)),
            ("data-x-range", &format!("{} {}", px(PLOT_X0), px(PLOT_X1))),
            ("data-y-domain", &format!("{} {}", y.domain.0, y.domain.1)),
            ("data-y-range", &format!("{} {}", px(PLOT_Y1), px(PLOT_Y0))),
        ],
    );
    document::frame(&mut w, (PLOT_X0, PLOT_X1), (PLOT_Y0, PLOT_Y1));
    draw_band(&mut w, input, &band, &x, &y)?;
    draw_line(&mut w, name, checked.line, (x_min, x_max), &x, &y)?;
    // Largest first, so small points stay visible on top.
    let mut order: Vec<&Point> = points.iter().collect();
    order.sort_by(|a, b| b.radius.total_cmp(&a.radius));
    for p in order {
        draw_point(&mut w, p, name, &x, &y)?;
    }
    w.close("g");
    axis::bottom(&mut w, &x, &x_ticks, PLOT_Y1, name)?;
    axis::left(&mut w, &y, &y_ticks, PLOT_X0, input.y_label)?;
    document::notes(&mut w, &notes, NOTES_Y, NOTE_STEP);
    Ok(document::finish(w, numbers))
}

/// What [`check`] establishes of a bubble plot's input.
struct Checked<'a> {
    /// The one numeric moderator's name.
    name: &'a str,
    is_excluded: Vec<bool>,
    /// The fitted line's intercept and slope.
    line: (f64, f64),
}

/// The input is one the plot can draw: a model on one numeric moderator, fitted to the
/// records not excluded, with a finite value of it for each of them.
fn check<'a>(input: &BubbleInput<'a>) -> Result<Checked<'a>, PlotError> {
    let is_excluded = validate(input.records, input.excluded, "bubble", MAX_BUBBLE_RECORDS)?;
    let model = input.model;
    let name = match model.terms() {
        [Term::Numeric { name }] => name.as_str(),
        _ => return Err(PlotError::NotOneNumericModerator),
    };
    if input.values.len() != input.records.len() {
        return Err(PlotError::ColumnLength {
            what: "the moderator values",
            records: input.records.len(),
            got: input.values.len(),
        });
    }
    let included = is_excluded.iter().filter(|e| !**e).count();
    if model.k != included {
        return Err(PlotError::FitMismatch {
            fit_k: model.k,
            included,
        });
    }
    for ((value, &excluded), record) in input.values.iter().zip(&is_excluded).zip(input.records) {
        match value {
            Some(v) => {
                finite(*v, "a moderator value")?;
            }
            None if !excluded => {
                return Err(PlotError::MissingModeratorValue {
                    id: record.id.clone(),
                })
            }
            None => {}
        }
    }
    let line = (
        finite(model.coefficients[0].estimate, "the intercept")?,
        finite(model.coefficients[1].estimate, "the slope")?,
    );
    Ok(Checked {
        name,
        is_excluded,
        line,
    })
}

/// The points drawn: every record with a moderator value, its area proportional to its
/// weight in the model (excluded records hollow, at a fixed small size).
fn points<'r>(
    input: &BubbleInput<'r>,
    is_excluded: &[bool],
    weights: &[Option<(f64, f64)>],
) -> Vec<Point<'r>> {
    input
        .records
        .iter()
        .zip(input.values)
        .zip(is_excluded)
        .zip(weights)
        .filter_map(|(((record, value), &excluded), weight)| {
            let x = (*value)?;
            Some(Point {
                record,
                x,
                excluded,
                weight_percent: weight.map(|(percent, _)| percent),
                radius: weight.map_or(MIN_RADIUS + 1.0, |(_, relative)| {
                    (MAX_RADIUS * relative.sqrt()).max(MIN_RADIUS)
                }),
            })
        })
        .collect()
}

/// The fitted line's confidence band over the kept records' range: (x, lower, upper).
fn band(
    model: &MetaRegression,
    (x_min, x_max): (f64, f64),
) -> Result<Vec<(f64, f64, f64)>, PlotError> {
    (0..BAND_POINTS)
        .map(|i| {
            let t = i as f64 / (BAND_POINTS - 1) as f64;
            let at = x_min + t * (x_max - x_min);
            let p =
                model
                    .predict(&[ModeratorValue::Number(at)])
                    .map_err(|_| PlotError::Overflow {
                        what: "the fitted line's confidence band",
                    })?;
            Ok((at, p.ci_lower, p.ci_upper))
        })
        .collect()
}

/// The axes' scales and ticks: every point and the band, with 3% room so no point sits on
/// the frame.
fn scales(
    points: &[Point],
    band: &[(f64, f64, f64)],
) -> Result<(Linear, Labelled, Linear, Labelled), PlotError> {
    let (mut xlo, mut xhi) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut ylo, mut yhi) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in points {
        xlo = xlo.min(p.x);
        xhi = xhi.max(p.x);
        ylo = ylo.min(p.record.yi);
        yhi = yhi.max(p.record.yi);
    }
    for &(_, lo, hi) in band {
        ylo = ylo.min(lo);
        yhi = yhi.max(hi);
    }
    let too_wide = |lo, hi| ScaleError::Span { lo, hi };
    let (px_pad, py_pad) = (0.03 * span(xlo, xhi)?, 0.03 * span(ylo, yhi)?);
    let x_ticks = fitting(xlo - px_pad, xhi + px_pad, PLOT_X1 - PLOT_X0, FONT)
        .map_err(|_| too_wide(xlo, xhi))?;
    let y_ticks =
        Labelled::plain(&nice(ylo - py_pad, yhi + py_pad, 6).map_err(|_| too_wide(ylo, yhi))?);
    let x = Linear::new(x_ticks.domain, (PLOT_X0, PLOT_X1))?;
    let y = Linear::new(y_ticks.domain, (PLOT_Y1, PLOT_Y0))?;
    Ok((x, x_ticks, y, y_ticks))
}

fn draw_band(
    w: &mut Writer,
    input: &BubbleInput,
    band: &[(f64, f64, f64)],
    x: &Linear,
    y: &Linear,
) -> Result<(), ScaleError> {
    let mut points = Vec::with_capacity(2 * band.len());
    for &(at, _, hi) in band {
        points.push(format!("{},{}", px(x.map(at)?), px(y.map(hi)?)));
    }
    for &(at, lo, _) in band.iter().rev() {
        points.push(format!("{},{}", px(x.map(at)?), px(y.map(lo)?)));
    }
    w.open("g", &[("class", "confidence-band")]);
    w.text(
        "title",
        &[],
        &format!(
            "{}% confidence band of the fitted line",
            fixed(100.0 * input.model.level, 0)
        ),
    );
    w.empty(
        "polygon",
        &[
            ("points", &points.join(" ")),
            ("fill", FILL),
            ("stroke", GREY),
            ("stroke-dasharray", "4 3"),
        ],
    );
    w.close("g");
    Ok(())
}

fn draw_line(
    w: &mut Writer,
    name: &str,
    (b0, b1): (f64, f64),
    (x_min, x_max): (f64, f64),
    x: &Linear,
    y: &Linear,
) -> Result<(), ScaleError> {
    w.open("g", &[("class", "fitted-line")]);
    w.text(
        "title",
        &[],
        &format!("Fitted line: yi = {}", line_text(b0, b1, &id_text(name))),
    );
    w.empty(
        "line",
        &[
            ("x1", &px(x.map(x_min)?)),
            ("y1", &px(y.map(b0 + b1 * x_min)?)),
            ("x2", &px(x.map(x_max)?)),
            ("y2", &px(y.map(b0 + b1 * x_max)?)),
            ("stroke", INK),
            ("stroke-width", "2"),
        ],
    );
    w.close("g");
    Ok(())
}

fn draw_point(
    w: &mut Writer,
    p: &Point,
    name: &str,
    x: &Linear,
    y: &Linear,
) -> Result<(), ScaleError> {
    let r = p.record;
    let ink = if p.excluded { GREY } else { INK };
    let note = match p.weight_percent {
        Some(percent) => format!(", weight {}%", fixed(percent, 1)),
        None => " (excluded)".to_string(),
    };
    w.open(
        "g",
        &[
            ("class", "point"),
            ("data-id", &r.id),
            ("data-excluded", if p.excluded { "true" } else { "false" }),
        ],
    );
    w.text(
        "title",
        &[],
        &format!(
            "{}: {} = {}, yi = {}{note}",
            id_text(&r.id),
            id_text(name),
            p.x,
            fixed(r.yi, 2)
        ),
    );
    let mut attrs = vec![
        ("cx", px(x.map(p.x)?)),
        ("cy", px(y.map(r.yi)?)),
        ("r", px(p.radius)),
        ("stroke", ink.to_string()),
    ];
    if p.excluded {
        attrs.push(("fill", "#ffffff".into()));
        attrs.push(("stroke-dasharray", "2 2".into()));
    } else {
        attrs.push(("fill", INK.into()));
        attrs.push(("fill-opacity", "0.35".into()));
    }
    let attrs: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    w.empty("circle", &attrs);
    w.close("g");
    Ok(())
}

/// "b0 + b1·name", with the sign of b1 written once ("0.19 − 0.02·weeks").
fn line_text(b0: f64, b1: f64, name: &str) -> String {
    let sign = if b1 < 0.0 { "−" } else { "+" };
    format!("{} {sign} {}·{}", fixed(b0, 4), fixed(b1.abs(), 4), name)
}

/// The model's numbers, written under the plot.
fn notes(input: &BubbleInput, name: &str, points: &[Point]) -> Vec<String> {
    let m = input.model;
    let slope = &m.coefficients[1];
    let test = match m.test {
        Test::Z => "z test",
        Test::Knha => "Knapp–Hartung test",
    };
    let qm = match m.qm_df2 {
        Some(df2) => format!("F({}, {df2}) = {}", m.qm_df, fixed(m.qm, 2)),
        None => format!("QM({}) = {}", m.qm_df, fixed(m.qm, 2)),
    };
    let mut notes = vec![
        format!(
            "Mixed-effects meta-regression ({}, {test}), k = {}: yi = {}",
            m.method.name(),
            m.k,
            line_text(m.coefficients[0].estimate, slope.estimate, &id_label(name, 24))
        ),
        format!(
            "Slope {} (SE {}), {}% CI [{}, {}], {}; {qm}, {}",
            fixed(slope.estimate, 4),
            fixed(slope.se, 4),
            fixed(100.0 * m.level, 0),
            fixed(slope.ci_lower, 4),
            fixed(slope.ci_upper, 4),
            p_text(slope.p),
            p_text(m.qm_p)
        ),
        format!(
            "Residual heterogeneity: QE({}) = {}, {}; τ² = {}, I² = {}%, R² = {}%",
            m.qe_df,
            fixed(m.qe, 2),
            p_text(m.qe_p),
            fixed(m.tau2, 4),
            fixed(m.i2, 1),
            fixed(m.r2, 1)
        ),
        "Points: area proportional to the weight 1/(vi + τ²); band: the fitted line's confidence interval.".into(),
    ];
    let excluded: Vec<String> = points
        .iter()
        .filter(|p| p.excluded)
        .map(|p| id_label(&p.record.id, 24))
        .collect();
    if !excluded.is_empty() {
        notes.push(format!(
            "Excluded from the model (hollow, grey): {}.",
            excluded.join(", ")
        ));
    }
    let missing = input.excluded.len() - excluded.len();
    if missing > 0 {
        notes.push(format!(
            "{missing} excluded record(s) without a value of {} are not drawn.",
            id_label(name, 24)
        ));
    }
    notes
}

fn description(input: &BubbleInput, name: &str, points: &[Point]) -> String {
    let m = input.model;
    let slope = &m.coefficients[1];
    format!(
        "Bubble plot of {} records: each record's effect yi against {}, the point's area \
         proportional to its weight in the model, with the fitted line yi = {} and its {}% \
         confidence band. Slope {}, SE {}, {}; τ² = {}, R² = {}%.",
        points.len(),
        id_text(name),
        line_text(m.coefficients[0].estimate, slope.estimate, &id_text(name)),
        fixed(100.0 * m.level, 0),
        fixed(slope.estimate, 4),
        fixed(slope.se, 4),
        p_text(slope.p),
        fixed(m.tau2, 4),
        fixed(m.r2, 1)
    )
}

#[allow(clippy::too_many_arguments)]
fn numbers(
    input: &BubbleInput,
    name: &str,
    points: &[Point],
    band: &[(f64, f64, f64)],
    (b0, b1): (f64, f64),
    (x_min, x_max): (f64, f64),
    x: &Linear,
    y: &Linear,
) -> Result<Value, ScaleError> {
    let m = input.model;
    let points = points
        .iter()
        .map(|p| {
            Ok(json!({
                "id": p.record.id,
                "x": p.x,
                "yi": p.record.yi,
                "vi": p.record.vi,
                "excluded": p.excluded,
                "weight_percent": p.weight_percent,
                "px": {"cx": px_value(x.map(p.x)?), "cy": px_value(y.map(p.record.yi)?), "r": px_value(p.radius)},
            }))
        })
        .collect::<Result<Vec<Value>, ScaleError>>()?;
    let band = band
        .iter()
        .map(|&(at, lo, hi)| json!({"x": at, "ci_lower": lo, "ci_upper": hi}))
        .collect::<Vec<Value>>();
    let slope = &m.coefficients[1];
    Ok(json!({
        "plot": "bubble",
        "moderator": name,
        "level": m.level,
        "points": points,
        "line": {
            "intercept": b0,
            "slope": b1,
            "from": {"x": x_min, "y": b0 + b1 * x_min, "px": [px_value(x.map(x_min)?), px_value(y.map(b0 + b1 * x_min)?)]},
            "to": {"x": x_max, "y": b0 + b1 * x_max, "px": [px_value(x.map(x_max)?), px_value(y.map(b0 + b1 * x_max)?)]},
        },
        "band": band,
        "model": {
            "method": m.method.name(),
            "test": m.test.name(),
            "k": m.k,
            "slope": slope.estimate,
            "slope_se": slope.se,
            "slope_p": slope.p,
            "qm": m.qm,
            "qm_df": m.qm_df,
            "qm_p": m.qm_p,
            "qe": m.qe,
            "qe_df": m.qe_df,
            "qe_p": m.qe_p,
            "tau2": m.tau2,
            "i2": m.i2,
            "r2": m.r2,
        },
        "excluded": input.excluded,
    }))
}
