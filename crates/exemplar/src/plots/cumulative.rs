//! The cumulative forest plot: one row per step of a cumulative meta-analysis, the pooled
//! estimate and its confidence interval after each record is added.

use super::document::{self, NOTE_LINE};
use super::rows::{self, interval_text, percent, row_y, shown, Columns, Paint, RowMarks};
use super::scale::{Linear, ScaleError};
use super::svg::{px_value, Writer};
use super::{axis, finite, id_label, id_text, PlotError, PlotOutput, INK};
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
const COLUMNS: Columns = Columns {
    plot: (170.0, 430.0),
    estimate_x: 600.0,
    // The number of records pooled.
    last_x: 628.0,
};
const SIDE: f64 = 7.0;
const LABEL_CHARS: usize = 20;

/// Draws a cumulative forest plot: row k is the estimate and confidence interval of the
/// first k records, labelled with the record added at that step.
pub fn cumulative(input: &CumulativeInput) -> Result<PlotOutput, PlotError> {
    check(input.steps)?;
    let (ticks, x) = COLUMNS.x_axis(input.steps.iter().map(|s| (s.ci_lower, s.ci_upper)))?;
    let axis_y = row_y(input.steps.len() - 1) + 14.0;
    let notes = notes(input);
    let notes_y = document::notes_top(axis_y);
    let height = notes_y + (notes.len() as f64 - 1.0) * NOTE_LINE + 14.0;
    let numbers = numbers(input, &x, &ticks.values)?;

    let mut w = Writer::default();
    document::open(
        &mut w,
        "cumulative",
        (WIDTH, height),
        input.title,
        &description(input),
        &numbers,
    );
    COLUMNS.header(&mut w, "Record added", "k", input.level);
    COLUMNS.open_plot_area(&mut w, &x, axis_y)?;
    for (i, step) in input.steps.iter().enumerate() {
        draw_row(&mut w, input, step, row_y(i), &x)?;
    }
    w.close("g");
    rows::bottom_axis(&mut w, &x, &ticks, axis_y, input.x_label, input.transform)?;
    document::notes(&mut w, &notes, notes_y, NOTE_LINE);
    Ok(document::finish(w, numbers))
}

/// Refuses no steps, more than the plot draws, and a number that is not finite.
fn check(steps: &[CumulativeStep]) -> Result<(), PlotError> {
    if steps.is_empty() {
        return Err(PlotError::NoRecords);
    }
    if steps.len() > MAX_CUMULATIVE_ROWS {
        return Err(PlotError::TooManyRecords {
            plot: "cumulative forest",
            max: MAX_CUMULATIVE_ROWS,
            got: steps.len(),
        });
    }
    for s in steps {
        finite(s.estimate, "a cumulative estimate")?;
        finite(s.ci_lower, "a cumulative confidence limit")?;
        finite(s.ci_upper, "a cumulative confidence limit")?;
    }
    Ok(())
}

/// The lines under the axis: the model, the order the records were added in.
fn notes(input: &CumulativeInput) -> [String; 3] {
    [
        format!(
            "{}; {}% confidence intervals.",
            input.model,
            percent(input.level)
        ),
        format!("Row k pools the first k records, added {}.", input.order),
        "The last row is the fit of all records.".to_string(),
    ]
}

fn description(input: &CumulativeInput) -> String {
    let last = &input.steps[input.steps.len() - 1];
    format!(
        "Cumulative forest plot of {} steps: after each record is added, the pooled estimate \
         with its {}% confidence interval. After all {} records: {}, CI {} to {}.",
        input.steps.len(),
        percent(input.level),
        last.k,
        shown(input.transform, last.estimate),
        shown(input.transform, last.ci_lower),
        shown(input.transform, last.ci_upper)
    )
}

fn draw_row(
    w: &mut Writer,
    input: &CumulativeInput,
    s: &CumulativeStep,
    y: f64,
    x: &Linear,
) -> Result<(), ScaleError> {
    let t = input.transform;
    let k = s.k.to_string();
    let interval = interval_text(t, s.estimate, (s.ci_lower, s.ci_upper));
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
            "After adding {} (k = {}): {}% CI {interval}",
            id_text(&s.added),
            s.k,
            percent(input.level),
        ),
    );
    RowMarks {
        y,
        label: &format!("+ {}", id_label(&s.added, LABEL_CHARS)),
        estimate: s.estimate,
        ci: (s.ci_lower, s.ci_upper),
        side: SIDE,
        paint: Paint::Inherit,
        estimate_text: &interval,
        last_text: &k,
    }
    .draw(w, &COLUMNS, x)?;
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
                "y": px_value(row_y(i)),
            }))
        })
        .collect::<Result<Vec<Value>, ScaleError>>()?;
    Ok(json!({
        "plot": "cumulative forest",
        "level": input.level,
        "x_axis": axis::numbers(x, ticks),
        "rows": rows,
    }))
}
