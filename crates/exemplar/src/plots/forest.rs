//! The forest plot: one row per record, the pooled diamond and the prediction interval;
//! optionally the records grouped by a text column, with a diamond per subgroup and the
//! tests for subgroup differences in the footer.

use super::scale::{nice, Linear, ScaleError};
use super::svg::{fixed, px, px_value, Writer};
use super::{
    axis, finite, id_label, id_text, included_weights, open_document, validate, PlotError,
    PlotOutput, GREY, INK,
};
use meta_analysis::distributions::normal_quantile;
use meta_analysis::{record_intervals, Fit, Method, Record, SubgroupAnalysis, Test, Transform};
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
const LABEL_X: f64 = 12.0;
const PLOT_X0: f64 = 230.0;
const PLOT_X1: f64 = 490.0;
const ESTIMATE_X: f64 = 640.0;
const WEIGHT_X: f64 = 708.0;
const HEADER_Y: f64 = 54.0;
const FIRST_ROW_Y: f64 = 76.0;
const ROW_HEIGHT: f64 = 18.0;
/// Side of the square of the record with the largest weight; others scale by area.
const MAX_SIDE: f64 = 14.0;
const MIN_SIDE: f64 = 4.0;
/// Side of every square when there is no fit (and so no weights).
const PLAIN_SIDE: f64 = 7.0;
const DIAMOND_HALF_HEIGHT: f64 = 7.0;
const LABEL_CHARS: usize = 30;
const NOTE_CHARS: usize = 96;

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
/// ([`meta_analysis::record_intervals`]): yᵢ ± z·√vᵢ at the fit's level (95% without a fit); weights are the engine's ([`meta_analysis::record_weights`]): wᵢ = 1/(vᵢ + τ̂²) as a
/// percentage of their sum over the records not excluded.
pub fn forest(input: &ForestInput) -> Result<PlotOutput, PlotError> {
    let is_excluded = validate(input.records, input.excluded, "forest", MAX_FOREST_RECORDS)?;
    let included = is_excluded.iter().filter(|e| !**e).count();
    let pooled = match input.fit {
        Some(fit) => Some(Pooled::of(fit, included)?),
        None => None,
    };
    let level = input.fit.map_or(0.95, |f| f.level);
    let intervals = record_intervals(input.records, level).map_err(PlotError::Intervals)?;

    // Each record's weight in the fit as (percent, relative to the largest); None when
    // excluded or without a fit.
    let weights: Vec<Option<(f64, f64)>> = match &pooled {
        Some(p) => included_weights(input.records, &is_excluded, p.fit.tau2)?,
        None => vec![None; input.records.len()],
    };
    let groups = match &input.groups {
        Some(g) if pooled.is_some() => Some(check_groups(g, input.records.len())?),
        Some(_) => return Err(PlotError::GroupsWithoutFit),
        None => None,
    };
    let lines = layout(input, groups.as_ref());
    let mut line_y = vec![0.0; input.records.len()];
    let mut subgroup_y = Vec::new();
    let mut heading_y = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let y = FIRST_ROW_Y + n as f64 * ROW_HEIGHT;
        match line {
            Line::Record(i) => line_y[*i] = y,
            Line::Subgroup(g) => subgroup_y.push((*g, y)),
            Line::Heading(level) => heading_y.push((*level, y)),
        }
    }
    let rows: Vec<Row> = input
        .records
        .iter()
        .zip(&is_excluded)
        .enumerate()
        .map(|(i, (record, &excluded))| {
            let w = weights[i];
            Row {
                record,
                label: input
                    .labels
                    .and_then(|labels| labels.get(i))
                    .map_or(record.id.as_str(), String::as_str),
                excluded,
                ci: intervals[i],
                weight_percent: w.map(|(percent, _)| percent),
                side: w.map_or(PLAIN_SIDE, |(_, relative)| {
                    (MAX_SIDE * relative.sqrt()).max(MIN_SIDE)
                }),
                y: line_y[i],
            }
        })
        .collect();

    // The x domain covers every interval drawn and the line of no effect.
    let mut lo = 0.0f64;
    let mut hi = 0.0f64;
    for row in &rows {
        lo = lo.min(row.ci.0);
        hi = hi.max(row.ci.1);
    }
    if let Some(p) = &pooled {
        lo = lo.min(p.fit.ci_lower).min(p.fit.pi_lower);
        hi = hi.max(p.fit.ci_upper).max(p.fit.pi_upper);
    }
    if let Some(g) = &groups {
        for s in &g.analysis.groups {
            lo = lo.min(s.fit.ci_lower);
            hi = hi.max(s.fit.ci_upper);
        }
    }
    let ticks = nice(lo, hi, 5)?;
    let domain = ticks.domain();
    let x = Linear::new(domain, (PLOT_X0, PLOT_X1))?;

    let last_row_y = FIRST_ROW_Y + (lines.len() - 1) as f64 * ROW_HEIGHT;
    let separator_y = last_row_y + 12.0;
    let diamond_y = separator_y + 16.0;
    let pi_y = diamond_y + ROW_HEIGHT;
    let axis_y = match &pooled {
        Some(p) if p.shows_pi() => pi_y + 14.0,
        Some(_) => diamond_y + 14.0,
        None => separator_y,
    };
    let mut notes = notes(input, &pooled, level);
    if let Some(g) = &groups {
        notes.extend(group_notes(g));
    }
    let notes_y = axis_y + 58.0;
    let height = notes_y + (notes.len() as f64 - 1.0).max(0.0) * 15.0 + 14.0;

    let mut numbers = numbers(&rows, &pooled, &x, &ticks.values, level, input.excluded)?;
    // The scale of the text (positions are always on yi's scale).
    numbers["transform"] = json!(input.transform.name());
    let mut desc = description(input, &rows, &pooled, level);
    if let Some(g) = &groups {
        group_numbers(&mut numbers, g, &subgroup_y, &x)?;
        desc.push_str(&group_description(input.transform, g));
    }

    let mut w = Writer::default();
    open_document(
        &mut w,
        "forest",
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
    header(&mut w, level);

    let plot_area = [
        ("class", "plot-area"),
        ("data-x-domain", &format!("{} {}", domain.0, domain.1)),
        ("data-x-range", &format!("{} {}", px(PLOT_X0), px(PLOT_X1))),
    ];
    w.open("g", &plot_area);
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
    for row in &rows {
        draw_row(&mut w, input.transform, row, &x, level)?;
    }
    if let Some(g) = &groups {
        for (level_name, y) in &heading_y {
            w.text(
                "text",
                &[
                    ("class", "subgroup-heading"),
                    ("x", &px(LABEL_X)),
                    ("y", &px(y + 4.0)),
                    ("font-weight", "bold"),
                ],
                &format!("{} = {}", id_label(g.by, 24), id_label(level_name, 24)),
            );
        }
        for (index, y) in &subgroup_y {
            draw_subgroup(
                &mut w,
                input.transform,
                g,
                &g.analysis.groups[*index],
                &x,
                *y,
            )?;
        }
    }
    if let Some(p) = &pooled {
        w.empty(
            "line",
            &[
                ("x1", &px(LABEL_X)),
                ("y1", &px(separator_y)),
                ("x2", &px(WEIGHT_X)),
                ("y2", &px(separator_y)),
                ("stroke", INK),
                ("stroke-width", "0.5"),
            ],
        );
        draw_pooled(&mut w, input.transform, p, &x, diamond_y, pi_y, level)?;
    }
    w.close("g");
    let t = input.transform;
    axis::bottom_labelled(&mut w, &x, &ticks, axis_y, input.x_label, |v| {
        if t == Transform::None {
            ticks.label(v)
        } else {
            fixed(t.apply(v), 2)
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

/// The groups, checked for drawing: one level per record, every number finite.
fn check_groups<'a>(g: &ForestGroups<'a>, records: usize) -> Result<ForestGroups<'a>, PlotError> {
    if g.record_levels.len() != records {
        return Err(PlotError::ColumnLength {
            what: "the subgroups' levels",
            records,
            got: g.record_levels.len(),
        });
    }
    for s in &g.analysis.groups {
        finite(s.fit.estimate, "a subgroup estimate")?;
        finite(s.fit.ci_lower, "a subgroup's lower confidence limit")?;
        finite(s.fit.ci_upper, "a subgroup's upper confidence limit")?;
    }
    finite(g.analysis.q_between, "the Q statistic between subgroups")?;
    finite(
        g.analysis.common_tau2.qm,
        "the QM statistic of the common-τ² model",
    )?;
    Ok(*g)
}

fn draw_subgroup(
    w: &mut Writer,
    t: Transform,
    g: &ForestGroups,
    s: &meta_analysis::Subgroup,
    x: &Linear,
    y: f64,
) -> Result<(), ScaleError> {
    let f = &s.fit;
    let (lo, mid, hi) = (x.map(f.ci_lower)?, x.map(f.estimate)?, x.map(f.ci_upper)?);
    let half = DIAMOND_HALF_HEIGHT * 0.8;
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
    let ty = px(y + 4.0);
    let label = if s.single_record {
        "Subgroup (k = 1, τ² = 0)".to_string()
    } else {
        format!("Subgroup (k = {})", f.k)
    };
    w.open(
        "g",
        &[
            ("class", "subgroup"),
            ("data-level", &s.level),
            ("font-style", "italic"),
        ],
    );
    w.text(
        "title",
        &[],
        &format!(
            "{} = {}: {}, k = {}, τ² = {}",
            id_text(g.by),
            id_text(&s.level),
            interval_text(t, f.estimate, (f.ci_lower, f.ci_upper)),
            f.k,
            fixed(f.tau2, 4)
        ),
    );
    w.text("text", &[("x", &px(LABEL_X)), ("y", &ty)], &label);
    w.empty(
        "polygon",
        &[("class", "diamond"), ("points", &points), ("fill", GREY)],
    );
    w.text(
        "text",
        &[("x", &px(ESTIMATE_X)), ("y", &ty), ("text-anchor", "end")],
        &interval_text(t, f.estimate, (f.ci_lower, f.ci_upper)),
    );
    w.close("g");
    Ok(())
}

/// "QM(2) = 1.23, p = 0.5412", or "F(2, 16) = …" under Knapp–Hartung.
fn qm_text(g: &ForestGroups) -> String {
    let c = &g.analysis.common_tau2;
    let statistic = match c.qm_df2 {
        Some(df2) => format!("F({}, {df2}) = {}", c.qm_df, fixed(c.qm, 2)),
        None => format!("QM({}) = {}", c.qm_df, fixed(c.qm, 2)),
    };
    format!("{statistic}, {}", super::p_text(c.qm_p))
}

fn group_notes(g: &ForestGroups) -> Vec<String> {
    let a = g.analysis;
    let mut notes = vec![
        format!(
            "Test for subgroup differences (separate τ² per subgroup): Q({}) = {}, {}.",
            a.q_between_df,
            fixed(a.q_between, 2),
            super::p_text(a.q_between_p)
        ),
        format!(
            "With one common τ² (meta-regression on {}): {}.",
            id_label(g.by, 24),
            qm_text(g)
        ),
    ];
    if a.groups.iter().any(|s| s.single_record) {
        notes.push("A subgroup of one record has τ² = 0 and a z interval (as in metafor).".into());
    }
    notes
}

fn group_description(t: Transform, g: &ForestGroups) -> String {
    let a = g.analysis;
    let parts: Vec<String> = a
        .groups
        .iter()
        .map(|s| {
            format!(
                "{} {} (k = {})",
                id_text(&s.level),
                interval_text(t, s.fit.estimate, (s.fit.ci_lower, s.fit.ci_upper)),
                s.fit.k
            )
        })
        .collect();
    format!(
        " Records grouped by {}, one diamond per subgroup: {}. Test for subgroup differences: \
         Q({}) = {}, {}; with one common τ²: {}.",
        id_text(g.by),
        parts.join("; "),
        a.q_between_df,
        fixed(a.q_between, 2),
        super::p_text(a.q_between_p),
        qm_text(g)
    )
}

fn group_numbers(
    numbers: &mut Value,
    g: &ForestGroups,
    subgroup_y: &[(usize, f64)],
    x: &Linear,
) -> Result<(), ScaleError> {
    let at = |v: f64| x.map(v).map(px_value);
    let mut subgroups = Vec::new();
    for &(index, y) in subgroup_y {
        let s = &g.analysis.groups[index];
        subgroups.push(json!({
            "level": s.level,
            "k": s.fit.k,
            "estimate": s.fit.estimate,
            "ci_lower": s.fit.ci_lower,
            "ci_upper": s.fit.ci_upper,
            "tau2": s.fit.tau2,
            "single_record": s.single_record,
            "y": px_value(y),
            "x": {
                "estimate": at(s.fit.estimate)?,
                "ci_lower": at(s.fit.ci_lower)?,
                "ci_upper": at(s.fit.ci_upper)?,
            },
        }));
    }
    if let Some(rows) = numbers["rows"].as_array_mut() {
        for (row, level) in rows.iter_mut().zip(g.record_levels) {
            row["level"] = json!(level);
        }
    }
    let a = g.analysis;
    numbers["by"] = json!(g.by);
    numbers["subgroups"] = json!(subgroups);
    numbers["subgroup_differences"] = json!({
        "q_between": a.q_between,
        "q_between_df": a.q_between_df,
        "q_between_p": a.q_between_p,
        "qm_common_tau2": a.common_tau2.qm,
        "qm_common_tau2_p": a.common_tau2.qm_p,
    });
    Ok(())
}

/// The fit, checked for drawing.
struct Pooled<'a> {
    fit: &'a Fit,
}

impl<'a> Pooled<'a> {
    fn of(fit: &'a Fit, included: usize) -> Result<Self, PlotError> {
        if fit.k != included {
            return Err(PlotError::FitMismatch {
                fit_k: fit.k,
                included,
            });
        }
        finite(fit.estimate, "the pooled estimate")?;
        finite(fit.ci_lower, "the lower confidence limit")?;
        finite(fit.ci_upper, "the upper confidence limit")?;
        finite(fit.pi_lower, "the lower prediction limit")?;
        finite(fit.pi_upper, "the upper prediction limit")?;
        finite(fit.tau2, "tau²")?;
        finite(fit.level, "the confidence level")?;
        if fit.tau2 < 0.0 {
            return Err(PlotError::NegativeTau2 { tau2: fit.tau2 });
        }
        if !(fit.level > 0.0 && fit.level < 1.0) {
            return Err(PlotError::InvalidLevel { level: fit.level });
        }
        Ok(Pooled { fit })
    }

    /// A prediction interval belongs to a random-effects model.
    fn shows_pi(&self) -> bool {
        self.fit.method != Method::Ee
    }

    fn short_name(&self) -> String {
        match self.fit.method {
            Method::Ee => "EE model".into(),
            m => format!("RE model ({})", m.name()),
        }
    }

    fn long_name(&self) -> String {
        match self.fit.method {
            Method::Ee => "Equal-effects model".into(),
            m => format!("Random-effects model ({})", m.name()),
        }
    }
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
fn interval_text(t: Transform, estimate: f64, (lo, hi): (f64, f64)) -> String {
    format!(
        "{} [{}, {}]",
        shown(t, estimate),
        shown(t, lo),
        shown(t, hi)
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
        "Record",
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
            ("x", &px(WEIGHT_X)),
            ("y", &px(HEADER_Y)),
            ("text-anchor", "end"),
        ],
        "Weight",
    );
    w.close("g");
    w.empty(
        "line",
        &[
            ("x1", &px(LABEL_X)),
            ("y1", &px(HEADER_Y + 7.0)),
            ("x2", &px(WEIGHT_X)),
            ("y2", &px(HEADER_Y + 7.0)),
            ("stroke", INK),
            ("stroke-width", "0.5"),
        ],
    );
}

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
    let y = px(row.y + 4.0);
    w.text("text", &[("x", &px(LABEL_X)), ("y", &y)], &label);
    let (x1, x2, cy) = (px(x.map(row.ci.0)?), px(x.map(row.ci.1)?), px(row.y));
    let mut line = vec![
        ("class", "ci"),
        ("x1", x1.as_str()),
        ("y1", cy.as_str()),
        ("x2", x2.as_str()),
        ("y2", cy.as_str()),
        ("stroke", ink),
    ];
    if row.excluded {
        line.push(("stroke-dasharray", "4 2"));
    }
    w.empty("line", &line);
    let half = row.side / 2.0;
    let (fill, stroke) = if row.excluded {
        ("#ffffff", ink)
    } else {
        (INK, "none")
    };
    w.empty(
        "rect",
        &[
            ("class", "point"),
            ("x", &px(x.map(r.yi)? - half)),
            ("y", &px(row.y - half)),
            ("width", &px(row.side)),
            ("height", &px(row.side)),
            ("fill", fill),
            ("stroke", stroke),
        ],
    );
    w.text(
        "text",
        &[("x", &px(ESTIMATE_X)), ("y", &y), ("text-anchor", "end")],
        &interval_text(t, r.yi, row.ci),
    );
    w.text(
        "text",
        &[("x", &px(WEIGHT_X)), ("y", &y), ("text-anchor", "end")],
        if row.excluded { "–" } else { &weight_text },
    );
    w.close("g");
    Ok(())
}

fn draw_pooled(
    w: &mut Writer,
    t: Transform,
    p: &Pooled,
    x: &Linear,
    diamond_y: f64,
    pi_y: f64,
    level: f64,
) -> Result<(), ScaleError> {
    let f = p.fit;
    let (lo, mid, hi) = (x.map(f.ci_lower)?, x.map(f.estimate)?, x.map(f.ci_upper)?);
    let points = format!(
        "{},{} {},{} {},{} {},{}",
        px(lo),
        px(diamond_y),
        px(mid),
        px(diamond_y - DIAMOND_HALF_HEIGHT),
        px(hi),
        px(diamond_y),
        px(mid),
        px(diamond_y + DIAMOND_HALF_HEIGHT)
    );
    let y = px(diamond_y + 4.0);
    w.open("g", &[("class", "pooled"), ("font-weight", "bold")]);
    w.text(
        "title",
        &[],
        &format!(
            "Pooled estimate ({}, k = {}): {}",
            p.short_name(),
            f.k,
            interval_text(t, f.estimate, (f.ci_lower, f.ci_upper))
        ),
    );
    w.text("text", &[("x", &px(LABEL_X)), ("y", &y)], &p.short_name());
    w.empty(
        "polygon",
        &[("class", "diamond"), ("points", &points), ("fill", INK)],
    );
    w.text(
        "text",
        &[("x", &px(ESTIMATE_X)), ("y", &y), ("text-anchor", "end")],
        &interval_text(t, f.estimate, (f.ci_lower, f.ci_upper)),
    );
    w.text(
        "text",
        &[("x", &px(WEIGHT_X)), ("y", &y), ("text-anchor", "end")],
        "100%",
    );
    w.close("g");
    if !p.shows_pi() {
        return Ok(());
    }
    let (a, b) = (x.map(f.pi_lower)?, x.map(f.pi_upper)?);
    let y = px(pi_y + 4.0);
    w.open("g", &[("class", "prediction-interval")]);
    w.text(
        "title",
        &[],
        &format!(
            "{}% prediction interval [{}, {}]",
            percent(level),
            shown(t, f.pi_lower),
            shown(t, f.pi_upper)
        ),
    );
    w.text(
        "text",
        &[("x", &px(LABEL_X)), ("y", &y)],
        "Prediction interval",
    );
    w.empty(
        "rect",
        &[
            ("x", &px(a)),
            ("y", &px(pi_y - 1.5)),
            ("width", &px(b - a)),
            ("height", "3.00"),
            ("fill", INK),
        ],
    );
    for end in [a, b] {
        w.empty(
            "line",
            &[
                ("x1", &px(end)),
                ("y1", &px(pi_y - 5.0)),
                ("x2", &px(end)),
                ("y2", &px(pi_y + 5.0)),
                ("stroke", INK),
            ],
        );
    }
    w.text(
        "text",
        &[("x", &px(ESTIMATE_X)), ("y", &y), ("text-anchor", "end")],
        &format!("[{}, {}]", shown(t, f.pi_lower), shown(t, f.pi_upper)),
    );
    w.close("g");
    Ok(())
}

/// The lines under the axis: the model, heterogeneity, how rows were computed, exclusions.
fn notes(input: &ForestInput, pooled: &Option<Pooled>, level: f64) -> Vec<String> {
    let mut notes = Vec::new();
    match pooled {
        Some(p) => {
            let f = p.fit;
            notes.push(format!(
                "{}, {}: k = {}, τ² = {} (τ = {}), I² = {}%",
                p.long_name(),
                match f.test {
                    Test::Z => "z test",
                    Test::Knha => "Knapp–Hartung test",
                },
                f.k,
                fixed(f.tau2, 4),
                fixed(f.tau, 4),
                fixed(f.i2, 1)
            ));
            notes.push(format!(
                "Rows: yi ± {}·√vi ({}% CI); weights 1/(vi + τ²) as % of the total.",
                fixed(normal_quantile(1.0 - (1.0 - level) / 2.0), 2),
                percent(level)
            ));
        }
        None => {
            notes.push("No model fitted: no pooled estimate or weights are drawn.".into());
            notes.push("Rows: yi ± 1.96·√vi (95% CI).".into());
        }
    }
    if !input.excluded.is_empty() {
        let lead = if pooled.is_some() {
            "Excluded from the fit (grey, dashed, hollow, no weight): "
        } else {
            "Marked excluded (grey, dashed, hollow): "
        };
        let ids: Vec<String> = input
            .records
            .iter()
            .filter(|r| input.excluded.contains(&r.id))
            .map(|r| id_label(&r.id, 40))
            .collect();
        notes.extend(wrap(lead, &ids, NOTE_CHARS));
    }
    notes
}

/// `lead` followed by the items, comma-separated, broken into lines of about `width` chars.
fn wrap(lead: &str, items: &[String], width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = lead.to_string();
    let mut fresh = true;
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!("{item},")
        } else {
            format!("{item}.")
        };
        if !fresh && line.chars().count() + 1 + piece.chars().count() > width {
            lines.push(std::mem::take(&mut line));
            fresh = true;
        }
        if !fresh {
            line.push(' ');
        }
        line.push_str(&piece);
        fresh = false;
    }
    lines.push(line);
    lines
}

fn description(input: &ForestInput, rows: &[Row], pooled: &Option<Pooled>, level: f64) -> String {
    let mut d = format!(
        "Forest plot of {} records: each record's observed effect yi with its {}% confidence \
         interval{}.",
        rows.len(),
        percent(level),
        if pooled.is_some() {
            " and its weight in the fit"
        } else {
            ""
        }
    );
    if !input.excluded.is_empty() {
        let ids: Vec<String> = input.excluded.iter().map(|id| id_text(id)).collect();
        d.push_str(&format!(" Excluded: {}.", ids.join(", ")));
    }
    match pooled {
        Some(p) => {
            let f = p.fit;
            let t = input.transform;
            d.push_str(&format!(
                " Pooled estimate, {}, k = {}: {}, {}% CI {} to {}",
                p.long_name(),
                f.k,
                shown(t, f.estimate),
                percent(level),
                shown(t, f.ci_lower),
                shown(t, f.ci_upper)
            ));
            if p.shows_pi() {
                d.push_str(&format!(
                    "; {}% prediction interval {} to {}",
                    percent(level),
                    shown(t, f.pi_lower),
                    shown(t, f.pi_upper)
                ));
            }
            d.push_str(&format!("; τ² = {}.", fixed(f.tau2, 4)));
        }
        None => d.push_str(" No pooled estimate is drawn."),
    }
    d
}

fn numbers(
    rows: &[Row],
    pooled: &Option<Pooled>,
    x: &Linear,
    ticks: &[f64],
    level: f64,
    excluded: &[String],
) -> Result<Value, ScaleError> {
    let at = |v: f64| x.map(v).map(px_value);
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
                "x": {
                    "yi": at(row.record.yi)?,
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
        if p.shows_pi() {
            v["pi_lower"] = json!(f.pi_lower);
            v["pi_upper"] = json!(f.pi_upper);
            v["x"]["pi_lower"] = json!(at(f.pi_lower)?);
            v["x"]["pi_upper"] = json!(at(f.pi_upper)?);
        }
        Ok(v)
    });
    let pooled = pooled.transpose()?;
    Ok(json!({
        "plot": "forest",
        "level": level,
        "x_axis": {
            "domain": [x.domain.0, x.domain.1],
            "range": [x.range.0, x.range.1],
            "ticks": ticks,
        },
        "rows": rows,
        "excluded": excluded,
        "pooled": pooled,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_wrap_long_exclusion_lists() {
        let ids: Vec<String> = (0..40).map(|i| format!("record-{i:03}")).collect();
        let lines = wrap("Excluded: ", &ids, 60);
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| l.chars().count() <= 60));
        assert!(lines.last().unwrap().ends_with("record-039."));
    }

    #[test]
    fn percent_drops_needless_decimals() {
        assert_eq!(percent(0.95), "95");
        assert_eq!(percent(0.975), "97.5");
    }
}
