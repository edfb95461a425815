//! `forest_plot`, `funnel_plot` and `bubble_plot`: the SVG plots, drawn from the same fits
//! the analysis tools return.

use super::args::{BubbleArgs, EggerArgs, ForestArgs};
use super::data::DataSource;
use super::egger::{run_egger, EggerTestResult};
use super::fit::RefitResult;
use super::metareg::MetaRegressionResult;
use super::scale::Scale;
use super::subgroups::{run_subgroups, SubgroupResult};
use super::{ErrorCode, ToolError};
use crate::plots::{self, BubbleInput, EggerLine, ForestGroups, ForestInput, FunnelInput};
use crate::protocol::rule;
use meta_analysis::{FitOptions, ModeratorColumn};
use serde::Serialize;
use serde_json::Value;

/// `forest_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// `bubble_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct BubblePlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The meta-regression drawn (as the meta-regression tool returns it, without predictions).
    pub fit: MetaRegressionResult,
}

/// `funnel_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FunnelPlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The pooled REML fit the funnel is centred on.
    pub fit: RefitResult,
    /// The Egger test result whose line is drawn.
    pub egger: EggerTestResult,
}

/// "<Kind> plot of dat.raudenbush1985", or "… of the given records".
pub(super) fn title(kind: &str, data: &DataSource) -> String {
    if data.is_frozen() {
        format!("{kind} plot of {}", data.info().name)
    } else {
        format!("{kind} plot of the given records")
    }
}

/// The column of a record that labels its forest-plot row (metafor's `slab`).
pub(super) const LABEL_COLUMN: &str = "label";

/// Each record's row label: "s04 Pellegrini & Hicks, 1972" (id, author and year) for the
/// frozen dataset; the `label` column of given records (the id where a record has none);
/// `None` when no record has a label.
pub(super) fn record_labels(data: &DataSource) -> Option<Vec<String>> {
    if data.is_frozen() {
        return Some(
            crate::dataset::rows()
                .iter()
                .map(|r| format!("{} {}, {}", r.id, r.author, r.year))
                .collect(),
        );
    }
    let columns = data.record_columns();
    if !columns
        .iter()
        .any(|c| c.get(LABEL_COLUMN).is_some_and(Value::is_string))
    {
        return None;
    }
    Some(
        data.records()
            .iter()
            .zip(columns)
            .map(|(r, c)| match c.get(LABEL_COLUMN) {
                Some(Value::String(label)) if !label.trim().is_empty() => label.clone(),
                _ => r.id.clone(),
            })
            .collect(),
    )
}

/// `forest_plot`
pub fn forest_plot(args: ForestArgs, data: &DataSource) -> Result<ForestPlotResult, ToolError> {
    let options = args.refit.fit.options()?;
    let scale = Scale::of(&args.refit.fit.scale, data)?;
    let excluded = data.exclusions(args.refit.exclude)?;
    let fit = meta_analysis::refit_excluding(data.records(), &excluded, &options)?;
    let grouped = match &args.by {
        Some(by) => {
            let analysis = run_subgroups(by, &excluded, &options, data)?;
            // Every record's level, the excluded ones' too: rows are drawn under their level.
            let ModeratorColumn::Factor(levels) = data.moderator(by, &[])?.column else {
                return Err(ToolError::new(
                    ErrorCode::InvalidRecords,
                    format!("the column {by} holds numbers in the excluded records"),
                ));
            };
            Some((by.as_str(), analysis, levels))
        }
        None => None,
    };
    let labels = record_labels(data);
    let plot = plots::forest(&ForestInput {
        records: data.records(),
        excluded: &excluded,
        fit: Some(&fit),
        title: &title("Forest", data),
        x_label: &scale.natural_axis_title(),
        labels: labels.as_deref(),
        transform: scale.transform,
        groups: grouped.as_ref().map(|(by, analysis, levels)| ForestGroups {
            by,
            record_levels: levels,
            analysis,
        }),
    })?;
    Ok(ForestPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        fit: RefitResult::of(&fit, excluded, data, &scale),
        subgroups: grouped.map(|(by, analysis, _)| SubgroupResult::of(by, &analysis, data, &scale)),
    })
}

/// `bubble_plot` (test z, level 0.95).
pub fn bubble_plot(args: BubbleArgs, data: &DataSource) -> Result<BubblePlotResult, ToolError> {
    let options = super::args::fit_options(args.method, args.level, args.test)?;
    let scale = Scale::of(&args.scale, data)?;
    let excluded = data.exclusions(args.exclude)?;
    let name = &args.moderator;
    let moderator = data.moderator(name, &excluded)?;
    if let ModeratorColumn::Factor(_) = moderator.column {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("a bubble plot needs a numeric moderator, but {name} holds text"),
        ));
    }
    let model = meta_analysis::meta_regression(&data.kept(&excluded), &[moderator], &options)?;
    let values = data.numbers(name);
    let plot = plots::bubble(&BubbleInput {
        records: data.records(),
        excluded: &excluded,
        values: &values,
        model: &model,
        title: &title("Bubble", data),
        y_label: &scale.axis_title(),
    })?;
    Ok(BubblePlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        fit: MetaRegressionResult::of(&model, Vec::new(), data, &scale),
    })
}

/// `funnel_plot`
pub fn funnel_plot(args: EggerArgs, data: &DataSource) -> Result<FunnelPlotResult, ToolError> {
    let scale = Scale::of(&args.scale, data)?;
    let (test, excluded) = run_egger(args, data)?;
    let kept = data.kept(&excluded);
    let fit = meta_analysis::fit(&kept, &FitOptions::default())?;
    let plot = plots::funnel(&FunnelInput {
        records: data.records(),
        excluded: &excluded,
        pooled: Some(fit.estimate),
        egger: Some(EggerLine {
            variant: test.variant.name(),
            line_at_se0: test.line_at_se0,
            line_per_se: test.line_per_se,
            p: test.p,
            rule_outcome: rule(test.p).name(),
        }),
        filled: None,
        title: &title("Funnel", data),
        x_label: &scale.axis_title(),
    })?;
    Ok(FunnelPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        fit: RefitResult::of(&fit, excluded.clone(), data, &scale),
        egger: EggerTestResult::of(&test, excluded, data),
    })
}
