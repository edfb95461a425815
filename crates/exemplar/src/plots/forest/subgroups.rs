//! The subgroups of a forest plot: the records grouped by a text column, a heading and a
//! diamond per level, and the tests for subgroup differences in the footer.

use super::{diamond, ForestGroups, DIAMOND_HALF_HEIGHT};
use crate::plots::document::LEFT;
use crate::plots::rows::{interval_text, right_text, Columns};
use crate::plots::scale::{Linear, ScaleError};
use crate::plots::svg::{fixed, px, px_value, Writer};
use crate::plots::{finite, id_label, id_text, p_text, PlotError, GREY};
use meta_analysis::{Subgroup, Transform};
use serde_json::{json, Value};

/// The groups, checked for drawing: one level per record, every number finite.
pub(super) fn check<'a>(
    g: &ForestGroups<'a>,
    records: usize,
) -> Result<ForestGroups<'a>, PlotError> {
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

/// Each level's heading, in bold, over its records.
pub(super) fn draw_headings(w: &mut Writer, g: &ForestGroups, headings: &[(&str, f64)]) {
    for (level, y) in headings {
        w.text(
            "text",
            &[
                ("class", "subgroup-heading"),
                ("x", &px(LEFT)),
                ("y", &px(y + 4.0)),
                ("font-weight", "bold"),
            ],
            &format!("{} = {}", id_label(g.by, 24), id_label(level, 24)),
        );
    }
}

/// A subgroup diamond's label.
pub(super) fn label(s: &Subgroup) -> String {
    if s.single_record {
        "Subgroup (k = 1, τ² = 0)".to_string()
    } else {
        format!("Subgroup (k = {})", s.fit.k)
    }
}

/// A level's diamond under its records: smaller than the pooled one, grey, in italics.
pub(super) fn draw(
    w: &mut Writer,
    t: Transform,
    g: &ForestGroups,
    s: &Subgroup,
    (x, alim): (&Linear, (f64, f64)),
    y: f64,
    columns: &Columns,
) -> Result<(), ScaleError> {
    let f = &s.fit;
    let interval = interval_text(t, f.estimate, (f.ci_lower, f.ci_upper));
    let text_y = px(y + 4.0);
    let label = label(s);
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
            "{} = {}: {interval}, k = {}, τ² = {}",
            id_text(g.by),
            id_text(&s.level),
            f.k,
            fixed(f.tau2, 4)
        ),
    );
    w.text("text", &[("x", &px(LEFT)), ("y", &text_y)], &label);
    diamond(
        w,
        (f.ci_lower, f.estimate, f.ci_upper),
        (x, alim),
        y,
        DIAMOND_HALF_HEIGHT * 0.8,
        GREY,
    )?;
    right_text(w, columns.estimate_x, &text_y, &interval);
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
    format!("{statistic}, {}", p_text(c.qm_p))
}

pub(super) fn notes(g: &ForestGroups) -> Vec<String> {
    let a = g.analysis;
    let mut notes = vec![
        format!(
            "Test for subgroup differences (separate τ² per subgroup): Q({}) = {}, {}.",
            a.q_between_df,
            fixed(a.q_between, 2),
            p_text(a.q_between_p)
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

pub(super) fn description(t: Transform, g: &ForestGroups) -> String {
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
        p_text(a.q_between_p),
        qm_text(g)
    )
}

/// The subgroups in the plot's numbers, and each row's level.
pub(super) fn numbers(
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
