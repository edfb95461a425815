
//! TEMPORARY: the typed printers against the JSON printers they replace.
use crate::printed::Out;
use crate::summary::*;
use crate::tools::{self, call};
use serde::{de::DeserializeOwned, Serialize};
use serde_json::json;
use serde_json::Value;

type Legacy = fn(&mut Out, &Value) -> Option<()>;

fn legacy<R: DeserializeOwned + Serialize>(
    result: &Value,
    part: Option<&str>,
    f: Legacy,
) -> Option<String> {
    let r = R::deserialize(result).ok()?;
    let mut v = serde_json::to_value(&r).unwrap();
    if let Some(p) = part {
        v = v[p].clone();
    }
    let mut out = Out::default();
    let _ = f(&mut out, &v);
    let text = out.finish();
    (!text.is_empty()).then_some(text)
}

fn fixture_calls(tool: &str) -> Vec<Value> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut calls = Vec::new();
    fn walk(x: &Value, tool: &str, calls: &mut Vec<Value>) {
        match x {
            Value::Object(m) => {
                if m.get("tool").and_then(Value::as_str) == Some(tool) {
                    match m.get("args") {
                        Some(Value::String(text)) => {
                            calls.push(serde_json::from_str(text).unwrap())
                        }
                        Some(a) => calls.push(a.clone()),
                        None => {}
                    }
                }
                for v in m.values() {
                    walk(v, tool, calls);
                }
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, tool, calls)),
            _ => {}
        }
    }
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|e| e == "json") {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            walk(&v, tool, &mut calls);
        }
    }
    calls
}

fn recs() -> Value {
    json!([
        {"id": "a", "yi": 0.30, "vi": 0.04, "year": 2001},
        {"id": "b", "yi": 0.12, "vi": 0.02, "year": 1999},
        {"id": "c", "yi": 0.65, "vi": 0.05, "year": 2005},
        {"id": "d", "yi": 0.02, "vi": 0.01, "year": 2003},
        {"id": "e", "yi": 0.48, "vi": 0.03, "year": 2000},
        {"id": "f", "yi": -0.05, "vi": 0.02, "year": 2010},
        {"id": "g", "yi": 0.9, "vi": 0.2, "year": 2011},
        {"id": "h", "yi": 0.7, "vi": 0.09, "year": 2012}
    ])
}

fn tied() -> Value {
    json!([
        {"id": "a", "yi": 0.30, "vi": 0.04},
        {"id": "b", "yi": 0.12, "vi": 0.04},
        {"id": "c", "yi": 0.65, "vi": 0.05},
        {"id": "d", "yi": 0.02, "vi": 0.01},
        {"id": "e", "yi": 0.48, "vi": 0.03}
    ])
}

fn many(k: usize) -> Value {
    Value::Array(
            (0..k)
                .map(|i| {
                    let x = i as f64;
                    json!({"id": format!("r{i}"), "yi": (x * 0.7).sin() * 0.4 + 0.1 + 0.02 * x, "vi": 0.01 + (i % 7) as f64 / 50.0})
                })
                .collect(),
        )
}

fn tables() -> Value {
    json!([
        {"ai": 4, "bi": 119, "ci": 11, "di": 128},
        {"ai": 6, "bi": 300, "ci": 29, "di": 274},
        {"ai": 3, "bi": 228, "ci": 11, "di": 209},
        {"ai": 62, "bi": 13536, "ci": 248, "di": 12619}
    ])
}

fn extra(tool: &str) -> Vec<Value> {
    let mut c = Vec::new();
    let fit_variants = |c: &mut Vec<Value>, base: Value| {
        for method in ["REML", "EE", "DL", "PM", "ML", "FE", "HE", "SJ"] {
            for test in ["z", "knha"] {
                let mut a = base.clone();
                a["method"] = json!(method);
                a["test"] = json!(test);
                c.push(a);
            }
        }
    };
    match tool {
        "mantel_haenszel" | "peto_odds_ratio" => {
            let one = json!([{"ai": 4, "bi": 119, "ci": 11, "di": 128}]);
            let zeros = json!([{"ai": 4, "bi": 119, "ci": 11, "di": 128}, {"ai": 0, "bi": 10, "ci": 0, "di": 12}, {"ai": 3, "bi": 228, "ci": 11, "di": 209}]);
            let missing = json!([{"ai": 4, "bi": 119, "ci": 11, "di": 128}, {"ai": 1, "ci": 1, "di": 1}, {"ai": 3, "bi": 228, "ci": 11, "di": 209}]);
            let equal = json!([{"ai": 10, "bi": 10, "ci": 10, "di": 10}, {"ai": 10, "bi": 10, "ci": 10, "di": 10}]);
            let big = json!([{"ai": 400, "bi": 1190, "ci": 110, "di": 1280}, {"ai": 600, "bi": 3000, "ci": 290, "di": 2740}, {"ai": 3000, "bi": 228, "ci": 1100, "di": 209}]);
            for data in [tables(), one, zeros, missing, equal, big] {
                for level in [0.95, 0.9, 0.999] {
                    if tool == "peto_odds_ratio" {
                        for t in [
                            None,
                            Some("none"),
                            Some("exp"),
                            Some("auto"),
                            Some("ilogit"),
                        ] {
                            let mut a = json!({"data": data, "level": level});
                            if let Some(t) = t {
                                a["transform"] = json!(t);
                            }
                            c.push(a);
                        }
                    } else {
                        for m in ["OR", "RR", "RD"] {
                            for t in [
                                None,
                                Some("none"),
                                Some("exp"),
                                Some("ilogit"),
                                Some("auto"),
                            ] {
                                let mut a = json!({"data": data, "level": level, "measure": m});
                                if let Some(t) = t {
                                    a["transform"] = json!(t);
                                }
                                c.push(a);
                            }
                        }
                    }
                }
            }
        }
        "egger_test" => {
            for v in ["classic", "rma"] {
                for data in [recs(), tied(), many(60)] {
                    c.push(json!({"variant": v, "records": data}));
                }
                c.push(json!({"variant": v, "exclude": ["s01", "s02"]}));
            }
        }
        "rank_correlation_test" => {
            for data in [recs(), tied(), many(60), many(10)] {
                c.push(json!({"records": data}));
            }
            c.push(json!({"exclude": ["s01"]}));
        }
        "fail_safe_n" => {
            for kind in ["Rosenthal", "Orwin", "Rosenberg"] {
                for data in [recs(), tied(), many(30)] {
                    for alpha in [0.05, 0.1, 0.001, 0.123456] {
                        c.push(json!({"type": kind, "records": data, "alpha": alpha}));
                    }
                }
                c.push(json!({"type": kind, "exclude": ["s03"]}));
            }
            c.push(json!({"type": "Orwin", "target": 0.05, "records": recs()}));
            c.push(json!({"type": "Orwin", "target": -0.3}));
        }
        "trim_and_fill" | "trim_and_fill_plot" => {
            for data in [recs(), tied(), many(25)] {
                for method in ["REML", "EE", "DL", "PM", "ML", "FE", "SJ"] {
                    for est in ["L0", "R0"] {
                        for side in [None, Some("left"), Some("right")] {
                            let mut a =
                                json!({"records": data, "method": method, "estimator": est});
                            if let Some(s) = side {
                                a["side"] = json!(s);
                            }
                            c.push(a);
                        }
                    }
                }
                for (m, t) in [
                    ("OR", None),
                    ("RR", Some("none")),
                    ("PLO", None),
                    ("ZCOR", None),
                    ("SMD", Some("exp")),
                    ("GEN", None),
                ] {
                    let mut a = json!({"records": data, "measure": m});
                    if let Some(t) = t {
                        a["transform"] = json!(t);
                    }
                    c.push(a);
                }
            }
        }
        "selection_model" => {
            for steps in [
                json!([0.025]),
                json!([0.05, 0.5]),
                json!([0.01, 0.025, 0.05, 0.1, 0.5]),
            ] {
                for level in [0.95, 0.9] {
                    c.push(json!({"steps": steps, "level": level}));
                    c.push(json!({"steps": steps, "level": level, "records": many(40)}));
                }
            }
            c.push(json!({"exclude": ["s01", "s02"], "level": 0.99}));
        }
        "pet_peese" => {
            for test in ["z", "knha"] {
                for alt in ["two.sided", "greater", "less"] {
                    for alpha in [0.05, 0.1, 0.5] {
                        c.push(json!({"test": test, "alternative": alt, "alpha": alpha}));
                    }
                    for data in [recs(), many(30)] {
                        c.push(json!({"test": test, "alternative": alt, "records": data, "level": 0.9}));
                    }
                }
            }
            c.push(json!({"exclude": ["s01"], "level": 0.8}));
        }
        "leave_one_out" | "influence_diagnostics" => {
            fit_variants(&mut c, json!({}));
            fit_variants(&mut c, json!({"records": recs()}));
            if tool == "leave_one_out" {
                for (m, t) in [
                    ("OR", None),
                    ("RR", Some("none")),
                    ("PLO", None),
                    ("SMD", Some("exp")),
                    ("GEN", None),
                ] {
                    let mut a = json!({"records": recs(), "measure": m, "level": 0.9});
                    if let Some(t) = t {
                        a["transform"] = json!(t);
                    }
                    c.push(a);
                }
            }
            c.push(json!({"exclude": ["s01"]}));
        }
        "cumulative_meta_analysis" | "cumulative_forest_plot" => {
            fit_variants(&mut c, json!({"order_by": "year"}));
            fit_variants(
                &mut c,
                json!({"records": recs(), "order_by": "year", "descending": true}),
            );
            for (m, t) in [
                ("OR", None),
                ("RR", Some("none")),
                ("PLO", None),
                ("SMD", Some("exp")),
                ("GEN", None),
            ] {
                let mut a = json!({"records": recs(), "measure": m, "level": 0.9});
                if let Some(t) = t {
                    a["transform"] = json!(t);
                }
                c.push(a);
            }
            c.push(json!({"exclude": ["s01"], "level": 0.9}));
        }
        _ => {}
    }
    c
}

#[test]
fn typed_printers_print_as_the_json_printers() {
    use super::{
        cumulative::CumulativeResult, egger_test::EggerTestResult, fail_safe_n::FailSafeResult,
        influence_diagnostics::InfluenceResult, leave_one_out::LeaveOneOutResult,
        mantel_haenszel::MantelHaenszelResult, pet_peese::PetPeeseResult,
        peto_odds_ratio::PetoResult, rank_correlation_test::RankTestResult,
        selection_model::SelectionResult, trim_fill::TrimAndFillResult,
    };
    let cases: Vec<(&str, fn(&Value) -> Option<String>)> = vec![
        ("mantel_haenszel", |r| {
            legacy::<MantelHaenszelResult>(r, None, |o, v| tables_model(o, false, v))
        }),
        ("peto_odds_ratio", |r| {
            legacy::<PetoResult>(r, None, |o, v| tables_model(o, true, v))
        }),
        ("egger_test", |r| legacy::<EggerTestResult>(r, None, egger)),
        ("rank_correlation_test", |r| {
            legacy::<RankTestResult>(r, None, rank_test)
        }),
        ("fail_safe_n", |r| {
            legacy::<FailSafeResult>(r, None, fail_safe)
        }),
        ("trim_and_fill", |r| {
            legacy::<TrimAndFillResult>(r, None, trim_and_fill)
        }),
        ("trim_and_fill_plot", |r| {
            legacy::<TrimAndFillResult>(&r["trim_and_fill"], None, trim_fill_headline)
        }),
        ("selection_model", |r| {
            legacy::<SelectionResult>(r, None, selection)
        }),
        ("pet_peese", |r| {
            legacy::<PetPeeseResult>(r, None, pet_peese)
        }),
        ("leave_one_out", |r| {
            legacy::<LeaveOneOutResult>(r, None, leave_one_out)
        }),
        ("cumulative_meta_analysis", |r| {
            legacy::<CumulativeResult>(r, None, cumulative)
        }),
        ("cumulative_forest_plot", |r| {
            legacy::<CumulativeResult>(&r["cumulative"], None, cumulative_headline)
        }),
        ("influence_diagnostics", |r| {
            legacy::<InfluenceResult>(r, None, influence)
        }),
    ];
    let mut failures = Vec::new();
    for (name, old) in cases {
        let tool = tools::find(name).unwrap();
        let mut calls = (tool.examples)();
        calls.extend(fixture_calls(name));
        calls.extend(extra(name));
        let (mut compared, mut errors) = (0, 0);
        for args in &calls {
            let result = match call(name, args) {
                Ok(r) => r,
                Err(e) => {
                    errors += 1;
                    eprintln!(
                        "  refused {args}: {}",
                        e.message.chars().take(150).collect::<String>()
                    );
                    continue;
                }
            };
            if std::env::var("SHOW").is_ok_and(|s| s == name) {
                eprintln!("{}\n", tools::summary(name, &result).unwrap_or_default());
            }
            let new = tools::summary(name, &result);
            let was = old(&result);
            if new != was {
                failures.push(format!(
                    "{name} {args}\nNEW:\n{}\nOLD:\n{}",
                    new.unwrap_or_default(),
                    was.unwrap_or_default()
                ));
            }
            compared += 1;
        }
        eprintln!("{name}: {compared} compared, {errors} refused");
    }
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
