//! Forest, funnel and bubble plots as standalone SVG documents.
//!
//! Pure functions of plain inputs: [`forest`] and [`funnel`] take records, the ids shown as
//! excluded, and (optionally) what the engine computed, and return the SVG text together with
//! the numbers drawn ([`PlotOutput::numbers`]), so an agent can show the picture and a person
//! can check it. Nothing here computes a statistic: the records are checked by the engine's
//! rules ([`meta_analysis::validate_records`]), their own intervals and their weights are the
//! engine's ([`meta_analysis::record_intervals`], [`meta_analysis::record_weights`]), and the
//! pooled estimate, its intervals and the Egger line come from the caller, so a plot drawn
//! before any fit shows no pooled result. (The funnel's pseudo 95% region, pooled ± 1.96·SE
//! at every SE of the axis, is a shape drawn around the caller's estimate.)
//!
//! Output is deterministic (coordinates with two decimals, fixed number formats, ids derived
//! from the content), scales with its container (`viewBox`, `width="100%"`), carries
//! `<title>`/`<desc>` for screen readers, and encodes nothing by colour alone: excluded records
//! are also hollow, dashed and labelled "(excluded)". All text is escaped, and every id in
//! text is a bidirectional isolate ([`svg::isolate`]), so an id cannot reorder its neighbours.
//!
//! Every number on the way to a pixel is checked: values too far apart to share one axis (a
//! span, tick or position beyond the largest double) give [`PlotError::SpanTooWide`], never
//! an infinity, a panic or an unbounded list of ticks.
//!
//! Each plot is its own module; what they all write the same way (the root element, title,
//! frame, notes) is in `document`, and what the forest and cumulative forest plots share
//! (columns, rows of an interval, the axis and its line of no effect) in `rows`.
//!
//! The golden files in `crates/exemplar/tests/golden/` pin the SVG text of named tool calls;
//! `cargo xtask codegen` rewrites them after a deliberate change (review the diff).

mod axis;
mod bubble;
mod cumulative;
mod diagnostic;
mod document;
mod forest;
mod funnel;
mod rows;
pub mod scale;
pub mod svg;

pub use bubble::{bubble, BubbleInput, MAX_BUBBLE_RECORDS};
pub use cumulative::{cumulative, CumulativeInput, MAX_CUMULATIVE_ROWS};
pub use diagnostic::{diagnostic, Band, DiagnosticInput, RefLine, MAX_DIAGNOSTIC_POINTS};
pub use forest::{
    forest, Clustered, Fitted, ForestGroups, ForestInput, ForestOptions, IlabColumn, Reference,
    Shade, MAX_FOREST_RECORDS,
};
pub use funnel::{
    funnel, funnel_with_contours, EggerLine, Filled, FunnelInput, MAX_CONTOURS, MAX_FUNNEL_RECORDS,
};

use meta_analysis::{record_weights, validate_records, MetaError, Record};
use scale::ScaleError;
use serde_json::Value;
use std::collections::HashSet;
use std::fmt;

/// A rendered plot: the SVG document and the numbers it draws.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotOutput {
    pub svg: String,
    /// The values drawn and their pixel positions (as written in the SVG), so every mark can
    /// be checked against the data without parsing the SVG.
    pub numbers: Value,
}

/// Why a plot could not be drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum PlotError {
    /// No records were given.
    NoRecords,
    /// More records than the plot draws legibly.
    TooManyRecords {
        plot: &'static str,
        max: usize,
        got: usize,
    },
    /// A record breaks the engine's rules for records (an empty or repeated id, a `yi` or `vi`
    /// that is not finite, a `vi` of 0 or less, a value outside the engine's range): the
    /// engine's own refusal, which names the record.
    InvalidRecords(MetaError),
    /// An id listed as excluded is not among the records.
    UnknownExcluded { id: String },
    /// A number passed in for drawing (the fit, the pooled estimate, the Egger line, a
    /// moderator value) is NaN or infinite.
    NonFiniteInput { what: &'static str },
    /// The fit's τ² is negative.
    NegativeTau2 { tau2: f64 },
    /// The fit's confidence level is not strictly between 0 and 1.
    InvalidLevel { level: f64 },
    /// A funnel's contour level is not strictly between 0 and 1.
    InvalidContour { level: f64 },
    /// More contour levels than a funnel draws.
    TooManyContours { max: usize, got: usize },
    /// Egger's p value is not in [0, 1].
    InvalidPValue { p: f64 },
    /// A record filled in by trim-and-fill has a `vi` that is not a finite number greater
    /// than 0.
    InvalidFilledVariance { vi: f64 },
    /// A per-record column (`what`: the subgroup levels, the moderator values) does not hold
    /// one entry per record.
    ColumnLength {
        what: &'static str,
        records: usize,
        got: usize,
    },
    /// Subgroups were given without the fit they belong to.
    GroupsWithoutFit,
    /// The model of a bubble plot is not a meta-regression on one numeric moderator.
    NotOneNumericModerator,
    /// A record in the model has no value of the bubble plot's moderator.
    MissingModeratorValue { id: String },
    /// The fit does not belong to the records left after the exclusions.
    FitMismatch { fit_k: usize, included: usize },
    /// The records' weights in the fit cannot be computed (the engine's refusal).
    Weights(MetaError),
    /// The records' own confidence intervals cannot be computed at the fit's level (the
    /// engine's refusal: a level so close to 1 that the critical value is infinite).
    Intervals(MetaError),
    /// The values from `lo` to `hi` cannot share one axis: its span, widened to whole tick
    /// steps, or the positions along it exceed the largest floating-point number.
    SpanTooWide { lo: f64, hi: f64 },
    /// The position of `value` on the plot is not a finite number.
    Unplaceable { value: f64 },
    /// A quantity needed for drawing exceeds the largest floating-point number.
    Overflow { what: &'static str },
    /// A forest plot's `width` leaves its plot less than a third of it beside the columns.
    TooNarrow { width: f64, needed: f64 },
}

impl From<ScaleError> for PlotError {
    fn from(e: ScaleError) -> Self {
        match e {
            ScaleError::Span { lo, hi } => PlotError::SpanTooWide { lo, hi },
            ScaleError::Position { value } => PlotError::Unplaceable { value },
        }
    }
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::NoRecords => {
                write!(f, "a plot needs at least one record, but none were given")
            }
            PlotError::TooManyRecords { plot, max, got } => write!(
                f,
                "a {plot} plot draws at most {max} records, but {got} were given"
            ),
            PlotError::InvalidRecords(error) => write!(f, "{error}"),
            PlotError::UnknownExcluded { id } => {
                write!(f, "the excluded id {id:?} is not among the records")
            }
            PlotError::NonFiniteInput { what } => {
                write!(f, "cannot draw {what}: it is not a finite number")
            }
            PlotError::NegativeTau2 { tau2 } => write!(
                f,
                "cannot draw the fit: its τ² = {} is negative, but a between-study variance \
                 must be 0 or more",
                number(*tau2)
            ),
            PlotError::InvalidLevel { level } => write!(
                f,
                "cannot draw the fit: its confidence level {level} must lie strictly between \
                 0 and 1"
            ),
            PlotError::InvalidContour { level } => write!(
                f,
                "cannot draw the contour at level {level}: a contour's confidence level must \
                 lie strictly between 0 and 1 (e.g. 0.95)"
            ),
            PlotError::TooManyContours { max, got } => write!(
                f,
                "a funnel plot draws at most {max} contours, but {got} were given"
            ),
            PlotError::InvalidPValue { p } => write!(
                f,
                "cannot draw Egger's test: its p value {p} must lie in [0, 1]"
            ),
            PlotError::InvalidFilledVariance { vi } => write!(
                f,
                "cannot draw a filled record with vi = {}: a sampling variance must be a \
                 finite number greater than 0",
                number(*vi)
            ),
            PlotError::ColumnLength { what, records, got } => write!(
                f,
                "cannot draw {what}: one per record is needed, {records} in all, but {got} \
                 were given"
            ),
            PlotError::GroupsWithoutFit => write!(
                f,
                "cannot draw subgroups without a fit: grouped rows need the fit of the records \
                 not excluded"
            ),
            PlotError::NotOneNumericModerator => write!(
                f,
                "a bubble plot draws a meta-regression on one numeric moderator, but the model \
                 given has other terms"
            ),
            PlotError::MissingModeratorValue { id } => write!(
                f,
                "record {id:?} is in the model but has no value of the moderator"
            ),
            PlotError::FitMismatch { fit_k, included } => write!(
                f,
                "the fit has k = {fit_k}, but {included} records remain after the exclusions; \
                 pass the fit of exactly the records not excluded"
            ),
            PlotError::Weights(error) => write!(f, "cannot draw the weights: {error}"),
            PlotError::Intervals(error) => {
                write!(f, "cannot draw the records' confidence intervals: {error}")
            }
            PlotError::SpanTooWide { lo, hi } => write!(
                f,
                "the values span more than can be drawn: an axis from {} to {}, widened to \
                 whole tick steps, would span more than the largest floating-point number \
                 (about 1.8e308); remove or rescale the extreme records",
                number(*lo),
                number(*hi)
            ),
            PlotError::Unplaceable { value } => write!(
                f,
                "cannot draw the value {}: its position on the plot is not a finite number",
                number(*value)
            ),
            PlotError::TooNarrow { width, needed } => write!(
                f,
                "a width of {} leaves the plot less than a third of it beside the columns; \
                 these columns need a width of at least {} (or fewer ilab columns)",
                number(*width),
                number(*needed)
            ),
            PlotError::Overflow { what } => write!(
                f,
                "cannot compute {what}: it exceeds the largest floating-point number (about \
                 1.8e308)"
            ),
        }
    }
}

impl std::error::Error for PlotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlotError::InvalidRecords(error)
            | PlotError::Weights(error)
            | PlotError::Intervals(error) => Some(error),
            _ => None,
        }
    }
}

/// Checks the records (their count for this plot, then the engine's rules for records) and
/// the exclusions; returns, per record, whether it is excluded.
fn validate(
    records: &[Record],
    excluded: &[String],
    plot: &'static str,
    max: usize,
) -> Result<Vec<bool>, PlotError> {
    if records.is_empty() {
        return Err(PlotError::NoRecords);
    }
    if records.len() > max {
        return Err(PlotError::TooManyRecords {
            plot,
            max,
            got: records.len(),
        });
    }
    validate_records(records).map_err(PlotError::InvalidRecords)?;
    let ids: HashSet<&str> = records.iter().map(|r| r.id.as_str()).collect();
    if let Some(id) = excluded.iter().find(|id| !ids.contains(id.as_str())) {
        return Err(PlotError::UnknownExcluded { id: id.clone() });
    }
    let excluded: HashSet<&str> = excluded.iter().map(String::as_str).collect();
    Ok(records
        .iter()
        .map(|r| excluded.contains(r.id.as_str()))
        .collect())
}

/// Per record, its weight in the fit as (percent of the total, relative to the largest), as
/// the engine computes them over the records not excluded; `None` for an excluded record.
fn included_weights(
    records: &[Record],
    is_excluded: &[bool],
    tau2: f64,
) -> Result<Vec<Option<(f64, f64)>>, PlotError> {
    let vi: Vec<f64> = records
        .iter()
        .zip(is_excluded)
        .filter(|(_, e)| !**e)
        .map(|(r, _)| r.vi)
        .collect();
    let w = record_weights(&vi, tau2).map_err(PlotError::Weights)?;
    let mut included = w.percent.into_iter().zip(w.relative);
    Ok(is_excluded
        .iter()
        .map(|&e| if e { None } else { included.next() })
        .collect())
}

fn finite(value: f64, what: &'static str) -> Result<f64, PlotError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(PlotError::NonFiniteInput { what })
    }
}

/// A number in an error message: plain when short, in scientific notation when it would be a
/// long run of digits (1e308, not 309 characters).
fn number(x: f64) -> String {
    if x == 0.0 || (1e-4..1e9).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A record's id as written in text: isolated (see [`svg::isolate`]) so its characters cannot
/// reorder the words around it.
fn id_text(id: &str) -> String {
    svg::isolate(id)
}

/// A record's id as a label, at most `max_chars` characters (the last one "…", cut by
/// [`crate::printable::kept`], the printed tables' rule) and isolated; the full id stays in
/// the row's `data-id` and tooltip.
fn id_label(id: &str, max_chars: usize) -> String {
    match crate::printable::kept(id, max_chars) {
        None => svg::isolate(id),
        Some(shown) => format!("{}…", svg::isolate(shown)),
    }
}

/// "p = 0.0123" or "p < 0.0001".
fn p_text(p: f64) -> String {
    if p < 0.0001 {
        "p < 0.0001".to_string()
    } else {
        format!("p = {}", svg::fixed(p, 4))
    }
}

/// Text and marks of included records.
const INK: &str = "#000000";
/// Excluded records (contrast 4.5:1 on white) and reference lines.
const GREY: &str = "#6b6b6b";
/// Light fills (the funnel region); never the only cue.
const FILL: &str = "#ececec";

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, yi: f64, vi: f64) -> Record {
        Record::new(id, yi, vi)
    }

    #[test]
    fn validation_names_the_offending_record() {
        let ok = [rec("a", 0.1, 0.01), rec("b", 0.2, 0.02)];
        assert_eq!(
            validate(&ok, &["b".into()], "forest", 10),
            Ok(vec![false, true])
        );
        assert_eq!(validate(&[], &[], "forest", 10), Err(PlotError::NoRecords));
        let err = validate(&ok, &[], "forest", 1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a forest plot draws at most 1 records, but 2 were given"
        );
        assert_eq!(
            validate(&ok, &["zz".into()], "funnel", 10),
            Err(PlotError::UnknownExcluded { id: "zz".into() })
        );
        let bad = [rec("a", f64::NAN, 0.01)];
        assert_eq!(
            validate(&bad, &[], "funnel", 10).unwrap_err().to_string(),
            "record \"a\" has a yi that is not a finite number"
        );
        // The engine's rules, and its refusal: a record of 0 variance, a repeated or empty
        // id, a value beyond the engine's range.
        let bad = [rec("a", 0.1, 0.0)];
        assert_eq!(
            validate(&bad, &[], "funnel", 10),
            Err(PlotError::InvalidRecords(MetaError::NonPositiveVariance {
                id: "a".into(),
                vi: 0.0
            }))
        );
        let bad = [rec("a", 0.1, 0.1), rec("a", 0.2, 0.1)];
        assert_eq!(
            validate(&bad, &[], "funnel", 10),
            Err(PlotError::InvalidRecords(MetaError::DuplicateId {
                id: "a".into()
            }))
        );
        let bad = [rec(" ", 0.1, 0.1)];
        assert_eq!(
            validate(&bad, &[], "funnel", 10).unwrap_err().to_string(),
            "record 1 has an empty id; every record needs a non-empty id"
        );
        let bad = [rec("a", 0.1, 1e-30)];
        assert!(matches!(
            validate(&bad, &[], "funnel", 10),
            Err(PlotError::InvalidRecords(MetaError::OutOfRange {
                field: "vi",
                ..
            }))
        ));
    }

    #[test]
    fn each_refusal_of_an_input_names_its_cause() {
        let cases = [
            (
                PlotError::NegativeTau2 { tau2: -0.5 },
                "cannot draw the fit: its τ² = -0.5 is negative, but a between-study variance \
                 must be 0 or more",
            ),
            (
                PlotError::InvalidLevel { level: 1.5 },
                "cannot draw the fit: its confidence level 1.5 must lie strictly between 0 and 1",
            ),
            (
                PlotError::InvalidPValue { p: f64::NAN },
                "cannot draw Egger's test: its p value NaN must lie in [0, 1]",
            ),
            (
                PlotError::InvalidFilledVariance { vi: -1.0 },
                "cannot draw a filled record with vi = -1: a sampling variance must be a finite \
                 number greater than 0",
            ),
            (
                PlotError::ColumnLength {
                    what: "the moderator values",
                    records: 3,
                    got: 2,
                },
                "cannot draw the moderator values: one per record is needed, 3 in all, but 2 \
                 were given",
            ),
            (
                PlotError::MissingModeratorValue { id: "s01".into() },
                "record \"s01\" is in the model but has no value of the moderator",
            ),
            (
                PlotError::NonFiniteInput {
                    what: "the pooled estimate",
                },
                "cannot draw the pooled estimate: it is not a finite number",
            ),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
    }

    #[test]
    fn undrawable_values_are_named_in_short_numbers() {
        let err = PlotError::from(ScaleError::Span {
            lo: -1e308,
            hi: 9e307,
        });
        assert!(err.to_string().starts_with(
            "the values span more than can be drawn: an axis from -1e308 to 9e307, widened"
        ));
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(-f64::MAX), "-1.7976931348623157e308");
        assert_eq!(number(5e-324), "5e-324");
    }

    #[test]
    fn long_labels_are_shortened_and_p_values_have_a_floor() {
        assert_eq!(id_label("s01", 5), "s01");
        assert_eq!(id_label("abcdefgh", 5), "abcd…");
        assert_eq!(
            id_label("a\u{202E}bcdefgh", 3),
            "\u{2068}a\u{202E}\u{2069}…"
        );
        assert_eq!(id_text("\u{5D0}\u{5D1}"), "\u{2068}\u{5D0}\u{5D1}\u{2069}");
        assert_eq!(p_text(0.04123), "p = 0.0412");
        assert_eq!(p_text(1e-7), "p < 0.0001");
    }
}
