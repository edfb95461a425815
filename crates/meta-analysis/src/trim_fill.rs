//! Duval & Tweedie's trim-and-fill method (Duval & Tweedie 2000, Biometrics 56, 455–463;
//! JASA 95, 89–98), run as metafor 3.8-1's `trimfill()`.

use crate::estimators::{estimate_tau2, Method, Moments};
use crate::model::{fit_data, Fit, FitOptions};
use crate::records::validate;
use crate::weighted::{Degenerate, Design, Wls};
use crate::{MetaError, Record};

/// The estimator of the number of missing records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum Estimator {
    /// L₀ = (4Sᵣ − k(k + 1)) / (2k − 1), Sᵣ the sum of the positive signed ranks.
    #[default]
    L0,
    /// R₀ = γ* − 1, γ* the length of the rightmost run of positive ranks.
    R0,
}

impl Estimator {
    pub fn name(self) -> &'static str {
        match self {
            Estimator::L0 => "L0",
            Estimator::R0 => "R0",
        }
    }

    /// Every estimator, the default (L0) first.
    pub const ALL: [Estimator; 2] = [Estimator::L0, Estimator::R0];

    pub fn parse(name: &str) -> Option<Estimator> {
        Estimator::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// The side of the funnel on which records are taken to be missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Side {
    Left,
    Right,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
        }
    }

    pub const ALL: [Side; 2] = [Side::Left, Side::Right];

    pub fn parse(name: &str) -> Option<Side> {
        Side::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// A filled record.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FilledRecord {
    pub yi: f64,
    pub vi: f64,
}

/// A trim-and-fill result as an answer reports it ([`TrimAndFill::summary`]): the
/// estimator's outcome, then the adjusted fit's numbers (its z test, no test, level or
/// iterations: `trimfill()` refits with a z test at 95 %), then the filled records.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TrimAndFillSummary {
    /// "L0" or "R0".
    pub estimator: Estimator,
    /// "left" or "right": where records are estimated to be missing.
    pub side: Side,
    /// Estimated number of missing records.
    pub k0: usize,
    /// Standard error of k0; null where metafor's L0 variance formula is negative.
    pub se_k0: Option<f64>,
    /// R0 only (else null): the p value of the test of no missing records, 0.5^(k0 + 1)
    /// (metafor's p.k0).
    pub k0_p: Option<f64>,
    /// The estimator of tau^2 of every fit.
    pub method: Method,
    /// Records in the adjusted fit: the records plus the k0 filled ones.
    pub k: usize,
    /// Adjusted pooled estimate (the fit of the records and the filled ones).
    pub estimate: f64,
    pub se: f64,
    /// z statistic of the adjusted estimate.
    pub statistic: f64,
    /// Two-sided p value of the adjusted estimate.
    pub p: f64,
    /// 95% confidence interval of the adjusted estimate.
    pub ci_lower: f64,
    pub ci_upper: f64,
    /// 95% prediction interval of the adjusted fit.
    pub pi_lower: f64,
    pub pi_upper: f64,
    /// tau^2 of the adjusted fit, tau (its square root), the standard error of tau^2 (null
    /// where the estimator gives none), I^2 (percent) and H^2.
    pub tau2: f64,
    pub tau: f64,
    pub se_tau2: Option<f64>,
    pub i2: f64,
    pub h2: f64,
    /// Cochran's Q of the adjusted fit on k - 1 df, and its p value.
    pub q: f64,
    pub q_df: usize,
    pub q_p: f64,
    /// The filled records, mirror images of the k0 most extreme records on the other side.
    pub filled: Vec<FilledRecord>,
}

/// The iteration limit (metafor's `maxiter`).
pub const MAX_ITERATIONS: usize = 100;

/// The outcome of trim-and-fill.
#[derive(Debug, Clone, PartialEq)]
pub struct TrimAndFill {
    pub estimator: Estimator,
    pub side: Side,
    /// Estimated number of missing records.
    pub k0: usize,
    /// Its standard error; `None` where the L₀ variance formula is negative (metafor's NaN).
    pub se_k0: Option<f64>,
    /// Iterations of the trim-and-estimate loop.
    pub iterations: usize,
    /// The filled records (yᵢ, vᵢ): the mirror images, about the last trimmed estimate, of the
    /// k₀ records furthest out on the other side, in that order.
    pub filled: Vec<(f64, f64)>,
    /// The model refitted (same method, z test, level 0.95) to the records and the filled
    /// ones; k counts both.
    pub fit: Fit,
}

impl TrimAndFill {
    /// What an answer reports of this result.
    pub fn summary(&self) -> TrimAndFillSummary {
        let fit = &self.fit;
        TrimAndFillSummary {
            estimator: self.estimator,
            side: self.side,
            k0: self.k0,
            se_k0: self.se_k0,
            k0_p: self.k0_p(),
            method: fit.method,
            k: fit.k,
            estimate: fit.estimate,
            se: fit.se,
            statistic: fit.statistic,
            p: fit.p,
            ci_lower: fit.ci_lower,
            ci_upper: fit.ci_upper,
            pi_lower: fit.pi_lower,
            pi_upper: fit.pi_upper,
            tau2: fit.tau2,
            tau: fit.tau,
            se_tau2: fit.se_tau2,
            i2: fit.i2,
            h2: fit.h2,
            q: fit.q,
            q_df: fit.q_df,
            q_p: fit.q_p,
            filled: self
                .filled
                .iter()
                .map(|&(yi, vi)| FilledRecord { yi, vi })
                .collect(),
        }
    }

    /// The p value of R₀'s test that no records are missing, as metafor's `trimfill()`
    /// prints it: 0.5^(k₀ + 1) (Duval & Tweedie 2000, the probability of a run of k₀ + 1
    /// records beyond the estimate under no asymmetry); `None` for L₀, which has no test.
    pub fn k0_p(&self) -> Option<f64> {
        (self.estimator == Estimator::R0).then(|| {
            crate::math::powi(
                0.5,
                i32::try_from(self.k0).unwrap_or(i32::MAX).saturating_add(1),
            )
        })
    }
}

/// Trim-and-fill on at least 3 records, with `method` for every fit.
///
/// The side, when not given, is metafor's: the sign of the slope β₁ of the meta-regression
/// yᵢ = β₀ + β₁√vᵢ fitted with `method` (missing on the right when β₁ < 0, else on the left).
/// The effects are negated when the side is right, then sorted increasingly (ties keep record
/// order). Starting from k₀ = 0, each iteration fits `method` to the k − k₀ smallest, centres
/// all k effects on that estimate μ̂, ranks |yᵢ − μ̂| (ties in record order, R's
/// `ties.method = "first"`), signs the ranks and estimates k₀ (L₀ or R₀, rounded half to even,
/// at least 0), until k₀ repeats, at most [`MAX_ITERATIONS`] times. se(L₀) =
/// 4√Var(Sᵣ)/(2k − 1) with Var(Sᵣ) = [k(k+1)(2k+1) + 10k₀³ + 27k₀² + 17k₀ − 18kk₀² − 18kk₀ +
/// 6k²k₀]/24 at the unrounded k₀; se(R₀) = √(2·max(0, k₀) + 2). The filled records mirror the
/// k₀ largest about μ̂ (2μ̂ − yᵢ, keeping vᵢ); the final model is refitted with `method`, the z
/// test and level 0.95 to the records plus the filled ones.
pub fn trim_and_fill(
    records: &[Record],
    estimator: Estimator,
    side: Option<Side>,
    method: Method,
) -> Result<TrimAndFill, MetaError> {
    within(records, estimator, side, method, MAX_ITERATIONS)
}

/// [`trim_and_fill`] with an iteration limit.
fn within(
    records: &[Record],
    estimator: Estimator,
    side: Option<Side>,
    method: Method,
    max_iterations: usize,
) -> Result<TrimAndFill, MetaError> {
    let data = validate(records, 3, "trim-and-fill")?;
    let side = match side {
        Some(side) => side,
        None => estimated_side(&data.yi, &data.vi, method)?,
    };
    let k = data.k();
    let flip = if side == Side::Right { -1.0 } else { 1.0 };
    let mut order: Vec<usize> = (0..k).collect();
    // + 0.0 makes −0 equal to 0, as R compares them.
    let flipped: Vec<f64> = data.yi.iter().map(|y| flip * y + 0.0).collect();
    order.sort_by(|&a, &b| flipped[a].total_cmp(&flipped[b]));
    let ys: Vec<f64> = order.iter().map(|&i| flipped[i]).collect();
    let vs: Vec<f64> = order.iter().map(|&i| data.vi[i]).collect();

    let kf = k as f64;
    let mut k0 = 0usize;
    let mut previous = None;
    let mut iterations = 0;
    let (mut beta, mut se_k0);
    loop {
        crate::cancel::checkpoint()?;
        iterations += 1;
        if iterations > max_iterations {
            return Err(MetaError::NoFixedPoint {
                analysis: "trim-and-fill",
                iterations: max_iterations,
            });
        }
        beta = trimmed_estimate(&ys[..k - k0], &vs[..k - k0], method)?;
        let signed = signed_ranks(&ys, beta);
        let raw = match estimator {
            Estimator::R0 => {
                let deepest = signed
                    .iter()
                    .filter(|r| **r < 0.0)
                    .map(|r| -r)
                    .fold(f64::NAN, f64::max);
                if deepest.is_nan() {
                    return Err(MetaError::Undefined {
                        reason: "trim-and-fill's R0 estimator is undefined here: no record lies \
                                 on the side of the trimmed estimate opposite the missing ones"
                            .into(),
                    });
                }
                let r0 = kf - deepest - 1.0;
                se_k0 = Some((2.0 * r0.max(0.0) + 2.0).sqrt());
                r0
            }
            Estimator::L0 => {
                let sr: f64 = signed.iter().filter(|r| **r > 0.0).sum();
                let l0 = (4.0 * sr - kf * (kf + 1.0)) / (2.0 * kf - 1.0);
                let var_sr = (kf * (kf + 1.0) * (2.0 * kf + 1.0)
                    + 10.0 * crate::math::powi(l0, 3)
                    + 27.0 * l0 * l0
                    + 17.0 * l0
                    - 18.0 * kf * l0 * l0
                    - 18.0 * kf * l0
                    + 6.0 * kf * kf * l0)
                    / 24.0;
                se_k0 = (var_sr >= 0.0).then(|| 4.0 * var_sr.sqrt() / (2.0 * kf - 1.0));
                l0
            }
        };
        k0 = raw.round_ties_even().max(0.0) as usize;
        if k0 >= k {
            return Err(MetaError::Undefined {
                reason: format!(
                    "trim-and-fill estimates {k0} missing records, as many as the {k} given: \
                     nothing would be left to estimate the centre from"
                ),
            });
        }
        if previous == Some(k0) {
            break;
        }
        previous = Some(k0);
    }

    let filled: Vec<(f64, f64)> = (k - k0..k)
        .map(|j| (-flip * ((ys[j] - beta) - beta), vs[j]))
        .collect();
    let options = FitOptions::default();
    let options = FitOptions { method, ..options };
    let mut yi = data.yi.clone();
    let mut vi = data.vi.clone();
    yi.extend(filled.iter().map(|f| f.0));
    vi.extend(filled.iter().map(|f| f.1));
    let fit = fit_data(&yi, &vi, &options)?;
    Ok(TrimAndFill {
        estimator,
        side,
        k0,
        se_k0,
        iterations,
        filled,
        fit,
    })
}

/// The side from the sign of the slope on √vᵢ (see [`trim_and_fill`]).
fn estimated_side(y: &[f64], v: &[f64], method: Method) -> Result<Side, MetaError> {
    let sei: Vec<f64> = v.iter().map(|vi| vi.sqrt()).collect();
    if sei.iter().all(|s| *s == sei[0]) {
        return Err(MetaError::Undefined {
            reason: "trim-and-fill cannot estimate the side of the missing records when all \
                     records have the same sampling variance (the regression on √vi that \
                     decides it has no spread); give the side (\"left\" or \"right\")"
                .into(),
        });
    }
    let x = Design::intercept_and(sei);
    let tau2 = estimate_tau2(method, y, v, &x)?;
    let fit = Wls::random_effects(y, v, &x, tau2.tau2).map_err(Degenerate::error)?;
    Ok(if fit.beta[1] < 0.0 {
        Side::Right
    } else {
        Side::Left
    })
}

/// The pooled estimate of the trimmed records (one record: its own effect, as metafor).
fn trimmed_estimate(y: &[f64], v: &[f64], method: Method) -> Result<f64, MetaError> {
    if y.len() == 1 {
        return Ok(y[0]);
    }
    let x = Design::intercept();
    let tau2 = estimate_tau2(method, y, v, &x)?;
    Ok(Moments::at(y, v, &x, tau2.tau2)
        .map_err(Degenerate::error)?
        .beta0)
}

/// sign(yᵢ − μ̂)·rank(|yᵢ − μ̂|), ranks 1..k with ties in order of position.
fn signed_ranks(ys: &[f64], beta: f64) -> Vec<f64> {
    let centred: Vec<f64> = ys.iter().map(|y| y - beta).collect();
    let mut by_size: Vec<usize> = (0..ys.len()).collect();
    by_size.sort_by(|&a, &b| centred[a].abs().total_cmp(&centred[b].abs()));
    let mut signed = vec![0.0; ys.len()];
    for (rank, &i) in by_size.iter().enumerate() {
        let sign = if centred[i] > 0.0 {
            1.0
        } else if centred[i] < 0.0 {
            -1.0
        } else {
            0.0
        };
        signed[i] = sign * (rank + 1) as f64;
    }
    signed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small studies with large effects only on the right: records are missing on the left.
    fn asymmetric() -> Vec<Record> {
        let mut records = Vec::new();
        for i in 0..12 {
            let vi = 0.005 + 0.01 * i as f64;
            let yi = 0.2 + 2.0 * vi.sqrt() * (if i % 4 == 0 { 0.2 } else { 1.0 });
            records.push(Record::new(format!("r{i}"), yi, vi));
        }
        records
    }

    #[test]
    fn fills_the_left_of_an_asymmetric_funnel() {
        let result = trim_and_fill(&asymmetric(), Estimator::L0, None, Method::Reml).unwrap();
        assert_eq!(result.side, Side::Left);
        assert!(result.k0 > 0);
        assert_eq!(result.fit.k, 12 + result.k0);
        assert_eq!(result.filled.len(), result.k0);
        let plain = crate::fit(&asymmetric(), &FitOptions::default()).unwrap();
        assert!(result.fit.estimate < plain.estimate);
    }

    #[test]
    fn equal_variances_need_a_side() {
        let records: Vec<Record> = (0..6)
            .map(|i| Record::new(format!("r{i}"), 0.1 * (i * i) as f64, 0.04))
            .collect();
        let e = trim_and_fill(&records, Estimator::L0, None, Method::Reml).unwrap_err();
        assert!(e.to_string().contains("give the side"), "{e}");
        let given = trim_and_fill(&records, Estimator::L0, Some(Side::Left), Method::Reml);
        assert!(given.is_ok(), "{given:?}");
    }

    /// Reaching the iteration limit before k₀ repeats is an error that says so, never a
    /// result from an unfinished loop.
    #[test]
    fn an_unsettled_k0_is_an_error() {
        let done = trim_and_fill(&asymmetric(), Estimator::L0, None, Method::Reml).unwrap();
        assert!(done.iterations >= 2);
        let e = within(
            &asymmetric(),
            Estimator::L0,
            None,
            Method::Reml,
            done.iterations - 1,
        )
        .unwrap_err();
        assert_eq!(
            e,
            MetaError::NoFixedPoint {
                analysis: "trim-and-fill",
                iterations: done.iterations - 1
            }
        );
        assert!(e.to_string().contains("did not settle"), "{e}");
    }

    /// R0 needs a record on the near side of the trimmed estimate.
    #[test]
    fn r0_without_a_record_below_the_centre_is_refused() {
        let records: Vec<Record> = (0..4)
            .map(|i| Record::new(format!("r{i}"), 1.0, 0.01 * (i + 1) as f64))
            .collect();
        let e = trim_and_fill(&records, Estimator::R0, Some(Side::Left), Method::Reml).unwrap_err();
        assert!(e.to_string().contains("R0 estimator is undefined"), "{e}");
    }

    #[test]
    fn ranks_break_ties_by_position() {
        assert_eq!(
            signed_ranks(&[-1.0, 1.0, 0.0, 2.0], 0.0),
            [-2.0, 3.0, 0.0, 4.0]
        );
    }
}
