//! `get_dataset`: the frozen dataset with every column.

use super::args::NoArgs;
use super::data::DataSource;
use super::ToolError;
use crate::dataset::{self, DatasetView};

#[cfg(feature = "definitions")]
pub fn description() -> String {
    format!(
        "The frozen benchmark dataset, metadat's dat.raudenbush1985 (teacher expectancy and \
pupil IQ): 19 records from 18 experiments, s01-s19 in study order (s04 and s05: two samples of \
Pellegrini & Hicks 1972, tester aware and blind), with every column ({}), the SHA-256 of its \
exact CSV bytes, the baseline version and the provenance.",
        dataset::COLUMNS.join(", ")
    )
}

/// `get_dataset` (the frozen dataset, whatever the call's data source).
pub fn get_dataset(_: NoArgs, _: &DataSource) -> Result<&'static DatasetView, ToolError> {
    Ok(dataset::view())
}
