//! Agreement with R's metafor 3.8-1 `escalc` (fixtures: `tests/fixtures/escalc.json`, made by
//! `tests/oracle/escalc_fixtures.R`): every measure, with zero cells, tiny groups and
//! correlations near ±1, under the default and the other continuity corrections.

use meta_analysis::effect_sizes::{escalc, AddTo, Column, EscalcOptions, Measure, RawRow};
use serde_json::Value;

mod oracle_kit;
use oracle_kit::{assert_agreement, within, TOL};

fn fixtures() -> Value {
    oracle_kit::fixture("escalc")
}

#[test]
fn every_measure_agrees_with_escalc() {
    let all = fixtures();
    assert_eq!(all["provenance"]["packages"]["metafor"], "3.8.1");
    let mut failures = Vec::new();
    let (mut computed, mut refused) = (0, 0);
    let mut measures_seen = Vec::new();
    for case in all["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let measure = Measure::parse(case["measure"].as_str().unwrap()).unwrap();
        measures_seen.push(measure);
        let defaults = EscalcOptions::default();
        let options = EscalcOptions {
            add: case["add"].as_f64().unwrap_or(defaults.add),
            to: case["to"]
                .as_str()
                .map(|t| AddTo::parse(t).unwrap())
                .unwrap_or(defaults.to),
        };
        let rows = oracle_kit::raw_rows(case);
        let ours = escalc(measure, &rows, &options);
        for (i, outcome) in ours.iter().enumerate() {
            let (yi, vi) = (case["yi"][i].as_f64(), case["vi"][i].as_f64());
            let at = format!("{name} row {}", i + 1);
            match (yi, vi, outcome) {
                // escalc gives NA: we refuse, naming a column.
                (None, _, Err(e)) | (_, None, Err(e)) => {
                    assert!(e.column().is_some(), "{at}: {e}");
                    refused += 1;
                }
                // escalc's vi = 0 (a proportion of 0 or 1 with to = "none") is returned
                // too; the analyses refuse such a record by name.
                (Some(yi), Some(vi), Ok(es)) => {
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
    assert_agreement(failures);
    // The other measures: tests/escalc_measures.rs.
    for name in [
        "MD", "SMD", "ROM", "OR", "RR", "RD", "COR", "ZCOR", "PR", "PLO",
    ] {
        let m = Measure::parse(name).unwrap();
        assert!(measures_seen.contains(&m), "no fixture for {m}");
    }
    assert!(
        computed > 200 && refused > 20,
        "{computed} computed, {refused} refused"
    );
}

mod no_panics {
    use super::*;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = Option<f64>> {
        prop_oneof![
            Just(None),
            Just(Some(0.0)),
            Just(Some(1.0)),
            Just(Some(-1.0)),
            Just(Some(f64::NAN)),
            Just(Some(f64::INFINITY)),
            Just(Some(f64::MAX)),
            Just(Some(f64::MIN_POSITIVE)),
            (-1e6f64..1e6).prop_map(Some),
            (0u32..50).prop_map(|n| Some(f64::from(n))),
        ]
    }

    proptest! {
        /// Whatever the values, every row gives an effect size with vi >= 0 (0 where
        /// escalc gives 0) or an error naming a column; nothing panics.
        #[test]
        fn any_row_is_an_effect_size_or_an_error(
            values in proptest::collection::vec(proptest::collection::vec(value(), Column::ALL.len()), 1..6),
            measure in 0usize..Measure::ALL.len(),
            to in 0usize..4,
            add in prop_oneof![Just(0.5), Just(0.0), Just(1.0), Just(-1.0), Just(f64::NAN)],
        ) {
            let rows: Vec<RawRow> = values
                .iter()
                .map(|vs| {
                    let mut row = RawRow::default();
                    for (column, v) in Column::ALL.iter().zip(vs) {
                        if let Some(v) = v {
                            row.set(*column, *v);
                        }
                    }
                    row
                })
                .collect();
            let options = EscalcOptions { add, to: AddTo::ALL[to] };
            for outcome in escalc(Measure::ALL[measure], &rows, &options) {
                match outcome {
                    Ok(es) => prop_assert!(es.yi.is_finite() && es.vi.is_finite() && es.vi >= 0.0),
                    Err(e) => prop_assert!(!e.to_string().is_empty()),
                }
            }
        }
    }
}
