//! Meta-regression, subgroup analysis and Q-profile intervals against R's metafor 3.8-1
//! run with tight controls (fixtures: `tests/fixtures/metareg.json`, made by
//! `tests/oracle/metafor_metareg.R`).

use meta_analysis::{
    heterogeneity_intervals, meta_regression, subgroup_analysis, BoundKind, FitOptions, Method,
    Moderator, ModeratorValue, Test,
};
use serde_json::Value;

mod oracle_kit;
use oracle_kit::{agree, dataset, moderator, records, report};

fn fixtures() -> Value {
    oracle_kit::fixture("metareg")
}

fn options(row: &Value) -> FitOptions {
    FitOptions {
        method: Method::parse(row["method"].as_str().unwrap()).unwrap(),
        test: Test::parse(row["test"].as_str().unwrap_or("z")).unwrap(),
        level: row["level"].as_f64().unwrap(),
    }
}

#[test]
fn every_meta_regression_agrees_with_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in all["models"].as_array().unwrap() {
        let ds = dataset(&all, row["data"].as_str().unwrap());
        let mods: Vec<&str> = row["mods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let moderators: Vec<Moderator> = mods.iter().map(|m| moderator(ds, m)).collect();
        let o = options(row);
        let at = |field: &str| {
            format!(
                "{} ~ {} {} {} {} {field}",
                row["data"].as_str().unwrap(),
                mods.join(" + "),
                o.method.name(),
                o.test.name(),
                o.level
            )
        };
        let ours = meta_regression(&records(ds), &moderators, &o)
            .unwrap_or_else(|e| panic!("{}: {e}", at("")));
        assert_eq!(ours.k as u64, row["k"].as_u64().unwrap());
        assert_eq!(ours.p as u64, row["p"].as_u64().unwrap());
        agree(&at("tau2"), ours.tau2, &row["tau2"], &mut failures);
        match ours.se_tau2 {
            Some(se) => agree(&at("se_tau2"), se, &row["se_tau2"], &mut failures),
            None => assert!(row["se_tau2"].is_null(), "{}", at("se_tau2")),
        }
        for (j, c) in ours.coefficients.iter().enumerate() {
            assert_eq!(c.name, row["names"][j].as_str().unwrap());
            let f = |name: &str| at(&format!("{} {name}", c.name));
            agree(&f("estimate"), c.estimate, &row["beta"][j], &mut failures);
            agree(&f("se"), c.se, &row["se"][j], &mut failures);
            agree(&f("statistic"), c.statistic, &row["zval"][j], &mut failures);
            agree(&f("p"), c.p, &row["pval"][j], &mut failures);
            agree(&f("ci_lower"), c.ci_lower, &row["ci_lb"][j], &mut failures);
            agree(&f("ci_upper"), c.ci_upper, &row["ci_ub"][j], &mut failures);
        }
        match ours.df {
            Some(df) => agree(&at("df"), df, &row["ddf"], &mut failures),
            None => assert!(row["ddf"].is_null()),
        }
        agree(&at("QM"), ours.qm, &row["QM"], &mut failures);
        agree(&at("QM p"), ours.qm_p, &row["QMp"], &mut failures);
        assert_eq!(ours.qm_df as f64, row["QMdf"][0].as_f64().unwrap());
        assert_eq!(ours.qm_df2.map(|d| d as f64), row["QMdf"][1].as_f64());
        agree(&at("QE"), ours.qe, &row["QE"], &mut failures);
        agree(&at("QE p"), ours.qe_p, &row["QEp"], &mut failures);
        agree(&at("I2"), ours.i2, &row["I2"], &mut failures);
        agree(&at("H2"), ours.h2, &row["H2"], &mut failures);
        agree(&at("R2"), ours.r2, &row["R2"], &mut failures);
        for prediction in row["predictions"].as_array().unwrap() {
            let values: Vec<ModeratorValue> = mods
                .iter()
                .map(|m| match &prediction["at"][m] {
                    Value::String(level) => ModeratorValue::Level(level.clone()),
                    number => ModeratorValue::Number(number.as_f64().unwrap()),
                })
                .collect();
            let p = ours.predict(&values).unwrap();
            let f = |name: &str| at(&format!("prediction at {} {name}", prediction["at"]));
            agree(
                &f("estimate"),
                p.estimate,
                &prediction["pred"],
                &mut failures,
            );
            agree(&f("se"), p.se, &prediction["se"], &mut failures);
            agree(
                &f("ci_lower"),
                p.ci_lower,
                &prediction["ci_lb"],
                &mut failures,
            );
            agree(
                &f("ci_upper"),
                p.ci_upper,
                &prediction["ci_ub"],
                &mut failures,
            );
            agree(
                &f("pi_lower"),
                p.pi_lower,
                &prediction["pi_lb"],
                &mut failures,
            );
            agree(
                &f("pi_upper"),
                p.pi_upper,
                &prediction["pi_ub"],
                &mut failures,
            );
        }
        checked += 1;
    }
    report(failures, checked, 8 * 14 + 2);
}

/// Raudenbush (1984)'s moderator capped at 3 weeks, as the published analysis: slope
/// −0.1572 (se 0.0358), QE(17) = 16.5708, QM(1) = 19.2587, τ² at its boundary 0, R² 100%.
#[test]
fn the_capped_weeks_model_gives_the_published_numbers() {
    let all = fixtures();
    let ds = dataset(&all, "raudenbush1985");
    let m = meta_regression(
        &records(ds),
        &[moderator(ds, "weeks_capped")],
        &FitOptions::default(),
    )
    .unwrap();
    let slope = &m.coefficients[1];
    assert_eq!(
        format!("{:.4} {:.4}", slope.estimate, slope.se),
        "-0.1572 0.0358"
    );
    assert_eq!((format!("{:.4}", m.qe), m.qe_df), ("16.5708".into(), 17));
    assert_eq!((format!("{:.4}", m.qm), m.qm_df), ("19.2587".into(), 1));
    assert_eq!((m.tau2, m.r2), (0.0, 100.0));
}

#[test]
fn every_subgroup_analysis_agrees_with_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in all["subgroups"].as_array().unwrap() {
        let ds = dataset(&all, row["data"].as_str().unwrap());
        let by = row["by"].as_str().unwrap();
        let values: Vec<String> = ds["columns"][by]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let o = options(row);
        let at = |field: &str| {
            format!(
                "{} by {by} {} {} {field}",
                row["data"].as_str().unwrap(),
                o.method.name(),
                o.test.name()
            )
        };
        let ours = subgroup_analysis(&records(ds), by, &values, &o).unwrap();
        let groups = row["groups"].as_array().unwrap();
        assert_eq!(ours.groups.len(), groups.len());
        for (g, theirs) in ours.groups.iter().zip(groups) {
            assert_eq!(g.level, theirs["level"].as_str().unwrap());
            assert_eq!(g.fit.k as u64, theirs["k"].as_u64().unwrap());
            assert_eq!(g.fit.test.name(), theirs["test"].as_str().unwrap());
            assert_eq!(g.single_record, g.fit.k == 1);
            let f = |name: &str| at(&format!("{} {name}", g.level));
            agree(
                &f("estimate"),
                g.fit.estimate,
                &theirs["estimate"],
                &mut failures,
            );
            agree(&f("se"), g.fit.se, &theirs["se"], &mut failures);
            agree(
                &f("statistic"),
                g.fit.statistic,
                &theirs["zval"],
                &mut failures,
            );
            agree(&f("p"), g.fit.p, &theirs["pval"], &mut failures);
            agree(
                &f("ci_lower"),
                g.fit.ci_lower,
                &theirs["ci_lb"],
                &mut failures,
            );
            agree(
                &f("ci_upper"),
                g.fit.ci_upper,
                &theirs["ci_ub"],
                &mut failures,
            );
            agree(&f("tau2"), g.fit.tau2, &theirs["tau2"], &mut failures);
            agree(&f("Q"), g.fit.q, &theirs["QE"], &mut failures);
            agree(&f("I2"), g.fit.i2, &theirs["I2"], &mut failures);
        }
        agree(
            &at("Q between"),
            ours.q_between,
            &row["Q_between"],
            &mut failures,
        );
        agree(
            &at("Q between p"),
            ours.q_between_p,
            &row["Q_between_p"],
            &mut failures,
        );
        assert_eq!(
            ours.q_between_df as u64,
            row["Q_between_df"].as_u64().unwrap()
        );
        agree(
            &at("QM common"),
            ours.common_tau2.qm,
            &row["QM_common"],
            &mut failures,
        );
        agree(
            &at("QM common p"),
            ours.common_tau2.qm_p,
            &row["QMp_common"],
            &mut failures,
        );
        checked += 1;
    }
    report(failures, checked, 4 * 14);
}

#[test]
fn every_q_profile_interval_agrees_with_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in all["intervals"].as_array().unwrap() {
        let ds = dataset(&all, row["data"].as_str().unwrap());
        let o = options(row);
        let at = |field: &str| {
            format!(
                "{} {} {} {field}",
                row["data"].as_str().unwrap(),
                o.method.name(),
                o.level
            )
        };
        let h = heterogeneity_intervals(&records(ds), &o).unwrap();
        agree(&at("tau2"), h.tau2.estimate, &row["tau2"], &mut failures);
        agree(&at("Q"), h.fit.q, &row["Q"], &mut failures);
        agree(&at("I2"), h.i2.estimate, &row["I2"], &mut failures);
        agree(&at("H2"), h.h2.estimate, &row["H2"], &mut failures);
        for (name, interval, key) in [
            ("tau2", h.tau2, "tau2_ci"),
            ("tau", h.tau, "tau_ci"),
            ("I2", h.i2, "I2_ci"),
            ("H2", h.h2, "H2_ci"),
        ] {
            agree(
                &at(&format!("{name} lower")),
                interval.lower,
                &row[key][0],
                &mut failures,
            );
            agree(
                &at(&format!("{name} upper")),
                interval.upper,
                &row[key][1],
                &mut failures,
            );
        }
        // metafor's "<" marks a bound at the bottom of its search range (0 here).
        assert_eq!(h.empty, row["ci_null"].as_bool().unwrap(), "{}", at("null"));
        let at_zero = h.lower.kind == BoundKind::Zero;
        assert_eq!(at_zero, h.tau2.lower == 0.0, "{}", at("lower kind"));
        assert_eq!(h.upper.kind == BoundKind::Zero, row["ub_sign"] == "<");
        checked += 1;
    }
    report(failures, checked, 5 * 6 * 2);
}
