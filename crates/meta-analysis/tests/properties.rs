//! Invariances every correct random-effects fit must have, on random data.

use meta_analysis::{
    egger_test, fit, EggerResult, EggerVariant, Fit, FitOptions, MetaError, Method, Record, Test,
};
use proptest::prelude::*;

/// A returned fit has no hole: every number finite (never a JSON null).
fn fit_is_whole(result: &Result<Fit, MetaError>) -> bool {
    let Ok(f) = result else { return true };
    [
        f.estimate,
        f.se,
        f.statistic,
        f.p,
        f.ci_lower,
        f.ci_upper,
        f.tau2,
        f.tau,
        f.se_tau2.unwrap_or(0.0),
        f.q,
        f.q_p,
        f.i2,
        f.h2,
        f.pi_lower,
        f.pi_upper,
    ]
    .iter()
    .all(|v| v.is_finite())
}

fn egger_is_whole(result: &Result<EggerResult, MetaError>) -> bool {
    let Ok(e) = result else { return true };
    [
        e.statistic,
        e.p,
        e.coefficient,
        e.se,
        e.line_at_se0,
        e.line_per_se,
        e.tau2.unwrap_or(0.0),
    ]
    .iter()
    .all(|v| v.is_finite())
}

fn dataset() -> impl Strategy<Value = Vec<Record>> {
    prop::collection::vec((-3.0f64..3.0, 0.001f64..2.0), 2..40).prop_map(|rows| {
        rows.into_iter()
            .enumerate()
            .map(|(i, (yi, vi))| Record::new(format!("r{i}"), yi, vi))
            .collect()
    })
}

fn method() -> impl Strategy<Value = Method> {
    prop::sample::select(Method::ALL.to_vec())
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn shifting_yi_shifts_the_estimate(data in dataset(), c in -5.0f64..5.0, m in method()) {
        let opts = FitOptions { method: m, ..FitOptions::default() };
        let a = fit(&data, &opts).unwrap();
        let shifted: Vec<Record> =
            data.iter().map(|r| Record::new(r.id.clone(), r.yi + c, r.vi)).collect();
        let b = fit(&shifted, &opts).unwrap();
        prop_assert!(close(b.estimate, a.estimate + c, 1e-8), "{} vs {}", b.estimate, a.estimate + c);
        prop_assert!(close(b.tau2, a.tau2, 1e-7));
    }

    #[test]
    fn scaling_scales_the_estimate_and_keeps_p(data in dataset(), s in 0.1f64..10.0, m in method()) {
        let opts = FitOptions { method: m, ..FitOptions::default() };
        let a = fit(&data, &opts).unwrap();
        let scaled: Vec<Record> =
            data.iter().map(|r| Record::new(r.id.clone(), r.yi * s, r.vi * s * s)).collect();
        let b = fit(&scaled, &opts).unwrap();
        prop_assert!(close(b.estimate, a.estimate * s, 1e-7));
        prop_assert!((b.p - a.p).abs() <= 1e-7, "{} vs {}", b.p, a.p);
        prop_assert!(close(b.tau2, a.tau2 * s * s, 1e-7));
    }

    #[test]
    fn record_order_does_not_matter(data in dataset(), m in method(), seed in any::<u64>()) {
        let opts = FitOptions { method: m, ..FitOptions::default() };
        let a = fit(&data, &opts).unwrap();
        let mut shuffled = data.clone();
        let n = shuffled.len();
        for i in 0..n {
            let j = (seed.wrapping_mul(6364136223846793005).wrapping_add(i as u64) % n as u64) as usize;
            shuffled.swap(i, j);
        }
        let b = fit(&shuffled, &opts).unwrap();
        prop_assert!(close(a.estimate, b.estimate, 1e-9));
        prop_assert!(close(a.p, b.p, 1e-8));
    }

    #[test]
    fn intervals_and_ranges_hold(data in dataset(), m in method(), knha in any::<bool>()) {
        let test = if knha { Test::Knha } else { Test::Z };
        let same = data.iter().all(|r| r.yi == data[0].yi);
        let f = fit(&data, &FitOptions { method: m, test, level: 0.95 });
        if knha && same {
            prop_assert!(f.is_err());
            return Ok(());
        }
        let f = f.unwrap();
        prop_assert!(f.ci_lower <= f.estimate && f.estimate <= f.ci_upper);
        prop_assert!(f.pi_lower <= f.ci_lower && f.ci_upper <= f.pi_upper);
        prop_assert!((0.0..=1.0).contains(&f.p));
        prop_assert!(f.tau2 >= 0.0);
        prop_assert!((0.0..=100.0).contains(&f.i2));
        // metafor's H² for the equal-effects model is Q/(k − 1), which may be below 1.
        prop_assert!(m.is_equal_effects() || f.h2 >= 1.0 - 1e-12);
    }

    #[test]
    fn arbitrary_input_never_panics_and_never_returns_a_hole(
        rows in prop::collection::vec((any::<f64>(), any::<f64>(), "[a-c]{0,2}"), 0..12),
        m in method(),
        level in any::<f64>(),
    ) {
        let data: Vec<Record> = rows.into_iter().map(|(yi, vi, id)| Record::new(id, yi, vi)).collect();
        for test in [Test::Z, Test::Knha] {
            let f = fit(&data, &FitOptions { method: m, test, level });
            prop_assert!(fit_is_whole(&f), "{f:?}");
        }
        for variant in [EggerVariant::Classic, EggerVariant::Rma] {
            let e = egger_test(&data, variant);
            prop_assert!(egger_is_whole(&e), "{e:?}");
        }
    }

    #[test]
    fn extreme_values_never_panic_and_never_return_a_hole(
        rows in prop::collection::vec((-1e150f64..1e150, 1e-150f64..1e150), 2..8),
        m in method(),
        knha in any::<bool>(),
    ) {
        let data: Vec<Record> =
            rows.into_iter().enumerate().map(|(i, (yi, vi))| Record::new(format!("r{i}"), yi, vi)).collect();
        let test = if knha { Test::Knha } else { Test::Z };
        let f = fit(&data, &FitOptions { method: m, test, ..FitOptions::default() });
        prop_assert!(fit_is_whole(&f), "{f:?}");
        for variant in [EggerVariant::Classic, EggerVariant::Rma] {
            let e = egger_test(&data, variant);
            prop_assert!(egger_is_whole(&e), "{e:?}");
        }
    }

    #[test]
    fn values_at_the_edges_of_the_range_never_return_a_hole(
        rows in prop::collection::vec(
            (
                prop::sample::select(vec![-meta_analysis::MAX_ABS_YI, -1.0, 0.0, 1e-20, 1.0, meta_analysis::MAX_ABS_YI]),
                prop::sample::select(vec![meta_analysis::MIN_VI, 1e-10, 1.0, 1e10, meta_analysis::MAX_VI]),
            ),
            2..6,
        ),
        m in method(),
        knha in any::<bool>(),
        level in prop::sample::select(vec![1e-300, 0.95, meta_analysis::MAX_LEVEL]),
    ) {
        let data: Vec<Record> =
            rows.into_iter().enumerate().map(|(i, (yi, vi))| Record::new(format!("r{i}"), yi, vi)).collect();
        let test = if knha { Test::Knha } else { Test::Z };
        let f = fit(&data, &FitOptions { method: m, test, level });
        prop_assert!(fit_is_whole(&f), "{f:?}");
        for variant in [EggerVariant::Classic, EggerVariant::Rma] {
            let e = egger_test(&data, variant);
            prop_assert!(egger_is_whole(&e), "{e:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn fit_columns_equals_fit(data in dataset(), m in method()) {
        let opts = FitOptions { method: m, ..FitOptions::default() };
        let yi: Vec<f64> = data.iter().map(|r| r.yi).collect();
        let vi: Vec<f64> = data.iter().map(|r| r.vi).collect();
        prop_assert_eq!(meta_analysis::fit_columns(&yi, &vi, &opts).unwrap(), fit(&data, &opts).unwrap());
    }
}
