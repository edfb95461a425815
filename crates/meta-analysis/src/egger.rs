//! Egger's regression test for funnel-plot asymmetry.

use crate::distributions::{normal_two_sided_p, t_two_sided_p};
use crate::estimators::{estimate_tau2, Method};
use crate::records::{validate, Record};
use crate::weighted::{Design, Wls};
use crate::MetaError;

/// Which regression the test uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EggerVariant {
    /// Egger et al. (1997): OLS of yᵢ/√vᵢ on 1/√vᵢ, t test of the intercept with k − 2 df
    /// (identical to metafor's `regtest(model = "lm")`).
    #[default]
    Classic,
    /// metafor's default `regtest(model = "rma")`: REML meta-regression of yᵢ on √vᵢ,
    /// z test of the coefficient of √vᵢ.
    Rma,
}

impl EggerVariant {
    pub fn name(self) -> &'static str {
        match self {
            EggerVariant::Classic => "classic",
            EggerVariant::Rma => "rma",
        }
    }

    pub fn parse(name: &str) -> Option<EggerVariant> {
        match name {
            "classic" => Some(EggerVariant::Classic),
            "rma" => Some(EggerVariant::Rma),
            _ => None,
        }
    }
}

/// The outcome of Egger's test.
#[derive(Debug, Clone, PartialEq)]
pub struct EggerResult {
    pub variant: EggerVariant,
    pub k: usize,
    /// t (classic) or z (rma).
    pub statistic: f64,
    /// k − 2 for the classic test; `None` for the z test.
    pub df: Option<f64>,
    /// Two-sided p value.
    pub p: f64,
    /// Classic: the intercept of the standardized regression; rma: the slope on √vᵢ.
    pub coefficient: f64,
    pub se: f64,
    /// Both fitted coefficients: classic [b₀, b₁] of yᵢ/√vᵢ = b₀ + b₁/√vᵢ;
    /// rma [β₀, β₁] of yᵢ = β₀ + β₁√vᵢ.
    pub coefficients: [f64; 2],
    /// τ̂² of the meta-regression (rma only).
    pub tau2: Option<f64>,
}

impl EggerResult {
    /// The fitted line in funnel-plot coordinates, yᵢ = a + b·√vᵢ, as (a, b): for the
    /// classic test, dividing its regression through by 1/√vᵢ gives a = b₁, b = b₀;
    /// for rma, a = β₀, b = β₁.
    pub fn funnel_line(&self) -> (f64, f64) {
        let [c0, c1] = self.coefficients;
        match self.variant {
            EggerVariant::Classic => (c1, c0),
            EggerVariant::Rma => (c0, c1),
        }
    }
}

/// Runs Egger's test on at least 3 records whose √vᵢ are not all equal.
pub fn egger_test(records: &[Record], variant: EggerVariant) -> Result<EggerResult, MetaError> {
    let data = validate(records, 3, "Egger's regression test")?;
    let sei: Vec<f64> = data.vi.iter().map(|v| v.sqrt()).collect();
    if sei.iter().all(|s| *s == sei[0]) {
        return Err(MetaError::Undefined {
            reason: "Egger's test is undefined when all records have the same sampling variance \
                     (the regression has no spread in precision)"
                .into(),
        });
    }
    let k = data.k();
    match variant {
        EggerVariant::Classic => classic(&data.yi, &sei, k),
        EggerVariant::Rma => rma(&data.yi, &data.vi, sei, k),
    }
}

/// zᵢ = yᵢ/√vᵢ = b₀ + b₁·(1/√vᵢ) + εᵢ by OLS; t = b₀ / se(b₀), df = k − 2,
/// se(b₀)² = σ̂²·[(X'X)⁻¹]₀₀ with σ̂² = RSS/(k − 2).
fn classic(yi: &[f64], sei: &[f64], k: usize) -> Result<EggerResult, MetaError> {
    let z: Vec<f64> = yi.iter().zip(sei).map(|(y, s)| y / s).collect();
    let precision = sei.iter().map(|s| 1.0 / s).collect();
    let x = Design::intercept_and(precision);
    let ols = Wls::new(&z, &x, vec![1.0; k]).ok_or_else(|| MetaError::Undefined {
        reason: "Egger's test is undefined: the precisions 1/√vi are (numerically) all equal"
            .into(),
    })?;
    let df = (k - 2) as f64;
    let sigma2 = ols.rss() / df;
    let se = (sigma2 * ols.a.get(0, 0)).sqrt();
    if se.is_nan() || se <= 0.0 {
        return Err(MetaError::Undefined {
            reason: "Egger's test is undefined: the regression fits the points exactly, so the \
                     intercept has no standard error"
                .into(),
        });
    }
    let t = ols.beta[0] / se;
    Ok(EggerResult {
        variant: EggerVariant::Classic,
        k,
        statistic: t,
        df: Some(df),
        p: t_two_sided_p(t, df),
        coefficient: ols.beta[0],
        se,
        coefficients: [ols.beta[0], ols.beta[1]],
        tau2: None,
    })
}

/// yᵢ = β₀ + β₁√vᵢ + uᵢ + εᵢ fitted by REML; z = β̂₁ / se(β̂₁) with se² = [(X'WX)⁻¹]₁₁.
fn rma(yi: &[f64], vi: &[f64], sei: Vec<f64>, k: usize) -> Result<EggerResult, MetaError> {
    let x = Design::intercept_and(sei);
    let tau2 = estimate_tau2(Method::Reml, yi, vi, &x)?;
    let fit = Wls::random_effects(yi, vi, &x, tau2.tau2).ok_or_else(|| MetaError::Undefined {
        reason: "Egger's test is undefined: the standard errors √vi are (numerically) all equal"
            .into(),
    })?;
    let se = fit.a.get(1, 1).sqrt();
    let z = fit.beta[1] / se;
    Ok(EggerResult {
        variant: EggerVariant::Rma,
        k,
        statistic: z,
        df: None,
        p: normal_two_sided_p(z),
        coefficient: fit.beta[1],
        se,
        coefficients: [fit.beta[0], fit.beta[1]],
        tau2: Some(tau2.tau2),
    })
}
