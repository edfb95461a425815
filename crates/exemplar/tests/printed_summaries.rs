//! Issue 32 item 1 against metafor: each case of `fixtures/printed_summaries.json` (written by
//! `crates/meta-analysis/tests/oracle/printed_summaries.R`) is a tool call and metafor 3.8-1's
//! printout of the same analysis (`capture.output(print(x))`, trailing blanks trimmed). The
//! tool's printed summary must hold every line metafor prints, verbatim, but the lines the case
//! lists in `skip` (by their start, each with the reason). A `tokens` case (predict() of a
//! back-transform) holds the numbers of metafor's row as a row of the summary, in order.

use exemplar::tools::call;
use exemplar::tools::summary;
use serde_json::{json, Value};

fn fixture() -> Value {
    let text = include_str!("fixtures/printed_summaries.json");
    serde_json::from_str(text).expect("the fixture is JSON")
}

fn numbers(line: &str) -> Vec<&str> {
    line.split_whitespace()
        .filter(|t| t.parse::<f64>().is_ok() || t.starts_with('<'))
        .collect()
}

/// Compares one case: every line metafor prints is in the tool's summary (or a row of it, by
/// its numbers, in a `tokens` case), but the lines `skip` names, and every skip matches a
/// line. Pushes each failure; returns how many lines it compared.
fn compare(case: &Value, failures: &mut Vec<String>) -> usize {
    let name = case["name"].as_str().unwrap();
    let tool = case["tool"].as_str().unwrap();
    let result = call(tool, &case["args"]).unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = summary(tool, &result).unwrap_or_else(|| panic!("{name}: no summary"));
    let ours: Vec<&str> = text.lines().collect();
    let skips: Vec<&str> = case["skip"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["prefix"].as_str().unwrap())
        .collect();
    let printed: Vec<&str> = case["printed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut compared = 0;
    let mut skipped = vec![false; skips.len()];
    for line in printed {
        if let Some(i) = skips.iter().position(|s| line.trim_start().starts_with(s)) {
            skipped[i] = true;
            continue;
        }
        if case["tokens"] == Value::Bool(true) {
            let want = numbers(line);
            if want.is_empty() {
                continue;
            }
            if !ours.iter().any(|l| numbers(l) == want) {
                failures.push(format!(
                    "{name}: no line of the summary holds {want:?}\n{text}"
                ));
            }
        } else if !ours.contains(&line) {
            failures.push(format!(
                "{name}: metafor prints\n{line}\nthe summary is\n{text}"
            ));
        }
        compared += 1;
    }
    // A skip that matches nothing is stale: the case must say only what it leaves out.
    for (prefix, used) in skips.iter().zip(skipped) {
        if !used {
            failures.push(format!(
                "{name}: skip {prefix:?} matches no line metafor prints"
            ));
        }
    }
    compared
}

#[test]
fn every_line_metafor_prints_is_in_the_summary() {
    let fixture = fixture();
    let cases = fixture["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 39);
    let mut compared = 0;
    // Every case is checked and every failure reported together.
    let mut failures: Vec<String> = Vec::new();
    for case in cases {
        compared += compare(case, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(compared >= 220, "only {compared} lines compared");
}

/// A tool's own oracle (`cargo xtask new-tool` writes it: `crates/meta-analysis/tests/oracle/
/// <tool>.R`, fixture `crates/meta-analysis/tests/fixtures/<tool>.json`) holds metafor's
/// printouts of its analyses under `printed`, cases as above with the tool named: each is held
/// here, so a new tool's summary answers to metafor from its first run.
#[test]
fn every_line_metafor_prints_in_a_tools_own_oracle_is_in_its_summary() {
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../meta-analysis/tests/fixtures");
    assert!(fixtures.is_dir(), "{}", fixtures.display());
    let mut failures: Vec<String> = Vec::new();
    for tool in exemplar::tools::REGISTRY {
        let path = fixtures.join(format!("{}.json", tool.name));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let fixture: Value = serde_json::from_str(&text).expect("the fixture is JSON");
        let Some(cases) = fixture.get("printed") else {
            continue;
        };
        let cases = cases.as_array().expect("printed is a list of cases");
        assert!(!cases.is_empty(), "{}: no printed case", path.display());
        for case in cases {
            assert_eq!(case["tool"], tool.name, "{}", path.display());
            let before = failures.len();
            let compared = compare(case, &mut failures);
            if compared == 0 && failures.len() == before {
                failures.push(format!(
                    "{}: case {} compares no line",
                    tool.name, case["name"]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_headline_is_on_the_natural_scale() {
    let fixture = fixture();
    let case = fixture["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "rr_bcg")
        .unwrap();
    let result = call("fit_random_effects", &case["args"]).unwrap();
    let text = summary("fit_random_effects", &result).unwrap();
    // predict(rma(yi, vi, data = dat.bcg RR), transf = exp): 0.4894 [0.3441, 0.6962].
    assert!(
        text.starts_with("RR 0.49 [0.34, 0.70] (95% CI; random-effects REML, k = 13)\n"),
        "{text}"
    );
}

#[test]
fn every_analysis_and_plot_has_a_summary_and_data_tools_none_but_load_data() {
    for tool in exemplar::tools::REGISTRY {
        for args in (tool.examples)() {
            let result = call(tool.name, &args).unwrap();
            let text = summary(tool.name, &result);
            // load_data prints the rows it kept and left out (issue 42 item 8).
            let data_tool = tool.name == "get_dataset"
                || (tool.group == exemplar::tools::ToolGroup::Data && tool.name != "load_data");
            assert_eq!(text.is_none(), data_tool, "{}: {args}", tool.name);
            if let Some(text) = text {
                assert!(
                    !text.starts_with('\n') && text.ends_with('\n'),
                    "{}",
                    tool.name
                );
                assert!(!text.contains("\n\n\n"), "{}", tool.name);
                assert!(text.lines().all(|l| l == l.trim_end()), "{}", tool.name);
            }
        }
    }
}

/// The first example call of `tool` with its records (`records`, or a 2x2 tool's `data`)
/// grown to `rows` rows: copies with further ids, the originals kept (an example may name
/// them, e.g. in `exclude`), and `extra` as the id of the last. An example without records
/// runs on the frozen dataset: its records are given instead (they hold the columns the
/// example names). `None` for a tool that takes no records.
fn grown_example(tool: &exemplar::tools::Tool, rows: usize, extra: &str) -> Option<Value> {
    let examples = (tool.examples)();
    let has = |a: &Value, key: &str| a[key].as_array().is_some_and(|r| !r.is_empty());
    let (mut args, key) = match examples
        .iter()
        .find(|a| has(a, "records") || has(a, "data"))
    {
        Some(a) if has(a, "records") => (a.clone(), "records"),
        Some(a) => (a.clone(), "data"),
        None => {
            let takes = &tool.definition().input_schema["properties"]["records"];
            if takes.is_null() {
                return None;
            }
            let mut args = examples.into_iter().next().unwrap_or_else(|| json!({}));
            args["records"] = call("get_dataset", &json!({})).unwrap()["records"].clone();
            (args, "records")
        }
    };
    let records = args[key].as_array()?.clone();
    let mut grown = records.clone();
    for n in records.len()..rows {
        let mut copy = records[n % records.len()].clone();
        let id = copy["id"].as_str().unwrap_or("t").to_string();
        copy["id"] = Value::from(format!("{id}-{n}"));
        grown.push(copy);
    }
    grown.last_mut().unwrap()["id"] = Value::from(extra);
    args[key] = Value::Array(grown);
    Some(args)
}

/// Issue 41 item 3: a table pads its rows to the longest name, so one long id was written
/// once per row (a 0.17 MB call answered 200 MB). Now every tool's summary stays within a
/// small multiple of its input, and a long id adds to the whole answer (JSON and summary) a
/// few copies of itself (a plot's row keeps it in its `data-id` and tooltip), not one per
/// row: the answer grows by at most 8 times what the input grew.
#[test]
fn one_long_id_does_not_multiply_the_answer() {
    let answer = |tool: &exemplar::tools::Tool, id: &str| {
        let args = grown_example(tool, 200, id)?;
        let result = call(tool.name, &args).unwrap_or_else(|e| panic!("{}: {e}", tool.name));
        let text = summary(tool.name, &result).unwrap_or_default();
        Some((
            args.to_string().len(),
            text.len(),
            result.to_string().len() + text.len(),
        ))
    };
    let mut checked = 0;
    for tool in exemplar::tools::REGISTRY {
        let Some((short_input, _, short_answer)) = answer(tool, "last") else {
            continue;
        };
        let (input, summary, whole) = answer(tool, &"L".repeat(20_000)).unwrap();
        assert!(
            summary <= 2 * input + 16_384,
            "{}: a summary of {summary} bytes for an input of {input}",
            tool.name
        );
        assert!(
            whole - short_answer <= 8 * (input - short_input),
            "{}: an id {} bytes longer made the answer {} bytes longer",
            tool.name,
            input - short_input,
            whole - short_answer
        );
        checked += 1;
    }
    assert!(checked >= 24, "only {checked} tools take records");
}

/// Issue 41 item 4: what an id holds is never written into a summary as a control: a newline
/// cannot forge a line, an escape sequence (OSC 52 writes a terminal's clipboard) cannot
/// reach a terminal, a right-to-left override cannot reorder the numbers after it. Nor into
/// the page's tables.
#[test]
fn ids_cannot_write_controls_into_a_summary_or_the_page() {
    let unprintable = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{61C}' | '\u{200E}' | '\u{200F}' | '\u{2028}' | '\u{2029}'
            )
            || ('\u{202A}'..='\u{202E}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    let hostile = "h\u{202E}\nFORGED 1.0 [0.5, 1.5]\u{1b}]52;c;aGk=\u{7}\u{9b}2J\u{2067}";
    let mut checked = 0;
    for tool in exemplar::tools::REGISTRY {
        let Some(args) = grown_example(tool, 6, hostile) else {
            continue;
        };
        let result = call(tool.name, &args).unwrap_or_else(|e| panic!("{}: {e}", tool.name));
        if let Some(text) = summary(tool.name, &result) {
            assert!(
                !text.replace('\n', "").contains(unprintable),
                "{}: {text}",
                tool.name
            );
            assert!(
                !text.lines().any(|l| l.starts_with("FORGED")),
                "{}: {text}",
                tool.name
            );
            checked += 1;
        }
        let view = exemplar::result_view::view_of(tool.name, &result);
        for table in &view.tables {
            let cells = table.rows.iter().flatten().chain(&table.columns);
            for cell in cells.chain([&table.caption]) {
                assert!(!cell.contains(unprintable), "{}: {cell:?}", tool.name);
            }
        }
    }
    assert!(checked >= 24, "only {checked} summaries");
}

/// Issue 42 item 8: a model without an intercept tests every coefficient (metafor's btt is
/// 1:p then). metafor 3.8-1, `print(rma.mv(yi, vi, mods = ~ 0 + g, random = ~ 1 | study/id))`
/// on these records, prints the lines below.
#[test]
fn a_multilevel_model_without_an_intercept_tests_all_its_coefficients() {
    let ids = ["a1", "a2", "b1", "b2", "c1", "c2", "d1", "e1"];
    let yi = [0.1, 0.3, 0.5, 0.2, -0.1, 0.4, 0.25, 0.05];
    let vi = [0.02, 0.03, 0.05, 0.04, 0.03, 0.02, 0.05, 0.04];
    let records: Vec<Value> = (0..8)
        .map(|i| {
            json!({"id": ids[i], "yi": yi[i], "vi": vi[i], "study": &ids[i][..1],
                   "g": if i % 2 == 0 { "p" } else { "q" }})
        })
        .collect();
    let result = call(
        "fit_multilevel",
        &json!({"records": records, "mods": "~ 0 + g"}),
    )
    .unwrap();
    let text = summary("fit_multilevel", &result).unwrap();
    for line in [
        "Test of Moderators (coefficients 1:2):",
        "QM(df = 2) = 10.8071, p-val = 0.0045",
        "QE(df = 6) = 7.0381, p-val = 0.3173",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} not in\n{text}");
    }
    // One coefficient and no intercept (`mods = ~ 0 + x`): metafor prints the residual
    // heterogeneity and the coefficient, and no test of moderators (QM would be its z²).
    let with_x: Vec<Value> = records
        .iter()
        .zip([1, 2, 3, 1, 2, 3, 1, 2])
        .map(|(r, x)| {
            let mut r = r.clone();
            r["x"] = json!(x);
            r
        })
        .collect();
    let one = call(
        "fit_multilevel",
        &json!({"records": with_x, "mods": "~ 0 + x"}),
    )
    .unwrap();
    let one = summary("fit_multilevel", &one).unwrap();
    let lines: Vec<&str> = one.lines().map(str::trim_end).collect();
    for line in [
        "Test for Residual Heterogeneity:",
        "QE(df = 7) = 5.7712, p-val = 0.5667",
        "x    0.1107  0.0303  3.6571  0.0003  0.0514  0.1700  ***",
    ] {
        assert!(lines.contains(&line), "{line:?} not in\n{one}");
    }
    assert!(!one.contains("Test of Moderators"), "{one}");
    // And so does print.rma.uni: `print(rma(yi, vi, mods = ~ 0 + x))`.
    let uni = call(
        "meta_regression",
        &json!({"records": with_x, "mods": "~ 0 + x"}),
    )
    .unwrap();
    let uni = summary("meta_regression", &uni).unwrap();
    let lines: Vec<&str> = uni.lines().map(str::trim_end).collect();
    for line in [
        "QE(df = 7) = 7.9797, p-val = 0.3344",
        "x    0.1106  0.0336  3.2904  0.0010  0.0447  0.1765  **",
    ] {
        assert!(lines.contains(&line), "{line:?} not in\n{uni}");
    }
    assert!(!uni.contains("Test of Moderators"), "{uni}");
    // `print(robust(<the same fit>, cluster = study))`.
    let result = call(
        "robust_test",
        &json!({"records": records, "mods": "~ 0 + g", "model": "multilevel",
                "cluster": "study", "vcov": "CR1"}),
    )
    .unwrap();
    let text = summary("robust_test", &result).unwrap();
    for line in [
        "Test of Moderators (coefficients 1:2):\u{b9}",
        "F(df1 = 2, df2 = 3) = 14.6328, p-val = 0.0284",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} not in\n{text}");
    }
}

/// Issue 42 item 8: a Q-profile interval that is the null set (Q below even the lower χ²
/// quantile) prints its bounds as metafor 3.8-1's `print(confint(rma(yi, vi)))` does on these
/// records: "<0.0000", not as a bound at 0, and says why in metafor's words.
#[test]
fn an_empty_q_profile_interval_prints_as_metafor_prints_it() {
    let yi = [0.1, 0.1005, 0.0995, 0.1002, 0.0998, 0.1001];
    let records: Vec<Value> = yi
        .iter()
        .enumerate()
        .map(|(i, y)| json!({"id": format!("s{i}"), "yi": y, "vi": 0.04}))
        .collect();
    let result = call("heterogeneity", &json!({"records": records})).unwrap();
    assert_eq!(result["ci_empty"], json!(true));
    let text = summary("heterogeneity", &result).unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    for line in [
        "       estimate   ci.lb   ci.ub",
        "tau^2    0.0000 <0.0000 <0.0000",
        "tau      0.0000 <0.0000 <0.0000",
        "I^2(%)   0.0000 <0.0000 <0.0000",
        "H^2      1.0000 <1.0000 <1.0000",
        "The upper and lower CI bounds for tau^2 both fall below 0.",
        "The CIs are therefore equal to the null/empty set.",
    ] {
        assert!(lines.contains(&line), "{line:?} not in\n{text}");
    }
}

/// Issue 42 item 8: trim_and_fill carries tau beside tau2, as its fit and metafor's
/// `trimfill(rma(yi, vi))` do. metafor 3.8-1 on these records: k0 = 5, tau 0.0762 printed;
/// the refit on the 15 records at the exact REML optimum (`control = list(threshold = 1e-12)`;
/// metafor's default stopping rule gives 0.0058095937) has tau^2 0.0058022914, tau 0.0761727734.
#[test]
fn trim_and_fill_carries_tau_as_metafor_gives_it() {
    let yi = [0.8, 0.6, 0.5, 0.45, 0.3, 0.7, 0.2, 0.9, 0.55, 0.35];
    let vi = [0.10, 0.08, 0.05, 0.04, 0.02, 0.09, 0.01, 0.12, 0.06, 0.03];
    let records: Vec<Value> = (0..10)
        .map(|i| json!({"id": format!("s{i}"), "yi": yi[i], "vi": vi[i]}))
        .collect();
    let result = call("trim_and_fill", &json!({"records": records})).unwrap();
    assert_eq!(result["k0"], json!(5));
    let tau2 = result["tau2"].as_f64().unwrap();
    let tau = result["tau"].as_f64().expect("tau in the result");
    assert!((tau2 - 0.0058022914).abs() < 1e-9, "tau2 {tau2}");
    assert!((tau - 0.0761727734).abs() < 1e-9, "tau {tau}");
    let text = summary("trim_and_fill", &result).unwrap();
    assert!(
        text.lines()
            .any(|l| l == "tau (square root of estimated tau^2 value):      0.0762"),
        "{text}"
    );
}

/// Issue 42 item 8: egger_test's result and summary name the variant and its model in
/// metafor's words, so the classic test (regtest(model = "lm")) is never read as regtest()'s
/// default "rma". metafor 3.8-1, `print(regtest(yi, vi, model = "lm"))` and
/// `print(regtest(yi, vi))` on these records, prints the lines below.
#[test]
fn egger_test_names_its_variant_and_model_as_metafor_does() {
    let yi = [0.8, 0.6, 0.5, 0.45, 0.3, 0.7, 0.2, 0.9, 0.55, 0.35];
    let vi = [0.10, 0.08, 0.05, 0.04, 0.02, 0.09, 0.01, 0.12, 0.06, 0.03];
    let records: Vec<Value> = (0..10)
        .map(|i| json!({"id": format!("s{i}"), "yi": yi[i], "vi": vi[i]}))
        .collect();
    let cases = [
        (
            "classic",
            "lm",
            "weighted regression with multiplicative dispersion",
            "Test for Funnel Plot Asymmetry: t = 22.1537, df = 8, p < .0001",
            "Limit Estimate (as sei -> 0):   b = -0.0660 (CI: -0.1159, -0.0160)",
        ),
        (
            "rma",
            "rma",
            "mixed-effects meta-regression model",
            "Test for Funnel Plot Asymmetry: z = 3.1738, p = 0.0015",
            "Limit Estimate (as sei -> 0):   b = -0.0660 (CI: -0.3624, 0.2304)",
        ),
    ];
    for (variant, model, words, test, limit) in cases {
        let result = call(
            "egger_test",
            &json!({"records": records, "variant": variant}),
        )
        .unwrap();
        assert_eq!(result["model"], json!(model), "{variant}");
        assert_eq!(result["model_description"], json!(words), "{variant}");
        let text = summary("egger_test", &result).unwrap();
        let headline = text.lines().next().unwrap();
        assert!(
            headline.starts_with(&format!(
                "Egger's test, {variant} (regtest model \"{model}\", {words}): "
            )),
            "{headline}"
        );
        for line in [
            "Regression Test for Funnel Plot Asymmetry".to_string(),
            format!("Model:     {words}"),
            "Predictor: standard error".to_string(),
            test.to_string(),
            limit.to_string(),
        ] {
            assert!(text.lines().any(|l| l == line), "{line:?} not in\n{text}");
        }
    }
}

/// Issue 42 item 8: the three-level model is `rma.mv(..., random = ~ 1 | study/id)` (the
/// records' `id` is the inner level) in the tool's description and METHODS.md, and its
/// summary names the inner level as metafor's print of that formula does ("study/id";
/// with `study` naming another column, that column).
#[test]
fn the_multilevel_inner_level_is_named_alike_in_the_description_and_the_print() {
    let tool = &exemplar::tools::FIT_MULTILEVEL;
    assert!((tool.description)().contains("random = ~ 1 | study/id"));
    let methods = include_str!("../../../docs/METHODS.md");
    assert!(methods.contains("random = ~ 1 | study/id)"));
    let records = json!([
        {"id": "a1", "yi": 0.1, "vi": 0.02, "trial": "A"},
        {"id": "a2", "yi": 0.3, "vi": 0.03, "trial": "A"},
        {"id": "b1", "yi": -0.1, "vi": 0.02, "trial": "B"},
        {"id": "b2", "yi": 0.2, "vi": 0.04, "trial": "B"},
        {"id": "c1", "yi": 0.5, "vi": 0.05, "trial": "C"}
    ]);
    let result = call(tool.name, &json!({"records": records, "study": "trial"})).unwrap();
    let text = summary(tool.name, &result).unwrap();
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("sigma^2.")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].trim_end().ends_with(" trial"), "{}", rows[0]);
    assert!(rows[1].trim_end().ends_with(" trial/id"), "{}", rows[1]);
}

/// A cumulative analysis at another level says so: its result carries `level` and the
/// headline names it (it said "95% CI" whatever the level was).
#[test]
fn a_cumulative_headline_names_the_level_of_its_intervals() {
    let tool = &exemplar::tools::CUMULATIVE_META_ANALYSIS;
    let result = call(tool.name, &json!({"level": 0.9})).unwrap();
    assert_eq!(result["level"], json!(0.9));
    let text = summary(tool.name, &result).unwrap();
    let headline = text.lines().next().unwrap();
    assert!(headline.contains("(90% CI; cumulative"), "{headline}");
    let last = result["results"].as_array().unwrap().last().unwrap();
    let lower = format!("{:.2}", last["ci_lower"].as_f64().unwrap());
    assert!(headline.contains(&lower), "{headline} vs {lower}");
}
