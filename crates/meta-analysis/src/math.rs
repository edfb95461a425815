//! The engine's elementary functions: one portable implementation on every target.
//!
//! `f64::ln`, `exp`, `powf`… call the platform's C library natively (glibc on Linux,
//! another libm on macOS or Windows) and a Rust port of musl's in wasm, and they
//! differ in the last bits: the same risk ratios came out up to 512 ulp apart in the
//! CLI and on the page, and so did the SHA-256 of the same dataset. Every number the
//! engine reports is therefore computed with these functions, which are the pure-Rust
//! [`libm`] crate's (musl's / FreeBSD msun's algorithms, no platform code, no lookup
//! of the host's C library), under the names the literature uses. `+ − × ÷`, `sqrt`
//! and `mul_add` are correctly rounded by IEEE 754 on every target and stay methods.
//!
//! A test (`tests/portable_math.rs`) fails when `meta-analysis` or `exemplar` calls
//! a platform transcendental (`.ln()`, `.exp()`, `.powf(`, `.powi(` …) outside this
//! module; docs/METHODS.md ("Numerics") states the promise.

/// Natural logarithm, ln x.
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// ln(1 + x), accurate for small |x|.
#[inline]
pub fn ln_1p(x: f64) -> f64 {
    libm::log1p(x)
}

/// Base-10 logarithm.
#[inline]
pub fn log10(x: f64) -> f64 {
    libm::log10(x)
}

/// eˣ.
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// eˣ − 1, accurate for small |x|.
#[inline]
pub fn exp_m1(x: f64) -> f64 {
    libm::expm1(x)
}

/// xʸ for a real exponent.
#[inline]
pub fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// xⁿ for an integer exponent, by binary powering in a fixed order of products
/// (the order of compiler-rt's `__powidf2`), so no target or optimization level can
/// evaluate it differently; 1/x⁻ⁿ for n < 0.
pub fn powi(x: f64, n: i32) -> f64 {
    let mut base = x;
    let mut e = n.unsigned_abs();
    let mut result = 1.0;
    loop {
        if e & 1 == 1 {
            result *= base;
        }
        e >>= 1;
        if e == 0 {
            break;
        }
        base *= base;
    }
    if n < 0 {
        1.0 / result
    } else {
        result
    }
}

/// x², exactly one rounding.
#[inline]
pub fn sq(x: f64) -> f64 {
    x * x
}

/// Hyperbolic tangent.
#[inline]
pub fn tanh(x: f64) -> f64 {
    libm::tanh(x)
}

/// Inverse hyperbolic tangent, ½ ln((1 + x)/(1 − x)) (Fisher's z of a correlation).
#[inline]
pub fn atanh(x: f64) -> f64 {
    libm::atanh(x)
}

/// ln |Γ(x)|.
#[inline]
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// The error function.
#[inline]
pub fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// The complementary error function, 1 − erf x without cancellation for large x.
#[inline]
pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// Sine.
#[inline]
pub fn sin(x: f64) -> f64 {
    libm::sin(x)
}

/// Cosine.
#[inline]
pub fn cos(x: f64) -> f64 {
    libm::cos(x)
}

/// Tangent.
#[inline]
pub fn tan(x: f64) -> f64 {
    libm::tan(x)
}

/// Arcsine (the arcsine-square-root transforms of proportions and rates).
#[inline]
pub fn asin(x: f64) -> f64 {
    libm::asin(x)
}

/// Arctangent.
#[inline]
pub fn atan(x: f64) -> f64 {
    libm::atan(x)
}

/// Arctangent of y/x in the quadrant of (x, y).
#[inline]
pub fn atan2(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}

/// Cube root.
#[inline]
pub fn cbrt(x: f64) -> f64 {
    libm::cbrt(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powi_is_repeated_multiplication() {
        let x = 1.000_000_1_f64;
        let mut product = 1.0;
        for n in 0..=9 {
            // Binary powering equals the naive product where rounding cannot differ.
            assert_eq!(powi(2.0, n), (1u32 << n) as f64);
            if n <= 2 {
                assert_eq!(powi(x, n), product, "n = {n}");
            }
            product *= x;
        }
        assert_eq!(powi(x, 3), x * (x * x));
        assert_eq!(powi(x, 5), x * ((x * x) * (x * x)));
        assert_eq!(powi(2.0, -3), 0.125);
        assert_eq!(powi(0.0, 0), 1.0);
        assert_eq!(powi(-3.0, 3), -27.0);
    }

    #[test]
    fn known_values() {
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(ln(std::f64::consts::E), 1.0);
        assert_eq!(log10(1000.0), 3.0);
        assert_eq!(pow(2.0, 0.5), std::f64::consts::SQRT_2);
        assert_eq!(cbrt(27.0), 3.0);
        assert_eq!(ln_1p(1e-300), 1e-300);
        assert_eq!(exp_m1(1e-300), 1e-300);
        assert_eq!(atanh(0.0), 0.0);
        assert!((tanh(atanh(0.5)) - 0.5).abs() <= f64::EPSILON);
        assert!((lgamma(5.0) - ln(24.0)).abs() <= 4.0 * f64::EPSILON);
        assert_eq!(erf(0.0), 0.0);
        assert_eq!(erfc(0.0), 1.0);
        assert_eq!(sin(0.0), 0.0);
        assert_eq!(cos(0.0), 1.0);
        assert!((tan(std::f64::consts::FRAC_PI_4) - 1.0).abs() <= f64::EPSILON);
        assert_eq!(atan(0.0), 0.0);
        assert_eq!(atan2(1.0, 1.0), std::f64::consts::FRAC_PI_4);
        assert_eq!(sq(3.0), 9.0);
    }
}
