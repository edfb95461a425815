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

/// The short name heading a plot's estimate column on the scale written: the measure's
/// name ("RR [95% CI]") when the text is on its natural scale or on yi's own; else none
/// ("Estimate [95% CI]").
pub(super) fn measure_heading(scale: &Scale) -> Option<&'static str> {
    let m = scale.measure?;
    (scale.transform.name() == m.transform.name()).then_some(m.name)
}

/// The column of a record that labels its forest-plot row (metafor's `slab`).
pub(super) const LABEL_COLUMN: &str = "label";

/// Each record's row label: the `slab` column a call named (numbers written as R writes
/// them); else "s04 Pellegrini & Hicks, 1972" (id, author and year) for the frozen dataset
/// (a subset of it too); else the `label` column of given records. The id where a record
/// has no label; `None` when no record has one.
pub(super) fn record_labels(data: &DataSource) -> Option<Vec<String>> {
    let frozen_label = |id: &str| {
        crate::dataset::rows()
            .iter()
            .find(|r| r.id == id)
            .map(|r| format!("{} {}, {}", r.id, r.author, r.year))
    };
    if let Some(slab) = data.slab() {
        if data.is_frozen()
            || (data.info().name == crate::dataset::NAME && data.column(slab).is_none())
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
        return Some(
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
        );
    }
    if data.info().name == crate::dataset::NAME {
        return Some(
            data.records()
                .iter()
                .map(|r| frozen_label(&r.id).unwrap_or_else(|| r.id.clone()))
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
