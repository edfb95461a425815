//! Why a tool call was refused: a stable code and a message a person (or agent) understands.

use crate::schema_check::{self, ViolationKind};
use meta_analysis::MetaError;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// Why a tool call was refused, serialized in snake_case (`"unknown_tool"`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No tool has this name.
    UnknownTool,
    /// The arguments text is not JSON, or is ambiguous JSON (a repeated key).
    InvalidJson,
    /// A required property is missing, a value is outside its enum or range, or the
    /// arguments are inconsistent (an empty or repeated `exclude`, a level of 0 or 1).
    InvalidArguments,
    /// A property the schema does not declare.
    UnknownProperty,
    /// A value of the wrong JSON type (a string where a number belongs, ...).
    WrongType,
    /// An id in `exclude` is not among the records.
    UnknownRecord,
    /// A `data_id` names no handle of this session (never made by `load_data`, or dropped
    /// by the store's bounds).
    UnknownData,
    /// The session has loaded data and the call names none (no `records`, `data_id` or
    /// `dataset`): which data it meant is not guessed.
    DataNotNamed,
    /// More records than the tool accepts ([`super::Tool::max_records`]).
    TooManyRecords,
    /// The records cannot be analysed: empty or duplicate ids, vi ≤ 0, too few records.
    InvalidRecords,
    /// Rows of raw data give no effect size (a missing or non-numeric value, a negative SD
    /// or count, ...); the message lists each with its column.
    InvalidData,
    /// The analysis is undefined for these records (e.g. Egger's test with all vi equal).
    AnalysisFailed,
    /// An iterative estimator did not reach its root.
    NotConverged,
    /// The engine failed unexpectedly (on the page: its WebAssembly instance trapped and
    /// was replaced).
    InternalError,
    /// The caller cancelled the call before it finished.
    Cancelled,
    /// Only the page's whole engine answers this call: it gives an argument (`subset`,
    /// `slab`, `weights`) or needs a natural scale that the page's first module leaves out.
    /// The page then hands the call to the whole engine unledgered
    /// ([`crate::session::Session::run_here`]), so no caller sees this code.
    WholeEngine,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::UnknownProperty => "unknown_property",
            ErrorCode::WrongType => "wrong_type",
            ErrorCode::UnknownRecord => "unknown_record",
            ErrorCode::UnknownData => "unknown_data",
            ErrorCode::DataNotNamed => "data_not_named",
            ErrorCode::TooManyRecords => "too_many_records",
            ErrorCode::InvalidRecords => "invalid_records",
            ErrorCode::InvalidData => "invalid_data",
            ErrorCode::AnalysisFailed => "analysis_failed",
            ErrorCode::NotConverged => "not_converged",
            ErrorCode::InternalError => "internal_error",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::WholeEngine => "whole_engine",
        }
    }
}

/// What the page's first module (built without `extended`) answers a call that only the
/// whole engine can: `what` is the argument or the scale it leaves out.
#[cfg(not(feature = "extended"))]
pub fn whole_engine(what: &str) -> ToolError {
    ToolError::new(
        ErrorCode::WholeEngine,
        format!(
            "{what} is read by the page's whole engine (www/pkg/full), not by its first module"
        ),
    )
}

/// A refused tool call: a stable code and a message.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
        }
    }

    /// `{"error": {"code": ..., "message": ...}}`: what serializing the error gives, built
    /// as a `Value` directly, so that the page's WebAssembly carries no second serializer of
    /// `ToolError` and `ErrorCode` (into a `Value`) beside the one into JSON text.
    pub fn to_json(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), Value::from(self.code.as_str()));
        error.insert("message".into(), Value::from(self.message.as_str()));
        let mut outer = Map::new();
        outer.insert("error".into(), Value::Object(error));
        Value::Object(outer)
    }
}

impl fmt::Display for ToolError {
    /// `code: message`, as the page and an agent read it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for ToolError {}

impl From<MetaError> for ToolError {
    fn from(error: MetaError) -> Self {
        ToolError::new(code_of(&error), error.to_string())
    }
}

/// The code of an engine error (a subgroup's failure keeps its own cause's code).
fn code_of(error: &MetaError) -> ErrorCode {
    match error {
        MetaError::TooManyRecords { .. } => ErrorCode::TooManyRecords,
        MetaError::UnknownId { .. } => ErrorCode::UnknownRecord,
        MetaError::ExcludesTooMany { .. } | MetaError::InvalidLevel { .. } => {
            ErrorCode::InvalidArguments
        }
        MetaError::LevelTooCloseToOne { .. } => ErrorCode::InvalidArguments,
        // A moderator that cannot be used, or a design the moderators make rank-deficient:
        // the fix is another choice of moderators.
        MetaError::Moderator { .. }
        | MetaError::RankDeficient { .. }
        | MetaError::Formula { .. }
        | MetaError::Coefficients { .. } => ErrorCode::InvalidArguments,
        MetaError::NotConverged { .. }
        | MetaError::NoAscentStep { .. }
        | MetaError::NoBracket { .. }
        | MetaError::NonFiniteEquation { .. }
        | MetaError::NoFixedPoint { .. } => ErrorCode::NotConverged,
        MetaError::Undefined { .. } | MetaError::NonFiniteResult { .. } => {
            ErrorCode::AnalysisFailed
        }
        MetaError::OutOfRange { .. } => ErrorCode::InvalidRecords,
        MetaError::TooFewRecords { .. }
        | MetaError::TooFewForCoefficients { .. }
        | MetaError::EmptyId { .. }
        | MetaError::DuplicateId { .. }
        | MetaError::NonFinite { .. }
        | MetaError::NonPositiveVariance { .. } => ErrorCode::InvalidRecords,
        MetaError::InSubgroup { error, .. } => code_of(error),
        MetaError::Cancelled => ErrorCode::Cancelled,
    }
}

impl From<schema_check::Violation> for ToolError {
    fn from(violation: schema_check::Violation) -> Self {
        let code = match violation.kind {
            ViolationKind::UnknownProperty => ErrorCode::UnknownProperty,
            ViolationKind::WrongType => ErrorCode::WrongType,
            ViolationKind::Missing | ViolationKind::NotInEnum | ViolationKind::OutOfRange => {
                ErrorCode::InvalidArguments
            }
        };
        ToolError::new(code, violation.message)
    }
}

impl From<crate::plots::PlotError> for ToolError {
    fn from(error: crate::plots::PlotError) -> Self {
        ToolError::new(ErrorCode::InvalidRecords, error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn to_json_is_the_serialized_error_under_error() {
        let error = ToolError::new(ErrorCode::UnknownRecord, "no record \"s99\"");
        let json = error.to_json();
        assert_eq!(
            json,
            json!({"error": serde_json::to_value(&error).unwrap()})
        );
        assert_eq!(
            json.to_string(),
            r#"{"error":{"code":"unknown_record","message":"no record \"s99\""}}"#
        );
    }
}
