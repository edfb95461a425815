//! Issue 31 item 6: every tool that takes `method` accepts "FE" as well as "EE" (metafor's
//! two names of the equal-effects model) and answers with the same numbers, naming the
//! method as the call gave it.

use exemplar::tools::*;
use serde_json::{json, Value};

/// `value` with every object's `svg` left out (a plot's text names the model, and its ids
/// hash the text) and FE's names read as EE's.
fn as_ee(value: &Value) -> String {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(o) => Value::Object(
                o.iter()
                    .filter(|(k, _)| k.as_str() != "svg")
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    strip(value)
        .to_string()
        .replace("\"FE\"", "\"EE\"")
        .replace("(FE)", "(EE)")
        .replace("FE model", "EE model")
        .replace("Fixed-effects model", "Equal-effects model")
}

#[test]
fn fe_answers_as_ee_in_every_tool_that_takes_a_method() {
    let mut tools = Vec::new();
    for tool in REGISTRY {
        let schema = tool.definition().input_schema;
        let Some(names) = schema["properties"]["method"]["enum"].as_array() else {
            continue;
        };
        if !names.contains(&json!("EE")) {
            continue;
        }
        assert!(names.contains(&json!("FE")), "{}: {names:?}", tool.name);
        // The tool's own example calls, with EE and then FE as the method.
        let calls: Vec<Value> = (tool.examples)()
            .into_iter()
            .map(|mut args| {
                args["method"] = json!("EE");
                args
            })
            .collect();
        for ee_args in calls {
            let ee = call(tool.name, &ee_args);
            let mut fe_args = ee_args.clone();
            fe_args["method"] = json!("FE");
            let fe = call(tool.name, &fe_args);
            match (&fe, &ee) {
                (Ok(fe), Ok(ee)) => {
                    let text = fe.to_string();
                    assert!(
                        !text.contains("\"EE\"") && !text.contains("Equal-effects"),
                        "{} {fe_args}: FE is named as given",
                        tool.name
                    );
                    assert_eq!(as_ee(fe), as_ee(ee), "{} {fe_args}", tool.name);
                }
                (Err(fe), Err(ee)) => assert_eq!(fe.code, ee.code, "{} {fe_args}", tool.name),
                _ => panic!("{} {fe_args}: FE {fe:?}, EE {ee:?}", tool.name),
            }
        }
        tools.push(tool.name);
    }
    assert!(tools.len() >= 10, "{tools:?}");
    let fit = call("fit_random_effects", &json!({"method": "FE"})).unwrap();
    assert_eq!(
        (fit["method"].as_str(), fit["tau2"].as_f64()),
        (Some("FE"), Some(0.0))
    );
    let forest = call("forest_plot", &json!({"method": "FE"})).unwrap();
    let svg = forest["svg"].as_str().unwrap();
    assert!(
        svg.contains("FE model") && !svg.contains("EE model"),
        "{svg}"
    );
}
