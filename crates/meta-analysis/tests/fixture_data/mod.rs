//! Reading the oracle fixtures (`tests/fixtures/*.json`, written by `tests/oracle/*.R`):
//! a fixture's `datasets`, each with `ids`, `yi`, `vi` and its `columns`. Shared by the
//! oracle tests that read datasets this way; each test uses what it needs.
#![allow(dead_code)]

use meta_analysis::{Moderator, Record};
use serde_json::Value;

/// The dataset called `name` in a fixture's `datasets`.
pub fn dataset<'a>(all: &'a Value, name: &str) -> &'a Value {
    all["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("no dataset {name}"))
}

/// A dataset's records, from its `ids`, `yi` and `vi`.
pub fn records(ds: &Value) -> Vec<Record> {
    let ids = ds["ids"].as_array().unwrap();
    (0..ids.len())
        .map(|i| {
            Record::new(
                ids[i].as_str().unwrap(),
                ds["yi"][i].as_f64().unwrap(),
                ds["vi"][i].as_f64().unwrap(),
            )
        })
        .collect()
}

/// An array of numbers.
pub fn numbers(values: &Value) -> Vec<f64> {
    values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// The moderator of column `name`: a factor when the column holds text, else numeric.
pub fn moderator(ds: &Value, name: &str) -> Moderator {
    let column = ds["columns"][name].as_array().unwrap();
    if column[0].is_string() {
        Moderator::factor(
            name,
            column
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect(),
        )
    } else {
        Moderator::numeric(name, numbers(&ds["columns"][name]))
    }
}
