//! Cumulative meta-analysis: the model refitted as the records are added one at a time, in
//! the order given, as metafor 3.8-1's `cumul()` (Lau et al. 1992, NEJM 327, 248–254).

use crate::distributions::{normal_quantile, normal_two_sided_p};
use crate::model::{fit_data, FitOptions, Test};
use crate::records::validate;
use crate::{MetaError, Record};

/// The model fitted to the first `k` records.
///
/// Serialized (feature `serde`) as a row of `cumulative_meta_analysis`' answer, without the
/// step's test (the answer names the test once; a row read back has `Test::Z`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct CumulativeStep {
    /// The id of the record added at this step.
    pub added: String,
    /// Records pooled so far.
    pub k: usize,
    pub estimate: f64,
    pub se: f64,
    /// z (t with k − 1 df under test "knha", from k = 2 on; z at k = 1).
    pub statistic: f64,
    /// The test of this step: `Test::Z` at k = 1 whatever was asked.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub test: Test,
    /// Two-sided p value of estimate = 0.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub tau2: f64,
    /// I² in percent.
    pub i2: f64,
    /// Cochran's Q.
    pub q: f64,
    /// The p value of Q (1 at k = 1: Q = 0 on 0 df, as metafor prints it).
    pub q_p: f64,
    /// H² (1 at k = 1).
    pub h2: f64,
}

/// Fits the first 1, 2, …, k of `records` (at least 1), in the order given.
///
/// Step k = 1 is metafor's: τ̂² = 0 whatever the method, the estimate is y₁ with standard
/// error √v₁, the test is z (Knapp–Hartung needs k ≥ 2), and Q = 0, I² = 0. Every later step
/// is the fit of [`crate::fit`] with `options`. A step that cannot be fitted refuses the
/// whole analysis, naming the step.
pub fn cumulative(
    records: &[Record],
    options: &FitOptions,
) -> Result<Vec<CumulativeStep>, MetaError> {
    let data = validate(records, 1, "a cumulative meta-analysis")?;
    options.validate()?;
    let mut steps = Vec::with_capacity(data.k());
    let first = &records[0];
    let se = first.vi.sqrt();
    let z = first.yi / se;
    let crit = normal_quantile(1.0 - (1.0 - options.level) / 2.0);
    steps.push(CumulativeStep {
        added: first.id.clone(),
        k: 1,
        estimate: first.yi,
        se,
        statistic: z,
        test: Test::Z,
        p: normal_two_sided_p(z),
        ci_lower: first.yi - crit * se,
        ci_upper: first.yi + crit * se,
        tau2: 0.0,
        i2: 0.0,
        q: 0.0,
        q_p: 1.0,
        h2: 1.0,
    });
    for k in 2..=data.k() {
        crate::cancel::checkpoint()?;
        let fit =
            fit_data(&data.yi[..k], &data.vi[..k], options).map_err(|e| MetaError::Undefined {
                reason: format!(
                    "the cumulative meta-analysis cannot fit step k = {k} (after adding {:?}): {e}",
                    records[k - 1].id
                ),
            })?;
        steps.push(CumulativeStep {
            added: records[k - 1].id.clone(),
            k,
            estimate: fit.estimate,
            se: fit.se,
            statistic: fit.statistic,
            test: fit.test,
            p: fit.p,
            ci_lower: fit.ci_lower,
            ci_upper: fit.ci_upper,
            tau2: fit.tau2,
            i2: fit.i2,
            q: fit.q,
            q_p: fit.q_p,
            h2: fit.h2,
        });
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit;

    #[test]
    fn the_last_step_is_the_fit_and_the_first_is_the_record() {
        let records = vec![
            Record::new("a", 0.1, 0.01),
            Record::new("b", 0.3, 0.02),
            Record::new("c", -0.1, 0.04),
        ];
        let options = FitOptions {
            test: Test::Knha,
            ..FitOptions::default()
        };
        let steps = cumulative(&records, &options).unwrap();
        assert_eq!(steps.len(), 3);
        assert_eq!((steps[0].estimate, steps[0].se), (0.1, 0.1));
        assert_eq!(steps[0].test, Test::Z);
        let all = fit(&records, &options).unwrap();
        assert_eq!(steps[2].estimate, all.estimate);
        assert_eq!(steps[2].ci_upper, all.ci_upper);
        assert_eq!(steps[2].added, "c");
    }
}
