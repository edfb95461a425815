//! The `exemplar` command: the reference answer, the tool definitions, tool calls exactly as
//! the page runs them, scoring of pasted answers, the frozen PDF, recorded A/B runs, and an
//! MCP server of the same tools.

mod mcp;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use exemplar::runs::{self, Condition, Order, RunInput};
use exemplar::{csv_table, protocol, scorer, tools, your_data};
use meta_analysis::effect_sizes::{AddTo, Column, Measure};
use serde_json::Value;
use std::io::{Read, Write};
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
        /// optionally id), or CSV of raw data with --measure.
        #[arg(long, value_name = "FILE")]
        records: Option<String>,
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
    Record {
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
    },
    /// Print a plot as SVG: `exemplar plot KIND [ARGS_JSON | -] > plot.svg`, KIND a plot
    /// tool's name without `_plot` (forest, funnel, trim_and_fill, cumulative_forest,
    /// bubble). The arguments are that tool's; a tool error is JSON on stdout with exit 1, as
    /// with `call`.
    Plot {
        #[arg(value_parser = PossibleValuesParser::new(plot_kinds()))]
        kind: String,
        /// Arguments as JSON text, or - to read them from stdin (default {}).
        args: Option<String>,
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

/// The measure and continuity correction of `escalc` (and of `call --records` raw data).
#[derive(clap::Args)]
struct EscalcOptions {
    /// Effect-size measure, by metafor's escalc name.
    #[arg(long, value_parser = PossibleValuesParser::new(Measure::ALL.map(Measure::name)))]
    measure: Option<String>,
    /// Continuity correction for 2x2 tables and proportions (default 0.5).
    #[arg(long)]
    add: Option<f64>,
    /// Which rows get it: only0 (default), all, if0all, none.
    #[arg(long, value_parser = PossibleValuesParser::new(AddTo::ALL.map(AddTo::name)))]
    to: Option<String>,
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
fn command() -> clap::Command {
    Cli::command().mut_subcommand("escalc", |escalc| {
        escalc.args(Column::ALL.map(|column| {
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
    })
}

/// The `--ai tpos`-style flags given to `escalc`, as compute_effect_sizes' `columns`.
fn column_mapping(matches: &clap::ArgMatches) -> serde_json::Map<String, Value> {
    let Some(("escalc", escalc)) = matches.subcommand() else {
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

fn main() -> ExitCode {
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

/// Prints pretty JSON; a closed stdout (e.g. `| head`) just ends the output.
fn print(value: &Value) -> Result<(), Usage> {
    let text = serde_json::to_string_pretty(value).expect("JSON values serialize");
    match writeln!(std::io::stdout().lock(), "{text}") {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Usage(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

fn run(cli: Cli) -> Result<ExitCode, Usage> {
    match cli.command {
        Command::Reference => {
            print(&serde_json::to_value(protocol::reference_answer()).expect("serializes"))?;
        }
        Command::Tools => print(&tools::definitions_json())?,
        Command::Plot { kind, args } => {
            let args = read_args_text(args.as_deref())?;
            match tools::parse_args(&args).and_then(|a| tools::call(&format!("{kind}_plot"), &a)) {
                Ok(result) => {
                    let svg = result["svg"].as_str().unwrap_or_default();
                    let mut out = std::io::stdout().lock();
                    match writeln!(out, "{svg}") {
                        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                            return Err(Usage(format!("cannot write to stdout: {e}")))
                        }
                        _ => {}
                    }
                }
                Err(error) => {
                    print(&error.to_json())?;
                    return Ok(ExitCode::from(1));
                }
            }
        }
        Command::Call {
            tool,
            args,
            records,
            escalc,
        } => {
            // Malformed JSON is the page's invalid_json error (exit 1), not a usage error.
            let args = read_args_text(args.as_deref())?;
            let records = match records {
                Some(path) => Some(read_text_file(&path)?),
                None if escalc.measure.is_some() => {
                    return Err(Usage("--measure needs --records FILE".into()))
                }
                None => None,
            };
            let parsed = tools::parse_args(&args).and_then(|mut a| {
                if let Some(text) = &records {
                    let records = your_data::records_from_text(
                        text,
                        escalc.measure.as_deref(),
                        escalc.add,
                        escalc.to.as_deref(),
                    )?;
                    match a.as_object_mut() {
                        Some(object) => {
                            object.insert("records".into(), Value::Array(records));
                        }
                        None => {
                            return Err(tools::ToolError::new(
                                tools::ErrorCode::WrongType,
                                "the arguments must be a JSON object to take --records",
                            ))
                        }
                    }
                }
                Ok(a)
            });
            match parsed.and_then(|a| tools::call(&tool, &a)) {
                Ok(result) => print(&result)?,
                Err(error) => {
                    print(&error.to_json())?;
                    return Ok(ExitCode::from(1));
                }
            }
        }
        Command::Escalc { escalc, csv, file } => {
            let Some(measure) = escalc.measure else {
                return Err(Usage("escalc needs --measure".into()));
            };
            let text = read_text_file(&file)?;
            let table = csv_table::parse(&text).map_err(|e| Usage(format!("{file}: {e}")))?;
            let mut args = serde_json::json!({"measure": measure, "data": table.json_rows()});
            if let Some(add) = escalc.add {
                args["add"] = add.into();
            }
            if let Some(to) = escalc.to {
                args["to"] = to.into();
            }
            if let Some(mapping) = COLUMN_MAPPING.get().filter(|m| !m.is_empty()) {
                args["columns"] = Value::Object(mapping.clone());
            }
            match tools::call(tools::COMPUTE_EFFECT_SIZES.name, &args) {
                Ok(result) if csv => {
                    let records: Vec<tools::EffectSizeRecord> =
                        serde_json::from_value(result["records"].clone())
                            .expect("the tool's records read back");
                    write_stdout(your_data::records_csv(&records).as_bytes())?;
                }
                Ok(result) => print(&result)?,
                Err(error) => {
                    print(&error.to_json())?;
                    return Ok(ExitCode::from(1));
                }
            }
        }
        Command::Score { input } => {
            // One byte past the bound is enough to report an oversized answer.
            let limit = scorer::MAX_ANSWER_BYTES as u64 + 1;
            let bytes = match input.as_deref() {
                None | Some("-") => read_bounded(std::io::stdin().lock(), limit, "stdin")?,
                Some(path) => {
                    let file = std::fs::File::open(path)
                        .map_err(|e| Usage(format!("cannot read {path}: {e}")))?;
                    read_bounded(file, limit, path)?
                }
            };
            print(&scorer::score_bytes(&bytes).to_json())?;
        }
        Command::Pdf { out } => {
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
                std::fs::write(&out, &bytes)
            };
            written.map_err(|e| Usage(format!("cannot write {out}: {e}")))?;
        }
        Command::Record {
            condition,
            pair,
            order,
            model,
            settings,
            host,
            latency_ms,
            tokens,
            date,
            dir,
            force,
            answer_file,
        } => {
            let answer = read_answer(&answer_file)?;
            let input = RunInput {
                date: date.unwrap_or_else(today_utc),
                condition,
                pair,
                order,
                model,
                settings,
                host,
                latency_ms,
                tokens,
            };
            let record = runs::make_record(input, &answer).map_err(|e| Usage(e.to_string()))?;
            let text = serde_json::to_string_pretty(&record).expect("records serialize") + "\n";
            let path = exemplar_cli::write_record(
                std::path::Path::new(&dir),
                &record.file_name(),
                &text,
                force,
            )
            .map_err(|e| Usage(e.to_string()))?;
            eprintln!("exemplar: wrote {}", path.display());
            print(&record.score.to_json())?;
        }
        Command::Mcp { http, allow_origin } => {
            let served = match http {
                None => mcp::serve_stdio(),
                Some(addr) => mcp::serve_http(addr.0, &allow_origin),
            };
            if let Err(message) = served {
                eprintln!("exemplar mcp: {message}");
                return Ok(ExitCode::from(1));
            }
        }
        Command::Runs { command } => match command {
            RunsCommand::Check { dir } => {
                let exemplar_cli::FolderCheck { entries, report } = check_run_folder(&dir)?;
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
                if !report.ok() {
                    return Ok(ExitCode::from(1));
                }
            }
            RunsCommand::Summary { dir } => {
                let report = check_run_folder(&dir)?.report;
                if !report.ok() {
                    for e in &report.errors {
                        eprintln!("error: {e}");
                    }
                    eprintln!("exemplar: fix the records first (exemplar runs check)");
                    return Ok(ExitCode::from(1));
                }
                print(&runs::summarize(&report.runs).to_json())?;
            }
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// The tool arguments' text from the command line, or from stdin with `-` (none means
/// empty, which `tools::parse_args` takes as {}).
fn read_args_text(args: Option<&str>) -> Result<String, Usage> {
    match args {
        None => Ok(String::new()),
        Some("-") => {
            // The tools' own bound: more than that is refused with its size, unparsed.
            let bytes = read_at_most(
                std::io::stdin().lock(),
                tools::MAX_ARGS_BYTES as u64,
                "the arguments on stdin",
            )?;
            String::from_utf8(bytes)
                .map_err(|_| Usage("the arguments on stdin are not UTF-8 text".into()))
        }
        Some(text) => Ok(text.to_string()),
    }
}

/// A data file's text (or stdin with `-`): at most the CSV bound, and UTF-8.
fn read_text_file(path: &str) -> Result<String, Usage> {
    let limit = csv_table::MAX_CSV_BYTES as u64;
    let bytes = if path == "-" {
        read_at_most(std::io::stdin().lock(), limit, "stdin")?
    } else {
        let file =
            std::fs::File::open(path).map_err(|e| Usage(format!("cannot read {path}: {e}")))?;
        read_at_most(file, limit, path)?
    };
    String::from_utf8(bytes).map_err(|e| {
        Usage(format!(
            "{path} is not UTF-8 text (invalid byte at offset {}); save it as UTF-8",
            e.utf8_error().valid_up_to()
        ))
    })
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

/// The answer text: bounded like `exemplar score`, and UTF-8.
fn read_answer(path: &str) -> Result<String, Usage> {
    let limit = scorer::MAX_ANSWER_BYTES as u64;
    let read = if path == "-" {
        read_at_most(std::io::stdin().lock(), limit, "stdin")
    } else {
        let file =
            std::fs::File::open(path).map_err(|e| Usage(format!("cannot read {path}: {e}")))?;
        read_at_most(file, limit, path)
    };
    let bytes = read.map_err(|Usage(e)| Usage(format!("{e}; record only the agent's answer")))?;
    String::from_utf8(bytes).map_err(|_| Usage(format!("{path} is not UTF-8 text")))
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

/// Reads at most `limit` bytes.
/// All of `reader` when it holds at most `limit` bytes; otherwise a usage error giving its
/// size and the limit (issue 25: 70,000,000 bytes on stdin were reported as the 67108864
/// bytes read). The bytes past the limit are counted, not kept.
fn read_at_most(mut reader: impl Read, limit: u64, what: &str) -> Result<Vec<u8>, Usage> {
    let bytes = read_bounded(&mut reader, limit + 1, what)?;
    if bytes.len() as u64 <= limit {
        return Ok(bytes);
    }
    let rest = std::io::copy(&mut reader.take(MAX_COUNTED_BYTES), &mut std::io::sink())
        .map_err(|e| Usage(format!("cannot read {what}: {e}")))?;
    // The count stops at MAX_COUNTED_BYTES past the limit: an endless stream is "more than".
    let more = if rest == MAX_COUNTED_BYTES {
        "more than "
    } else {
        ""
    };
    Err(Usage(format!(
        "{what}: {more}{} bytes; at most {limit} bytes ({}) are accepted",
        bytes.len() as u64 + rest,
        binary_size(limit)
    )))
}

/// How far past a limit an input is read to say its size.
const MAX_COUNTED_BYTES: u64 = 1 << 30;

/// 16777216 as "16 MiB", 65536 as "64 KiB".
fn binary_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

fn read_bounded(reader: impl Read, limit: u64, what: &str) -> Result<Vec<u8>, Usage> {
    let mut bytes = Vec::new();
    reader
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| Usage(format!("cannot read {what}: {e}")))?;
    Ok(bytes)
}
