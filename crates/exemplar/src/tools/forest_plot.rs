//! `forest_plot`: each record's effect and CI, and the pooled diamond, as SVG.

use super::args::{model_data, ExcludeArg, FitArgs, Mods};
use super::columns::{column_values, ColumnValue};
use super::data::Cell;
use super::data::{DataSource, DatasetInfo};
use super::data::Omitted;
use super::fit::RefitResult;
use super::fit_multilevel::MultilevelResult;
use super::meta_regression::MetaRegressionResult;
use super::plot::{
    measure_heading, measure_title, model_name as model_name_of, record_labels, subtitle,
};
use super::scale::Scale;
use super::subgroup_analysis::{group_labels, run_subgroups, SubgroupResult};
use super::ErrorCode;
use super::{Tool, ToolError, ToolGroup};

pub(crate) mod general;
#[cfg(feature = "definitions")]
use super::{REFIT_EXCLUDING, SUBGROUP_ANALYSIS};
use crate::plots::{
    self, Clustered, Fitted, ForestGroups, ForestInput, ForestOptions, IlabColumn, Reference, Shade,
};
use meta_analysis::{MetaRegression, Transform};
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
            "{refit}'s fit: a row per record, pooled diamond and PI; {subgroups} with `by`.",
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
    calls.push(json!({"at": [-0.5, 0, 0.5, 1], "alim": [-0.5, 1], "header": ["Study", "SMD [95% CI]"], "mlab": "Pooled", "shade": "zebra", "showweights": true, "addpred": false, "refline": false, "width": 480}));
    calls.push(json!({"mods": ["weeks"], "xlim": [-1, 2]}));
    calls.push(json!({"study": "tester", "order": "precision"}));
    calls.push(json!({"records": examples::multivariate(), "mods": "~ outcome - 1",
        "general": {"random": "~ outcome | trial", "struct": "UN",
                    "V": {"cluster": "trial", "columns": ["v1i", "v2i"]}}}));
    calls.push(json!({"records": examples::nested(), "general": {"random": "~ 1 | study/id"}}));
    calls
}

composed_args! {
    /// `forest_plot`'s arguments: a refit's; optionally the text column to group rows by, or
    /// the moderators of a meta-regression whose fitted values are drawn; and metafor
    /// forest()'s layout options, by their names (issue 45).
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct ForestArgs {
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub fit: FitArgs,
        #[serde(default)]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "mods_schema"))]
        pub mods: Option<Mods>,
        /// Column.
        #[serde(default)]
        pub by: Option<String>,
        /// Column.
        #[serde(default)]
        pub study: Option<String>,
        #[serde(default)]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "general_schema"))]
        pub general: Option<serde_json::Map<String, Value>>,
        /// Columns.
        #[serde(default)]
        pub ilab: Vec<String>,
        /// estimate, precision, fit or a column.
        #[serde(default)]
        pub order: Option<String>,
        #[serde(default)]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "at_schema"))]
        pub at: Vec<f64>,
        #[serde(default)]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "alim_schema"))]
        pub alim: Vec<f64>,
        #[serde(default)]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "xlim_schema"))]
        pub xlim: Vec<f64>,
        #[serde(default)]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "refline_schema"))]
        pub refline: Option<Value>,
        /// Titles.
        #[serde(default)]
        pub header: Vec<String>,
        /// Label.
        #[serde(default)]
        pub mlab: Option<String>,
        /// Default: auto.
        #[serde(default)]
        pub showweights: Option<bool>,
        /// PI.
        #[serde(default = "yes")]
        pub addpred: bool,
        #[serde(default)]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "shade_schema"))]
        pub shade: Option<ShadeArg>,
        /// Default: auto.
        #[serde(default)]
        pub width: Option<f64>,
    }
}

fn yes() -> bool {
    true
}

/// metafor's `shade`: every other row from the first or the second, or all.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShadeArg {
    Zebra,
    Zebra2,
    All,
}

/// The schemas of forest()'s options, lean: what each means is said once, in the server's
/// instructions (`tools::instructions`).
#[cfg(feature = "definitions")]
fn schema(value: Value) -> schemars::Schema {
    schemars::Schema::try_from(value).expect("an object schema")
}

#[cfg(feature = "definitions")]
fn numbers(description: &str) -> schemars::Schema {
    schema(serde_json::json!({
        "type": "array", "items": {"type": "number"}, "description": description
    }))
}

#[cfg(feature = "definitions")]
fn at_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    numbers("Ticks.")
}

#[cfg(feature = "definitions")]
fn alim_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    numbers("[lo, hi].")
}

#[cfg(feature = "definitions")]
fn xlim_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    numbers("[lo, hi].")
}

#[cfg(feature = "definitions")]
fn refline_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schema(serde_json::json!({
        "type": ["number", "boolean"], "description": "Default: no effect."
    }))
}

#[cfg(feature = "definitions")]
fn shade_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schema(serde_json::json!({
        "type": "string", "enum": ["zebra", "zebra2", "all"], "description": "Default: none."
    }))
}

/// `general`: fit_multilevel's model arguments, as `robust_test`'s `general` (with `vcalc`).
#[cfg(feature = "definitions")]
pub(crate) fn general_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schema(serde_json::json!({
        "type": "object", "description": "fit_multilevel's model arguments."
    }))
}

#[cfg(feature = "definitions")]
pub(crate) fn mods_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schema(serde_json::json!({
        "type": ["string", "array"], "items": {"type": "string"}, "description": "Moderators."
    }))
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
fn row_order(
    order: &str,
    data: &DataSource,
    fitted: Option<&[f64]>,
) -> Result<Vec<usize>, ToolError> {
    let records = data.records();
    let mut rows: Vec<usize> = (0..records.len()).collect();
    match order {
        "estimate" | "obs" | "yi" => {
            rows.sort_by(|&a, &b| records[a].yi.total_cmp(&records[b].yi))
        }
        "precision" | "prec" | "vi" => {
            rows.sort_by(|&a, &b| records[a].vi.total_cmp(&records[b].vi))
        }
        "fit" => {
            let fitted = fitted.ok_or_else(|| invalid("order \"fit\" needs mods".into()))?;
            rows.sort_by(|&a, &b| fitted[a].total_cmp(&fitted[b]));
        }
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
    /// With `mods`: the meta-regression drawn (as the meta-regression tool returns it,
    /// without predictions); else null.
    pub model: Option<MetaRegressionResult>,
    /// With `study` or `general`: the multilevel model drawn (as the multilevel tool returns
    /// it); else null.
    pub three_level: Option<MultilevelResult>,
    /// Records left out of the plot because they have no value in `by` or `mods` (metafor's
    /// na.omit).
    pub omitted: Vec<Omitted>,
}

/// `forest_plot`
pub fn forest_plot(mut args: ForestArgs, data: &DataSource) -> Result<ForestPlotResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let mut layout = Layout::of(&args, scale.transform)?;
    one_model(&args)?;
    let mut columns = read_columns(&args)?;
    if let Some(g) = &args.general {
        columns.extend(general_columns(g, &args, data)?);
    }
    let excluded = std::mem::take(&mut args.exclude).of(data)?;
    // A record with no group (absent, null, blank or NA in `by` or `study`) or no moderator
    // value is left out and listed, as the subgroup analysis and the models leave it out
    // (metafor's na.omit): it has no place among the groups or in the model.
    let omitted = data.na_omit(&columns, Vec::new())?.1;
    let without_value: Vec<String> = omitted.iter().map(|o| o.id.clone()).collect();
    let kept;
    let (data, excluded) = if without_value.is_empty() {
        (data, excluded)
    } else {
        let left_out = super::data::id_set(&without_value);
        let excluded = excluded
            .into_iter()
            .filter(|id| !left_out.contains(id.as_str()))
            .collect();
        kept = data.without(&without_value);
        (&kept, excluded)
    };
    let fit = meta_analysis::refit_excluding(data.records(), &excluded, &options)?;
    let grouped = (args.by.as_ref())
        .map(|by| subgroups(by, &excluded, &options, data).map(|(a, l)| (by.as_str(), a, l)))
        .transpose()?;
    let mv = (args.general.as_ref())
        .map(|g| mv_forest(g, &args, &excluded, data))
        .transpose()?;
    if mv.as_ref().is_some_and(|m| !m.prediction) {
        layout.addpred = false;
    }
    let regression = match (&args.mods, &mv) {
        (Some(mods), None) => Some(regression(mods, &excluded, &options, data, args.addpred)?),
        _ => None,
    };
    let three_level = (args.study.as_ref())
        .map(|study| three_level(study, &excluded, &options, data))
        .transpose()?;
    let labels = record_labels(data);
    let ilab = ilab_columns(&args.ilab, data)?;
    let fitted_values: Option<Vec<f64>> = (regression.as_ref().map(|(_, v, _)| v))
        .or(mv.as_ref().and_then(|m| m.fitted.as_ref()))
        .map(|values| values.iter().map(|v| v.map_or(f64::NAN, |v| v.0)).collect());
    let order = args
        .order
        .as_deref()
        .map(|o| row_order(o, data, fitted_values.as_deref()))
        .transpose()?;
    let model_name = regression.as_ref().map(|(model, _, formula)| {
        format!("Mixed-effects model ({}) on {formula}", model.method.name())
    });
    let plot = plots::forest(&ForestInput {
        records: data.records(),
        excluded: &excluded,
        fit: match (&regression, &three_level, &mv) {
            (_, _, Some(m)) => m.pooled.as_ref(),
            (Some(_), _, _) => None,
            (None, Some(t), _) => Some(&t.fit),
            (None, None, None) => Some(&fit),
        },
        title: &measure_title("Forest", &scale, true),
        subtitle: Some(&subtitle(
            model_name
                .as_deref()
                .or(three_level.as_ref().map(|t| t.name.as_str()))
                .or(mv.as_ref().map(|m| m.name.as_str()))
                .unwrap_or(&model_name_of(fit.method)),
            fit.k,
            data,
        )),
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
        fitted: fitted_rows(&regression, model_name.as_deref(), mv.as_ref(), args.addpred),
        clustered: clustered_rows(three_level.as_ref(), args.study.as_deref(), mv.as_ref()),
        options: layout.options(),
    })?;
    let by_notes = data.text_notes(args.by.as_slice(), &excluded);
    let multilevel_result = match (&args.study, mv) {
        (Some(study), _) => Some(three_level_result(study, &excluded, &options, data)?),
        (None, Some(m)) => Some(m.result),
        (None, None) => None,
    };
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
        three_level: multilevel_result,
        model: regression.map(|(model, _, formula)| {
            MetaRegressionResult::of(&model, formula, Vec::new(), omitted.clone(), data, &scale)
        }),
        omitted,
    })
}

/// The fitted values drawn: the meta-regression's, or a general model's with `mods`.
fn fitted_rows<'a>(
    regression: &'a Option<(MetaRegression, FittedValues, String)>,
    model_name: Option<&'a str>,
    mv: Option<&'a MvForest>,
    addpred: bool,
) -> Option<Fitted<'a>> {
    if let Some((model, values, _)) = regression {
        return Some(Fitted {
            values,
            tau2: model.tau2,
            model: model_name.unwrap_or_default(),
            prediction: addpred,
            level: model.level,
        });
    }
    let m = mv?;
    Some(Fitted {
        values: m.fitted.as_deref()?,
        tau2: 0.0,
        model: &m.name,
        prediction: m.prediction && addpred,
        level: m.result.level,
    })
}

/// The rows grouped by cluster with a multilevel model's weights: the three-level model's
/// (`study`) or a general model's.
fn clustered_rows<'a>(
    three_level: Option<&'a ThreeLevel>,
    study: Option<&'a str>,
    mv: Option<&'a MvForest>,
) -> Option<Clustered<'a>> {
    if let Some(t) = three_level {
        return Some(Clustered {
            name: study.unwrap_or_default(),
            clusters: &t.clusters,
            weights: &t.weights,
            notes: [t.notes[0].as_str(), t.notes[1].as_str()],
        });
    }
    mv.map(|m| Clustered {
        name: &m.column,
        clusters: &m.clusters,
        weights: &m.weights,
        notes: [m.notes[0].as_str(), m.notes[1].as_str()],
    })
}

/// The subgroup analysis by `by` of the records not excluded, and every record's level (the
/// excluded ones' too: rows are drawn under their level).
fn subgroups(
    by: &str,
    excluded: &[String],
    options: &meta_analysis::FitOptions,
    data: &DataSource,
) -> Result<(meta_analysis::SubgroupAnalysis, Vec<String>), ToolError> {
    let analysis = run_subgroups(by, excluded, options, data)?;
    let levels = group_labels(data.moderator(by, &[])?.column);
    Ok((analysis, levels))
}

/// `by`, `mods`, `study` or `general`: at most one (`general` with `mods` is one model).
fn one_model(args: &ForestArgs) -> Result<(), ToolError> {
    let given = [
        ("by", args.by.is_some()),
        ("mods", args.mods.is_some() && args.general.is_none()),
        ("study", args.study.is_some()),
        ("general", args.general.is_some()),
    ];
    if let [(a, _), (b, _), ..] = given.iter().filter(|(_, g)| *g).collect::<Vec<_>>()[..] {
        return Err(invalid(format!(
            "{a} and {b}: give one (subgroups, a meta-regression, the three-level or a general model)"
        )));
    }
    Ok(())
}

/// The columns a record needs a value in: `by`'s, `study`'s, the moderators'.
fn read_columns(args: &ForestArgs) -> Result<Vec<String>, ToolError> {
    let formula = args.mods.as_ref().map(|m| m.formula()).transpose()?;
    let mut columns: Vec<String> = args.by.iter().chain(&args.study).cloned().collect();
    columns.extend(formula.iter().flat_map(|f| f.columns()));
    Ok(columns)
}

/// fit_multilevel's arguments for `general` with the forest's exclusions, moderators,
/// method, level and test (knha: t).
fn general_args(
    g: &serde_json::Map<String, Value>,
    args: &ForestArgs,
    excluded: &[String],
) -> Result<serde_json::Map<String, Value>, ToolError> {
    let options = args.fit.options()?;
    let mut common = serde_json::json!({
        "exclude": excluded,
        "method": options.method.name(),
        "level": options.level,
        "test": match options.test {
            meta_analysis::Test::Knha => "t",
            meta_analysis::Test::Z => "z",
        },
    });
    if let Some(mods) = &args.mods {
        common["mods"] = match mods {
            Mods::Formula(f) => Value::from(f.as_str()),
            Mods::Terms(t) => Value::from(t.clone()),
        };
    }
    let common = common.as_object().cloned().expect("an object");
    general::multilevel_args(g, common)
}

/// The columns a general model reads (its terms', V's, vcalc's): records without a value
/// there are left out of the plot, as those without `by` or `study`.
fn general_columns(
    g: &serde_json::Map<String, Value>,
    args: &ForestArgs,
    data: &DataSource,
) -> Result<Vec<String>, ToolError> {
    use super::args::FromArgs;
    use super::fit_multilevel::FitMultilevelArgs;
    use super::multilevel_general::{random_columns, random_terms};
    let a = FitMultilevelArgs::from_args(&general_args(g, args, &[])?)
        .map_err(|e| invalid(e.to_string()))?;
    Ok(random_columns(
        &random_terms(&a.model, &a.general)?,
        &a.general,
        data,
    ))
}

/// A general rma.mv model (fit_multilevel's, `general`) drawn as a forest: a row per
/// record grouped by the model's cluster, with weights.rma.mv's weights; intercept-only, its
/// pooled row; with `mods`, each record's fitted value.
struct MvForest {
    result: MultilevelResult,
    pooled: Option<meta_analysis::Fit>,
    fitted: Option<FittedValues>,
    /// Whether intervals of new effects exist: metafor's predict() gives them for models
    /// of `~ 1 | id` terms alone (variance Σσ²).
    prediction: bool,
    name: String,
    column: String,
    clusters: Vec<String>,
    weights: Vec<Option<f64>>,
    notes: [String; 2],
}

fn mv_forest(
    g: &serde_json::Map<String, Value>,
    args: &ForestArgs,
    excluded: &[String],
    data: &DataSource,
) -> Result<MvForest, ToolError> {
    let margs = general_args(g, args, excluded)?;
    let mut fitted = general::fit(&margs, data, true)?;
    let result = fitted.result.take().expect("asked");
    let (model, fit) = (&fitted.model, &fitted.fit);
    let w = general::inverse_blocks(model, fit)?;
    let weights = general::per_record(&general::weights(&w, fit.k), &fitted.excluded, data);
    let column = general::cluster_column(&margs, data);
    let clusters = match &column {
        Some(c) => super::multilevel::labels(data, c, "cluster", &[])?,
        None => data.records().iter().map(|r| r.id.clone()).collect(),
    };
    let c0 = &result.model.coefficients[0];
    let crit = if c0.se > 0.0 {
        (c0.ci_upper - c0.estimate) / c0.se
    } else {
        0.0
    };
    let prediction = model.terms.is_empty();
    let sigma2: f64 = fit.sigma2.iter().sum();
    let extra = if prediction && args.addpred { sigma2 } else { 0.0 };
    let p = fit.p;
    let level = result.level;
    let name = format!(
        "Multilevel model ({}): {}",
        fitted.method.name(),
        result.general.structure.join("; ")
    );
    let (pooled, values) = if args.mods.is_none() && p == 1 {
        let half = crit * (c0.se * c0.se + sigma2).sqrt();
        let (pi_lower, pi_upper) = if prediction {
            (c0.estimate - half, c0.estimate + half)
        } else {
            (c0.ci_lower, c0.ci_upper)
        };
        let pooled = meta_analysis::Fit {
            method: fitted.method,
            test: args.fit.options()?.test,
            level,
            k: fit.k,
            estimate: c0.estimate,
            se: c0.se,
            statistic: c0.statistic,
            df: result.df,
            p: c0.p,
            ci_lower: c0.ci_lower,
            ci_upper: c0.ci_upper,
            tau2: sigma2,
            tau: sigma2.sqrt(),
            se_tau2: None,
            q: result.model.qe,
            q_df: result.model.qe_df,
            q_p: result.model.qe_p,
            i2: f64::NAN,
            h2: f64::NAN,
            pi_lower,
            pi_upper,
            iterations: Some(result.model.iterations),
        };
        (Some(pooled), None)
    } else {
        let rows: Vec<(f64, f64, f64)> = (0..fit.k)
            .map(|i| {
                let x = &model.x[i * p..(i + 1) * p];
                let v: f64 = (0..p)
                    .map(|a| (0..p).map(|b| x[a] * fit.vcov[a * p + b] * x[b]).sum::<f64>())
                    .sum::<f64>()
                    .max(0.0);
                let y: f64 = x.iter().zip(&fit.beta).map(|(x, b)| x * b).sum();
                let half = crit * (v + extra).sqrt();
                (y, y - half, y + half)
            })
            .collect();
        (None, Some(general::per_record(&rows, &fitted.excluded, data)))
    };
    let components = [("σ²", &fit.sigma2), ("τ²", &fit.tau2), ("ρ", &fit.rho)]
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(n, v)| {
            let v: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
            format!("{n} = {}", v.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ");
    let grouped = column.as_deref().unwrap_or("record");
    let intervals = if values.is_some() {
        format!(
            " Grey polygons: fitted values and their {}.",
            if prediction && args.addpred { "PIs" } else { "CIs" }
        )
    } else {
        String::new()
    };
    let notes = [
        format!("{name}: k = {}, {components}", fit.k),
        format!(
            "Rows grouped by {grouped}; weights: the diagonal of the inverse marginal \
             covariance, as % of its sum (metafor's weights.rma.mv).{intervals}"
        ),
    ];
    Ok(MvForest {
        result,
        pooled,
        fitted: values,
        prediction,
        name,
        column: column.unwrap_or_else(|| "record".into()),
        clusters,
        weights,
        notes,
    })
}

/// The three-level model (fit_multilevel's, without moderators) drawn as a forest: its
/// pooled result, each record's cluster and weight, and its lines in the notes.
struct ThreeLevel {
    fit: meta_analysis::Fit,
    name: String,
    clusters: Vec<String>,
    weights: Vec<Option<f64>>,
    notes: [String; 2],
}

/// The three-level model with `study` as the cluster of the records not excluded. Each
/// record's weight is metafor's weights() of the rma.mv fit: the diagonal of W = M⁻¹ as a
/// percentage of its sum, M being the marginal covariance (vi + σ²₂ on the diagonal, σ²₁
/// between two records of one study), inverted block by block (Sherman–Morrison).
fn three_level(
    study: &str,
    excluded: &[String],
    options: &meta_analysis::FitOptions,
    data: &DataSource,
) -> Result<ThreeLevel, ToolError> {
    use meta_analysis::{Method, MultilevelOptions, MultilevelTest, Test};
    let method = match options.method {
        Method::Reml | Method::Ml => options.method,
        m => {
            return Err(invalid(format!(
                "study: the three-level model is fitted by REML or ML, got method {}",
                m.name()
            )))
        }
    };
    let ml = MultilevelOptions {
        method,
        level: options.level,
        test: match options.test {
            Test::Z => MultilevelTest::Z,
            Test::Knha => MultilevelTest::T,
        },
    };
    let clusters = super::multilevel::labels(data, study, "study", &[])?;
    let left_out = super::data::id_set(excluded);
    let kept = data.kept(excluded);
    let studies: Vec<String> = data
        .records()
        .iter()
        .zip(&clusters)
        .filter(|(r, _)| !left_out.contains(r.id.as_str()))
        .map(|(_, c)| c.clone())
        .collect();
    let model = meta_analysis::multilevel(&kept, &studies, &[], &ml)?;
    let (s1, s2) = (model.sigma2[0], model.sigma2[1]);
    // Per study: Σ 1/(vi + σ²₂) over its records in the model.
    let mut sums: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    for (r, c) in kept.iter().zip(&studies) {
        *sums.entry(c.as_str()).or_default() += 1.0 / (r.vi + s2);
    }
    let diagonal: Vec<Option<f64>> = data
        .records()
        .iter()
        .zip(&clusters)
        .map(|(r, c)| {
            (!left_out.contains(r.id.as_str())).then(|| {
                let d = r.vi + s2;
                1.0 / d - s1 / (d * d) / (1.0 + s1 * sums[c.as_str()])
            })
        })
        .collect();
    let total: f64 = diagonal.iter().flatten().sum();
    let weights = diagonal
        .iter()
        .map(|w| w.map(|w| 100.0 * w / total))
        .collect();
    let c0 = &model.coefficients[0];
    let fit = meta_analysis::Fit {
        method,
        test: options.test,
        level: model.level,
        k: model.k,
        estimate: c0.estimate,
        se: c0.se,
        statistic: c0.statistic,
        df: model.df,
        p: c0.p,
        ci_lower: c0.ci_lower,
        ci_upper: c0.ci_upper,
        tau2: s1 + s2,
        tau: (s1 + s2).sqrt(),
        se_tau2: None,
        q: model.qe,
        q_df: model.qe_df,
        q_p: model.qe_p,
        i2: f64::NAN,
        h2: f64::NAN,
        pi_lower: model.pi_lower.unwrap_or(c0.ci_lower),
        pi_upper: model.pi_upper.unwrap_or(c0.ci_upper),
        iterations: Some(model.iterations),
    };
    let name = format!("Three-level model ({}), {} studies", method.name(), model.n_studies);
    let notes = [
        format!(
            "{name}: k = {}, σ²₁ (between studies) = {:.4}, σ²₂ (within studies) = {:.4}",
            model.k, s1, s2
        ),
        format!(
            "Rows grouped by {study}; weights: the diagonal of the inverse marginal covariance, \
             as % of its sum (metafor's weights())."
        ),
    ];
    Ok(ThreeLevel {
        fit,
        name,
        clusters,
        weights,
        notes,
    })
}

/// The three-level model as the multilevel tool returns it, for the result and its printed
/// summary: that tool called with `study`, the exclusions and the fit's options.
fn three_level_result(
    study: &str,
    excluded: &[String],
    options: &meta_analysis::FitOptions,
    data: &DataSource,
) -> Result<MultilevelResult, ToolError> {
    use super::args::FromArgs;
    let test = match options.test {
        meta_analysis::Test::Knha => "t",
        meta_analysis::Test::Z => "z",
    };
    let args = serde_json::json!({
        "study": study,
        "exclude": excluded,
        "method": options.method.name(),
        "level": options.level,
        "test": test,
    });
    let args = args.as_object().expect("an object");
    let args = super::fit_multilevel::FitMultilevelArgs::from_args(args)
        .map_err(|e| invalid(e.to_string()))?;
    super::fit_multilevel::fit_multilevel(args, data)
}

fn invalid(message: String) -> ToolError {
    ToolError::new(ErrorCode::InvalidArguments, message)
}

/// Per record: its fitted value and the interval around it; `None` when left out.
type FittedValues = Vec<Option<(f64, f64, f64)>>;

/// The meta-regression on `mods` of the records not excluded, and each record's fitted value
/// with its confidence interval (its prediction interval with `addpred`), as metafor's
/// predict() gives them; `None` for an excluded record. The formula's text too.
fn regression(
    mods: &Mods,
    excluded: &[String],
    options: &meta_analysis::FitOptions,
    data: &DataSource,
    addpred: bool,
) -> Result<(MetaRegression, FittedValues, String), ToolError> {
    let model_data = model_data(Some(mods), &[], excluded.to_vec(), data)?;
    let design = model_data.matrix().expect("mods were given");
    let kept = data.kept(&model_data.excluded);
    let model = meta_analysis::meta_regression_design(&kept, design, options)?;
    let b = &model.coefficients;
    // The critical value of the model's intervals (z, or t with knha).
    let crit = b
        .iter()
        .find(|c| c.se > 0.0)
        .map_or(0.0, |c| (c.ci_upper - c.estimate) / c.se);
    let v = model.covariance();
    let mut at_kept = 0;
    let left_out = super::data::id_set(&model_data.excluded);
    let values = data
        .records()
        .iter()
        .map(|r| {
            if left_out.contains(r.id.as_str()) {
                return None;
            }
            let i = at_kept;
            at_kept += 1;
            let x: Vec<f64> = (0..b.len()).map(|a| design.value(i, a)).collect();
            let fit: f64 = x.iter().zip(b).map(|(x, c)| x * c.estimate).sum();
            let var: f64 = (0..b.len())
                .map(|a| (0..b.len()).map(|c| x[a] * v[a][c] * x[c]).sum::<f64>())
                .sum::<f64>()
                .max(0.0);
            let half = crit * if addpred { var + model.tau2 } else { var }.sqrt();
            Some((fit, fit - half, fit + half))
        })
        .collect();
    let formula = model_data.formula_text().unwrap_or_default();
    Ok((model, values, formula))
}

/// forest()'s layout options of a call, on yi's scale: `at`, `alim`, `xlim` and `refline`
/// are given on the natural scale and mapped back by the transform's inverse.
struct Layout {
    at: Vec<f64>,
    alim: Option<(f64, f64)>,
    xlim: Option<(f64, f64)>,
    refline: Reference,
    header: Option<(String, String)>,
    mlab: Option<String>,
    showweights: Option<bool>,
    addpred: bool,
    shade: Option<Shade>,
    width: Option<f64>,
}

impl Layout {
    fn of(args: &ForestArgs, t: Transform) -> Result<Layout, ToolError> {
        let yi = |name: &str, v: f64| -> Result<f64, ToolError> {
            let y = t.inverse(v);
            if v.is_finite() && y.is_finite() {
                Ok(y)
            } else {
                Err(invalid(format!(
                    "{name}: {v} lies outside the natural scale of {} (no yi maps to it)",
                    t.name()
                )))
            }
        };
        let pair = |name: &str, values: &[f64]| -> Result<Option<(f64, f64)>, ToolError> {
            match values {
                [] => Ok(None),
                [a, b] if a != b => {
                    let (a, b) = (yi(name, *a)?, yi(name, *b)?);
                    Ok(Some((a.min(b), a.max(b))))
                }
                _ => Err(invalid(format!(
                    "{name} takes two different numbers [lo, hi], got {values:?}"
                ))),
            }
        };
        let at = args
            .at
            .iter()
            .map(|v| yi("at", *v))
            .collect::<Result<Vec<f64>, _>>()?;
        if at.len() > crate::plots::scale::MAX_TICKS {
            return Err(invalid(format!(
                "at takes at most {} ticks",
                crate::plots::scale::MAX_TICKS
            )));
        }
        let alim = pair("alim", &args.alim)?;
        if at.len() == 1 && alim.is_none() {
            return Err(invalid("at: one tick needs alim for the axis' ends".into()));
        }
        let refline = match &args.refline {
            None => Reference::Null,
            Some(Value::Bool(false)) => Reference::Hidden,
            Some(Value::Bool(true)) => Reference::Null,
            Some(Value::Number(n)) => Reference::At(yi("refline", n.as_f64().unwrap_or(f64::NAN))?),
            Some(other) => {
                return Err(invalid(format!(
                    "refline takes a number or false, got {other}"
                )))
            }
        };
        let header = match args.header.as_slice() {
            [] => None,
            [left] => Some((left.clone(), String::new())),
            [left, right] => Some((left.clone(), right.clone())),
            _ => return Err(invalid("header takes two titles: [left, right]".into())),
        };
        if let Some(w) = args.width {
            if !(100.0..=4000.0).contains(&w) {
                return Err(invalid(format!("width takes 100 to 4000, got {w}")));
            }
        }
        Ok(Layout {
            at,
            alim,
            xlim: pair("xlim", &args.xlim)?,
            refline,
            header,
            mlab: args.mlab.clone(),
            showweights: args.showweights,
            addpred: args.addpred,
            shade: args.shade.map(|s| match s {
                ShadeArg::Zebra => Shade::Zebra,
                ShadeArg::Zebra2 => Shade::Zebra2,
                ShadeArg::All => Shade::All,
            }),
            width: args.width,
        })
    }

    fn options(&self) -> ForestOptions<'_> {
        ForestOptions {
            at: (!self.at.is_empty()).then_some(self.at.as_slice()),
            alim: self.alim,
            xlim: self.xlim,
            refline: self.refline,
            header: self
                .header
                .as_ref()
                .map(|(l, r)| (l.as_str(), r.as_str())),
            mlab: self.mlab.as_deref(),
            showweights: self.showweights,
            addpred: Some(self.addpred),
            shade: self.shade,
            width: self.width,
        }
    }
}

/// The headline of the fit drawn.
impl crate::printed::Printed for ForestPlotResult {
    fn print(&self, out: &mut crate::printed::Out) {
        match (&self.model, &self.three_level) {
            (Some(model), _) => model.print(out),
            (None, Some(three_level)) => three_level.print(out),
            (None, None) => self.fit.headline(out),
        }
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
        if let Some(g) = &self.general {
            return general_reproduction(self, g, cx, out);
        }
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

/// A general model's forest in R: the multilevel tool's script of the model drawn (its
/// checks against the result's `three_level`, components pinned where metafor stops short),
/// then `forest(res)` and each record's weight, metafor's weights().
#[cfg(feature = "extended")]
fn general_reproduction(
    args: &ForestArgs,
    g: &serde_json::Map<String, Value>,
    cx: &super::reproduce::RContext,
    out: &mut super::reproduce::Reproduction,
) -> Result<(), ToolError> {
    use super::args::FromArgs;
    use super::reproduce::{RContext, Reproducible};
    let margs = general_args(g, args, &args.exclude.exclude)?;
    let model = super::fit_multilevel::FitMultilevelArgs::from_args(&margs)
        .map_err(|e| invalid(e.to_string()))?;
    let inner = RContext {
        args: cx.args,
        data: cx.data,
        result: &cx.result["three_level"],
    };
    model.reproduce(&inner, out)?;
    out.script.line("forest(res)");
    for (i, row) in cx.result["numbers"]["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["weight_percent"].is_number())
        .enumerate()
    {
        out.check_at(format!("weights(res)[{}]", i + 1), row, "/weight_percent");
    }
    out.methods.say(
        "The effect sizes, grouped by cluster, and the model's estimates are shown in a forest \
         plot.",
        &[],
    );
    Ok(())
}
