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
mod options;
mod pooled;
mod subgroups;
mod text;
mod ticks;

pub use options::{Clustered, Fitted, ForestOptions, Reference, Shade};

use super::document::{self, text_width, NOTE_LINE};
use super::rows::{
    self, estimate_heading, interval_text, percent, right_text, row_height, row_y, shown, Columns,
    Paint, RowMarks, ROW_FONT,
};
use super::scale::{Labelled, Linear, ScaleError};
use super::svg::{fixed, px, Writer};
use super::{
    finite, id_label, id_text, included_weights, validate, PlotError, PlotOutput, FILL, GREY, INK,
};
use crate::printable::LABEL_CHARS;
use meta_analysis::{record_intervals, Fit, Record, SubgroupAnalysis, Transform};
use pooled::Pooled;
use serde_json::{json, Value};

/// The most records a forest plot draws (one 18-pixel row each, more where a label wraps).
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
    /// The line under the title: what was fitted, on which data (e.g. "Random-effects model
    /// (REML), k = 13").
    pub subtitle: Option<&'a str>,
    /// The measure's short name for the estimate column's heading on the scale written (e.g.
    /// "RR" for "RR [95% CI]"); `None` heads it "Estimate [95% CI]".
    pub measure: Option<&'a str>,
    /// Record columns written beside the labels, headed by their names (metafor's `ilab`).
    pub ilab: &'a [IlabColumn],
    /// The rows' order, as record indices top to bottom (metafor's `order`); `None` keeps
    /// the records' order. With groups, each level's rows follow it.
    pub order: Option<&'a [usize]>,
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
    /// A meta-regression's fitted values, drawn instead of a pooled row (with `fit` `None`).
    pub fitted: Option<Fitted<'a>>,
    /// A multilevel model's clusters and weights (`fit` is then its pooled result).
    pub clustered: Option<Clustered<'a>>,
    /// forest()'s layout options.
    pub options: ForestOptions<'a>,
}

/// A column of text beside the rows: its heading and each record's value, in record order.
#[derive(Debug, Clone, PartialEq)]
pub struct IlabColumn {
    pub name: String,
    pub values: Vec<String>,
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

/// The width drawn for a phone: text of 11 px stays 11 px on a 390 px screen. A plot whose
/// columns need more (ilab columns beside long labels) grows wider.
const WIDTH: f64 = 390.0;
/// The room between two columns and at the right edge.
const GAP: f64 = 8.0;
/// Without ilab columns, at a phone's width: the width of the plot column the labels leave
/// room for, and the least it may shrink to (for a long word of a label) before the plot
/// grows wider than [`WIDTH`]; also how far the estimate column's heading may reach over
/// the plot column, which has no heading of its own.
const MIN_PLOT: f64 = 100.0;
const LEAST_PLOT: f64 = 80.0;
/// With ilab columns or a width given, the least share of the width the plot column keeps:
/// the columns share the rest.
const PLOT_SHARE: f64 = 1.0 / 3.0;
/// The most and the least characters of a line of a row label: a longer label wraps at its
/// spaces onto further lines, and only a word longer than a line is cut ("…").
const MAX_LABEL_CHARS: usize = 18;
const MIN_LABEL_CHARS: usize = 10;
/// The most lines a row label wraps onto; a label that needs more is cut ("…") at the end
/// of its last line.
const MAX_LABEL_LINES: usize = 4;
/// Side of the square of the record with the largest weight; others scale by area.
const MAX_SIDE: f64 = 14.0;
const MIN_SIDE: f64 = 4.0;
/// Side of every square when there is no fit (and so no weights).
const PLAIN_SIDE: f64 = 7.0;
const DIAMOND_HALF_HEIGHT: f64 = 7.0;
/// Half the height of a fitted value's polygon, and its grey (metafor's "gray").
const FITTED_HALF_HEIGHT: f64 = 5.0;
const FITTED: &str = "#bebebe";

struct Row<'r> {
    /// The record's index among the records.
    index: usize,
    record: &'r Record,
    label: &'r str,
    /// The label's lines as drawn (set once the label column's width is known).
    label_lines: Vec<String>,
    excluded: bool,
    ci: (f64, f64),
    weight_percent: Option<f64>,
    side: f64,
    /// The centre line of the row's first line (set once the rows' heights are known).
    y: f64,
}

/// Draws a forest plot. The per-record intervals are the engine's
/// ([`meta_analysis::record_intervals`]): yᵢ ± z·√vᵢ at the fit's level (95% without a fit);
/// weights are the engine's ([`meta_analysis::record_weights`]): wᵢ = 1/(vᵢ + τ̂²) as a
/// percentage of their sum over the records not excluded.
pub fn forest(input: &ForestInput) -> Result<PlotOutput, PlotError> {
    let checked = Checked::of(input)?;
    let lines = layout(input, checked.groups.as_ref());
    let mut rows = rows(input, &checked);
    let frame = Frame::of(input, &rows, &checked)?;
    for row in &mut rows {
        row.label_lines = label_lines(row, frame.label_chars);
    }
    let places = Places::of(&lines, &rows);
    for row in &mut rows {
        row.y = places.record_y[row.index];
    }
    let (ticks, x) = x_axis(input, &frame, extent(&rows, &checked))?;
    let below = Below::rows(places.last_y, checked.pooled.as_ref(), checked.shows_pi);
    let mut notes = text::notes(input, &checked);
    if checked.weights.iter().any(Option::is_some)
        && !frame.weights
        && input.options.showweights.is_none()
    {
        notes.push(
            "Weights: the squares' areas (their column gives way to the ilab columns).".into(),
        );
    }
    let notes = document::wrap_notes(&notes, frame.width);
    let plot = Plot {
        alim: ticks.domain,
        checked,
        rows,
        places,
        frame,
        ticks,
        x,
        below,
        notes,
    };
    let numbers = plot.numbers(input)?;
    plot.draw(input, numbers)
}

/// The axis ([`ticks::axis`]: `alim`, `at`, else chosen from `extent`) and the plot
/// column's scale, over `xlim` where given (at least the axis).
fn x_axis(
    input: &ForestInput,
    frame: &Frame,
    extent: (f64, f64),
) -> Result<(Labelled, Linear), PlotError> {
    let o = &input.options;
    let plot = frame.columns.plot;
    let mut length = plot.1 - plot.0;
    if let Some((a, b)) = o.xlim {
        // The axis takes its share of the plot column.
        let (lo, hi) = o.alim.unwrap_or(extent);
        let share = (hi - lo) / (b.max(hi) - a.min(lo));
        if share.is_finite() && share > 0.0 {
            length *= share.min(1.0);
        }
    }
    let ticks = ticks::axis(extent, o.alim, o.at, input.transform, length, ROW_FONT)?;
    let alim = ticks.domain;
    let domain = o.xlim.map_or(alim, |(a, b)| (a.min(alim.0), b.max(alim.1)));
    Ok((ticks, Linear::new(domain, plot)?))
}

/// Where the columns sit, left to right (the label, the ilab columns, the plot, the
/// estimate, the weight), measured from what they hold at the rows' 11 px: with ilab
/// columns or a width given, the plot keeps at least [`PLOT_SHARE`] of the width and the
/// columns share the rest; else [`MIN_PLOT`] of a phone's [`WIDTH`]. The label column keeps
/// as many characters as leave the plot that room (at least [`MIN_LABEL_CHARS`]) on a
/// line, a longer label wrapping onto further lines; columns that still do not fit widen
/// the plot beyond [`WIDTH`] (never beyond a `width` given: that is an error).
struct Frame {
    width: f64,
    columns: Columns,
    label_chars: usize,
    /// Each ilab column's right edge.
    ilab_x: Vec<f64>,
    label_heading: String,
    estimate_heading: String,
    /// Whether the weights have a column (not when ilab columns need its room).
    weights: bool,
}

impl Frame {
    fn of(input: &ForestInput, rows: &[Row], checked: &Checked) -> Result<Frame, PlotError> {
        let (font, o) = (ROW_FONT, &input.options);
        let estimate_heading = o.header.map_or_else(
            || estimate_heading(input.measure, checked.level),
            |(_, right)| right.to_string(),
        );
        let label_heading = o.header.map_or_else(
            || label_heading(input).to_string(),
            |(left, _)| left.to_string(),
        );
        let Widths {
            estimate,
            below_labels,
            weight_width,
            ilab,
        } = Widths::of(input, rows, checked, &estimate_heading);
        let ilab_total: f64 = ilab.iter().map(|w| w + GAP).sum();
        let char_width = text_width("x", font, false);
        let (longest, longest_word) = longest(rows);
        let base = o.width.unwrap_or(WIDTH);
        // With ilab columns or a width given, the plot keeps [`PLOT_SHARE`] of the width;
        // else, at a phone's width, [`MIN_PLOT`] (a long word may take it to
        // [`LEAST_PLOT`]).
        let shared = !input.ilab.is_empty() || o.width.is_some();
        // The label column, with the weight column's room (`weight`) or without, and the
        // width that leaves the plot its room.
        let label = |weight: f64, base: f64| {
            let fixed = document::LEFT + GAP + ilab_total + GAP + estimate + weight + GAP;
            let room = |plot: f64| ((base - fixed - plot) / char_width).floor().max(0.0) as usize;
            let least = if shared { base * PLOT_SHARE } else { MIN_PLOT };
            let chars = longest.min(room(least).clamp(MIN_LABEL_CHARS, MAX_LABEL_CHARS));
            // A word longer than that widens the plot rather than be cut, unless the width
            // is given.
            let chars = match (o.width, shared) {
                (Some(_), _) => chars,
                (None, true) => chars.max(longest_word.min(MAX_LABEL_CHARS)),
                (None, false) => chars.max(longest_word.min(room(LEAST_PLOT)).min(MAX_LABEL_CHARS)),
            };
            // The pooled and subgroup labels sit in the label column, over the ilab
            // columns; the heading too.
            let drawn = rows
                .iter()
                .flat_map(|r| label_lines(r, chars))
                .map(|line| line.chars().count())
                .max()
                .unwrap_or(0);
            let width = (drawn as f64 * char_width)
                .max(below_labels - ilab_total)
                .max(text_width(&label_heading, font, true));
            let needed = if shared {
                (fixed + width) / (1.0 - PLOT_SHARE)
            } else {
                fixed + width + LEAST_PLOT
            };
            (chars, width, needed)
        };
        // ilab columns that leave no room for the weights push them out (the squares' areas
        // still show them) unless `showweights` asks for them; the plot grows wider only
        // when that is not enough.
        let (mut weight, (mut label_chars, mut label_width, mut needed)) =
            (weight_width, label(weight_width, base));
        if needed > base && weight > 0.0 && !input.ilab.is_empty() && o.showweights.is_none() {
            weight = 0.0;
            (label_chars, label_width, needed) = label(0.0, base);
        }
        // A plot grown wider gives its labels the room of its new width (their lines
        // longer), as long as that needs no more width still.
        let mut wider = needed;
        for _ in 0..4 {
            if o.width.is_some() || !shared || wider <= base {
                break;
            }
            let (chars, width, need) = label(weight, wider);
            if need <= wider + 1e-9 {
                (label_chars, label_width, needed) = (chars, width, wider);
                break;
            }
            wider = need;
        }
        let width = match o.width {
            Some(given) if needed > given + 1e-9 => {
                return Err(PlotError::TooNarrow {
                    width: given,
                    needed: needed.ceil(),
                })
            }
            Some(given) => given,
            None => WIDTH.max(needed),
        };
        let mut x = document::LEFT + label_width;
        let ilab_x = ilab
            .iter()
            .map(|w| {
                x += GAP + w;
                x
            })
            .collect();
        let last_x = width - GAP;
        let estimate_x = last_x - weight;
        let plot = (x + GAP, estimate_x - estimate - GAP);
        Ok(Frame {
            width,
            columns: Columns {
                plot,
                estimate_x,
                last_x,
            },
            label_chars,
            ilab_x,
            label_heading,
            estimate_heading,
            weights: weight > 0.0,
        })
    }
}

/// The characters of the longest label on one line, and of its longest word.
fn longest(rows: &[Row]) -> (usize, usize) {
    let longest = rows
        .iter()
        .map(|r| label_lines(r, usize::MAX)[0].chars().count())
        .max()
        .unwrap_or(0);
    let longest_word = rows
        .iter()
        .flat_map(|r| r.label.split(' '))
        .map(|word| word.chars().count())
        .max()
        .unwrap_or(0);
    (longest, longest_word)
}

/// The widths of the columns but the label's and the plot's, at the rows' 11 px.
struct Widths {
    /// The estimate column's.
    estimate: f64,
    /// The widest label under the rows (the pooled row's, the subgroups').
    below_labels: f64,
    /// The weights column's, 0 without one.
    weight_width: f64,
    /// Each ilab column's.
    ilab: Vec<f64>,
}

impl Widths {
    fn of(input: &ForestInput, rows: &[Row], checked: &Checked, estimate_heading: &str) -> Self {
        let (t, font, o) = (input.transform, ROW_FONT, &input.options);
        // The heading may reach over the plot column, which has no heading of its own, by
        // up to the least the plot keeps less a gap: a natural scale's long name ("Incidence
        // rate ratio [95% CI]") then takes no room from the labels.
        let mut estimate = (text_width(estimate_heading, font, true) - (LEAST_PLOT - GAP)).max(0.0);
        for row in rows {
            let text = interval_text(t, row.record.yi, row.ci);
            estimate = estimate.max(text_width(&text, font, false));
        }
        let mut below_labels = 0.0f64;
        if let Some(p) = &checked.pooled {
            let f = p.fit;
            let text = interval_text(t, f.estimate, (f.ci_lower, f.ci_upper));
            estimate = estimate.max(text_width(&text, font, true));
            below_labels = below_labels.max(text_width(&p.label(o.mlab), font, true));
        }
        if let Some(g) = &checked.groups {
            for s in &g.analysis.groups {
                let f = &s.fit;
                let text = interval_text(t, f.estimate, (f.ci_lower, f.ci_upper));
                estimate = estimate.max(text_width(&text, font, false));
                below_labels = below_labels.max(text_width(&subgroups::label(s), font, false));
            }
        }
        let weighted = checked.weights.iter().any(Option::is_some);
        let weight_width = if weighted && o.showweights != Some(false) {
            text_width("Weight", font, true) + 2.0 * GAP
        } else {
            0.0
        };
        let ilab: Vec<f64> = input
            .ilab
            .iter()
            .map(|c| {
                c.values
                    .iter()
                    .map(|v| text_width(&ilab_text(v), font, false))
                    .fold(text_width(&ilab_text(&c.name), font, true), f64::max)
            })
            .collect();
        Widths {
            estimate,
            below_labels,
            weight_width,
            ilab,
        }
    }
}

/// An ilab cell or heading as drawn: cut to [`LABEL_CHARS`] characters ("…") and isolated,
/// as a label ([`id_label`]), so one long cell cannot widen the plot without bound (a
/// 5,000-character cell drew a forest 31,417 units wide); `numbers` keeps it whole.
fn ilab_text(cell: &str) -> String {
    id_label(cell, LABEL_CHARS)
}

/// The label column's heading: "Study" over study labels, else "Record" (over ids).
fn label_heading(input: &ForestInput) -> &'static str {
    if input.labels.is_some() {
        "Study"
    } else {
        "Record"
    }
}

/// A row's label as drawn: broken at its spaces into lines of at most `chars` characters
/// (see [`wrap_label`]), "(excluded)" after an excluded one, on its last line where that
/// stays within `chars` (or 16 characters), else on a line of its own. Each line is
/// isolated ([`id_label`]), so no line's bidirectional text reorders another or the
/// "(excluded)" after it.
fn label_lines(row: &Row, chars: usize) -> Vec<String> {
    let chars = chars.max(2);
    let isolated =
        |lines: Vec<String>| -> Vec<String> { lines.iter().map(|l| id_label(l, chars)).collect() };
    let mut lines = wrap_label(row.label, chars);
    if !row.excluded {
        return isolated(lines);
    }
    if lines.iter().any(|l| l.chars().count() > chars) {
        // A label too long to keep whole gives way to the record's id.
        lines = wrap_label(&row.record.id, chars);
    }
    let fits = lines.last().map_or(0, |l| l.chars().count()) + 11 <= chars.max(16);
    let mut lines = isolated(lines);
    if fits {
        lines.last_mut().expect("a line").push_str(" (excluded)");
    } else {
        lines.push("(excluded)".into());
    }
    lines
}

/// `label` broken at its spaces into at most [`MAX_LABEL_LINES`] lines of at most `chars`
/// characters each, but for a word longer than a line (on a line of its own) and, when the
/// label needs more lines, the last one: such a line is longer than `chars`, and so cut
/// ("…") when drawn.
fn wrap_label(label: &str, chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in label.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    if lines.len() > MAX_LABEL_LINES {
        // Two lines or more joined: longer than a line.
        let rest = lines.split_off(MAX_LABEL_LINES - 1).join(" ");
        lines.push(rest);
    }
    lines
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
    /// Whether the pooled prediction interval is drawn (a random-effects model, `addpred`
    /// not false).
    shows_pi: bool,
}

impl<'a> Checked<'a> {
    fn of(input: &ForestInput<'a>) -> Result<Self, PlotError> {
        let is_excluded = validate(input.records, input.excluded, "forest", MAX_FOREST_RECORDS)?;
        let included = is_excluded.iter().filter(|e| !**e).count();
        let pooled = match input.fit {
            Some(fit) => Some(Pooled::of(fit, included)?),
            None => None,
        };
        let level = match (input.fit, &input.fitted) {
            (Some(f), _) => f.level,
            (None, Some(f)) => f.level,
            (None, None) => 0.95,
        };
        let intervals = record_intervals(input.records, level).map_err(PlotError::Intervals)?;
        if let (None, Some(f)) = (&pooled, &input.fitted) {
            fitted_check(f, input.records.len())?;
        }
        let weights = match (&pooled, &input.fitted) {
            (Some(_), _) | (None, Some(_)) if input.clustered.is_some() => {
                clustered_weights(input.clustered.as_ref().expect("clustered"), &is_excluded)?
            }
            (Some(p), _) => included_weights(input.records, &is_excluded, p.fit.tau2)?,
            (None, Some(f)) => included_weights(input.records, &is_excluded, f.tau2)?,
            (None, None) => vec![None; input.records.len()],
        };
        let groups = match &input.groups {
            Some(g) if pooled.is_some() => Some(subgroups::check(g, input.records.len())?),
            Some(_) => return Err(PlotError::GroupsWithoutFit),
            None => None,
        };
        let shows_pi =
            pooled.as_ref().is_some_and(Pooled::shows_pi) && input.options.addpred != Some(false);
        Ok(Checked {
            is_excluded,
            pooled,
            level,
            intervals,
            weights,
            groups,
            shows_pi,
        })
    }
}

/// A multilevel model's weights as (percent, relative to the largest), checked: one per
/// record, none for an excluded record.
fn clustered_weights(
    c: &Clustered,
    is_excluded: &[bool],
) -> Result<Vec<Option<(f64, f64)>>, PlotError> {
    for (what, got) in [
        ("the clusters", c.clusters.len()),
        ("the weights", c.weights.len()),
    ] {
        if got != is_excluded.len() {
            return Err(PlotError::ColumnLength {
                what,
                records: is_excluded.len(),
                got,
            });
        }
    }
    let largest = c.weights.iter().flatten().fold(0.0f64, |a, b| a.max(*b));
    c.weights
        .iter()
        .zip(is_excluded)
        .map(|(w, &excluded)| match (w, excluded) {
            (Some(w), false) => {
                finite(*w, "a weight")?;
                Ok(Some((*w, w / largest)))
            }
            _ => Ok(None),
        })
        .collect()
}

/// The fitted values, checked for drawing: one per record, every number finite.
fn fitted_check(f: &Fitted, records: usize) -> Result<(), PlotError> {
    if f.values.len() != records {
        return Err(PlotError::ColumnLength {
            what: "the fitted values",
            records,
            got: f.values.len(),
        });
    }
    finite(f.tau2, "the residual τ²")?;
    for (v, lo, hi) in f.values.iter().flatten() {
        finite(*v, "a fitted value")?;
        finite(*lo, "a fitted value's lower limit")?;
        finite(*hi, "a fitted value's upper limit")?;
    }
    Ok(())
}

/// The lines top to bottom: without groups, one per record; with groups, per level (sorted)
/// a heading, its records in record order and its subgroup diamond (when the level has
/// records in the fit).
fn layout<'a>(input: &ForestInput<'a>, groups: Option<&ForestGroups<'a>>) -> Vec<Line<'a>> {
    let natural: Vec<usize> = (0..input.records.len()).collect();
    let order = input.order.unwrap_or(&natural);
    if let Some(c) = &input.clustered {
        // Each cluster in the order its first row comes, its rows under its heading.
        let mut lines = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for &i in order {
            let cluster: &'a str = &c.clusters[i];
            if seen.contains(&cluster) {
                continue;
            }
            seen.push(cluster);
            lines.push(Line::Heading(cluster));
            lines.extend(
                order
                    .iter()
                    .filter(|&&j| c.clusters[j] == cluster)
                    .map(|&j| Line::Record(j)),
            );
        }
        return lines;
    }
    let Some(g) = groups else {
        return order.iter().copied().map(Line::Record).collect();
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
            order
                .iter()
                .filter(|&&i| g.record_levels[i] == level)
                .map(|&i| Line::Record(i)),
        );
        if let Some(index) = g.analysis.groups.iter().position(|s| s.level == level) {
            lines.push(Line::Subgroup(index));
        }
    }
    lines
}

/// Where the lines sit: each record's row, each level's heading and subgroup diamond. A
/// record's row is as high as its label's lines need ([`row_height`]); the others are one
/// line high.
struct Places<'a> {
    /// Per record, in record order.
    record_y: Vec<f64>,
    /// (level, y) top to bottom.
    headings: Vec<(&'a str, f64)>,
    /// (index among the analysis' groups, y) top to bottom.
    subgroups: Vec<(usize, f64)>,
    /// Where a last line one line high would sit: what goes below the rows follows it.
    last_y: f64,
}

impl<'a> Places<'a> {
    fn of(lines: &[Line<'a>], rows: &[Row]) -> Self {
        let mut places = Places {
            record_y: vec![0.0; rows.len()],
            headings: Vec::new(),
            subgroups: Vec::new(),
            last_y: row_y(0),
        };
        let mut y = row_y(0);
        for (n, line) in lines.iter().enumerate() {
            if n > 0 {
                y += rows::ROW_HEIGHT;
            }
            match line {
                Line::Record(i) => {
                    places.record_y[*i] = y;
                    // The row's further label lines.
                    y += row_height(rows[*i].label_lines.len()) - rows::ROW_HEIGHT;
                }
                Line::Subgroup(g) => places.subgroups.push((*g, y)),
                Line::Heading(level) => places.headings.push((*level, y)),
            }
        }
        places.last_y = y;
        places
    }
}

/// The records' rows, in record order, with their labels, intervals and weights (their
/// label's lines and place set later).
fn rows<'a>(input: &ForestInput<'a>, checked: &Checked) -> Vec<Row<'a>> {
    input
        .records
        .iter()
        .zip(&checked.is_excluded)
        .enumerate()
        .map(|(i, (record, &excluded))| {
            let w = checked.weights[i];
            Row {
                index: i,
                record,
                label: input
                    .labels
                    .and_then(|labels| labels.get(i))
                    .map_or(record.id.as_str(), String::as_str),
                label_lines: Vec::new(),
                excluded,
                ci: checked.intervals[i],
                weight_percent: w.map(|(percent, _)| percent),
                side: w.map_or(PLAIN_SIDE, |(_, relative)| {
                    (MAX_SIDE * relative.sqrt()).max(MIN_SIDE)
                }),
                y: 0.0,
            }
        })
        .collect()
}

/// What the x axis covers unless `alim` says otherwise, as metafor's forest() sets it: the
/// rows' intervals (and the pooled and subgroup confidence intervals; a prediction interval
/// beyond ends in an arrow).
fn extent(rows: &[Row], checked: &Checked) -> (f64, f64) {
    let mut intervals: Vec<(f64, f64)> = rows.iter().map(|row| row.ci).collect();
    if let Some(p) = &checked.pooled {
        intervals.push((p.fit.ci_lower, p.fit.ci_upper));
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
        .into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (a, b)| {
            (lo.min(a), hi.max(b))
        })
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
    fn rows(last_y: f64, pooled: Option<&Pooled>, shows_pi: bool) -> Self {
        let separator_y = last_y + 12.0;
        let diamond_y = separator_y + 16.0;
        let pi_y = diamond_y + rows::ROW_HEIGHT;
        let axis_y = match pooled {
            Some(_) if shows_pi => pi_y + 14.0,
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
    /// The axis' ends (yi's scale): intervals beyond end in an arrow.
    alim: (f64, f64),
    checked: Checked<'a>,
    rows: Vec<Row<'a>>,
    places: Places<'a>,
    frame: Frame,
    ticks: Labelled,
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
            (&self.x, self.alim),
            &self.ticks,
            (c.level, c.shows_pi),
            input.excluded,
        )?;
        if let Some(f) = &input.fitted {
            numbers["fitted"] = json!({
                "model": f.model,
                "tau2": f.tau2,
                "interval": if f.prediction { "prediction" } else { "confidence" },
            });
            for (row, n) in self
                .rows
                .iter()
                .zip(numbers["rows"].as_array_mut().into_iter().flatten())
            {
                n["fitted"] = json!(f.values[row.index].map(|(v, lo, hi)| json!({
                    "value": v,
                    "lower": lo,
                    "upper": hi,
                })));
            }
        }
        numbers["transform"] = json!(input.transform.name());
        if !input.ilab.is_empty() {
            numbers["ilab"] = json!(input.ilab.iter().map(|c| &c.name).collect::<Vec<_>>());
            for (row, n) in self
                .rows
                .iter()
                .zip(numbers["rows"].as_array_mut().into_iter().flatten())
            {
                n["ilab"] = json!(input
                    .ilab
                    .iter()
                    .map(|c| &c.values[row.index])
                    .collect::<Vec<_>>());
            }
        }
        if let Some(g) = &c.groups {
            subgroups::numbers(&mut numbers, g, &self.places.subgroups, &self.x)?;
        }
        Ok(numbers)
    }

    fn draw(&self, input: &ForestInput, numbers: Value) -> Result<PlotOutput, PlotError> {
        let (t, level, x) = (input.transform, self.checked.level, &self.x);
        let (frame, columns) = (&self.frame, &self.frame.columns);
        let mut w = Writer::default();
        let desc = text::description(input, &self.rows, &self.checked);
        document::open(
            &mut w,
            "forest",
            (frame.width, self.height()),
            input.title,
            &desc,
            &numbers,
        );
        if let Some(subtitle) = input.subtitle {
            document::subtitle(&mut w, subtitle);
        }
        w.open("g", &[("font-size", &fixed(ROW_FONT, 0))]);
        let ilab_names: Vec<String> = input.ilab.iter().map(|c| ilab_text(&c.name)).collect();
        let ilab_headings: Vec<(f64, &str)> = frame
            .ilab_x
            .iter()
            .zip(&ilab_names)
            .map(|(x, name)| (*x, name.as_str()))
            .collect();
        let weight = if frame.weights { "Weight" } else { "" };
        columns.header(
            &mut w,
            &frame.label_heading,
            &frame.estimate_heading,
            weight,
            &ilab_headings,
        );
        // Top to bottom, so the document reads in the order drawn.
        let mut drawn: Vec<&Row> = self.rows.iter().collect();
        drawn.sort_by(|a, b| a.y.total_cmp(&b.y));
        if let Some(shade) = input.options.shade {
            draw_shade(&mut w, shade, &drawn, columns);
        }
        let refline = match input.options.refline {
            Reference::Null => Some(0.0),
            Reference::At(v) => Some(v),
            Reference::Hidden => None,
        };
        columns.open_plot_area(&mut w, x, self.below.axis_y, refline)?;
        for row in drawn {
            draw_row(&mut w, input, (frame, self.alim), row, x, level)?;
        }
        if let Some(g) = &self.checked.groups {
            subgroups::draw_headings(&mut w, g, &self.places.headings);
        }
        if let Some(c) = &input.clustered {
            for (cluster, y) in &self.places.headings {
                w.text(
                    "text",
                    &[
                        ("class", "cluster-heading"),
                        ("x", &px(document::LEFT)),
                        ("y", &px(y + 4.0)),
                        ("font-weight", "bold"),
                    ],
                    &id_label(&format!("{} {cluster}", c.name), 40),
                );
            }
        }
        if let Some(g) = &self.checked.groups {
            for &(index, y) in &self.places.subgroups {
                let s = &g.analysis.groups[index];
                subgroups::draw(&mut w, t, g, s, (x, self.alim), y, columns)?;
            }
        }
        if let Some(p) = &self.checked.pooled {
            columns.rule(&mut w, self.below.separator_y);
            let how = pooled::How {
                label: p.label(input.options.mlab),
                pi: self.checked.shows_pi,
                level,
                alim: self.alim,
            };
            p.draw(&mut w, t, x, &self.below, &how, columns)?;
        }
        w.close("g");
        let (a, b) = (x.map(self.alim.0)?, x.map(self.alim.1)?);
        super::axis::bottom_over(
            &mut w,
            x,
            &self.ticks,
            (self.below.axis_y, (a, b)),
            input.x_label,
        )?;
        document::notes(&mut w, &self.notes, self.notes_y(), NOTE_LINE);
        w.close("g");
        Ok(document::finish(w, numbers))
    }
}

/// A light band behind the rows `shade` picks (metafor's `shade`), across the columns.
fn draw_shade(w: &mut Writer, shade: Shade, drawn: &[&Row], columns: &Columns) {
    w.open("g", &[("class", "shade"), ("fill", FILL)]);
    for (n, row) in drawn.iter().enumerate() {
        if !shade.shades(n) {
            continue;
        }
        let top = row.y - rows::ROW_HEIGHT / 2.0;
        w.empty(
            "rect",
            &[
                ("x", &px(document::LEFT - 4.0)),
                ("y", &px(top)),
                ("width", &px(columns.last_x - document::LEFT + 8.0)),
                ("height", &px(row_height(row.label_lines.len()))),
            ],
        );
    }
    w.close("g");
}

/// A record's row: its tooltip, its fitted value's polygon (a meta-regression's), then its
/// marks (grey, dashed and hollow when excluded), cut at the axis' ends `alim`.
fn draw_row(
    w: &mut Writer,
    input: &ForestInput,
    (frame, alim): (&Frame, (f64, f64)),
    row: &Row,
    x: &Linear,
    level: f64,
) -> Result<(), ScaleError> {
    let t = input.transform;
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
    let text_y = px(row.y + 4.0);
    for (column, right) in input.ilab.iter().zip(&frame.ilab_x) {
        right_text(w, *right, &text_y, &ilab_text(&column.values[row.index]));
    }
    if let Some((v, lo, hi)) = input.fitted.and_then(|f| f.values[row.index]) {
        let h = FITTED_HALF_HEIGHT;
        let points = [(lo, row.y), (v, row.y - h), (hi, row.y), (v, row.y + h)];
        options::polygon(
            w,
            &points,
            x,
            alim,
            &[("class", "fitted"), ("fill", FITTED), ("stroke", "none")],
        )?;
    }
    RowMarks {
        y: row.y,
        label: &row.label_lines,
        estimate: r.yi,
        ci: row.ci,
        side: row.side,
        paint: if row.excluded {
            Paint::Hollow
        } else {
            Paint::Solid
        },
        estimate_text: &interval_text(t, r.yi, row.ci),
        last_text: match (row.excluded, frame.weights) {
            (_, false) => "",
            (true, true) => "–",
            (false, true) => &weight_text,
        },
        clip: Some(alim),
    }
    .draw(w, &frame.columns, x)?;
    w.close("g");
    Ok(())
}

/// A diamond from `lo` to `hi` across (yi's scale), `half` up and down from its centre
/// (`mid`, `y`), cut at the axis' ends `alim` as metafor cuts it.
fn diamond(
    w: &mut Writer,
    (lo, mid, hi): (f64, f64, f64),
    (x, alim): (&Linear, (f64, f64)),
    y: f64,
    half: f64,
    fill: &str,
) -> Result<(), ScaleError> {
    let points = [(lo, y), (mid, y - half), (hi, y), (mid, y + half)];
    options::polygon(w, &points, x, alim, &[("class", "diamond"), ("fill", fill)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_wrap_at_spaces_and_only_an_overlong_word_or_line_is_cut() {
        assert_eq!(
            wrap_label("Frimodt-Moller et al 1973", 18),
            ["Frimodt-Moller et", "al 1973"]
        );
        assert_eq!(wrap_label("Aronson  1948", 18), ["Aronson 1948"]);
        // A word longer than a line keeps a line of its own, cut when drawn.
        let lines = wrap_label("Frimodt-Moller 1973", 10);
        assert_eq!(lines, ["Frimodt-Moller", "1973"]);
        assert_eq!(id_label(&lines[0], 10), "Frimodt-M…");
        // More lines than a row holds: the rest joins the last line, to be cut.
        let lines = wrap_label("a b c d e f", 1);
        assert_eq!(lines, ["a", "b", "c", "d e f"]);
        assert_eq!(wrap_label("", 10), [""]);
    }
}
