//! The agent tools: definitions (name, title, description, input schema, annotations) and
//! their JSON dispatch.
//!
//! These definitions are the one source of truth: the page registers exactly what
//! [`definitions`] returns as WebMCP tools, and [`call`] validates every input against the
//! same schema JSON before running the engine. Result field names match the answer shape
//! where they overlap (`k`, `estimate`, `ci_lower`, `ci_upper`, `p`, `excluded`, `egger_p`,
//! `rule_outcome`).

use crate::protocol::{rule, RULE_TEXT};
use crate::schema::{self, ViolationKind};
use crate::{canonical, dataset};
use meta_analysis::{EggerResult, EggerVariant, Fit, FitOptions, MetaError, Method, Record, Test};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

/// The most records a tool accepts in `records` (the engine's own limit is far larger; this
/// keeps a page responsive).
pub const MAX_TOOL_RECORDS: usize = 100_000;

/// The most records `leave_one_out` accepts: it refits k times, so its cost grows as k²
/// (2,000 records take about 2 s natively).
pub const MAX_LEAVE_ONE_OUT_RECORDS: usize = 2_000;

/// Why a tool call was refused, serialized in snake_case (`"unknown_tool"`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No tool has this name.
    UnknownTool,
    /// The arguments text is not JSON (wasm and JSON-text entry points only).
    InvalidJson,
    /// A required property is missing, a value is outside its enum or range, or the
    /// arguments are inconsistent (an empty or repeated `exclude`, a level of 0 or 1).
    InvalidArguments,
    /// A property the schema does not declare.
    UnknownProperty,
    /// A value of the wrong JSON type (a string where a number belongs, ...).
    WrongType,
    /// An id in `exclude` is not among the records.
    UnknownRecord,
    /// More than [`MAX_TOOL_RECORDS`] records ([`MAX_LEAVE_ONE_OUT_RECORDS`] for
    /// `leave_one_out`).
    TooManyRecords,
    /// The records cannot be analysed: empty or duplicate ids, vi ≤ 0, too few records.
    InvalidRecords,
    /// The analysis is undefined for these records (e.g. Egger's test with all vi equal).
    AnalysisFailed,
    /// An iterative estimator did not reach its root.
    NotConverged,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::UnknownProperty => "unknown_property",
            ErrorCode::WrongType => "wrong_type",
            ErrorCode::UnknownRecord => "unknown_record",
            ErrorCode::TooManyRecords => "too_many_records",
            ErrorCode::InvalidRecords => "invalid_records",
            ErrorCode::AnalysisFailed => "analysis_failed",
            ErrorCode::NotConverged => "not_converged",
        }
    }
}

/// A refused tool call: a stable code and a message a person (or agent) understands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
        }
    }

    /// `{"error": {"code": ..., "message": ...}}`
    pub fn to_json(&self) -> Value {
        json!({"error": {"code": self.code, "message": self.message}})
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for ToolError {}

impl From<MetaError> for ToolError {
    fn from(error: MetaError) -> Self {
        let code = match error {
            MetaError::TooManyRecords { .. } => ErrorCode::TooManyRecords,
            MetaError::UnknownId { .. } => ErrorCode::UnknownRecord,
            MetaError::ExcludesTooMany { .. } | MetaError::InvalidLevel { .. } => {
                ErrorCode::InvalidArguments
            }
            MetaError::NotConverged { .. } => ErrorCode::NotConverged,
            MetaError::Undefined { .. } => ErrorCode::AnalysisFailed,
            MetaError::TooFewRecords { .. }
            | MetaError::EmptyId { .. }
            | MetaError::DuplicateId { .. }
            | MetaError::NonFinite { .. }
            | MetaError::NonPositiveVariance { .. } => ErrorCode::InvalidRecords,
        };
        ToolError::new(code, error.to_string())
    }
}

impl From<schema::Violation> for ToolError {
    fn from(violation: schema::Violation) -> Self {
        let code = match violation.kind {
            ViolationKind::UnknownProperty => ErrorCode::UnknownProperty,
            ViolationKind::WrongType => ErrorCode::WrongType,
            ViolationKind::Missing | ViolationKind::NotInEnum | ViolationKind::OutOfRange => {
                ErrorCode::InvalidArguments
            }
        };
        ToolError::new(code, violation.message)
    }
}

/// `annotations` of a tool definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Annotations {
    #[serde(rename = "readOnlyHint")]
    pub read_only_hint: bool,
}

/// One tool as the page registers it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDefinition {
    pub name: &'static str,
    pub title: &'static str,
    pub description: String,
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    pub annotations: Annotations,
}

/// The tool names, in the order the page lists them.
pub const TOOL_NAMES: [&str; 7] = [
    "get_dataset",
    "fit_random_effects",
    "refit_excluding",
    "egger_test",
    "leave_one_out",
    "forest_plot",
    "funnel_plot",
];

const CONVENTIONS: &str = "Conventions: tau^2 is solved to the estimator's exact root \
(relative change <= 1e-12), not metafor's default stopping threshold; p values are two-sided; \
with test \"z\" the confidence and prediction intervals use the standard normal quantile, with \
test \"knha\" (Knapp-Hartung) the t quantile with k-1 df; I^2 and H^2 follow metafor \
(typical within-study variance). The page's Methods section states every formula.";

const DATA_NOTE: &str = "Uses the frozen dataset dat.raudenbush1985 (19 records s01-s19) \
unless `records` is given. `dataset` in the result names the data used: the frozen dataset's \
SHA-256, or \"custom records\" with the SHA-256 of their canonical JSON.";

fn method_schema() -> Value {
    let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
    json!({
        "type": "string",
        "enum": names,
        "description": "tau^2 estimator: REML (default, restricted maximum likelihood), ML, DL (DerSimonian-Laird), HE (Hedges), SJ (Sidik-Jonkman), PM (Paule-Mandel) or EE (equal effects, tau^2 = 0)."
    })
}

fn level_schema() -> Value {
    json!({
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "description": "Confidence level of the CI and the prediction interval, strictly between 0 and 1 (default 0.95)."
    })
}

fn test_schema() -> Value {
    json!({
        "type": "string",
        "enum": ["z", "knha"],
        "description": "Inference for the pooled estimate: \"z\" (default, normal) or \"knha\" (Knapp-Hartung t test with k-1 df)."
    })
}

fn records_schema(max: usize) -> Value {
    json!({
        "type": "array",
        "description": format!("Optional records to analyse instead of the frozen dataset: objects {{id, yi, vi}} with unique non-empty ids, yi the effect size and vi > 0 its sampling variance; at most {max} records."),
        "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "Unique record id."},
                "yi": {"type": "number", "description": "Observed effect size."},
                "vi": {"type": "number", "description": "Sampling variance of yi, greater than 0."}
            },
            "required": ["id", "yi", "vi"],
            "additionalProperties": false
        }
    })
}

fn exclude_schema(description: &str) -> Value {
    json!({
        "type": "array",
        "items": {"type": "string"},
        "description": description
    })
}

fn object_schema(properties: Value, required: &[&str]) -> Value {
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema["additionalProperties"] = json!(false);
    schema
}

fn fit_fields() -> &'static str {
    "k (records fitted), estimate (pooled effect), se, z (or t and df with test \"knha\"), \
p (two-sided test of estimate = 0), ci_lower and ci_upper (confidence interval at `level`), \
tau2, tau, se_tau2 (null where the estimator defines none), q, q_df and q_p (Cochran's Q test \
of heterogeneity), i2 (percent), h2, pi_lower and pi_upper (prediction interval), iterations \
(null for closed-form estimators), method, test and level"
}

/// Every tool definition, in [`TOOL_NAMES`] order.
pub fn definitions() -> Vec<ToolDefinition> {
    cached_definitions().to_vec()
}

/// The definitions, built once: the descriptions and schemas are constant, and building
/// them (formatting, JSON schema trees) cost more than a whole fit on every call.
fn cached_definitions() -> &'static [ToolDefinition] {
    static DEFINITIONS: OnceLock<Vec<ToolDefinition>> = OnceLock::new();
    DEFINITIONS.get_or_init(build_definitions)
}

fn build_definitions() -> Vec<ToolDefinition> {
    let annotations = || Annotations {
        read_only_hint: true,
    };
    vec![
        ToolDefinition {
            name: "get_dataset",
            title: "Get the frozen dataset",
            description: format!(
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
            ),
            input_schema: object_schema(json!({}), &[]),
            annotations: annotations(),
        },
        ToolDefinition {
            name: "fit_random_effects",
            title: "Fit a random-effects meta-analysis",
            description: format!(
                "Fits a random-effects meta-analysis (an equal-effects model with method EE). \
Defaults: method REML, level 0.95, test z. Returns {}, and dataset. {DATA_NOTE} \
{CONVENTIONS}",
                fit_fields()
            ),
            input_schema: object_schema(
                json!({
                    "method": method_schema(),
                    "level": level_schema(),
                    "test": test_schema(),
                    "records": records_schema(MAX_TOOL_RECORDS)
                }),
                &[],
            ),
            annotations: annotations(),
        },
        ToolDefinition {
            name: "refit_excluding",
            title: "Refit without some records",
            description: format!(
                "Refits the random-effects model without the records whose ids are listed in \
`exclude` (at least one id; each must exist; at least 2 records must remain). Defaults: method \
REML, level 0.95, test z. Returns `excluded` (the ids left out), {}, and dataset; k counts \
the remaining records. {DATA_NOTE} {CONVENTIONS}",
                fit_fields()
            ),
            input_schema: object_schema(
                json!({
                    "exclude": exclude_schema("Ids of the records to leave out: a non-empty list of distinct ids, e.g. [\"s04\"]."),
                    "method": method_schema(),
                    "level": level_schema(),
                    "test": test_schema(),
                    "records": records_schema(MAX_TOOL_RECORDS)
                }),
                &["exclude"],
            ),
            annotations: annotations(),
        },
        ToolDefinition {
            name: "egger_test",
            title: "Egger's regression test",
            description: format!(
                "Egger's regression test for funnel-plot asymmetry. Variant \"classic\" (default \
and the registered variant; Egger et al. 1997): ordinary least squares of yi/sqrt(vi) on \
1/sqrt(vi), two-sided t test of the intercept with k-2 df, identical to metafor's \
regtest(model = \"lm\"). Variant \"rma\" (metafor's regtest default): REML meta-regression on \
sqrt(vi), z test of that slope. Returns egger_p (the two-sided p value), statistic and \
statistic_name (\"t\" or \"z\"), df (k-2 for classic, null for rma), coefficient and \
coefficient_name (\"intercept\" or \"slope on sqrt(vi)\"), se, tau2 (rma only, else null), k, \
excluded, rule (the registered rule: {RULE_TEXT}) and rule_outcome (that rule applied to \
egger_p: \"passed\", \"failed\" or \"inconclusive\"). Needs at least 3 records whose vi are not \
all equal. `exclude` optionally drops records first. {DATA_NOTE}"
            ),
            input_schema: object_schema(
                json!({
                    "variant": {
                        "type": "string",
                        "enum": ["classic", "rma"],
                        "description": "\"classic\" (default, registered): OLS t test of the intercept; \"rma\": metafor's default z test of the slope on sqrt(vi)."
                    },
                    "exclude": exclude_schema("Optional ids of records to leave out before the test (distinct, each must exist)."),
                    "records": records_schema(MAX_TOOL_RECORDS)
                }),
                &[],
            ),
            annotations: annotations(),
        },
        ToolDefinition {
            name: "leave_one_out",
            title: "Leave-one-out sensitivity analysis",
            description: format!(
                "Leave-one-out sensitivity analysis: refits the random-effects model once \
without each record in turn (level 0.95, test z; at most {MAX_LEAVE_ONE_OUT_RECORDS} \
records). Default method REML. Returns method, test, level, k (all records), dataset and \
`results`: one entry per record, in record order, with `omitted` (its id) and the fit fields \
of fit_random_effects ({}). {DATA_NOTE} {CONVENTIONS}",
                fit_fields()
            ),
            input_schema: object_schema(
                json!({"method": method_schema(), "records": records_schema(MAX_LEAVE_ONE_OUT_RECORDS)}),
                &[],
            ),
            annotations: annotations(),
        },
        ToolDefinition {
            name: "forest_plot",
            title: "Forest plot (SVG)",
            description: format!(
                "Draws a forest plot as SVG: one row per record (label, yi, its 95% CI, a square sized by its weight in the fit), the pooled diamond (estimate and CI), the prediction interval and the model's label (method, k, tau^2). Records in `exclude` are drawn grey, marked \"(excluded)\" and left out of the fit, exactly as refit_excluding does. Same arguments as fit_random_effects plus `exclude`. Returns svg (the SVG text), numbers (every number drawn, with pixel positions, so it can be checked), and fit (the fit fields of fit_random_effects, with excluded). At most {} records. {DATA_NOTE}",
                crate::plots::MAX_FOREST_RECORDS
            ),
            input_schema: object_schema(
                json!({
                    "exclude": exclude_schema("Optional ids of records to leave out of the fit (drawn greyed)."),
                    "method": method_schema(),
                    "level": level_schema(),
                    "test": test_schema(),
                    "records": records_schema(crate::plots::MAX_FOREST_RECORDS)
                }),
                &[],
            ),
            annotations: annotations(),
        },
        ToolDefinition {
            name: "funnel_plot",
            title: "Funnel plot with Egger's line (SVG)",
            description: format!(
                "Draws a funnel plot as SVG: yi against its standard error sqrt(vi) (axis inverted, most precise at the top), the pseudo 95% confidence funnel around the pooled REML estimate, and the regression line of Egger's test with its p value and rule outcome. Same arguments as egger_test. Returns svg, numbers (every number drawn, with pixel positions), fit (the pooled fit the funnel is centred on) and egger (the egger_test result). At most {} records. {DATA_NOTE}",
                crate::plots::MAX_FUNNEL_RECORDS
            ),
            input_schema: object_schema(
                json!({
                    "variant": {
                        "type": "string",
                        "enum": ["classic", "rma"],
                        "description": "Egger variant whose line is drawn: \"classic\" (default, registered) or \"rma\"."
                    },
                    "exclude": exclude_schema("Optional ids of records to leave out (drawn greyed)."),
                    "records": records_schema(crate::plots::MAX_FUNNEL_RECORDS)
                }),
                &[],
            ),
            annotations: annotations(),
        },
    ]
}

/// The tool definitions as a JSON array (what the page registers).
pub fn definitions_json() -> Value {
    serde_json::to_value(cached_definitions()).expect("definitions serialize")
}

/// The plot that goes with a tool's result, called with the same arguments: a fit or
/// refit is drawn as a forest plot, Egger's test as a funnel plot.
pub fn companion_plot(name: &str) -> Option<&'static str> {
    match name {
        "fit_random_effects" | "refit_excluding" => Some("forest_plot"),
        "egger_test" => Some("funnel_plot"),
        _ => None,
    }
}

/// Parses a JSON arguments text; empty text means no arguments.
pub fn parse_args(args_json: &str) -> Result<Value, ToolError> {
    if args_json.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(args_json).map_err(|e| {
        ToolError::new(
            ErrorCode::InvalidJson,
            format!("the arguments are not valid JSON: {e}"),
        )
    })
}

/// Runs a tool from a JSON arguments text and wraps the outcome as the page receives it:
/// `{"ok": <result>}` or `{"error": {"code", "message"}}`. Never fails.
pub fn call_json(name: &str, args_json: &str) -> Value {
    match parse_args(args_json).and_then(|args| call(name, &args)) {
        Ok(result) => json!({"ok": result}),
        Err(error) => error.to_json(),
    }
}

/// Runs tool `name` with `args` (`null` counts as `{}`), exactly as the page does.
pub fn call(name: &str, args: &Value) -> Result<Value, ToolError> {
    let definition = cached_definitions()
        .iter()
        .find(|d| d.name == name)
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::UnknownTool,
                format!(
                    "unknown tool {name:?}; the tools are {}",
                    TOOL_NAMES.join(", ")
                ),
            )
        })?;
    let empty = Value::Object(Map::new());
    let args = if args.is_null() { &empty } else { args };
    // Checked before the schema walk so that an oversized list is refused without a pass over it.
    if let Some(records) = args.get("records").and_then(Value::as_array) {
        let max = match name {
            "leave_one_out" => MAX_LEAVE_ONE_OUT_RECORDS,
            "forest_plot" => crate::plots::MAX_FOREST_RECORDS,
            "funnel_plot" => crate::plots::MAX_FUNNEL_RECORDS,
            _ => MAX_TOOL_RECORDS,
        };
        if records.len() > max {
            return Err(ToolError::new(
                ErrorCode::TooManyRecords,
                format!(
                    "too many records: {} given, at most {max} are accepted by {name}",
                    records.len()
                ),
            ));
        }
    }
    schema::validate(&definition.input_schema, args)?;
    match name {
        "get_dataset" => Ok(dataset_json().clone()),
        "fit_random_effects" => fit_random_effects(args),
        "refit_excluding" => refit_excluding(args),
        "egger_test" => egger(args),
        "leave_one_out" => leave_one_out(args),
        "forest_plot" => forest_plot(args),
        "funnel_plot" => funnel_plot(args),
        _ => unreachable!("every defined tool is dispatched"),
    }
}

/// `get_dataset`'s result, built once: the dataset is frozen.
fn dataset_json() -> &'static Value {
    static DATASET: OnceLock<Value> = OnceLock::new();
    DATASET.get_or_init(dataset::to_json)
}

/// The data a call analyses: the frozen dataset's hash, or the hash of the canonical JSON of
/// the `records` argument. The ledger records this as `dataset_sha256`.
pub fn dataset_sha256_for(args: &Value) -> String {
    match args.get("records") {
        Some(records) => canonical::sha256_hex(records),
        None => dataset::sha256().to_string(),
    }
}

fn dataset_info(args: &Value) -> Value {
    match args.get("records") {
        Some(records) => json!({
            "name": "custom records",
            "sha256": canonical::sha256_hex(records),
        }),
        None => json!({"name": dataset::NAME, "sha256": dataset::sha256()}),
    }
}

/// The `records` argument, or the frozen dataset (built once and borrowed, not copied on
/// every call).
fn records(args: &Value) -> Cow<'static, [Record]> {
    static FROZEN: OnceLock<Vec<Record>> = OnceLock::new();
    match args.get("records").and_then(Value::as_array) {
        // The schema has checked each item's shape and types.
        Some(items) => Cow::Owned(
            items
                .iter()
                .map(|r| {
                    Record::new(
                        r["id"].as_str().unwrap_or_default(),
                        r["yi"].as_f64().unwrap_or(f64::NAN),
                        r["vi"].as_f64().unwrap_or(f64::NAN),
                    )
                })
                .collect(),
        ),
        None => Cow::Borrowed(FROZEN.get_or_init(dataset::records)),
    }
}

fn options(args: &Value) -> Result<FitOptions, ToolError> {
    let mut options = FitOptions::default();
    if let Some(name) = args.get("method").and_then(Value::as_str) {
        options.method = Method::parse(name).ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidArguments,
                format!("unknown method {name:?}"),
            )
        })?;
    }
    if let Some(name) = args.get("test").and_then(Value::as_str) {
        options.test = Test::parse(name).ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidArguments,
                format!("unknown test {name:?}"),
            )
        })?;
    }
    if let Some(level) = args.get("level").and_then(Value::as_f64) {
        if !(level > 0.0 && level < 1.0) {
            return Err(ToolError::new(
                ErrorCode::InvalidArguments,
                format!("level must be strictly between 0 and 1 (for example 0.95), got {level}"),
            ));
        }
        options.level = level;
    }
    Ok(options)
}

/// The `exclude` ids: distinct, and each present in `records`.
fn exclusions(args: &Value, records: &[Record]) -> Result<Vec<String>, ToolError> {
    let ids: Vec<String> = args
        .get("exclude")
        .and_then(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    for (i, id) in ids.iter().enumerate() {
        if ids[..i].contains(id) {
            return Err(ToolError::new(
                ErrorCode::InvalidArguments,
                format!("exclude lists {id:?} more than once"),
            ));
        }
        if !records.iter().any(|r| &r.id == id) {
            return Err(ToolError::new(
                ErrorCode::UnknownRecord,
                format!(
                    "there is no record with id {id:?} among the {} records",
                    records.len()
                ),
            ));
        }
    }
    Ok(ids)
}

/// The most fields a fit result carries (22 with test "knha", and `excluded` and `dataset`).
const FIT_FIELDS_CAPACITY: usize = 24;

/// The fields of one fit, in reading order.
fn fit_fields_json(fit: &Fit) -> Map<String, Value> {
    // Room for these fields plus `excluded`, `dataset` or `omitted`: no regrowth.
    let mut out = Map::with_capacity(FIT_FIELDS_CAPACITY);
    out.insert("method".into(), json!(fit.method.name()));
    out.insert("test".into(), json!(fit.test.name()));
    out.insert("level".into(), json!(fit.level));
    out.insert("k".into(), json!(fit.k));
    out.insert("estimate".into(), json!(fit.estimate));
    out.insert("se".into(), json!(fit.se));
    match fit.test {
        Test::Z => {
            out.insert("z".into(), json!(fit.statistic));
        }
        Test::Knha => {
            out.insert("t".into(), json!(fit.statistic));
            out.insert("df".into(), json!(fit.df));
        }
    }
    out.insert("p".into(), json!(fit.p));
    out.insert("ci_lower".into(), json!(fit.ci_lower));
    out.insert("ci_upper".into(), json!(fit.ci_upper));
    out.insert("tau2".into(), json!(fit.tau2));
    out.insert("tau".into(), json!(fit.tau));
    out.insert("se_tau2".into(), json!(fit.se_tau2));
    out.insert("q".into(), json!(fit.q));
    out.insert("q_df".into(), json!(fit.q_df));
    out.insert("q_p".into(), json!(fit.q_p));
    out.insert("i2".into(), json!(fit.i2));
    out.insert("h2".into(), json!(fit.h2));
    out.insert("pi_lower".into(), json!(fit.pi_lower));
    out.insert("pi_upper".into(), json!(fit.pi_upper));
    out.insert("iterations".into(), json!(fit.iterations));
    out
}

fn fit_random_effects(args: &Value) -> Result<Value, ToolError> {
    let fit = meta_analysis::fit(&records(args), &options(args)?)?;
    let mut out = fit_fields_json(&fit);
    out.insert("dataset".into(), dataset_info(args));
    Ok(Value::Object(out))
}

fn refit_excluding(args: &Value) -> Result<Value, ToolError> {
    let records = records(args);
    let options = options(args)?;
    let excluded = exclusions(args, &records)?;
    if excluded.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            "exclude must list at least one record id, e.g. [\"s04\"]",
        ));
    }
    let fit = meta_analysis::refit_excluding(&records, &excluded, &options)?;
    Ok(Value::Object(refit_json(&fit, &excluded, args)))
}

/// The fit fields with `excluded` after `k`, and the dataset.
fn refit_json(fit: &Fit, excluded: &[String], args: &Value) -> Map<String, Value> {
    let mut out = Map::with_capacity(FIT_FIELDS_CAPACITY);
    for (key, value) in fit_fields_json(fit) {
        let after_k = key == "k";
        out.insert(key, value);
        if after_k {
            out.insert("excluded".into(), json!(excluded));
        }
    }
    out.insert("dataset".into(), dataset_info(args));
    out
}

/// The axis label of both plots.
const EFFECT_LABEL: &str = "Standardized mean difference (yi)";

/// "<Kind> plot of dat.raudenbush1985", or "… of the given records" with custom `records`.
fn plot_title(kind: &str, args: &Value) -> String {
    match args.get("records") {
        Some(_) => format!("{kind} plot of the given records"),
        None => format!("{kind} plot of {}", dataset::NAME),
    }
}

fn plot_error(e: crate::plots::PlotError) -> ToolError {
    ToolError::new(ErrorCode::InvalidRecords, e.to_string())
}

fn forest_plot(args: &Value) -> Result<Value, ToolError> {
    let records = records(args);
    let options = options(args)?;
    let excluded = exclusions(args, &records)?;
    let fit = meta_analysis::refit_excluding(&records, &excluded, &options)?;
    let title = plot_title("Forest", args);
    let plot = crate::plots::forest(&crate::plots::ForestInput {
        records: &records,
        excluded: &excluded,
        fit: Some(&fit),
        title: &title,
        x_label: EFFECT_LABEL,
    })
    .map_err(plot_error)?;
    Ok(json!({
        "svg": plot.svg,
        "numbers": plot.numbers,
        "fit": refit_json(&fit, &excluded, args),
    }))
}

fn funnel_plot(args: &Value) -> Result<Value, ToolError> {
    let records = records(args);
    let excluded = exclusions(args, &records)?;
    let (variant, kept) = egger_inputs(args, &records, &excluded)?;
    let test = meta_analysis::egger_test(&kept, variant)?;
    let fit = meta_analysis::fit(&kept, &FitOptions::default())?;
    let (a, b) = test.funnel_line();
    let outcome = rule(test.p).name();
    let title = plot_title("Funnel", args);
    let plot = crate::plots::funnel(&crate::plots::FunnelInput {
        records: &records,
        excluded: &excluded,
        pooled: Some(fit.estimate),
        egger: Some(crate::plots::EggerLine {
            variant: variant.name(),
            intercept_b0: b,
            slope_b1: a,
            p: test.p,
            rule_outcome: outcome,
        }),
        title: &title,
        x_label: EFFECT_LABEL,
    })
    .map_err(plot_error)?;
    Ok(json!({
        "svg": plot.svg,
        "numbers": plot.numbers,
        "fit": refit_json(&fit, &excluded, args),
        "egger": egger_json(&test, &excluded, args),
    }))
}

/// The Egger variant named in `args` and the records left after `excluded`.
fn egger_inputs(
    args: &Value,
    records: &[Record],
    excluded: &[String],
) -> Result<(EggerVariant, Vec<Record>), ToolError> {
    let variant = match args.get("variant").and_then(Value::as_str) {
        Some(name) => EggerVariant::parse(name).ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidArguments,
                format!("unknown variant {name:?}"),
            )
        })?,
        None => EggerVariant::Classic,
    };
    let kept = records
        .iter()
        .filter(|r| !excluded.contains(&r.id))
        .cloned()
        .collect();
    Ok((variant, kept))
}

fn egger(args: &Value) -> Result<Value, ToolError> {
    let records = records(args);
    let excluded = exclusions(args, &records)?;
    let (variant, kept) = egger_inputs(args, &records, &excluded)?;
    let result = meta_analysis::egger_test(&kept, variant)?;
    Ok(egger_json(&result, &excluded, args))
}

fn egger_json(result: &EggerResult, excluded: &[String], args: &Value) -> Value {
    let variant = result.variant;
    let (statistic_name, coefficient_name) = match variant {
        EggerVariant::Classic => ("t", "intercept"),
        EggerVariant::Rma => ("z", "slope on sqrt(vi)"),
    };
    json!({
        "variant": result.variant.name(),
        "k": result.k,
        "excluded": excluded,
        "egger_p": result.p,
        "statistic_name": statistic_name,
        "statistic": result.statistic,
        "df": result.df,
        "coefficient_name": coefficient_name,
        "coefficient": result.coefficient,
        "se": result.se,
        "tau2": result.tau2,
        "rule": RULE_TEXT,
        "rule_outcome": rule(result.p),
        "dataset": dataset_info(args),
    })
}

fn leave_one_out(args: &Value) -> Result<Value, ToolError> {
    let records = records(args);
    let options = FitOptions {
        method: options(args)?.method,
        ..FitOptions::default()
    };
    let rows = meta_analysis::leave_one_out(&records, &options)?;
    let results: Vec<Value> = rows
        .iter()
        .map(|row| {
            let mut out = Map::with_capacity(FIT_FIELDS_CAPACITY);
            out.insert("omitted".into(), json!(row.id));
            out.extend(fit_fields_json(&row.fit));
            Value::Object(out)
        })
        .collect();
    Ok(json!({
        "method": options.method.name(),
        "test": options.test.name(),
        "level": options.level,
        "k": records.len(),
        "results": results,
        "dataset": dataset_info(args),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::reference_answer;

    fn ok(name: &str, args: Value) -> Value {
        call(name, &args).unwrap_or_else(|e| panic!("{name} {args}: {e}"))
    }

    fn code(name: &str, args: Value) -> (&'static str, String) {
        let e = call(name, &args).expect_err("an error");
        (e.code.as_str(), e.message)
    }

    #[test]
    fn plot_tools_draw_what_the_analysis_tools_compute() {
        let forest = ok("forest_plot", json!({"exclude": ["s04"]}));
        let refit = ok("refit_excluding", json!({"exclude": ["s04"]}));
        assert_eq!(forest["fit"], refit);
        assert!(forest["svg"].as_str().unwrap().starts_with("<svg"));
        assert_eq!(forest["numbers"]["rows"].as_array().unwrap().len(), 19);
        assert_eq!(forest["numbers"]["pooled"]["estimate"], refit["estimate"]);

        let funnel = ok("funnel_plot", json!({}));
        let egger = ok("egger_test", json!({}));
        assert_eq!(funnel["egger"], egger);
        assert_eq!(funnel["numbers"]["egger"]["p"], egger["egger_p"]);
        assert_eq!(
            funnel["numbers"]["egger"]["rule_outcome"],
            egger["rule_outcome"]
        );
        assert_eq!(
            funnel["fit"]["estimate"],
            ok("fit_random_effects", json!({}))["estimate"]
        );
        // The classic line drawn is yi = b1 + b0·se, with b0 the tested intercept.
        assert_eq!(
            funnel["numbers"]["egger"]["intercept_b0"],
            egger["coefficient"]
        );
    }

    #[test]
    fn every_companion_plot_accepts_its_tools_arguments() {
        let cases = [
            (
                "fit_random_effects",
                json!({"method": "DL", "level": 0.9, "test": "knha"}),
            ),
            (
                "refit_excluding",
                json!({"exclude": ["s04"], "method": "PM"}),
            ),
            ("egger_test", json!({"variant": "rma", "exclude": ["s01"]})),
        ];
        for (name, args) in cases {
            let plot = companion_plot(name).unwrap();
            ok(name, args.clone());
            assert!(
                ok(plot, args)["svg"].as_str().unwrap().starts_with("<svg"),
                "{plot}"
            );
        }
        assert_eq!(companion_plot("get_dataset"), None);
        assert_eq!(companion_plot("forest_plot"), None);
    }

    #[test]
    fn plot_tools_refuse_bad_input() {
        assert_eq!(
            code("forest_plot", json!({"exclude": ["zz"]})).0,
            "unknown_record"
        );
        assert_eq!(
            code("funnel_plot", json!({"variant": "lm"})).0,
            "invalid_arguments"
        );
        let many: Vec<Value> = (0..crate::plots::MAX_FOREST_RECORDS + 1)
            .map(|i| json!({"id": format!("r{i}"), "yi": 0.1, "vi": 0.01}))
            .collect();
        assert_eq!(
            code("forest_plot", json!({"records": many})).0,
            "too_many_records"
        );
    }

    #[test]
    fn definitions_are_well_formed() {
        let definitions = definitions();
        let names: Vec<&str> = definitions.iter().map(|d| d.name).collect();
        assert_eq!(names, TOOL_NAMES);
        for d in &definitions {
            assert!(d.name.len() <= 128);
            assert!(d
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)));
            assert!(!d.title.is_empty());
            assert!(d.description.len() > 80, "{}", d.name);
            assert!(d.annotations.read_only_hint);
            schema::check_plain_subset(&d.input_schema)
                .unwrap_or_else(|e| panic!("{}: {e}", d.name));
            assert_eq!(d.input_schema["type"], "object");
            assert_eq!(d.input_schema["additionalProperties"], false);
        }
        let json = definitions_json();
        assert_eq!(json[0]["annotations"], json!({"readOnlyHint": true}));
        assert_eq!(json[2]["inputSchema"]["required"], json!(["exclude"]));
        let keys: Vec<&str> = json[1]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["name", "title", "description", "inputSchema", "annotations"]
        );
        let methods = &json[1]["inputSchema"]["properties"]["method"]["enum"];
        assert_eq!(
            methods,
            &json!(["REML", "ML", "DL", "HE", "SJ", "PM", "EE"])
        );
    }

    #[test]
    fn definitions_carry_no_reference_numbers() {
        let text = format!("{}{}", definitions_json(), crate::protocol::metadata());
        let a = reference_answer();
        for x in [
            a.overall.estimate,
            a.overall.ci_lower,
            a.overall.ci_upper,
            a.overall.p,
            a.exclude_s04.estimate,
            a.exclude_s04.ci_lower,
            a.exclude_s04.ci_upper,
            a.exclude_s04.p,
            a.bias.egger_p,
        ] {
            for digits in [3, 4, 5] {
                let shown = format!("{:.*}", digits, x.abs());
                assert!(
                    !text.contains(&shown[1..]),
                    "{shown} appears in the definitions"
                );
            }
        }
    }

    #[test]
    fn every_tool_runs_with_defaults() {
        for name in [
            "get_dataset",
            "fit_random_effects",
            "egger_test",
            "leave_one_out",
        ] {
            let with_null = ok(name, Value::Null);
            assert_eq!(with_null, ok(name, json!({})), "{name}");
        }
        let refit = ok("refit_excluding", json!({"exclude": ["s04"]}));
        assert_eq!(refit["k"], 18);
    }

    #[test]
    fn overlapping_fields_equal_the_reference_answer() {
        let a = reference_answer();
        let fit = ok("fit_random_effects", json!({}));
        assert_eq!(fit["k"], json!(a.overall.k));
        assert_eq!(fit["estimate"], json!(a.overall.estimate));
        assert_eq!(fit["ci_lower"], json!(a.overall.ci_lower));
        assert_eq!(fit["ci_upper"], json!(a.overall.ci_upper));
        assert_eq!(fit["p"], json!(a.overall.p));
        assert_eq!(
            (fit["method"].as_str(), fit["test"].as_str()),
            (Some("REML"), Some("z"))
        );
        assert_eq!(fit["level"], 0.95);
        assert_eq!(
            fit["dataset"],
            json!({"name": dataset::NAME, "sha256": dataset::sha256()})
        );
        assert!(fit["z"].is_number() && fit.get("t").is_none());

        let refit = ok("refit_excluding", json!({"exclude": ["s04"]}));
        let x = &a.exclude_s04;
        assert_eq!(refit["k"], json!(x.k));
        assert_eq!(refit["excluded"], json!(x.excluded));
        assert_eq!(refit["estimate"], json!(x.estimate));
        assert_eq!(refit["ci_lower"], json!(x.ci_lower));
        assert_eq!(refit["ci_upper"], json!(x.ci_upper));
        assert_eq!(refit["p"], json!(x.p));

        let egger = ok("egger_test", json!({}));
        assert_eq!(egger["egger_p"], json!(a.bias.egger_p));
        assert_eq!(egger["rule_outcome"], json!(a.bias.rule_outcome));
        assert_eq!(egger["rule"], RULE_TEXT);
        assert_eq!(
            (egger["variant"].as_str(), egger["statistic_name"].as_str()),
            (Some("classic"), Some("t"))
        );
        assert_eq!(egger["df"], 17.0);
        assert_eq!(egger["excluded"], json!([]));

        // An answer assembled from the tool results scores 13/13.
        let answer = json!({
            "overall": {"k": fit["k"], "estimate": fit["estimate"], "ci_lower": fit["ci_lower"], "ci_upper": fit["ci_upper"], "p": fit["p"]},
            "exclude_s04": {"k": refit["k"], "estimate": refit["estimate"], "ci_lower": refit["ci_lower"], "ci_upper": refit["ci_upper"], "p": refit["p"], "excluded": refit["excluded"]},
            "bias": {"egger_p": egger["egger_p"], "rule_outcome": egger["rule_outcome"]}
        });
        assert_eq!(crate::scorer::score(&answer.to_string()).passed, Some(13));
    }

    #[test]
    fn leave_one_out_agrees_with_refit_excluding() {
        let loo = ok("leave_one_out", json!({}));
        let results = loo["results"].as_array().unwrap();
        assert_eq!(results.len(), 19);
        assert_eq!(loo["k"], 19);
        assert_eq!(results[3]["omitted"], "s04");
        let refit = ok("refit_excluding", json!({"exclude": ["s04"]}));
        for key in ["k", "estimate", "ci_lower", "ci_upper", "p", "tau2"] {
            assert_eq!(results[3][key], refit[key], "{key}");
        }
        let dl = ok("leave_one_out", json!({"method": "DL"}));
        assert_eq!(dl["method"], "DL");
        assert_eq!(dl["results"][0]["method"], "DL");
    }

    #[test]
    fn options_are_passed_to_the_engine() {
        for method in Method::ALL {
            let fit = ok("fit_random_effects", json!({"method": method.name()}));
            assert_eq!(fit["method"], method.name());
            assert_eq!(fit["k"], 19);
        }
        let ee = ok("fit_random_effects", json!({"method": "EE"}));
        assert_eq!(ee["tau2"], 0.0);
        let knha = ok("fit_random_effects", json!({"test": "knha", "level": 0.9}));
        assert!(knha["t"].is_number() && knha.get("z").is_none());
        assert_eq!(knha["df"], 18.0);
        assert_eq!(
            (knha["test"].as_str(), knha["level"].as_f64()),
            (Some("knha"), Some(0.9))
        );
        let rma = ok("egger_test", json!({"variant": "rma"}));
        assert_eq!(
            (rma["statistic_name"].as_str(), rma["df"].is_null()),
            (Some("z"), true)
        );
        assert!(rma["tau2"].is_number());
        let without = ok("egger_test", json!({"exclude": ["s04", "s05"]}));
        assert_eq!(
            (without["k"].as_u64(), without["excluded"].clone()),
            (Some(17), json!(["s04", "s05"]))
        );
    }

    #[test]
    fn records_replace_the_frozen_dataset() {
        let frozen: Vec<Value> = dataset::records()
            .iter()
            .map(|r| json!({"id": r.id, "yi": r.yi, "vi": r.vi}))
            .collect();
        let custom = ok("fit_random_effects", json!({"records": frozen}));
        let default = ok("fit_random_effects", json!({}));
        assert_eq!(custom["estimate"], default["estimate"]);
        assert_eq!(custom["dataset"]["name"], "custom records");
        assert_eq!(
            custom["dataset"]["sha256"],
            json!(canonical::sha256_hex(&json!(frozen)))
        );
        let three = json!([
            {"id": "a", "yi": 0.1, "vi": 0.01},
            {"id": "b", "yi": 0.3, "vi": 0.02},
            {"id": "c", "yi": -0.1, "vi": 0.04}
        ]);
        let fit = ok("fit_random_effects", json!({"records": three}));
        assert_eq!(fit["k"], 3);
        let refit = ok(
            "refit_excluding",
            json!({"exclude": ["c"], "records": three}),
        );
        assert_eq!(
            (refit["k"].as_u64(), refit["excluded"].clone()),
            (Some(2), json!(["c"]))
        );
        assert_eq!(ok("egger_test", json!({"records": three}))["k"], 3);
        assert_eq!(
            ok("leave_one_out", json!({"records": three}))["results"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
        assert_eq!(
            code(
                "refit_excluding",
                json!({"exclude": ["s04"], "records": three})
            )
            .0,
            "unknown_record"
        );
        assert_eq!(
            dataset_sha256_for(&json!({"records": three})),
            canonical::sha256_hex(&three)
        );
        assert_eq!(dataset_sha256_for(&json!({})), dataset::sha256());
    }

    #[test]
    fn each_error_code() {
        let (c, m) = code("no_such_tool", json!({}));
        assert_eq!(c, "unknown_tool");
        assert!(m.contains("fit_random_effects"), "{m}");
        assert_eq!(
            code("fit_random_effects", json!({"metod": "REML"})).0,
            "unknown_property"
        );
        assert_eq!(code("get_dataset", json!({"x": 1})).0, "unknown_property");
        assert_eq!(
            code(
                "fit_random_effects",
                json!({"records": [{"id": "a", "yi": 1, "vi": 1, "n": 3}]})
            )
            .0,
            "unknown_property"
        );
        assert_eq!(
            code("fit_random_effects", json!({"level": "0.9"})).0,
            "wrong_type"
        );
        assert_eq!(code("fit_random_effects", json!([])).0, "wrong_type");
        assert_eq!(code("fit_random_effects", json!("REML")).0, "wrong_type");
        assert_eq!(
            code("refit_excluding", json!({"exclude": "s04"})).0,
            "wrong_type"
        );
        assert_eq!(
            code(
                "fit_random_effects",
                json!({"records": [{"id": "a", "yi": "1", "vi": 1}]})
            ),
            (
                "wrong_type",
                "records[0].yi must be a number, got a string".to_string()
            )
        );
        assert_eq!(
            code("fit_random_effects", json!({"method": "reml"})).0,
            "invalid_arguments"
        );
        assert_eq!(
            code("fit_random_effects", json!({"level": 1.5})).0,
            "invalid_arguments"
        );
        assert_eq!(
            code("fit_random_effects", json!({"level": 1})).0,
            "invalid_arguments"
        );
        assert_eq!(
            code("fit_random_effects", json!({"level": 0})).0,
            "invalid_arguments"
        );
        assert_eq!(
            code("refit_excluding", json!({})),
            ("invalid_arguments", "exclude is required".to_string())
        );
        assert_eq!(
            code("refit_excluding", json!({"exclude": []})).0,
            "invalid_arguments"
        );
        assert_eq!(
            code("refit_excluding", json!({"exclude": ["s04", "s04"]})).0,
            "invalid_arguments"
        );
        assert_eq!(
            code("egger_test", json!({"variant": "lm"})).0,
            "invalid_arguments"
        );
        let (c, m) = code("refit_excluding", json!({"exclude": ["s99"]}));
        assert_eq!(c, "unknown_record");
        assert!(m.contains("\"s99\""), "{m}");
        assert_eq!(
            code("egger_test", json!({"exclude": ["x"]})).0,
            "unknown_record"
        );
        let many: Vec<Value> = (0..=MAX_TOOL_RECORDS)
            .map(|i| json!({"id": i.to_string(), "yi": 0, "vi": 1}))
            .collect();
        let (c, m) = code("fit_random_effects", json!({"records": many}));
        assert_eq!(c, "too_many_records");
        assert!(
            m.contains("100001 given, at most 100000 are accepted by fit_random_effects"),
            "{m}"
        );
        let many: Vec<Value> = (0..=MAX_LEAVE_ONE_OUT_RECORDS)
            .map(|i| json!({"id": i.to_string(), "yi": 0, "vi": 1}))
            .collect();
        assert_eq!(
            code("leave_one_out", json!({"records": many})).0,
            "too_many_records"
        );
        let dup = json!([{"id": "a", "yi": 0.1, "vi": 0.1}, {"id": "a", "yi": 0.2, "vi": 0.1}]);
        assert_eq!(
            code("fit_random_effects", json!({"records": dup})).0,
            "invalid_records"
        );
        let bad_vi = json!([{"id": "a", "yi": 0.1, "vi": 0.1}, {"id": "b", "yi": 0.2, "vi": 0}]);
        assert_eq!(
            code("fit_random_effects", json!({"records": bad_vi})).0,
            "invalid_records"
        );
        let one = json!([{"id": "a", "yi": 0.1, "vi": 0.1}]);
        assert_eq!(
            code("fit_random_effects", json!({"records": one})).0,
            "invalid_records"
        );
        let empty_id = json!([{"id": "", "yi": 0.1, "vi": 0.1}, {"id": "b", "yi": 0.2, "vi": 0.1}]);
        assert_eq!(
            code("fit_random_effects", json!({"records": empty_id})).0,
            "invalid_records"
        );
        let all = json!({"exclude": ["a", "b"], "records": [{"id": "a", "yi": 0.1, "vi": 0.1}, {"id": "b", "yi": 0.2, "vi": 0.1}, {"id": "c", "yi": 0.2, "vi": 0.1}]});
        assert_eq!(code("refit_excluding", all).0, "invalid_arguments");
        let equal_vi = json!([
            {"id": "a", "yi": 0.1, "vi": 0.1},
            {"id": "b", "yi": 0.2, "vi": 0.1},
            {"id": "c", "yi": 0.4, "vi": 0.1}
        ]);
        assert_eq!(
            code("egger_test", json!({"records": equal_vi})).0,
            "analysis_failed"
        );
        let not_converged = ToolError::from(MetaError::NotConverged {
            method: "REML",
            iterations: 1000,
        });
        assert_eq!(not_converged.code.as_str(), "not_converged");
        let json = not_converged.to_json();
        assert_eq!(json["error"]["code"], "not_converged");
        assert!(json["error"]["message"].as_str().unwrap().contains("REML"));
    }

    #[test]
    fn json_text_entry_point() {
        assert_eq!(
            call_json("fit_random_effects", "")
                .get("ok")
                .map(|r| &r["k"]),
            Some(&json!(19))
        );
        assert_eq!(call_json("fit_random_effects", " null ")["ok"]["k"], 19);
        assert_eq!(call_json("get_dataset", "{}")["ok"]["k"], 19);
        let bad = call_json("fit_random_effects", "{method: REML}");
        assert_eq!(bad["error"]["code"], "invalid_json");
        // JSON has no NaN or infinity; an overflowing literal is refused as it is parsed.
        let huge = call_json(
            "fit_random_effects",
            r#"{"records": [{"id": "a", "yi": 1e999, "vi": 1}]}"#,
        );
        assert_eq!(huge["error"]["code"], "invalid_json", "{huge}");
        assert_eq!(call_json("nope", "{}")["error"]["code"], "unknown_tool");
        let error = call_json("refit_excluding", "{}");
        assert_eq!(
            error,
            json!({"error": {"code": "invalid_arguments", "message": "exclude is required"}})
        );
    }
}
