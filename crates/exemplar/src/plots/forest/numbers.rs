//! The numbers a forest plot draws: every value with its pixel position as written, so a
//! reader can check each mark against the data without parsing the SVG.

use super::pooled::Pooled;
use super::Row;
use crate::plots::axis;
use crate::plots::scale::{Labelled, Linear, ScaleError};
use crate::plots::svg::px_value;
use serde_json::{json, Value};

/// The rows, the pooled result and the axis; each position as drawn: an interval cut at the
/// axis' ends (`alim`) where it ends in an arrow, and null for an estimate beyond them.
pub(super) fn numbers(
    rows: &[Row],
    pooled: &Option<Pooled>,
    (x, alim): (&Linear, (f64, f64)),
    ticks: &Labelled,
    (level, shows_pi): (f64, bool),
    excluded: &[String],
) -> Result<Value, ScaleError> {
    let at = |v: f64| x.map(v.clamp(alim.0, alim.1)).map(px_value);
    let inside = |v: f64| -> Result<Option<f64>, ScaleError> {
        if (alim.0..=alim.1).contains(&v) {
            at(v).map(Some)
        } else {
            Ok(None)
        }
    };
    let rows = rows
        .iter()
        .map(|row| {
            Ok(json!({
                "id": row.record.id,
                "label": row.label,
                "yi": row.record.yi,
                "vi": row.record.vi,
                "ci_lower": row.ci.0,
                "ci_upper": row.ci.1,
                "excluded": row.excluded,
                "weight_percent": row.weight_percent,
                "y": px_value(row.y),
                "clipped": [row.ci.0 < alim.0, row.ci.1 > alim.1],
                "x": {
                    "yi": inside(row.record.yi)?,
                    "ci_lower": at(row.ci.0)?,
                    "ci_upper": at(row.ci.1)?,
                },
            }))
        })
        .collect::<Result<Vec<Value>, ScaleError>>()?;
    let pooled = pooled.as_ref().map(|p| {
        let f = p.fit;
        let mut v = json!({
            "model": p.long_name(),
            "method": f.method.name(),
            "k": f.k,
            "estimate": f.estimate,
            "ci_lower": f.ci_lower,
            "ci_upper": f.ci_upper,
            "tau2": f.tau2,
            "x": {
                "estimate": at(f.estimate)?,
                "ci_lower": at(f.ci_lower)?,
                "ci_upper": at(f.ci_upper)?,
            },
        });
        if shows_pi {
            v["pi_lower"] = json!(f.pi_lower);
            v["pi_upper"] = json!(f.pi_upper);
            v["x"]["pi_lower"] = json!(at(f.pi_lower)?);
            v["x"]["pi_upper"] = json!(at(f.pi_upper)?);
        }
        Ok(v)
    });
    let pooled = pooled.transpose()?;
    let mut x_axis = axis::numbers(x, ticks);
    x_axis["alim"] = json!([alim.0, alim.1]);
    Ok(json!({
        "plot": "forest",
        "level": level,
        "x_axis": x_axis,
        "rows": rows,
        "excluded": excluded,
        "pooled": pooled,
    }))
}
