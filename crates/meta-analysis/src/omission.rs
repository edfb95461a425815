//! The intercept-only model without one record, for every record in turn: what leave-one-out
//! and the influence diagnostics refit, in O(k) per omission and without a k × k matrix.
//!
//! Every quantity of the intercept-only model at one τ² is a function of the power sums
//! Sₐᵦ = Σ wᵢᵃ (yᵢ − c)ᵇ (a = 1, 2, 3; b = 0, 1, 2; wᵢ = 1/(vᵢ + τ²)) and S₄₀ = Σ wᵢ⁴, about a
//! shift c near the pooled estimate ([`PowerSums::moments`]). The sums without record i are
//! the full sums minus record i's terms ("downdating"), so one pass over the data at a τ²
//! shared by every omission serves all of them: the moments at τ² = 0 (Q, I², H², the
//! boundary check) and the moments at the full data's τ̂², where each omission's Newton
//! iteration starts. From there the root of the omission's estimating equation is usually
//! one pass away (τ̂²₍₋ᵢ₎ − τ̂² is of order τ̂²/k; after one Newton step the next step is
//! below 10⁻⁷ relative, and the moments at the root follow from those at the last pass to
//! first order). metafor's likelihood check against τ² = 0 needs Σ log(1 + τ²/vⱼ) summed only when
//! bounds from its value at the start cannot decide it.
//!
//! Exactness is kept over speed: a downdated sum that lost more than three bits to
//! cancellation (record i carries more than 7/8 of it) is recomputed by a pass; a Newton
//! iterate that leaves (0, ∞) or does not settle within a few steps, and the estimators
//! without a fast path (HE, SJ), fall back to the plain refit of the k − 1 records. Results
//! agree with the refits to 1e-12 relative (tested); only the iteration count differs, being
//! the count of the steps actually taken.

use crate::estimators::{estimate_tau2, intercept_equation, log_likelihood_from, Method};
use crate::estimators::{Moments, Tau2};
use crate::math::{ln, ln_1p};
use crate::weighted::{Degenerate, Design};
use crate::MetaError;

/// The fit of the records without one: τ̂² and the moments of the k − 1 records at τ̂² and
/// at τ² = 0.
#[derive(Debug, Clone)]
pub(crate) struct Omitted {
    pub tau2: Tau2,
    /// Moments of the k − 1 records at τ̂²₍₋ᵢ₎.
    pub re: Moments,
    /// Moments of the k − 1 records at τ² = 0 (Q, I², H²).
    pub fe: Moments,
}

/// Newton steps from the full data's τ̂² before an omission is refitted plainly instead.
const MAX_FAST_STEPS: usize = 12;
/// A Newton step this small (relative) means the evaluated τ² is the root to double
/// precision: it is accepted without another pass.
const SETTLED: f64 = 1e-14;
/// A last Newton step at most this small (relative) is taken without another pass: the
/// moments at the new τ² are those at the old one plus their derivatives times the step
/// (first order; the neglected term is of order (step/τ²)² ≤ 10⁻¹⁴, relative).
const EXTRAPOLATED: f64 = 1e-7;

/// Σ wᵢᵃ (yᵢ − c)ᵇ for a = 1..3, b = 0..2, and Σ wᵢ⁴, at one τ².
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PowerSums {
    tau2: f64,
    c: f64,
    s: [[f64; 3]; 3],
    s40: f64,
}

impl PowerSums {
    /// The sums over every record except `skip`, in one pass.
    pub fn over(y: &[f64], v: &[f64], tau2: f64, c: f64, skip: Option<usize>) -> Self {
        let mut a = [0.0f64; 10];
        let cut = skip.unwrap_or(y.len());
        let after = (cut + 1).min(y.len());
        for (ys, vs) in [(&y[..cut], &v[..cut]), (&y[after..], &v[after..])] {
            for (yi, vi) in ys.iter().zip(vs) {
                let w = 1.0 / (vi + tau2);
                let e = yi - c;
                let (w2, e2) = (w * w, e * e);
                let w3 = w2 * w;
                a[0] += w;
                a[1] += w * e;
                a[2] += w * e2;
                a[3] += w2;
                a[4] += w2 * e;
                a[5] += w2 * e2;
                a[6] += w3;
                a[7] += w3 * e;
                a[8] += w3 * e2;
                a[9] += w2 * w2;
            }
        }
        PowerSums {
            tau2,
            c,
            s: [[a[0], a[1], a[2]], [a[3], a[4], a[5]], [a[6], a[7], a[8]]],
            s40: a[9],
        }
    }

    /// These sums without record (y, v)'s terms, or `None` when a sum of positive terms
    /// would keep less than 1/8 of itself (more than three bits lost to cancellation).
    fn without(&self, y: f64, v: f64) -> Option<Self> {
        let term = PowerSums::over(&[y], &[v], self.tau2, self.c, None);
        let mut out = *self;
        for (a, row) in out.s.iter_mut().enumerate() {
            for (b, value) in row.iter_mut().enumerate() {
                *value -= term.s[a][b];
                if b != 1 && !keeps_digits(*value, self.s[a][b]) {
                    return None;
                }
            }
        }
        out.s40 -= term.s40;
        if !keeps_digits(out.s40, self.s40) {
            return None;
        }
        Some(out)
    }

    /// The intercept-only model's moments from the sums, or `None` when forming them from
    /// the shifted sums lost more than three bits (the shift c far from the estimate).
    ///
    /// With W = S₁₀, d = S₁₁/W (so μ̂ = c + d) and rᵢ = yᵢ − μ̂: Σwr² = S₁₂ − d·S₁₁,
    /// Σw²r = S₂₁ − d·S₂₀, Σw²r² = S₂₂ − 2d·S₂₁ + d²·S₂₀, Σw³r² likewise from S₃ᵦ; then
    /// y'PPPy = Σw³r² − (Σw²r)²/W, tr P = W − S₂₀/W, tr PP = S₂₀ − 2S₃₀/W + (S₂₀/W)².
    pub fn moments(&self) -> Option<Moments> {
        self.moments_plus(0.0)
    }

    /// The moments at τ² + `delta`, to first order in `delta` (exact for 0): each quantity
    /// plus its derivative in τ² times `delta`, with dwᵢ/dτ² = −wᵢ²: dW = −S₂₀, dμ̂ = −Σw²r/W,
    /// d(y'Py) = −y'PPy, d(y'PPy) = −2y'PPPy, d tr P = −tr PP, dS₂₀ = −2S₃₀, dS₃₀ = −3S₄₀.
    /// y'PPPy, needed only for Newton's derivative, is left at τ².
    fn moments_plus(&self, delta: f64) -> Option<Moments> {
        let [s1, s2, s3] = self.s;
        let w = s1[0];
        let d = s1[1] / w;
        let ypy = s1[2] - d * s1[1];
        let sw2r = s2[1] - d * s2[0];
        let yppy = s2[2] - 2.0 * d * s2[1] + d * d * s2[0];
        let sw3r2 = s3[2] - 2.0 * d * s3[1] + d * d * s3[0];
        if !(keeps_digits(ypy, s1[2]) && keeps_digits(yppy, s2[2]) && keeps_digits(sw3r2, s3[2])) {
            return None;
        }
        let h = s2[0] / w;
        let ypppy = sw3r2 - sw2r * sw2r / w;
        let tr_pp = s2[0] - 2.0 * s3[0] / w + h * h;
        if delta == 0.0 {
            return Some(Moments {
                beta0: self.c + d,
                var_beta0: 1.0 / w,
                ypy,
                yppy,
                ypppy,
                tr_p: w - h,
                tr_pp,
                sw: w,
                sw2: s2[0],
                log_det_xwx: ln(w),
                wls: None,
            });
        }
        let (s20, s30, s40) = (s2[0], s3[0], self.s40);
        let w_at = w - s20 * delta;
        let d_tr_pp = -2.0 * s30 - 2.0 * (s20 * s30 - 3.0 * s40 * w) / (w * w)
            + 2.0 * h * (s20 * s20 - 2.0 * s30 * w) / (w * w);
        Some(Moments {
            beta0: self.c + d - sw2r / w * delta,
            var_beta0: 1.0 / w + s20 / (w * w) * delta,
            ypy: ypy - yppy * delta,
            yppy: yppy - 2.0 * ypppy * delta,
            ypppy,
            tr_p: w - h - tr_pp * delta,
            tr_pp: tr_pp + d_tr_pp * delta,
            sw: w_at,
            sw2: s20 - 2.0 * s30 * delta,
            log_det_xwx: ln(w) - s20 / w * delta,
            wls: None,
        })
    }
}

/// Whether `value`, what is left of `lead` after a subtraction, kept at least 1/8 of it (at
/// most three bits lost to cancellation); false for NaN.
fn keeps_digits(value: f64, lead: f64) -> bool {
    value >= lead / 8.0
}

/// Σ log(1 + τ²/vⱼ) over the records except `skip`, one logarithm per block of factors, as
/// `estimators::sum_log_1p`.
fn sum_log_1p_without(inv_v: &[f64], tau2: f64, skip: usize) -> f64 {
    let (mut sum, mut product) = (0.0, 1.0f64);
    for (j, iv) in inv_v.iter().enumerate() {
        if j == skip {
            continue;
        }
        let factor = 1.0 + tau2 * iv;
        if factor > 1e150 {
            sum += ln(factor);
            continue;
        }
        if product > 1e150 {
            sum += ln(product);
            product = 1.0;
        }
        product *= factor;
    }
    sum + ln(product)
}

/// Where an omission's Newton iteration starts: the full data's τ̂², the omission's W there,
/// and the full data's Σ log(1 + τ̂²/vⱼ).
#[derive(Debug, Clone, Copy)]
struct Start {
    tau2: f64,
    w: f64,
    log_1p: f64,
}

/// The data, with what every omission shares.
struct Shared<'a> {
    y: &'a [f64],
    v: &'a [f64],
    inv_v: Vec<f64>,
    method: Method,
    /// Sums of all records at τ² = 0, about the equal-effects estimate.
    at_zero: PowerSums,
    /// Sums of all records at the full data's τ̂² (when it is positive and was found), and
    /// Σ log(1 + τ̂²/vⱼ) there.
    at_full: Option<(PowerSums, f64)>,
}

/// The model without each record in turn, in record order (at least 3 records, checked by
/// the caller).
pub(crate) fn each_omission(
    y: &[f64],
    v: &[f64],
    method: Method,
) -> Result<Vec<Omitted>, MetaError> {
    let inv_v: Vec<f64> = v.iter().map(|vi| 1.0 / vi).collect();
    let zero = PowerSums::over(y, v, 0.0, 0.0, None);
    let c0 = zero.moments().map_or(0.0, |m| m.beta0);
    let at_zero = PowerSums::over(y, v, 0.0, c0, None);
    let at_full = match method {
        Method::Reml | Method::Ml | Method::Pm => estimate_tau2(method, y, v, &Design::intercept())
            .ok()
            .filter(|t| t.tau2 > 0.0)
            .and_then(|t| {
                let rough = PowerSums::over(y, v, t.tau2, c0, None);
                let c = rough.moments()?.beta0;
                let log_1p = sum_log_1p_without(&inv_v, t.tau2, usize::MAX);
                Some((PowerSums::over(y, v, t.tau2, c, None), log_1p))
            }),
        Method::Ee | Method::Fe | Method::Dl | Method::He | Method::Sj => None,
    };
    let shared = Shared {
        y,
        v,
        inv_v,
        method,
        at_zero,
        at_full,
    };
    (0..y.len()).map(|i| shared.omit(i)).collect()
}

impl Shared<'_> {
    fn omit(&self, i: usize) -> Result<Omitted, MetaError> {
        crate::cancel::checkpoint()?;
        match self.fast(i) {
            Some(omitted) => Ok(omitted),
            None => self.refit(i),
        }
    }

    /// The sums without record i at the τ² of `full` (downdated, or one pass when
    /// downdating would lose digits) and their moments.
    fn sums_without(&self, full: &PowerSums, i: usize) -> Option<(PowerSums, Moments)> {
        if let Some(sums) = full.without(self.y[i], self.v[i]) {
            if let Some(m) = sums.moments() {
                return Some((sums, m));
            }
        }
        let sums = self.pass(full.tau2, full.c, i);
        Some((sums, sums.moments()?))
    }

    /// One pass over the records without i at τ².
    fn pass(&self, tau2: f64, c: f64, i: usize) -> PowerSums {
        PowerSums::over(self.y, self.v, tau2, c, Some(i))
    }

    /// The fast path; `None` sends the omission to the plain refit.
    fn fast(&self, i: usize) -> Option<Omitted> {
        let k = self.y.len() - 1;
        let kp = (k - 1) as f64;
        let (_, fe) = self.sums_without(&self.at_zero, i)?;
        let at = |tau2: f64, se: Option<f64>, iterations: Option<usize>, re: Moments| {
            Some(Omitted {
                tau2: Tau2 {
                    tau2,
                    se,
                    iterations,
                },
                re,
                fe: fe.clone(),
            })
        };
        match self.method {
            Method::Ee | Method::Fe => at(0.0, None, None, fe.clone()),
            // DerSimonian–Laird from the moments at τ² = 0, as `dersimonian_laird` computes it.
            Method::Dl => {
                let t = ((fe.ypy - kp) / fe.tr_p).max(0.0);
                let se = (2.0 * kp + 4.0 * t * fe.tr_p + 2.0 * t * t * fe.tr_pp).sqrt() / fe.tr_p;
                let re = if t == 0.0 {
                    fe.clone()
                } else {
                    self.pass(t, fe.beta0, i).moments()?
                };
                at(t, Some(se), None, re)
            }
            Method::He | Method::Sj => None,
            Method::Reml | Method::Ml | Method::Pm => {
                let ((u0, _), se0) = intercept_equation(self.method, &fe, k)?;
                if u0 <= 0.0 {
                    return at(0.0, Some(se0), Some(0), fe.clone());
                }
                let (tau2, re, start, steps) = self.newton(i, k)?;
                let (_, se) = intercept_equation(self.method, &re, k)?;
                if self.method != Method::Pm && self.zero_is_higher(i, tau2, &re, &fe, start) {
                    return at(0.0, Some(se0), Some(steps), fe.clone());
                }
                at(tau2, Some(se), Some(steps), re)
            }
        }
    }

    /// metafor's check, as in `likelihood_root`: whether the (restricted) likelihood at
    /// τ² = 0 is higher than at the root. With L = Σⱼ log(1 + τ²/vⱼ) (j ≠ i) it is whether
    /// L > D = [log W₀] + Q − [log W] − y'Py. L is known at the start τ₀ (the full data's sum
    /// minus record i's term) and dL/dτ² = Σⱼ 1/(vⱼ + τ²) = W(τ²) decreases, so L at the
    /// root τ lies between L(τ₀) + (τ − τ₀)·W(τ) and L(τ₀) + (τ − τ₀)·W(τ₀); only when that
    /// interval holds D is L summed exactly.
    fn zero_is_higher(
        &self,
        i: usize,
        tau2: f64,
        re: &Moments,
        fe: &Moments,
        start: Start,
    ) -> bool {
        let ll0 = log_likelihood_from(self.method, 0.0, fe);
        let d = -2.0 * ll0 + 2.0 * log_likelihood_from(self.method, 0.0, re);
        let own = ln_1p(start.tau2 * self.inv_v[i]);
        if own <= start.log_1p * (7.0 / 8.0) {
            let at_start = start.log_1p - own;
            let delta = tau2 - start.tau2;
            let (a, b) = (at_start + delta * re.sw, at_start + delta * start.w);
            let (lower, upper) = (a.min(b), a.max(b));
            let slack = 1e-12 * (at_start.abs() + d.abs());
            if lower > d + slack {
                return true;
            }
            if upper < d - slack {
                return false;
            }
        }
        let exact = sum_log_1p_without(&self.inv_v, tau2, i);
        ll0 > log_likelihood_from(self.method, exact, re)
    }

    /// Newton's method on the omission's estimating equation from the full data's τ̂²:
    /// the root, the moments there, what is known at the start, and the steps taken.
    fn newton(&self, i: usize, k: usize) -> Option<(f64, Moments, Start, usize)> {
        let (full, log_1p) = self.at_full.as_ref()?;
        let (mut sums, mut m) = self.sums_without(full, i)?;
        let start = Start {
            tau2: full.tau2,
            w: m.sw,
            log_1p: *log_1p,
        };
        let mut tau2 = full.tau2;
        for step_count in 1..=MAX_FAST_STEPS {
            let ((u, du), _) = intercept_equation(self.method, &m, k)?;
            if !(u.is_finite() && du.is_finite() && du < 0.0) {
                return None;
            }
            let step = u / du;
            let next = tau2 - step;
            if !(next > 0.0 && next.is_finite()) {
                return None;
            }
            if step.abs() <= SETTLED * tau2 {
                return Some((tau2, m, start, step_count));
            }
            if step.abs() <= EXTRAPOLATED * next {
                return Some((next, sums.moments_plus(-step)?, start, step_count));
            }
            sums = self.pass(next, m.beta0, i);
            m = sums.moments()?;
            tau2 = next;
        }
        None
    }

    /// The plain refit of the records without i.
    fn refit(&self, i: usize) -> Result<Omitted, MetaError> {
        let keep = |x: &[f64]| -> Vec<f64> {
            x.iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, value)| *value)
                .collect()
        };
        let (y, v) = (keep(self.y), keep(self.v));
        let x = Design::intercept();
        let tau2 = estimate_tau2(self.method, &y, &v, &x)?;
        Ok(Omitted {
            tau2,
            re: Moments::at(&y, &v, &x, tau2.tau2).map_err(Degenerate::error)?,
            fe: Moments::at(&y, &v, &x, 0.0).map_err(Degenerate::error)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_from_power_sums_equal_the_two_pass_moments() {
        let y = [0.5, -0.3, 0.9, 0.1, 1.4];
        let v = [0.04, 0.02, 0.08, 0.03, 0.05];
        for tau2 in [0.0, 0.013, 0.7] {
            // A shift far from the estimate loses digits and is refused.
            let far = PowerSums::over(&y, &v, tau2, -30.0, None);
            assert!(far.moments().is_none());
            for c in [0.0, 0.4, -0.3] {
                let m = PowerSums::over(&y, &v, tau2, c, None).moments().unwrap();
                let two = Moments::at(&y, &v, &Design::intercept(), tau2).unwrap();
                for (a, b) in [
                    (m.beta0, two.beta0),
                    (m.var_beta0, two.var_beta0),
                    (m.ypy, two.ypy),
                    (m.yppy, two.yppy),
                    (m.ypppy, two.ypppy),
                    (m.tr_p, two.tr_p),
                    (m.tr_pp, two.tr_pp),
                    (m.log_det_xwx, two.log_det_xwx),
                ] {
                    assert!((a - b).abs() <= 1e-13 * b.abs().max(1.0), "{a} vs {b}");
                }
            }
        }
    }

    /// The first-order step of the moments in τ² agrees with the moments there to the square
    /// of the relative step.
    #[test]
    fn moments_extrapolate_to_first_order() {
        let y = [0.5, -0.3, 0.9, 0.1, 1.4, 0.2];
        let v = [0.04, 0.02, 0.08, 0.03, 0.05, 0.01];
        let tau2 = 0.2;
        let sums = PowerSums::over(&y, &v, tau2, 0.4, None);
        for rel in [1e-7, 1e-6] {
            let delta = rel * tau2;
            let stepped = sums.moments_plus(delta).unwrap();
            let exact = PowerSums::over(&y, &v, tau2 + delta, 0.4, None)
                .moments()
                .unwrap();
            for (a, b) in [
                (stepped.beta0, exact.beta0),
                (stepped.var_beta0, exact.var_beta0),
                (stepped.ypy, exact.ypy),
                (stepped.yppy, exact.yppy),
                (stepped.tr_p, exact.tr_p),
                (stepped.tr_pp, exact.tr_pp),
                (stepped.sw, exact.sw),
                (stepped.sw2, exact.sw2),
                (stepped.log_det_xwx, exact.log_det_xwx),
            ] {
                assert!(
                    (a - b).abs() <= 10.0 * rel * rel * b.abs() + 1e-15,
                    "{rel}: {a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn downdating_refuses_a_sum_dominated_by_the_record() {
        let y = [0.1, 0.2, 5.0];
        let v = [0.01, 0.02, 1e-6];
        let all = PowerSums::over(&y, &v, 0.0, 0.0, None);
        assert!(all.without(y[2], v[2]).is_none());
        let rest = all.without(y[0], v[0]).unwrap();
        let direct = PowerSums::over(&y, &v, 0.0, 0.0, Some(0));
        for a in 0..3 {
            for b in 0..3 {
                let (x, z) = (rest.s[a][b], direct.s[a][b]);
                assert!(
                    (x - z).abs() <= 1e-12 * z.abs().max(1.0),
                    "{a}{b}: {x} vs {z}"
                );
            }
        }
    }

    /// The fast path is the rule, the refit the exception: on ordinary data every omission
    /// of the iterative estimators, DL and EE takes it.
    #[test]
    fn ordinary_data_take_the_fast_path() {
        let k = 300;
        let y: Vec<f64> = (0..k)
            .map(|i| 0.3 + ((i * 37 % 101) as f64 / 101.0 - 0.5))
            .collect();
        let v: Vec<f64> = (0..k)
            .map(|i| 0.01 + (i * 53 % 97) as f64 / 500.0)
            .collect();
        for method in [Method::Reml, Method::Ml, Method::Pm, Method::Dl, Method::Ee] {
            let inv_v: Vec<f64> = v.iter().map(|v| 1.0 / v).collect();
            let at_zero = PowerSums::over(&y, &v, 0.0, 0.3, None);
            let full = estimate_tau2(method, &y, &v, &Design::intercept()).unwrap();
            let at_full = (full.tau2 > 0.0).then(|| {
                (
                    PowerSums::over(&y, &v, full.tau2, 0.3, None),
                    sum_log_1p_without(&inv_v, full.tau2, usize::MAX),
                )
            });
            let shared = Shared {
                y: &y,
                v: &v,
                inv_v,
                method,
                at_zero,
                at_full,
            };
            for i in 0..k {
                assert!(shared.fast(i).is_some(), "{} #{i}", method.name());
            }
        }
    }
}
