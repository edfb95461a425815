//! Each record's weight in a fit, as a percentage of the total (metafor's `weights()`).

use crate::MetaError;

/// The weights of the records of a fit: what the forest and bubble plots draw.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordWeights {
    /// 100 · wᵢ / Σⱼ wⱼ, in record order: metafor's `weights(fit)`. They sum to 100 (up to
    /// rounding).
    pub percent: Vec<f64>,
    /// wᵢ / maxⱼ wⱼ, in record order, in [0, 1] (1 for the record of the largest weight):
    /// for marks whose area is proportional to the weight.
    pub relative: Vec<f64>,
}

/// The random-effects weights wᵢ = 1/(vᵢ + τ²) of records with sampling variances `vi`,
/// given τ² (0 for the equal-effects model), as percentages of their sum and relative to
/// the largest:
///
/// ```text
/// percentᵢ = 100 · wᵢ / Σⱼ wⱼ,    relativeᵢ = wᵢ / maxⱼ wⱼ,    wᵢ = 1/(vᵢ + τ²)
/// ```
///
/// The percentages are metafor's `weights.rma.uni` (Viechtbauer 2010, metafor 3.8-1; the
/// `diagonal` type, for a model without user weights).
///
/// Overflow: every wᵢ is first multiplied by one power of two 2ᵉ, chosen so that the largest
/// lies in (0.5, 1] (e is the binary exponent of the smallest vᵢ + τ², kept among the normal
/// doubles, so the largest is above 1, but finite, when that denominator is subnormal). Scaling by a power of two is exact, so the percentages and ratios are the
/// unscaled formula's to the last bit wherever that formula is finite, but a tiny vᵢ (even a
/// subnormal one, whose 1/vᵢ is infinite) can no longer make a weight, or their sum, infinite
/// or NaN; a huge vᵢ gives a weight of (nearly) 0.
///
/// Refused ([`MetaError::NonFiniteResult`]) when some vᵢ + τ² is not a finite number greater
/// than 0 (a NaN or negative input, or an overflowing sum). No records give no weights.
///
/// ```
/// use meta_analysis::record_weights;
/// // vi + τ² = 0.5 and 2: w = 2 and 0.5.
/// let w = record_weights(&[0.25, 1.75], 0.25).unwrap();
/// assert_eq!(w.percent, vec![80.0, 20.0]);
/// assert_eq!(w.relative, vec![1.0, 0.25]);
/// ```
pub fn record_weights(vi: &[f64], tau2: f64) -> Result<RecordWeights, MetaError> {
    let denominators: Vec<f64> = vi.iter().map(|v| v + tau2).collect();
    if denominators.iter().any(|d| !(d.is_finite() && *d > 0.0)) {
        return Err(MetaError::NonFiniteResult {
            quantity: "weights 1/(vi + τ²) (each vi + τ² must be finite and greater than 0)",
        });
    }
    let smallest = denominators.iter().copied().fold(f64::INFINITY, f64::min);
    let scale = power_of_two_at(smallest);
    let weights: Vec<f64> = denominators.iter().map(|d| scale / d).collect();
    let total: f64 = weights.iter().sum();
    let largest = weights.iter().copied().fold(0.0, f64::max);
    Ok(RecordWeights {
        percent: weights.iter().map(|w| 100.0 * w / total).collect(),
        relative: weights.iter().map(|w| w / largest).collect(),
    })
}

/// 2ᵉ with e the binary exponent of `x` (x > 0 finite), clamped to the normal doubles so that
/// the power is exact: x / 2ᵉ lies in [1, 2) for normal x.
fn power_of_two_at(x: f64) -> f64 {
    let exponent = ((x.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    let exponent = exponent.clamp(-1022, 1023);
    f64::from_bits(((exponent + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_are_metafors_weights() {
        // metafor: weights(rma(yi, vi, tau2 = 0.05)) for vi = 0.05, 0.15, 0.45 gives
        // w = 10, 5, 2 (100/17 each), i.e. 58.8235…, 29.4117…, 11.7647… %.
        let w = record_weights(&[0.05, 0.15, 0.45], 0.05).unwrap();
        let expected = [1000.0 / 17.0, 500.0 / 17.0, 200.0 / 17.0];
        for (got, want) in w.percent.iter().zip(expected) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
        for (got, want) in w.relative.iter().zip([1.0, 0.5, 0.2]) {
            assert!((got - want).abs() < 1e-15, "{got} vs {want}");
        }
        assert!((w.percent.iter().sum::<f64>() - 100.0).abs() < 1e-12);
    }

    #[test]
    fn equal_effects_weights_are_inverse_variances() {
        let w = record_weights(&[0.25, 0.5, 1.0], 0.0).unwrap();
        let expected = [400.0 / 7.0, 200.0 / 7.0, 100.0 / 7.0];
        for (got, want) in w.percent.iter().zip(expected) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
        // τ² shifts every denominator: a larger τ² evens the weights out.
        let even = record_weights(&[0.25, 0.5, 1.0], 100.0).unwrap();
        assert!(even.percent[0] - even.percent[2] < 1.0);
    }

    #[test]
    fn the_scaling_is_exact_where_the_plain_formula_is_finite() {
        let vi = [0.0123, 0.0456, 0.789, 3.21, 1e-3];
        let tau2 = 0.0417;
        let plain: Vec<f64> = vi.iter().map(|v| 1.0 / (v + tau2)).collect();
        let total: f64 = plain.iter().sum();
        let largest = plain.iter().copied().fold(0.0, f64::max);
        let w = record_weights(&vi, tau2).unwrap();
        for (i, p) in plain.iter().enumerate() {
            assert_eq!(w.percent[i], 100.0 * p / total);
            assert_eq!(w.relative[i], p / largest);
        }
    }

    #[test]
    fn tiny_and_huge_variances_overflow_nothing() {
        // 1/5e-324 is infinite and 1/1e-308 near the top of the doubles: unscaled, the sum is
        // infinite and the percentages NaN or 0.
        let w = record_weights(&[5e-324, 1e-308, 0.5, f64::MAX], 0.0).unwrap();
        assert!(w.percent.iter().chain(&w.relative).all(|x| x.is_finite()));
        assert_eq!(w.relative[0], 1.0);
        // 1e-308 / 5e-324 ≈ 2·10¹⁵: the subnormal record holds all but ~5·10⁻¹⁴ % of it.
        assert!(w.percent[0] > 99.999_999_999 && w.percent[0] <= 100.0);
        assert!(w.percent[1] > 0.0 && w.percent[1] < 1e-12);
        assert_eq!(w.percent[3], 0.0);
        // A huge common τ² leaves equal shares.
        let w = record_weights(&[1.0, 2.0], 1e300).unwrap();
        assert!(w.percent.iter().all(|p| (p - 50.0).abs() < 1e-12), "{w:?}");
    }

    #[test]
    fn undefined_denominators_are_refused() {
        for (vi, tau2) in [
            (vec![0.1, f64::NAN], 0.0),
            (vec![0.1, -0.2], 0.1),
            (vec![0.1, 0.2], f64::INFINITY),
            (vec![f64::MAX, 0.2], f64::MAX),
        ] {
            let e = record_weights(&vi, tau2).unwrap_err();
            assert!(matches!(e, MetaError::NonFiniteResult { .. }), "{e:?}");
        }
        let none = record_weights(&[], 0.3).unwrap();
        assert!(none.percent.is_empty() && none.relative.is_empty());
    }
}
