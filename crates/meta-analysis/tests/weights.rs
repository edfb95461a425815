//! Fits with user weights against R's metafor 3.8-1, `rma(yi, vi, weights = w, …)` with and
//! without moderators, run with tight controls (fixtures: `tests/fixtures/weights.json`, made
//! by `tests/oracle/metafor_weights.R`): dat.bcg's log risk ratios and dat.raudenbush1985,
//! each with weights n (the total sample size) and 1/vi², every estimator, z and Knapp–Hartung.

use meta_analysis::{
    fit, fit_weighted, meta_regression, meta_regression_weighted, FitOptions, Method, Moderator,
    ModeratorValue, Test,
};
use serde_json::Value;

mod oracle_kit;
use oracle_kit::{
    agree_bounds, agree_relative, assert_agreement, dataset, moderator, numbers, records,
};

fn fixtures() -> Value {
    oracle_kit::fixture("weights")
}

fn options(row: &Value) -> FitOptions {
    FitOptions {
        method: Method::parse(row["method"].as_str().unwrap()).unwrap(),
        test: Test::parse(row["test"].as_str().unwrap()).unwrap(),
        level: row["level"].as_f64().unwrap(),
    }
}

struct Row<'a> {
    row: &'a Value,
    ds: &'a Value,
    mods: Vec<&'a str>,
    weights: Vec<f64>,
    options: FitOptions,
}

impl<'a> Row<'a> {
    fn of(all: &'a Value, row: &'a Value) -> Self {
        let ds = dataset(all, row["data"].as_str().unwrap());
        Row {
            row,
            ds,
            mods: row["mods"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect(),
            weights: numbers(&ds["weights"][row["weights"].as_str().unwrap()]),
            options: options(row),
        }
    }

    fn name(&self, field: &str) -> String {
        format!(
            "{} ~ {} weights {} {} {} {field}",
            self.row["data"].as_str().unwrap(),
            if self.mods.is_empty() {
                "1".to_string()
            } else {
                self.mods.join(" + ")
            },
            self.row["weights"].as_str().unwrap(),
            self.options.method.name(),
            self.options.test.name(),
        )
    }
}

fn rows(all: &Value) -> impl Iterator<Item = Row<'_>> {
    all["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(move |row| Row::of(all, row))
}

#[test]
fn every_weighted_fit_agrees_with_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for r in rows(&all).filter(|r| r.mods.is_empty()) {
        let (row, at) = (r.row, |f: &str| r.name(f));
        let ours = fit_weighted(&records(r.ds), Some(&r.weights), &r.options)
            .unwrap_or_else(|e| panic!("{}: {e}", at("")));
        assert_eq!(ours.k as u64, row["k"].as_u64().unwrap());
        agree_relative(&at("tau2"), ours.tau2, &row["tau2"], &mut failures);
        match ours.se_tau2 {
            Some(se) => agree_relative(&at("se_tau2"), se, &row["se_tau2"], &mut failures),
            None => assert!(row["se_tau2"].is_null(), "{}", at("se_tau2")),
        }
        agree_relative(
            &at("estimate"),
            ours.estimate,
            &row["beta"][0],
            &mut failures,
        );
        agree_relative(&at("se"), ours.se, &row["se"][0], &mut failures);
        agree_relative(
            &at("statistic"),
            ours.statistic,
            &row["zval"][0],
            &mut failures,
        );
        agree_relative(&at("p"), ours.p, &row["pval"][0], &mut failures);
        let (e, ci) = (ours.estimate, (ours.ci_lower, ours.ci_upper));
        agree_bounds(
            &at("ci"),
            ci,
            e,
            (&row["ci_lb"][0], &row["ci_ub"][0]),
            &mut failures,
        );
        match ours.df {
            Some(df) => agree_relative(&at("df"), df, &row["ddf"], &mut failures),
            None => assert!(row["ddf"].is_null(), "{}", at("df")),
        }
        agree_relative(&at("Q"), ours.q, &row["QE"], &mut failures);
        agree_relative(&at("Q p"), ours.q_p, &row["QEp"], &mut failures);
        agree_relative(&at("I2"), ours.i2, &row["I2"], &mut failures);
        agree_relative(&at("H2"), ours.h2, &row["H2"], &mut failures);
        let pi = (ours.pi_lower, ours.pi_upper);
        agree_bounds(
            &at("pi"),
            pi,
            e,
            (&row["pi_lb"], &row["pi_ub"]),
            &mut failures,
        );
        checked += 1;
    }
    assert_eq!(checked, 2 * 2 * 7 * 2, "fits checked");
    assert_agreement(failures);
}

#[test]
fn every_weighted_meta_regression_agrees_with_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for r in rows(&all).filter(|r| !r.mods.is_empty()) {
        let (row, at) = (r.row, |f: &str| r.name(f));
        let moderators: Vec<Moderator> = r.mods.iter().map(|m| moderator(r.ds, m)).collect();
        let ours =
            meta_regression_weighted(&records(r.ds), &moderators, Some(&r.weights), &r.options)
                .unwrap_or_else(|e| panic!("{}: {e}", at("")));
        assert_eq!(ours.k as u64, row["k"].as_u64().unwrap());
        assert_eq!(ours.p as u64, row["p"].as_u64().unwrap());
        agree_relative(&at("tau2"), ours.tau2, &row["tau2"], &mut failures);
        match ours.se_tau2 {
            Some(se) => agree_relative(&at("se_tau2"), se, &row["se_tau2"], &mut failures),
            None => assert!(row["se_tau2"].is_null(), "{}", at("se_tau2")),
        }
        for (j, c) in ours.coefficients.iter().enumerate() {
            assert_eq!(c.name, row["names"][j].as_str().unwrap());
            let f = |name: &str| at(&format!("{} {name}", c.name));
            agree_relative(&f("estimate"), c.estimate, &row["beta"][j], &mut failures);
            agree_relative(&f("se"), c.se, &row["se"][j], &mut failures);
            agree_relative(&f("statistic"), c.statistic, &row["zval"][j], &mut failures);
            agree_relative(&f("p"), c.p, &row["pval"][j], &mut failures);
            let ci = (c.ci_lower, c.ci_upper);
            let theirs = (&row["ci_lb"][j], &row["ci_ub"][j]);
            agree_bounds(&f("ci"), ci, c.estimate, theirs, &mut failures);
        }
        match ours.df {
            Some(df) => agree_relative(&at("df"), df, &row["ddf"], &mut failures),
            None => assert!(row["ddf"].is_null(), "{}", at("df")),
        }
        agree_relative(&at("QM"), ours.qm, &row["QM"], &mut failures);
        agree_relative(&at("QM p"), ours.qm_p, &row["QMp"], &mut failures);
        assert_eq!(ours.qm_df as f64, row["QMdf"][0].as_f64().unwrap());
        assert_eq!(ours.qm_df2.map(|d| d as f64), row["QMdf"][1].as_f64());
        agree_relative(&at("QE"), ours.qe, &row["QE"], &mut failures);
        agree_relative(&at("QE p"), ours.qe_p, &row["QEp"], &mut failures);
        agree_relative(&at("I2"), ours.i2, &row["I2"], &mut failures);
        agree_relative(&at("H2"), ours.h2, &row["H2"], &mut failures);
        agree_relative(&at("R2"), ours.r2, &row["R2"], &mut failures);
        for prediction in row["predictions"].as_array().unwrap() {
            let values: Vec<ModeratorValue> = r
                .mods
                .iter()
                .map(|m| match &prediction["at"][m] {
                    Value::String(level) => ModeratorValue::Level(level.clone()),
                    number => ModeratorValue::Number(number.as_f64().unwrap()),
                })
                .collect();
            let p = ours.predict(&values).unwrap();
            let f = |name: &str| at(&format!("prediction at {} {name}", prediction["at"]));
            agree_relative(
                &f("estimate"),
                p.estimate,
                &prediction["pred"],
                &mut failures,
            );
            agree_relative(&f("se"), p.se, &prediction["se"], &mut failures);
            let theirs = (&prediction["ci_lb"], &prediction["ci_ub"]);
            agree_bounds(
                &f("ci"),
                (p.ci_lower, p.ci_upper),
                p.estimate,
                theirs,
                &mut failures,
            );
            let theirs = (&prediction["pi_lb"], &prediction["pi_ub"]);
            agree_bounds(
                &f("pi"),
                (p.pi_lower, p.pi_upper),
                p.estimate,
                theirs,
                &mut failures,
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 5 * 2 * 7 * 2, "meta-regressions checked");
    assert_agreement(failures);
}

/// The weights change the fixed effects only: τ², Q, I² and H² (and the pseudo-R² of a τ²
/// estimator) are those of the fit without weights, and the pooled estimate is not.
#[test]
fn the_weights_leave_the_heterogeneity_as_it_was() {
    let all = fixtures();
    for r in rows(&all) {
        let recs = records(r.ds);
        if r.mods.is_empty() {
            let weighted = fit_weighted(&recs, Some(&r.weights), &r.options).unwrap();
            let plain = fit(&recs, &r.options).unwrap();
            assert_eq!(
                (weighted.tau2, weighted.q, weighted.i2, weighted.h2),
                (plain.tau2, plain.q, plain.i2, plain.h2),
                "{}",
                r.name("")
            );
            assert_ne!(weighted.estimate, plain.estimate, "{}", r.name(""));
        } else {
            let moderators: Vec<Moderator> = r.mods.iter().map(|m| moderator(r.ds, m)).collect();
            let weighted =
                meta_regression_weighted(&recs, &moderators, Some(&r.weights), &r.options).unwrap();
            let plain = meta_regression(&recs, &moderators, &r.options).unwrap();
            assert_eq!(
                (weighted.tau2, weighted.qe, weighted.i2, weighted.h2),
                (plain.tau2, plain.qe, plain.i2, plain.h2),
                "{}",
                r.name("")
            );
            if r.options.method != Method::Ee {
                assert_eq!(weighted.r2, plain.r2, "{}", r.name(""));
            }
        }
    }
}
