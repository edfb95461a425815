//! The funnel plot: yi against its standard error (0 at the top), the pseudo 95% confidence
//! funnel around a pooled estimate, and Egger's regression line.

use super::document;
use super::scale::{natural_ticks, nice, span, Labelled, Linear, ScaleError};
use super::svg::{fixed, px, px_value, Writer};
use super::{
    axis, finite, id_label, id_text, p_text, validate, PlotError, PlotOutput, FILL, GREY, INK,
};
use meta_analysis::distributions::normal_quantile;
use meta_analysis::{Record, Transform};
use serde_json::{json, Value};

/// The most records a funnel plot draws.
pub const MAX_FUNNEL_RECORDS: usize = 10_000;

/// Egger's regression, as a line in the funnel's (yi, SE) coordinates.
///
/// The classic test fits yᵢ/SEᵢ = b₀ + b₁·(1/SEᵢ) by OLS (Egger et al. 1997); multiplying by
/// SEᵢ gives yᵢ = b₁ + b₀·SEᵢ, a straight line in the funnel: b₁ is where it meets SE = 0 and
/// the asymmetry term b₀ is its slope per unit of SE. (For the "rma" variant,
/// yᵢ = β₀ + β₁·SEᵢ directly.) The fields are named for what they are in the funnel, as
/// `meta_analysis::EggerResult` names them, and passed through unchanged.
#[derive(Debug, Clone, Copy)]
pub struct EggerLine<'a> {
    /// The variant's name, for the label ("classic").
    pub variant: &'a str,
    /// The line's change per unit of SE (classic: b₀; rma: β₁).
    pub line_per_se: f64,
    /// The line's value at SE = 0 (classic: b₁; rma: β₀).
    pub line_at_se0: f64,
    /// The test's two-sided p value.
    pub p: f64,
    /// The benchmark's registered rule's outcome for `p` ("passed", "failed" or
    /// "inconclusive"), on the frozen dataset only; `None` leaves it out of every text.
    pub rule_outcome: Option<&'a str>,
}

impl EggerLine<'_> {
    /// "yi = b₁ + b₀·SE; p = …", and the rule's outcome where there is one.
    fn summary(&self) -> String {
        let mut s = format!(
            "yi = {} + {}·SE; {}",
            fixed(self.line_at_se0, 3),
            fixed(self.line_per_se, 3),
            p_text(self.p)
        );
        if let Some(outcome) = self.rule_outcome {
            s.push_str(&format!(", rule outcome: {outcome}"));
        }
        s
    }
}

/// Trim-and-fill's additions to a funnel: the filled records, drawn open, and the adjusted
/// estimate (the `pooled` of [`FunnelInput`], then labelled as such).
#[derive(Debug, Clone, Copy)]
pub struct Filled<'a> {
    /// The filled records (yᵢ, vᵢ).
    pub records: &'a [(f64, f64)],
    /// "L0" or "R0".
    pub estimator: &'a str,
    /// "left" or "right".
    pub side: &'a str,
}

/// What a funnel plot shows.
#[derive(Debug, Clone, Copy)]
pub struct FunnelInput<'a> {
    /// All records (excluded ones are drawn hollow, grey and labelled).
    pub records: &'a [Record],
    /// Ids left out of the analysis the pooled estimate and Egger line come from.
    pub excluded: &'a [String],
    /// The pooled estimate the pseudo 95% funnel is centred on; `None` draws the points only
    /// (as before any fit: no pooled result is shown).
    pub pooled: Option<f64>,
    /// Egger's regression line with its p value (and the rule's outcome on the frozen
    /// dataset), after the test has been run; `None` draws neither the line nor its legend.
    pub egger: Option<EggerLine<'a>>,
    /// Trim-and-fill's filled records; with it, `pooled` is the adjusted estimate.
    pub filled: Option<Filled<'a>>,
    pub title: &'a str,
    /// The line under the title (what was fitted, on which data).
    pub subtitle: Option<&'a str>,
    /// The effect measure, written under the x axis.
    pub x_label: &'a str,
    /// The scale the x axis' tick labels and the pooled estimate's text are written on, as
    /// metafor's `funnel(atransf =)`: positions stay on yi's scale (a log axis for ratios).
    pub transform: Transform,
}

/// Drawn for a phone, as the diagnostic plots: 390 wide, so text of 12 (legend 11) stays at
/// least 11 px when the plot is drawn 390 px wide.
const WIDTH: f64 = 390.0;
const PLOT_X0: f64 = 62.0;
const PLOT_X1: f64 = 376.0;
const PLOT_Y0: f64 = 56.0;
const PLOT_Y1: f64 = 336.0;
const FONT: f64 = 12.0;
const RADIUS: f64 = 3.5;
const LEGEND_Y: f64 = PLOT_Y1 + 58.0;
const LEGEND_STEP: f64 = 15.0;
/// The legend's samples, left of its text.
const SAMPLE_X0: f64 = 12.0;
const SAMPLE_X1: f64 = 36.0;
const LISTED_IDS: usize = 12;

/// The most significance contours a funnel draws.
pub const MAX_CONTOURS: usize = 5;

/// Draws a funnel plot.
pub fn funnel(input: &FunnelInput) -> Result<PlotOutput, PlotError> {
    funnel_with_contours(input, &[])
}

/// Draws a contour-enhanced funnel plot (Peters et al. 2008, *Journal of Clinical
/// Epidemiology* 61, 991–996), as metafor's `funnel(res, level = c(90, 95, 99), refline = 0)`:
/// for each confidence level c the region 0 ± z₍₁₊c₎/₂·SE, where a record's two-sided p value
/// of yi = 0 is above 1 − c, shaded the lighter the closer to 0 (white inside the smallest
/// level, the darkest beyond the largest); the pseudo confidence funnel around the pooled
/// estimate gives way to them (its vertical line stays). No contours: [`funnel`].
pub fn funnel_with_contours(
    input: &FunnelInput,
    contours: &[f64],
) -> Result<PlotOutput, PlotError> {
    let levels = contour_levels(contours)?;
    let is_excluded = validate(input.records, input.excluded, "funnel", MAX_FUNNEL_RECORDS)?;
    let filled = check(input)?;
    let z = normal_quantile(0.975);
    let se: Vec<f64> = input.records.iter().map(|r| r.vi.sqrt()).collect();
    let filled_se: Vec<f64> = filled.iter().map(|f| f.1.sqrt()).collect();
    let (y, y_ticks) = se_scale(&se, &filled_se)?;
    let se_max = y_ticks.domain.1;
    let (x, x_ticks) = x_scale(input, filled, z, se_max, &levels)?;
    let domain = x_ticks.domain;
    let egger_segment = input.egger.as_ref().and_then(|e| clip(e, domain, se_max));

    let legend = legend(input, &is_excluded, z, &levels);
    let lines: usize = legend
        .iter()
        .map(|(_, text)| legend_lines(text).len())
        .sum();
    let height = LEGEND_Y + (lines as f64 - 1.0) * LEGEND_STEP + 16.0;
    let mut numbers = numbers(
        input,
        &is_excluded,
        &se,
        &x,
        &y,
        z,
        egger_segment,
        &x_ticks,
        &y_ticks,
    )?;
    if !levels.is_empty() {
        numbers["contours"] = contour_numbers(&levels, se_max, &x, &y)?;
    }
    let mut desc = description(input, z);
    if !levels.is_empty() {
        let names: Vec<String> = levels.iter().map(|c| percent(*c)).collect();
        desc.push_str(&format!(
            " Shaded significance contours around 0 at {} (the p value of each record's yi = 0).",
            names.join(", ")
        ));
    }

    let mut w = Writer::default();
    document::open(
        &mut w,
        "funnel",
        (WIDTH, height),
        input.title,
        &desc,
        &numbers,
    );
    if let Some(subtitle) = input.subtitle {
        document::subtitle(&mut w, subtitle);
    }
    let x_attr = format!("{} {}", domain.0, domain.1);
    let y_attr = format!("0 {se_max}");
    w.open(
        "g",
        &[
            ("class", "plot-area"),
            ("data-x-domain", &x_attr),
            ("data-x-range", &format!("{} {}", px(PLOT_X0), px(PLOT_X1))),
            ("data-y-domain", &y_attr),
            ("data-y-range", &format!("{} {}", px(PLOT_Y0), px(PLOT_Y1))),
        ],
    );
    if !levels.is_empty() {
        draw_contours(&mut w, &levels, se_max, &x, &y)?;
    }
    document::frame(&mut w, (PLOT_X0, PLOT_X1), (PLOT_Y0, PLOT_Y1));
    if let Some(p) = input.pooled {
        draw_funnel(&mut w, p, z, se_max, &x, &y, levels.is_empty())?;
    }
    if let (Some(e), Some(seg)) = (&input.egger, egger_segment) {
        let title = format!("Egger's regression line: {}", e.summary());
        w.open("g", &[("class", "egger-line")]);
        w.text("title", &[], &title);
        egger_stroke(
            &mut w,
            (x.map(seg.0 .1)?, y.map(seg.0 .0)?),
            (x.map(seg.1 .1)?, y.map(seg.1 .0)?),
        );
        w.close("g");
    }
    for ((r, &excluded), s) in input.records.iter().zip(&is_excluded).zip(&se) {
        draw_point(&mut w, r, *s, excluded, &x, &y)?;
    }
    for (i, (&(yi, _), s)) in filled.iter().zip(&filled_se).enumerate() {
        draw_filled(&mut w, i, yi, *s, &x, &y)?;
    }
    w.close("g");
    axis::bottom(&mut w, &x, &x_ticks, PLOT_Y1, input.x_label)?;
    axis::left(&mut w, &y, &y_ticks, PLOT_X0, "Standard error (√vi)")?;
    draw_legend(&mut w, &legend);
    Ok(document::finish(w, numbers))
}

/// The pooled estimate, Egger's line and the filled records are finite (a filled record's
/// variance positive): the filled records.
fn check<'a>(input: &FunnelInput<'a>) -> Result<&'a [(f64, f64)], PlotError> {
    if let Some(p) = input.pooled {
        finite(p, "the pooled estimate")?;
    }
    if let Some(e) = &input.egger {
        finite(e.line_per_se, "Egger's intercept b0")?;
        finite(e.line_at_se0, "Egger's slope b1")?;
        if !(0.0..=1.0).contains(&e.p) {
            return Err(PlotError::InvalidPValue { p: e.p });
        }
    }
    let filled: &[(f64, f64)] = input.filled.map_or(&[], |f| f.records);
    for &(yi, vi) in filled {
        finite(yi, "a filled record's yi")?;
        if !(vi.is_finite() && vi > 0.0) {
            return Err(PlotError::InvalidFilledVariance { vi });
        }
    }
    Ok(filled)
}

/// The standard-error axis, 0 at the top: every point's SE with 2% room so no point sits on
/// the frame.
fn se_scale(se: &[f64], filled_se: &[f64]) -> Result<(Linear, Labelled), PlotError> {
    let se_top = se.iter().chain(filled_se).copied().fold(0.0, f64::max);
    let mut y_ticks = Labelled::plain(&nice(0.0, 1.02 * se_top, 5)?);
    // Standard errors so small that the axis was widened around 0 get no negative ticks.
    let negative = y_ticks.values.iter().take_while(|v| **v < 0.0).count();
    y_ticks.values.drain(..negative);
    y_ticks.labels.drain(..negative);
    let y = Linear::new((0.0, y_ticks.domain.1), (PLOT_Y0, PLOT_Y1))?;
    Ok((y, y_ticks))
}

/// The effect-size axis: every yi, the pseudo-confidence funnel at the largest SE and the
/// widest contour, with 2% room, ticks on the natural scale.
fn x_scale(
    input: &FunnelInput,
    filled: &[(f64, f64)],
    z: f64,
    se_max: f64,
    levels: &[f64],
) -> Result<(Linear, Labelled), PlotError> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for yi in input
        .records
        .iter()
        .map(|r| r.yi)
        .chain(filled.iter().map(|f| f.0))
    {
        lo = lo.min(yi);
        hi = hi.max(yi);
    }
    if let Some(p) = input.pooled {
        lo = lo.min(p - z * se_max);
        hi = hi.max(p + z * se_max);
    }
    if let Some(widest) = levels.last() {
        let reach = critical(*widest) * se_max;
        lo = lo.min(-reach);
        hi = hi.max(reach);
    }
    // The error names the data's extent, not the padded one.
    let too_wide = ScaleError::Span { lo, hi };
    let pad = 0.02 * span(lo, hi)?;
    let x_ticks = natural_ticks(lo - pad, hi + pad, input.transform, PLOT_X1 - PLOT_X0, FONT)
        .map_err(|_| too_wide)?;
    let x = Linear::new(x_ticks.domain, (PLOT_X0, PLOT_X1))?;
    Ok((x, x_ticks))
}

/// The part of the line yi = b₁ + b₀·SE, SE ∈ [0, se_max], inside the x domain, as
/// ((se, yi), (se, yi)) from the top down; `None` when it misses the plot. The ends are kept
/// inside the domain: rounding (or a slope so steep that b₀·SE overflows) cannot push them
/// off the plot.
#[allow(clippy::type_complexity)]
fn clip(e: &EggerLine, (d0, d1): (f64, f64), se_max: f64) -> Option<((f64, f64), (f64, f64))> {
    let at = |s: f64| {
        // b₁ is finite and s ∈ [0, se_max], so only b₀·SE can overflow (to ±∞, never NaN).
        (e.line_at_se0 + e.line_per_se * s).max(d0).min(d1)
    };
    let (mut s0, mut s1) = (0.0f64, se_max);
    if e.line_per_se == 0.0 {
        if !(d0..=d1).contains(&e.line_at_se0) {
            return None;
        }
    } else {
        let a = (d0 - e.line_at_se0) / e.line_per_se;
        let b = (d1 - e.line_at_se0) / e.line_per_se;
        s0 = s0.max(a.min(b));
        s1 = s1.min(a.max(b));
        if s0 >= s1 {
            return None;
        }
    }
    Some(((s0, at(s0)), (s1, at(s1))))
}

fn draw_funnel(
    w: &mut Writer,
    pooled: f64,
    z: f64,
    se_max: f64,
    x: &Linear,
    y: &Linear,
    limits: bool,
) -> Result<(), ScaleError> {
    let top = (px(x.map(pooled)?), px(y.map(0.0)?));
    let left = (px(x.map(pooled - z * se_max)?), px(y.map(se_max)?));
    let right = (px(x.map(pooled + z * se_max)?), px(y.map(se_max)?));
    w.open("g", &[("class", "funnel")]);
    if !limits {
        w.text(
            "title",
            &[],
            &format!("Pooled estimate {}", fixed(pooled, 2)),
        );
        pooled_line(w, &top, &left.1);
        w.close("g");
        return Ok(());
    }
    w.text(
        "title",
        &[],
        &format!(
            "Pseudo 95% confidence limits around the pooled estimate {}: pooled ± {}·SE",
            fixed(pooled, 2),
            fixed(z, 2)
        ),
    );
    let points = format!(
        "{},{} {},{} {},{}",
        top.0, top.1, right.0, right.1, left.0, left.1
    );
    w.empty("polygon", &[("points", &points), ("fill", FILL)]);
    for end in [&left, &right] {
        w.empty(
            "line",
            &[
                ("class", "funnel-limit"),
                ("x1", &top.0),
                ("y1", &top.1),
                ("x2", &end.0),
                ("y2", &end.1),
                ("stroke", INK),
                ("stroke-dasharray", "5 3"),
            ],
        );
    }
    pooled_line(w, &top, &left.1);
    w.close("g");
    Ok(())
}

/// The vertical line of the pooled estimate, from `top` down to `bottom`.
fn pooled_line(w: &mut Writer, top: &(String, String), bottom: &str) {
    w.empty(
        "line",
        &[
            ("class", "pooled-line"),
            ("x1", &top.0),
            ("y1", &top.1),
            ("x2", &top.0),
            ("y2", bottom),
            ("stroke", INK),
        ],
    );
}

/// The contour levels sorted, each once; a level not strictly between 0 and 1, or more than
/// [`MAX_CONTOURS`] of them, is refused.
fn contour_levels(contours: &[f64]) -> Result<Vec<f64>, PlotError> {
    for &level in contours {
        if !(level > 0.0 && level < 1.0) {
            return Err(PlotError::InvalidContour { level });
        }
    }
    let mut levels = contours.to_vec();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    if levels.len() > MAX_CONTOURS {
        return Err(PlotError::TooManyContours {
            max: MAX_CONTOURS,
            got: levels.len(),
        });
    }
    Ok(levels)
}

/// z₍₁₊c₎/₂: the half-width of level c's region per unit of SE.
fn critical(level: f64) -> f64 {
    normal_quantile(0.5 + level / 2.0)
}

/// The fills of the regions from the inside out: white inside the smallest level, each
/// further region darker (never the only cue: the legend names each and dotted lines bound
/// them).
const CONTOUR_FILLS: [&str; MAX_CONTOURS + 1] = [
    "#ffffff", "#ebebeb", "#d6d6d6", "#c2c2c2", "#adadad", "#999999",
];

/// "90%" or "99.5%".
fn percent(level: f64) -> String {
    trimmed(level * 100.0) + "%"
}

/// A number with at most 4 decimals and no trailing zeros (0.05, not 0.050000000000000044).
fn trimmed(x: f64) -> String {
    let s = fixed(x, 4);
    let s = s.trim_end_matches('0');
    s.trim_end_matches('.').to_string()
}

/// The p values of region i (0: inside the smallest level) of the sorted `levels`.
fn region_text(levels: &[f64], i: usize) -> String {
    let alpha = |c: f64| trimmed(1.0 - c);
    match i {
        0 => format!("p > {}", alpha(levels[0])),
        i if i == levels.len() => format!("p ≤ {}", alpha(levels[i - 1])),
        i => format!("{} < p ≤ {}", alpha(levels[i]), alpha(levels[i - 1])),
    }
}

fn draw_contours(
    w: &mut Writer,
    levels: &[f64],
    se_max: f64,
    x: &Linear,
    y: &Linear,
) -> Result<(), ScaleError> {
    let n = levels.len();
    w.open("g", &[("class", "contours")]);
    w.text(
        "title",
        &[],
        "Significance contours around 0: the p value of each record's yi = 0",
    );
    w.open(
        "rect",
        &[
            ("class", "contour-region"),
            ("x", &px(PLOT_X0)),
            ("y", &px(PLOT_Y0)),
            ("width", &px(PLOT_X1 - PLOT_X0)),
            ("height", &px(PLOT_Y1 - PLOT_Y0)),
            ("fill", CONTOUR_FILLS[n]),
        ],
    );
    w.text("title", &[], &region_text(levels, n));
    w.close("rect");
    let (x0, y0, y1) = (px(x.map(0.0)?), px(y.map(0.0)?), px(y.map(se_max)?));
    for (i, &level) in levels.iter().enumerate().rev() {
        let reach = critical(level) * se_max;
        let (left, right) = (px(x.map(-reach)?), px(x.map(reach)?));
        let points = format!("{x0},{y0} {right},{y1} {left},{y1}");
        w.open(
            "polygon",
            &[
                ("class", "contour-region"),
                ("data-level", &trimmed(level)),
                ("points", &points),
                ("fill", CONTOUR_FILLS[i]),
            ],
        );
        w.text("title", &[], &region_text(levels, i));
        w.close("polygon");
        for end in [&left, &right] {
            w.empty(
                "line",
                &[
                    ("class", "contour-limit"),
                    ("x1", &x0),
                    ("y1", &y0),
                    ("x2", end),
                    ("y2", &y1),
                    ("stroke", GREY),
                    ("stroke-dasharray", "1 2"),
                ],
            );
        }
    }
    w.close("g");
    Ok(())
}

/// Each level with its critical value and its region's edges at the largest SE.
fn contour_numbers(
    levels: &[f64],
    se_max: f64,
    x: &Linear,
    y: &Linear,
) -> Result<Value, ScaleError> {
    let mut out = Vec::with_capacity(levels.len());
    for (i, &level) in levels.iter().enumerate() {
        let z = critical(level);
        out.push(json!({
            "level": level,
            "z": z,
            "inside": region_text(levels, i),
            "at_se_max": {
                "se": se_max,
                "lower": -z * se_max,
                "upper": z * se_max,
                "x_lower": px_value(x.map(-z * se_max)?),
                "x_upper": px_value(x.map(z * se_max)?),
                "y": px_value(y.map(se_max)?),
            },
        }));
    }
    Ok(Value::Array(out))
}

fn egger_stroke(w: &mut Writer, (x1, y1): (f64, f64), (x2, y2): (f64, f64)) {
    w.empty(
        "line",
        &[
            ("x1", &px(x1)),
            ("y1", &px(y1)),
            ("x2", &px(x2)),
            ("y2", &px(y2)),
            ("stroke", INK),
            ("stroke-width", "2"),
            ("stroke-dasharray", "9 3 2 3"),
        ],
    );
}

fn draw_point(
    w: &mut Writer,
    r: &Record,
    se: f64,
    excluded: bool,
    x: &Linear,
    y: &Linear,
) -> Result<(), ScaleError> {
    let (cx, cy) = (x.map(r.yi)?, y.map(se)?);
    let attrs = [
        ("class", "point"),
        ("data-id", r.id.as_str()),
        ("data-excluded", if excluded { "true" } else { "false" }),
        ("cx", &px(cx)),
        ("cy", &px(cy)),
        ("r", &px(RADIUS)),
        ("fill", if excluded { "#ffffff" } else { INK }),
        ("stroke", if excluded { GREY } else { INK }),
        ("stroke-width", if excluded { "1.5" } else { "1" }),
    ];
    w.open("circle", &attrs);
    w.text(
        "title",
        &[],
        &format!(
            "{}: yi = {}, SE = {}{}",
            id_text(&r.id),
            fixed(r.yi, 2),
            fixed(se, 3),
            if excluded { " (excluded)" } else { "" }
        ),
    );
    w.close("circle");
    if excluded {
        // The label goes on the side with more room, so it stays inside the plot.
        let (lx, anchor) = if cx > (PLOT_X0 + PLOT_X1) / 2.0 {
            (cx - RADIUS - 3.0, "end")
        } else {
            (cx + RADIUS + 3.0, "start")
        };
        w.text(
            "text",
            &[
                ("class", "point-label"),
                ("x", &px(lx)),
                ("text-anchor", anchor),
                ("y", &px(cy + 4.0)),
                ("fill", GREY),
                ("font-size", "11"),
            ],
            &format!("{} (excluded)", id_label(&r.id, 16)),
        );
    }
    Ok(())
}

/// A filled record: an open circle with a black outline (excluded records are grey), titled
/// "Filled n".
fn draw_filled(
    w: &mut Writer,
    index: usize,
    yi: f64,
    se: f64,
    x: &Linear,
    y: &Linear,
) -> Result<(), ScaleError> {
    let label = filled_label(index);
    w.open(
        "circle",
        &[
            ("class", "point filled"),
            ("data-filled", &label),
            ("cx", &px(x.map(yi)?)),
            ("cy", &px(y.map(se)?)),
            ("r", &px(RADIUS)),
            ("fill", "#ffffff"),
            ("stroke", INK),
            ("stroke-width", "1.5"),
        ],
    );
    w.text(
        "title",
        &[],
        &format!(
            "{label} (trim-and-fill): yi = {}, SE = {}",
            fixed(yi, 2),
            fixed(se, 3)
        ),
    );
    w.close("circle");
    Ok(())
}

/// metafor's label of the n-th filled record, counting from 1.
fn filled_label(index: usize) -> String {
    format!("Filled {}", index + 1)
}

/// A legend entry: which sample to draw and its text.
enum Sample {
    Region { fill: &'static str },
    Point { excluded: bool },
    Filled,
    Pooled,
    Limits,
    Egger,
}

fn legend(
    input: &FunnelInput,
    is_excluded: &[bool],
    z: f64,
    levels: &[f64],
) -> Vec<(Sample, String)> {
    let included = is_excluded.iter().filter(|e| !**e).count();
    let mut items = Vec::new();
    if input.excluded.is_empty() {
        items.push((
            Sample::Point { excluded: false },
            format!("Record (k = {included})"),
        ));
    } else {
        items.push((
            Sample::Point { excluded: false },
            format!("Included record (k = {included})"),
        ));
        let ids: Vec<String> = input
            .records
            .iter()
            .zip(is_excluded)
            .filter(|(_, e)| **e)
            .map(|(r, _)| id_label(&r.id, 24))
            .collect();
        let mut listed = ids
            .iter()
            .take(LISTED_IDS)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if ids.len() > LISTED_IDS {
            listed.push_str(&format!(" and {} more", ids.len() - LISTED_IDS));
        }
        items.push((
            Sample::Point { excluded: true },
            format!("Excluded record: {listed}"),
        ));
    }
    if let Some(f) = &input.filled {
        items.push((
            Sample::Filled,
            format!(
                "Filled record, trim-and-fill {} on the {} (k0 = {})",
                f.estimator,
                f.side,
                f.records.len()
            ),
        ));
    }
    if let Some(p) = input.pooled {
        let (what, short) = match input.filled {
            Some(_) => ("Adjusted estimate", "adjusted"),
            None => ("Pooled estimate", "pooled"),
        };
        items.push((
            Sample::Pooled,
            format!("{what} {}", fixed(input.transform.apply(p), 2)),
        ));
        if levels.is_empty() {
            items.push((
                Sample::Limits,
                format!("Pseudo 95% confidence limits: {short} ± {}·SE", fixed(z, 2)),
            ));
        }
    }
    if let Some(e) = &input.egger {
        items.push((
            Sample::Egger,
            format!("Egger's regression ({}): {}", e.variant, e.summary()),
        ));
    }
    let regions = if levels.is_empty() {
        0
    } else {
        levels.len() + 1
    };
    for (i, fill) in CONTOUR_FILLS.iter().take(regions).enumerate() {
        items.push((
            Sample::Region { fill },
            format!("Contour region {}", region_text(levels, i)),
        ));
    }
    items
}

/// A legend entry's text, wrapped to the room right of its sample.
fn legend_lines(text: &str) -> Vec<String> {
    document::wrap(text, WIDTH - SAMPLE_X1 - 8.0 - 6.0, document::NOTE_FONT)
}

fn draw_legend(w: &mut Writer, items: &[(Sample, String)]) {
    w.open("g", &[("class", "legend"), ("font-size", "11")]);
    let mut line = 0;
    for (sample, text) in items {
        let y = LEGEND_Y + line as f64 * LEGEND_STEP;
        let mid = (SAMPLE_X0 + SAMPLE_X1) / 2.0;
        match sample {
            Sample::Region { fill } => w.empty(
                "rect",
                &[
                    ("x", &px(SAMPLE_X0)),
                    ("y", &px(y - 10.0)),
                    ("width", &px(SAMPLE_X1 - SAMPLE_X0)),
                    ("height", "12.00"),
                    ("fill", fill),
                    ("stroke", GREY),
                ],
            ),
            Sample::Filled => w.empty(
                "circle",
                &[
                    ("cx", &px(mid)),
                    ("cy", &px(y - 4.0)),
                    ("r", &px(RADIUS)),
                    ("fill", "#ffffff"),
                    ("stroke", INK),
                    ("stroke-width", "1.5"),
                ],
            ),
            Sample::Point { excluded } => w.empty(
                "circle",
                &[
                    ("cx", &px(mid)),
                    ("cy", &px(y - 4.0)),
                    ("r", &px(RADIUS)),
                    ("fill", if *excluded { "#ffffff" } else { INK }),
                    ("stroke", if *excluded { GREY } else { INK }),
                    ("stroke-width", if *excluded { "1.5" } else { "1" }),
                ],
            ),
            Sample::Pooled | Sample::Limits => {
                let (x1, x2, ly) = (px(SAMPLE_X0), px(SAMPLE_X1), px(y - 4.0));
                let mut attrs = vec![
                    ("x1", x1.as_str()),
                    ("y1", ly.as_str()),
                    ("x2", x2.as_str()),
                    ("y2", ly.as_str()),
                    ("stroke", INK),
                ];
                if matches!(sample, Sample::Limits) {
                    attrs.push(("stroke-dasharray", "5 3"));
                }
                w.empty("line", &attrs);
            }
            Sample::Egger => egger_stroke(w, (SAMPLE_X0, y - 4.0), (SAMPLE_X1, y - 4.0)),
        }
        for (i, part) in legend_lines(text).iter().enumerate() {
            let y = y + i as f64 * LEGEND_STEP;
            w.text("text", &[("x", &px(SAMPLE_X1 + 8.0)), ("y", &px(y))], part);
            line += 1;
        }
    }
    w.close("g");
}

fn description(input: &FunnelInput, z: f64) -> String {
    let mut d = format!(
        "Funnel plot of {} records: each record's observed effect yi (horizontal) against its \
         standard error √vi (vertical, 0 at the top).",
        input.records.len()
    );
    if !input.excluded.is_empty() {
        let ids: Vec<String> = input.excluded.iter().map(|id| id_text(id)).collect();
        d.push_str(&format!(" Excluded: {}.", ids.join(", ")));
    }
    if let Some(f) = &input.filled {
        d.push_str(&format!(
            " Trim-and-fill ({}) estimates {} missing record{} on the {}, drawn as open circles.",
            f.estimator,
            f.records.len(),
            if f.records.len() == 1 { "" } else { "s" },
            f.side
        ));
    }
    let what = if input.filled.is_some() {
        "adjusted"
    } else {
        "pooled"
    };
    match input.pooled {
        Some(p) => d.push_str(&format!(
            " Pseudo 95% confidence limits ({what} ± {}·SE) around the {what} estimate {}.",
            fixed(z, 2),
            fixed(p, 2)
        )),
        None => d.push_str(" No pooled estimate is drawn."),
    }
    if let Some(e) = &input.egger {
        d.push_str(&format!(
            " Egger's regression line ({}): {}.",
            e.variant,
            e.summary()
        ));
    }
    d
}

#[allow(clippy::too_many_arguments)]
fn numbers(
    input: &FunnelInput,
    is_excluded: &[bool],
    se: &[f64],
    x: &Linear,
    y: &Linear,
    z: f64,
    egger_segment: Option<((f64, f64), (f64, f64))>,
    x_ticks: &Labelled,
    y_ticks: &Labelled,
) -> Result<Value, ScaleError> {
    let at_x = |v: f64| x.map(v).map(px_value);
    let at_y = |v: f64| y.map(v).map(px_value);
    let points = input
        .records
        .iter()
        .zip(is_excluded)
        .zip(se)
        .map(|((r, e), s)| {
            Ok(json!({
                "id": r.id,
                "yi": r.yi,
                "se": s,
                "excluded": e,
                "x": at_x(r.yi)?,
                "y": at_y(*s)?,
            }))
        })
        .collect::<Result<Vec<Value>, ScaleError>>()?;
    let se_max = y.domain.1;
    let pooled = input
        .pooled
        .map(|p| {
            Ok::<_, ScaleError>(json!({
                "estimate": p,
                "z": z,
                "x": at_x(p)?,
                "funnel_at_se_max": {
                    "se": se_max,
                    "lower": p - z * se_max,
                    "upper": p + z * se_max,
                    "x_lower": at_x(p - z * se_max)?,
                    "x_upper": at_x(p + z * se_max)?,
                    "y": at_y(se_max)?,
                },
            }))
        })
        .transpose()?;
    let end = |(s, yi): (f64, f64)| -> Result<Value, ScaleError> {
        Ok(json!({ "se": s, "yi": yi, "x": at_x(yi)?, "y": at_y(s)? }))
    };
    let line = match egger_segment {
        Some((a, b)) => Some(json!({ "from": end(a)?, "to": end(b)? })),
        None => None,
    };
    let egger = input.egger.as_ref().map(|e| {
        json!({
            "variant": e.variant,
            "line_per_se": e.line_per_se,
            "line_at_se0": e.line_at_se0,
            "p": e.p,
            "rule_outcome": e.rule_outcome,
            "line": line,
        })
    });
    let mut numbers = json!({
        "plot": "funnel",
        "x_axis": axis::numbers(x, x_ticks),
        "y_axis": {
            "quantity": "standard error",
            "domain": [y.domain.0, y.domain.1],
            "range": [y.range.0, y.range.1],
            "ticks": y_ticks.values,
        },
        "points": points,
        "excluded": input.excluded,
        "pooled": pooled,
        "egger": egger,
    });
    if let Some(f) = &input.filled {
        let filled = f
            .records
            .iter()
            .enumerate()
            .map(|(i, &(yi, vi))| {
                let s = vi.sqrt();
                Ok(json!({"label": filled_label(i), "yi": yi, "se": s, "x": at_x(yi)?, "y": at_y(s)?}))
            })
            .collect::<Result<Vec<Value>, ScaleError>>()?;
        numbers["filled"] = json!({"estimator": f.estimator, "side": f.side, "k0": f.records.len(), "points": filled});
    }
    Ok(numbers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(b0: f64, b1: f64) -> EggerLine<'static> {
        EggerLine {
            variant: "classic",
            line_per_se: b0,
            line_at_se0: b1,
            p: 0.5,
            rule_outcome: Some("passed"),
        }
    }

    #[test]
    fn egger_line_is_clipped_to_the_plot() {
        // yi = 0.1 + 2·SE over SE ∈ [0, 0.4], x ∈ [-1, 0.5]: leaves the plot at SE = 0.2.
        let ((s0, y0), (s1, y1)) = clip(&line(2.0, 0.1), (-1.0, 0.5), 0.4).unwrap();
        assert_eq!((s0, y0), (0.0, 0.1));
        assert!((s1 - 0.2).abs() < 1e-12 && (y1 - 0.5).abs() < 1e-12);
        // Vertical lines stay whole when inside, vanish when outside.
        assert_eq!(
            clip(&line(0.0, 0.1), (-1.0, 0.5), 0.4),
            Some(((0.0, 0.1), (0.4, 0.1)))
        );
        assert_eq!(clip(&line(0.0, 3.0), (-1.0, 0.5), 0.4), None);
        assert_eq!(clip(&line(1.0, 3.0), (-1.0, 0.5), 0.4), None);
    }

    /// Issue 32: contours shade 0 ± z·SE for each level, widest darkest, and the pseudo
    /// funnel around the pooled estimate gives way to them.
    #[test]
    fn contours_shade_p_value_regions_around_zero() {
        let records: Vec<Record> = [(0.1, 0.01), (0.3, 0.04), (-0.2, 0.09), (0.5, 0.16)]
            .iter()
            .enumerate()
            .map(|(i, &(yi, vi))| Record::new(format!("r{i}"), yi, vi))
            .collect();
        let input = FunnelInput {
            records: &records,
            excluded: &[],
            pooled: Some(0.1),
            egger: None,
            filled: None,
            title: "t",
            x_label: "x",
            subtitle: None,
            transform: meta_analysis::Transform::None,
        };
        let out = funnel_with_contours(&input, &[0.99, 0.9, 0.95, 0.9]).unwrap();
        let c = out.numbers["contours"].as_array().unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c[0]["level"], 0.9);
        assert_eq!(c[2]["level"], 0.99);
        let z = c[1]["z"].as_f64().unwrap();
        assert!((z - 1.959963984540054).abs() < 1e-12);
        let se_max = c[1]["at_se_max"]["se"].as_f64().unwrap();
        assert_eq!(c[1]["at_se_max"]["upper"].as_f64().unwrap(), z * se_max);
        assert_eq!(c[0]["inside"], "p > 0.1");
        assert_eq!(c[1]["inside"], "0.05 < p ≤ 0.1");
        // Three polygons and the background, each titled with its p values.
        assert_eq!(out.svg.matches("class=\"contour-region\"").count(), 4);
        assert!(out.svg.contains("Contour region p ≤ 0.01"));
        assert!(!out.svg.contains("funnel-limit"));
        assert!(out.svg.contains("pooled-line"));
        // The widest region fits on the axis.
        let d = out.numbers["x_axis"]["domain"].as_array().unwrap();
        let reach = c[2]["at_se_max"]["upper"].as_f64().unwrap();
        assert!(d[0].as_f64().unwrap() <= -reach && d[1].as_f64().unwrap() >= reach);
        assert_eq!(funnel(&input).unwrap().numbers.get("contours"), None);
        assert!(funnel(&input).unwrap().svg.contains("funnel-limit"));
        assert!(funnel_with_contours(&input, &[1.0]).is_err());
        assert!(funnel_with_contours(&input, &[0.5, 0.6, 0.7, 0.8, 0.9, 0.95]).is_err());
    }

    /// Issue 31 item 7: the rule's outcome is written only when given, and a funnel without
    /// Egger's line has neither the line nor its legend entry.
    #[test]
    fn the_rule_outcome_and_the_egger_line_are_drawn_only_when_given() {
        let records: Vec<Record> = [(0.1, 0.01), (0.3, 0.04), (-0.2, 0.09), (0.5, 0.16)]
            .iter()
            .enumerate()
            .map(|(i, &(yi, vi))| Record::new(format!("r{i}"), yi, vi))
            .collect();
        let draw = |egger: Option<EggerLine>| {
            funnel(&FunnelInput {
                records: &records,
                excluded: &[],
                pooled: Some(0.1),
                egger,
                filled: None,
                title: "t",
                x_label: "x",
                subtitle: None,
                transform: meta_analysis::Transform::None,
            })
            .unwrap()
        };
        let with_rule = draw(Some(line(0.5, 0.05)));
        assert_eq!(with_rule.svg.matches("rule outcome: passed").count(), 3);
        assert_eq!(with_rule.numbers["egger"]["rule_outcome"], "passed");
        let without_rule = draw(Some(EggerLine {
            rule_outcome: None,
            ..line(0.5, 0.05)
        }));
        assert!(!without_rule.svg.contains("rule outcome"));
        assert_eq!(without_rule.svg.matches("·SE;").count(), 3);
        assert_eq!(without_rule.numbers["egger"]["rule_outcome"], Value::Null);
        let no_line = draw(None);
        assert!(!no_line.svg.contains("Egger"));
        assert!(!no_line.svg.contains("egger-line"));
        assert_eq!(no_line.numbers["egger"], Value::Null);
    }
}
