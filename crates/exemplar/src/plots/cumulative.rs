//! The cumulative forest plot: one row per step of a cumulative meta-analysis, the pooled
//! estimate and its confidence interval after each record is added.

use super::document::{self, text_width, NOTE_LINE};
use super::rows::{
    estimate_heading, interval_text, percent, row_y, shown, Columns, Paint, RowMarks, ROW_FONT,
};
use super::scale::{Labelled, Linear, ScaleError};
use super::svg::{fixed, px_value, Writer};
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
    /// The line under the title (what was fitted, on which data).
    pub subtitle: Option<&'a str>,
    /// The measure's short name for the estimate column's heading (e.g. "RR").
    pub measure: Option<&'a str>,
    /// The effect measure, written under the x axis.
    pub x_label: &'a str,
    /// The back-transformation of the numbers written (tick labels, estimates, intervals),
    /// as in the forest plot: positions stay on yi's scale.
    pub transform: Transform,
}

/// Drawn for a phone, as the forest plot: 390 wide, text of 11 px.
const WIDTH: f64 = 390.0;
const GAP: f64 = 10.0;
const SIDE: f64 = 7.0;
const LABEL_CHARS: usize = 14;

/// The columns: the label ("+ " and up to [`LABEL_CHARS`] of the id), the plot, the estimate
/// (as wide as its longest text) and k.
fn columns(input: &CumulativeInput, heading: &str) -> Columns {
    let t = input.transform;
    let estimate = input
        .steps
        .iter()
        .map(|s| {
            text_width(
                &interval_text(t, s.estimate, (s.ci_lower, s.ci_upper)),
                ROW_FONT,
                false,
            )
        })
        .fold(text_width(heading, ROW_FONT, true), f64::max);
    let label = input
        .steps
        .iter()
        .map(|s| {
            text_width(
                &format!("+ {}", id_label(&s.added, LABEL_CHARS)),
                ROW_FONT,
                false,
            )
        })
        .fold(text_width("Record added", ROW_FONT, true), f64::max);
    let last_x = WIDTH - GAP;
    let k = text_width(&input.steps.len().to_string(), ROW_FONT, false)
        .max(text_width("k", ROW_FONT, true));
    let estimate_x = last_x - k - GAP;
    Columns {
        plot: (document::LEFT + label + GAP, estimate_x - estimate - GAP),
        estimate_x,
        last_x,
    }
}

/// Draws a cumulative forest plot: row k is the estimate and confidence interval of the
/// first k records, labelled with the record added at that step.
pub fn cumulative(input: &CumulativeInput) -> Result<PlotOutput, PlotError> {
    check(input.steps)?;
    let heading = estimate_heading(input.measure, input.level);
    let columns = columns(input, &heading);
    let (ticks, x) = columns.x_axis(
        input.steps.iter().map(|s| (s.ci_lower, s.ci_upper)),
        input.transform,
    )?;
    let axis_y = row_y(input.steps.len() - 1) + 14.0;
    let notes = document::wrap_notes(&notes(input), WIDTH);
    let notes_y = document::notes_top(axis_y);
    let height = notes_y + (notes.len() as f64 - 1.0) * NOTE_LINE + 14.0;
    let numbers = numbers(input, &x, &ticks)?;

    let mut w = Writer::default();
    document::open(
        &mut w,
        "cumulative",
        (WIDTH, height),
        input.title,
        &description(input),
        &numbers,
    );
    if let Some(subtitle) = input.subtitle {
        document::subtitle(&mut w, subtitle);
    }
    w.open("g", &[("font-size", &fixed(ROW_FONT, 0))]);
    columns.header(&mut w, "Record added", &heading, "k", &[]);
    columns.open_plot_area(&mut w, &x, axis_y, Some(0.0))?;
    for (i, step) in input.steps.iter().enumerate() {
        draw_row(&mut w, input, step, row_y(i), &x, &columns)?;
    }
    w.close("g");
    axis::bottom(&mut w, &x, &ticks, axis_y, input.x_label)?;
    document::notes(&mut w, &notes, notes_y, NOTE_LINE);
    w.close("g");
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
fn notes(input: &CumulativeInput) -> Vec<String> {
    [
        format!(
            "{}; {}% confidence intervals.",
            input.model,
            percent(input.level)
        ),
        format!("Row k pools the first k records, added {}.", input.order),
        "The last row is the fit of all records.".to_string(),
    ]
    .to_vec()
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
    columns: &Columns,
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
        label: &[format!("+ {}", id_label(&s.added, LABEL_CHARS))],
        estimate: s.estimate,
        ci: (s.ci_lower, s.ci_upper),
        side: SIDE,
        paint: Paint::Inherit,
        estimate_text: &interval,
        last_text: &k,
        clip: None,
    }
    .draw(w, columns, x)?;
    w.close("g");
    Ok(())
}

fn numbers(input: &CumulativeInput, x: &Linear, ticks: &Labelled) -> Result<Value, ScaleError> {
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
