//! The agent tools: one registry ([`REGISTRY`]) from which the names, the definitions the
//! page registers, the dispatch, the record caps and the companion plots all follow.
//!
//! Adding a tool is one [`Tool`] entry in [`REGISTRY`] plus its argument type (read once,
//! after the input schema check, in [`args`]), its result type (`Serialize`, and
//! `JsonSchema` for the output schema) and its handler. Result field names match the answer
//! shape where they overlap (`k`, `estimate`, `ci_lower`, `ci_upper`, `p`, `excluded`,
//! `egger_p`, `rule_outcome`).
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
//! - **Budget.** The whole list is at most [`MAX_DEFINITIONS_BYTES`] of compact JSON; with
//!   26 tools that is about 1.5 KB a tool, schema included. A tool that needs more says less
//!   elsewhere: a shared argument's schema (`schemas.rs`) is written once and reused.
//!
//! Tests (`guide.rs`) hold this for every registered tool: the size, no sentence of 80
//! characters or more in two descriptions, at most [`MAX_DESCRIPTION_CHARS`] characters a
//! description, and every argument with a type, a description, its enum and its default.

mod args;
mod columns;
mod cumulative;
mod data;
mod dataset_tool;
mod effect_sizes;
mod egger;
mod error;
mod fail_safe;
mod fit;
mod guide;
mod heterogeneity;
mod influence;
mod metareg;
mod multilevel;
mod plot;
mod publication_bias;
mod rank_test;
mod raw_columns;
mod scale;
mod schemas;
mod store;
mod subgroups;
mod tables;
mod trim_fill;

pub use data::{DataSource, DatasetInfo, CUSTOM_RECORDS, FROZEN_COLUMNS};
pub use effect_sizes::{compute as compute_effect_size_rows, options as escalc_options};
pub use effect_sizes::{EffectSizeRecord, RowError, RAW_DATA};
pub use error::{ErrorCode, ToolError};
pub use guide::instructions;
pub use guide::{MAX_DEFINITIONS_BYTES, MAX_DESCRIPTION_CHARS};
pub use store::{DataStore, LoadDataResult, DATA_ID, LOAD_DATA, MAX_HANDLES, MAX_HELD_BYTES};

#[cfg(feature = "definitions")]
use crate::protocol::RULE_TEXT;
use crate::schema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::sync::OnceLock;

/// The most records a tool accepts in `records` (the engine's own limit is far larger; this
/// keeps a page responsive).
pub const MAX_TOOL_RECORDS: usize = 100_000;

/// The most records `leave_one_out` accepts: it returns a whole fit per record (each
/// omission costs O(k), so 2,000 records take a few milliseconds natively; the cap keeps the
/// result a readable size).
pub const MAX_LEAVE_ONE_OUT_RECORDS: usize = 2_000;

/// The most rows of raw data `compute_effect_sizes` accepts. Its answer holds every record
/// with all its columns, twice (as text and as structured content): at 20,000 rows a few
/// MB, which the page receives from its engine's worker within a 50 ms task.
pub const MAX_RAW_DATA_ROWS: usize = 20_000;

/// The largest arguments text a tool call accepts: 16 MiB.
pub const MAX_ARGS_BYTES: usize = 16 * 1024 * 1024;

/// The most records `cumulative_meta_analysis` accepts: it fits k times, on 1, 2, …, k
/// records (its cost grows as k²), and its plot draws one row per step.
pub const MAX_CUMULATIVE_RECORDS: usize = crate::plots::MAX_CUMULATIVE_ROWS;

/// The most records `influence_diagnostics` accepts (10⁴ records take well under a second
/// natively: each omission costs O(k)).
pub const MAX_INFLUENCE_RECORDS: usize = 10_000;

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
    #[cfg(feature = "definitions")]
    description: fn() -> String,
    input_schema: fn() -> Value,
    #[cfg(feature = "definitions")]
    #[cfg(feature = "definitions")]
    output_schema: fn() -> Value,
    handler: fn(&Value, &DataSource) -> Result<Value, ToolError>,
}

impl Tool {
    /// Runs the tool on already validated `args` and the call's data.
    fn run(&self, args: &Value, data: &DataSource) -> Result<Value, ToolError> {
        (self.handler)(args, data)
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupDefinition {
    pub key: &'static str,
    pub title: &'static str,
}

/// The plot drawn beside a tool's result, and when and with which arguments it is drawn.
///
/// Most companions take the tool's own arguments ([`Companion::same_arguments`]); one whose
/// arguments differ says when it applies to a call and how the call's arguments become its
/// own ([`Companion::mapped`]).
#[derive(Clone, Copy)]
pub struct Companion {
    /// The plot's name: a companion does not hold the plot's [`Tool`], so that a registry
    /// without the plot (the page's first wasm module) need not link it.
    pub plot: &'static str,
    applies: fn(&Value) -> bool,
    arguments: fn(&Value) -> Value,
}

impl Companion {
    /// Drawn after every successful call, with the call's arguments.
    pub const fn same_arguments(plot: &'static Tool) -> Self {
        Companion {
            plot: plot.name,
            applies: |_| true,
            arguments: Value::clone,
        }
    }

    /// Drawn after a successful call for which `applies` holds, with `arguments` of the
    /// call's arguments.
    pub const fn mapped(
        plot: &'static Tool,
        applies: fn(&Value) -> bool,
        arguments: fn(&Value) -> Value,
    ) -> Self {
        Companion {
            plot: plot.name,
            applies,
            arguments,
        }
    }
}

/// A handler with typed arguments and result, erased to the registry's signature.
fn handle<A: DeserializeOwned, R: Serialize>(
    handler: fn(A, &DataSource) -> Result<R, ToolError>,
    args: &Value,
    data: &DataSource,
) -> Result<Value, ToolError> {
    let args = A::deserialize(args)
        .map_err(|e| ToolError::new(ErrorCode::InvalidArguments, e.to_string()))?;
    let result = handler(args, data)?;
    Ok(serde_json::to_value(result).expect("tool results serialize"))
}

/// Declares a tool's handler: `erase!(function)` is the registry's `fn(&Value, &DataSource)`.
macro_rules! erase {
    ($handler:path) => {{
        fn erased(args: &Value, data: &DataSource) -> Result<Value, ToolError> {
            handle($handler, args, data)
        }
        erased
    }};
}

pub static GET_DATASET: Tool = Tool {
    name: "get_dataset",
    title: "Get the frozen dataset",
    summary: "The frozen dataset: all 19 records with every column, its SHA-256 and provenance.",
    group: ToolGroup::Benchmark,
    max_records: 0,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: dataset_tool::description,
    input_schema: || schemas::object(json!({}), &[]),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<crate::dataset::DatasetView>,
    handler: erase!(dataset_tool::get_dataset),
};

pub static FIT_RANDOM_EFFECTS: Tool = Tool {
    name: "fit_random_effects",
    title: "Fit a random-effects meta-analysis",
    summary: "The pooled estimate, its CI and p, tau^2, heterogeneity and the PI.",
    group: ToolGroup::Benchmark,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::mapped(
        &FOREST_PLOT,
        fit::unweighted,
        Value::clone,
    )),
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "The random-effects model, as metafor's rma(yi, vi): pooled estimate, CI, test, tau^2, \
Q, I^2, H^2 and prediction interval. Method EE: the equal-effects model."
            .to_string()
    },
    input_schema: || {
        let mut schema = schemas::fit_input(None, &[], MAX_TOOL_RECORDS);
        schema["properties"]["weights"] = schemas::weights();
        schema
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<fit::FitResult>,
    handler: erase!(fit::fit_random_effects),
};

pub static REFIT_EXCLUDING: Tool = Tool {
    name: "refit_excluding",
    title: "Refit without some records",
    summary: "The same fit without the records you name.",
    group: ToolGroup::Benchmark,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::same_arguments(&FOREST_PLOT)),
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "Refits the random-effects model without the records listed in `exclude` (at least one \
id; at least 2 records must remain). k counts the remaining records."
            .to_string()
    },
    input_schema: || {
        schemas::fit_input(
            Some("Ids to leave out (at least one), e.g. [\"s04\"]."),
            &["exclude"],
            MAX_TOOL_RECORDS,
        )
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<fit::RefitResult>,
    handler: erase!(fit::refit_excluding),
};

pub static EGGER_TEST: Tool = Tool {
    name: "egger_test",
    title: "Egger's regression test",
    summary: "Egger's test for funnel-plot asymmetry, and the registered rule's outcome.",
    group: ToolGroup::Benchmark,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::same_arguments(&FUNNEL_PLOT)),
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Egger's test for funnel-plot asymmetry. classic (registered; Egger et al. 1997): OLS \
of yi/sqrt(vi) on 1/sqrt(vi), t test of the intercept (metafor's regtest(model = \"lm\")). \
rma: z test of the slope on sqrt(vi) (regtest's default). rule_outcome: {RULE_TEXT}, on \
egger_p. Needs 3 records, vi not all equal."
        )
    },
    input_schema: || {
        schemas::object(
            json!({
                "variant": schemas::variant("classic: OLS t test of the intercept; rma: z test of the slope."),
                "exclude": schemas::exclude(schemas::EXCLUDE),
                "records": schemas::records(MAX_TOOL_RECORDS)
            }),
            &[],
        )
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<egger::EggerTestResult>,
    handler: erase!(egger::egger_test),
};

pub static LEAVE_ONE_OUT: Tool = Tool {
    name: "leave_one_out",
    title: "Leave-one-out sensitivity analysis",
    summary: "The fit again without each record in turn.",
    group: ToolGroup::Analysis,
    max_records: MAX_LEAVE_ONE_OUT_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Leave-one-out sensitivity analysis, as metafor's leave1out(): the model refitted \
without each record in turn (at most {MAX_LEAVE_ONE_OUT_RECORDS} records). `results` holds one \
fit per record, in record order, `omitted` naming it."
        )
    },
    input_schema: || schemas::fit_input(Some(schemas::EXCLUDE), &[], MAX_LEAVE_ONE_OUT_RECORDS),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<fit::LeaveOneOutResult>,
    handler: erase!(fit::leave_one_out),
};

pub static FOREST_PLOT: Tool = Tool {
    name: "forest_plot",
    title: "Forest plot (SVG)",
    summary: "Each record's effect and CI, and the pooled diamond, as SVG.",
    group: ToolGroup::Plot,
    max_records: crate::plots::MAX_FOREST_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Forest plot (SVG) of {refit}'s fit: a row per record (its `label`, else author and \
year, else id), the pooled diamond and PI; excluded records grey. With `by`: rows grouped, a \
diamond per level, {subgroups}' tests in the footer.",
            refit = REFIT_EXCLUDING.name,
            subgroups = SUBGROUP_ANALYSIS.name,
        )
    },
    input_schema: || {
        let mut schema = schemas::fit_input(
            Some("Ids to leave out of the fit (drawn grey)."),
            &[],
            crate::plots::MAX_FOREST_RECORDS,
        );
        schema["properties"]
            .as_object_mut()
            .expect("an object schema")
            .insert(
                "by".into(),
                schemas::column(
                    "Text column to group the rows by, e.g. \"tester\"; default: no groups.",
                ),
            );
        schema
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<plot::ForestPlotResult>,
    handler: erase!(plot::forest_plot),
};

pub static FUNNEL_PLOT: Tool = Tool {
    name: "funnel_plot",
    title: "Funnel plot with Egger's line (SVG)",
    summary: "Effects against their standard errors with Egger's line, as SVG.",
    group: ToolGroup::Plot,
    max_records: crate::plots::MAX_FUNNEL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Funnel plot (SVG): yi against sqrt(vi) (most precise at the top), the pseudo 95% \
confidence funnel around the REML estimate, and the line of {egger} with its p value and rule \
outcome.",
            egger = EGGER_TEST.name,
        )
    },
    input_schema: || {
        let mut schema = schemas::object(
            json!({
                "variant": schemas::variant("Egger variant whose line is drawn."),
                "exclude": schemas::exclude("Ids to leave out (drawn grey)."),
                "records": schemas::records(crate::plots::MAX_FUNNEL_RECORDS)
            }),
            &[],
        );
        scale::add_properties(&mut schema);
        schema
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<plot::FunnelPlotResult>,
    handler: erase!(plot::funnel_plot),
};

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
    description: effect_sizes::description,
    input_schema: effect_sizes::input_schema,
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<effect_sizes::EffectSizesResult>,
    handler: erase!(effect_sizes::compute_effect_sizes),
};

pub static TRIM_AND_FILL: Tool = Tool {
    name: "trim_and_fill",
    title: "Trim-and-fill (Duval & Tweedie)",
    summary:
        "The estimate adjusted for funnel-plot asymmetry by Duval and Tweedie's trim-and-fill.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::same_arguments(&TRIM_AND_FILL_PLOT)),
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Duval & Tweedie's trim-and-fill, as metafor 3.8-1's trimfill(): estimates k0 \
records missing on one side, fills their mirror images (`filled`) and refits (z test, 95% CI; \
at most {} iterations). Needs 3 records; with all vi equal, give side.",
            meta_analysis::MAX_ITERATIONS,
        )
    },
    input_schema: || schemas::trim_and_fill_input(MAX_TOOL_RECORDS),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<trim_fill::TrimAndFillResult>,
    handler: erase!(trim_fill::trim_and_fill),
};

pub static RANK_CORRELATION_TEST: Tool = Tool {
    name: "rank_correlation_test",
    title: "Rank correlation test (Begg & Mazumdar)",
    summary: "Begg and Mazumdar's rank correlation test for funnel-plot asymmetry (Kendall's tau).",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Begg & Mazumdar's rank correlation test, as metafor's ranktest(): Kendall's tau \
between standardized deviates and vi; exact p when k < {} without ties, else normal. Needs 3 \
records, vi not all equal.",
            meta_analysis::EXACT_BELOW,
        )
    },
    input_schema: || {
        schemas::object(
            json!({
                "exclude": schemas::exclude(schemas::EXCLUDE),
                "records": schemas::records(MAX_TOOL_RECORDS)
            }),
            &[],
        )
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<rank_test::RankTestResult>,
    handler: erase!(rank_test::rank_correlation_test),
};

pub static FAIL_SAFE_N: Tool = Tool {
    name: "fail_safe_n",
    title: "Fail-safe N",
    summary: "How many null studies would overturn the result (fail-safe N).",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "Fail-safe N, as metafor 3.8-1's fsn(): null results needed to overturn the result. \
Rosenthal: Stouffer's z below the one-sided critical value; Orwin: the mean down to `target`; \
Rosenberg: the equal-effects estimate not significant. Needs 2 records."
            .to_string()
    },
    input_schema: || schemas::fail_safe_input(MAX_TOOL_RECORDS),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<fail_safe::FailSafeResult>,
    handler: erase!(fail_safe::fail_safe_n),
};

pub static CUMULATIVE_META_ANALYSIS: Tool = Tool {
    name: "cumulative_meta_analysis",
    title: "Cumulative meta-analysis",
    summary: "The pooled fit as records are added one at a time, in the order you choose.",
    group: ToolGroup::Analysis,
    max_records: MAX_CUMULATIVE_RECORDS,
    companion: Some(Companion::same_arguments(&CUMULATIVE_FOREST_PLOT)),
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Cumulative meta-analysis, as metafor's cumul(): the model fitted to the first 1, \
2, ..., k records, added in the order of `order_by` (at most {MAX_CUMULATIVE_RECORDS} \
records). Step 1 is the record itself (tau2 = 0, z test), as in metafor."
        )
    },
    input_schema: || schemas::cumulative_input(MAX_CUMULATIVE_RECORDS),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<cumulative::CumulativeResult>,
    handler: erase!(cumulative::cumulative_meta_analysis),
};

pub static INFLUENCE_DIAGNOSTICS: Tool = Tool {
    name: "influence_diagnostics",
    title: "Influence diagnostics",
    summary: "Each record's influence on the fit: residuals, DFFITS, Cook's distance.",
    group: ToolGroup::Analysis,
    max_records: MAX_INFLUENCE_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Case-deletion diagnostics of each record, as metafor 3.8-1's influence(), with \
the z test or knha (which rescales rstudent, dffits, dfbetas, cook_d and cov_r). No level: no value is \
an interval. Needs 3 records; at most {MAX_INFLUENCE_RECORDS}."
        )
    },
    input_schema: || {
        schemas::object(
            json!({
                "method": schemas::method(),
                "test": schemas::test(),
                "exclude": schemas::exclude(schemas::EXCLUDE),
                "records": schemas::records(MAX_INFLUENCE_RECORDS)
            }),
            &[],
        )
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<influence::InfluenceResult>,
    handler: erase!(influence::influence_diagnostics),
};

pub static TRIM_AND_FILL_PLOT: Tool = Tool {
    name: "trim_and_fill_plot",
    title: "Trim-and-fill funnel plot (SVG)",
    summary: "The funnel plot with the records trim-and-fill adds drawn open, as SVG.",
    group: ToolGroup::Plot,
    max_records: crate::plots::MAX_FUNNEL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "The funnel plot (SVG) of {tf}: the records, the filled ones as open circles, and the \
funnel around the adjusted estimate.",
            tf = TRIM_AND_FILL.name,
        )
    },
    input_schema: || schemas::trim_and_fill_input(crate::plots::MAX_FUNNEL_RECORDS),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<trim_fill::TrimAndFillPlotResult>,
    handler: erase!(trim_fill::trim_and_fill_plot),
};

pub static CUMULATIVE_FOREST_PLOT: Tool = Tool {
    name: "cumulative_forest_plot",
    title: "Cumulative forest plot (SVG)",
    summary: "The cumulative fits, one row per step, as SVG.",
    group: ToolGroup::Plot,
    max_records: MAX_CUMULATIVE_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "The cumulative forest plot (SVG) of {cm}: a row per step, labelled with the record \
added, with the pooled estimate and CI so far.",
            cm = CUMULATIVE_META_ANALYSIS.name,
        )
    },
    input_schema: || schemas::cumulative_input(MAX_CUMULATIVE_RECORDS),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<cumulative::CumulativePlotResult>,
    handler: erase!(cumulative::cumulative_forest_plot),
};

pub static META_REGRESSION: Tool = Tool {
    name: "meta_regression",
    title: "Mixed-effects meta-regression",
    summary: "Effects explained by moderator columns: coefficients, tests, R^2, predictions.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::mapped(
        &BUBBLE_PLOT,
        bubble_applies,
        bubble_arguments,
    )),
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Mixed-effects meta-regression, as metafor's rma(yi, vi, mods): intercept plus the \
columns in `mods` (at most {}); a text column is a factor (treatment coding, levels sorted, \
coefficients column:level). Gives coefficients, QM (F with knha), QE, residual tau^2, I^2, \
pseudo-R^2 (percent) and a prediction per object of `at`.",
            meta_analysis::MAX_MODERATORS,
        )
    },
    input_schema: || {
        let mut schema = schemas::fit_input(
            Some(
                "Optional ids of records to leave out before the fit (distinct, each must exist).",
            ),
            &["mods"],
            MAX_TOOL_RECORDS,
        );
        let properties = schema["properties"]
            .as_object_mut()
            .expect("an object schema");
        properties.insert("mods".into(), schemas::mods());
        properties.insert("at".into(), schemas::at(metareg::MAX_PREDICTIONS));
        properties.insert("weights".into(), schemas::weights());
        schema
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<metareg::MetaRegressionResult>,
    handler: erase!(metareg::meta_regression),
};

/// `meta_regression`'s bubble plot: with exactly one moderator, a numeric one, and no user
/// weights (the plot draws the unweighted line).
fn bubble_applies(args: &Value) -> bool {
    if args.get("weights").is_some() {
        return false;
    }
    let Some([Value::String(name)]) = args
        .get("mods")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    else {
        return false;
    };
    match args.get("records").and_then(Value::as_array) {
        // The call succeeded, so every record analysed holds the column, all of one type.
        Some(records) => records
            .iter()
            .find_map(|r| r.get(name))
            .is_some_and(Value::is_number),
        None => data::FROZEN_NUMERIC_COLUMNS.contains(&name.as_str()),
    }
}

/// `meta_regression`'s arguments as `bubble_plot`'s: `mod`, `method`, `exclude`, `records`.
fn bubble_arguments(args: &Value) -> Value {
    let mut out = Map::new();
    if let Some(name) = args.get("mods").and_then(|m| m.get(0)) {
        out.insert("mod".into(), name.clone());
    }
    for key in ["method", "level", "test", "exclude", "records"] {
        if let Some(value) = args.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    Value::Object(out)
}

pub static SUBGROUP_ANALYSIS: Tool = Tool {
    name: "subgroup_analysis",
    title: "Subgroup analysis",
    summary: "A separate fit per level of a text column, and the test for subgroup differences.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::same_arguments(&FOREST_PLOT)),
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Subgroup analysis by the text column `by` (at most {} levels, sorted): a fit per \
level (one record: tau2 = 0 and a z test, as metafor), q_between (Q of the subgroup \
estimates, weights 1/se^2: a tau^2 per subgroup, as RevMan and R's meta) and qm_common_tau2 \
(QM of the meta-regression on `by`: one common tau^2).",
            meta_analysis::MAX_LEVELS,
        )
    },
    input_schema: || {
        let mut schema = schemas::fit_input(Some(schemas::EXCLUDE), &["by"], MAX_TOOL_RECORDS);
        schema["properties"]
            .as_object_mut()
            .expect("an object schema")
            .insert(
                "by".into(),
                schemas::column("Text column whose levels are the subgroups, e.g. \"tester\"."),
            );
        schema
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<subgroups::SubgroupResult>,
    handler: erase!(subgroups::subgroup_analysis),
};

pub static HETEROGENEITY: Tool = Tool {
    name: "heterogeneity",
    title: "Heterogeneity with confidence intervals",
    summary: "Cochran's Q, and tau^2, tau, I^2 and H^2 with Q-profile confidence intervals.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "Heterogeneity: Cochran's Q, and tau^2, tau, I^2 and H^2 with Q-profile confidence \
intervals (Viechtbauer 2007, as metafor's confint), solved exactly. Method EE is refused. A \
bound at 0 or beyond the search range is explained in `notes`."
            .to_string()
    },
    input_schema: || {
        schemas::object(
            json!({
                "method": schemas::method(),
                "level": schemas::level(),
                "exclude": schemas::exclude(schemas::EXCLUDE),
                "records": schemas::records(MAX_TOOL_RECORDS)
            }),
            &[],
        )
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<heterogeneity::HeterogeneityResult>,
    handler: erase!(heterogeneity::heterogeneity),
};

pub static FIT_MULTILEVEL: Tool = Tool {
    name: "fit_multilevel",
    title: "Multilevel (three-level) meta-analysis",
    summary: "Several effect sizes per study: between- and within-study variances with profile CIs, the pooled estimate or moderators.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Three-level random-effects model for several effect sizes per study, as metafor's \
rma.mv(yi, vi, mods, random = ~ 1 | study/es): sigma2 = [between studies, within studies] by \
REML or ML at the exact optimum, with profile-likelihood CIs as confint(). Without mods: the \
pooled estimate with its CI and prediction interval; with mods (columns as in {}): \
coefficients and the QM test. Test t uses k-p df. Needs at least 2 studies, one of them with \
more than one record.",
            META_REGRESSION.name
        )
    },
    input_schema: || multilevel::multilevel_input(MAX_TOOL_RECORDS, false),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<multilevel::MultilevelResult>,
    handler: erase!(multilevel::fit_multilevel),
};

pub static ROBUST_TEST: Tool = Tool {
    name: "robust_test",
    title: "Cluster-robust tests (RVE)",
    summary: "Coefficients tested with cluster-robust variance: CR2 with Satterthwaite df, or CR1.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "Cluster-robust (sandwich) tests of a model's coefficients, the records grouped by the \
column `cluster` (usually the study): vcov CR2 with Satterthwaite df, as clubSandwich's \
coef_test(vcov = \"CR2\"), or CR1 as metafor's robust(adjust = TRUE) (factor m/(m-p), m-p df). \
The model is the random-effects fit, a meta-regression on mods, or the three-level model on \
study (its studies must lie inside the clusters). Needs more clusters than coefficients; a \
coefficient estimated from one cluster alone is refused."
            .to_string()
    },
    input_schema: || multilevel::multilevel_input(MAX_TOOL_RECORDS, true),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<multilevel::RobustResult>,
    handler: erase!(multilevel::robust_test),
};

pub static BUBBLE_PLOT: Tool = Tool {
    name: "bubble_plot",
    title: "Bubble plot of a meta-regression (SVG)",
    summary: "Effects against a numeric moderator with the fitted line and band, as SVG.",
    group: ToolGroup::Plot,
    max_records: crate::plots::MAX_BUBBLE_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "Bubble plot (SVG) of {}'s fit on one numeric moderator `mod`: yi against it, areas \
proportional to 1/(vi + tau^2), the fitted line and CI band; excluded records hollow.",
            META_REGRESSION.name,
        )
    },
    input_schema: || {
        let mut schema = schemas::object(
            json!({
                "mod": schemas::column("Numeric moderator column, e.g. \"weeks\"."),
                "method": schemas::method(),
                "level": schemas::level(),
                "test": schemas::test(),
                "exclude": schemas::exclude("Ids to leave out of the model (drawn hollow)."),
                "records": schemas::records(crate::plots::MAX_BUBBLE_RECORDS)
            }),
            &["mod"],
        );
        scale::add_properties(&mut schema);
        schema
    },
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<plot::BubblePlotResult>,
    handler: erase!(plot::bubble_plot),
};

pub static MANTEL_HAENSZEL: Tool = Tool {
    name: "mantel_haenszel",
    title: "Mantel-Haenszel for 2x2 tables",
    summary: "Mantel-Haenszel pooled OR, RR or RD of 2x2 tables, with CMH and Tarone tests.",
    group: ToolGroup::Analysis,
    max_records: 0,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "Pools 2x2 tables by Mantel-Haenszel as metafor's rma.mh(), uncorrected: \
Robins-Breslow-Greenland (OR) and Greenland-Robins (RR, RD) variances; estimate on the log scale \
for OR and RR (exp_* the ratio). Q: the tables' escalc effects about the pooled one (0.5 added \
to tables with a zero; double-zero tables left out)."
            .to_string()
    },
    input_schema: || tables::input_schema(true),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<tables::MantelHaenszelResult>,
    handler: erase!(tables::mantel_haenszel),
};

pub static PETO_ODDS_RATIO: Tool = Tool {
    name: "peto_odds_ratio",
    title: "Peto's odds ratio for 2x2 tables",
    summary: "Peto's one-step pooled odds ratio of 2x2 tables, with its Q test.",
    group: ToolGroup::Analysis,
    max_records: 0,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "Pools 2x2 tables by Peto's one-step method as metafor's rma.peto(): ln OR = \
sum(a - E)/sum(V), se = 1/sqrt(sum(V))."
            .to_string()
    },
    input_schema: || tables::input_schema(false),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<tables::PetoResult>,
    handler: erase!(tables::peto_odds_ratio),
};

pub static SELECTION_MODEL: Tool = Tool {
    name: "selection_model",
    title: "Step-function selection model",
    summary: "The estimate adjusted for publication bias by Vevea and Hedges' step-function selection model.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "Vevea & Hedges' step-function selection model on the ML random-effects model, as \
metafor's selmodel(type = \"stepfun\"), at the exact maximum: one-sided p values (yi > 0) cut \
at `steps` into intervals with publication weights delta (the first 1), and the \
likelihood-ratio test of no selection. Each interval needs a record; k >= steps + 2."
            .to_string()
    },
    input_schema: || publication_bias::selection_input(MAX_TOOL_RECORDS),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<publication_bias::SelectionResult>,
    handler: erase!(publication_bias::selection_model),
};

pub static PET_PEESE: Tool = Tool {
    name: "pet_peese",
    title: "PET-PEESE",
    summary: "The effect corrected for small-study effects by PET-PEESE's conditional rule.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "PET-PEESE (Stanley & Doucouliagos 2014): WLS of yi on sqrt(vi) (PET) and on vi (PEESE), \
weights 1/vi (knha: lm's multiplicative error, t with k-2 df; z: fixed effect). The estimate is \
PEESE's intercept if PET's intercept test rejects at alpha, else PET's. Needs 3 records with \
unequal vi."
            .to_string()
    },
    input_schema: || publication_bias::pet_peese_input(MAX_TOOL_RECORDS),
    #[cfg(feature = "definitions")]
    output_schema: schemas::output_of::<publication_bias::PetPeeseResult>,
    handler: erase!(publication_bias::pet_peese),
};

/// Every tool, in the order the page lists them: grouped, in [`ToolGroup`] order.
///
/// Without the `extended` feature only the benchmark's own tools ([`ToolGroup::Benchmark`]) are here: the
/// page's first wasm module, which answers the first calls while the whole engine loads.
pub static REGISTRY: &[&Tool] = &[
    &GET_DATASET,
    &FIT_RANDOM_EFFECTS,
    &REFIT_EXCLUDING,
    &EGGER_TEST,
    #[cfg(feature = "extended")]
    &LEAVE_ONE_OUT,
    #[cfg(feature = "extended")]
    &META_REGRESSION,
    #[cfg(feature = "extended")]
    &SUBGROUP_ANALYSIS,
    #[cfg(feature = "extended")]
    &HETEROGENEITY,
    #[cfg(feature = "extended")]
    &FIT_MULTILEVEL,
    #[cfg(feature = "extended")]
    &ROBUST_TEST,
    #[cfg(feature = "extended")]
    &TRIM_AND_FILL,
    #[cfg(feature = "extended")]
    &RANK_CORRELATION_TEST,
    #[cfg(feature = "extended")]
    &FAIL_SAFE_N,
    #[cfg(feature = "extended")]
    &CUMULATIVE_META_ANALYSIS,
    #[cfg(feature = "extended")]
    &INFLUENCE_DIAGNOSTICS,
    #[cfg(feature = "extended")]
    &MANTEL_HAENSZEL,
    #[cfg(feature = "extended")]
    &PETO_ODDS_RATIO,
    #[cfg(feature = "extended")]
    &SELECTION_MODEL,
    #[cfg(feature = "extended")]
    &PET_PEESE,
    #[cfg(feature = "extended")]
    &FOREST_PLOT,
    #[cfg(feature = "extended")]
    &FUNNEL_PLOT,
    #[cfg(feature = "extended")]
    &TRIM_AND_FILL_PLOT,
    #[cfg(feature = "extended")]
    &CUMULATIVE_FOREST_PLOT,
    #[cfg(feature = "extended")]
    &BUBBLE_PLOT,
    #[cfg(feature = "extended")]
    &COMPUTE_EFFECT_SIZES,
    #[cfg(feature = "extended")]
    &LOAD_DATA,
];

/// The tool named `name`.
pub fn find(name: &str) -> Option<&'static Tool> {
    REGISTRY.iter().copied().find(|tool| tool.name == name)
}

/// The tool names, in registry order.
pub fn names() -> impl Iterator<Item = &'static str> {
    REGISTRY.iter().map(|tool| tool.name)
}

/// `annotations` of a tool definition: only the hints WebMCP specifies. Every tool reads
/// and computes, and changes nothing (`readOnlyHint`). `untrustedContentHint` marks a result
/// that can carry text a caller supplied: the record ids that refits, tests, leave-one-out
/// and the plots' SVG labels echo.
#[cfg(feature = "definitions")]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Annotations {
    #[serde(rename = "readOnlyHint")]
    pub read_only_hint: bool,
    #[serde(rename = "untrustedContentHint")]
    pub untrusted_content_hint: bool,
}

/// One tool as the page registers it and `exemplar tools` prints it.
#[cfg(feature = "definitions")]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDefinition {
    pub name: &'static str,
    pub title: &'static str,
    /// One line on what the tool gives (the page's list; not part of WebMCP's tool).
    pub summary: &'static str,
    /// Where the page lists the tool (not part of WebMCP's tool).
    pub group: GroupDefinition,
    pub description: String,
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    /// Null in the tool list, which stays lean (see the rules at the top of this module): a
    /// tool's output schema is [`output_schema`]'s.
    #[serde(rename = "outputSchema", skip_serializing_if = "Value::is_null")]
    pub output_schema: Value,
    pub annotations: Annotations,
}

#[cfg(feature = "definitions")]
impl Tool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name,
            title: self.title,
            summary: self.summary,
            group: GroupDefinition {
                key: self.group.key(),
                title: self.group.title(),
            },
            description: (self.description)(),
            input_schema: (self.input_schema)(),
            output_schema: Value::Null,
            annotations: Annotations {
                // Loading data keeps them in the session; every other tool changes nothing.
                read_only_hint: !std::ptr::eq(self, &LOAD_DATA),
                untrusted_content_hint: self.echoes_caller_text,
            },
        }
    }
}

/// Every tool definition, in registry order.
#[cfg(feature = "definitions")]
pub fn definitions() -> Vec<ToolDefinition> {
    cached_definitions().to_vec()
}

/// The definitions, built once: the descriptions and schemas are constant, and building
/// them (formatting, JSON schema trees) cost more than a whole fit on every call.
#[cfg(feature = "definitions")]
fn cached_definitions() -> &'static [ToolDefinition] {
    static DEFINITIONS: OnceLock<Vec<ToolDefinition>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| REGISTRY.iter().map(|tool| tool.definition()).collect())
}

/// The output schema of tool `name`: every field of its result with its type (and, for a
/// field of the tool's own, its meaning), closed, so that a result with an undeclared field
/// fails. Not part of the tool list; offered on its own ([`output_schemas_json`]).
#[cfg(feature = "definitions")]
pub fn output_schema(name: &str) -> Option<Value> {
    find(name).map(|tool| (tool.output_schema)())
}

/// Every tool's output schema, by name, in registry order.
#[cfg(feature = "definitions")]
pub fn output_schemas_json() -> Value {
    Value::Object(
        REGISTRY
            .iter()
            .map(|tool| (tool.name.to_string(), (tool.output_schema)()))
            .collect(),
    )
}

/// The tool definitions as a JSON array (what the page registers).
#[cfg(feature = "definitions")]
pub fn definitions_json() -> Value {
    serde_json::to_value(cached_definitions()).expect("definitions serialize")
}

/// The plot drawn beside a successful call of `name` with `args`, if any.
pub fn companion_plot(name: &str, args: &Value) -> Option<&'static str> {
    companion_plot_in(name, args, &DataStore::new())
}

/// [`companion_plot`] for a call that may name a handle of `store`.
pub fn companion_plot_in(name: &str, args: &Value, store: &DataStore) -> Option<&'static str> {
    let stand_in = store.stand_in(args);
    let args = stand_in.as_ref().unwrap_or(args);
    let companion = find(name)?.companion?;
    (companion.applies)(args).then_some(companion.plot)
}

/// The plot drawn beside a call of `name` with `args`, and the arguments it is called with.
pub fn companion_call(name: &str, args: &Value) -> Option<(&'static str, Value)> {
    companion_call_in(name, args, &DataStore::new())
}

/// [`companion_call`] for a call that may name a handle of `store` (its rule reads a
/// stand-in of the records; the plot's arguments keep the handle).
pub fn companion_call_in(
    name: &str,
    args: &Value,
    store: &DataStore,
) -> Option<(&'static str, Value)> {
    let companion = find(name)?.companion?;
    let stand_in = store.stand_in(args);
    let rule_args = stand_in.as_ref().unwrap_or(args);
    if !(companion.applies)(rule_args) {
        return None;
    }
    let mut plot_args = (companion.arguments)(args);
    if let (Some(id), Some(out)) = (args.get(DATA_ID), plot_args.as_object_mut()) {
        out.insert(DATA_ID.into(), id.clone());
    }
    Some((companion.plot, plot_args))
}

/// Parses a JSON arguments text; empty text means no arguments. Ambiguous JSON (a key
/// repeated in one object) is refused like malformed JSON.
pub fn parse_args(args_json: &str) -> Result<Value, ToolError> {
    // Refused by its size alone, before any parsing.
    if args_json.len() > MAX_ARGS_BYTES {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "the arguments are {} bytes of JSON; at most {MAX_ARGS_BYTES} bytes are accepted \
(room for {MAX_TOOL_RECORDS} records)",
                args_json.len()
            ),
        ));
    }
    if args_json.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    crate::strict_json::parse(args_json).map_err(|e| {
        ToolError::new(
            ErrorCode::InvalidJson,
            format!("the arguments are not valid JSON: {e}"),
        )
    })
}

/// The outcome of one call and the data it was about (what the ledger records).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub result: Result<Value, ToolError>,
    /// The frozen dataset's hash, or the hash of the canonical JSON of `records`.
    pub dataset_sha256: String,
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
    run(name, args).result
}

/// Runs tool `name` with `args` and says which data it analysed. Without a session's store:
/// `load_data` runs but its handle is forgotten, and a `data_id` is unknown.
pub fn run(name: &str, args: &Value) -> Outcome {
    run_in(name, args, &mut DataStore::new())
}

/// Runs tool `name` with `args` in a session whose handles are `store`: `load_data` keeps
/// its records there, and a `data_id` names them.
pub fn run_in(name: &str, args: &Value, store: &mut DataStore) -> Outcome {
    let empty = Value::Object(Map::new());
    let args = if args.is_null() { &empty } else { args };
    let mut dataset_sha256 = None;
    let result = dispatch(name, args, &mut dataset_sha256, store);
    Outcome {
        result,
        dataset_sha256: dataset_sha256.unwrap_or_else(|| dataset_sha256_for(args)),
    }
}

/// [`run_in`]'s result.
pub fn call_in(name: &str, args: &Value, store: &mut DataStore) -> Result<Value, ToolError> {
    run_in(name, args, store).result
}

fn dispatch(
    name: &str,
    args: &Value,
    dataset_sha256: &mut Option<String>,
    store: &mut DataStore,
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
    schema::validate(input_schema_of(tool), args)?;
    if std::ptr::eq(tool, &LOAD_DATA) {
        let (data, bytes) = store::load_source(args)?;
        *dataset_sha256 = Some(data.info().sha256.clone());
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
        None => std::sync::Arc::new(DataSource::from_args(args)?),
    };
    *dataset_sha256 = Some(match args.get(effect_sizes::DATA_ARGUMENT) {
        Some(raw) => crate::canonical::sha256_hex(raw),
        None => data.info().sha256.clone(),
    });
    tool.run(args, &data)
}

/// `tool`'s input schema, built once: schema trees cost more than a whole fit to build.
fn input_schema_of(tool: &Tool) -> &'static Value {
    static SCHEMAS: OnceLock<Vec<Value>> = OnceLock::new();
    let position = REGISTRY
        .iter()
        .position(|t| std::ptr::eq(*t, tool))
        .expect("every tool is in the registry");
    &SCHEMAS.get_or_init(|| REGISTRY.iter().map(|t| (t.input_schema)()).collect())[position]
}

/// The data a call analyses: the frozen dataset's hash, or the hash of the canonical JSON of
/// the `records` argument (whatever it holds), or of the raw `data` of
/// [`COMPUTE_EFFECT_SIZES`].
pub fn dataset_sha256_for(args: &Value) -> String {
    match args
        .get("records")
        .or_else(|| args.get(effect_sizes::DATA_ARGUMENT))
    {
        Some(records) => crate::canonical::sha256_hex(records),
        None => crate::dataset::sha256().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::reference_answer;
    use crate::{canonical, dataset};
    use meta_analysis::{MetaError, Method};

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
            funnel["numbers"]["egger"]["line_per_se"],
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
            (
                "subgroup_analysis",
                json!({"by": "tester", "method": "DL", "test": "knha", "exclude": ["s04"]}),
            ),
        ];
        for (name, args) in cases {
            let plot = companion_plot(name, &args).unwrap();
            ok(name, args.clone());
            let (same, plot_args) = companion_call(name, &args).unwrap();
            assert_eq!((same, &plot_args), (plot, &args));
            assert!(
                ok(plot, args)["svg"].as_str().unwrap().starts_with("<svg"),
                "{plot}"
            );
        }
        assert_eq!(companion_plot("get_dataset", &json!({})), None);
        assert_eq!(companion_plot("forest_plot", &json!({})), None);
    }

    /// `meta_regression`'s companion depends on its arguments: the bubble plot of the one
    /// numeric moderator, with the arguments a bubble plot takes.
    #[test]
    fn the_bubble_plot_goes_with_a_meta_regression_on_one_numeric_moderator() {
        let args = json!({"mods": ["weeks"], "method": "DL", "test": "knha", "level": 0.9,
            "at": [{"weeks": 1}], "exclude": ["s04"]});
        let (plot, plot_args) = companion_call("meta_regression", &args).unwrap();
        assert_eq!(plot, "bubble_plot");
        assert_eq!(
            plot_args,
            json!({"mod": "weeks", "method": "DL", "level": 0.9, "test": "knha", "exclude": ["s04"]})
        );
        let bubble = ok(plot, plot_args);
        let model = ok(
            "meta_regression",
            json!({"mods": ["weeks"], "method": "DL", "level": 0.9, "test": "knha", "exclude": ["s04"]}),
        );
        assert_eq!(bubble["fit"], model);
        assert_eq!(
            bubble["numbers"]["line"]["slope"],
            model["coefficients"][1]["estimate"]
        );
        assert_eq!(bubble["numbers"]["points"].as_array().unwrap().len(), 19);
        for args in [
            json!({"mods": ["tester"]}),
            json!({"mods": ["weeks", "year"]}),
            json!({"mods": ["weeks"], "records": [{"id": "a", "yi": 0.1, "vi": 0.1, "weeks": "x"}]}),
        ] {
            assert_eq!(companion_plot("meta_regression", &args), None, "{args}");
        }
        let custom = json!({"mods": ["dose"], "records": [
            {"id": "a", "yi": 0.1, "vi": 0.01, "dose": 1},
            {"id": "b", "yi": 0.3, "vi": 0.02, "dose": 2},
            {"id": "c", "yi": 0.2, "vi": 0.04, "dose": 4}
        ]});
        let (plot, plot_args) = companion_call("meta_regression", &custom).unwrap();
        assert_eq!(plot_args["records"], custom["records"]);
        assert_eq!(ok(plot, plot_args)["fit"]["k"], 3);
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
        let listed: Vec<&str> = definitions.iter().map(|d| d.name).collect();
        assert_eq!(listed, names().collect::<Vec<_>>());
        for d in &definitions {
            assert!(d.name.len() <= 128);
            assert!(d
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)));
            assert!(!d.title.is_empty());
            assert!(d.description.len() > 80, "{}", d.name);
            assert_eq!(d.annotations.read_only_hint, d.name != LOAD_DATA.name);
            schema::check_plain_subset(&d.input_schema)
                .unwrap_or_else(|e| panic!("{}: {e}", d.name));
            assert_eq!(d.input_schema["type"], "object");
            assert_eq!(d.input_schema["additionalProperties"], false);
        }
        let json = definitions_json();
        assert_eq!(
            json[0]["annotations"],
            json!({"readOnlyHint": true, "untrustedContentHint": false})
        );
        assert_eq!(
            json[2]["annotations"],
            json!({"readOnlyHint": true, "untrustedContentHint": true})
        );
        assert_eq!(json[2]["inputSchema"]["required"], json!(["exclude"]));
        let keys: Vec<&str> = json[1]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "name",
                "title",
                "summary",
                "group",
                "description",
                "inputSchema",
                "annotations"
            ]
        );
        let methods = &json[1]["inputSchema"]["properties"]["method"]["enum"];
        assert_eq!(
            methods,
            &json!(["REML", "ML", "DL", "HE", "SJ", "PM", "EE"])
        );
    }

    #[test]
    fn the_registry_lists_the_tools_by_group_with_one_line_summaries() {
        let groups: Vec<ToolGroup> = REGISTRY.iter().map(|t| t.group).collect();
        let mut sorted = groups.clone();
        sorted.sort();
        assert_eq!(
            groups, sorted,
            "REGISTRY must list the tools in ToolGroup order"
        );
        assert_eq!(groups[0], ToolGroup::Benchmark);
        for tool in REGISTRY {
            assert!(
                !tool.summary.is_empty()
                    && tool.summary.len() <= 140
                    && !tool.summary.contains('\n'),
                "{}: a one-line summary",
                tool.name
            );
        }
        for group in ToolGroup::ALL {
            assert!(groups.contains(&group), "{} has no tool", group.key());
        }
        let json = definitions_json();
        assert_eq!(
            json[0]["group"],
            json!({"key": "benchmark", "title": "The benchmark's tools"})
        );
    }

    #[test]
    fn definitions_carry_no_reference_numbers() {
        let text = format!(
            "{}{}",
            definitions_json(),
            serde_json::to_value(crate::page::metadata()).unwrap()
        );
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

    /// A long `exclude` list costs time linear in it: half of 100,000 records excluded, in
    /// each tool that takes `exclude` and the records (quadratic scans made this minutes).
    #[test]
    fn excluding_half_of_many_records_is_linear() {
        let k = 100_000;
        let records: Vec<Value> = (0..k)
            .map(|i| json!({"id": format!("r{i}"), "yi": (i % 7) as f64 / 10.0, "vi": 0.01 + (i % 5) as f64 / 100.0}))
            .collect();
        let exclude: Vec<String> = (0..k).step_by(2).map(|i| format!("r{i}")).collect();
        let args = json!({"records": records, "exclude": exclude});
        let refit = call("refit_excluding", &args).unwrap();
        assert_eq!(refit["k"], k / 2);
        let egger = call("egger_test", &args).unwrap();
        assert_eq!(egger["k"], k / 2);
        let repeated = json!({"records": args["records"], "exclude": ["r1", "r3", "r1"]});
        assert_eq!(
            call("refit_excluding", &repeated).unwrap_err().code,
            ErrorCode::InvalidArguments
        );
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
                json!({"records": [{"id": "a", "yi": 1, "vi": 1, "n": true}]})
            ),
            (
                "wrong_type",
                "records[0].n must be a number or a string, got a boolean".to_string()
            )
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

    #[test]
    fn trim_and_fill_fills_three_on_the_left_of_the_frozen_dataset_and_draws_them() {
        let tf = ok("trim_and_fill", json!({}));
        assert_eq!(
            (
                tf["estimator"].as_str(),
                tf["side"].as_str(),
                tf["k0"].as_u64(),
                tf["k"].as_u64()
            ),
            (Some("L0"), Some("left"), Some(3), Some(22))
        );
        assert_eq!(tf["filled"].as_array().unwrap().len(), 3);
        let keys: Vec<&str> = tf.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "estimator",
                "side",
                "k0",
                "se_k0",
                "k",
                "measure",
                "transform",
                "estimate",
                "se",
                "statistic",
                "p",
                "ci_lower",
                "ci_upper",
                "pi_lower",
                "pi_upper",
                "natural",
                "tau2",
                "filled",
                "dataset"
            ]
        );
        let plot = ok(
            companion_plot("trim_and_fill", &json!({})).unwrap(),
            json!({}),
        );
        assert_eq!(plot["trim_and_fill"], tf);
        let svg = plot["svg"].as_str().unwrap();
        assert_eq!(svg.matches("class=\"point filled\"").count(), 3);
        assert_eq!(plot["numbers"]["filled"]["k0"], 3);
        assert_eq!(plot["numbers"]["pooled"]["estimate"], tf["estimate"]);
        assert!(
            svg.contains("Adjusted estimate"),
            "the legend names the adjusted estimate"
        );
        // The filled records mirror records about a centre below the plain estimate.
        let plain = ok("fit_random_effects", json!({}));
        assert!(tf["estimate"].as_f64() < plain["estimate"].as_f64());
    }

    #[test]
    fn small_study_tools_refuse_what_they_cannot_compute() {
        let equal_vi = json!([
            {"id": "a", "yi": 0.1, "vi": 0.1},
            {"id": "b", "yi": 0.2, "vi": 0.1},
            {"id": "c", "yi": 0.9, "vi": 0.1},
            {"id": "d", "yi": 0.4, "vi": 0.1}
        ]);
        let (c, m) = code("trim_and_fill", json!({"records": equal_vi}));
        assert_eq!(c, "analysis_failed");
        assert!(m.contains("give the side"), "{m}");
        assert!(ok(
            "trim_and_fill",
            json!({"records": equal_vi, "side": "left"})
        )["k"]
            .is_u64());
        let (c, m) = code("rank_correlation_test", json!({"records": equal_vi}));
        assert_eq!(c, "analysis_failed");
        assert!(m.contains("same sampling variance"), "{m}");
        let two = json!([{"id": "a", "yi": 0.1, "vi": 0.1}, {"id": "b", "yi": 0.3, "vi": 0.2}]);
        for name in [
            "trim_and_fill",
            "rank_correlation_test",
            "influence_diagnostics",
        ] {
            let (c, m) = code(name, json!({"records": two}));
            assert_eq!(c, "invalid_records", "{name}");
            assert!(m.contains("needs at least 3 records"), "{name}: {m}");
        }
        let one = json!([{"id": "a", "yi": 0.1, "vi": 0.1}]);
        assert_eq!(
            code("fail_safe_n", json!({"records": one})).0,
            "invalid_records"
        );
        assert_eq!(
            ok("cumulative_meta_analysis", json!({"records": one}))["results"][0]["k"],
            1
        );
        let (c, m) = code("fail_safe_n", json!({"type": "Orwin", "target": 0}));
        assert_eq!(c, "analysis_failed");
        assert!(m.contains("infinite"), "{m}");
        assert_eq!(
            code("fail_safe_n", json!({"target": 0.1})).0,
            "invalid_arguments"
        );
        assert_eq!(
            code("fail_safe_n", json!({"alpha": 0})).0,
            "invalid_arguments"
        );
        assert_eq!(
            code("fail_safe_n", json!({"type": "REM"})).0,
            "invalid_arguments"
        );
        assert_eq!(
            code("trim_and_fill", json!({"estimator": "Q0"})).0,
            "invalid_arguments"
        );
        let (c, m) = code("cumulative_meta_analysis", json!({"order_by": "colour"}));
        assert_eq!(c, "invalid_arguments");
        assert!(m.contains("its columns are"), "{m}");
        let (c, m) = code(
            "cumulative_meta_analysis",
            json!({"order_by": "year", "records": two}),
        );
        assert_eq!(c, "invalid_arguments");
        assert!(m.contains("their columns are id, yi, vi"), "{m}");
        assert_eq!(
            code("influence_diagnostics", json!({"exclude": ["zz"]})).0,
            "unknown_record"
        );
    }

    #[test]
    fn cumulative_meta_analysis_orders_by_year_keeping_ties_in_record_order() {
        let rows = crate::dataset::rows();
        let result = ok("cumulative_meta_analysis", json!({"order_by": "year"}));
        assert_eq!(result["order_by"], "year");
        let added: Vec<&str> = result["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["added"].as_str().unwrap())
            .collect();
        let mut expected: Vec<&crate::dataset::Row> = rows.iter().collect();
        expected.sort_by_key(|r| r.year); // stable
        let expected: Vec<&str> = expected.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(added, expected);
        let descending = ok(
            "cumulative_meta_analysis",
            json!({"order_by": "year", "descending": true}),
        );
        let first = &descending["results"][0];
        let latest = rows.iter().map(|r| r.year).max().unwrap();
        let first_latest = rows.iter().find(|r| r.year == latest).unwrap();
        assert_eq!(first["added"], first_latest.id.as_str());
        assert_eq!(first["k"], 1);
        assert_eq!(first["tau2"], 0.0);
        assert_eq!(first["estimate"], first_latest.yi);
        // The last step is the fit of all records, whatever the order.
        let fit = ok("fit_random_effects", json!({}));
        let last = &result["results"][18];
        assert_eq!(last["k"], 19);
        assert!(
            (last["estimate"].as_f64().unwrap() - fit["estimate"].as_f64().unwrap()).abs() < 1e-12
        );
        let record_order = ok("cumulative_meta_analysis", json!({}));
        assert_eq!(record_order["order_by"], Value::Null);
        assert_eq!(record_order["results"][0]["added"], "s01");
        let plot = ok(
            companion_plot("cumulative_meta_analysis", &json!({})).unwrap(),
            json!({"order_by": "year"}),
        );
        assert_eq!(plot["cumulative"], result);
        assert_eq!(
            plot["svg"]
                .as_str()
                .unwrap()
                .matches("class=\"row\"")
                .count(),
            19
        );
    }

    #[test]
    fn influence_rank_test_and_fail_safe_n_on_the_frozen_dataset() {
        let infl = ok("influence_diagnostics", json!({}));
        assert_eq!(infl["k"], 19);
        let rows = infl["results"].as_array().unwrap();
        assert_eq!(rows.len(), 19);
        let total: f64 = rows.iter().map(|r| r["weight"].as_f64().unwrap()).sum();
        assert!((total - 100.0).abs() < 1e-9);
        assert_eq!(rows[0]["id"], "s01");
        // Its variances have ties: the normal approximation.
        let rank = ok("rank_correlation_test", json!({}));
        assert_eq!(
            (rank["k"].as_u64(), rank["exact"].as_bool()),
            (Some(19), Some(false))
        );
        let fsn = ok("fail_safe_n", json!({}));
        assert_eq!(fsn["type"], "Rosenthal");
        assert_eq!(fsn["alpha"], 0.05);
        assert!(fsn["fsn"].is_u64());
        assert_eq!(
            (fsn["target"].clone(), fsn["observed_effect"].clone()),
            (Value::Null, Value::Null)
        );
        let orwin = ok("fail_safe_n", json!({"type": "Orwin"}));
        assert_eq!(orwin["observed_p"], Value::Null);
        assert_eq!(
            orwin["target"].as_f64().unwrap(),
            orwin["observed_effect"].as_f64().unwrap() / 2.0
        );
    }

    /// Every tool's every kind of result, for the output-schema check: the frozen data,
    /// custom records, and each option.
    fn sample_calls() -> Vec<(&'static str, Value)> {
        let three = json!([
            {"id": "a", "yi": 0.1, "vi": 0.01},
            {"id": "b", "yi": 0.3, "vi": 0.02},
            {"id": "c", "yi": -0.1, "vi": 0.04},
            {"id": "d", "yi": 0.5, "vi": 0.03}
        ]);
        let mut calls = vec![("get_dataset", json!({}))];
        for method in Method::ALL {
            for test in ["z", "knha"] {
                let options = json!({"method": method.name(), "test": test, "level": 0.9});
                calls.push(("fit_random_effects", options.clone()));
                let mut refit = options.clone();
                refit["exclude"] = json!(["s04"]);
                calls.push(("refit_excluding", refit.clone()));
                calls.push(("forest_plot", refit));
                let mut custom = options;
                custom["records"] = three.clone();
                calls.push(("fit_random_effects", custom));
            }
            calls.push(("leave_one_out", json!({"method": method.name()})));
        }
        for variant in ["classic", "rma"] {
            calls.push(("egger_test", json!({"variant": variant})));
            calls.push((
                "egger_test",
                json!({"variant": variant, "exclude": ["s04"]}),
            ));
            calls.push(("egger_test", json!({"variant": variant, "records": three})));
            calls.push((
                "funnel_plot",
                json!({"variant": variant, "exclude": ["s05"]}),
            ));
        }
        calls.push(("leave_one_out", json!({"records": three})));
        calls.push((
            "leave_one_out",
            json!({"exclude": ["s04"], "test": "knha", "level": 0.9}),
        ));
        calls.push(("load_data", json!({"records": three})));
        calls.push((
            "load_data",
            json!({"measure": "RR", "data": [{"ai": 4, "bi": 119, "ci": 11, "di": 128}, {"ai": 6, "bi": 300, "ci": 29, "di": 274}]}),
        ));
        for method in ["REML", "EE", "DL"] {
            for estimator in ["L0", "R0"] {
                let args = json!({"estimator": estimator, "method": method});
                calls.push(("trim_and_fill", args.clone()));
                calls.push(("trim_and_fill_plot", args));
            }
            calls.push(("influence_diagnostics", json!({"method": method})));
            calls.push((
                "cumulative_meta_analysis",
                json!({"method": method, "order_by": "year", "test": "knha"}),
            ));
        }
        calls.push((
            "trim_and_fill",
            json!({"side": "right", "exclude": ["s04"]}),
        ));
        calls.push(("trim_and_fill", json!({"records": three})));
        calls.push((
            "trim_and_fill_plot",
            json!({"records": three, "side": "left"}),
        ));
        calls.push(("rank_correlation_test", json!({})));
        calls.push(("rank_correlation_test", json!({"records": three})));
        for kind in ["Rosenthal", "Orwin", "Rosenberg"] {
            calls.push(("fail_safe_n", json!({"type": kind})));
            calls.push((
                "fail_safe_n",
                json!({"type": kind, "alpha": 0.01, "records": three}),
            ));
        }
        calls.push(("fail_safe_n", json!({"type": "Orwin", "target": 0.02})));
        calls.push(("cumulative_meta_analysis", json!({})));
        calls.push((
            "cumulative_meta_analysis",
            json!({"order_by": "author", "descending": true, "exclude": ["s01"]}),
        ));
        calls.push((
            "cumulative_meta_analysis",
            json!({"records": three, "order_by": "vi"}),
        ));
        calls.push(("cumulative_forest_plot", json!({"order_by": "year"})));
        calls.push((
            "cumulative_forest_plot",
            json!({"records": three, "level": 0.9}),
        ));
        calls.push((
            "influence_diagnostics",
            json!({"records": three, "exclude": ["a"]}),
        ));
        calls.push(("forest_plot", json!({"records": three, "exclude": ["a"]})));
        calls.push(("funnel_plot", json!({"records": three})));
        calls.push((
            "compute_effect_sizes",
            json!({"measure": "RD", "data": [
                {"id": "x", "ai": 1, "bi": 9, "ci": 0, "di": 10, "site": "north"},
                {"ai": 3, "n1i": 10, "ci": 2, "n2i": 12, "site": null}
            ], "add": 0.5, "to": "all"}),
        ));
        let moderated = json!([
            {"id": "a", "yi": 0.1, "vi": 0.01, "dose": 1, "arm": "x"},
            {"id": "b", "yi": 0.3, "vi": 0.02, "dose": 2, "arm": "y"},
            {"id": "c", "yi": -0.1, "vi": 0.04, "dose": 4, "arm": "x"},
            {"id": "d", "yi": 0.5, "vi": 0.03, "dose": 3, "arm": "y"},
            {"id": "e", "yi": 0.4, "vi": 0.02, "dose": 5, "arm": "z"}
        ]);
        for method in Method::ALL {
            for test in ["z", "knha"] {
                let options = json!({"method": method.name(), "test": test});
                let mut m = options.clone();
                m["mods"] = json!(["weeks", "tester"]);
                m["at"] = json!([{"weeks": 2, "tester": "blind"}]);
                calls.push(("meta_regression", m));
                let mut s = options.clone();
                s["by"] = json!("setting");
                calls.push(("subgroup_analysis", s.clone()));
                calls.push(("forest_plot", s));
                let mut s = options;
                s["by"] = json!("arm");
                s["records"] = moderated.clone();
                calls.push(("subgroup_analysis", s));
            }
            if method != Method::Ee {
                calls.push((
                    "heterogeneity",
                    json!({"method": method.name(), "level": 0.9}),
                ));
            }
            calls.push((
                "bubble_plot",
                json!({"mod": "weeks", "method": method.name()}),
            ));
        }
        calls.push((
            "meta_regression",
            json!({"mods": ["dose"], "records": moderated, "exclude": ["e"], "at": [{"dose": 0}]}),
        ));
        calls.push(("heterogeneity", json!({"records": three})));
        calls.push((
            "bubble_plot",
            json!({"mod": "dose", "records": moderated, "exclude": ["a"]}),
        ));
        let tables = json!([
            {"ai": 4, "bi": 119, "ci": 11, "di": 128},
            {"ai": 0, "n1i": 300, "ci": 29, "n2i": 303},
            {"ai": 0, "bi": 228, "ci": 0, "di": 209}
        ]);
        for measure in ["OR", "RR", "RD"] {
            calls.push((
                "mantel_haenszel",
                json!({"data": tables, "measure": measure, "level": 0.9}),
            ));
        }
        calls.push(("peto_odds_ratio", json!({"data": tables})));
        calls.push(("selection_model", json!({})));
        calls.push((
            "selection_model",
            json!({"steps": [0.05], "exclude": ["s04"]}),
        ));
        calls.push(("pet_peese", json!({})));
        calls.push(("pet_peese", json!({"test": "z", "alternative": "greater"})));
        let nested = json!([
            {"id": "a1", "yi": 0.10, "vi": 0.02, "study": "a", "x": 1.0},
            {"id": "a2", "yi": 0.30, "vi": 0.03, "study": "a", "x": 2.0},
            {"id": "b1", "yi": 0.50, "vi": 0.05, "study": "b", "x": 3.0},
            {"id": "b2", "yi": 0.40, "vi": 0.04, "study": "b", "x": 2.5},
            {"id": "c1", "yi": 0.00, "vi": 0.02, "study": 3, "x": 1.0},
            {"id": "c2", "yi": 0.25, "vi": 0.03, "study": 3, "x": 1.5},
            {"id": "d1", "yi": -0.10, "vi": 0.02, "study": "d", "x": 0.0},
            {"id": "e1", "yi": 0.35, "vi": 0.04, "study": "e", "x": 3.5}
        ]);
        calls.push((FIT_MULTILEVEL.name, json!({"records": nested})));
        calls.push((
            FIT_MULTILEVEL.name,
            json!({"records": nested, "mods": ["x"], "method": "ML", "test": "t", "exclude": ["e1"]}),
        ));
        calls.push((
            ROBUST_TEST.name,
            json!({"records": nested, "cluster": "study"}),
        ));
        calls.push((
            ROBUST_TEST.name,
            json!({"records": nested, "cluster": "study", "model": "multilevel", "mods": ["x"], "vcov": "CR1"}),
        ));
        calls
    }

    #[test]
    fn every_result_validates_against_its_output_schema() {
        for (name, args) in sample_calls() {
            let result = ok(name, args.clone());
            schema::validate(&output_schema(name).unwrap(), &result)
                .unwrap_or_else(|v| panic!("{name} {args}: {} ({})", v.message, v.path));
        }
        for tool in REGISTRY {
            assert!(
                sample_calls().iter().any(|(name, _)| *name == tool.name),
                "{} has no sample call",
                tool.name
            );
        }
    }

    #[test]
    fn output_schemas_are_plain_closed_objects_that_catch_a_wrong_result() {
        let all = output_schemas_json();
        for name in names() {
            let schema = &all[name];
            assert_eq!(schema["type"], "object", "{name}");
            schema::check_plain_subset(schema).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(schema["additionalProperties"], false, "{name}");
            assert!(!schema.to_string().contains("$ref"));
            // The lean tool list leaves it out.
            assert!(definitions_json()
                .to_string()
                .find("outputSchema")
                .is_none());
        }
        let fit = output_schema("fit_random_effects").unwrap();
        assert_eq!(
            fit["properties"]["se_tau2"]["type"],
            json!(["number", "null"])
        );
        assert_eq!(fit["properties"]["z"]["type"], "number");
        let required: Vec<&str> = fit["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(required.contains(&"estimate") && !required.contains(&"t"));
        let mut result = ok("fit_random_effects", json!({}));
        result["estimate"] = Value::Null;
        assert!(schema::validate(&fit, &result).is_err());
        let mut result = ok("fit_random_effects", json!({}));
        result["extra"] = json!(1);
        assert!(schema::validate(&fit, &result).is_err());
        let egger = &all["egger_test"];
        assert_eq!(
            egger["properties"]["rule_outcome"]["enum"],
            json!(["passed", "failed", "inconclusive"])
        );
    }

    #[test]
    fn result_fields_keep_their_order() {
        let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
        assert_eq!(
            keys(&ok("fit_random_effects", json!({}))),
            [
                "method",
                "test",
                "level",
                "k",
                "measure",
                "transform",
                "estimate",
                "se",
                "z",
                "p",
                "ci_lower",
                "ci_upper",
                "tau2",
                "tau",
                "se_tau2",
                "q",
                "q_df",
                "q_p",
                "i2",
                "h2",
                "pi_lower",
                "pi_upper",
                "natural",
                "iterations",
                "dataset"
            ]
        );
        assert_eq!(
            keys(&ok(
                "refit_excluding",
                json!({"exclude": ["s04"], "test": "knha"})
            ))[..8],
            [
                "method",
                "test",
                "level",
                "k",
                "measure",
                "transform",
                "excluded",
                "estimate"
            ]
        );
        assert_eq!(
            keys(&ok("egger_test", json!({}))),
            [
                "variant",
                "k",
                "excluded",
                "egger_p",
                "statistic_name",
                "statistic",
                "df",
                "coefficient_name",
                "coefficient",
                "se",
                "tau2",
                "rule",
                "rule_outcome",
                "dataset"
            ]
        );
        let loo = ok("leave_one_out", json!({}));
        assert_eq!(
            keys(&loo),
            [
                "method",
                "test",
                "level",
                "k",
                "measure",
                "transform",
                "results",
                "dataset"
            ]
        );
        assert_eq!(keys(&loo["results"][0])[..3], ["omitted", "method", "test"]);
        assert_eq!(
            keys(&ok("funnel_plot", json!({}))),
            ["svg", "numbers", "fit", "egger"]
        );
    }

    #[test]
    fn each_tool_name_is_written_once_outside_tests() {
        let source = include_str!("mod.rs");
        let code = &source[..source.find("#[cfg(test)]").unwrap()];
        let others = [
            include_str!("fit.rs"),
            include_str!("egger.rs"),
            include_str!("plot.rs"),
            include_str!("dataset_tool.rs"),
            include_str!("effect_sizes.rs"),
            include_str!("args.rs"),
            include_str!("data.rs"),
            include_str!("schemas.rs"),
            include_str!("metareg.rs"),
            include_str!("subgroups.rs"),
            include_str!("heterogeneity.rs"),
            include_str!("columns.rs"),
            include_str!("cumulative.rs"),
            include_str!("fail_safe.rs"),
            include_str!("influence.rs"),
            include_str!("rank_test.rs"),
            include_str!("scale.rs"),
            include_str!("guide.rs"),
            include_str!("trim_fill.rs"),
            include_str!("store.rs")
                .split("#[cfg(test)]")
                .next()
                .unwrap(),
            include_str!("raw_columns.rs"),
            include_str!("multilevel.rs")
                .split("#[cfg(test)]")
                .next()
                .unwrap(),
            include_str!("tables.rs"),
            include_str!("publication_bias.rs"),
            include_str!("error.rs"),
            include_str!("../session.rs")
                .split("#[cfg(test)]")
                .next()
                .unwrap(),
        ];
        // Every module of this folder is read above: a new one must join the list.
        let read = [
            "mod.rs",
            "fit.rs",
            "egger.rs",
            "plot.rs",
            "dataset_tool.rs",
            "effect_sizes.rs",
            "args.rs",
            "data.rs",
            "schemas.rs",
            "metareg.rs",
            "subgroups.rs",
            "heterogeneity.rs",
            "columns.rs",
            "cumulative.rs",
            "fail_safe.rs",
            "influence.rs",
            "rank_test.rs",
            "scale.rs",
            "guide.rs",
            "trim_fill.rs",
            "store.rs",
            "raw_columns.rs",
            "tables.rs",
            "publication_bias.rs",
            "error.rs",
            "multilevel.rs",
        ];
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tools");
        let mut on_disk: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".rs"))
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = read.iter().map(|n| n.to_string()).collect();
        listed.sort();
        assert_eq!(
            on_disk, listed,
            "a module of tools/ is not checked for tool names"
        );
        for name in names() {
            let quoted = format!("\"{name}\"");
            let count: usize = std::iter::once(code)
                .chain(others)
                .map(|text| text.matches(&quoted).count())
                .sum();
            assert_eq!(count, 1, "{name} is written as a string {count} times");
            // Nor inside prose: descriptions name other tools through their entries. A name
            // that is also an ordinary word ("heterogeneity") is left to the string count.
            if !name.contains('_') {
                continue;
            }
            let in_prose: usize = std::iter::once(code)
                .chain(others)
                .map(|text| {
                    [" ", ".", ",", ")"]
                        .iter()
                        .map(|after| text.matches(&format!(" {name}{after}")).count())
                        .sum::<usize>()
                })
                .sum();
            assert_eq!(in_prose, 0, "{name} appears in prose");
        }
    }

    #[test]
    fn every_tool_states_its_limits_where_an_agent_reads_them() {
        // The limits every tool shares are said once, in the instructions.
        assert!(instructions().contains(&MAX_ARGS_BYTES.to_string()));
        for tool in REGISTRY {
            let definition = tool.definition();
            if tool.max_records > 0 {
                let records = &definition.input_schema["properties"]["records"]["description"];
                assert!(
                    records
                        .as_str()
                        .unwrap()
                        .to_lowercase()
                        .contains(&format!("at most {}", tool.max_records)),
                    "{}: {records}",
                    tool.name
                );
            }
        }
    }
}
