//! Cluster-robust tests: refusals that must come before any work, and the reasons given
//! (issue 29). Agreement with clubSandwich and metafor is in `tests/multilevel.rs`.

use meta_analysis::{
    robust_fit, robust_meta_regression, robust_multilevel, FitOptions, Moderator,
    MultilevelOptions, Record, RobustVcov, MAX_CLUSTER_COST,
};

/// `m` clusters of `n` records each, named c0, c1, …
fn clusters(m: usize, n: usize) -> Vec<String> {
    (0..m * n).map(|i| format!("c{}", i / n)).collect()
}

fn records(k: usize) -> Vec<Record> {
    (0..k)
        .map(|i| {
            Record::new(
                format!("r{i}"),
                (i % 7) as f64 * 0.1,
                0.02 + (i % 3) as f64 * 0.01,
            )
        })
        .collect()
}

/// Two clusters of 1001 records pass the bound (2 · 1001³ > 2·10⁹): the refusal comes
/// before the model is fitted. The three-level model here cannot be fitted (every study has
/// one record) and the random-effects records are invalid (a negative vi): were either
/// fitted first, that would be the error.
#[test]
fn clusters_past_the_cost_bound_are_refused_before_the_model_is_fitted() {
    let n = 1001;
    assert!(2.0 * (n as f64).powi(3) > MAX_CLUSTER_COST);
    assert!(2.0 * 1000f64.powi(3) <= MAX_CLUSTER_COST);
    let cl = clusters(2, n);
    let recs = records(2 * n);
    let studies: Vec<String> = (0..2 * n).map(|i| format!("s{i}")).collect();
    let too_large = |e: meta_analysis::MetaError| {
        let text = e.to_string();
        assert!(text.contains("too large"), "{text}");
        assert!(text.contains("2.006006002e9"), "{text}");
    };
    for vcov in [RobustVcov::Cr2, RobustVcov::Cr1] {
        let e = robust_multilevel(
            &recs,
            &studies,
            &[],
            &MultilevelOptions::default(),
            &cl,
            vcov,
        )
        .unwrap_err();
        too_large(e);
        let mut bad = recs.clone();
        bad[0].vi = -1.0;
        too_large(robust_fit(&bad, &FitOptions::default(), &cl, vcov).unwrap_err());
        let mods = [Moderator::numeric("x", vec![f64::NAN; 2 * n])];
        too_large(
            robust_meta_regression(&recs, &mods, &FitOptions::default(), &cl, vcov).unwrap_err(),
        );
    }
}

/// Identical yᵢ in five clusters: every residual is zero, so the robust variance is zero
/// whatever the clusters; the reason says so rather than blaming a single cluster.
#[test]
fn identical_effect_sizes_are_refused_for_what_they_are() {
    for y in [0.5, 0.0, -3.25e6] {
        let recs: Vec<Record> = (0..15)
            .map(|i| Record::new(format!("r{i}"), y, 0.01 + 0.01 * (i % 4) as f64))
            .collect();
        let cl = clusters(5, 3);
        for vcov in [RobustVcov::Cr2, RobustVcov::Cr1] {
            let e = robust_fit(&recs, &FitOptions::default(), &cl, vcov).unwrap_err();
            let text = e.to_string();
            assert!(!text.contains("single cluster"), "{text}");
            assert!(text.contains("fits every effect size exactly"), "{text}");
            assert!(text.contains("every yi is the same"), "{text}");
        }
    }
}

/// A coefficient estimated from one cluster alone keeps its reason.
#[test]
fn a_coefficient_of_one_cluster_still_blames_that_cluster() {
    let recs = records(12);
    let cl = clusters(4, 3);
    // x = 0 in cluster c0 alone: the intercept (the mean at x = 0) rests on c0's records.
    let not_c0: Vec<f64> = (0..12).map(|i| if i < 3 { 0.0 } else { 1.0 }).collect();
    let mods = [Moderator::numeric("x", not_c0)];
    let e = robust_meta_regression(&recs, &mods, &FitOptions::default(), &cl, RobustVcov::Cr1)
        .unwrap_err();
    assert!(e.to_string().contains("single cluster"), "{e}");
}

/// CR2 does not depend on the order of the records within or across clusters (the
/// three-level model's studies lie in clusters of several studies, of uneven sizes).
#[test]
fn cr2_does_not_depend_on_the_order_of_the_records() {
    let k = 60;
    let recs: Vec<Record> = (0..k)
        .map(|i| {
            let y = 0.1 * ((i * 37) % 11) as f64 + 0.05 * (i / 9) as f64;
            Record::new(format!("r{i}"), y, 0.01 + 0.004 * ((i * 13) % 7) as f64)
        })
        .collect();
    let study: Vec<String> = (0..k).map(|i| format!("s{}", (i * i) % 17)).collect();
    let cl: Vec<String> = (0..k).map(|i| format!("c{}", ((i * i) % 17) % 6)).collect();
    let x: Vec<f64> = (0..k).map(|i| ((i * 29) % 13) as f64 / 13.0).collect();
    let run = |order: &[usize]| {
        let pick = |v: &[String]| order.iter().map(|&i| v[i].clone()).collect::<Vec<_>>();
        let r: Vec<Record> = order.iter().map(|&i| recs[i].clone()).collect();
        let mods = [Moderator::numeric(
            "x",
            order.iter().map(|&i| x[i]).collect(),
        )];
        robust_multilevel(
            &r,
            &pick(&study),
            &mods,
            &MultilevelOptions::default(),
            &pick(&cl),
            RobustVcov::Cr2,
        )
        .unwrap()
    };
    let forward: Vec<usize> = (0..k).collect();
    let shuffled: Vec<usize> = (0..k).map(|i| (i * 23) % k).collect();
    let (a, b) = (run(&forward), run(&shuffled));
    for (ca, cb) in a.coefficients.iter().zip(&b.coefficients) {
        for (u, v) in [(ca.se, cb.se), (ca.df, cb.df), (ca.p, cb.p)] {
            assert!((u - v).abs() <= 1e-10 * u.abs(), "{ca:?} {cb:?}");
        }
    }
}
