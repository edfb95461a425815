//! Issue 29 items 5 and 9: the largest `fit_multilevel` and `selection_model` calls the
//! engine admits, each against the one-second target its bound promises (the engine alone,
//! natively: the fit with both profile-likelihood intervals, as the tool computes them).
//!
//! - The three-level model's bound is k · (p² + 24) ≤ [`MAX_MULTILEVEL_COST`]: at most
//!   64,000 records without moderators, 15,238 with 8 numeric moderators; both in studies of
//!   2 records, where the profile searches took longest (issue 29's probe).
//! - The selection model: the most records it takes ([`MAX_SELECTION_RECORDS`], 2,000
//!   since issue 41, set by its worst case, a maximiser that does not converge, measured at
//!   50,000 records: the tool's doc comment) and 10 steps (its most).

use meta_analysis::{
    multilevel, selection_model, FitOptions, Moderator, MultilevelOptions, Record,
    MAX_MULTILEVEL_COST,
};

use exemplar::tools::MAX_SELECTION_RECORDS;

use crate::largest_calls::row;
use crate::report::Report;

/// Deterministic uniforms on [0, 1) (splitmix64).
struct Uniform(u64);

impl Uniform {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `k` records in studies of 2, with `mods` numeric moderators (integers 0 to 9, as the
/// probe's): yᵢ = 0.2 + uⱼ + noise, vᵢ uniform on [0.01, 0.1].
fn pairs(k: usize, mods: usize) -> (Vec<Record>, Vec<String>, Vec<Moderator>) {
    let mut u = Uniform(0x5eed_0029_0005_0000 ^ k as u64);
    let mut records = Vec::with_capacity(k);
    let mut study = Vec::with_capacity(k);
    let mut columns = vec![Vec::with_capacity(k); mods];
    let mut between = 0.0;
    for i in 0..k {
        if i % 2 == 0 {
            between = 0.1 * (u.next() - 0.5);
        }
        let vi = 0.01 + 0.09 * u.next();
        let yi = 0.2 + between + 0.6 * (u.next() - 0.5);
        records.push(Record::new(format!("r{i}"), yi, vi));
        study.push(format!("s{}", i / 2));
        for column in &mut columns {
            column.push((10.0 * u.next()).floor());
        }
    }
    let mods = columns
        .into_iter()
        .enumerate()
        .map(|(m, x)| Moderator::numeric(format!("x{}", m + 1), x))
        .collect();
    (records, study, mods)
}

pub fn run(report: &mut Report) {
    let reml = MultilevelOptions::default();
    let without = (MAX_MULTILEVEL_COST / (1 + 24) as f64) as usize;
    let with_eight = (MAX_MULTILEVEL_COST / (9 * 9 + 24) as f64) as usize;
    for (k, mods) in [(without, 0), (with_eight, 8)] {
        eprintln!(
            "bench: the largest multilevel fits the bound admits, k = {k}, {mods} moderators"
        );
        let (records, study, moderators) = pairs(k, mods);
        row(
            report,
            &format!("multilevel_largest_k{k}_mods{mods}_ms"),
            format!(
                "largest admitted multilevel fit + profile CIs: k = {k} in pairs, {mods} moderators"
            ),
            || {
                let model = multilevel(&records, &study, &moderators, &reml).expect("admitted");
                model.profile_intervals().expect("intervals")
            },
        );
    }
    let k = MAX_SELECTION_RECORDS;
    eprintln!("bench: the largest selection model, k = {k}, 10 steps");
    let (records, _, _) = pairs(k, 0);
    let steps = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9];
    let options = FitOptions::default();
    row(
        report,
        &format!("selection_model_k{k}_steps10_ms"),
        format!("largest selection model: k = {k}, 10 steps"),
        || selection_model(&records, &steps, &options).expect("the model fits"),
    );
}
