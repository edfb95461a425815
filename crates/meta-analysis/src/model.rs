//! The random-effects model yi = μ + ui + εi, ui ~ N(0, τ²), εi ~ N(0, vi):
//! pooled estimate, its inference, heterogeneity statistics and prediction interval.

use crate::distributions::{
    chi2_sf, normal_quantile, normal_two_sided_p, t_quantile, t_two_sided_p, upper_quantile_point,
};
use crate::estimators::{estimate_tau2, Method, Moments, Tau2};
use crate::records::{validate, validate_columns, without, Record};
use crate::weighted::{Degenerate, Design};
use crate::MetaError;

/// How the pooled estimate is tested and its intervals are built (serialized by its
/// [`Test::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Test {
    /// Standard normal (Wald) inference: metafor's `test = "z"`.
    #[default]
    Z,
    /// Knapp–Hartung: t with k − 1 df and an adjusted standard error (metafor's `test = "knha"`).
    Knha,
}

impl Test {
    pub fn name(self) -> &'static str {
        match self {
            Test::Z => "z",
            Test::Knha => "knha",
        }
    }

    /// Every test, the default first.
    pub const ALL: [Test; 2] = [Test::Z, Test::Knha];

    pub fn parse(name: &str) -> Option<Test> {
        Test::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Options of one fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitOptions {
    pub method: Method,
    /// Confidence level of the CI and the prediction interval, strictly between 0 and 1.
    pub level: f64,
    pub test: Test,
}

impl FitOptions {
    /// Checks the level: strictly between 0 and 1, and such that the normal and t quantiles
    /// at (1 + level)/2, the critical values of the intervals, are finite (at most
    /// [`crate::MAX_LEVEL`]). The t quantile is checked at 1 df, its heaviest tail.
    pub fn validate(&self) -> Result<(), MetaError> {
        let level = self.level;
        if !(level > 0.0 && level < 1.0) {
            return Err(MetaError::InvalidLevel { level });
        }
        let p = upper_quantile_point(level);
        if !(normal_quantile(p).is_finite() && t_quantile(p, 1.0).is_finite()) {
            return Err(MetaError::LevelTooCloseToOne { level });
        }
        Ok(())
    }
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            method: Method::Reml,
            level: 0.95,
            test: Test::Z,
        }
    }
}

/// A fitted random-effects (or equal-effects) model.
///
/// Serialized (feature `serde`) whole, in the order of the tools' answers, with the test
/// statistic named by the test (`SerializedFit`): an answer adds its own parts (the data's
/// scale, the natural scale) after it.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "serde",
    serde(into = "SerializedFit", try_from = "SerializedFit")
)]
pub struct Fit {
    pub method: Method,
    pub test: Test,
    pub level: f64,
    /// Number of records in the fit.
    pub k: usize,
    /// Pooled estimate μ̂.
    pub estimate: f64,
    /// Standard error of μ̂ (Knapp–Hartung adjusted under `Test::Knha`).
    pub se: f64,
    /// Test statistic: z under `Test::Z`, t under `Test::Knha`.
    pub statistic: f64,
    /// Degrees of freedom of the t statistic (`Test::Knha` only).
    pub df: Option<f64>,
    /// Two-sided p value of μ = 0.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub tau2: f64,
    pub tau: f64,
    /// Standard error of τ̂²; null where the estimator defines none (PM, EE).
    pub se_tau2: Option<f64>,
    /// Cochran's Q with inverse-variance (τ² = 0) weights.
    pub q: f64,
    pub q_df: usize,
    pub q_p: f64,
    /// I² in percent.
    pub i2: f64,
    pub h2: f64,
    /// Prediction interval of a new study's true effect.
    pub pi_lower: f64,
    pub pi_upper: f64,
    /// Iterations used by an iterative estimator (REML, ML, PM); `None` for closed forms.
    pub iterations: Option<usize>,
}

/// [`Fit`] as it is serialized: its fields in the order of the tools' answers, the test
/// statistic named by the test (`z`, or `t` with its `df`). Its schema is [`Fit`]'s.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SerializedFit {
    /// The tau^2 estimator (REML, ML, DL, HE, SJ, PM, EE or FE), as the call named it.
    method: Method,
    /// "z" or "knha".
    test: Test,
    /// Confidence level of the intervals.
    level: f64,
    /// Records fitted.
    k: usize,
    /// Pooled estimate.
    estimate: f64,
    /// Its standard error (Knapp-Hartung adjusted with test "knha").
    se: f64,
    /// z statistic (test "z" only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(with = "f64"))]
    z: Option<f64>,
    /// t statistic (test "knha" only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(with = "f64"))]
    t: Option<f64>,
    /// Degrees of freedom of t, k - 1 (test "knha" only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(with = "f64"))]
    df: Option<f64>,
    /// Two-sided p value of μ = 0.
    p: f64,
    ci_lower: f64,
    ci_upper: f64,
    tau2: f64,
    tau: f64,
    /// Standard error of τ̂²; null where the estimator defines none (PM, EE).
    se_tau2: Option<f64>,
    /// Cochran's Q with inverse-variance (τ² = 0) weights.
    q: f64,
    q_df: usize,
    q_p: f64,
    /// I² in percent.
    i2: f64,
    h2: f64,
    /// Prediction interval of a new study's true effect.
    pi_lower: f64,
    pi_upper: f64,
    /// Iterations of an iterative estimator; null for closed forms.
    iterations: Option<usize>,
}

#[cfg(feature = "serde")]
impl From<Fit> for SerializedFit {
    fn from(fit: Fit) -> Self {
        let (z, t) = match fit.test {
            Test::Z => (Some(fit.statistic), None),
            Test::Knha => (None, Some(fit.statistic)),
        };
        SerializedFit {
            method: fit.method,
            test: fit.test,
            level: fit.level,
            k: fit.k,
            estimate: fit.estimate,
            se: fit.se,
            z,
            t,
            df: fit.df,
            p: fit.p,
            ci_lower: fit.ci_lower,
            ci_upper: fit.ci_upper,
            tau2: fit.tau2,
            tau: fit.tau,
            se_tau2: fit.se_tau2,
            q: fit.q,
            q_df: fit.q_df,
            q_p: fit.q_p,
            i2: fit.i2,
            h2: fit.h2,
            pi_lower: fit.pi_lower,
            pi_upper: fit.pi_upper,
            iterations: fit.iterations,
        }
    }
}

#[cfg(feature = "serde")]
impl TryFrom<SerializedFit> for Fit {
    type Error = String;

    /// The statistic is the one the test names: `z` for "z", `t` for "knha".
    fn try_from(s: SerializedFit) -> Result<Self, String> {
        let statistic = match s.test {
            Test::Z => s.z,
            Test::Knha => s.t,
        }
        .ok_or_else(|| {
            let name = if s.test == Test::Z { "z" } else { "t" };
            format!("a fit with test {:?} has no {name}", s.test.name())
        })?;
        Ok(Fit {
            method: s.method,
            test: s.test,
            level: s.level,
            k: s.k,
            estimate: s.estimate,
            se: s.se,
            statistic,
            df: s.df,
            p: s.p,
            ci_lower: s.ci_lower,
            ci_upper: s.ci_upper,
            tau2: s.tau2,
            tau: s.tau,
            se_tau2: s.se_tau2,
            q: s.q,
            q_df: s.q_df,
            q_p: s.q_p,
            i2: s.i2,
            h2: s.h2,
            pi_lower: s.pi_lower,
            pi_upper: s.pi_upper,
            iterations: s.iterations,
        })
    }
}

/// Fits the model to `records` (at least 2).
pub fn fit(records: &[Record], options: &FitOptions) -> Result<Fit, MetaError> {
    let data = validate(records, 2, "a meta-analysis")?;
    fit_data(&data.yi, &data.vi, options)
}

/// Fits the model to columns of effects `yi` and variances `vi` (records without ids, for
/// large k: no id check, no copy). The same checks as [`fit`] name a record by its position.
pub fn fit_columns(yi: &[f64], vi: &[f64], options: &FitOptions) -> Result<Fit, MetaError> {
    validate_columns(yi, vi, 2, "a meta-analysis")?;
    fit_data(yi, vi, options)
}

/// Fits the model to `records` without the ids in `exclude` (each must exist; at least 2 must remain).
pub fn refit_excluding(
    records: &[Record],
    exclude: &[String],
    options: &FitOptions,
) -> Result<Fit, MetaError> {
    validate(records, 2, "a meta-analysis")?;
    let kept = without(records, exclude, 2)?;
    fit(&kept, options)
}

/// Fits the intercept-only model to validated data.
///
/// With wᵢ = 1/(vᵢ + τ̂²): μ̂ = Σwᵢyᵢ / Σwᵢ, Var(μ̂) = 1/Σwᵢ. Under Knapp–Hartung the
/// variance is multiplied by s² = Σwᵢ(yᵢ − μ̂)² / (k − 1) (metafor 3.8, no truncation)
/// and t(k − 1) replaces the normal for the p value, CI and prediction interval.
pub(crate) fn fit_data(yi: &[f64], vi: &[f64], options: &FitOptions) -> Result<Fit, MetaError> {
    options.validate()?;
    let x = Design::intercept();
    let tau2 = estimate_tau2(options.method, yi, vi, &x)?;
    let re = Moments::at(yi, vi, &x, tau2.tau2).map_err(Degenerate::error)?;
    let fe = Moments::at(yi, vi, &x, 0.0).map_err(Degenerate::error)?;
    assemble(yi.len(), tau2, &re, &fe, options)
}

/// The fit of `k` records from its τ̂², the moments at τ̂² (`re`) and at τ² = 0 (`fe`, for
/// Q, I² and H²): the one place a [`Fit`] is put together, for a fit and for every
/// omission of leave-one-out alike. `options` must have been validated.
pub(crate) fn assemble(
    k: usize,
    tau2: Tau2,
    re: &Moments,
    fe: &Moments,
    options: &FitOptions,
) -> Result<Fit, MetaError> {
    let level = options.level;
    let estimate = re.beta0;
    let mut variance = re.var_beta0;

    let df_resid = (k - 1) as f64;
    let quantile_point = upper_quantile_point(level);
    let (statistic, df, p, crit) = match options.test {
        Test::Z => {
            let se = variance.sqrt();
            let z = estimate / se;
            (
                z,
                None,
                normal_two_sided_p(z),
                normal_quantile(quantile_point),
            )
        }
        Test::Knha => {
            variance *= re.ypy / df_resid;
            let t = estimate / variance.sqrt();
            (
                t,
                Some(df_resid),
                t_two_sided_p(t, df_resid),
                t_quantile(quantile_point, df_resid),
            )
        }
    };
    let se = variance.sqrt();
    if se == 0.0 {
        return Err(MetaError::Undefined {
            reason: "the standard error of the estimate is zero, so no test or interval is \
                     defined (under Knapp–Hartung this happens when all yi are equal)"
                .into(),
        });
    }

    let heterogeneity = Heterogeneity::from_fe(fe, k, 1, options.method, tau2.tau2);
    let pi_half = crit * (variance + tau2.tau2).sqrt();
    let fit = Fit {
        method: options.method,
        test: options.test,
        level,
        k,
        estimate,
        se,
        statistic,
        df,
        p,
        ci_lower: estimate - crit * se,
        ci_upper: estimate + crit * se,
        tau2: tau2.tau2,
        tau: tau2.tau2.sqrt(),
        se_tau2: tau2.se,
        q: heterogeneity.q,
        q_df: k - 1,
        q_p: chi2_sf(heterogeneity.q, df_resid),
        i2: heterogeneity.i2,
        h2: heterogeneity.h2,
        pi_lower: estimate - pi_half,
        pi_upper: estimate + pi_half,
        iterations: tau2.iterations,
    };
    fit.check_finite()?;
    Ok(fit)
}

impl Fit {
    /// Every reported number finite, or the first that is not named in the error: a field is
    /// never silently NaN or infinite (a JSON null).
    fn check_finite(&self) -> Result<(), MetaError> {
        let quantities = [
            ("pooled estimate", self.estimate),
            ("standard error of the estimate", self.se),
            ("test statistic", self.statistic),
            ("p value", self.p),
            ("confidence interval", self.ci_lower),
            ("confidence interval", self.ci_upper),
            ("τ² estimate", self.tau2),
            ("τ estimate", self.tau),
            ("standard error of τ²", self.se_tau2.unwrap_or(0.0)),
            ("Q statistic", self.q),
            ("p value of Q", self.q_p),
            ("I² statistic", self.i2),
            ("H² statistic", self.h2),
            ("prediction interval", self.pi_lower),
            ("prediction interval", self.pi_upper),
        ];
        match quantities.iter().find(|(_, value)| !value.is_finite()) {
            Some(&(quantity, _)) => Err(MetaError::NonFiniteResult { quantity }),
            None => Ok(()),
        }
    }
}

/// Cochran's Q and metafor's I² and H².
pub(crate) struct Heterogeneity {
    pub q: f64,
    pub i2: f64,
    pub h2: f64,
    /// The typical within-study variance s² = (k − p) / tr(P₀) (metafor's `vt`).
    pub vt: f64,
}

impl Heterogeneity {
    /// Q = Σ (1/vᵢ)(yᵢ − μ̂_EE)². For τ² estimators, with the typical within-study
    /// variance s² = (k − 1) / tr(P₀) (= (k−1)Σw / ((Σw)² − Σw²), w = 1/v):
    /// I² = 100·τ̂²/(τ̂² + s²), H² = (τ̂² + s²)/s² (Higgins & Thompson 2002, as in metafor).
    /// For the equal-effects model: I² = 100·max(0, (Q − (k−p))/Q), H² = Q/(k − p).
    pub(crate) fn of(
        yi: &[f64],
        vi: &[f64],
        x: &Design,
        method: Method,
        tau2: f64,
    ) -> Result<Self, MetaError> {
        let fe = Moments::at(yi, vi, x, 0.0).map_err(Degenerate::error)?;
        Ok(Heterogeneity::from_fe(&fe, yi.len(), x.p(), method, tau2))
    }

    /// The same from the moments at τ² = 0 (`fe`) of k records and p columns.
    pub(crate) fn from_fe(fe: &Moments, k: usize, p: usize, method: Method, tau2: f64) -> Self {
        let q = fe.ypy;
        let kp = (k - p) as f64;
        if method.is_equal_effects() {
            let i2 = if q > 0.0 {
                100.0 * ((q - kp) / q).max(0.0)
            } else {
                0.0
            };
            return Heterogeneity {
                q,
                i2,
                h2: q / kp,
                vt: kp / fe.tr_p,
            };
        }
        let s2 = kp / fe.tr_p;
        Heterogeneity {
            q,
            i2: 100.0 * tau2 / (tau2 + s2),
            h2: (tau2 + s2) / s2,
            vt: s2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(level: f64) -> FitOptions {
        FitOptions {
            level,
            ..FitOptions::default()
        }
    }

    #[test]
    fn levels_are_checked_for_a_finite_quantile() {
        use crate::MAX_LEVEL;
        assert_eq!(MAX_LEVEL, 0.9999999999999998);
        for level in [0.95, 0.5, 1e-300, MAX_LEVEL] {
            assert_eq!(at(level).validate(), Ok(()), "{level}");
        }
        for level in [0.0, 1.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
            assert!(
                matches!(at(level).validate(), Err(MetaError::InvalidLevel { .. })),
                "{level}"
            );
        }
        // The one double between MAX_LEVEL and 1.
        let next = 1.0 - f64::EPSILON / 2.0;
        assert!(next > MAX_LEVEL && next < 1.0);
        let e = at(next).validate().unwrap_err();
        assert_eq!(e, MetaError::LevelTooCloseToOne { level: next });
        assert!(
            e.to_string()
                .contains("the largest accepted level is 0.9999999999999998"),
            "{e}"
        );
    }
}
