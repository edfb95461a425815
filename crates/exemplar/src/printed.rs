//! The printed summaries' formatting library: metafor 3.8-1's number formats, tables, p
//! values and layouts, naming no tool. Each tool prints its own result ([`Printed`], written
//! beside the tool, from its typed result); the registry reaches the printer of a tool
//! (`tools::summary`).
//!
//! A summary is laid out as metafor's print methods lay theirs out (`print.rma.uni`,
//! `print.rma.mv`, `print.rma.mh`, `print.rma.peto`, `print.regtest`, `print.ranktest`,
//! `print.fsn`, `print.list.rma`, `print.infl.rma.uni`, `print.confint.rma`), after a
//! headline: the estimate and its interval, on the natural scale when the result has one
//! (e.g. `RR 0.49 [0.34, 0.70]`). Rust's own decimal formatting writes every number, so the
//! text is the same natively and in wasm.
//!
//! Numbers are formatted by metafor's rules (`docs/METHODS.md`, "Printed summaries"): 4
//! decimals (`formatC(x, format = "f")`), I² and H² in the model header with 2, p values
//! below 0.0001 as `<.0001`, degrees of freedom rounded to 2 decimals, significance stars
//! at 0.001, 0.01, 0.05 and 0.1. Lines carry no trailing blanks (metafor's `cat` leaves one).
//!
//! Text from the data (ids, levels, column and coefficient names) is written by the rule of
//! [`crate::printable`]: every line's controls and direction controls as visible escapes, so
//! no id can forge a line, reach a terminal as an escape sequence or reorder the numbers
//! beside it; and a table's row names cut to [`LABEL_CHARS`] characters, so that padding
//! every row to the longest cannot multiply one long id by the number of rows.

use crate::printable::{label, printable, LABEL_CHARS};

/// A result that prints its summary: written beside the tool, from its typed fields, so a
/// renamed field breaks compilation, not a line of output. A result with nothing to print
/// (a data tool's rows) writes no line, and then has no summary.
pub trait Printed {
    fn print(&self, out: &mut Out);
}

/// Decimals of every estimate, standard error, statistic, interval bound and variance
/// component (metafor's `digits = 4`).
pub const DIGITS: usize = 4;

/// The legend metafor prints under a table with significance stars.
pub const SIGNIF_LEGEND: &str = "Signif. codes:  0 \u{2018}***\u{2019} 0.001 \u{2018}**\u{2019} 0.01 \u{2018}*\u{2019} 0.05 \u{2018}.\u{2019} 0.1 \u{2018} \u{2019} 1";

/// Lines being written; [`Out::finish`] escapes their controls ([`printable`]) and trims
/// trailing blanks and blank lines.
#[derive(Default)]
pub struct Out {
    lines: Vec<String>,
}

impl Out {
    pub fn line(&mut self, text: impl Into<String>) {
        self.lines.push(text.into());
    }
    pub fn blank(&mut self) {
        self.lines.push(String::new());
    }
    pub fn lines(&mut self, lines: Vec<String>) {
        self.lines.extend(lines);
    }
    pub fn finish(self) -> String {
        let mut text = String::new();
        let mut blank_run = false;
        for line in &self.lines {
            // A newline inside a line (from an id) is escaped, not a line of its own.
            let line = printable(line);
            let line = line.trim_end();
            if line.is_empty() {
                if !blank_run && !text.is_empty() {
                    text.push('\n');
                }
                blank_run = true;
                continue;
            }
            blank_run = false;
            text.push_str(line);
            text.push('\n');
        }
        while text.ends_with("\n\n") {
            text.pop();
        }
        text
    }
}

/// `formatC(x, format = "f", digits = d)`, "NA" for a missing value (metafor's `.fcf`).
pub fn fcf(x: Option<f64>, digits: usize) -> String {
    match x {
        None => "NA".into(),
        Some(x) if x.is_nan() => "NA".into(),
        Some(x) if x.is_infinite() => if x > 0.0 { "Inf" } else { "-Inf" }.into(),
        Some(x) => format!("{x:.digits$}"),
    }
}

pub fn f4(x: Option<f64>) -> String {
    fcf(x, DIGITS)
}

/// A variance component: 0 decimals when it is 0 to within 10 machine epsilons, as
/// metafor prints tau^2 = 0.
pub fn var(x: Option<f64>) -> String {
    match x {
        Some(x) if x.abs() <= f64::EPSILON * 10.0 => fcf(Some(x), 0),
        x => f4(x),
    }
}

/// metafor's `.pval`: `"<.0001"` below 0.0001; with `showeq` an "= " before a number and a
/// "< " before the bound; with `add0` `"<0.0001"`.
pub fn pval(p: Option<f64>, showeq: bool, add0: bool) -> String {
    let sep = if showeq { " " } else { "" };
    let eq = if showeq { "=" } else { "" };
    match p {
        None => format!("{eq}{sep}NA"),
        Some(p) if p.is_nan() => format!("{eq}{sep}NA"),
        Some(p) if p >= 0.0001 => format!("{eq}{sep}{}", f4(Some(p))),
        Some(_) => format!("<{sep}{}.0001", if add0 { "0" } else { "" }),
    }
}

/// A number as R prints it by default (at most 7 significant digits, no trailing zeros):
/// alpha levels and degrees of freedom.
pub fn r_num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let magnitude = meta_analysis::math::log10(x.abs()).floor() as i32;
    let decimals = (6 - magnitude).clamp(0, 15) as usize;
    let s = format!("{x:.decimals$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Degrees of freedom as metafor prints them: `round(df, 2)`.
pub fn df(x: f64) -> String {
    r_num((x * 100.0).round() / 100.0)
}

/// `symnum` of a p value at metafor's cutpoints.
pub fn stars(p: Option<f64>) -> String {
    match p {
        None => String::new(),
        Some(p) if p.is_nan() => String::new(),
        Some(p) if p <= 0.001 => "***".into(),
        Some(p) if p <= 0.01 => "**".into(),
        Some(p) if p <= 0.05 => "*".into(),
        Some(p) if p <= 0.1 => ".".into(),
        Some(_) => " ".into(),
    }
}

pub fn width(s: &str) -> usize {
    s.chars().count()
}

pub fn pad_left(s: &str, w: usize) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(width(s))))
}

pub fn pad_right(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

/// metafor's `.print.vector`: names over values, each column as wide as the wider of the
/// two, right aligned, two blanks apart.
pub fn vector_table(cols: &[(&str, String)]) -> Vec<String> {
    let widths: Vec<usize> = cols.iter().map(|(n, v)| width(n).max(width(v))).collect();
    let join = |f: &dyn Fn(usize) -> String| -> String {
        (0..cols.len()).map(f).collect::<Vec<_>>().join("  ")
    };
    vec![
        join(&|i| pad_left(cols[i].0, widths[i])),
        join(&|i| pad_left(&cols[i].1, widths[i])),
    ]
}

/// R's `print` of a data frame or character matrix with `right = TRUE`: row names left
/// aligned, columns right aligned, `gap` blanks apart. Row names (ids, levels, coefficient
/// names) are escaped and cut to [`LABEL_CHARS`] ([`label`]) before the rows are padded to
/// the longest.
pub fn frame_table(header: &[&str], rows: &[(String, Vec<String>)], gap: usize) -> Vec<String> {
    let names: Vec<String> = rows.iter().map(|(n, _)| label(n, LABEL_CHARS)).collect();
    frame_lines(header, &names, rows, gap)
}

/// [`frame_table`] with row names laid out as they are: names built of parts each already
/// cut ([`label`]), such as a prediction's `weeks=4, tester=blind`.
pub fn frame_table_uncut(
    header: &[&str],
    rows: &[(String, Vec<String>)],
    gap: usize,
) -> Vec<String> {
    let names: Vec<String> = rows
        .iter()
        .map(|(n, _)| printable(n).into_owned())
        .collect();
    frame_lines(header, &names, rows, gap)
}

pub fn frame_lines(
    header: &[&str],
    names: &[String],
    rows: &[(String, Vec<String>)],
    gap: usize,
) -> Vec<String> {
    let name_w = names.iter().map(|n| width(n)).max().unwrap_or(0);
    let widths: Vec<usize> = header
        .iter()
        .enumerate()
        .map(|(j, h)| {
            rows.iter()
                .map(|(_, r)| width(&r[j]))
                .max()
                .unwrap_or(0)
                .max(width(h))
        })
        .collect();
    let sep = " ".repeat(gap);
    let mut lines = Vec::with_capacity(rows.len() + 1);
    let mut head = " ".repeat(name_w);
    for (h, w) in header.iter().zip(&widths) {
        head.push_str(&sep);
        head.push_str(&pad_left(h, *w));
    }
    lines.push(head);
    for (name, (_, row)) in names.iter().zip(rows) {
        let mut line = pad_right(name, name_w);
        for (v, w) in row.iter().zip(&widths) {
            line.push_str(&sep);
            line.push_str(&pad_left(v, *w));
        }
        lines.push(line);
    }
    lines
}

/// Whether the method is an equal-effects one (no tau^2).
pub fn equal_effects(method: &str) -> bool {
    matches!(method, "EE" | "FE" | "CE")
}

/// metafor's coefficient name for ours (`intercept` is `intrcpt`).
pub fn coefficient_name(name: &str) -> String {
    if name == "intercept" {
        "intrcpt".into()
    } else {
        name.into()
    }
}

// ---------------------------------------------------------------------------------------
// Headlines

/// `label est [lower, upper]`, at 2 decimals, or more where 2 would print two of the three
/// alike (e.g. a risk difference of -0.004 [-0.006, -0.002]).
pub fn interval(label: &str, est: f64, lower: f64, upper: f64) -> String {
    let mut digits = 2;
    while digits < 4 {
        let (e, l, u) = (
            fcf(Some(est), digits),
            fcf(Some(lower), digits),
            fcf(Some(upper), digits),
        );
        if e != l && e != u {
            break;
        }
        digits += 1;
    }
    format!(
        "{label} {} [{}, {}]",
        fcf(Some(est), digits),
        fcf(Some(lower), digits),
        fcf(Some(upper), digits)
    )
}

pub fn signif_legend(out: &mut Out) {
    out.blank();
    out.line("---");
    out.line(SIGNIF_LEGEND);
}

// ---------------------------------------------------------------------------------------
// Random-effects and equal-effects fits (print.rma.uni)

/// metafor's `.format.btt`: runs of consecutive positions as `a:b`, others comma-separated.
pub fn format_btt(btt: &[u64]) -> String {
    let mut btt = btt.to_vec();
    btt.sort_unstable();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < btt.len() {
        let mut j = i;
        while j + 1 < btt.len() && btt[j + 1] == btt[j] + 1 {
            j += 1;
        }
        if j > i {
            parts.push(format!("{}:{}", btt[i], btt[j]));
        } else {
            parts.push(btt[i].to_string());
        }
        i = j + 1;
    }
    parts.join(",")
}

/// A data frame's numeric column printed with as many decimals as its most precise value.
pub fn common_df_decimals(
    mut rows: Vec<(String, Vec<String>)>,
    header: &[&str],
) -> Vec<(String, Vec<String>)> {
    let Some(j) = header.iter().position(|h| *h == "df") else {
        return rows;
    };
    let decimals = rows
        .iter()
        .filter_map(|(_, r)| r[j].split_once('.').map(|(_, d)| d.len()))
        .max()
        .unwrap_or(0);
    if decimals > 0 {
        for (_, r) in &mut rows {
            if let Ok(x) = r[j].parse::<f64>() {
                r[j] = format!("{x:.decimals$}");
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn numbers_format_as_metafor_prints_them() {
        assert_eq!(f4(Some(0.083701)), "0.0837");
        assert_eq!(f4(Some(-0.0175126)), "-0.0175");
        assert_eq!(f4(None), "NA");
        assert_eq!(var(Some(0.0)), "0");
        assert_eq!(pval(Some(0.00742), true, false), "= 0.0074");
        assert_eq!(pval(Some(0.00001), true, false), "< .0001");
        assert_eq!(pval(Some(0.00001), false, false), "<.0001");
        assert_eq!(pval(Some(0.00001), true, true), "< 0.0001");
        assert_eq!(df(18.0), "18");
        assert_eq!(df(3.4748241588757747), "3.47");
        assert_eq!(r_num(0.05), "0.05");
        assert_eq!(format_btt(&[2, 3]), "2:3");
        assert_eq!(format_btt(&[2, 4, 5, 6]), "2,4:6");
        assert_eq!(stars(Some(0.0293)), "*");
        assert_eq!(stars(Some(0.1051)), " ");
    }

    #[test]
    fn a_vector_table_aligns_as_print_vector() {
        let lines = vector_table(&[
            ("estimate", "0.0837".into()),
            ("se", "0.0516".into()),
            ("", " ".into()),
        ]);
        assert_eq!(lines[0], "estimate      se   ");
        assert_eq!(lines[1], "  0.0837  0.0516   ");
    }

    #[test]
    fn headlines_keep_enough_decimals() {
        assert_eq!(
            interval("SMD", 0.0837, -0.0175, 0.1849),
            "SMD 0.08 [-0.02, 0.18]"
        );
        assert_eq!(
            interval("RD", -0.004, -0.0061, -0.0021),
            "RD -0.004 [-0.006, -0.002]"
        );
    }
}
