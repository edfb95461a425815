//! PET-PEESE (Stanley & Doucouliagos 2014): two weighted meta-regressions of the effects on
//! their precision, and a conditional rule choosing between their intercepts as the
//! effect corrected for small-study effects.
//!
//! - **PET** (precision-effect test): yᵢ = β₀ + β₁√vᵢ + eᵢ;
//! - **PEESE** (precision-effect estimate with standard error): yᵢ = β₀ + β₁vᵢ + eᵢ;
//!
//! both by weighted least squares with weights 1/vᵢ and a multiplicative error variance
//! (Stanley & Doucouliagos 2014, 2015): β̂ = (X′WX)⁻¹X′Wy, Var β̂ = s²(X′WX)⁻¹ with
//! s² = Σwᵢrᵢ²/(k − 2), and t tests with k − 2 df. This is R's
//! `lm(yi ~ sqrt(vi), weights = 1/vi)` and metafor's
//! `rma(yi, vi, mods = ~ sqrt(vi), method = "EE", test = "knha")` (the engine's
//! meta-regression with method EE and test knha). With `test = z` the variance is
//! (X′WX)⁻¹ and the tests are z tests: metafor's fixed-effect meta-regression
//! (`method = "EE"`, `test = "z"`).
//!
//! **The conditional rule.** If PET's intercept test rejects β₀ = 0 at level α (default
//! 0.05; two-sided by default, or one-sided in a stated direction), there is an effect
//! beyond small-study bias and PEESE's intercept is the estimate; otherwise PET's is.

use crate::distributions::{normal_cdf, normal_sf, t_cdf, t_sf};
use crate::meta_regression::{meta_regression, MetaRegression};
use crate::records::validate;
use crate::{FitOptions, MetaError, Method, Moderator, Record, Test};

/// The alternative of PET's intercept test in the conditional rule (serialized by its
/// [`Alternative::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Alternative {
    /// β₀ ≠ 0 (the default).
    #[default]
    #[cfg_attr(feature = "serde", serde(rename = "two.sided"))]
    TwoSided,
    /// β₀ > 0.
    Greater,
    /// β₀ < 0.
    Less,
}

impl Alternative {
    pub const ALL: [Alternative; 3] = [
        Alternative::TwoSided,
        Alternative::Greater,
        Alternative::Less,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Alternative::TwoSided => "two.sided",
            Alternative::Greater => "greater",
            Alternative::Less => "less",
        }
    }

    pub fn parse(name: &str) -> Option<Alternative> {
        Alternative::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// The options of PET-PEESE.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PetPeeseOptions {
    /// `Test::Knha` (default): the multiplicative-error WLS with t tests; `Test::Z`: the
    /// fixed-effect meta-regression with z tests.
    pub test: Test,
    pub level: f64,
    /// The level of PET's intercept test in the conditional rule (default 0.05).
    pub alpha: f64,
    pub alternative: Alternative,
}

impl Default for PetPeeseOptions {
    fn default() -> Self {
        PetPeeseOptions {
            test: Test::Knha,
            level: 0.95,
            alpha: 0.05,
            alternative: Alternative::TwoSided,
        }
    }
}

/// Which model's intercept the conditional rule chose (serialized by its
/// [`PetPeeseChoice::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "UPPERCASE"))]
pub enum PetPeeseChoice {
    Pet,
    Peese,
}

impl PetPeeseChoice {
    pub fn name(self) -> &'static str {
        match self {
            PetPeeseChoice::Pet => "PET",
            PetPeeseChoice::Peese => "PEESE",
        }
    }
}

/// PET, PEESE and the conditional estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct PetPeese {
    /// yᵢ on √vᵢ: the intercept is PET's estimate, the slope the funnel asymmetry test.
    pub pet: MetaRegression,
    /// yᵢ on vᵢ.
    pub peese: MetaRegression,
    pub alpha: f64,
    pub alternative: Alternative,
    /// The p value of PET's intercept under `alternative`.
    pub pet_intercept_p: f64,
    /// Whether it is below α.
    pub pet_rejects: bool,
    pub choice: PetPeeseChoice,
}

/// One coefficient of PET or PEESE as an answer reports it (a [`crate::Coefficient`]
/// without its name: the intercept or the slope).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RegressionCoefficient {
    pub estimate: f64,
    pub se: f64,
    /// t (test knha, k - 2 df) or z.
    pub statistic: f64,
    /// Two-sided p value of the coefficient = 0.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
}

impl From<&crate::Coefficient> for RegressionCoefficient {
    fn from(c: &crate::Coefficient) -> Self {
        RegressionCoefficient {
            estimate: c.estimate,
            se: c.se,
            statistic: c.statistic,
            p: c.p,
            ci_lower: c.ci_lower,
            ci_upper: c.ci_upper,
        }
    }
}

/// PET (yi on sqrt(vi)) or PEESE (yi on vi) as an answer reports it: the parts of its
/// [`MetaRegression`] that a one-predictor equal-effects model has.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PetPeeseRegression {
    pub intercept: RegressionCoefficient,
    pub slope: RegressionCoefficient,
    /// k - 2 with test knha, null with z.
    pub df: Option<f64>,
    /// The test for residual heterogeneity: QE on k - 2 df and its p value.
    pub qe: f64,
    pub qe_df: usize,
    pub qe_p: f64,
    /// Residual I^2 (percent) and H^2 of the equal-effects model, from QE as metafor
    /// computes them.
    pub i2: f64,
    pub h2: f64,
    /// The heterogeneity accounted for by the predictor, in percent (metafor's R^2).
    pub r2: f64,
}

impl From<&MetaRegression> for PetPeeseRegression {
    fn from(m: &MetaRegression) -> Self {
        PetPeeseRegression {
            intercept: (&m.coefficients[0]).into(),
            slope: (&m.coefficients[1]).into(),
            df: m.df,
            qe: m.qe,
            qe_df: m.qe_df,
            qe_p: m.qe_p,
            i2: m.i2,
            h2: m.h2,
            r2: m.r2,
        }
    }
}

/// PET-PEESE as an answer reports it ([`PetPeese::summary`]): the records, the test and
/// level of both regressions, each regression, the conditional rule and the chosen intercept.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PetPeeseSummary {
    /// Records fitted.
    pub k: usize,
    /// "knha" or "z".
    pub test: Test,
    pub level: f64,
    pub pet: PetPeeseRegression,
    pub peese: PetPeeseRegression,
    /// The rule: PEESE's intercept if PET's intercept test (alternative, alpha) rejects, else PET's.
    pub alpha: f64,
    /// The alternative of PET's intercept test: "two.sided", "greater" or "less".
    pub alternative: Alternative,
    /// The p value of PET's intercept under alternative.
    pub pet_intercept_p: f64,
    pub pet_rejects: bool,
    /// "PET" or "PEESE".
    pub choice: PetPeeseChoice,
    /// The chosen intercept: the estimate corrected for small-study effects.
    pub estimate: f64,
    pub se: f64,
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
}

impl PetPeese {
    /// The result as an answer reports it.
    pub fn summary(&self) -> PetPeeseSummary {
        let chosen = self.chosen();
        PetPeeseSummary {
            k: self.pet.k,
            test: self.pet.test,
            level: self.pet.level,
            pet: (&self.pet).into(),
            peese: (&self.peese).into(),
            alpha: self.alpha,
            alternative: self.alternative,
            pet_intercept_p: self.pet_intercept_p,
            pet_rejects: self.pet_rejects,
            choice: self.choice,
            estimate: chosen.estimate,
            se: chosen.se,
            p: chosen.p,
            ci_lower: chosen.ci_lower,
            ci_upper: chosen.ci_upper,
        }
    }

    /// The chosen model's intercept.
    pub fn chosen(&self) -> &crate::Coefficient {
        match self.choice {
            PetPeeseChoice::Pet => &self.pet.coefficients[0],
            PetPeeseChoice::Peese => &self.peese.coefficients[0],
        }
    }
}

/// PET-PEESE on `records` (at least 3, their vᵢ not all equal).
pub fn pet_peese(records: &[Record], options: &PetPeeseOptions) -> Result<PetPeese, MetaError> {
    if !(options.alpha > 0.0 && options.alpha < 1.0) {
        return Err(MetaError::Undefined {
            reason: format!(
                "alpha must lie strictly between 0 and 1 (for example 0.05), got {}",
                options.alpha
            ),
        });
    }
    let data = validate(records, 3, "PET-PEESE")?;
    let fit = FitOptions {
        method: Method::Ee,
        test: options.test,
        level: options.level,
    };
    let sei: Vec<f64> = data.vi.iter().map(|v| v.sqrt()).collect();
    let pet = meta_regression(records, &[Moderator::numeric("sqrt(vi)", sei)], &fit)?;
    let peese = meta_regression(records, &[Moderator::numeric("vi", data.vi.clone())], &fit)?;
    let intercept = &pet.coefficients[0];
    let p = match (options.alternative, pet.df) {
        (Alternative::TwoSided, _) => intercept.p,
        (Alternative::Greater, Some(df)) => t_sf(intercept.statistic, df),
        (Alternative::Less, Some(df)) => t_cdf(intercept.statistic, df),
        (Alternative::Greater, None) => normal_sf(intercept.statistic),
        (Alternative::Less, None) => normal_cdf(intercept.statistic),
    };
    let rejects = p < options.alpha;
    Ok(PetPeese {
        pet,
        peese,
        alpha: options.alpha,
        alternative: options.alternative,
        pet_intercept_p: p,
        pet_rejects: rejects,
        choice: if rejects {
            PetPeeseChoice::Peese
        } else {
            PetPeeseChoice::Pet
        },
    })
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
    fn the_rule_picks_peese_only_when_pet_rejects() {
        // A large effect with a small-study slope: PET's intercept is far from 0.
        let big = records(&[
            (1.0, 0.01),
            (1.1, 0.04),
            (1.25, 0.09),
            (1.4, 0.16),
            (1.5, 0.25),
        ]);
        let r = pet_peese(&big, &PetPeeseOptions::default()).unwrap();
        assert!(
            r.pet_rejects && r.choice == PetPeeseChoice::Peese,
            "{}",
            r.pet_intercept_p
        );
        assert_eq!(r.chosen(), &r.peese.coefficients[0]);
        // The same one-sided in the other direction does not reject.
        let less = PetPeeseOptions {
            alternative: Alternative::Less,
            ..PetPeeseOptions::default()
        };
        let r = pet_peese(&big, &less).unwrap();
        assert!(!r.pet_rejects && r.choice == PetPeeseChoice::Pet);
        assert!(r.pet_intercept_p > 0.5);
    }

    #[test]
    fn equal_variances_and_bad_alpha_are_refused() {
        let flat = records(&[(0.1, 0.04), (0.3, 0.04), (0.2, 0.04)]);
        let e = pet_peese(&flat, &PetPeeseOptions::default()).unwrap_err();
        assert!(matches!(e, MetaError::RankDeficient { .. }), "{e}");
        let ok = records(&[(0.1, 0.04), (0.3, 0.05), (0.2, 0.06)]);
        let bad = PetPeeseOptions {
            alpha: 1.0,
            ..PetPeeseOptions::default()
        };
        assert!(pet_peese(&ok, &bad).is_err());
        assert!(pet_peese(&ok[..2], &PetPeeseOptions::default()).is_err());
    }
}
