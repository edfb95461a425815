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

// The page's first module (without `extended`) prints no summary (`tools::summary`).
#![cfg_attr(not(feature = "extended"), allow(dead_code))]

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

// ---------------------------------------------------------------------------------------
// metafor's layouts, from typed values

/// What an estimate is called on the model scale and, with a transform, on the natural
/// scale: `("SMD", None)`, `("RR", Some("RR"))` for a log risk ratio shown as a ratio,
/// `("PLO", Some("Proportion"))`. `measure` "GEN" (or none) is "Estimate".
pub fn scale_labels(measure: Option<&str>, transform: &str) -> (String, Option<String>) {
    let measure = measure.filter(|m| *m != "GEN");
    let model = measure.unwrap_or("Estimate").to_string();
    if transform == "none" {
        return (model, None);
    }
    let natural = match measure.and_then(meta_analysis::measure_scale) {
        Some(m) if m.transform.name() == transform => {
            if m.natural_title.to_lowercase().contains("ratio") {
                m.name.to_string()
            } else {
                m.natural_title.to_string()
            }
        }
        _ => format!("{transform}({model})"),
    };
    (model, Some(natural))
}

/// "95% CI" for a confidence level of 0.95.
pub fn level_percent(level: f64) -> String {
    format!("{}% CI", r_num(level * 100.0))
}

/// An estimate and its interval, `[estimate, lower, upper]`.
pub type Interval = [f64; 3];

/// The headline of an estimate: `label est [lower, upper] (95% CI; context)`, on the natural
/// scale when there is one (`natural`, with the transform's label from [`scale_labels`]).
pub fn estimate_headline(
    (measure, transform): (Option<&str>, &str),
    model: Interval,
    natural: Option<Interval>,
    level: f64,
    context: &str,
) -> String {
    let (model_label, natural_label) = scale_labels(measure, transform);
    let line = match (natural_label, natural) {
        (Some(label), Some([e, l, u])) => interval(&label, e, l, u),
        _ => interval(&model_label, model[0], model[1], model[2]),
    };
    format!("{line} ({}; {context})", level_percent(level))
}

/// "random-effects REML, k = 19", "equal-effects, k = 5", "k = 4" (no method), with
/// ", Knapp-Hartung" under test "knha".
pub fn model_context(method: Option<&str>, k: usize, test: Option<&str>) -> String {
    let mut s = match method {
        None | Some("") => format!("k = {k}"),
        Some(m) if equal_effects(m) => format!("equal-effects, k = {k}"),
        Some(m) => format!("random-effects {m}, k = {k}"),
    };
    if test == Some("knha") {
        s.push_str(", Knapp-Hartung");
    }
    s
}

/// "Excluded: a, b" (nothing when none was).
pub fn excluded_line(out: &mut Out, excluded: &[String]) {
    if !excluded.is_empty() {
        out.line(format!("Excluded: {}", excluded.join(", ")));
    }
}

/// How the data's columns were read (`dataset.notes`, each "Note: …."), then the records
/// left out for a missing value (metafor's na.omit), by id.
pub fn notes_and_omitted_lines<'a>(
    out: &mut Out,
    notes: &[String],
    omitted: impl IntoIterator<Item = &'a str>,
) {
    for note in notes {
        out.line(format!("Note: {note}."));
    }
    let ids: Vec<&str> = omitted.into_iter().collect();
    if !ids.is_empty() {
        out.line(format!(
            "Omitted (a missing value in a column the analysis reads): {}",
            ids.join(", ")
        ));
    }
}

/// metafor's warning "Redundant predictors dropped from the model.", naming them (each a
/// linear combination of the intercept and the columns before it).
pub fn dropped_line(out: &mut Out, dropped: &[String]) {
    if !dropped.is_empty() {
        out.line(format!(
            "Redundant predictors dropped from the model (aliased): {}",
            dropped.join(", ")
        ));
    }
}

/// "Random-Effects Model (k = 19; tau^2 estimator: REML)" and its kin.
pub fn model_line(out: &mut Out, method: &str, k: usize, int_only: bool) {
    let name = match (equal_effects(method), int_only) {
        (true, true) => match method {
            "FE" => "Fixed-Effects Model",
            "CE" => "Common-Effects Model",
            _ => "Equal-Effects Model",
        },
        (true, false) => "Fixed-Effects with Moderators Model",
        (false, true) => "Random-Effects Model",
        (false, false) => "Mixed-Effects Model",
    };
    if equal_effects(method) {
        out.line(format!("{name} (k = {k})"));
    } else {
        out.line(format!("{name} (k = {k}; tau^2 estimator: {method})"));
    }
}

/// tau^2 (with its SE where the estimator has one) and tau, labelled as metafor labels them
/// for a model without (`int_only`) or with moderators.
pub fn tau2_lines(out: &mut Out, tau2: Option<f64>, se_tau2: Option<f64>, int_only: bool) {
    let se = se_tau2
        .map(|se| format!(" (SE = {})", f4(Some(se))))
        .unwrap_or_default();
    // metafor prints tau with 0 decimals where it prints tau^2 so, NA for a negative tau^2.
    let tau = match tau2 {
        Some(t) if (0.0..=f64::EPSILON * 10.0).contains(&t) => fcf(Some(t.sqrt()), 0),
        Some(t) if t >= 0.0 => f4(Some(t.sqrt())),
        _ => "NA".into(),
    };
    if int_only {
        out.line(format!(
            "tau^2 (estimated amount of total heterogeneity): {}{se}",
            var(tau2)
        ));
        out.line(format!(
            "tau (square root of estimated tau^2 value):      {tau}"
        ));
    } else {
        out.line(format!(
            "tau^2 (estimated amount of residual heterogeneity):     {}{se}",
            var(tau2)
        ));
        out.line(format!(
            "tau (square root of estimated tau^2 value):             {tau}"
        ));
    }
}

/// print.rma.uni's "Test for Heterogeneity:" and its Q line.
pub fn heterogeneity_test(out: &mut Out, q: f64, q_df: usize, q_p: f64) {
    out.line("Test for Heterogeneity:");
    out.line(format!(
        "Q(df = {q_df}) = {}, p-val {}",
        f4(Some(q)),
        pval(Some(q_p), true, false)
    ));
}

/// I², H² and, for a model with moderators, R², labelled as metafor labels them.
pub fn i2_h2_lines(
    out: &mut Out,
    i2: Option<f64>,
    h2: Option<f64>,
    r2: Option<f64>,
    int_only: bool,
) {
    let (i2_label, h2_label) = if int_only {
        (
            "I^2 (total heterogeneity / total variability):   ",
            "H^2 (total variability / sampling variability):  ",
        )
    } else {
        (
            "I^2 (residual heterogeneity / unaccounted variability): ",
            "H^2 (unaccounted variability / sampling variability):   ",
        )
    };
    if let Some(v) = i2 {
        out.line(format!("{i2_label}{}%", fcf(Some(v), 2)));
    }
    if let Some(v) = h2 {
        out.line(format!("{h2_label}{}", fcf(Some(v), 2)));
    }
    // A model with moderators: the share of heterogeneity they account for.
    if let Some(r2) = r2 {
        out.line(format!(
            "R^2 (amount of heterogeneity accounted for):            {}%",
            fcf(Some(r2), 2)
        ));
    }
}

/// The estimate and intervals on the natural scale, as `predict(fit, transf = …)` gives
/// them, under metafor's heading for the back-transformed results of `rma.mh`
/// ("Model Results (RR scale):"); `label` from [`scale_labels`].
pub fn natural_block(out: &mut Out, label: &str, natural: Interval, pi: Option<(f64, f64)>) {
    let [estimate, lower, upper] = natural;
    let mut cols = vec![
        ("estimate", f4(Some(estimate))),
        ("ci.lb", f4(Some(lower))),
        ("ci.ub", f4(Some(upper))),
    ];
    if let Some((lo, hi)) = pi {
        cols.push(("pi.lb", f4(Some(lo))));
        cols.push(("pi.ub", f4(Some(hi))));
    }
    out.blank();
    out.line(format!("Model Results ({label} scale):"));
    out.blank();
    out.lines(vector_table(&cols));
}

/// metafor's default btt (`.set.btt`): every coefficient but the intercept, so all of them
/// (`1:p`) in a model without one (`~ 0 + g`). `names` are ours (`intercept` first if any).
pub fn default_btt(names: &[&str]) -> Vec<u64> {
    let first = u64::from(names.first() == Some(&"intercept"));
    (first + 1..=names.len() as u64).collect()
}

/// The omnibus test of moderators: QM on `qm_df`, or F on `qm_df` and `qm_df2`.
pub struct ModeratorTest {
    pub qm: Option<f64>,
    pub qm_df: usize,
    pub qm_df2: Option<f64>,
    pub qm_p: Option<f64>,
}

impl ModeratorTest {
    /// metafor's heading ("Test of Moderators (coefficients 2:3):") and test line.
    pub fn lines(&self, btt: &[u64]) -> (String, String) {
        let heading = format!(
            "Test of Moderators (coefficient{} {}):",
            if btt.len() == 1 { "" } else { "s" },
            format_btt(btt)
        );
        let line = match self.qm_df2 {
            Some(df2) => format!(
                "F(df1 = {}, df2 = {}) = {}, p-val {}",
                self.qm_df,
                df(df2),
                f4(self.qm),
                pval(self.qm_p, true, false)
            ),
            None => format!(
                "QM(df = {}) = {}, p-val {}",
                self.qm_df,
                f4(self.qm),
                pval(self.qm_p, true, false)
            ),
        };
        (heading, line)
    }
}

/// One row of a coefficient table.
pub struct CoefficientRow<'a> {
    /// Our name (`intercept` is printed as metafor's `intrcpt`).
    pub name: &'a str,
    pub estimate: f64,
    pub se: f64,
    pub statistic: f64,
    /// The row's own degrees of freedom (a t test with per-coefficient df).
    pub df: Option<f64>,
    pub p: Option<f64>,
    pub ci_lower: f64,
    pub ci_upper: f64,
}

/// The coefficient table: rows named as metafor names them, tval and df under a t test
/// (`df_all`, or each row's own df), zval otherwise.
pub fn coefficient_table(rows: &[CoefficientRow], df_all: Option<f64>) -> Vec<String> {
    let t_test = df_all.is_some() || rows.iter().any(|c| c.df.is_some());
    let mut header = vec!["estimate", "se"];
    header.extend(if t_test {
        vec!["tval", "df"]
    } else {
        vec!["zval"]
    });
    header.extend(["pval", "ci.lb", "ci.ub", ""]);
    let rows: Vec<(String, Vec<String>)> = rows
        .iter()
        .map(|c| {
            let mut row = vec![f4(Some(c.estimate)), f4(Some(c.se)), f4(Some(c.statistic))];
            if t_test {
                row.push(c.df.or(df_all).map_or("NA".into(), df));
            }
            row.extend([
                pval(c.p, false, false),
                f4(Some(c.ci_lower)),
                f4(Some(c.ci_upper)),
                stars(c.p),
            ]);
            (coefficient_name(c.name), row)
        })
        .collect();
    // R prints a numeric df column with the decimals its longest value needs.
    let rows = common_df_decimals(rows, &header);
    frame_table(&header, &rows, 2)
}

// ---------------------------------------------------------------------------------------
// An intercept-only fit (print.rma.uni), from typed values

/// The test of an estimate: z, or t on its degrees of freedom.
#[derive(Debug, Clone, Copy)]
pub enum EstimateTest {
    /// z (NA when there is none).
    Z(Option<f64>),
    T {
        t: f64,
        df: f64,
    },
}

/// An intercept-only fit as `print.rma.uni` prints it: the model, tau^2 (not for an
/// equal-effects method), I² and H², Cochran's Q, the estimate's row and, with a natural
/// scale, the estimate and intervals on it.
pub struct InterceptFit<'a> {
    pub method: &'a str,
    pub k: usize,
    pub tau2: f64,
    pub se_tau2: Option<f64>,
    pub i2: f64,
    pub h2: f64,
    pub q: f64,
    pub q_df: usize,
    pub q_p: f64,
    pub estimate: f64,
    pub se: f64,
    pub test: EstimateTest,
    pub p: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub natural: Option<NaturalEstimate>,
}

/// An estimate on the natural scale, as [`natural_block`] prints it.
pub struct NaturalEstimate {
    /// The scale's label ([`scale_labels`]).
    pub label: String,
    /// The estimate and its CI.
    pub interval: Interval,
    /// The prediction interval, if any.
    pub pi: Option<(f64, f64)>,
}

impl InterceptFit<'_> {
    pub fn print(&self, out: &mut Out) {
        out.blank();
        model_line(out, self.method, self.k, true);
        out.blank();
        if !equal_effects(self.method) {
            tau2_lines(out, Some(self.tau2), self.se_tau2, true);
        }
        i2_h2_lines(out, Some(self.i2), Some(self.h2), None, true);
        out.blank();
        heterogeneity_test(out, self.q, self.q_df, self.q_p);
        out.blank();
        out.line("Model Results:");
        out.blank();
        let p = Some(self.p);
        let mut cols = vec![
            ("estimate", f4(Some(self.estimate))),
            ("se", f4(Some(self.se))),
        ];
        match self.test {
            EstimateTest::T { t, df: d } => {
                cols.push(("tval", f4(Some(t))));
                cols.push(("df", df(d)));
            }
            EstimateTest::Z(z) => cols.push(("zval", f4(z))),
        }
        cols.push(("pval", pval(p, false, false)));
        cols.push(("ci.lb", f4(Some(self.ci_lower))));
        cols.push(("ci.ub", f4(Some(self.ci_upper))));
        cols.push(("", stars(p)));
        out.lines(vector_table(&cols));
        if let Some(n) = &self.natural {
            natural_block(out, &n.label, n.interval, n.pi);
        }
        signif_legend(out);
    }
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

    #[test]
    fn row_names_are_cut() {
        let rows = |names: &[&str]| -> Vec<(String, Vec<String>)> {
            names
                .iter()
                .map(|n| (n.to_string(), vec!["0.1000".into()]))
                .collect()
        };
        let long = "L".repeat(1000);
        let lines = frame_table(&["estimate"], &rows(&[&long, "s\u{202e}1"]), 2);
        let cut = format!("{}…", "L".repeat(LABEL_CHARS - 1));
        // "estimate" is wider than its values: two blanks, then the value padded to 8.
        assert_eq!(lines[1], format!("{cut}    0.1000"));
        assert_eq!(
            lines[2],
            format!("{:w$}    0.1000", "s\\u202e1", w = LABEL_CHARS)
        );
    }
}
