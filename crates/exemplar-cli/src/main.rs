//! The `exemplar` command: the reference answer, the tool definitions, tool calls exactly as
//! the page runs them, scoring of pasted answers, the frozen PDF, recorded A/B runs, and an
//! MCP server of the same tools.

mod mcp;
mod read;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use exemplar::runs::{self, Condition, Order, RunInput};
use exemplar::{csv_table, protocol, scorer, tools, your_data};
use meta_analysis::effect_sizes::{AddTo, Column, Measure, Vtype};
use serde_json::Value;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "exemplar",
    version,
    about = "Living-evidence exemplar: reference answer, agent tools and scorer"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process: the size of the `Record` variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Print the reference answer (computed by the engine) as JSON.
    Reference,
    /// Print the tool definitions as a JSON array.
    Tools,
    /// Run a tool as the page does: the result on stdout (exit 0), or
    /// {"error":{"code","message"}} on stdout (exit 1).
    Call {
        /// Tool name, e.g. fit_random_effects.
        tool: String,
        /// Arguments as JSON text, or - to read them from stdin (default {}).
        args: Option<String>,
        /// Read the `records` argument from FILE: JSON (an array of records, or an object
        /// with `records`, as `exemplar escalc` prints), or CSV with columns yi and vi (and
        /// optionally id), or CSV of raw data with --measure; for the 2x2 tools
        /// (mantel_haenszel, peto_odds_ratio) the file's rows as their `data`.
        #[arg(long, value_name = "FILE")]
        records: Option<String>,
        /// Print the result's printed summary (laid out as metafor's print methods) instead
        /// of JSON; a tool without one (a data tool) prints its JSON, saying so on stderr.
        #[arg(long)]
        text: bool,
        /// Print the R script that reproduces the result with metafor (the tool's `r_code`)
        /// instead of JSON; its methods paragraph goes to stderr.
        #[arg(long = "r", conflicts_with = "text")]
        r: bool,
        #[command(flatten)]
        escalc: EscalcOptions,
    },
    /// Compute effect sizes from a CSV of raw study data (compute_effect_sizes): the result
    /// as JSON (exit 0), or the records as CSV with --csv; a bad row is the tool's error JSON
    /// on stdout with exit 1.
    Escalc {
        #[command(flatten)]
        escalc: EscalcOptions,
        /// Print the records as CSV (id, yi, vi, then the other columns).
        #[arg(long)]
        csv: bool,
        /// The CSV file (header row; comma, semicolon or tab), or - for stdin.
        file: String,
    },
    /// Score a raw answer and print the report as JSON (exit 0, also for a parse failure).
    Score {
        /// File holding the answer, or - for stdin (default -).
        input: Option<String>,
    },
    /// Write the frozen evidence artifact, the PDF of the data and methods (exit 1 if it
    /// cannot be rendered).
    Pdf {
        /// Output file, or - for stdout.
        #[arg(long, default_value = protocol::PDF_PATH)]
        out: String,
    },
    /// Score an agent's raw answer and write it as a run record (runs/<pair>-<condition>.json).
    Record(RecordArgs),
    /// Print a plot as SVG, or as PNG or PDF for a paper: `exemplar plot KIND [ARGS_JSON | -]
    /// > plot.svg`, or `exemplar plot forest --format png --dpi 300 --out forest.png`; KIND a
    /// plot tool's name without `_plot` (forest, funnel, trim_and_fill, cumulative_forest,
    /// bubble, …). The arguments are that tool's; a tool error is JSON on stdout with exit 1,
    /// as with `call`.
    Plot {
        #[arg(value_parser = PossibleValuesParser::new(plot_kinds()))]
        kind: String,
        /// Arguments as JSON text, or - to read them from stdin (default {}).
        args: Option<String>,
        /// svg (the plot tool's own), png (at --dpi) or pdf (its font embedded); an SVG
        /// pixel is 1/96 inch.
        #[arg(long, value_enum, default_value_t = FigureFormat::Svg)]
        format: FigureFormat,
        /// Pixels an inch of a PNG (default 300).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(exemplar_figures::MAX_DPI)))]
        dpi: Option<u32>,
        /// Write the figure to FILE instead of stdout (where a PNG or PDF goes only when it
        /// is not a terminal).
        #[arg(long, value_name = "FILE")]
        out: Option<String>,
    },
    /// Serve the tools, the dataset's CSV, the methods text and the common prompt over the
    /// Model Context Protocol: on stdio, or with --http as Streamable HTTP at /mcp. A way to
    /// reach the tools, not a benchmark condition.
    Mcp {
        /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio; ADDR is a loopback
        /// address with a port (port 0 picks a free one; the URL is printed on stderr).
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = mcp::DEFAULT_ADDR)]
        http: Option<mcp::LoopbackAddr>,
        /// With --http: also accept browser requests from ORIGIN (scheme://host[:port]);
        /// requests from any other origin but the server's own get 403. Repeatable.
        #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
        allow_origin: Vec<mcp::AllowedOrigin>,
    },
    /// Check or summarise the recorded runs.
    Runs {
        #[command(subcommand)]
        command: RunsCommand,
    },
}

/// The plot tools of the registry, by name without `_plot`.
fn plot_kinds() -> Vec<&'static str> {
    tools::REGISTRY
        .iter()
        .filter(|tool| tool.group == tools::ToolGroup::Plot)
        .filter_map(|tool| tool.name.strip_suffix("_plot"))
        .collect()
}

/// What `exemplar plot` writes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FigureFormat {
    Svg,
    Png,
    Pdf,
}

/// The measure and continuity correction of `escalc` (and of `call --records` raw data).
#[derive(clap::Args)]
struct EscalcOptions {
    /// Effect-size measure, by metafor's escalc name.
    #[arg(long, value_parser = PossibleValuesParser::new(Measure::ALL.map(Measure::name)))]
    measure: Option<String>,
    /// Continuity correction for counts (default 0.5; 0 for AS, PHI, IRSD, PAS, PFT, IRS,
    /// IRFT).
    #[arg(long)]
    add: Option<f64>,
    /// Which rows get it: only0 (default), all, if0all, none.
    #[arg(long, value_parser = PossibleValuesParser::new(AddTo::ALL.map(AddTo::name)))]
    to: Option<String>,
    /// escalc's vtype: the sampling variance's estimate (default LS; the measure's others).
    #[arg(long, value_parser = PossibleValuesParser::new(Vtype::ALL.map(Vtype::name)))]
    vtype: Option<String>,
    /// Leave out tables (or person-time data) with no events, or only events, in both groups.
    #[arg(long)]
    drop00: bool,
}

impl EscalcOptions {
    /// The options as compute_effect_sizes takes them.
    fn settings(&self) -> tools::EscalcSettings {
        tools::EscalcSettings {
            add: self.add,
            to: self.to.clone(),
            vtype: self.vtype.clone(),
            drop00: self.drop00.then_some(true),
        }
    }
}

/// The run `exemplar record` writes: who ran it, how, and the answer.
#[derive(clap::Args)]
struct RecordArgs {
    /// Which condition the run had.
    #[arg(long, value_parser = PossibleValuesParser::new(Condition::BOTH.map(Condition::name))
    .try_map(|s| s.parse::<Condition>()))]
    condition: Condition,
    /// Replicate pair id (letters, digits, - and _).
    #[arg(long)]
    pair: String,
    /// Which session of the pair this was.
    #[arg(long, value_parser = PossibleValuesParser::new(Order::BOTH.map(Order::name))
    .try_map(|s| s.parse::<Order>()))]
    order: Order,
    /// The agent model, as the host names it.
    #[arg(long)]
    model: String,
    #[arg(long, default_value = "")]
    settings: String,
    #[arg(long, default_value = "")]
    host: String,
    /// Only when the host measures it comparably; never inferred.
    #[arg(long)]
    latency_ms: Option<u64>,
    /// Only when the host reports it comparably; never inferred.
    #[arg(long)]
    tokens: Option<u64>,
    /// The run's date, YYYY-MM-DD, a real calendar date (default: today, UTC).
    #[arg(long)]
    date: Option<String>,
    /// Folder of run records.
    #[arg(long, default_value = "runs")]
    dir: String,
    /// Replace an existing record of the same pair and condition.
    #[arg(long)]
    force: bool,
    /// File holding the agent's raw answer, or - for stdin.
    answer_file: String,
}

#[derive(Subcommand)]
enum RunsCommand {
    /// Validate every record in the folder (exit 1 on an error; warnings do not fail).
    Check {
        #[arg(long, default_value = "runs")]
        dir: String,
    },
    /// Print the Living Evidence summary of the folder's records as JSON.
    Summary {
        #[arg(long, default_value = "runs")]
        dir: String,
    },
}

/// The `escalc` column flags of this invocation.
static COLUMN_MAPPING: std::sync::OnceLock<serde_json::Map<String, Value>> =
    std::sync::OnceLock::new();

/// A usage error: reported on stderr with exit code 2.
struct Usage(String);

/// The command line: the derived commands, and on `escalc` one flag per escalc column
/// (`--ai tpos`: the CSV column holding ai), made from the column list itself.
/// `call` takes them too, for the 2x2 tools' `columns` (`call mantel_haenszel --records
/// FILE --ai tpos`).
fn command() -> clap::Command {
    let with_columns = |command: clap::Command| {
        command.args(Column::ALL.map(|column| {
            clap::Arg::new(column.name())
                .long(column.name())
                .value_name("COLUMN")
                .help(format!(
                    "The CSV column holding {} (default: the column named {})",
                    column.description(),
                    column.name()
                ))
                .help_heading("Column mapping")
        }))
    };
    Cli::command()
        .mut_subcommand("escalc", with_columns)
        .mut_subcommand("call", with_columns)
}

/// The `--ai tpos`-style flags given to `escalc` or `call`, as the tools' `columns`.
fn column_mapping(matches: &clap::ArgMatches) -> serde_json::Map<String, Value> {
    let Some(("escalc" | "call", escalc)) = matches.subcommand() else {
        return serde_json::Map::new();
    };
    Column::ALL
        .iter()
        .filter_map(|column| {
            let source = escalc.get_one::<String>(column.name())?;
            Some((column.name().to_string(), Value::from(source.clone())))
        })
        .collect()
}

pub fn main() -> ExitCode {
    let matches = command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    COLUMN_MAPPING
        .set(column_mapping(&matches))
        .expect("set once");
    match run(cli) {
        Ok(code) => code,
        Err(Usage(message)) => {
            eprintln!("exemplar: {message}");
            ExitCode::from(2)
        }
    }
}

/// Each subcommand is one function below, returning its exit code; a usage error is exit 2.
fn run(cli: Cli) -> Result<ExitCode, Usage> {
    match cli.command {
        Command::Reference => reference(),
        Command::Tools => tool_definitions(),
        Command::Call {
            tool,
            args,
            records,
            text,
            r,
            escalc,
        } => call(
            &tool,
            args.as_deref(),
            records.as_deref(),
            Shown::of(text, r),
            &escalc,
        ),
        Command::Escalc { escalc, csv, file } => escalc_file(escalc, csv, &file),
        Command::Score { input } => score(input.as_deref()),
        Command::Pdf { out } => pdf(&out),
        Command::Record(args) => record(args),
        Command::Plot {
            kind,
            args,
            format,
            dpi,
            out,
        } => plot(&kind, args.as_deref(), format, dpi, out.as_deref()),
        Command::Mcp { http, allow_origin } => serve_mcp(http, &allow_origin),
        Command::Runs { command } => match command {
            RunsCommand::Check { dir } => runs_check(&dir),
            RunsCommand::Summary { dir } => runs_summary(&dir),
        },
    }
}

/// `exemplar reference`.
fn reference() -> Result<ExitCode, Usage> {
    print(&serde_json::to_value(protocol::reference_answer()).expect("serializes"))?;
    Ok(ExitCode::SUCCESS)
}

/// `exemplar tools`.
fn tool_definitions() -> Result<ExitCode, Usage> {
    print(&tools::definitions_json())?;
    Ok(ExitCode::SUCCESS)
}

/// `exemplar call TOOL [ARGS] [--records FILE [--measure ...]] [--text]`: the tool's result
/// (or, with `--text`, its printed summary), or its error JSON with exit 1.
/// What `call` prints: the result's JSON, its printed summary (`--text`) or its R script
/// (`--r`).
#[derive(Clone, Copy, PartialEq)]
enum Shown {
    Json,
    Text,
    R,
}

impl Shown {
    fn of(text: bool, r: bool) -> Shown {
        match (text, r) {
            (_, true) => Shown::R,
            (true, _) => Shown::Text,
            _ => Shown::Json,
        }
    }
}

fn call(
    tool: &str,
    args: Option<&str>,
    records: Option<&str>,
    shown: Shown,
    escalc: &EscalcOptions,
) -> Result<ExitCode, Usage> {
    let text = shown == Shown::Text;
    // Malformed JSON is the page's invalid_json error (exit 1), not a usage error.
    let args = read::args_text(args)?;
    let records = match records {
        Some(path) => Some(read::text_file(path)?),
        None if escalc.measure.is_some() => {
            return Err(Usage("--measure needs --records FILE".into()))
        }
        None => None,
    };
    let mapping = COLUMN_MAPPING.get().filter(|m| !m.is_empty());
    let tables = TABLE_TOOLS.contains(&tool);
    if mapping.is_some() && !(tables && records.is_some()) {
        return Err(Usage(format!(
            "--ai, --bi and the other column flags go with escalc, or with --records FILE on \
the 2x2 tools ({})",
            TABLE_TOOLS.join(", ")
        )));
    }
    let answer = tools::parse_args(&args)
        .and_then(|args| match &records {
            Some(text) if tables => with_tables(tool, args, text, escalc, mapping),
            Some(text) => with_records(args, text, escalc),
            None => Ok(args),
        })
        .and_then(|mut args| {
            if shown == Shown::R {
                if let Value::Object(fields) = &mut args {
                    fields.insert("r_code".into(), Value::Bool(true));
                }
            }
            tools::call(tool, &args)
        });
    match answer {
        Ok(result) if shown == Shown::R => {
            eprintln!("{}", result["methods_text"].as_str().unwrap_or_default());
            write_stdout(result["r_code"].as_str().unwrap_or_default().as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(result) => {
            // metafor warns "Tables with NAs omitted"; the printed summary, like its print,
            // does not list them: said on stderr, as the rows escalc leaves out are.
            if tables && text {
                note_omitted(result["omitted"].as_array().map_or(&[], Vec::as_slice));
            }
            match text.then(|| exemplar::tools::summary(tool, &result)) {
                Some(Some(summary)) => write_stdout(summary.as_bytes())?,
                Some(None) => {
                    eprintln!("exemplar: {tool} has no printed summary; its result as JSON");
                    print(&result)?;
                }
                None => print(&result)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => tool_error(&error),
    }
}

/// The arguments with their `records` read from the text of `call --records` (records as
/// JSON or CSV, or raw data with `--measure`).
fn with_records(
    mut args: Value,
    text: &str,
    escalc: &EscalcOptions,
) -> Result<Value, tools::ToolError> {
    let (records, omitted, notes) = your_data::records_and_omitted_from_text(
        text,
        escalc.measure.as_deref(),
        &escalc.settings(),
    )?;
    note_omitted(&omitted);
    print_notes(&notes);
    let Some(object) = args.as_object_mut() else {
        return Err(tools::ToolError::new(
            tools::ErrorCode::WrongType,
            "the arguments must be a JSON object to take --records",
        ));
    };
    object.insert("records".into(), Value::Array(records));
    Ok(args)
}

/// The tools that take raw 2x2 tables as `data` (`call --records FILE` gives them the file's
/// rows, not effect sizes).
const TABLE_TOOLS: [&str; 2] = [tools::MANTEL_HAENSZEL.name, tools::PETO_ODDS_RATIO.name];

/// The arguments of a 2x2 tool with its `data` read from the text of `call --records` (CSV,
/// or a JSON array of rows), `--measure` as its `measure` (Peto's is the odds ratio: OR or
/// PETO) and the column flags as its `columns`. escalc's other options are not the tools'.
fn with_tables(
    tool: &str,
    mut args: Value,
    text: &str,
    escalc: &EscalcOptions,
    mapping: Option<&serde_json::Map<String, Value>>,
) -> Result<Value, tools::ToolError> {
    let invalid =
        |message: String| tools::ToolError::new(tools::ErrorCode::InvalidArguments, message);
    if escalc.add.is_some() || escalc.to.is_some() || escalc.vtype.is_some() || escalc.drop00 {
        return Err(invalid(format!(
            "--add, --to, --vtype and --drop00 are escalc's; {tool} pools the tables as \
metafor's rma.mh() and rma.peto() do (no correction)"
        )));
    }
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let rows: Vec<Value> = if trimmed.starts_with('[') {
        match exemplar::strict_json::parse(trimmed) {
            Ok(Value::Array(rows)) => rows,
            Ok(_) => unreachable!("the text starts with ["),
            Err(e) => {
                return Err(tools::ToolError::new(
                    tools::ErrorCode::InvalidData,
                    format!("the data file is not valid JSON: {e}"),
                ))
            }
        }
    } else {
        csv_table::parse(text)
            .map_err(|e| {
                tools::ToolError::new(tools::ErrorCode::InvalidData, format!("the CSV: {e}"))
            })?
            .json_rows()
            .into_iter()
            .map(Value::Object)
            .collect()
    };
    let Some(object) = args.as_object_mut() else {
        return Err(tools::ToolError::new(
            tools::ErrorCode::WrongType,
            "the arguments must be a JSON object to take --records",
        ));
    };
    for (key, given) in [
        ("data", "--records"),
        ("columns", "--ai and the column flags"),
    ] {
        if object.contains_key(key) && (key == "data" || mapping.is_some()) {
            return Err(invalid(format!(
                "give {key} in the arguments or {given}, not both"
            )));
        }
    }
    if let Some(measure) = &escalc.measure {
        if tool == tools::PETO_ODDS_RATIO.name {
            if !matches!(measure.as_str(), "OR" | "PETO") {
                return Err(invalid(format!(
                    "{tool} pools odds ratios: --measure OR (or PETO), or leave it out; not {measure}"
                )));
            }
        } else {
            match object.get("measure") {
                Some(other) if other != measure.as_str() => {
                    return Err(invalid(format!(
                        "--measure {measure} and the arguments' measure {other} differ"
                    )))
                }
                _ => {
                    object.insert("measure".into(), measure.clone().into());
                }
            }
        }
    }
    object.insert("data".into(), Value::Array(rows));
    if let Some(mapping) = mapping {
        object.insert("columns".into(), Value::Object(mapping.clone()));
    }
    Ok(args)
}

/// The rows of raw data left out (no effect size), one line each on stderr, where the
/// output (records as CSV, or a tool's result) does not list them.
fn note_omitted(omitted: &[Value]) {
    for row in omitted {
        eprintln!(
            "exemplar: left out {}: {}",
            row["id"].as_str().unwrap_or_default(),
            row["reason"].as_str().unwrap_or_default()
        );
    }
}

/// compute_effect_sizes' notes on rows kept (ids made unique, vi = 0), one line each on
/// stderr, where the output does not carry them.
fn print_notes(notes: &[Value]) {
    for note in notes {
        eprintln!("exemplar: note: {}", note.as_str().unwrap_or_default());
    }
}

/// `exemplar escalc --measure M FILE`: compute_effect_sizes on the CSV, printed as its JSON
/// result or, with `--csv`, as the records' CSV.
fn escalc_file(escalc: EscalcOptions, csv: bool, file: &str) -> Result<ExitCode, Usage> {
    let Some(measure) = escalc.measure.clone() else {
        return Err(Usage("escalc needs --measure".into()));
    };
    let text = read::text_file(file)?;
    let table = csv_table::parse(&text).map_err(|e| Usage(format!("{file}: {e}")))?;
    let mut args = serde_json::Map::new();
    args.insert("measure".into(), measure.into());
    args.insert("data".into(), table.json_rows().into());
    escalc.settings().write_into(&mut args);
    if let Some(mapping) = COLUMN_MAPPING.get().filter(|m| !m.is_empty()) {
        args.insert("columns".into(), Value::Object(mapping.clone()));
    }
    let args = Value::Object(args);
    match tools::call(tools::COMPUTE_EFFECT_SIZES.name, &args) {
        Ok(result) if csv => {
            note_omitted(result["omitted"].as_array().map_or(&[], Vec::as_slice));
            print_notes(result["notes"].as_array().map_or(&[], Vec::as_slice));
            let records: Vec<tools::EffectSizeRecord> =
                serde_json::from_value(result["records"].clone())
                    .expect("the tool's records read back");
            write_stdout(your_data::records_csv(&records).as_bytes())?;
        }
        Ok(result) => print(&result)?,
        Err(error) => return tool_error(&error),
    }
    Ok(ExitCode::SUCCESS)
}

/// `exemplar score [FILE | -]`: the scorer's report, also for an answer it cannot parse.
fn score(input: Option<&str>) -> Result<ExitCode, Usage> {
    let bytes = read::answer_to_score(input)?;
    print(&scorer::score_bytes(&bytes).to_json())?;
    Ok(ExitCode::SUCCESS)
}

/// `exemplar pdf [--out FILE | -]`.
fn pdf(out: &str) -> Result<ExitCode, Usage> {
    let bytes = match exemplar_pdf::render() {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("exemplar: cannot render the PDF: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let written = if out == "-" {
        std::io::stdout().lock().write_all(&bytes)
    } else {
        std::fs::write(out, &bytes)
    };
    written.map_err(|e| Usage(format!("cannot write {out}: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// `exemplar record ...`: scores the answer, writes the run record, prints the score.
fn record(args: RecordArgs) -> Result<ExitCode, Usage> {
    let answer = read::answer(&args.answer_file)?;
    let input = RunInput {
        date: args.date.unwrap_or_else(today_utc),
        condition: args.condition,
        pair: args.pair,
        order: args.order,
        model: args.model,
        settings: args.settings,
        host: args.host,
        latency_ms: args.latency_ms,
        tokens: args.tokens,
    };
    let record = runs::make_record(input, &answer).map_err(|e| Usage(e.to_string()))?;
    let text = serde_json::to_string_pretty(&record).expect("records serialize") + "\n";
    let path = exemplar_cli::write_record(
        std::path::Path::new(&args.dir),
        &record.file_name(),
        &text,
        args.force,
    )
    .map_err(|e| Usage(e.to_string()))?;
    eprintln!("exemplar: wrote {}", path.display());
    print(&record.score.to_json())?;
    Ok(ExitCode::SUCCESS)
}

/// `exemplar plot KIND [ARGS] [--format svg|png|pdf] [--dpi N] [--out FILE]`: the plot
/// tool's SVG alone, or that SVG rendered as a PNG or PDF; or the tool's error JSON with exit
/// 1. A figure that cannot be rendered (too many pixels) is said on stderr, exit 1.
fn plot(
    kind: &str,
    args: Option<&str>,
    format: FigureFormat,
    dpi: Option<u32>,
    out: Option<&str>,
) -> Result<ExitCode, Usage> {
    let figure = match (format, dpi) {
        (FigureFormat::Svg, None) => None,
        (FigureFormat::Png, dpi) => Some(exemplar_figures::Format::Png {
            dpi: dpi.unwrap_or(exemplar_figures::DEFAULT_DPI),
        }),
        (FigureFormat::Pdf, None) => Some(exemplar_figures::Format::Pdf),
        (_, Some(_)) => return Err(Usage("--dpi goes with --format png".into())),
    };
    if figure.is_some() && out.is_none() && std::io::stdout().is_terminal() {
        return Err(Usage(
            "a PNG or PDF is not written to a terminal: give --out FILE or redirect stdout".into(),
        ));
    }
    let args = read::args_text(args)?;
    let result =
        match tools::parse_args(&args).and_then(|a| tools::call(&format!("{kind}_plot"), &a)) {
            Ok(result) => result,
            Err(error) => return tool_error(&error),
        };
    let svg = result["svg"].as_str().unwrap_or_default();
    let bytes = match figure {
        None => format!("{svg}\n").into_bytes(),
        Some(format) => match exemplar_figures::render(svg, format) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("exemplar: cannot render the figure: {e}");
                return Ok(ExitCode::from(1));
            }
        },
    };
    match out {
        Some(path) => {
            std::fs::write(path, &bytes).map_err(|e| Usage(format!("cannot write {path}: {e}")))?
        }
        None => write_stdout(&bytes)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `exemplar mcp [--http [ADDR]]`: serves until the client leaves; a server that cannot
/// start or fails is exit 1.
fn serve_mcp(
    http: Option<mcp::LoopbackAddr>,
    allow_origin: &[mcp::AllowedOrigin],
) -> Result<ExitCode, Usage> {
    let served = match http {
        None => mcp::serve_stdio(),
        Some(addr) => mcp::serve_http(addr.0, allow_origin),
    };
    match served {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(message) => {
            eprintln!("exemplar mcp: {message}");
            Ok(ExitCode::from(1))
        }
    }
}

/// `exemplar runs check`: every problem on stderr, the report as JSON; exit 1 on an error.
fn runs_check(dir: &str) -> Result<ExitCode, Usage> {
    let exemplar_cli::FolderCheck { entries, report } = check_run_folder(dir)?;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    for e in &report.errors {
        eprintln!("error: {e}");
    }
    eprintln!(
        "{entries} record files checked: {} errors, {} warnings",
        report.errors.len(),
        report.warnings.len()
    );
    print(&serde_json::to_value(&report).expect("reports serialize"))?;
    Ok(if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `exemplar runs summary`: the summary of a folder whose records all pass the check.
fn runs_summary(dir: &str) -> Result<ExitCode, Usage> {
    let report = check_run_folder(dir)?.report;
    if !report.ok() {
        for e in &report.errors {
            eprintln!("error: {e}");
        }
        eprintln!("exemplar: fix the records first (exemplar runs check)");
        return Ok(ExitCode::from(1));
    }
    print(&runs::summarize(&report.runs).to_json())?;
    Ok(ExitCode::SUCCESS)
}

/// A tool's refusal, as the page shows it: its error JSON on stdout, exit 1.
fn tool_error(error: &tools::ToolError) -> Result<ExitCode, Usage> {
    print(&error.to_json())?;
    Ok(ExitCode::from(1))
}

/// Prints pretty JSON; a closed stdout (e.g. `| head`) just ends the output.
/// Writes `value` as indented JSON, with the C1 controls (the 8-bit CSI U+009B among them),
/// DEL and the direction controls, which serde_json writes raw, as `\uXXXX` escapes
/// ([`exemplar::printable::printable_json`]): the same value, and no id reaches a terminal
/// as a control.
fn print(value: &Value) -> Result<(), Usage> {
    let text = serde_json::to_string_pretty(value).expect("JSON values serialize");
    let text = exemplar::printable::printable_json(&text);
    write_stdout(format!("{text}\n").as_bytes())
}

/// Writes raw text to stdout; a closed stdout just ends the output.
fn write_stdout(bytes: &[u8]) -> Result<(), Usage> {
    match std::io::stdout().lock().write_all(bytes) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Usage(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// The folder's records read and checked by the function `cargo xtask build` also uses.
fn check_run_folder(dir: &str) -> Result<exemplar_cli::FolderCheck, Usage> {
    exemplar_cli::check_run_folder(std::path::Path::new(dir)).map_err(Usage)
}

/// Today's date in UTC as YYYY-MM-DD.
fn today_utc() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    now[..10].to_string()
}
