//! The forest plot: one row per record, the pooled diamond and the prediction interval;
//! optionally the records grouped by a text column, with a diamond per subgroup and the
//! tests for subgroup differences in the footer.
//!
//! [`forest`] reads top to bottom as the plot does: the inputs checked (`Checked`), the
//! lines laid out, the rows, the x axis, what goes below the rows (`Below`); then the
//! numbers, the words (`text`) and the drawing. The pooled fit (`pooled`) and the subgroups
//! (`subgroups`) each have their own module; what the forest plot shares with the cumulative
//! one (columns, rows, the axis and its line of no effect) is in `plots::rows`.

mod numbers;
mod pooled;
mod subgroups;
mod text;

use super::document::{self, NOTE_LINE};
use super::rows::{self, interval_text, percent, row_y, shown, Columns, Paint, RowMarks};
use super::scale::{Linear, ScaleError, Ticks};
use super::svg::{fixed, px, Writer};
use super::{id_label, id_text, included_weights, validate, PlotError, PlotOutput, GREY, INK};
use meta_analysis::{record_intervals, Fit, Record, SubgroupAnalysis, Transform};
use pooled::Pooled;
use serde_json::{json, Value};

/// The most records a forest plot draws (one 18-pixel row each).
pub const MAX_FOREST_RECORDS: usize = 2000;

/// What a forest plot shows.
#[derive(Debug, Clone, Copy)]
pub struct ForestInput<'a> {
    /// All records, in the order the rows are drawn (excluded ones included).
    pub records: &'a [Record],
    /// Ids of records left out of the fit: drawn grey, dashed and hollow, labelled
    /// "(excluded)", without a weight, and named in a note.
    pub excluded: &'a [String],
    /// The fit of the records not excluded; `None` draws the records only (no weights, no
    /// diamond), as before any analysis has been asked for.
    pub fit: Option<&'a Fit>,
    pub title: &'a str,
    /// The effect measure, written under the x axis (e.g. "Standardized mean difference").
    pub x_label: &'a str,
    /// Each record's label, in record order (e.g. author and year); `None` labels the rows
    /// by id. The id stays in the row's `data-id` and tooltip.
    pub labels: Option<&'a [String]>,
    /// The back-transformation of the numbers written (tick labels, estimates and
    /// intervals), as metafor's `atransf`: positions stay on the fitted scale (a log axis for
    /// ratios), the text is on the natural scale. [`Transform::None`] writes yi's scale.
    pub transform: Transform,
    /// Rows grouped by a text column, with the subgroup analysis of the records not
    /// excluded (needs `fit`).
    pub groups: Option<ForestGroups<'a>>,
}

/// Rows grouped by a text column.
#[derive(Debug, Clone, Copy)]
pub struct ForestGroups<'a> {
    /// The column's name.
    pub by: &'a str,
    /// Each record's level, in record order (excluded records included).
    pub record_levels: &'a [String],
    /// The subgroup analysis of the records not excluded (levels sorted).
    pub analysis: &'a SubgroupAnalysis,
}

/// What occupies one line of the plot, top to bottom.
enum Line<'a> {
    /// A level's heading.
    Heading(&'a str),
    /// A record's row (its index in `rows`).
    Record(usize),
    /// A level's subgroup diamond (its index among the analysis' groups).
    Subgroup(usize),
}

const WIDTH: f64 = 720.0;
const COLUMNS: Columns = Columns {
    plot: (230.0, 490.0),
    estimate_x: 640.0,
    // The weight.
    last_x: 708.0,
};
/// Side of the square of the record with the largest weight; others scale by area.
const MAX_SIDE: f64 = 14.0;
const MIN_SIDE: f64 = 4.0;
/// Side of every square when there is no fit (and so no weights).
const PLAIN_SIDE: f64 = 7.0;
const DIAMOND_HALF_HEIGHT: f64 = 7.0;
const LABEL_CHARS: usize = 30;

struct Row<'r> {
    record: &'r Record,
    label: &'r str,
    excluded: bool,
    ci: (f64, f64),
    weight_percent: Option<f64>,
    side: f64,
    y: f64,
}

/// Draws a forest plot. The per-record intervals are the engine's
/// ([`meta_analysis::record_intervals`]): yᵢ ± z·√vᵢ at the fit's level (95% without a fit);
/// weights are the engine's ([`meta_analysis::record_weights`]): wᵢ = 1/(vᵢ + τ̂²) as a
/// percentage of their sum over the records not excluded.
pub fn forest(input: &ForestInput) -> Result<PlotOutput, PlotError> {
    let checked = Checked::of(input)?;
    let lines = layout(input, checked.groups.as_ref());
    let places = Places::of(&lines, input.records.len());
    let rows = rows(input, &checked, &places.record_y);
    let (ticks, x) = COLUMNS.x_axis(extent(&rows, &checked))?;
    let below = Below::rows(row_y(lines.len() - 1), checked.pooled.as_ref());
    let notes = text::notes(input, &checked);
    let plot = Plot {
        checked,
        rows,
        places,
        ticks,
        x,
        below,
        notes,
    };
    let numbers = plot.numbers(input)?;
    plot.draw(input, numbers)
}

/// The inputs, checked for drawing (in this order, so the first problem is the one named):
/// the records and exclusions, the fit, the records' intervals and weights, the groups.
struct Checked<'a> {
    is_excluded: Vec<bool>,
    pooled: Option<Pooled<'a>>,
    /// The fit's confidence level (95% without a fit).
    level: f64,
    intervals: Vec<(f64, f64)>,
    /// Each record's weight in the fit as (percent, relative to the largest); `None` when
    /// excluded or without a fit.
    weights: Vec<Option<(f64, f64)>>,
    groups: Option<ForestGroups<'a>>,
}

impl<'a> Checked<'a> {
    fn of(input: &ForestInput<'a>) -> Result<Self, PlotError> {
        let is_excluded = validate(input.records, input.excluded, "forest", MAX_FOREST_RECORDS)?;
        let included = is_excluded.iter().filter(|e| !**e).count();
        let pooled = match input.fit {
            Some(fit) => Some(Pooled::of(fit, included)?),
            None => None,
        };
        let level = input.fit.map_or(0.95, |f| f.level);
        let intervals = record_intervals(input.records, level).map_err(PlotError::Intervals)?;
        let weights = match &pooled {
            Some(p) => included_weights(input.records, &is_excluded, p.fit.tau2)?,
            None => vec![None; input.records.len()],
        };
        let groups = match &input.groups {
            Some(g) if pooled.is_some() => Some(subgroups::check(g, input.records.len())?),
            Some(_) => return Err(PlotError::GroupsWithoutFit),
            None => None,
        };
        Ok(Checked {
            is_excluded,
            pooled,
            level,
            intervals,
            weights,
            groups,
        })
    }
}

/// The lines top to bottom: without groups, one per record; with groups, per level (sorted)
/// a heading, its records in record order and its subgroup diamond (when the level has
/// records in the fit).
fn layout<'a>(input: &ForestInput<'a>, groups: Option<&ForestGroups<'a>>) -> Vec<Line<'a>> {
    let Some(g) = groups else {
        return (0..input.records.len()).map(Line::Record).collect();
    };
    let levels = meta_analysis::levels_of(g.record_levels);
    let mut lines = Vec::new();
    for level in levels {
        let level: &'a str = g
            .record_levels
            .iter()
            .find(|l| **l == level)
            .map(String::as_str)
            .expect("a level of the records");
        lines.push(Line::Heading(level));
        lines.extend(
            g.record_levels
                .iter()
                .enumerate()
                .filter(|(_, l)| l.as_str() == level)
                .map(|(i, _)| Line::Record(i)),
        );
        if let Some(index) = g.analysis.groups.iter().position(|s| s.level == level) {
            lines.push(Line::Subgroup(index));
        }
    }
    lines
}

/// Where the lines sit: each record's row, each level's heading and subgroup diamond.
struct Places<'a> {
    /// Per record, in record order.
    record_y: Vec<f64>,
    /// (level, y) top to bottom.
    headings: Vec<(&'a str, f64)>,
    /// (index among the analysis' groups, y) top to bottom.
    subgroups: Vec<(usize, f64)>,
}

impl<'a> Places<'a> {
    fn of(lines: &[Line<'a>], records: usize) -> Self {
        let mut places = Places {
            record_y: vec![0.0; records],
            headings: Vec::new(),
            subgroups: Vec::new(),
        };
        for (n, line) in lines.iter().enumerate() {
            let y = row_y(n);
            match line {
                Line::Record(i) => places.record_y[*i] = y,
                Line::Subgroup(g) => places.subgroups.push((*g, y)),
                Line::Heading(level) => places.headings.push((*level, y)),
            }
        }
        places
    }
}

/// The records' rows, in record order, with their labels, intervals and weights.
fn rows<'a>(input: &ForestInput<'a>, checked: &Checked, record_y: &[f64]) -> Vec<Row<'a>> {
    input
        .records
        .iter()
        .zip(&checked.is_excluded)
        .enumerate()
        .map(|(i, (record, &excluded))| {
            let w = checked.weights[i];
            Row {
                record,
                label: input
                    .labels
                    .and_then(|labels| labels.get(i))
                    .map_or(record.id.as_str(), String::as_str),
                excluded,
                ci: checked.intervals[i],
                weight_percent: w.map(|(percent, _)| percent),
                side: w.map_or(PLAIN_SIDE, |(_, relative)| {
                    (MAX_SIDE * relative.sqrt()).max(MIN_SIDE)
                }),
                y: record_y[i],
            }
        })
        .collect()
}

/// Every interval the x axis covers: the rows', the pooled confidence and prediction
/// intervals, the subgroups'.
fn extent(rows: &[Row], checked: &Checked) -> Vec<(f64, f64)> {
    let mut intervals: Vec<(f64, f64)> = rows.iter().map(|row| row.ci).collect();
    if let Some(p) = &checked.pooled {
        intervals.push((p.fit.ci_lower, p.fit.ci_upper));
        intervals.push((p.fit.pi_lower, p.fit.pi_upper));
    }
    if let Some(g) = &checked.groups {
        intervals.extend(
            g.analysis
                .groups
                .iter()
                .map(|s| (s.fit.ci_lower, s.fit.ci_upper)),
        );
    }
    intervals
}

/// What sits below the rows, top to bottom: the rule over the pooled result, its diamond,
/// its prediction interval (random effects only), the axis.
struct Below {
    separator_y: f64,
    diamond_y: f64,
    pi_y: f64,
    axis_y: f64,
}

impl Below {
    /// Below the last line at `last_y`; without a fit, the axis follows the rows.
    fn rows(last_y: f64, pooled: Option<&Pooled>) -> Self {
        let separator_y = last_y + 12.0;
        let diamond_y = separator_y + 16.0;
        let pi_y = diamond_y + rows::ROW_HEIGHT;
        let axis_y = match pooled {
            Some(p) if p.shows_pi() => pi_y + 14.0,
            Some(_) => diamond_y + 14.0,
            None => separator_y,
        };
        Below {
            separator_y,
            diamond_y,
            pi_y,
            axis_y,
        }
    }
}

/// Everything laid out, ready for its numbers and its drawing.
struct Plot<'a> {
    checked: Checked<'a>,
    rows: Vec<Row<'a>>,
    places: Places<'a>,
    ticks: Ticks,
    x: Linear,
    below: Below,
    notes: Vec<String>,
}

impl Plot<'_> {
    fn notes_y(&self) -> f64 {
        document::notes_top(self.below.axis_y)
    }

    fn height(&self) -> f64 {
        self.notes_y() + (self.notes.len() as f64 - 1.0).max(0.0) * NOTE_LINE + 14.0
    }

    /// The values drawn and their positions; the scale of the text (positions are always on
    /// yi's scale); the subgroups.
    fn numbers(&self, input: &ForestInput) -> Result<Value, PlotError> {
        let c = &self.checked;
        let mut numbers = numbers::numbers(
            &self.rows,
            &c.pooled,
            &self.x,
            &self.ticks.values,
            c.level,
            input.excluded,
        )?;
        numbers["transform"] = json!(input.transform.name());
        if let Some(g) = &c.groups {
            subgroups::numbers(&mut numbers, g, &self.places.subgroups, &self.x)?;
        }
        Ok(numbers)
    }

    fn draw(&self, input: &ForestInput, numbers: Value) -> Result<PlotOutput, PlotError> {
        let (t, level, x) = (input.transform, self.checked.level, &self.x);
        let mut w = Writer::default();
        let desc = text::description(input, &self.rows, &self.checked);
        document::open(
            &mut w,
            "forest",
            (WIDTH, self.height()),
            input.title,
            &desc,
            &numbers,
        );
        COLUMNS.header(&mut w, "Record", "Weight", level);
        COLUMNS.open_plot_area(&mut w, x, self.below.axis_y)?;
        for row in &self.rows {
            draw_row(&mut w, t, row, x, level)?;
        }
        if let Some(g) = &self.checked.groups {
            subgroups::draw_headings(&mut w, g, &self.places.headings);
            for &(index, y) in &self.places.subgroups {
                subgroups::draw(&mut w, t, g, &g.analysis.groups[index], x, y)?;
            }
        }
        if let Some(p) = &self.checked.pooled {
            COLUMNS.rule(&mut w, self.below.separator_y);
            p.draw(&mut w, t, x, &self.below, level)?;
        }
        w.close("g");
        rows::bottom_axis(&mut w, x, &self.ticks, self.below.axis_y, input.x_label, t)?;
        document::notes(&mut w, &self.notes, self.notes_y(), NOTE_LINE);
        Ok(document::finish(w, numbers))
    }
}

/// A record's row: its tooltip, then its marks (grey, dashed and hollow when excluded).
fn draw_row(
    w: &mut Writer,
    t: Transform,
    row: &Row,
    x: &Linear,
    level: f64,
) -> Result<(), ScaleError> {
    let r = row.record;
    let ink = if row.excluded { GREY } else { INK };
    let weight_text = row
        .weight_percent
        .map_or(String::new(), |p| format!("{}%", fixed(p, 1)));
    let note = if row.excluded {
        " (excluded)".to_string()
    } else if weight_text.is_empty() {
        String::new()
    } else {
        format!(", weight {weight_text}")
    };
    let value = match t {
        Transform::None => "yi".to_string(),
        t => format!("{}(yi)", t.name()),
    };
    let tooltip = format!(
        "{}: {value} = {}, {}% CI [{}, {}]{note}",
        id_text(&r.id),
        shown(t, r.yi),
        percent(level),
        shown(t, row.ci.0),
        shown(t, row.ci.1),
    );
    w.open(
        "g",
        &[
            ("class", "row"),
            ("data-id", &r.id),
            ("data-excluded", if row.excluded { "true" } else { "false" }),
            ("fill", ink),
        ],
    );
    w.text("title", &[], &tooltip);
    let label = if row.excluded {
        format!("{} (excluded)", id_label(row.label, LABEL_CHARS - 11))
    } else {
        id_label(row.label, LABEL_CHARS)
    };
    RowMarks {
        y: row.y,
        label: &label,
        estimate: r.yi,
        ci: row.ci,
        side: row.side,
        paint: if row.excluded {
            Paint::Hollow
        } else {
            Paint::Solid
        },
        estimate_text: &interval_text(t, r.yi, row.ci),
        last_text: if row.excluded { "–" } else { &weight_text },
    }
    .draw(w, &COLUMNS, x)?;
    w.close("g");
    Ok(())
}

/// A diamond from `lo` to `hi` across, `half` up and down from its centre (`mid`, `y`).
fn diamond(w: &mut Writer, (lo, mid, hi): (f64, f64, f64), y: f64, half: f64, fill: &str) {
    let points = format!(
        "{},{} {},{} {},{} {},{}",
        px(lo),
        px(y),
        px(mid),
        px(y - half),
        px(hi),
        px(y),
        px(mid),
        px(y + half)
    );
    w.empty(
        "polygon",
        &[("class", "diamond"), ("points", &points), ("fill", fill)],
    );
}
