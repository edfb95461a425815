//! Pooled analyses of 2×2 tables without a τ² model: the Mantel–Haenszel estimators of the
//! common odds ratio, risk ratio and risk difference, with the Cochran–Mantel–Haenszel and
//! Tarone tests, as metafor 3.8-1's `rma.mh()` computes them (Viechtbauer 2010).
//!
//! |         | event | no event | size |
//! |---------|-------|----------|------|
//! | group 1 | aᵢ    | bᵢ       | n1ᵢ  |
//! | group 2 | cᵢ    | dᵢ       | n2ᵢ  |
//!
//! With Nᵢ = n1ᵢ + n2ᵢ, on the tables as given (no continuity correction: metafor's
//! `add[2] = 0`, `to[2] = "none"`, `drop00[2] = FALSE`):
//!
//! - **OR** (Mantel & Haenszel 1959): Rᵢ = aᵢdᵢ/Nᵢ, Sᵢ = bᵢcᵢ/Nᵢ, OR = ΣRᵢ/ΣSᵢ; the variance
//!   of ln OR is Robins, Breslow & Greenland's (1986):
//!   ½ [ΣPᵢRᵢ/R² + Σ(PᵢSᵢ + QᵢRᵢ)/(RS) + ΣQᵢSᵢ/S²], Pᵢ = (aᵢ + dᵢ)/Nᵢ, Qᵢ = (bᵢ + cᵢ)/Nᵢ.
//! - **RR** (Greenland & Robins 1985): RR = Σaᵢn2ᵢ/Nᵢ / Σcᵢn1ᵢ/Nᵢ, Var ln RR =
//!   Σ(n1ᵢn2ᵢ(aᵢ + cᵢ)/Nᵢ² − aᵢcᵢ/Nᵢ) / (R S) with R, S the two sums.
//! - **RD** (Greenland & Robins 1985): RD = Σ(aᵢn2ᵢ − cᵢn1ᵢ)/Nᵢ / Σn1ᵢn2ᵢ/Nᵢ, Var RD =
//!   [RD · Σ(cᵢ(n1ᵢ/Nᵢ)² − aᵢ(n2ᵢ/Nᵢ)² + n1ᵢn2ᵢ(n2ᵢ − n1ᵢ)/(2Nᵢ²)) +
//!   Σ(aᵢ(n2ᵢ − cᵢ) + cᵢ(n1ᵢ − aᵢ))/(2Nᵢ)] / (Σn1ᵢn2ᵢ/Nᵢ)².
//!
//! The heterogeneity test is Cochran's Q of the tables' own effect sizes about the pooled
//! one, Q = Σ(yᵢ − θ̂)²/vᵢ, with yᵢ, vᵢ those of `escalc` with metafor's defaults for it
//! (`add = ½` to every cell of a table with a zero, tables with no events or only events in
//! both groups left out: `drop00 = TRUE`), df = k′ − 1 over the k′ tables left;
//! I² = 100 % · max(0, (Q − df)/Q), H² = Q/df.

use crate::distributions::{chi2_sf, normal_quantile, normal_two_sided_p, upper_quantile_point};
use crate::effect_sizes::{escalc, AddTo, Column, EffectSizeError, EscalcOptions, Measure, RawRow};
use crate::math::{exp, ln, sq};
use crate::{FitOptions, MetaError};

/// One study's 2×2 table, checked: counts ≥ 0, events at most their group's size, both
/// groups non-empty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Table2x2 {
    pub ai: f64,
    pub bi: f64,
    pub ci: f64,
    pub di: f64,
}

impl Table2x2 {
    /// The table of a row of raw data (`ai`, `ci` and `bi` or `n1i`, `di` or `n2i`), checked
    /// exactly as `compute_effect_sizes` checks it; the error names the column at fault.
    pub fn from_row(row: &RawRow) -> Result<Table2x2, EffectSizeError> {
        // escalc's reading of the table is the one validation of it: an OR with ½ added to
        // every cell is defined for every table it accepts.
        let check = EscalcOptions {
            add: 0.5,
            to: AddTo::All,
        };
        escalc(Measure::Or, std::slice::from_ref(row), &check)
            .pop()
            .expect("one result per row")?;
        let ai = row.get(Column::Ai).expect("checked");
        let ci = row.get(Column::Ci).expect("checked");
        let bi = row
            .get(Column::Bi)
            .unwrap_or_else(|| row.get(Column::N1i).expect("checked") - ai);
        let di = row
            .get(Column::Di)
            .unwrap_or_else(|| row.get(Column::N2i).expect("checked") - ci);
        Ok(Table2x2 { ai, bi, ci, di })
    }

    pub fn new(ai: f64, bi: f64, ci: f64, di: f64) -> Result<Table2x2, EffectSizeError> {
        let mut row = RawRow::default();
        for (column, value) in [
            (Column::Ai, ai),
            (Column::Bi, bi),
            (Column::Ci, ci),
            (Column::Di, di),
        ] {
            row.set(column, value);
        }
        Table2x2::from_row(&row)
    }

    fn n1(&self) -> f64 {
        self.ai + self.bi
    }

    fn n2(&self) -> f64 {
        self.ci + self.di
    }

    fn n(&self) -> f64 {
        self.ai + self.bi + self.ci + self.di
    }

    /// No events in either group, or only events (`escalc`'s `drop00`).
    pub(crate) fn double_zero(&self) -> bool {
        (self.ai == 0.0 && self.ci == 0.0) || (self.bi == 0.0 && self.di == 0.0)
    }

    fn row(&self) -> RawRow {
        let mut row = RawRow::default();
        row.set(Column::Ai, self.ai);
        row.set(Column::Bi, self.bi);
        row.set(Column::Ci, self.ci);
        row.set(Column::Di, self.di);
        row
    }
}

/// The measure pooled by Mantel–Haenszel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MhMeasure {
    /// Log odds ratio.
    Or,
    /// Log risk ratio.
    Rr,
    /// Risk difference.
    Rd,
}

impl MhMeasure {
    pub const ALL: [MhMeasure; 3] = [MhMeasure::Or, MhMeasure::Rr, MhMeasure::Rd];

    pub fn name(self) -> &'static str {
        self.escalc().name()
    }

    pub fn parse(name: &str) -> Option<MhMeasure> {
        MhMeasure::ALL.into_iter().find(|m| m.name() == name)
    }

    fn escalc(self) -> Measure {
        match self {
            MhMeasure::Or => Measure::Or,
            MhMeasure::Rr => Measure::Rr,
            MhMeasure::Rd => Measure::Rd,
        }
    }

    /// Whether the estimate is on the log scale (OR, RR).
    pub fn is_ratio(self) -> bool {
        self != MhMeasure::Rd
    }
}

/// A χ² test statistic with its df and upper-tail p value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChiSquareTest {
    pub statistic: f64,
    pub df: usize,
    pub p: f64,
}

/// Cochran's Q of the tables about the pooled estimate, with I² and H² from it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TableHeterogeneity {
    /// Cochran's Q of the tables' own effect sizes about the pooled one.
    pub q: f64,
    /// k′ − 1 (0 when k′ ≤ 1).
    pub q_df: usize,
    pub q_p: f64,
    /// I² in percent, from Q.
    pub i2: f64,
    pub h2: f64,
    /// Tables that enter Q (`k′`): those with events and non-events (double-zero tables
    /// left out).
    #[cfg_attr(feature = "serde", serde(rename = "k_heterogeneity"))]
    pub k: usize,
}

/// A pooled estimate on the measure's scale (log for OR, RR) with its Wald inference.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Pooled {
    /// Pooled estimate (log odds ratio, log risk ratio or risk difference).
    pub estimate: f64,
    pub se: f64,
    /// z = estimate / se.
    #[cfg_attr(feature = "serde", serde(rename = "z"))]
    pub statistic: f64,
    /// Two-sided p value of estimate = 0.
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
}

impl Pooled {
    pub(crate) fn wald(estimate: f64, se: f64, level: f64) -> Result<Pooled, MetaError> {
        if !(se.is_finite() && se > 0.0) {
            return Err(MetaError::Undefined {
                reason: format!(
                    "the standard error of the pooled estimate is {se}, not a positive number, \
                     so no test or interval is defined"
                ),
            });
        }
        let crit = normal_quantile(upper_quantile_point(level));
        let z = estimate / se;
        let pooled = Pooled {
            estimate,
            se,
            statistic: z,
            p: normal_two_sided_p(z),
            ci_lower: estimate - crit * se,
            ci_upper: estimate + crit * se,
        };
        for (quantity, value) in [
            ("pooled estimate", pooled.estimate),
            ("test statistic", pooled.statistic),
            ("p value", pooled.p),
            ("confidence interval", pooled.ci_lower),
            ("confidence interval", pooled.ci_upper),
        ] {
            if !value.is_finite() {
                return Err(MetaError::NonFiniteResult { quantity });
            }
        }
        Ok(pooled)
    }

    /// exp of the estimate and of the CI (the ratio scale).
    pub fn exponentiated(&self) -> (f64, f64, f64) {
        (exp(self.estimate), exp(self.ci_lower), exp(self.ci_upper))
    }
}

/// The Mantel–Haenszel analysis of a set of 2×2 tables.
///
/// Serialized (feature `serde`) as the tools answer it (`SerializedMantelHaenszel`): the
/// tables, level, pooled estimate and heterogeneity flat, each test as its statistic and p
/// value. `measure` and `tarone_k` are not serialized (an answer names the measure in its
/// scale); read back, they are OR and `None`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "serde",
    serde(into = "SerializedMantelHaenszel", from = "SerializedMantelHaenszel")
)]
pub struct MantelHaenszel {
    pub measure: MhMeasure,
    pub level: f64,
    /// Tables analysed.
    pub k: usize,
    pub pooled: Pooled,
    pub heterogeneity: TableHeterogeneity,
    /// OR only: the Cochran–Mantel–Haenszel test of OR = 1, with continuity correction
    /// (metafor's `MH`, `correct = TRUE`): (|Σaᵢ − Σn1ᵢmᵢ/Nᵢ| − ½)² /
    /// Σ n1ᵢn2ᵢmᵢ(Nᵢ − mᵢ)/(Nᵢ²(Nᵢ − 1)), mᵢ = aᵢ + cᵢ, on 1 df.
    pub cmh: Option<ChiSquareTest>,
    /// OR only: Tarone's (1985) test of homogeneous odds ratios (metafor's `TA`), on
    /// k⁺ − 1 df; `None` when fewer than 2 tables (k⁺) enter it.
    pub tarone: Option<ChiSquareTest>,
    /// OR only: the tables that enter Tarone's test (metafor's `k.pos`).
    pub tarone_k: Option<usize>,
}

/// [`MantelHaenszel`] as it is serialized, in the order of the tools' answers.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SerializedMantelHaenszel {
    /// Tables analysed.
    k: usize,
    /// Confidence level of the interval.
    level: f64,
    #[serde(flatten)]
    pooled: Pooled,
    #[serde(flatten)]
    heterogeneity: TableHeterogeneity,
    /// OR only: the Cochran-Mantel-Haenszel test of OR = 1 (continuity corrected, 1 df).
    cmh: Option<f64>,
    cmh_p: Option<f64>,
    /// OR only: Tarone's test of homogeneous odds ratios, on tarone_df df (null with fewer
    /// than 2 informative tables).
    tarone: Option<f64>,
    tarone_df: Option<usize>,
    tarone_p: Option<f64>,
}

#[cfg(feature = "serde")]
impl From<MantelHaenszel> for SerializedMantelHaenszel {
    fn from(r: MantelHaenszel) -> Self {
        SerializedMantelHaenszel {
            k: r.k,
            level: r.level,
            pooled: r.pooled,
            heterogeneity: r.heterogeneity,
            cmh: r.cmh.map(|t| t.statistic),
            cmh_p: r.cmh.map(|t| t.p),
            tarone: r.tarone.map(|t| t.statistic),
            tarone_df: r.tarone.map(|t| t.df),
            tarone_p: r.tarone.map(|t| t.p),
        }
    }
}

#[cfg(feature = "serde")]
impl From<SerializedMantelHaenszel> for MantelHaenszel {
    /// The measure is not serialized: read back as OR (the one with the tests), and
    /// `tarone_k` as `None`.
    fn from(s: SerializedMantelHaenszel) -> Self {
        let cmh = s.cmh.zip(s.cmh_p).map(|(statistic, p)| ChiSquareTest {
            statistic,
            df: 1,
            p,
        });
        let tarone = match (s.tarone, s.tarone_df, s.tarone_p) {
            (Some(statistic), Some(df), Some(p)) => Some(ChiSquareTest { statistic, df, p }),
            _ => None,
        };
        MantelHaenszel {
            measure: MhMeasure::Or,
            level: s.level,
            k: s.k,
            pooled: s.pooled,
            heterogeneity: s.heterogeneity,
            cmh,
            tarone,
            tarone_k: None,
        }
    }
}

/// The Mantel–Haenszel analysis of `tables` (at least 1) for `measure` at confidence
/// `options.level` (the other options do not apply).
pub fn mantel_haenszel(
    tables: &[Table2x2],
    measure: MhMeasure,
    options: &FitOptions,
) -> Result<MantelHaenszel, MetaError> {
    options.validate()?;
    if tables.is_empty() {
        return Err(MetaError::TooFewRecords {
            needed: 1,
            got: 0,
            analysis: "a Mantel–Haenszel analysis",
        });
    }
    let level = options.level;
    let (estimate, se) = match measure {
        MhMeasure::Or => odds_ratio(tables)?,
        MhMeasure::Rr => risk_ratio(tables)?,
        MhMeasure::Rd => risk_difference(tables)?,
    };
    let pooled = Pooled::wald(estimate, se, level)?;
    let heterogeneity = heterogeneity_about(tables, measure, estimate)?;
    let (cmh, tarone, tarone_k) = if measure == MhMeasure::Or {
        let (tarone, k_pos) = tarone(tables, exp(estimate));
        (Some(cmh_test(tables)?), tarone, Some(k_pos))
    } else {
        (None, None, None)
    };
    Ok(MantelHaenszel {
        measure,
        level,
        k: tables.len(),
        pooled,
        heterogeneity,
        cmh,
        tarone,
        tarone_k,
    })
}

/// ln OR_MH and its Robins–Breslow–Greenland standard error.
fn odds_ratio(tables: &[Table2x2]) -> Result<(f64, f64), MetaError> {
    let (mut r, mut s, mut pr, mut ps_qr, mut qs) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for t in tables {
        let n = t.n();
        let pi = t.ai / n + t.di / n;
        let qi = t.bi / n + t.ci / n;
        let ri = (t.ai / n) * t.di;
        let si = (t.bi / n) * t.ci;
        r += ri;
        s += si;
        pr += pi * ri;
        ps_qr += pi * si + qi * ri;
        qs += qi * si;
    }
    if r == 0.0 || s == 0.0 {
        return Err(MetaError::Undefined {
            reason: format!(
                "the Mantel–Haenszel odds ratio is undefined: {} in every table, so the ratio \
                 is {}",
                if r == 0.0 {
                    "a·d is 0 (no events in group 1 or no non-events in group 2)"
                } else {
                    "b·c is 0 (no non-events in group 1 or no events in group 2)"
                },
                if r == 0.0 && s == 0.0 {
                    "0/0"
                } else if r == 0.0 {
                    "0"
                } else {
                    "infinite"
                }
            ),
        });
    }
    let (r2, rs, s2) = (sq(r), r * s, sq(s));
    refuse_overflow(
        tables,
        "the variance of the Mantel–Haenszel odds ratio",
        &[pr, ps_qr, qs, r2, rs, s2],
    )?;
    let var = 0.5 * (pr / r2 + ps_qr / rs + qs / s2);
    Ok((ln(r / s), var.sqrt()))
}

/// ln RR_MH and its Greenland–Robins standard error.
fn risk_ratio(tables: &[Table2x2]) -> Result<(f64, f64), MetaError> {
    let (mut r, mut s, mut v, mut sum_a, mut sum_c) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for t in tables {
        let (n1, n2, n) = (t.n1(), t.n2(), t.n());
        r += t.ai * (n2 / n);
        s += t.ci * (n1 / n);
        v += (n1 / n) * (n2 / n) * (t.ai + t.ci) - (t.ai / n) * t.ci;
        sum_a += t.ai;
        sum_c += t.ci;
    }
    if sum_a == 0.0 || sum_c == 0.0 {
        return Err(MetaError::Undefined {
            reason: format!(
                "the Mantel–Haenszel risk ratio is undefined: there are no events in group {} \
                 of any table",
                if sum_a == 0.0 { 1 } else { 2 }
            ),
        });
    }
    let rs = r * s;
    refuse_overflow(
        tables,
        "the variance of the Mantel–Haenszel risk ratio",
        &[v, rs],
    )?;
    Ok((ln(r / s), (v / rs).sqrt()))
}

/// RD_MH and its Greenland–Robins standard error.
fn risk_difference(tables: &[Table2x2]) -> Result<(f64, f64), MetaError> {
    let (mut num, mut den, mut b1, mut b2) = (0.0, 0.0, 0.0, 0.0);
    for t in tables {
        let (n1, n2, n) = (t.n1(), t.n2(), t.n());
        num += t.ai * (n2 / n) - t.ci * (n1 / n);
        den += n1 * (n2 / n);
        b1 += t.ci * sq(n1 / n) - t.ai * sq(n2 / n) + (n1 / n) * (n2 / n) * (n2 - n1) / 2.0;
        b2 += t.ai * (n2 - t.ci) / n + t.ci * (n1 - t.ai) / n;
    }
    let rd = num / den;
    let den2 = sq(den);
    refuse_overflow(
        tables,
        "the variance of the Mantel–Haenszel risk difference",
        &[b1, b2, den2],
    )?;
    let var = (rd * b1 + b2 / 2.0) / den2;
    Ok((rd, var.sqrt()))
}

/// Refuses `tables` when an intermediate value of `quantity` (`values`: sums and products
/// of counts) overflowed double precision: x/∞ would otherwise make a variance 0 and report
/// a standard error of 0, a silent hole.
pub(crate) fn refuse_overflow(
    tables: &[Table2x2],
    quantity: &str,
    values: &[f64],
) -> Result<(), MetaError> {
    if values.iter().all(|v| v.is_finite()) {
        return Ok(());
    }
    let largest = tables
        .iter()
        .flat_map(|t| [t.ai, t.bi, t.ci, t.di])
        .fold(0.0, f64::max);
    Err(MetaError::Undefined {
        reason: format!(
            "{quantity} cannot be computed: products of these counts overflow double \
             precision (they pass 1.8e308; the largest count is {largest:e}), which would \
             make the standard error 0; counts this large cannot be pooled"
        ),
    })
}

/// The Cochran–Mantel–Haenszel test with continuity correction.
fn cmh_test(tables: &[Table2x2]) -> Result<ChiSquareTest, MetaError> {
    let (mut dev, mut var) = (0.0, 0.0);
    for t in tables {
        let (n1, n2, n) = (t.n1(), t.n2(), t.n());
        let xt = t.ai + t.ci;
        let yt = t.bi + t.di;
        dev += t.ai - (n1 / n) * xt;
        var += (n1 / n) * (n2 / n) * (xt * (yt / (n - 1.0)));
    }
    let statistic = sq(dev.abs() - 0.5) / var;
    if !statistic.is_finite() {
        return Err(MetaError::NonFiniteResult {
            quantity: "Cochran–Mantel–Haenszel statistic",
        });
    }
    Ok(ChiSquareTest {
        statistic,
        df: 1,
        p: chi2_sf(statistic, 1.0),
    })
}

/// Tarone's test of homogeneity (Breslow & Day's statistic less Tarone's correction), over
/// the tables whose expected cell N₁₁ under the pooled OR ψ is positive and which have
/// events and non-events: N₁₁ is the root in (max(0, mᵢ − n2ᵢ), min(n1ᵢ, mᵢ)) of
/// ψ = N₁₁N₂₂/(N₁₂N₂₁), N₁₁ = (A − √(A² − 4n1ᵢmᵢψ(ψ − 1)))/(2(ψ − 1)),
/// A = ψ(n1ᵢ + mᵢ) + (n2ᵢ − mᵢ) (N₁₁ = n1ᵢmᵢ/Nᵢ at ψ = 1). With Vᵢ = (1/N₁₁ + 1/N₁₂ +
/// 1/N₂₁ + 1/N₂₂)⁻¹: BD = Σ(aᵢ − N₁₁)²/Vᵢ, TA = BD − (Σ(aᵢ − N₁₁))²/ΣVᵢ, both at least 0.
fn tarone(tables: &[Table2x2], psi: f64) -> (Option<ChiSquareTest>, usize) {
    let (mut bd, mut dev, mut sum_v, mut k_pos) = (0.0, 0.0, 0.0, 0usize);
    for t in tables {
        let (n1, n2, n) = (t.n1(), t.n2(), t.n());
        let xt = t.ai + t.ci;
        let yt = t.bi + t.di;
        let n11 = if psi == 1.0 {
            (n1 / n) * xt
        } else {
            let a = psi * (n1 + xt) + (n2 - xt);
            let b = (sq(a) - 4.0 * n1 * xt * psi * (psi - 1.0)).sqrt();
            (a - b) / (2.0 * (psi - 1.0))
        };
        if !(n11 > 0.0 && xt > 0.0 && yt > 0.0) {
            continue;
        }
        k_pos += 1;
        let n12 = n1 - n11;
        let n21 = xt - n11;
        let n22 = n11 - n1 - xt + n;
        let v = 1.0 / (1.0 / n11 + 1.0 / n12 + 1.0 / n21 + 1.0 / n22);
        bd += sq(t.ai - n11) / v;
        dev += t.ai - n11;
        sum_v += v;
    }
    let bd = bd.max(0.0);
    let ta = (bd - sq(dev) / sum_v).max(0.0);
    if k_pos < 2 || !ta.is_finite() {
        return (None, k_pos);
    }
    let df = k_pos - 1;
    (
        Some(ChiSquareTest {
            statistic: ta,
            df,
            p: chi2_sf(ta, df as f64),
        }),
        k_pos,
    )
}

/// Q, I² and H² of the tables' escalc effect sizes about `estimate` (double-zero tables
/// left out, ½ added to each cell of a table with a zero).
fn heterogeneity_about(
    tables: &[Table2x2],
    measure: MhMeasure,
    estimate: f64,
) -> Result<TableHeterogeneity, MetaError> {
    let rows: Vec<RawRow> = tables
        .iter()
        .filter(|t| !t.double_zero())
        .map(Table2x2::row)
        .collect();
    let mut q = 0.0;
    for size in escalc(measure.escalc(), &rows, &EscalcOptions::default()) {
        let size = size.map_err(|e| MetaError::Undefined {
            reason: format!("a table's own effect size is undefined: {e}"),
        })?;
        q += sq(size.yi - estimate) / size.vi;
    }
    Ok(from_q(q.max(0.0), rows.len(), true))
}

/// I² = 100·max(0, (Q − df)/Q), H² = Q/df with df = k − 1 (metafor's definitions for a
/// model without τ²); with `defined` false or k ≤ 1: Q = 0, p = 1, I² = 0, H² = 1.
pub(crate) fn from_q(q: f64, k: usize, defined: bool) -> TableHeterogeneity {
    if k <= 1 || !defined {
        return TableHeterogeneity {
            k,
            q: if k <= 1 { 0.0 } else { q },
            q_df: k.saturating_sub(1),
            q_p: 1.0,
            i2: 0.0,
            h2: 1.0,
        };
    }
    let df = (k - 1) as f64;
    TableHeterogeneity {
        k,
        q,
        q_df: k - 1,
        q_p: chi2_sf(q, df),
        i2: if q > 0.0 {
            (100.0 * (q - df) / q).max(0.0)
        } else {
            0.0
        },
        h2: q / df,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ai: f64, bi: f64, ci: f64, di: f64) -> Table2x2 {
        Table2x2::new(ai, bi, ci, di).unwrap()
    }

    #[test]
    fn one_table_is_its_own_odds_ratio() {
        let tables = [t(10.0, 20.0, 5.0, 25.0)];
        let mh = mantel_haenszel(&tables, MhMeasure::Or, &FitOptions::default()).unwrap();
        let or: f64 = (10.0 * 25.0) / (20.0 * 5.0);
        assert!((mh.pooled.estimate - ln(or)).abs() < 1e-15);
        // With one table the RBG variance is Woolf's 1/a + 1/b + 1/c + 1/d.
        let woolf: f64 = 1.0 / 10.0 + 1.0 / 20.0 + 1.0 / 5.0 + 1.0 / 25.0;
        assert!((mh.pooled.se - woolf.sqrt()).abs() < 1e-14);
        assert_eq!(mh.heterogeneity.q_df, 0);
        assert_eq!((mh.heterogeneity.q_p, mh.heterogeneity.h2), (1.0, 1.0));
        assert!(mh.tarone.is_none());
    }

    #[test]
    fn tables_without_events_are_refused_by_name() {
        let none = [t(0.0, 10.0, 0.0, 12.0), t(0.0, 8.0, 0.0, 9.0)];
        for measure in [MhMeasure::Or, MhMeasure::Rr] {
            let e = mantel_haenszel(&none, measure, &FitOptions::default()).unwrap_err();
            assert!(e.to_string().contains("undefined"), "{e}");
        }
        // RD is 0 with a zero standard error: refused, never a NaN z.
        let e = mantel_haenszel(&none, MhMeasure::Rd, &FitOptions::default()).unwrap_err();
        assert!(e.to_string().contains("standard error"), "{e}");
        assert!(mantel_haenszel(&[], MhMeasure::Or, &FitOptions::default()).is_err());
    }

    #[test]
    fn a_bad_table_names_its_column() {
        let e = Table2x2::new(5.0, -1.0, 2.0, 3.0).unwrap_err();
        assert_eq!(e.column(), Some(Column::Bi));
        let e = Table2x2::new(0.0, 0.0, 2.0, 3.0).unwrap_err();
        assert!(e.to_string().contains("no one"), "{e}");
    }
}

#[cfg(test)]
mod overflow_tests {
    use super::*;
    use crate::peto_odds_ratio;

    /// Issue 29 item 12: counts so large that a product of them overflows double precision
    /// gave a standard error of 0 (a variance of x/∞); the error now names the cause.
    #[test]
    fn counts_whose_products_overflow_are_refused_naming_the_overflow() {
        let huge = [
            Table2x2::new(1e300, 2e300, 3e300, 4e300).unwrap(),
            Table2x2::new(2e300, 1e300, 1e300, 5e300).unwrap(),
        ];
        for measure in MhMeasure::ALL {
            let e = mantel_haenszel(&huge, measure, &FitOptions::default()).unwrap_err();
            let text = e.to_string();
            assert!(
                text.contains("overflow") && text.contains("largest count is 5e300"),
                "{measure:?}: {text}"
            );
        }
        let e = peto_odds_ratio(&huge, &FitOptions::default()).unwrap_err();
        assert!(e.to_string().contains("overflow"), "Peto: {e}");
        // Large counts whose products stay finite are pooled as before.
        let large = [
            Table2x2::new(1e100, 2e100, 3e100, 4e100).unwrap(),
            Table2x2::new(2e100, 1e100, 1e100, 5e100).unwrap(),
        ];
        for measure in MhMeasure::ALL {
            let mh = mantel_haenszel(&large, measure, &FitOptions::default()).unwrap();
            assert!(mh.pooled.se > 0.0, "{measure:?}");
        }
        assert!(peto_odds_ratio(&large, &FitOptions::default()).is_ok());
    }
}
