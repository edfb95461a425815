//! The printers not yet written beside their tools: each reads its result's JSON (the
//! typed result serialized) and lays it out with the formatting library ([`crate::printed`]).
//! A tool's [`crate::printed::Printed`] impl calls its printer here until the printer moves
//! beside the tool, typed.

#![allow(dead_code)]

use crate::printable::{label, LABEL_CHARS};
use crate::printed::*;
use serde_json::Value;

pub(crate) fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key)?.as_f64()
}

pub(crate) fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)?.as_str()
}

pub(crate) fn count(v: &Value, key: &str) -> Option<u64> {
    v.get(key)?.as_u64()
}

pub(crate) fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

pub(crate) fn scale_labels(result: &Value) -> (String, Option<String>) {
    crate::printed::scale_labels(
        text(result, "measure"),
        text(result, "transform").unwrap_or("none"),
    )
}

pub(crate) fn level_percent(result: &Value) -> String {
    crate::printed::level_percent(num(result, "level").unwrap_or(0.95))
}

/// The headline of an estimate with `estimate`, `ci_lower`, `ci_upper` (and `natural`).
pub(crate) fn estimate_headline(result: &Value, context: &str) -> Option<String> {
    let triple = |v: &Value| -> Option<Interval> {
        Some([
            num(v, "estimate")?,
            num(v, "ci_lower")?,
            num(v, "ci_upper")?,
        ])
    };
    let natural = result
        .get("natural")
        .filter(|n| n.is_object())
        .and_then(triple);
    Some(crate::printed::estimate_headline(
        (
            text(result, "measure"),
            text(result, "transform").unwrap_or("none"),
        ),
        triple(result)?,
        natural,
        num(result, "level").unwrap_or(0.95),
        context,
    ))
}

pub(crate) fn model_context(result: &Value) -> String {
    crate::printed::model_context(
        text(result, "method"),
        count(result, "k").unwrap_or(0) as usize,
        text(result, "test"),
    )
}

pub(crate) fn excluded_line(out: &mut Out, result: &Value) {
    let excluded: Vec<String> = list(result, "excluded")
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    crate::printed::excluded_line(out, &excluded);
}

pub(crate) fn omitted_line(out: &mut Out, result: &Value) {
    let notes: Vec<String> = result["dataset"]["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    let omitted: Vec<String> = list(result, "omitted")
        .iter()
        .map(|o| match o {
            Value::String(s) => s.clone(),
            other => text(other, "id")
                .map(str::to_string)
                .unwrap_or_else(|| other.to_string()),
        })
        .collect();
    notes_and_omitted_lines(out, &notes, omitted.iter().map(String::as_str));
}

/// The rows `load_data` printed in its summary line before "and n more".
const LISTED_OMITTED: usize = 3;

/// `load_data`: how many rows were kept and which were left out (the first few with their
/// reasons), so that dropped rows are said without reading `omitted`; then the notes.
pub(crate) fn load_data(out: &mut Out, result: &Value) -> Option<()> {
    let k = count(result, "k")?;
    let omitted = list(result, "omitted");
    let left_out = omitted.len() as u64;
    if omitted.is_empty() {
        let unit = if result.get("measure").is_some_and(|m| !m.is_null()) {
            "rows"
        } else {
            "records"
        };
        out.line(format!("kept {k} of {k} {unit}; none left out"));
    } else {
        let listed: Vec<String> = omitted
            .iter()
            .take(LISTED_OMITTED)
            .map(|o| {
                format!(
                    "{} ({})",
                    text(o, "id").unwrap_or(""),
                    text(o, "reason").unwrap_or("")
                )
            })
            .collect();
        let more = omitted.len().saturating_sub(LISTED_OMITTED);
        out.line(format!(
            "kept {k} of {} rows; {} left out: {}{}",
            k + left_out,
            left_out,
            listed.join(", "),
            if more > 0 {
                format!(" and {more} more (listed in omitted)")
            } else {
                String::new()
            }
        ));
    }
    for note in list(result, "notes").iter().filter_map(Value::as_str) {
        out.line(format!("Note: {note}"));
    }
    Some(())
}

pub(crate) fn dropped_line(out: &mut Out, result: &Value) {
    let dropped: Vec<String> = list(result, "dropped")
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    crate::printed::dropped_line(out, &dropped);
}

pub(crate) fn uni_headline(out: &mut Out, fit: &Value) -> Option<()> {
    out.line(estimate_headline(fit, &model_context(fit))?);
    excluded_line(out, fit);
    Some(())
}

pub(crate) fn uni_fit(out: &mut Out, fit: &Value) -> Option<()> {
    uni_headline(out, fit)?;
    uni_body(out, fit)
}

/// `print.rma.uni` of an intercept-only fit.
pub(crate) fn uni_body(out: &mut Out, fit: &Value) -> Option<()> {
    out.blank();
    let method = text(fit, "method")?;
    let k = count(fit, "k")?;
    model_line(out, method, k, true);
    out.blank();
    if !equal_effects(method) {
        tau2_lines(out, fit, true);
    }
    i2_h2_lines(out, fit, true);
    out.blank();
    out.line("Test for Heterogeneity:");
    out.line(format!(
        "Q(df = {}) = {}, p-val {}",
        count(fit, "q_df")?,
        f4(num(fit, "q")),
        pval(num(fit, "q_p"), true, false)
    ));
    out.blank();
    out.line("Model Results:");
    out.blank();
    let p = num(fit, "p");
    let mut cols = vec![
        ("estimate", f4(num(fit, "estimate"))),
        ("se", f4(num(fit, "se"))),
    ];
    if let Some(t) = num(fit, "t") {
        cols.push(("tval", f4(Some(t))));
        cols.push(("df", df(num(fit, "df")?)));
    } else {
        cols.push(("zval", f4(num(fit, "z"))));
    }
    cols.push(("pval", pval(p, false, false)));
    cols.push(("ci.lb", f4(num(fit, "ci_lower"))));
    cols.push(("ci.ub", f4(num(fit, "ci_upper"))));
    cols.push(("", stars(p)));
    out.lines(vector_table(&cols));
    natural_block(out, fit);
    signif_legend(out);
    Some(())
}

pub(crate) fn model_line(out: &mut Out, method: &str, k: u64, int_only: bool) {
    crate::printed::model_line(out, method, k as usize, int_only);
}

pub(crate) fn tau2_lines(out: &mut Out, fit: &Value, int_only: bool) {
    crate::printed::tau2_lines(out, num(fit, "tau2"), num(fit, "se_tau2"), int_only);
}

pub(crate) fn i2_h2_lines(out: &mut Out, fit: &Value, int_only: bool) {
    crate::printed::i2_h2_lines(
        out,
        num(fit, "i2"),
        num(fit, "h2"),
        num(fit, "r2"),
        int_only,
    );
}

pub(crate) fn natural_block(out: &mut Out, fit: &Value) {
    let Some(n) = fit.get("natural").filter(|n| n.is_object()) else {
        return;
    };
    let (_, Some(label)) = scale_labels(fit) else {
        return;
    };
    let (Some(e), Some(l), Some(u)) = (num(n, "estimate"), num(n, "ci_lower"), num(n, "ci_upper"))
    else {
        return;
    };
    let pi = num(n, "pi_lower").zip(num(n, "pi_upper"));
    crate::printed::natural_block(out, &label, [e, l, u], pi);
}

// ---------------------------------------------------------------------------------------
// Meta-regression (print.rma.uni with moderators)

pub(crate) fn default_btt(coefficients: &[Value]) -> Vec<u64> {
    let names: Vec<&str> = coefficients
        .iter()
        .map(|c| text(c, "name").unwrap_or(""))
        .collect();
    crate::printed::default_btt(&names)
}

pub(crate) fn moderator_test(result: &Value, btt: &[u64]) -> Option<(String, String)> {
    Some(
        ModeratorTest {
            qm: num(result, "qm"),
            qm_df: count(result, "qm_df")? as usize,
            qm_df2: num(result, "qm_df2"),
            qm_p: num(result, "qm_p"),
        }
        .lines(btt),
    )
}

pub(crate) fn regression_headline(out: &mut Out, result: &Value) -> Option<()> {
    let btt: Vec<u64> = list(result, "btt")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    let (_, test) = moderator_test(result, &btt)?;
    let formula = text(result, "formula").unwrap_or("");
    out.line(format!(
        "Moderators {formula}: {} ({})",
        test.replace(", p-val ", ", p "),
        model_context(result)
    ));
    Some(())
}

pub(crate) fn coefficient_table(coefficients: &[Value], df_all: Option<f64>) -> Vec<String> {
    let rows: Vec<CoefficientRow> = coefficients
        .iter()
        .map(|c| CoefficientRow {
            name: text(c, "name").unwrap_or(""),
            estimate: num(c, "estimate").unwrap_or(f64::NAN),
            se: num(c, "se").unwrap_or(f64::NAN),
            statistic: num(c, "statistic").unwrap_or(f64::NAN),
            df: num(c, "df"),
            p: num(c, "p"),
            ci_lower: num(c, "ci_lower").unwrap_or(f64::NAN),
            ci_upper: num(c, "ci_upper").unwrap_or(f64::NAN),
        })
        .collect();
    crate::printed::coefficient_table(&rows, df_all)
}

pub(crate) fn meta_regression(out: &mut Out, result: &Value) -> Option<()> {
    regression_headline(out, result)?;
    omitted_line(out, result);
    dropped_line(out, result);
    out.blank();
    let method = text(result, "method")?;
    model_line(out, method, count(result, "k")?, false);
    out.blank();
    if !equal_effects(method) {
        tau2_lines(out, result, false);
    }
    i2_h2_lines(out, result, false);
    out.blank();
    out.line("Test for Residual Heterogeneity:");
    out.line(format!(
        "QE(df = {}) = {}, p-val {}",
        count(result, "qe_df")?,
        f4(num(result, "qe")),
        pval(num(result, "qe_p"), true, false)
    ));
    // print.rma.uni tests the moderators only with more than one coefficient (a model
    // without an intercept and one slope has none: QM would be its z^2).
    if list(result, "coefficients").len() > 1 {
        out.blank();
        let btt: Vec<u64> = list(result, "btt")
            .iter()
            .filter_map(Value::as_u64)
            .collect();
        let (heading, line) = moderator_test(result, &btt)?;
        out.line(heading);
        out.line(line);
    }
    out.blank();
    out.line("Model Results:");
    out.blank();
    out.lines(coefficient_table(
        list(result, "coefficients"),
        num(result, "qm_df2"),
    ));
    predictions(out, result);
    signif_legend(out);
    Some(())
}

/// `predict(fit, newmods = …)`: one row per `at`, named by its values.
pub(crate) fn predictions(out: &mut Out, result: &Value) {
    let preds = list(result, "predictions");
    if preds.is_empty() {
        return;
    }
    let rows: Vec<(String, Vec<String>)> = preds
        .iter()
        .map(|p| {
            let name = p
                .get("at")
                .and_then(Value::as_object)
                .map(|at| {
                    // Each name and value cut, not the row name: with several moderators
                    // it would lose the last ones.
                    at.iter()
                        .map(|(k, v)| {
                            let k = label(k, LABEL_CHARS);
                            match v {
                                Value::String(s) => format!("{k}={}", label(s, LABEL_CHARS)),
                                v => format!("{k}={v}"),
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            let row = vec![
                f4(num(p, "estimate")),
                f4(num(p, "se")),
                f4(num(p, "ci_lower")),
                f4(num(p, "ci_upper")),
                f4(num(p, "pi_lower")),
                f4(num(p, "pi_upper")),
            ];
            (name, row)
        })
        .collect();
    out.blank();
    out.line("Predicted Values:");
    out.blank();
    out.lines(frame_table_uncut(
        &["pred", "se", "ci.lb", "ci.ub", "pi.lb", "pi.ub"],
        &rows,
        1,
    ));
    let natural: Vec<(String, Vec<String>)> = preds
        .iter()
        .zip(&rows)
        .filter_map(|(p, (name, _))| {
            let n = p.get("natural").filter(|n| n.is_object())?;
            Some((
                name.clone(),
                vec![
                    f4(num(n, "estimate")),
                    f4(num(n, "ci_lower")),
                    f4(num(n, "ci_upper")),
                    f4(num(n, "pi_lower")),
                    f4(num(n, "pi_upper")),
                ],
            ))
        })
        .collect();
    if let (false, (_, Some(label))) = (natural.is_empty(), scale_labels(result)) {
        out.blank();
        out.line(format!("Predicted Values ({label} scale):"));
        out.blank();
        out.lines(frame_table_uncut(
            &["pred", "ci.lb", "ci.ub", "pi.lb", "pi.ub"],
            &natural,
            1,
        ));
    }
}

// ---------------------------------------------------------------------------------------
// Subgroups, heterogeneity

/// The subgroup analysis as metafor users run it: one `rma()` per level, printed as
/// `print.rma.uni` prints it, then the test with a separate tau^2 per level (the
/// equal-effects meta-regression of the levels' estimates on the level) and the test with
/// one common tau^2 (`rma(yi, vi, mods = ~ by)`), each as its Test of Moderators.
pub(crate) fn subgroups(out: &mut Out, result: &Value) -> Option<()> {
    let by = text(result, "by")?;
    let k = count(result, "k")?;
    let method = text(result, "method")?;
    let knha = text(result, "test") == Some("knha");
    let groups = list(result, "groups");
    let between_df = count(result, "q_between_df")?;
    out.line(format!(
        "Subgroup differences by {by}: Q(df = {between_df}) = {}, p {} (k = {k})",
        f4(num(result, "q_between")),
        pval(num(result, "q_between_p"), true, false),
    ));
    omitted_line(out, result);
    out.blank();
    out.line(format!("Subgroup Analysis by {by} (k = {k})"));
    out.blank();
    let (_, natural) = scale_labels(result);
    let rows: Vec<(String, Vec<String>)> = groups
        .iter()
        .map(|g| {
            let p = num(g, "p");
            (
                text(g, "level").unwrap_or("").to_string(),
                vec![
                    count(g, "k").map_or("NA".into(), |k| k.to_string()),
                    f4(num(g, "estimate")),
                    f4(num(g, "se")),
                    f4(num(g, "statistic")),
                    pval(p, false, false),
                    f4(num(g, "ci_lower")),
                    f4(num(g, "ci_upper")),
                    var(num(g, "tau2")),
                    fcf(num(g, "i2"), 2),
                    stars(p),
                ],
            )
        })
        .collect();
    out.lines(frame_table(
        &[
            "k", "estimate", "se", "stat", "pval", "ci.lb", "ci.ub", "tau^2", "I^2(%)", "",
        ],
        &rows,
        2,
    ));
    if let Some(label) = natural {
        let rows: Vec<(String, Vec<String>)> = groups
            .iter()
            .filter_map(|g| {
                let n = g.get("natural").filter(|n| n.is_object())?;
                Some((
                    text(g, "level").unwrap_or("").to_string(),
                    vec![
                        f4(num(n, "estimate")),
                        f4(num(n, "ci_lower")),
                        f4(num(n, "ci_upper")),
                    ],
                ))
            })
            .collect();
        if !rows.is_empty() {
            out.blank();
            out.line(format!("Subgroup Results ({label} scale):"));
            out.blank();
            out.lines(frame_table(&["estimate", "ci.lb", "ci.ub"], &rows, 2));
        }
    }
    for g in groups {
        let level = text(g, "level").unwrap_or("");
        out.blank();
        out.line(format!("Subgroup {by} = {level}:"));
        if let Some(note) = text(g, "note") {
            out.line(format!("({note})"));
        }
        let gk = count(g, "k")?;
        let mut fit = g.clone();
        let obj = fit.as_object_mut()?;
        obj.insert("method".into(), method.into());
        obj.insert("q_df".into(), (gk.saturating_sub(1)).into());
        // Knapp-Hartung needs two records; a level of one is its record with a z test.
        let stat = obj.remove("statistic").unwrap_or(Value::Null);
        if knha && gk > 1 {
            obj.insert("t".into(), stat);
            obj.insert("df".into(), ((gk - 1) as f64).into());
        } else {
            obj.insert("z".into(), stat);
        }
        uni_body(out, &fit)?;
    }
    out.blank();
    out.line(format!(
        "Test for Subgroup Differences, a tau^2 per subgroup (the equal-effects meta-regression of \
         the subgroup estimates on {by}):"
    ));
    out.line(format!(
        "Test of Moderators (coefficient{}):",
        btt_text(between_df)
    ));
    out.line(format!(
        "QM(df = {between_df}) = {}, p-val {}",
        f4(num(result, "q_between")),
        pval(num(result, "q_between_p"), true, false)
    ));
    out.blank();
    out.line(format!(
        "Test for Subgroup Differences, one common tau^2 (rma(yi, vi, mods = ~ {by})):"
    ));
    out.line(format!(
        "Test of Moderators (coefficient{}):",
        btt_text(between_df)
    ));
    let qm = f4(num(result, "qm_common_tau2"));
    let p = pval(num(result, "qm_common_tau2_p"), true, false);
    out.line(match count(result, "qm_common_tau2_df2") {
        Some(df2) => format!("F(df1 = {between_df}, df2 = {df2}) = {qm}, p-val {p}"),
        None => format!("QM(df = {between_df}) = {qm}, p-val {p}"),
    });
    Some(())
}

/// " 2" or "s 2:m" for the m coefficients after the intercept (metafor's heading).
pub(crate) fn btt_text(m: u64) -> String {
    let btt: Vec<u64> = (2..=m + 1).collect();
    format!("{} {}", if m == 1 { "" } else { "s" }, format_btt(&btt))
}

pub(crate) fn heterogeneity(out: &mut Out, result: &Value) -> Option<()> {
    let ci = |key: &str| {
        (
            num(result, key),
            num(result, &format!("{key}_ci_lower")),
            num(result, &format!("{key}_ci_upper")),
        )
    };
    // A null-set interval has no bounds: metafor prints each as "<" its edge.
    let bound = |b: String| {
        if result.get("ci_empty") == Some(&Value::Bool(true)) {
            format!("<{b}")
        } else {
            b
        }
    };
    let (tau2, tau2_lo, tau2_hi) = ci("tau2");
    let (i2, i2_lo, i2_hi) = ci("i2");
    out.line(format!(
        "tau^2 {} [{}, {}], I^2 {}% [{}, {}] ({}, {}; k = {})",
        f4(tau2),
        bound(f4(tau2_lo)),
        bound(f4(tau2_hi)),
        fcf(i2, 2),
        bound(fcf(i2_lo, 2)),
        bound(fcf(i2_hi, 2)),
        level_percent(result),
        text(result, "ci_method").unwrap_or("Q-profile"),
        count(result, "k")?
    ));
    out.blank();
    out.line(format!(
        "Heterogeneity (k = {}; tau^2 estimator: {})",
        count(result, "k")?,
        text(result, "method")?
    ));
    out.blank();
    out.line("Test for Heterogeneity:");
    out.line(format!(
        "Q(df = {}) = {}, p-val {}",
        count(result, "q_df")?,
        f4(num(result, "q")),
        pval(num(result, "q_p"), true, false)
    ));
    out.blank();
    let row = |name: &str, key: &str| {
        let (e, lo, hi) = ci(key);
        (name.to_string(), vec![f4(e), bound(f4(lo)), bound(f4(hi))])
    };
    out.lines(frame_table(
        &["estimate", "ci.lb", "ci.ub"],
        &[
            row("tau^2", "tau2"),
            row("tau", "tau"),
            row("I^2(%)", "i2"),
            row("H^2", "h2"),
        ],
        1,
    ));
    let notes = list(result, "notes");
    if !notes.is_empty() {
        out.blank();
        for note in notes.iter().filter_map(Value::as_str) {
            out.line(note);
        }
    }
    Some(())
}

// ---------------------------------------------------------------------------------------
// Multilevel models and cluster-robust tests (print.rma.mv, print.robust.rma)

pub(crate) fn multilevel(out: &mut Out, result: &Value) -> Option<()> {
    let k = count(result, "k")?;
    let coefficients = list(result, "coefficients");
    // Intercept only: one coefficient, the intercept (`~ 0 + x` has one that is a slope).
    let int_only = coefficients.len() <= 1 && default_btt(coefficients).is_empty();
    let t_test = num(result, "df").is_some() && text(result, "test") != Some("z");
    if int_only && result.get("estimate").is_some_and(|e| !e.is_null()) {
        out.line(estimate_headline(
            result,
            &format!(
                "three-level ({}), k = {k} in {} studies",
                text(result, "method")?,
                count(result, "n_studies")?
            ),
        )?);
    } else {
        let btt = default_btt(coefficients);
        let (_, test) = moderator_test(result, &btt)?;
        out.line(format!(
            "Moderators {}: {} (three-level, k = {k})",
            text(result, "formula").unwrap_or(""),
            test.replace(", p-val ", ", p ")
        ));
    }
    omitted_line(out, result);
    dropped_line(out, result);
    out.blank();
    out.line(format!(
        "Multivariate Meta-Analysis Model (k = {k}; method: {})",
        text(result, "method")?
    ));
    out.blank();
    out.line("Variance Components:");
    out.blank();
    let study = text(result, "study").unwrap_or("study");
    let sigma2 = list(result, "sigma2");
    let nlvls = [count(result, "n_studies")?, k];
    let study = label(study, LABEL_CHARS);
    let factors = [study.clone(), format!("{study}/id")];
    let rows: Vec<(String, Vec<String>)> = sigma2
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let s = s.as_f64();
            (
                format!("sigma^2.{}", i + 1),
                vec![
                    f4(s),
                    f4(s.map(f64::sqrt)),
                    nlvls.get(i).map_or("NA".into(), u64::to_string),
                    "no".into(),
                    factors.get(i).cloned().unwrap_or_default(),
                ],
            )
        })
        .collect();
    out.lines(frame_table(
        &["estim", "sqrt", "nlvls", "fixed", "factor"],
        &rows,
        2,
    ));
    out.blank();
    if int_only {
        out.line("Test for Heterogeneity:");
        out.line(format!(
            "Q(df = {}) = {}, p-val {}",
            count(result, "qe_df")?,
            f4(num(result, "qe")),
            pval(num(result, "qe_p"), true, false)
        ));
    } else {
        out.line("Test for Residual Heterogeneity:");
        out.line(format!(
            "QE(df = {}) = {}, p-val {}",
            count(result, "qe_df")?,
            f4(num(result, "qe")),
            pval(num(result, "qe_p"), true, false)
        ));
        // print.rma.mv tests the moderators only with more than one coefficient (with one,
        // QM is its z^2).
        if coefficients.len() > 1 {
            out.blank();
            let btt = default_btt(coefficients);
            let (heading, line) = moderator_test(result, &btt)?;
            out.line(heading);
            out.line(line);
        }
    }
    out.blank();
    out.line("Model Results:");
    out.blank();
    let df_all = if t_test { num(result, "df") } else { None };
    if int_only {
        let c = coefficients.first()?;
        let p = num(c, "p");
        let mut cols = vec![
            ("estimate", f4(num(c, "estimate"))),
            ("se", f4(num(c, "se"))),
        ];
        match df_all {
            Some(d) => {
                cols.push(("tval", f4(num(c, "statistic"))));
                cols.push(("df", df(d)));
            }
            None => cols.push(("zval", f4(num(c, "statistic")))),
        }
        cols.extend([
            ("pval", pval(p, false, false)),
            ("ci.lb", f4(num(c, "ci_lower"))),
            ("ci.ub", f4(num(c, "ci_upper"))),
            ("", stars(p)),
        ]);
        out.lines(vector_table(&cols));
        natural_block(out, result);
    } else {
        out.lines(coefficient_table(coefficients, df_all));
    }
    for note in list(result, "notes").iter().filter_map(Value::as_str) {
        out.blank();
        out.line(note);
    }
    signif_legend(out);
    Some(())
}

/// `print.robust.rma`: the model's heterogeneity, the clusters, then the coefficients with
/// cluster-robust standard errors, t tests and intervals, each robust column marked with
/// metafor's footnote symbol.
pub(crate) fn robust(out: &mut Out, result: &Value) -> Option<()> {
    let coefficients = list(result, "coefficients");
    let vcov = text(result, "vcov")?;
    let k = count(result, "k")?;
    let clusters = count(result, "n_clusters")?;
    let int_only = coefficients.len() == 1;
    let first = coefficients.first()?;
    if int_only {
        out.line(format!(
            "{} ({}; cluster-robust {vcov}, k = {k} in {clusters} clusters)",
            interval(
                "Estimate",
                num(first, "estimate")?,
                num(first, "ci_lower")?,
                num(first, "ci_upper")?
            ),
            level_percent(result)
        ));
    } else {
        out.line(format!(
            "Cluster-robust ({vcov}) tests of {} coefficients (k = {k} in {clusters} clusters)",
            coefficients.len()
        ));
    }
    omitted_line(out, result);
    dropped_line(out, result);
    out.blank();
    let method = text(result, "method").unwrap_or("REML");
    match result.get("heterogeneity").filter(|h| h.is_object()) {
        Some(h) => {
            model_line(out, method, k, int_only);
            out.blank();
            if !equal_effects(method) {
                tau2_lines(out, h, int_only);
            }
            i2_h2_lines(out, h, int_only);
            out.blank();
            let (heading, q) = if int_only {
                ("Test for Heterogeneity:", "Q")
            } else {
                ("Test for Residual Heterogeneity:", "QE")
            };
            out.line(heading);
            out.line(format!(
                "{q}(df = {}) = {}, p-val {}",
                count(h, "q_df")?,
                f4(num(h, "q")),
                pval(num(h, "q_p"), true, false)
            ));
        }
        None => out.line(format!(
            "Multivariate Meta-Analysis Model (k = {k}; method: {method})"
        )),
    }
    out.blank();
    out.line(format!("Number of estimates:   {k}"));
    out.line(format!("Number of clusters:    {clusters}"));
    if let Some(sizes) = result.get("estimates_per_cluster") {
        let (lo, hi) = (count(sizes, "min")?, count(sizes, "max")?);
        if lo == hi {
            out.line(format!("Estimates per cluster: {lo}"));
        } else {
            out.line(format!(
                "Estimates per cluster: {lo}-{hi} (mean: {}, median: {})",
                fcf(num(sizes, "mean"), 2),
                r_num((num(sizes, "median")? * 100.0).round() / 100.0)
            ));
        }
    }
    if let Some(t) = result.get("moderators_test").filter(|t| t.is_object()) {
        let df1 = count(t, "df1")?;
        out.blank();
        out.line(format!(
            "Test of Moderators (coefficient{} {}):\u{b9}",
            if df1 == 1 { "" } else { "s" },
            format_btt(&default_btt(coefficients))
        ));
        out.line(format!(
            "F(df1 = {df1}, df2 = {}) = {}, p-val {}",
            count(t, "df2")?,
            f4(num(t, "f")),
            pval(num(t, "p"), true, false)
        ));
    }
    out.blank();
    out.line("Model Results:");
    out.blank();
    out.lines(robust_table(coefficients, int_only));
    signif_legend(out);
    out.blank();
    out.line(format!(
        "1) results based on cluster-robust inference (var-cov estimator: {vcov},"
    ));
    out.line(format!(
        "   approx {}, df: {})",
        if int_only {
            "t-test and confidence interval"
        } else {
            "t/F-tests and confidence intervals"
        },
        if vcov == "CR2" {
            "Satterthwaite approx"
        } else {
            "residual method"
        }
    ));
    Some(())
}

/// The coefficients under cluster-robust inference as `print.robust.rma` lays them out:
/// metafor's `.addfootsym` marks the names of se, tval, df, pval, ci.lb and ci.ub with "¹"
/// and pads their values with a blank; df as `round(df, 2)` pasted as text, so each row keeps
/// its own decimals.
pub(crate) fn robust_table(coefficients: &[Value], int_only: bool) -> Vec<String> {
    const MARK: &str = "\u{b9}";
    let header: Vec<String> = std::iter::once("estimate".to_string())
        .chain(
            ["se", "tval", "df", "pval", "ci.lb", "ci.ub"]
                .iter()
                .map(|h| format!("{h}{MARK}")),
        )
        .chain(std::iter::once(String::new()))
        .collect();
    let rows: Vec<(String, Vec<String>)> = coefficients
        .iter()
        .map(|c| {
            let p = num(c, "p");
            let marked = |v: String| format!("{v} ");
            (
                coefficient_name(text(c, "name").unwrap_or("")),
                vec![
                    f4(num(c, "estimate")),
                    marked(f4(num(c, "se"))),
                    marked(f4(num(c, "statistic"))),
                    marked(num(c, "df").map_or("NA".into(), df)),
                    marked(pval(p, false, false)),
                    marked(f4(num(c, "ci_lower"))),
                    marked(f4(num(c, "ci_upper"))),
                    stars(p),
                ],
            )
        })
        .collect();
    if int_only {
        let (_, row) = &rows[0];
        let cols: Vec<(&str, String)> = header
            .iter()
            .map(String::as_str)
            .zip(row.iter().cloned())
            .collect();
        vector_table(&cols)
    } else {
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        frame_table(&header, &rows, 2)
    }
}

// ---------------------------------------------------------------------------------------
// Mantel-Haenszel and Peto (print.rma.mh, print.rma.peto)

pub(crate) fn tables_model(out: &mut Out, peto: bool, result: &Value) -> Option<()> {
    let k = count(result, "k")?;
    let name = if peto { "Peto" } else { "Mantel-Haenszel" };
    out.line(estimate_headline(result, &format!("{name}, k = {k}"))?);
    out.blank();
    out.line(format!("Equal-Effects Model (k = {k})"));
    out.blank();
    if let Some(i2) = num(result, "i2") {
        out.line(format!(
            "I^2 (total heterogeneity / total variability):  {}%",
            fcf(Some(i2), 2)
        ));
    }
    if let Some(h2) = num(result, "h2") {
        out.line(format!(
            "H^2 (total variability / sampling variability): {}",
            fcf(Some(h2), 2)
        ));
    }
    if let Some(q) = num(result, "q") {
        out.blank();
        out.line("Test for Heterogeneity:");
        out.line(format!(
            "Q(df = {}) = {}, p-val {}",
            count(result, "q_df")?,
            f4(Some(q)),
            pval(num(result, "q_p"), true, false)
        ));
    }
    out.blank();
    let measure = text(result, "measure").unwrap_or("");
    let log_scale = matches!(measure, "OR" | "RR" | "IRR");
    let cols = vec![
        ("estimate", f4(num(result, "estimate"))),
        ("se", f4(num(result, "se"))),
        ("zval", f4(num(result, "z"))),
        ("pval", pval(num(result, "p"), false, false)),
        ("ci.lb", f4(num(result, "ci_lower"))),
        ("ci.ub", f4(num(result, "ci_upper"))),
    ];
    out.line(if log_scale {
        "Model Results (log scale):"
    } else {
        "Model Results:"
    });
    out.blank();
    out.lines(vector_table(&cols));
    if let Some(n) = result.get("natural").filter(|n| n.is_object()) {
        let label = if log_scale && text(result, "transform") == Some("exp") {
            measure.to_string()
        } else {
            scale_labels(result).1.unwrap_or_default()
        };
        out.blank();
        out.line(format!("Model Results ({label} scale):"));
        out.blank();
        out.lines(vector_table(&[
            ("estimate", f4(num(n, "estimate"))),
            ("ci.lb", f4(num(n, "ci_lower"))),
            ("ci.ub", f4(num(n, "ci_upper"))),
        ]));
    }
    if !peto && measure == "OR" {
        let cmh = num(result, "cmh").map(|x| f4(Some(x)));
        let tarone = num(result, "tarone").map(|x| f4(Some(x)));
        let w = cmh
            .iter()
            .chain(&tarone)
            .map(|s| width(s))
            .max()
            .unwrap_or(1);
        // metafor pads "df = 1," to the width of Tarone's df.
        let k_pos = count(result, "tarone_df").map_or(1, |d| d + 1);
        out.blank();
        match cmh {
            Some(cmh) => out.line(format!(
                "Cochran-Mantel-Haenszel Test:    CMH = {}, df = 1,{} p-val {}",
                pad_left(&cmh, w),
                " ".repeat(k_pos.to_string().len().saturating_sub(1)),
                pval(num(result, "cmh_p"), true, true)
            )),
            None => out
                .line("Cochran-Mantel-Haenszel Test:    test value not computable for these data"),
        }
        match tarone {
            Some(ta) => out.line(format!(
                "Tarone's Test for Heterogeneity: X^2 = {}, df = {}, p-val {}",
                pad_left(&ta, w),
                count(result, "tarone_df")?,
                pval(num(result, "tarone_p"), true, true)
            )),
            None => out
                .line("Tarone's Test for Heterogeneity: test value not computable for these data"),
        }
    }
    Some(())
}

// ---------------------------------------------------------------------------------------
// Publication bias (print.regtest, print.ranktest, print.fsn, trim and fill, selection)

pub(crate) fn egger(out: &mut Out, result: &Value) -> Option<()> {
    let k = count(result, "k")?;
    let stat_name = text(result, "statistic_name")?;
    let test = match num(result, "df") {
        Some(d) => format!(
            "{stat_name} = {}, df = {}, p {}",
            f4(num(result, "statistic")),
            df(d),
            pval(num(result, "egger_p"), true, false)
        ),
        None => format!(
            "{stat_name} = {}, p {}",
            f4(num(result, "statistic")),
            pval(num(result, "egger_p"), true, false)
        ),
    };
    let outcome = text(result, "rule_outcome")
        .map(|o| format!("; rule: {o}"))
        .unwrap_or_default();
    // The variant and metafor's model named, so the classic test ("lm") is not read as
    // regtest()'s default ("rma").
    let model = text(result, "model")?;
    let words = text(result, "model_description")?;
    out.line(format!(
        "Egger's test, {} (regtest model \"{model}\", {words}): {test} (k = {k}{outcome})",
        text(result, "variant")?
    ));
    excluded_line(out, result);
    out.blank();
    out.line("Regression Test for Funnel Plot Asymmetry");
    out.blank();
    out.line(format!("Model:     {words}"));
    out.line("Predictor: standard error");
    out.blank();
    out.line(format!("Test for Funnel Plot Asymmetry: {test}"));
    if let Some(limit) = num(result, "limit_estimate") {
        out.line(format!(
            "Limit Estimate (as sei -> 0):   b = {} (CI: {}, {})",
            f4(Some(limit)),
            f4(num(result, "limit_ci_lower")),
            f4(num(result, "limit_ci_upper"))
        ));
    }
    out.line(format!(
        "Coefficient ({}): {} (SE = {})",
        text(result, "coefficient_name").unwrap_or("slope"),
        f4(num(result, "coefficient")),
        f4(num(result, "se"))
    ));
    if let Some(tau2) = num(result, "tau2") {
        out.line(format!("tau^2 of the regression: {}", var(Some(tau2))));
    }
    if let (Some(rule), Some(outcome)) = (text(result, "rule"), text(result, "rule_outcome")) {
        out.blank();
        out.line(format!("Registered rule ({rule}): {outcome}"));
    }
    Some(())
}

pub(crate) fn rank_test(out: &mut Out, result: &Value) -> Option<()> {
    let line = format!(
        "Kendall's tau = {}, p {}",
        f4(num(result, "tau")),
        pval(num(result, "p"), true, false)
    );
    out.line(format!(
        "Rank correlation test: {line} (k = {}{})",
        count(result, "k")?,
        if result.get("exact").and_then(Value::as_bool) == Some(true) {
            ", exact"
        } else {
            ""
        }
    ));
    out.blank();
    out.line("Rank Correlation Test for Funnel Plot Asymmetry");
    out.blank();
    out.line(line);
    Some(())
}

pub(crate) fn fail_safe(out: &mut Out, result: &Value) -> Option<()> {
    let kind = text(result, "type")?;
    let fsn = count(result, "fsn")?;
    out.line(format!("Fail-safe N ({kind}): {fsn}"));
    out.blank();
    out.line(format!("Fail-safe N Calculation Using the {kind} Approach"));
    out.blank();
    let alpha = num(result, "alpha").map_or("NA".into(), r_num);
    match kind {
        "Rosenthal" => {
            out.line(format!(
                "Observed Significance Level: {}",
                pval(num(result, "observed_p"), false, false)
            ));
            out.line(format!("Target Significance Level:   {alpha}"));
        }
        "Orwin" => {
            out.line(format!(
                "Average Effect Size: {}",
                f4(num(result, "observed_effect"))
            ));
            out.line(format!(
                "Target Effect Size:  {}",
                f4(num(result, "target"))
            ));
        }
        _ => {
            out.line(format!(
                "Average Effect Size:         {}",
                f4(num(result, "observed_effect"))
            ));
            out.line(format!(
                "Observed Significance Level: {}",
                pval(num(result, "observed_p"), false, false)
            ));
            out.line(format!("Target Significance Level:   {alpha}"));
        }
    }
    out.blank();
    out.line(format!("Fail-safe N: {fsn}"));
    Some(())
}

pub(crate) fn trim_fill_headline(out: &mut Out, result: &Value) -> Option<()> {
    let context = format!(
        "trim and fill {}, {} filled on the {} side, k = {}",
        text(result, "estimator")?,
        count(result, "k0")?,
        text(result, "side")?,
        count(result, "k")?
    );
    out.line(estimate_headline(result, &context)?);
    Some(())
}

/// `print.rma.uni` of a `trimfill()` result: the estimated number of missing records (and
/// for R0 its test), then the fit of the records and the filled ones.
pub(crate) fn trim_and_fill(out: &mut Out, result: &Value) -> Option<()> {
    trim_fill_headline(out, result)?;
    out.blank();
    let side = text(result, "side")?;
    let k0 = count(result, "k0")?;
    out.line(format!(
        "Estimated number of missing studies on the {side} side: {k0} (SE = {})",
        f4(num(result, "se_k0"))
    ));
    if let Some(p) = num(result, "k0_p") {
        out.line(format!(
            "Test of H0: no missing studies on the {side} side:     {}p-val {}",
            " ".repeat(k0.to_string().len()),
            pval(Some(p), true, false)
        ));
    }
    let mut fit = result.clone();
    let obj = fit.as_object_mut()?;
    let z = obj.remove("statistic").unwrap_or(Value::Null);
    obj.insert("z".into(), z);
    uni_body(out, &fit)
}

pub(crate) fn selection(out: &mut Out, result: &Value) -> Option<()> {
    let k = count(result, "k")?;
    out.line(estimate_headline(
        result,
        &format!("step-function selection model, k = {k}"),
    )?);
    excluded_line(out, result);
    out.blank();
    out.line(format!(
        "Random-Effects Model (k = {k}; tau^2 estimator: ML)"
    ));
    out.blank();
    let tau2 = num(result, "tau2");
    let se = num(result, "se_tau2")
        .map(|se| format!(" (SE = {})", f4(Some(se))))
        .unwrap_or_default();
    out.line(format!(
        "tau^2 (estimated amount of total heterogeneity): {}{se}",
        var(tau2)
    ));
    out.line(format!(
        "tau (square root of estimated tau^2 value):      {}",
        var(num(result, "tau"))
    ));
    out.blank();
    out.line("Model Results:");
    out.blank();
    let p = num(result, "p");
    out.lines(vector_table(&[
        ("estimate", f4(num(result, "estimate"))),
        ("se", f4(num(result, "se"))),
        ("zval", f4(num(result, "z"))),
        ("pval", pval(p, false, false)),
        ("ci.lb", f4(num(result, "ci_lower"))),
        ("ci.ub", f4(num(result, "ci_upper"))),
        ("", stars(p)),
    ]));
    out.blank();
    out.line("Test for Selection Model Parameters:");
    out.line(format!(
        "LRT(df = {}) = {}, p-val {}",
        count(result, "lrt_df")?,
        f4(num(result, "lrt")),
        pval(num(result, "lrt_p"), true, false)
    ));
    out.blank();
    out.line("Selection Model Results:");
    out.blank();
    let weights = list(result, "weights");
    let lower_w = weights
        .iter()
        .map(|w| num(w, "lower").map_or(0, |x| width(&r_num(x))))
        .max()
        .unwrap_or(0);
    let rows: Vec<(String, Vec<String>)> = weights
        .iter()
        .map(|w| {
            let lower = num(w, "lower").map_or("NA".into(), r_num);
            let upper = num(w, "upper").map_or("NA".into(), r_num);
            let fixed = num(w, "se").is_none();
            let p = num(w, "p");
            let cell = |x: Option<f64>| if fixed { "---".into() } else { f4(x) };
            (
                format!("{} < p <= {upper}", pad_right(&lower, lower_w)),
                vec![
                    count(w, "k").map_or("NA".into(), |k| k.to_string()),
                    f4(num(w, "delta")),
                    cell(num(w, "se")),
                    cell(num(w, "z")),
                    if fixed {
                        "---".into()
                    } else {
                        pval(p, false, false)
                    },
                    cell(num(w, "ci_lower")),
                    cell(num(w, "ci_upper")),
                    if fixed { String::new() } else { stars(p) },
                ],
            )
        })
        .collect();
    out.lines(frame_table(
        &["k", "estimate", "se", "zval", "pval", "ci.lb", "ci.ub", ""],
        &rows,
        2,
    ));
    signif_legend(out);
    Some(())
}

/// PET and PEESE as the two equal-effects meta-regressions metafor users fit
/// (`rma(yi, vi, mods = ~ sqrt(vi), method = "EE", test = "knha")` and `mods = ~ vi`), each
/// printed as `print.rma.uni` prints it, then the conditional rule.
pub(crate) fn pet_peese(out: &mut Out, result: &Value) -> Option<()> {
    let choice = text(result, "choice")?;
    let k = count(result, "k")?;
    let test = text(result, "test").unwrap_or("z");
    out.line(format!(
        "{} ({}; {choice} chosen, k = {k})",
        interval(
            "Estimate",
            num(result, "estimate")?,
            num(result, "ci_lower")?,
            num(result, "ci_upper")?
        ),
        level_percent(result)
    ));
    excluded_line(out, result);
    for (name, key, predictor) in [("PET", "pet", "sqrt(vi)"), ("PEESE", "peese", "vi")] {
        let model = result.get(key)?;
        out.blank();
        out.line(format!(
            "{name}: rma(yi, vi, mods = ~ {predictor}, method = \"EE\", test = \"{test}\")"
        ));
        out.blank();
        model_line(out, "EE", k, false);
        out.blank();
        i2_h2_lines(out, model, false);
        out.blank();
        out.line("Test for Residual Heterogeneity:");
        out.line(format!(
            "QE(df = {}) = {}, p-val {}",
            count(model, "qe_df")?,
            f4(num(model, "qe")),
            pval(num(model, "qe_p"), true, false)
        ));
        out.blank();
        // One predictor: the test of moderators is the slope's test (F = t^2, QM = z^2).
        let slope = model.get("slope")?;
        let stat = num(slope, "statistic")?;
        out.line("Test of Moderators (coefficient 2):");
        let p = pval(num(slope, "p"), true, false);
        out.line(match num(model, "df") {
            Some(d) => format!(
                "F(df1 = 1, df2 = {}) = {}, p-val {p}",
                df(d),
                f4(Some(stat * stat))
            ),
            None => format!("QM(df = 1) = {}, p-val {p}", f4(Some(stat * stat))),
        });
        out.blank();
        out.line("Model Results:");
        out.blank();
        let coefficient = |c: &str, label: &str| {
            let mut v = model.get(c).cloned().unwrap_or(Value::Null);
            if let Some(obj) = v.as_object_mut() {
                obj.insert("name".into(), Value::String(label.into()));
            }
            v
        };
        out.lines(coefficient_table(
            &[
                coefficient("intercept", "intrcpt"),
                coefficient("slope", predictor),
            ],
            num(model, "df"),
        ));
    }
    out.blank();
    let alternative = match text(result, "alternative") {
        Some("two.sided") | None => "two-sided test".to_string(),
        Some(a) => format!("one-sided test (alternative {a})"),
    };
    out.line(format!(
        "PET's intercept, {alternative}: p {} at alpha = {}: {choice} chosen",
        pval(num(result, "pet_intercept_p"), true, false),
        num(result, "alpha").map_or("NA".into(), r_num)
    ));
    signif_legend(out);
    Some(())
}

// ---------------------------------------------------------------------------------------
// Per-record tables (print.list.rma, print.infl.rma.uni)

pub(crate) fn leave_one_out(out: &mut Out, result: &Value) -> Option<()> {
    let results = list(result, "results");
    let estimates: Vec<f64> = results.iter().filter_map(|r| num(r, "estimate")).collect();
    let (lo, hi) = estimates
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    let (model, _) = scale_labels(result);
    out.line(format!(
        "Leave-one-out: {model} from {} to {} ({} refits; {})",
        f4(Some(lo)),
        f4(Some(hi)),
        results.len(),
        model_context(result)
    ));
    excluded_line(out, result);
    out.blank();
    let knha = text(result, "test") == Some("knha");
    let rows: Vec<(String, Vec<String>)> = results
        .iter()
        .map(|r| {
            let stat = if knha { num(r, "t") } else { num(r, "z") };
            (
                text(r, "omitted").unwrap_or("").to_string(),
                vec![
                    f4(num(r, "estimate")),
                    f4(num(r, "se")),
                    f4(stat),
                    f4(num(r, "p")),
                    f4(num(r, "ci_lower")),
                    f4(num(r, "ci_upper")),
                    f4(num(r, "q")),
                    f4(num(r, "q_p")),
                    f4(num(r, "tau2")),
                    f4(num(r, "i2")),
                    f4(num(r, "h2")),
                ],
            )
        })
        .collect();
    let stat = if knha { "tval" } else { "zval" };
    out.lines(frame_table(
        &[
            "estimate", "se", stat, "pval", "ci.lb", "ci.ub", "Q", "Qp", "tau2", "I2", "H2",
        ],
        &rows,
        1,
    ));
    Some(())
}

pub(crate) fn cumulative_headline(out: &mut Out, result: &Value) -> Option<()> {
    let results = list(result, "results");
    let last = results.last()?;
    let order = text(result, "order_by")
        .map(|o| format!("ordered by {o}"))
        .unwrap_or_else(|| "in record order".into());
    let mut last = last.clone();
    if let (Some(obj), Some(measure)) = (last.as_object_mut(), result.get("measure")) {
        obj.insert("measure".into(), measure.clone());
        obj.insert(
            "transform".into(),
            result.get("transform").cloned().unwrap_or(Value::Null),
        );
    }
    out.line(estimate_headline(
        &last,
        &format!("cumulative, {order}, after {} records", count(&last, "k")?),
    )?);
    Some(())
}

/// `print.cumul.rma`: one row per step, named by the record added.
pub(crate) fn cumulative(out: &mut Out, result: &Value) -> Option<()> {
    cumulative_headline(out, result)?;
    out.blank();
    let rows: Vec<(String, Vec<String>)> = list(result, "results")
        .iter()
        .map(|r| {
            (
                text(r, "added").unwrap_or("").to_string(),
                [
                    "estimate",
                    "se",
                    "statistic",
                    "p",
                    "ci_lower",
                    "ci_upper",
                    "q",
                    "q_p",
                    "tau2",
                    "i2",
                    "h2",
                ]
                .iter()
                .map(|key| f4(num(r, key)))
                .collect(),
            )
        })
        .collect();
    let stat = if text(result, "test") == Some("knha") {
        "tval"
    } else {
        "zval"
    };
    out.lines(frame_table(
        &[
            "estimate", "se", stat, "pvals", "ci.lb", "ci.ub", "Q", "Qp", "tau2", "I2", "H2",
        ],
        &rows,
        1,
    ));
    Some(())
}

pub(crate) fn influence(out: &mut Out, result: &Value) -> Option<()> {
    let results = list(result, "results");
    let influential: Vec<&str> = results
        .iter()
        .filter(|r| r.get("influential").and_then(Value::as_bool) == Some(true))
        .filter_map(|r| text(r, "id"))
        .collect();
    out.line(format!(
        "Influential records: {} ({})",
        if influential.is_empty() {
            "none".to_string()
        } else {
            influential.join(", ")
        },
        model_context(result)
    ));
    out.blank();
    let rows: Vec<(String, Vec<String>)> = results
        .iter()
        .map(|r| {
            let inf = r.get("influential").and_then(Value::as_bool) == Some(true);
            (
                text(r, "id").unwrap_or("").to_string(),
                vec![
                    f4(num(r, "rstudent")),
                    f4(num(r, "dffits")),
                    f4(num(r, "cook_d")),
                    f4(num(r, "cov_r")),
                    f4(num(r, "tau2_del")),
                    f4(num(r, "qe_del")),
                    f4(num(r, "hat")),
                    f4(num(r, "weight")),
                    f4(num(r, "dfbetas")),
                    if inf { "*".into() } else { String::new() },
                ],
            )
        })
        .collect();
    out.lines(frame_table(
        &[
            "rstudent", "dffits", "cook.d", "cov.r", "tau2.del", "QE.del", "hat", "weight", "dfbs",
            "inf",
        ],
        &rows,
        1,
    ));
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_names_are_cut_and_a_predictions_parts_each() {
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
        let result = serde_json::json!({"predictions": [{
            "at": {"weeks": 4, "tester": "blind", "arm": long},
            "estimate": 0.1, "se": 0.1, "ci_lower": 0.0, "ci_upper": 0.2,
            "pi_lower": 0.0, "pi_upper": 0.2
        }]});
        let mut out = Out::default();
        predictions(&mut out, &result);
        let text = out.finish();
        assert!(
            text.contains(&format!("weeks=4, tester=blind, arm={cut} ")),
            "{text}"
        );
    }
}

/// Temporary: the typed printers against the JSON printers they replace, on many calls.
#[cfg(test)]
mod legacy_equivalence {
    use super::*;
    use serde_json::json;

    fn legacy(tool: &str, r: &Value) -> Option<String> {
        let mut out = Out::default();
        let _ = match tool {
            "fit_random_effects" | "refit_excluding" => uni_fit(&mut out, r),
            "forest_plot" | "funnel_plot" | "diagnostic_plot" => uni_headline(&mut out, &r["fit"]),
            "meta_regression" => meta_regression(&mut out, r),
            "bubble_plot" => regression_headline(&mut out, &r["fit"]),
            "subgroup_analysis" => subgroups(&mut out, r),
            "heterogeneity" => heterogeneity(&mut out, r),
            "load_data" => load_data(&mut out, r),
            "fit_multilevel" => multilevel(&mut out, r),
            "robust_test" => robust(&mut out, r),
            _ => return None,
        };
        let text = out.finish();
        (!text.is_empty()).then_some(text)
    }

    const TOOLS: [&str; 13] = [
        "fit_random_effects",
        "refit_excluding",
        "forest_plot",
        "funnel_plot",
        "diagnostic_plot",
        "meta_regression",
        "bubble_plot",
        "subgroup_analysis",
        "heterogeneity",
        "load_data",
        "fit_multilevel",
        "robust_test",
        "none",
    ];

    const MARKERS: [&str; 22] = [
        "Predicted Values (",
        "Model Results (",
        "tval",
        "zval",
        "Omitted",
        "Redundant",
        "Excluded:",
        "Note:",
        "Subgroup Results (",
        "<0",
        "F(df1",
        "Estimates per cluster: ",
        "NA",
        "more (listed",
        "Knapp",
        "tau^2 (",
        "R^2",
        "Moderators",
        "(a single",
        "pi.lb",
        "Test of Moderators",
        "Predicted Values:",
    ];

    fn collect(v: &Value, calls: &mut Vec<(String, Value)>) {
        match v {
            Value::Object(m) => {
                if let (Some(Value::String(t)), Some(a)) = (m.get("tool"), m.get("args")) {
                    if a.is_object() {
                        calls.push((t.clone(), a.clone()));
                    }
                }
                m.values().for_each(|x| collect(x, calls));
            }
            Value::Array(a) => a.iter().for_each(|x| collect(x, calls)),
            _ => {}
        }
    }

    fn rr() -> Value {
        json!([
            {"id": "a", "yi": -0.9, "vi": 0.33, "n": 40, "x": 1.0, "arm": "p", "study": "s1", "g": "u"},
            {"id": "b", "yi": -1.6, "vi": 0.19, "n": 80, "x": 2.0, "arm": "q", "study": "s1", "g": "u"},
            {"id": "c", "yi": -1.35, "vi": 0.42, "n": 30, "x": 3.0, "arm": "p", "study": "s2", "g": "v"},
            {"id": "d", "yi": -1.44, "vi": 0.02, "n": 150, "x": 1.5, "arm": "q", "study": "s2", "g": "v"},
            {"id": "e", "yi": -0.22, "vi": 0.05, "n": 60, "x": 4.0, "arm": "p", "study": "s3", "g": "w"},
            {"id": "f", "yi": -0.79, "vi": 0.01, "n": 90, "x": 0.5, "arm": "q", "study": "s3", "g": "v"},
            {"id": "h", "yi": -1.62, "vi": 0.22, "n": 70, "x": 2.5, "arm": "r", "study": "s4", "g": "u"},
            {"id": "i", "yi": 0.01, "vi": 0.004, "n": 95, "x": 3.5, "arm": "r", "study": "s4", "g": "w"},
            {"id": "j", "yi": -0.47, "vi": 0.06, "n": 50, "x": 0.2, "arm": "r", "study": "s5", "g": "v"}
        ])
    }

    fn gappy() -> Value {
        let mut r = rr();
        r[1].as_object_mut().unwrap().remove("x");
        r[2].as_object_mut().unwrap().remove("arm");
        r[3]["g"] = Value::Null;
        r[4].as_object_mut().unwrap().remove("n");
        r[5]["study"] = json!("");
        r
    }

    fn homogeneous() -> Value {
        json!([
            {"id": "a", "yi": 0.30, "vi": 0.04}, {"id": "b", "yi": 0.31, "vi": 0.04},
            {"id": "c", "yi": 0.29, "vi": 0.04}, {"id": "d", "yi": 0.30, "vi": 0.05}
        ])
    }

    fn extras() -> Vec<(String, Value)> {
        let mut calls: Vec<(&str, Value)> = Vec::new();
        let methods = [
            "REML", "ML", "DL", "HE", "SJ", "PM", "EB", "HS", "EE", "FE", "CE",
        ];
        for m in methods {
            for t in ["z", "knha"] {
                for scale in [
                    json!({}),
                    json!({"measure": "RR"}),
                    json!({"measure": "RR", "transform": "none"}),
                    json!({"measure": "PLO"}),
                    json!({"measure": "ZCOR", "level": 0.8}),
                    json!({"measure": "GEN"}),
                ] {
                    let mut a = scale.clone();
                    a["method"] = json!(m);
                    a["test"] = json!(t);
                    a["records"] = rr();
                    calls.push(("fit_random_effects", a.clone()));
                    let mut w = a.clone();
                    w["weights"] = json!("n");
                    calls.push(("fit_random_effects", w.clone()));
                    w["records"] = gappy();
                    calls.push(("fit_random_effects", w));
                    let mut e = a.clone();
                    e["exclude"] = json!(["b", "c"]);
                    calls.push(("refit_excluding", e.clone()));
                    calls.push(("forest_plot", e.clone()));
                    let mut by = a.clone();
                    by["by"] = json!("g");
                    calls.push(("subgroup_analysis", by.clone()));
                    calls.push(("forest_plot", by.clone()));
                    by["records"] = gappy();
                    calls.push(("subgroup_analysis", by.clone()));
                    by["by"] = json!("arm");
                    calls.push(("subgroup_analysis", by.clone()));
                    for mods in [
                        json!(["x"]),
                        json!(["x", "arm"]),
                        json!("~ 0 + arm"),
                        json!("~ 0 + x"),
                        json!("~ x * arm"),
                        json!("~ x + I(x^2)"),
                    ] {
                        let mut r = a.clone();
                        r["mods"] = mods.clone();
                        calls.push(("meta_regression", r.clone()));
                        let mut p = r.clone();
                        p["at"] = if mods == json!(["x"])
                            || mods == json!("~ 0 + x")
                            || mods == json!("~ x + I(x^2)")
                        {
                            json!([{"x": 1}, {"x": 2.5}])
                        } else if mods == json!("~ 0 + arm") {
                            json!([{"arm": "p"}, {"arm": "r"}])
                        } else {
                            json!([{"x": 1, "arm": "q"}, {"x": 3.25, "arm": "p"}])
                        };
                        calls.push(("meta_regression", p.clone()));
                        p["weights"] = json!("n");
                        calls.push(("meta_regression", p.clone()));
                        p["records"] = gappy();
                        p.as_object_mut().unwrap().remove("weights");
                        calls.push(("meta_regression", p));
                    }
                    let mut b = a.clone();
                    b["btt"] = json!(2);
                    b["mods"] = json!(["x", "arm"]);
                    calls.push(("meta_regression", b));
                    let mut bb = a.clone();
                    bb["mod"] = json!("x");
                    calls.push(("bubble_plot", bb.clone()));
                    bb["records"] = gappy();
                    calls.push(("bubble_plot", bb));
                }
            }
            calls.push(("heterogeneity", json!({"method": m})));
            calls.push((
                "heterogeneity",
                json!({"method": m, "records": homogeneous()}),
            ));
            calls.push((
                "heterogeneity",
                json!({"method": m, "records": rr(), "level": 0.5}),
            ));
            calls.push((
                "heterogeneity",
                json!({"method": m, "exclude": ["s04", "s10"]}),
            ));
            for kind in ["baujat", "radial", "qq", "labbe"] {
                calls.push(("diagnostic_plot", json!({"kind": kind, "method": m})));
                calls.push((
                    "diagnostic_plot",
                    json!({"kind": kind, "method": m, "records": rr(), "measure": "RR"}),
                ));
            }
            calls.push((
                "funnel_plot",
                json!({"records": rr(), "measure": "RR", "method": m}),
            ));
            calls.push(("funnel_plot", json!({"exclude": ["s01"]})));
            calls.push((
                "funnel_plot",
                json!({"egger_line": false, "exclude": ["s01"]}),
            ));
            for model in ["random_effects", "regression", "multilevel"] {
                for vcov in ["CR1", "CR2"] {
                    let mut a = json!({"records": rr(), "cluster": "study", "model": model, "vcov": vcov, "method": m});
                    if model != "random_effects" {
                        a["mods"] = json!(["x"]);
                    }
                    calls.push(("robust_test", a.clone()));
                    if model != "random_effects" {
                        a["mods"] = json!(["x", "arm"]);
                        calls.push(("robust_test", a.clone()));
                        a["mods"] = json!("~ 0 + arm");
                        calls.push(("robust_test", a.clone()));
                    }
                    a["records"] = gappy();
                    calls.push(("robust_test", a.clone()));
                    a["cluster"] = json!("g");
                    calls.push(("robust_test", a.clone()));
                    if model == "multilevel" {
                        a.as_object_mut().unwrap().remove("mods");
                        a["records"] = rr();
                        a["test"] = json!("t");
                        calls.push(("robust_test", a));
                    }
                }
            }
        }
        for m in ["REML", "ML"] {
            for t in ["z", "t"] {
                for scale in [
                    json!({}),
                    json!({"measure": "RR"}),
                    json!({"measure": "PLO", "level": 0.9}),
                ] {
                    let mut a = scale.clone();
                    a["method"] = json!(m);
                    a["test"] = json!(t);
                    a["records"] = rr();
                    calls.push(("fit_multilevel", a.clone()));
                    for mods in [
                        json!(["x"]),
                        json!(["x", "arm"]),
                        json!("~ 0 + arm"),
                        json!("~ 0 + x"),
                        json!("~ x * arm"),
                    ] {
                        let mut r = a.clone();
                        r["mods"] = mods;
                        calls.push(("fit_multilevel", r.clone()));
                        r["records"] = gappy();
                        calls.push(("fit_multilevel", r));
                    }
                    a["records"] = gappy();
                    calls.push(("fit_multilevel", a.clone()));
                    a["exclude"] = json!(["a"]);
                    calls.push(("fit_multilevel", a));
                }
            }
        }
        let raw = json!([
            {"ai": 4, "bi": 119, "ci": 11, "di": 128},
            {"ai": 6, "bi": 300, "ci": 29, "di": 274},
            {"ai": 0, "bi": 228, "ci": 0, "di": 209},
            {"ai": 0, "bi": 10, "ci": 2, "di": 20},
            {"ai": null, "bi": 10, "ci": 2, "di": 20},
            {"ai": 1, "bi": "", "ci": 2, "di": 20},
            {"bi": 10, "ci": 2, "di": 20},
            {"ai": 3, "bi": 10, "ci": 2}
        ]);
        calls.push(("load_data", json!({"measure": "RR", "data": raw.clone()})));
        calls.push((
            "load_data",
            json!({"measure": "OR", "data": raw.clone(), "drop00": true}),
        ));
        calls.push((
            "load_data",
            json!({"measure": "RD", "data": raw.as_array().unwrap()[..5].to_vec()}),
        ));
        calls.push((
            "load_data",
            json!({"measure": "RR", "data": raw.as_array().unwrap()[..3].to_vec()}),
        ));
        calls.push(("load_data", json!({"measure": "PR", "add": 0, "data": [{"xi": 0, "ni": 10}, {"xi": 3, "ni": 10}, {"xi": 4, "ni": 12}, {"xi": null, "ni": 12}]})));
        let mut mixed = rr();
        mixed[0]["arm"] = json!(7);
        mixed[3]["g"] = json!(2);
        for (tool, a) in [
            (
                "meta_regression",
                json!({"records": mixed.clone(), "mods": ["x", "arm"]}),
            ),
            (
                "meta_regression",
                json!({"records": rr(), "mods": "~ arm * g"}),
            ),
            (
                "meta_regression",
                json!({"records": rr(), "mods": "~ arm * g", "test": "knha", "measure": "RR", "at": [{"arm": "p", "g": "u"}]}),
            ),
            (
                "subgroup_analysis",
                json!({"records": mixed.clone(), "by": "arm"}),
            ),
            (
                "subgroup_analysis",
                json!({"records": mixed.clone(), "by": "g", "measure": "RR"}),
            ),
            (
                "fit_multilevel",
                json!({"records": mixed.clone(), "mods": ["arm"]}),
            ),
            (
                "fit_multilevel",
                json!({"records": rr(), "mods": "~ arm * g"}),
            ),
            (
                "robust_test",
                json!({"records": mixed.clone(), "cluster": "study", "model": "regression", "mods": ["arm"]}),
            ),
            (
                "robust_test",
                json!({"records": rr(), "cluster": "arm", "model": "regression", "mods": "~ x"}),
            ),
            (
                "robust_test",
                json!({"records": rr(), "cluster": "arm", "method": "EE"}),
            ),
            (
                "robust_test",
                json!({"records": mixed.clone(), "cluster": "g"}),
            ),
            (
                "robust_test",
                json!({"records": rr(), "cluster": "study", "model": "regression", "mods": "~ x * g"}),
            ),
        ] {
            calls.push((tool, a));
        }
        calls.push(("load_data", json!({"records": rr()})));
        calls.push(("load_data", json!({"records": gappy()})));
        calls.into_iter().map(|(t, a)| (t.to_string(), a)).collect()
    }

    #[test]
    fn the_typed_printers_print_what_the_json_printers_printed() {
        let mut calls: Vec<(String, Value)> = Vec::new();
        for name in TOOLS {
            if let Some(tool) = crate::tools::find(name) {
                calls.extend((tool.examples)().into_iter().map(|a| (name.to_string(), a)));
            }
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let v: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                collect(&v, &mut calls);
            }
        }
        calls.extend(extras());
        let mut compared = std::collections::BTreeMap::<String, usize>::new();
        let mut errors = 0;
        let mut reasons = std::collections::BTreeMap::<String, usize>::new();
        let mut markers = std::collections::BTreeMap::<String, usize>::new();
        let mut failures = Vec::new();
        for (tool, args) in &calls {
            if !TOOLS.contains(&tool.as_str()) {
                continue;
            }
            let result = match crate::tools::call(tool, args) {
                Ok(r) => r,
                Err(e) => {
                    errors += 1;
                    *reasons
                        .entry(format!(
                            "{tool}: {}",
                            e.message.chars().take(70).collect::<String>()
                        ))
                        .or_default() += 1;
                    continue;
                }
            };
            let new = crate::tools::summary(tool, &result);
            for marker in MARKERS {
                if new.as_deref().is_some_and(|t| t.contains(marker)) {
                    *markers.entry(format!("{tool} {marker}")).or_default() += 1;
                }
            }
            let old = legacy(tool, &result);
            if new != old {
                failures.push(format!("{tool} {args}\n--- old\n{old:?}\n--- new\n{new:?}"));
            }
            *compared.entry(tool.clone()).or_default() += 1;
        }
        eprintln!("compared {compared:?}; {errors} calls failed");
        for (r, n) in &reasons {
            eprintln!("ERR {n:5} {r}");
        }
        for (r, n) in &markers {
            eprintln!("MARK {n:5} {r}");
        }
        assert!(
            failures.is_empty(),
            "{} differ:\n{}",
            failures.len(),
            failures[..failures.len().min(5)].join("\n\n")
        );
    }
}
