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
