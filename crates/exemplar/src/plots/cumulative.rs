//! The cumulative forest plot: one row per step of a cumulative meta-analysis, the pooled
//! estimate and its confidence interval after each record is added.

use super::scale::{nice, Linear, ScaleError};
use super::svg::{fixed, px, px_value, Writer};
use super::{axis, finite, id_label, id_text, open_document, PlotError, PlotOutput, GREY, INK};
use meta_analysis::{CumulativeStep, Transform};
use serde_json::{json, Value};

/// The most steps a cumulative forest plot draws (one 18-pixel row each).
pub const MAX_CUMULATIVE_ROWS: usize = 2000;

/// What a cumulative forest plot shows.
#[derive(Debug, Clone, Copy)]
pub struct CumulativeInput<'a> {
    /// The steps, in the order the records were added.
    pub steps: &'a [CumulativeStep],
    /// Confidence level of the intervals.
    pub level: f64,
    /// The model, for the note under the axis (e.g. "Random-effects model (REML), z test").
    pub model: &'a str,
    /// How the records were ordered (e.g. "in order of year, ascending").
    pub order: &'a str,
    pub title: &'a str,
    /// The effect measure, written under the x axis.
    pub x_label: &'a str,
    /// The back-transformation of the numbers written (tick labels, estimates, intervals),
    /// as in the forest plot: positions stay on yi's scale.
    pub transform: Transform,
}

const WIDTH: f64 = 640.0;
const LABEL_X: f64 = 12.0;
const PLOT_X0: f64 = 170.0;
const PLOT_X1: f64 = 430.0;
const ESTIMATE_X: f64 = 600.0;
const K_X: f64 = 628.0;
const HEADER_Y: f64 = 54.0;
const FIRST_ROW_Y: f64 = 76.0;
const ROW_HEIGHT: f64 = 18.0;
const SIDE: f64 = 7.0;
const LABEL_CHARS: usize = 20;

/// Draws a cumulative forest plot: row k is the estimate and confidence interval of the
/// first k records, labelled with the record added at that step.
pub fn cumulative(input: &CumulativeInput) -> Result<PlotOutput, PlotError> {
    if input.steps.is_empty() {
        return Err(PlotError::NoRecords);
    }
    if input.steps.len() > MAX_CUMULATIVE_ROWS {
        return Err(PlotError::TooManyRecords {
            plot: "cumulative forest",
            max: MAX_CUMULATIVE_ROWS,
            got: input.steps.len(),
        });
    }
    let mut lo = 0.0f64;
    let mut hi = 0.0f64;
    for s in input.steps {
        finite(s.estimate, "a cumulative estimate")?;
        finite(s.ci_lower, "a cumulative confidence limit")?;
        finite(s.ci_upper, "a cumulative confidence limit")?;
        lo = lo.min(s.ci_lower);
        hi = hi.max(s.ci_upper);
    }
    let ticks = nice(lo, hi, 5)?;
    let domain = ticks.domain();
    let x = Linear::new(domain, (PLOT_X0, PLOT_X1))?;
    let axis_y = FIRST_ROW_Y + (input.steps.len() as f64 - 1.0) * ROW_HEIGHT + 14.0;
    let notes = [
        format!(
            "{}; {}% confidence intervals.",
            input.model,
            percent(input.level)
        ),
        format!("Row k pools the first k records, added {}.", input.order),
        "The last row is the fit of all records.".to_string(),
    ];
    let notes_y = axis_y + 58.0;
    let height = notes_y + (notes.len() as f64 - 1.0) * 15.0 + 14.0;
    let numbers = numbers(input, &x, &ticks.values)?;
    let last = &input.steps[input.steps.len() - 1];
    let desc = format!(
        "Cumulative forest plot of {} steps: after each record is added, the pooled estimate \
         with its {}% confidence interval. After all {} records: {}, CI {} to {}.",
        input.steps.len(),
        percent(input.level),
        last.k,
        shown(input.transform, last.estimate),
        shown(input.transform, last.ci_lower),
        shown(input.transform, last.ci_upper)
    );

    let mut w = Writer::default();
    open_document(
        &mut w,
        "cumulative",
        (WIDTH, height),
        input.title,
        &desc,
        &numbers,
    );
    w.text(
        "text",
        &[
            ("class", "plot-title"),
            ("x", &px(LABEL_X)),
            ("y", "24.00"),
            ("font-size", "15"),
            ("font-weight", "bold"),
        ],
        input.title,
    );
    header(&mut w, input.level);
    w.open(
        "g",
        &[
            ("class", "plot-area"),
            ("data-x-domain", &format!("{} {}", domain.0, domain.1)),
            ("data-x-range", &format!("{} {}", px(PLOT_X0), px(PLOT_X1))),
        ],
    );
    if domain.0 < 0.0 && domain.1 > 0.0 {
        w.empty(
            "line",
            &[
                ("class", "null-line"),
                ("x1", &px(x.map(0.0)?)),
                ("y1", &px(HEADER_Y + 8.0)),
                ("x2", &px(x.map(0.0)?)),
                ("y2", &px(axis_y)),
                ("stroke", GREY),
                ("stroke-dasharray", "2 3"),
            ],
        );
    }
    for (i, step) in input.steps.iter().enumerate() {
        draw_row(
            &mut w,
            input.transform,
            step,
            FIRST_ROW_Y + i as f64 * ROW_HEIGHT,
            &x,
            input.level,
        )?;
    }
    w.close("g");
    let t = input.transform;
    axis::bottom_labelled(&mut w, &x, &ticks, axis_y, input.x_label, |v| {
        if t == Transform::None {
            ticks.label(v)
        } else {
            shown(t, v)
        }
    })?;
    w.open("g", &[("class", "notes"), ("font-size", "11")]);
    for (i, note) in notes.iter().enumerate() {
        w.text(
            "text",
            &[("x", &px(LABEL_X)), ("y", &px(notes_y + i as f64 * 15.0))],
            note,
        );
    }
    w.close("g");
    w.close("svg");
    Ok(PlotOutput {
        svg: w.finish(),
        numbers,
    })
}

fn percent(level: f64) -> String {
    let p = 100.0 * level;
    if (p - p.round()).abs() < 1e-9 {
        fixed(p, 0)
    } else {
        fixed(p, 1)
    }
}

/// "estimate [lo, hi]" on the natural scale of `t`, two decimals.
fn interval_text(t: Transform, s: &CumulativeStep) -> String {
    format!(
        "{} [{}, {}]",
        shown(t, s.estimate),
        shown(t, s.ci_lower),
        shown(t, s.ci_upper)
    )
}

/// `v` on the natural scale of `t`, two decimals.
fn shown(t: Transform, v: f64) -> String {
    fixed(t.apply(v), 2)
}

fn header(w: &mut Writer, level: f64) {
    w.open("g", &[("class", "header"), ("font-weight", "bold")]);
    w.text(
        "text",
        &[("x", &px(LABEL_X)), ("y", &px(HEADER_Y))],
        "Record added",
    );
    w.text(
        "text",
        &[
            ("x", &px(ESTIMATE_X)),
            ("y", &px(HEADER_Y)),
            ("text-anchor", "end"),
        ],
        &format!("Estimate [{}% CI]", percent(level)),
    );
    w.text(
        "text",
        &[
            ("x", &px(K_X)),
            ("y", &px(HEADER_Y)),
            ("text-anchor", "end"),
        ],
        "k",
    );
    w.close("g");
    w.empty(
        "line",
        &[
            ("x1", &px(LABEL_X)),
            ("y1", &px(HEADER_Y + 7.0)),
            ("x2", &px(K_X)),
            ("y2", &px(HEADER_Y + 7.0)),
            ("stroke", INK),
            ("stroke-width", "0.5"),
        ],
    );
}

fn draw_row(
    w: &mut Writer,
    t: Transform,
    s: &CumulativeStep,
    y: f64,
    x: &Linear,
    level: f64,
) -> Result<(), ScaleError> {
    let k = s.k.to_string();
    w.open(
        "g",
        &[
            ("class", "row"),
            ("data-id", &s.added),
            ("data-k", &k),
            ("fill", INK),
        ],
    );
    w.text(
        "title",
        &[],
        &format!(
            "After adding {} (k = {}): {}% CI {}",
            id_text(&s.added),
            s.k,
            percent(level),
            interval_text(t, s)
        ),
    );
    let text_y = px(y + 4.0);
    w.text(
        "text",
        &[("x", &px(LABEL_X)), ("y", &text_y)],
        &format!("+ {}", id_label(&s.added, LABEL_CHARS)),
    );
    let cy = px(y);
    w.empty(
        "line",
        &[
            ("class", "ci"),
            ("x1", &px(x.map(s.ci_lower)?)),
            ("y1", &cy),
            ("x2", &px(x.map(s.ci_upper)?)),
            ("y2", &cy),
            ("stroke", INK),
        ],
    );
    w.empty(
        "rect",
        &[
            ("class", "point"),
            ("x", &px(x.map(s.estimate)? - SIDE / 2.0)),
            ("y", &px(y - SIDE / 2.0)),
            ("width", &px(SIDE)),
            ("height", &px(SIDE)),
        ],
    );
    w.text(
        "text",
        &[
            ("x", &px(ESTIMATE_X)),
            ("y", &text_y),
            ("text-anchor", "end"),
        ],
        &interval_text(t, s),
    );
    w.text(
        "text",
        &[("x", &px(K_X)), ("y", &text_y), ("text-anchor", "end")],
        &k,
    );
    w.close("g");
    Ok(())
}

fn numbers(input: &CumulativeInput, x: &Linear, ticks: &[f64]) -> Result<Value, ScaleError> {
    let at = |v: f64| x.map(v).map(px_value);
    let rows = input
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            Ok(json!({
                "added": s.added,
                "k": s.k,
                "estimate": s.estimate,
                "ci_lower": s.ci_lower,
                "ci_upper": s.ci_upper,
                "x": at(s.estimate)?,
                "x_lower": at(s.ci_lower)?,
                "x_upper": at(s.ci_upper)?,
                "y": px_value(FIRST_ROW_Y + i as f64 * ROW_HEIGHT),
            }))
        })
        .collect::<Result<Vec<Value>, ScaleError>>()?;
    Ok(json!({
        "plot": "cumulative forest",
        "level": input.level,
        "x_axis": {
            "domain": [x.domain.0, x.domain.1],
            "range": [x.range.0, x.range.1],
            "ticks": ticks,
        },
        "rows": rows,
    }))
}
