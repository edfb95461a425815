//! `subset` and `slab`, which every tool that reads records takes: the dispatch applies them
//! to the call's data before the tool runs (the 2x2 tools apply them to their own rows).

use super::{data, DataSource, ToolError};
use serde_json::Value;

/// `subset` and `slab`, read once for every tool that reads records: the records kept and
/// the column of study labels.
/// Without `extended` (the page's first module) neither is read: the whole engine answers.
#[cfg(not(feature = "extended"))]
pub(super) fn restricted(
    data: std::sync::Arc<DataSource>,
    args: &Value,
) -> Result<std::sync::Arc<DataSource>, ToolError> {
    match [SUBSET, SLAB]
        .into_iter()
        .find(|name| args.get(*name).is_some())
    {
        Some(name) => Err(super::error::whole_engine(&format!("`{name}`"))),
        None => Ok(data),
    }
}

/// `subset` and `slab`, read once for every tool that reads records: the records kept and
/// the column of study labels.
#[cfg(feature = "extended")]
pub(super) fn restricted(
    data: std::sync::Arc<DataSource>,
    args: &Value,
) -> Result<std::sync::Arc<DataSource>, ToolError> {
    let (subset, slab) = (args.get(SUBSET), args.get(SLAB).and_then(Value::as_str));
    if subset.is_none() && slab.is_none() {
        return Ok(data);
    }
    Ok(std::sync::Arc::new(restrict(&data, subset, slab)?))
}

/// The records of `data` that `subset` keeps (all without it), labelled by `slab`.
#[cfg_attr(not(feature = "extended"), allow(dead_code))]
pub(super) fn restrict(
    data: &DataSource,
    subset: Option<&Value>,
    slab: Option<&str>,
) -> Result<DataSource, ToolError> {
    let mut data = match subset {
        Some(subset) => data.subset(&data::Subset::parse(subset)?)?,
        None => DataSource::clone(data),
    };
    if let Some(slab) = slab {
        data = data.with_slab(slab)?;
    }
    Ok(data)
}

/// `subset`: the records to keep before anything else, by one column's values.
pub const SUBSET: &str = "subset";
/// `slab`: the column of study labels (plots, per-record results).
pub const SLAB: &str = "slab";
