//! The three-level model against metafor's rma.mv, and cluster-robust tests against
//! clubSandwich (CR2, Satterthwaite) and metafor's robust() (CR1), at 1e-9 relative
//! (fixtures: `tests/fixtures/multilevel.json`, made by `tests/oracle/metafor_multilevel.R`).
//!
//! metafor's optimizer stops ~1e-7 short of the optimum even at its tightest control, so
//! the fixture's σ² are the exact optimum (Newton on a dense R implementation of the score,
//! started from metafor's estimate); every other number is metafor's with σ² fixed there.
//! The test also checks that metafor's own free estimate lies within 1e-5 of the optimum,
//! and that metafor's confint() agrees with the exact profile bounds to 1e-5
//! (`METAFOR_OPTIMIZER_TOL`).

use meta_analysis::{
    multilevel, robust_fit, robust_meta_regression, robust_multilevel, BoundKind, FitOptions,
    Method, Moderator, MultilevelOptions, MultilevelTest, RobustTest, RobustVcov,
};
use serde_json::Value;

mod oracle_kit;
use oracle_kit::{
    agree_within as agree, dataset, moderator, records, report, strings, METAFOR_OPTIMIZER_TOL, TOL,
};

fn fixtures() -> Value {
    oracle_kit::fixture("multilevel")
}

fn moderators(ds: &Value, row: &Value) -> Vec<Moderator> {
    strings(&row["mods"])
        .iter()
        .map(|name| moderator(ds, name))
        .collect()
}

fn ml_options(row: &Value) -> MultilevelOptions {
    MultilevelOptions {
        method: Method::parse(row["method"].as_str().unwrap()).unwrap(),
        test: MultilevelTest::parse(row["test"].as_str().unwrap()).unwrap(),
        level: row["level"].as_f64().unwrap(),
    }
}

#[test]
fn every_multilevel_fit_agrees_with_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in all["multilevel"].as_array().unwrap() {
        let ds = dataset(&all, row["data"].as_str().unwrap());
        let o = ml_options(row);
        let label = format!(
            "{} ~ {:?} {} {}",
            row["data"].as_str().unwrap(),
            strings(&row["mods"]),
            o.method.name(),
            o.test.name()
        );
        let at = |f: &str| format!("{label} {f}");
        let m = multilevel(
            &records(ds),
            &strings(&ds["study"]),
            &moderators(ds, row),
            &o,
        )
        .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(m.k as u64, row["k"].as_u64().unwrap());
        assert_eq!(m.p as u64, row["p"].as_u64().unwrap());
        for r in 0..2 {
            agree(
                &at(&format!("sigma2[{r}]")),
                m.sigma2[r],
                &row["sigma2"][r],
                TOL,
                &mut failures,
            );
            // metafor's own optimizer lands near the same optimum.
            agree(
                &at("metafor's free sigma2"),
                m.sigma2[r],
                &row["metafor_free_sigma2"][r],
                METAFOR_OPTIMIZER_TOL,
                &mut failures,
            );
        }
        agree(&at("loglik"), m.loglik, &row["loglik"], TOL, &mut failures);
        checked += 3;
        for (j, c) in m.coefficients.iter().enumerate() {
            assert_eq!(c.name, row["names"][j].as_str().unwrap());
            let f = |n: &str| at(&format!("{} {n}", c.name));
            agree(
                &f("estimate"),
                c.estimate,
                &row["beta"][j],
                TOL,
                &mut failures,
            );
            agree(&f("se"), c.se, &row["se"][j], TOL, &mut failures);
            agree(
                &f("statistic"),
                c.statistic,
                &row["zval"][j],
                TOL,
                &mut failures,
            );
            agree(&f("p"), c.p, &row["pval"][j], TOL, &mut failures);
            agree(
                &f("ci_lower"),
                c.ci_lower,
                &row["ci_lb"][j],
                TOL,
                &mut failures,
            );
            agree(
                &f("ci_upper"),
                c.ci_upper,
                &row["ci_ub"][j],
                TOL,
                &mut failures,
            );
            checked += 6;
        }
        match m.df {
            Some(df) => agree(&at("df"), df, &row["ddf"], TOL, &mut failures),
            None => assert!(row["ddf"].is_null(), "{}", at("df")),
        }
        agree(&at("QE"), m.qe, &row["QE"], TOL, &mut failures);
        agree(&at("QEp"), m.qe_p, &row["QEp"], TOL, &mut failures);
        assert_eq!(m.qe_df as u64, row["QEdf"].as_u64().unwrap());
        checked += 2;
        if m.p > 1 {
            agree(&at("QM"), m.qm.unwrap(), &row["QM"], TOL, &mut failures);
            agree(&at("QMp"), m.qm_p.unwrap(), &row["QMp"], TOL, &mut failures);
            assert_eq!(m.qm_df as f64, row["QMdf"][0].as_f64().unwrap());
            checked += 2;
        } else {
            let pred = &row["pred"];
            agree(
                &at("pi_lower"),
                m.pi_lower.unwrap(),
                &pred["pi_lb"],
                TOL,
                &mut failures,
            );
            agree(
                &at("pi_upper"),
                m.pi_upper.unwrap(),
                &pred["pi_ub"],
                TOL,
                &mut failures,
            );
            agree(
                &at("pred"),
                m.coefficients[0].estimate,
                &pred["pred"],
                TOL,
                &mut failures,
            );
            checked += 3;
        }
        if let Some(ci) = row.get("sigma2_ci") {
            let ours = m
                .profile_intervals()
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            for r in 0..2 {
                let bounds = [ours[r].lower, ours[r].upper];
                for (b, bound) in bounds.iter().enumerate() {
                    let theirs = &ci[r][b];
                    let what = at(&format!("sigma2[{r}] profile bound {b}"));
                    if theirs.is_null() {
                        assert_eq!(bound.kind, BoundKind::BeyondSearch, "{what}");
                    } else {
                        agree(&what, bound.tau2, theirs, TOL, &mut failures);
                        agree(
                            &format!("{what} (metafor's confint)"),
                            bound.tau2,
                            &row["metafor_confint"][r][b],
                            METAFOR_OPTIMIZER_TOL,
                            &mut failures,
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    report(failures, checked, 300);
}

fn check_robust(
    label: &str,
    ours: &RobustTest,
    reference: &Value,
    failures: &mut Vec<String>,
) -> usize {
    let mut checked = 0;
    for (j, c) in ours.coefficients.iter().enumerate() {
        let f = |n: &str| format!("{label} {} {n}", c.name);
        agree(
            &f("estimate"),
            c.estimate,
            &reference["beta"][j],
            TOL,
            failures,
        );
        agree(&f("se"), c.se, &reference["se"][j], TOL, failures);
        agree(&f("t"), c.statistic, &reference["tstat"][j], TOL, failures);
        let df = if reference["df"].is_array() {
            &reference["df"][j]
        } else {
            &reference["df"]
        };
        agree(&f("df"), c.df, df, TOL, failures);
        agree(&f("p"), c.p, &reference["p"][j], TOL, failures);
        agree(
            &f("ci_lower"),
            c.ci_lower,
            &reference["ci_lb"][j],
            TOL,
            failures,
        );
        agree(
            &f("ci_upper"),
            c.ci_upper,
            &reference["ci_ub"][j],
            TOL,
            failures,
        );
        checked += 7;
    }
    checked
}

#[test]
fn robust_tests_agree_with_club_sandwich_and_metafor() {
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut refused = 0;
    for row in all["robust"].as_array().unwrap() {
        let ds = dataset(&all, row["data"].as_str().unwrap());
        let recs = records(ds);
        let mods = moderators(ds, row);
        let clusters = strings(&ds["study"]);
        let model = row["model"].as_str().unwrap();
        let label = format!(
            "{} {model} ~ {:?} {} {}",
            row["data"].as_str().unwrap(),
            strings(&row["mods"]),
            row["method"].as_str().unwrap(),
            row["test"].as_str().unwrap()
        );
        for (vcov, key) in [(RobustVcov::Cr2, "cr2"), (RobustVcov::Cr1, "cr1")] {
            let ours = match model {
                "multilevel" => {
                    robust_multilevel(&recs, &clusters, &mods, &ml_options(row), &clusters, vcov)
                }
                _ => {
                    let o = FitOptions {
                        method: Method::parse(row["method"].as_str().unwrap()).unwrap(),
                        level: row["level"].as_f64().unwrap(),
                        ..FitOptions::default()
                    };
                    if mods.is_empty() {
                        robust_fit(&recs, &o, &clusters, vcov)
                    } else {
                        robust_meta_regression(&recs, &mods, &o, &clusters, vcov)
                    }
                }
            };
            let ours = match ours {
                Ok(ours) => ours,
                Err(e) => {
                    // Refused only where the reference's robust se is zero up to rounding
                    // (or NaN): a coefficient estimated from one cluster alone.
                    let degenerate = row[key]["se"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|se| se.as_f64().is_none_or(|se| se < 1e-6));
                    assert!(degenerate, "{label} {key}: {e}");
                    assert!(e.to_string().contains("single cluster"), "{e}");
                    refused += 1;
                    continue;
                }
            };
            checked += check_robust(&format!("{label} {key}"), &ours, &row[key], &mut failures);
            if vcov == RobustVcov::Cr1 {
                assert_eq!(
                    ours.n_clusters as u64,
                    row["cr1"]["n_clusters"].as_u64().unwrap()
                );
            }
        }
    }
    assert_eq!(
        refused, 2,
        "the two degenerate CR1 fits (assink2016 ~ deltype, rma.uni)"
    );
    // Only metafor's robust() on rma.uni ~ deltype (REML and DL), whose intercept (the
    // level "covert", found in study 16 alone) gets a CR1 se of 2e-9 or NaN.
    assert_eq!(refused, 2);
    report(failures, checked, 300);
}

/// dat.mcdaniel1994 with the study column `type` and mods = ~ type + struct
/// (`tests/fixtures/multilevel_unidentified.json`, made by
/// `tests/oracle/multilevel_unidentified.R`): each study's mean is a fixed effect, so the
/// restricted likelihood is flat in the between-study variance (metafor's logLik at
/// σ²₁ = 0, its start value 0.0217 and 0.1 agree to 10⁻¹³ while the intercept's SE moves
/// from 0.023 to 0.32). REML is refused in words that say so (it once failed as "did not
/// converge … within 1 iterations"); ML, whose likelihood falls as σ²₁ grows, fits σ²₁ = 0
/// as metafor does.
#[test]
fn a_between_study_variance_the_moderators_absorb_is_refused_under_reml_and_zero_under_ml() {
    let all = oracle_kit::fixture("multilevel_unidentified");
    let ds = dataset(&all, "mcdaniel_by_type");
    let mods = vec![moderator(ds, "type"), moderator(ds, "struct")];
    let study = strings(&ds["study"]);
    let reml = MultilevelOptions::default();
    let e = multilevel(&records(ds), &study, &mods, &reml)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("between-study variance is not identified")
            && e.contains("3 studies")
            && !e.contains("iterations"),
        "{e}"
    );
    // The flat likelihood the refusal rests on, in metafor's own numbers.
    let fixed = all["reml"]["fixed_sigma2_1"].as_array().unwrap();
    let ll: Vec<f64> = fixed
        .iter()
        .map(|f| f["loglik"].as_f64().unwrap())
        .collect();
    assert!(ll.iter().all(|l| (l - ll[0]).abs() < 1e-9), "{ll:?}");
    assert!(fixed[2]["se"][0].as_f64().unwrap() > 10.0 * fixed[0]["se"][0].as_f64().unwrap());

    let ml = MultilevelOptions {
        method: Method::Ml,
        ..reml
    };
    let m = multilevel(&records(ds), &study, &mods, &ml).unwrap_or_else(|e| panic!("ML: {e}"));
    let row = &all["ml"];
    let mut failures = Vec::new();
    assert_eq!(m.sigma2[0], 0.0);
    agree(
        "ML sigma2[1]",
        m.sigma2[1],
        &row["sigma2"][1],
        TOL,
        &mut failures,
    );
    agree("ML loglik", m.loglik, &row["loglik"], TOL, &mut failures);
    agree("ML qe", m.qe, &row["qe"], TOL, &mut failures);
    for (j, c) in m.coefficients.iter().enumerate() {
        agree(
            &format!("ML {} estimate", c.name),
            c.estimate,
            &row["beta"][j],
            TOL,
            &mut failures,
        );
        agree(
            &format!("ML {} se", c.name),
            c.se,
            &row["se"][j],
            TOL,
            &mut failures,
        );
        agree(
            &format!("ML {} z", c.name),
            c.statistic,
            &row["zval"][j],
            TOL,
            &mut failures,
        );
    }
    report(failures, 3 + 3 * m.coefficients.len(), 15);
}
