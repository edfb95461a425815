//! Which columns of raw data `compute_effect_sizes` reads: escalc's names, or the caller's
//! own names mapped onto them (`columns: {"ai": "tpos", ...}`); before any row is read,
//! one clear error when a column the measure needs is in no row at all, naming the columns
//! the data have (rather than the same "ai is missing" once per row); and how a value of
//! such a column reads ([`read_value`], the one reading for the tools, the CLI and the page).

use super::{ErrorCode, ToolError};
use meta_analysis::effect_sizes::{Column, Measure};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// The argument mapping escalc's column names to the data's.
pub const COLUMNS_ARGUMENT: &str = "columns";

/// The text R reads as a missing value (`read.csv`'s default `na.strings`).
pub const NA_TEXT: &str = "NA";

/// How a value of a raw-data column reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reading<'a> {
    /// A JSON number, or text that parses as a finite decimal number once trimmed
    /// (`"6"`, `" 8 "`, `"1e3"`, `"-.5"`).
    Number(f64),
    /// No value: metafor's NA, which leaves the row without an effect size.
    Missing(Missing),
    /// Something else: text that is no number (`"abc"`, `"1,5"`, `"Inf"`), a boolean, an
    /// array or an object.
    NotANumber(&'a Value),
}

/// How a value is missing, for the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// The row has no such field.
    Absent,
    /// JSON null (a CSV's empty cell reads as null): "empty".
    Null,
    /// Text that is empty or only white space.
    Blank,
    /// The text `NA`, as R writes a missing value.
    Na,
}

/// The one reading of a value in a raw-data column (escalc's columns), for
/// `compute_effect_sizes`, `load_data`, `exemplar escalc` and the page's Your data: a number
/// is a JSON number or text that reads as one ([`crate::csv_table::number`]: plain decimal
/// notation, no thousands separator or decimal comma); null, blank text and `NA` are missing,
/// as R reads them; anything else is not a number.
pub fn read_value(value: Option<&Value>) -> Reading<'_> {
    match value {
        None => Reading::Missing(Missing::Absent),
        Some(Value::Null) => Reading::Missing(Missing::Null),
        Some(number @ Value::Number(n)) => match n.as_f64().filter(|x| x.is_finite()) {
            Some(x) => Reading::Number(x),
            None => Reading::NotANumber(number),
        },
        Some(text @ Value::String(s)) => {
            let trimmed = s.trim();
            if trimmed.is_empty() {
                Reading::Missing(Missing::Blank)
            } else if trimmed == NA_TEXT {
                Reading::Missing(Missing::Na)
            } else {
                match crate::csv_table::number(trimmed) {
                    Some(x) => Reading::Number(x),
                    None => Reading::NotANumber(text),
                }
            }
        }
        Some(other) => Reading::NotANumber(other),
    }
}

impl Missing {
    /// "ai is blank", "bi is null", ...
    pub fn describe(self, column: &str) -> String {
        match self {
            Missing::Absent => format!("{column} is missing"),
            Missing::Null => format!("{column} is empty (null)"),
            Missing::Blank => format!("{column} is blank"),
            Missing::Na => format!("{column} is NA"),
        }
    }
}

/// Why `value` of `column` is not a number, saying what was read: `n1i "abc" is not a
/// number`, with a hint for a decimal comma.
pub fn not_a_number(column: &str, value: &Value) -> String {
    let shown = crate::quote::json_value(value);
    let hint = match value {
        Value::String(s) => {
            let t = s.trim();
            let comma = t.replacen(',', ".", 1);
            (t.matches(',').count() == 1 && crate::csv_table::number(&comma).is_some())
                .then(|| format!(" (a decimal point is read, not a comma: write {comma})"))
        }
        _ => None,
    };
    format!(
        "{column} {shown} is not a number{}",
        hint.unwrap_or_default()
    )
}

/// The schema of `columns`.
#[cfg(feature = "definitions")]
pub fn schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({
        "type": "object",
        "additionalProperties": {"type": "string"},
        "description": "Your names for escalc's columns (or id), e.g. {\"ai\": \"tpos\", \"bi\": \"tneg\"}."
    }))
    .expect("an object schema")
}

/// The rows with the mapped columns renamed to escalc's names (the rows themselves when
/// nothing is mapped), checked to hold every column `measure` needs.
pub fn mapped<'a>(
    measure: Measure,
    mapping: Option<&Map<String, Value>>,
    rows: &'a [Map<String, Value>],
) -> Result<Cow<'a, [Map<String, Value>]>, ToolError> {
    let rows = match mapping.filter(|m| !m.is_empty()) {
        None => Cow::Borrowed(rows),
        Some(mapping) => Cow::Owned(rename(mapping, rows)?),
    };
    check_present(measure, &rows, mapping.is_some_and(|m| !m.is_empty()))?;
    Ok(rows)
}

fn rename(
    mapping: &Map<String, Value>,
    rows: &[Map<String, Value>],
) -> Result<Vec<Map<String, Value>>, ToolError> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (target, source) in mapping {
        if target != "id" && Column::parse(target).is_none() {
            return Err(invalid(format!(
                "{COLUMNS_ARGUMENT} maps {}, which is not one of escalc's columns ({}, or id)",
                crate::quote::quoted(target),
                column_names()
            )));
        }
        let Some(source) = source.as_str() else {
            return Err(invalid(format!(
                "{COLUMNS_ARGUMENT}.{target} must be the name of a column of the data"
            )));
        };
        if !rows.iter().any(|row| row.contains_key(source)) {
            return Err(ToolError::new(
                ErrorCode::InvalidData,
                format!(
                    "{COLUMNS_ARGUMENT} maps {target} to {}, but the data have no such column; \
their columns are {}",
                    crate::quote::quoted(source),
                    data_columns(rows)
                ),
            ));
        }
        pairs.push((target, source));
    }
    Ok(rows
        .iter()
        .map(|row| {
            let mut row = row.clone();
            let values: Vec<(&str, Option<Value>)> = pairs
                .iter()
                .map(|(target, source)| (*target, row.remove(*source)))
                .collect();
            for (target, value) in values {
                match value {
                    Some(value) => row.insert(target.to_string(), value),
                    None => row.remove(target),
                };
            }
            row
        })
        .collect())
}

/// The columns `measure` needs that no row holds, as one error.
fn check_present(
    measure: Measure,
    rows: &[Map<String, Value>],
    mapped: bool,
) -> Result<(), ToolError> {
    let present = |column: Column| {
        rows.iter()
            .any(|row| !matches!(read_value(row.get(column.name())), Reading::Missing(_)))
    };
    let mut missing: Vec<String> = Vec::new();
    for &column in measure.columns() {
        if present(column) {
            continue;
        }
        match measure.alternative(column) {
            Some(other) if present(other) => {}
            // Said once, at the first of the pair.
            Some(other) if missing.iter().any(|m| m.starts_with(other.name())) => {}
            Some(other) => missing.push(format!("{} (or {})", column.name(), other.name())),
            None => missing.push(column.name().to_string()),
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let needs: Vec<String> = measure
        .columns()
        .iter()
        .map(|c| format!("{} ({})", c.name(), c.description()))
        .collect();
    let example = missing[0].split(' ').next().unwrap_or_default();
    Err(ToolError::new(
        ErrorCode::InvalidData,
        format!(
            "no row has {} (so no effect size can be computed); {} reads {}. The data's columns \
are {}{}",
            missing.join(", "),
            measure.name(),
            needs.join(", "),
            data_columns(rows),
            if mapped {
                String::new()
            } else {
                format!(
                    ". Map yours with {COLUMNS_ARGUMENT}, e.g. {{\"{example}\": \"your_column\"}} \
(exemplar escalc: --{example} your_column)"
                )
            }
        ),
    ))
}

fn column_names() -> String {
    Column::ALL
        .iter()
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The data's column names, in order of first appearance.
fn data_columns(rows: &[Map<String, Value>]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for row in rows {
        for key in row.keys() {
            if !names.contains(&key.as_str()) {
                names.push(key);
            }
        }
    }
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

fn invalid(message: String) -> ToolError {
    ToolError::new(ErrorCode::InvalidArguments, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows(value: Value) -> Vec<Map<String, Value>> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn values_read_as_numbers_missing_values_or_neither() {
        let read = |v: Value| match read_value(Some(&v)) {
            Reading::Number(x) => format!("number {x}"),
            Reading::Missing(how) => how.describe("ai"),
            Reading::NotANumber(v) => not_a_number("ai", v),
        };
        for (value, reads) in [
            (json!(6), "number 6"),
            (json!("6"), "number 6"),
            (json!(" 8 "), "number 8"),
            (json!("1e3"), "number 1000"),
            (json!("-.5"), "number -0.5"),
            (json!(null), "ai is empty (null)"),
            (json!(""), "ai is blank"),
            (json!(" \t"), "ai is blank"),
            (json!("NA"), "ai is NA"),
            (json!(" NA "), "ai is NA"),
            (json!("na"), "ai \"na\" is not a number"),
            (json!("abc"), "ai \"abc\" is not a number"),
            (json!("Inf"), "ai \"Inf\" is not a number"),
            (
                json!("1,000"),
                "ai \"1,000\" is not a number (a decimal point is read, not a comma: write 1.000)",
            ),
            (
                json!("1,5"),
                "ai \"1,5\" is not a number (a decimal point is read, not a comma: write 1.5)",
            ),
            (json!("1 5"), "ai \"1 5\" is not a number"),
            (json!(true), "ai true is not a number"),
            (json!([1]), "ai [1] is not a number"),
        ] {
            assert_eq!(read(value.clone()), reads, "{value}");
        }
        assert_eq!(read_value(None), Reading::Missing(Missing::Absent));
        // A column that is blank, null or NA in every row is in no row.
        let data = rows(
            json!([{"ai": "", "bi": 1, "ci": 1, "di": 1}, {"ai": "NA", "bi": 1, "ci": 1, "di": 1}]),
        );
        let e = mapped(Measure::Or, None, &data).unwrap_err();
        assert!(e.message.starts_with("no row has ai "), "{}", e.message);
    }

    #[test]
    fn a_mapping_renames_the_columns() {
        let data = rows(
            json!([{"trial": "a", "tpos": 4, "tneg": 119, "cpos": 11, "cneg": 128, "ablat": 44}]),
        );
        let mapping: Map<String, Value> = serde_json::from_value(
            json!({"id": "trial", "ai": "tpos", "bi": "tneg", "ci": "cpos", "di": "cneg"}),
        )
        .unwrap();
        let out = mapped(Measure::Rr, Some(&mapping), &data).unwrap();
        assert_eq!(
            Value::Object(out[0].clone()),
            json!({"id": "a", "ai": 4, "bi": 119, "ci": 11, "di": 128, "ablat": 44})
        );
        let unchanged = mapped(Measure::Rr, None, &out).unwrap();
        assert!(matches!(unchanged, Cow::Borrowed(_)));
    }

    #[test]
    fn a_missing_column_is_one_error_naming_the_datas_columns() {
        let data = rows(json!([
            {"tpos": 4, "tneg": 119, "cpos": 11, "cneg": 128},
            {"tpos": 6, "tneg": 300, "cpos": 29, "cneg": 274}
        ]));
        let e = mapped(Measure::Rr, None, &data).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidData);
        assert_eq!(e.message.matches("no row has").count(), 1);
        assert!(
            e.message
                .starts_with("no row has ai, bi (or n1i), ci, di (or n2i)"),
            "{}",
            e.message
        );
        assert!(
            e.message
                .contains("The data's columns are tpos, tneg, cpos, cneg"),
            "{}",
            e.message
        );
        assert!(e.message.contains("--ai your_column"), "{}", e.message);
        // Given in some rows only: each such row's own error, later.
        let partial =
            rows(json!([{"ai": 1, "n1i": 5, "ci": 1, "n2i": 5}, {"n1i": 5, "ci": 1, "n2i": 5}]));
        assert!(mapped(Measure::Rr, None, &partial).is_ok());
    }

    #[test]
    fn a_bad_mapping_is_refused_naming_it() {
        let data = rows(json!([{"tpos": 4}]));
        let bad = |m: Value| {
            let m: Map<String, Value> = serde_json::from_value(m).unwrap();
            mapped(Measure::Rr, Some(&m), &data).unwrap_err().message
        };
        assert!(bad(json!({"zz": "tpos"})).contains("\"zz\", which is not one of escalc's columns"));
        assert!(bad(json!({"ai": "pos"})).contains(
            "maps ai to \"pos\", but the data have no such column; their columns are tpos"
        ));
    }
}
