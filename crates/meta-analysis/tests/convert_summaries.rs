//! The conversions of reported summaries (`fivenum`, `wald`) against their published
//! equations evaluated at 50 digits (fixture: `tests/fixtures/convert_summaries.json`, made
//! by `tests/oracle/convert_summaries.py`, which cites each equation's source): every
//! `conv.fivenum` method on the range, the quartiles and all five numbers, with the skewness
//! test on and off; `conv.wald` from both bounds, the upper bound and the p value, at several
//! levels and transformations. Agreement to 1e-12 (relative, or absolute below 1).

use meta_analysis::{
    fivenum, wald, ConversionError, FiveNumbers, FivenumMethod, WaldSummary, WaldTransform,
};
use serde_json::Value;

mod oracle_kit;
use oracle_kit::{assert_agreement, within};

const TOL: f64 = 1e-12;

fn opt(v: &Value) -> Option<f64> {
    v.as_f64()
}

#[test]
fn fivenum_meets_the_papers_equations() {
    let all = oracle_kit::fixture("convert_summaries");
    let mut failures = Vec::new();
    let (mut converted, mut skewed, mut not_for_case) = (0, 0, 0);
    for (i, case) in all["fivenum"].as_array().unwrap().iter().enumerate() {
        let method = FivenumMethod::parse(case["method"].as_str().unwrap()).unwrap();
        let r = &case["row"];
        let row = FiveNumbers {
            min: opt(&r["min"]),
            q1: opt(&r["q1"]),
            median: opt(&r["median"]),
            q3: opt(&r["q3"]),
            max: opt(&r["max"]),
            n: opt(&r["n"]),
        };
        let at = format!("fivenum case {} ({})", i + 1, method.name());
        let is_skewed = case["skewed"].as_bool().unwrap();
        match (case["mean"].as_f64(), case["sd"].as_f64()) {
            (Some(mean), Some(sd)) => {
                let est = fivenum(&row, method, false).unwrap();
                for (what, ours, want) in [
                    ("mean", est.mean, mean),
                    ("sd", est.sd, sd),
                    (
                        "statistic",
                        est.skewness.statistic,
                        case["statistic"].as_f64().unwrap(),
                    ),
                    (
                        "critical",
                        est.skewness.critical,
                        case["critical"].as_f64().unwrap(),
                    ),
                ] {
                    if !within(ours, want, TOL) {
                        failures.push(format!("{at} {what}: ours {ours:.17e}, exact {want:.17e}"));
                    }
                }
                assert_eq!(est.skewness.skewed, is_skewed, "{at}");
                assert_eq!(est.case.name(), case["case"], "{at}");
                match fivenum(&row, method, true) {
                    Err(ConversionError::Skewed(_)) if is_skewed => skewed += 1,
                    Ok(tested) if !is_skewed => assert_eq!(tested, est, "{at}"),
                    other => failures.push(format!("{at}: with the test, {other:?}")),
                }
                converted += 1;
            }
            _ => match fivenum(&row, method, false) {
                Err(ConversionError::NotForCase(..)) => not_for_case += 1,
                other => failures.push(format!("{at}: no formula, but ours {other:?}")),
            },
        }
    }
    assert_agreement(failures);
    assert!(
        converted >= 30 && skewed >= 5 && not_for_case >= 10,
        "{converted} converted, {skewed} skewed, {not_for_case} without a formula"
    );
}

#[test]
fn wald_meets_the_papers_equations() {
    let all = oracle_kit::fixture("convert_summaries");
    let mut failures = Vec::new();
    let cases = all["wald"].as_array().unwrap();
    for (i, case) in cases.iter().enumerate() {
        let r = &case["row"];
        let row = WaldSummary {
            out: opt(&r["out"]),
            ci_lb: opt(&r["ci_lb"]),
            ci_ub: opt(&r["ci_ub"]),
            pval: opt(&r["pval"]),
        };
        let transf = WaldTransform::parse(case["transf"].as_str().unwrap()).unwrap();
        let est = wald(&row, case["level"].as_f64().unwrap(), transf).unwrap();
        let (yi, vi) = (case["yi"].as_f64().unwrap(), case["vi"].as_f64().unwrap());
        if !(within(est.yi, yi, TOL) && within(est.vi, vi, TOL)) {
            failures.push(format!(
                "wald case {}: ours ({:.17e}, {:.17e}), exact ({yi:.17e}, {vi:.17e})",
                i + 1,
                est.yi,
                est.vi
            ));
        }
        assert_eq!(est.source.name(), case["source"], "wald case {}", i + 1);
    }
    assert_agreement(failures);
    assert!(cases.len() >= 10);
}
