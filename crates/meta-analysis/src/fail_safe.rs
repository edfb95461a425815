//! Fail-safe N: how many unpublished null results would overturn a conclusion, by the three
//! methods of metafor 3.8-1's `fsn` (Rosenthal 1979; Orwin 1983; Rosenberg 2005).

use crate::distributions::{normal_quantile, normal_two_sided_p};
use crate::math::sq;
use crate::records::validate;
use crate::{MetaError, Record};

/// Which fail-safe N (serialized by its [`FailSafeType::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum FailSafeType {
    /// Rosenthal (1979): null studies that bring Stouffer's combined z below significance.
    #[default]
    Rosenthal,
    /// Orwin (1983): null studies that bring the unweighted mean effect down to a target.
    Orwin,
    /// Rosenberg (2005): null studies that make the equal-effects estimate non-significant.
    Rosenberg,
}

impl FailSafeType {
    pub const ALL: [FailSafeType; 3] = [
        FailSafeType::Rosenthal,
        FailSafeType::Orwin,
        FailSafeType::Rosenberg,
    ];

    /// metafor's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            FailSafeType::Rosenthal => "Rosenthal",
            FailSafeType::Orwin => "Orwin",
            FailSafeType::Rosenberg => "Rosenberg",
        }
    }

    pub fn parse(name: &str) -> Option<FailSafeType> {
        FailSafeType::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// A fail-safe N and what it was computed from.
///
/// Serialized (feature `serde`) as `fail_safe_n`'s answer, without `k` (a result read back
/// has 0 there).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FailSafeN {
    /// "Rosenthal", "Orwin" or "Rosenberg".
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: FailSafeType,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub k: usize,
    /// The fail-safe number of null studies.
    pub fsn: u64,
    /// Significance level (used by Rosenthal and Rosenberg).
    pub alpha: f64,
    /// Orwin: the effect the mean is brought down to (default half the mean effect); null
    /// for the other types.
    pub target: Option<f64>,
    /// Rosenthal: the one-sided p value of Stouffer's combined z; Rosenberg: the two-sided p
    /// value of the equal-effects estimate; null for Orwin.
    pub observed_p: Option<f64>,
    /// Orwin: the unweighted mean effect; Rosenberg: the equal-effects (inverse-variance)
    /// estimate; null for Rosenthal.
    pub observed_effect: Option<f64>,
}

/// The largest fail-safe N reported: integers up to 2⁵³ are exact in a double (and in JSON).
pub const MAX_FSN: f64 = 9_007_199_254_740_992.0;

/// Fail-safe N of at least 2 records, with metafor's `fsn` defaults (Stouffer's method for
/// Rosenthal, the unweighted mean for Orwin).
///
/// - Rosenthal: zᵢ = yᵢ/√vᵢ, z̄ = |Σzᵢ|/√k, observed p = 1 − Φ(z̄),
///   N = max(0, k·(z̄/z_{1−α})² − k).
/// - Orwin: ȳ = Σyᵢ/k, target t (default ȳ/2; its sign is made that of ȳ),
///   N = max(0, k·(ȳ − t)/t); a target of 0 gives an infinite N, refused.
/// - Rosenberg: wᵢ = 1/vᵢ, μ̂ = Σwᵢyᵢ/Σwᵢ, observed p = 2(1 − Φ(|μ̂|√Σwᵢ)),
///   N = max(0, k·((Σwᵢyᵢ/z_{1−α/2})² − Σwᵢ)/Σwᵢ).
///
/// N is rounded as metafor does: up to the next integer unless within √ε of one.
pub fn fail_safe_n(
    records: &[Record],
    kind: FailSafeType,
    alpha: f64,
    target: Option<f64>,
) -> Result<FailSafeN, MetaError> {
    let data = validate(records, 2, "fail-safe N")?;
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(MetaError::Undefined {
            reason: format!(
                "alpha must be strictly between 0 and 1 (for example 0.05), got {alpha}"
            ),
        });
    }
    if target.is_some() && kind != FailSafeType::Orwin {
        return Err(MetaError::Undefined {
            reason: format!(
                "a target applies only to Orwin's fail-safe N, not to {}'s",
                kind.name()
            ),
        });
    }
    let (y, v) = (&data.yi, &data.vi);
    let k = data.k() as f64;
    let (raw, target, observed_p, observed_effect) = match kind {
        FailSafeType::Rosenthal => {
            let z_sum: f64 = y.iter().zip(v).map(|(yi, vi)| yi / vi.sqrt()).sum();
            let z_avg = (z_sum / k.sqrt()).abs();
            let p = normal_two_sided_p(z_avg) / 2.0;
            let crit = normal_quantile(1.0 - alpha);
            ((k * sq(z_avg / crit) - k).max(0.0), None, Some(p), None)
        }
        FailSafeType::Orwin => {
            let mean = y.iter().sum::<f64>() / k;
            let mut t = target.unwrap_or(mean / 2.0);
            if t == 0.0 {
                return Err(MetaError::Undefined {
                    reason: "Orwin's fail-safe N is infinite when the target effect is 0 (the \
                             default target, half the mean effect, is 0 when the mean effect is \
                             0): no number of null studies brings the mean to 0"
                        .into(),
                });
            }
            if t.signum() != signum0(mean) {
                t = -t;
            }
            ((k * (mean - t) / t).max(0.0), Some(t), None, Some(mean))
        }
        FailSafeType::Rosenberg => {
            let sw: f64 = v.iter().map(|vi| 1.0 / vi).sum();
            let swy: f64 = y.iter().zip(v).map(|(yi, vi)| yi / vi).sum();
            let mean = swy / sw;
            let z = mean / (1.0 / sw).sqrt();
            let crit = normal_quantile(1.0 - alpha / 2.0);
            let wp = sq(swy / crit) - sw;
            (
                (k * wp / sw).max(0.0),
                None,
                Some(normal_two_sided_p(z)),
                Some(mean),
            )
        }
    };
    let fsn = if (raw - raw.round()).abs() >= f64::EPSILON.sqrt() {
        raw.ceil()
    } else {
        raw.round()
    };
    if !(fsn.is_finite() && fsn <= MAX_FSN) {
        return Err(MetaError::NonFiniteResult {
            quantity: "fail-safe N (it exceeds 2^53, the largest integer reported exactly)",
        });
    }
    Ok(FailSafeN {
        kind,
        k: data.k(),
        fsn: fsn as u64,
        alpha,
        target,
        observed_p,
        observed_effect,
    })
}

/// R's `sign`: −1, 0 or 1.
fn signum0(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records() -> Vec<Record> {
        vec![
            Record::new("a", 0.4, 0.04),
            Record::new("b", 0.2, 0.02),
            Record::new("c", 0.6, 0.09),
        ]
    }

    #[test]
    fn rosenthal_by_hand() {
        let r = fail_safe_n(&records(), FailSafeType::Rosenthal, 0.05, None).unwrap();
        let z: f64 = 0.4 / 0.2 + 0.2 / 0.02f64.sqrt() + 0.6 / 0.3;
        let zbar = z / 3f64.sqrt();
        let n = 3.0 * sq(zbar / normal_quantile(0.95)) - 3.0;
        assert_eq!(r.fsn, n.ceil() as u64);
        assert_eq!((r.target, r.observed_effect), (None, None));
    }

    #[test]
    fn orwin_flips_the_targets_sign_and_refuses_zero() {
        let r = fail_safe_n(&records(), FailSafeType::Orwin, 0.05, Some(-0.1)).unwrap();
        assert_eq!(r.target, Some(0.1));
        // mean 0.4, target 0.1: 3·0.3/0.1 = 9 (within √ε of an integer: rounded, not raised).
        assert_eq!(r.fsn, 9);
        let e = fail_safe_n(&records(), FailSafeType::Orwin, 0.05, Some(0.0)).unwrap_err();
        assert!(e.to_string().contains("infinite"), "{e}");
        let e = fail_safe_n(&records(), FailSafeType::Rosenberg, 0.05, Some(0.1)).unwrap_err();
        assert!(e.to_string().contains("only to Orwin"), "{e}");
    }
}
