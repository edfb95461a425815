//! `fit_random_effects`: the random-effects model, optionally with user weights.

use super::args::{FitArgs, WeightsArg};
use super::data::{DataSource, DatasetInfo};
use super::fit::{body, headline, natural, unweighted, weighted_error};
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::{Companion, Tool, ToolError, ToolGroup, FOREST_PLOT, MAX_TOOL_RECORDS};
use meta_analysis::Fit;
use serde::Serialize;
use serde_json::Value;

pub static FIT_RANDOM_EFFECTS: Tool = Tool {
    name: "fit_random_effects",
    title: "Random-effects meta-analysis",
    summary: "The pooled estimate, its CI and p, tau^2, heterogeneity, PI.",
    group: ToolGroup::Benchmark,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::mapped(&FOREST_PLOT, unweighted, Value::clone)),
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "metafor's rma(yi, vi): the random-effects model, or with method EE the equal-effects \
model."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(fit_random_effects; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    examples::fit_options()
        .into_iter()
        .flat_map(|o| [o.clone(), examples::with(o, "records", examples::records())])
        .collect()
}

composed_args! {
    /// The arguments of a fit with optional user weights: a fit's, and `weights`, the name of a
    /// numeric column holding each record's weight (`fit_random_effects`).
    #[derive(Debug, Default)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct WeightedFitArgs {
        #[flat]
        pub fit: FitArgs,
        #[flat]
        pub weights: WeightsArg,
    }
}

/// `fit_random_effects`' result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FitResult {
    #[serde(flatten)]
    pub fit: Fit,
    /// The column of user weights the estimate was weighted by (only when `weights` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(with = "String"))]
    pub weights: Option<String>,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// The estimate, CI and prediction interval on the natural scale (null with transform
    /// "none").
    pub natural: Option<NaturalScale>,
    /// Records left out because their `weights` value is missing (metafor's na.omit); only
    /// when some are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<super::data::Omitted>,
    pub dataset: DatasetInfo,
}

/// `fit_random_effects`: [`meta_analysis::fit_weighted`] with the `weights` column's values,
/// or without weights (then exactly [`meta_analysis::fit`]).
pub fn fit_random_effects(
    args: WeightedFitArgs,
    data: &DataSource,
) -> Result<FitResult, ToolError> {
    let scale = Scale::of(&args.fit.scale, data)?;
    let options = args.fit.options()?;
    let columns: Vec<String> = args.weights.weights.iter().cloned().collect();
    let (excluded, omitted) = data.na_omit(&columns, Vec::new())?;
    // The page's first module leaves user weights to the whole engine.
    #[cfg(feature = "extended")]
    let weights = match &args.weights.weights {
        Some(column) => Some(super::columns::weight_column(data, column, &excluded)?),
        None => None,
    };
    #[cfg(not(feature = "extended"))]
    let weights: Option<Vec<f64>> = match &args.weights.weights {
        Some(_) => return Err(super::error::whole_engine("`weights`")),
        None => None,
    };
    let kept;
    let records = if excluded.is_empty() {
        data.records()
    } else {
        kept = data.kept(&excluded);
        &kept
    };
    let fit = match weights {
        Some(weights) => meta_analysis::fit_weighted(records, Some(&weights), &options),
        None => meta_analysis::fit(records, &options).map_err(meta_analysis::WeightedError::from),
    }
    .map_err(|e| weighted_error(args.weights.weights.as_deref(), e))?;
    Ok(FitResult {
        natural: natural(&fit, &scale),
        fit,
        weights: args.weights.weights,
        scale: scale.info(),
        omitted,
        dataset: data.info().clone(),
    })
}

/// The fit's headline and `print.rma.uni`'s body (records left out for a missing weight are
/// in the result, not the summary).
impl crate::printed::Printed for FitResult {
    fn print(&self, out: &mut crate::printed::Out) {
        headline(out, &self.fit, &self.scale, self.natural.as_ref(), &[]);
        // Records left out for a missing weight are said, as every tool says its na.omit.
        crate::printed::notes_and_omitted_lines(
            out,
            &self.dataset.notes,
            self.omitted.iter().map(|o| o.id.as_str()),
        );
        body(&self.fit, &self.scale, self.natural.as_ref()).print(out);
    }
}

/// `rma(yi, vi, weights = ...)` with the call's method, test and level.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for WeightedFitArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, fit_checks, fit_methods, record_arguments};
        let options = self.fit.options()?;
        let mut args = vec!["yi".to_string(), "vi".into(), "data = dat".into()];
        args.extend(record_arguments(cx, &[]));
        if let Some(weights) = &self.weights.weights {
            args.push(format!("weights = {}", crate::rcode::name(weights)));
        }
        args.extend(fit_arguments(options.method, options.level, options.test));
        out.script
            .line(format!("res <- {}", crate::rcode::Script::call("rma", &args)));
        fit_checks(out, cx.result);
        fit_methods(
            &mut out.methods,
            cx.result["measure"].as_str(),
            options.method,
            options.test,
            options.level,
            false,
        );
        if let Some(weights) = &self.weights.weights {
            out.methods.say(
                &format!(
                    "The estimate was weighted by the user-supplied weights in column {weights:?}."
                ),
                &[],
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::super::{call, companion_plot, FIT_RANDOM_EFFECTS, FOREST_PLOT, META_REGRESSION};
    use serde_json::{json, Value};

    fn records() -> Value {
        json!([
            {"id": "a", "yi": 0.30, "vi": 0.04, "n": 40, "x": 1.0, "arm": "p"},
            {"id": "b", "yi": 0.12, "vi": 0.02, "n": 80, "x": 2.0, "arm": "q"},
            {"id": "c", "yi": 0.65, "vi": 0.05, "n": 30, "x": 3.0, "arm": "p"},
            {"id": "d", "yi": 0.02, "vi": 0.01, "n": 150, "x": 1.5, "arm": "q"},
            {"id": "e", "yi": 0.48, "vi": 0.03, "n": 60, "x": 4.0, "arm": "p"},
            {"id": "f", "yi": -0.05, "vi": 0.02, "n": 90, "x": 0.5, "arm": "q"}
        ])
    }

    fn engine_records(excluded: &[&str]) -> Vec<meta_analysis::Record> {
        records()
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| !excluded.contains(&r["id"].as_str().unwrap()))
            .map(|r| {
                meta_analysis::Record::new(
                    r["id"].as_str().unwrap(),
                    r["yi"].as_f64().unwrap(),
                    r["vi"].as_f64().unwrap(),
                )
            })
            .collect()
    }

    fn column(name: &str, excluded: &[&str]) -> Vec<f64> {
        records()
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| !excluded.contains(&r["id"].as_str().unwrap()))
            .map(|r| r[name].as_f64().unwrap())
            .collect()
    }

    /// The result against the tool's output schema, which only a build with `definitions`
    /// derives (without it, `cargo test --no-default-features` checks the numbers alone).
    fn valid(name: &str, result: &Value) {
        #[cfg(feature = "definitions")]
        {
            let schema = super::super::output_schema(name).unwrap();
            crate::schema_check::validate(&schema, result)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        #[cfg(not(feature = "definitions"))]
        let _ = (name, result);
    }

    #[cfg(feature = "extended")]

    #[test]
    fn a_weighted_fit_is_the_engines_and_says_its_column() {
        let options = meta_analysis::FitOptions {
            test: meta_analysis::Test::Knha,
            ..Default::default()
        };
        let args = json!({"records": records(), "weights": "n", "test": "knha"});
        let result = call(FIT_RANDOM_EFFECTS.name, &args).unwrap();
        valid(FIT_RANDOM_EFFECTS.name, &result);
        let engine =
            meta_analysis::fit_weighted(&engine_records(&[]), Some(&column("n", &[])), &options)
                .unwrap();
        assert_eq!(result["weights"], "n");
        assert_eq!(result["estimate"], json!(engine.estimate));
        assert_eq!(result["se"], json!(engine.se));
        assert_eq!(result["pi_lower"], json!(engine.pi_lower));
        // The heterogeneity is the unweighted fit's; the estimate is not.
        let plain = call(
            FIT_RANDOM_EFFECTS.name,
            &json!({"records": records(), "test": "knha"}),
        )
        .unwrap();
        assert!(
            plain.get("weights").is_none(),
            "no weights field without weights"
        );
        for field in ["tau2", "q", "i2", "h2"] {
            assert_eq!(result[field], plain[field], "{field}");
        }
        assert_ne!(result["estimate"], plain["estimate"]);
        // The forest plot draws the unweighted fit, so it does not go with a weighted one.
        assert_eq!(companion_plot(FIT_RANDOM_EFFECTS.name, &args), None);
        assert_eq!(
            companion_plot(FIT_RANDOM_EFFECTS.name, &json!({"records": records()})),
            Some(FOREST_PLOT.name)
        );
        // The frozen dataset's numeric columns serve as weights too.
        let frozen = call(FIT_RANDOM_EFFECTS.name, &json!({"weights": "n1i"})).unwrap();
        assert_eq!(
            (&frozen["weights"], &frozen["k"]),
            (&json!("n1i"), &json!(19))
        );
    }

    #[cfg(feature = "extended")]

    #[test]
    fn a_weighted_meta_regression_is_the_engines_on_the_records_kept() {
        let args = json!({"records": records(), "mods": ["x"], "weights": "n", "exclude": ["c"],
            "at": [{"x": 2}]});
        let result = call(META_REGRESSION.name, &args).unwrap();
        valid(META_REGRESSION.name, &result);
        let engine = meta_analysis::meta_regression_weighted(
            &engine_records(&["c"]),
            &[meta_analysis::Moderator::numeric("x", column("x", &["c"]))],
            Some(&column("n", &["c"])),
            &Default::default(),
        )
        .unwrap();
        assert_eq!(result["weights"], "n");
        assert_eq!(result["k"], 5);
        assert_eq!(
            result["coefficients"][1]["se"],
            json!(engine.coefficients[1].se)
        );
        assert_eq!(result["qm"], json!(engine.qm));
        let at = engine
            .predict(&[meta_analysis::ModeratorValue::Number(2.0)])
            .unwrap();
        assert_eq!(result["predictions"][0]["pi_upper"], json!(at.pi_upper));
        // No bubble plot: it draws the unweighted line.
        assert_eq!(companion_plot(META_REGRESSION.name, &args), None);
        let plain = call(
            META_REGRESSION.name,
            &json!({"records": records(), "mods": ["x"], "exclude": ["c"]}),
        )
        .unwrap();
        assert!(plain.get("weights").is_none());
        assert_eq!(plain["tau2"], result["tau2"]);
    }

    #[cfg(feature = "extended")]

    #[test]
    fn unusable_weights_are_invalid_arguments_naming_the_record() {
        let mut recs = records();
        recs[3]["n"] = json!(0);
        let cases = [
            (
                json!({"records": records(), "weights": "size"}),
                "invalid_arguments",
                "\"size\" is not a column of the given records",
            ),
            (
                json!({"records": records(), "weights": "arm"}),
                "invalid_arguments",
                "weights: the column \"arm\" holds text in record \"a\"",
            ),
            (
                json!({"records": recs, "weights": "n"}),
                "invalid_arguments",
                "weights \"n\": record \"d\" has weight 0; a weight must be greater than 0",
            ),
        ];
        for tool in [FIT_RANDOM_EFFECTS.name, META_REGRESSION.name] {
            for (args, code, message) in &cases {
                let mut args = args.clone();
                if tool == META_REGRESSION.name {
                    args["mods"] = json!(["x"]);
                }
                let e = call(tool, &args).unwrap_err();
                assert_eq!(e.code.as_str(), *code, "{tool} {args}: {e}");
                assert!(e.message.contains(message), "{tool}: {}", e.message);
            }
        }
        let mut gap = records();
        gap[1].as_object_mut().unwrap().remove("n");
        // A record without a weight is left out, as metafor's na.omit, and listed.
        let fit = call(
            FIT_RANDOM_EFFECTS.name,
            &json!({"records": gap, "weights": "n"}),
        )
        .unwrap();
        assert_eq!(fit["omitted"], json!([{"id": "b", "reason": "n is missing"}]));
        // The printed summary says so too.
        let text = super::super::summary(FIT_RANDOM_EFFECTS.name, &fit).unwrap();
        assert!(
            text.lines()
                .any(|l| l.starts_with("Omitted (a missing value") && l.ends_with(": b")),
            "{text}"
        );
        // A record left out needs no weight.
        let mut recs = records();
        recs[2]["n"] = json!(-1);
        let args = json!({"records": recs, "mods": ["x"], "weights": "n", "exclude": ["c"]});
        assert!(call(META_REGRESSION.name, &args).is_ok());
    }
}
