//! The words of a forest plot: the notes under the axis and the description for screen
//! readers.

use super::{subgroups, Checked, ForestInput, Row};
use crate::plots::rows::{percent, shown};
use crate::plots::svg::fixed;
use crate::plots::{id_label, id_text};
use meta_analysis::distributions::normal_quantile;
use meta_analysis::Test;

/// The width of a note, in characters, before a list of ids wraps.
const NOTE_CHARS: usize = 96;

/// The lines under the axis: the model, heterogeneity, how rows were computed, exclusions,
/// the tests for subgroup differences.
pub(super) fn notes(input: &ForestInput, checked: &Checked) -> Vec<String> {
    let (pooled, level) = (&checked.pooled, checked.level);
    let mut notes = Vec::new();
    match pooled {
        _ if input.clustered.is_some() => {
            let c = input.clustered.as_ref().expect("clustered");
            notes.extend(c.notes.iter().map(|n| n.to_string()));
        }
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
        None => match &input.fitted {
            Some(f) => {
                notes.push(format!(
                    "{}: residual τ² = {}; no pooled row.",
                    f.model,
                    fixed(f.tau2, 4)
                ));
                notes.push(format!(
                    "Grey polygons: each record's fitted value and its {}% {}; rows: yi ± {}·√vi; \
                     weights 1/(vi + τ²) as % of the total.",
                    percent(level),
                    if f.prediction { "PI" } else { "CI" },
                    fixed(normal_quantile(1.0 - (1.0 - level) / 2.0), 2),
                ));
            }
            None => {
                notes.push("No model fitted: no pooled estimate or weights are drawn.".into());
                notes.push("Rows: yi ± 1.96·√vi (95% CI).".into());
            }
        },
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
    if let Some(g) = &checked.groups {
        notes.extend(subgroups::notes(g));
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

/// The plot in words, for screen readers: the rows, the exclusions, the pooled result, the
/// subgroups.
pub(super) fn description(input: &ForestInput, rows: &[Row], checked: &Checked) -> String {
    let (pooled, level) = (&checked.pooled, checked.level);
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
        None => match &input.fitted {
            Some(f) => d.push_str(&format!(
                " {}: each record's fitted value drawn as a grey polygon over its {}; no pooled \
                 estimate.",
                f.model,
                if f.prediction {
                    "prediction interval"
                } else {
                    "confidence interval"
                }
            )),
            None => d.push_str(" No pooled estimate is drawn."),
        },
    }
    if let Some(g) = &checked.groups {
        d.push_str(&subgroups::description(input.transform, g));
    }
    d
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
}
