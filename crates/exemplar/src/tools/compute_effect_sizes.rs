//! `compute_effect_sizes`: records `{id, yi, vi, …}` from study-level raw data, as
//! metafor's `escalc`.

use super::data::{DataSource, DatasetInfo};
use super::effect_sizes::{compute, options, EffectSizeRecord, RowError, RAW_DATA_NAME};
use super::{ErrorCode, Tool, ToolError, ToolGroup, MAX_RAW_DATA_ROWS};
use crate::canonical;
use meta_analysis::effect_sizes::Measure;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub static COMPUTE_EFFECT_SIZES: Tool = Tool {
    name: "compute_effect_sizes",
    title: "Effect sizes from raw data",
    summary:
        "Records (id, yi, vi) from means and SDs, 2x2 tables, correlations or counts, as escalc.",
    group: ToolGroup::Data,
    max_records: 0,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description,
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(compute_effect_sizes),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![json!({"measure": "RD", "data": [
        {"id": "x", "ai": 1, "bi": 9, "ci": 0, "di": 10, "site": "north"},
        {"ai": 3, "n1i": 10, "ci": 2, "n2i": 12, "site": null}
    ], "add": 0.5, "to": "all"})]
}

#[cfg(feature = "definitions")]
fn description() -> String {
    format!(
        "Effect sizes yi and variances vi from study-level raw data, as metafor 3.8-1's escalc \
(vtype LS; SMD: Hedges' g, exact correction). Rows without an id get row1, row2, ...; other \
columns are kept; each record carries `measure`. A row giving no effect size refuses the call, \
listing each such row and column. At most {MAX_RAW_DATA_ROWS} rows."
    )
}

/// The most bad rows one error message lists.
const LISTED_ERRORS: usize = 20;

/// `compute_effect_sizes`' arguments.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct EffectSizeArgs {
    #[cfg_attr(
        feature = "definitions",
        schemars(schema_with = "super::effect_sizes::measure_schema")
    )]
    measure: String,
    #[cfg_attr(feature = "definitions", schemars(schema_with = "super::effect_sizes::data_schema", description = format!("One object per study: an optional id, the measure's columns (numbers or numeric text; {}; a 2x2 table may give n1i instead of bi, n2i instead of di), other columns kept.", super::effect_sizes::columns_by_measure())))]
    data: Vec<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "definitions",
        schemars(schema_with = "super::effect_sizes::add_schema")
    )]
    add: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "definitions",
        schemars(schema_with = "super::effect_sizes::to_schema")
    )]
    to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "definitions",
        schemars(schema_with = "super::raw_columns::schema")
    )]
    columns: Option<Map<String, Value>>,
}

/// `compute_effect_sizes`' result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct EffectSizesResult {
    /// The measure, by escalc's name.
    pub measure: &'static str,
    /// Records computed (one per row of data).
    pub k: usize,
    /// One record per row, in order.
    pub records: Vec<EffectSizeRecord>,
    /// "raw data" and the SHA-256 of the canonical JSON of `data`.
    pub dataset: DatasetInfo,
}

/// `compute_effect_sizes` (the raw `data`; the frozen dataset and `records` play no part).
pub fn compute_effect_sizes(
    args: EffectSizeArgs,
    _: &DataSource,
) -> Result<EffectSizesResult, ToolError> {
    let measure = Measure::parse(&args.measure).ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidArguments,
            format!("unknown measure {:?}", args.measure),
        )
    })?;
    if args.data.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            "data is empty; give one object per study",
        ));
    }
    if args.data.len() > MAX_RAW_DATA_ROWS {
        return Err(ToolError::new(
            ErrorCode::TooManyRecords,
            format!(
                "too many rows: {} given, at most {MAX_RAW_DATA_ROWS} are accepted",
                args.data.len()
            ),
        ));
    }
    let options = options(args.add, args.to.as_deref())?;
    let data = super::raw_columns::mapped(measure, args.columns.as_ref(), &args.data)?;
    let outcomes = compute(measure, &data, &options);
    let errors: Vec<&RowError> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    if !errors.is_empty() {
        let mut listed: Vec<String> = errors
            .iter()
            .take(LISTED_ERRORS)
            .map(|e| e.to_string())
            .collect();
        if errors.len() > LISTED_ERRORS {
            listed.push(format!("and {} more", errors.len() - LISTED_ERRORS));
        }
        return Err(ToolError::new(
            ErrorCode::InvalidData,
            format!(
                "{} of {} rows give no {} ({}): {}",
                errors.len(),
                outcomes.len(),
                measure.name(),
                measure.title(),
                listed.join("; ")
            ),
        ));
    }
    let records: Vec<EffectSizeRecord> = outcomes.into_iter().filter_map(Result::ok).collect();
    let data = Value::Array(args.data.into_iter().map(Value::Object).collect());
    Ok(EffectSizesResult {
        measure: measure.name(),
        k: records.len(),
        records,
        dataset: DatasetInfo {
            name: RAW_DATA_NAME,
            sha256: canonical::sha256_hex(&data),
        },
    })
}
