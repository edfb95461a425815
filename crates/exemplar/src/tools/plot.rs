//! What the plot tools share: a plot's title and subtitle (what was fitted) and the
//! records' row labels.

use super::data::DataSource;
use super::scale::Scale;
use meta_analysis::{Method, Transform};

/// "<Kind> plot of dat.raudenbush1985", or "… of the given records" (the diagnostic plots,
/// whose subtitle names the model).
pub(super) fn title(kind: &str, data: &DataSource) -> String {
    if data.is_frozen() {
        format!("{kind} plot of {}", data.info().name)
    } else {
        format!("{kind} plot of the given records")
    }
}

/// "<Kind> plot: <measure>", the measure as the axis reads it: "Forest plot: Risk ratio"
/// when the text is on the natural scale (`natural`), else yi's ("Log risk ratio",
/// "Standardized mean difference"); "… : effect sizes (yi)" when the measure is unknown.
pub(super) fn measure_title(kind: &str, scale: &Scale, natural: bool) -> String {
    let measure = match scale.measure {
        Some(m) if natural && scale.transform != Transform::None => {
            if m.transform.name() == scale.transform.name() {
                m.natural_title.to_string()
            } else {
                format!("{}({})", scale.transform.name(), m.title)
            }
        }
        Some(m) => m.title.to_string(),
        None if natural && scale.transform != Transform::None => {
            format!("{}(yi)", scale.transform.name())
        }
        None => "effect sizes (yi)".to_string(),
    };
    format!("{kind} plot: {measure}")
}

/// The model as metafor names it: "Random-effects model (REML)", "Equal-effects model".
pub(super) fn model_name(method: Method) -> String {
    match method {
        Method::Ee => "Equal-effects model".into(),
        Method::Fe => "Fixed-effects model".into(),
        m => format!("Random-effects model ({})", m.name()),
    }
}

/// The line under a plot's title: what was fitted, to how many records, and on which data
/// when it is a named dataset: "Random-effects model (REML), k = 18; dat.raudenbush1985".
pub(super) fn subtitle(model: &str, k: usize, data: &DataSource) -> String {
    with_data(format!("{model}, k = {k}"), data)
}

/// `fitted`, and "; dat.raudenbush1985" when the records are the named dataset's and the
/// line still fits a phone-wide plot (59 characters at 11 px in 366 px).
pub(super) fn with_data(fitted: String, data: &DataSource) -> String {
    let named = format!("{fitted}; {}", data.info().name);
    if data.info().name == crate::dataset::NAME && named.chars().count() <= 59 {
        named
    } else {
        fitted
    }
}

/// The name heading a plot's estimate column on the scale written: the natural scale's name
/// (the measures' one table, [`meta_analysis::MEASURES`]: "Correlation [95%
/// CI]" over ZCOR back-transformed, "Odds ratio [95% CI]" over OR's) when the values are
/// back-transformed; the measure's name ("SMD [95% CI]") for a measure that is its own
/// natural scale; else none ("Estimate [95% CI]").
pub(super) fn measure_heading(scale: &Scale) -> Option<&'static str> {
    let m = scale.measure?;
    if scale.transform.name() != m.transform.name() {
        return None;
    }
    Some(match m.transform {
        meta_analysis::TransformKind::None => m.name,
        _ => m.natural_title,
    })
}

/// The column of a record that labels its forest-plot row (metafor's `slab`).
pub(super) const LABEL_COLUMN: &str = "label";

/// Each record's row label: the `slab` column a call named (numbers written as R writes
/// them); else "s04 Pellegrini & Hicks, 1972" (id, author and year) for the frozen dataset
/// (a subset of it too); else the `label` column of given records. The id where a record
/// has no label; `None` when no record has one.
pub(super) fn record_labels(data: &DataSource) -> Option<Vec<String>> {
    if let Some(slab) = data.slab() {
        return slab_labels(data, slab);
    }
    if data.info().name == crate::dataset::NAME {
        return Some(frozen_labels(data));
    }
    label_column_labels(data).or_else(|| author_year_labels(data))
}

/// The labels from the `slab` column a call named: the frozen dataset's (a subset of it
/// too, where the records do not keep the column), else the records' own column (numbers
/// written as R writes them); the id where a record has none.
fn slab_labels(data: &DataSource, slab: &str) -> Option<Vec<String>> {
    if data.is_frozen() || (data.info().name == crate::dataset::NAME && data.column(slab).is_none())
    {
        let rows = crate::dataset::rows();
        return Some(
            data.records()
                .iter()
                .map(|r| {
                    let row = rows.iter().find(|row| row.id == r.id);
                    let value = row
                        .and_then(|row| serde_json::to_value(row).ok())
                        .map(|v| v[slab].clone());
                    match value {
                        Some(serde_json::Value::String(s)) => s,
                        Some(serde_json::Value::Number(n)) => n.to_string(),
                        _ => r.id.clone(),
                    }
                })
                .collect(),
        );
    }
    let column = data.column(slab)?;
    Some(
        data.records()
            .iter()
            .zip(column.iter())
            .map(|(r, c)| match c {
                Some(c) => match c.to_value() {
                    serde_json::Value::String(s) if !s.trim().is_empty() => s,
                    serde_json::Value::Number(n) => n
                        .as_f64()
                        .map_or_else(|| n.to_string(), meta_analysis::r_number),
                    _ => r.id.clone(),
                },
                None => r.id.clone(),
            })
            .collect(),
    )
}

/// The frozen dataset's labels, "s04 Pellegrini & Hicks, 1972" (id, author and year); the
/// id of a record not in it.
fn frozen_labels(data: &DataSource) -> Vec<String> {
    let frozen_label = |id: &str| {
        crate::dataset::rows()
            .iter()
            .find(|r| r.id == id)
            .map(|r| format!("{} {}, {}", r.id, r.author, r.year))
    };
    data.records()
        .iter()
        .map(|r| frozen_label(&r.id).unwrap_or_else(|| r.id.clone()))
        .collect()
}

/// Each record's text in the column `name` (numbers written as R writes them; `None` for
/// a blank or missing cell); `None` when the records have no such column.
fn column_texts(data: &DataSource, name: &str) -> Option<Vec<Option<String>>> {
    let column = data.column(name)?;
    Some(
        column
            .iter()
            .map(|c| match c.map(|c| c.to_value()) {
                Some(serde_json::Value::String(s)) if !s.trim().is_empty() => Some(s),
                Some(serde_json::Value::Number(n)) => Some(
                    n.as_f64()
                        .map_or_else(|| n.to_string(), meta_analysis::r_number),
                ),
                _ => None,
            })
            .collect::<Vec<_>>(),
    )
}

/// Whether a column's texts hold at least one.
fn any_text(values: &Option<Vec<Option<String>>>) -> bool {
    values
        .as_ref()
        .is_some_and(|v| v.iter().any(Option::is_some))
}

/// The labels from the `label` column of given records (when it holds some text); the id
/// where a record has none.
fn label_column_labels(data: &DataSource) -> Option<Vec<String>> {
    let label = column_texts(data, LABEL_COLUMN).filter(|_| {
        data.column(LABEL_COLUMN)
            .is_some_and(|c| c.iter().any(|c| c.is_some_and(|c| c.is_string())))
    });
    if any_text(&label) {
        let label = label.unwrap_or_default();
        return Some(
            data.records()
                .iter()
                .enumerate()
                .map(|(at, r)| {
                    label
                        .get(at)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| r.id.clone())
                })
                .collect(),
        );
    }
    None
}

/// Author and year ("Andrade et al., 2005", as metafor's examples paste them), author
/// alone where a record has no year; the id where it has no author. `None` when no record
/// has an author.
fn author_year_labels(data: &DataSource) -> Option<Vec<String>> {
    let (authors, years) = (
        column_texts(data, AUTHOR_COLUMN),
        column_texts(data, YEAR_COLUMN),
    );
    if !any_text(&authors) {
        return None;
    }
    let authors = authors.unwrap_or_default();
    let years = years.unwrap_or_default();
    Some(
        data.records()
            .iter()
            .enumerate()
            .map(|(at, r)| {
                match (
                    authors.get(at).cloned().flatten(),
                    years.get(at).cloned().flatten(),
                ) {
                    (Some(author), Some(year)) => format!("{author}, {year}"),
                    (Some(author), None) => author,
                    (None, _) => r.id.clone(),
                }
            })
            .collect(),
    )
}

/// The columns of given records that label a forest row when they have no `label`.
const AUTHOR_COLUMN: &str = "author";
const YEAR_COLUMN: &str = "year";
