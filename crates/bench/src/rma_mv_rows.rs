//! Issue 44's rows: the general rma.mv engine (`meta_analysis::rma_mv`, the one behind
//! `fit_multilevel`'s `random`, `struct` and `vcalc`) on the issue-22 records (studies of 10
//! effect sizes, [`nested`]): the three-level fit (`~ 1 | study/es`, diagonal V) and the CHE
//! fit (V by vcalc(vi, cluster = study, obs = es, rho = 0.6), then `~ 1 | study/es`), REML,
//! at k = 10³ and 10⁴, against 10 ms and 200 ms natively; beside metafor's
//! rma.mv(sparse = TRUE) at k = 10³ when R has it (`scripts/rma_mv.R`, one fit each: about
//! 30 s). At k = 10⁴ rma.mv takes minutes a fit, so its times there were measured once and
//! are recorded in docs/PERFORMANCE.md, not rerun by the bench.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use meta_analysis::rma_mv::{rma_mv, MvFixed, MvModel, RandomIntercept, Sampling, VBlock};
use meta_analysis::{vcalc, LevelCorrelation, Method, VcalcInput};

use bench::generate::{nested, Nested};

use crate::harness::{cpu_ms, time};
use crate::report::{Report, Target};

/// The CHE model's within-study correlation (vcalc's rho).
const CHE_RHO: f64 = 0.6;

/// `~ 1 | study/es` over the records, with V diagonal (`che` false) or vcalc's blocks.
fn model(data: &Nested, che: bool) -> MvModel {
    let k = data.records.len();
    let vi: Vec<f64> = data.records.iter().map(|r| r.vi).collect();
    let es: Vec<String> = (0..k).map(|i| i.to_string()).collect();
    let sampling = if che {
        let blocks = vcalc(&VcalcInput {
            vi: &vi,
            cluster: &data.study,
            obs: Some(&es),
            rho_obs: Some(LevelCorrelation::Constant(CHE_RHO)),
            ..VcalcInput::default()
        })
        .expect("vcalc of the bench's records");
        Sampling::Blocks(
            blocks
                .into_iter()
                .map(|b| VBlock {
                    rows: b.rows,
                    matrix: b.cov,
                })
                .collect(),
        )
    } else {
        Sampling::Diagonal(vi)
    };
    MvModel {
        yi: data.records.iter().map(|r| r.yi).collect(),
        x: vec![1.0; k],
        p: 1,
        sampling,
        intercepts: vec![
            RandomIntercept {
                name: "study".into(),
                levels: data.study.clone(),
            },
            RandomIntercept {
                name: "study/es".into(),
                levels: data
                    .study
                    .iter()
                    .zip(&es)
                    .map(|(s, e)| format!("{s}/{e}"))
                    .collect(),
            },
        ],
        terms: Vec::new(),
    }
}

pub fn run(report: &mut Report, root: &Path, native_only: bool) {
    for (m, label, target) in [(100, "10^3", 10.0), (1000, "10^4", 200.0)] {
        let data = nested(m, 10);
        let k = 10 * m;
        for (che, name, what) in [
            (false, "three_level", "~ 1 | study/es, diagonal V"),
            (true, "che", "vcalc(rho = 0.6) V, ~ 1 | study/es"),
        ] {
            eprintln!("bench: rma_mv {name}, k = {label}");
            let mv = model(&data, che);
            let fit = rma_mv(&mv, Method::Reml, &MvFixed::default()).expect("the records fit");
            let t = time(Duration::from_millis(1500), 5, || {
                rma_mv(black_box(&mv), Method::Reml, &MvFixed::default())
            });
            report.add_target(
                format!("rma_mv_{name}_k{k}_ms"),
                format!("rma_mv REML {what}, k = {label} in {m} studies (one fit)"),
                t.median_ms(),
                "ms",
                Target::AtMost(target),
            );
            // The wall time grows with other work on the machine; this thread's CPU time
            // hardly does (ticks of 10 ms, so over several fits).
            let reps = if k == 10_000 { 5 } else { 40 };
            let cpu = cpu_ms(|| {
                for _ in 0..reps {
                    black_box(rma_mv(black_box(&mv), Method::Reml, &MvFixed::default()).ok());
                }
            }) / f64::from(reps);
            report.add(
                format!("rma_mv_{name}_k{k}_cpu_ms"),
                format!("  CPU time a fit, mean of {reps}"),
                cpu,
                "ms",
            );
            report.add(
                format!("rma_mv_{name}_k{k}_iterations"),
                format!(
                    "  its iterations (gradient {:.1e}, sigma2 {:.4}, {:.4})",
                    fit.gradient_norm, fit.sigma2[0], fit.sigma2[1]
                ),
                fit.iterations as f64,
                "",
            );
        }
    }
    if !native_only {
        r_figures(report, root);
    }
}

/// metafor's rma.mv(sparse = TRUE) on the same k = 10³ records, beside ours.
fn r_figures(report: &mut Report, root: &Path) {
    let what = "rma.mv(sparse = TRUE)";
    let Some(kv) = crate::dependent::r_key_values(report, root, "rma_mv.R", what) else {
        return;
    };
    let version = kv.get("metafor").map_or("", String::as_str);
    for (name, what) in [("three_level", "~ 1 | study/es"), ("che", "vcalc V, CHE")] {
        let key = format!("metafor_rma_mv_sparse_{name}_k1000_ms");
        let theirs = kv
            .get(key.as_str())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(f64::NAN);
        report.add(
            &key,
            format!("metafor {version} rma.mv(REML, {what}, sparse = TRUE), k = 10^3"),
            theirs,
            "ms",
        );
        let ours = report
            .value(&format!("rma_mv_{name}_k1000_ms"))
            .unwrap_or(f64::NAN);
        report.add(format!("{key}_over_ours"), "  R / ours", theirs / ours, "×");
    }
}
