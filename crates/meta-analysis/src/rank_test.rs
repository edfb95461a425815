//! Begg & Mazumdar's rank correlation test for funnel-plot asymmetry (Begg & Mazumdar 1994,
//! Biometrics 50, 1088–1101), as metafor 3.8-1's `ranktest`, with Kendall's τ and its p value
//! as R's `cor.test(method = "kendall")`.

use crate::distributions::normal_two_sided_p;
use crate::records::validate;
use crate::{MetaError, Record};

/// Records up to which (without ties) the p value comes from Kendall's exact distribution.
pub const EXACT_BELOW: usize = 50;

/// The outcome of the rank correlation test.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RankTest {
    /// Records tested.
    pub k: usize,
    /// Kendall's τ_b between the standardized deviates and the sampling variances.
    pub tau: f64,
    /// Two-sided p value of τ = 0.
    pub p: f64,
    /// Whether `p` comes from the exact distribution (k < 50 and no ties) rather than the
    /// normal approximation.
    pub exact: bool,
}

/// Begg & Mazumdar's test on at least 3 records.
///
/// With wᵢ = 1/vᵢ, μ̂ = Σwᵢyᵢ/Σwᵢ and v* = 1/Σwᵢ, the standardized deviates are
/// yᵢ* = (yᵢ − μ̂)/√(vᵢ − v*); the test is Kendall's τ_b between yᵢ* and vᵢ. The p value is
/// exact (the distribution of the number of concordant pairs over all k! orderings) when
/// k < 50 and neither variable has ties; otherwise it is the normal approximation
/// z = S/√Var(S), S the number of concordant minus discordant pairs, with the variance
/// corrected for ties in both variables (Kendall 1970, as `cor.test`; no continuity
/// correction).
pub fn rank_correlation_test(records: &[Record]) -> Result<RankTest, MetaError> {
    let data = validate(records, 3, "the rank correlation test")?;
    let (y, v) = (&data.yi, &data.vi);
    let k = data.k();
    let sw: f64 = v.iter().map(|vi| 1.0 / vi).sum();
    let theta = y.iter().zip(v).map(|(yi, vi)| yi / vi).sum::<f64>() / sw;
    let vb = 1.0 / sw;
    let deviates: Vec<f64> = y
        .iter()
        .zip(v)
        .map(|(yi, vi)| (yi - theta) / (vi - vb).sqrt())
        .collect();
    if deviates.iter().any(|d| !d.is_finite()) {
        return Err(MetaError::NonFiniteResult {
            quantity: "standardized deviate of the rank correlation test",
        });
    }
    let pairs = Pairs::of(&deviates, v);
    let undefined = |what: &str| MetaError::Undefined {
        reason: format!(
            "the rank correlation test is undefined when all records have the same {what}: \
             Kendall's τ has no ranks to correlate"
        ),
    };
    if pairs.n0 == pairs.x_ties.pairs() {
        return Err(undefined("standardized deviate"));
    }
    if pairs.n0 == pairs.y_ties.pairs() {
        return Err(undefined("sampling variance"));
    }
    let tau =
        pairs.s / ((pairs.n0 - pairs.x_ties.pairs()) * (pairs.n0 - pairs.y_ties.pairs())).sqrt();
    let ties = pairs.x_ties.any() || pairs.y_ties.any();
    if k < EXACT_BELOW && !ties {
        return Ok(RankTest {
            k,
            tau,
            p: exact_p(tau, k),
            exact: true,
        });
    }
    let n = k as f64;
    let var_s = (n * (n - 1.0) * (2.0 * n + 5.0) - pairs.x_ties.v_term() - pairs.y_ties.v_term())
        / 18.0
        + pairs.x_ties.pairs2() * pairs.y_ties.pairs2() / (2.0 * n * (n - 1.0))
        + pairs.x_ties.triples() * pairs.y_ties.triples() / (9.0 * n * (n - 1.0) * (n - 2.0));
    let z = pairs.s / var_s.sqrt();
    Ok(RankTest {
        k,
        tau,
        p: normal_two_sided_p(z),
        exact: false,
    })
}

/// The exact two-sided p value of τ (no ties) as `cor.test`: with T = round((τ + 1)·n(n − 1)/4)
/// concordant pairs, p = min(1, 2·P(T' ≥ T)) when T > n(n − 1)/4, else min(1, 2·P(T' ≤ T)),
/// T' distributed as the number of inversions of a random permutation of n.
fn exact_p(tau: f64, n: usize) -> f64 {
    let pairs = n * (n - 1) / 2;
    let t = ((tau + 1.0) * (n * (n - 1)) as f64 / 4.0).round_ties_even();
    let t = t.clamp(0.0, pairs as f64) as usize;
    let dist = inversions_distribution(n);
    // The distribution is symmetric: P(T' ≥ t) = P(T' ≤ pairs − t).
    let lower = |q: usize| dist[..=q].iter().sum::<f64>();
    let one_sided = if 4 * t > n * (n - 1) {
        lower(pairs - t)
    } else {
        lower(t)
    };
    (2.0 * one_sided).min(1.0)
}

/// P(T' = s) for s = 0..n(n − 1)/2, T' the number of inversions of a uniformly random
/// permutation of n (the Mahonian numbers over n!), built one element at a time:
/// pₘ(s) = (1/m)·Σ_{j=0}^{min(s, m−1)} pₘ₋₁(s − j).
fn inversions_distribution(n: usize) -> Vec<f64> {
    let mut p = vec![1.0];
    for m in 2..=n {
        let len = p.len() + m - 1;
        let mut next = vec![0.0; len];
        let mut window = 0.0;
        for (s, slot) in next.iter_mut().enumerate() {
            if s < p.len() {
                window += p[s];
            }
            if s >= m && s - m < p.len() {
                window -= p[s - m];
            }
            *slot = window / m as f64;
        }
        p = next;
    }
    p
}

/// Tie groups of one variable: the sizes of the groups of equal values (size ≥ 2).
#[derive(Debug, Default)]
struct Ties(Vec<f64>);

impl Ties {
    fn of(sorted: &[f64]) -> Ties {
        let mut groups = Vec::new();
        let mut start = 0;
        for i in 1..=sorted.len() {
            if i == sorted.len() || sorted[i] != sorted[start] {
                if i - start > 1 {
                    groups.push((i - start) as f64);
                }
                start = i;
            }
        }
        Ties(groups)
    }
    fn any(&self) -> bool {
        !self.0.is_empty()
    }
    /// Σ t(t − 1)/2: the pairs tied.
    fn pairs(&self) -> f64 {
        self.pairs2() / 2.0
    }
    /// Σ t(t − 1).
    fn pairs2(&self) -> f64 {
        self.0.iter().map(|t| t * (t - 1.0)).sum()
    }
    /// Σ t(t − 1)(2t + 5).
    fn v_term(&self) -> f64 {
        self.0.iter().map(|t| t * (t - 1.0) * (2.0 * t + 5.0)).sum()
    }
    /// Σ t(t − 1)(t − 2).
    fn triples(&self) -> f64 {
        self.0.iter().map(|t| t * (t - 1.0) * (t - 2.0)).sum()
    }
}

/// Kendall's S = Σ_{i<j} sign(xᵢ − xⱼ)·sign(yᵢ − yⱼ) in O(n log n) (Knight 1966): sort by
/// (x, y), count the inversions of y by merge sort; S = n₀ − n₁ − n₂ + n₃ − 2·inversions, with
/// n₀ = n(n − 1)/2, n₁ and n₂ the pairs tied in x and in y, n₃ the pairs tied in both.
struct Pairs {
    s: f64,
    n0: f64,
    x_ties: Ties,
    y_ties: Ties,
}

impl Pairs {
    fn of(x: &[f64], y: &[f64]) -> Pairs {
        let n = x.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| x[a].total_cmp(&x[b]).then(y[a].total_cmp(&y[b])));
        let xs: Vec<f64> = order.iter().map(|&i| x[i]).collect();
        let mut ys: Vec<f64> = order.iter().map(|&i| y[i]).collect();
        let x_ties = Ties::of(&xs);
        let mut joint = 0.0;
        let mut start = 0;
        for i in 1..=n {
            if i == n || xs[i] != xs[start] || ys[i] != ys[start] {
                let t = (i - start) as f64;
                joint += t * (t - 1.0) / 2.0;
                start = i;
            }
        }
        let inversions = merge_count(&mut ys);
        let y_ties = Ties::of(&ys);
        let n0 = (n as f64) * (n as f64 - 1.0) / 2.0;
        Pairs {
            s: n0 - x_ties.pairs() - y_ties.pairs() + joint - 2.0 * inversions,
            n0,
            x_ties,
            y_ties,
        }
    }
}

/// Sorts `a` ascending and returns the number of pairs i < j with a[i] > a[j].
fn merge_count(a: &mut [f64]) -> f64 {
    let n = a.len();
    if n < 2 {
        return 0.0;
    }
    let mid = n / 2;
    let mut count = merge_count(&mut a[..mid]) + merge_count(&mut a[mid..]);
    let mut merged = Vec::with_capacity(n);
    let (mut i, mut j) = (0, mid);
    while i < mid && j < n {
        if a[j] < a[i] {
            count += (mid - i) as f64;
            merged.push(a[j]);
            j += 1;
        } else {
            merged.push(a[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&a[i..mid]);
    merged.extend_from_slice(&a[j..n]);
    a.copy_from_slice(&merged);
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    /// S by its definition, O(n²).
    fn s_naive(x: &[f64], y: &[f64]) -> f64 {
        let sign = |d: f64| {
            if d > 0.0 {
                1.0
            } else if d < 0.0 {
                -1.0
            } else {
                0.0
            }
        };
        let mut s = 0.0;
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                s += sign(x[i] - x[j]) * sign(y[i] - y[j]);
            }
        }
        s
    }

    #[test]
    fn knights_count_equals_the_definition_with_ties() {
        let x = [3.0, 1.0, 2.0, 2.0, 5.0, 1.0, 4.0, 2.0];
        let y = [0.1, 0.3, 0.3, 0.2, 0.1, 0.5, 0.3, 0.2];
        assert_eq!(Pairs::of(&x, &y).s, s_naive(&x, &y));
        let y2 = [8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0];
        assert_eq!(Pairs::of(&x, &y2).s, s_naive(&x, &y2));
    }

    #[test]
    fn the_inversion_distribution_is_the_mahonian_numbers() {
        // n = 4: 1, 3, 5, 6, 5, 3, 1 over 24.
        let p = inversions_distribution(4);
        let counts: Vec<f64> = p.iter().map(|q| (q * 24.0).round()).collect();
        assert_eq!(counts, [1.0, 3.0, 5.0, 6.0, 5.0, 3.0, 1.0]);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        // Perfect concordance at n = 5: p = 2/120.
        assert!((exact_p(1.0, 5) - 2.0 / 120.0).abs() < 1e-16);
        assert_eq!(exact_p(0.0, 5), 1.0);
    }

    #[test]
    fn equal_variances_make_the_test_undefined() {
        let records: Vec<Record> = (0..5)
            .map(|i| Record::new(format!("r{i}"), 0.1 * i as f64, 0.04))
            .collect();
        let e = rank_correlation_test(&records).unwrap_err();
        assert!(e.to_string().contains("same sampling variance"), "{e}");
    }
}
