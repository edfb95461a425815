//! `fit_multilevel` with `struct: "CAR"` (and "GEN", below) through the registry, on the engine's CAR oracle
//! fixture (`crates/meta-analysis/tests/fixtures/rma_mv_car.json`, metafor 3.8-1 on
//! dat.curtis1998's `~ time | paper` and dat.konstantopoulos2011's `~ year | district`,
//! each read here as `~ time | paper`): the tool's coefficient, SE, QE and log-likelihood
//! are metafor's with τ² and ρ fixed at the engine's estimates, within 1e-10.

use exemplar::tools::call;
use serde_json::{json, Value};

fn fixture_named(name: &str) -> Value {
    let path = format!(
        "{}/../meta-analysis/tests/fixtures/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The case's records: yi, vi, time (a number) and paper.
fn records(c: &Value) -> Vec<Value> {
    let term = &c["terms"][0];
    (0..c["yi"].as_array().unwrap().len())
        .map(|i| {
            let time: f64 = term["inner"][i].as_str().unwrap().parse().unwrap();
            json!({"id": format!("r{}", i + 1), "yi": c["yi"][i], "vi": c["vi"][i],
                   "time": time, "paper": term["outer"][i], "arm": if i % 2 == 0 { "a" } else { "b" }})
        })
        .collect()
}

fn close(what: &str, ours: f64, theirs: f64) {
    assert!(
        (ours - theirs).abs() <= 1e-10 * theirs.abs().max(1.0),
        "{what}: {ours} vs metafor {theirs}"
    );
}

#[test]
fn car_through_the_tool_agrees_with_metafor() {
    let all = fixture_named("rma_mv_car");
    for c in all["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let r = call(
            "fit_multilevel",
            &json!({"records": records(c), "random": "~ time | paper", "struct": "CAR",
                    "method": c["method"]}),
        )
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let at = &c["at_ours"];
        let coef = &r["coefficients"][0];
        close(
            name,
            coef["estimate"].as_f64().unwrap(),
            at["beta"][0].as_f64().unwrap(),
        );
        close(
            name,
            coef["se"].as_f64().unwrap(),
            at["se"][0].as_f64().unwrap(),
        );
        close(name, r["qe"].as_f64().unwrap(), at["QE"].as_f64().unwrap());
        close(
            name,
            r["loglik"].as_f64().unwrap(),
            at["loglik"].as_f64().unwrap(),
        );
        let levels = c["terms"][0]["inner"].as_array().unwrap();
        let mut distinct: Vec<&str> = levels.iter().map(|l| l.as_str().unwrap()).collect();
        distinct.sort();
        distinct.dedup();
        let j = distinct.len();
        assert_eq!(r["structure"][0], format!("~ time | paper, CAR: {j} x {j}"));
    }
}

/// CAR reads the inner variable as times: labels that are not numbers are refused.
#[test]
fn car_refuses_an_inner_variable_that_is_not_numeric() {
    let all = fixture_named("rma_mv_car");
    let c = &all["cases"][0];
    let e = call(
        "fit_multilevel",
        &json!({"records": records(c), "random": "~ arm | paper", "struct": "CAR"}),
    )
    .unwrap_err();
    assert!(format!("{e:?}").contains("must be a number"), "{e:?}");
}

/// GEN (random intercepts and slopes) on the engine's GEN fixture (`rma_mv_gen.json`:
/// dat.ishak2007's `~ time | study` with mods ~ time, dat.konstantopoulos2011's
/// `~ yc | district`; the correlation at its bound 1, named), as metafor with every
/// component fixed at the engine's estimates, within 1e-10.
#[test]
fn gen_through_the_tool_agrees_with_metafor() {
    let all = fixture_named("rma_mv_gen");
    for c in all["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let mut args = json!({"records": records(c), "random": "~ time | paper", "struct": "GEN"});
        if c["p"] == 2 {
            args["mods"] = json!("~ time");
        }
        let r = call("fit_multilevel", &args).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let at = &c["at_ours"];
        for (i, coef) in r["coefficients"].as_array().unwrap().iter().enumerate() {
            close(
                name,
                coef["estimate"].as_f64().unwrap(),
                at["beta"][i].as_f64().unwrap(),
            );
            close(
                name,
                coef["se"].as_f64().unwrap(),
                at["se"][i].as_f64().unwrap(),
            );
        }
        close(name, r["qe"].as_f64().unwrap(), at["QE"].as_f64().unwrap());
        close(
            name,
            r["loglik"].as_f64().unwrap(),
            at["loglik"].as_f64().unwrap(),
        );
        assert_eq!(r["structure"][0], "~ time | paper, GEN: 2 x 2", "{name}");
        assert_eq!(r["boundary"], json!(["rho = 1"]), "{name}");
    }
}
