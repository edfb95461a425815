//! The `exemplar` command: the reference answer, the tool definitions, tool calls exactly as
//! the page runs them, scoring of pasted answers, the frozen PDF, recorded A/B runs, and an
//! MCP server of the same tools.

mod mcp;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};
use exemplar::runs::{self, Condition, Order, RunInput};
use exemplar::{protocol, scorer, tools};
use serde_json::Value;
use std::io::{Read, Write};
use std::process::ExitCode;

/// The largest tool-arguments text read (a full `records` list fits easily).
const MAX_ARGS_BYTES: u64 = 64 * 1024 * 1024;

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
    /// Print a plot as SVG: `exemplar plot forest|funnel [ARGS_JSON | -] > plot.svg`. The
    /// arguments are those of the forest_plot and funnel_plot tools; a tool error is JSON on
    /// stdout with exit 1, as with `call`.
    Plot {
        #[arg(value_parser = ["forest", "funnel"])]
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

/// A usage error: reported on stderr with exit code 2.
struct Usage(String);

fn main() -> ExitCode {
    match run(Cli::parse()) {
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
        Command::Call { tool, args } => {
            // Malformed JSON is the page's invalid_json error (exit 1), not a usage error.
            let args = read_args_text(args.as_deref())?;
            match tools::parse_args(&args).and_then(|a| tools::call(&tool, &a)) {
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
            let bytes = read_bounded(std::io::stdin().lock(), MAX_ARGS_BYTES, "stdin")?;
            String::from_utf8(bytes)
                .map_err(|_| Usage("the arguments on stdin are not UTF-8 text".into()))
        }
        Some(text) => Ok(text.to_string()),
    }
}

/// The answer text: bounded like `exemplar score`, and UTF-8.
fn read_answer(path: &str) -> Result<String, Usage> {
    let limit = scorer::MAX_ANSWER_BYTES as u64 + 1;
    let bytes = if path == "-" {
        read_bounded(std::io::stdin().lock(), limit, "stdin")?
    } else {
        let file =
            std::fs::File::open(path).map_err(|e| Usage(format!("cannot read {path}: {e}")))?;
        read_bounded(file, limit, path)?
    };
    if bytes.len() as u64 >= limit {
        return Err(Usage(format!(
            "{path} is longer than {} bytes; record only the agent's answer",
            scorer::MAX_ANSWER_BYTES
        )));
    }
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
fn read_bounded(reader: impl Read, limit: u64, what: &str) -> Result<Vec<u8>, Usage> {
    let mut bytes = Vec::new();
    reader
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| Usage(format!("cannot read {what}: {e}")))?;
    Ok(bytes)
}
