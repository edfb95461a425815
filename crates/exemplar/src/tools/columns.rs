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
    /// Numbers by value, text by its bytes (R's C-locale order); a column holds one kind.
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
    match name {
        "id" => Ok(records
            .iter()
            .map(|r| ColumnValue::Text(r.id.clone()))
            .collect()),
        "yi" => Ok(records.iter().map(|r| ColumnValue::Number(r.yi)).collect()),
        "vi" => Ok(records.iter().map(|r| ColumnValue::Number(r.vi)).collect()),
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
            let mut values = Vec::with_capacity(records.len());
            let column = data.column(name);
            for (at, record) in records.iter().enumerate() {
                values.push(match column.and_then(|c| c.get(at)) {
                    Some(super::data::Cell::Text(text)) => ColumnValue::Text(text.to_owned()),
                    Some(super::data::Cell::Number(n)) => {
                        ColumnValue::Number(n.as_f64().unwrap_or(f64::NAN))
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
            let numbers = values
                .iter()
                .filter(|v| matches!(v, ColumnValue::Number(_)))
                .count();
            if numbers != 0 && numbers != values.len() {
                return Err(ToolError::new(
                    ErrorCode::InvalidRecords,
                    format!(
                        "the column {} mixes numbers and text; a column holds one kind",
                        crate::quote::quoted(name)
                    ),
                ));
            }
            Ok(values)
        }
    }
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
        assert!(column_values(&dated, "arm")
            .unwrap_err()
            .message
            .contains("mixes numbers and text"));
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
