//! Agreement of trim-and-fill, the rank correlation test, fail-safe N, cumulative
//! meta-analysis and the influence diagnostics with R's metafor 3.8-1 run with tight
//! controls (fixtures: `tests/fixtures/smallstudy.json`, made by
//! `tests/oracle/smallstudy_fixtures.R`). Numbers agree to 1e-9 (the influence diagnostics
//! of dat.raudenbush1985 and dat.bcg, z and Knapp–Hartung, to 1e-9 relative); k₀, the side,
//! fail-safe N and the influence flags exactly.

use meta_analysis::{
    cumulative, fail_safe_n, influence_diagnostics, influence_diagnostics_with_test,
    rank_correlation_test, trim_and_fill, Estimator, FailSafeType, FitOptions, Method, Record,
    Side, Test,
};
use serde_json::Value;

mod oracle_kit;
use oracle_kit::{records, Check};

fn fixtures() -> Value {
    oracle_kit::fixture("smallstudy")
}

fn datasets() -> Vec<Value> {
    fixtures()["datasets"].as_array().unwrap().clone()
}

#[test]
fn trim_and_fill_agrees_with_metafor() {
    let mut check = Check::default();
    for ds in datasets() {
        let name = ds["name"].as_str().unwrap();
        let recs = records(&ds);
        for t in ds["trimfill"].as_array().unwrap() {
            let method = Method::parse(t["method"].as_str().unwrap()).unwrap();
            let estimator = Estimator::parse(t["estimator"].as_str().unwrap()).unwrap();
            let side = t["side_given"].as_str().map(|s| Side::parse(s).unwrap());
            let at =
                |f: &str| format!("{name} {} {} {side:?} {f}", method.name(), estimator.name());
            let ours = trim_and_fill(&recs, estimator, side, method)
                .unwrap_or_else(|e| panic!("{}: {e}", at("")));
            check.same(at("side"), ours.side.name(), t["side"].as_str().unwrap());
            check.same(at("k0"), ours.k0 as u64, t["k0"].as_u64().unwrap());
            check.same(at("k"), ours.fit.k as u64, t["k"].as_u64().unwrap());
            match ours.se_k0 {
                Some(se) => check.num(at("se_k0"), se, &t["se_k0"]),
                None => check.same(at("se_k0 (NaN in metafor)"), true, t["se_k0"].is_null()),
            }
            check.num(at("estimate"), ours.fit.estimate, &t["estimate"]);
            check.num(at("se"), ours.fit.se, &t["se"]);
            check.num(at("z"), ours.fit.statistic, &t["zval"]);
            check.num(at("p"), ours.fit.p, &t["pval"]);
            check.num(at("ci_lower"), ours.fit.ci_lower, &t["ci_lb"]);
            check.num(at("ci_upper"), ours.fit.ci_upper, &t["ci_ub"]);
            check.num(at("tau2"), ours.fit.tau2, &t["tau2"]);
            let yi: Vec<f64> = ours.filled.iter().map(|f| f.0).collect();
            let vi: Vec<f64> = ours.filled.iter().map(|f| f.1).collect();
            check.nums(&at("filled yi"), &yi, &t["filled_yi"]);
            check.nums(&at("filled vi"), &vi, &t["filled_vi"]);
        }
    }
    // The frozen dataset fills three records on the left with L0 (REML).
    let frozen = &datasets()[0];
    let ours = trim_and_fill(&records(frozen), Estimator::L0, None, Method::Reml).unwrap();
    assert_eq!((ours.side, ours.k0), (Side::Left, 3));
    check.done(6 * 12 * 10);
}

#[test]
fn rank_correlation_test_agrees_with_metafor() {
    let mut check = Check::default();
    for ds in datasets() {
        let name = ds["name"].as_str().unwrap();
        let r = &ds["ranktest"];
        let ours = rank_correlation_test(&records(&ds)).unwrap();
        check.num(format!("{name} tau"), ours.tau, &r["tau"]);
        check.num(format!("{name} p"), ours.p, &r["pval"]);
        check.same(
            format!("{name} exact"),
            ours.exact,
            r["exact"].as_bool().unwrap(),
        );
    }
    // The frozen dataset's variances have ties: the normal approximation.
    assert_eq!(datasets()[0]["ranktest"]["ties"], true);
    check.done(18);
}

#[test]
fn fail_safe_n_agrees_with_metafor() {
    let mut check = Check::default();
    for ds in datasets() {
        let name = ds["name"].as_str().unwrap();
        let recs = records(&ds);
        for f in ds["fsn"].as_array().unwrap() {
            let kind = FailSafeType::parse(f["type"].as_str().unwrap()).unwrap();
            let alpha = f["alpha"].as_f64().unwrap();
            let target = f["target_given"].as_f64();
            let at = |x: &str| format!("{name} {} {alpha} {target:?} {x}", kind.name());
            let ours = fail_safe_n(&recs, kind, alpha, target).unwrap();
            check.same(at("fsn"), ours.fsn, f["fsnum"].as_f64().unwrap() as u64);
            match kind {
                FailSafeType::Rosenthal => {
                    check.num(at("p"), ours.observed_p.unwrap(), &f["pval"]);
                }
                FailSafeType::Orwin => {
                    check.num(at("mean"), ours.observed_effect.unwrap(), &f["meanes"]);
                    check.num(at("target"), ours.target.unwrap(), &f["target"]);
                }
                FailSafeType::Rosenberg => {
                    check.num(at("p"), ours.observed_p.unwrap(), &f["pval"]);
                    check.num(at("mean"), ours.observed_effect.unwrap(), &f["meanes"]);
                }
            }
        }
    }
    check.done(6 * 6 * 2);
}

#[test]
fn cumulative_meta_analysis_agrees_with_metafor() {
    let mut check = Check::default();
    for ds in datasets() {
        let name = ds["name"].as_str().unwrap();
        let recs = records(&ds);
        let years: Vec<f64> = ds["year"]
            .as_array()
            .unwrap()
            .iter()
            .map(|y| y.as_f64().unwrap())
            .collect();
        for c in ds["cumul"].as_array().unwrap() {
            let descending = c["descending"].as_bool().unwrap();
            // Stable order by year: ties keep record order, in either direction.
            let mut order: Vec<usize> = (0..recs.len()).collect();
            order.sort_by(|&a, &b| {
                let o = years[a].total_cmp(&years[b]);
                if descending {
                    o.reverse()
                } else {
                    o
                }
            });
            let ordered: Vec<Record> = order.iter().map(|&i| recs[i].clone()).collect();
            let ids: Vec<&str> = ordered.iter().map(|r| r.id.as_str()).collect();
            let theirs: Vec<&str> = c["order"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            check.same(format!("{name} order"), ids, theirs);
            let options = FitOptions {
                method: Method::parse(c["method"].as_str().unwrap()).unwrap(),
                test: Test::parse(c["test"].as_str().unwrap()).unwrap(),
                level: c["level"].as_f64().unwrap(),
            };
            let at = |f: &str| {
                format!(
                    "{name} {} {} {} {descending} {f}",
                    options.method.name(),
                    options.test.name(),
                    options.level
                )
            };
            let steps = cumulative(&ordered, &options).unwrap();
            let pick = |f: fn(&meta_analysis::CumulativeStep) -> f64| -> Vec<f64> {
                steps.iter().map(f).collect()
            };
            check.nums(&at("estimate"), &pick(|s| s.estimate), &c["estimate"]);
            check.nums(&at("se"), &pick(|s| s.se), &c["se"]);
            check.nums(&at("statistic"), &pick(|s| s.statistic), &c["statistic"]);
            check.nums(&at("p"), &pick(|s| s.p), &c["pval"]);
            check.nums(&at("ci_lower"), &pick(|s| s.ci_lower), &c["ci_lb"]);
            check.nums(&at("ci_upper"), &pick(|s| s.ci_upper), &c["ci_ub"]);
            check.nums(&at("tau2"), &pick(|s| s.tau2), &c["tau2"]);
            check.nums(&at("i2"), &pick(|s| s.i2), &c["I2"]);
            check.nums(&at("q"), &pick(|s| s.q), &c["Q"]);
        }
    }
    check.done(6 * 7 * 9 * 3);
}

/// Every number of `influence()` with the z test and with Knapp–Hartung, for every
/// estimator, on the datasets above and dat.bcg's log risk ratios: on dat.raudenbush1985 and
/// dat.bcg to 1e-9 relative; on the generated datasets to 1e-9 · max(1, |metafor|), as the
/// other analyses (the symmetric set's centre record moves μ̂ ≈ 0.3 by about 3e-8, so its
/// dffits, cook_d and dfbetas are a difference of two estimates that neither program
/// resolves to 1e-9 relative).
#[test]
fn influence_diagnostics_agree_with_metafor() {
    let mut check = Check::default();
    let extra = fixtures()["influence_datasets"].as_array().unwrap().clone();
    let mut knha = 0;
    for ds in datasets().into_iter().chain(extra) {
        let name = ds["name"].as_str().unwrap();
        let recs = records(&ds);
        for f in ds["influence"].as_array().unwrap() {
            let method = Method::parse(f["method"].as_str().unwrap()).unwrap();
            let test = Test::parse(f["test"].as_str().unwrap()).unwrap();
            knha += usize::from(test == Test::Knha);
            let at = |x: &str| format!("{name} {} {} {x}", method.name(), test.name());
            let rows = influence_diagnostics_with_test(&recs, method, test).unwrap();
            let relative = matches!(name, "raudenbush1985" | "bcg_log_rr");
            if test == Test::Z {
                assert_eq!(rows, influence_diagnostics(&recs, method).unwrap());
            }
            let pick = |g: fn(&meta_analysis::Influence) -> f64| -> Vec<f64> {
                rows.iter().map(g).collect()
            };
            let compare = |check: &mut Check, what: &str, ours: &[f64], theirs: &Value| {
                if relative {
                    check.rels(what, ours, theirs)
                } else {
                    check.nums(what, ours, theirs)
                }
            };
            compare(
                &mut check,
                &at("rstudent"),
                &pick(|r| r.rstudent),
                &f["rstudent"],
            );
            compare(&mut check, &at("dffits"), &pick(|r| r.dffits), &f["dffits"]);
            compare(&mut check, &at("cook_d"), &pick(|r| r.cook_d), &f["cook_d"]);
            compare(&mut check, &at("cov_r"), &pick(|r| r.cov_r), &f["cov_r"]);
            compare(
                &mut check,
                &at("tau2_del"),
                &pick(|r| r.tau2_del),
                &f["tau2_del"],
            );
            compare(&mut check, &at("qe_del"), &pick(|r| r.qe_del), &f["QE_del"]);
            compare(&mut check, &at("hat"), &pick(|r| r.hat), &f["hat"]);
            compare(&mut check, &at("weight"), &pick(|r| r.weight), &f["weight"]);
            compare(
                &mut check,
                &at("dfbetas"),
                &pick(|r| r.dfbetas),
                &f["dfbetas"],
            );
            let flags: Vec<bool> = rows.iter().map(|r| r.influential).collect();
            let theirs: Vec<bool> = f["influential"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_bool().unwrap())
                .collect();
            check.same(at("influential"), flags, theirs);
        }
    }
    // Seven datasets, five estimators, both tests.
    assert_eq!(knha, 7 * 5);
    check.done(7 * 5 * 2 * 10);
}
