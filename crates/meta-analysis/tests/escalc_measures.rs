//! Agreement with R's metafor 3.8-1 `escalc` for every measure beyond the first ten
//! (fixtures: `tests/fixtures/escalc_measures.json`, made by
//! `tests/oracle/escalc_measures.R`), under each measure's defaults and its other settings
//! (`add`, `to`, `drop00`, `vtype`), with zero cells, sd = 0, n = 1, proportions of 0 and 1
//! and r = ±1. Agreement is to 1e-12 (relative, or absolute below 1).

use meta_analysis::effect_sizes::{escalc_with, AddTo, Measure, Settings, Vtype};
use std::collections::BTreeMap;

mod oracle_kit;
use oracle_kit::{assert_agreement, within};

/// Closed-form measures: metafor's formulas in its order of operations, through the
/// engine's portable functions; 1e-12 leaves room for a libm's last bits.
const TOL: f64 = 1e-12;

#[test]
fn every_measure_agrees_with_escalc() {
    let all = oracle_kit::fixture("escalc_measures");
    assert_eq!(all["provenance"]["packages"]["metafor"], "3.8.1");
    let mut failures = Vec::new();
    let (mut computed, mut refused) = (0, 0);
    let mut largest: BTreeMap<&str, f64> = BTreeMap::new();
    for case in all["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let measure = Measure::parse(case["measure"].as_str().unwrap()).unwrap();
        let settings = Settings {
            add: case["add"].as_f64(),
            to: case["to"]
                .as_str()
                .map(|t| AddTo::parse(t).unwrap())
                .unwrap_or_default(),
            drop00: case["drop00"].as_bool().unwrap_or(false),
            vtype: case["vtype"]
                .as_str()
                .map(|v| Vtype::parse(v).unwrap())
                .unwrap_or_default(),
        };
        let rows = oracle_kit::raw_rows(case);
        let ours = escalc_with(measure, &rows, &settings);
        for (i, outcome) in ours.iter().enumerate() {
            let (yi, vi) = (case["yi"][i].as_f64(), case["vi"][i].as_f64());
            let at = format!("{name} row {}", i + 1);
            match (yi, vi, outcome) {
                // escalc's NA is refused naming a column; its vi = 0 is returned as it is.
                (None, _, Err(e)) | (_, None, Err(e)) => {
                    assert!(e.column().is_some(), "{at}: {e}");
                    refused += 1;
                }
                (Some(yi), Some(vi), Ok(es)) => {
                    let worst = largest.entry(measure.name()).or_default();
                    *worst = worst.max((es.yi - yi).abs()).max((es.vi - vi).abs());
                    if !(within(es.yi, yi, TOL) && within(es.vi, vi, TOL)) {
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
        "largest |ours - metafor| by measure: {largest:?}; {computed} computed, {refused} refused"
    );
    assert_agreement(failures);
    for m in Measure::ALL {
        assert!(
            largest.contains_key(m.name())
                || ["MD", "SMD", "ROM", "OR", "RR", "RD", "COR", "ZCOR", "PR", "PLO"]
                    .contains(&m.name())
                // RTET: tests/escalc_rtet.rs (metafor's optimizers bound its agreement).
                || m == Measure::Rtet,
            "no fixture computes {m}"
        );
    }
    assert!(
        computed > 1000 && refused > 100,
        "{computed} computed, {refused} refused"
    );
}
