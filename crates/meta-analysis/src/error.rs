//! Every way an analysis can refuse its input, with a message a person understands.

use std::fmt;

/// Why an analysis could not be carried out.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaError {
    /// Fewer records than the analysis needs.
    TooFewRecords {
        needed: usize,
        got: usize,
        analysis: &'static str,
    },
    /// More records than the engine accepts.
    TooManyRecords { max: usize, got: usize },
    /// A record's id is empty (or only white space).
    EmptyId { index: usize },
    /// Two records share an id.
    DuplicateId { id: String },
    /// `yi` or `vi` is NaN or infinite.
    NonFinite { id: String, field: &'static str },
    /// `vi` is zero or negative.
    NonPositiveVariance { id: String, vi: f64 },
    /// `yi` or `vi` is finite but outside the range in which every sum the engine forms is
    /// finite (see [`crate::MAX_ABS_YI`], [`crate::MIN_VI`], [`crate::MAX_VI`]).
    OutOfRange {
        id: String,
        field: &'static str,
        value: f64,
    },
    /// An id to exclude is not among the records.
    UnknownId { id: String },
    /// The exclusion list would leave too few records.
    ExcludesTooMany {
        excluded: usize,
        k: usize,
        needed: usize,
    },
    /// The confidence level is not strictly between 0 and 1.
    InvalidLevel { level: f64 },
    /// The confidence level is below 1 but so close to it that (1 + level)/2 rounds to 1 in
    /// double precision, so the critical value of the interval is infinite.
    LevelTooCloseToOne { level: f64 },
    /// The test is not defined for this input (for example all √vi equal in Egger's test).
    Undefined { reason: String },
    /// An iterative estimator reached its iteration limit before its tolerance.
    NotConverged {
        method: &'static str,
        iterations: usize,
    },
    /// A likelihood maximization could not take a step at all (not an iteration limit): at
    /// `sigma2` its curvature gave no direction of increase, or no step along its direction
    /// (halved 60 times) raised the likelihood.
    NoAscentStep {
        method: &'static str,
        iteration: usize,
        sigma2: [f64; 2],
        cause: &'static str,
    },
    /// An iterative estimator's equation has the same sign at τ² = 0 and at the largest τ²
    /// tried, so no root was searched for.
    NoBracket { method: &'static str, upper: f64 },
    /// An iterative estimator's equation evaluated to NaN or ±∞ at `tau2` (an overflow, or
    /// cancellation that left no digits).
    NonFiniteEquation { method: &'static str, tau2: f64 },
    /// An iterative procedure that is not a root search (trim-and-fill's estimate of the
    /// number of missing records) kept changing until its iteration limit.
    NoFixedPoint {
        analysis: &'static str,
        iterations: usize,
    },
    /// A reported (or a needed intermediate) quantity came out NaN or infinite: a sum
    /// overflowed, weights underflowed to 0, or cancellation left no digits (records whose
    /// variances span many orders of magnitude). The result is refused, never returned with
    /// a hole.
    NonFiniteResult { quantity: &'static str },
    /// A moderator, or a value given for one, cannot be used (too many, repeated, a value
    /// out of range, an unknown level, a factor with one level …).
    Moderator { reason: String },
    /// A model formula (or one of its terms) cannot be read or used: `offending` is the
    /// part of `formula` at fault (empty at its end).
    Formula {
        formula: String,
        offending: String,
        reason: String,
    },
    /// A selection of coefficients (`btt`) names none, or one that does not exist.
    Coefficients { reason: String },
    /// A meta-regression needs more records than coefficients.
    TooFewForCoefficients { k: usize, names: Vec<String> },
    /// The design matrix is rank-deficient: `column` is a linear combination of the
    /// columns `combination_of` (a constant column: of the intercept alone).
    RankDeficient {
        column: String,
        combination_of: Vec<String>,
    },
    /// The caller gave the computation up (its [`crate::cancel::CancelToken`] was set): a
    /// server's time limit passed or its client went away; nobody reads this answer.
    Cancelled,
    /// The fit of one subgroup failed.
    InSubgroup {
        by: String,
        level: String,
        error: Box<MetaError>,
    },
}

impl fmt::Display for MetaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetaError::TooFewRecords { needed, got, analysis } => write!(
                f,
                "{analysis} needs at least {needed} records, but {got} {} given",
                if *got == 1 { "was" } else { "were" }
            ),
            MetaError::TooManyRecords { max, got } => {
                write!(f, "too many records: {got} given, at most {max} are accepted")
            }
            MetaError::EmptyId { index } => {
                write!(f, "record {} has an empty id; every record needs a non-empty id", index + 1)
            }
            MetaError::DuplicateId { id } => {
                write!(f, "the id {id:?} is used by more than one record; ids must be unique (give the later ones {:?}, {:?}, ..., as a table's repeated ids are renamed)", format!("{id}#2"), format!("{id}#3"))
            }
            MetaError::NonFinite { id, field } => {
                write!(f, "record {id:?} has a {field} that is not a finite number")
            }
            // vi = 0 is what escalc gives some rows (a proportion of 0 or 1 without a
            // correction, r = 1, ...); metafor's rma fits it only by REML or ML, with a warning.
            MetaError::NonPositiveVariance { id, vi } => write!(
                f,
                "record {id:?} has sampling variance vi = {vi}; vi must be greater than 0 (exclude the record to analyse the rest)"
            ),
            MetaError::OutOfRange { id, field, value } => {
                let (size, limit, why) = if *field == "yi" {
                    let limit = format!("|yi| must be at most {:e}", crate::MAX_ABS_YI);
                    ("large", limit, "its square and higher powers in the fit's sums overflow")
                } else if *value < crate::MIN_VI {
                    let limit = format!("vi must be at least {:e}", crate::MIN_VI);
                    ("small", limit, "its weight's powers 1/vi, 1/vi², 1/vi³ overflow")
                } else {
                    let limit = format!("vi must be at most {:e}", crate::MAX_VI);
                    ("large", limit, "its weight's powers 1/vi², 1/vi³ underflow to 0")
                };
                write!(
                    f,
                    "record {id:?}: {field} = {value:e} is too {size}: {limit}, beyond which \
                     {why}; express the effects in other units (yi·c, vi·c²) to bring them into \
                     range"
                )
            }
            MetaError::UnknownId { id } => write!(f, "there is no record with id {id:?}"),
            MetaError::ExcludesTooMany { excluded, k, needed } => write!(
                f,
                "excluding {excluded} of {k} records leaves {}, but at least {needed} are needed",
                k - excluded
            ),
            MetaError::InvalidLevel { level } => write!(
                f,
                "the confidence level must be strictly between 0 and 1 (for example 0.95), got {level}"
            ),
            MetaError::LevelTooCloseToOne { level } => write!(
                f,
                "the confidence level {level} is too close to 1: (1 + level)/2 rounds to 1 in \
                 double precision, so the interval's critical value is infinite; the largest \
                 accepted level is {}",
                crate::MAX_LEVEL
            ),
            MetaError::Undefined { reason } => write!(f, "{reason}"),
            MetaError::Cancelled => write!(
                f,
                "the computation was stopped before it finished: its call was given up (its time \
                 limit passed or its client went away)"
            ),
            MetaError::NotConverged { method, iterations } => write!(
                f,
                "the {method} estimator did not converge to its root within {iterations} \
                 iterations (its iteration limit)"
            ),
            MetaError::NoAscentStep {
                method,
                iteration,
                sigma2: [s1, s2],
                cause,
            } => write!(
                f,
                "the {method} estimator could not take a step at its iteration {iteration} \
                 (at σ²₁ = {s1:e}, σ²₂ = {s2:e}): {cause}; the data may not identify both \
                 variance components (check that the moderators do not separate the studies \
                 and that studies hold several effect sizes)"
            ),
            MetaError::NoBracket { method, upper } => write!(
                f,
                "the root of the {method} estimator's equation could not be bracketed: the \
                 equation has the same sign at τ² = 0 and at τ² = {upper:e}, so no root was \
                 searched for"
            ),
            MetaError::NonFiniteEquation { method, tau2 } => write!(
                f,
                "the {method} estimator stopped on a non-finite value: its equation is not a \
                 finite number at τ² = {tau2:e} (an intermediate sum overflowed or lost all its \
                 digits), so its root cannot be found"
            ),
            MetaError::NoFixedPoint { analysis, iterations } => write!(
                f,
                "{analysis} did not settle within {iterations} iterations (its iteration \
                 limit): the estimated number of missing records kept changing"
            ),
            MetaError::NonFiniteResult { quantity } => write!(
                f,
                "the {quantity} cannot be computed for these records: in double precision it \
                 overflows or loses all its digits to cancellation, which happens when the \
                 records' variances (or effects) span too many orders of magnitude; the result \
                 is refused rather than returned with a hole"
            ),
            MetaError::Moderator { reason } => write!(f, "{reason}"),
            MetaError::Formula {
                formula,
                offending,
                reason,
            } => {
                if offending.is_empty() || offending == formula {
                    write!(f, "in the model formula {formula:?}: {reason}")
                } else {
                    write!(f, "in the model formula {formula:?}, at {offending:?}: {reason}")
                }
            }
            MetaError::Coefficients { reason } => write!(f, "{reason}"),
            MetaError::TooFewForCoefficients { k, names } => write!(
                f,
                "{k} records cannot fit {} coefficients ({}): a meta-regression needs more \
                 records than coefficients",
                names.len(),
                names.join(", ")
            ),
            MetaError::RankDeficient {
                column,
                combination_of,
            } => {
                if combination_of.is_empty() {
                    write!(
                        f,
                        "the design is rank-deficient: {column} is zero for every record, so its \
                         effect cannot be estimated; leave it out"
                    )
                } else if combination_of.len() == 1 && combination_of[0] == "intercept" {
                    write!(
                        f,
                        "the design is rank-deficient: {column} is constant among the records, \
                         so its effect cannot be told apart from the intercept; leave it out"
                    )
                } else {
                    write!(
                        f,
                        "the design is rank-deficient: {column} is a linear combination of {} \
                         (collinear moderators), so their effects cannot be told apart; leave \
                         one of them out",
                        combination_of.join(", ")
                    )
                }
            }
            MetaError::InSubgroup { by, level, error } => {
                write!(f, "in the subgroup {by} = {level:?}: {error}")
            }
        }
    }
}

impl std::error::Error for MetaError {}
