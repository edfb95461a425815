//! The HTZ Wald test against clubSandwich's Wald_test(test = "HTZ") (fixture
//! `tests/fixtures/robust_htz.json`, made by `tests/oracle/robust_htz.R`): a meta-regression
//! and three-level fits of dat.assink2016 clustered by study, F, its df and p within 1e-8.

mod oracle_kit;

use meta_analysis::{
    robust_meta_regression, robust_multilevel, FitOptions, Method, Moderator, MultilevelOptions,
    Record, RobustVcov,
};
use serde_json::Value;

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(label: &str, ours: f64, theirs: f64, failures: &mut Vec<String>) {
    if (ours - theirs).abs() > 1e-8 * theirs.abs().max(1.0) {
        failures.push(format!("{label}: {ours} vs clubSandwich {theirs}"));
    }
}

#[test]
fn htz_agrees_with_club_sandwich() {
    let all = oracle_kit::fixture("robust_htz");
    let d = &all["assink2016"];
    let records: Vec<Record> = strings(&d["ids"])
        .iter()
        .zip(numbers(&d["yi"]).iter().zip(numbers(&d["vi"])))
        .map(|(id, (yi, vi))| Record::new(id.clone(), *yi, vi))
        .collect();
    let study = strings(&d["study"]);
    let moderator = |name: &str| match name {
        "deltype" => Moderator::factor(name, strings(&d[name])),
        _ => Moderator::numeric(name, numbers(&d[name])),
    };
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in all["cases"].as_array().unwrap() {
        let mods: Vec<Moderator> = strings(&case["mods"])
            .iter()
            .map(|m| moderator(m))
            .collect();
        let test = match case["model"].as_str().unwrap() {
            "regression" => {
                let options = FitOptions {
                    method: Method::Reml,
                    ..Default::default()
                };
                robust_meta_regression(&records, &mods, &options, &study, RobustVcov::Cr2)
            }
            _ => {
                let options = MultilevelOptions::default();
                robust_multilevel(&records, &study, &mods, &options, &study, RobustVcov::Cr2)
            }
        }
        .unwrap();
        for t in case["tests"].as_array().unwrap() {
            let label = format!("{:?} {}", strings(&case["mods"]), t["label"]);
            let constraints: Vec<Vec<f64>> = t["constraints"]
                .as_array()
                .unwrap()
                .iter()
                .map(numbers)
                .collect();
            let null = numbers(&t["null"]);
            let shifted = test
                .htz_wald(&constraints, &null)
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            close(
                &format!("{label} Q at the null values"),
                shifted.q_stat,
                t["Q_null"].as_f64().unwrap(),
                &mut failures,
            );
            let w = test
                .htz_wald(&constraints, &vec![0.0; null.len()])
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(
                shifted.df_denom, w.df_denom,
                "{label}: the df do not depend on the null"
            );
            close(
                &format!("{label} Q"),
                w.q_stat,
                t["Q"].as_f64().unwrap(),
                &mut failures,
            );
            close(
                &format!("{label} F"),
                w.f,
                t["F"].as_f64().unwrap(),
                &mut failures,
            );
            close(
                &format!("{label} delta"),
                w.delta,
                t["delta"].as_f64().unwrap(),
                &mut failures,
            );
            assert_eq!(w.df_num as u64, t["df_num"].as_u64().unwrap(), "{label}");
            close(
                &format!("{label} df"),
                w.df_denom,
                t["df_denom"].as_f64().unwrap(),
                &mut failures,
            );
            close(
                &format!("{label} p"),
                w.p,
                t["p"].as_f64().unwrap(),
                &mut failures,
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A btt selection is the test that those coefficients are zero; CR1 has no HTZ test.
#[test]
fn btt_is_the_zero_constraint_and_cr1_is_refused() {
    let all = oracle_kit::fixture("robust_htz");
    let d = &all["assink2016"];
    let records: Vec<Record> = strings(&d["ids"])
        .iter()
        .zip(numbers(&d["yi"]).iter().zip(numbers(&d["vi"])))
        .map(|(id, (yi, vi))| Record::new(id.clone(), *yi, vi))
        .collect();
    let study = strings(&d["study"]);
    let mods = [Moderator::factor("deltype", strings(&d["deltype"]))];
    let options = MultilevelOptions::default();
    let test =
        robust_multilevel(&records, &study, &mods, &options, &study, RobustVcov::Cr2).unwrap();
    let expected = &all["cases"][1]["tests"][0];
    let w = test.htz_wald_btt(&[1, 2]).unwrap();
    assert!((w.f - expected["F"].as_f64().unwrap()).abs() < 1e-8);
    let cr1 =
        robust_multilevel(&records, &study, &mods, &options, &study, RobustVcov::Cr1).unwrap();
    assert!(cr1
        .htz_wald_btt(&[1, 2])
        .unwrap_err()
        .to_string()
        .contains("CR2"));
    let e = test
        .htz_wald(&[vec![0.0, 1.0]], &[0.0])
        .unwrap_err()
        .to_string();
    assert!(e.contains("3 entries"), "{e}");
}
