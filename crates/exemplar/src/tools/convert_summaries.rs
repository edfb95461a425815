//! `convert_summaries`: a mean and SD from a median with its range and/or quartiles
//! (metafor's `conv.fivenum`), or yi and vi from an estimate with its confidence interval or
//! p value (`conv.wald`), row by row, with what each method assumes.

use super::data::DataSource;
use super::raw_columns::{read_value, Reading};
use super::{ErrorCode, Tool, ToolError, ToolGroup, MAX_RAW_DATA_ROWS};
use meta_analysis::{
    fivenum, level_alpha, wald, FiveNumbers, FivenumCase, FivenumMethod, SkewnessTest, WaldSource,
    WaldSummary, WaldTransform,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub static CONVERT_SUMMARIES: Tool = Tool {
    name: "convert_summaries",
    title: "Convert reported summaries",
    summary: "Means and SDs from medians; yi and vi from a CI or p.",
    group: ToolGroup::Data,
    max_records: 0,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "As metafor's conv.fivenum and conv.wald. fivenum: mean, SD from the median with min/max \
and/or q1/q3, n >= 5 (Luo 2018, Wan 2014, Shi 2020). wald: yi = transf(out), vi from ci.lb \
and ci.ub, else ci.ub, else a two-sided pval."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(convert_summaries; no summary, reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![
        json!({"kind": "fivenum", "rows": [
            {"id": "a", "min": 10, "median": 25, "max": 40, "n": 50},
            {"id": "b", "q1": 20, "median": 25, "q3": 30, "n": 50},
            {"id": "c", "min": 10, "q1": 20, "median": 25, "q3": 30, "max": 40, "n": 50}
        ]}),
        json!({"kind": "fivenum", "method": "wan2014", "test": false, "rows": [
            {"min": 0, "q1": 1, "median": 2, "q3": 10, "max": 100, "n": 200}
        ]}),
        json!({"kind": "wald", "transf": "log", "level": 95, "rows": [
            {"id": "or1", "out": 1.85, "ci.lb": 1.12, "ci.ub": 3.06},
            {"id": "or2", "out": 0.67, "pval": 0.04}
        ]}),
    ]
}

/// The two conversions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Fivenum,
    Wald,
}

/// `convert_summaries`' arguments.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ConvertSummariesArgs {
    /// The conversion.
    pub kind: Kind,
    #[cfg_attr(feature = "definitions", schemars(schema_with = "rows_schema"))]
    pub rows: Vec<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "method_schema"))]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "test_schema"))]
    pub test: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "level_schema"))]
    pub level: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "transf_schema"))]
    pub transf: Option<String>,
}

leaf_args!(ConvertSummariesArgs);

#[cfg(feature = "definitions")]
fn rows_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "array", "items": {"type": "object", "properties": {"id": {"type": ["string", "null"]}}}, "description": "Objects: optional id; fivenum: min, q1, median, q3, max, n; wald: out, ci.lb, ci.ub, pval, n."}))
        .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn method_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = FivenumMethod::ALL.iter().map(|m| m.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "default": FivenumMethod::default().name(), "description": "fivenum: estimators of mean and SD (hozo2005: range only; bland2015: all five)."}))
        .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn test_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "boolean", "default": true, "description": "fivenum: skip rows the skewness test rejects."}))
        .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn level_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "number", "minimum": 0, "maximum": 100, "default": 95, "description": "wald: the CI's level (95 or 0.95)."}))
        .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn transf_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = WaldTransform::ALL.iter().map(|t| t.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "default": WaldTransform::default().name(), "description": "wald: applied to out and bounds (log: ratios; atanh: correlations)."}))
        .expect("an object schema")
}

/// One row's conversion: its numbers, or why it gives none.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ConvertedRow {
    /// The row's id, or row1, row2, … by position.
    pub id: String,
    /// fivenum: the estimated mean.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    /// fivenum: the estimated standard deviation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sd: Option<f64>,
    /// fivenum: which numbers the row gave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<FivenumCase>,
    /// fivenum: Shi et al.'s (2023) skewness test of the row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skewness: Option<SkewnessTest>,
    /// wald: the effect size, on the scale of `transf`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub yi: Option<f64>,
    /// wald: its sampling variance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vi: Option<f64>,
    /// wald: what vi came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<WaldSource>,
    /// wald, both bounds given: |midpoint − yi|/width; above 0.1 the interval is not
    /// symmetric about yi on this scale (metafor warns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asymmetry: Option<f64>,
    /// The row's n, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<f64>,
    /// Why the row gives no conversion (absent when it does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `convert_summaries`' result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ConvertSummariesResult {
    pub kind: Kind,
    /// fivenum: the method used; wald: the level and transf.
    pub settings: Map<String, Value>,
    /// Rows converted.
    pub converted: usize,
    /// Every row, in order.
    pub rows: Vec<ConvertedRow>,
    /// What the conversion assumes; an estimate is only as good as these.
    pub assumptions: Vec<String>,
}

const FIVENUM_FIELDS: [&str; 6] = ["min", "q1", "median", "q3", "max", "n"];
const WALD_FIELDS: [&str; 5] = ["out", "ci.lb", "ci.ub", "pval", "n"];

fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::new(ErrorCode::InvalidArguments, message)
}

/// `convert_summaries`.
pub fn convert_summaries(
    args: ConvertSummariesArgs,
    _: &DataSource,
) -> Result<ConvertSummariesResult, ToolError> {
    let fields = check_args(&args)?;
    let mut rows = Vec::with_capacity(args.rows.len());
    for (i, row) in args.rows.iter().enumerate() {
        rows.push(read_row(i, row, fields)?);
    }
    let mut settings = Map::new();
    let (converted_rows, assumptions) = match args.kind {
        Kind::Fivenum => convert_fivenum(&args, rows, &mut settings)?,
        Kind::Wald => convert_wald(&args, rows, &mut settings)?,
    };
    Ok(ConvertSummariesResult {
        kind: args.kind,
        settings,
        converted: converted_rows.iter().filter(|r| r.reason.is_none()).count(),
        rows: converted_rows,
        assumptions,
    })
}

/// Checks the call: some rows and not too many, and none of the other kind's settings;
/// gives the fields each row of this kind holds.
fn check_args(args: &ConvertSummariesArgs) -> Result<&'static [&'static str], ToolError> {
    if args.rows.is_empty() {
        return Err(invalid("rows is empty; give one object per row"));
    }
    if args.rows.len() > MAX_RAW_DATA_ROWS {
        return Err(ToolError::new(
            ErrorCode::TooManyRecords,
            format!(
                "too many rows: {} given, at most {MAX_RAW_DATA_ROWS} are accepted",
                args.rows.len()
            ),
        ));
    }
    let (fields, inapplicable): (&[&str], Vec<(&str, bool)>) = match args.kind {
        Kind::Fivenum => (
            &FIVENUM_FIELDS,
            vec![("level", args.level.is_some()), ("transf", args.transf.is_some())],
        ),
        Kind::Wald => (
            &WALD_FIELDS,
            vec![("method", args.method.is_some()), ("test", args.test.is_some())],
        ),
    };
    if let Some((name, _)) = inapplicable.iter().find(|(_, given)| *given) {
        return Err(invalid(format!(
            "{name} does not apply to kind {:?}",
            kind_name(args.kind)
        )));
    }
    Ok(fields)
}

/// A row's id and its fields' values, in the order of its kind's fields.
type SummaryRow = (String, Vec<Option<f64>>);

/// Converts five-number summaries to means and SDs (recording the method and test in
/// `settings`); gives the converted rows and the assumptions.
fn convert_fivenum(
    args: &ConvertSummariesArgs,
    rows: Vec<SummaryRow>,
    settings: &mut Map<String, Value>,
) -> Result<(Vec<ConvertedRow>, Vec<String>), ToolError> {
    let method = match &args.method {
        None => FivenumMethod::default(),
        Some(name) => FivenumMethod::parse(name).ok_or_else(|| {
            invalid(format!(
                "unknown method {name:?}; give one of {}",
                FivenumMethod::ALL.map(|m| m.name()).join(", ")
            ))
        })?,
    };
    let test = args.test.unwrap_or(true);
    settings.insert("method".into(), method.name().into());
    settings.insert("test".into(), test.into());
    let out = rows
        .into_iter()
        .map(|(id, v)| {
            let five = five_numbers(&v);
            let mut row = empty_row(id, five.n);
            match fivenum(&five, method, test) {
                Ok(est) => {
                    row.mean = Some(est.mean);
                    row.sd = Some(est.sd);
                    row.case = Some(est.case);
                    row.skewness = Some(est.skewness);
                }
                Err(e) => {
                    if let meta_analysis::ConversionError::Skewed(t) = &e {
                        row.skewness = Some(*t);
                    }
                    row.reason = Some(e.to_string());
                }
            }
            row
        })
        .collect::<Vec<_>>();
    Ok((out, fivenum_assumptions(method, test)))
}

/// A fivenum row's numbers (min, q1, median, q3, max, n, as [`read_row`] reads them).
fn five_numbers(v: &[Option<f64>]) -> FiveNumbers {
    FiveNumbers {
        min: v[0],
        q1: v[1],
        median: v[2],
        q3: v[3],
        max: v[4],
        n: v[5],
    }
}

/// A wald row's numbers (out, ci.lb, ci.ub, pval, as [`read_row`] reads them).
fn wald_summary(v: &[Option<f64>]) -> WaldSummary {
    WaldSummary {
        out: v[0],
        ci_lb: v[1],
        ci_ub: v[2],
        pval: v[3],
    }
}

/// Converts Wald-type summaries (estimate, interval, p value) to yi and vi (recording the
/// level and transformation in `settings`); gives the converted rows and the assumptions.
fn convert_wald(
    args: &ConvertSummariesArgs,
    rows: Vec<SummaryRow>,
    settings: &mut Map<String, Value>,
) -> Result<(Vec<ConvertedRow>, Vec<String>), ToolError> {
    let level = args.level.unwrap_or(95.0);
    let transf = match &args.transf {
        None => WaldTransform::default(),
        Some(name) => WaldTransform::parse(name).ok_or_else(|| {
            invalid(format!(
                "unknown transf {name:?}; give one of {}",
                WaldTransform::ALL.map(|t| t.name()).join(", ")
            ))
        })?,
    };
    let alpha = level_alpha(level).map_err(|e| invalid(e.to_string()))?;
    settings.insert("level".into(), level.into());
    settings.insert("transf".into(), transf.name().into());
    let out = rows
        .into_iter()
        .map(|(id, v)| {
            let summary = wald_summary(&v);
            let mut row = empty_row(id, v[4]);
            match wald(&summary, level, transf) {
                Ok(est) => {
                    row.yi = Some(est.yi);
                    row.vi = Some(est.vi);
                    row.source = Some(est.source);
                    row.asymmetry = est.asymmetry;
                }
                Err(e) => row.reason = Some(e.to_string()),
            }
            row
        })
        .collect::<Vec<_>>();
    Ok((out, wald_assumptions(level, alpha, transf)))
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Fivenum => "fivenum",
        Kind::Wald => "wald",
    }
}

fn empty_row(id: String, n: Option<f64>) -> ConvertedRow {
    ConvertedRow {
        id,
        mean: None,
        sd: None,
        case: None,
        skewness: None,
        yi: None,
        vi: None,
        source: None,
        asymmetry: None,
        n,
        reason: None,
    }
}

/// A row's id and its fields' values (None: missing), refusing a field the kind does not
/// read (a misspelt name would otherwise be silently missing) and a value that is no number.
fn read_row(
    i: usize,
    row: &Map<String, Value>,
    fields: &[&str],
) -> Result<(String, Vec<Option<f64>>), ToolError> {
    let at = i + 1;
    let id = match row.get("id") {
        None | Some(Value::Null) => format!("row{at}"),
        Some(Value::String(s)) => s.clone(),
        Some(other) => return Err(invalid(format!("row {at}: id is {other}, not text"))),
    };
    if let Some(key) = row.keys().find(|k| *k != "id" && !fields.contains(&k.as_str())) {
        return Err(invalid(format!(
            "row {at}: unknown field {key:?}; this kind reads id, {}",
            fields.join(", ")
        )));
    }
    let values = fields
        .iter()
        .map(|name| match read_value(row.get(*name)) {
            Reading::Number(x) => Ok(Some(x)),
            Reading::Missing(_) => Ok(None),
            Reading::NotANumber(v) => Err(invalid(format!(
                "row {at}: {name} is {v}, not a number"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((id, values))
}

fn fivenum_assumptions(method: FivenumMethod, test: bool) -> Vec<String> {
    let estimators = match method {
        FivenumMethod::LuoWanShi => "the mean by Luo et al. (2018), the SD by Wan et al. (2014), or by Shi et al. (2020) when all five numbers are given: weighted combinations of the range, the quartiles and the median that are unbiased for normal data",
        FivenumMethod::Wan2014 => "the mean and SD by Wan et al. (2014): Hozo-type averages for the mean and the expected range and IQR of n normal values for the SD",
        FivenumMethod::Hozo2005 => "the mean and SD by Hozo et al. (2005) from the median and range only, with rules by n (mean: (min + 2 median + max)/4 up to n = 25, else the median; SD: range/4 up to n = 70, range/6 above)",
        FivenumMethod::Bland2015 => "the mean and SD by Bland (2015) from all five numbers only, bounds-based averages that assume no particular distribution but are most accurate for symmetric data",
    };
    vec![
        format!("Each row summarizes one group whose outcome is normally distributed (symmetric, no heavy tails); {estimators}."),
        "min and max are the sample's extremes, q1 and q3 its first and third quartiles, n the group's size (at least 5, as metafor's conv.fivenum).".into(),
        if test {
            "Shi et al.'s (2023) test checks each row for skewness at the 5% level; a row it rejects is not converted (skewness gives the statistic), since its mean and SD would be biased (give test: false to convert anyway).".into()
        } else {
            "test is false: every row is converted, also where Shi et al.'s (2023) skewness test rejects normality (skewness.skewed); such estimates are biased.".into()
        },
    ]
}

/// The assumptions of `conv.wald`'s conversion; the interval's coverage is stated as read
/// from `level` (α as [`level_alpha`]), so that a level of 0.05 or 1 says what it became.
fn wald_assumptions(level: f64, alpha: f64, transf: WaldTransform) -> Vec<String> {
    // 100 (1 − α) to 10 decimals: 1 − 0.99 is not exactly 0.01 in binary.
    let coverage = ((1.0 - alpha) * 1e12).round() / 1e10;
    let read_as = if level <= 0.5 {
        format!(" (level {level} read as α, as metafor reads a level of 0.5 or less)")
    } else {
        String::new()
    };
    let scale = match transf {
        WaldTransform::None => "the reported scale".to_string(),
        WaldTransform::Log => "the log scale (ratios: odds, risk, hazard or rate ratios)".to_string(),
        WaldTransform::Atanh => "Fisher's z scale (atanh of a correlation)".to_string(),
    };
    vec![
        format!("The {coverage}% interval{read_as} is Wald-type: yi ± z·SE with z the standard normal quantile, symmetric on {scale}; a t-based, profile-likelihood or exact interval gives an approximate vi (asymmetry above 0.1 flags an interval that is not symmetric about yi there)."),
        "A p value is two-sided, from a Wald z test of yi = 0 on the same scale: vi = (yi/z_p)^2 with z_p = Φ⁻¹(1 − p/2); a p value reported as a bound (p < 0.05) or rounded gives only an approximate vi.".into(),
        "Both bounds are used when given, else the upper bound with the estimate, else the p value; n is carried through, not used.".into(),
    ]
}

/// `r_code: true`: `conv.fivenum(...)` or `conv.wald(...)` on the rows as a data.frame, with
/// the call's method, test, level and transf (metafor 4.2 or later: 3.8-1 has neither).
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for ConvertSummariesArgs {
    const INLINE_ROWS: &'static str = "rows";

    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use crate::rcode::{self, Script};
        let fields = check_args(self)?;
        let rows = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| read_row(i, row, fields))
            .collect::<Result<Vec<_>, _>>()?;
        // A column named only where some row gives it a number: an absent argument is
        // metafor's NA, and a column of NA alone would be logical, not numeric.
        let given = |at: usize| rows.iter().any(|(_, v)| v[at].is_some());
        let mut args: Vec<String> = fields
            .iter()
            .enumerate()
            .filter(|&(at, _)| given(at))
            .map(|(_, field)| format!("{field} = {}", rcode::name(field)))
            .collect();
        let (function, invalid_rows) = match self.kind {
            Kind::Fivenum => {
                if !(0..5).any(given) {
                    args.push("median = rep(NA_real_, nrow(dat))".into());
                }
                args.push("data = dat".into());
                let method = self
                    .method
                    .as_deref()
                    .and_then(FivenumMethod::parse)
                    .unwrap_or_default();
                let test = self.test.unwrap_or(true);
                args.push(format!("method = {}", rcode::string(method.name())));
                args.push(format!("test = {}", if test { "TRUE" } else { "FALSE" }));
                let refused = fivenum_refused(&rows, method, test);
                fivenum_checks(out, cx.result);
                fivenum_methods(&mut out.methods, method, test);
                ("conv.fivenum", refused)
            }
            Kind::Wald => {
                args.push("data = dat".into());
                let level = self.level.unwrap_or(95.0);
                let transf = self
                    .transf
                    .as_deref()
                    .and_then(WaldTransform::parse)
                    .unwrap_or_default();
                if self.level.is_some() {
                    args.push(format!("level = {}", rcode::number(level)));
                }
                match transf {
                    WaldTransform::None => {}
                    WaldTransform::Log => args.push("transf = log".into()),
                    WaldTransform::Atanh => args.push("transf = atanh".into()),
                }
                let refused = wald_refused(&rows, level, transf);
                wald_checks(out, cx.result);
                let alpha = level_alpha(level).map_err(|e| invalid(e.to_string()))?;
                wald_methods(&mut out.methods, alpha, transf);
                ("conv.wald", refused)
            }
        };
        out.script.comment(&format!(
            "{function}() came with metafor 4.0 (its conventions here as in metafor 4.2 and \
             later); metafor 3.8-1 has none."
        ));
        if invalid_rows.iter().any(|&i| i) {
            out.script.comment(match self.kind {
                Kind::Fivenum => {
                    "include leaves out the rows the engine refuses (numbers out of order, n \
                     missing or below 5), on which metafor stops or gives a number."
                }
                Kind::Wald => {
                    "include leaves out the rows the engine refuses (bounds in the wrong \
                     order, a variance of 0), to which metafor gives a number."
                }
            });
            args.push(format!(
                "include = {}",
                rcode::vector(
                    invalid_rows
                        .iter()
                        .map(|&i| if i { "FALSE" } else { "TRUE" }.to_string())
                )
            ));
        }
        out.script
            .line(format!("res <- {}", Script::call(function, &args)));
        Ok(())
    }
}

/// The rows the engine refuses and metafor would not (numbers out of order, n below 5, or
/// no n: metafor converts in part what lacks n, a mean or Bland's SD).
#[cfg(feature = "extended")]
fn fivenum_refused(rows: &[SummaryRow], method: FivenumMethod, test: bool) -> Vec<bool> {
    rows.iter()
        .map(|(_, v)| {
            let five = five_numbers(v);
            five.n.is_none()
                || matches!(
                    fivenum(&five, method, test),
                    Err(meta_analysis::ConversionError::Invalid(_))
                )
        })
        .collect()
}

/// The rows the engine refuses and metafor would not (bounds in the wrong order, which it
/// squares away; a variance of 0 or infinity).
#[cfg(feature = "extended")]
fn wald_refused(rows: &[SummaryRow], level: f64, transf: WaldTransform) -> Vec<bool> {
    rows.iter()
        .map(|(_, v)| {
            let summary = wald_summary(v);
            matches!(
                wald(&summary, level, transf),
                Err(meta_analysis::ConversionError::Invalid(_))
            )
        })
        .collect()
}

/// Each row's mean and SD, or its NA; the skewness test's statistic, critical value and
/// verdict wherever the result reports it.
#[cfg(feature = "extended")]
fn fivenum_checks(out: &mut super::reproduce::Reproduction, result: &Value) {
    for (i, row) in result["rows"].as_array().into_iter().flatten().enumerate() {
        let at = i + 1;
        if row.get("reason").is_some() {
            out.check(format!("as.numeric(is.na(res$mean[{at}]))"), Some(1.0))
                .check(format!("as.numeric(is.na(res$sd[{at}]))"), Some(1.0));
        } else {
            out.check_at(format!("res$mean[{at}]"), row, "/mean")
                .check_at(format!("res$sd[{at}]"), row, "/sd");
        }
        if let Some(test) = row.get("skewness") {
            out.check_at(format!("attr(res$mean, \"tval\")[{at}]"), test, "/statistic")
                .check_at(format!("attr(res$mean, \"crit\")[{at}]"), test, "/critical")
                .check(
                    format!("as.numeric(attr(res$mean, \"sig\")[{at}])"),
                    test["skewed"].as_bool().map(f64::from),
                );
        }
    }
}

/// Each row's yi and vi (or, for a row without, that metafor gives no pair), and its n (metafor's `ni` attribute).
#[cfg(feature = "extended")]
fn wald_checks(out: &mut super::reproduce::Reproduction, result: &Value) {
    for (i, row) in result["rows"].as_array().into_iter().flatten().enumerate() {
        let at = i + 1;
        if row.get("reason").is_some() {
            // No pair: metafor may still give yi (no bounds) or vi (no estimate).
            out.check(
                format!("as.numeric(is.na(res$yi[{at}]) || is.na(res$vi[{at}]))"),
                Some(1.0),
            );
        } else {
            out.check_at(format!("res$yi[{at}]"), row, "/yi")
                .check_at(format!("res$vi[{at}]"), row, "/vi")
                .check_at(format!("attr(res$yi, \"ni\")[{at}]"), row, "/n");
        }
    }
}

#[cfg(feature = "extended")]
fn fivenum_methods(methods: &mut crate::rcode::Methods, method: FivenumMethod, test: bool) {
    use crate::rcode::*;
    match method {
        FivenumMethod::LuoWanShi => methods.say(
            "Means and standard deviations were estimated from the reported medians with the \
             ranges and/or interquartile ranges and the sample sizes: the means with weighted \
             combinations of these {}, the standard deviations from the expected range and \
             interquartile range of a normal sample {} or, where all five numbers were \
             reported, from a weighted combination of both {}.",
            &[&LUO_2018, &WAN_2014, &SHI_2020],
        ),
        FivenumMethod::Wan2014 => methods.say(
            "Means and standard deviations were estimated from the reported medians with the \
             ranges and/or interquartile ranges and the sample sizes, the standard deviations \
             from the expected range and interquartile range of a normal sample {}.",
            &[&WAN_2014],
        ),
        FivenumMethod::Hozo2005 => methods.say(
            "Means and standard deviations were estimated from the reported medians, ranges \
             and sample sizes with the rules by sample size {}.",
            &[&HOZO_2005],
        ),
        FivenumMethod::Bland2015 => methods.say(
            "Means and standard deviations were estimated from the reported minima, quartiles, \
             medians and maxima {}.",
            &[&BLAND_2015],
        ),
    };
    methods.say(
        "These estimators assume normally distributed outcomes, and were computed as \
         metafor's conv.fivenum() computes them.",
        &[],
    );
    if test {
        methods.say(
            "Summaries that a test of skewness {} rejected at the 5% level were not \
             converted.",
            &[&SHI_2023],
        );
    } else {
        methods.say(
            "Every summary was converted, also where a test of skewness {} rejected \
             normality at the 5% level.",
            &[&SHI_2023],
        );
    }
}

#[cfg(feature = "extended")]
fn wald_methods(methods: &mut crate::rcode::Methods, alpha: f64, transf: WaldTransform) {
    use crate::rcode::*;
    let coverage = ((1.0 - alpha) * 1e12).round() / 1e10;
    let scale = match transf {
        WaldTransform::None => "the scale they were reported on",
        WaldTransform::Log => "the log scale",
        WaldTransform::Atanh => "Fisher's z scale",
    };
    methods.say(
        &format!(
            "Effect sizes and their sampling variances were back-calculated from the reported \
             estimates with their {coverage}% confidence intervals (both bounds, else the \
             upper bound) or, failing those, their two-sided p values, assuming Wald-type \
             intervals and tests on {scale} {{}}, as metafor's conv.wald() computes them."
        ),
        &[&HIGGINS_2019],
    );
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::super::call;
    use serde_json::json;

    #[cfg(feature = "extended")]

    #[test]
    fn fivenum_rows_give_results_or_reasons() {
        let out = call(
            "convert_summaries",
            &json!({"kind": "fivenum", "rows": [
                {"id": "a", "min": 10, "q1": 20, "median": 25, "q3": 30, "max": 40, "n": 50},
                {"min": 0, "q1": 1, "median": 2, "q3": 10, "max": 100, "n": 200},
                {"median": 2, "n": 20}
            ]}),
        )
        .unwrap();
        assert_eq!(out["converted"], 1);
        assert_eq!(out["rows"][0]["mean"], 25.0);
        assert_eq!(out["rows"][0]["case"], "range_and_iqr");
        assert_eq!(out["rows"][1]["id"], "row2");
        assert!(out["rows"][1]["reason"]
            .as_str()
            .unwrap()
            .contains("skewness test rejects"));
        assert_eq!(out["rows"][1]["skewness"]["skewed"], true);
        assert!(out["rows"][2]["reason"]
            .as_str()
            .unwrap()
            .contains("min and max"));
        assert!(out["assumptions"][0]
            .as_str()
            .unwrap()
            .contains("normally distributed"));
    }

    #[cfg(feature = "extended")]

    #[test]
    fn wald_reads_metafors_names_and_refuses_others() {
        let out = call(
            "convert_summaries",
            &json!({"kind": "wald", "transf": "log", "rows": [
                {"out": 2.0, "ci.lb": 1.0, "ci.ub": 4.0}
            ]}),
        )
        .unwrap();
        assert_eq!(out["rows"][0]["source"], "interval");
        assert!((out["rows"][0]["yi"].as_f64().unwrap() - 2f64.ln()).abs() < 1e-15);
        let e = call(
            "convert_summaries",
            &json!({"kind": "wald", "rows": [{"out": 2.0, "ci_lb": 1.0}]}),
        )
        .unwrap_err();
        assert!(e.message.contains("unknown field \"ci_lb\""), "{}", e.message);
        let e = call(
            "convert_summaries",
            &json!({"kind": "wald", "method": "wan2014", "rows": [{"out": 1.0}]}),
        )
        .unwrap_err();
        assert!(e.message.contains("does not apply"), "{}", e.message);
    }

    /// `level: 1` is a 1% interval (metafor reads 1 and more as percentages), not 100% (which
    /// gave vi = 0); `level: 0.05` is α, and the assumptions say so.
    #[cfg(feature = "extended")]
    #[test]
    fn wald_levels_are_read_as_metafor_reads_them() {
        let vi_at = |level: f64| {
            let out = call(
                "convert_summaries",
                &json!({"kind": "wald", "level": level, "rows": [
                    {"out": 0.0, "ci.lb": -1.0, "ci.ub": 1.0}
                ]}),
            )
            .unwrap();
            (out["rows"][0]["vi"].as_f64().unwrap(), out)
        };
        let (vi95, _) = vi_at(95.0);
        let (vi1, out1) = vi_at(1.0);
        let (vi005, out005) = vi_at(0.05);
        assert!((vi95 - 1.0 / (1.959963984540054f64).powi(2)).abs() < 1e-12);
        // z of a 1% interval: qnorm(0.505) = 0.01253347...
        assert!((vi1 - 1.0 / 0.012533469508069276f64.powi(2)).abs() < 1e-6 * vi1, "{vi1}");
        assert_eq!(vi005, vi95);
        let text = |out: &serde_json::Value| out["assumptions"][0].as_str().unwrap().to_string();
        assert!(text(&out1).starts_with("The 1% interval is"), "{}", text(&out1));
        assert!(
            text(&out005).starts_with("The 95% interval (level 0.05 read as α"),
            "{}",
            text(&out005)
        );
    }
}
