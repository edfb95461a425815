//! Effect sizes from study-level raw data, by the names and with the formulas and defaults
//! of metafor 3.8-1's `escalc` (Viechtbauer 2010): means and SDs of two groups (`MD`,
//! `SMD`, `ROM`), 2×2 tables (`OR`, `RR`, `RD`), correlations (`COR`, `ZCOR`) and single
//! proportions (`PR`, `PLO`). `docs/METHODS.md` states every formula.
//!
//! Each row of raw data is a value per [`Column`] (or none). [`escalc`] computes every
//! row, and a row that cannot give an effect size is an [`EffectSizeError`] naming the
//! column at fault: the other rows are still computed.
//!
//! ```
//! use meta_analysis::effect_sizes::{escalc, Column, EscalcOptions, Measure, RawRow};
//! let mut row = RawRow::default();
//! for (column, value) in [
//!     (Column::M1i, 10.0), (Column::Sd1i, 2.0), (Column::N1i, 20.0),
//!     (Column::M2i, 9.0), (Column::Sd2i, 2.0), (Column::N2i, 20.0),
//! ] {
//!     row.set(column, value);
//! }
//! let out = escalc(Measure::Md, &[row], &EscalcOptions::default());
//! let es = out[0].as_ref().unwrap();
//! assert_eq!((es.yi, es.vi), (1.0, 0.4));
//! ```

mod correlations;
mod means;
mod proportions;
mod tables;

use std::fmt;

/// An effect-size measure, named as `escalc`'s `measure` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Raw mean difference m1i − m2i.
    Md,
    /// Standardized mean difference, Hedges' g (exact bias correction).
    Smd,
    /// Log ratio of means log(m1i / m2i).
    Rom,
    /// Log odds ratio of a 2×2 table.
    Or,
    /// Log risk ratio of a 2×2 table.
    Rr,
    /// Risk difference of a 2×2 table.
    Rd,
    /// Raw correlation coefficient.
    Cor,
    /// Fisher's r-to-z transformed correlation coefficient.
    Zcor,
    /// Raw proportion.
    Pr,
    /// Logit-transformed proportion (log odds).
    Plo,
}

/// A column of raw data, named as `escalc`'s arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Column {
    M1i,
    Sd1i,
    N1i,
    M2i,
    Sd2i,
    N2i,
    Ai,
    Bi,
    Ci,
    Di,
    Ri,
    Ni,
    Xi,
}

impl Column {
    pub const ALL: [Column; 13] = [
        Column::M1i,
        Column::Sd1i,
        Column::N1i,
        Column::M2i,
        Column::Sd2i,
        Column::N2i,
        Column::Ai,
        Column::Bi,
        Column::Ci,
        Column::Di,
        Column::Ri,
        Column::Ni,
        Column::Xi,
    ];

    /// The name `escalc` gives the argument (and a CSV column for it).
    pub fn name(self) -> &'static str {
        match self {
            Column::M1i => "m1i",
            Column::Sd1i => "sd1i",
            Column::N1i => "n1i",
            Column::M2i => "m2i",
            Column::Sd2i => "sd2i",
            Column::N2i => "n2i",
            Column::Ai => "ai",
            Column::Bi => "bi",
            Column::Ci => "ci",
            Column::Di => "di",
            Column::Ri => "ri",
            Column::Ni => "ni",
            Column::Xi => "xi",
        }
    }

    /// The column named `name` (exactly, as [`Column::name`] gives it).
    pub fn parse(name: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.name() == name)
    }

    /// What the column holds, for a person choosing it.
    pub fn description(self) -> &'static str {
        match self {
            Column::M1i => "mean of group 1",
            Column::Sd1i => "standard deviation of group 1",
            Column::N1i => "size of group 1",
            Column::M2i => "mean of group 2",
            Column::Sd2i => "standard deviation of group 2",
            Column::N2i => "size of group 2",
            Column::Ai => "events in group 1 (2×2 table, upper left cell)",
            Column::Bi => "non-events in group 1 (upper right cell; or give n1i)",
            Column::Ci => "events in group 2 (lower left cell)",
            Column::Di => "non-events in group 2 (lower right cell; or give n2i)",
            Column::Ri => "correlation coefficient",
            Column::Ni => "sample size",
            Column::Xi => "number of events (individuals with the characteristic)",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Measure {
    pub const ALL: [Measure; 10] = [
        Measure::Md,
        Measure::Smd,
        Measure::Rom,
        Measure::Or,
        Measure::Rr,
        Measure::Rd,
        Measure::Cor,
        Measure::Zcor,
        Measure::Pr,
        Measure::Plo,
    ];

    /// `escalc`'s name of the measure.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Md => "MD",
            Measure::Smd => "SMD",
            Measure::Rom => "ROM",
            Measure::Or => "OR",
            Measure::Rr => "RR",
            Measure::Rd => "RD",
            Measure::Cor => "COR",
            Measure::Zcor => "ZCOR",
            Measure::Pr => "PR",
            Measure::Plo => "PLO",
        }
    }

    /// The measure named `name` (exactly, as [`Measure::name`] gives it).
    pub fn parse(name: &str) -> Option<Measure> {
        Measure::ALL.into_iter().find(|m| m.name() == name)
    }

    /// What the measure is, in a few words.
    pub fn title(self) -> &'static str {
        match self {
            Measure::Md => "raw mean difference",
            Measure::Smd => "standardized mean difference (Hedges' g)",
            Measure::Rom => "log ratio of means",
            Measure::Or => "log odds ratio",
            Measure::Rr => "log risk ratio",
            Measure::Rd => "risk difference",
            Measure::Cor => "raw correlation coefficient",
            Measure::Zcor => "Fisher's z-transformed correlation",
            Measure::Pr => "raw proportion",
            Measure::Plo => "logit-transformed proportion",
        }
    }

    /// The columns the measure reads: every one required, except that a 2×2 table takes
    /// either `bi` or `n1i` (and either `di` or `n2i`), or both when they agree.
    pub fn columns(self) -> &'static [Column] {
        use Column::*;
        match self {
            Measure::Md | Measure::Smd | Measure::Rom => &[M1i, Sd1i, N1i, M2i, Sd2i, N2i],
            Measure::Or | Measure::Rr | Measure::Rd => &[Ai, Bi, Ci, Di, N1i, N2i],
            Measure::Cor | Measure::Zcor => &[Ri, Ni],
            Measure::Pr | Measure::Plo => &[Xi, Ni],
        }
    }

    /// Whether `column` may be left out when its alternative is given (`bi` for `n1i`,
    /// `di` for `n2i` and back, in a 2×2 table).
    pub fn alternative(self, column: Column) -> Option<Column> {
        if !self.is_table() {
            return None;
        }
        match column {
            Column::Bi => Some(Column::N1i),
            Column::N1i => Some(Column::Bi),
            Column::Di => Some(Column::N2i),
            Column::N2i => Some(Column::Di),
            _ => None,
        }
    }

    /// Whether the continuity correction (`add`, `to`) applies: 2×2 tables and proportions.
    pub fn uses_correction(self) -> bool {
        self.is_table() || matches!(self, Measure::Pr | Measure::Plo)
    }

    fn is_table(self) -> bool {
        matches!(self, Measure::Or | Measure::Rr | Measure::Rd)
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `escalc`'s `to`: which rows get `add` added to each cell of their table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddTo {
    /// Every row.
    All,
    /// Only the rows whose table has a cell equal to 0 (the default).
    Only0,
    /// Every row, if any row's table has a cell equal to 0.
    If0All,
    /// No row.
    None,
}

impl AddTo {
    pub const ALL: [AddTo; 4] = [AddTo::All, AddTo::Only0, AddTo::If0All, AddTo::None];

    /// `escalc`'s name: "all", "only0", "if0all" or "none".
    pub fn name(self) -> &'static str {
        match self {
            AddTo::All => "all",
            AddTo::Only0 => "only0",
            AddTo::If0All => "if0all",
            AddTo::None => "none",
        }
    }

    pub fn parse(name: &str) -> Option<AddTo> {
        AddTo::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// `escalc`'s continuity correction for 2×2 tables and proportions. The defaults are
/// escalc's: `add = 1/2`, `to = "only0"` (and `drop00 = FALSE`: a table with no events, or
/// only events, in both groups is kept and corrected like any table with a zero).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EscalcOptions {
    /// The amount added to each cell of a corrected table (≥ 0).
    pub add: f64,
    pub to: AddTo,
}

impl Default for EscalcOptions {
    fn default() -> Self {
        EscalcOptions {
            add: 0.5,
            to: AddTo::Only0,
        }
    }
}

/// One row's raw data: a value for each column given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawRow {
    values: [Option<f64>; 13],
}

impl RawRow {
    pub fn set(&mut self, column: Column, value: f64) {
        self.values[column.index()] = Some(value);
    }

    pub fn get(&self, column: Column) -> Option<f64> {
        self.values[column.index()]
    }

    /// The value of a column the measure needs: present and finite.
    fn required(&self, column: Column) -> Result<f64, EffectSizeError> {
        let value = self
            .get(column)
            .ok_or(EffectSizeError::Missing { column })?;
        if value.is_finite() {
            Ok(value)
        } else {
            Err(EffectSizeError::NotFinite { column, value })
        }
    }
}

/// A row's effect size `yi` and its sampling variance `vi`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EffectSize {
    pub yi: f64,
    pub vi: f64,
}

/// Why a row gives no effect size; each names the column at fault.
#[derive(Debug, Clone, PartialEq)]
pub enum EffectSizeError {
    /// The measure needs this column and the row has no value in it.
    Missing { column: Column },
    /// A 2×2 table needs `bi` or `n1i` (`di` or `n2i`), and the row has neither.
    MissingEither { column: Column, or: Column },
    /// The value is NaN or infinite.
    NotFinite { column: Column, value: f64 },
    /// A standard deviation or a count below 0.
    Negative { column: Column, value: f64 },
    /// A group or sample size too small for the measure.
    TooSmall {
        column: Column,
        value: f64,
        /// e.g. "at least 1", "more than 3"
        needed: &'static str,
        why: &'static str,
    },
    /// A count above the size of its group.
    AboveN {
        column: Column,
        value: f64,
        n_column: Column,
        n: f64,
    },
    /// `n1i` given with `bi` (or `n2i` with `di`) and not equal to `ai + bi` (`ci + di`).
    Inconsistent {
        column: Column,
        value: f64,
        sum: f64,
        of: (Column, Column),
    },
    /// A correlation outside [−1, 1].
    OutOfRange { column: Column, value: f64 },
    /// A value for which the measure is undefined (a mean ≤ 0 for a log ratio, r = ±1 for
    /// Fisher's z, a zero cell with no continuity correction, SDs that are both 0, …).
    Undefined { column: Column, reason: String },
    /// `add` is negative or not finite.
    InvalidAdd { add: f64 },
}

impl EffectSizeError {
    /// The column at fault (none for an invalid `add`, which concerns every row).
    pub fn column(&self) -> Option<Column> {
        match self {
            EffectSizeError::Missing { column }
            | EffectSizeError::MissingEither { column, .. }
            | EffectSizeError::NotFinite { column, .. }
            | EffectSizeError::Negative { column, .. }
            | EffectSizeError::TooSmall { column, .. }
            | EffectSizeError::AboveN { column, .. }
            | EffectSizeError::Inconsistent { column, .. }
            | EffectSizeError::OutOfRange { column, .. }
            | EffectSizeError::Undefined { column, .. } => Some(*column),
            EffectSizeError::InvalidAdd { .. } => None,
        }
    }
}

impl fmt::Display for EffectSizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EffectSizeError::Missing { column } => {
                write!(f, "{column} is missing ({})", column.description())
            }
            EffectSizeError::MissingEither { column, or } => write!(
                f,
                "{column} is missing: give {column} ({}) or {or} ({})",
                column.description(),
                or.description()
            ),
            EffectSizeError::NotFinite { column, value } => {
                write!(f, "{column} is {}, not a finite number", Shown(*value))
            }
            EffectSizeError::Negative { column, value } => {
                write!(f, "{column} is {}; it cannot be negative", Shown(*value))
            }
            EffectSizeError::TooSmall {
                column,
                value,
                needed,
                why,
            } => write!(
                f,
                "{column} is {}; it must be {needed} {why}",
                Shown(*value)
            ),
            EffectSizeError::AboveN {
                column,
                value,
                n_column,
                n,
            } => write!(
                f,
                "{column} is {}, more than {n_column} = {}; a count cannot exceed its group's size",
                Shown(*value),
                Shown(*n)
            ),
            EffectSizeError::Inconsistent {
                column,
                value,
                sum,
                of: (a, b),
            } => write!(
                f,
                "{column} is {}, but {a} + {b} = {}; give one of them or make them agree",
                Shown(*value),
                Shown(*sum)
            ),
            EffectSizeError::OutOfRange { column, value } => {
                write!(
                    f,
                    "{column} is {}; a correlation must lie in [-1, 1]",
                    Shown(*value)
                )
            }
            EffectSizeError::Undefined { column, reason } => write!(f, "{column}: {reason}"),
            EffectSizeError::InvalidAdd { add } => write!(
                f,
                "add is {}; the continuity correction must be a finite number >= 0",
                Shown(*add)
            ),
        }
    }
}

impl std::error::Error for EffectSizeError {}

/// A number as a message shows it: as JSON and R write it (`5e-324`, `-1e-300`, `0.5`, `12`),
/// not as Rust's `Display` does (5e-324 as 0.000… with 323 zeros).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shown(pub f64);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x.is_finite() && x == x.trunc() && x.abs() < 1e16 {
            write!(f, "{x}")
        } else {
            write!(f, "{x:?}")
        }
    }
}

/// The effect size of every row, in order: `escalc(measure, …)` with vtype "LS" (its
/// default). `to = "if0all"` looks at every row's table, so the rows are computed together.
pub fn escalc(
    measure: Measure,
    rows: &[RawRow],
    options: &EscalcOptions,
) -> Vec<Result<EffectSize, EffectSizeError>> {
    if !(options.add.is_finite() && options.add >= 0.0) && measure.uses_correction() {
        return rows
            .iter()
            .map(|_| Err(EffectSizeError::InvalidAdd { add: options.add }))
            .collect();
    }
    match measure {
        Measure::Md | Measure::Smd | Measure::Rom => rows
            .iter()
            .map(|row| means::effect_size(measure, row))
            .collect(),
        Measure::Cor | Measure::Zcor => rows
            .iter()
            .map(|row| correlations::effect_size(measure, row))
            .collect(),
        Measure::Or | Measure::Rr | Measure::Rd => {
            let tables: Vec<_> = rows.iter().map(tables::Table::read).collect();
            let any_zero = tables
                .iter()
                .any(|t| t.as_ref().is_ok_and(tables::Table::has_zero));
            tables
                .into_iter()
                .map(|table| tables::effect_size(measure, table?, options, any_zero))
                .collect()
        }
        Measure::Pr | Measure::Plo => {
            let counts: Vec<_> = rows.iter().map(proportions::Counts::read).collect();
            let any_zero = counts
                .iter()
                .any(|c| c.as_ref().is_ok_and(proportions::Counts::has_zero));
            counts
                .into_iter()
                .map(|c| proportions::effect_size(measure, c?, options, any_zero))
                .collect()
        }
    }
}

/// Whether a row's cells get `add`: `to` applied to whether its table (and any table of
/// the data) has a zero cell.
fn corrected(to: AddTo, has_zero: bool, any_zero: bool) -> bool {
    match to {
        AddTo::All => true,
        AddTo::Only0 => has_zero,
        AddTo::If0All => any_zero,
        AddTo::None => false,
    }
}

/// The result for one row: `yi` and `vi` finite and `vi > 0`, or an error naming `column`
/// (the column whose value made it undefined).
fn finish(yi: f64, vi: f64, column: Column, what: &str) -> Result<EffectSize, EffectSizeError> {
    if !yi.is_finite() {
        return Err(EffectSizeError::Undefined {
            column,
            reason: format!("the {what} is not finite (yi = {})", Shown(yi)),
        });
    }
    if !(vi.is_finite() && vi > 0.0) {
        return Err(EffectSizeError::Undefined {
            column,
            reason: format!(
                "the sampling variance of the {what} is {}, not a positive number",
                Shown(vi)
            ),
        });
    }
    Ok(EffectSize { yi, vi })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(values: &[(Column, f64)]) -> RawRow {
        let mut row = RawRow::default();
        for &(c, v) in values {
            row.set(c, v);
        }
        row
    }

    #[test]
    fn names_parse_back() {
        for m in Measure::ALL {
            assert_eq!(Measure::parse(m.name()), Some(m));
        }
        for c in Column::ALL {
            assert_eq!(Column::parse(c.name()), Some(c));
        }
        for t in AddTo::ALL {
            assert_eq!(AddTo::parse(t.name()), Some(t));
        }
        assert_eq!(Measure::parse("smd"), None);
    }

    #[test]
    fn a_negative_add_is_refused_for_every_row() {
        let r = row(&[(Column::Xi, 1.0), (Column::Ni, 10.0)]);
        let out = escalc(
            Measure::Pr,
            &[r.clone(), r],
            &EscalcOptions {
                add: -0.5,
                to: AddTo::All,
            },
        );
        assert!(out
            .iter()
            .all(|o| matches!(o, Err(EffectSizeError::InvalidAdd { .. }))));
    }

    #[test]
    fn if0all_corrects_every_row_when_one_has_a_zero() {
        let with_zero = row(&[
            (Column::Ai, 0.0),
            (Column::Bi, 10.0),
            (Column::Ci, 3.0),
            (Column::Di, 7.0),
        ]);
        let plain = row(&[
            (Column::Ai, 2.0),
            (Column::Bi, 8.0),
            (Column::Ci, 3.0),
            (Column::Di, 7.0),
        ]);
        let if0all = EscalcOptions {
            add: 0.5,
            to: AddTo::If0All,
        };
        let alone = escalc(Measure::Or, std::slice::from_ref(&plain), &if0all)[0]
            .clone()
            .unwrap();
        let together = escalc(Measure::Or, &[with_zero, plain], &if0all)[1]
            .clone()
            .unwrap();
        assert_eq!(alone.vi, 1.0 / 2.0 + 1.0 / 8.0 + 1.0 / 3.0 + 1.0 / 7.0);
        assert_eq!(together.vi, 1.0 / 2.5 + 1.0 / 8.5 + 1.0 / 3.5 + 1.0 / 7.5);
    }

    #[test]
    fn errors_name_their_column() {
        let e = escalc(
            Measure::Smd,
            &[row(&[(Column::M1i, 1.0)])],
            &EscalcOptions::default(),
        );
        let e = e[0].clone().unwrap_err();
        assert_eq!(e.column(), Some(Column::Sd1i));
        assert_eq!(
            e.to_string(),
            "sd1i is missing (standard deviation of group 1)"
        );
    }

    #[test]
    fn each_bad_row_names_its_column() {
        use Column::*;
        let means = |sd1: f64, n1: f64, m1: f64| {
            row(&[
                (M1i, m1),
                (Sd1i, sd1),
                (N1i, n1),
                (M2i, 1.0),
                (Sd2i, 1.0),
                (N2i, 5.0),
            ])
        };
        let cases: Vec<(Measure, RawRow, Column, &str)> = vec![
            (Measure::Md, row(&[(M1i, 1.0)]), Sd1i, "sd1i is missing"),
            (
                Measure::Md,
                means(-1.0, 5.0, 1.0),
                Sd1i,
                "cannot be negative",
            ),
            (
                Measure::Smd,
                means(1.0, 0.0, 1.0),
                N1i,
                "must be more than 0",
            ),
            (
                Measure::Md,
                means(f64::NAN, 5.0, 1.0),
                Sd1i,
                "not a finite number",
            ),
            (
                Measure::Rom,
                means(1.0, 5.0, -2.0),
                M1i,
                "both means greater than 0",
            ),
            (
                Measure::Smd,
                row(&[
                    (M1i, 1.0),
                    (Sd1i, 0.0),
                    (N1i, 3.0),
                    (M2i, 0.0),
                    (Sd2i, 0.0),
                    (N2i, 3.0),
                ]),
                Sd2i,
                "both 0",
            ),
            (
                Measure::Or,
                row(&[(Ai, 1.0), (Ci, 1.0), (Di, 1.0)]),
                Bi,
                "give bi",
            ),
            (
                Measure::Or,
                row(&[(Ai, 12.0), (N1i, 10.0), (Ci, 1.0), (Di, 1.0)]),
                Ai,
                "more than n1i = 10",
            ),
            (
                Measure::Rr,
                row(&[(Ai, -1.0), (Bi, 3.0), (Ci, 1.0), (Di, 1.0)]),
                Ai,
                "cannot be negative",
            ),
            (
                Measure::Rd,
                row(&[(Ai, 1.0), (Bi, 3.0), (N1i, 5.0), (Ci, 1.0), (Di, 1.0)]),
                N1i,
                "ai + bi = 4",
            ),
            (
                Measure::Or,
                row(&[(Ai, 0.0), (Bi, 0.0), (Ci, 1.0), (Di, 1.0)]),
                Bi,
                "a group with no one",
            ),
            (
                Measure::Cor,
                row(&[(Ri, 1.2), (Ni, 10.0)]),
                Ri,
                "must lie in [-1, 1]",
            ),
            (
                Measure::Zcor,
                row(&[(Ri, 0.2), (Ni, 3.0)]),
                Ni,
                "more than 3",
            ),
            (
                Measure::Zcor,
                row(&[(Ri, -1.0), (Ni, 30.0)]),
                Ri,
                "no finite Fisher's z",
            ),
            (
                Measure::Pr,
                row(&[(Xi, 11.0), (Ni, 10.0)]),
                Xi,
                "more than ni = 10",
            ),
            (Measure::Plo, row(&[(Xi, 1.0)]), Ni, "ni is missing"),
        ];
        for (measure, r, column, text) in cases {
            let e = escalc(measure, &[r], &EscalcOptions::default())[0]
                .clone()
                .unwrap_err();
            assert_eq!(e.column(), Some(column), "{measure}: {e}");
            assert!(e.to_string().contains(text), "{measure}: {e}");
        }
        let none = EscalcOptions {
            add: 0.5,
            to: AddTo::None,
        };
        let zero = row(&[(Ai, 0.0), (Bi, 10.0), (Ci, 2.0), (Di, 8.0)]);
        let e = escalc(Measure::Or, &[zero], &none)[0].clone().unwrap_err();
        assert_eq!(e.column(), Some(Ai));
        assert!(e.to_string().contains("no continuity correction"), "{e}");
    }
}
