//! Agreement with R's metafor 3.8-1 `rma.mh()` and `rma.peto()` (closed forms, no iteration)
//! at 1e-9 relative (fixtures: `tests/fixtures/tables.json`, made by
//! `tests/oracle/tables_fixtures.R`).

use meta_analysis::{mantel_haenszel, peto_odds_ratio, FitOptions, MhMeasure, Table2x2};
use serde_json::Value;

const TOL: f64 = 1e-9;

fn fixtures() -> Value {
    serde_json::from_str(include_str!("fixtures/tables.json")).expect("fixture JSON")
}

fn column(ds: &Value, name: &str) -> Vec<f64> {
    ds[name]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

fn tables(ds: &Value) -> Vec<Table2x2> {
    let (a, b, c, d) = (
        column(ds, "ai"),
        column(ds, "bi"),
        column(ds, "ci"),
        column(ds, "di"),
    );
    (0..a.len())
        .map(|i| Table2x2::new(a[i], b[i], c[i], d[i]).unwrap())
        .collect()
}

/// |ours − metafor| ≤ 1e-9 · max(1, |metafor|); metafor's NA must be our None.
fn agree(what: &str, ours: Option<f64>, theirs: &Value, failures: &mut Vec<String>) {
    match (ours, theirs.as_f64()) {
        (None, None) => {}
        (Some(o), Some(t)) => {
            let err = (o - t).abs();
            if err.is_nan() || err > TOL * t.abs().max(1.0) {
                failures.push(format!("{what}: ours {o:.17e}, metafor {t:.17e}"));
            }
        }
        (o, _) => failures.push(format!("{what}: ours {o:?}, metafor {theirs}")),
    }
}

#[test]
fn mantel_haenszel_and_peto_agree_with_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for ds in all["datasets"].as_array().unwrap() {
        let name = ds["name"].as_str().unwrap();
        let tables = tables(ds);
        for f in ds["mh"].as_array().unwrap() {
            let measure = MhMeasure::parse(f["measure"].as_str().unwrap()).unwrap();
            let level = f["level"].as_f64().unwrap();
            let options = FitOptions {
                level,
                ..FitOptions::default()
            };
            let at = |field: &str| format!("{name} MH {} {level} {field}", measure.name());
            let ours = mantel_haenszel(&tables, measure, &options).unwrap();
            assert_eq!(ours.k as u64, f["k"].as_u64().unwrap(), "{}", at("k"));
            assert_eq!(
                ours.heterogeneity.k as u64,
                f["k_yi"].as_u64().unwrap(),
                "{}",
                at("k_yi")
            );
            let p = &ours.pooled;
            let h = &ours.heterogeneity;
            for (field, value, key) in [
                ("estimate", p.estimate, "estimate"),
                ("se", p.se, "se"),
                ("z", p.statistic, "zval"),
                ("p", p.p, "pval"),
                ("ci_lower", p.ci_lower, "ci_lb"),
                ("ci_upper", p.ci_upper, "ci_ub"),
                ("q", h.q, "QE"),
                ("q_p", h.q_p, "QEp"),
                ("i2", h.i2, "I2"),
                ("h2", h.h2, "H2"),
            ] {
                agree(&at(field), Some(value), &f[key], &mut failures);
                checked += 1;
            }
            agree(
                &at("cmh"),
                ours.cmh.map(|t| t.statistic),
                &f["MH"],
                &mut failures,
            );
            agree(
                &at("cmh_p"),
                ours.cmh.map(|t| t.p),
                &f["MHp"],
                &mut failures,
            );
            agree(
                &at("tarone"),
                ours.tarone.map(|t| t.statistic),
                &f["TA"],
                &mut failures,
            );
            agree(
                &at("tarone_p"),
                ours.tarone.map(|t| t.p),
                &f["TAp"],
                &mut failures,
            );
            agree(
                &at("tarone_k"),
                ours.tarone_k.map(|k| k as f64),
                &f["k_pos"],
                &mut failures,
            );
            checked += 5;
        }
        for f in ds["peto"].as_array().unwrap() {
            let level = f["level"].as_f64().unwrap();
            let options = FitOptions {
                level,
                ..FitOptions::default()
            };
            let at = |field: &str| format!("{name} Peto {level} {field}");
            let ours = peto_odds_ratio(&tables, &options).unwrap();
            assert_eq!(ours.heterogeneity.k as u64, f["k_yi"].as_u64().unwrap());
            assert_eq!(ours.k_informative as u64, f["k_pos"].as_u64().unwrap());
            let p = &ours.pooled;
            let h = &ours.heterogeneity;
            for (field, value, key) in [
                ("estimate", p.estimate, "estimate"),
                ("se", p.se, "se"),
                ("z", p.statistic, "zval"),
                ("p", p.p, "pval"),
                ("ci_lower", p.ci_lower, "ci_lb"),
                ("ci_upper", p.ci_upper, "ci_ub"),
                ("q", h.q, "QE"),
                ("q_p", h.q_p, "QEp"),
                ("i2", h.i2, "I2"),
                ("h2", h.h2, "H2"),
            ] {
                agree(&at(field), Some(value), &f[key], &mut failures);
                checked += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 300, "only {checked} numbers checked");
}
