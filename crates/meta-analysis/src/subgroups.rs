//! Subgroup analysis: a separate fit per level of a text column, and the tests for
//! subgroup differences.

use crate::distributions::{chi2_sf, normal_quantile, normal_two_sided_p, upper_quantile_point};
use crate::math::sq;
use crate::meta_regression::{fit_coded, MetaRegression};
use crate::model::fit_data;
use crate::moderators::{check_levels, levels_of, Coding, Moderator};
use crate::records::{validate, Record};
use crate::{Fit, FitOptions, MetaError, Test};

/// One level's fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Subgroup {
    pub level: String,
    /// The fit of the level's records. A level with one record has τ² = 0, Q = 0 (0 df),
    /// I² = 0, H² = 1 and a z test whatever the options, as in metafor (`rma` with k = 1).
    pub fit: Fit,
    /// Whether the level has a single record (so the fit above is that record itself).
    pub single_record: bool,
}

impl Subgroup {
    /// What an answer reports of this level's fit ([`SubgroupFit`]).
    pub fn summary(&self) -> SubgroupFit {
        let fit = &self.fit;
        SubgroupFit {
            level: self.level.clone(),
            k: fit.k,
            estimate: fit.estimate,
            se: fit.se,
            statistic: fit.statistic,
            p: fit.p,
            ci_lower: fit.ci_lower,
            ci_upper: fit.ci_upper,
            tau2: fit.tau2,
            se_tau2: fit.se_tau2,
            q: fit.q,
            q_p: fit.q_p,
            i2: fit.i2,
            h2: fit.h2,
        }
    }
}

/// A level's fit as an answer reports it: the level, the estimate with its test (the
/// statistic named `statistic`: z, or t with k - 1 df with test "knha") and the level's
/// heterogeneity.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SubgroupFit {
    pub level: String,
    /// Records of this level.
    pub k: usize,
    pub estimate: f64,
    /// Standard error (Knapp-Hartung adjusted with test "knha", except for one record).
    pub se: f64,
    /// z, or t with k - 1 df with test "knha" (z for a level with one record).
    pub statistic: f64,
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    /// tau^2 within the level (0 for a level with one record).
    pub tau2: f64,
    /// Its standard error (null where the estimator gives none).
    pub se_tau2: Option<f64>,
    /// Cochran's Q within the level on k - 1 df (0 on 0 df for one record), and its p value.
    pub q: f64,
    pub q_p: f64,
    /// I^2 within the level, in percent, and H^2.
    pub i2: f64,
    pub h2: f64,
}

/// A subgroup analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct SubgroupAnalysis {
    /// All records.
    pub k: usize,
    /// One fit per level, levels sorted.
    pub groups: Vec<Subgroup>,
    /// Cochran's Q of the subgroup estimates θ̂_g with weights 1/se_g² (separate τ² per
    /// subgroup): Σ (θ̂_g − θ̄)²/se_g², θ̄ the weighted mean.
    pub q_between: f64,
    /// Levels − 1.
    pub q_between_df: usize,
    pub q_between_p: f64,
    /// The meta-regression on the factor (one common τ²): its QM is the alternative test.
    pub common_tau2: MetaRegression,
}

/// Fits each level of `values` (one text per record) separately with `options`, and tests
/// for subgroup differences both ways.
pub fn subgroup_analysis(
    records: &[Record],
    by: &str,
    values: &[String],
    options: &FitOptions,
) -> Result<SubgroupAnalysis, MetaError> {
    let data = validate(records, 2, "a subgroup analysis")?;
    options.validate()?;
    if values.len() != records.len() {
        return Err(MetaError::Moderator {
            reason: format!(
                "{by} has {} values for {} records",
                values.len(),
                records.len()
            ),
        });
    }
    let levels = levels_of(values);
    check_levels(by, &levels)?;
    let mut groups = Vec::with_capacity(levels.len());
    for level in &levels {
        crate::cancel::checkpoint()?;
        let (yi, vi): (Vec<f64>, Vec<f64>) = values
            .iter()
            .zip(records)
            .filter(|(v, _)| *v == level)
            .map(|(_, r)| (r.yi, r.vi))
            .unzip();
        let single_record = yi.len() == 1;
        let fit = if single_record {
            one_record(yi[0], vi[0], options)
        } else {
            fit_data(&yi, &vi, options)
        }
        .map_err(|error| MetaError::InSubgroup {
            by: by.to_string(),
            level: level.clone(),
            error: Box::new(error),
        })?;
        groups.push(Subgroup {
            level: level.clone(),
            fit,
            single_record,
        });
    }
    // About the centre of [`crate::weighted::centre`], as every Q (shift-invariant).
    let estimates: Vec<f64> = groups.iter().map(|g| g.fit.estimate).collect();
    let c = crate::weighted::centre(&estimates, groups.iter().map(|g| 1.0 / sq(g.fit.se)));
    let (sw, swy) = groups.iter().fold((0.0, 0.0), |(sw, swy), g| {
        let w = 1.0 / (g.fit.se * g.fit.se);
        (sw + w, swy + w * (g.fit.estimate - c))
    });
    let mean = swy / sw;
    let q_between: f64 = groups
        .iter()
        .map(|g| sq((g.fit.estimate - c) - mean) / (g.fit.se * g.fit.se))
        .sum();
    let q_between_df = groups.len() - 1;
    let coding = Coding::new(
        &[Moderator::factor(by, values.to_vec())],
        &|i| records[i].id.clone(),
        records.len(),
    )?;
    let common_tau2 = fit_coded(&data.yi, &data.vi, coding, options)?;
    let q_between_p = chi2_sf(q_between, q_between_df as f64);
    if !(q_between.is_finite() && q_between_p.is_finite()) {
        return Err(MetaError::NonFiniteResult {
            quantity: "Q statistic between subgroups",
        });
    }
    Ok(SubgroupAnalysis {
        k: records.len(),
        groups,
        q_between,
        q_between_df,
        q_between_p,
        common_tau2,
    })
}

/// The "fit" of one record, as metafor's `rma` gives it for k = 1: the record's effect with
/// its standard error √vᵢ, τ² = 0, a z test (metafor switches a t test to z for k = 1),
/// Q = 0 on 0 df with p = 1, I² = 0, H² = 1, and a prediction interval equal to the CI.
fn one_record(yi: f64, vi: f64, options: &FitOptions) -> Result<Fit, MetaError> {
    let se = vi.sqrt();
    let z = yi / se;
    let crit = normal_quantile(upper_quantile_point(options.level));
    Ok(Fit {
        method: options.method,
        test: Test::Z,
        level: options.level,
        k: 1,
        estimate: yi,
        se,
        statistic: z,
        df: None,
        p: normal_two_sided_p(z),
        ci_lower: yi - crit * se,
        ci_upper: yi + crit * se,
        tau2: 0.0,
        tau: 0.0,
        se_tau2: None,
        q: 0.0,
        q_df: 0,
        q_p: 1.0,
        i2: 0.0,
        h2: 1.0,
        pi_lower: yi - crit * se,
        pi_upper: yi + crit * se,
        iterations: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{fit, Method};

    fn data() -> (Vec<Record>, Vec<String>) {
        let records: Vec<Record> = [
            (0.30, 0.04),
            (0.12, 0.02),
            (0.65, 0.05),
            (0.02, 0.01),
            (0.48, 0.03),
            (-0.05, 0.02),
        ]
        .iter()
        .enumerate()
        .map(|(i, &(y, v))| Record::new(format!("r{i}"), y, v))
        .collect();
        let groups = ["b", "a", "b", "a", "b", "c"].map(String::from).to_vec();
        (records, groups)
    }

    #[test]
    fn each_level_is_its_own_fit_and_a_single_record_has_no_tau2() {
        let (records, groups) = data();
        for method in Method::ALL {
            let options = FitOptions {
                method,
                test: Test::Knha,
                ..FitOptions::default()
            };
            let s = subgroup_analysis(&records, "g", &groups, &options).unwrap();
            let levels: Vec<&str> = s.groups.iter().map(|g| g.level.as_str()).collect();
            assert_eq!(levels, ["a", "b", "c"]);
            let b = fit(
                &[records[0].clone(), records[2].clone(), records[4].clone()],
                &options,
            )
            .unwrap();
            assert_eq!(s.groups[1].fit, b);
            let c = &s.groups[2];
            assert!(c.single_record);
            assert_eq!((c.fit.tau2, c.fit.test, c.fit.q_df), (0.0, Test::Z, 0));
            assert_eq!((c.fit.estimate, c.fit.se), (-0.05, 0.02f64.sqrt()));
            assert_eq!(s.q_between_df, 2);
            assert_eq!(s.common_tau2.qm_df, 2);
            assert_eq!(s.common_tau2.qm_df2, Some(3));
        }
    }

    #[test]
    fn q_between_of_two_groups_is_the_squared_z_of_their_difference() {
        let (records, mut groups) = data();
        groups[5] = "a".into();
        let s = subgroup_analysis(&records, "g", &groups, &FitOptions::default()).unwrap();
        let (a, b) = (&s.groups[0].fit, &s.groups[1].fit);
        let z2 = sq(a.estimate - b.estimate) / (a.se * a.se + b.se * b.se);
        assert!((s.q_between - z2).abs() < 1e-12 * z2);
    }

    #[test]
    fn one_level_is_refused() {
        let (records, _) = data();
        let e = subgroup_analysis(&records, "g", &vec!["x".into(); 6], &FitOptions::default())
            .unwrap_err();
        assert!(e.to_string().contains("only one level"), "{e}");
    }
}
