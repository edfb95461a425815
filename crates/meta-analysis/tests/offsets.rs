//! Effects far from 0: Q, τ² and I² depend on the spread of the yᵢ, not on their size
//! (issue 25 item 8: ten identical yᵢ = 10¹² gave Q = 7.45·10⁴ and I² = 100%).
//! (A subgroup analysis's Q between groups is computed from the groups' estimates as
//! reported, rounded at the scale of their size, so it is checked on identical effects only.)

use meta_analysis::{
    fit, leave_one_out, meta_regression, subgroup_analysis, FitOptions, Method, Moderator, Record,
    Test,
};
use proptest::prelude::*;

fn identical(yi: f64) -> Vec<Record> {
    (0..10)
        .map(|i| Record::new(format!("r{i}"), yi, if i % 2 == 0 { 1e-12 } else { 1.0 }))
        .collect()
}

#[test]
fn identical_effects_have_no_heterogeneity_at_any_size() {
    for yi in [1e12, -1e12, 1e25, 3.7e-3, 123456.789] {
        for method in Method::ALL {
            let options = FitOptions {
                method,
                test: Test::Z,
                ..FitOptions::default()
            };
            let f = fit(&identical(yi), &options).unwrap();
            assert_eq!(f.q, 0.0, "{yi} {method:?}");
            assert_eq!(f.i2, 0.0, "{yi} {method:?}");
            assert_eq!(f.tau2, 0.0, "{yi} {method:?}");
            assert_eq!(f.estimate, yi, "{yi} {method:?}");
            assert_eq!(f.q_p, 1.0, "{yi} {method:?}");
        }
        let x = Moderator::numeric("x", (0..10).map(f64::from).collect());
        let m = meta_regression(&identical(yi), &[x], &FitOptions::default()).unwrap();
        assert_eq!((m.qe, m.qm, m.tau2), (0.0, 0.0, 0.0), "{yi}");
        assert_eq!(m.coefficients[0].estimate, yi);
        assert_eq!(m.coefficients[1].estimate, 0.0);
        let groups: Vec<String> = (0..10).map(|i| ["a", "b"][i % 2].to_string()).collect();
        let s = subgroup_analysis(&identical(yi), "g", &groups, &FitOptions::default()).unwrap();
        assert_eq!((s.q_between, s.common_tau2.qe), (0.0, 0.0), "{yi}");
        for omitted in leave_one_out(&identical(yi), &FitOptions::default()).unwrap() {
            assert_eq!((omitted.fit.q, omitted.fit.i2), (0.0, 0.0), "{yi}");
        }
    }
}

/// Integer shifts of effects on a 1/64 grid are exact, so the centred data, and with them
/// Q, τ² and I², are the same numbers.
fn grid_data() -> impl Strategy<Value = Vec<(f64, f64)>> {
    prop::collection::vec((-400i32..400, 0.001f64..2.0), 3..30).prop_map(|rows| {
        rows.into_iter()
            .map(|(n, vi)| (f64::from(n) / 64.0, vi))
            .collect()
    })
}

fn records(rows: &[(f64, f64)], shift: f64) -> Vec<Record> {
    rows.iter()
        .enumerate()
        .map(|(i, (yi, vi))| Record::new(format!("r{i}"), yi + shift, *vi))
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-300)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn shifting_every_effect_keeps_q_tau2_and_i2(
        rows in grid_data(),
        shift in -1_000_000_000_000i64..1_000_000_000_000,
        method in prop::sample::select(Method::ALL.to_vec()),
    ) {
        let shift = shift as f64;
        let options = FitOptions { method, test: Test::Z, ..FitOptions::default() };
        let a = fit(&records(&rows, 0.0), &options).unwrap();
        let b = fit(&records(&rows, shift), &options).unwrap();
        prop_assert!(close(a.q, b.q), "Q {} vs {}", a.q, b.q);
        prop_assert!(close(a.tau2, b.tau2), "tau2 {} vs {}", a.tau2, b.tau2);
        prop_assert!(close(a.i2, b.i2), "I2 {} vs {}", a.i2, b.i2);
        prop_assert!((b.estimate - shift - a.estimate).abs() <= 1e-9 * shift.abs().max(1.0));

        let x: Vec<f64> = (0..rows.len()).map(|i| (i % 3) as f64).collect();
        let mods = [Moderator::numeric("x", x)];
        let ma = meta_regression(&records(&rows, 0.0), &mods, &options).unwrap();
        let mb = meta_regression(&records(&rows, shift), &mods, &options).unwrap();
        prop_assert!(close(ma.qe, mb.qe), "QE {} vs {}", ma.qe, mb.qe);
        prop_assert!(close(ma.qm, mb.qm), "QM {} vs {}", ma.qm, mb.qm);
        prop_assert!(close(ma.tau2, mb.tau2), "tau2 {} vs {}", ma.tau2, mb.tau2);
        prop_assert!(close(ma.i2, mb.i2));
        prop_assert!(close(ma.coefficients[1].estimate, mb.coefficients[1].estimate));
    }
}
