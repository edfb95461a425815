//! Back-transformations of effect sizes to their natural scale, as metafor's
//! `predict(fit, transf = ...)` applies them.
//!
//! A model is fitted on the scale where the effect sizes are roughly normal (log risk
//! ratios, logit proportions, Fisher's z); a reader wants the estimate and its intervals on
//! the scale of the measure itself (a risk ratio, a proportion, a correlation). Each
//! transform is strictly increasing, so it is applied to the bounds of an interval as they
//! are (metafor does the same: `transf` is applied to `pred`, `ci.lb`, `ci.ub`, `pi.lb`,
//! `pi.ub`). The standard error has no back-transformed counterpart and none is given.
//!
//! Every function computes through [`crate::math`], so the natural-scale numbers are the
//! same bits on every target.

use crate::math;

/// A back-transformation (metafor's `transf` argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
}

impl Transform {
    /// Every transform, in the order the tools list them.
    pub const ALL: [Transform; 4] = [
        Transform::None,
        Transform::Exp,
        Transform::Ilogit,
        Transform::Ztor,
    ];

    /// The name the tools use ("none", "exp", "ilogit", "ztor").
    pub fn name(self) -> &'static str {
        match self {
            Transform::None => "none",
            Transform::Exp => "exp",
            Transform::Ilogit => "ilogit",
            Transform::Ztor => "ztor",
        }
    }

    /// The transform named `name` (as [`Transform::name`] writes it).
    pub fn parse(name: &str) -> Option<Transform> {
        Transform::ALL.into_iter().find(|t| t.name() == name)
    }

    /// x on the natural scale.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Transform::None => x,
            Transform::Exp => math::exp(x),
            Transform::Ilogit => ilogit(x),
            Transform::Ztor => ztor(x),
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
    pub transform: Transform,
}

const fn scale(
    name: &'static str,
    title: &'static str,
    natural_title: &'static str,
    transform: Transform,
) -> MeasureScale {
    MeasureScale {
        name,
        title,
        natural_title,
        transform,
    }
}

/// The measures, by metafor's names: escalc's that `effect_sizes` computes, the log
/// proportion and log incidence rate ratio (for records computed elsewhere), and GEN, a
/// generic outcome (metafor's default for `rma(yi, vi)`: nothing to back-transform).
pub const MEASURES: [MeasureScale; 13] = [
    scale("GEN", "Effect size", "Effect size", Transform::None),
    scale(
        "SMD",
        "Standardized mean difference",
        "Standardized mean difference",
        Transform::None,
    ),
    scale("MD", "Mean difference", "Mean difference", Transform::None),
    scale(
        "ROM",
        "Log ratio of means",
        "Ratio of means",
        Transform::Exp,
    ),
    scale("OR", "Log odds ratio", "Odds ratio", Transform::Exp),
    scale("RR", "Log risk ratio", "Risk ratio", Transform::Exp),
    scale(
        "IRR",
        "Log incidence rate ratio",
        "Incidence rate ratio",
        Transform::Exp,
    ),
    scale("RD", "Risk difference", "Risk difference", Transform::None),
    scale("COR", "Correlation", "Correlation", Transform::None),
    scale("ZCOR", "Fisher's z", "Correlation", Transform::Ztor),
    scale("PR", "Proportion", "Proportion", Transform::None),
    scale("PLO", "Logit proportion", "Proportion", Transform::Ilogit),
    scale("PLN", "Log proportion", "Proportion", Transform::Exp),
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
        for t in Transform::ALL {
            assert_eq!(Transform::parse(t.name()), Some(t));
        }
        assert_eq!(Transform::parse("EXP"), None);
        let transform = |name| measure_scale(name).map(|m| m.transform);
        assert_eq!(transform("RR"), Some(Transform::Exp));
        assert_eq!(transform("OR"), Some(Transform::Exp));
        assert_eq!(transform("PLO"), Some(Transform::Ilogit));
        assert_eq!(transform("PLN"), Some(Transform::Exp));
        assert_eq!(transform("ZCOR"), Some(Transform::Ztor));
        assert_eq!(transform("SMD"), Some(Transform::None));
        assert_eq!(transform("rr"), None);
        let mut names: Vec<&str> = MEASURES.iter().map(|m| m.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), MEASURES.len());
    }

    #[test]
    fn natural_bounds_keep_their_order() {
        for t in Transform::ALL {
            let n = Natural::of(t, 0.3, (-0.1, 0.7), Some((-0.5, 1.1)));
            let (pl, pu) = (n.pi_lower.unwrap(), n.pi_upper.unwrap());
            assert!(pl < n.ci_lower && n.ci_lower < n.estimate, "{t:?}");
            assert!(n.estimate < n.ci_upper && n.ci_upper < pu, "{t:?}");
        }
        let n = Natural::of(Transform::Exp, 0.0, (-1.0, 1.0), None);
        assert_eq!((n.estimate, n.pi_lower, n.pi_upper), (1.0, None, None));
    }
}
