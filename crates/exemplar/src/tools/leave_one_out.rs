//! `leave_one_out`: the fit again without each record in turn.

use super::args::ExcludeFitArgs;
use super::data::{DataSource, DatasetInfo};
use super::fit::{FitHead, FitStats};
use super::scale::{Scale, ScaleInfo};
use super::{Tool, ToolError, ToolGroup, MAX_LEAVE_ONE_OUT_RECORDS};
use serde::Serialize;

pub static LEAVE_ONE_OUT: Tool = Tool {
    name: "leave_one_out",
    title: "Leave-one-out analysis",
    summary: "The fit again without each record in turn.",
    group: ToolGroup::Analysis,
    max_records: MAX_LEAVE_ONE_OUT_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "As metafor's leave1out(): one fit per record left out, in record order, `omitted` \
naming it."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(leave_one_out),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::{json, Value};
    let mut calls: Vec<Value> = examples::methods().map(|m| json!({"method": m})).collect();
    calls.push(json!({"records": examples::records()}));
    calls.push(json!({"exclude": ["s04"], "test": "knha", "level": 0.9}));
    calls
}

/// One row of `leave_one_out`: the fit without record `omitted`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LeaveOneOutRow {
    /// The id of the record left out.
    pub omitted: String,
    #[serde(flatten)]
    pub head: FitHead,
    #[serde(flatten)]
    pub stats: FitStats,
}

/// `leave_one_out`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LeaveOneOutResult {
    pub method: crate::tools::Word,
    pub test: crate::tools::Word,
    pub level: f64,
    /// All records (each row fits k - 1).
    pub k: usize,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// One fit per record, in record order.
    pub results: Vec<LeaveOneOutRow>,
    pub dataset: DatasetInfo,
}

/// `leave_one_out`: each record left out in turn, of the records left after `exclude`.
pub fn leave_one_out(
    args: ExcludeFitArgs,
    data: &DataSource,
) -> Result<LeaveOneOutResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let excluded = args.exclude.of(data)?;
    let kept = data.kept(&excluded);
    let rows = meta_analysis::leave_one_out(&kept, &options)?;
    Ok(LeaveOneOutResult {
        method: options.method.name().into(),
        test: options.test.name().into(),
        level: options.level,
        k: kept.len(),
        scale: scale.info(),
        results: rows
            .iter()
            .map(|row| LeaveOneOutRow {
                omitted: row.id.clone(),
                head: FitHead::of(&row.fit),
                stats: FitStats::of(&row.fit, &scale),
            })
            .collect(),
        dataset: data.info().clone(),
    })
}

/// Bridge: the printer not yet written here, typed, reads the serialized result.
impl crate::printed::Printed for LeaveOneOutResult {
    fn print(&self, out: &mut crate::printed::Out) {
        let v = serde_json::to_value(self).expect("results serialize");
        let mut print = || -> Option<()> { crate::summary::leave_one_out(out, &v) };
        let _ = print();
    }
}
