//! The tools' natural-scale results against R's metafor 3.8-1 `predict(..., transf = ...)`
//! (fixtures: `tests/fixtures/backtransform.json`, made by
//! `crates/meta-analysis/tests/oracle/backtransform_fixtures.R`): fits, meta-regression predictions, subgroup
//! fits, cumulative steps and trim-and-fill, on log risk and odds ratios (dat.bcg), logit
//! proportions (dat.pritz1997) and Fisher's z (dat.molloy2014). Numbers agree to 1e-9
//! relative.

use exemplar::tools::call;
use serde_json::{json, Value};

const TOL: f64 = 1e-9;

fn fixtures() -> Value {
    serde_json::from_str(include_str!("fixtures/backtransform.json")).expect("fixture JSON")
}

/// The case's records with `extra` columns and, if `carry`, the measure on each record.
fn records(case: &Value, extra: &[&str], carry: bool) -> Value {
    let ids = case["ids"].as_array().unwrap();
    Value::Array(
        (0..ids.len())
            .map(|i| {
                let mut r = json!({"id": ids[i], "yi": case["yi"][i], "vi": case["vi"][i]});
                for name in extra {
                    r[*name] = case[*name][i].clone();
                }
                if carry {
                    r["measure"] = case["measure"].clone();
                }
                r
            })
            .collect(),
    )
}

#[derive(Default)]
struct Check {
    failures: Vec<String>,
    compared: usize,
}

impl Check {
    fn num(&mut self, what: &str, ours: &Value, theirs: &Value) {
        self.compared += 1;
        let (Some(a), Some(b)) = (ours.as_f64(), theirs.as_f64()) else {
            self.failures
                .push(format!("{what}: ours {ours}, metafor {theirs}"));
            return;
        };
        let close = (a - b).abs() <= TOL * b.abs().max(1.0);
        if !close {
            self.failures
                .push(format!("{what}: ours {a:.17e}, metafor {b:.17e}"));
        }
    }

    /// `natural` against metafor's predicted values (first of each vector, or the `i`th).
    fn natural(&mut self, what: &str, natural: &Value, theirs: &Value, i: usize, pi: bool) {
        let mut keys = vec!["estimate", "ci_lower", "ci_upper"];
        if pi {
            keys.extend(["pi_lower", "pi_upper"]);
        }
        for key in keys {
            let theirs = theirs[key].get(i).unwrap_or(&theirs[key]);
            self.num(&format!("{what} {key}"), &natural[key], theirs);
        }
    }

    fn done(self, at_least: usize) {
        assert!(
            self.failures.is_empty(),
            "{} of {} disagree:\n{}",
            self.failures.len(),
            self.compared,
            self.failures.join("\n")
        );
        assert!(self.compared >= at_least, "only {} compared", self.compared);
    }
}

fn ok(name: &str, args: Value) -> Value {
    call(name, &args).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn natural_scale_results_agree_with_metafor_predict() {
    let fixtures = fixtures();
    let mut check = Check::default();
    for case in fixtures["cases"].as_array().unwrap() {
        let measure = case["measure"].as_str().unwrap();
        let transform = case["transform"].as_str().unwrap();
        let extra: Vec<&str> = ["ablat", "alloc", "year"]
            .into_iter()
            .filter(|n| case.get(*n).is_some())
            .collect();
        // The measure given as an argument, and carried by the records.
        let given = records(case, &extra, false);
        let carried = records(case, &extra, true);
        for fit in case["fits"].as_array().unwrap() {
            let options =
                json!({"method": fit["method"], "test": fit["test"], "level": fit["level"]});
            let mut args = options.clone();
            args["records"] = given.clone();
            args["measure"] = json!(measure);
            let ours = ok("fit_random_effects", args);
            assert_eq!(
                (ours["measure"].as_str(), ours["transform"].as_str()),
                (Some(measure), Some(transform))
            );
            let what = format!("{measure} {options}");
            check.natural(&what, &ours["natural"], &fit["natural"], 0, true);
            let mut args = options;
            args["records"] = carried.clone();
            let same = ok("fit_random_effects", args);
            assert_eq!(same["natural"], ours["natural"], "{what}: carried measure");
        }
        let tf = ok("trim_and_fill", json!({"records": carried}));
        assert_eq!(tf["k0"], case["trim_and_fill"]["k0"], "{measure} k0");
        check.natural(
            &format!("{measure} trim-and-fill"),
            &tf["natural"],
            &case["trim_and_fill"]["natural"],
            0,
            true,
        );
        if let Some(cm) = case.get("cumulative") {
            let ours = ok(
                "cumulative_meta_analysis",
                json!({"records": carried, "order_by": "year"}),
            );
            let steps = ours["results"].as_array().unwrap();
            assert_eq!(steps.len(), cm["estimate"].as_array().unwrap().len());
            for (i, step) in steps.iter().enumerate() {
                check.natural(
                    &format!("{measure} cumulative step {}", i + 1),
                    &step["natural"],
                    cm,
                    i,
                    false,
                );
            }
        }
        if let Some(mr) = case.get("meta_regression") {
            let at: Vec<Value> = mr["at"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| json!({"ablat": x}))
                .collect();
            let ours = ok(
                "meta_regression",
                json!({"records": carried, "mods": ["ablat"], "at": at}),
            );
            for (i, p) in ours["predictions"].as_array().unwrap().iter().enumerate() {
                check.natural(
                    &format!("{measure} prediction {i}"),
                    &p["natural"],
                    &mr["natural"],
                    i,
                    true,
                );
            }
        }
        if let Some(sg) = case.get("subgroups") {
            let ours = ok(
                "subgroup_analysis",
                json!({"records": carried, "by": sg["by"]}),
            );
            for (group, theirs) in ours["groups"]
                .as_array()
                .unwrap()
                .iter()
                .zip(sg["groups"].as_array().unwrap())
            {
                assert_eq!(group["level"], theirs["level"]);
                check.natural(
                    &format!("{measure} subgroup {}", theirs["level"]),
                    &group["natural"],
                    theirs,
                    0,
                    false,
                );
            }
        }
    }
    check.done(200);
}

/// compute_effect_sizes writes the measure on each record, and a fit of those records
/// gives the natural scale without being told the measure.
#[test]
fn records_from_raw_data_carry_their_measure_into_the_fit() {
    let data = json!([
        {"id": "a", "ai": 4, "bi": 119, "ci": 11, "di": 128},
        {"id": "b", "ai": 6, "bi": 300, "ci": 29, "di": 274},
        {"id": "c", "ai": 3, "bi": 228, "ci": 11, "di": 209}
    ]);
    let computed = ok(
        "compute_effect_sizes",
        json!({"measure": "RR", "data": data}),
    );
    let records = &computed["records"];
    assert!(records
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["measure"] == "RR"));
    let fit = ok("fit_random_effects", json!({"records": records}));
    assert_eq!(
        (fit["measure"].as_str(), fit["transform"].as_str()),
        (Some("RR"), Some("exp"))
    );
    let e = fit["estimate"].as_f64().unwrap();
    assert_eq!(
        fit["natural"]["estimate"].as_f64().unwrap(),
        meta_analysis::math::exp(e)
    );
    let raw = ok(
        "fit_random_effects",
        json!({"records": records, "transform": "none"}),
    );
    assert_eq!(
        (raw["transform"].as_str(), raw["natural"].is_null()),
        (Some("none"), true)
    );
    let e = call(
        "fit_random_effects",
        &json!({"records": records, "measure": "OR"}),
    )
    .unwrap_err();
    assert_eq!(e.code.as_str(), "invalid_arguments");
}

/// Every plot names the measure on its effect axis; the forest plot writes the natural
/// scale and labels its rows by study (a `label` column, or author and year).
#[test]
fn plots_name_the_measure_and_label_the_studies() {
    let fixtures = fixtures();
    let case = &fixtures["cases"][0];
    let mut records = records(case, &["year"], true);
    for (i, r) in records.as_array_mut().unwrap().iter_mut().enumerate() {
        if i != 1 {
            r["label"] = json!(format!("Trial {}, {}", i + 1, r["year"]));
        }
    }
    let forest = ok("forest_plot", json!({"records": records}));
    let svg = forest["svg"].as_str().unwrap();
    assert!(svg.contains(">Risk ratio (log scale)<"), "axis title");
    assert!(svg.contains(">Trial 1, 1948<"));
    assert!(
        svg.contains(">b02<"),
        "a record without a label keeps its id"
    );
    assert_eq!(forest["numbers"]["transform"], "exp");
    let shown = |x: &Value| format!("{:.2}", x.as_f64().unwrap());
    let n = &forest["fit"]["natural"];
    let pooled = format!(
        "{} [{}, {}]",
        shown(&n["estimate"]),
        shown(&n["ci_lower"]),
        shown(&n["ci_upper"])
    );
    assert!(svg.contains(&format!(">{pooled}<")), "{pooled}");
    let raw = ok(
        "forest_plot",
        json!({"records": records, "transform": "none"}),
    );
    assert!(raw["svg"]
        .as_str()
        .unwrap()
        .contains(">Log risk ratio (yi)<"));
    let cumulative = ok("cumulative_forest_plot", json!({"records": records}));
    let svg = cumulative["svg"].as_str().unwrap();
    assert!(svg.contains(">Risk ratio (log scale)<"));
    let steps = cumulative["cumulative"]["results"].as_array().unwrap();
    let n = &steps[steps.len() - 1]["natural"];
    let text = format!(
        "{} [{}, {}]",
        shown(&n["estimate"]),
        shown(&n["ci_lower"]),
        shown(&n["ci_upper"])
    );
    assert!(svg.contains(&format!(">{text}<")), "{text}");
    // The funnels read their ticks as ratios too (metafor's funnel(atransf = exp)).
    for plot in ["funnel_plot", "trim_and_fill_plot"] {
        let out = ok(plot, json!({"records": records}));
        assert!(
            out["svg"]
                .as_str()
                .unwrap()
                .contains(">Risk ratio (log scale)<"),
            "{plot}"
        );
    }
    let bubble = ok("bubble_plot", json!({"records": records, "mod": "year"}));
    assert!(bubble["svg"]
        .as_str()
        .unwrap()
        .contains(">Log risk ratio (yi)<"));
    let frozen = ok("forest_plot", json!({}));
    let svg = frozen["svg"].as_str().unwrap();
    // On a phone-wide plot a long label wraps onto further lines of its row, never cut
    // ("…"); the numbers keep it whole too.
    assert!(svg.contains(">Pellegrini &amp;</text>") && svg.contains(">Hicks, 1972</text>"));
    assert!(!svg.contains('…'));
    assert!(frozen["numbers"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["label"] == "s04 Pellegrini & Hicks, 1972"));
    assert!(svg.contains(">Standardized mean difference (yi)<"));
}
