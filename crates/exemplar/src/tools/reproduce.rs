//! `r_code: true`: the R script that reproduces a result with metafor 3.8-1, and the
//! methods paragraph that describes it (issue 46).
//!
//! A tool that has a metafor counterpart implements [`Reproducible`] on its argument type
//! (in its own file, at its end) and registers it with `handler!(tool; reproducible)`. The
//! call layer ([`super::call`]) takes `r_code` out of the arguments before the input
//! schema check (so no tool's schema grows: the rule is said once, in the instructions),
//! runs the tool, then asks the tool's [`Reproducible`] for the script and the paragraph and
//! adds them to the result as `r_code` and `methods_text`.
//!
//! Every script: says what wrote it, loads metafor, builds the call's data as a data.frame
//! (all its records, at most [`MAX_EMBEDDED_RECORDS`]; beyond, it reads `records.csv`),
//! then the tool's lines, which give `subset`, `exclude`, `slab`, formulas and weights as
//! metafor arguments (never pre-filtered data), assign the fitted or test object to `res`,
//! and end with `print(res)`. The [`Check`]s name the numbers of `res` that must equal the
//! result's: the R test (`tests/r_code.rs`) runs every script in one R process and compares.

use super::data::DataSource;
use super::{ErrorCode, ToolError};
use crate::rcode::{self, Methods, RColumn, Script};
use serde_json::{Map, Value};

/// The argument that asks for the R code and methods text (any tool that has them).
pub const R_CODE: &str = "r_code";
/// The result field holding the methods paragraph.
pub const METHODS_TEXT: &str = "methods_text";

/// The most records a script embeds as a data.frame literal; beyond, it reads them from
/// `records.csv` (the records the call analysed, one a row, written by the caller).
pub const MAX_EMBEDDED_RECORDS: usize = 5_000;

/// The metafor version the scripts are written for (and checked with).
pub const METAFOR_VERSION: &str = "3.8-1";

/// What a call gives a tool's R code: the arguments as given (without `r_code`), the data
/// before `subset` (the script subsets in R), and the result.
pub struct RContext<'a> {
    pub args: &'a Map<String, Value>,
    pub data: &'a DataSource,
    pub result: &'a Value,
}

/// A number of `res` (an R expression) that must equal `value`, the result's.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// The R expression, evaluated where the script ran (`res` and `dat` in scope).
    pub r: String,
    pub value: f64,
    /// The largest difference allowed, relative to max(1, |value|): 1e-8, or 1e-6 where
    /// METHODS.md says metafor stops short of our optimum.
    pub tolerance: f64,
}

/// A tool's script (after the data), its paragraph and its checks.
#[derive(Debug, Default)]
pub struct Reproduction {
    pub script: Script,
    pub methods: Methods,
    pub checks: Vec<Check>,
    /// The tolerance of the checks ([`Reproduction::loose`]); 1e-8 when `None`.
    tolerance: Option<f64>,
}

impl Reproduction {
    /// Checks `res`'s numbers named by `r` against the result's field `field` (skipped
    /// where the result has no number there).
    pub fn check(&mut self, r: impl Into<String>, value: Option<f64>) -> &mut Self {
        if let Some(value) = value.filter(|v| v.is_finite()) {
            self.checks.push(Check {
                r: r.into(),
                value,
                tolerance: self.tolerance.unwrap_or(1e-8),
            });
        }
        self
    }

    /// The checks after this agree to `tolerance` only: where METHODS.md says metafor's
    /// optimizer stops short of the engine's optimum (the script says so in a comment).
    pub fn loose(&mut self, tolerance: f64) -> &mut Self {
        self.tolerance = Some(tolerance);
        self
    }

    /// [`Self::check`] of the result's number at `pointer` (a JSON pointer).
    pub fn check_at(&mut self, r: impl Into<String>, result: &Value, pointer: &str) -> &mut Self {
        self.check(r, result.pointer(pointer).and_then(Value::as_f64))
    }
}

/// A tool's R code and methods text, written from its arguments (and a few numbers of its
/// result where the script must fix a component at our estimate).
pub trait Reproducible {
    /// The argument whose inline rows are the script's data, their columns under their own
    /// names (`data`: the 2x2 tools and escalc; `rows`: the conversions of reported summaries).
    const INLINE_ROWS: &'static str = super::DATA_ARGUMENT;

    /// Writes the analysis after the data (`dat`), ending with `res <- ...`; the methods
    /// sentences; the checks.
    fn reproduce(&self, cx: &RContext, out: &mut Reproduction) -> Result<(), ToolError>;
}

/// What `r_code: true` adds to a result.
pub struct Written {
    pub r_code: String,
    pub methods_text: String,
    pub checks: Vec<Check>,
}

/// The handler's [`Reproducible`], reached from its argument type (`handler!(f; reproducible)`).
pub(crate) fn reproduce_with<A, R>(
    _handler: fn(A, &DataSource) -> Result<R, ToolError>,
    args: &Value,
    data: &DataSource,
    result: &Value,
) -> Result<Written, ToolError>
where
    A: super::args::FromArgs + Reproducible,
{
    let Value::Object(args) = args else {
        return Err(ToolError::new(
            ErrorCode::WrongType,
            "the arguments must be an object",
        ));
    };
    let typed = A::from_args(args)
        .map_err(|e| ToolError::new(ErrorCode::InvalidArguments, e.to_string()))?;
    // Inline raw rows (`data`: the 2x2 tools, escalc; `rows`) are the script's data as given,
    // their columns under their own names; the dispatch read no records from them.
    let raw;
    let data = match args.get(A::INLINE_ROWS).and_then(Value::as_array) {
        Some(rows) => {
            let rows: Vec<Map<String, Value>> = rows
                .iter()
                .filter_map(|row| row.as_object().cloned())
                .collect();
            raw = DataSource::raw_rows(&rows, super::RAW_DATA_NAME, String::new());
            &raw
        }
        None => data,
    };
    let cx = RContext { args, data, result };
    let mut out = Reproduction::default();
    typed.reproduce(&cx, &mut out)?;
    let mut script = Script::default();
    script
        .comment(&format!(
            "Reproduces this result with R's metafor {METAFOR_VERSION} (written by the \
             metafor-compatible engine, version {}).",
            crate::ENGINE_VERSION
        ))
        .line("library(metafor)")
        .blank();
    data_lines(&mut script, &cx)?;
    script.blank();
    let mut text = script.finish();
    text.push_str(&out.script.finish());
    text.push_str("print(res)\n");
    Ok(Written {
        r_code: text,
        methods_text: out.methods.finish(&format!(
            "metafor-compatible engine, version {}",
            crate::ENGINE_VERSION
        )),
        checks: out.checks,
    })
}

/// `dat <- data.frame(...)`: the call's records before `subset` (id, yi and vi where they
/// are effect sizes, then every further column), or `read.csv` beyond
/// [`MAX_EMBEDDED_RECORDS`].
fn data_lines(script: &mut Script, cx: &RContext) -> Result<(), ToolError> {
    let records = cx.data.records();
    if records.len() > MAX_EMBEDDED_RECORDS {
        script
            .comment(&format!(
                "{} records: more than the {MAX_EMBEDDED_RECORDS} a script embeds. Save the \
                 records this call analysed as records.csv (columns id, yi, vi and the others).",
                records.len()
            ))
            .line("dat <- read.csv(\"records.csv\", stringsAsFactors = FALSE)");
        return Ok(());
    }
    if let Some(r) = records.iter().find(|r| rcode::holds_nul(&r.id)) {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("r_code: the id {:?} holds NUL, which R cannot hold", r.id),
        ));
    }
    let mut columns = vec![(
        "id".to_string(),
        RColumn::Text(records.iter().map(|r| Some(r.id.clone())).collect()),
    )];
    // The frozen dataset's study labels are not among its moderator columns.
    if cx.data.is_frozen() {
        columns.push((
            "author".into(),
            RColumn::Text(
                crate::dataset::rows()
                    .iter()
                    .map(|r| Some(r.author.clone()))
                    .collect(),
            ),
        ));
    }
    if records.iter().all(|r| r.yi.is_finite() && r.vi.is_finite()) {
        columns.push((
            "yi".into(),
            RColumn::Numeric(records.iter().map(|r| Some(r.yi)).collect()),
        ));
        columns.push((
            "vi".into(),
            RColumn::Numeric(records.iter().map(|r| Some(r.vi)).collect()),
        ));
    }
    for name in cx.data.column_names() {
        let column = cx.data.column(name).expect("a named column");
        let cells: Vec<Value> = (0..records.len())
            .map(|i| column.get(i).map_or(Value::Null, |c| c.to_value()))
            .collect();
        columns.push((name.to_string(), r_column(&cells)?));
    }
    script.line(format!("dat <- {}", rcode::data_frame(&columns)));
    Ok(())
}

/// A column as the engine reads it: numeric when every value is a number or numeric text
/// (missing values `NA`), else text (numbers written as JSON writes them).
fn r_column(cells: &[Value]) -> Result<RColumn, ToolError> {
    use super::raw_columns::{read_value, Reading};
    let readings: Vec<Reading> = cells.iter().map(|v| read_value(Some(v))).collect();
    if readings
        .iter()
        .all(|r| matches!(r, Reading::Number(_) | Reading::Missing(_)))
    {
        return Ok(RColumn::Numeric(
            readings
                .iter()
                .map(|r| match r {
                    Reading::Number(x) => Some(*x),
                    _ => None,
                })
                .collect(),
        ));
    }
    let mut texts = Vec::with_capacity(cells.len());
    for (cell, reading) in cells.iter().zip(&readings) {
        texts.push(match (cell, reading) {
            (_, Reading::Missing(_)) => None,
            (Value::String(s), _) => {
                if rcode::holds_nul(s) {
                    return Err(ToolError::new(
                        ErrorCode::InvalidArguments,
                        "r_code: a value holds NUL, which R cannot hold",
                    ));
                }
                Some(s.trim().to_string())
            }
            (other, _) => Some(other.to_string()),
        });
    }
    Ok(RColumn::Text(texts))
}

/// The shared metafor arguments every tool's records call takes: `subset` (the call's
/// `subset` and its `exclude` ids, as one logical expression over `dat`'s columns) and
/// `slab`.
pub fn record_arguments(cx: &RContext, excluded: &[String]) -> Vec<String> {
    let mut args = Vec::new();
    if let Some(subset) = subset_expression(cx, excluded) {
        args.push(format!("subset = {subset}"));
    }
    if let Some(slab) = cx.args.get(super::SLAB).and_then(Value::as_str) {
        args.push(format!("slab = {}", rcode::name(slab)));
    }
    args
}

/// `subset` and the excluded ids as one R logical expression (never NA: `%in%`).
pub fn subset_expression(cx: &RContext, excluded: &[String]) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(subset) = cx.args.get(super::SUBSET).and_then(Value::as_object) {
        let column = subset.get("column").and_then(Value::as_str).unwrap_or("");
        let values: Vec<&Value> = match (subset.get("in"), subset.get("equals")) {
            (Some(Value::Array(items)), _) => items.iter().collect(),
            (_, Some(value)) => vec![value],
            _ => Vec::new(),
        };
        let numeric_column = cx.data.column(column).is_some_and(|c| {
            c.iter().all(|cell| {
                matches!(
                    super::raw_columns::read_value(cell.map(|c| c.to_value()).as_ref()),
                    super::raw_columns::Reading::Number(_)
                        | super::raw_columns::Reading::Missing(_)
                )
            })
        });
        let written = values.iter().map(|v| match v {
            Value::Number(n) => rcode::number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) if numeric_column => s
                .trim()
                .parse::<f64>()
                .map_or_else(|_| rcode::string(s.trim()), rcode::number),
            Value::String(s) => rcode::string(s.trim()),
            other => rcode::string(&other.to_string()),
        });
        parts.push(format!(
            "{} %in% {}",
            rcode::name(column),
            rcode::vector(written)
        ));
    }
    if !excluded.is_empty() {
        parts.push(format!("!(id %in% {})", rcode::strings(excluded)));
    }
    (!parts.is_empty()).then(|| parts.join(" & "))
}

/// The ids the result left out (`excluded`), as given by the call.
pub fn excluded_of(result: &Value) -> Vec<String> {
    result
        .get("excluded")
        .and_then(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(|id| id.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// `method`, `test` and `level` as rma's arguments, and control settings tight enough to
/// meet the engine's exact root: Fisher scoring (REML, ML) to a change below 1e-12, and
/// uniroot (PM) to 1e-15. `method = "EE"` is metafor 3.8's equal-effects model.
pub fn fit_arguments(
    method: meta_analysis::Method,
    level: f64,
    test: meta_analysis::Test,
) -> Vec<String> {
    let mut args = vec![format!("method = {}", rcode::string(method.name()))];
    if test == meta_analysis::Test::Knha {
        args.push("test = \"knha\"".into());
    }
    if level != 0.95 {
        args.push(format!("level = {}", rcode::number(100.0 * level)));
    }
    if matches!(
        method,
        meta_analysis::Method::Reml | meta_analysis::Method::Ml | meta_analysis::Method::Pm
    ) {
        args.push("control = list(threshold = 1e-12, tol = 1e-15, maxiter = 1000)".into());
    }
    args
}

/// The checks of an rma fit's headline numbers (the result's shared fields).
pub fn fit_checks(out: &mut Reproduction, result: &Value) {
    out.check_at("c(coef(res))[1]", result, "/estimate")
        .check_at("res$se[1]", result, "/se")
        .check_at("res$pval[1]", result, "/p")
        .check_at("res$ci.lb[1]", result, "/ci_lower")
        .check_at("res$ci.ub[1]", result, "/ci_upper")
        .check_at("res$tau2", result, "/tau2")
        .check_at("res$QE", result, "/q")
        .check_at("res$QEp", result, "/q_p");
}

/// The methods sentences of a random- or equal-effects model (reporter()'s): the outcome
/// measure, the model, the tau^2 estimator and its reference, the Q test and I^2, the
/// prediction interval, and the Knapp-Hartung method where used.
pub fn fit_methods(
    methods: &mut Methods,
    measure: Option<&str>,
    method: meta_analysis::Method,
    test: meta_analysis::Test,
    level: f64,
    moderators: bool,
) {
    use crate::rcode::*;
    if let Some(measure) = measure {
        methods.say(
            &format!("The analysis was carried out using the {measure} as the outcome measure."),
            &[],
        );
    }
    let equal = method.is_equal_effects();
    let model = match (equal, moderators) {
        (true, false) => "An equal-effects model was fitted to the data.",
        (true, true) => "An equal-effects meta-regression model was fitted to the data.",
        (false, false) => "A random-effects model was fitted to the data.",
        (false, true) => "A mixed-effects meta-regression model was fitted to the data.",
    };
    methods.say(model, &[]);
    // Every estimator but the equal-effects model's has a name and reference there.
    if let Some((name, reference)) = estimator(method.name()) {
        let residual = if moderators { "residual " } else { "" };
        methods.say(
            &format!(
                "The amount of {residual}heterogeneity (i.e., tau^2) was estimated using the \
                 {name} estimator {{}}."
            ),
            &[reference],
        );
    }
    if moderators {
        methods.say(
            "The Q-test for residual heterogeneity {} is reported.",
            &[&COCHRAN_1954],
        );
    } else {
        methods.say(
            "The Q-test for heterogeneity {} and the I^2 statistic {} are reported.",
            &[&COCHRAN_1954, &HIGGINS_2002],
        );
        if !equal {
            methods.say(
                "In case any amount of heterogeneity is detected (i.e., tau^2 > 0, regardless \
                 of the results of the Q-test), a prediction interval for the true outcomes is \
                 also provided {}.",
                &[&RILEY_2011],
            );
        }
    }
    let percent = rcode::number(100.0 * level);
    match test {
        meta_analysis::Test::Knha => methods.say(
            &format!(
                "Tests and {percent}% confidence intervals were computed using the Knapp and \
                 Hartung method {{}}."
            ),
            &[&KNAPP_2003],
        ),
        meta_analysis::Test::Z => methods.say(
            &format!(
                "Tests and {percent}% confidence intervals are based on the standard normal \
                 distribution."
            ),
            &[],
        ),
    };
}

/// The error of a tool that writes no R code (yet).
pub fn no_counterpart(tool: &str) -> ToolError {
    ToolError::new(
        ErrorCode::InvalidArguments,
        format!(
            "r_code: {tool} writes no R code (no metafor counterpart, or not yet); the tools \
             that do are {}",
            super::REGISTRY
                .iter()
                .filter(|t| super::reproducible(t))
                .map(|t| t.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

/// `rma(yi, vi, data = dat, <subset and slab>, <more>)`: the model every tool of the
/// records fits, `excluded` the call's `exclude` ids.
pub fn rma(cx: &RContext, excluded: &[String], more: Vec<String>) -> String {
    let mut args = vec!["yi".to_string(), "vi".into(), "data = dat".into()];
    args.extend(record_arguments(cx, excluded));
    args.extend(more);
    Script::call("rma", &args)
}

/// A fit's `rma(...)` from its shared arguments (method, test, level).
pub fn rma_of_fit(
    cx: &RContext,
    excluded: &[String],
    fit: &super::args::FitArgs,
) -> Result<String, ToolError> {
    let options = fit.options()?;
    Ok(rma(
        cx,
        excluded,
        fit_arguments(options.method, options.level, options.test),
    ))
}
