//! Issue 31 item 6: `method = "FE"` is metafor's other name for the equal-effects model
//! ("EE"): the same numbers bit for bit in every analysis that takes a method, with the
//! method named as given (metafor 3.8-1 keeps `fit$method == "FE"` and prints
//! "Fixed-Effects Model").

use meta_analysis::{
    cumulative, fit, fit_weighted, heterogeneity_intervals, influence_diagnostics, leave_one_out,
    meta_regression, meta_regression_weighted, subgroup_analysis, trim_and_fill, Estimator,
    FitOptions, Method, Moderator, Record, Test,
};

fn records() -> Vec<Record> {
    [
        (0.12, 0.015),
        (-0.05, 0.031),
        (0.41, 0.052),
        (0.27, 0.009),
        (0.66, 0.120),
        (0.02, 0.044),
        (0.33, 0.071),
    ]
    .iter()
    .enumerate()
    .map(|(i, &(yi, vi))| Record::new(format!("s{i}"), yi, vi))
    .collect()
}

/// `a` (fitted with FE) and `b` (with EE) printed in full, FE's name read as EE's: equal
/// exactly when every number is bit for bit the same (Debug prints the shortest text that
/// reads back as the same f64).
fn same<T: std::fmt::Debug>(what: &str, fe: T, ee: T) {
    let fe = format!("{fe:?}");
    let ee = format!("{ee:?}");
    assert!(
        fe.contains("Fe") || !ee.contains("Ee"),
        "{what}: FE is named as given"
    );
    assert_eq!(fe.replace("Fe", "Ee"), ee, "{what}");
}

fn options(method: Method, test: Test) -> FitOptions {
    FitOptions {
        method,
        level: 0.9,
        test,
    }
}

#[test]
fn fe_is_ee_by_its_other_name() {
    assert_eq!(Method::parse("FE"), Some(Method::Fe));
    assert_eq!(Method::Fe.name(), "FE");
    assert!(Method::Fe.is_equal_effects() && Method::Ee.is_equal_effects());
    assert!(!Method::Reml.is_equal_effects());
    let records = records();
    let dose = Moderator::numeric("dose", vec![1.0, 2.0, 2.5, 4.0, 5.0, 5.5, 7.0]);
    let weights = [1.0, 2.0, 1.5, 3.0, 0.5, 1.0, 2.0];
    let groups: Vec<String> = ["a", "b", "a", "b", "a", "b", "a"]
        .iter()
        .map(|g| g.to_string())
        .collect();
    for test in [Test::Z, Test::Knha] {
        let (fe, ee) = (options(Method::Fe, test), options(Method::Ee, test));
        let f = fit(&records, &fe).unwrap();
        assert_eq!((f.method, f.tau2), (Method::Fe, 0.0));
        same("fit", f, fit(&records, &ee).unwrap());
        same(
            "fit_weighted",
            fit_weighted(&records, Some(&weights), &fe).unwrap(),
            fit_weighted(&records, Some(&weights), &ee).unwrap(),
        );
        same(
            "meta_regression",
            meta_regression(&records, std::slice::from_ref(&dose), &fe).unwrap(),
            meta_regression(&records, std::slice::from_ref(&dose), &ee).unwrap(),
        );
        same(
            "meta_regression_weighted",
            meta_regression_weighted(&records, std::slice::from_ref(&dose), Some(&weights), &fe)
                .unwrap(),
            meta_regression_weighted(&records, std::slice::from_ref(&dose), Some(&weights), &ee)
                .unwrap(),
        );
        same(
            "leave_one_out",
            leave_one_out(&records, &fe).unwrap(),
            leave_one_out(&records, &ee).unwrap(),
        );
        same(
            "cumulative",
            cumulative(&records, &fe).unwrap(),
            cumulative(&records, &ee).unwrap(),
        );
        same(
            "subgroup_analysis",
            subgroup_analysis(&records, "g", &groups, &fe).unwrap(),
            subgroup_analysis(&records, "g", &groups, &ee).unwrap(),
        );
        // Neither has an interval for tau^2; the refusal names the method as given.
        let e = heterogeneity_intervals(&records, &fe)
            .unwrap_err()
            .to_string();
        assert!(e.contains("method FE"), "{e}");
    }
    same(
        "influence_diagnostics",
        influence_diagnostics(&records, Method::Fe).unwrap(),
        influence_diagnostics(&records, Method::Ee).unwrap(),
    );
    same(
        "trim_and_fill",
        trim_and_fill(&records, Estimator::L0, None, Method::Fe).unwrap(),
        trim_and_fill(&records, Estimator::L0, None, Method::Ee).unwrap(),
    );
}
