//! Agreement with R's metafor 3.8-1 back-transformations beyond exp, ilogit and ztor
//! (fixture: `tests/fixtures/transforms.json`, made by `tests/oracle/transforms.R`):
//! `transf.iarcsin`, `transf.ipft.hm` with its sample sizes, `transf.iirft` at a person-time,
//! `transf.isqrt`, `transf.iahw` and `transf.iabt`, on grids crossing each range and its
//! bounds. Agreement is to 1e-12 (absolute: every value lies in [0, 1] or near it).

use meta_analysis::TransformKind;

mod oracle_kit;

/// Closed forms in metafor's order of operations; 1e-12 leaves room for a libm's last bits.
const TOL: f64 = 1e-12;

#[test]
fn each_transform_agrees_with_metafor() {
    let all = oracle_kit::fixture("transforms");
    assert_eq!(all["provenance"]["packages"]["metafor"], "3.8.1");
    let (mut compared, mut largest) = (0, 0.0_f64);
    let mut failures = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for case in all["cases"].as_array().unwrap() {
        let name = case["transform"].as_str().unwrap();
        let kind = TransformKind::parse(name).unwrap_or_else(|| panic!("{name}"));
        seen.insert(name);
        let values: Vec<Option<f64>> = match kind.harmonic_mean_of() {
            Some("ni") => case["ni"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64())
                .collect(),
            Some(_) => vec![case["ti"].as_f64()],
            None => Vec::new(),
        };
        let transform = kind.bind(&values).expect("bound");
        let xs = case["x"].as_array().unwrap();
        let zs = case["z"].as_array().unwrap();
        assert_eq!(xs.len(), zs.len());
        for (x, z) in xs.iter().zip(zs) {
            let (x, z) = (
                x.as_f64().unwrap(),
                z.as_f64().expect("metafor gives a number"),
            );
            let ours = transform.apply(x);
            let d = (ours - z).abs();
            largest = largest.max(d);
            compared += 1;
            if d > TOL * z.abs().max(1.0) || !ours.is_finite() {
                failures.push(format!(
                    "{name} {values:?} at {x:e}: ours {ours:e}, metafor {z:e}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(seen.len(), 6, "{seen:?}");
    assert!(compared > 1000, "{compared}");
    eprintln!("{compared} values, largest difference {largest:e}");
}
