//! The known sampling covariance against metafor's vcalc() on the datasets of its help page
//! (`tests/fixtures/vcalc.json`, made by `tests/oracle/vcalc.R`): every block's rows and
//! entries within 1e-12 (relative to the block's largest variance).

mod oracle_kit;

use meta_analysis::{vcalc, LevelCorrelation, VcalcInput};
use serde_json::Value;

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
}

fn numbers(v: &Value) -> Option<Vec<f64>> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap()).collect())
}

/// The case's rho as the engine takes it: one number for obs or for type, two (within,
/// between) for both, or a matrix over named levels.
fn rho(case: &Value) -> (Option<LevelCorrelation>, Option<LevelCorrelation>) {
    let columns = &case["columns"];
    let (has_obs, has_type) = (columns.get("obs").is_some(), columns.get("type").is_some());
    let rho = &case["rho"];
    let one = |v: &Value| -> LevelCorrelation {
        match v.as_f64() {
            Some(r) => LevelCorrelation::Constant(r),
            None => LevelCorrelation::Matrix {
                levels: strings(&v["levels"]).unwrap(),
                values: numbers(&v["values"]).unwrap(),
            },
        }
    };
    let list = rho.as_array();
    match (has_obs, has_type) {
        (true, true) => {
            let l = list.unwrap();
            (Some(one(&l[0])), Some(one(&l[1])))
        }
        (true, false) => (Some(one(list.map_or(rho, |l| &l[0]))), None),
        (false, true) => (None, Some(one(list.map_or(rho, |l| &l[0])))),
        (false, false) => (None, None),
    }
}

#[test]
fn vcalc_matches_metafor_block_by_block() {
    let all = oracle_kit::fixture("vcalc");
    let cases = all["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 7);
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let c = &case["columns"];
        let vi = numbers(&c["vi"]).unwrap();
        let cluster = strings(&c["cluster"]).unwrap();
        let (obs, kind) = (strings(&c["obs"]), strings(&c["type"]));
        let (grp1, grp2) = (strings(&c["grp1"]), strings(&c["grp2"]));
        let (time1, time2) = (numbers(&c["time1"]), numbers(&c["time2"]));
        let (w1, w2) = (numbers(&c["w1"]), numbers(&c["w2"]));
        let (rho_obs, rho_type) = rho(case);
        let input = VcalcInput {
            vi: &vi,
            cluster: &cluster,
            subgroup: None,
            obs: obs.as_deref(),
            kind: kind.as_deref(),
            time1: time1.as_deref(),
            time2: time2.as_deref(),
            grp1: grp1.as_deref(),
            grp2: grp2.as_deref(),
            w1: w1.as_deref(),
            w2: w2.as_deref(),
            rho_obs,
            rho_type,
            phi: case["phi"].as_f64(),
        };
        let blocks = vcalc(&input).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = case["blocks"].as_array().unwrap();
        assert_eq!(blocks.len(), expected.len(), "{name}: clusters");
        for (ours, theirs) in blocks.iter().zip(expected) {
            assert_eq!(ours.cluster, theirs["cluster"].as_str().unwrap(), "{name}");
            let rows: Vec<usize> = numbers(&theirs["rows"])
                .unwrap()
                .iter()
                .map(|&r| r as usize)
                .collect();
            assert_eq!(ours.rows, rows, "{name}: rows of {}", ours.cluster);
            let cov = numbers(&theirs["cov"]).unwrap();
            let scale = cov.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for (a, (x, y)) in ours.cov.iter().zip(&cov).enumerate() {
                if (x - y).abs() > 1e-12 * scale {
                    failures.push(format!(
                        "{name}, cluster {}, entry {a}: {x} vs {y}",
                        ours.cluster
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
