//! Reading the command's inputs (tool arguments, data files, recorded answers) within their
//! bounds: an input over its limit is refused with its real size and the limit, never
//! truncated and never read whole into memory.

use super::Usage;
use exemplar::{csv_table, scorer, tools};
use std::io::Read;

/// The tool arguments' text from the command line, or from stdin with `-` (none means
/// empty, which `tools::parse_args` takes as {}).
pub fn args_text(args: Option<&str>) -> Result<String, Usage> {
    match args {
        None => Ok(String::new()),
        Some("-") => {
            // The tools' own bound: more than that is refused with its size, unparsed.
            let bytes = at_most(
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
pub fn text_file(path: &str) -> Result<String, Usage> {
    let bytes = file_or_stdin(path, csv_table::MAX_CSV_BYTES as u64)?;
    String::from_utf8(bytes).map_err(|e| {
        Usage(format!(
            "{path} is not UTF-8 text (invalid byte at offset {}); save it as UTF-8",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The answer text: bounded like `exemplar score`, and UTF-8.
pub fn answer(path: &str) -> Result<String, Usage> {
    let bytes = file_or_stdin(path, scorer::MAX_ANSWER_BYTES as u64)
        .map_err(|Usage(e)| Usage(format!("{e}; record only the agent's answer")))?;
    String::from_utf8(bytes).map_err(|_| Usage(format!("{path} is not UTF-8 text")))
}

/// The answer to score, from a file or stdin (none or `-`): one byte past the scorer's bound
/// is read, enough for the scorer to report an oversized answer as such.
pub fn answer_to_score(input: Option<&str>) -> Result<Vec<u8>, Usage> {
    let limit = scorer::MAX_ANSWER_BYTES as u64 + 1;
    match input {
        None | Some("-") => bounded(std::io::stdin().lock(), limit, "stdin"),
        Some(path) => bounded(open(path)?, limit, path),
    }
}

/// All of the file at `path` (stdin with `-`) when it holds at most `limit` bytes.
fn file_or_stdin(path: &str, limit: u64) -> Result<Vec<u8>, Usage> {
    if path == "-" {
        at_most(std::io::stdin().lock(), limit, "stdin")
    } else {
        at_most(open(path)?, limit, path)
    }
}

fn open(path: &str) -> Result<std::fs::File, Usage> {
    std::fs::File::open(path).map_err(|e| Usage(format!("cannot read {path}: {e}")))
}

/// All of `reader` when it holds at most `limit` bytes; otherwise a usage error giving its
/// size and the limit (issue 25: 70,000,000 bytes on stdin were reported as the 67108864
/// bytes read). The bytes past the limit are counted, not kept.
fn at_most(mut reader: impl Read, limit: u64, what: &str) -> Result<Vec<u8>, Usage> {
    let bytes = bounded(&mut reader, limit + 1, what)?;
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

/// At most `limit` bytes of `reader`.
fn bounded(reader: impl Read, limit: u64, what: &str) -> Result<Vec<u8>, Usage> {
    let mut bytes = Vec::new();
    reader
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| Usage(format!("cannot read {what}: {e}")))?;
    Ok(bytes)
}
