//! `compare_models`: metafor's anova() and fitstats() over fits of one data set: each fit's
//! log-likelihood, deviance, AIC, BIC and AICc, the likelihood-ratio test of two nested fits,
//! and the Wald test of a set of one fit's coefficients (`btt`).

use super::args::{model_data, BttArg, DataArg, ExcludeArg, Mods};
use super::data::{DataSource, DatasetInfo};
use super::multilevel::{invalid, labels};
use super::{Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
use crate::printed::{
    coefficient_name, df, f4, fcf, format_btt, frame_table, pval, r_num, Out, Printed,
};
use meta_analysis::{
    Candidate, Contrasts, FitColumns, FitOptions, FitStatistics, LikelihoodRatio, Method,
    MultilevelOptions,
    MultilevelTest, RandomPart, Record, Test, WaldBtt,
};
use serde::{Deserialize, Serialize};

pub static COMPARE_MODELS: Tool = Tool {
    name: "compare_models",
    title: "Compare models",
    summary: "LRT and AIC/BIC/AICc of two fits, or Wald tests.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "metafor's anova() and fitstats() over `models`, fits of one data set ({}, {} \
or {} with mods, method, test, study). Two: their fit statistics \
and, if nested, the LRT. One: the Wald test of btt or X.",
            super::FIT_RANDOM_EFFECTS.name,
            super::META_REGRESSION.name,
            super::FIT_MULTILEVEL.name
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(compare_models; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    let (re, mr, ml) = (
        super::FIT_RANDOM_EFFECTS.name,
        super::META_REGRESSION.name,
        super::FIT_MULTILEVEL.name,
    );
    let full = json!({"tool": mr, "arguments": {"mods": ["x"], "method": "ML"}});
    let reduced = json!({"tool": re, "arguments": {"method": "ML"}});
    vec![
        json!({"records": examples::nested(), "models": [full, reduced]}),
        json!({"records": examples::nested(), "models": [
            {"tool": ml, "arguments": {"study": "study"}},
            {"tool": re}]}),
        json!({"records": examples::nested(), "models": [full.clone()], "btt": [2]}),
        json!({"records": examples::nested(), "models": [full], "X": [[1, 1], [1, 3]]}),
    ]
}

/// One model: a fitting tool and its arguments (the data aside).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ModelSpec {
    pub tool: String,
    #[serde(default)]
    pub arguments: ModelArguments,
}

/// The fitting tool's arguments that shape the model.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ModelArguments {
    #[serde(default)]
    pub mods: Option<ModsValue>,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub test: Option<String>,
    #[serde(default)]
    pub study: Option<String>,
}

/// `mods` as the fitting tools take it.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub enum ModsValue {
    Formula(String),
    Terms(Vec<String>),
}

#[cfg(feature = "definitions")]
fn models_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "array",
        "items": {"type": "object"},
        "description": "[{tool, arguments}]: one or two."}))
    .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn x_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "array",
        "items": {"type": "array", "items": {"type": "number"}},
        "description": "anova's X: rows of coefficient weights."}))
    .expect("an object schema")
}

composed_args! {
    /// `compare_models`'s arguments: the models, `btt`, `exclude` and the data.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct CompareModelsArgs {
        #[cfg_attr(feature = "definitions", schemars(schema_with = "models_schema"))]
        pub models: Vec<ModelSpec>,
        #[flat]
        pub btt: BttArg,
        #[serde(default, rename = "X", skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "x_schema"))]
        pub x: Option<Vec<Vec<f64>>>,
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
    }
}

/// One fit's statistics (metafor's fitstats()).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ModelStatistics {
    /// The fitting tool.
    pub tool: String,
    pub method: crate::tools::Word,
    /// One fit: its own likelihood (REML for a REML fit, else ML). Two: both fits under the
    /// full model's (REML when it is a REML fit, else ML; `reml` says which), as anova()
    /// and fitstats(full, reduced) read them.
    #[serde(flatten)]
    pub stats: FitStatistics,
    /// Cochran's QE (Q without moderators).
    pub qe: f64,
    /// The random-effects fits' tau^2 (null otherwise).
    pub tau2: Option<f64>,
    /// The three-level fit's sigma^2 (between studies, within; empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sigma2: Vec<f64>,
    /// The coefficients' names.
    pub coefficients: Vec<String>,
}

/// `compare_models`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct CompareModelsResult {
    /// Each model's statistics, in the order given.
    pub models: Vec<ModelStatistics>,
    /// Two models: the position (from 0) of the full model (more parameters) and of the
    /// reduced one, and whether the reduced is nested in the full.
    pub full: Option<usize>,
    pub reduced: Option<usize>,
    pub nested: Option<bool>,
    /// The likelihood-ratio test (null when not nested, or where metafor does not give it:
    /// `notes` say why).
    pub lrt: Option<LikelihoodRatio>,
    /// Of the reduced model: 100 max(0, (tau2_r - tau2_f)/tau2_r) (residual variances for
    /// equal-effects fits), as metafor's anova() prints R^2; null for the three-level model.
    pub r2: Option<f64>,
    /// One model with btt: the Wald test of those coefficients.
    pub wald: Option<WaldBtt>,
    /// One model with X: each row's test and the omnibus test (anova(fit, X = )).
    pub contrasts: Option<ContrastTests>,
    pub notes: Vec<String>,
    pub dataset: DatasetInfo,
}

/// The tests of the rows of X.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ContrastTests {
    /// X's rows (with the intercept's 1 prepended where a row left it out), and the names of
    /// the coefficients they weigh.
    pub x: Vec<Vec<f64>>,
    pub coefficients: Vec<String>,
    #[serde(flatten)]
    pub tests: Contrasts,
}

/// One fit, with what the comparison reads.
struct Fitted {
    stats: ModelStatistics,
    /// Both likelihoods' statistics (metafor's fit.stats).
    columns: FitColumns,
    random: RandomPart,
    method: Method,
    records: Vec<Record>,
    beta: Vec<f64>,
    vb: Vec<Vec<f64>>,
    /// k − p under t tests.
    df2: Option<f64>,
}

fn method_of(name: Option<&str>) -> Result<Method, ToolError> {
    match name {
        None => Ok(FitOptions::default().method),
        Some(n) => Method::parse(n).ok_or_else(|| invalid(format!("unknown method {n:?}"))),
    }
}

/// Fits `spec` to the data (after `excluded`).
fn fit(spec: &ModelSpec, data: &DataSource, excluded: &[String]) -> Result<Fitted, ToolError> {
    let a = &spec.arguments;
    let mods = a.mods.clone().map(|m| match m {
        ModsValue::Formula(f) => Mods::Formula(f),
        ModsValue::Terms(t) => Mods::Terms(t),
    });
    let kind = spec.tool.as_str();
    let multilevel = kind == super::FIT_MULTILEVEL.name;
    if ![super::FIT_RANDOM_EFFECTS.name, super::META_REGRESSION.name].contains(&kind) && !multilevel {
        return Err(invalid(format!(
            "a model's tool must be {:?}, {:?} or {:?}, got {kind:?}",
            super::FIT_RANDOM_EFFECTS.name,
            super::META_REGRESSION.name,
            super::FIT_MULTILEVEL.name
        )));
    }
    let regression = kind == super::META_REGRESSION.name;
    if regression != mods.is_some() && !multilevel {
        return Err(invalid(format!(
            "{kind:?} takes mods exactly when it is {:?}",
            super::META_REGRESSION.name
        )));
    }
    if a.study.is_some() && !multilevel {
        return Err(invalid(format!("study belongs to {:?}", super::FIT_MULTILEVEL.name)));
    }
    let study = a.study.clone().unwrap_or_else(|| super::multilevel::DEFAULT_STUDY.to_string());
    let also: Vec<&str> = if multilevel { vec![study.as_str()] } else { vec![] };
    let md = model_data(mods.as_ref(), &also, excluded.to_vec(), data)?;
    let records = data.kept(&md.excluded);
    let yi: Vec<f64> = records.iter().map(|r| r.yi).collect();
    let vi: Vec<f64> = records.iter().map(|r| r.vi).collect();
    let method = method_of(a.method.as_deref())?;
    let (stats, columns, random, beta, vb, df2) = if multilevel {
        let test = match a.test.as_deref() {
            None => MultilevelTest::ALL[0],
            Some(t) => MultilevelTest::parse(t)
                .ok_or_else(|| invalid(format!("the multilevel model's test is z or t, got {t:?}")))?,
        };
        let options = MultilevelOptions { method, test, ..Default::default() };
        let studies = labels(data, &study, "study", &md.excluded)?;
        let m = match md.matrix() {
            Some(design) => meta_analysis::multilevel_design(&records, &studies, design, &options)?,
            None => meta_analysis::multilevel(&records, &studies, &[], &options)?,
        };
        let names: Vec<String> = m.coefficients.iter().map(|c| c.name.clone()).collect();
        let columns = FitColumns::new(
            m.loglik_at_estimates(false)?,
            m.loglik_at_estimates(true)?,
            &vi,
            m.p,
            m.p + 2,
        );
        let s = ModelStatistics {
            tool: kind.to_string(),
            method: method.name().into(),
            stats: columns.own(method).clone(),
            qe: m.qe,
            tau2: None,
            sigma2: m.sigma2.to_vec(),
            coefficients: names,
        };
        let beta = m.coefficients.iter().map(|c| c.estimate).collect();
        (s, columns, RandomPart::ThreeLevel, beta, m.covariance().to_vec(), m.df)
    } else {
        let test = match a.test.as_deref() {
            None => Test::Z,
            Some(t) => Test::parse(t).ok_or_else(|| invalid(format!("unknown test {t:?}")))?,
        };
        let options = FitOptions { method, test, ..Default::default() };
        let equal = matches!(method, Method::Ee | Method::Fe);
        let random = if equal { RandomPart::None } else { RandomPart::Tau2 };
        let variances = usize::from(!equal);
        let (x, tau2, qe, names, beta, vb, df2) = match md.matrix() {
            Some(design) => {
                let m = meta_analysis::meta_regression_design(&records, design, &options)?;
                let p = m.p;
                let x: Vec<f64> = (0..records.len() * p).map(|ip| design.value(ip / p, ip % p)).collect();
                let names = m.coefficients.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
                let beta = m.coefficients.iter().map(|c| c.estimate).collect();
                let df2 = (test != Test::Z).then(|| (m.k - p) as f64);
                (x, m.tau2, m.qe, names, beta, m.covariance().to_vec(), df2)
            }
            None => {
                let f = meta_analysis::fit(&records, &options)?;
                let x = vec![1.0; records.len()];
                (x, f.tau2, f.q, vec!["intercept".to_string()], vec![f.estimate], vec![vec![f.se * f.se]], f.df)
            }
        };
        let p = names.len();
        let columns = meta_analysis::uni_fit_columns(&yi, &vi, &x, tau2, p + variances)?;
        let s = ModelStatistics {
            tool: kind.to_string(),
            method: method.name().into(),
            stats: columns.own(method).clone(),
            qe,
            tau2: (!equal).then_some(tau2),
            sigma2: Vec::new(),
            coefficients: names,
        };
        (s, columns, random, beta, vb, df2)
    };
    Ok(Fitted { stats, columns, random, method, records, beta, vb, df2 })
}

/// `compare_models`
pub fn compare_models(
    args: CompareModelsArgs,
    data: &DataSource,
) -> Result<CompareModelsResult, ToolError> {
    let excluded = args.exclude.of(data)?;
    if args.models.is_empty() || args.models.len() > 2 {
        return Err(invalid(format!(
            "models holds one fit (with btt) or two to compare, got {}",
            args.models.len()
        )));
    }
    let fits = args
        .models
        .iter()
        .map(|m| fit(m, data, &excluded))
        .collect::<Result<Vec<_>, _>>()?;
    let btt = args.btt.get()?;
    if btt.is_some() && args.x.is_some() {
        return Err(invalid("give btt or X, not both".into()));
    }
    let mut result = CompareModelsResult {
        models: fits.iter().map(|f| f.stats.clone()).collect(),
        full: None,
        reduced: None,
        nested: None,
        lrt: None,
        r2: None,
        wald: None,
        contrasts: None,
        notes: Vec::new(),
        dataset: data.info().clone(),
    };
    match (fits.as_slice(), btt) {
        ([one], Some(btt)) => {
            let names: Vec<&str> = one.stats.coefficients.iter().map(String::as_str).collect();
            let positions = btt.positions(&names)?;
            result.wald = Some(meta_analysis::wald_btt(&one.beta, &one.vb, &positions, one.df2)?);
        }
        ([one], None) => {
            let Some(x) = &args.x else {
                return Err(invalid(
                    "one model needs btt or X (what to test); or give two models".into(),
                ));
            };
            result.contrasts = Some(contrasts(one, x)?);
        }
        ([a, b], None) if args.x.is_none() => {
            let ys: Vec<Vec<f64>> = fits.iter().map(|f| f.records.iter().map(|r| r.yi).collect()).collect();
            let vs: Vec<Vec<f64>> = fits.iter().map(|f| f.records.iter().map(|r| r.vi).collect()).collect();
            fn candidate<'a>(f: &'a Fitted, yi: &'a [f64], vi: &'a [f64]) -> Candidate<'a> {
                Candidate {
                    method: f.method,
                    random: f.random,
                    coefficients: &f.stats.coefficients,
                    stats: &f.columns,
                    yi,
                    vi,
                }
            }
            let c = meta_analysis::compare(
                &candidate(a, &ys[0], &vs[0]),
                &candidate(b, &ys[1], &vs[1]),
            )?;
            let (f, r) = (&fits[c.full], &fits[c.reduced]);
            result.r2 = r2(f, r);
            for (shown, fit) in result.models.iter_mut().zip(&fits) {
                shown.stats = fit.columns.on(c.reml).clone();
            }
            result.full = Some(c.full);
            result.reduced = Some(c.reduced);
            result.nested = Some(c.nested);
            result.lrt = c.lrt;
            result.notes = c.notes;
        }
        _ => {
            return Err(invalid(
                "btt and X test one model's coefficients: give one model".into(),
            ))
        }
    }
    Ok(result)
}

/// anova(fit, X = ): a row one shorter than the coefficients gets the intercept's 1 first,
/// as metafor does.
fn contrasts(fit: &Fitted, x: &[Vec<f64>]) -> Result<ContrastTests, ToolError> {
    let names = &fit.stats.coefficients;
    let p = names.len();
    let intercept = names.first().is_some_and(|n| n == "intercept");
    let x: Vec<Vec<f64>> = x
        .iter()
        .map(|row| {
            if intercept && row.len() + 1 == p {
                std::iter::once(1.0).chain(row.iter().copied()).collect()
            } else {
                row.clone()
            }
        })
        .collect();
    let tests = meta_analysis::wald_contrasts(&fit.beta, &fit.vb, &x, fit.df2)?;
    Ok(ContrastTests {
        x,
        coefficients: names.clone(),
        tests,
    })
}

/// metafor's anova() R² of the reduced model against the full (rma.uni fits only): with an
/// equal-effects full model (and so reduced), 100 max(0, (s²_r − s²_f)/s²_r) of the
/// weighted residual variances s² = QE/(k − p); else 0 when the reduced model's τ̂² is 0 (an
/// equal-effects reduced model's included, its τ² being 0), else 100 max(0, (τ̂²_r −
/// τ̂²_f)/τ̂²_r) (anova.rma.r).
fn r2(f: &Fitted, r: &Fitted) -> Option<f64> {
    if f.random == RandomPart::ThreeLevel || r.random == RandomPart::ThreeLevel {
        return None;
    }
    if f.random == RandomPart::None {
        let s2 = |x: &Fitted| x.stats.qe / (x.stats.stats.k - x.stats.stats.p) as f64;
        let (vf, vr) = (s2(f), s2(r));
        return Some(if vr == 0.0 { 0.0 } else { 100.0 * ((vr - vf) / vr).max(0.0) });
    }
    let (tf, tr) = (f.stats.tau2.unwrap_or(0.0), r.stats.tau2.unwrap_or(0.0));
    Some(if tr == 0.0 { 0.0 } else { 100.0 * ((tr - tf) / tr).max(0.0) })
}

/// `print.anova.rma`: the LRT table of two fits (df, AIC, BIC, AICc, logLik, LRT, pval, QE,
/// tau^2, R^2), or the Wald test of one fit's btt coefficients.
impl Printed for CompareModelsResult {
    fn print(&self, out: &mut Out) {
        if let Some(c) = &self.contrasts {
            print_contrasts(c, out);
            return;
        }
        if let Some(w) = &self.wald {
            let btt: Vec<u64> = w.btt.iter().map(|&j| j as u64).collect();
            out.line(format!(
                "Test of Moderators (coefficient{} {}):",
                if w.df1 == 1 { "" } else { "s" },
                format_btt(&btt)
            ));
            out.line(match w.df2 {
                Some(d) => format!(
                    "F(df1 = {}, df2 = {}) = {}, p-val {}",
                    w.df1,
                    r_num((d * 100.0).round() / 100.0),
                    fcf(Some(w.statistic), 4),
                    pval(Some(w.p), true, false)
                ),
                None => format!(
                    "QM(df = {}) = {}, p-val {}",
                    w.df1,
                    fcf(Some(w.statistic), 4),
                    pval(Some(w.p), true, false)
                ),
            });
            return;
        }
        let (Some(full), Some(reduced)) = (self.full, self.reduced) else {
            return;
        };
        let (f, r) = (&self.models[full], &self.models[reduced]);
        // print.anova.rma drops tau^2 for an equal-effects full model and beside rma.mv fits
        // (the three-level model); an equal-effects reduced model's tau^2 is 0.
        let show_tau2 = f.tau2.is_some() && f.sigma2.is_empty() && r.sigma2.is_empty();
        let mut header = vec!["df", "AIC", "BIC", "AICc", "logLik", "LRT", "pval", "QE"];
        if show_tau2 {
            header.push("tau^2");
        }
        if self.r2.is_some() {
            header.push("R^2");
        }
        let row = |m: &ModelStatistics, reduced: bool| -> Vec<String> {
            let s = &m.stats;
            let mut cells = vec![
                s.parms.to_string(),
                fcf(Some(s.aic), 4),
                fcf(Some(s.bic), 4),
                fcf(Some(s.aicc), 4),
                fcf(Some(s.loglik), 4),
            ];
            match (&self.lrt, reduced) {
                (Some(l), true) => {
                    cells.push(fcf(Some(l.chi2), 4));
                    cells.push(pval(Some(l.p), false, false));
                }
                _ => cells.extend([String::new(), String::new()]),
            }
            cells.push(fcf(Some(m.qe), 4));
            if show_tau2 {
                cells.push(fcf(Some(m.tau2.unwrap_or(0.0)), 4));
            }
            if let Some(r2) = self.r2 {
                cells.push(if reduced { format!("{}%", fcf(Some(r2), 4)) } else { String::new() });
            }
            cells
        };
        let rows = vec![
            ("Full".to_string(), row(f, false)),
            ("Reduced".to_string(), row(r, true)),
        ];
        out.lines(frame_table(&header, &rows, 1));
        for note in &self.notes {
            out.blank();
            out.line(note);
        }
    }
}

/// A row of X as metafor writes the hypothesis: each non-zero weight (rounded to 4 decimals)
/// times its coefficient's name, joined by " + ", then metafor's two replacements: every
/// "1*" dropped and "+ -" written "- ".
fn hypothesis(row: &[f64], names: &[String]) -> String {
    let terms: Vec<String> = row
        .iter()
        .zip(names)
        .map(|(w, n)| ((w * 1e4).round() / 1e4, n))
        .filter(|(w, _)| *w != 0.0)
        .map(|(w, n)| format!("{}*{}", r_num(w), coefficient_name(n)))
        .collect();
    format!(
        "{} = 0",
        terms.join(" + ").replace("1*", "").replace("+ -", "- ")
    )
}

/// print.anova.rma's "Wald.Xb" layout: the hypotheses, their tests, the omnibus test.
fn print_contrasts(c: &ContrastTests, out: &mut Out) {
    let m = c.x.len();
    out.line(if m == 1 { "Hypothesis:" } else { "Hypotheses:" });
    let labels: Vec<String> = (1..=m).map(|j| format!("{j}:")).collect();
    let texts: Vec<String> = c.x.iter().map(|row| hypothesis(row, &c.coefficients)).collect();
    let (lw, tw) = (
        labels.iter().map(|l| l.len()).max().unwrap_or(0),
        texts.iter().map(|t| t.chars().count()).max().unwrap_or(0),
    );
    for (l, t) in labels.iter().zip(&texts) {
        out.line(format!("{l:<lw$} {t:>tw$}"));
    }
    out.blank();
    out.line("Results:");
    let t_test = c.tests.hypotheses.first().is_some_and(|h| h.df.is_some());
    let header: Vec<&str> = if t_test {
        vec!["estimate", "se", "tval", "df", "pval"]
    } else {
        vec!["estimate", "se", "zval", "pval"]
    };
    let rows: Vec<(String, Vec<String>)> = labels
        .iter()
        .zip(&c.tests.hypotheses)
        .map(|(l, h)| {
            let mut cells = vec![f4(Some(h.xb)), f4(Some(h.se)), f4(Some(h.statistic))];
            if let Some(d) = h.df {
                cells.push(df(d));
            }
            cells.push(pval(Some(h.p), false, false));
            (l.clone(), cells)
        })
        .collect();
    out.lines(frame_table(&header, &rows, 1));
    if let Some(o) = &c.tests.omnibus {
        out.blank();
        out.line(if m == 1 { "Test of Hypothesis:" } else { "Omnibus Test of Hypotheses:" });
        out.line(match o.df2 {
            Some(d) => format!(
                "F(df1 = {}, df2 = {}) = {}, p-val {}",
                o.df1,
                df(d),
                fcf(Some(o.statistic), 4),
                pval(Some(o.p), true, false)
            ),
            None => format!(
                "QM(df = {}) = {}, p-val {}",
                o.df1,
                fcf(Some(o.statistic), 4),
                pval(Some(o.p), true, false)
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use serde_json::{json, Value};

    /// The oracle's records of a dataset, with its further columns.
    fn records(ds: &Value) -> Value {
        let n = ds["ids"].as_array().unwrap().len();
        let columns: Vec<&String> = ds
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| !["name", "ids", "yi", "vi"].contains(&k.as_str()))
            .collect();
        (0..n)
            .map(|i| {
                let mut r = json!({"id": ds["ids"][i], "yi": ds["yi"][i], "vi": ds["vi"][i]});
                for c in &columns {
                    r[c.as_str()] = ds[c.as_str()][i].clone();
                }
                r
            })
            .collect()
    }

    /// Every number of metafor's fitstats() and anova() in the oracle, through the tool,
    /// within 1e-8 (relative beyond 1): each fit's statistics in the column metafor reads
    /// (two fits: the full model's, e.g. an equal-effects fit's REML column beside a REML
    /// fit), the LRT and anova()'s R^2.
    #[test]
    #[cfg(feature = "extended")]
    fn the_tool_agrees_with_metafor() {
        let fixture: Value = serde_json::from_str(include_str!(
            "../../../meta-analysis/tests/fixtures/compare_models.json"
        ))
        .unwrap();
        let mut failures = Vec::new();
        let mut close = |label: String, ours: &Value, theirs: &Value| {
            let (a, b) = (ours.as_f64().unwrap(), theirs.as_f64().unwrap());
            if (a - b).abs() > 1e-8 * b.abs().max(1.0) {
                failures.push(format!("{label}: {a} vs metafor {b}"));
            }
        };
        let cases = fixture["results"].as_array().unwrap();
        assert_eq!(cases.len(), 19);
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let ds = fixture["datasets"]
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["name"] == case["data"])
                .unwrap();
            let models: Vec<Value> = case["models"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| match m.get("arguments") {
                    Some(a) => json!({"tool": m["tool"], "arguments": a}),
                    None => json!({"tool": m["tool"]}),
                })
                .collect();
            let mut args = json!({"records": records(ds), "models": models});
            if !case["btt"].is_null() {
                args["btt"] = case["btt"].clone();
            }
            if !case["X"].is_null() {
                args["X"] = case["X"].clone();
            }
            let r = crate::tools::call(super::COMPARE_MODELS.name, &args)
                .unwrap_or_else(|e| panic!("{name}: {e:?}"));
            for (i, m) in case["models"].as_array().unwrap().iter().enumerate() {
                let ours = &r["models"][i];
                assert_eq!(ours["parms"], m["parms"], "{name}");
                assert_eq!(ours["reml"], m["reml"], "{name} model {i}: the column read");
                for (key, theirs) in [
                    ("loglik", "loglik"),
                    ("deviance", "deviance"),
                    ("aic", "aic"),
                    ("bic", "bic"),
                    ("aicc", "aicc"),
                    ("qe", "qe"),
                ] {
                    close(format!("{name} model {i} {key}"), &ours[key], &m[theirs]);
                }
            }
            if !case["lrt"].is_null() {
                let lrt = &r["lrt"];
                assert!(lrt.is_object(), "{name}: no LRT: {}", r["notes"]);
                close(format!("{name} LRT"), &lrt["chi2"], &case["lrt"]);
                close(format!("{name} LRT p"), &lrt["p"], &case["lrt_p"]);
                assert_eq!(lrt["df"], case["lrt_df"], "{name}");
            }
            if !case["r2"].is_null() {
                close(format!("{name} R^2"), &r["r2"], &case["r2"]);
            }
            if !case["no_lrt"].is_null() {
                assert!(r["lrt"].is_null(), "{name}: an LRT");
                assert!(!r["notes"].as_array().unwrap().is_empty(), "{name}: no note");
            }
            if !case["X"].is_null() {
                let c = &r["contrasts"];
                for (j, h) in c["hypotheses"].as_array().unwrap().iter().enumerate() {
                    for (key, theirs) in [
                        ("xb", "estimate"),
                        ("se", "se"),
                        ("statistic", "statistic"),
                        ("p", "pval"),
                    ] {
                        close(format!("{name} row {j} {key}"), &h[key], &case[theirs][j]);
                    }
                    if !case["ddf"][j].is_null() {
                        close(format!("{name} row {j} df"), &h["df"], &case["ddf"][j]);
                    }
                }
                close(format!("{name} QM"), &c["omnibus"]["statistic"], &case["qm"]);
                close(format!("{name} QM p"), &c["omnibus"]["p"], &case["qm_p"]);
            }
            if !case["wald"].is_null() {
                let w = &r["wald"];
                close(format!("{name} Wald"), &w["statistic"], &case["wald"]);
                close(format!("{name} Wald p"), &w["p"], &case["wald_p"]);
                assert_eq!(w["df1"], case["wald_df1"], "{name}");
                if !case["wald_df2"].is_null() {
                    close(format!("{name} df2"), &w["df2"], &case["wald_df2"]);
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    #[cfg(feature = "extended")]
    fn different_records_are_refused() {
        let records = json!([
            {"id": "a", "yi": 0.1, "vi": 0.01, "x": 1},
            {"id": "b", "yi": 0.3, "vi": 0.02, "x": 2},
            {"id": "c", "yi": 0.2, "vi": 0.03},
            {"id": "d", "yi": 0.5, "vi": 0.01, "x": 4}
        ]);
        let args = json!({"records": records, "models": [
            {"tool": "meta_regression", "arguments": {"mods": ["x"], "method": "ML"}},
            {"tool": "fit_random_effects", "arguments": {"method": "ML"}}]});
        let e = crate::tools::call(super::COMPARE_MODELS.name, &args).unwrap_err();
        assert!(format!("{e:?}").contains("not equal"), "{e:?}");
    }
}
