//! Q-profile confidence intervals for τ², τ, I² and H² (Viechtbauer 2007; metafor's
//! `confint` for `rma.uni`).
//!
//! The generalized Q statistic Q(τ²) = Σ wᵢ(τ²)(yᵢ − xᵢ′β̂(τ²))², wᵢ = 1/(vᵢ + τ²), follows a
//! χ² distribution with k − p df at the true τ², and decreases in τ² (dQ/dτ² = −y′PPy). The
//! interval is the set of τ² ≥ 0 at which Q(τ²) lies between the χ² quantiles:
//! the lower bound solves Q(τ²) = χ²_{k−p, 1−α/2}, the upper Q(τ²) = χ²_{k−p, α/2}.
//! Bounds at the edge of the parameter space: when Q(0) is already below the upper quantile,
//! the lower bound is 0; when it is below the lower quantile too, both are 0 (metafor calls
//! the interval the null set). The roots are found by [`crate::solver::newton_bracketed`]
//! to a relative change of 1e-12 in τ²; I² and H² follow from τ² through the typical
//! within-study variance s² = (k − p)/tr(P₀): I² = 100·τ²/(s² + τ²), H² = 1 + τ²/s².

use crate::distributions::chi2_quantile;
use crate::estimators::{Moments, REL_TOL};
use crate::model::{fit_data, Heterogeneity};
use crate::records::{validate, Record};
use crate::solver::newton_bracketed;
use crate::weighted::{Degenerate, Design};
use crate::{Fit, FitOptions, MetaError, Method};

/// Where a bound of the τ² interval came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundKind {
    /// The root of Q(τ²) = its χ² quantile.
    Root,
    /// 0, because Q(0) is already below the quantile: no τ² ≥ 0 solves the equation.
    Zero,
    /// Q stays above the quantile up to the end of the search range, so the bound lies
    /// beyond it; the end of the range is reported.
    BeyondSearch,
}

/// One bound of the τ² interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    pub tau2: f64,
    pub kind: BoundKind,
}

/// A quantity's estimate and interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub estimate: f64,
    pub lower: f64,
    pub upper: f64,
}

/// The heterogeneity of an intercept-only random-effects model with Q-profile intervals.
#[derive(Debug, Clone, PartialEq)]
pub struct HeterogeneityIntervals {
    /// The fit the point estimates come from (Q, τ², I², H²).
    pub fit: Fit,
    pub tau2: Interval,
    pub tau: Interval,
    pub i2: Interval,
    pub h2: Interval,
    pub lower: Bound,
    pub upper: Bound,
    /// Both bounds are 0 because Q(0) lies below even the lower χ² quantile: no τ² ≥ 0 is
    /// consistent with the data at this level (metafor's "null set").
    pub empty: bool,
    /// The χ² quantiles the two bounds solve for (lower bound: the upper quantile).
    pub chi2_upper: f64,
    pub chi2_lower: f64,
}

impl HeterogeneityIntervals {
    /// What an answer reports of these intervals: the fit's Q, the four estimates with
    /// their bounds, and whether the interval is the null set.
    pub fn estimates(&self) -> HeterogeneityEstimates {
        HeterogeneityEstimates {
            k: self.fit.k,
            method: self.fit.method,
            level: self.fit.level,
            q: self.fit.q,
            q_df: self.fit.q_df,
            q_p: self.fit.q_p,
            tau2: self.tau2,
            tau: self.tau,
            i2: self.i2,
            h2: self.h2,
            empty: self.empty,
        }
    }
}

/// The Q-profile heterogeneity estimates as an answer reports them.
///
/// Serialized (feature `serde`) flat (`SerializedHeterogeneityEstimates`): each interval as
/// its estimate under the quantity's name and its bounds as `<name>_ci_lower` and
/// `<name>_ci_upper`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "serde",
    serde(
        into = "SerializedHeterogeneityEstimates",
        from = "SerializedHeterogeneityEstimates"
    )
)]
pub struct HeterogeneityEstimates {
    pub k: usize,
    pub method: Method,
    pub level: f64,
    pub q: f64,
    pub q_df: usize,
    pub q_p: f64,
    pub tau2: Interval,
    pub tau: Interval,
    pub i2: Interval,
    pub h2: Interval,
    /// The intervals are the null (empty) set (see [`HeterogeneityIntervals::empty`]).
    pub empty: bool,
}

/// [`HeterogeneityEstimates`] as it is serialized, in the order of the tool's answer.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SerializedHeterogeneityEstimates {
    /// Records analysed.
    k: usize,
    /// The tau^2 estimator of the point estimates.
    method: Method,
    /// Confidence level of the intervals.
    level: f64,
    /// Cochran's Q, its df (k - 1) and p value.
    q: f64,
    q_df: usize,
    q_p: f64,
    tau2: f64,
    tau2_ci_lower: f64,
    tau2_ci_upper: f64,
    tau: f64,
    tau_ci_lower: f64,
    tau_ci_upper: f64,
    /// I^2 in percent.
    i2: f64,
    i2_ci_lower: f64,
    i2_ci_upper: f64,
    h2: f64,
    h2_ci_lower: f64,
    h2_ci_upper: f64,
    /// True when Q at tau^2 = 0 is below even the lower chi-square quantile, so no tau^2 >= 0
    /// is consistent with the data: the intervals are the null (empty) set, their bounds
    /// reported at the edge (0, and 1 for H^2) as metafor's confint() holds them and printed
    /// as "<0.0000" as its print does.
    ci_empty: bool,
}

#[cfg(feature = "serde")]
impl From<HeterogeneityEstimates> for SerializedHeterogeneityEstimates {
    fn from(h: HeterogeneityEstimates) -> Self {
        SerializedHeterogeneityEstimates {
            k: h.k,
            method: h.method,
            level: h.level,
            q: h.q,
            q_df: h.q_df,
            q_p: h.q_p,
            tau2: h.tau2.estimate,
            tau2_ci_lower: h.tau2.lower,
            tau2_ci_upper: h.tau2.upper,
            tau: h.tau.estimate,
            tau_ci_lower: h.tau.lower,
            tau_ci_upper: h.tau.upper,
            i2: h.i2.estimate,
            i2_ci_lower: h.i2.lower,
            i2_ci_upper: h.i2.upper,
            h2: h.h2.estimate,
            h2_ci_lower: h.h2.lower,
            h2_ci_upper: h.h2.upper,
            ci_empty: h.empty,
        }
    }
}

#[cfg(feature = "serde")]
impl From<SerializedHeterogeneityEstimates> for HeterogeneityEstimates {
    fn from(s: SerializedHeterogeneityEstimates) -> Self {
        let interval = |estimate, lower, upper| Interval {
            estimate,
            lower,
            upper,
        };
        HeterogeneityEstimates {
            k: s.k,
            method: s.method,
            level: s.level,
            q: s.q,
            q_df: s.q_df,
            q_p: s.q_p,
            tau2: interval(s.tau2, s.tau2_ci_lower, s.tau2_ci_upper),
            tau: interval(s.tau, s.tau_ci_lower, s.tau_ci_upper),
            i2: interval(s.i2, s.i2_ci_lower, s.i2_ci_upper),
            h2: interval(s.h2, s.h2_ci_lower, s.h2_ci_upper),
            empty: s.ci_empty,
        }
    }
}

/// The end of the search range for a bound. Inside the engine's input range
/// ([`crate::MAX_ABS_YI`], [`crate::MAX_VI`]) Q(τ²) falls below any quantile long before it.
pub const TAU2_SEARCH_MAX: f64 = 1e300;

/// Fits the random-effects model by `options.method` (not EE: the intervals are about a
/// τ² that the model estimates) and adds Q-profile intervals at `options.level`.
pub fn heterogeneity_intervals(
    records: &[Record],
    options: &FitOptions,
) -> Result<HeterogeneityIntervals, MetaError> {
    let data = validate(records, 2, "a heterogeneity analysis")?;
    if options.method.is_equal_effects() {
        return Err(MetaError::Undefined {
            reason: format!(
                "the equal-effects model (method {}) fixes τ² at 0, so it has no interval \
                 for τ²; choose a random-effects method (REML by default)",
                options.method.name()
            ),
        });
    }
    let fit = fit_data(&data.yi, &data.vi, options)?;
    let x = Design::intercept();
    let profile = q_profile(&data.yi, &data.vi, &x, options.level, TAU2_SEARCH_MAX)?;
    let vt = Heterogeneity::of(&data.yi, &data.vi, &x, options.method, fit.tau2)?.vt;
    let i2 = |t: f64| 100.0 * t / (vt + t);
    let h2 = |t: f64| 1.0 + t / vt;
    let (lo, hi) = (profile.lower.tau2, profile.upper.tau2);
    let result = HeterogeneityIntervals {
        tau2: Interval {
            estimate: fit.tau2,
            lower: lo,
            upper: hi,
        },
        tau: Interval {
            estimate: fit.tau,
            lower: lo.sqrt(),
            upper: hi.sqrt(),
        },
        i2: Interval {
            estimate: fit.i2,
            lower: i2(lo),
            upper: i2(hi),
        },
        h2: Interval {
            estimate: fit.h2,
            lower: h2(lo),
            upper: h2(hi),
        },
        fit,
        lower: profile.lower,
        upper: profile.upper,
        empty: profile.empty,
        chi2_upper: profile.chi2_upper,
        chi2_lower: profile.chi2_lower,
    };
    let all = [result.tau2, result.tau, result.i2, result.h2];
    if all
        .iter()
        .all(|i| i.lower.is_finite() && i.upper.is_finite())
    {
        Ok(result)
    } else {
        Err(MetaError::NonFiniteResult {
            quantity: "Q-profile interval",
        })
    }
}

pub(crate) struct Profile {
    pub lower: Bound,
    pub upper: Bound,
    pub empty: bool,
    pub chi2_upper: f64,
    pub chi2_lower: f64,
}

/// The Q-profile bounds for design `x` at `level`, searching τ² in [0, `tau2_max`].
pub(crate) fn q_profile(
    y: &[f64],
    v: &[f64],
    x: &Design,
    level: f64,
    tau2_max: f64,
) -> Result<Profile, MetaError> {
    let df = (y.len() - x.p()) as f64;
    let alpha = 1.0 - level;
    let chi2_upper = chi2_quantile(1.0 - alpha / 2.0, df);
    let chi2_lower = chi2_quantile(alpha / 2.0, df);
    if !(chi2_upper.is_finite() && chi2_lower.is_finite()) {
        return Err(MetaError::NonFiniteResult {
            quantity: "χ² quantile of the Q-profile interval",
        });
    }
    let q = |tau2: f64| Moments::at(y, v, x, tau2).map_err(Degenerate::error);
    let q0 = q(0.0)?.ypy;
    let zero = Bound {
        tau2: 0.0,
        kind: BoundKind::Zero,
    };
    if q0 < chi2_lower {
        return Ok(Profile {
            lower: zero,
            upper: zero,
            empty: true,
            chi2_upper,
            chi2_lower,
        });
    }
    let upper = solve(y, &q, chi2_lower, tau2_max)?;
    let lower = if q0 < chi2_upper {
        zero
    } else {
        solve(y, &q, chi2_upper, tau2_max)?
    };
    Ok(Profile {
        lower,
        upper,
        empty: false,
        chi2_upper,
        chi2_lower,
    })
}

/// The τ² ≥ 0 with Q(τ²) = `target`, given Q(0) ≥ target: bracketed by doubling from the
/// spread of the yᵢ (or 1), then solved by Newton with dQ/dτ² = −y′PPy.
fn solve(
    y: &[f64],
    q: &dyn Fn(f64) -> Result<Moments, MetaError>,
    target: f64,
    tau2_max: f64,
) -> Result<Bound, MetaError> {
    let f = |tau2: f64| q(tau2).map(|m| (m.ypy - target, -m.yppy));
    if f(0.0)?.0 == 0.0 {
        return Ok(Bound {
            tau2: 0.0,
            kind: BoundKind::Root,
        });
    }
    let (_, spread) = crate::weighted::plain_mean_spread(y);
    let mut hi = if spread.is_finite() && spread > 0.0 {
        spread
    } else {
        1.0
    }
    .min(tau2_max);
    loop {
        let (value, _) = f(hi)?;
        if !value.is_finite() {
            return Err(MetaError::NonFiniteResult {
                quantity: "generalized Q statistic of the Q-profile interval",
            });
        }
        if value < 0.0 {
            break;
        }
        if hi >= tau2_max {
            return Ok(Bound {
                tau2: tau2_max,
                kind: BoundKind::BeyondSearch,
            });
        }
        hi = (2.0 * hi).min(tau2_max);
    }
    let root = newton_bracketed(
        |t| f(t).unwrap_or((f64::NAN, f64::NAN)),
        0.0,
        hi,
        REL_TOL,
        500,
    )
    .map_err(|_| MetaError::NonFiniteResult {
        quantity: "root of the Q-profile equation",
    })?;
    Ok(Bound {
        tau2: root.x,
        kind: BoundKind::Root,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Method;

    fn records() -> Vec<Record> {
        [
            (0.30, 0.04),
            (0.12, 0.02),
            (0.95, 0.05),
            (0.02, 0.01),
            (0.58, 0.03),
            (-0.25, 0.02),
        ]
        .iter()
        .enumerate()
        .map(|(i, &(y, v))| Record::new(format!("r{i}"), y, v))
        .collect()
    }

    #[test]
    fn the_bounds_solve_the_q_profile_equations() {
        let recs = records();
        let h = heterogeneity_intervals(&recs, &FitOptions::default()).unwrap();
        let (y, v): (Vec<f64>, Vec<f64>) = recs.iter().map(|r| (r.yi, r.vi)).unzip();
        let x = Design::intercept();
        let q = |t: f64| Moments::at(&y, &v, &x, t).unwrap().ypy;
        assert_eq!(
            (h.lower.kind, h.upper.kind),
            (BoundKind::Root, BoundKind::Root)
        );
        assert!((q(h.tau2.lower) - h.chi2_upper).abs() < 1e-9);
        assert!((q(h.tau2.upper) - h.chi2_lower).abs() < 1e-9);
        assert!(h.tau2.lower < h.tau2.estimate && h.tau2.estimate < h.tau2.upper);
        assert!((h.tau.upper - h.tau2.upper.sqrt()).abs() < 1e-15);
        assert!(h.i2.lower < h.i2.estimate && h.i2.estimate < h.i2.upper);
    }

    #[test]
    fn bounds_at_zero_and_beyond_the_search_range_are_said() {
        let spread = |step: f64| -> Vec<Record> {
            (0..6)
                .map(|i| Record::new(format!("r{i}"), 0.1 + step * i as f64, 0.04))
                .collect()
        };
        // Q(0) = 4.375 on 5 df: below the upper quantile (12.8), so the lower bound is 0.
        let h = heterogeneity_intervals(&spread(0.1), &FitOptions::default()).unwrap();
        assert!((h.fit.q - 4.375).abs() < 1e-12);
        assert_eq!(
            (h.lower.kind, h.upper.kind),
            (BoundKind::Zero, BoundKind::Root)
        );
        assert!(!h.empty && h.tau2.lower == 0.0 && h.tau2.upper > 0.0);
        assert_eq!((h.i2.lower, h.h2.lower), (0.0, 1.0));
        // Q(0) = 0.044: below the lower quantile (0.83) too, so both bounds are 0.
        let h = heterogeneity_intervals(&spread(0.01), &FitOptions::default()).unwrap();
        assert!(h.empty, "Q(0) = {}", h.fit.q);
        assert_eq!((h.tau2.lower, h.tau2.upper), (0.0, 0.0));
        let (y, v): (Vec<f64>, Vec<f64>) = records().iter().map(|r| (r.yi, r.vi)).unzip();
        let p = q_profile(&y, &v, &Design::intercept(), 0.95, 1e-3).unwrap();
        assert_eq!(p.upper.kind, BoundKind::BeyondSearch);
        assert_eq!(p.upper.tau2, 1e-3);
        let e = heterogeneity_intervals(
            &records(),
            &FitOptions {
                method: Method::Ee,
                ..FitOptions::default()
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("no interval for τ²"), "{e}");
    }
}
