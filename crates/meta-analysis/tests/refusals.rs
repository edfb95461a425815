//! Inputs a fit cannot answer in full are refused with their real reason: a reported number is
//! never silently NaN or infinite (a JSON null), and no message names a cause that did not
//! happen (issues 9 and 10). Written against the public API only.

use meta_analysis::{
    egger_test, fit, fit_columns, EggerVariant, Fit, FitOptions, Method, Record, Test,
};

fn ordinary() -> Vec<Record> {
    vec![
        Record::new("a", 0.1, 0.01),
        Record::new("b", 0.3, 0.02),
        Record::new("c", -0.1, 0.03),
    ]
}

fn with(extra: Record) -> Vec<Record> {
    let mut records = ordinary();
    records.push(extra);
    records
}

fn options(method: Method, test: Test, level: f64) -> FitOptions {
    FitOptions {
        method,
        test,
        level,
    }
}

/// Every number of a fit, named.
fn numbers(f: &Fit) -> Vec<(&'static str, f64)> {
    vec![
        ("estimate", f.estimate),
        ("se", f.se),
        ("statistic", f.statistic),
        ("p", f.p),
        ("ci_lower", f.ci_lower),
        ("ci_upper", f.ci_upper),
        ("tau2", f.tau2),
        ("tau", f.tau),
        ("se_tau2", f.se_tau2.unwrap_or(0.0)),
        ("q", f.q),
        ("q_p", f.q_p),
        ("i2", f.i2),
        ("h2", f.h2),
        ("pi_lower", f.pi_lower),
        ("pi_upper", f.pi_upper),
    ]
}

/// The fit is refused with a message containing `reason`; were it returned, it would have to
/// be finite everywhere.
fn refused(result: Result<Fit, meta_analysis::MetaError>, reason: &str) {
    match result {
        Ok(f) => {
            let holes: Vec<_> = numbers(&f)
                .into_iter()
                .filter(|(_, v)| !v.is_finite())
                .collect();
            panic!("expected a refusal ({reason}), got a fit with non-finite {holes:?}");
        }
        Err(e) => assert!(e.to_string().contains(reason), "{e}"),
    }
}

#[test]
fn a_level_whose_quantile_is_infinite_is_refused() {
    // The level as a person types it parses to 1 − 2⁻⁵³: (1 + level)/2 rounds to 1, and
    // Φ⁻¹(1) = ∞ used to give infinite (null) interval ends.
    let level: f64 = "0.99999999999999994".parse().unwrap();
    assert_eq!(level, 1.0 - f64::EPSILON / 2.0);
    for test in [Test::Z, Test::Knha] {
        refused(
            fit(&ordinary(), &options(Method::Reml, test, level)),
            "too close to 1",
        );
    }
}

#[test]
fn the_largest_accepted_level_gives_finite_intervals() {
    let largest = 1.0 - f64::EPSILON;
    for test in [Test::Z, Test::Knha] {
        let f = fit(&ordinary(), &options(Method::Reml, test, largest)).unwrap();
        assert!(numbers(&f).iter().all(|(_, v)| v.is_finite()), "{f:?}");
        assert!(f.ci_lower < f.estimate && f.estimate < f.ci_upper);
    }
}

#[test]
fn an_effect_whose_square_overflows_is_refused_naming_the_record() {
    // EE at yi = ±1e308 used to return q = ∞ (null).
    let mut records = with(Record::new("big", 1e308, 0.01));
    records.push(Record::new("neg", -1e308, 0.01));
    for method in Method::ALL {
        refused(
            fit(&records, &options(method, Test::Z, 0.95)),
            "record \"big\": yi = 1e308 is too large",
        );
    }
    for variant in [EggerVariant::Classic, EggerVariant::Rma] {
        let e = egger_test(&records, variant).unwrap_err().to_string();
        assert!(e.contains("record \"big\": yi = 1e308 is too large"), "{e}");
    }
}

#[test]
fn a_variance_whose_weight_overflows_is_refused_naming_the_record() {
    // DL with vi = 1e-308 used to return I² and H² as NaN (null); REML said "did not converge
    // to its root within 0 iterations".
    let records = with(Record::new("tiny", 0.2, 1e-308));
    for method in Method::ALL {
        refused(
            fit(&records, &options(method, Test::Z, 0.95)),
            "record \"tiny\": vi = 1e-308 is too small",
        );
    }
}

#[test]
fn a_variance_whose_weight_underflows_is_refused_naming_the_record() {
    // REML with every vi = 1e308 used to return se_tau2 = ∞ (null).
    let records = vec![
        Record::new("a", 0.1, 1e308),
        Record::new("b", 0.3, 1e308),
        Record::new("c", -5.0, 1e308),
    ];
    refused(
        fit(&records, &options(Method::Reml, Test::Z, 0.95)),
        "record \"a\": vi = 1e308 is too large",
    );
}

#[test]
fn columns_are_refused_by_position() {
    let e = fit_columns(&[0.1, 1e300], &[0.01, 0.02], &FitOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("record \"#2\": yi = 1e300 is too large"), "{e}");
}

#[test]
fn a_quantity_lost_to_cancellation_is_refused_by_name() {
    // In range, but one weight is 10²⁵ times the others: tr(P₀) = Σw − Σw²/Σw cancels to
    // nothing, and H² used to come back infinite.
    let records = vec![
        Record::new("precise", 0.0, 1e-25),
        Record::new("b", 1.0, 1.0),
        Record::new("c", 1.0, 1.0),
    ];
    refused(
        fit(&records, &options(Method::Reml, Test::Z, 0.95)),
        "H² statistic cannot be computed for these records",
    );
}

#[test]
fn no_message_blames_an_iteration_limit_that_was_not_reached() {
    // In range, variances 10⁵⁰ apart. This used to read "the REML estimator did not converge
    // to its root within 2100 iterations", though it had stopped on an overflow. The
    // estimators now find τ², and the quantity that cannot be computed is named.
    let records = vec![
        Record::new("a", 1e25, 1e-25),
        Record::new("b", 1e25, 1e25),
        Record::new("c", -1e25, 1e25),
    ];
    for method in [Method::Reml, Method::Ml, Method::Pm] {
        let e = fit(&records, &options(method, Test::Z, 0.95))
            .unwrap_err()
            .to_string();
        assert!(!e.contains("iterations"), "{e}");
        assert!(e.contains("cannot be computed for these records"), "{e}");
    }
}

#[test]
fn ordinary_fits_are_untouched() {
    for method in Method::ALL {
        for test in [Test::Z, Test::Knha] {
            let f = fit(&ordinary(), &options(method, test, 0.95)).unwrap();
            assert!(numbers(&f).iter().all(|(_, v)| v.is_finite()), "{f:?}");
        }
    }
}
