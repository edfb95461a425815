//! Back-transformations of effect sizes to their natural scale, as metafor's
//! `predict(fit, transf = ...)` applies them.
//!
//! A model is fitted on the scale where the effect sizes are roughly normal (log risk
//! ratios, logit proportions, Fisher's z); a reader wants the estimate and its intervals on
//! the scale of the measure itself (a risk ratio, a proportion, a correlation). Each
//! transform is increasing (strictly, or clamped to the natural range as metafor clamps
//! it), so it is applied to the bounds of an interval as they are (metafor does the same: `transf` is applied to `pred`, `ci.lb`, `ci.ub`, `pi.lb`,
//! `pi.ub`). The standard error has no back-transformed counterpart and none is given.
//!
//! Every function computes through [`crate::math`], so the natural-scale numbers are the
//! same bits on every target.

use crate::math;

/// A back-transformation by name (metafor's `transf` function), before the data bind the
/// argument some of them take ([`TransformKind::bind`]): the harmonic mean of the records'
/// sample sizes for PFT's inverse Freeman-Tukey, of their person-times for IRFT's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransformKind {
    /// The identity.
    None,
    /// e^x (base R's `exp`).
    Exp,
    /// metafor's `transf.ilogit`.
    Ilogit,
    /// metafor's `transf.ztor`.
    Ztor,
    /// metafor's `transf.iarcsin`: arcsine square root proportions (PAS) to proportions.
    Iarcsin,
    /// metafor's `transf.ipft.hm`: Freeman-Tukey double arcsine proportions (PFT) to
    /// proportions, at the harmonic mean of the sample sizes (Miller 1978).
    IpftHm,
    /// metafor's `transf.iirft`: Freeman-Tukey incidence rates (IRFT) to incidence rates, at
    /// one person-time (here the harmonic mean of the records' `ti`).
    Iirft,
    /// metafor's `transf.isqrt`: square root incidence rates (IRS) to incidence rates.
    Isqrt,
    /// metafor's `transf.iahw`: Hakstian & Whalen's transformed alpha (AHW) to alpha.
    Iahw,
    /// metafor's `transf.iabt`: Bonett's transformed alpha (ABT) to alpha.
    Iabt,
}

impl TransformKind {
    /// Every transform, in the order the tools list them.
    pub const ALL: [TransformKind; 10] = [
        TransformKind::None,
        TransformKind::Exp,
        TransformKind::Ilogit,
        TransformKind::Ztor,
        TransformKind::Iarcsin,
        TransformKind::IpftHm,
        TransformKind::Iirft,
        TransformKind::Isqrt,
        TransformKind::Iahw,
        TransformKind::Iabt,
    ];

    /// The name the tools use: metafor's function without `transf.` ("exp", "ipft.hm").
    pub fn name(self) -> &'static str {
        match self {
            TransformKind::None => "none",
            TransformKind::Exp => "exp",
            TransformKind::Ilogit => "ilogit",
            TransformKind::Ztor => "ztor",
            TransformKind::Iarcsin => "iarcsin",
            TransformKind::IpftHm => "ipft.hm",
            TransformKind::Iirft => "iirft",
            TransformKind::Isqrt => "isqrt",
            TransformKind::Iahw => "iahw",
            TransformKind::Iabt => "iabt",
        }
    }

    /// The transform named `name` (as [`TransformKind::name`] writes it).
    pub fn parse(name: &str) -> Option<TransformKind> {
        TransformKind::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The column of raw data whose harmonic mean the transform takes (escalc's name: `ni`
    /// for PFT's, `ti` for IRFT's), if it takes one.
    pub fn harmonic_mean_of(self) -> Option<&'static str> {
        match self {
            TransformKind::IpftHm => Some("ni"),
            TransformKind::Iirft => Some("ti"),
            _ => None,
        }
    }

    /// The transform with its argument: `values` are the records' values of
    /// [`TransformKind::harmonic_mean_of`] (ignored by a transform that takes none), of which
    /// the harmonic mean 1 / mean(1/x) is taken over those given, as `transf.ipft.hm`'s
    /// `1/(mean(1/ni, na.rm = TRUE))`. `None` when the transform needs them and no value is
    /// a positive finite number, or one is not.
    pub fn bind(self, values: &[Option<f64>]) -> Option<Transform> {
        Some(match self {
            TransformKind::None => Transform::None,
            TransformKind::Exp => Transform::Exp,
            TransformKind::Ilogit => Transform::Ilogit,
            TransformKind::Ztor => Transform::Ztor,
            TransformKind::Iarcsin => Transform::Iarcsin,
            TransformKind::Isqrt => Transform::Isqrt,
            TransformKind::Iahw => Transform::Iahw,
            TransformKind::Iabt => Transform::Iabt,
            TransformKind::IpftHm => Transform::IpftHm {
                ni: harmonic_mean(values)?,
            },
            TransformKind::Iirft => Transform::Iirft {
                ti: harmonic_mean(values)?,
            },
        })
    }
}

/// 1 / mean(1/x) over the values given (R's `na.rm = TRUE`); `None` when there is none or
/// one is not a positive finite number.
pub fn harmonic_mean(values: &[Option<f64>]) -> Option<f64> {
    let given: Vec<f64> = values.iter().flatten().copied().collect();
    if given.is_empty() || given.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
        return None;
    }
    let sum: f64 = given.iter().map(|x| 1.0 / x).sum();
    Some(1.0 / (sum / given.len() as f64))
}

/// A back-transformation (metafor's `transf` argument) with its argument bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Transform {
    /// The identity: the measure's scale is already its natural one.
    None,
    /// e^x: log risk, odds, rate or mean ratios, and log proportions, to ratios and
    /// proportions. metafor's `exp` (base R).
    Exp,
    /// The inverse logit e^x / (1 + e^x): logit proportions to proportions. metafor's
    /// `transf.ilogit`.
    Ilogit,
    /// The inverse of Fisher's r-to-z transform, tanh z = (e^{2z} − 1)/(e^{2z} + 1): Fisher's
    /// z to a correlation. metafor's `transf.ztor`.
    Ztor,
    /// [`iarcsin`].
    Iarcsin,
    /// [`ipft`] at `ni`, the harmonic mean of the sample sizes (`transf.ipft.hm`).
    IpftHm { ni: f64 },
    /// [`iirft`] at the person-time `ti`.
    Iirft { ti: f64 },
    /// [`isqrt`].
    Isqrt,
    /// [`iahw`].
    Iahw,
    /// [`iabt`].
    Iabt,
}

impl Transform {
    /// The transform without its argument.
    pub fn kind(self) -> TransformKind {
        match self {
            Transform::None => TransformKind::None,
            Transform::Exp => TransformKind::Exp,
            Transform::Ilogit => TransformKind::Ilogit,
            Transform::Ztor => TransformKind::Ztor,
            Transform::Iarcsin => TransformKind::Iarcsin,
            Transform::IpftHm { .. } => TransformKind::IpftHm,
            Transform::Iirft { .. } => TransformKind::Iirft,
            Transform::Isqrt => TransformKind::Isqrt,
            Transform::Iahw => TransformKind::Iahw,
            Transform::Iabt => TransformKind::Iabt,
        }
    }

    /// The name the tools use ([`TransformKind::name`]).
    pub fn name(self) -> &'static str {
        self.kind().name()
    }

    /// x on the natural scale.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Transform::None => x,
            Transform::Exp => math::exp(x),
            Transform::Ilogit => ilogit(x),
            Transform::Ztor => ztor(x),
            Transform::Iarcsin => iarcsin(x),
            Transform::IpftHm { ni } => ipft(x, ni),
            Transform::Iirft { ti } => iirft(x, ti),
            Transform::Isqrt => isqrt(x),
            Transform::Iahw => iahw(x),
            Transform::Iabt => iabt(x),
        }
    }

    /// A natural-scale value back on yi's scale (the measure's own transform: ln, logit,
    /// Fisher's z, the arcsine square root, Freeman-Tukey's, √, Hakstian & Whalen's or
    /// Bonett's), for an axis whose ticks are round natural values; inside the natural
    /// range, `apply(inverse(v)) == v` up to rounding.
    pub fn inverse(self, v: f64) -> f64 {
        match self {
            Transform::None => v,
            Transform::Exp => math::ln(v),
            Transform::Ilogit => math::ln(v / (1.0 - v)),
            Transform::Ztor => math::atanh(v),
            Transform::Iarcsin => math::asin(v.sqrt()),
            Transform::IpftHm { ni } => pft(v, ni),
            Transform::Iirft { ti } => irft(v, ti),
            Transform::Isqrt => v.sqrt(),
            Transform::Iahw => 1.0 - math::cbrt(1.0 - v),
            Transform::Iabt => -math::ln_1p(-v),
        }
    }
}

/// The inverse logit, metafor's `transf.ilogit`: e^x / (1 + e^x), written 1 / (1 + e^−x)
/// for x ≥ 0 and e^x / (1 + e^x) below, so that neither form overflows (R's `plogis`
/// computes it the same way). Strictly increasing from 0 to 1.
pub fn ilogit(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + math::exp(-x))
    } else {
        let e = math::exp(x);
        e / (1.0 + e)
    }
}

/// Fisher's z back to a correlation, metafor's `transf.ztor`: (e^{2z} − 1)/(e^{2z} + 1),
/// which is tanh z (Fisher 1921); computed as tanh, which does not overflow for large |z|.
pub fn ztor(z: f64) -> f64 {
    math::tanh(z)
}

/// The inverse of the arcsine square root transform, metafor's `transf.iarcsin`: sin²x on
/// [0, π/2], 0 below and 1 above (the proportion the transform's range allows).
pub fn iarcsin(x: f64) -> f64 {
    if x < 0.0 {
        0.0
    } else if x > std::f64::consts::FRAC_PI_2 {
        1.0
    } else {
        math::sq(math::sin(x))
    }
}

/// Freeman & Tukey's (1950) double arcsine transform of a proportion p with sample size n,
/// metafor's `transf.pft`: ½·(asin √(x/(n+1)) + asin √((x+1)/(n+1))) with x = p·n.
pub fn pft(p: f64, n: f64) -> f64 {
    let x = p * n;
    0.5 * (math::asin((x / (n + 1.0)).sqrt()) + math::asin(((x + 1.0) / (n + 1.0)).sqrt()))
}

/// The inverse of the double arcsine transform at sample size n (Miller 1978), metafor's
/// `transf.ipft`: ½·(1 − sgn(cos 2x)·√(1 − (sin 2x + (sin 2x − 1/sin 2x)/n)²)), 0 below
/// [`pft`](0, n) and 1 above [`pft`](1, n) (sgn(0) = 0, as R's `sign`).
pub fn ipft(x: f64, n: f64) -> f64 {
    if x > pft(1.0, n) {
        return 1.0;
    }
    if x < pft(0.0, n) {
        return 0.0;
    }
    let s = math::sin(2.0 * x);
    let c = math::cos(2.0 * x);
    let sign = if c > 0.0 {
        1.0
    } else if c < 0.0 {
        -1.0
    } else {
        0.0
    };
    0.5 * (1.0 - sign * (1.0 - math::sq(s + (s - 1.0 / s) / n)).sqrt())
}

/// The Freeman-Tukey transform of an incidence rate r at person-time t, metafor's
/// `transf.irft`: ½·(√r + √(r + 1/t)).
pub fn irft(r: f64, t: f64) -> f64 {
    0.5 * (r.sqrt() + (r + 1.0 / t).sqrt())
}

/// Its inverse at person-time t, metafor's `transf.iirft`: (1/t − 8x² + 16·t·x⁴)/(16·x²·t),
/// 0 below [`irft`](0, t), and 0 where it is at most the machine epsilon.
pub fn iirft(x: f64, t: f64) -> f64 {
    if x < irft(0.0, t) {
        return 0.0;
    }
    let x2 = math::sq(x);
    let z = (1.0 / t - 8.0 * x2 + 16.0 * t * math::powi(x, 4)) / (16.0 * x2 * t);
    if z <= f64::EPSILON {
        0.0
    } else {
        z
    }
}

/// The inverse of the square root transform, metafor's `transf.isqrt`: x², 0 below 0.
pub fn isqrt(x: f64) -> f64 {
    if x < 0.0 {
        0.0
    } else {
        x * x
    }
}

/// The inverse of Hakstian & Whalen's (1976) alpha transform 1 − (1 − α)^⅓, metafor's
/// `transf.iahw`: 1 − (1 − x)³, 0 below 0 and 1 above 1.
pub fn iahw(x: f64) -> f64 {
    if x > 1.0 {
        1.0
    } else if x < 0.0 {
        0.0
    } else {
        1.0 - math::powi(1.0 - x, 3)
    }
}

/// The inverse of Bonett's (2002) alpha transform −ln(1 − α), metafor's `transf.iabt`:
/// 1 − e^−x, 0 below 0.
pub fn iabt(x: f64) -> f64 {
    if x < 0.0 {
        0.0
    } else {
        1.0 - math::exp(-x)
    }
}

/// An effect-size measure the tools know by name, and the scale its effects are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeasureScale {
    /// metafor's name for the measure (escalc's `measure`), e.g. "RR".
    pub name: &'static str,
    /// What the natural scale is, for an axis: e.g. "Risk ratio".
    pub natural_title: &'static str,
    /// What yi is, for an axis: e.g. "Log risk ratio".
    pub title: &'static str,
    /// The transform from yi to the natural scale (metafor's usual `transf` for it).
    pub transform: TransformKind,
}

const fn scale(
    name: &'static str,
    title: &'static str,
    natural_title: &'static str,
    transform: TransformKind,
) -> MeasureScale {
    MeasureScale {
        name,
        title,
        natural_title,
        transform,
    }
}

/// The measures, by metafor's names: every one of escalc's that `effect_sizes` computes (the
/// log incidence rate ratio and log proportion also for records computed elsewhere), and
/// GEN, a generic outcome (metafor's default for `rma(yi, vi)`: nothing to back-transform).
/// A difference of transformed values (AS, IRSD) and a measure that is its own natural
/// scale have none.
pub static MEASURES: [MeasureScale; 64] = [
    scale("GEN", "Effect size", "Effect size", TransformKind::None),
    scale(
        "SMD",
        "Standardized mean difference",
        "Standardized mean difference",
        TransformKind::None,
    ),
    scale(
        "MD",
        "Mean difference",
        "Mean difference",
        TransformKind::None,
    ),
    scale(
        "ROM",
        "Log ratio of means",
        "Ratio of means",
        TransformKind::Exp,
    ),
    scale("OR", "Log odds ratio", "Odds ratio", TransformKind::Exp),
    scale("RR", "Log risk ratio", "Risk ratio", TransformKind::Exp),
    scale(
        "IRR",
        "Log incidence rate ratio",
        "Incidence rate ratio",
        TransformKind::Exp,
    ),
    scale(
        "RD",
        "Risk difference",
        "Risk difference",
        TransformKind::None,
    ),
    scale("COR", "Correlation", "Correlation", TransformKind::None),
    scale("ZCOR", "Fisher's z", "Correlation", TransformKind::Ztor),
    scale(
        "UCOR",
        "Unbiased correlation",
        "Correlation",
        TransformKind::None,
    ),
    scale("PR", "Proportion", "Proportion", TransformKind::None),
    scale(
        "PLO",
        "Logit proportion",
        "Proportion",
        TransformKind::Ilogit,
    ),
    scale("PLN", "Log proportion", "Proportion", TransformKind::Exp),
    // Two groups, quantitative.
    scale(
        "SMDH",
        "Standardized mean difference",
        "Standardized mean difference",
        TransformKind::None,
    ),
    scale(
        "SMD1",
        "Standardized mean difference",
        "Standardized mean difference",
        TransformKind::None,
    ),
    scale(
        "SMD1H",
        "Standardized mean difference",
        "Standardized mean difference",
        TransformKind::None,
    ),
    scale(
        "CVR",
        "Log coefficient of variation ratio",
        "Coefficient of variation ratio",
        TransformKind::Exp,
    ),
    scale(
        "VR",
        "Log variability ratio",
        "Variability ratio",
        TransformKind::Exp,
    ),
    scale(
        "RPB",
        "Point-biserial correlation",
        "Point-biserial correlation",
        TransformKind::None,
    ),
    scale(
        "RBIS",
        "Biserial correlation",
        "Biserial correlation",
        TransformKind::None,
    ),
    scale("D2ORN", "Log odds ratio", "Odds ratio", TransformKind::Exp),
    scale("D2ORL", "Log odds ratio", "Odds ratio", TransformKind::Exp),
    // Two groups, dichotomous.
    scale(
        "AS",
        "Arcsine risk difference",
        "Arcsine risk difference",
        TransformKind::None,
    ),
    scale(
        "PETO",
        "Log odds ratio (Peto)",
        "Odds ratio",
        TransformKind::Exp,
    ),
    scale(
        "PHI",
        "Phi coefficient",
        "Phi coefficient",
        TransformKind::None,
    ),
    scale("YUQ", "Yule's Q", "Yule's Q", TransformKind::None),
    scale(
        "RTET",
        "Tetrachoric correlation",
        "Tetrachoric correlation",
        TransformKind::None,
    ),
    scale("YUY", "Yule's Y", "Yule's Y", TransformKind::None),
    scale(
        "PBIT",
        "Probit difference",
        "Probit difference",
        TransformKind::None,
    ),
    scale(
        "OR2DN",
        "Standardized mean difference",
        "Standardized mean difference",
        TransformKind::None,
    ),
    scale(
        "OR2DL",
        "Standardized mean difference",
        "Standardized mean difference",
        TransformKind::None,
    ),
    scale(
        "MPRD",
        "Risk difference (matched pairs)",
        "Risk difference",
        TransformKind::None,
    ),
    scale(
        "MPRR",
        "Log risk ratio (matched pairs)",
        "Risk ratio",
        TransformKind::Exp,
    ),
    scale(
        "MPOR",
        "Log odds ratio (matched pairs)",
        "Odds ratio",
        TransformKind::Exp,
    ),
    scale(
        "MPORC",
        "Log odds ratio (matched pairs)",
        "Odds ratio",
        TransformKind::Exp,
    ),
    scale(
        "MPPETO",
        "Log odds ratio (matched pairs, Peto)",
        "Odds ratio",
        TransformKind::Exp,
    ),
    // Person-time.
    scale(
        "IRD",
        "Incidence rate difference",
        "Incidence rate difference",
        TransformKind::None,
    ),
    scale(
        "IRSD",
        "Square root incidence rate difference",
        "Square root incidence rate difference",
        TransformKind::None,
    ),
    scale(
        "IR",
        "Incidence rate",
        "Incidence rate",
        TransformKind::None,
    ),
    scale(
        "IRLN",
        "Log incidence rate",
        "Incidence rate",
        TransformKind::Exp,
    ),
    scale(
        "IRS",
        "Square root incidence rate",
        "Incidence rate",
        TransformKind::Isqrt,
    ),
    scale(
        "IRFT",
        "Freeman-Tukey incidence rate",
        "Incidence rate",
        TransformKind::Iirft,
    ),
    // Correlations and proportions.
    scale(
        "PCOR",
        "Partial correlation",
        "Partial correlation",
        TransformKind::None,
    ),
    scale(
        "ZPCOR",
        "Fisher's z (partial correlation)",
        "Partial correlation",
        TransformKind::Ztor,
    ),
    scale(
        "SPCOR",
        "Semi-partial correlation",
        "Semi-partial correlation",
        TransformKind::None,
    ),
    scale(
        "PAS",
        "Arcsine proportion",
        "Proportion",
        TransformKind::Iarcsin,
    ),
    scale(
        "PFT",
        "Freeman-Tukey proportion",
        "Proportion",
        TransformKind::IpftHm,
    ),
    // Single groups and change.
    scale("MN", "Mean", "Mean", TransformKind::None),
    scale("MNLN", "Log mean", "Mean", TransformKind::Exp),
    scale(
        "CVLN",
        "Log coefficient of variation",
        "Coefficient of variation",
        TransformKind::Exp,
    ),
    scale(
        "SDLN",
        "Log standard deviation",
        "Standard deviation",
        TransformKind::Exp,
    ),
    scale(
        "SMN",
        "Standardized mean",
        "Standardized mean",
        TransformKind::None,
    ),
    scale("MC", "Mean change", "Mean change", TransformKind::None),
    scale(
        "SMCC",
        "Standardized mean change",
        "Standardized mean change",
        TransformKind::None,
    ),
    scale(
        "SMCR",
        "Standardized mean change",
        "Standardized mean change",
        TransformKind::None,
    ),
    scale(
        "SMCRH",
        "Standardized mean change",
        "Standardized mean change",
        TransformKind::None,
    ),
    scale(
        "ROMC",
        "Log ratio of means (paired)",
        "Ratio of means",
        TransformKind::Exp,
    ),
    scale(
        "CVRC",
        "Log coefficient of variation ratio (paired)",
        "Coefficient of variation ratio",
        TransformKind::Exp,
    ),
    scale(
        "VRC",
        "Log variability ratio (paired)",
        "Variability ratio",
        TransformKind::Exp,
    ),
    // Reliability and heterozygosity.
    scale(
        "ARAW",
        "Cronbach's alpha",
        "Cronbach's alpha",
        TransformKind::None,
    ),
    scale(
        "AHW",
        "Transformed alpha (Hakstian & Whalen)",
        "Cronbach's alpha",
        TransformKind::Iahw,
    ),
    scale(
        "ABT",
        "Transformed alpha (Bonett)",
        "Cronbach's alpha",
        TransformKind::Iabt,
    ),
    scale(
        "REH",
        "Log relative excess heterozygosity",
        "Relative excess heterozygosity",
        TransformKind::Exp,
    ),
];

/// The measure named `name` (metafor's spelling, e.g. "RR").
pub fn measure_scale(name: &str) -> Option<&'static MeasureScale> {
    MEASURES.iter().find(|m| m.name == name)
}

/// An estimate and its intervals on the natural scale: `transform` of each bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Natural {
    pub estimate: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    /// The prediction interval's bounds, where the result has one.
    pub pi_lower: Option<f64>,
    pub pi_upper: Option<f64>,
}

impl Natural {
    /// `transform` applied to the estimate, the confidence interval and, when given, the
    /// prediction interval (as metafor's `predict(..., transf = transform)`).
    pub fn of(
        transform: Transform,
        estimate: f64,
        ci: (f64, f64),
        pi: Option<(f64, f64)>,
    ) -> Natural {
        Natural {
            estimate: transform.apply(estimate),
            ci_lower: transform.apply(ci.0),
            ci_upper: transform.apply(ci.1),
            pi_lower: pi.map(|(lower, _)| transform.apply(lower)),
            pi_upper: pi.map(|(_, upper)| transform.apply(upper)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_transform_is_its_formula() {
        for x in [-40.0, -3.5, -0.2, 0.0, 0.7, 2.0, 40.0] {
            assert_eq!(Transform::None.apply(x), x);
            assert_eq!(Transform::Exp.apply(x), math::exp(x));
            let logistic = math::exp(x) / (1.0 + math::exp(x));
            assert!(
                (ilogit(x) - logistic).abs() <= 1e-15 * logistic.max(1e-300),
                "{x}"
            );
            let e2 = math::exp(2.0 * x);
            let r = if x.abs() < 20.0 {
                (e2 - 1.0) / (e2 + 1.0)
            } else {
                x.signum()
            };
            assert!((ztor(x) - r).abs() <= 1e-15, "{x}");
        }
        assert_eq!(ilogit(0.0), 0.5);
        assert_eq!(ilogit(-800.0), 0.0);
        assert_eq!(ilogit(800.0), 1.0);
        assert_eq!(ztor(400.0), 1.0);
        assert_eq!(ztor(-400.0), -1.0);
    }

    #[test]
    fn names_round_trip_and_measures_pick_their_transform() {
        for t in TransformKind::ALL {
            assert_eq!(TransformKind::parse(t.name()), Some(t));
        }
        assert_eq!(TransformKind::parse("EXP"), None);
        let transform = |name| measure_scale(name).map(|m| m.transform);
        assert_eq!(transform("RR"), Some(TransformKind::Exp));
        assert_eq!(transform("OR"), Some(TransformKind::Exp));
        assert_eq!(transform("PLO"), Some(TransformKind::Ilogit));
        assert_eq!(transform("PLN"), Some(TransformKind::Exp));
        assert_eq!(transform("ZCOR"), Some(TransformKind::Ztor));
        assert_eq!(transform("SMD"), Some(TransformKind::None));
        assert_eq!(transform("PAS"), Some(TransformKind::Iarcsin));
        assert_eq!(transform("PFT"), Some(TransformKind::IpftHm));
        assert_eq!(transform("IRS"), Some(TransformKind::Isqrt));
        assert_eq!(transform("IRFT"), Some(TransformKind::Iirft));
        assert_eq!(transform("AHW"), Some(TransformKind::Iahw));
        assert_eq!(transform("ABT"), Some(TransformKind::Iabt));
        assert_eq!(transform("rr"), None);
        // Every measure escalc computes here has its scale.
        for m in crate::effect_sizes::Measure::ALL {
            assert!(measure_scale(m.name()).is_some(), "{m}");
        }
        let mut names: Vec<&str> = MEASURES.iter().map(|m| m.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), MEASURES.len());
    }

    #[test]
    fn natural_bounds_keep_their_order() {
        for t in [
            Transform::None,
            Transform::Exp,
            Transform::Ilogit,
            Transform::Ztor,
        ] {
            let n = Natural::of(t, 0.3, (-0.1, 0.7), Some((-0.5, 1.1)));
            let (pl, pu) = (n.pi_lower.unwrap(), n.pi_upper.unwrap());
            assert!(pl < n.ci_lower && n.ci_lower < n.estimate, "{t:?}");
            assert!(n.estimate < n.ci_upper && n.ci_upper < pu, "{t:?}");
        }
        let n = Natural::of(Transform::Exp, 0.0, (-1.0, 1.0), None);
        assert_eq!((n.estimate, n.pi_lower, n.pi_upper), (1.0, None, None));
        // The bounded transforms never decrease (each is clamped to its range).
        let bounded = [
            Transform::Iarcsin,
            Transform::IpftHm { ni: 7.5 },
            Transform::Iirft { ti: 40.0 },
            Transform::Isqrt,
            Transform::Iahw,
            Transform::Iabt,
        ];
        for t in bounded {
            let mut last = f64::NEG_INFINITY;
            for i in -200..=400 {
                let z = t.apply(f64::from(i) / 100.0);
                assert!(z.is_finite() && z >= last, "{t:?} at {i}");
                last = z;
            }
        }
    }

    #[test]
    fn inverse_undoes_apply_inside_the_natural_range() {
        let all = [
            Transform::None,
            Transform::Exp,
            Transform::Ilogit,
            Transform::Ztor,
            Transform::Iarcsin,
            Transform::IpftHm { ni: 12.0 },
            Transform::Iirft { ti: 30.0 },
            Transform::Isqrt,
            Transform::Iahw,
            Transform::Iabt,
        ];
        for t in all {
            for v in [0.05, 0.2, 0.5, 0.8, 0.95] {
                let back = t.apply(t.inverse(v));
                assert!((back - v).abs() < 1e-12, "{t:?} {v}: {back}");
            }
        }
    }

    #[test]
    fn harmonic_means_bind_the_freeman_tukey_transforms() {
        let ni = [Some(10.0), None, Some(40.0)];
        assert_eq!(harmonic_mean(&ni), Some(16.0));
        assert_eq!(
            TransformKind::IpftHm.bind(&ni),
            Some(Transform::IpftHm { ni: 16.0 })
        );
        assert_eq!(TransformKind::Iirft.bind(&[None]), None);
        assert_eq!(TransformKind::IpftHm.bind(&[Some(4.0), Some(0.0)]), None);
        assert_eq!(TransformKind::Exp.bind(&[]), Some(Transform::Exp));
        // The inverse undoes the transform inside its range.
        for p in [0.0, 0.05, 0.3, 0.5, 0.9, 1.0] {
            assert!((ipft(pft(p, 16.0), 16.0) - p).abs() < 1e-12, "{p}");
            assert!((iirft(irft(p, 16.0), 16.0) - p).abs() < 1e-12, "{p}");
        }
    }
}
