//! `get_dataset`: the frozen dataset with every column.

use super::args::NoArgs;
use super::data::DataSource;
use super::ToolError;
use crate::dataset::{self, DatasetView};

#[cfg(feature = "definitions")]
pub fn description() -> String {
    format!(
        "Returns the frozen benchmark dataset, metadat's dat.raudenbush1985 (teacher \
expectancy and pupil IQ): 19 effect-size records from 18 experiments, ids s01-s19 in study order; \
s04 and s05 are two samples of Pellegrini & Hicks (1972), tester aware and blind. Each record has \
all columns: {}. Also returns the dataset's SHA-256 (of the exact CSV bytes), the baseline \
version and the provenance. Takes no arguments.",
        dataset::COLUMN_DESCRIPTIONS
            .iter()
            .map(|(name, what)| format!("{name} ({what})"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `get_dataset` (the frozen dataset, whatever the call's data source).
pub fn get_dataset(_: NoArgs, _: &DataSource) -> Result<&'static DatasetView, ToolError> {
    Ok(dataset::view())
}
