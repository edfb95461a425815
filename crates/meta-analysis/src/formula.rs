//! Model formulas as metafor takes them (`mods = ~ x1 * x2 + factor(g) + I(x^2) - 1`):
//! parsed into R's terms, then coded into a design exactly as R's `model.matrix` codes them.
//!
//! The grammar (R's, restricted to what a meta-regression needs):
//!
//! ```text
//! formula  := '~'? sum
//! sum      := ['+'|'-'] product (('+'|'-') product)*     a - b removes b's terms
//! product  := inter ('*' inter)*                         a*b = a + b + a:b
//! inter    := power (':' power)*                         a:b, the interaction
//! power    := atom ('^' integer)?                        (a + b)^2 = a + b + a:b
//! atom     := '(' sum ')' | '1' | '0' | name | factor(name) | I(expr) | fn(expr)
//! expr     := R arithmetic: + - * / ^ (right-associative, above unary minus), parentheses,
//!             numbers, numeric columns, and the functions log, log10, exp, sqrt, abs
//! ```
//!
//! `1` and `0` stand alone in the outermost sum: `- 1` and `+ 0` drop the intercept. A name is
//! a column (backticks quote any other name: `` `dose mg` ``); a text column, or a column
//! inside `factor()`, is a factor.
//!
//! R's rules, followed exactly: the variables are numbered in the order they first appear;
//! terms keep the order in which R's expansion produces them, repeats dropped, then are
//! sorted (stably) by their number of variables; an interaction's variables are written in
//! variable order (`~ b:a + a` has the term `b:a`). A factor in a term is coded by treatment
//! contrasts (its levels after the first) when the term without it is empty or lies inside an
//! earlier term, else by one indicator per level; without an intercept the first factor of the
//! first term that has one gets indicators (R's `model.matrix`). Columns of a term are the
//! products of its variables' columns, the first variable varying fastest, named by joining
//! the variables' column names with `:` (`factor(g)B:x`). Names of numbers follow R's
//! `as.character` (15 significant digits, fixed or scientific notation, whichever is
//! narrower). Levels: numbers in numeric order; texts in the order of [`collate`].

use std::cmp::Ordering;

use crate::math::{exp, ln, log10, pow};
use crate::moderators::MAX_ABS_MODERATOR;
use crate::moderators::{Coding, ModeratorColumn, ModeratorValue, PredictionRows, Term};
use crate::moderators::{MAX_COEFFICIENTS, MAX_LEVELS};
use crate::MetaError;
use std::any::Any;
use std::sync::Arc;

/// The longest formula accepted, in bytes.
pub const MAX_FORMULA_LEN: usize = 2_000;
/// The most distinct variables (columns, `factor(...)`, `I(...)`) in one formula.
pub const MAX_FORMULA_VARIABLES: usize = 16;
/// The deepest nesting of parentheses and calls.
const MAX_DEPTH: usize = 40;
/// The most terms any part of a formula may expand to while it is read (`(a + b + c)^3` is
/// 7 terms). Each term of the finished formula makes at least one coefficient, so it keeps
/// at most [`MAX_COEFFICIENTS`] terms; a part may hold more only when a later `-` removes
/// them (`~ (a + b + c + d + e + f)^6 - (a + b + c + d + e + f)^3` passes through 63 and
/// keeps 22). 128 admits every interaction of 7 variables (127 terms). It bounds the work:
/// a product of two parts is at most 128² insertions, a power at most 7 such products, and
/// the 2,000 characters of a formula hold at most a few hundred of them (about 5·10⁷
/// insertions of one bit test each, a fraction of a second).
pub const MAX_FORMULA_TERMS: usize = 128;

/// A parsed one-sided model formula: its variables and R's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Formula {
    text: String,
    intercept: bool,
    variables: Vec<Variable>,
    /// Each term a set of variables (bit j = variable j), in R's order.
    terms: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq)]
struct Variable {
    /// The name R gives it (its deparsed expression): `x`, `factor(g)`, `I(x^2)`.
    label: String,
    kind: VarKind,
}

#[derive(Debug, Clone, PartialEq)]
enum VarKind {
    /// A bare column: numeric, or a factor when the column is text.
    Column(String),
    /// `factor(column)`.
    Factor(String),
    /// A numeric expression (`I(...)`, `log(x)`).
    Expr(Expr),
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Num(f64),
    Col(String),
    Neg(Box<Expr>),
    Pos(Box<Expr>),
    Bin(char, Box<Expr>, Box<Expr>),
    Paren(Box<Expr>),
    Call(&'static str, Box<Expr>),
}

const FUNCTIONS: [&str; 5] = ["log", "log10", "exp", "sqrt", "abs"];

impl Formula {
    /// Parses a one-sided formula such as `"~ x1 * x2 + factor(g) - 1"` (the `~` may be left
    /// out).
    pub fn parse(text: &str) -> Result<Formula, MetaError> {
        let mut parser = Parser::new(text)?;
        let (terms, intercept) = parser.formula()?;
        parser.finish(terms, intercept)
    }

    /// The list form: each item one term or sum of terms (`"factor(group)"`, `"year"`,
    /// `"x1:x2"`, `"I(x^2)"`), as if joined by `+` (with the intercept).
    pub fn from_terms<S: AsRef<str>>(items: &[S]) -> Result<Formula, MetaError> {
        let joined = items
            .iter()
            .map(|s| s.as_ref().trim())
            .collect::<Vec<_>>()
            .join(" + ");
        if items.is_empty() {
            return Err(formula_error("", "", "the list of terms is empty"));
        }
        for item in items {
            let item = item.as_ref().trim();
            if item.is_empty() || item.starts_with('~') {
                return Err(formula_error(
                    &joined,
                    item,
                    "each item of the list is one term such as \"year\" or \"factor(group)\" \
                     (a whole formula goes in a string of its own)",
                ));
            }
        }
        let text = format!("~ {joined}");
        Formula::parse(&text)
    }

    /// The formula as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the model has an intercept (no `- 1` or `+ 0`).
    pub fn has_intercept(&self) -> bool {
        self.intercept
    }

    /// R's term labels in order (`x`, `factor(g)`, `x:factor(g)`).
    pub fn term_labels(&self) -> Vec<String> {
        self.terms.iter().map(|&t| self.term_label(t)).collect()
    }

    /// The columns the formula reads, in the order they first appear.
    pub fn columns(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for v in &self.variables {
            let mut names = Vec::new();
            match &v.kind {
                VarKind::Column(c) | VarKind::Factor(c) => names.push(c.clone()),
                VarKind::Expr(e) => e.columns(&mut names),
            }
            for n in names {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }

    fn term_label(&self, t: u32) -> String {
        members(t)
            .map(|j| self.variables[j].label.as_str())
            .collect::<Vec<_>>()
            .join(":")
    }

    /// The design for `k` records, reading each column through `column` (`None`: no such
    /// column); `ids` names a record in errors.
    pub fn model_matrix(
        &self,
        column: &dyn Fn(&str) -> Option<ModeratorColumn>,
        ids: &dyn Fn(usize) -> String,
        k: usize,
    ) -> Result<ModelMatrix, MetaError> {
        Ok(ModelMatrix {
            coding: self.coding(column, ids, k)?,
        })
    }

    fn error(&self, offending: &str, reason: impl Into<String>) -> MetaError {
        formula_error(&self.text, offending, reason)
    }

    pub(crate) fn coding(
        &self,
        column: &dyn Fn(&str) -> Option<ModeratorColumn>,
        ids: &dyn Fn(usize) -> String,
        k: usize,
    ) -> Result<Coding, MetaError> {
        let data = self.read_columns(column, ids, k)?;
        let resolved = self.resolve(&data, ids, k)?;
        let codes = self.codes(&resolved);
        // The columns counted from the levels before any column is built: a design past the
        // cap is refused before memory proportional to k × p is taken.
        let p = self.capped_coefficient_count(&resolved, &codes)?;
        let (names, columns, intercept) = self.design_columns(&resolved, &codes, k)?;
        debug_assert_eq!(
            names.len() + usize::from(intercept),
            p,
            "counted before building"
        );
        let (prediction, rows) = self.prediction_rows(&data, &resolved, codes, intercept);
        Coding::from_columns(
            prediction,
            names,
            columns,
            intercept,
            k,
            Some(Arc::new(rows)),
        )
    }

    /// Each column the formula reads, read once through `column` and checked: present, one
    /// value per record (`k`), and (numbers) finite and in range.
    fn read_columns(
        &self,
        column: &dyn Fn(&str) -> Option<ModeratorColumn>,
        ids: &dyn Fn(usize) -> String,
        k: usize,
    ) -> Result<Vec<(String, ModeratorColumn)>, MetaError> {
        let mut data: Vec<(String, ModeratorColumn)> = Vec::new();
        for name in self.columns() {
            let Some(values) = column(&name) else {
                return Err(self.error(&name, format!("there is no column named {name:?}")));
            };
            let n = match &values {
                ModeratorColumn::Numeric(v) => v.len(),
                ModeratorColumn::Factor(v) => v.len(),
            };
            if n != k {
                return Err(self.error(
                    &name,
                    format!("the column {name:?} has {n} values for {k} records"),
                ));
            }
            if let ModeratorColumn::Numeric(v) = &values {
                check_numbers(&name, v, ids)?;
            }
            data.push((name, values));
        }
        Ok(data)
    }

    /// Each variable's values for the `k` records: a numeric column as it is, a text column or
    /// `factor(...)` as its levels, an expression (`I(...)`, `log(x)`) evaluated record by
    /// record on numeric columns and checked as a column of numbers.
    fn resolve(
        &self,
        data: &[(String, ModeratorColumn)],
        ids: &dyn Fn(usize) -> String,
        k: usize,
    ) -> Result<Vec<Resolved>, MetaError> {
        let get = |name: &str| &data.iter().find(|(n, _)| n == name).expect("read above").1;
        let mut resolved: Vec<Resolved> = Vec::with_capacity(self.variables.len());
        for v in &self.variables {
            crate::cancel::checkpoint()?;
            resolved.push(match &v.kind {
                VarKind::Column(c) => match get(c) {
                    ModeratorColumn::Numeric(x) => Resolved::Numeric(x.clone()),
                    ModeratorColumn::Factor(t) => self.factor(&v.label, c, Levels::texts(t))?,
                },
                VarKind::Factor(c) => match get(c) {
                    ModeratorColumn::Numeric(x) => self.factor(&v.label, c, Levels::numbers(x))?,
                    ModeratorColumn::Factor(t) => self.factor(&v.label, c, Levels::texts(t))?,
                },
                VarKind::Expr(e) => {
                    let mut out = Vec::with_capacity(k);
                    for i in 0..k {
                        let value = e.eval(&|name| match get(name) {
                            ModeratorColumn::Numeric(x) => Ok(x[i]),
                            ModeratorColumn::Factor(_) => Err(name.to_string()),
                        });
                        let value = value.map_err(|name| {
                            self.error(
                                &v.label,
                                format!(
                                    "{name} is a text column; arithmetic needs numbers (use \
                                     factor({name}) as a term of its own)"
                                ),
                            )
                        })?;
                        out.push(value);
                    }
                    check_numbers(&v.label, &out, ids)?;
                    Resolved::Numeric(out)
                }
            });
        }
        Ok(resolved)
    }

    /// [`Formula::coefficient_count`], refused (with each term's count) past
    /// `MAX_COEFFICIENTS`.
    fn capped_coefficient_count(
        &self,
        resolved: &[Resolved],
        codes: &[u32],
    ) -> Result<usize, MetaError> {
        let p = self.coefficient_count(resolved, codes);
        if p > MAX_COEFFICIENTS {
            return Err(self.error(
                &self.text,
                format!(
                    "the formula makes {p} coefficients ({}); at most {MAX_COEFFICIENTS} are \
                     accepted",
                    self.columns_per_term(resolved, codes)
                        .iter()
                        .map(|(label, n)| format!("{label}: {n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        Ok(p)
    }

    /// The columns of X without the intercept, their names, and whether the model has an
    /// intercept: metafor takes a column of ones in a model without intercept as the
    /// intercept. A design left with no coefficient besides the intercept is refused.
    fn design_columns(
        &self,
        resolved: &[Resolved],
        codes: &[u32],
        k: usize,
    ) -> Result<DesignColumns, MetaError> {
        let (names, mut columns) =
            build_columns(self, resolved, codes, k, &|var, i| match &resolved[var] {
                Resolved::Numeric(x) => Cell::Number(x[i]),
                Resolved::Factor { index, .. } => Cell::Level(index[i]),
            });
        let mut names = names;
        // metafor takes a column of ones (in a model without intercept) as the intercept.
        let mut intercept = self.intercept;
        if !intercept {
            if let Some(j) = columns.iter().position(|c| c.iter().all(|x| *x == 1.0)) {
                columns.remove(j);
                names.remove(j);
                intercept = true;
            }
        }
        if names.is_empty() {
            return Err(self.error(
                &self.text,
                if intercept {
                    "the formula has no moderator, only the intercept: leave the moderators \
                     out for the model without them"
                } else {
                    "the formula leaves no coefficient to estimate"
                },
            ));
        }
        Ok((names, columns, intercept))
    }

    /// What a prediction needs: the columns read as prediction terms (a text column with its
    /// sorted levels), and the formula's variables' kinds and levels without their values.
    fn prediction_rows(
        &self,
        data: &[(String, ModeratorColumn)],
        resolved: &[Resolved],
        codes: Vec<u32>,
        intercept: bool,
    ) -> (Vec<Term>, FormulaRows) {
        let prediction: Vec<Term> = data
            .iter()
            .map(|(name, values)| match values {
                ModeratorColumn::Numeric(_) => Term::Numeric { name: name.clone() },
                ModeratorColumn::Factor(t) => Term::Factor {
                    name: name.clone(),
                    levels: sorted_levels(t),
                },
            })
            .collect();
        let rows = FormulaRows {
            formula: self.clone(),
            resolved: resolved
                .iter()
                .map(|r| match r {
                    Resolved::Numeric(_) => Resolved::Numeric(Vec::new()),
                    Resolved::Factor { levels, .. } => Resolved::Factor {
                        levels: levels.clone(),
                        index: Vec::new(),
                    },
                })
                .collect(),
            codes,
            columns: data.iter().map(|(n, _)| n.clone()).collect(),
            intercept_column: intercept && !self.intercept,
        };
        (prediction, rows)
    }

    fn factor(&self, label: &str, column: &str, levels: Levels) -> Result<Resolved, MetaError> {
        let Levels { labels, index } = levels;
        if labels.len() < 2 {
            return Err(self.error(
                label,
                format!(
                    "the factor {label} has only one level ({}) among the records, so there is \
                     no difference between levels to estimate",
                    labels
                        .iter()
                        .map(|l| format!("{l:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if labels.len() > MAX_LEVELS {
            return Err(self.error(
                label,
                format!(
                    "the factor {label} (the column {column:?}) has {} levels; at most \
                     {MAX_LEVELS} are accepted",
                    labels.len()
                ),
            ));
        }
        Ok(Resolved::Factor {
            levels: labels,
            index,
        })
    }

    /// The number of coefficients the design has (the intercept's included), from the levels
    /// alone: a term's columns are the product of its variables' (a number 1, a factor its
    /// levels, or its levels after the first when coded by contrasts). Saturates rather than
    /// overflows. A column of ones taken as the intercept leaves the number as it is.
    fn coefficient_count(&self, resolved: &[Resolved], codes: &[u32]) -> usize {
        self.columns_per_term(resolved, codes)
            .iter()
            .fold(0, |p, (_, n)| p.saturating_add(*n))
    }

    /// Each term's label and number of columns ("intercept" first when there is one).
    fn columns_per_term(&self, resolved: &[Resolved], codes: &[u32]) -> Vec<(String, usize)> {
        let mut out = Vec::with_capacity(self.terms.len() + 1);
        if self.intercept {
            out.push(("intercept".to_string(), 1));
        }
        for (t, &term) in self.terms.iter().enumerate() {
            let n = members(term).fold(1usize, |n, j| match &resolved[j] {
                Resolved::Numeric(_) => n,
                Resolved::Factor { levels, .. } => {
                    let own = if codes[t] & (1 << j) != 0 {
                        levels.len()
                    } else {
                        levels.len() - 1
                    };
                    n.saturating_mul(own)
                }
            });
            out.push((self.term_label(term), n));
        }
        out
    }

    /// R's coding of each factor in each term: `codes[t]` has bit j set when variable j is a
    /// factor coded by indicators of all its levels in term t (else contrasts).
    fn codes(&self, resolved: &[Resolved]) -> Vec<u32> {
        let is_factor = |j: usize| matches!(resolved[j], Resolved::Factor { .. });
        let mut codes = vec![0u32; self.terms.len()];
        for (t, &term) in self.terms.iter().enumerate() {
            for j in members(term).filter(|&j| is_factor(j)) {
                let rest = term & !(1 << j);
                let contrasts =
                    rest == 0 || self.terms[..t].iter().any(|&earlier| rest & !earlier == 0);
                if !contrasts {
                    codes[t] |= 1 << j;
                }
            }
        }
        if !self.intercept {
            'first: for (t, &term) in self.terms.iter().enumerate() {
                if let Some(j) = members(term).find(|&j| is_factor(j)) {
                    codes[t] |= 1 << j;
                    break 'first;
                }
            }
        }
        codes
    }
}

/// A variable's values for the records: a number, or a factor's level (index into `levels`).
#[derive(Debug, Clone, PartialEq)]
enum Resolved {
    Numeric(Vec<f64>),
    Factor {
        levels: Vec<String>,
        index: Vec<usize>,
    },
}

enum Cell {
    Number(f64),
    Level(usize),
}

/// The columns of X without the intercept and their names, for `n` rows read through `cell`.
fn build_columns(
    formula: &Formula,
    resolved: &[Resolved],
    codes: &[u32],
    n: usize,
    cell: &dyn Fn(usize, usize) -> Cell,
) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut names = Vec::new();
    let mut columns = Vec::new();
    for (t, &term) in formula.terms.iter().enumerate() {
        // Start with one column of ones named by nothing; multiply each variable in.
        let mut parts: Vec<(Vec<String>, Vec<f64>)> = vec![(Vec::new(), vec![1.0; n])];
        for j in members(term) {
            let label = &formula.variables[j].label;
            // This variable's own columns: (name, which level or None for a number).
            let own: Vec<(String, Option<usize>)> = match &resolved[j] {
                Resolved::Numeric(_) => vec![(label.clone(), None)],
                Resolved::Factor { levels, .. } => {
                    let first = if codes[t] & (1 << j) != 0 { 0 } else { 1 };
                    (first..levels.len())
                        .map(|l| (format!("{label}{}", levels[l]), Some(l)))
                        .collect()
                }
            };
            // The earlier variables vary fastest.
            let mut next = Vec::with_capacity(parts.len() * own.len());
            for (name, level) in &own {
                for (prefix, values) in &parts {
                    let mut label = prefix.clone();
                    label.push(name.clone());
                    let col: Vec<f64> = (0..n)
                        .map(|i| {
                            let factor = match (cell(j, i), level) {
                                (Cell::Number(x), _) => x,
                                (Cell::Level(at), Some(l)) => f64::from(u8::from(at == *l)),
                                (Cell::Level(_), None) => 0.0,
                            };
                            values[i] * factor
                        })
                        .collect();
                    next.push((label, col));
                }
            }
            parts = next;
        }
        for (label, col) in parts {
            names.push(label.join(":"));
            columns.push(col);
        }
    }
    (names, columns)
}

/// The columns of X without the intercept, their names, and whether the model has an
/// intercept.
type DesignColumns = (Vec<String>, Vec<Vec<f64>>, bool);

/// A variable's cell at a prediction: a number, or the index of a factor's level.
type PredictionCell = (Option<f64>, Option<usize>);

/// What a formula design keeps to build the row of X at given column values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FormulaRows {
    formula: Formula,
    /// Each variable's kind and levels (no values).
    resolved: Vec<Resolved>,
    codes: Vec<u32>,
    /// The columns read, in the order of the prediction's values.
    columns: Vec<String>,
    /// A column of ones taken as the intercept (removed from the columns).
    intercept_column: bool,
}

impl PredictionRows for FormulaRows {
    fn row(&self, terms: &[Term], at: &[ModeratorValue]) -> Result<Vec<f64>, MetaError> {
        FormulaRows::row(self, terms, at)
    }

    fn same_as(&self, other: &dyn PredictionRows) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl FormulaRows {
    /// The row of X (intercept first when there is one) at one value per column, in the order
    /// of `terms` (the columns read).
    pub fn row(&self, terms: &[Term], at: &[ModeratorValue]) -> Result<Vec<f64>, MetaError> {
        check_prediction_values(terms, at)?;
        let cells = self.cells(at)?;
        let (_, mut columns) = build_columns(
            &self.formula,
            &self.resolved,
            &self.codes,
            1,
            &|j, _| match cells[j] {
                (Some(x), _) => Cell::Number(x),
                (None, l) => Cell::Level(l.unwrap_or(0)),
            },
        );
        if self.intercept_column {
            if let Some(j) = columns.iter().position(|c| c[0] == 1.0) {
                columns.remove(j);
            }
        }
        let intercept = self.formula.intercept || self.intercept_column;
        let mut row = Vec::with_capacity(columns.len() + 1);
        if intercept {
            row.push(1.0);
        }
        row.extend(columns.iter().map(|c| c[0]));
        Ok(row)
    }

    /// Each variable's cell at the prediction's values (one per column read): a number (a
    /// numeric column, or an expression evaluated and checked finite) or the index of a
    /// factor's level (a level not among the records' is refused).
    fn cells(&self, at: &[ModeratorValue]) -> Result<Vec<PredictionCell>, MetaError> {
        let value = |name: &str| -> Result<&ModeratorValue, MetaError> {
            let i = self
                .columns
                .iter()
                .position(|c| c == name)
                .expect("a column read");
            Ok(&at[i])
        };
        let mut cells: Vec<PredictionCell> = Vec::new();
        for (j, var) in self.formula.variables.iter().enumerate() {
            cells.push(match (&var.kind, &self.resolved[j]) {
                (VarKind::Expr(e), _) => {
                    let x = e
                        .eval(&|name| match value(name) {
                            Ok(ModeratorValue::Number(x)) => Ok(*x),
                            _ => Err(name.to_string()),
                        })
                        .map_err(|name| MetaError::Moderator {
                            reason: format!("{} needs a number for {name}", var.label),
                        })?;
                    if !x.is_finite() {
                        return Err(MetaError::Moderator {
                            reason: format!(
                                "{} is not a finite number at the prediction",
                                var.label
                            ),
                        });
                    }
                    (Some(x), None)
                }
                (VarKind::Column(c), Resolved::Numeric(_)) => match value(c)? {
                    ModeratorValue::Number(x) => (Some(*x), None),
                    ModeratorValue::Level(_) => unreachable!("checked above"),
                },
                (VarKind::Column(c) | VarKind::Factor(c), Resolved::Factor { levels, .. }) => {
                    let wanted = match value(c)? {
                        ModeratorValue::Level(l) => l.clone(),
                        ModeratorValue::Number(x) => r_number(*x),
                    };
                    let Some(l) = levels.iter().position(|l| *l == wanted) else {
                        return Err(MetaError::Moderator {
                            reason: format!(
                                "the prediction's {c} = {wanted} is not one of the levels of {} \
                                 ({})",
                                var.label,
                                levels.join(", ")
                            ),
                        });
                    };
                    (None, Some(l))
                }
                (VarKind::Factor(_), Resolved::Numeric(_)) => unreachable!("a factor"),
            });
        }
        Ok(cells)
    }
}

/// The prediction's values checked against the columns read (`terms`): a number for a numeric
/// column (finite, of magnitude at most `MAX_ABS_MODERATOR`), one of its levels for a text
/// column.
fn check_prediction_values(terms: &[Term], at: &[ModeratorValue]) -> Result<(), MetaError> {
    for (term, v) in terms.iter().zip(at) {
        match (term, v) {
            (Term::Numeric { name }, ModeratorValue::Number(x)) => {
                if !(x.is_finite() && x.abs() <= MAX_ABS_MODERATOR) {
                    return Err(MetaError::Moderator {
                        reason: format!(
                            "the prediction's {name} = {x} must be a finite number of \
                             magnitude at most {MAX_ABS_MODERATOR:e}"
                        ),
                    });
                }
            }
            (Term::Factor { name, levels }, ModeratorValue::Level(l)) => {
                if !levels.contains(l) {
                    return Err(MetaError::Moderator {
                        reason: format!(
                            "the prediction's {name} = {l:?} is not one of its levels ({})",
                            levels
                                .iter()
                                .map(|l| format!("{l:?}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    });
                }
            }
            (Term::Numeric { name }, ModeratorValue::Level(l)) => {
                return Err(MetaError::Moderator {
                    reason: format!(
                        "{name} is a numeric column, but the prediction gives it the text \
                         {l:?}"
                    ),
                })
            }
            (Term::Factor { name, .. }, ModeratorValue::Number(x)) => {
                return Err(MetaError::Moderator {
                    reason: format!(
                        "{name} is a text column, but the prediction gives it the number {x}"
                    ),
                })
            }
        }
    }
    Ok(())
}

/// A design built from a formula and the data's columns, ready for
/// [`crate::meta_regression_design`], [`crate::multilevel_design`] and the robust tests.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelMatrix {
    pub(crate) coding: Coding,
}

impl ModelMatrix {
    /// The coefficient names, intercept first when there is one.
    pub fn names(&self) -> &[String] {
        &self.coding.names
    }

    /// The columns dropped as aliased (see [`crate::moderators::ALIAS_TOL`]), in the design's
    /// order; empty for a design of full rank.
    pub fn dropped(&self) -> Vec<String> {
        self.coding.dropped.iter().map(|d| d.name.clone()).collect()
    }

    /// Whether the first coefficient is the intercept.
    pub fn has_intercept(&self) -> bool {
        self.coding.intercept
    }

    /// The number of records it was built for.
    pub fn k(&self) -> usize {
        self.coding.k()
    }

    /// The columns read, each as a numeric column or a factor with its levels: the values a
    /// prediction takes, in this order.
    pub fn terms(&self) -> &[Term] {
        &self.coding.terms
    }

    /// X's value for record `i` and coefficient `a`.
    pub fn value(&self, i: usize, a: usize) -> f64 {
        self.coding.value(i, a)
    }

    /// The design a list of named moderators makes (the intercept and each moderator's
    /// columns, a text moderator's levels in byte order, named `name:level`).
    pub fn from_moderators(
        moderators: &[crate::Moderator],
        ids: &dyn Fn(usize) -> String,
        k: usize,
    ) -> Result<ModelMatrix, MetaError> {
        Ok(ModelMatrix {
            coding: Coding::new(moderators, ids, k)?,
        })
    }
}

/// The levels of a column and each record's level.
struct Levels {
    labels: Vec<String>,
    index: Vec<usize>,
}

impl Levels {
    fn texts(values: &[String]) -> Levels {
        let labels = sorted_levels(values);
        let index = values
            .iter()
            .map(|v| labels.binary_search_by(|l| collate(l, v)).expect("a level"))
            .collect();
        Levels { labels, index }
    }

    /// R's `factor()` of numbers: the distinct values in numeric order, each level the value
    /// as `as.character` writes it ([`r_number`], 15 significant digits), so values that
    /// print alike are one level (`0.3` and `0.1 + 0.2` are the level "0.3"), as R's
    /// `levels <- unique(as.character(sort(unique(x))))` makes them.
    fn numbers(values: &[f64]) -> Levels {
        let mut distinct = values.to_vec();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        // Rounding to 15 digits never reverses an order, so values of one label are adjacent.
        let mut labels: Vec<String> = Vec::new();
        let mut level_of = Vec::with_capacity(distinct.len());
        for x in &distinct {
            let label = r_number(*x);
            if labels.last() != Some(&label) {
                labels.push(label);
            }
            level_of.push(labels.len() - 1);
        }
        let index = values
            .iter()
            .map(|v| {
                let at = distinct
                    .binary_search_by(|d| d.total_cmp(v))
                    .expect("a level");
                level_of[at]
            })
            .collect();
        Levels { labels, index }
    }
}

/// The distinct texts in the order R's `factor()` gives them (see [`collate`]).
pub fn sorted_levels(values: &[String]) -> Vec<String> {
    let mut levels: Vec<&str> = values.iter().map(String::as_str).collect();
    levels.sort_unstable_by(|a, b| collate(a, b));
    levels.dedup();
    levels.into_iter().map(str::to_string).collect()
}

/// R's order of texts in its default UTF-8 locale on this platform (ICU's root collation, as
/// `sort()` and `factor()` use it), for ASCII: characters compare first by their base
/// weight, white space < punctuation and symbols (in the order
/// `` _-,;:!?.'"()[]{}@*/\&#%`^+<=>|~$ ``) < digits < letters, a letter's case ignored
/// (`a` = `A`, so `"apple" < "Banana" < "cherry"`), one character at a time (`"z10" <
/// "z2"`); texts equal so far are ordered by case, lower case first (`"a" < "A"`). Other
/// characters come after all of ASCII, by code point (where ICU would place `é` beside
/// `e`); texts equal in every weight keep byte order.
pub fn collate(a: &str, b: &str) -> Ordering {
    let primary = |s: &str| s.chars().map(primary_weight).collect::<Vec<u32>>();
    let tertiary = |s: &str| {
        s.chars()
            .map(|c| u8::from(c.is_ascii_uppercase()))
            .collect::<Vec<u8>>()
    };
    primary(a)
        .cmp(&primary(b))
        .then_with(|| tertiary(a).cmp(&tertiary(b)))
        .then_with(|| a.cmp(b))
}

/// ASCII in R's (ICU root) order, letters folded to one weight.
const ASCII_ORDER: &str = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz";

fn primary_weight(c: char) -> u32 {
    let folded = c.to_ascii_lowercase();
    match ASCII_ORDER.find(folded) {
        Some(i) if c.is_ascii() => i as u32 + 1,
        // Control characters first (ICU ignores them), the rest after ASCII.
        _ if c.is_ascii() => 0,
        _ => 200 + c as u32,
    }
}

/// A number as R's `as.character` (and `deparse`) writes it: at most 15 significant digits,
/// in fixed notation unless scientific is narrower (`1e+05`, `123456`, `1e-04`, `0.001`).
pub fn r_number(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let sci = format!("{:.14e}", x);
    let (mantissa, exponent) = sci.split_once('e').expect("scientific notation");
    let e: i32 = exponent.parse().expect("an exponent");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let nsig = digits.trim_end_matches('0').len().max(1);
    let neg = usize::from(x < 0.0);
    let rgt = if e >= 0 {
        (nsig as i32 - 1 - e).max(0) as usize
    } else {
        (nsig as i32 - 1 - e) as usize
    };
    let left = if e >= 0 { e as usize + 1 } else { 1 };
    let fixed_width = neg + left + if rgt > 0 { rgt + 1 } else { 0 };
    let exp_digits = if e.abs() >= 100 { 3 } else { 2 };
    let sci_width = neg + if nsig > 1 { nsig + 1 } else { 1 } + 2 + exp_digits;
    if fixed_width <= sci_width {
        format!("{:.*}", rgt, x)
    } else {
        let m = format!("{:.*e}", nsig - 1, x);
        let (m, _) = m.split_once('e').expect("scientific notation");
        format!(
            "{m}e{}{:0width$}",
            if e < 0 { '-' } else { '+' },
            e.abs(),
            width = exp_digits
        )
    }
}

fn check_numbers(
    name: &str,
    values: &[f64],
    ids: &dyn Fn(usize) -> String,
) -> Result<(), MetaError> {
    if let Some(i) = values
        .iter()
        .position(|x| !(x.is_finite() && x.abs() <= MAX_ABS_MODERATOR))
    {
        return Err(MetaError::Moderator {
            reason: format!(
                "record {:?} has {name} = {}; a numeric moderator must be a finite number of \
                 magnitude at most {MAX_ABS_MODERATOR:e}",
                ids(i),
                values[i]
            ),
        });
    }
    Ok(())
}

fn members(term: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |j| term & (1 << j) != 0)
}

fn formula_error(formula: &str, offending: &str, reason: impl Into<String>) -> MetaError {
    MetaError::Formula {
        formula: formula.to_string(),
        offending: offending.to_string(),
        reason: reason.into(),
    }
}

impl Expr {
    fn deparse(&self) -> String {
        match self {
            Expr::Num(x) => r_number(*x),
            Expr::Col(name) => quote_name(name),
            Expr::Neg(e) => format!("-{}", e.deparse()),
            Expr::Pos(e) => format!("+{}", e.deparse()),
            Expr::Bin(op @ ('+' | '-' | '*'), a, b) => {
                format!("{} {op} {}", a.deparse(), b.deparse())
            }
            Expr::Bin(op, a, b) => format!("{}{op}{}", a.deparse(), b.deparse()),
            Expr::Paren(e) => format!("({})", e.deparse()),
            Expr::Call(f, e) => format!("{f}({})", e.deparse()),
        }
    }

    fn columns(&self, out: &mut Vec<String>) {
        match self {
            Expr::Num(_) => {}
            Expr::Col(c) => {
                if !out.contains(c) {
                    out.push(c.clone())
                }
            }
            Expr::Neg(e) | Expr::Pos(e) | Expr::Paren(e) | Expr::Call(_, e) => e.columns(out),
            Expr::Bin(_, a, b) => {
                a.columns(out);
                b.columns(out);
            }
        }
    }

    /// The value, reading columns through `col` (an `Err` names a column that is not numeric).
    fn eval(&self, col: &dyn Fn(&str) -> Result<f64, String>) -> Result<f64, String> {
        Ok(match self {
            Expr::Num(x) => *x,
            Expr::Col(c) => col(c)?,
            Expr::Neg(e) => -e.eval(col)?,
            Expr::Pos(e) | Expr::Paren(e) => e.eval(col)?,
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(col)?, b.eval(col)?);
                match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    '/' => a / b,
                    _ => r_pow(a, b),
                }
            }
            Expr::Call(f, e) => {
                let x = e.eval(col)?;
                match *f {
                    "log" => ln(x),
                    "log10" => log10(x),
                    "exp" => exp(x),
                    "sqrt" => x.sqrt(),
                    _ => x.abs(),
                }
            }
        })
    }
}

/// R's `^`: x^2 is x·x exactly (R computes integer powers by multiplication), else pow.
fn r_pow(x: f64, y: f64) -> f64 {
    if y == 2.0 {
        x * x
    } else if y == 1.0 {
        x
    } else if y == 0.0 {
        1.0
    } else {
        pow(x, y)
    }
}

/// A column name as R writes it: backticks unless it is a syntactic name.
fn quote_name(name: &str) -> String {
    let syntactic = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
        && !(name.starts_with('.') && name[1..].starts_with(|c: char| c.is_ascii_digit()));
    if syntactic {
        name.to_string()
    } else {
        format!("`{name}`")
    }
}

// ---- the parser ----

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Num(f64),
    Op(char),
}

struct Parser {
    text: String,
    toks: Vec<(Tok, usize, usize)>,
    pos: usize,
    depth: usize,
    variables: Vec<Variable>,
    intercept: bool,
}

impl Parser {
    fn new(text: &str) -> Result<Parser, MetaError> {
        if text.len() > MAX_FORMULA_LEN {
            return Err(formula_error(
                &text[..text.floor_char_boundary(60)],
                "",
                format!("the formula is longer than {MAX_FORMULA_LEN} characters"),
            ));
        }
        let mut toks = Vec::new();
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = text[i..].chars().next().expect("in range");
            if c.is_whitespace() {
                i += c.len_utf8();
                continue;
            }
            let start = i;
            if c == '`' {
                let Some(end) = text[i + 1..].find('`') else {
                    return Err(formula_error(
                        text,
                        &text[i..],
                        "a backtick is never closed",
                    ));
                };
                let name = &text[i + 1..i + 1 + end];
                if name.is_empty() {
                    return Err(formula_error(text, "``", "an empty name"));
                }
                toks.push((Tok::Name(name.to_string()), start, i + end + 2));
                i += end + 2;
            } else if c.is_ascii_digit()
                || (c == '.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
            {
                let mut j = i;
                while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b'.') {
                    j += 1;
                }
                if j < bytes.len() && (bytes[j] == b'e' || bytes[j] == b'E') {
                    let mut m = j + 1;
                    if m < bytes.len() && (bytes[m] == b'+' || bytes[m] == b'-') {
                        m += 1;
                    }
                    if m < bytes.len() && bytes[m].is_ascii_digit() {
                        j = m;
                        while j < bytes.len() && bytes[j].is_ascii_digit() {
                            j += 1;
                        }
                    }
                }
                let Ok(x) = text[i..j].parse::<f64>() else {
                    return Err(formula_error(text, &text[i..j], "not a number"));
                };
                toks.push((Tok::Num(x), start, j));
                i = j;
            } else if c.is_alphabetic() || c == '.' || c == '_' {
                let mut j = i;
                for ch in text[i..].chars() {
                    if ch.is_alphanumeric() || ch == '.' || ch == '_' {
                        j += ch.len_utf8();
                    } else {
                        break;
                    }
                }
                toks.push((Tok::Name(text[i..j].to_string()), start, j));
                i = j;
            } else if "~+-*/:^(),%|".contains(c) {
                toks.push((Tok::Op(c), start, i + 1));
                i += 1;
            } else {
                return Err(formula_error(
                    text,
                    &text[i..i + c.len_utf8()],
                    format!("the character {c:?} has no meaning in a formula"),
                ));
            }
        }
        Ok(Parser {
            text: text.to_string(),
            toks,
            pos: 0,
            depth: 0,
            variables: Vec::new(),
            intercept: true,
        })
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn is_op(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Op(c))
    }

    /// The text from the current token on (or "the end").
    fn here(&self) -> String {
        match self.toks.get(self.pos) {
            Some(&(_, start, _)) => {
                let rest = &self.text[start..];
                rest[..rest.floor_char_boundary(24)].to_string()
            }
            None => String::new(),
        }
    }

    fn fail(&self, reason: impl Into<String>) -> MetaError {
        let here = self.here();
        let reason = reason.into();
        if here.is_empty() {
            formula_error(
                &self.text,
                "",
                format!("{reason}, at the end of the formula"),
            )
        } else {
            formula_error(&self.text, &here, reason)
        }
    }

    fn formula(&mut self) -> Result<(Terms, bool), MetaError> {
        if self.is_op('~') {
            self.pos += 1;
        }
        if self.peek().is_none() {
            return Err(self.fail("the formula has no terms (write for example \"~ x1 + x2\")"));
        }
        let terms = self.sum(true)?;
        if self.pos < self.toks.len() {
            let reason = match self.peek() {
                Some(Tok::Op(')')) => "a closing parenthesis without its opening one".to_string(),
                Some(Tok::Op('~')) => "a formula has one ~, at its start (metafor's mods \
                                       formula has no left-hand side)"
                    .to_string(),
                _ => "an operator (+, -, *, :) was expected here".to_string(),
            };
            return Err(self.fail(reason));
        }
        Ok((terms, self.intercept))
    }

    fn finish(self, terms: Terms, intercept: bool) -> Result<Formula, MetaError> {
        let mut terms: Vec<u32> = terms.order.into_iter().filter(|t| *t != 0).collect();
        // Each term makes at least one column (a number one, a factor at least one contrast),
        // so the coefficients are at least the terms and the intercept: refuse before coding.
        let p = terms.len() + usize::from(intercept);
        if p > MAX_COEFFICIENTS {
            return Err(formula_error(
                &self.text,
                &self.text,
                format!(
                    "the formula has {} terms, so at least {p} coefficients{}; at most \
                     {MAX_COEFFICIENTS} coefficients are accepted",
                    terms.len(),
                    if intercept { " with the intercept" } else { "" }
                ),
            ));
        }
        // Stable sort by the number of variables (R's keep.order = FALSE).
        terms.sort_by_key(|t| t.count_ones());
        Ok(Formula {
            text: self.text,
            intercept,
            variables: self.variables,
            terms,
        })
    }

    fn enter(&mut self) -> Result<(), MetaError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.fail(format!("the formula nests deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn sum(&mut self, outermost: bool) -> Result<Terms, MetaError> {
        self.enter()?;
        let mut terms = Terms::default();
        let mut first = true;
        loop {
            let minus = if self.is_op('+') || self.is_op('-') {
                let m = self.is_op('-');
                self.pos += 1;
                m
            } else if first {
                false
            } else {
                break;
            };
            first = false;
            // 1 and 0 as terms of their own.
            if let Some(Tok::Num(x)) = self.peek().cloned() {
                let ends = matches!(
                    self.toks.get(self.pos + 1).map(|t| &t.0),
                    None | Some(Tok::Op('+' | '-' | ')'))
                );
                if (x == 1.0 || x == 0.0) && ends {
                    if !outermost {
                        return Err(self.fail(
                            "1 and 0 (the intercept) stand alone in the formula's outermost sum",
                        ));
                    }
                    self.intercept = (x == 1.0) != minus;
                    self.pos += 1;
                    continue;
                }
            }
            let right = self.product()?;
            if minus {
                terms.remove_all(&right);
            } else {
                for &t in &right.order {
                    self.add(&mut terms, t)?;
                }
            }
        }
        self.depth -= 1;
        Ok(terms)
    }

    fn product(&mut self) -> Result<Terms, MetaError> {
        let mut left = self.interaction()?;
        loop {
            if self.is_op('*') {
                self.pos += 1;
                let right = self.interaction()?;
                let mut all = left.clone();
                for &t in &right.order {
                    self.add(&mut all, t)?;
                }
                for &l in &left.order {
                    for &r in &right.order {
                        self.add(&mut all, l | r)?;
                    }
                }
                left = all;
            } else if self.is_op('/') || self.is_op('%') || self.is_op('|') {
                return Err(self.fail(
                    "nesting (/ and %in%) and | are not supported; write the terms with : and *",
                ));
            } else {
                return Ok(left);
            }
        }
    }

    fn interaction(&mut self) -> Result<Terms, MetaError> {
        let mut left = self.power()?;
        while self.is_op(':') {
            self.pos += 1;
            let right = self.power()?;
            let mut all = Terms::default();
            for &l in &left.order {
                for &r in &right.order {
                    self.add(&mut all, l | r)?;
                }
            }
            left = all;
        }
        Ok(left)
    }

    fn power(&mut self) -> Result<Terms, MetaError> {
        let base = self.atom()?;
        if !self.is_op('^') {
            return Ok(base);
        }
        self.pos += 1;
        let n = match self.peek() {
            Some(&Tok::Num(x)) if x >= 1.0 && x.fract() == 0.0 && x <= 8.0 => x as usize,
            _ => {
                return Err(self.fail(
                    "in a formula, ^ raises a sum of terms to a whole power from 1 to 8 \
                     ((a + b)^2 = a + b + a:b); for the square of a number write I(x^2)",
                ))
            }
        };
        self.pos += 1;
        let mut out = base.clone();
        for _ in 1..n {
            let mut next = Terms::default();
            for &l in &base.order {
                for &r in &out.order {
                    self.add(&mut next, l | r)?;
                }
            }
            out = next;
        }
        Ok(out)
    }

    fn atom(&mut self) -> Result<Terms, MetaError> {
        let Some((tok, start, _)) = self.toks.get(self.pos).cloned() else {
            return Err(self.fail("a term was expected"));
        };
        match tok {
            Tok::Op('(') => {
                self.pos += 1;
                let terms = self.sum(false)?;
                if !self.is_op(')') {
                    return Err(self.fail("a closing parenthesis was expected"));
                }
                self.pos += 1;
                Ok(terms)
            }
            Tok::Num(_) => Err(self.fail(
                "a number is a term only as 1 or 0 (the intercept); arithmetic goes inside I(), \
                 as in I(2 * x)",
            )),
            Tok::Name(name) => {
                self.pos += 1;
                if !self.is_op('(') {
                    return self.variable(&quote_name(&name), VarKind::Column(name));
                }
                self.pos += 1;
                self.enter()?;
                let var = match name.as_str() {
                    "factor" | "as.factor" => {
                        let column = match self.peek().cloned() {
                            Some(Tok::Name(c))
                                if self.toks.get(self.pos + 1).map(|t| &t.0)
                                    == Some(&Tok::Op(')')) =>
                            {
                                c
                            }
                            _ => {
                                return Err(self
                                    .fail("factor() takes one column name, as in factor(group)"))
                            }
                        };
                        self.pos += 1;
                        (
                            format!("{name}({})", quote_name(&column)),
                            VarKind::Factor(column),
                        )
                    }
                    "I" => {
                        let e = self.expr()?;
                        (format!("I({})", e.deparse()), VarKind::Expr(e))
                    }
                    f => {
                        let Some(&f) = FUNCTIONS.iter().find(|g| **g == f) else {
                            self.pos -= 2;
                            return Err(self.fail(format!(
                                "the function {name}() is not supported; a term may use \
                                 factor(), I() and {}",
                                FUNCTIONS.map(|f| format!("{f}()")).join(", ")
                            )));
                        };
                        let e = Expr::Call(f, Box::new(self.expr()?));
                        (e.deparse(), VarKind::Expr(e))
                    }
                };
                if !self.is_op(')') {
                    return Err(self.fail("a closing parenthesis was expected"));
                }
                self.pos += 1;
                self.depth -= 1;
                let _ = start;
                self.variable(&var.0, var.1)
            }
            Tok::Op(c) => Err(self.fail(format!("{c} cannot start a term"))),
        }
    }

    fn variable(&mut self, label: &str, kind: VarKind) -> Result<Terms, MetaError> {
        let j = match self.variables.iter().position(|v| v.label == label) {
            Some(j) => j,
            None => {
                if self.variables.len() >= MAX_FORMULA_VARIABLES {
                    return Err(self.fail(format!(
                        "the formula uses more than {MAX_FORMULA_VARIABLES} variables"
                    )));
                }
                self.variables.push(Variable {
                    label: label.to_string(),
                    kind,
                });
                self.variables.len() - 1
            }
        };
        let mut terms = Terms::default();
        terms.insert(1 << j);
        Ok(terms)
    }

    /// Adds `t` to `terms` unless it is there, refusing a part past [`MAX_FORMULA_TERMS`]
    /// before it grows further.
    fn add(&self, terms: &mut Terms, t: u32) -> Result<(), MetaError> {
        if terms.insert(t) && terms.order.len() > MAX_FORMULA_TERMS {
            return Err(formula_error(
                &self.text,
                &self.text,
                format!(
                    "the formula expands to more than {MAX_FORMULA_TERMS} terms (each term is \
                     at least one coefficient, and at most {MAX_COEFFICIENTS} coefficients are \
                     accepted); interact fewer variables (a ^ or * of long sums multiplies \
                     their terms)"
                ),
            ));
        }
        Ok(())
    }

    // Arithmetic inside I() and functions, with R's precedence.
    fn expr(&mut self) -> Result<Expr, MetaError> {
        self.enter()?;
        let mut left = self.mul()?;
        while self.is_op('+') || self.is_op('-') {
            let op = if self.is_op('+') { '+' } else { '-' };
            self.pos += 1;
            left = Expr::Bin(op, Box::new(left), Box::new(self.mul()?));
        }
        self.depth -= 1;
        Ok(left)
    }

    fn mul(&mut self) -> Result<Expr, MetaError> {
        let mut left = self.unary()?;
        while self.is_op('*') || self.is_op('/') {
            let op = if self.is_op('*') { '*' } else { '/' };
            self.pos += 1;
            left = Expr::Bin(op, Box::new(left), Box::new(self.unary()?));
        }
        if self.is_op(':') || self.is_op('%') {
            return Err(self.fail("inside I() only + - * / ^ and parentheses are arithmetic"));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, MetaError> {
        if self.is_op('-') || self.is_op('+') {
            let minus = self.is_op('-');
            self.pos += 1;
            self.enter()?;
            let e = Box::new(self.unary()?);
            self.depth -= 1;
            return Ok(if minus { Expr::Neg(e) } else { Expr::Pos(e) });
        }
        let base = self.primary()?;
        if self.is_op('^') {
            self.pos += 1;
            // The exponent may carry a sign (a^-1) and is right-associative.
            let exponent = self.unary()?;
            return Ok(Expr::Bin('^', Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Expr, MetaError> {
        match self.peek().cloned() {
            Some(Tok::Num(x)) => {
                self.pos += 1;
                Ok(Expr::Num(x))
            }
            Some(Tok::Op('(')) => {
                self.pos += 1;
                let e = self.expr()?;
                if !self.is_op(')') {
                    return Err(self.fail("a closing parenthesis was expected"));
                }
                self.pos += 1;
                Ok(Expr::Paren(Box::new(e)))
            }
            Some(Tok::Name(name)) => {
                self.pos += 1;
                if !self.is_op('(') {
                    return Ok(Expr::Col(name));
                }
                let Some(&f) = FUNCTIONS.iter().find(|g| **g == name) else {
                    self.pos -= 1;
                    return Err(self.fail(format!(
                        "the function {name}() is not supported inside I(); use + - * / ^ and {}",
                        FUNCTIONS.map(|f| format!("{f}()")).join(", ")
                    )));
                };
                self.pos += 1;
                let e = self.expr()?;
                if !self.is_op(')') {
                    return Err(self.fail("a closing parenthesis was expected"));
                }
                self.pos += 1;
                Ok(Expr::Call(f, Box::new(e)))
            }
            _ => Err(self.fail("a number, a column or ( was expected")),
        }
    }
}

/// A set of terms in the order R's expansion makes them: each term a set of variables (bit j
/// = variable j, at most [`MAX_FORMULA_VARIABLES`] of them), so membership is one bit of a
/// bitset over the 2¹⁶ possible terms, not a search of the list.
#[derive(Debug, Clone, Default)]
struct Terms {
    order: Vec<u32>,
    /// Bit t set when term t is in `order` (grown as larger terms arrive).
    present: Vec<u64>,
}

impl Terms {
    fn contains(&self, t: u32) -> bool {
        let (word, bit) = (t as usize / 64, t % 64);
        self.present.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }

    /// Adds `t` at the end unless it is there; whether it was added.
    fn insert(&mut self, t: u32) -> bool {
        if self.contains(t) {
            return false;
        }
        let (word, bit) = (t as usize / 64, t % 64);
        if self.present.len() <= word {
            self.present.resize(word + 1, 0);
        }
        self.present[word] |= 1 << bit;
        self.order.push(t);
        true
    }

    /// Removes every term of `other` (R's `a - b`).
    fn remove_all(&mut self, other: &Terms) {
        self.order.retain(|&t| !other.contains(t));
        for &t in &other.order {
            if let Some(w) = self.present.get_mut(t as usize / 64) {
                *w &= !(1 << (t % 64));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str) -> Vec<String> {
        Formula::parse(text).unwrap().term_labels()
    }

    #[test]
    fn terms_follow_r() {
        assert_eq!(labels("~ b:a + a"), ["a", "b:a"]);
        assert_eq!(labels("~ a*f"), ["a", "f", "a:f"]);
        assert_eq!(
            labels("~ (a + b + f)^2"),
            ["a", "b", "f", "a:b", "a:f", "b:f"]
        );
        assert_eq!(labels("~ a + b - a"), ["b"]);
        assert_eq!(labels("~ a + a:a + a"), ["a"]);
        assert_eq!(
            labels(
                "~ I(a^2) + I(a*2) + I(a-1) + I(a/2) + I(-a) + I((a+1)^2) + I(2.0*a) + I(1e5*a)"
            ),
            [
                "I(a^2)",
                "I(a * 2)",
                "I(a - 1)",
                "I(a/2)",
                "I(-a)",
                "I((a + 1)^2)",
                "I(2 * a)",
                "I(1e+05 * a)"
            ]
        );
        assert_eq!(
            labels("~ I(a^-1) + log(a) + `dose mg`"),
            ["I(a^-1)", "log(a)", "`dose mg`"]
        );
        assert!(!Formula::parse("~ a - 1").unwrap().has_intercept());
        assert!(!Formula::parse("~ 0 + a").unwrap().has_intercept());
        assert!(Formula::parse("~ a + 0 + 1").unwrap().has_intercept());
        assert!(Formula::parse("a").unwrap().has_intercept());
    }

    #[test]
    fn errors_point_at_the_text() {
        for (text, at) in [
            ("~ a + * b", "* b"),
            ("~ a + (b", ""),
            ("~ a b", "b"),
            ("~ f(x)", "f(x)"),
            ("~ a / b", "/ b"),
            ("~ a + 2", "2"),
            ("~ I(a:b)", ":b)"),
            ("~ a $ b", "$"),
        ] {
            let e = Formula::parse(text).unwrap_err();
            match &e {
                MetaError::Formula { offending, .. } => assert_eq!(offending, at, "{text}: {e}"),
                _ => panic!("{e:?}"),
            }
            assert!(e.to_string().contains(text), "{e}");
        }
        let deep = format!("~ {}a{}", "(".repeat(100), ")".repeat(100));
        assert!(Formula::parse(&deep)
            .unwrap_err()
            .to_string()
            .contains("nests deeper"));
    }

    #[test]
    fn numbers_are_written_as_r_writes_them() {
        for (x, s) in [
            (1.0, "1"),
            (0.1, "0.1"),
            (1e5, "1e+05"),
            (123456.0, "123456"),
            (1e-5, "1e-05"),
            (1.0 / 3.0, "0.333333333333333"),
            (2f64.powi(60), "1152921504606846976"),
            (100.0, "100"),
            (1e15, "1e+15"),
            (0.0001, "1e-04"),
            (1234567.1, "1234567.1"),
            (-2.5, "-2.5"),
            (0.001, "0.001"),
        ] {
            assert_eq!(r_number(x), s);
        }
    }

    #[test]
    fn texts_sort_as_r_sorts_them() {
        let mut v: Vec<String> = ["b", "B", "a", "A", "_x", "Z1", "z10", "z2", "é"]
            .map(String::from)
            .to_vec();
        v.sort_by(|a, b| collate(a, b));
        assert_eq!(v, ["_x", "a", "A", "b", "B", "Z1", "z10", "z2", "é"]);
        // Printable ASCII as R 4.x sorts it here (Rscript -e 'cat(sort(strsplit(
        // rawToChar(as.raw(32:126)), "")[[1]]), sep = "")').
        let r = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ";
        let mut ascii: Vec<String> = (32u8..127).map(|b| (b as char).to_string()).collect();
        ascii.sort_by(|a, b| collate(a, b));
        assert_eq!(ascii.concat(), r);
    }

    #[test]
    fn the_list_form_is_the_sum_of_its_items() {
        let f = Formula::from_terms(&["factor(group)", "year", "x1:x2", "I(x^2)"]).unwrap();
        assert_eq!(
            f.term_labels(),
            ["factor(group)", "year", "I(x^2)", "x1:x2"]
        );
        assert!(f.has_intercept());
        assert_eq!(f.columns(), ["group", "year", "x1", "x2", "x"]);
        let e = Formula::from_terms(&["year", "~ x"]).unwrap_err();
        assert!(e.to_string().contains("one term"), "{e}");
    }
}
