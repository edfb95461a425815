//! Moderators and the design matrix they make: a numeric column enters as it is, a text
//! column is a factor in treatment coding (levels sorted, the first the reference).
//!
//! The columns are centred on their means before fitting (the model is the same: the
//! intercept is restored afterwards, see [`Coding::uncentre`]). Columns that are linear
//! combinations of the intercept and earlier columns (an interaction with an empty cell, a
//! moderator that is another's multiple) are dropped as metafor drops them, R's `lm()` rule
//! (see [`ALIAS_TOL`]), found by modified Gram–Schmidt on the centred columns in O(k p²) time
//! and O(k p) memory; the model reports them in [`Coding::dropped`].

use crate::weighted::Design;
use crate::MetaError;
use std::any::Any;
use std::sync::Arc;

/// The most moderators one model takes.
pub const MAX_MODERATORS: usize = 8;
/// The most levels a factor (a text moderator, or the `by` of a subgroup analysis) may have.
pub const MAX_LEVELS: usize = 20;
/// The most coefficients (intercept included) a design may have: the cost of a fit grows
/// as k·p².
pub const MAX_COEFFICIENTS: usize = 24;
/// The largest |value| of a numeric moderator, as for yi ([`crate::MAX_ABS_YI`]): its
/// products with the weights' powers stay far inside the range of a double.
pub const MAX_ABS_MODERATOR: f64 = 1e25;

/// The values of one moderator, one per record.
#[derive(Debug, Clone, PartialEq)]
pub enum ModeratorColumn {
    /// A numeric moderator: enters the design as it is.
    Numeric(Vec<f64>),
    /// A text moderator: a factor, one indicator column per level after the first.
    Factor(Vec<String>),
}

/// A named moderator column.
#[derive(Debug, Clone, PartialEq)]
pub struct Moderator {
    pub name: String,
    pub column: ModeratorColumn,
}

impl Moderator {
    pub fn numeric(name: impl Into<String>, values: Vec<f64>) -> Self {
        Moderator {
            name: name.into(),
            column: ModeratorColumn::Numeric(values),
        }
    }

    pub fn factor(name: impl Into<String>, values: Vec<String>) -> Self {
        Moderator {
            name: name.into(),
            column: ModeratorColumn::Factor(values),
        }
    }

    fn len(&self) -> usize {
        match &self.column {
            ModeratorColumn::Numeric(v) => v.len(),
            ModeratorColumn::Factor(v) => v.len(),
        }
    }
}

/// One moderator's value at which to predict.
#[derive(Debug, Clone, PartialEq)]
pub enum ModeratorValue {
    Number(f64),
    Level(String),
}

/// How one moderator is coded in the design.
#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    /// A numeric moderator: one column.
    Numeric { name: String },
    /// A factor: its sorted levels; the first is the reference, each other level has one
    /// indicator column named `name:level`.
    Factor { name: String, levels: Vec<String> },
}

impl Term {
    pub fn name(&self) -> &str {
        match self {
            Term::Numeric { name } | Term::Factor { name, .. } => name,
        }
    }
}

/// The sorted distinct levels of a factor column (by their UTF-8 bytes).
pub fn levels_of(values: &[String]) -> Vec<String> {
    let mut levels: Vec<&str> = values.iter().map(String::as_str).collect();
    levels.sort_unstable();
    levels.dedup();
    levels.into_iter().map(str::to_string).collect()
}

/// How a design that is not one column per term's level (a formula's: `formula.rs`'s
/// `FormulaRows`) builds the row of X for a prediction. A trait here, below the formula code,
/// so that the coding a formula's design is built into does not depend on that code.
pub(crate) trait PredictionRows: std::fmt::Debug + Send + Sync {
    /// The row of X (intercept first when there is one) at one value per term.
    fn row(&self, terms: &[Term], at: &[ModeratorValue]) -> Result<Vec<f64>, MetaError>;
    /// Whether `other` builds the same rows (two codings are equal only then).
    fn same_as(&self, other: &dyn PredictionRows) -> bool;
    fn as_any(&self) -> &dyn Any;
}

impl PartialEq for dyn PredictionRows {
    fn eq(&self, other: &Self) -> bool {
        self.same_as(other)
    }
}

/// The design of a model: its terms (the values a prediction takes), the coefficient names
/// (intercept first when there is one) and the moderator columns (centred on their means when
/// there is an intercept), with their means.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Coding {
    pub terms: Vec<Term>,
    pub names: Vec<String>,
    /// Whether X's first column is the intercept (a formula may drop it).
    pub intercept: bool,
    /// The columns of X after the intercept (all of them without one), minus their means.
    pub centred: Vec<Vec<f64>>,
    /// Each column's mean (0 without an intercept: then the columns are not centred).
    pub means: Vec<f64>,
    /// How a formula's row is built for a prediction (`None`: one column per term's level).
    formula: Option<Arc<dyn PredictionRows>>,
    /// The coefficients dropped as aliased (linear combinations of the intercept and the
    /// columns before them), in the design's order, as metafor drops them.
    pub dropped: Vec<Aliased>,
    /// The positions in the full row (intercept first when there is one) of the columns kept.
    kept: Vec<usize>,
}

/// A design column dropped as aliased: `column` (in the full row of the design, the intercept
/// first when there is one) equals `constant` (times the intercept) plus Σ `shares[l]` times
/// kept column l (the columns after the intercept, in order), for every record.
#[derive(Debug, Clone, PartialEq)]
pub struct Aliased {
    pub name: String,
    column: usize,
    constant: f64,
    shares: Vec<f64>,
}

impl Coding {
    /// Codes `moderators` for `k` records and checks the design: the bounds, each numeric
    /// value finite and within [`MAX_ABS_MODERATOR`], each factor with 2 to [`MAX_LEVELS`]
    /// levels, more records than coefficients, and full rank.
    pub fn new(
        moderators: &[Moderator],
        ids: &dyn Fn(usize) -> String,
        k: usize,
    ) -> Result<Coding, MetaError> {
        if moderators.is_empty() {
            return Err(MetaError::Moderator {
                reason: "a meta-regression needs at least one moderator".into(),
            });
        }
        if moderators.len() > MAX_MODERATORS {
            return Err(MetaError::Moderator {
                reason: format!(
                    "{} moderators were given; at most {MAX_MODERATORS} are accepted",
                    moderators.len()
                ),
            });
        }
        for (i, m) in moderators.iter().enumerate() {
            if moderators[..i].iter().any(|other| other.name == m.name) {
                return Err(MetaError::Moderator {
                    reason: format!("the moderator {:?} is named more than once", m.name),
                });
            }
            if m.len() != k {
                return Err(MetaError::Moderator {
                    reason: format!(
                        "the moderator {:?} has {} values for {k} records",
                        m.name,
                        m.len()
                    ),
                });
            }
        }
        // The coefficients counted from the levels first: a design past the cap is refused
        // before its columns (k × p numbers) are built.
        let mut p = 1;
        let mut levels_by_moderator = Vec::with_capacity(moderators.len());
        for m in moderators {
            let levels = match &m.column {
                ModeratorColumn::Numeric(_) => None,
                ModeratorColumn::Factor(values) => {
                    let levels = levels_of(values);
                    check_levels(&m.name, &levels)?;
                    Some(levels)
                }
            };
            p += levels.as_ref().map_or(1, |l| l.len() - 1);
            levels_by_moderator.push(levels);
        }
        if p > MAX_COEFFICIENTS {
            return Err(MetaError::Moderator {
                reason: format!(
                    "the moderators make {p} coefficients (intercept: 1, {}); at most \
                     {MAX_COEFFICIENTS} are accepted",
                    moderators
                        .iter()
                        .zip(&levels_by_moderator)
                        .map(|(m, l)| format!(
                            "{}: {}",
                            m.name,
                            l.as_ref().map_or(1, |l| l.len() - 1)
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        let mut terms = Vec::new();
        let mut names = Vec::new();
        let mut columns: Vec<Vec<f64>> = Vec::with_capacity(p - 1);
        for (m, levels) in moderators.iter().zip(levels_by_moderator) {
            match &m.column {
                ModeratorColumn::Numeric(values) => {
                    if let Some(i) = values
                        .iter()
                        .position(|x| !(x.is_finite() && x.abs() <= MAX_ABS_MODERATOR))
                    {
                        return Err(MetaError::Moderator {
                            reason: format!(
                                "record {:?} has {} = {}; a numeric moderator must be a finite \
                                 number of magnitude at most {MAX_ABS_MODERATOR:e}",
                                ids(i),
                                m.name,
                                values[i]
                            ),
                        });
                    }
                    terms.push(Term::Numeric {
                        name: m.name.clone(),
                    });
                    names.push(m.name.clone());
                    columns.push(values.clone());
                }
                ModeratorColumn::Factor(values) => {
                    let levels = levels.expect("a factor's levels, read above");
                    for level in &levels[1..] {
                        names.push(format!("{}:{level}", m.name));
                        columns.push(
                            values
                                .iter()
                                .map(|v| if v == level { 1.0 } else { 0.0 })
                                .collect(),
                        );
                    }
                    terms.push(Term::Factor {
                        name: m.name.clone(),
                        levels,
                    });
                }
            }
        }
        Coding::from_columns(terms, names, columns, true, k, None)
    }

    /// The design of given columns (named, intercept not among them): the aliased columns
    /// dropped (see [`ALIAS_TOL`]), at least one moderator column left, and more records than
    /// the coefficients kept.
    pub(crate) fn from_columns(
        terms: Vec<Term>,
        column_names: Vec<String>,
        columns: Vec<Vec<f64>>,
        intercept: bool,
        k: usize,
        formula: Option<Arc<dyn PredictionRows>>,
    ) -> Result<Coding, MetaError> {
        let mut names = Vec::with_capacity(column_names.len() + 1);
        if intercept {
            names.push("intercept".to_string());
        }
        names.extend(column_names);
        let means: Vec<f64> = if intercept {
            columns
                .iter()
                .map(|c| c.iter().sum::<f64>() / k as f64)
                .collect()
        } else {
            vec![0.0; columns.len()]
        };
        let centred: Vec<Vec<f64>> = columns
            .iter()
            .zip(&means)
            .map(|(c, m)| c.iter().map(|x| x - m).collect())
            .collect();
        let offset = usize::from(intercept);
        let dropped = aliased(&columns, &centred, &means, &names, intercept);
        if dropped.len() == columns.len() {
            // No moderator column is left: refused, naming what the first one repeats.
            check_rank(&columns, &centred, &means, &names, intercept)?;
        }
        let is_dropped = |j: usize| dropped.iter().any(|d| d.column == offset + j);
        let kept: Vec<usize> = (0..offset)
            .chain(
                (0..columns.len())
                    .filter(|&j| !is_dropped(j))
                    .map(|j| offset + j),
            )
            .collect();
        let names: Vec<String> = kept.iter().map(|&a| names[a].clone()).collect();
        fn keep<T>(v: Vec<T>, is_dropped: &dyn Fn(usize) -> bool) -> Vec<T> {
            v.into_iter()
                .enumerate()
                .filter(|(j, _)| !is_dropped(*j))
                .map(|(_, x)| x)
                .collect()
        }
        let centred = keep(centred, &is_dropped);
        let means = keep(means, &is_dropped);
        let p = names.len();
        if k <= p {
            return Err(MetaError::TooFewForCoefficients { k, names });
        }
        Ok(Coding {
            terms,
            names,
            intercept,
            centred,
            means,
            formula,
            dropped,
            kept,
        })
    }

    /// The number of records.
    pub fn k(&self) -> usize {
        self.centred.first().map_or(0, Vec::len)
    }

    /// The centred design the fits work on.
    pub fn design(&self) -> Design {
        if self.intercept {
            Design::intercept_and_columns(self.centred.clone())
        } else {
            Design::columns(self.centred.clone())
        }
    }

    /// x_{ia} of the uncentred X.
    pub fn value(&self, i: usize, a: usize) -> f64 {
        match (self.intercept, a) {
            (true, 0) => 1.0,
            (true, a) => self.centred[a - 1][i] + self.means[a - 1],
            (false, a) => self.centred[a][i],
        }
    }

    /// x_{ia} of the centred X.
    pub fn centred_value(&self, i: usize, a: usize) -> f64 {
        match (self.intercept, a) {
            (true, 0) => 1.0,
            (true, a) => self.centred[a - 1][i],
            (false, a) => self.centred[a][i],
        }
    }

    /// The 0-based positions the omnibus test takes by default, as metafor's: every
    /// coefficient but the intercept.
    pub fn default_btt(&self) -> Vec<usize> {
        (usize::from(self.intercept)..self.names.len()).collect()
    }

    /// The row of X (intercept first) for one value per term, in the order of the terms,
    /// without the dropped columns. A prediction must be estimable: at each dropped column
    /// the full row must equal the combination of the kept columns that column is in the
    /// records (else the prediction would rest on a coefficient the records cannot inform).
    pub fn row(&self, at: &[ModeratorValue]) -> Result<Vec<f64>, MetaError> {
        let full = self.full_row(at)?;
        let offset = usize::from(self.intercept);
        for d in &self.dropped {
            let implied = d.constant * full[0]
                + d.shares
                    .iter()
                    .zip(&self.kept[offset..])
                    .map(|(s, &a)| s * full[a])
                    .sum::<f64>();
            if (full[d.column] - implied).abs() > ALIAS_TOL * (1.0 + full[d.column].abs()) {
                return Err(MetaError::Moderator {
                    reason: format!(
                        "the prediction at these values is not estimable: the coefficient {} \
                         was dropped as aliased (the records cannot tell it from the others), \
                         and these values need it",
                        d.name
                    ),
                });
            }
        }
        Ok(self.kept.iter().map(|&a| full[a]).collect())
    }

    /// The row of X with every column, dropped ones included.
    fn full_row(&self, at: &[ModeratorValue]) -> Result<Vec<f64>, MetaError> {
        if at.len() != self.terms.len() {
            return Err(MetaError::Moderator {
                reason: format!(
                    "a prediction needs one value for each of the {} moderators ({}), got {}",
                    self.terms.len(),
                    self.terms
                        .iter()
                        .map(Term::name)
                        .collect::<Vec<_>>()
                        .join(", "),
                    at.len()
                ),
            });
        }
        if let Some(formula) = &self.formula {
            return formula.row(&self.terms, at);
        }
        let mut row = vec![1.0];
        for (term, value) in self.terms.iter().zip(at) {
            match (term, value) {
                (Term::Numeric { name }, ModeratorValue::Number(x)) => {
                    if !(x.is_finite() && x.abs() <= MAX_ABS_MODERATOR) {
                        return Err(MetaError::Moderator {
                            reason: format!(
                                "the prediction's {name} = {x} must be a finite number of \
                                 magnitude at most {MAX_ABS_MODERATOR:e}"
                            ),
                        });
                    }
                    row.push(*x);
                }
                (Term::Factor { name, levels }, ModeratorValue::Level(level)) => {
                    if !levels.contains(level) {
                        return Err(MetaError::Moderator {
                            reason: format!(
                                "the prediction's {name} = {level:?} is not one of its levels \
                                 ({})",
                                quoted(levels)
                            ),
                        });
                    }
                    row.extend(
                        levels[1..]
                            .iter()
                            .map(|l| if l == level { 1.0 } else { 0.0 }),
                    );
                }
                (Term::Numeric { name }, ModeratorValue::Level(level)) => {
                    return Err(MetaError::Moderator {
                        reason: format!(
                            "{name} is a numeric moderator, but the prediction gives it the \
                             text {level:?}"
                        ),
                    })
                }
                (Term::Factor { name, levels }, ModeratorValue::Number(x)) => {
                    return Err(MetaError::Moderator {
                        reason: format!(
                            "{name} is a text moderator (levels {}), but the prediction gives \
                             it the number {x}",
                            quoted(levels)
                        ),
                    })
                }
            }
        }
        Ok(row)
    }

    /// β and its covariance for the uncentred design, from those of the centred one: with
    /// X̃ = X M (M the identity with −means in its first row), β = M β̃ and Var β = M Var β̃ M′.
    pub fn uncentre(&self, beta: &[f64], vb: &[Vec<f64>]) -> (Vec<f64>, Vec<Vec<f64>>) {
        if !self.intercept {
            return (beta.to_vec(), vb.to_vec());
        }
        let p = beta.len();
        let shift = |v: &[f64]| v[0] - (1..p).map(|j| self.means[j - 1] * v[j]).sum::<f64>();
        let mut b = beta.to_vec();
        b[0] = shift(beta);
        // Rows: M Var β̃; then columns: (M Var β̃) M′.
        let mut rows: Vec<Vec<f64>> = vb.to_vec();
        rows[0] = (0..p)
            .map(|c| shift(&(0..p).map(|r| vb[r][c]).collect::<Vec<_>>()))
            .collect();
        let mut out = rows.clone();
        for r in 0..p {
            out[r][0] = shift(&rows[r]);
        }
        (b, out)
    }
}

fn quoted(levels: &[String]) -> String {
    levels
        .iter()
        .map(|l| format!("{l:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A factor needs at least two levels (one has no effect to estimate) and at most
/// [`MAX_LEVELS`].
pub(crate) fn check_levels(name: &str, levels: &[String]) -> Result<(), MetaError> {
    if levels.len() < 2 {
        return Err(MetaError::Moderator {
            reason: format!(
                "the text moderator {name} has only one level ({}) among the records, so there \
                 is no difference between levels to estimate",
                quoted(levels)
            ),
        });
    }
    if levels.len() > MAX_LEVELS {
        return Err(MetaError::Moderator {
            reason: format!(
                "the text moderator {name} has {} levels; at most {MAX_LEVELS} are accepted",
                levels.len()
            ),
        });
    }
    Ok(())
}

/// The tolerance of R's `qr()` (LINPACK `dqrdc2`, the default `tol = 1e-07` of `lm()`, by
/// which metafor's `rma.uni` and `rma.mv` find redundant predictors): a column whose norm,
/// after projection on the columns before it that are kept (the intercept first), falls below
/// `ALIAS_TOL` times its own norm is aliased and dropped; the earlier of two dependent
/// columns stays.
pub const ALIAS_TOL: f64 = 1e-7;

/// The aliased columns by R's rule ([`ALIAS_TOL`]): left to right, each centred column is
/// projected on the kept ones before it (twice, modified Gram–Schmidt with one
/// reorthogonalisation, so the remainder is accurate to rounding), and is dropped when what
/// is left is below [`ALIAS_TOL`] of the uncentred column's norm (the uncentred column's
/// remainder on the intercept and those columns is the centred column's on the centred
/// ones). Each dropped column carries its combination of the kept ones.
fn aliased(
    raw: &[Vec<f64>],
    centred: &[Vec<f64>],
    means: &[f64],
    names: &[String],
    intercept: bool,
) -> Vec<Aliased> {
    let offset = usize::from(intercept);
    let norm = |c: &[f64]| c.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut q: Vec<Vec<f64>> = Vec::new();
    // r[i][l] = the coefficient of q_l in kept column i (l ≤ i), as in X̃ = Q R.
    let mut r: Vec<Vec<f64>> = Vec::new();
    let mut kept: Vec<usize> = Vec::new();
    let mut dropped = Vec::new();
    for (j, column) in centred.iter().enumerate() {
        let mut rest = column.clone();
        let mut coefficients = vec![0.0; q.len()];
        for _ in 0..2 {
            for (qi, c) in q.iter().zip(coefficients.iter_mut()) {
                let d: f64 = qi.iter().zip(&rest).map(|(a, b)| a * b).sum();
                for (x, qx) in rest.iter_mut().zip(qi) {
                    *x -= d * qx;
                }
                *c += d;
            }
        }
        let remainder = norm(&rest);
        if remainder <= ALIAS_TOL * norm(&raw[j]) {
            // centred_j = Σ_l c_l q_l and q_l = (centred_l − Σ_{m<l} r_l,m q_m) / r_l,l:
            // the shares s with centred_j = Σ_l s_l centred_l, by back substitution; then
            // raw_j = (mean_j − Σ s_l mean_l)·1 + Σ s_l raw_l.
            let n = q.len();
            let mut shares = vec![0.0; n];
            for l in (0..n).rev() {
                let mut c = coefficients[l];
                for (m, s) in shares.iter().enumerate().skip(l + 1) {
                    c -= s * r[m][l];
                }
                shares[l] = c / r[l][l];
            }
            let constant = if intercept {
                means[j]
                    - shares
                        .iter()
                        .zip(&kept)
                        .map(|(s, &l)| s * means[l])
                        .sum::<f64>()
            } else {
                0.0
            };
            dropped.push(Aliased {
                name: names[offset + j].clone(),
                column: offset + j,
                constant,
                shares,
            });
            continue;
        }
        for x in rest.iter_mut() {
            *x /= remainder;
        }
        coefficients.push(remainder);
        r.push(coefficients);
        q.push(rest);
        kept.push(j);
    }
    dropped
}

/// Relative size below which a centred column's remainder counts as zero: [`ALIAS_TOL`].
const RANK_TOL: f64 = ALIAS_TOL;

/// Modified Gram–Schmidt on the centred columns (orthogonal to the intercept by
/// construction). The first column whose remainder after projection on the earlier ones is
/// below [`RANK_TOL`] of its own size is a linear combination of the intercept and those
/// (all independent, so basis vector i comes from column i): the error names it and the
/// columns with a non-negligible share in the combination. Called when every moderator
/// column is aliased, so the first one is, and the error says why.
fn check_rank(
    raw: &[Vec<f64>],
    centred: &[Vec<f64>],
    means: &[f64],
    names: &[String],
    intercept: bool,
) -> Result<(), MetaError> {
    // names[offset + j] is column j's.
    let offset = usize::from(intercept);
    let norm = |c: &[f64]| c.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut q: Vec<Vec<f64>> = Vec::new();
    // r[i][l] = the coefficient of q_l in centred column i (l ≤ i), as in X̃ = Q R.
    let mut r: Vec<Vec<f64>> = Vec::new();
    for (j, column) in centred.iter().enumerate() {
        crate::cancel::checkpoint()?;
        let size = norm(&raw[j]);
        let mut rest = column.clone();
        let mut coefficients = Vec::with_capacity(q.len() + 1);
        for qi in &q {
            let c: f64 = qi.iter().zip(&rest).map(|(a, b)| a * b).sum();
            for (x, qx) in rest.iter_mut().zip(qi) {
                *x -= c * qx;
            }
            coefficients.push(c);
        }
        let remainder = norm(&rest);
        if remainder <= RANK_TOL * size {
            // centred_j = Σ_l c_l q_l and q_l = (centred_l − Σ_{m<l} r_l,m q_m) / r_l,l:
            // the shares s with centred_j = Σ_l s_l centred_l, by back substitution.
            let n = q.len();
            let mut share = vec![0.0; n];
            for l in (0..n).rev() {
                let mut c = coefficients[l];
                for (m, s) in share.iter().enumerate().skip(l + 1) {
                    c -= s * r[m][l];
                }
                share[l] = c / r[l][l];
            }
            let scale = norm(column).max(f64::MIN_POSITIVE);
            let mut involved: Vec<String> = Vec::new();
            // raw_j = (mean_j − Σ s_l mean_l)·1 + Σ s_l raw_l: the intercept takes part
            // unless that constant is zero.
            let constant = means[j] - share.iter().zip(means).map(|(s, m)| s * m).sum::<f64>();
            if intercept
                && (n == 0
                    || constant.abs() * (raw[j].len() as f64).sqrt() > 1e-8 * size.max(scale))
            {
                involved.push(names[0].clone());
            }
            for (l, s) in share.iter().enumerate() {
                if (s * r[l][l]).abs() > 1e-8 * scale {
                    involved.push(names[offset + l].clone());
                }
            }
            return Err(MetaError::RankDeficient {
                column: names[offset + j].clone(),
                combination_of: involved,
            });
        }
        for x in rest.iter_mut() {
            *x /= remainder;
        }
        coefficients.push(remainder);
        r.push(coefficients);
        q.push(rest);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(i: usize) -> String {
        format!("r{i}")
    }

    fn coding(moderators: &[Moderator]) -> Result<Coding, MetaError> {
        let k = moderators[0].len();
        Coding::new(moderators, &id, k)
    }

    #[test]
    fn factors_are_coded_against_their_first_sorted_level() {
        let c = coding(&[
            Moderator::numeric("dose", vec![1.0, 2.0, 3.0, 4.0, 6.0]),
            Moderator::factor("arm", ["b", "a", "c", "a", "b"].map(String::from).to_vec()),
        ])
        .unwrap();
        assert_eq!(c.names, ["intercept", "dose", "arm:b", "arm:c"]);
        assert_eq!(
            c.row(&[
                ModeratorValue::Number(2.5),
                ModeratorValue::Level("c".into())
            ])
            .unwrap(),
            [1.0, 2.5, 0.0, 1.0]
        );
        assert_eq!(
            c.row(&[
                ModeratorValue::Number(2.5),
                ModeratorValue::Level("a".into())
            ])
            .unwrap(),
            [1.0, 2.5, 0.0, 0.0]
        );
        let e = c
            .row(&[
                ModeratorValue::Number(2.5),
                ModeratorValue::Level("z".into()),
            ])
            .unwrap_err();
        assert!(e.to_string().contains("\"a\", \"b\", \"c\""), "{e}");
        assert!(c.row(&[ModeratorValue::Number(2.5)]).is_err());
    }

    #[test]
    fn rank_deficient_designs_name_their_columns() {
        let e = coding(&[Moderator::numeric("w", vec![3.0; 5])]).unwrap_err();
        assert_eq!(
            e,
            MetaError::RankDeficient {
                column: "w".into(),
                combination_of: vec!["intercept".into()]
            }
        );
        assert!(e.to_string().contains("w is constant"), "{e}");
        // Columns that repeat earlier ones are dropped (the later of two), each with its
        // combination of the kept ones; the rest is fitted.
        let a = vec![1.0, 2.0, 4.0, 8.0, 9.0, 3.0];
        let c = coding(&[
            Moderator::numeric("a", a.clone()),
            Moderator::numeric("twice_a", a.iter().map(|x| 2.0 * x).collect()),
            Moderator::numeric("b", vec![0.5, 1.0, 0.0, 1.0, 2.0, 3.0]),
            Moderator::numeric("a_plus_1", a.iter().map(|x| x + 1.0).collect()),
        ])
        .unwrap();
        assert_eq!(c.names, ["intercept", "a", "b"]);
        let dropped: Vec<(&str, f64, &[f64])> = c
            .dropped
            .iter()
            .map(|d| (d.name.as_str(), d.constant, d.shares.as_slice()))
            .collect();
        assert_eq!(dropped.len(), 2);
        assert_eq!(dropped[0].0, "twice_a");
        assert!((dropped[0].2[0] - 2.0).abs() < 1e-12 && dropped[0].1.abs() < 1e-12);
        assert_eq!(dropped[1].0, "a_plus_1");
        assert!((dropped[1].1 - 1.0).abs() < 1e-12 && (dropped[1].2[0] - 1.0).abs() < 1e-12);
        assert!(dropped[1].2[1].abs() < 1e-12);
        // A prediction is the kept columns' row; one off the records' span is refused.
        let n = ModeratorValue::Number;
        assert_eq!(
            c.row(&[n(2.0), n(4.0), n(1.0), n(3.0)]).unwrap(),
            [1.0, 2.0, 1.0]
        );
        let e = c.row(&[n(2.0), n(5.0), n(1.0), n(3.0)]).unwrap_err();
        assert!(e.to_string().contains("twice_a was dropped"), "{e}");
        // A numeric column equal to a factor's indicator.
        let c = coding(&[
            Moderator::factor(
                "g",
                ["x", "y", "x", "y", "x", "x"].map(String::from).to_vec(),
            ),
            Moderator::numeric("is_y", vec![0.0, 1.0, 0.0, 1.0, 0.0, 0.0]),
        ])
        .unwrap();
        assert_eq!(c.names, ["intercept", "g:y"]);
        assert_eq!(c.dropped[0].name, "is_y");
    }

    #[test]
    fn too_few_records_and_too_many_terms_are_refused() {
        let e = coding(&[
            Moderator::numeric("a", vec![1.0, 2.0, 3.0]),
            Moderator::numeric("b", vec![1.0, 5.0, 2.0]),
        ])
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("3 records cannot fit 3 coefficients (intercept, a, b)"),
            "{e}"
        );
        let one_level = coding(&[Moderator::factor("g", vec!["x".into(); 4])]).unwrap_err();
        assert!(
            one_level.to_string().contains("only one level"),
            "{one_level}"
        );
        let many: Vec<Moderator> = (0..=MAX_MODERATORS)
            .map(|i| Moderator::numeric(format!("m{i}"), vec![i as f64; 3]))
            .collect();
        assert!(coding(&many).unwrap_err().to_string().contains("at most 8"));
        let levels: Vec<String> = (0..=MAX_LEVELS).map(|i| format!("l{i:02}")).collect();
        let e = coding(&[Moderator::factor("g", levels)]).unwrap_err();
        assert!(e.to_string().contains("21 levels"), "{e}");
        let e = coding(&[Moderator::numeric("a", vec![1.0, f64::NAN, 3.0])]).unwrap_err();
        assert!(
            e.to_string().starts_with("record \"r1\" has a = NaN"),
            "{e}"
        );
    }

    #[test]
    fn uncentring_restores_the_intercept_and_its_covariances() {
        let c = coding(&[Moderator::numeric("a", vec![1.0, 2.0, 6.0])]).unwrap();
        assert_eq!(c.means, [3.0]);
        // β̃ = (b0 + 3·b1, b1) for β = (b0, b1).
        let (b, vb) = c.uncentre(&[5.0, 2.0], &[vec![1.0, 0.5], vec![0.5, 2.0]]);
        assert_eq!(b, [-1.0, 2.0]);
        // M = [[1, −3], [0, 1]]: M V M′.
        assert_eq!(vb, [vec![16.0, -5.5], vec![-5.5, 2.0]]);
    }
}
