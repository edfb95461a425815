//! `meta_regression`: the mixed-effects meta-regression on named moderator columns, with
//! predictions at given moderator values.

use super::args::{model_data, BttArg, ExcludeArg, FitArgs, RequiredModsArg, WeightsArg};
use super::data::Omitted;
use super::columns::weight_column;
use super::data::{DataSource, DatasetInfo};
use super::fit::weighted_error;
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::{Companion, Tool, ToolGroup, BUBBLE_PLOT, MAX_TOOL_RECORDS};
use super::{ErrorCode, ToolError};
use crate::printable::{label, LABEL_CHARS};
use crate::printed::{
    self, coefficient_table, dropped_line, equal_effects, f4, frame_table_uncut, i2_h2_lines,
    model_context, model_line, notes_and_omitted_lines, pval, scale_labels, signif_legend,
    tau2_lines, ModeratorTest, Out, Printed,
};
use meta_analysis::{Coefficient, MetaRegression, ModeratorValue, Term};
use serde::Serialize;
use serde_json::{Map, Value};

/// The most prediction points one call takes.
pub const MAX_PREDICTIONS: usize = 100;

pub static META_REGRESSION: Tool = Tool {
    name: "meta_regression",
    title: "Mixed-effects meta-regression",
    summary: "Effects explained by moderator columns.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::mapped(
        &BUBBLE_PLOT,
        bubble_applies,
        bubble_arguments,
    )),
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Mixed-effects model as metafor's rma(yi, vi, mods), at most {} terms; QM is F \
with knha; R^2 is pseudo-R^2, in percent; `at` adds predictions.",
            meta_analysis::MAX_MODERATORS,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(meta_regression; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::{json, Value};
    let mut calls: Vec<Value> = examples::fit_options()
        .into_iter()
        .map(|o| {
            let o = examples::with(o, "mods", json!(["weeks", "tester"]));
            examples::with(o, "at", json!([{"weeks": 2, "tester": "blind"}]))
        })
        .collect();
    calls.push(json!({"mods": ["dose"], "records": examples::moderated(), "exclude": ["e"], "at": [{"dose": 0}]}));
    calls
}

/// `meta_regression`'s bubble plot: with exactly one moderator, a numeric one, and no user
/// weights (the plot draws the unweighted line).
fn bubble_applies(args: &Value) -> bool {
    if args.get("weights").is_some() {
        return false;
    }
    let Some(name) = single_column(args) else {
        return false;
    };
    let numeric = |value: Option<&Value>| {
        matches!(
            super::raw_columns::read_value(value),
            super::raw_columns::Reading::Number(_)
        )
    };
    match args.get("records").and_then(Value::as_array) {
        // The call succeeded, so every record analysed holds the column, all of one type.
        Some(records) => records
            .iter()
            .map(|r| r.get(&name))
            .find(|v| v.is_some_and(|v| !v.is_null()))
            .is_some_and(numeric),
        None => DataSource::frozen()
            .column(&name)
            .and_then(|column| column.get(0))
            .is_some_and(|value| value.is_number()),
    }
}

/// The one column of `mods` when the model is the intercept and that column as one term
/// (`["weeks"]` or `"~ weeks"`).
fn single_column(args: &Value) -> Option<String> {
    let mods: super::args::Mods = serde_json::from_value(args.get("mods")?.clone()).ok()?;
    let formula = mods.formula().ok()?;
    match (formula.columns().as_slice(), formula.term_labels().as_slice()) {
        ([column], [term]) if column == term && formula.has_intercept() => Some(column.clone()),
        _ => None,
    }
}

/// `meta_regression`'s arguments as `bubble_plot`'s: `mod`, `method`, `exclude`, `records`.
fn bubble_arguments(args: &Value) -> Value {
    let mut out = Map::new();
    if let Some(name) = single_column(args) {
        out.insert("mod".into(), Value::String(name));
    }
    for key in ["method", "level", "test", "exclude", "records"] {
        if let Some(value) = args.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    Value::Object(out)
}

/// The model's prediction at one set of moderator values.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct PredictionRow {
    /// The moderator values, as given.
    pub at: Map<String, Value>,
    pub estimate: f64,
    pub se: f64,
    /// Confidence interval of the predicted mean effect.
    pub ci_lower: f64,
    pub ci_upper: f64,
    /// Prediction interval of a new study's true effect at these values.
    pub pi_lower: f64,
    pub pi_upper: f64,
    pub natural: Option<NaturalScale>,
}

/// `meta_regression`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MetaRegressionResult {
    /// Records fitted.
    pub k: usize,
    /// The tau^2 estimator.
    pub method: crate::tools::Word,
    /// "z" or "knha".
    pub test: crate::tools::Word,
    /// Confidence level of the intervals.
    pub level: f64,
    /// The column of user weights the coefficients were weighted by (only when `weights` is
    /// given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(with = "String"))]
    pub weights: Option<String>,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// Residual heterogeneity tau^2.
    pub tau2: f64,
    pub tau: f64,
    /// Standard error of tau^2; null where the estimator defines none (PM, EE).
    pub se_tau2: Option<f64>,
    /// Residual I^2 in percent.
    pub i2: f64,
    /// Residual H^2.
    pub h2: f64,
    /// Pseudo-R^2 in percent: the reduction of tau^2 against the model without moderators
    /// (null for a model without intercept, as metafor).
    pub r2: Option<f64>,
    /// Omnibus test of all moderators: Wald chi^2, or F with test "knha".
    pub qm: f64,
    /// Its (numerator) df: the number of coefficients it tests.
    pub qm_df: usize,
    /// Its denominator df, k - p (test "knha" only, else null).
    pub qm_df2: Option<usize>,
    pub qm_p: f64,
    /// Test of residual heterogeneity.
    pub qe: f64,
    /// k - p.
    pub qe_df: usize,
    pub qe_p: f64,
    /// The coefficients QM tests, by position from 1 (all but the intercept unless `btt`).
    pub btt: Vec<usize>,
    /// The model formula fitted, as metafor writes it (`~ weeks + tester`).
    pub formula: String,
    /// Intercept first (when the model has one), then the terms' coefficients in R's order,
    /// named as metafor names them (`weeks`, `testerblind`, `factor(g)B`, `x1:x2`, `I(x^2)`).
    pub coefficients: Vec<Coefficient>,
    /// Coefficients dropped as aliased: design columns that are linear combinations of the
    /// intercept and the columns before them (an interaction with an empty cell), dropped as
    /// metafor drops them ("Redundant predictors dropped from the model."); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// One per object of `at`, in order.
    pub predictions: Vec<PredictionRow>,
    /// Records left out because a column the model reads has no value there (metafor's
    /// na.omit); `k` counts the records fitted.
    pub omitted: Vec<Omitted>,
    pub dataset: DatasetInfo,
}

impl MetaRegressionResult {
    pub fn of(
        model: &MetaRegression,
        formula: String,
        predictions: Vec<PredictionRow>,
        omitted: Vec<Omitted>,
        data: &DataSource,
        scale: &Scale,
    ) -> Self {
        MetaRegressionResult {
            k: model.k,
            method: model.method.name().into(),
            test: model.test.name().into(),
            level: model.level,
            weights: None,
            scale: scale.info(),
            tau2: model.tau2,
            tau: model.tau,
            se_tau2: model.se_tau2,
            i2: model.i2,
            h2: model.h2,
            r2: model.pseudo_r2(),
            qm: model.qm,
            qm_df: model.qm_df,
            qm_df2: model.qm_df2,
            qm_p: model.qm_p,
            qe: model.qe,
            qe_df: model.qe_df,
            qe_p: model.qe_p,
            btt: model.btt.clone(),
            formula,
            dropped: model.dropped(),
            coefficients: model.coefficients.clone(),
            predictions,
            omitted,
            dataset: data.info().clone(),
        }
    }
}

fn invalid(message: String) -> ToolError {
    ToolError::new(ErrorCode::InvalidArguments, message)
}

/// The values of one `at` object, in the order of the model's terms: each moderator given,
/// nothing else.
fn values_at(
    index: usize,
    at: &Map<String, Value>,
    terms: &[Term],
) -> Result<Vec<ModeratorValue>, ToolError> {
    let names: Vec<&str> = terms.iter().map(Term::name).collect();
    if let Some(key) = at.keys().find(|k| !names.contains(&k.as_str())) {
        return Err(invalid(format!(
            "at[{index}].{key} is not one of the moderators ({})",
            names.join(", ")
        )));
    }
    terms
        .iter()
        .map(|term| match at.get(term.name()) {
            None => Err(invalid(format!(
                "at[{index}] has no value for the moderator {}; each object of at gives every \
                 moderator a value",
                term.name()
            ))),
            Some(Value::String(level)) => Ok(ModeratorValue::Level(level.clone())),
            Some(value) => Ok(ModeratorValue::Number(value.as_f64().unwrap_or(f64::NAN))),
        })
        .collect()
}

composed_args! {
    /// `meta_regression`'s arguments: the moderators, the fit's options, prediction points,
    /// exclusions and `weights`, the name of a numeric column holding each record's weight.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct MetaRegressionArgs {
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub fit: FitArgs,
        #[flat]
        pub mods: RequiredModsArg,
        #[flat]
        pub btt: BttArg,
        // One object per prediction: a value for each moderator.
        #[serde(default)]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "at_schema"))]
        pub at: Vec<Map<String, Value>>,
        #[flat]
        pub weights: WeightsArg,
    }
}

/// `at`: the moderator values at which to predict.
#[cfg(feature = "definitions")]
fn at_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({
        "type": "array",
        "items": {
            "type": "object",
            "additionalProperties": {"type": ["number", "string"]}
        },
        "description": format!("Points to predict at (at most {MAX_PREDICTIONS}), a value per column mods reads, e.g. [{{\"weeks\": 0}}].")
    }))
    .expect("an object schema")
}

/// `meta_regression`: [`meta_analysis::meta_regression_weighted`] with the `weights`
/// column's values of the records kept, or without weights (then exactly
/// [`meta_analysis::meta_regression`]).
pub fn meta_regression(
    args: MetaRegressionArgs,
    data: &DataSource,
) -> Result<MetaRegressionResult, ToolError> {
    let column = args.weights.weights.clone();
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    if args.at.len() > MAX_PREDICTIONS {
        return Err(invalid(format!(
            "at holds {} objects; at most {MAX_PREDICTIONS} predictions are accepted",
            args.at.len()
        )));
    }
    let excluded = args.exclude.of(data)?;
    let also: Vec<&str> = column.as_deref().into_iter().collect();
    let model_data = model_data(Some(&args.mods.mods), &also, excluded, data)?;
    let excluded = &model_data.excluded;
    let kept = data.kept(excluded);
    let weights = match &column {
        Some(name) => Some(weight_column(data, name, excluded)?),
        None => None,
    };
    let design = model_data.matrix().expect("mods are required");
    let model = meta_analysis::meta_regression_design_weighted(
        &kept,
        design,
        weights.as_deref(),
        &options,
    )
    .map_err(|e| weighted_error(column.as_deref(), e))?;
    let model = match args.btt.get()? {
        Some(btt) => model.with_btt(&btt)?,
        None => model,
    };
    let predictions = args
        .at
        .into_iter()
        .enumerate()
        .map(|(i, at)| {
            let values = values_at(i, &at, model.terms())?;
            let p = model.predict(&values).map_err(|e| {
                let e = ToolError::from(e);
                ToolError::new(e.code, format!("at[{i}]: {}", e.message))
            })?;
            Ok(PredictionRow {
                at,
                estimate: p.estimate,
                se: p.se,
                ci_lower: p.ci_lower,
                ci_upper: p.ci_upper,
                pi_lower: p.pi_lower,
                pi_upper: p.pi_upper,
                natural: scale.natural(
                    p.estimate,
                    (p.ci_lower, p.ci_upper),
                    Some((p.pi_lower, p.pi_upper)),
                ),
            })
        })
        .collect::<Result<Vec<_>, ToolError>>()?;
    let formula = model_data.formula_text().unwrap_or_default();
    let notes = model_data.notes;
    let mut result =
        MetaRegressionResult::of(&model, formula, predictions, model_data.omitted, data, &scale);
    result.weights = column;
    result.dataset.notes = notes;
    Ok(result)
}

/// `print.rma.uni` of a model with moderators, after the moderators' test as headline, then
/// the predictions.
impl Printed for MetaRegressionResult {
    fn print(&self, out: &mut Out) {
        self.headline(out);
        notes_and_omitted_lines(
            out,
            &self.dataset.notes,
            self.omitted.iter().map(|o| o.id.as_str()),
        );
        dropped_line(out, &self.dropped);
        out.blank();
        model_line(out, &self.method, self.k, false);
        out.blank();
        if !equal_effects(&self.method) {
            tau2_lines(out, Some(self.tau2), self.se_tau2, false);
        }
        i2_h2_lines(out, Some(self.i2), Some(self.h2), self.r2, false);
        out.blank();
        out.line("Test for Residual Heterogeneity:");
        out.line(format!(
            "QE(df = {}) = {}, p-val {}",
            self.qe_df,
            f4(Some(self.qe)),
            pval(Some(self.qe_p), true, false)
        ));
        // print.rma.uni tests the moderators only with more than one coefficient (a model
        // without an intercept and one slope has none: QM would be its z^2).
        if self.coefficients.len() > 1 {
            out.blank();
            let (heading, line) = self.moderator_test().lines(&self.btt_positions());
            out.line(heading);
            out.line(line);
        }
        out.blank();
        out.line("Model Results:");
        out.blank();
        let rows: Vec<printed::CoefficientRow> = self
            .coefficients
            .iter()
            .map(|c| printed::CoefficientRow {
                name: &c.name,
                estimate: c.estimate,
                se: c.se,
                statistic: c.statistic,
                df: None,
                p: Some(c.p),
                ci_lower: c.ci_lower,
                ci_upper: c.ci_upper,
            })
            .collect();
        out.lines(coefficient_table(&rows, self.qm_df2.map(|d| d as f64)));
        self.print_predictions(out);
        signif_legend(out);
    }
}

impl MetaRegressionResult {
    /// "Moderators ~ weeks: QM(df = 1) = 4.1, p = 0.04 (random-effects REML, k = 19)".
    pub fn headline(&self, out: &mut Out) {
        let (_, test) = self.moderator_test().lines(&self.btt_positions());
        out.line(format!(
            "Moderators {}: {} ({})",
            self.formula,
            test.replace(", p-val ", ", p "),
            model_context(Some(&self.method), self.k, Some(&self.test))
        ));
    }

    fn moderator_test(&self) -> ModeratorTest {
        ModeratorTest {
            qm: Some(self.qm),
            qm_df: self.qm_df,
            qm_df2: self.qm_df2.map(|d| d as f64),
            qm_p: Some(self.qm_p),
        }
    }

    fn btt_positions(&self) -> Vec<u64> {
        self.btt.iter().map(|&b| b as u64).collect()
    }

    /// `predict(fit, newmods = …)`: one row per `at`, named by its values, then the rows on
    /// the natural scale when there is one.
    fn print_predictions(&self, out: &mut Out) {
        if self.predictions.is_empty() {
            return;
        }
        let rows: Vec<(String, Vec<String>)> = self
            .predictions
            .iter()
            .map(|p| {
                let row = [
                    p.estimate,
                    p.se,
                    p.ci_lower,
                    p.ci_upper,
                    p.pi_lower,
                    p.pi_upper,
                ];
                (at_name(&p.at), row.iter().map(|&x| f4(Some(x))).collect())
            })
            .collect();
        out.blank();
        out.line("Predicted Values:");
        out.blank();
        out.lines(frame_table_uncut(
            &["pred", "se", "ci.lb", "ci.ub", "pi.lb", "pi.ub"],
            &rows,
            1,
        ));
        let natural: Vec<(String, Vec<String>)> = self
            .predictions
            .iter()
            .zip(&rows)
            .filter_map(|(p, (name, _))| {
                let n = p.natural.as_ref()?;
                Some((
                    name.clone(),
                    vec![
                        f4(Some(n.estimate)),
                        f4(Some(n.ci_lower)),
                        f4(Some(n.ci_upper)),
                        f4(n.pi_lower),
                        f4(n.pi_upper),
                    ],
                ))
            })
            .collect();
        let (_, label) = scale_labels(self.scale.measure.as_deref(), &self.scale.transform);
        if let (false, Some(label)) = (natural.is_empty(), label) {
            out.blank();
            out.line(format!("Predicted Values ({label} scale):"));
            out.blank();
            out.lines(frame_table_uncut(
                &["pred", "ci.lb", "ci.ub", "pi.lb", "pi.ub"],
                &natural,
                1,
            ));
        }
    }
}

/// A prediction's row name, `weeks=4, tester=blind`: each name and value cut, not the row
/// name (with several moderators it would lose the last ones).
fn at_name(at: &Map<String, Value>) -> String {
    at.iter()
        .map(|(k, v)| {
            let k = label(k, LABEL_CHARS);
            match v {
                Value::String(s) => format!("{k}={}", label(s, LABEL_CHARS)),
                v => format!("{k}={v}"),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `rma(yi, vi, mods = ~ ..., btt = ..., weights = ...)`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for MetaRegressionArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, fit_methods, rma};
        use crate::rcode::{name, number, vector};
        let options = self.fit.options()?;
        let formula = self.mods.mods.formula()?;
        // The formula as the engine parsed it (its columns checked, its functions among
        // factor, I, log, exp, sqrt, abs): R reads the same text.
        let mut more = vec![format!("mods = {}", formula.text())];
        if let Some(btt) = cx.result["btt"].as_array() {
            more.push(format!(
                "btt = {}",
                vector(btt.iter().map(|b| number(b.as_f64().unwrap_or(f64::NAN))))
            ));
        }
        if let Some(weights) = &self.weights.weights {
            more.push(format!("weights = {}", name(weights)));
        }
        more.extend(fit_arguments(options.method, options.level, options.test));
        out.script
            .line(format!("res <- {}", rma(cx, &self.exclude.exclude, more)));
        if !self.at.is_empty() {
            out.script.comment(
                "The predictions at `at` are predict(res, newmods = ...) with the moderators \
                 coded as the coefficients are.",
            );
        }
        let r = cx.result;
        for (j, _) in r["coefficients"].as_array().into_iter().flatten().enumerate() {
            let at = j + 1;
            let c = format!("/coefficients/{j}");
            out.check_at(format!("c(coef(res))[{at}]"), r, &format!("{c}/estimate"))
                .check_at(format!("res$se[{at}]"), r, &format!("{c}/se"))
                .check_at(format!("res$pval[{at}]"), r, &format!("{c}/p"))
                .check_at(format!("res$ci.lb[{at}]"), r, &format!("{c}/ci_lower"));
        }
        out.check_at("res$tau2", r, "/tau2")
            .check_at("res$QM", r, "/qm")
            .check_at("res$QMp", r, "/qm_p")
            .check_at("res$QE", r, "/qe")
            .check_at("res$QEp", r, "/qe_p");
        fit_methods(
            &mut out.methods,
            r["measure"].as_str(),
            options.method,
            options.test,
            options.level,
            true,
        );
        out.methods.say(
            &format!(
                "The moderators ({}) were examined with the omnibus test of the model's \
                 coefficients (QM).",
                formula.text()
            ),
            &[],
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::super::{call, META_REGRESSION};
    use super::MetaRegressionResult;
    use serde::Deserialize;
    use crate::printable::LABEL_CHARS;
    use crate::printed::{Out, Printed};
    use serde_json::json;

    #[cfg(feature = "extended")]

    #[test]
    fn a_predictions_row_name_cuts_each_part() {
        let args = json!({"mods": ["weeks", "tester"], "at": [{"weeks": 4, "tester": "blind"}]});
        let result = call(META_REGRESSION.name, &args).unwrap();
        let mut result = MetaRegressionResult::deserialize(&result).unwrap();
        let long = "L".repeat(1000);
        let at = json!({"weeks": 4, "tester": "blind", "arm": long});
        result.predictions[0].at = at.as_object().unwrap().clone();
        let mut out = Out::default();
        result.print(&mut out);
        let text = out.finish();
        // Each name and value cut, not the row name: with several moderators it would lose
        // the last ones.
        let cut = format!("{}…", "L".repeat(LABEL_CHARS - 1));
        assert!(
            text.contains(&format!("weeks=4, tester=blind, arm={cut} ")),
            "{text}"
        );
    }
}
