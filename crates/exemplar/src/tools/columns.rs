//! The columns a tool can order records by: the one place a tool reads a record's properties
//! beyond (id, yi, vi).
//!
//! The frozen dataset has all the columns of [`crate::dataset::COLUMNS`]; records given by the
//! caller have id, yi and vi and whatever further columns (numbers or text) they carry.

use super::data::DataSource;
use super::{ErrorCode, ToolError};
use crate::dataset;
use std::cmp::Ordering;

/// One record's value in a column.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnValue {
    Number(f64),
    Text(String),
}

impl ColumnValue {
    /// Numbers by value, text by its bytes (R's C-locale order); a column holds one kind
    /// ([`column_values`] reads it as numbers or as text).
    pub fn cmp(&self, other: &ColumnValue) -> Ordering {
        match (self, other) {
            (ColumnValue::Number(a), ColumnValue::Number(b)) => a.total_cmp(b),
            (ColumnValue::Text(a), ColumnValue::Text(b)) => a.as_bytes().cmp(b.as_bytes()),
            (ColumnValue::Number(_), ColumnValue::Text(_)) => Ordering::Less,
            (ColumnValue::Text(_), ColumnValue::Number(_)) => Ordering::Greater,
        }
    }
}

/// The values of column `name` for every record of `data`, in record order.
pub fn column_values(data: &DataSource, name: &str) -> Result<Vec<ColumnValue>, ToolError> {
    if data.is_frozen() {
        if !dataset::COLUMNS.contains(&name) {
            return Err(ToolError::new(
                ErrorCode::InvalidArguments,
                format!(
                    "{name:?} is not a column of {}; its columns are {}",
                    dataset::NAME,
                    dataset::COLUMNS.join(", ")
                ),
            ));
        }
        return Ok(dataset::rows()
            .iter()
            .map(|row| {
                let value = serde_json::to_value(row).expect("a dataset row serializes");
                match &value[name] {
                    serde_json::Value::String(text) => ColumnValue::Text(text.clone()),
                    number => ColumnValue::Number(number.as_f64().unwrap_or(f64::NAN)),
                }
            })
            .collect());
    }
    let records = data.records();
    // One reading of values, as a moderator's (`DataSource::moderator`): text that reads as a
    // number (`"4195"`, `" 8 "`) is that number. A column whose every value reads as a number
    // orders by value, as R orders the numeric column read.csv makes of it; one with text
    // that reads as no number is a text column, each value as written (a JSON number as R
    // writes it), ordered by bytes, as R's order() orders a character column in the C locale.
    let cells: Vec<NumberOrText> = match name {
        // Ids are text by the records' schema (labels, "007" is not 7): ordered as text.
        "id" => {
            return Ok(records
                .iter()
                .map(|r| ColumnValue::Text(r.id.clone()))
                .collect())
        }
        "yi" => return Ok(records.iter().map(|r| ColumnValue::Number(r.yi)).collect()),
        "vi" => return Ok(records.iter().map(|r| ColumnValue::Number(r.vi)).collect()),
        _ => {
            if !data.column_names().contains(&name) {
                return Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "{} is not a column of the given records; their columns are id, yi, vi{}",
                        crate::quote::quoted(name),
                        data.column_names()
                            .iter()
                            .map(|c| format!(", {c}"))
                            .collect::<String>()
                    ),
                ));
            }
            let column = data.column(name);
            let mut cells = Vec::with_capacity(records.len());
            for (at, record) in records.iter().enumerate() {
                cells.push(match column.and_then(|c| c.get(at)) {
                    Some(super::data::Cell::Text(text)) => NumberOrText::Text(text.to_owned()),
                    Some(super::data::Cell::Number(n)) => {
                        NumberOrText::Number(n.as_f64().unwrap_or(f64::NAN))
                    }
                    _ => {
                        return Err(ToolError::new(
                            ErrorCode::InvalidRecords,
                            format!(
                                "record {} has no value in the column {}",
                                crate::quote::quoted(&record.id),
                                crate::quote::quoted(name)
                            ),
                        ))
                    }
                });
            }
            cells
        }
    };
    let reading = |cell: &NumberOrText| match cell {
        NumberOrText::Number(x) => Some(*x),
        NumberOrText::Text(text) => crate::csv_table::number(text.trim()),
    };
    if cells.iter().all(|c| reading(c).is_some()) {
        return Ok(cells
            .iter()
            .map(|c| ColumnValue::Number(reading(c).unwrap_or(f64::NAN)))
            .collect());
    }
    Ok(cells
        .into_iter()
        .map(|c| match c {
            NumberOrText::Number(x) => ColumnValue::Text(meta_analysis::r_number(x)),
            NumberOrText::Text(text) => ColumnValue::Text(text),
        })
        .collect())
}

/// A value as the records hold it, before the column is read as numbers or text.
enum NumberOrText {
    Number(f64),
    Text(String),
}

/// The user weights in column `name` (the `weights` argument of a fit) for the records not
/// in `excluded`, in record order: the column must exist and hold numbers. Whether each
/// weight is usable (finite, > 0) is the engine's rule ([`meta_analysis::WeightError`]).
pub fn weight_column(
    data: &DataSource,
    name: &str,
    excluded: &[String],
) -> Result<Vec<f64>, ToolError> {
    let excluded = super::data::id_set(excluded);
    // One reading of values (numbers, and numeric text, are numbers), as a moderator's.
    if let Some(column) = data.column(name) {
        let mut weights = Vec::with_capacity(data.records().len());
        for (at, record) in data.records().iter().enumerate() {
            if excluded.contains(record.id.as_str()) {
                continue;
            }
            let value = column.get(at).map(|c| c.to_value());
            match super::raw_columns::read_value(value.as_ref()) {
                super::raw_columns::Reading::Number(w) => weights.push(w),
                super::raw_columns::Reading::Missing(missing) => {
                    return Err(ToolError::new(
                        ErrorCode::InvalidRecords,
                        format!(
                            "weights: record {}: {}",
                            crate::quote::quoted(&record.id),
                            missing.describe(name)
                        ),
                    ))
                }
                super::raw_columns::Reading::NotANumber(_) => {
                    return Err(ToolError::new(
                        ErrorCode::InvalidArguments,
                        format!(
                        "weights: the column {} holds text in record {}; weights must be numbers",
                        crate::quote::quoted(name),
                        crate::quote::quoted(&record.id)
                    ),
                    ))
                }
            }
        }
        return Ok(weights);
    }
    let values = column_values(data, name)?;
    let mut weights = Vec::with_capacity(values.len());
    for (record, value) in data.records().iter().zip(values) {
        if excluded.contains(record.id.as_str()) {
            continue;
        }
        match value {
            ColumnValue::Number(w) => weights.push(w),
            ColumnValue::Text(_) => {
                return Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "weights: the column {} holds text in record {}; weights must be numbers",
                        crate::quote::quoted(name),
                        crate::quote::quoted(&record.id)
                    ),
                ))
            }
        }
    }
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frozen_columns_and_custom_columns() {
        let frozen = DataSource::frozen();
        let years = column_values(&frozen, "year").unwrap();
        assert_eq!(years.len(), 19);
        assert_eq!(years[0], ColumnValue::Number(1974.0));
        assert!(matches!(
            &column_values(&frozen, "author").unwrap()[0],
            ColumnValue::Text(_)
        ));
        let e = column_values(&frozen, "colour").unwrap_err();
        assert!(
            e.message.contains("its columns are id, author, year"),
            "{}",
            e.message
        );
        let custom = DataSource::custom(&json!([{"id": "a", "yi": 0.1, "vi": 0.01}])).unwrap();
        assert_eq!(
            column_values(&custom, "yi").unwrap(),
            [ColumnValue::Number(0.1)]
        );
        let e = column_values(&custom, "year").unwrap_err();
        assert!(
            e.message.contains("their columns are id, yi, vi"),
            "{}",
            e.message
        );
        // Records given by the caller order by their own columns; a gap or a mix is named.
        let dated = DataSource::custom(&json!([
            {"id": "a", "yi": 0.1, "vi": 0.01, "year": 2001, "arm": "x"},
            {"id": "b", "yi": 0.2, "vi": 0.02, "year": 1999, "arm": 3}
        ]))
        .unwrap();
        assert_eq!(
            column_values(&dated, "year").unwrap(),
            [ColumnValue::Number(2001.0), ColumnValue::Number(1999.0)]
        );
        // A column with text that reads as no number is text (the number as R writes it);
        // numeric text is a number.
        assert_eq!(
            column_values(&dated, "arm").unwrap(),
            [ColumnValue::Text("x".into()), ColumnValue::Text("3".into())]
        );
        let sizes = DataSource::custom(&json!([
            {"id": "10", "yi": 0.1, "vi": 0.01, "ni": "99"},
            {"id": "9", "yi": 0.2, "vi": 0.02, "ni": " 4195 "}
        ]))
        .unwrap();
        assert_eq!(
            column_values(&sizes, "ni").unwrap(),
            [ColumnValue::Number(99.0), ColumnValue::Number(4195.0)]
        );
        assert_eq!(
            column_values(&sizes, "id").unwrap(),
            [
                ColumnValue::Text("10".into()),
                ColumnValue::Text("9".into())
            ]
        );
        let gap = DataSource::custom(&json!([
            {"id": "a", "yi": 0.1, "vi": 0.01, "year": 2001},
            {"id": "b", "yi": 0.2, "vi": 0.02}
        ]))
        .unwrap();
        let e = column_values(&gap, "year").unwrap_err();
        assert_eq!(
            e.message,
            "record \"b\" has no value in the column \"year\""
        );
    }
}
