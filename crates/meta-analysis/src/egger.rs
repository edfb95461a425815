//! Egger's regression test for funnel-plot asymmetry.

use crate::distributions::{normal_quantile, normal_two_sided_p, t_quantile, t_two_sided_p};
use crate::estimators::{estimate_tau2, Method};
use crate::records::{validate, Record};
use crate::weighted::{Degenerate, Design, Wls};
use crate::MetaError;

/// Which regression the test uses (serialized by its [`EggerVariant::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
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

    /// Every variant, the registered (classic) one first.
    pub const ALL: [EggerVariant; 2] = [EggerVariant::Classic, EggerVariant::Rma];

    pub fn parse(name: &str) -> Option<EggerVariant> {
        EggerVariant::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// The outcome of Egger's test.
///
/// Serialized (feature `serde`) under the names of `egger_test`'s answer, in its order:
/// [`Self::line_per_se`], which always equals [`Self::coefficient`], is left out.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct EggerResult {
    /// "classic" or "rma".
    pub variant: EggerVariant,
    /// Records tested.
    pub k: usize,
    /// Two-sided p value of the test.
    #[cfg_attr(feature = "serde", serde(rename = "egger_p"))]
    pub p: f64,
    /// t (classic) or z (rma).
    pub statistic: f64,
    /// k − 2 for the classic test; null for the z test (rma).
    pub df: Option<f64>,
    /// The tested coefficient: classic b₀, the intercept of yᵢ/√vᵢ = b₀ + b₁/√vᵢ; rma β₁,
    /// the coefficient of √vᵢ in yᵢ = β₀ + β₁√vᵢ. In funnel-plot coordinates both are the
    /// fitted line's change per unit of √vᵢ, so this always equals [`Self::line_per_se`].
    pub coefficient: f64,
    /// Standard error of the coefficient.
    pub se: f64,
    /// The fitted line in funnel-plot coordinates (effect against its standard error √vᵢ)
    /// at √vᵢ = 0: metafor's "limit estimate" (regtest()'s est), the effect of a study of
    /// infinite precision. Classic: b₁ (the *slope* of the standardized regression); rma: β₀.
    #[cfg_attr(feature = "serde", serde(rename = "limit_estimate"))]
    pub line_at_se0: f64,
    /// The 95% confidence interval of the limit estimate, as metafor's `regtest()` prints
    /// its "Limit Estimate (as sei -> 0)" (ci.lb, ci.ub): b ± t₀.₉₇₅,ₖ₋₂·se(b) for the
    /// classic test (the weighted regression with multiplicative dispersion,
    /// se(b)² = σ̂²·[(X'X)⁻¹]₁₁), and b ± z₀.₉₇₅·se(b) for rma (se(b)² = [(X'WX)⁻¹]₀₀).
    pub limit_ci_lower: f64,
    pub limit_ci_upper: f64,
    /// The fitted line's change in effect per unit of standard error √vᵢ. Classic: b₀ (the
    /// *intercept* of the standardized regression, the tested coefficient); rma: β₁. Not
    /// serialized, being [`Self::coefficient`]: a result read back from its JSON has 0 here.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub line_per_se: f64,
    /// τ̂² of the meta-regression (rma only, else null).
    pub tau2: Option<f64>,
}

impl EggerResult {
    /// The fitted line in funnel-plot coordinates, yᵢ = a + b·√vᵢ, as
    /// (a, b) = ([`Self::line_at_se0`], [`Self::line_per_se`]). For the classic test,
    /// multiplying yᵢ/√vᵢ = b₀ + b₁/√vᵢ through by √vᵢ gives a = b₁, b = b₀; for rma,
    /// a = β₀, b = β₁.
    pub fn funnel_line(&self) -> (f64, f64) {
        (self.line_at_se0, self.line_per_se)
    }

    /// Every reported number finite, or the first that is not named in the error.
    fn checked(self) -> Result<Self, MetaError> {
        let quantities = [
            ("Egger test statistic", self.statistic),
            ("Egger p value", self.p),
            ("Egger coefficient", self.coefficient),
            ("standard error of the Egger coefficient", self.se),
            ("Egger line at se = 0", self.line_at_se0),
            (
                "lower bound of the limit estimate's CI",
                self.limit_ci_lower,
            ),
            (
                "upper bound of the limit estimate's CI",
                self.limit_ci_upper,
            ),
            ("Egger line's change per unit of se", self.line_per_se),
            ("τ² of the Egger meta-regression", self.tau2.unwrap_or(0.0)),
        ];
        match quantities.iter().find(|(_, value)| !value.is_finite()) {
            Some(&(quantity, _)) => Err(MetaError::NonFiniteResult { quantity }),
            None => Ok(self),
        }
    }
}

/// The upper quantile of the limit estimate's 95% interval (regtest()'s default level).
const LIMIT_LEVEL_UPPER: f64 = 0.975;

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
    }?
    .checked()
}

/// zᵢ = yᵢ/√vᵢ = b₀ + b₁·(1/√vᵢ) + εᵢ by OLS; t = b₀ / se(b₀), df = k − 2,
/// se(b₀)² = σ̂²·[(X'X)⁻¹]₀₀ with σ̂² = RSS/(k − 2).
fn classic(yi: &[f64], sei: &[f64], k: usize) -> Result<EggerResult, MetaError> {
    let z: Vec<f64> = yi.iter().zip(sei).map(|(y, s)| y / s).collect();
    let precision = sei.iter().map(|s| 1.0 / s).collect();
    let x = Design::intercept_and(precision);
    let ols = Wls::new(&z, &x, vec![1.0; k]).map_err(|e| match e {
        Degenerate::Singular => MetaError::Undefined {
            reason: "Egger's test is undefined: the precisions 1/√vi are (numerically) all equal"
                .into(),
        },
        Degenerate::NonFinite => e.error(),
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
    let limit_half_width = t_quantile(LIMIT_LEVEL_UPPER, df) * (sigma2 * ols.a.get(1, 1)).sqrt();
    Ok(EggerResult {
        variant: EggerVariant::Classic,
        k,
        statistic: t,
        df: Some(df),
        p: t_two_sided_p(t, df),
        coefficient: ols.beta[0],
        se,
        line_at_se0: ols.beta[1],
        limit_ci_lower: ols.beta[1] - limit_half_width,
        limit_ci_upper: ols.beta[1] + limit_half_width,
        line_per_se: ols.beta[0],
        tau2: None,
    })
}

/// yᵢ = β₀ + β₁√vᵢ + uᵢ + εᵢ fitted by REML; z = β̂₁ / se(β̂₁) with se² = [(X'WX)⁻¹]₁₁.
fn rma(yi: &[f64], vi: &[f64], sei: Vec<f64>, k: usize) -> Result<EggerResult, MetaError> {
    let x = Design::intercept_and(sei);
    let tau2 = estimate_tau2(Method::Reml, yi, vi, &x)?;
    let fit = Wls::random_effects(yi, vi, &x, tau2.tau2).map_err(|e| match e {
        Degenerate::Singular => MetaError::Undefined {
            reason: "Egger's test is undefined: the standard errors √vi are (numerically) all \
                     equal"
                .into(),
        },
        Degenerate::NonFinite => e.error(),
    })?;
    let se = fit.a.get(1, 1).sqrt();
    let z = fit.beta[1] / se;
    let limit_half_width = normal_quantile(LIMIT_LEVEL_UPPER) * fit.a.get(0, 0).sqrt();
    Ok(EggerResult {
        variant: EggerVariant::Rma,
        k,
        statistic: z,
        df: None,
        p: normal_two_sided_p(z),
        coefficient: fit.beta[1],
        se,
        line_at_se0: fit.beta[0],
        limit_ci_lower: fit.beta[0] - limit_half_width,
        limit_ci_upper: fit.beta[0] + limit_half_width,
        line_per_se: fit.beta[1],
        tau2: Some(tau2.tau2),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records on the funnel line yᵢ = 0.2 + 1.5·√vᵢ, with small alternating deviations.
    fn on_a_line() -> Vec<Record> {
        [0.01, 0.02, 0.04, 0.09, 0.16, 0.25]
            .iter()
            .enumerate()
            .map(|(i, &v): (usize, &f64)| {
                let wiggle = if i % 2 == 0 { 1e-3 } else { -1e-3 };
                Record::new(format!("r{i}"), 0.2 + 1.5 * v.sqrt() + wiggle, v)
            })
            .collect()
    }

    #[test]
    fn the_line_is_named_for_what_it_is_in_both_variants() {
        for variant in [EggerVariant::Classic, EggerVariant::Rma] {
            let e = egger_test(&on_a_line(), variant).unwrap();
            assert!((e.line_at_se0 - 0.2).abs() < 0.01, "{variant:?}: {e:?}");
            assert!((e.line_per_se - 1.5).abs() < 0.05, "{variant:?}: {e:?}");
            // The tested coefficient is the line's change per unit of se in both variants.
            assert_eq!(e.coefficient, e.line_per_se);
            assert_eq!(e.funnel_line(), (e.line_at_se0, e.line_per_se));
        }
    }
}
