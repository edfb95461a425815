//! Cluster-robust tests of general rma.mv models against clubSandwich 0.5.8 (fixture
//! `tests/fixtures/robust_rma_mv.json`, made by `tests/oracle/robust_rma_mv.R`): CR2 with
//! Satterthwaite df as `coef_test(fit, vcov = "CR2")` and the HTZ test of coefficients 2 and 3
//! as `Wald_test(test = "HTZ")`, within 1e-8. Every variance component is fixed at the value
//! rma.mv estimated (the R script refits with them fixed), so both sides test one fit. The
//! CHE case builds V with this engine's `vcalc` and checks it against metafor's first.

use meta_analysis::rma_mv::{
    rma_mv, InnerOuter, MvFixed, MvModel, RandomIntercept, Sampling, Struct, VBlock,
};
use meta_analysis::{robust_rma_mv, Method, RobustVcov};
use meta_analysis::{vcalc, LevelCorrelation, VcalcInput};
use serde_json::Value;

mod oracle_kit;

const TOL: f64 = 1e-8;

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn close(what: &str, ours: f64, theirs: f64) {
    let rel = (ours - theirs).abs() / theirs.abs().max(1.0);
    assert!(rel <= TOL, "{what}: ours {ours}, clubSandwich {theirs}");
}

/// The fixture's V blocks (metafor's).
fn fixture_blocks(case: &Value) -> Vec<VBlock> {
    case["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| VBlock {
            rows: nums(&b["rows"]).iter().map(|&r| r as usize).collect(),
            matrix: nums(&b["matrix"]),
        })
        .collect()
}

/// V by the engine's vcalc (cluster = study, obs = esid, rho = 0.6), checked against metafor's.
fn engine_vcalc(case: &Value) -> Vec<VBlock> {
    let (vi, cluster, esid) = (
        nums(&case["vi"]),
        strs(&case["cluster"]),
        strs(&case["esid"]),
    );
    let input = VcalcInput {
        vi: &vi,
        cluster: &cluster,
        subgroup: None,
        obs: Some(&esid),
        kind: None,
        time1: None,
        time2: None,
        grp1: None,
        grp2: None,
        w1: None,
        w2: None,
        rho_obs: Some(LevelCorrelation::Constant(0.6)),
        rho_type: None,
        phi: None,
    };
    let ours: Vec<VBlock> = vcalc(&input)
        .unwrap()
        .into_iter()
        .map(|b| VBlock {
            rows: b.rows,
            matrix: b.cov,
        })
        .collect();
    let theirs = fixture_blocks(case);
    let entry = |blocks: &[VBlock], i: usize, j: usize| -> f64 {
        blocks
            .iter()
            .find_map(|b| {
                let a = b.rows.iter().position(|&r| r == i)?;
                let c = b.rows.iter().position(|&r| r == j)?;
                Some(b.matrix[a * b.rows.len() + c])
            })
            .unwrap_or(0.0)
    };
    for i in 0..vi.len() {
        for j in 0..vi.len() {
            close("V", entry(&ours, i, j), entry(&theirs, i, j));
        }
    }
    ours
}

#[test]
fn cr2_and_htz_of_rma_mv_models_match_club_sandwich() {
    let all = oracle_kit::fixture("robust_rma_mv");
    for case in all["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let sampling = if case["esid"].is_array() {
            Sampling::Blocks(engine_vcalc(case))
        } else {
            Sampling::Blocks(fixture_blocks(case))
        };
        let (yi, x) = (nums(&case["yi"]), nums(&case["X"]));
        let model = MvModel {
            p: x.len() / yi.len(),
            yi,
            x,
            sampling,
            intercepts: case["intercepts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| RandomIntercept {
                    name: t["name"].as_str().unwrap().into(),
                    levels: strs(&t["levels"]),
                })
                .collect(),
            terms: case["terms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| InnerOuter {
                    inner_name: "inner".into(),
                    outer_name: "outer".into(),
                    inner: strs(&t["inner"]),
                    outer: strs(&t["outer"]),
                    structure: Struct::parse(t["struct"].as_str().unwrap()).unwrap(),
                })
                .collect(),
        };
        let given = |key: &str| nums(&case[key]).into_iter().map(Some).collect();
        let fixed = MvFixed {
            sigma2: given("sigma2"),
            tau2: given("tau2"),
            rho: given("rho"),
            ..MvFixed::default()
        };
        let fit = rma_mv(&model, Method::Reml, &fixed).unwrap();
        let names: Vec<String> = ["intrcpt", "b2", "b3"].map(String::from).to_vec();
        let cluster = strs(&case["cluster"]);
        let test = robust_rma_mv(&model, &fit, &names, &cluster, RobustVcov::Cr2, 0.95).unwrap();
        for (j, c) in test.coefficients.iter().enumerate() {
            let at = |key: &str| nums(&case[key])[j];
            close(&format!("{name} beta {j}"), c.estimate, at("beta"));
            close(&format!("{name} se {j}"), c.se, at("se"));
            close(&format!("{name} t {j}"), c.statistic, at("t"));
            close(&format!("{name} df {j}"), c.df, at("df"));
            close(&format!("{name} p {j}"), c.p, at("p"));
        }
        let htz = test.htz_wald_btt(&[1, 2]).unwrap();
        let want = &case["htz"];
        close(&format!("{name} F"), htz.f, want["f"].as_f64().unwrap());
        assert_eq!(htz.df_num, 2, "{name}");
        let df = want["df_denom"].as_f64().unwrap();
        close(&format!("{name} df2"), htz.df_denom, df);
        close(&format!("{name} F p"), htz.p, want["p"].as_f64().unwrap());
    }
}

#[test]
fn clusters_that_split_a_random_effect_are_refused() {
    let all = oracle_kit::fixture("robust_rma_mv");
    let case = &all["cases"][0];
    let model = MvModel {
        yi: nums(&case["yi"]),
        x: nums(&case["X"]),
        p: 3,
        sampling: Sampling::Blocks(fixture_blocks(case)),
        intercepts: Vec::new(),
        terms: vec![InnerOuter {
            inner_name: "outcome".into(),
            outer_name: "trial".into(),
            inner: strs(&case["terms"][0]["inner"]),
            outer: strs(&case["terms"][0]["outer"]),
            structure: Struct::Un,
        }],
    };
    let fit = rma_mv(&model, Method::Reml, &MvFixed::default()).unwrap();
    let names: Vec<String> = ["intrcpt", "b2", "b3"].map(String::from).to_vec();
    // One record per cluster: every trial's two outcomes fall in different clusters.
    let split: Vec<String> = (0..model.yi.len()).map(|i| format!("r{i}")).collect();
    let e = robust_rma_mv(&model, &fit, &names, &split, RobustVcov::Cr2, 0.95).unwrap_err();
    assert!(e.to_string().contains("must nest"), "{e}");
}
