//! Peto's one-step odds ratio for 2×2 tables (Yusuf, Peto, Lewis, Collins & Sleight 1985),
//! as metafor 3.8-1's `rma.peto()`.
//!
//! On the tables as given (no continuity correction), with mᵢ = aᵢ + cᵢ events, Nᵢ the
//! table's total, Eᵢ = mᵢn1ᵢ/Nᵢ the expected aᵢ and Vᵢ = mᵢ(Nᵢ − mᵢ)n1ᵢn2ᵢ/(Nᵢ²(Nᵢ − 1)) its
//! hypergeometric variance:
//!
//! ```text
//! ln OR_Peto = Σ(aᵢ − Eᵢ) / ΣVᵢ,   se = 1/√ΣVᵢ.
//! ```
//!
//! Heterogeneity: Q = Σ(aᵢ − Eᵢ)²/Vᵢ − (Σ(aᵢ − Eᵢ))²/ΣVᵢ over the tables with Vᵢ > 0 (at
//! least 0), on k′ − 1 df with k′ the tables that are not double-zero (no events, or only
//! events, in both groups: `escalc`'s `drop00 = TRUE`); I² = 100 % · max(0, (Q − df)/Q),
//! H² = Q/df. With fewer than 2 tables of Vᵢ > 0, Q's p value is 1, I² = 0 and H² = 1, as
//! metafor reports them.

use crate::mantel_haenszel::{from_q, refuse_overflow, Pooled, Table2x2, TableHeterogeneity};
use crate::math::sq;
use crate::{FitOptions, MetaError};

/// Peto's odds ratio of a set of 2×2 tables.
///
/// Serialized (feature `serde`) as the tools answer it: `k`, `level`, then the pooled
/// estimate and the heterogeneity flat. `k_informative` is not serialized (read back as 0).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PetoOddsRatio {
    /// Tables analysed.
    pub k: usize,
    /// Confidence level of the interval.
    pub level: f64,
    /// ln OR on the log scale, with its Wald inference.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub pooled: Pooled,
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub heterogeneity: TableHeterogeneity,
    /// Tables with Vᵢ > 0 (events and non-events both present): metafor's `k.pos`.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub k_informative: usize,
}

/// Peto's odds ratio of `tables` (at least 1) at confidence `options.level`.
pub fn peto_odds_ratio(
    tables: &[Table2x2],
    options: &FitOptions,
) -> Result<PetoOddsRatio, MetaError> {
    options.validate()?;
    if tables.is_empty() {
        return Err(MetaError::TooFewRecords {
            needed: 1,
            got: 0,
            analysis: "Peto's odds ratio",
        });
    }
    let (mut dev, mut sum_v, mut q_within, mut k_pos) = (0.0, 0.0, 0.0, 0usize);
    for t in tables {
        let (n1, n2) = (t.ai + t.bi, t.ci + t.di);
        let n = n1 + n2;
        let xt = t.ai + t.ci;
        let yt = t.bi + t.di;
        let ei = xt * n1 / n;
        let vi = xt * yt * (n1 / n) * (n2 / n) / (n - 1.0);
        dev += t.ai - ei;
        sum_v += vi;
        if vi > 0.0 {
            k_pos += 1;
            q_within += sq(t.ai - ei) / vi;
        }
    }
    refuse_overflow(
        tables,
        "Peto's odds ratio",
        &[dev, sum_v, q_within, sq(dev)],
    )?;
    if sum_v == 0.0 {
        return Err(MetaError::Undefined {
            reason: "Peto's odds ratio is undefined: in every table one of the two outcomes \
                     never occurred (no events, or only events), so the tables carry no \
                     information on the odds ratio"
                .into(),
        });
    }
    let pooled = Pooled::wald(dev / sum_v, (1.0 / sum_v).sqrt(), options.level)?;
    let q = (q_within - sq(dev) / sum_v).max(0.0);
    let k_yi = tables.iter().filter(|t| !t.double_zero()).count();
    Ok(PetoOddsRatio {
        level: options.level,
        k: tables.len(),
        pooled,
        heterogeneity: from_q(q, k_yi, k_pos > 1),
        k_informative: k_pos,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_double_zero_tables_are_refused() {
        let t = Table2x2::new(0.0, 10.0, 0.0, 12.0).unwrap();
        let e = peto_odds_ratio(&[t, t], &FitOptions::default()).unwrap_err();
        assert!(e.to_string().contains("never occurred"), "{e}");
    }

    #[test]
    fn one_table_has_no_heterogeneity() {
        let t = Table2x2::new(4.0, 16.0, 9.0, 11.0).unwrap();
        let r = peto_odds_ratio(&[t], &FitOptions::default()).unwrap();
        assert_eq!((r.heterogeneity.q, r.heterogeneity.q_p), (0.0, 1.0));
        assert!(r.pooled.estimate < 0.0);
    }
}
