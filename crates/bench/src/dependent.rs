//! Issue 22's figures: the three-level model (REML, k = 10⁴ effect sizes in 10³ studies)
//! and cluster-robust CR2 tests (k = 10⁴ in 10³ clusters) natively, against their 100 ms
//! targets; and at k = 10³ (10² studies) beside metafor's rma.mv and clubSandwich's
//! coef_test when R has them (`scripts/dependent.R`). metafor's rma.mv builds k × k
//! matrices: at k = 10⁴ one REML fit took 431 s on this machine (sparse = TRUE), so R is
//! compared at k = 10³.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use meta_analysis::{
    multilevel, robust_fit, robust_multilevel, FitOptions, Moderator, MultilevelOptions, RobustVcov,
};

use bench::generate::{nested, Nested};

use crate::harness::time;
use crate::report::{Report, Target};

/// The records as the bench's R scripts read them (yi, vi, study, x; `scripts/dependent.R`,
/// `scripts/rma_mv.R`).
pub fn csv(data: &Nested) -> String {
    let mut out = String::from("yi,vi,study,x\n");
    for ((r, s), x) in data.records.iter().zip(&data.study).zip(&data.x) {
        out.push_str(&format!("{},{},{},{}\n", r.yi, r.vi, s, x));
    }
    out
}

pub fn run(report: &mut Report, root: &Path, native_only: bool) {
    let reml = MultilevelOptions::default();
    for (m, label) in [(1000, "10^4"), (100, "10^3")] {
        let data = nested(m, 10);
        let k = 10 * m;
        eprintln!("bench: multilevel REML and CR2, k = {label}");
        let budget = Duration::from_millis(1500);
        let t = time(budget, 5, || {
            multilevel(black_box(&data.records), &data.study, &[], &reml)
        });
        let key = format!("multilevel_reml_k{k}_ms");
        let what = format!("multilevel REML fit, k = {label} in {m} studies (one fit)");
        if k == 10_000 {
            report.add_target(&key, what, t.median_ms(), "ms", Target::AtMost(100.0));
        } else {
            report.add(&key, what, t.median_ms(), "ms");
        }
        let model = multilevel(&data.records, &data.study, &[], &reml).expect("the records fit");
        report.add(
            format!("multilevel_reml_k{k}_iterations"),
            "  its Newton iterations",
            model.iterations as f64,
            "",
        );
        let mods = [Moderator::numeric("x", data.x.clone())];
        let t = time(budget, 5, || {
            multilevel(black_box(&data.records), &data.study, &mods, &reml)
        });
        report.add(
            format!("multilevel_reml_mods_k{k}_ms"),
            format!("  with one moderator, k = {label}"),
            t.median_ms(),
            "ms",
        );
        let t = time(budget, 3, || model.profile_intervals());
        report.add(
            format!("multilevel_profile_ci_k{k}_ms"),
            format!("  profile-likelihood CIs of both sigma2, k = {label}"),
            t.median_ms(),
            "ms",
        );
        let options = FitOptions::default();
        let t = time(budget, 5, || {
            robust_fit(
                black_box(&data.records),
                &options,
                &data.study,
                RobustVcov::Cr2,
            )
        });
        let key = format!("cr2_k{k}_ms");
        let what = format!(
            "CR2 + Satterthwaite df of a REML fit, k = {label} in {m} clusters (fit included)"
        );
        if k == 10_000 {
            report.add_target(&key, what, t.median_ms(), "ms", Target::AtMost(100.0));
        } else {
            report.add(&key, what, t.median_ms(), "ms");
        }
        let t = time(budget, 3, || {
            robust_multilevel(
                black_box(&data.records),
                &data.study,
                &[],
                &reml,
                &data.study,
                RobustVcov::Cr2,
            )
        });
        report.add(
            format!("cr2_multilevel_k{k}_ms"),
            format!("  CR2 of the multilevel fit, k = {label} (fit included)"),
            t.median_ms(),
            "ms",
        );
    }
    crate::robust_bounds::run(report);
    if native_only {
        return;
    }
    r_figures(report, root);
}

/// Runs `crates/bench/scripts/SCRIPT` with Rscript on the k = 10³ nested records and reads
/// the `key value` lines it prints; None (with a note in the report saying why, `what`
/// naming the figures missed) where Rscript or a package is absent or the script fails.
pub(crate) fn r_key_values(
    report: &mut Report,
    root: &Path,
    script: &str,
    what: &str,
) -> Option<HashMap<String, String>> {
    let ok = Command::new("Rscript")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        report.note(format!("Rscript is not installed: no {what} figures"));
        return None;
    }
    let dir = std::env::temp_dir().join(format!("bench-{script}-{}", std::process::id()));
    let path = dir.join("nested_k1000.csv");
    if let Err(e) =
        std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, csv(&nested(100, 10))))
    {
        report.note(format!("cannot write the records for R: {e}"));
        return None;
    }
    eprintln!("bench: {what}, k = 10^3 (about 30 s)");
    let out = Command::new("Rscript")
        .arg(root.join("crates/bench/scripts").join(script))
        .arg(&path)
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let out = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        Ok(o) => {
            let stderr = String::from_utf8_lossy(&o.stderr);
            let last = stderr.lines().last().unwrap_or("");
            report.note(format!("{script} failed: {last}"));
            return None;
        }
        Err(e) => {
            report.note(format!("{script} failed: {e}"));
            return None;
        }
    };
    let kv: HashMap<String, String> = out
        .lines()
        .filter_map(|l| l.trim().split_once(' '))
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .collect();
    if let Some(reason) = kv.get("absent") {
        report.note(format!("{reason}: no {what} figures"));
        return None;
    }
    Some(kv)
}

fn r_figures(report: &mut Report, root: &Path) {
    let Some(kv) = r_key_values(report, root, "dependent.R", "rma.mv or clubSandwich") else {
        return;
    };
    let num = |k: &str| {
        kv.get(k)
            .and_then(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    let version = |k: &str| kv.get(k).map_or("", |v| v.trim()).to_string();
    let pairs = [
        (
            "metafor_rma_mv_k1000_ms",
            format!(
                "metafor {} rma.mv(REML, ~ 1 | study/id), k = 10^3 (one fit)",
                version("metafor")
            ),
            "multilevel_reml_k1000_ms",
        ),
        (
            "clubsandwich_cr2_k1000_ms",
            format!(
                "clubSandwich {} coef_test(CR2) of an rma() fit, k = 10^3 in 100 clusters",
                version("clubSandwich")
            ),
            "cr2_k1000_ms",
        ),
        (
            "clubsandwich_cr2_mv_k1000_ms",
            "clubSandwich coef_test(CR2) of the rma.mv fit, k = 10^3".to_string(),
            "cr2_multilevel_k1000_ms",
        ),
    ];
    for (key, label, ours) in pairs {
        let theirs = num(key);
        report.add(key, label, theirs, "ms");
        report.add(
            format!("{key}_over_ours"),
            "  R / ours",
            theirs / report.value(ours).unwrap_or(f64::NAN),
            "×",
        );
    }
}
