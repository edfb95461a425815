//! The tetrachoric correlation (`RTET`) against R's metafor 3.8-1 `escalc`
//! (`tests/fixtures/escalc_rtet.json`, from `tests/oracle/escalc_rtet.R`) and against its
//! exact values at 40 digits (`tests/fixtures/escalc_exact.json`, from
//! `tests/oracle/escalc_exact.py`).
//!
//! metafor finds the maximum-likelihood estimate numerically (`optimize` to
//! `.Machine$double.eps^0.25` ≈ 1.2e-4 in ρ, then Nelder–Mead to a relative change of 1e-8 in
//! the log-likelihood, and vi from a finite-difference Hessian with steps of 1e-3); the engine
//! solves for the maximum exactly. So the agreement with escalc asserted here is metafor's own
//! precision ([`TOL_YI`], [`TOL_VI`]), and the exact values are held to 1e-12. A row where
//! escalc gives ±1 because a cell is 0 (a boundary estimate, with a variance from a Hessian
//! at its clip ρ = 0.9999, or none) the engine refuses, naming the zero cell.

use meta_analysis::effect_sizes::{escalc_with, AddTo, Measure, Settings};

mod oracle_kit;
use oracle_kit::{assert_agreement, within};

/// |ours − metafor| for yi: the error of metafor's optimizers in ρ.
const TOL_YI: f64 = 1e-4;
/// optim's finite-difference step (`ndeps`) for the Hessian behind metafor's vi.
const NDEPS: f64 = 1e-3;

/// |ours − metafor|/vi allowed for vi: a central second difference with step h errs by
/// O((h/s)²), s the likelihood's scale in ρ, which is 1 − |ρ| near ±1; so 1e-3 plus ten
/// times (h/(1 − |ρ|))². Within 0.01 of ±1 metafor's steps reach its clip at |ρ| = 0.9999
/// and its vi is no reference (yi is still compared; the exact values test vi there).
fn tol_vi(rho: f64) -> Option<f64> {
    let gap = 1.0 - rho.abs();
    (gap >= 0.01).then(|| 1e-3 + 10.0 * (NDEPS / gap) * (NDEPS / gap))
}
/// Against the 40-digit values.
const TOL_EXACT: f64 = 1e-12;

#[test]
fn rtet_agrees_with_escalc_to_its_optimizers_precision() {
    let all = oracle_kit::fixture("escalc_rtet");
    assert_eq!(all["provenance"]["packages"]["metafor"], "3.8.1");
    let mut failures = Vec::new();
    let (mut computed, mut refused) = (0, 0);
    let (mut worst_yi, mut worst_vi) = (0.0f64, 0.0f64);
    for case in all["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let settings = Settings {
            add: case["add"].as_f64(),
            to: case["to"]
                .as_str()
                .map(|t| AddTo::parse(t).unwrap())
                .unwrap_or_default(),
            drop00: case["drop00"].as_bool().unwrap_or(false),
            ..Settings::default()
        };
        let ours = escalc_with(Measure::Rtet, &oracle_kit::raw_rows(case), &settings);
        for (i, outcome) in ours.iter().enumerate() {
            let (yi, vi) = (case["yi"][i].as_f64(), case["vi"][i].as_f64());
            let at = format!("{name} row {}", i + 1);
            match (yi, vi, outcome) {
                (None, _, Err(e)) | (_, None, Err(e)) | (_, Some(0.0), Err(e)) => {
                    assert!(e.column().is_some(), "{at}: {e}");
                    refused += 1;
                }
                (Some(y), Some(_), Err(e)) if y.abs() == 1.0 => {
                    assert!(e.to_string().contains("is 0"), "{at}: {e}");
                    refused += 1;
                }
                (Some(yi), Some(vi), Ok(es)) if vi > 0.0 && yi.abs() < 1.0 => {
                    worst_yi = worst_yi.max((es.yi - yi).abs());
                    let vi_ok = match tol_vi(es.yi) {
                        Some(tol) => {
                            worst_vi = worst_vi.max((es.vi - vi).abs() / vi / tol);
                            (es.vi - vi).abs() <= tol * vi
                        }
                        None => true,
                    };
                    if (es.yi - yi).abs() > TOL_YI || !vi_ok {
                        failures.push(format!(
                            "{at}: ours ({:.17e}, {:.17e}), metafor ({yi:.17e}, {vi:.17e})",
                            es.yi, es.vi
                        ));
                    }
                    computed += 1;
                }
                (yi, vi, outcome) => {
                    failures.push(format!("{at}: metafor ({yi:?}, {vi:?}), ours {outcome:?}"))
                }
            }
        }
    }
    eprintln!(
        "largest |yi - metafor| {worst_yi:e}, |vi - metafor|/(vi tol_vi) {worst_vi:e}; {computed} computed, {refused} refused"
    );
    assert_agreement(failures);
    assert!(
        computed >= 80 && refused >= 10,
        "{computed} computed, {refused} refused"
    );
}

#[test]
fn rtet_and_ucor_meet_their_exact_values() {
    let all = oracle_kit::fixture("escalc_exact");
    let mut failures = Vec::new();
    let mut count = 0;
    for case in all["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let measure = Measure::parse(case["measure"].as_str().unwrap()).unwrap();
        let settings = Settings {
            vtype: case["vtype"]
                .as_str()
                .map(|v| meta_analysis::effect_sizes::Vtype::parse(v).unwrap())
                .unwrap_or_default(),
            ..Settings::default()
        };
        let ours = escalc_with(measure, &oracle_kit::raw_rows(case), &settings);
        for (i, outcome) in ours.iter().enumerate() {
            let at = format!("{name} row {}", i + 1);
            let (yi, vi) = (
                case["yi"][i].as_f64().unwrap(),
                case["vi"][i].as_f64().unwrap(),
            );
            match outcome {
                Ok(es) if within(es.yi, yi, TOL_EXACT) && within(es.vi, vi, TOL_EXACT) => {
                    count += 1
                }
                _ => failures.push(format!(
                    "{at}: ours {outcome:?}, exact ({yi:.17e}, {vi:.17e})"
                )),
            }
        }
    }
    assert_agreement(failures);
    assert!(count >= 20, "{count} rows");
}
