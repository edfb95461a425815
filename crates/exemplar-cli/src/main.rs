//! The `exemplar` command: the reference answer, the tool definitions, tool calls exactly as
//! the page runs them, and scoring of pasted answers.

use clap::{Parser, Subcommand};
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
        Command::Call { tool, args } => {
            let text = match args.as_deref() {
                None => String::new(),
                Some("-") => {
                    let bytes = read_bounded(std::io::stdin().lock(), MAX_ARGS_BYTES, "stdin")?;
                    String::from_utf8(bytes)
                        .map_err(|_| Usage("the arguments on stdin are not UTF-8 text".into()))?
                }
                Some(text) => text.to_string(),
            };
            let args = tools::parse_args(&text).map_err(|e| Usage(e.message))?;
            match tools::call(&tool, &args) {
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
    }
    Ok(ExitCode::SUCCESS)
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
