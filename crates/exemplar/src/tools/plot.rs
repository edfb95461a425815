//! What the plot tools share: a plot's title and the records' row labels.

use super::data::DataSource;
use serde_json::Value;

/// "<Kind> plot of dat.raudenbush1985", or "… of the given records".
pub(super) fn title(kind: &str, data: &DataSource) -> String {
    if data.is_frozen() {
        format!("{kind} plot of {}", data.info().name)
    } else {
        format!("{kind} plot of the given records")
    }
}

/// The column of a record that labels its forest-plot row (metafor's `slab`).
pub(super) const LABEL_COLUMN: &str = "label";

/// Each record's row label: "s04 Pellegrini & Hicks, 1972" (id, author and year) for the
/// frozen dataset; the `label` column of given records (the id where a record has none);
/// `None` when no record has a label.
pub(super) fn record_labels(data: &DataSource) -> Option<Vec<String>> {
    if data.is_frozen() {
        return Some(
            crate::dataset::rows()
                .iter()
                .map(|r| format!("{} {}, {}", r.id, r.author, r.year))
                .collect(),
        );
    }
    let columns = data.record_columns();
    if !columns
        .iter()
        .any(|c| c.get(LABEL_COLUMN).is_some_and(Value::is_string))
    {
        return None;
    }
    Some(
        data.records()
            .iter()
            .zip(columns)
            .map(|(r, c)| match c.get(LABEL_COLUMN) {
                Some(Value::String(label)) if !label.trim().is_empty() => label.clone(),
                _ => r.id.clone(),
            })
            .collect(),
    )
}
