//! `get_dataset`: the frozen dataset with every column.

use super::args::NoArgs;
use super::data::DataSource;
use super::{Tool, ToolError, ToolGroup};
use crate::dataset::{self, DatasetView};

pub static GET_DATASET: Tool = Tool {
    name: "get_dataset",
    title: "Get the frozen dataset",
    summary: "All 19 records, every column, the SHA-256 and provenance.",
    group: ToolGroup::Benchmark,
    max_records: 0,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description,
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(get_dataset; no summary),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![json!({})]
}

#[cfg(feature = "definitions")]
fn description() -> String {
    format!(
        "metadat's {} (teacher expectancy and pupil IQ) with its CSV's SHA-256 and provenance. \
s04 and s05 are two samples of one study.",
        dataset::NAME
    )
}

/// `get_dataset` (the frozen dataset, whatever the call's data source).
pub fn get_dataset(_: NoArgs, _: &DataSource) -> Result<&'static DatasetView, ToolError> {
    Ok(dataset::view())
}
