//! `get_dataset`: the frozen dataset with every column.

use super::args::NoArgs;
use super::data::DataSource;
use super::ToolError;
use crate::dataset::{self, DatasetView};

#[cfg(feature = "definitions")]
pub fn description() -> String {
    format!(
        "The frozen dataset, metadat's dat.raudenbush1985 (teacher expectancy, pupil IQ): 19 \
records, s01-s19 (s04, s05: two samples of one study), every column ({}), its CSV's SHA-256 \
and provenance.",
        dataset::COLUMNS.join(", ")
    )
}

/// `get_dataset` (the frozen dataset, whatever the call's data source).
pub fn get_dataset(_: NoArgs, _: &DataSource) -> Result<&'static DatasetView, ToolError> {
    Ok(dataset::view())
}
