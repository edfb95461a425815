//! How the page shows a tool's result to a person: tables of values rounded as metafor
//! prints them, built here so that the page only moves them into the DOM.
//!
//! Numbers get 4 decimals (metafor's `digits = 4`); a p value below 0.0001 reads `<.0001`,
//! as metafor's printout; counts and degrees of freedom stay whole. The result's single
//! values form the first table (a nested object's as `fit.estimate`, …); each list of
//! objects (`results`, `groups`, `coefficients`, `records`, …) is a table of its own, of at
//! most [`MAX_ROWS`] rows. A plot's SVG is not a value: [`ResultView::figure`] names the
//! field that holds it, for the page to draw; a plot's `numbers` (pixel positions) are left
//! to the JSON, which keeps every digit.

use serde::Serialize;
use serde_json::{Map, Value};

/// The most rows a table of the view shows (the JSON has them all): 100, so that laying
/// out the widest per-record table (leave_one_out, 15 columns) stays within the page's
/// 50 ms main-thread budget (200 rows took 49-56 ms on 2026-12-04).
pub const MAX_ROWS: usize = 100;

/// Decimals of a number, as metafor prints them by default.
pub const DIGITS: usize = 4;

/// A result as tables.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ResultView {
    /// The printed summary: the result laid out as metafor's print methods lay it out,
    /// after a headline (`summary::summary`); none for a data tool but `load_data` (the rows
    /// it kept and left out).
    pub summary: Option<String>,
    pub tables: Vec<Table>,
    /// The field of the result that holds an SVG drawn by the engine (a plot tool's `svg`).
    pub figure: Option<String>,
    /// What the rounding is, said once under the tables.
    pub note: &'static str,
}

/// One table: a caption, column headings and rows of cells, all text.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct Table {
    pub caption: String,
    pub columns: Vec<String>,
    /// Indexes of the columns holding numbers (right-aligned).
    pub numeric: Vec<usize>,
    pub rows: Vec<Vec<String>>,
    /// Rows in the result (more than `rows` holds when it was cut at [`MAX_ROWS`]).
    pub total_rows: usize,
}

const NOTE: &str = "Rounded to 4 decimals, p values as metafor prints them (<.0001); the JSON \
holds every digit.";

/// The view of a tool's result.
pub fn view(result: &Value) -> ResultView {
    let mut builder = Builder {
        values: Vec::new(),
        tables: Vec::new(),
        figure: None,
    };
    let natural = match result.get("natural") {
        Some(Value::Object(n)) => Some(n),
        _ => None,
    };
    if let Value::Object(map) = result {
        builder.object("", map);
    } else {
        builder
            .values
            .push(("result".into(), cell("result", result)));
    }
    let mut tables = Vec::new();
    if !builder.values.is_empty() {
        let values = combine_tests(builder.values);
        let total_rows = values.len();
        let (columns, numeric, rows) = match natural {
            // The natural scale beside the model's: a column of its own.
            Some(natural) => {
                let transform = result
                    .get("transform")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let rows = values
                    .into_iter()
                    .map(|(key, name, value)| {
                        let beside = natural.get(&key).map_or(String::new(), |v| cell(&key, v));
                        vec![name, value, beside]
                    })
                    .collect();
                (
                    vec![
                        String::new(),
                        "value".into(),
                        format!("natural scale ({transform})"),
                    ],
                    vec![1, 2],
                    rows,
                )
            }
            None => (
                vec![String::new(), "value".into()],
                vec![1],
                values
                    .into_iter()
                    .map(|(_, name, value)| vec![name, value])
                    .collect(),
            ),
        };
        tables.push(Table {
            caption: "Result".into(),
            columns,
            numeric,
            rows,
            total_rows,
        });
    }
    tables.extend(builder.tables);
    ResultView {
        summary: None,
        tables,
        figure: builder.figure,
        note: NOTE,
    }
}

/// The most lines of the printed summary the view shows (the JSON, `exemplar call --text`
/// and an MCP answer's text have them all): a summary has a line per record for the
/// per-record tools, and laying out `influence_diagnostics`' 10,003 lines (0.8 MB) held the
/// page's thread for 215 ms (issue 41 item 13); [`MAX_ROWS`] rows and their headings fit.
pub const MAX_SUMMARY_LINES: usize = MAX_ROWS + 20;

/// The view of `tool`'s result, with its printed summary (its first [`MAX_SUMMARY_LINES`]
/// lines, and a line saying how many there are, when it is longer).
pub fn view_of(tool: &str, result: &Value) -> ResultView {
    ResultView {
        summary: crate::tools::summary(tool, result).map(cut_summary),
        ..view(result)
    }
}

/// `summary`'s first [`MAX_SUMMARY_LINES`] lines and a line saying how many it has, when it
/// has more.
fn cut_summary(summary: String) -> String {
    let Some((end, _)) = summary.match_indices('\n').nth(MAX_SUMMARY_LINES - 1) else {
        return summary;
    };
    if summary[end + 1..].trim_end().is_empty() {
        return summary;
    }
    let lines = summary.trim_end().lines().count();
    format!(
        "{}\n… the first {MAX_SUMMARY_LINES} of {lines} lines; the JSON has the whole result",
        &summary[..end]
    )
}

/// A test's statistic, df and p (`q`, `q_df`, `q_p`; `qm` with `qm_df2`) as one row, as
/// metafor prints it: `Q(df = 18)` = `35.8295, p = 0.0074`; every other value keeps its row,
/// labelled as metafor labels it ([`label`]). Each row is (field, label, value).
fn combine_tests(values: Vec<(String, String)>) -> Vec<(String, String, String)> {
    let get = |name: &str| {
        values
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let is_test =
        |name: &str| get(&format!("{name}_df")).is_some() && get(&format!("{name}_p")).is_some();
    let mut out = Vec::new();
    for (key, value) in &values {
        let part_of = ["_df2", "_df", "_p"]
            .iter()
            .find_map(|suffix| key.strip_suffix(suffix));
        if part_of.is_some_and(|base| is_test(base) && get(base).is_some()) {
            continue;
        }
        if is_test(key) {
            let df = get(&format!("{key}_df")).unwrap_or_default();
            let p = get(&format!("{key}_p")).unwrap_or_default();
            let label = match get(&format!("{key}_df2")).filter(|d| d != "—") {
                Some(df2) => format!("F(df1 = {df}, df2 = {df2})"),
                None => format!("{}(df = {df})", label(key)),
            };
            out.push((key.clone(), label, format!("{value}, p = {p}")));
        } else {
            out.push((key.clone(), label(key), value.clone()));
        }
    }
    out
}

/// The label metafor prints for a field (`tau2` τ², `ci_lower` ci.lb, `q` Q, …); another
/// field keeps its name (escaped as [`crate::printable`] escapes), a nested one its path
/// (`dataset.name`), a natural-scale one says so.
pub fn label(key: &str) -> String {
    let known = match key {
        "tau2" => "τ²",
        "tau" => "τ",
        "se_tau2" => "SE of τ²",
        "i2" => "I² (%)",
        "h2" => "H²",
        "r2" => "R² (%)",
        "sigma2" => "σ²",
        "z" => "zval",
        "t" => "tval",
        "p" => "pval",
        "ci_lower" => "ci.lb",
        "ci_upper" => "ci.ub",
        "pi_lower" => "pi.lb",
        "pi_upper" => "pi.ub",
        "q" => "Q",
        "qm" => "QM",
        "qe" => "QE",
        "method" => "τ² estimator",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_string();
    }
    match key.strip_prefix("natural.") {
        Some(inner) => format!("{} (natural)", label(inner)),
        // A key can be a caller's name (a moderator's, in a prediction's `at`).
        None => crate::printable::printable(key).into_owned(),
    }
}

struct Builder {
    values: Vec<(String, String)>,
    tables: Vec<Table>,
    figure: Option<String>,
}

impl Builder {
    fn object(&mut self, prefix: &str, map: &Map<String, Value>) {
        for (key, value) in map {
            let name = format!("{prefix}{key}");
            match value {
                Value::String(svg)
                    if prefix.is_empty() && key == "svg" && svg.starts_with("<svg") =>
                {
                    self.figure = Some(key.clone());
                }
                // A plot's pixel positions: for checking a drawing, not for reading.
                Value::Object(_) if prefix.is_empty() && key == "numbers" => {}
                // The natural scale is a column beside the model's ([`view`]).
                Value::Object(_) | Value::Null if prefix.is_empty() && key == "natural" => {}
                Value::Object(inner) => self.object(&format!("{name}."), inner),
                Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
                    self.tables.push(table(&name, items));
                }
                Value::Array(items) => {
                    let text = if items.is_empty() {
                        "none".to_string()
                    } else {
                        items
                            .iter()
                            .map(|v| cell(key, v))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    self.values.push((name, text));
                }
                other => self.values.push((name, cell(key, other))),
            }
        }
    }
}

/// A list of objects as a table: a column per key, in order of first appearance, labelled
/// as metafor labels it. A row's nested object (a prediction's `at`, its `natural`) spreads
/// into columns of its own (`at.weeks`, `estimate (natural)`), not a JSON text in one cell.
fn table(caption: &str, items: &[Value]) -> Table {
    let flat: Vec<Map<String, Value>> = items
        .iter()
        .take(MAX_ROWS)
        .map(|item| {
            let mut row = Map::new();
            for (key, value) in item.as_object().into_iter().flatten() {
                match value {
                    Value::Object(inner) => {
                        for (k, v) in inner {
                            row.insert(format!("{key}.{k}"), v.clone());
                        }
                    }
                    other => {
                        row.insert(key.clone(), other.clone());
                    }
                }
            }
            row
        })
        .collect();
    let mut keys: Vec<String> = Vec::new();
    for row in &flat {
        for key in row.keys() {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
    }
    let leaf = |key: &str| key.rsplit('.').next().unwrap_or(key).to_string();
    let rows: Vec<Vec<String>> = flat
        .iter()
        .map(|row| {
            keys.iter()
                .map(|c| row.get(c).map_or(String::new(), |v| cell(&leaf(c), v)))
                .collect()
        })
        .collect();
    let numeric = keys
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            flat.iter()
                .any(|row| row.get(c.as_str()).is_some_and(Value::is_number))
        })
        .map(|(i, _)| i)
        .collect();
    Table {
        caption: crate::printable::printable(caption).into_owned(),
        columns: keys.iter().map(|k| label(k)).collect(),
        numeric,
        rows,
        total_rows: items.len(),
    }
}

/// Whether field `key` holds a p value.
fn is_p_value(key: &str) -> bool {
    key == "p" || key.ends_with("_p") || key == "pval"
}

/// Whether field `key` holds a count or degrees of freedom (whole, though a float).
fn is_whole(key: &str) -> bool {
    key == "k" || key == "df" || key.ends_with("_df") || key.ends_with("_df2") || key == "k0"
}

/// One value as a person reads it.
fn cell(key: &str, value: &Value) -> String {
    let text = match value {
        Value::Null => "—".to_string(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
        Value::String(s) => s.clone(),
        Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
        Value::Number(n) => number(key, n.as_f64().unwrap_or(f64::NAN)),
        Value::Array(_) | Value::Object(_) => value.to_string(),
    };
    crate::printable::printable(&text).into_owned()
}

fn number(key: &str, x: f64) -> String {
    if is_p_value(key) && x < 1e-4 {
        return "<.0001".to_string();
    }
    if is_whole(key) && x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let text = format!("{x:.DIGITS$}");
    // -0.00001 reads 0.0000, not -0.0000.
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools;
    use serde_json::json;

    /// Issue 41 item 13: a per-record summary (a line per record) is shown cut, so that its
    /// layout does not hold the page's thread; a short one is shown whole.
    #[cfg(feature = "extended")]
    #[test]
    fn a_long_summary_is_shown_cut_with_its_length() {
        let records: Vec<Value> = (0..1000)
            .map(|i| json!({"id": format!("r{i}"), "yi": (i % 7) as f64 / 10.0, "vi": 0.02}))
            .collect();
        let args = json!({"records": records});
        let result = tools::call("influence_diagnostics", &args).unwrap();
        let whole = crate::tools::summary("influence_diagnostics", &result).unwrap();
        let lines = whole.trim_end().lines().count();
        assert!(lines > 1000, "{lines}");
        let shown = view_of("influence_diagnostics", &result).summary.unwrap();
        let shown_lines: Vec<&str> = shown.lines().collect();
        assert_eq!(shown_lines.len(), MAX_SUMMARY_LINES + 1);
        assert_eq!(
            shown_lines[MAX_SUMMARY_LINES],
            format!(
                "… the first {MAX_SUMMARY_LINES} of {lines} lines; the JSON has the whole result"
            )
        );
        assert!(whole.starts_with(&shown_lines[..MAX_SUMMARY_LINES].join("\n")));
        let fit = tools::call("fit_random_effects", &json!({})).unwrap();
        assert_eq!(
            view_of("fit_random_effects", &fit).summary,
            crate::tools::summary("fit_random_effects", &fit)
        );
    }

    fn row<'a>(view: &'a ResultView, name: &str) -> &'a str {
        let table = &view.tables[0];
        &table
            .rows
            .iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("{name}"))[1]
    }

    #[test]
    fn a_fit_reads_as_metafor_prints_it() {
        let fit = tools::call(tools::FIT_RANDOM_EFFECTS.name, &json!({"test": "knha"})).unwrap();
        let view = view(&fit);
        let estimate = fit["estimate"].as_f64().unwrap();
        assert_eq!(row(&view, "estimate"), format!("{estimate:.4}"));
        assert_eq!(row(&view, "estimate").split('.').nth(1).unwrap().len(), 4);
        assert_eq!(row(&view, "k"), "19");
        assert_eq!(row(&view, "df"), "18");
        assert_eq!(row(&view, "τ² estimator"), "REML");
        // Labels as metafor prints them; a test's statistic, df and p in one row.
        let tau2 = fit["tau2"].as_f64().unwrap();
        assert_eq!(row(&view, "τ²"), format!("{tau2:.4}"));
        let q = fit["q"].as_f64().unwrap();
        let q_p = fit["q_p"].as_f64().unwrap();
        assert_eq!(row(&view, "Q(df = 18)"), format!("{q:.4}, p = {q_p:.4}"));
        assert!(view.tables[0]
            .rows
            .iter()
            .all(|r| r[0] != "q_df" && r[0] != "q_p"));
        assert_eq!(row(&view, "dataset.name"), crate::dataset::NAME);
        assert_eq!(view.figure, None);
        assert_eq!(view.tables.len(), 1);
    }

    #[test]
    fn p_values_counts_and_signs() {
        assert_eq!(number("p", 3e-7), "<.0001");
        assert_eq!(number("q_p", 0.04789), "0.0479");
        assert_eq!(number("egger_p", 0.00012), "0.0001");
        assert_eq!(number("estimate", 3e-7), "0.0000");
        assert_eq!(number("estimate", -3e-7), "0.0000");
        assert_eq!(number("estimate", -0.71449), "-0.7145");
        assert_eq!(number("q_df", 18.0), "18");
        assert_eq!(number("df", 17.5), "17.5000");
        assert_eq!(cell("excluded", &json!(null)), "—");
        assert_eq!(cell("exact", &json!(true)), "yes");
        // Text a caller supplied cannot reorder what surrounds it.
        assert_eq!(cell("id", &json!("a\u{202E}b")), "a\\u202eb");
    }

    #[test]
    fn lists_of_objects_become_tables_and_a_plot_names_its_svg() {
        let view = view(&json!({"k": 2, "excluded": ["a", "b"], "results": [
            {"omitted": "a", "estimate": 0.123456, "p": 0.5},
            {"omitted": "b", "estimate": -1.0, "p": 1e-9, "extra": "x"}
        ], "svg": "<svg xmlns=\"http://www.w3.org/2000/svg\"/>", "numbers": {"x": 1}}));
        assert_eq!(view.figure.as_deref(), Some("svg"));
        assert_eq!(view.tables[0].rows, [["k", "2"], ["excluded", "a, b"]]);
        let results = &view.tables[1];
        assert_eq!(results.caption, "results");
        assert_eq!(results.columns, ["omitted", "estimate", "pval", "extra"]);
        assert_eq!(results.numeric, [1, 2]);
        assert_eq!(results.rows[0], ["a", "0.1235", "0.5000", ""]);
        assert_eq!(results.rows[1], ["b", "-1.0000", "<.0001", "x"]);
    }

    #[cfg(feature = "extended")]
    #[test]
    fn the_natural_scale_stands_beside_the_model_scale() {
        let records = json!([
            {"id": "a", "yi": -0.9, "vi": 0.33, "dose": 1},
            {"id": "b", "yi": -1.6, "vi": 0.19, "dose": 2},
            {"id": "c", "yi": -1.3, "vi": 0.42, "dose": 3},
            {"id": "d", "yi": -0.2, "vi": 0.07, "dose": 4}
        ]);
        let fit = tools::call(
            tools::FIT_RANDOM_EFFECTS.name,
            &json!({"records": records, "measure": "RR"}),
        )
        .unwrap();
        let view = view(&fit);
        let table = &view.tables[0];
        assert_eq!(table.columns, ["", "value", "natural scale (exp)"]);
        let estimate = table.rows.iter().find(|r| r[0] == "estimate").unwrap();
        let natural = fit["natural"]["estimate"].as_f64().unwrap();
        assert_eq!(estimate[2], format!("{natural:.4}"));
        assert!(table.rows.iter().all(|r| !r[0].starts_with("natural")));
        // A meta-regression's predictions: `at` and `natural` spread into columns.
        let regression = tools::call(
            tools::META_REGRESSION.name,
            &json!({"records": records, "measure": "RR", "mods": ["dose"], "at": [{"dose": 2}]}),
        )
        .unwrap();
        let view = super::view(&regression);
        let predictions = view
            .tables
            .iter()
            .find(|t| t.caption == "predictions")
            .unwrap();
        assert_eq!(predictions.columns[0], "at.dose");
        assert!(predictions
            .columns
            .contains(&"estimate (natural)".to_string()));
        assert!(predictions.rows[0].iter().all(|c| !c.starts_with('{')));
        let fit = view.tables[0]
            .rows
            .iter()
            .find(|r| r[0].starts_with("QM("))
            .unwrap();
        assert_eq!(fit[0], "QM(df = 1)");
    }

    #[test]
    fn long_lists_are_cut_with_their_length() {
        let items: Vec<Value> = (0..MAX_ROWS + 5).map(|i| json!({"id": i})).collect();
        let view = view(&json!({ "records": items }));
        assert_eq!(view.tables[0].rows.len(), MAX_ROWS);
        assert_eq!(view.tables[0].total_rows, MAX_ROWS + 5);
    }
}
