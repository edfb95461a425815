//! Agreement with R's metafor 3.8-1 run with a tight convergence threshold
//! (fixtures: `tests/fixtures/metafor.json`, made by `tests/oracle/metafor_fixtures.R`).

use meta_analysis::{egger_test, fit, leave_one_out, EggerVariant, FitOptions, Method, Test};
use serde_json::Value;

mod oracle_kit;
use oracle_kit::{agree, records, report};

fn fixtures() -> Value {
    oracle_kit::fixture("metafor")
}

#[test]
fn every_estimator_and_test_agrees_with_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for ds in all["datasets"].as_array().unwrap() {
        let name = ds["name"].as_str().unwrap();
        let recs = records(ds);
        for f in ds["fits"].as_array().unwrap() {
            let method = Method::parse(f["method"].as_str().unwrap()).unwrap();
            let test = Test::parse(f["test"].as_str().unwrap()).unwrap();
            let level = f["level"].as_f64().unwrap();
            let ours = fit(
                &recs,
                &FitOptions {
                    method,
                    test,
                    level,
                },
            )
            .unwrap();
            let at =
                |field: &str| format!("{name} {} {} {level} {field}", method.name(), test.name());
            assert_eq!(ours.k as u64, f["k"].as_u64().unwrap());
            agree(&at("tau2"), ours.tau2, &f["tau2"], &mut failures);
            match ours.se_tau2 {
                Some(se) => agree(&at("se_tau2"), se, &f["se_tau2"], &mut failures),
                None => {
                    if !f["se_tau2"].is_null() {
                        failures.push(format!(
                            "{}: we give none, metafor {}",
                            at("se_tau2"),
                            f["se_tau2"]
                        ));
                    }
                }
            }
            agree(
                &at("estimate"),
                ours.estimate,
                &f["estimate"],
                &mut failures,
            );
            agree(&at("se"), ours.se, &f["se"], &mut failures);
            agree(&at("statistic"), ours.statistic, &f["zval"], &mut failures);
            agree(&at("p"), ours.p, &f["pval"], &mut failures);
            agree(&at("ci_lower"), ours.ci_lower, &f["ci_lb"], &mut failures);
            agree(&at("ci_upper"), ours.ci_upper, &f["ci_ub"], &mut failures);
            agree(&at("pi_lower"), ours.pi_lower, &f["pi_lb"], &mut failures);
            agree(&at("pi_upper"), ours.pi_upper, &f["pi_ub"], &mut failures);
            agree(&at("Q"), ours.q, &f["QE"], &mut failures);
            agree(&at("Q p"), ours.q_p, &f["QEp"], &mut failures);
            agree(&at("I2"), ours.i2, &f["I2"], &mut failures);
            agree(&at("H2"), ours.h2, &f["H2"], &mut failures);
            match ours.df {
                Some(df) => agree(&at("df"), df, &f["ddf"], &mut failures),
                None => assert!(f["ddf"].is_null(), "{}", at("ddf")),
            }
            checked += 1;
        }
    }
    report(failures, checked, 14 * 14);
}

#[test]
fn both_egger_variants_agree_with_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for ds in all["datasets"].as_array().unwrap() {
        let name = ds["name"].as_str().unwrap();
        let recs = records(ds);
        for (variant, key) in [
            (EggerVariant::Classic, "classic"),
            (EggerVariant::Rma, "rma"),
        ] {
            let expected = &ds["egger"][key];
            let ours = egger_test(&recs, variant);
            if expected.is_null() {
                assert!(
                    ours.is_err(),
                    "{name} {key}: metafor has no test, we gave {ours:?}"
                );
                continue;
            }
            let ours = ours.unwrap();
            let at = |field: &str| format!("{name} egger {key} {field}");
            agree(
                &at("statistic"),
                ours.statistic,
                &expected["zval"],
                &mut failures,
            );
            agree(&at("p"), ours.p, &expected["pval"], &mut failures);
            // metafor's limit estimate (the funnel line at √vi = 0) and its 95% CI.
            agree(
                &at("limit"),
                ours.line_at_se0,
                &expected["limit_est"],
                &mut failures,
            );
            agree(
                &at("limit ci.lb"),
                ours.limit_ci_lower,
                &expected["limit_ci_lb"],
                &mut failures,
            );
            agree(
                &at("limit ci.ub"),
                ours.limit_ci_upper,
                &expected["limit_ci_ub"],
                &mut failures,
            );
            match variant {
                EggerVariant::Classic => {
                    agree(
                        &at("intercept"),
                        ours.coefficient,
                        &expected["intercept"],
                        &mut failures,
                    );
                    agree(&at("se"), ours.se, &expected["intercept_se"], &mut failures);
                    agree(&at("df"), ours.df.unwrap(), &expected["dfs"], &mut failures);
                    // The standardized regression's slope b₁ is the funnel line at √vi = 0
                    // (the limit estimate); its intercept b₀ is the line's change per √vi.
                    agree(
                        &at("slope"),
                        ours.line_at_se0,
                        &expected["slope"],
                        &mut failures,
                    );
                    agree(
                        &at("intercept as line per se"),
                        ours.line_per_se,
                        &expected["intercept"],
                        &mut failures,
                    );
                }
                EggerVariant::Rma => {
                    agree(
                        &at("coefficient"),
                        ours.coefficient,
                        &expected["coef_sei"],
                        &mut failures,
                    );
                    agree(&at("se"), ours.se, &expected["se_sei"], &mut failures);
                    agree(
                        &at("line per se"),
                        ours.line_per_se,
                        &expected["coef_sei"],
                        &mut failures,
                    );
                    agree(
                        &at("tau2"),
                        ours.tau2.unwrap(),
                        &expected["tau2"],
                        &mut failures,
                    );
                }
            }
            assert_eq!(
                ours.funnel_line(),
                (ours.line_at_se0, ours.line_per_se),
                "{name} {key}: funnel_line() is (line at se 0, line per se)"
            );
            checked += 1;
        }
    }
    report(failures, checked, 20);
}

#[test]
fn leave_one_out_agrees_with_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for ds in all["datasets"].as_array().unwrap() {
        let name = ds["name"].as_str().unwrap();
        let recs = records(ds);
        for (method, key) in [(Method::Reml, "REML"), (Method::Ee, "EE")] {
            let expected = &ds["leave1out"][key];
            if expected.is_null() {
                continue;
            }
            let ours = leave_one_out(
                &recs,
                &FitOptions {
                    method,
                    ..FitOptions::default()
                },
            )
            .unwrap();
            assert_eq!(ours.len(), recs.len());
            for (i, row) in ours.iter().enumerate() {
                assert_eq!(row.id, recs[i].id);
                let at = |field: &str| format!("{name} leave1out {key} without {} {field}", row.id);
                agree(
                    &at("estimate"),
                    row.fit.estimate,
                    &expected["estimate"][i],
                    &mut failures,
                );
                agree(&at("se"), row.fit.se, &expected["se"][i], &mut failures);
                agree(
                    &at("z"),
                    row.fit.statistic,
                    &expected["zval"][i],
                    &mut failures,
                );
                agree(&at("p"), row.fit.p, &expected["pval"][i], &mut failures);
                agree(
                    &at("ci_lower"),
                    row.fit.ci_lower,
                    &expected["ci_lb"][i],
                    &mut failures,
                );
                agree(
                    &at("ci_upper"),
                    row.fit.ci_upper,
                    &expected["ci_ub"][i],
                    &mut failures,
                );
                agree(&at("Q"), row.fit.q, &expected["QE"][i], &mut failures);
                agree(&at("I2"), row.fit.i2, &expected["I2"][i], &mut failures);
                agree(&at("H2"), row.fit.h2, &expected["H2"][i], &mut failures);
                if !expected["tau2"].is_null() {
                    agree(
                        &at("tau2"),
                        row.fit.tau2,
                        &expected["tau2"][i],
                        &mut failures,
                    );
                }
                checked += 1;
            }
        }
    }
    report(failures, checked, 301);
}

/// metafor's printed output for this dataset (Viechtbauer's documentation), to the printed digits.
#[test]
fn published_metafor_numbers_for_raudenbush1985() {
    let all = fixtures();
    let recs = records(&all["datasets"][0]);
    let reml = fit(&recs, &FitOptions::default()).unwrap();
    let near = |x: f64, printed: f64, digits: i32| (x - printed).abs() <= 0.5 * 10f64.powi(-digits);
    assert!(near(reml.tau2, 0.0188, 4));
    assert!(near(reml.estimate, 0.0837, 4));
    assert!(near(reml.se, 0.0516, 4));
    assert!(near(reml.statistic, 1.6208, 4));
    assert!(near(reml.ci_lower, -0.0175, 4));
    assert!(near(reml.ci_upper, 0.1849, 4));
    assert!(near(reml.q, 35.8295, 4));
    let by = |method| {
        fit(
            &recs,
            &FitOptions {
                method,
                ..FitOptions::default()
            },
        )
        .unwrap()
        .estimate
    };
    assert!(near(by(Method::Ee), 0.0604, 4));
    assert!(near(by(Method::Ml), 0.0777, 4));
    assert!(near(by(Method::Dl), 0.0893, 4));
    assert!(near(by(Method::He), 0.1143, 4));
}
