//! The regularized incomplete beta and gamma functions behind the t, χ² and F
//! distributions, computed with [`crate::math`] so that their bits are the same on
//! every target.
//!
//! The algorithms are those of the `statrs` crate 0.19 (MIT licence), which this
//! module replaces because it calls the platform's `ln`/`exp`: the beta function by
//! the continued fraction of Numerical Recipes §6.4 (modified Lentz), the gamma
//! functions by the Cephes series and continued fraction (`igam`, `igamc`). ln Γ is
//! libm's `lgamma` instead of statrs's Lanczos sum.

use crate::math::{exp, lgamma, ln, ln_1p};

/// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and 0 ≤ x ≤ 1
/// (NaN otherwise).
pub(crate) fn beta_reg(a: f64, b: f64, x: f64) -> f64 {
    if a.is_nan() || b.is_nan() || x.is_nan() || a <= 0.0 || b <= 0.0 || !(0.0..=1.0).contains(&x) {
        return f64::NAN;
    }
    // The prefactor x^a (1 − x)^b / (a B(a, b)); 0 at the ends (where statrs, too,
    // treats x within 1e-15 of 1 as 1).
    let bt = if x == 0.0 || (x - 1.0).abs() <= 1e-15 {
        0.0
    } else {
        let (large, small) = if a >= b { (a, b) } else { (b, a) };
        exp(ln_gamma_ratio(large, small) - lgamma(small) + a * ln(x) + b * ln(1.0 - x))
    };
    let symm_transform = x >= (a + 1.0) / (a + b + 2.0);
    let eps = f64::EPSILON / 2.0;
    let fpmin = f64::MIN_POSITIVE / eps;
    let (a, b, x) = if symm_transform {
        (b, a, 1.0 - x)
    } else {
        (a, b, x)
    };

    let qab = a + b;
    let qap = a + 1.0;
    let qam = a - 1.0;
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < fpmin {
        d = fpmin;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..141 {
        let m = f64::from(m);
        let m2 = m * 2.0;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < fpmin {
            d = fpmin;
        }
        c = 1.0 + aa / c;
        if c.abs() < fpmin {
            c = fpmin;
        }
        d = 1.0 / d;
        h = h * d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < fpmin {
            d = fpmin;
        }
        c = 1.0 + aa / c;
        if c.abs() < fpmin {
            c = fpmin;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() <= eps {
            break;
        }
    }
    if symm_transform {
        1.0 - bt * h / a
    } else {
        bt * h / a
    }
}

/// ln Γ(a + b) − ln Γ(a) for a ≥ b > 0.
///
/// Two values of ln Γ near 2600 (ν = 1000) lose a dozen bits when subtracted, so
/// for a ≥ 10 the difference is taken from Stirling's series in closed form,
/// (a − ½)·ln(1 + b/a) + b·ln(a + b) − b + δ(a + b) − δ(a), every term of which is
/// of the size of the result.
fn ln_gamma_ratio(a: f64, b: f64) -> f64 {
    if a < 10.0 {
        return lgamma(a + b) - lgamma(a);
    }
    (a - 0.5) * ln_1p(b / a) + b * ln(a + b) - b + stirling_delta(a + b) - stirling_delta(a)
}

/// δ(z) = ln Γ(z) − (z − ½) ln z + z − ½ ln 2π, by its asymptotic series, for z ≥ 10
/// (the first omitted term is below 1e-18).
fn stirling_delta(z: f64) -> f64 {
    // B₂ₖ / (2k (2k − 1)) for k = 1…8.
    const C: [f64; 8] = [
        1.0 / 12.0,
        -1.0 / 360.0,
        1.0 / 1260.0,
        -1.0 / 1680.0,
        1.0 / 1188.0,
        -691.0 / 360360.0,
        1.0 / 156.0,
        -3617.0 / 122400.0,
    ];
    let r = 1.0 / z;
    let r2 = r * r;
    let mut sum = 0.0;
    for c in C.iter().rev() {
        sum = sum * r2 + c;
    }
    sum * r
}

const IGAM_EPS: f64 = 1e-15;
const BIG: f64 = 4503599627370496.0;
const BIG_INV: f64 = 2.220_446_049_250_313e-16;
/// ln of the smallest normal f64: below it the prefactor underflows.
const LN_MIN: f64 = -709.782_712_893_384;

/// P(a, x), the regularized lower incomplete gamma function, for a > 0, x > 0
/// (NaN otherwise).
pub(crate) fn gamma_lr(a: f64, x: f64) -> f64 {
    if a.is_nan() || x.is_nan() || a <= 0.0 || a == f64::INFINITY || x <= 0.0 {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return 1.0;
    }
    let ax = a * ln(x) - x - lgamma(a);
    if ax < LN_MIN {
        return if a < x { 1.0 } else { 0.0 };
    }
    if x <= 1.0 || x <= a {
        // The power series.
        let mut r = a;
        let mut c = 1.0;
        let mut sum = 1.0;
        loop {
            r += 1.0;
            c *= x / r;
            sum += c;
            if c / sum <= IGAM_EPS {
                break;
            }
        }
        return exp(ax) * sum / a;
    }
    1.0 - exp(ax) * upper_continued_fraction(a, x)
}

/// Q(a, x) = 1 − P(a, x), the regularized upper incomplete gamma function, for
/// a > 0, x > 0 (NaN otherwise).
pub(crate) fn gamma_ur(a: f64, x: f64) -> f64 {
    if a.is_nan() || x.is_nan() || a <= 0.0 || a == f64::INFINITY || x <= 0.0 {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    if x < 1.0 || x <= a {
        return 1.0 - gamma_lr(a, x);
    }
    let ax = a * ln(x) - x - lgamma(a);
    if ax < LN_MIN {
        return if a < x { 0.0 } else { 1.0 };
    }
    exp(ax) * upper_continued_fraction(a, x)
}

/// The continued fraction of Q(a, x)·Γ(a)/(xᵃ e⁻ˣ) for x > max(1, a).
fn upper_continued_fraction(a: f64, x: f64) -> f64 {
    let mut y = 1.0 - a;
    let mut z = x + y + 1.0;
    let mut c = 0.0;
    let mut pkm2 = 1.0;
    let mut qkm2 = x;
    let mut pkm1 = x + 1.0;
    let mut qkm1 = z * x;
    let mut ans = pkm1 / qkm1;
    // Converges in far fewer steps for x > max(1, a); the cap only guards the loop.
    for _ in 0..10_000 {
        y += 1.0;
        z += 2.0;
        c += 1.0;
        let yc = y * c;
        let pk = pkm1 * z - pkm2 * yc;
        let qk = qkm1 * z - qkm2 * yc;
        pkm2 = pkm1;
        pkm1 = pk;
        qkm2 = qkm1;
        qkm1 = qk;
        if pk.abs() > BIG {
            pkm2 *= BIG_INV;
            pkm1 *= BIG_INV;
            qkm2 *= BIG_INV;
            qkm1 *= BIG_INV;
        }
        if qk != 0.0 {
            let r = pk / qk;
            let t = ((ans - r) / r).abs();
            ans = r;
            if t <= IGAM_EPS {
                break;
            }
        }
    }
    ans
}

/// ₂F₁(a, b; c; x), Gauss's hypergeometric function, for a, b > 0, c > a + b and
/// 0 ≤ x ≤ 1 (NaN otherwise), where its series Σ (a)ₖ(b)ₖ/((c)ₖ k!) xᵏ converges: summed
/// directly where it converges within [`SERIES_TERMS`] terms (all but x within about 1e-2 of
/// 1 with c below about 30), else Euler's integral
/// Γ(c)/(Γ(b)Γ(c − b)) ∫₀¹ t^(b−1) (1 − t)^(c−b−1) (1 − xt)^(−a) dt (Abramowitz & Stegun
/// 15.3.1) by tanh-sinh quadrature, which copes with its end-point singularities.
///
/// The integral is both faster and more accurate than a long series: against mpmath at 40
/// digits over escalc's UCOR arguments (ni from 5 to 10⁴, |ri| from 0 to 0.99), the integral
/// is within 3e-15 everywhere, where a series of up to 20,000 terms (the limit until issue 41)
/// drifted to 3e-13 by rounding; and 20,000 terms per call made UCOR with vtype "UB" take
/// seconds on 20,000 rows.
pub(crate) fn hyp2f1(a: f64, b: f64, c: f64, x: f64) -> f64 {
    if !(a > 0.0 && b > 0.0 && c > a + b && (0.0..=1.0).contains(&x)) {
        return f64::NAN;
    }
    if let Some(sum) = hyp2f1_series(a, b, c, x) {
        return sum;
    }
    hyp2f1_euler(a, b, c, x)
}

/// The most terms [`hyp2f1`] sums before it takes Euler's integral: fewer than the integral's
/// cost in time, and few enough that the series' rounding stays near 1e-14.
const SERIES_TERMS: usize = 1_000;

fn hyp2f1_series(a: f64, b: f64, c: f64, x: f64) -> Option<f64> {
    let (mut term, mut sum) = (1.0, 1.0);
    for k in 0..SERIES_TERMS {
        let k = k as f64;
        term *= (a + k) * (b + k) / ((c + k) * (k + 1.0)) * x;
        sum += term;
        if term <= 1e-17 * sum {
            return Some(sum);
        }
    }
    None
}

/// Euler's integral by the engine's tanh-sinh quadrature ([`crate::quadrature`]), its
/// integrand t^(b−1)(1 − t)^(c−b−1)(1 − xt)^(−a), times the quadrature's t(1 − t), taken in
/// logarithms: exp(b ln t + (c − b) ln(1 − t))·(1 − xt)^(−a), with 1 − xt = (1 − t) + (1 − x)t
/// computed without cancellation, and (1 − xt)^(−a) a division or a square root for UCOR's
/// a = 1 and a = ½: a call costs one exp per node (issue 41: UCOR with vtype UB on 20,000
/// rows took seconds with eight transcendental functions per node).
fn hyp2f1_euler(a: f64, b: f64, c: f64, x: f64) -> f64 {
    let integral = crate::quadrature::unit_interval(|p| {
        let base = p.one_minus_t + (1.0 - x) * p.t;
        let power = exp(b * p.ln_t + (c - b) * p.ln_one_minus_t);
        if a == 1.0 {
            power / base
        } else if a == 0.5 {
            power / base.sqrt()
        } else {
            power * exp(-a * ln(base))
        }
    });
    // Γ(c)/Γ(c − b) as one ratio, which keeps its digits for large c.
    exp(ln_gamma_ratio(c - b, b) - lgamma(b)) * integral
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_forms() {
        // I_x(1, 1) = x; I_x(a, 1) = xᵃ; P(1, x) = 1 − e⁻ˣ.
        for x in [0.01, 0.3, 0.5, 0.9] {
            assert!((beta_reg(1.0, 1.0, x) - x).abs() <= 4e-16, "{x}");
            let xa = crate::math::pow(x, 2.5);
            assert!((beta_reg(2.5, 1.0, x) - xa).abs() <= 1e-15 * xa, "{x}");
        }
        for x in [0.1, 1.0, 3.0, 30.0] {
            let q = exp(-x);
            assert!((gamma_ur(1.0, x) - q).abs() <= 2e-15 * q, "{x}");
            assert!((gamma_lr(1.0, x) + q - 1.0).abs() <= 2e-16, "{x}");
        }
        assert_eq!(beta_reg(2.0, 3.0, 0.0), 0.0);
        assert_eq!(beta_reg(2.0, 3.0, 1.0), 1.0);
        assert!(beta_reg(2.0, 3.0, 1.5).is_nan());
        assert!(beta_reg(0.0, 3.0, 0.5).is_nan());
        assert!(gamma_lr(-1.0, 1.0).is_nan());
        assert!(gamma_ur(1.0, 0.0).is_nan());
    }

    #[test]
    fn hypergeometric_meets_mpmath() {
        // mpmath.hyp2f1 at 40 digits; the series, Euler's integral, and x = 1.
        for (a, b, c, x, want) in [
            (0.5, 0.5, 1.5, 1.0, std::f64::consts::FRAC_PI_2),
            (0.5, 0.5, 2.0, 0.96, 1.233_262_113_913_817_3),
            (0.5, 0.5, 2.0, 0.9999, 1.272_953_576_453_402_9),
            (1.0, 1.0, 20.0, 0.9999, 1.055_549_346_482_841_6),
            (1.0, 1.0, 3.0, 1.0, 2.0),
            (0.5, 0.5, 40.0, 1.0, 1.006_430_669_376_732_4),
            (1.0, 1.0, 2.5, 0.99, 2.582_412_829_583_401_4),
            (0.5, 0.5, 1.5, 0.91, 1.327_237_281_892_678_3),
            (0.5, 0.5, 24.0, 0.91, 1.009_899_023_751_467_2),
            (1.0, 1.0, 30.5, 0.999, 1.035_050_082_585_203_5),
            // Where a series of thousands of terms drifted by rounding (2.8e-13, 1.6e-13 and
            // 1.1e-13 with up to 20,000 terms; issue 41).
            (0.5, 0.5, 4.0, 0.999_991, 1.086_496_522_543_082_8),
            (1.0, 1.0, 5.5, 1.0, 9.0 / 7.0),
            (0.5, 0.5, 3.5, 0.9996, 1.104_392_599_375_056_3),
        ] {
            let got = hyp2f1(a, b, c, x);
            assert!(
                (got - want).abs() <= 1e-14 * want,
                "2F1({a}, {b}; {c}; {x}) = {got}, not {want}"
            );
        }
        assert!(hyp2f1(0.5, 0.5, 1.0, 0.5).is_nan());
        assert!(hyp2f1(0.5, 0.5, 3.0, 1.5).is_nan());
    }

    /// Over escalc's UCOR arguments (`tests/oracle/hyp2f1_grid.py`: n from 5 to 10⁴, |r| from
    /// 0 to 0.99, both functions), within 1e-14 of mpmath's 40 digits: the series where it
    /// converges within its terms, Euler's integral elsewhere (issue 41: a 20,000-term series
    /// drifted to 2.8e-13 there).
    #[test]
    fn hypergeometric_meets_mpmath_over_ucor() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../tests/fixtures/hyp2f1_grid.json")).unwrap();
        let cases = fixture["cases"].as_array().unwrap();
        assert!(cases.len() > 600);
        for case in cases {
            let v: Vec<f64> = case
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            let (a, b, c, x, want) = (v[0], v[1], v[2], v[3], v[4]);
            let got = hyp2f1(a, b, c, x);
            assert!(
                (got - want).abs() <= 1e-14 * want,
                "2F1({a}, {b}; {c}; {x}) = {got}, not {want}"
            );
        }
    }

    #[test]
    fn stirling_ratio_meets_lgamma() {
        // Where both forms are accurate (moderate a), they agree closely; Γ(a + 1)/Γ(a) = a.
        for a in [10.0, 12.5, 40.0, 500.0, 1e6] {
            let r = ln_gamma_ratio(a, 1.0);
            assert!((r - ln(a)).abs() <= 4.0 * f64::EPSILON * ln(a), "{a}: {r}");
            let half = ln_gamma_ratio(a, 0.5);
            let direct = lgamma(a + 0.5) - lgamma(a);
            assert!(
                (half - direct).abs() <= 1e-15 * lgamma(a + 0.5).abs(),
                "{a}"
            );
        }
    }
}
