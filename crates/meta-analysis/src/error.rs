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
    /// The test is not defined for this input (for example all √vi equal in Egger's test).
    Undefined { reason: String },
    /// An iterative estimator did not reach its root.
    NotConverged {
        method: &'static str,
        iterations: usize,
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
                write!(f, "the id {id:?} is used by more than one record; ids must be unique")
            }
            MetaError::NonFinite { id, field } => {
                write!(f, "record {id:?} has a {field} that is not a finite number")
            }
            MetaError::NonPositiveVariance { id, vi } => write!(
                f,
                "record {id:?} has sampling variance vi = {vi}; vi must be greater than 0"
            ),
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
            MetaError::Undefined { reason } => write!(f, "{reason}"),
            MetaError::NotConverged { method, iterations } => write!(
                f,
                "the {method} estimator did not converge to its root within {iterations} iterations"
            ),
        }
    }
}

impl std::error::Error for MetaError {}
