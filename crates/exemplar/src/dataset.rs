//! The frozen dataset: metadat's `dat.raudenbush1985`, embedded byte for byte.
//!
//! The dataset hash is the SHA-256 of exactly these CSV bytes.

use meta_analysis::Record;
use serde::Serialize;
use serde_json::Value;
use std::sync::OnceLock;

/// The dataset's name in metadat.
pub const NAME: &str = "dat.raudenbush1985";

/// The CSV file, exactly as frozen.
pub const CSV: &str = include_str!("../data/dat.raudenbush1985.csv");

/// The names of the columns of [`CSV`], in order: those of [`COLUMN_DESCRIPTIONS`].
pub const COLUMNS: [&str; 10] = names(COLUMN_DESCRIPTIONS);

/// The first of each pair.
const fn names<const N: usize>(columns: [(&'static str, &'static str); N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = columns[i].0;
        i += 1;
    }
    out
}

/// The columns that are neither a record's own (`id`, `yi`, `vi`) nor its label
/// (`author`): the moderators a meta-regression or a subgroup analysis can name.
pub fn moderator_columns() -> impl Iterator<Item = &'static str> {
    COLUMNS
        .into_iter()
        .filter(|c| !["id", "author", "yi", "vi"].contains(c))
}

/// Where the data comes from and what it measures.
pub const DESCRIPTION: &str = "metadat's dat.raudenbush1985 (Raudenbush 1984; Raudenbush & Bryk 1985): \
studies of teacher expectancy effects on pupil IQ. 18 experiments are represented by 19 effect-size \
records with ids s01 to s19 in study order; records s04 and s05 are two samples of Pellegrini & Hicks \
(1972), with the tester aware and blind of the expectancy induction. yi is the standardized mean \
difference between the expectancy and control groups and vi its sampling variance.";

/// The columns of [`CSV`], in order, and what each holds: the one list of them ([`Row`]'s
/// fields are checked against it).
pub const COLUMN_DESCRIPTIONS: [(&str, &str); 10] = [
    ("id", "record id, s01 to s19 in study order"),
    ("author", "study author(s)"),
    ("year", "publication year"),
    (
        "weeks",
        "weeks of teacher-pupil contact before the expectancy induction",
    ),
    (
        "setting",
        "how the tests were administered: group or indiv(idual)",
    ),
    (
        "tester",
        "whether the test administrator was aware or blind of the induction",
    ),
    ("n1i", "sample size of the expectancy group"),
    ("n2i", "sample size of the control group"),
    ("yi", "standardized mean difference"),
    ("vi", "sampling variance of yi"),
];

/// One row of the dataset with all its columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct Row {
    pub id: String,
    pub author: String,
    pub year: u32,
    pub weeks: u32,
    pub setting: String,
    pub tester: String,
    pub n1i: u32,
    pub n2i: u32,
    pub yi: f64,
    pub vi: f64,
}

/// The rows of the frozen dataset.
pub fn rows() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    ROWS.get_or_init(|| parse_csv(CSV).expect("the embedded CSV parses (see the tests)"))
}

/// The `(id, yi, vi)` records of the frozen dataset, in study order.
pub fn records() -> Vec<Record> {
    rows()
        .iter()
        .map(|r| Record::new(r.id.clone(), r.yi, r.vi))
        .collect()
}

/// Lower-case hex SHA-256 of the exact CSV bytes.
pub fn sha256() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| crate::sha256_hex(CSV.as_bytes()))
}

/// One column's name and meaning.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct Column {
    pub name: &'static str,
    pub description: &'static str,
}

/// The dataset as `get_dataset` returns it: name, hash, baseline version, provenance,
/// columns and all rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct DatasetView {
    pub name: &'static str,
    /// SHA-256 of the exact CSV bytes.
    pub sha256: &'static str,
    pub baseline_version: &'static str,
    pub description: &'static str,
    pub columns: Vec<Column>,
    /// Number of records.
    pub k: usize,
    pub records: &'static [Row],
}

/// The dataset view, built once.
pub fn view() -> &'static DatasetView {
    static VIEW: OnceLock<DatasetView> = OnceLock::new();
    VIEW.get_or_init(|| DatasetView {
        name: NAME,
        sha256: sha256(),
        baseline_version: crate::baselines::BASELINE_VERSION,
        description: DESCRIPTION,
        columns: COLUMN_DESCRIPTIONS
            .iter()
            .map(|&(name, description)| Column { name, description })
            .collect(),
        k: rows().len(),
        records: rows(),
    })
}

/// The dataset view as JSON.
pub fn to_json() -> Value {
    serde_json::to_value(view()).expect("the dataset serializes")
}

/// Parses CSV text with the header [`COLUMNS`] (RFC 4180 quoting; `\n` or `\r\n` line ends).
pub fn parse_csv(text: &str) -> Result<Vec<Row>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty());
    let (_, header) = lines.next().ok_or("the CSV is empty")?;
    let header = split_fields(header).map_err(|e| format!("line 1: {e}"))?;
    if header != COLUMNS {
        return Err(format!(
            "unexpected header {header:?}; expected {COLUMNS:?}"
        ));
    }
    lines
        .map(|(index, line)| parse_row(line).map_err(|e| format!("line {}: {e}", index + 1)))
        .collect()
}

fn parse_row(line: &str) -> Result<Row, String> {
    let fields = split_fields(line)?;
    if fields.len() != COLUMNS.len() {
        return Err(format!(
            "{} fields, expected {}",
            fields.len(),
            COLUMNS.len()
        ));
    }
    fn number<T: std::str::FromStr>(name: &str, text: &str) -> Result<T, String> {
        text.trim()
            .parse()
            .map_err(|_| format!("{name} = {text:?} is not a valid number"))
    }
    // A JSON number, through serde_json's parser (correctly rounded, as `float_roundtrip`
    // makes it): the one decimal-to-binary conversion the page's wasm links, rather than a
    // second with its own tables from `str::parse`. JSON has no infinity or NaN, and a
    // number out of f64's range is refused, so every value read is finite.
    let finite = |name: &str, text: &str| -> Result<f64, String> {
        serde_json::from_str::<f64>(text.trim())
            .map_err(|_| format!("{name} = {text:?} is not a finite decimal number"))
    };
    Ok(Row {
        id: fields[0].clone(),
        author: fields[1].clone(),
        year: number("year", &fields[2])?,
        weeks: number("weeks", &fields[3])?,
        setting: fields[4].clone(),
        tester: fields[5].clone(),
        n1i: number("n1i", &fields[6])?,
        n2i: number("n2i", &fields[7])?,
        yi: finite("yi", &fields[8])?,
        vi: finite("vi", &fields[9])?,
    })
}

/// Splits one CSV line into fields; a quoted field may contain commas and doubled quotes.
fn split_fields(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    fields.push(field);
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sha256sum data/dat.raudenbush1985.csv`: guards against accidental edits of the file.
    const CSV_SHA256: &str = "e8a410f6020985ff041963934ca732ee8f7d0be988725fad90575c97983a766b";

    #[test]
    fn all_nineteen_rows_parse_with_their_types() {
        let rows = rows();
        assert_eq!(rows.len(), 19);
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row.id, format!("s{:02}", i + 1));
            assert!((1966..=1974).contains(&row.year), "{row:?}");
            assert!(row.setting == "group" || row.setting == "indiv", "{row:?}");
            assert!(row.tester == "aware" || row.tester == "blind", "{row:?}");
            assert!(row.n1i > 0 && row.n2i > 0 && row.vi > 0.0 && row.yi.is_finite());
        }
        let first = &rows[0];
        assert_eq!(
            (
                first.author.as_str(),
                first.year,
                first.weeks,
                first.n1i,
                first.n2i
            ),
            ("Rosenthal et al.", 1974, 2, 77, 339)
        );
        assert_eq!((first.yi, first.vi), (0.03, 0.0156));
        assert_eq!((rows[18].yi, rows[18].vi), (-0.07, 0.0303));
    }

    #[test]
    fn s04_and_s05_are_the_two_pellegrini_hicks_samples() {
        let (s04, s05) = (&rows()[3], &rows()[4]);
        assert_eq!((s04.id.as_str(), s05.id.as_str()), ("s04", "s05"));
        assert_eq!(s04.author, "Pellegrini & Hicks");
        assert_eq!(s05.author, "Pellegrini & Hicks");
        assert_eq!((s04.year, s05.year), (1972, 1972));
        assert_eq!(
            (s04.tester.as_str(), s05.tester.as_str()),
            ("aware", "blind")
        );
    }

    #[test]
    fn hash_is_of_the_exact_file_bytes() {
        let on_disk = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/dat.raudenbush1985.csv"
        ))
        .unwrap();
        assert_eq!(on_disk, CSV.as_bytes());
        assert_eq!(sha256(), CSV_SHA256);
        assert_eq!(crate::sha256_hex(&on_disk), CSV_SHA256);
    }

    #[test]
    fn records_follow_the_rows() {
        let records = records();
        assert_eq!(records.len(), 19);
        assert_eq!(records[3].id, "s04");
        assert_eq!((records[3].yi, records[3].vi), (rows()[3].yi, rows()[3].vi));
    }

    #[test]
    fn json_form_carries_every_column_of_every_row() {
        let json = to_json();
        assert_eq!(json["name"], NAME);
        assert_eq!(json["sha256"], CSV_SHA256);
        let records = json["records"].as_array().unwrap();
        assert_eq!(records.len(), 19);
        for record in records {
            let keys: Vec<&str> = record
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, COLUMNS);
        }
        assert_eq!(records[4]["tester"], "blind");
    }

    /// The dataset CSV is the one CSV the project serves without writing it (its bytes are
    /// hashed): every cell of it, written as text by the one CSV writer, comes out as it is,
    /// so it holds no cell the writer would neutralise (issue 25, item 1).
    #[test]
    fn the_frozen_csv_has_no_cell_to_neutralize() {
        let table = crate::csv_table::parse(CSV).unwrap();
        let rows: Vec<serde_json::Map<String, Value>> = table
            .rows
            .iter()
            .map(|row| {
                table
                    .header
                    .iter()
                    .zip(&row.fields)
                    .map(|(name, field)| (name.clone(), Value::String(field.clone())))
                    .collect()
            })
            .collect();
        assert_eq!(crate::csv_table::write(&table.header, &rows), CSV);
    }

    #[test]
    fn parser_handles_quotes_and_reports_bad_rows() {
        let header = COLUMNS.join(",");
        let text =
            format!("{header}\r\nx1,\"Doe, \"\"J\"\"\",1999,3,group,blind,10,12,0.5,0.02\r\n");
        let rows = parse_csv(&text).unwrap();
        assert_eq!(rows[0].author, "Doe, \"J\"");
        assert_eq!(rows[0].vi, 0.02);
        let bad = format!("{header}\nx1,Doe,1999,3,group,blind,10,12,abc,0.02\n");
        assert_eq!(
            parse_csv(&bad).unwrap_err(),
            "line 2: yi = \"abc\" is not a finite decimal number"
        );
        let short = format!("{header}\nx1,Doe\n");
        assert_eq!(
            parse_csv(&short).unwrap_err(),
            "line 2: 2 fields, expected 10"
        );
        assert!(parse_csv("a,b\n")
            .unwrap_err()
            .starts_with("unexpected header"));
        assert_eq!(parse_csv("").unwrap_err(), "the CSV is empty");
        let inf = format!("{header}\nx1,Doe,1999,3,group,blind,10,12,inf,0.02\n");
        assert_eq!(
            parse_csv(&inf).unwrap_err(),
            "line 2: yi = \"inf\" is not a finite decimal number"
        );
        let huge = format!("{header}\nx1,Doe,1999,3,group,blind,10,12,1e999,0.02\n");
        assert_eq!(
            parse_csv(&huge).unwrap_err(),
            "line 2: yi = \"1e999\" is not a finite decimal number"
        );
    }
}
