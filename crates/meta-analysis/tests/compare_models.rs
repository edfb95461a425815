//! The fit statistics and the likelihood-ratio test against metafor 3.8-1's fitstats() and
//! anova() (fixture: `tests/fixtures/compare_models.json`, made by
//! `tests/oracle/compare_models.R`): the random-effects fits and meta-regressions (dat.bcg,
//! dat.raudenbush1985, dat.molloy2014), from the engine's fits through `uni_fit_columns` and
//! `compare`, within 1e-9; each fit's statistics in the column the comparison reads (the
//! full model's: an equal-effects fit beside a REML fit in its REML column).
//! The tool's numbers (three-level fits, Wald tests) are held in `tools/compare_models.rs`.

mod oracle_kit;
use meta_analysis::{
    compare, fit, meta_regression, uni_fit_columns, Candidate, FitColumns, FitOptions, Method,
    Moderator, RandomPart, Test,
};
use oracle_kit::{dataset, records, Check};
use serde_json::Value;

/// One rma.uni model of the fixture: both columns of its statistics and what `compare` reads.
fn model(ds: &Value, m: &Value) -> (FitColumns, Method, Vec<String>) {
    let recs = records(ds);
    let args = &m["arguments"];
    let method = Method::parse(args["method"].as_str().unwrap_or("REML")).unwrap();
    let options = FitOptions {
        method,
        test: Test::Z,
        ..Default::default()
    };
    let yi: Vec<f64> = recs.iter().map(|r| r.yi).collect();
    let vi: Vec<f64> = recs.iter().map(|r| r.vi).collect();
    let equal = matches!(method, Method::Ee | Method::Fe);
    let (x, tau2, names) = match args["mods"].as_str() {
        None => {
            let f = fit(&recs, &options).unwrap();
            (vec![1.0; recs.len()], f.tau2, vec!["intercept".to_string()])
        }
        Some(formula) => {
            let mods: Vec<Moderator> = formula
                .trim_start_matches('~')
                .split('+')
                .map(|n| n.trim())
                .map(|n| {
                    let values = ds[n].as_array().unwrap();
                    match values[0].as_str() {
                        Some(_) => Moderator::factor(
                            n,
                            values
                                .iter()
                                .map(|v| v.as_str().unwrap().to_string())
                                .collect(),
                        ),
                        None => Moderator::numeric(
                            n,
                            values.iter().map(|v| v.as_f64().unwrap()).collect(),
                        ),
                    }
                })
                .collect();
            let m = meta_regression(&recs, &mods, &options).unwrap();
            let p = m.p;
            let design = meta_analysis::ModelMatrix::from_moderators(
                &mods,
                &|i| recs[i].id.clone(),
                recs.len(),
            )
            .unwrap();
            let x = (0..recs.len() * p)
                .map(|ip| design.value(ip / p, ip % p))
                .collect();
            let names = m.coefficients.iter().map(|c| c.name.clone()).collect();
            (x, m.tau2, names)
        }
    };
    let p = names.len();
    let stats = uni_fit_columns(&yi, &vi, &x, tau2, p + usize::from(!equal)).unwrap();
    (stats, method, names)
}

#[test]
fn every_random_effects_comparison_agrees_with_metafor() {
    let all = oracle_kit::fixture("compare_models");
    let mut check = Check::default();
    for row in all["results"].as_array().unwrap() {
        // The rma.uni fits (fit_multilevel's are the tool's test's).
        let models = row["models"].as_array().unwrap();
        if models.iter().any(|m| m["tool"] == "fit_multilevel") {
            continue;
        }
        let ds = dataset(&all, row["data"].as_str().unwrap());
        let yi: Vec<f64> = records(ds).iter().map(|r| r.yi).collect();
        let vi: Vec<f64> = records(ds).iter().map(|r| r.vi).collect();
        let name = row["name"].as_str().unwrap();
        // Both fits are read in the full model's column (metafor's anova()); the first is
        // the full model in every two-fit case of the fixture. One fit: its own.
        let first = Method::parse(models[0]["method"].as_str().unwrap()).unwrap();
        let reml = meta_analysis::comparison_scale(first);
        assert_eq!(Value::Bool(reml), models[0]["reml"], "{name}");
        let fitted: Vec<_> = row["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (model(ds, m), m))
            .collect();
        for (i, ((columns, _, _), m)) in fitted.iter().enumerate() {
            let s = columns.on(reml);
            check.same(
                format!("{name} {i} parms"),
                s.parms as u64,
                m["parms"].as_u64().unwrap(),
            );
            check.num(format!("{name} {i} logLik"), s.loglik, &m["loglik"]);
            check.num(format!("{name} {i} deviance"), s.deviance, &m["deviance"]);
            check.num(format!("{name} {i} AIC"), s.aic, &m["aic"]);
            check.num(format!("{name} {i} BIC"), s.bic, &m["bic"]);
            check.num(format!("{name} {i} AICc"), s.aicc, &m["aicc"]);
        }
        if let [((sa, ma, na), _), ((sb, mb, nb), _)] = fitted.as_slice() {
            let random = |m: &Method| {
                if matches!(m, Method::Ee | Method::Fe) {
                    RandomPart::None
                } else {
                    RandomPart::Tau2
                }
            };
            let candidate = |s, m: &Method, n| Candidate {
                method: *m,
                random: random(m),
                coefficients: n,
                stats: s,
                yi: &yi,
                vi: &vi,
            };
            let c = compare(&candidate(sa, ma, na), &candidate(sb, mb, nb)).unwrap();
            assert_eq!((c.full, c.reml), (0, reml), "{name}");
            match row["lrt"].as_f64() {
                Some(_) => {
                    let lrt = c
                        .lrt
                        .unwrap_or_else(|| panic!("{name}: no LRT: {:?}", c.notes));
                    check.num(format!("{name} LRT"), lrt.chi2, &row["lrt"]);
                    check.num(format!("{name} LRT p"), lrt.p, &row["lrt_p"]);
                }
                None => assert!(c.lrt.is_none() && !c.notes.is_empty(), "{name}"),
            }
        }
    }
    check.done(140);
}
