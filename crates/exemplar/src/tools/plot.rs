//! What the plot tools share: a plot's title and the records' row labels.

use super::data::DataSource;

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
    let column = data.column(LABEL_COLUMN)?;
    if !column.iter().any(|c| c.is_some_and(|c| c.is_string())) {
        return None;
    }
    Some(
        data.records()
            .iter()
            .zip(column.iter())
            .map(|(r, c)| match c.and_then(|c| c.as_str()) {
                Some(label) if !label.trim().is_empty() => label.to_owned(),
                _ => r.id.clone(),
            })
            .collect(),
    )
}
