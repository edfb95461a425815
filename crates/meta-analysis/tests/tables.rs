//! Agreement with R's metafor 3.8-1 `rma.mh()` and `rma.peto()` (closed forms, no iteration)
//! at 1e-9 relative (fixtures: `tests/fixtures/tables.json`, made by
//! `tests/oracle/tables_fixtures.R`).

use meta_analysis::{mantel_haenszel, peto_odds_ratio, FitOptions, MhMeasure, Table2x2};
use serde_json::Value;

mod oracle_kit;
use oracle_kit::{agree_option, numbers, report, TOL};

fn fixtures() -> Value {
    oracle_kit::fixture("tables")
}

fn tables(ds: &Value) -> Vec<Table2x2> {
    let (a, b, c, d) = (
        numbers(&ds["ai"]),
        numbers(&ds["bi"]),
        numbers(&ds["ci"]),
        numbers(&ds["di"]),
    );
    (0..a.len())
        .map(|i| Table2x2::new(a[i], b[i], c[i], d[i]).unwrap())
        .collect()
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
                agree_option(&at(field), Some(value), &f[key], TOL, &mut failures);
                checked += 1;
            }
            agree_option(
                &at("cmh"),
                ours.cmh.map(|t| t.statistic),
                &f["MH"],
                TOL,
                &mut failures,
            );
            agree_option(
                &at("cmh_p"),
                ours.cmh.map(|t| t.p),
                &f["MHp"],
                TOL,
                &mut failures,
            );
            agree_option(
                &at("tarone"),
                ours.tarone.map(|t| t.statistic),
                &f["TA"],
                TOL,
                &mut failures,
            );
            agree_option(
                &at("tarone_p"),
                ours.tarone.map(|t| t.p),
                &f["TAp"],
                TOL,
                &mut failures,
            );
            agree_option(
                &at("tarone_k"),
                ours.tarone_k.map(|k| k as f64),
                &f["k_pos"],
                TOL,
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
                agree_option(&at(field), Some(value), &f[key], TOL, &mut failures);
                checked += 1;
            }
        }
    }
    report(failures, checked, 301);
}
