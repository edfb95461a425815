//! Issue 32 item 1 against metafor: each case of `fixtures/printed_summaries.json` (written by
//! `crates/meta-analysis/tests/oracle/printed_summaries.R`) is a tool call and metafor 3.8-1's
//! printout of the same analysis (`capture.output(print(x))`, trailing blanks trimmed). The
//! tool's printed summary must hold every line metafor prints, verbatim, but the lines the case
//! lists in `skip` (by their start, each with the reason). A `tokens` case (predict() of a
//! back-transform) holds the numbers of metafor's row as a row of the summary, in order.

use exemplar::summary::summary;
use exemplar::tools::call;
use serde_json::Value;

fn fixture() -> Value {
    let text = include_str!("fixtures/printed_summaries.json");
    serde_json::from_str(text).expect("the fixture is JSON")
}

fn numbers(line: &str) -> Vec<&str> {
    line.split_whitespace()
        .filter(|t| t.parse::<f64>().is_ok() || t.starts_with('<'))
        .collect()
}

#[test]
fn every_line_metafor_prints_is_in_the_summary() {
    let fixture = fixture();
    let cases = fixture["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 33);
    let mut compared = 0;
    // Every case is checked and every failure reported together.
    let mut failures: Vec<String> = Vec::new();
    for case in cases {
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
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(compared >= 220, "only {compared} lines compared");
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
fn every_analysis_and_plot_has_a_summary_and_data_tools_none() {
    for tool in exemplar::tools::REGISTRY {
        for args in (tool.examples)() {
            let result = call(tool.name, &args).unwrap();
            let text = summary(tool.name, &result);
            let data_tool =
                tool.name == "get_dataset" || tool.group == exemplar::tools::ToolGroup::Data;
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
