//! One convention for estimates (issue 43 item 2): every result that carries a pooled or
//! adjusted estimate with its interval names its scale (`measure`, `transform`: the typed
//! `ScaleInfo`) and gives the estimate on the natural scale beside it (`natural`: the typed
//! `NaturalScale`, null where nothing is transformed). Coefficients of a regression (rows
//! with a `name`, PET's and PEESE's intercept and slope) are on the model's scale only, as metafor prints them; a model's pooled
//! estimate is its `natural`. Checked over every registered tool's examples and a log odds
//! ratio call of each (so that `natural` is not null).

use exemplar::tools::{call, REGISTRY};
use serde_json::{json, Value};

/// Where `value` holds an estimate with its interval without `natural` beside it, or
/// without `measure` and `transform` in the result object that holds it.
fn violations(value: &Value, path: &str, scaled: bool, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            let scaled = scaled || (map.contains_key("measure") && map.contains_key("transform"));
            let estimate = map.contains_key("estimate") && map.contains_key("ci_lower");
            // A regression's coefficient: a named row, or PET's and PEESE's intercept and slope.
            let coefficient = map.contains_key("name")
                || path.ends_with(".intercept")
                || path.ends_with(".slope");
            let is_natural = path.ends_with(".natural");
            if estimate && !coefficient && !is_natural {
                if !map.contains_key("natural") {
                    out.push(format!("{path}: an estimate without `natural`"));
                }
                if !scaled {
                    out.push(format!(
                        "{path}: an estimate without `measure` and `transform`"
                    ));
                }
            }
            for (key, v) in map {
                // A plot's `numbers` are where it drew each number, not estimates.
                if key == "numbers" {
                    continue;
                }
                violations(v, &format!("{path}.{key}"), scaled, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                violations(v, &format!("{path}[{i}]"), scaled, out);
            }
        }
        _ => {}
    }
}

fn log_odds_records() -> Value {
    let rows: Vec<Value> = (0..12)
        .map(|i| {
            let yi = -0.4 + 0.07 * f64::from(i) + 0.05 * f64::from(i % 3);
            let vi = 0.02 + 0.01 * f64::from(i % 4);
            json!({"id": format!("t{i}"), "yi": yi, "vi": vi, "measure": "OR",
                   "g": if i % 2 == 0 { "a" } else { "b" }, "x": f64::from(i),
                   "study": format!("s{}", i / 2), "ni": 40 + i})
        })
        .collect();
    Value::Array(rows)
}

#[test]
fn every_estimate_names_its_scale_and_gives_its_natural_value() {
    let mut failures = Vec::new();
    let mut estimates = 0;
    for tool in REGISTRY {
        for args in (tool.examples)() {
            let Ok(result) = call(tool.name, &args) else {
                continue;
            };
            let mut found = Vec::new();
            violations(&result, tool.name, false, &mut found);
            estimates += usize::from(result.to_string().contains("\"estimate\""));
            failures.extend(found.into_iter().map(|f| format!("{f} (args {args})")));
        }
    }
    assert!(estimates > 20, "the examples carry estimates ({estimates})");
    failures.dedup();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_natural_scale_is_the_transformed_estimate_for_every_pooled_estimate() {
    // Log odds ratios: natural = exp(estimate), exp of each bound.
    let records = log_odds_records();
    let calls = [
        ("fit_random_effects", json!({})),
        ("selection_model", json!({})),
        ("pet_peese", json!({})),
        ("robust_test", json!({"cluster": "study"})),
        ("trim_and_fill", json!({})),
        ("fit_multilevel", json!({})),
    ];
    for (tool, extra) in calls {
        let mut args = extra;
        args["records"] = records.clone();
        let result = call(tool, &args).unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert_eq!(result["measure"], "OR", "{tool}");
        assert_eq!(result["transform"], "exp", "{tool}");
        let (estimate, lower, upper) = match result.get("estimate") {
            Some(e) => (
                e.clone(),
                result["ci_lower"].clone(),
                result["ci_upper"].clone(),
            ),
            None => {
                let c = &result["coefficients"][0];
                (
                    c["estimate"].clone(),
                    c["ci_lower"].clone(),
                    c["ci_upper"].clone(),
                )
            }
        };
        let natural = &result["natural"];
        for (model, nat) in [
            (estimate, "estimate"),
            (lower, "ci_lower"),
            (upper, "ci_upper"),
        ] {
            let want = model.as_f64().unwrap().exp();
            let got = natural[nat]
                .as_f64()
                .unwrap_or_else(|| panic!("{tool}: natural.{nat}"));
            assert!(
                (got - want).abs() <= 1e-12 * want.abs(),
                "{tool} {nat}: {got} vs {want}"
            );
        }
        // With transform "none", nothing is back-transformed.
        args["transform"] = json!("none");
        let plain = call(tool, &args).unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert_eq!(plain["natural"], Value::Null, "{tool}");
    }
}

/// The object schema at `pointer` in `schema`: a nullable object (`Option<T>`) is its object.
fn object_at<'a>(schema: &'a Value, pointer: &str) -> &'a Value {
    schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("no schema at {pointer:?}"))
}

/// Issue 43 item 2: a tool returns the engine's result type (flattened or embedded) instead
/// of restating its fields. Each tool below carries an engine type at `pointer`, and its
/// output schema there holds every property of that type's own derived schema, identical
/// (type, and the engine's doc comment as description), and requires what the engine's
/// requires. A tool that restated the fields in a struct of its own would drift from the
/// engine (a field added, renamed or described anew there) and fail here.
#[test]
fn tools_carry_the_engines_result_types() {
    use exemplar::tools::{output_schema, output_schema_of};
    let fit = output_schema_of::<meta_analysis::Fit>();
    let egger = output_schema_of::<meta_analysis::EggerResult>();
    let coefficient = output_schema_of::<meta_analysis::Coefficient>();
    let pooled = output_schema_of::<meta_analysis::Pooled>();
    let table_heterogeneity = output_schema_of::<meta_analysis::TableHeterogeneity>();
    let cases: Vec<(&str, &str, Value)> = vec![
        ("fit_random_effects", "", fit.clone()),
        ("refit_excluding", "", fit.clone()),
        ("leave_one_out", "/properties/results/items", fit.clone()),
        ("diagnostic_plot", "/properties/fit", fit.clone()),
        ("funnel_plot", "/properties/fit", fit.clone()),
        ("forest_plot", "/properties/fit", fit),
        ("egger_test", "", egger.clone()),
        ("funnel_plot", "/properties/egger", egger),
        (
            "fail_safe_n",
            "",
            output_schema_of::<meta_analysis::FailSafeN>(),
        ),
        (
            "cumulative_meta_analysis",
            "/properties/results/items",
            output_schema_of::<meta_analysis::CumulativeStep>(),
        ),
        (
            "rank_correlation_test",
            "",
            output_schema_of::<meta_analysis::RankTest>(),
        ),
        (
            "selection_model",
            "",
            output_schema_of::<meta_analysis::SelectionModel>(),
        ),
        (
            "influence_diagnostics",
            "/properties/results/items",
            output_schema_of::<meta_analysis::Influence>(),
        ),
        (
            "meta_regression",
            "/properties/coefficients/items",
            coefficient.clone(),
        ),
        (
            "bubble_plot",
            "/properties/fit/properties/coefficients/items",
            coefficient,
        ),
        ("mantel_haenszel", "", pooled.clone()),
        ("mantel_haenszel", "", table_heterogeneity.clone()),
        (
            "mantel_haenszel",
            "",
            output_schema_of::<meta_analysis::MantelHaenszel>(),
        ),
        (
            "heterogeneity",
            "",
            output_schema_of::<meta_analysis::HeterogeneityEstimates>(),
        ),
        (
            "trim_and_fill",
            "",
            output_schema_of::<meta_analysis::TrimAndFillSummary>(),
        ),
        (
            "trim_and_fill_plot",
            "/properties/trim_and_fill",
            output_schema_of::<meta_analysis::TrimAndFillSummary>(),
        ),
        (
            "subgroup_analysis",
            "/properties/groups/items",
            output_schema_of::<meta_analysis::SubgroupFit>(),
        ),
        (
            "pet_peese",
            "",
            output_schema_of::<meta_analysis::PetPeeseSummary>(),
        ),
        (
            "pet_peese",
            "/properties/pet",
            output_schema_of::<meta_analysis::PetPeeseRegression>(),
        ),
        (
            "pet_peese",
            "/properties/peese",
            output_schema_of::<meta_analysis::PetPeeseRegression>(),
        ),
        ("peto_odds_ratio", "", pooled),
        ("peto_odds_ratio", "", table_heterogeneity),
        (
            "peto_odds_ratio",
            "",
            output_schema_of::<meta_analysis::PetoOddsRatio>(),
        ),
    ];
    for (tool, pointer, engine) in cases {
        let schema = output_schema(tool).unwrap_or_else(|| panic!("no tool {tool}"));
        let carried = object_at(&schema, pointer);
        let properties = engine["properties"].as_object().unwrap();
        assert!(!properties.is_empty(), "{tool}: the engine type has fields");
        for (name, property) in properties {
            assert_eq!(
                carried["properties"].get(name),
                Some(property),
                "{tool}{pointer}: the engine's {name:?} is not carried as the engine derives it"
            );
        }
        let required = carried["required"].as_array().cloned().unwrap_or_default();
        for name in engine["required"].as_array().into_iter().flatten() {
            assert!(
                required.contains(name),
                "{tool}{pointer}: the engine requires {name}, the tool does not"
            );
        }
    }
}
