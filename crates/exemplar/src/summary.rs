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
