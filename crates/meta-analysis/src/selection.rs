//! The step-function selection model for publication bias (Vevea & Hedges 1995; Hedges
//! 1992), fitted by maximum likelihood as metafor 3.8-1's
//! `selmodel(rma(yi, vi, method = "ML"), type = "stepfun", steps = …)` with its default
//! `alternative = "greater"`, to the exact optimum.
//!
//! Each record's one-sided p value pᵢ = 1 − Φ(yᵢ/√vᵢ) falls in one of the intervals
//! (0, s₁], (s₁, s₂], …, (s_{N−1}, 1] cut by the steps s₁ < … < s_{N−1} (and s_N = 1). A
//! result in interval j is published with relative likelihood δⱼ, δ₁ = 1. With
//! yᵢ ~ N(μ, vᵢ + τ²) before selection, the log-likelihood is
//!
//! ```text
//! ℓ(μ, τ², δ) = Σᵢ [ ln δ_{g(i)} + ln φ(yᵢ; μ, vᵢ + τ²) − ln Aᵢ ],
//! Aᵢ = Σⱼ δⱼ P(s_{j−1} < p ≤ sⱼ) = Σⱼ δⱼ [Φ(u_{i,j−1}) − Φ(u_{i,j})],
//! u_{i,j} = (c_{i,j} − μ)/√(vᵢ + τ²),   c_{i,j} = √vᵢ · Φ⁻¹(1 − sⱼ),
//! ```
//!
//! with g(i) the interval of pᵢ, Φ(u_{i,0}) = 1 and Φ(u_{i,N}) = 0. ℓ is maximised over μ,
//! τ² ≥ 0 and δ₂, …, δ_N > 0 by Newton's method with the analytic gradient and Hessian
//! (on ln τ² and ln δⱼ, see [`crate::optimize`]) until a step changes no parameter by more
//! than 10⁻¹³ (relative); metafor's `optim` stops far earlier. If the maximum lies at
//! τ² = 0 (the likelihood falls as τ² leaves 0), τ² is 0 and the rest is maximised with
//! it fixed.
//!
//! Inference is metafor's: the covariance of (μ, τ², δ₂, …) is the inverse of the observed
//! information (−Hessian of ℓ, here exact, in metafor by numerical differentiation); Wald
//! z tests and CIs for μ and for δⱼ (against δⱼ = 1; the CI's lower end cut at 0), τ²'s CI
//! τ̂² ± z·se cut at 0; the likelihood-ratio test of selection compares ℓ with the
//! log-likelihood of the ML random-effects model (all δⱼ = 1): LRT = max(0, 2(ℓ − ℓ₀)) on
//! N − 1 df.

// Matrix code indexes rows and columns by number, as the formulas do.
#![allow(clippy::needless_range_loop)]

use crate::distributions::{
    chi2_sf, normal_cdf, normal_quantile, normal_sf, normal_two_sided_p, upper_quantile_point,
};
use crate::math::{exp, ln, sq};
use crate::model::fit_data;
use crate::optimize::{maximize, spd_inverse, Local, MaximizeError};
use crate::records::validate;
use crate::{FitOptions, MetaError, Method, Record, Test};
use std::f64::consts::PI;

/// metafor's upper bound of a selection weight (`delta.max`): an estimate beyond it means
/// the likelihood has no interior maximum in the weights.
pub const MAX_DELTA: f64 = 100.0;

/// The iteration limit of the likelihood maximisation.
pub const MAX_SELECTION_ITERATIONS: usize = 200;

/// The default steps, metafor's example and the common three-interval model.
pub const DEFAULT_STEPS: [f64; 2] = [0.025, 0.5];

/// One interval of p values and its selection weight.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SelectionWeight {
    /// The interval (lower, upper] of one-sided p values.
    pub lower: f64,
    pub upper: f64,
    /// Records whose p value lies in it.
    pub k: usize,
    /// δⱼ, relative to the first interval's (δ₁ = 1, fixed).
    pub delta: f64,
    /// Standard error, z = (δ − 1)/se, two-sided p and CI (lower end cut at 0); null for
    /// the fixed δ₁.
    pub se: Option<f64>,
    #[cfg_attr(feature = "serde", serde(rename = "z"))]
    pub statistic: Option<f64>,
    pub p: Option<f64>,
    pub ci_lower: Option<f64>,
    pub ci_upper: Option<f64>,
}

/// A fitted step-function selection model.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SelectionModel {
    /// Records fitted.
    pub k: usize,
    pub level: f64,
    /// The steps, with 1 appended.
    pub steps: Vec<f64>,
    /// The adjusted estimate μ̂ with its Wald inference.
    pub estimate: f64,
    pub se: f64,
    #[cfg_attr(feature = "serde", serde(rename = "z"))]
    pub statistic: f64,
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub tau2: f64,
    /// Null when τ̂² = 0 (the boundary, where the information is not defined).
    pub se_tau2: Option<f64>,
    pub tau2_ci_lower: Option<f64>,
    pub tau2_ci_upper: Option<f64>,
    pub weights: Vec<SelectionWeight>,
    /// Likelihood-ratio test of δ₂ = … = δ_N = 1 (no selection), on lrt_df df.
    pub lrt: f64,
    pub lrt_df: usize,
    pub lrt_p: f64,
    /// The maximised log-likelihood ℓ and that of the ML random-effects model without
    /// selection ℓ₀.
    pub log_likelihood: f64,
    pub log_likelihood_null: f64,
    /// The random-effects model without selection (ML), the starting point and ℓ₀.
    pub unadjusted_estimate: f64,
    pub unadjusted_tau2: f64,
    /// Newton iterations of the likelihood maximisation.
    pub iterations: usize,
}

/// The steps as metafor uses them: sorted, duplicates dropped, 1 appended. Each given step
/// must lie strictly between 0 and 1.
pub fn selection_steps(steps: &[f64]) -> Result<Vec<f64>, MetaError> {
    if steps.is_empty() {
        return Err(MetaError::Undefined {
            reason: "a step-function selection model needs at least one step (a p value \
                     strictly between 0 and 1), e.g. [0.025, 0.5]"
                .into(),
        });
    }
    if let Some(bad) = steps.iter().find(|s| !(**s > 0.0 && **s < 1.0)) {
        return Err(MetaError::Undefined {
            reason: format!(
                "the step {} is not a p value strictly between 0 and 1",
                p_text(*bad)
            ),
        });
    }
    let mut sorted = steps.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    if sorted.len() > 10 {
        return Err(MetaError::Undefined {
            reason: format!(
                "{} distinct steps were given; at most 10 are accepted",
                sorted.len()
            ),
        });
    }
    sorted.push(1.0);
    Ok(sorted)
}

/// A p value (a step) as a person reads it in a message: as Rust writes it (0.025, 0.5),
/// or in scientific notation below 10⁻⁴ (1e-300 rather than 300 digits).
fn p_text(p: f64) -> String {
    if p != 0.0 && p.abs() < 1e-4 {
        format!("{p:e}")
    } else {
        format!("{p}")
    }
}

/// Per-record constants of the likelihood.
struct Study {
    yi: f64,
    vi: f64,
    /// The interval index g(i), 0-based.
    group: usize,
    /// c_{i,j} for j = 1 … N − 1.
    cuts: Vec<f64>,
}

/// The likelihood of the records for given steps.
struct Likelihood {
    studies: Vec<Study>,
    /// N, the number of intervals.
    intervals: usize,
}

/// θ = (μ, τ², δ₂, …, δ_N): the parameters in the order of the gradient and Hessian.
impl Likelihood {
    fn new(yi: &[f64], vi: &[f64], steps: &[f64]) -> Likelihood {
        let intervals = steps.len();
        let studies = yi
            .iter()
            .zip(vi)
            .map(|(&y, &v)| {
                let sd = v.sqrt();
                let p = normal_sf(y / sd);
                let group = steps.iter().position(|s| p <= *s).unwrap_or(intervals - 1);
                let cuts = steps[..intervals - 1]
                    .iter()
                    .map(|s| -sd * normal_quantile(*s))
                    .collect();
                Study {
                    yi: y,
                    vi: v,
                    group,
                    cuts,
                }
            })
            .collect();
        Likelihood { studies, intervals }
    }

    fn counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.intervals];
        for s in &self.studies {
            counts[s.group] += 1;
        }
        counts
    }

    /// ℓ with its gradient and Hessian in θ; δ₁ = 1.
    fn at(&self, mu: f64, tau2: f64, deltas: &[f64]) -> Local {
        let n = self.intervals;
        let dim = n + 1;
        let mut delta = Vec::with_capacity(n);
        delta.push(1.0);
        delta.extend_from_slice(deltas);
        let mut value = 0.0;
        let mut g = vec![0.0; dim];
        let mut h = vec![vec![0.0; dim]; dim];
        let norm = 0.5 * ln(2.0 * PI);
        // Each record's Fⱼ = Φ(uⱼ), 1 − Fⱼ and their derivatives in μ and τ² at the cuts
        // j = 1 … N − 1, and ∂A, ∂²A (buffers shared by the records: every entry read is
        // written for each record first; ∂²A's other entries stay 0).
        let m = n - 1;
        let mut f = vec![0.0; m];
        let mut sf = vec![0.0; m];
        let mut fm = vec![0.0; m];
        let mut ft = vec![0.0; m];
        let mut fmm = vec![0.0; m];
        let mut fmt = vec![0.0; m];
        let mut ftt = vec![0.0; m];
        let mut da = vec![0.0; dim];
        let mut dda = vec![vec![0.0; dim]; dim];
        for st in &self.studies {
            let s2 = st.vi + tau2;
            let s = s2.sqrt();
            let w = 1.0 / s2;
            let r = st.yi - mu;
            // ln δ_g + ln φ(y; μ, s²)
            value += ln(delta[st.group]) - norm - 0.5 * ln(s2) - 0.5 * sq(r) * w;
            g[0] += r * w;
            g[1] += -0.5 * w + 0.5 * sq(r) * sq(w);
            h[0][0] -= w;
            h[0][1] -= r * sq(w);
            h[1][1] += 0.5 * sq(w) - sq(r) * sq(w) * w;
            if st.group > 0 {
                let d = delta[st.group];
                g[st.group + 1] += 1.0 / d;
                h[st.group + 1][st.group + 1] -= 1.0 / sq(d);
            }
            for j in 0..m {
                let u = (st.cuts[j] - mu) / s;
                let phi = exp(-0.5 * sq(u)) / (2.0 * PI).sqrt();
                f[j] = normal_cdf(u);
                sf[j] = normal_sf(u);
                fm[j] = -phi / s;
                ft[j] = -phi * u / (2.0 * s2);
                fmm[j] = -u * phi / s2;
                fmt[j] = phi * (1.0 - sq(u)) / (2.0 * s2 * s);
                ftt[j] = phi * u * (3.0 - sq(u)) / (4.0 * sq(s2));
            }
            // Pⱼ = F_{j−1} − Fⱼ (F₀ = 1, F_N = 0), each without cancellation.
            let prob = |j: usize| -> f64 {
                match j {
                    0 => sf[0],
                    _ if j == n - 1 => f[j - 1],
                    _ => {
                        if f[j] > 0.5 {
                            sf[j] - sf[j - 1]
                        } else {
                            f[j - 1] - f[j]
                        }
                    }
                }
            };
            // dPⱼ = dF_{j−1} − dFⱼ.
            let dp = |d: &[f64], j: usize| -> f64 {
                let upper = if j == 0 { 0.0 } else { d[j - 1] };
                let lower = if j == n - 1 { 0.0 } else { d[j] };
                upper - lower
            };
            let mut a = 0.0;
            let (mut am, mut at, mut amm, mut amt, mut att) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for (j, &dj) in delta.iter().enumerate() {
                a += dj * prob(j);
                am += dj * dp(&fm, j);
                at += dj * dp(&ft, j);
                amm += dj * dp(&fmm, j);
                amt += dj * dp(&fmt, j);
                att += dj * dp(&ftt, j);
            }
            value -= ln(a);
            // ∂A/∂θ: (A_μ, A_τ², P₂, …, P_N); ∂²A: the μ, τ² block and ∂P_j/∂(μ, τ²).
            da[0] = am;
            da[1] = at;
            for j in 1..n {
                da[j + 1] = prob(j);
            }
            dda[0][0] = amm;
            dda[0][1] = amt;
            dda[1][1] = att;
            for j in 1..n {
                dda[0][j + 1] = dp(&fm, j);
                dda[1][j + 1] = dp(&ft, j);
            }
            for p in 0..dim {
                g[p] -= da[p] / a;
                for q in p..dim {
                    h[p][q] += -dda[p][q] / a + da[p] * da[q] / sq(a);
                }
            }
        }
        for p in 0..dim {
            for q in 0..p {
                h[p][q] = h[q][p];
            }
        }
        Local {
            value,
            gradient: g,
            hessian: h,
        }
    }
}

/// Fits the step-function selection model with `steps` (without the final 1; see
/// [`selection_steps`]) to `records`, the intervals at `options.level` (the method is ML
/// and the test z whatever `options` says, as in metafor).
pub fn selection_model(
    records: &[Record],
    steps: &[f64],
    options: &FitOptions,
) -> Result<SelectionModel, MetaError> {
    options.validate()?;
    let steps = selection_steps(steps)?;
    let free = steps.len() - 1;
    let data = validate(records, 2, "a selection model")?;
    let k = data.k();
    if k < free + 2 {
        return Err(MetaError::TooFewRecords {
            needed: free + 2,
            got: k,
            analysis: "this selection model (μ, τ² and one weight per step)",
        });
    }
    let likelihood = Likelihood::new(&data.yi, &data.vi, &steps);
    let counts = likelihood.counts();
    check_every_interval_has_records(&counts, &steps)?;
    let ml = fit_data(
        &data.yi,
        &data.vi,
        &FitOptions {
            method: Method::Ml,
            test: Test::Z,
            level: options.level,
        },
    )?;
    let ones = vec![1.0; free];
    let null = likelihood.at(ml.estimate, ml.tau2, &ones).value;

    let (mu, tau2, deltas, local, iterations) = optimum(&likelihood, &ml, free)?;
    check_weights_bounded(&deltas, &steps)?;

    let var = variances(&local, tau2, free)?;
    let crit = normal_quantile(upper_quantile_point(options.level));
    let se = var[0].expect("μ is free").sqrt();
    let z = mu / se;
    let se_tau2 = var[1].map(f64::sqrt);

    let weights = weight_table(&steps, &counts, &deltas, &var, crit);
    let lrt = (2.0 * (local.value - null)).max(0.0);
    let model = SelectionModel {
        k,
        level: options.level,
        steps: steps.clone(),
        estimate: mu,
        se,
        statistic: z,
        p: normal_two_sided_p(z),
        ci_lower: mu - crit * se,
        ci_upper: mu + crit * se,
        tau2,
        se_tau2,
        tau2_ci_lower: se_tau2.map(|se| (tau2 - crit * se).max(0.0)),
        tau2_ci_upper: se_tau2.map(|se| tau2 + crit * se),
        weights,
        log_likelihood: local.value,
        log_likelihood_null: null,
        lrt,
        lrt_df: free,
        lrt_p: chi2_sf(lrt, free as f64),
        unadjusted_estimate: ml.estimate,
        unadjusted_tau2: ml.tau2,
        iterations,
    };
    model.check_finite()?;
    Ok(model)
}

/// Refuses steps that leave an interval of one-sided p values without a record (its weight
/// cannot be estimated).
fn check_every_interval_has_records(counts: &[usize], steps: &[f64]) -> Result<(), MetaError> {
    if let Some(j) = counts.iter().position(|c| *c == 0) {
        let lower = if j == 0 { 0.0 } else { steps[j - 1] };
        return Err(MetaError::Undefined {
            reason: format!(
                "no record's one-sided p value lies in the interval ({}, {}], so its \
                 selection weight cannot be estimated; choose other steps",
                p_text(lower),
                p_text(steps[j])
            ),
        });
    }
    Ok(())
}

/// Refuses an estimated weight δⱼ beyond metafor's bound `MAX_DELTA`: the likelihood then has
/// no interior maximum in the weights.
fn check_weights_bounded(deltas: &[f64], steps: &[f64]) -> Result<(), MetaError> {
    if let Some(j) = deltas.iter().position(|d| *d > MAX_DELTA) {
        return Err(MetaError::Undefined {
            reason: format!(
                "the selection weight of the interval ({}, {}] is estimated at {:.4e}, beyond \
                 metafor's bound of {MAX_DELTA}: the likelihood has no interior maximum in the \
                 weights, so no estimate or standard error is reported; choose other steps",
                p_text(steps[j]),
                p_text(steps[j + 1]),
                deltas[j]
            ),
        });
    }
    Ok(())
}

/// Each parameter's variance (μ, τ², δ₂, …), from the inverse of the observed information
/// −H at the maximum; τ² at the boundary (0) is left out of the information and has none.
fn variances(local: &Local, tau2: f64, free: usize) -> Result<Vec<Option<f64>>, MetaError> {
    let boundary = tau2 == 0.0;
    let index: Vec<usize> = (0..free + 2).filter(|&p| !(boundary && p == 1)).collect();
    let information: Vec<Vec<f64>> = index
        .iter()
        .map(|&p| index.iter().map(|&q| -local.hessian[p][q]).collect())
        .collect();
    let covariance = spd_inverse(&information).ok_or_else(|| MetaError::Undefined {
        reason: "the selection model's information matrix (the negative Hessian of the \
                 log-likelihood at its maximum) is not positive definite, so no standard \
                 errors are defined"
            .into(),
    })?;
    Ok((0..free + 2)
        .map(|p| index.iter().position(|&q| q == p).map(|i| covariance[i][i]))
        .collect())
}

/// Each interval's weight (the first fixed at 1) with its Wald test of δⱼ = 1 and its
/// interval δⱼ ± crit·se, truncated at 0 below.
fn weight_table(
    steps: &[f64],
    counts: &[usize],
    deltas: &[f64],
    var: &[Option<f64>],
    crit: f64,
) -> Vec<SelectionWeight> {
    let mut weights = Vec::with_capacity(steps.len());
    for j in 0..steps.len() {
        let lower = if j == 0 { 0.0 } else { steps[j - 1] };
        let (delta, se) = if j == 0 {
            (1.0, None)
        } else {
            (deltas[j - 1], var[j + 1].map(f64::sqrt))
        };
        let statistic = se.map(|se| (delta - 1.0) / se);
        weights.push(SelectionWeight {
            lower,
            upper: steps[j],
            k: counts[j],
            delta,
            se,
            statistic,
            p: statistic.map(normal_two_sided_p),
            ci_lower: se.map(|se| (delta - crit * se).max(0.0)),
            ci_upper: se.map(|se| delta + crit * se),
        });
    }
    weights
}

type Optimum = (f64, f64, Vec<f64>, Local, usize);

/// The maximum of ℓ: inside (τ² > 0) when the likelihood rises as τ² leaves 0, else at
/// τ² = 0. Newton's method runs on (μ, ln τ², ln δ₂, …).
fn optimum(likelihood: &Likelihood, ml: &crate::Fit, free: usize) -> Result<Optimum, MetaError> {
    const TOL: f64 = 1e-13;
    let not_converged = |e: MaximizeError| match e {
        MaximizeError::IterationLimit { iterations } | MaximizeError::Stalled { iterations } => {
            MetaError::NotConverged {
                method: "step-function selection model (ML)",
                iterations,
            }
        }
        MaximizeError::NonFinite { .. } => MetaError::NonFiniteResult {
            quantity: "selection model's log-likelihood",
        },
        MaximizeError::Cancelled => MetaError::Cancelled,
    };
    // The boundary: τ² = 0, over (μ, ln δ).
    let at_zero = |x: &[f64]| -> Option<Local> {
        let deltas: Vec<f64> = x[1..].iter().map(|l| exp(*l)).collect();
        let full = likelihood.at(x[0], 0.0, &deltas);
        let keep: Vec<usize> = (0..free + 2).filter(|&p| p != 1).collect();
        Some(transformed(
            &full,
            &keep,
            &[x[0], 0.0]
                .iter()
                .copied()
                .chain(deltas)
                .collect::<Vec<_>>(),
        ))
    };
    let mut start = vec![ml.estimate];
    start.extend(std::iter::repeat_n(0.0, free));
    let zero = maximize(at_zero, start, TOL, MAX_SELECTION_ITERATIONS).map_err(not_converged)?;
    let zero_deltas: Vec<f64> = zero.x[1..].iter().map(|l| exp(*l)).collect();
    let zero_full = likelihood.at(zero.x[0], 0.0, &zero_deltas);
    let rises = zero_full.gradient[1] > 0.0;

    // The interior, over (μ, ln τ², ln δ), from the ML fit (τ² + 0.001, as metafor starts).
    let inside = |x: &[f64]| -> Option<Local> {
        let tau2 = exp(x[1]);
        let deltas: Vec<f64> = x[2..].iter().map(|l| exp(*l)).collect();
        let full = likelihood.at(x[0], tau2, &deltas);
        let keep: Vec<usize> = (0..free + 2).collect();
        let theta: Vec<f64> = [x[0], tau2].iter().copied().chain(deltas).collect();
        Some(transformed(&full, &keep, &theta))
    };
    let mut start = vec![ml.estimate, ln(ml.tau2 + 0.001)];
    start.extend(std::iter::repeat_n(0.0, free));
    let interior = maximize(inside, start, TOL, MAX_SELECTION_ITERATIONS);
    match interior {
        Ok(m) if exp(m.x[1]) > 0.0 && m.local.value >= zero.local.value => {
            let tau2 = exp(m.x[1]);
            let deltas: Vec<f64> = m.x[2..].iter().map(|l| exp(*l)).collect();
            // A τ² that Newton drives towards 0 is the boundary in disguise: the boundary
            // fit, solved exactly, is then the maximum.
            let full = likelihood.at(m.x[0], tau2, &deltas);
            if !rises && full.gradient[1].abs() > 1e-6 * (1.0 + full.gradient[0].abs()) {
                return Ok((zero.x[0], 0.0, zero_deltas, zero_full, zero.iterations));
            }
            Ok((m.x[0], tau2, deltas, full, m.iterations))
        }
        Ok(_) => Ok((zero.x[0], 0.0, zero_deltas, zero_full, zero.iterations)),
        Err(e) if rises => Err(not_converged(e)),
        Err(_) => Ok((zero.x[0], 0.0, zero_deltas, zero_full, zero.iterations)),
    }
}

/// The gradient and Hessian of ℓ in (μ, ln θ₁, ln θ₂, …) for the parameters `keep` of θ
/// (μ is index 0 and stays untransformed).
fn transformed(full: &Local, keep: &[usize], theta: &[f64]) -> Local {
    let scale = |p: usize| if p == 0 { 1.0 } else { theta[p] };
    let gradient: Vec<f64> = keep.iter().map(|&p| scale(p) * full.gradient[p]).collect();
    let hessian = keep
        .iter()
        .map(|&p| {
            keep.iter()
                .map(|&q| {
                    let mut h = scale(p) * scale(q) * full.hessian[p][q];
                    if p == q && p != 0 {
                        h += scale(p) * full.gradient[p];
                    }
                    h
                })
                .collect()
        })
        .collect();
    Local {
        value: full.value,
        gradient,
        hessian,
    }
}

impl SelectionModel {
    fn check_finite(&self) -> Result<(), MetaError> {
        let mut quantities = vec![
            ("adjusted estimate", self.estimate),
            ("standard error of the adjusted estimate", self.se),
            ("p value", self.p),
            ("τ² estimate", self.tau2),
            ("log-likelihood", self.log_likelihood),
            ("likelihood-ratio test", self.lrt),
            ("p value of the likelihood-ratio test", self.lrt_p),
        ];
        for w in &self.weights {
            quantities.push(("selection weight", w.delta));
            if let Some(se) = w.se {
                quantities.push(("standard error of a selection weight", se));
            }
        }
        match quantities.iter().find(|(_, v)| !v.is_finite()) {
            Some(&(quantity, _)) => Err(MetaError::NonFiniteResult { quantity }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(pairs: &[(f64, f64)]) -> Vec<Record> {
        pairs
            .iter()
            .enumerate()
            .map(|(i, &(y, v))| Record::new(format!("r{i}"), y, v))
            .collect()
    }

    #[test]
    fn the_gradient_and_hessian_are_those_of_the_likelihood() {
        let yi = [0.1, 0.5, 0.8, -0.2, 0.3, 1.1];
        let vi = [0.02, 0.05, 0.09, 0.04, 0.01, 0.2];
        let steps = selection_steps(&DEFAULT_STEPS).unwrap();
        let l = Likelihood::new(&yi, &vi, &steps);
        let theta = [0.2, 0.03, 0.6, 0.4];
        let at = |t: &[f64]| l.at(t[0], t[1], &t[2..]);
        let base = at(&theta);
        for p in 0..4 {
            let h = 1e-6 * theta[p].abs().max(1e-2);
            let mut up = theta;
            let mut down = theta;
            up[p] += h;
            down[p] -= h;
            let (lu, ld) = (at(&up), at(&down));
            let g = (lu.value - ld.value) / (2.0 * h);
            assert!(
                (g - base.gradient[p]).abs() < 1e-6 * (1.0 + g.abs()),
                "g{p}: {g} vs {}",
                base.gradient[p]
            );
            for q in 0..4 {
                let hq = (lu.gradient[q] - ld.gradient[q]) / (2.0 * h);
                assert!(
                    (hq - base.hessian[p][q]).abs() < 1e-5 * (1.0 + hq.abs()),
                    "h{p}{q}: {hq} vs {}",
                    base.hessian[p][q]
                );
            }
        }
    }

    #[test]
    fn an_empty_interval_and_bad_steps_are_refused() {
        // Every p value below 0.025: the other intervals are empty.
        let r = records(&[
            (1.0, 0.01),
            (0.9, 0.01),
            (1.2, 0.02),
            (0.8, 0.01),
            (1.1, 0.01),
        ]);
        let e = selection_model(&r, &DEFAULT_STEPS, &FitOptions::default()).unwrap_err();
        assert!(
            e.to_string().contains("no record's one-sided p value"),
            "{e}"
        );
        // A tiny step is written short (it was 300 zeros in a 423-character message).
        let tiny = selection_model(
            &records(&[
                (1.0, 0.01),
                (0.9, 0.01),
                (-0.1, 0.02),
                (0.2, 0.05),
                (0.3, 0.04),
            ]),
            &[1e-300, 0.5],
            &FitOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(tiny.contains("(0, 1e-300]") && tiny.len() < 200, "{tiny}");
        let bad = selection_steps(&[-1e-300]).unwrap_err().to_string();
        assert!(bad.contains("the step -1e-300 is"), "{bad}");
        for steps in [&[][..], &[0.0], &[1.0], &[0.5, f64::NAN]] {
            assert!(selection_steps(steps).is_err(), "{steps:?}");
        }
        assert_eq!(
            selection_steps(&[0.5, 0.025, 0.5]).unwrap(),
            vec![0.025, 0.5, 1.0]
        );
        let few = records(&[(1.0, 0.01), (0.1, 0.01), (-0.1, 0.02)]);
        assert!(matches!(
            selection_model(&few, &DEFAULT_STEPS, &FitOptions::default()),
            Err(MetaError::TooFewRecords { needed: 4, .. })
        ));
    }
}
