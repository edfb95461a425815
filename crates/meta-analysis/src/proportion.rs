//! Confidence intervals for a binomial proportion.

use crate::distributions::normal_quantile;

/// Wilson's (1927) score interval for x successes in n trials at `level`:
///
/// centre = (p̂ + z²/2n) / (1 + z²/n),  half-width = z/(1 + z²/n) · √(p̂(1−p̂)/n + z²/4n²),
///
/// with p̂ = x/n and z the normal quantile at 1 − (1 − level)/2. `None` when n = 0,
/// x > n, or the level is not strictly between 0 and 1.
pub fn wilson_interval(x: u64, n: u64, level: f64) -> Option<(f64, f64)> {
    if n == 0 || x > n || !(level > 0.0 && level < 1.0) {
        return None;
    }
    let n_f = n as f64;
    let p = x as f64 / n_f;
    let z = normal_quantile(1.0 - (1.0 - level) / 2.0);
    let z2 = z * z;
    let denom = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denom;
    let half = z / denom * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_hand_computed_values() {
        // x = 0, n = 1: centre = (z²/2)/(1+z²), half = z/(1+z²)·√(z²/4) = (z²/2)/(1+z²).
        let z2 = crate::math::sq(1.959963984540054);
        let (lo, hi) = wilson_interval(0, 1, 0.95).unwrap();
        assert_eq!(lo, 0.0);
        assert!((hi - z2 / (1.0 + z2)).abs() < 1e-15);
        // x = 5, n = 10 is symmetric about ½ (R: prop.test(5, 10, correct = FALSE)$conf.int).
        let (lo, hi) = wilson_interval(5, 10, 0.95).unwrap();
        assert!((lo - 0.2365931).abs() < 1e-7, "{lo}");
        assert!((hi - 0.7634069).abs() < 1e-7, "{hi}");
        assert_eq!(wilson_interval(1, 0, 0.95), None);
        assert_eq!(wilson_interval(3, 2, 0.95), None);
    }
}
