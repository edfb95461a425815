//! The columns a tool can order records by: the one place a tool reads a record's properties
//! beyond (id, yi, vi).
//!
//! The frozen dataset has all the columns of [`crate::dataset::COLUMNS`]; records given by the
//! caller have id, yi and vi only, until the records schema carries extra columns (then
//! [`column_values`] is the one function to extend).

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
        _ => Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "{name:?} is not a column of the given records: records given in `records` \
                 have only id, yi and vi (other columns exist only in the frozen dataset)"
            ),
        )),
    }
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
            e.message.contains("have only id, yi and vi"),
            "{}",
            e.message
        );
    }
}
