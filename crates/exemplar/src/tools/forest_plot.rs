//! `forest_plot`: each record's effect and CI, and the pooled diamond, as SVG.

use super::args::{ExcludeArg, FitArgs};
use super::columns::{column_values, ColumnValue};
use super::data::Cell;
use super::data::{DataSource, DatasetInfo};
use super::data::Omitted;
use super::fit::RefitResult;
use super::plot::{measure_heading, measure_title, model_name, record_labels, subtitle};
use super::scale::Scale;
use super::subgroup_analysis::{group_labels, run_subgroups, SubgroupResult};
use super::ErrorCode;
use super::{Tool, ToolError, ToolGroup};
#[cfg(feature = "definitions")]
use super::{REFIT_EXCLUDING, SUBGROUP_ANALYSIS};
use crate::plots::{self, ForestGroups, ForestInput, IlabColumn};
use serde::Serialize;
use serde_json::Value;

pub static FOREST_PLOT: Tool = Tool {
    name: "forest_plot",
    title: "Forest plot (SVG)",
    summary: "Each record's effect and CI, and the pooled diamond.",
    group: ToolGroup::Plot,
    max_records: crate::plots::MAX_FOREST_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "{refit}'s fit: a row per record (`label`, else author and year, else id), pooled \
diamond and PI, excluded records grey; `by`: a diamond per level, {subgroups}' tests.",
            refit = REFIT_EXCLUDING.name,
            subgroups = SUBGROUP_ANALYSIS.name,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(forest_plot; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::{json, Value};
    let mut calls: Vec<Value> = examples::fit_options()
        .into_iter()
        .flat_map(|o| {
            [
                examples::with(o.clone(), "exclude", json!(["s04"])),
                examples::with(o, "by", json!("setting")),
            ]
        })
        .collect();
    calls.push(json!({"records": examples::records(), "exclude": ["a"]}));
    calls.push(json!({"ilab": ["weeks", "tester"], "order": "precision"}));
    calls
}

composed_args! {
    /// `forest_plot`'s arguments: a refit's and, optionally, the text column to group rows by.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct ForestArgs {
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub fit: FitArgs,
        /// Text column grouping the rows, e.g. "tester"; default: none.
        #[serde(default)]
        pub by: Option<String>,
        /// Columns beside the labels, e.g. ["ai","ci"].
        #[serde(default)]
        pub ilab: Vec<String>,
        /// "estimate", "precision" or a column; default: record order.
        #[serde(default)]
        pub order: Option<String>,
    }
}

/// The most ilab columns a forest plot shows.
const MAX_ILAB: usize = 6;

/// Each ilab column's values as written: numbers as R writes them, text as given, a blank
/// where a record has none.
fn ilab_columns(names: &[String], data: &DataSource) -> Result<Vec<IlabColumn>, ToolError> {
    if names.len() > MAX_ILAB {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("ilab takes at most {MAX_ILAB} columns, got {}", names.len()),
        ));
    }
    names
        .iter()
        .map(|name| {
            let values = match data.column(name) {
                Some(column) => (0..data.records().len())
                    .map(|at| match column.get(at) {
                        Some(Cell::Number(n)) => n
                            .as_f64()
                            .map_or_else(|| n.to_string(), meta_analysis::r_number),
                        Some(Cell::Text(text)) => text.to_owned(),
                        _ => String::new(),
                    })
                    .collect(),
                None => column_values(data, name)?
                    .into_iter()
                    .map(|v| match v {
                        ColumnValue::Number(n) => meta_analysis::r_number(n),
                        ColumnValue::Text(t) => t,
                    })
                    .collect(),
            };
            Ok(IlabColumn {
                name: name.clone(),
                values,
            })
        })
        .collect()
}

/// The rows top to bottom as record indices: by yi ("estimate"), by vi, most precise first
/// ("precision"), or by a column's values (numbers by value, text by its bytes), ties in
/// record order, as metafor's forest(order =).
fn row_order(order: &str, data: &DataSource) -> Result<Vec<usize>, ToolError> {
    let records = data.records();
    let mut rows: Vec<usize> = (0..records.len()).collect();
    match order {
        "estimate" => rows.sort_by(|&a, &b| records[a].yi.total_cmp(&records[b].yi)),
        "precision" => rows.sort_by(|&a, &b| records[a].vi.total_cmp(&records[b].vi)),
        column => {
            let values = column_values(data, column)?;
            rows.sort_by(|&a, &b| values[a].cmp(&values[b]));
        }
    }
    Ok(rows)
}

/// `forest_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ForestPlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The fit drawn, with the ids left out (a refit result).
    pub fit: RefitResult,
    /// With `by`: the subgroup analysis drawn (as the subgroup analysis tool returns it); else
    /// null.
    pub subgroups: Option<SubgroupResult>,
    /// Records left out of the plot because they have no value in `by` (metafor's na.omit).
    pub omitted: Vec<Omitted>,
}

/// `forest_plot`
pub fn forest_plot(args: ForestArgs, data: &DataSource) -> Result<ForestPlotResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let excluded = args.exclude.of(data)?;
    // A record with no group (absent, null, blank or NA in `by`) is left out and listed, as
    // the subgroup analysis leaves it out (metafor's na.omit): it has no place among the groups.
    let (without_group, omitted) = match &args.by {
        Some(by) => data.na_omit(std::slice::from_ref(by), Vec::new())?.1.into_iter().fold(
            (Vec::new(), Vec::new()),
            |(mut ids, mut omitted), o: Omitted| {
                ids.push(o.id.clone());
                omitted.push(o);
                (ids, omitted)
            },
        ),
        None => (Vec::new(), Vec::new()),
    };
    let kept;
    let (data, excluded) = if without_group.is_empty() {
        (data, excluded)
    } else {
        let left_out = super::data::id_set(&without_group);
        let excluded = excluded
            .into_iter()
            .filter(|id| !left_out.contains(id.as_str()))
            .collect();
        kept = data.without(&without_group);
        (&kept, excluded)
    };
    let fit = meta_analysis::refit_excluding(data.records(), &excluded, &options)?;
    let grouped = match &args.by {
        Some(by) => {
            let analysis = run_subgroups(by, &excluded, &options, data)?;
            // Every record's level, the excluded ones' too: rows are drawn under their level.
            let levels = group_labels(data.moderator(by, &[])?.column);
            Some((by.as_str(), analysis, levels))
        }
        None => None,
    };
    let labels = record_labels(data);
    let ilab = ilab_columns(&args.ilab, data)?;
    let order = args
        .order
        .as_deref()
        .map(|o| row_order(o, data))
        .transpose()?;
    let plot = plots::forest(&ForestInput {
        records: data.records(),
        excluded: &excluded,
        fit: Some(&fit),
        title: &measure_title("Forest", &scale, true),
        subtitle: Some(&subtitle(&model_name(fit.method), fit.k, data)),
        measure: measure_heading(&scale),
        ilab: &ilab,
        order: order.as_deref(),
        x_label: &scale.natural_axis_title(),
        labels: labels.as_deref(),
        transform: scale.transform,
        groups: grouped.as_ref().map(|(by, analysis, levels)| ForestGroups {
            by,
            record_levels: levels,
            analysis,
        }),
    })?;
    let by_notes = data.text_notes(args.by.as_slice(), &excluded);
    Ok(ForestPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        fit: RefitResult::of(&fit, excluded, data, &scale),
        subgroups: grouped.map(|(by, analysis, _)| SubgroupResult {
            omitted: omitted.clone(),
            dataset: DatasetInfo {
                notes: by_notes,
                ..data.info().clone()
            },
            ..SubgroupResult::of(by, &analysis, data, &scale)
        }),
        omitted,
    })
}

/// The headline of the fit drawn.
impl crate::printed::Printed for ForestPlotResult {
    fn print(&self, out: &mut crate::printed::Out) {
        self.fit.headline(out);
    }
}

/// `res <- rma(...)` and `forest(res, ilab = ..., order = ...)`; the numbers checked are the
/// fit's (the drawing is metafor's own).
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for ForestArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_checks, fit_methods, rma_of_fit};
        use crate::rcode::{name, Script};
        let options = self.fit.options()?;
        out.script
            .line(format!("res <- {}", rma_of_fit(cx, &self.exclude.exclude, &self.fit)?));
        let mut args = vec!["res".to_string()];
        if !self.ilab.is_empty() {
            let columns: Vec<String> = self.ilab.iter().map(|c| name(c)).collect();
            let n = columns.len();
            // metafor 3.8 needs the columns' positions: left of the intervals, evenly.
            out.script
                .line("at <- range(res$yi - 2 * sqrt(res$vi), res$yi + 2 * sqrt(res$vi))")
                .line("w <- diff(at)");
            args.push(format!("ilab = cbind({})", columns.join(", ")));
            args.push(format!("ilab.xpos = at[1] - w * ({n}:1) / {}", n + 1));
            args.push("xlim = c(at[1] - w * 2, at[2] + w * 0.8)".into());
        }
        match self.order.as_deref() {
            None => {}
            Some("estimate") => args.push("order = \"obs\"".into()),
            Some("precision") => args.push("order = \"prec\"".into()),
            Some(column) => args.push(format!("order = {}", name(column))),
        }
        if let Some(by) = &self.by {
            out.script.comment(&format!(
                "The page's plot also draws a fit per level of {by:?}: subgroup_analysis's \
                 script fits them."
            ));
        }
        out.script.line(Script::call("forest", &args));
        if let Some(fit) = cx.result.get("fit") {
            fit_checks(out, fit);
        }
        fit_methods(
            &mut out.methods,
            cx.result["fit"]["measure"].as_str(),
            options.method,
            options.test,
            options.level,
            false,
        );
        out.methods.say("The studies and the pooled estimate are shown in a forest plot.", &[]);
        Ok(())
    }
}
