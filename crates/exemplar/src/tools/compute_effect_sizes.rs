//! `compute_effect_sizes`: records `{id, yi, vi, …}` from study-level raw data, as
//! metafor's `escalc`.

use super::data::{DataSource, DatasetInfo};
use super::data::Omitted;
use super::effect_sizes::{
    compute, kept, EffectSizeRecord, EscalcSettings, RAW_DATA_NAME,
};
use super::{ErrorCode, Tool, ToolError, ToolGroup, MAX_RAW_DATA_ROWS};
use crate::canonical;
use meta_analysis::effect_sizes::Measure;
use serde::Serialize;
use serde_json::{Map, Value};

pub static COMPUTE_EFFECT_SIZES: Tool = Tool {
    name: "compute_effect_sizes",
    title: "Effect sizes from raw data",
    summary: "Records (id, yi, vi) from means, 2x2 tables, correlations or counts.",
    group: ToolGroup::Data,
    max_records: 0,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description,
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(compute_effect_sizes; no summary, reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![json!({"measure": "RD", "data": [
        {"id": "x", "ai": 1, "bi": 9, "ci": 0, "di": 10, "site": "north"},
        {"ai": 3, "n1i": 10, "ci": 2, "n2i": 12, "site": null}
    ], "add": 0.5, "to": "all", "vtype": "UB", "drop00": true})]
}

#[cfg(feature = "definitions")]
fn description() -> String {
    "As metafor's escalc (SMD: Hedges' g, exact correction). Rows without id: row1, row2, ...; \
a repeated id: id#2, ... (`notes`). Rows escalc gives NA (blank, non-numeric, undefined) are \
in `omitted`."
        .to_string()
}

composed_args! {
    /// `compute_effect_sizes`' arguments.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct EffectSizeArgs {
        #[cfg_attr(
            feature = "definitions",
            schemars(schema_with = "super::effect_sizes::measure_schema")
        )]
        pub(super) measure: String,
        #[cfg_attr(feature = "definitions", schemars(schema_with = "super::effect_sizes::data_schema", description = format!("A row per study, at most {MAX_RAW_DATA_ROWS}: optional id, the measure's columns as numbers or numeric text ({}; n1i may stand for bi, n2i for di), other columns kept.", super::effect_sizes::columns_by_measure())))]
        pub(super) data: Vec<Map<String, Value>>,
        #[flat]
        pub(super) escalc: EscalcSettings,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(
            feature = "definitions",
            schemars(schema_with = "super::raw_columns::schema")
        )]
        pub(super) columns: Option<Map<String, Value>>,
    }
}

/// `compute_effect_sizes`' result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct EffectSizesResult {
    /// The measure, by escalc's name.
    pub measure: crate::tools::Word,
    /// Records computed: the rows of data that give an effect size.
    pub k: usize,
    /// One record per row that gives an effect size, in order.
    pub records: Vec<EffectSizeRecord>,
    /// The rows that give none (a missing, blank or non-numeric value, or values for which
    /// the measure is undefined), in order, each with its reason; left out of `records`.
    pub omitted: Vec<Omitted>,
    /// What was done to rows that are kept: repeated ids made unique (the n-th row with an
    /// id is renamed id#n), records with vi = 0; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
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
    let options = args.escalc.settings(measure)?;
    let data = super::raw_columns::mapped(measure, args.columns.as_ref(), &args.data)?;
    let (outcomes, notes) = compute(measure, &data, &options);
    let (records, omitted) = kept(measure, outcomes)?;
    let data = Value::Array(args.data.into_iter().map(Value::Object).collect());
    Ok(EffectSizesResult {
        measure: measure.name().into(),
        k: records.len(),
        records,
        omitted,
        notes,
        dataset: DatasetInfo {
            name: RAW_DATA_NAME.into(),
            sha256: canonical::sha256_hex(&data),
            data_id: None,
            subset: None,
            notes: Vec::new(),
        },
    })
}

/// `escalc(measure, <columns>, data = dat, add, to, vtype, drop00)`: `res` holds every
/// row's yi and vi (NA where the engine lists the row in `omitted`).
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for EffectSizeArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use crate::rcode::{name, number, string, Script, VIECHTBAUER_2010};
        use meta_analysis::effect_sizes::Column;
        let mapped = |c: Column| {
            self.columns
                .as_ref()
                .and_then(|m| m.get(c.name()))
                .and_then(Value::as_str)
                .unwrap_or(c.name())
                .to_string()
        };
        let has = |c: Column| cx.data.column(&mapped(c)).is_some();
        let mut args = vec![format!("measure = {}", string(&self.measure))];
        for (cell, total, arm) in [
            (Column::Bi, Column::N1i, Column::Ai),
            (Column::Di, Column::N2i, Column::Ci),
        ] {
            if has(cell) && has(total) && has(arm) {
                let (c, t, a) = (name(&mapped(cell)), name(&mapped(total)), name(&mapped(arm)));
                out.script.comment(&format!(
                    "Rows give {} or {}: escalc takes one of them for every row.",
                    cell.name(),
                    total.name()
                ));
                out.script
                    .line(format!("dat${c} <- ifelse(is.na(dat${c}), dat${t} - dat${a}, dat${c})"));
            }
        }
        for column in Column::ALL {
            if has(column) {
                args.push(format!("{} = {}", column.name(), name(&mapped(column))));
            }
        }
        args.push("data = dat".into());
        let settings = &self.escalc;
        if let Some(add) = settings.add {
            args.push(format!("add = {}", number(add)));
        }
        if let Some(to) = &settings.to {
            args.push(format!("to = {}", string(to)));
        }
        if let Some(vtype) = &settings.vtype {
            args.push(format!("vtype = {}", string(vtype)));
        }
        if let Some(drop00) = settings.drop00 {
            args.push(format!("drop00 = {}", if drop00 { "TRUE" } else { "FALSE" }));
        }
        out.script
            .line(format!("res <- {}", Script::call("escalc", &args)));
        // Each record's row: its position among the rows (ids as the engine names them).
        let ids = cx.data.records();
        for record in cx.result["records"].as_array().into_iter().flatten() {
            let Some(id) = record["id"].as_str() else { continue };
            let rows: Vec<usize> = (0..ids.len()).filter(|&i| ids[i].id == id).collect();
            if let [row] = rows[..] {
                out.check_at(format!("res$yi[{}]", row + 1), record, "/yi")
                    .check_at(format!("res$vi[{}]", row + 1), record, "/vi");
            }
        }
        out.methods.say(
            &format!(
                "The effect sizes ({}) and their sampling variances were computed from the \
                 studies' raw data with metafor's escalc() {{}}.",
                self.measure
            ),
            &[&VIECHTBAUER_2010],
        );
        Ok(())
    }
}
