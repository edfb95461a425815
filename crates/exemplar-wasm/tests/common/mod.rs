//! Checks shared by the Node (`api.rs`) and browser (`browser.rs`) wasm tests. Each calls the
//! public wasm API exactly as the page does (JSON text in, JSON text out) and compares with
//! the `exemplar` crate called directly.
#![allow(dead_code)]

use exemplar_wasm as api;
use serde_json::{json, Value};

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

pub fn metadata_describes_the_frozen_artifacts() {
    let m = parse(&api::metadata());
    assert_eq!(m, serde_json::to_value(exemplar::page::metadata()).unwrap());
    assert_eq!(m["scored_fields"], 13);
    assert_eq!(m["conditions"][0], json!({"key": "pdf", "label": "PDF"}));
    assert_eq!(m["baseline_version"], exemplar::protocol::BASELINE_VERSION);
    assert_eq!(m["dataset_name"], "dat.raudenbush1985");
    assert_eq!(m["dataset_sha256"], exemplar::dataset::sha256());
    assert_eq!(m["engine_version"], exemplar::ENGINE_VERSION);
    assert_eq!(m["prompt"], exemplar::protocol::PROMPT);
    assert_eq!(m["pdf_sha256"], exemplar::baselines::current().pdf_sha256);
    assert_eq!(m["pdf_path"], "benchmark-baseline.pdf");
    assert!(m["dataset_description"]
        .as_str()
        .unwrap()
        .contains("19 effect-size records"));
}

pub fn dataset_csv_and_json() {
    let csv = api::dataset_csv();
    assert_eq!(csv, exemplar::dataset::CSV);
    assert_eq!(api::sha256_hex(csv.as_bytes()), exemplar::dataset::sha256());
    let json = parse(&api::dataset_json());
    assert_eq!(json, exemplar::dataset::to_json());
    assert_eq!(
        json,
        exemplar::tools::call("get_dataset", &json!({})).unwrap()
    );
    assert_eq!(json["records"].as_array().unwrap().len(), 19);
    assert_eq!(json["records"][3]["author"], "Pellegrini & Hicks");
}

/// The tools of the page's first wasm module (`ToolGroup::Benchmark`).
const BENCHMARK_TOOLS: [&str; 4] = [
    "get_dataset",
    "fit_random_effects",
    "refit_excluding",
    "egger_test",
];

/// Every tool, with defaults and with options, gives `{"ok": native result}`.
pub fn every_tool_matches_native() {
    let records = r#"[{"id":"a","yi":0.1,"vi":0.01},{"id":"b","yi":0.3,"vi":0.02},{"id":"c","yi":-0.1,"vi":0.04}]"#;
    let cases = [
        ("get_dataset", "{}".to_string()),
        ("fit_random_effects", "{}".to_string()),
        ("fit_random_effects", "".to_string()),
        (
            "fit_random_effects",
            r#"{"method":"DL","level":0.9,"test":"knha"}"#.to_string(),
        ),
        ("fit_random_effects", format!(r#"{{"records":{records}}}"#)),
        ("refit_excluding", r#"{"exclude":["s04"]}"#.to_string()),
        (
            "refit_excluding",
            format!(r#"{{"exclude":["c"],"records":{records}}}"#),
        ),
        ("egger_test", "{}".to_string()),
        (
            "egger_test",
            r#"{"variant":"rma","exclude":["s04"]}"#.to_string(),
        ),
        ("leave_one_out", r#"{"method":"PM"}"#.to_string()),
        ("forest_plot", r#"{"exclude":["s04"]}"#.to_string()),
        ("funnel_plot", r#"{"variant":"rma"}"#.to_string()),
        (
            "compute_effect_sizes",
            r#"{"measure":"SMD","data":[{"m1i":10.2,"sd1i":2.1,"n1i":20,"m2i":9.1,"sd2i":2.4,"n2i":22}]}"#
                .to_string(),
        ),
    ];
    for (name, args) in cases {
        let got = parse(&api::call_tool(name, &args));
        // The first module (without `full`) has the benchmark's tools only, and says so of
        // any other; the page moves such a call to the whole engine.
        if !cfg!(feature = "full") && !BENCHMARK_TOOLS.contains(&name) {
            assert!(!api::has_tool(name), "{name}");
            assert_eq!(got["error"]["code"], "unknown_tool", "{name} {got}");
            continue;
        }
        assert!(api::has_tool(name), "{name}");
        let args: Value = if args.is_empty() {
            json!({})
        } else {
            parse(&args)
        };
        let native = exemplar::tools::call(name, &args).unwrap();
        assert_eq!(got, json!({"ok": native}), "{name} {args}");
    }
}

/// The reference task results from the tools score 13/13 through the wasm scorer.
pub fn tool_results_score_13_of_13() {
    let ok = |name: &str, args: &str| parse(&api::call_tool(name, args))["ok"].clone();
    let fit = ok("fit_random_effects", r#"{"method":"REML"}"#);
    let refit = ok("refit_excluding", r#"{"exclude":["s04"]}"#);
    let egger = ok("egger_test", r#"{"variant":"classic"}"#);
    let pick = |v: &Value, keys: &[&str]| -> Value {
        keys.iter()
            .map(|k| (k.to_string(), v[*k].clone()))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let answer = json!({
        "overall": pick(&fit, &["k", "estimate", "ci_lower", "ci_upper", "p"]),
        "exclude_s04": pick(&refit, &["k", "estimate", "ci_lower", "ci_upper", "p", "excluded"]),
        "bias": pick(&egger, &["egger_p", "rule_outcome"]),
    });
    let report = parse(&api::score(&answer.to_string()));
    assert_eq!(report["passed"], 13, "{report}");
}

pub fn tool_errors_are_json_never_throws() {
    let error =
        |name: &str, args: &str| parse(&api::call_tool(name, args))["error"]["code"].clone();
    assert_eq!(error("fit_random_effects", "{bad json"), "invalid_json");
    assert_eq!(
        error("fit_random_effects", r#"{"level":1e999}"#),
        "invalid_json"
    );
    assert_eq!(error("nope", "{}"), "unknown_tool");
    assert_eq!(
        error("fit_random_effects", r#"{"x":1}"#),
        "unknown_property"
    );
    assert_eq!(
        error("fit_random_effects", r#"{"level":"0.9"}"#),
        "wrong_type"
    );
    assert_eq!(error("refit_excluding", "{}"), "invalid_arguments");
    assert_eq!(
        error("refit_excluding", r#"{"exclude":["s99"]}"#),
        "unknown_record"
    );
    let dup = r#"{"records":[{"id":"a","yi":0,"vi":1},{"id":"a","yi":1,"vi":1}]}"#;
    assert_eq!(error("fit_random_effects", dup), "invalid_records");
    let equal = r#"{"records":[{"id":"a","yi":0,"vi":1},{"id":"b","yi":1,"vi":1},{"id":"c","yi":3,"vi":1}]}"#;
    assert_eq!(error("egger_test", equal), "analysis_failed");
    let message = parse(&api::call_tool("refit_excluding", "{}"));
    assert_eq!(message, exemplar::tools::call_json("refit_excluding", "{}"));
}

pub fn scorer_matches_native() {
    let reference = serde_json::to_string(&exemplar::protocol::reference_answer()).unwrap();
    let too_long = " ".repeat(exemplar::scorer::MAX_ANSWER_BYTES + 1);
    let wrong_k = reference.replacen("\"k\":19", "\"k\":\"19\"", 1);
    let fenced = format!("```json\n{reference}\n```");
    let cases = [
        reference.as_str(),
        "",
        "[]",
        fenced.as_str(),
        wrong_k.as_str(),
        too_long.as_str(),
        "{}",
    ];
    for raw in cases {
        let got = parse(&api::score(raw));
        assert_eq!(got, exemplar::scorer::score(raw).to_json(), "{raw:.40}");
    }
    assert_eq!(parse(&api::score(&reference))["passed"], 13);
    assert_eq!(parse(&api::score(&fenced))["parsed"], false);
    assert_eq!(parse(&api::score(&wrong_k))["passed"], 12);
}

pub fn sha256_hex_matches_native() {
    assert_eq!(api::sha256_hex(b"abc"), exemplar::sha256_hex(b"abc"));
    assert_eq!(api::sha256_hex(&[]), exemplar::sha256_hex(&[]));
}

/// The page's session: runs answered and ledgered in one call, as native; export, restore,
/// verify, detect tampering.
pub fn session_runs_and_ledger() {
    let mut session = api::Session::new();
    assert_eq!(parse(&session.verify()), json!({"ok": true, "length": 0}));
    let mut native = exemplar::session::Session::new();
    let runs = [
        ("fit_random_effects", "{}"),
        ("refit_excluding", r#"{"exclude":["s04"]}"#),
        ("egger_test", r#"{"variant":"classic"}"#),
        ("refit_excluding", r#"{"exclude":["s99"]}"#),
        ("fit_random_effects", "{bad"),
    ];
    for (i, (tool, args)) in runs.iter().enumerate() {
        let time = format!("2026-09-04T10:00:0{i}Z");
        let report = parse(&session.run(tool, args, &time));
        let mut expected = serde_json::to_value(native.run(tool, args, &time)).unwrap();
        if !cfg!(feature = "full") {
            // The first module leaves the result views to the whole engine.
            expected["view"] = Value::Null;
        }
        assert_eq!(report, expected);
        assert_eq!(report["entry"]["seq"], i + 1);
    }
    assert_eq!(parse(&session.verify()), json!({"ok": true, "length": 5}));
    let exported = session.entries_json();
    assert_eq!(parse(&exported), native.ledger().to_json());
    assert_eq!(
        parse(&api::Session::verify_json(&exported)),
        json!({"ok": true, "length": 5})
    );
    let mut restored = api::Session::restore(&exported).unwrap();
    let trap = parse(&restored.record_failure("forest_plot", "{}", "t", r#"{"kind":"trapped"}"#));
    assert_eq!(trap["entry"]["status"], "internal_error");
    assert_eq!(trap["response"]["isError"], true);
    assert_eq!(parse(&restored.verify()), json!({"ok": true, "length": 6}));
    let unavailable = parse(&restored.record_failure(
        "forest_plot",
        "{}",
        "t",
        r#"{"kind":"module_unavailable","reason":"Failed to fetch"}"#,
    ));
    assert_eq!(unavailable["entry"]["status"], "internal_error");
    assert_eq!(unavailable["entry"]["prev_hash"], trap["entry"]["hash"]);
    assert!(unavailable["response"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("could not be loaded (\"Failed to fetch\")"));
    assert_eq!(parse(&restored.verify()), json!({"ok": true, "length": 7}));
    let unwritable = parse(&restored.record_failure(
        "fit_random_effects",
        "",
        "t",
        r#"{"kind":"unwritable","reason":"Do not know how to serialize a BigInt"}"#,
    ));
    assert_eq!(unwritable["entry"]["status"], "error");
    assert_eq!(
        unwritable["entry"]["prev_hash"],
        unavailable["entry"]["hash"]
    );
    assert_eq!(unwritable["error"]["code"], "invalid_json");
    assert_eq!(
        unwritable["response"],
        serde_json::to_value(
            exemplar::session::Session::new()
                .refuse_unwritable(
                    "fit_random_effects",
                    "Do not know how to serialize a BigInt",
                    "t"
                )
                .response
        )
        .unwrap()
    );
    assert_eq!(parse(&restored.verify()), json!({"ok": true, "length": 8}));

    let tampered = exported.replacen("s04", "s05", 1);
    let report = parse(&api::Session::verify_json(&tampered));
    assert_eq!(
        (report["ok"].clone(), report["seq"].clone()),
        (json!(false), json!(2))
    );
    assert!(report["message"].is_string());
    let report = parse(&api::Session::verify_json("not json"));
    assert_eq!(
        (report["ok"].clone(), report["seq"].clone()),
        (json!(false), Value::Null)
    );
}

/// After a fit, refit or Egger run the page draws the plot that goes with it.
#[cfg(feature = "full")]
pub fn companion_plots_match_native() {
    for (name, plot) in [
        ("fit_random_effects", "forest_plot"),
        ("refit_excluding", "forest_plot"),
        ("egger_test", "funnel_plot"),
    ] {
        let args = r#"{"exclude":["s04"]}"#;
        let got = parse(&api::Session::new().companion_plot(name, args));
        let native = exemplar::tools::call(plot, &parse(args)).unwrap();
        assert_eq!(got, json!({"ok": native, "tool": plot}), "{name}");
    }
    assert_eq!(
        parse(&api::Session::new().companion_plot("get_dataset", "{}")),
        Value::Null
    );
    let bad = parse(&api::Session::new().companion_plot("egger_test", r#"{"exclude":["nope"]}"#));
    assert_eq!(bad["error"]["code"], "unknown_record");
}

/// The view the page's "Your data" shows is the native one.
#[cfg(feature = "full")]
pub fn your_data_view_matches_native() {
    let request = json!({
        "csv": "id;m1i;sd1i;n1i;m2i;sd2i;n2i\r\ns1;10,2;2,1;20;9,1;2,4;22\r\ns2;1;-1;5;1;1;5\r\n",
        "measure": "SMD"
    })
    .to_string();
    let got = parse(&api::your_data_view(&request));
    assert_eq!(got, exemplar::your_data::view_json(&request));
    assert_eq!(
        (got["k"].as_u64(), got["bad_rows"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(got["tool_records"][0]["id"], "s1");
    let bad = parse(&api::your_data_view("not json"));
    assert!(bad["error"]
        .as_str()
        .unwrap()
        .starts_with("the request is not understood"));
}

/// The first module answers the benchmark's tools without the arguments and scales only the
/// whole engine reads; a session there hands such a call on unledgered (`run` is `null`),
/// and a direct call says why (`whole_engine`); the whole engine answers them all. The
/// result views are the whole engine's.
pub fn the_first_module_hands_on_what_it_leaves_out() {
    let records = r#"[{"id":"a","yi":0.1,"vi":0.01,"measure":"RR"},{"id":"b","yi":0.3,"vi":0.02,"measure":"RR"}]"#;
    let further = [
        ("fit_random_effects", r#"{"weights":"n1i"}"#.to_string()),
        (
            "fit_random_effects",
            r#"{"subset":{"column":"tester","in":["aware"]}}"#.to_string(),
        ),
        (
            "refit_excluding",
            r#"{"exclude":["s04"],"slab":"author"}"#.to_string(),
        ),
        ("egger_test", r#"{"slab":"author"}"#.to_string()),
        ("fit_random_effects", format!(r#"{{"records":{records}}}"#)),
        ("fit_random_effects", r#"{"transform":"exp"}"#.to_string()),
    ];
    let mut session = api::Session::new();
    for (name, args) in &further {
        let got = parse(&api::call_tool(name, args));
        let report = session.run(name, args, "2026-12-06T00:00:00Z");
        if cfg!(feature = "full") {
            assert!(got.get("ok").is_some(), "{name} {args}: {got}");
            assert!(
                parse(&report)["response"]["structuredContent"].is_object(),
                "{report}"
            );
        } else {
            assert_eq!(got["error"]["code"], "whole_engine", "{name} {args}: {got}");
            assert_eq!(report, "null", "{name} {args}");
        }
    }
    // A data handle: the first module makes none (`load_data` is the whole engine's), so it
    // hands a `data_id` on; the whole engine answers that this session holds none.
    let handle = r#"{"data_id":"d1"}"#;
    let got = parse(&api::call_tool("fit_random_effects", handle));
    let report = session.run("fit_random_effects", handle, "2026-12-06T00:00:00Z");
    if cfg!(feature = "full") {
        assert_eq!(got["error"]["code"], "unknown_data", "{got}");
        assert_eq!(parse(&report)["error"]["code"], "unknown_data", "{report}");
    } else {
        assert_eq!(got["error"]["code"], "whole_engine", "{got}");
        assert_eq!(report, "null");
    }
    let ledgered = if cfg!(feature = "full") {
        further.len() + 1
    } else {
        0
    };
    assert_eq!(parse(&session.verify())["length"], ledgered);
    // The frozen dataset's measure (SMD) has no other scale: the first module answers.
    let plain = r#"{"method":"REML","measure":"SMD"}"#;
    let report = parse(&session.run("fit_random_effects", plain, "2026-12-06T00:00:01Z"));
    assert_eq!(
        report["response"]["structuredContent"]["measure"], "SMD",
        "{report}"
    );
    assert_eq!(
        report["view"].is_null(),
        !cfg!(feature = "full"),
        "{report}"
    );
    #[cfg(feature = "full")]
    {
        let result = serde_json::to_string(&report["response"]["structuredContent"]).unwrap();
        let view = parse(&api::result_view("fit_random_effects", &result));
        assert_eq!(view, report["view"]);
        assert!(
            view["summary"]
                .as_str()
                .unwrap()
                .contains("Random-Effects Model"),
            "{view}"
        );
    }
}
