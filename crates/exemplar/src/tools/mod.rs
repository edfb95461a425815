//! The agent tools: one registry ([`REGISTRY`]) from which the names, the definitions the
//! page registers, the dispatch, the record caps and the companion plots all follow.
//!
//! A tool is one file, `tools/<name>.rs`: its [`Tool`] entry, its argument type (read once,
//! after the input schema check; the input schema is derived from it), its handler and its
//! result type (`Serialize`, and `JsonSchema` for the output schema). This module keeps the
//! [`Tool`] type, `registry!` (one line a tool) and the dispatch; around it, each re-exported
//! here, `call.rs` (what callers call: by name, from JSON text, with a session's store),
//! `definitions.rs` (the definitions and output schemas), `companion.rs` (companion plots),
//! `input_schemas.rs`, `limits.rs` and `restrict.rs` (`subset`, `slab`).
//! `docs/ARCHITECTURE.md` gives the whole recipe for adding a tool. Result field names match the answer shape
//! where they overlap (`k`, `estimate`, `ci_lower`, `ci_upper`, `p`, `excluded`, `egger_p`,
//! `rule_outcome`).
//!
//! # Lean definitions
//!
//! An agent reads every definition on every discovery (`exemplar tools`, MCP `tools/list`,
//! the page's WebMCP registrations), so each says only what its own tool needs, once:
//!
//! - **Shared rules are said once**, in [`instructions`] (the MCP server's `instructions`,
//!   the page's text): where the data come from (`records` or the frozen dataset), the
//!   limits, the conventions (exact tau^2 roots, two-sided p, z/knha intervals), the shared
//!   arguments (`method`, `level`, `test`, `exclude`, `records`, `measure`, `transform`) and
//!   the shared result fields (`estimate`, `se`, `ci_lower`, `tau2`, `natural`, …). A
//!   description never repeats them, nor another tool's description.
//! - **A description** (at most [`MAX_DESCRIPTION_CHARS`] characters) says what the tool
//!   computes, the method and its source (e.g. "as metafor's trimfill()"), what it needs
//!   (e.g. "at least 3 records") and anything an agent would otherwise get wrong. It does
//!   not list the result's fields (the output schema does) nor restate an argument (its
//!   schema does).
//! - **An input schema** holds, for every argument, its type, its `enum` where the values
//!   are a fixed set, its `default` where it has one, and a one-line description; required
//!   arguments are in `required`. Reading the schema alone must suffice to call the tool
//!   right the first time.
//! - **Output schemas are not in the list.** They are derived from the result types and
//!   served on their own ([`output_schema`], [`output_schemas_json`]); a result's fields
//!   are named as the instructions name them.
//! - **Budget, per tool.** Each definition is at most [`MAX_DEFINITION_BYTES`] of compact
//!   JSON, schema included, and the list at most [`MEAN_DEFINITION_BYTES`] a tool on average:
//!   no total cap blocks an addition. Analyses that share inputs and outputs are one tool
//!   with a `kind` or an option, so breadth grows options, not tools; a shared argument's
//!   schema (`schema_derivation.rs`) is written once and reused.
//!
//! Tests (`guide.rs`) hold this for every registered tool: the size, no sentence of 80
//! characters or more in two descriptions, at most [`MAX_DESCRIPTION_CHARS`] characters a
//! description, and every argument with a type, a description, its enum and its default.

/// A tool's handler erased to the registry's signature, with the input and output schemas of
/// its argument and result types and the printer of its result: `handler!(function)`,
/// `function` being `fn(Args, &DataSource) -> Result<R, ToolError>` with `R` a
/// [`crate::printed::Printed`] result; `handler!(function; no summary)` for a data tool whose
/// rows have no printed summary.
macro_rules! handler {
    ($handler:path) => {
        handler!(@with $handler, |result: &serde_json::Value| {
            $crate::tools::summary_of($handler, result)
        }, None)
    };
    // A tool whose argument type implements `reproduce::Reproducible` (`r_code: true`).
    ($handler:path; reproducible) => {
        handler!(@with $handler, |result: &serde_json::Value| {
            $crate::tools::summary_of($handler, result)
        }, Some({
            fn reproduce(
                args: &serde_json::Value,
                data: &$crate::tools::DataSource,
                result: &serde_json::Value,
            ) -> Result<$crate::tools::reproduce::Written, $crate::tools::ToolError> {
                $crate::tools::reproduce::reproduce_with($handler, args, data, result)
            }
            reproduce
        }))
    };
    ($handler:path; no summary) => {
        handler!(@with $handler, |_: &serde_json::Value| None, None)
    };
    ($handler:path; no summary, reproducible) => {
        handler!(@with $handler, |_: &serde_json::Value| None, Some({
            fn reproduce(
                args: &serde_json::Value,
                data: &$crate::tools::DataSource,
                result: &serde_json::Value,
            ) -> Result<$crate::tools::reproduce::Written, $crate::tools::ToolError> {
                $crate::tools::reproduce::reproduce_with($handler, args, data, result)
            }
            reproduce
        }))
    };
    (@with $handler:path, $summary:expr, $reproduce:expr) => {{
        fn run(
            args: &serde_json::Value,
            data: &$crate::tools::DataSource,
        ) -> Result<serde_json::Value, $crate::tools::ToolError> {
            $crate::tools::handle($handler, args, data)
        }
        #[cfg(feature = "definitions")]
        fn input_schema(max_records: usize) -> serde_json::Value {
            $crate::tools::schema_derivation::input_of_handler($handler, max_records)
        }
        #[cfg(feature = "definitions")]
        fn output_schema() -> serde_json::Value {
            $crate::tools::schema_derivation::output_of_handler($handler)
        }
        #[cfg(feature = "extended")]
        fn summary(result: &serde_json::Value) -> Option<String> {
            let summary: fn(&serde_json::Value) -> Option<String> = $summary;
            summary(result)
        }
        $crate::tools::Handler {
            run,
            #[cfg(feature = "definitions")]
            input_schema,
            #[cfg(feature = "definitions")]
            output_schema,
            #[cfg(feature = "extended")]
            summary,
            #[cfg(feature = "extended")]
            reproduce: $reproduce,
        }
    }};
}

// Around the registry: what callers call, the definitions, the companion plots, the input
// schemas, the limits and the records a call keeps.
mod call;
mod companion;
#[cfg(feature = "definitions")]
mod definitions;
mod input_schemas;
mod limits;
#[cfg(feature = "extended")]
pub mod reproduce;
mod restrict;

// What several tools share (first: its macros serve the modules below).
#[macro_use]
mod args;
mod columns;
// `robust_test`'s and `compare_models`' R code (beside their files: `r_code: true`).
#[cfg(feature = "extended")]
mod compare_models_r;
mod cumulative;
// What only `load_data` reaches (keeping data under a handle) is unused without `extended`:
// the page's first module links none of it (see `dispatch`).
#[cfg_attr(not(feature = "extended"), allow(dead_code))]
mod data;
mod effect_sizes;
mod error;
#[cfg(feature = "definitions")]
mod examples;
mod fit;
mod guide;
mod multilevel;
mod multilevel_general;
mod plot;
mod publication_bias;
mod raw_columns;
#[cfg(feature = "extended")]
mod robust_test_r;
mod scale;
mod schema_derivation;
#[cfg_attr(not(feature = "extended"), allow(dead_code))]
mod store;
mod tables;
mod trim_fill;
mod vcalc_arg;

pub use data::{DataSource, DatasetInfo, CUSTOM_RECORDS};
pub use effect_sizes::{compute as compute_effect_size_rows, unique_ids, EscalcSettings};
pub use effect_sizes::{EffectSizeRecord, RowError, DATA_ARGUMENT, RAW_DATA_NAME};
pub use error::{ErrorCode, ToolError};
pub use guide::instructions;
pub use guide::{MAX_DEFINITION_BYTES, MAX_DESCRIPTION_CHARS, MEAN_DEFINITION_BYTES};
pub use load_data::{LoadDataResult, LOAD_DATA_NAME};
pub use store::DataStore;

#[cfg(feature = "extended")]
pub use call::reproduced;
pub use call::Outcome;
pub use call::{call, call_in, call_json, dataset_sha256_for, outcome, outcome_in, parse_args};
pub use companion::Companion;
pub use companion::{companion_call, companion_call_in, companion_plot, companion_plot_in};
#[cfg(feature = "definitions")]
pub use definitions::{
    definitions, definitions_json, output_schema, output_schema_of, output_schemas_json,
};
#[cfg(feature = "definitions")]
pub use definitions::{Annotations, ToolDefinition};
#[cfg(feature = "definitions")]
pub use input_schemas::derived_input_schemas;
pub(crate) use input_schemas::input_schema_of;
pub use limits::MAX_INFLUENCE_RECORDS;
pub use limits::{MAX_ARGS_BYTES, MAX_CUMULATIVE_RECORDS, MAX_HANDLES, MAX_HELD_BYTES};
pub use limits::{MAX_LEAVE_ONE_OUT_RECORDS, MAX_RAW_DATA_ROWS, MAX_TOOL_RECORDS};
use restrict::{restrict, restricted};
pub use restrict::{SLAB, SUBSET};

use serde::Serialize;
use serde_json::Value;

/// Everything about one tool.
pub struct Tool {
    /// 1–128 characters of `[A-Za-z0-9_.-]`, unique.
    pub name: &'static str,
    pub title: &'static str,
    /// One line on what it gives, shown where the page lists the tools.
    pub summary: &'static str,
    /// Where the page lists it.
    pub group: ToolGroup,
    /// The most records its `records` argument may hold.
    pub max_records: usize,
    /// The plot drawn beside its result.
    pub companion: Option<Companion>,
    /// Whether its result can carry text a caller supplied (record ids): WebMCP's
    /// `untrustedContentHint`.
    pub echoes_caller_text: bool,
    /// What an agent reads (only where definitions are written: the page's wasm registers
    /// none, so it does not carry them).
    #[cfg(feature = "definitions")]
    pub description: fn() -> String,
    /// Calls that show the tool's options, each valid: the registry's tests run every one
    /// and check its result against the output schema.
    #[cfg(feature = "definitions")]
    pub examples: fn() -> Vec<Value>,
    /// Runs the tool; its argument and result types give its schemas.
    pub handler: Handler,
}

/// A tool's handler and the schemas of its argument and result types (`handler!`).
pub struct Handler {
    pub run: fn(&Value, &DataSource) -> Result<Value, ToolError>,
    /// The input schema derived from the argument type, for a tool taking at most this many
    /// records; calls are checked against the committed copy (`input_schema_of`).
    #[cfg(feature = "definitions")]
    pub input_schema: fn(usize) -> Value,
    #[cfg(feature = "definitions")]
    pub output_schema: fn() -> Value,
    /// The printed summary of a result (its JSON read back as the typed result), if the tool
    /// prints one. Only in the whole engine: the page's first module prints none.
    #[cfg(feature = "extended")]
    pub summary: fn(&Value) -> Option<String>,
    /// The R code and methods text of a result (`r_code: true`), for a tool with a metafor
    /// counterpart: from the arguments, the data before `subset`, and the result.
    #[cfg(feature = "extended")]
    pub reproduce: Option<ReproduceFn>,
}

/// [`Handler::reproduce`].
#[cfg(feature = "extended")]
pub type ReproduceFn = fn(&Value, &DataSource, &Value) -> Result<reproduce::Written, ToolError>;

/// Whether `tool` writes R code and a methods text (`r_code: true`).
pub fn reproducible(tool: &Tool) -> bool {
    #[cfg(feature = "extended")]
    return tool.handler.reproduce.is_some();
    #[cfg(not(feature = "extended"))]
    {
        let _ = tool;
        false
    }
}

impl Tool {
    /// Runs the tool on already validated `args` and the call's data.
    fn run(&self, args: &Value, data: &DataSource) -> Result<Value, ToolError> {
        (self.handler.run)(args, data)
    }

    /// The input schema derived from the tool's argument type.
    #[cfg(feature = "definitions")]
    pub fn derived_input_schema(&self) -> Value {
        (self.handler.input_schema)(self.max_records)
    }
}

/// The groups the page lists the tools in, in this order: the benchmark's own tools first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ToolGroup {
    /// The tools of the benchmark's three tasks and its frozen dataset.
    Benchmark,
    /// Further analyses of the same records.
    Analysis,
    /// Plots drawn from the same arguments as an analysis.
    Plot,
    /// Preparing one's own data: effect sizes from raw data.
    Data,
}

impl ToolGroup {
    pub const ALL: [ToolGroup; 4] = [
        ToolGroup::Benchmark,
        ToolGroup::Analysis,
        ToolGroup::Plot,
        ToolGroup::Data,
    ];

    /// A stable key (for anchors and tests).
    pub fn key(self) -> &'static str {
        match self {
            ToolGroup::Benchmark => "benchmark",
            ToolGroup::Analysis => "analysis",
            ToolGroup::Plot => "plot",
            ToolGroup::Data => "data",
        }
    }

    /// The heading the page shows.
    pub fn title(self) -> &'static str {
        match self {
            ToolGroup::Benchmark => "The benchmark's tools",
            ToolGroup::Analysis => "Further analyses",
            ToolGroup::Plot => "Plots of the results",
            ToolGroup::Data => "Preparing your data",
        }
    }
}

/// `group` in a tool definition: the group's key and heading.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct GroupDefinition {
    pub key: &'static str,
    pub title: &'static str,
}

/// A handler with typed arguments and result, erased to the registry's signature.
fn handle<A: args::FromArgs, R: Serialize>(
    handler: fn(A, &DataSource) -> Result<R, ToolError>,
    args: &Value,
    data: &DataSource,
) -> Result<Value, ToolError> {
    // The input schema has refused anything but an object already (`wrong_type`, in the
    // schema check's words); a handler never reads another value.
    let Value::Object(args) = args else {
        return Err(ToolError::new(
            ErrorCode::WrongType,
            "the arguments must be an object",
        ));
    };
    let args = A::from_args(args)
        .map_err(|e| ToolError::new(ErrorCode::InvalidArguments, e.to_string()))?;
    let result = handler(args, data)?;
    Ok(serde_json::to_value(result).expect("tool results serialize"))
}

/// The printed summary of `handler`'s `result`, read back as the handler's typed result:
/// `None` for a result that is not one (or has nothing to print).
#[cfg(feature = "extended")]
pub(crate) fn summary_of<A, R>(
    _handler: fn(A, &DataSource) -> Result<R, ToolError>,
    result: &Value,
) -> Option<String>
where
    R: serde::de::DeserializeOwned + crate::printed::Printed,
{
    let result = R::deserialize(result).ok()?;
    let mut out = crate::printed::Out::default();
    result.print(&mut out);
    let text = out.finish();
    (!text.is_empty()).then_some(text)
}

/// The printed summary of tool `name`'s `result` (`exemplar call --text`, the MCP server's
/// text content, the page), written by the tool's own printer; `None` for a tool without one
/// (the data tools' rows) or a result it cannot read.
#[cfg(feature = "extended")]
pub fn summary(name: &str, result: &Value) -> Option<String> {
    (find(name)?.handler.summary)(result)
}

/// Without `extended` (the page's first wasm module) no result has a printed summary: the
/// whole engine prints them (the page asks it, `resultView`), so the first module links no
/// printer.
#[cfg(not(feature = "extended"))]
pub fn summary(_name: &str, _result: &Value) -> Option<String> {
    None
}

/// The text of `tool`'s summary snapshot: for each of its examples, the call's arguments and
/// its printed summary ("(no summary)" for a tool without one), or its error. The snapshot
/// test (`tests/summary_snapshots.rs`) holds it to `src/tools/snapshots/<tool>.txt`, which
/// `cargo xtask codegen` writes for a tool that has none.
#[cfg(all(feature = "definitions", feature = "extended"))]
pub fn summary_snapshot(tool: &Tool) -> String {
    let mut text = String::new();
    for example in (tool.examples)() {
        let args = serde_json::to_string(&example).expect("examples serialize");
        let shown = if args.len() > 200 {
            format!(
                "{}… ({} bytes)",
                &args[..args.floor_char_boundary(200)],
                args.len()
            )
        } else {
            args
        };
        text.push_str(&format!("## {} {shown}\n", tool.name));
        match call(tool.name, &example) {
            Ok(result) => match summary(tool.name, &result) {
                Some(summary) => text.push_str(&summary),
                None => text.push_str("(no summary)\n"),
            },
            Err(e) => text.push_str(&format!("error: {e}\n")),
        }
        text.push('\n');
    }
    text
}

/// Declares each tool's module (its file, named for the tool), re-exports its entry and lists
/// it in [`REGISTRY`]: adding a tool is one line of `registry!`.
macro_rules! registry {
    (
        benchmark: [$($bench:ident::$bench_tool:ident),* $(,)?],
        extended: [$($ext:ident::$ext_tool:ident),* $(,)?] $(,)?
    ) => {
        $(mod $bench; pub use $bench::$bench_tool;)*
        $(mod $ext; pub use $ext::$ext_tool;)*

        /// Every tool, in the order the page lists them: grouped, in [`ToolGroup`] order.
        ///
        /// Without the `extended` feature only the benchmark's own tools
        /// ([`ToolGroup::Benchmark`]) are here: the page's first wasm module, which answers
        /// the first calls while the whole engine loads.
        pub static REGISTRY: &[&Tool] = &[
            $(&$bench_tool,)*
            $(#[cfg(feature = "extended")] &$ext_tool,)*
        ];
    };
}

registry! {
    // The benchmark's own tools.
    benchmark: [
        get_dataset::GET_DATASET,
        fit_random_effects::FIT_RANDOM_EFFECTS,
        refit_excluding::REFIT_EXCLUDING,
        egger_test::EGGER_TEST,
    ],
    // Every further tool: analyses, plots, then data.
    extended: [
        leave_one_out::LEAVE_ONE_OUT,
        meta_regression::META_REGRESSION,
        subgroup_analysis::SUBGROUP_ANALYSIS,
        heterogeneity::HETEROGENEITY,
        fit_multilevel::FIT_MULTILEVEL,
        robust_test::ROBUST_TEST,
        trim_and_fill::TRIM_AND_FILL,
        rank_correlation_test::RANK_CORRELATION_TEST,
        fail_safe_n::FAIL_SAFE_N,
        cumulative_meta_analysis::CUMULATIVE_META_ANALYSIS,
        influence_diagnostics::INFLUENCE_DIAGNOSTICS,
        mantel_haenszel::MANTEL_HAENSZEL,
        peto_odds_ratio::PETO_ODDS_RATIO,
        selection_model::SELECTION_MODEL,
        pet_peese::PET_PEESE,
        compare_models::COMPARE_MODELS,
        forest_plot::FOREST_PLOT,
        funnel_plot::FUNNEL_PLOT,
        trim_and_fill_plot::TRIM_AND_FILL_PLOT,
        cumulative_forest_plot::CUMULATIVE_FOREST_PLOT,
        bubble_plot::BUBBLE_PLOT,
        diagnostic_plot::DIAGNOSTIC_PLOT,
        compute_effect_sizes::COMPUTE_EFFECT_SIZES,
        load_data::LOAD_DATA,
        convert_summaries::CONVERT_SUMMARIES,
    ],
}

pub use selection_model::MAX_SELECTION_RECORDS;

/// A name in a result that is one of a fixed set when the tool writes it (a method, a
/// test, a measure): borrowed then, owned when a result is read back (a printed summary is
/// written from the typed result read back from its JSON).
pub type Word = std::borrow::Cow<'static, str>;

/// The tool named `name`.
pub fn find(name: &str) -> Option<&'static Tool> {
    REGISTRY.iter().copied().find(|tool| tool.name == name)
}

/// The tool names, in registry order.
pub fn names() -> impl Iterator<Item = &'static str> {
    REGISTRY.iter().map(|tool| tool.name)
}

/// Runs tool `name` on `args`: finds it, checks the record caps and the input schema, then
/// gives it the call's data (the frozen dataset, `records`, a handle of `store` or raw
/// `data`, restricted by `subset` and `slab`); `load_data` keeps what it reads in `store`.
fn dispatch(
    name: &str,
    args: &Value,
    dataset_sha256: &mut Option<String>,
    store: &mut DataStore,
    source: &mut Option<std::sync::Arc<DataSource>>,
) -> Result<Value, ToolError> {
    let tool = find(name).ok_or_else(|| {
        ToolError::new(
            ErrorCode::UnknownTool,
            format!(
                "unknown tool {name:?}; the tools are {}",
                names().collect::<Vec<_>>().join(", ")
            ),
        )
    })?;
    // Checked before the schema walk so that an oversized list is refused without a pass over it.
    if let Some(records) = args.get("records").and_then(Value::as_array) {
        if records.len() > tool.max_records {
            return Err(ToolError::new(
                ErrorCode::TooManyRecords,
                format!(
                    "too many records: {} given, at most {} are accepted by {name}",
                    records.len(),
                    tool.max_records
                ),
            ));
        }
    }
    crate::schema_check::validate(input_schema_of(tool), args)?;
    // Only where `load_data` is registered: the page's first module links none of it.
    #[cfg(feature = "extended")]
    if std::ptr::eq(tool, &LOAD_DATA) {
        let (data, bytes) = store::load_source(args)?;
        *dataset_sha256 = Some(data.info().sha256.clone());
        *source = None;
        let mut result = tool.run(args, &data)?;
        store::keep(store, data, bytes, &mut result);
        return Ok(result);
    }
    let data = match args.get(DATA_ID) {
        Some(id) => {
            if args.get("records").is_some() {
                return Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!("give records or {DATA_ID}, not both"),
                ));
            }
            named_once(args)?;
            let data = store.get(id.as_str().unwrap_or_default())?;
            if data.records().len() > tool.max_records {
                return Err(ToolError::new(
                    ErrorCode::TooManyRecords,
                    format!(
                        "too many records: {id} holds {}, at most {} are accepted by {name}",
                        data.records().len(),
                        tool.max_records
                    ),
                ));
            }
            data
        }
        None => {
            named_once(args)?;
            if args.get("records").is_none()
                && args.get(DATASET).is_none()
                && store.has_loaded()
                && input_schema_of(tool)["properties"].get("records").is_some()
            {
                return Err(data_not_named(store));
            }
            std::sync::Arc::new(DataSource::from_args(args)?)
        }
    };
    *dataset_sha256 = Some(match args.get(effect_sizes::DATA_ARGUMENT) {
        Some(raw) => crate::canonical::sha256_hex(raw),
        None => data.info().sha256.clone(),
    });
    // A call giving raw `data` (the 2x2 tools) restricts those rows itself: `subset` and
    // `slab` name their columns, not the frozen dataset's.
    *source = Some(std::sync::Arc::clone(&data));
    let data = if args.get(effect_sizes::DATA_ARGUMENT).is_some() {
        data
    } else {
        restricted(data, args)?
    };
    tool.run(args, &data)
}

/// The argument that names the frozen dataset explicitly (`"dataset": "dat.raudenbush1985"`),
/// which a session that has loaded data must give to analyse it.
pub const DATASET: &str = "dataset";

/// The argument naming a handle of loaded data, in every tool that takes `records`.
pub const DATA_ID: &str = "data_id";

/// `dataset` given with `records` or `data_id` names two data at once.
fn named_once(args: &Value) -> Result<(), ToolError> {
    if args.get(DATASET).is_some() && (args.get("records").is_some() || args.get(DATA_ID).is_some())
    {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("give one of records, {DATA_ID} and {DATASET}, not two"),
        ));
    }
    Ok(())
}

/// A call that names no data in a session that has loaded some: the frozen dataset is not
/// assumed (the benchmark's calls, in a session that loaded nothing, are unchanged).
fn data_not_named(store: &DataStore) -> ToolError {
    let handles = store.handles();
    let holds = if handles.is_empty() {
        "its handles have expired; load the data again".to_string()
    } else {
        format!("it holds {}", handles.join(", "))
    };
    ToolError::new(
        ErrorCode::DataNotNamed,
        format!(
            "this call names no data, and this session has loaded data with {} ({holds}): give \
             {DATA_ID} (e.g. \"{}\") for the loaded data, or \"{DATASET}\": \"{}\" for the \
             frozen benchmark dataset",
            LOAD_DATA_NAME,
            handles.last().map_or("d1", String::as_str),
            crate::dataset::NAME
        ),
    )
}
