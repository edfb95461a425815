//! The plots' golden SVG files (`crates/exemplar/tests/golden/`): the SVG that a tool call
//! answers, as a file, so that a changed plot shows in review as a readable diff (as ruff's
//! snapshot tests do). Each plot tool's first example call (`Tool::examples`) is drawn as
//! `<tool>.svg` without an edit here; [`CALLS`] adds the cases a reader checks by eye.

use std::collections::BTreeMap;

use exemplar::tools::{self, REGISTRY};
use exemplar::tools::{
    BUBBLE_PLOT, COMPUTE_EFFECT_SIZES, DIAGNOSTIC_PLOT, FOREST_PLOT, FUNNEL_PLOT,
};
use serde_json::{json, Value};

use crate::Result;

/// Named cases beyond each plot tool's first example: (file, tool, arguments).
fn calls() -> Vec<(&'static str, &'static str, Value)> {
    let bcg_rr = tools::call(
        COMPUTE_EFFECT_SIZES.name,
        &json!({"measure": "RR", "data": super::bit_identity::bcg_tables()}),
    )
    .map(|v| v["records"].clone())
    .unwrap_or(Value::Null);
    vec![
        ("forest_reml.svg", FOREST_PLOT.name, json!({})),
        (
            "forest_exclude_s04.svg",
            FOREST_PLOT.name,
            json!({"exclude": ["s04"]}),
        ),
        (
            "forest_by_tester.svg",
            FOREST_PLOT.name,
            json!({"by": "tester"}),
        ),
        (
            "forest_bcg_rr.svg",
            FOREST_PLOT.name,
            json!({"records": bcg_rr.clone()}),
        ),
        (
            "forest_bcg_rr_ilab.svg",
            FOREST_PLOT.name,
            json!({"records": bcg_rr.clone(), "slab": "author", "ilab": ["ai", "bi", "ci", "di"], "order": "precision"}),
        ),
        // Issue 45's acceptance: beside metafor's forest() of the same call
        // (docs/figures/forest_bcg_metafor.R and .png; docs/figures/forest_bcg_exemplar.svg
        // is this file, held equal by crates/exemplar/tests/forest_options.rs).
        (
            "forest_bcg_metafor.svg",
            FOREST_PLOT.name,
            json!({"records": bcg_rr.clone(), "ilab": ["ai", "bi", "ci", "di"],
                   "at": [0.05, 0.25, 1, 4],
                   "header": ["Author(s) and Year", "Risk Ratio [95% CI]"],
                   "mlab": "RE Model for All Studies"}),
        ),
        (
            "funnel_bcg_rr.svg",
            FUNNEL_PLOT.name,
            json!({"records": bcg_rr.clone(), "contours": [0.9, 0.95, 0.99], "egger_line": false}),
        ),
        ("funnel_egger.svg", FUNNEL_PLOT.name, json!({})),
        (
            "funnel_exclude_s04.svg",
            FUNNEL_PLOT.name,
            json!({"exclude": ["s04"]}),
        ),
        (
            "funnel_contours.svg",
            FUNNEL_PLOT.name,
            json!({"contours": [0.9, 0.95, 0.99], "egger_line": false}),
        ),
        (
            "bubble_weeks.svg",
            BUBBLE_PLOT.name,
            json!({"mod": "weeks"}),
        ),
        (
            "diagnostic_radial.svg",
            DIAGNOSTIC_PLOT.name,
            json!({"kind": "radial"}),
        ),
        (
            "diagnostic_qq.svg",
            DIAGNOSTIC_PLOT.name,
            json!({"kind": "qq"}),
        ),
        (
            "diagnostic_labbe_bcg_rr.svg",
            DIAGNOSTIC_PLOT.name,
            json!({"kind": "labbe", "records": bcg_rr}),
        ),
    ]
}

/// The SVG a call answers; an error naming the call when it answers none.
fn svg_of(tool: &str, args: &Value) -> Result<String> {
    match tools::call(tool, args) {
        Ok(result) => result["svg"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("golden: {tool} {args} answered no svg").into()),
        Err(e) => Err(format!("golden: {tool} {args}: {}", e.to_json()).into()),
    }
}

/// Every golden file, by name.
pub fn files() -> Result<BTreeMap<String, Vec<u8>>> {
    let mut files = BTreeMap::new();
    for tool in REGISTRY {
        let Some(first) = (tool.examples)().into_iter().next() else {
            continue;
        };
        // An example that fails is an error here, not a plot tool silently left without its file.
        let result = tools::call(tool.name, &first)
            .map_err(|e| format!("golden: {} {first}: {}", tool.name, e.to_json()))?;
        if let Some(svg) = result["svg"].as_str() {
            files.insert(format!("{}.svg", tool.name), svg.as_bytes().to_vec());
        }
    }
    for (file, tool, args) in calls() {
        files.insert(file.to_string(), svg_of(tool, &args)?.into_bytes());
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_plot_tool_has_a_golden_file() {
        let files = files().unwrap();
        for name in [
            "forest_plot",
            "funnel_plot",
            "bubble_plot",
            "trim_and_fill_plot",
        ] {
            assert!(files.contains_key(&format!("{name}.svg")), "{name}");
        }
        for svg in files.values() {
            assert!(
                svg.starts_with(b"<svg"),
                "{}",
                String::from_utf8_lossy(&svg[..40])
            );
        }
    }
}
