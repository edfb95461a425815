//! The printers not yet written beside their tools: each reads its result's JSON (the
//! typed result serialized) and lays it out with the formatting library ([`crate::printed`]).
//! A tool's [`crate::printed::Printed`] impl calls its printer here until the printer moves
//! beside the tool, typed.

#![allow(dead_code)]

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
// Coefficient tables (print.rma.uni with moderators)

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
