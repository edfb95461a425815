//! The tool registry, through its public API: every tool runs, its definition is well
//! formed, its results match its output schema, and the tool files are what the registry lists.

use exemplar::protocol::{reference_answer, RULE_TEXT};
use exemplar::tools::*;
use exemplar::{canonical, dataset, schema_check};
use meta_analysis::{MetaError, Method};
use serde_json::{json, Value};

#[path = "support/rust_source.rs"]
mod rust_source;

fn ok(name: &str, args: Value) -> Value {
    call(name, &args).unwrap_or_else(|e| panic!("{name} {args}: {e}"))
}

fn code(name: &str, args: Value) -> (&'static str, String) {
    let e = call(name, &args).expect_err("an error");
    (e.code.as_str(), e.message)
}

#[test]
fn plot_tools_draw_what_the_analysis_tools_compute() {
    let forest = ok("forest_plot", json!({"exclude": ["s04"]}));
    let refit = ok("refit_excluding", json!({"exclude": ["s04"]}));
    assert_eq!(forest["fit"], refit);
    assert!(forest["svg"].as_str().unwrap().starts_with("<svg"));
    assert_eq!(forest["numbers"]["rows"].as_array().unwrap().len(), 19);
    assert_eq!(forest["numbers"]["pooled"]["estimate"], refit["estimate"]);

    let funnel = ok("funnel_plot", json!({}));
    let egger = ok("egger_test", json!({}));
    assert_eq!(funnel["egger"], egger);
    assert_eq!(funnel["numbers"]["egger"]["p"], egger["egger_p"]);
    assert_eq!(
        funnel["numbers"]["egger"]["rule_outcome"],
        egger["rule_outcome"]
    );
    assert_eq!(
        funnel["fit"]["estimate"],
        ok("fit_random_effects", json!({}))["estimate"]
    );
    // The classic line drawn is yi = b1 + b0·se, with b0 the tested intercept.
    assert_eq!(
        funnel["numbers"]["egger"]["line_per_se"],
        egger["coefficient"]
    );
}

#[test]
fn every_companion_plot_accepts_its_tools_arguments() {
    let cases = [
        (
            "fit_random_effects",
            json!({"method": "DL", "level": 0.9, "test": "knha"}),
        ),
        (
            "refit_excluding",
            json!({"exclude": ["s04"], "method": "PM"}),
        ),
        ("egger_test", json!({"variant": "rma", "exclude": ["s01"]})),
        (
            "subgroup_analysis",
            json!({"by": "tester", "method": "DL", "test": "knha", "exclude": ["s04"]}),
        ),
    ];
    for (name, args) in cases {
        let plot = companion_plot(name, &args).unwrap();
        ok(name, args.clone());
        let (same, plot_args) = companion_call(name, &args).unwrap();
        assert_eq!((same, &plot_args), (plot, &args));
        assert!(
            ok(plot, args)["svg"].as_str().unwrap().starts_with("<svg"),
            "{plot}"
        );
    }
    assert_eq!(companion_plot("get_dataset", &json!({})), None);
    assert_eq!(companion_plot("forest_plot", &json!({})), None);
}

/// `meta_regression`'s companion depends on its arguments: the bubble plot of the one
/// numeric moderator, with the arguments a bubble plot takes.
#[test]
fn the_bubble_plot_goes_with_a_meta_regression_on_one_numeric_moderator() {
    let args = json!({"mods": ["weeks"], "method": "DL", "test": "knha", "level": 0.9,
        "at": [{"weeks": 1}], "exclude": ["s04"]});
    let (plot, plot_args) = companion_call("meta_regression", &args).unwrap();
    assert_eq!(plot, "bubble_plot");
    assert_eq!(
        plot_args,
        json!({"mod": "weeks", "method": "DL", "level": 0.9, "test": "knha", "exclude": ["s04"]})
    );
    let bubble = ok(plot, plot_args);
    let model = ok(
        "meta_regression",
        json!({"mods": ["weeks"], "method": "DL", "level": 0.9, "test": "knha", "exclude": ["s04"]}),
    );
    assert_eq!(bubble["fit"], model);
    assert_eq!(
        bubble["numbers"]["line"]["slope"],
        model["coefficients"][1]["estimate"]
    );
    assert_eq!(bubble["numbers"]["points"].as_array().unwrap().len(), 19);
    for args in [
        json!({"mods": ["tester"]}),
        json!({"mods": ["weeks", "year"]}),
        json!({"mods": ["weeks"], "records": [{"id": "a", "yi": 0.1, "vi": 0.1, "weeks": "x"}]}),
    ] {
        assert_eq!(companion_plot("meta_regression", &args), None, "{args}");
    }
    let custom = json!({"mods": ["dose"], "records": [
        {"id": "a", "yi": 0.1, "vi": 0.01, "dose": 1},
        {"id": "b", "yi": 0.3, "vi": 0.02, "dose": 2},
        {"id": "c", "yi": 0.2, "vi": 0.04, "dose": 4}
    ]});
    let (plot, plot_args) = companion_call("meta_regression", &custom).unwrap();
    assert_eq!(plot_args["records"], custom["records"]);
    assert_eq!(ok(plot, plot_args)["fit"]["k"], 3);
}

#[test]
fn plot_tools_refuse_bad_input() {
    assert_eq!(
        code("forest_plot", json!({"exclude": ["zz"]})).0,
        "unknown_record"
    );
    assert_eq!(
        code("funnel_plot", json!({"variant": "lm"})).0,
        "invalid_arguments"
    );
    let many: Vec<Value> = (0..exemplar::plots::MAX_FOREST_RECORDS + 1)
        .map(|i| json!({"id": format!("r{i}"), "yi": 0.1, "vi": 0.01}))
        .collect();
    assert_eq!(
        code("forest_plot", json!({"records": many})).0,
        "too_many_records"
    );
}

#[test]
fn definitions_are_well_formed() {
    let definitions = definitions();
    let listed: Vec<&str> = definitions.iter().map(|d| d.name).collect();
    assert_eq!(listed, names().collect::<Vec<_>>());
    for d in &definitions {
        assert!(d.name.len() <= 128);
        assert!(d
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)));
        assert!(!d.title.is_empty());
        assert!(d.description.len() > 80, "{}", d.name);
        assert_eq!(d.annotations.read_only_hint, d.name != LOAD_DATA.name);
        schema_check::check_plain_subset(&d.input_schema)
            .unwrap_or_else(|e| panic!("{}: {e}", d.name));
        assert_eq!(d.input_schema["type"], "object");
        assert_eq!(d.input_schema["additionalProperties"], false);
    }
    let json = definitions_json();
    assert_eq!(
        json[0]["annotations"],
        json!({"readOnlyHint": true, "untrustedContentHint": false})
    );
    assert_eq!(
        json[2]["annotations"],
        json!({"readOnlyHint": true, "untrustedContentHint": true})
    );
    assert_eq!(json[2]["inputSchema"]["required"], json!(["exclude"]));
    let keys: Vec<&str> = json[1]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "title",
            "summary",
            "group",
            "description",
            "inputSchema",
            "annotations"
        ]
    );
    let methods = &json[1]["inputSchema"]["properties"]["method"]["enum"];
    assert_eq!(
        methods,
        &json!(["REML", "ML", "DL", "HE", "SJ", "PM", "EE", "FE"])
    );
}

#[test]
fn the_registry_lists_the_tools_by_group_with_one_line_summaries() {
    let groups: Vec<ToolGroup> = REGISTRY.iter().map(|t| t.group).collect();
    let mut sorted = groups.clone();
    sorted.sort();
    assert_eq!(
        groups, sorted,
        "REGISTRY must list the tools in ToolGroup order"
    );
    assert_eq!(groups[0], ToolGroup::Benchmark);
    for tool in REGISTRY {
        assert!(
            !tool.summary.is_empty() && tool.summary.len() <= 140 && !tool.summary.contains('\n'),
            "{}: a one-line summary",
            tool.name
        );
    }
    for group in ToolGroup::ALL {
        assert!(groups.contains(&group), "{} has no tool", group.key());
    }
    let json = definitions_json();
    assert_eq!(
        json[0]["group"],
        json!({"key": "benchmark", "title": "The benchmark's tools"})
    );
}

#[test]
fn definitions_carry_no_reference_numbers() {
    let text = format!(
        "{}{}",
        definitions_json(),
        serde_json::to_value(exemplar::page::metadata()).unwrap()
    );
    let a = reference_answer();
    for x in [
        a.overall.estimate,
        a.overall.ci_lower,
        a.overall.ci_upper,
        a.overall.p,
        a.exclude_s04.estimate,
        a.exclude_s04.ci_lower,
        a.exclude_s04.ci_upper,
        a.exclude_s04.p,
        a.bias.egger_p,
    ] {
        for digits in [3, 4, 5] {
            let shown = format!("{:.*}", digits, x.abs());
            assert!(
                !text.contains(&shown[1..]),
                "{shown} appears in the definitions"
            );
        }
    }
}

#[test]
fn every_tool_runs_with_defaults() {
    for name in [
        "get_dataset",
        "fit_random_effects",
        "egger_test",
        "leave_one_out",
    ] {
        let with_null = ok(name, Value::Null);
        assert_eq!(with_null, ok(name, json!({})), "{name}");
    }
    let refit = ok("refit_excluding", json!({"exclude": ["s04"]}));
    assert_eq!(refit["k"], 18);
}

#[test]
fn overlapping_fields_equal_the_reference_answer() {
    let a = reference_answer();
    let fit = ok("fit_random_effects", json!({}));
    assert_eq!(fit["k"], json!(a.overall.k));
    assert_eq!(fit["estimate"], json!(a.overall.estimate));
    assert_eq!(fit["ci_lower"], json!(a.overall.ci_lower));
    assert_eq!(fit["ci_upper"], json!(a.overall.ci_upper));
    assert_eq!(fit["p"], json!(a.overall.p));
    assert_eq!(
        (fit["method"].as_str(), fit["test"].as_str()),
        (Some("REML"), Some("z"))
    );
    assert_eq!(fit["level"], 0.95);
    assert_eq!(
        fit["dataset"],
        json!({"name": dataset::NAME, "sha256": dataset::sha256()})
    );
    assert!(fit["z"].is_number() && fit.get("t").is_none());

    let refit = ok("refit_excluding", json!({"exclude": ["s04"]}));
    let x = &a.exclude_s04;
    assert_eq!(refit["k"], json!(x.k));
    assert_eq!(refit["excluded"], json!(x.excluded));
    assert_eq!(refit["estimate"], json!(x.estimate));
    assert_eq!(refit["ci_lower"], json!(x.ci_lower));
    assert_eq!(refit["ci_upper"], json!(x.ci_upper));
    assert_eq!(refit["p"], json!(x.p));

    let egger = ok("egger_test", json!({}));
    assert_eq!(egger["egger_p"], json!(a.bias.egger_p));
    assert_eq!(egger["rule_outcome"], json!(a.bias.rule_outcome));
    assert_eq!(egger["rule"], RULE_TEXT);
    assert_eq!(
        (egger["variant"].as_str(), egger["statistic_name"].as_str()),
        (Some("classic"), Some("t"))
    );
    assert_eq!(egger["df"], 17.0);
    assert_eq!(egger["excluded"], json!([]));

    // An answer assembled from the tool results scores 13/13.
    let answer = json!({
        "overall": {"k": fit["k"], "estimate": fit["estimate"], "ci_lower": fit["ci_lower"], "ci_upper": fit["ci_upper"], "p": fit["p"]},
        "exclude_s04": {"k": refit["k"], "estimate": refit["estimate"], "ci_lower": refit["ci_lower"], "ci_upper": refit["ci_upper"], "p": refit["p"], "excluded": refit["excluded"]},
        "bias": {"egger_p": egger["egger_p"], "rule_outcome": egger["rule_outcome"]}
    });
    assert_eq!(
        exemplar::scorer::score(&answer.to_string()).passed,
        Some(13)
    );
}

/// A long `exclude` list costs time linear in it: half of 100,000 records excluded, in
/// each tool that takes `exclude` and the records (quadratic scans made this minutes).
#[test]
fn excluding_half_of_many_records_is_linear() {
    let k = 100_000;
    let records: Vec<Value> = (0..k)
        .map(|i| json!({"id": format!("r{i}"), "yi": (i % 7) as f64 / 10.0, "vi": 0.01 + (i % 5) as f64 / 100.0}))
        .collect();
    let exclude: Vec<String> = (0..k).step_by(2).map(|i| format!("r{i}")).collect();
    let args = json!({"records": records, "exclude": exclude});
    let refit = call("refit_excluding", &args).unwrap();
    assert_eq!(refit["k"], k / 2);
    let egger = call("egger_test", &args).unwrap();
    assert_eq!(egger["k"], k / 2);
    let repeated = json!({"records": args["records"], "exclude": ["r1", "r3", "r1"]});
    assert_eq!(
        call("refit_excluding", &repeated).unwrap_err().code,
        ErrorCode::InvalidArguments
    );
}

#[test]
fn leave_one_out_agrees_with_refit_excluding() {
    let loo = ok("leave_one_out", json!({}));
    let results = loo["results"].as_array().unwrap();
    assert_eq!(results.len(), 19);
    assert_eq!(loo["k"], 19);
    assert_eq!(results[3]["omitted"], "s04");
    let refit = ok("refit_excluding", json!({"exclude": ["s04"]}));
    for key in ["k", "estimate", "ci_lower", "ci_upper", "p", "tau2"] {
        assert_eq!(results[3][key], refit[key], "{key}");
    }
    let dl = ok("leave_one_out", json!({"method": "DL"}));
    assert_eq!(dl["method"], "DL");
    assert_eq!(dl["results"][0]["method"], "DL");
}

#[test]
fn options_are_passed_to_the_engine() {
    for method in Method::ALL {
        let fit = ok("fit_random_effects", json!({"method": method.name()}));
        assert_eq!(fit["method"], method.name());
        assert_eq!(fit["k"], 19);
    }
    let ee = ok("fit_random_effects", json!({"method": "EE"}));
    assert_eq!(ee["tau2"], 0.0);
    let knha = ok("fit_random_effects", json!({"test": "knha", "level": 0.9}));
    assert!(knha["t"].is_number() && knha.get("z").is_none());
    assert_eq!(knha["df"], 18.0);
    assert_eq!(
        (knha["test"].as_str(), knha["level"].as_f64()),
        (Some("knha"), Some(0.9))
    );
    let rma = ok("egger_test", json!({"variant": "rma"}));
    assert_eq!(
        (rma["statistic_name"].as_str(), rma["df"].is_null()),
        (Some("z"), true)
    );
    assert!(rma["tau2"].is_number());
    let without = ok("egger_test", json!({"exclude": ["s04", "s05"]}));
    assert_eq!(
        (without["k"].as_u64(), without["excluded"].clone()),
        (Some(17), json!(["s04", "s05"]))
    );
}

#[test]
fn records_replace_the_frozen_dataset() {
    let frozen: Vec<Value> = dataset::records()
        .iter()
        .map(|r| json!({"id": r.id, "yi": r.yi, "vi": r.vi}))
        .collect();
    let custom = ok("fit_random_effects", json!({"records": frozen}));
    let default = ok("fit_random_effects", json!({}));
    assert_eq!(custom["estimate"], default["estimate"]);
    assert_eq!(custom["dataset"]["name"], "custom records");
    assert_eq!(
        custom["dataset"]["sha256"],
        json!(canonical::sha256_hex(&json!(frozen)))
    );
    let three = json!([
        {"id": "a", "yi": 0.1, "vi": 0.01},
        {"id": "b", "yi": 0.3, "vi": 0.02},
        {"id": "c", "yi": -0.1, "vi": 0.04}
    ]);
    let fit = ok("fit_random_effects", json!({"records": three}));
    assert_eq!(fit["k"], 3);
    let refit = ok(
        "refit_excluding",
        json!({"exclude": ["c"], "records": three}),
    );
    assert_eq!(
        (refit["k"].as_u64(), refit["excluded"].clone()),
        (Some(2), json!(["c"]))
    );
    assert_eq!(ok("egger_test", json!({"records": three}))["k"], 3);
    assert_eq!(
        ok("leave_one_out", json!({"records": three}))["results"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        code(
            "refit_excluding",
            json!({"exclude": ["s04"], "records": three})
        )
        .0,
        "unknown_record"
    );
    assert_eq!(
        dataset_sha256_for(&json!({"records": three})),
        canonical::sha256_hex(&three)
    );
    assert_eq!(dataset_sha256_for(&json!({})), dataset::sha256());
}

/// A JSON null in a record's further column is a missing value, as a blank CSV cell is: a
/// column no analysis reads does not matter, and a record whose null the analysis reads is
/// left out and listed in `omitted` (metafor's na.omit), on the MCP and page path too.
#[test]
fn a_null_in_a_record_is_a_missing_value() {
    let records = json!([
        {"id": "a", "yi": 0.1, "vi": 0.01, "x": 1, "note": null},
        {"id": "b", "yi": 0.2, "vi": 0.02, "x": null, "note": "b"},
        {"id": "c", "yi": 0.3, "vi": 0.03, "x": 2, "note": null},
        {"id": "d", "yi": 0.35, "vi": 0.03, "x": 3, "note": "d"}
    ]);
    let fit = ok("fit_random_effects", json!({"records": records}));
    assert_eq!(fit["k"], 4);
    let reg = ok(
        "meta_regression",
        json!({"records": records, "mods": "~ x"}),
    );
    assert_eq!(reg["k"], 3);
    assert_eq!(
        reg["omitted"],
        json!([{"id": "b", "reason": "x is empty (null)"}])
    );
    // The required fields stay required: a null yi is still a wrong type.
    assert_eq!(
        code(
            "fit_random_effects",
            json!({"records": [{"id": "a", "yi": null, "vi": 1}]})
        )
        .0,
        "wrong_type"
    );
}

#[test]
fn each_error_code() {
    let (c, m) = code("no_such_tool", json!({}));
    assert_eq!(c, "unknown_tool");
    assert!(m.contains("fit_random_effects"), "{m}");
    assert_eq!(
        code("fit_random_effects", json!({"metod": "REML"})).0,
        "unknown_property"
    );
    assert_eq!(code("get_dataset", json!({"x": 1})).0, "unknown_property");
    assert_eq!(
        code(
            "fit_random_effects",
            json!({"records": [{"id": "a", "yi": 1, "vi": 1, "n": true}]})
        ),
        (
            "wrong_type",
            "records[0].n must be a number, a string or null, got a boolean".to_string()
        )
    );
    assert_eq!(
        code("fit_random_effects", json!({"level": "0.9"})).0,
        "wrong_type"
    );
    assert_eq!(code("fit_random_effects", json!([])).0, "wrong_type");
    assert_eq!(code("fit_random_effects", json!("REML")).0, "wrong_type");
    assert_eq!(
        code("refit_excluding", json!({"exclude": "s04"})).0,
        "wrong_type"
    );
    assert_eq!(
        code(
            "fit_random_effects",
            json!({"records": [{"id": "a", "yi": "1", "vi": 1}]})
        ),
        (
            "wrong_type",
            "records[0].yi must be a number, got a string".to_string()
        )
    );
    assert_eq!(
        code("fit_random_effects", json!({"method": "reml"})).0,
        "invalid_arguments"
    );
    assert_eq!(
        code("fit_random_effects", json!({"level": 1.5})).0,
        "invalid_arguments"
    );
    assert_eq!(
        code("fit_random_effects", json!({"level": 1})).0,
        "invalid_arguments"
    );
    assert_eq!(
        code("fit_random_effects", json!({"level": 0})).0,
        "invalid_arguments"
    );
    assert_eq!(
        code("refit_excluding", json!({})),
        ("invalid_arguments", "exclude is required".to_string())
    );
    assert_eq!(
        code("refit_excluding", json!({"exclude": []})).0,
        "invalid_arguments"
    );
    assert_eq!(
        code("refit_excluding", json!({"exclude": ["s04", "s04"]})).0,
        "invalid_arguments"
    );
    assert_eq!(
        code("egger_test", json!({"variant": "lm"})).0,
        "invalid_arguments"
    );
    let (c, m) = code("refit_excluding", json!({"exclude": ["s99"]}));
    assert_eq!(c, "unknown_record");
    assert!(m.contains("\"s99\""), "{m}");
    assert_eq!(
        code("egger_test", json!({"exclude": ["x"]})).0,
        "unknown_record"
    );
    let many: Vec<Value> = (0..=MAX_TOOL_RECORDS)
        .map(|i| json!({"id": i.to_string(), "yi": 0, "vi": 1}))
        .collect();
    let (c, m) = code("fit_random_effects", json!({"records": many}));
    assert_eq!(c, "too_many_records");
    assert!(
        m.contains("100001 given, at most 100000 are accepted by fit_random_effects"),
        "{m}"
    );
    let many: Vec<Value> = (0..=MAX_LEAVE_ONE_OUT_RECORDS)
        .map(|i| json!({"id": i.to_string(), "yi": 0, "vi": 1}))
        .collect();
    assert_eq!(
        code("leave_one_out", json!({"records": many})).0,
        "too_many_records"
    );
    let dup = json!([{"id": "a", "yi": 0.1, "vi": 0.1}, {"id": "a", "yi": 0.2, "vi": 0.1}]);
    assert_eq!(
        code("fit_random_effects", json!({"records": dup})).0,
        "invalid_records"
    );
    let bad_vi = json!([{"id": "a", "yi": 0.1, "vi": 0.1}, {"id": "b", "yi": 0.2, "vi": 0}]);
    assert_eq!(
        code("fit_random_effects", json!({"records": bad_vi})).0,
        "invalid_records"
    );
    let one = json!([{"id": "a", "yi": 0.1, "vi": 0.1}]);
    assert_eq!(
        code("fit_random_effects", json!({"records": one})).0,
        "invalid_records"
    );
    let empty_id = json!([{"id": "", "yi": 0.1, "vi": 0.1}, {"id": "b", "yi": 0.2, "vi": 0.1}]);
    assert_eq!(
        code("fit_random_effects", json!({"records": empty_id})).0,
        "invalid_records"
    );
    let all = json!({"exclude": ["a", "b"], "records": [{"id": "a", "yi": 0.1, "vi": 0.1}, {"id": "b", "yi": 0.2, "vi": 0.1}, {"id": "c", "yi": 0.2, "vi": 0.1}]});
    assert_eq!(code("refit_excluding", all).0, "invalid_arguments");
    let equal_vi = json!([
        {"id": "a", "yi": 0.1, "vi": 0.1},
        {"id": "b", "yi": 0.2, "vi": 0.1},
        {"id": "c", "yi": 0.4, "vi": 0.1}
    ]);
    assert_eq!(
        code("egger_test", json!({"records": equal_vi})).0,
        "analysis_failed"
    );
    let not_converged = ToolError::from(MetaError::NotConverged {
        method: "REML",
        iterations: 1000,
    });
    assert_eq!(not_converged.code.as_str(), "not_converged");
    let json = not_converged.to_json();
    assert_eq!(json["error"]["code"], "not_converged");
    assert!(json["error"]["message"].as_str().unwrap().contains("REML"));
    // A step that cannot be taken is its own error, in words, not an iteration limit.
    let no_step = ToolError::from(MetaError::NoAscentStep {
        method: "multilevel REML",
        iteration: 1,
        sigma2: [0.02, 0.03],
        cause: "no step raised the likelihood",
    });
    assert_eq!(no_step.code.as_str(), "not_converged");
    let text = no_step.to_json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("could not take a step") && !text.contains("iteration limit"),
        "{text}"
    );
}

#[test]
fn json_text_entry_point() {
    assert_eq!(
        call_json("fit_random_effects", "")
            .get("ok")
            .map(|r| &r["k"]),
        Some(&json!(19))
    );
    assert_eq!(call_json("fit_random_effects", " null ")["ok"]["k"], 19);
    assert_eq!(call_json("get_dataset", "{}")["ok"]["k"], 19);
    let bad = call_json("fit_random_effects", "{method: REML}");
    assert_eq!(bad["error"]["code"], "invalid_json");
    // JSON has no NaN or infinity; an overflowing literal is refused as it is parsed.
    let huge = call_json(
        "fit_random_effects",
        r#"{"records": [{"id": "a", "yi": 1e999, "vi": 1}]}"#,
    );
    assert_eq!(huge["error"]["code"], "invalid_json", "{huge}");
    assert_eq!(call_json("nope", "{}")["error"]["code"], "unknown_tool");
    let error = call_json("refit_excluding", "{}");
    assert_eq!(
        error,
        json!({"error": {"code": "invalid_arguments", "message": "exclude is required"}})
    );
}

#[test]
fn trim_and_fill_fills_three_on_the_left_of_the_frozen_dataset_and_draws_them() {
    let tf = ok("trim_and_fill", json!({}));
    assert_eq!(
        (
            tf["estimator"].as_str(),
            tf["side"].as_str(),
            tf["k0"].as_u64(),
            tf["k"].as_u64()
        ),
        (Some("L0"), Some("left"), Some(3), Some(22))
    );
    assert_eq!(tf["filled"].as_array().unwrap().len(), 3);
    // The engine's TrimAndFillSummary first, then what the tool adds.
    let keys: Vec<&str> = tf.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "estimator",
            "side",
            "k0",
            "se_k0",
            "k0_p",
            "method",
            "k",
            "estimate",
            "se",
            "statistic",
            "p",
            "ci_lower",
            "ci_upper",
            "pi_lower",
            "pi_upper",
            "tau2",
            "tau",
            "se_tau2",
            "i2",
            "h2",
            "q",
            "q_df",
            "q_p",
            "filled",
            "measure",
            "transform",
            "natural",
            "dataset"
        ]
    );
    let plot = ok(
        companion_plot("trim_and_fill", &json!({})).unwrap(),
        json!({}),
    );
    assert_eq!(plot["trim_and_fill"], tf);
    let svg = plot["svg"].as_str().unwrap();
    assert_eq!(svg.matches("class=\"point filled\"").count(), 3);
    assert_eq!(plot["numbers"]["filled"]["k0"], 3);
    assert_eq!(plot["numbers"]["pooled"]["estimate"], tf["estimate"]);
    assert!(
        svg.contains("Adjusted estimate"),
        "the legend names the adjusted estimate"
    );
    // The filled records mirror records about a centre below the plain estimate.
    let plain = ok("fit_random_effects", json!({}));
    assert!(tf["estimate"].as_f64() < plain["estimate"].as_f64());
}

#[test]
fn small_study_tools_refuse_what_they_cannot_compute() {
    let equal_vi = json!([
        {"id": "a", "yi": 0.1, "vi": 0.1},
        {"id": "b", "yi": 0.2, "vi": 0.1},
        {"id": "c", "yi": 0.9, "vi": 0.1},
        {"id": "d", "yi": 0.4, "vi": 0.1}
    ]);
    let (c, m) = code("trim_and_fill", json!({"records": equal_vi}));
    assert_eq!(c, "analysis_failed");
    assert!(m.contains("give the side"), "{m}");
    assert!(ok(
        "trim_and_fill",
        json!({"records": equal_vi, "side": "left"})
    )["k"]
        .is_u64());
    let (c, m) = code("rank_correlation_test", json!({"records": equal_vi}));
    assert_eq!(c, "analysis_failed");
    assert!(m.contains("same sampling variance"), "{m}");
    let two = json!([{"id": "a", "yi": 0.1, "vi": 0.1}, {"id": "b", "yi": 0.3, "vi": 0.2}]);
    for name in [
        "trim_and_fill",
        "rank_correlation_test",
        "influence_diagnostics",
    ] {
        let (c, m) = code(name, json!({"records": two}));
        assert_eq!(c, "invalid_records", "{name}");
        assert!(m.contains("needs at least 3 records"), "{name}: {m}");
    }
    let one = json!([{"id": "a", "yi": 0.1, "vi": 0.1}]);
    assert_eq!(
        code("fail_safe_n", json!({"records": one})).0,
        "invalid_records"
    );
    assert_eq!(
        ok("cumulative_meta_analysis", json!({"records": one}))["results"][0]["k"],
        1
    );
    let (c, m) = code("fail_safe_n", json!({"type": "Orwin", "target": 0}));
    assert_eq!(c, "analysis_failed");
    assert!(m.contains("infinite"), "{m}");
    assert_eq!(
        code("fail_safe_n", json!({"target": 0.1})).0,
        "invalid_arguments"
    );
    assert_eq!(
        code("fail_safe_n", json!({"alpha": 0})).0,
        "invalid_arguments"
    );
    assert_eq!(
        code("fail_safe_n", json!({"type": "REM"})).0,
        "invalid_arguments"
    );
    assert_eq!(
        code("trim_and_fill", json!({"estimator": "Q0"})).0,
        "invalid_arguments"
    );
    let (c, m) = code("cumulative_meta_analysis", json!({"order_by": "colour"}));
    assert_eq!(c, "invalid_arguments");
    assert!(m.contains("its columns are"), "{m}");
    let (c, m) = code(
        "cumulative_meta_analysis",
        json!({"order_by": "year", "records": two}),
    );
    assert_eq!(c, "invalid_arguments");
    assert!(m.contains("their columns are id, yi, vi"), "{m}");
    assert_eq!(
        code("influence_diagnostics", json!({"exclude": ["zz"]})).0,
        "unknown_record"
    );
}

#[test]
fn cumulative_meta_analysis_orders_by_year_keeping_ties_in_record_order() {
    let rows = crate::dataset::rows();
    let result = ok("cumulative_meta_analysis", json!({"order_by": "year"}));
    assert_eq!(result["order_by"], "year");
    let added: Vec<&str> = result["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["added"].as_str().unwrap())
        .collect();
    let mut expected: Vec<&crate::dataset::Row> = rows.iter().collect();
    expected.sort_by_key(|r| r.year); // stable
    let expected: Vec<&str> = expected.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(added, expected);
    let descending = ok(
        "cumulative_meta_analysis",
        json!({"order_by": "year", "descending": true}),
    );
    let first = &descending["results"][0];
    let latest = rows.iter().map(|r| r.year).max().unwrap();
    let first_latest = rows.iter().find(|r| r.year == latest).unwrap();
    assert_eq!(first["added"], first_latest.id.as_str());
    assert_eq!(first["k"], 1);
    assert_eq!(first["tau2"], 0.0);
    assert_eq!(first["estimate"], first_latest.yi);
    // The last step is the fit of all records, whatever the order.
    let fit = ok("fit_random_effects", json!({}));
    let last = &result["results"][18];
    assert_eq!(last["k"], 19);
    assert!((last["estimate"].as_f64().unwrap() - fit["estimate"].as_f64().unwrap()).abs() < 1e-12);
    let record_order = ok("cumulative_meta_analysis", json!({}));
    assert_eq!(record_order["order_by"], Value::Null);
    assert_eq!(record_order["results"][0]["added"], "s01");
    let plot = ok(
        companion_plot("cumulative_meta_analysis", &json!({})).unwrap(),
        json!({"order_by": "year"}),
    );
    assert_eq!(plot["cumulative"], result);
    assert_eq!(
        plot["svg"]
            .as_str()
            .unwrap()
            .matches("class=\"row\"")
            .count(),
        19
    );
}

#[test]
fn influence_rank_test_and_fail_safe_n_on_the_frozen_dataset() {
    let infl = ok("influence_diagnostics", json!({}));
    assert_eq!(infl["k"], 19);
    let rows = infl["results"].as_array().unwrap();
    assert_eq!(rows.len(), 19);
    let total: f64 = rows.iter().map(|r| r["weight"].as_f64().unwrap()).sum();
    assert!((total - 100.0).abs() < 1e-9);
    assert_eq!(rows[0]["id"], "s01");
    // Its variances have ties: the normal approximation.
    let rank = ok("rank_correlation_test", json!({}));
    assert_eq!(
        (rank["k"].as_u64(), rank["exact"].as_bool()),
        (Some(19), Some(false))
    );
    let fsn = ok("fail_safe_n", json!({}));
    assert_eq!(fsn["type"], "Rosenthal");
    assert_eq!(fsn["alpha"], 0.05);
    assert!(fsn["fsn"].is_u64());
    assert_eq!(
        (fsn["target"].clone(), fsn["observed_effect"].clone()),
        (Value::Null, Value::Null)
    );
    let orwin = ok("fail_safe_n", json!({"type": "Orwin"}));
    assert_eq!(orwin["observed_p"], Value::Null);
    assert_eq!(
        orwin["target"].as_f64().unwrap(),
        orwin["observed_effect"].as_f64().unwrap() / 2.0
    );
}

/// Every tool's example calls (each tool's file lists them): every kind of result.
fn sample_calls() -> Vec<(&'static str, Value)> {
    REGISTRY
        .iter()
        .flat_map(|tool| (tool.examples)().into_iter().map(|args| (tool.name, args)))
        .collect()
}

#[test]
fn every_result_validates_against_its_output_schema() {
    for (name, args) in sample_calls() {
        let result = ok(name, args.clone());
        schema_check::validate(&output_schema(name).unwrap(), &result)
            .unwrap_or_else(|v| panic!("{name} {args}: {} ({})", v.message, v.path));
    }
    for tool in REGISTRY {
        assert!(
            sample_calls().iter().any(|(name, _)| *name == tool.name),
            "{} has no sample call",
            tool.name
        );
    }
}

#[test]
fn output_schemas_are_plain_closed_objects_that_catch_a_wrong_result() {
    let all = output_schemas_json();
    for name in names() {
        let schema = &all[name];
        assert_eq!(schema["type"], "object", "{name}");
        schema_check::check_plain_subset(schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(schema["additionalProperties"], false, "{name}");
        assert!(!schema.to_string().contains("$ref"));
        // The lean tool list leaves it out.
        assert!(definitions_json()
            .to_string()
            .find("outputSchema")
            .is_none());
    }
    let fit = output_schema("fit_random_effects").unwrap();
    assert_eq!(
        fit["properties"]["se_tau2"]["type"],
        json!(["number", "null"])
    );
    assert_eq!(fit["properties"]["z"]["type"], "number");
    let required: Vec<&str> = fit["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(required.contains(&"estimate") && !required.contains(&"t"));
    let mut result = ok("fit_random_effects", json!({}));
    result["estimate"] = Value::Null;
    assert!(schema_check::validate(&fit, &result).is_err());
    let mut result = ok("fit_random_effects", json!({}));
    result["extra"] = json!(1);
    assert!(schema_check::validate(&fit, &result).is_err());
    let egger = &all["egger_test"];
    // The benchmark's rule: null for data other than the frozen dataset (issue 31).
    assert_eq!(
        egger["properties"]["rule_outcome"]["enum"],
        json!(["passed", "failed", "inconclusive", null])
    );
}

#[test]
fn result_fields_keep_their_order() {
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(
        keys(&ok("fit_random_effects", json!({}))),
        [
            "method",
            "test",
            "level",
            "k",
            "estimate",
            "se",
            "z",
            "p",
            "ci_lower",
            "ci_upper",
            "tau2",
            "tau",
            "se_tau2",
            "q",
            "q_df",
            "q_p",
            "i2",
            "h2",
            "pi_lower",
            "pi_upper",
            "iterations",
            "measure",
            "transform",
            "natural",
            "dataset"
        ]
    );
    assert_eq!(
        keys(&ok(
            "refit_excluding",
            json!({"exclude": ["s04"], "test": "knha"})
        ))[..]
            .iter()
            .map(String::as_str)
            .filter(|key| !["tau2", "tau", "se_tau2", "q", "q_df", "q_p", "i2", "h2"].contains(key))
            .collect::<Vec<_>>(),
        [
            "method",
            "test",
            "level",
            "k",
            "estimate",
            "se",
            "t",
            "df",
            "p",
            "ci_lower",
            "ci_upper",
            "pi_lower",
            "pi_upper",
            "iterations",
            "measure",
            "transform",
            "natural",
            "excluded",
            "dataset"
        ]
    );
    assert_eq!(
        keys(&ok("egger_test", json!({}))),
        [
            "variant",
            "k",
            "egger_p",
            "statistic",
            "df",
            "coefficient",
            "se",
            "limit_estimate",
            "limit_ci_lower",
            "limit_ci_upper",
            "tau2",
            "model",
            "model_description",
            "statistic_name",
            "coefficient_name",
            "excluded",
            "rule",
            "rule_outcome",
            "dataset"
        ]
    );
    let loo = ok("leave_one_out", json!({}));
    assert_eq!(
        keys(&loo),
        [
            "method",
            "test",
            "level",
            "k",
            "measure",
            "transform",
            "results",
            "dataset"
        ]
    );
    assert_eq!(keys(&loo["results"][0])[..3], ["omitted", "method", "test"]);
    assert_eq!(
        keys(&ok("funnel_plot", json!({}))),
        ["svg", "numbers", "fit", "egger"]
    );
    // heterogeneity: the engine's HeterogeneityEstimates first (ci_empty is its `empty`),
    // then what the tool adds.
    assert_eq!(
        keys(&ok("heterogeneity", json!({}))),
        [
            "k",
            "method",
            "level",
            "q",
            "q_df",
            "q_p",
            "tau2",
            "tau2_ci_lower",
            "tau2_ci_upper",
            "tau",
            "tau_ci_lower",
            "tau_ci_upper",
            "i2",
            "i2_ci_lower",
            "i2_ci_upper",
            "h2",
            "h2_ci_lower",
            "h2_ci_upper",
            "ci_empty",
            "ci_method",
            "notes",
            "dataset"
        ]
    );
    // subgroup_analysis's rows: the engine's SubgroupFit first, then the tool's natural
    // scale and note.
    let subgroups = ok("subgroup_analysis", json!({"by": "tester"}));
    assert_eq!(
        keys(&subgroups["groups"][0]),
        [
            "level",
            "k",
            "estimate",
            "se",
            "statistic",
            "p",
            "ci_lower",
            "ci_upper",
            "tau2",
            "se_tau2",
            "q",
            "q_p",
            "i2",
            "h2",
            "natural",
            "note"
        ]
    );
    // The table tools: the engine's result (meta_analysis::MantelHaenszel, PetoOddsRatio)
    // first, then what the tool adds (scale, natural scale, data).
    let tables = json!([
        {"ai": 4, "bi": 119, "ci": 11, "di": 128},
        {"ai": 6, "bi": 300, "ci": 29, "di": 303}
    ]);
    let pooled = [
        "k",
        "level",
        "estimate",
        "se",
        "z",
        "p",
        "ci_lower",
        "ci_upper",
        "q",
        "q_df",
        "q_p",
        "i2",
        "h2",
        "k_heterogeneity",
    ];
    let added = ["measure", "transform", "natural", "dataset"];
    assert_eq!(
        keys(&ok("mantel_haenszel", json!({"data": tables}))),
        [
            &pooled[..],
            &["cmh", "cmh_p", "tarone", "tarone_df", "tarone_p"],
            &added
        ]
        .concat()
    );
    assert_eq!(
        keys(&ok("peto_odds_ratio", json!({"data": tables}))),
        [&pooled[..], &added].concat()
    );
}

/// Every module of `src/tools` (found on disk, not listed by hand) and the session, each
/// without its tests: the code a tool name could be written in.
fn tool_sources() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("tools"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    paths.sort();
    paths.push(root.join("session.rs"));
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap().to_string();
            (p.file_name().unwrap().to_string_lossy().into_owned(), code)
        })
        .collect()
}

#[test]
fn each_tool_is_one_file_and_one_registry_entry() {
    // A tool's file is named for it and declares its entry; every entry is registered once.
    let sources = tool_sources();
    let declared: Vec<&str> = sources
        .iter()
        .filter(|(_, code)| code.contains(": Tool = Tool {"))
        .map(|(file, _)| file.trim_end_matches(".rs"))
        .collect();
    let mut registered: Vec<&str> = names().collect();
    registered.sort();
    assert_eq!(
        declared, registered,
        "a tool file without a registry entry, or the reverse"
    );
    for (file, code) in &sources {
        let entries = code.matches(": Tool = Tool {").count();
        assert!(
            entries <= 1,
            "{file} declares {entries} tools: one tool, one file"
        );
    }
}

/// The string literals of every crate's code in the workspace (`crates/*/src/**/*.rs`, each
/// file of the program without its comments and `#[cfg(test)]` items), by path from the
/// workspace's root.
fn workspace_literals() -> Vec<(String, Vec<String>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut crates: Vec<_> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    crates.sort();
    let mut literals = Vec::new();
    for krate in crates {
        for path in rust_source::program_files(&krate.join("src")) {
            let relative = path
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&path).unwrap();
            literals.push((relative, rust_source::literals(&text)));
        }
    }
    assert!(literals.len() > 100, "the workspace's sources are found");
    literals
}

/// Issue 43 item 3: outside tests and docs a tool's name is written once, in its own file
/// (its entry), and everything else (the page, the CLI, the summaries, the plots, codegen,
/// the bench) reaches the tool through the registry: a renamed tool is one edit.
#[test]
fn each_tool_name_is_written_once_outside_tests() {
    let workspace = workspace_literals();
    for name in names() {
        let quoted = format!("\"{name}\"");
        let written: Vec<&str> = workspace
            .iter()
            .flat_map(|(path, literals)| {
                literals
                    .iter()
                    .filter(|literal| **literal == quoted)
                    .map(move |_| path.as_str())
            })
            .collect();
        assert_eq!(
            written,
            [format!("crates/exemplar/src/tools/{name}.rs")],
            "{name} is written as a string where shown: write it once, in its entry"
        );
        // Nor inside a sentence of a string (a label, a message): the entry's `name` goes
        // into it. A name that is also an ordinary word ("heterogeneity") is left to the
        // count above.
        if !name.contains('_') {
            continue;
        }
        for (path, literals) in &workspace {
            for literal in literals.iter().filter(|literal| **literal != quoted) {
                let padded = format!(" {} ", literal.trim_matches('"'));
                let in_prose = [" ", ".", ",", ")", ":"]
                    .iter()
                    .any(|after| padded.contains(&format!(" {name}{after}")));
                assert!(!in_prose, "{path}: {name} is written in {literal}");
            }
        }
    }
    // Nor inside prose of the tools' own code (descriptions name other tools through their
    // entries), comments included.
    for name in names().filter(|name| name.contains('_')) {
        let in_prose: usize = tool_sources()
            .iter()
            .map(|(_, text)| {
                [" ", ".", ",", ")"]
                    .iter()
                    .map(|after| text.matches(&format!(" {name}{after}")).count())
                    .sum::<usize>()
            })
            .sum();
        assert_eq!(in_prose, 0, "{name} appears in prose");
    }
}

#[test]
fn every_tool_states_its_limits_where_an_agent_reads_them() {
    // The limits every tool shares are said once, in the instructions.
    assert!(instructions().contains(&MAX_ARGS_BYTES.to_string()));
    for tool in REGISTRY {
        let definition = tool.definition();
        if tool.max_records > 0 {
            // In `records`, or in raw `data` for a tool that takes no records (its handles,
            // `data_id`, hold as many rows as `data` takes).
            let properties = &definition.input_schema["properties"];
            let records = &properties
                .get("records")
                .or_else(|| properties.get(DATA_ARGUMENT))
                .unwrap_or_else(|| panic!("{}: neither records nor data", tool.name))
                ["description"];
            assert!(
                records
                    .as_str()
                    .unwrap()
                    .to_lowercase()
                    .contains(&format!("at most {}", tool.max_records)),
                "{}: {records}",
                tool.name
            );
        }
    }
}

/// Issue 41 item 6: the selection model at the tools' cap of 10⁵ records took 1.7 s; it takes
/// at most [`MAX_SELECTION_RECORDS`], and a larger call is refused naming the limit, before
/// its records are read.
#[test]
fn a_selection_model_past_its_record_limit_is_refused_naming_it() {
    let many: Vec<Value> = (0..MAX_SELECTION_RECORDS + 1)
        .map(|i| json!({"id": format!("r{i}"), "yi": 0.1, "vi": 0.01}))
        .collect();
    let (code, message) = code("selection_model", json!({"records": many}));
    assert_eq!(code, "too_many_records");
    assert_eq!(
        message,
        format!(
            "too many records: {} given, at most {MAX_SELECTION_RECORDS} are accepted by \
             selection_model",
            MAX_SELECTION_RECORDS + 1
        )
    );
}
