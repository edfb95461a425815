//! Leave-one-out: the model refitted k times, each time without one record.

use crate::model::{assemble, Fit, FitOptions};
use crate::omission::each_omission;
use crate::records::{validate, Record};
use crate::MetaError;

/// The fit without the record `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaveOneOut {
    pub id: String,
    pub fit: Fit,
}

/// Refits the model once per record, leaving that record out (needs at least 3 records so
/// that each refit has 2). Each omission costs O(k) (see `omission.rs`): 10⁴ records take
/// well under a second natively. The results equal plain refits of the k − 1 records to
/// 1e-12 relative; `iterations` counts the Newton steps taken from the full data's τ̂².
pub fn leave_one_out(
    records: &[Record],
    options: &FitOptions,
) -> Result<Vec<LeaveOneOut>, MetaError> {
    let data = validate(records, 3, "leave-one-out")?;
    options.validate()?;
    let k = data.k();
    each_omission(&data.yi, &data.vi, options.method)?
        .iter()
        .zip(records)
        .map(|(omitted, record)| {
            Ok(LeaveOneOut {
                id: record.id.clone(),
                fit: assemble(k - 1, omitted.tau2, &omitted.re, &omitted.fe, options)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fit_data;
    use crate::{Method, Test};

    /// Records with a deterministic spread of effects and variances (a linear congruential
    /// sequence), heterogeneous or not.
    fn generated(k: usize, tau: f64, seed: u64) -> Vec<Record> {
        let mut state = seed;
        let mut uniform = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..k)
            .map(|i| {
                let vi = 0.005 + 0.2 * uniform();
                let yi = 0.3 + tau * (uniform() - 0.5) * 3.4 + vi.sqrt() * (uniform() - 0.5) * 3.4;
                Record::new(format!("r{i}"), yi, vi)
            })
            .collect()
    }

    fn close(what: &str, fast: f64, refit: f64) {
        let err = (fast - refit).abs();
        assert!(
            err <= 1e-12 * refit.abs().max(1e-300) || err <= 1e-15,
            "{what}: fast {fast:e}, refit {refit:e}"
        );
    }

    /// Every number of every omission equals the plain refit's, for every estimator and
    /// both tests, on data with and without heterogeneity and with a dominant record.
    #[test]
    fn fast_omissions_equal_plain_refits() {
        let mut sets = vec![
            generated(40, 0.3, 1),
            generated(25, 0.0, 2),
            generated(12, 0.05, 3),
            generated(200, 0.2, 4),
        ];
        let mut dominant = generated(15, 0.2, 5);
        dominant[3].vi = 1e-5;
        sets.push(dominant);
        for records in &sets {
            for method in Method::ALL {
                for test in [Test::Z, Test::Knha] {
                    let options = FitOptions {
                        method,
                        test,
                        level: 0.95,
                    };
                    let fast = leave_one_out(records, &options).unwrap();
                    for (i, row) in fast.iter().enumerate() {
                        let mut rest = records.clone();
                        rest.remove(i);
                        let yi: Vec<f64> = rest.iter().map(|r| r.yi).collect();
                        let vi: Vec<f64> = rest.iter().map(|r| r.vi).collect();
                        let refit = fit_data(&yi, &vi, &options).unwrap();
                        let (a, b) = (&row.fit, &refit);
                        let at = |f: &str| {
                            format!("k={} {} {:?} #{i} {f}", records.len(), method.name(), test)
                        };
                        assert_eq!(a.k, b.k);
                        close(&at("tau2"), a.tau2, b.tau2);
                        close(&at("estimate"), a.estimate, b.estimate);
                        close(&at("se"), a.se, b.se);
                        close(&at("statistic"), a.statistic, b.statistic);
                        close(&at("p"), a.p, b.p);
                        close(&at("ci_lower"), a.ci_lower, b.ci_lower);
                        close(&at("ci_upper"), a.ci_upper, b.ci_upper);
                        close(&at("q"), a.q, b.q);
                        close(&at("q_p"), a.q_p, b.q_p);
                        close(&at("i2"), a.i2, b.i2);
                        close(&at("h2"), a.h2, b.h2);
                        close(&at("pi_lower"), a.pi_lower, b.pi_lower);
                        close(&at("pi_upper"), a.pi_upper, b.pi_upper);
                        close(
                            &at("se_tau2"),
                            a.se_tau2.unwrap_or(0.0),
                            b.se_tau2.unwrap_or(0.0),
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn too_few_records_and_bad_levels_are_refused() {
        let two = generated(2, 0.1, 9);
        assert!(matches!(
            leave_one_out(&two, &FitOptions::default()),
            Err(MetaError::TooFewRecords { needed: 3, .. })
        ));
        let options = FitOptions {
            level: 1.0,
            ..FitOptions::default()
        };
        assert!(matches!(
            leave_one_out(&generated(5, 0.1, 9), &options),
            Err(MetaError::InvalidLevel { .. })
        ));
    }
}
