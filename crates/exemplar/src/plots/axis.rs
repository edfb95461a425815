//! Axes: a baseline, tick marks, tick labels and a title.

use super::scale::{Labelled, Linear, ScaleError};
use super::svg::{px, Writer};
use super::INK;
use serde_json::{json, Value};

const TICK: f64 = 5.0;

/// A horizontal axis along `y`, ticks pointing down, each labelled as `ticks` says (e.g. a
/// ratio under its log).
pub(super) fn bottom(
    w: &mut Writer,
    scale: &Linear,
    ticks: &Labelled,
    y: f64,
    title: &str,
) -> Result<(), ScaleError> {
    bottom_over(w, scale, ticks, (y, scale.range), title)
}

/// [`bottom`] with its line from `r0` to `r1` (pixels) rather than over the scale's range:
/// a forest's axis runs over `alim`, inside a plot area that may span more (`xlim`).
pub(super) fn bottom_over(
    w: &mut Writer,
    scale: &Linear,
    ticks: &Labelled,
    (y, (r0, r1)): (f64, (f64, f64)),
    title: &str,
) -> Result<(), ScaleError> {
    w.open("g", &[("class", "axis x-axis")]);
    line(w, (r0, y), (r1, y));
    for (&v, label) in ticks.values.iter().zip(&ticks.labels) {
        let x = scale.map(v)?;
        line(w, (x, y), (x, y + TICK));
        w.text(
            "text",
            &[
                ("x", &px(x)),
                ("y", &px(y + TICK + 12.0)),
                ("text-anchor", "middle"),
            ],
            label,
        );
    }
    w.text(
        "text",
        &[
            ("class", "axis-title"),
            ("x", &px((r0 + r1) / 2.0)),
            ("y", &px(y + TICK + 29.0)),
            ("text-anchor", "middle"),
        ],
        title,
    );
    w.close("g");
    Ok(())
}

/// A vertical axis along `x`, ticks pointing left, title turned a quarter left.
pub(super) fn left(
    w: &mut Writer,
    scale: &Linear,
    ticks: &Labelled,
    x: f64,
    title: &str,
) -> Result<(), ScaleError> {
    let (r0, r1) = scale.range;
    w.open("g", &[("class", "axis y-axis")]);
    line(w, (x, r0), (x, r1));
    for (&v, label) in ticks.values.iter().zip(&ticks.labels) {
        let y = scale.map(v)?;
        line(w, (x - TICK, y), (x, y));
        w.text(
            "text",
            &[
                ("x", &px(x - TICK - 3.0)),
                ("y", &px(y + 4.0)),
                ("text-anchor", "end"),
            ],
            label,
        );
    }
    let (tx, ty) = (x - 44.0, (r0 + r1) / 2.0);
    let rotate = format!("rotate(-90 {} {})", px(tx), px(ty));
    w.text(
        "text",
        &[
            ("class", "axis-title"),
            ("x", &px(tx)),
            ("y", &px(ty)),
            ("text-anchor", "middle"),
            ("transform", &rotate),
        ],
        title,
    );
    w.close("g");
    Ok(())
}

/// An axis in the plot's numbers: its domain, its pixel range, the values of its ticks (on
/// the axis' scale) and their labels (on the scale the reader reads).
pub(super) fn numbers(scale: &Linear, ticks: &Labelled) -> Value {
    json!({
        "domain": [scale.domain.0, scale.domain.1],
        "range": [scale.range.0, scale.range.1],
        "ticks": ticks.values,
        "tick_labels": ticks.labels,
    })
}

fn line(w: &mut Writer, (x1, y1): (f64, f64), (x2, y2): (f64, f64)) {
    w.empty(
        "line",
        &[
            ("x1", &px(x1)),
            ("y1", &px(y1)),
            ("x2", &px(x2)),
            ("y2", &px(y2)),
            ("stroke", INK),
        ],
    );
}
