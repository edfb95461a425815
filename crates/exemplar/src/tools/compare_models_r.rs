//! `compare_models`' R code (`r_code: true`): each model fitted with metafor (`fit1`,
//! `fit2`: `rma()`, or `fit_multilevel`'s `rma.mv()`), then `res` the comparison: metafor's
//! `anova(fit1, fit2)` (the likelihood-ratio test), `fitstats(fit1, fit2, REML = )` where the
//! engine gives no LRT (the note says why), or `anova(fit1, btt = )` / `anova(fit1, X = )`
//! for the Wald tests of one fit. Each fit's `fitstats()` and the tests are checked, in the
//! column the result reads (`REML = `: one fit's own; two fits, the full model's).

use super::args::{FromArgs, Mods};
use super::compare_models::{CompareModelsArgs, ModelSpec, ModsValue};
use super::fit_multilevel::{rma_mv_arguments, FitMultilevelArgs};
use super::multilevel::{invalid, DEFAULT_STUDY};
use super::reproduce::{fit_arguments, rma, RContext, Reproducible, Reproduction};
use super::ToolError;
use crate::rcode::{self, Script};
use meta_analysis::{Method, Test};
use serde_json::{json, Value};

impl Reproducible for CompareModelsArgs {
    fn reproduce(&self, cx: &RContext, out: &mut Reproduction) -> Result<(), ToolError> {
        let r = cx.result;
        // metafor's anova() compares fits of one class: beside a three-level fit, the others
        // are rma.mv fits too, their study-level variance fixed at 0 (the two-level model).
        let three_level = self.models.iter().find(|m| multilevel(m));
        let study = three_level.map(|m| m.arguments.study.clone().unwrap_or(DEFAULT_STUDY.into()));
        let three_level_method = three_level.map(method_of).transpose()?;
        let mut described = Vec::new();
        for (i, spec) in self.models.iter().enumerate() {
            let fit = format!("fit{}", i + 1);
            let call = match &study {
                Some(study) => {
                    let method = three_level_method.unwrap_or(Method::Reml);
                    self.rma_mv(spec, study, method, cx, out)?
                }
                None => self.rma(spec, cx)?,
            };
            out.script.line(format!("{fit} <- {call}"));
            model_checks(out, r, i, &fit, study.is_some() && !multilevel(spec));
            described.push(describe(spec)?);
        }
        self.test(out, r);
        methods(out, r, &described);
        Ok(())
    }
}

fn multilevel(spec: &ModelSpec) -> bool {
    spec.tool == super::FIT_MULTILEVEL.name
}

fn mods_of(spec: &ModelSpec) -> Option<Mods> {
    spec.arguments.mods.clone().map(|m| match m {
        ModsValue::Formula(f) => Mods::Formula(f),
        ModsValue::Terms(t) => Mods::Terms(t),
    })
}

fn method_of(spec: &ModelSpec) -> Result<Method, ToolError> {
    match spec.arguments.method.as_deref() {
        None => Ok(meta_analysis::FitOptions::default().method),
        Some(n) => Method::parse(n).ok_or_else(|| invalid(format!("unknown method {n:?}"))),
    }
}

impl CompareModelsArgs {
    /// `rma(yi, vi, mods, data, subset, method, test, control)`.
    fn rma(&self, spec: &ModelSpec, cx: &RContext) -> Result<String, ToolError> {
        let mut more = Vec::new();
        if let Some(mods) = mods_of(spec) {
            more.push(format!("mods = {}", mods.formula()?.text()));
        }
        let test = match spec.arguments.test.as_deref() {
            Some(t) => Test::parse(t).ok_or_else(|| invalid(format!("unknown test {t:?}")))?,
            None => Test::Z,
        };
        more.extend(fit_arguments(method_of(spec)?, 0.95, test));
        Ok(rma(cx, &self.exclude.exclude, more))
    }

    /// `rma.mv(yi, vi, mods, random = ~ 1 | study/id, ...)` as `fit_multilevel` writes it; a
    /// random-effects fit with `sigma2 = c(0, NA)` (its tau^2 the within-study variance), an
    /// equal-effects one with `sigma2 = c(0, 0)` and the three-level fit's `method` (anova()
    /// refuses ML against REML; both columns are the same whichever it is given).
    fn rma_mv(
        &self,
        spec: &ModelSpec,
        study: &str,
        three_level: Method,
        cx: &RContext,
        out: &mut Reproduction,
    ) -> Result<String, ToolError> {
        let a = &spec.arguments;
        let method = method_of(spec)?;
        let mut args = json!({"study": study, "exclude": self.exclude.exclude});
        if let Some(mods) = &a.mods {
            args["mods"] = match mods {
                ModsValue::Formula(f) => json!(f),
                ModsValue::Terms(t) => json!(t),
            };
        }
        if multilevel(spec) {
            args["method"] = json!(method.name());
            if let Some(test) = &a.test {
                args["test"] = json!(test);
            }
        } else {
            let fixed = match method {
                Method::Ee | Method::Fe => json!([0, 0]),
                Method::Reml | Method::Ml => json!([0, null]),
                other => {
                    return Err(invalid(format!(
                        "r_code: metafor's anova() compares a three-level fit only with rma.mv \
                         fits by ML or REML, not by {}; fit the other model with method ML or \
                         REML",
                        other.name()
                    )))
                }
            };
            args["sigma2"] = fixed;
            let method = match method {
                Method::Ee | Method::Fe => three_level,
                other => other,
            };
            args["method"] = json!(method.name());
        }
        let Value::Object(args) = args else {
            unreachable!("an object")
        };
        let model =
            FitMultilevelArgs::from_args(&args).map_err(|e| invalid(format!("r_code: {e}")))?;
        // A result without variance components: the fit is free (or fixed as given).
        let free = json!({});
        let inner = RContext {
            args: cx.args,
            data: cx.data,
            result: &free,
        };
        let mv = rma_mv_arguments(&model, &inner, out)?;
        Ok(Script::call("rma.mv", &mv.args))
    }

    /// `res`: the comparison the result gives, and its checks.
    fn test(&self, out: &mut Reproduction, r: &Value) {
        if let Some(w) = r.get("wald").filter(|w| w.is_object()) {
            let btt = w["btt"].as_array().into_iter().flatten();
            out.script.line(format!(
                "res <- anova(fit1, btt = {})",
                rcode::vector(btt.map(Value::to_string))
            ));
            out.check_at("res$QM", r, "/wald/statistic")
                .check_at("res$QMdf[1]", r, "/wald/df1")
                .check_at("res$QMdf[2]", r, "/wald/df2")
                .check_at("res$QMp", r, "/wald/p");
            return;
        }
        if let (Some(x), Some(c)) = (&self.x, r.get("contrasts").filter(|c| c.is_object())) {
            let rows = x.iter().map(|row| rcode::numbers(row));
            out.script.line(format!(
                "res <- anova(fit1, X = rbind({}))",
                rows.collect::<Vec<_>>().join(", ")
            ));
            for (j, _) in c["hypotheses"].as_array().into_iter().flatten().enumerate() {
                let (at, h) = (j + 1, format!("/contrasts/hypotheses/{j}"));
                out.check_at(format!("res$Xb[{at}]"), r, &format!("{h}/xb"))
                    .check_at(format!("res$se[{at}]"), r, &format!("{h}/se"))
                    .check_at(format!("res$zval[{at}]"), r, &format!("{h}/statistic"))
                    .check_at(format!("res$ddf[{at}]"), r, &format!("{h}/df"))
                    .check_at(format!("res$pval[{at}]"), r, &format!("{h}/p"));
            }
            out.check_at("res$QM", r, "/contrasts/omnibus/statistic")
                .check_at("res$QMdf[2]", r, "/contrasts/omnibus/df2")
                .check_at("res$QMp", r, "/contrasts/omnibus/p");
            return;
        }
        if r["lrt"].is_object() {
            out.script.line("res <- anova(fit1, fit2)");
            out.check_at("res$LRT", r, "/lrt/chi2")
                .check_at("res$pval", r, "/lrt/p")
                .check_at("res$parms.f - res$parms.r", r, "/lrt/df")
                .check_at("res$R2", r, "/r2");
            return;
        }
        out.script.comment(
            "No likelihood-ratio test (as metafor's anova() says, or the models are not \
             nested): the fits are compared by their statistics.",
        );
        let reml = r["models"][0]["reml"] == Value::Bool(true);
        out.script.line(format!(
            "res <- fitstats(fit1, fit2, REML = {})",
            if reml { "TRUE" } else { "FALSE" }
        ));
        let parms = |i: usize| r["models"][i]["parms"].as_u64();
        if parms(0) != parms(1) {
            out.check_at("suppressWarnings(anova(fit1, fit2))$R2", r, "/r2");
        }
    }
}

/// Model `i`'s fitstats() in the column its statistics are read in, QE and variance
/// components.
fn model_checks(out: &mut Reproduction, r: &Value, i: usize, fit: &str, two_level_mv: bool) {
    let m = format!("/models/{i}");
    let reml = if r.pointer(&format!("{m}/reml")) == Some(&Value::Bool(true)) {
        "TRUE"
    } else {
        "FALSE"
    };
    for (row, key) in ["loglik", "deviance", "aic", "bic", "aicc"]
        .into_iter()
        .enumerate()
    {
        out.check_at(
            format!("fitstats({fit}, REML = {reml})[{}, 1]", row + 1),
            r,
            &format!("{m}/{key}"),
        );
    }
    out.check_at(format!("{fit}$parms"), r, &format!("{m}/parms"))
        .check_at(format!("{fit}$QE"), r, &format!("{m}/qe"));
    let tau2 = if two_level_mv {
        format!("{fit}$sigma2[2]")
    } else {
        format!("{fit}$tau2")
    };
    out.check_at(tau2, r, &format!("{m}/tau2"));
    for (j, _) in r["models"][i]["sigma2"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        out.check_at(
            format!("{fit}$sigma2[{}]", j + 1),
            r,
            &format!("{m}/sigma2/{j}"),
        );
    }
}

/// A model in words: "a random-effects model (restricted maximum-likelihood estimator)",
/// with the estimator's reference.
fn describe(spec: &ModelSpec) -> Result<(String, Option<&'static rcode::Reference>), ToolError> {
    let method = method_of(spec)?;
    let estimator = rcode::estimator(method.name());
    let formula = mods_of(spec)
        .map(|m| m.formula().map(|f| f.text().to_string()))
        .transpose()?;
    let moderators = formula.map_or(String::new(), |f| format!(" with moderators {f}"));
    let text = if multilevel(spec) {
        let study = spec.arguments.study.as_deref().unwrap_or(DEFAULT_STUDY);
        format!(
            "a three-level model (random effects ~ 1 | {study}/id){moderators}, its variance \
             components estimated by {}",
            estimator.map_or("", |(name, _)| name)
        )
    } else {
        match (estimator, moderators.is_empty()) {
            (None, true) => "an equal-effects model".to_string(),
            (None, false) => format!("an equal-effects meta-regression{moderators}"),
            (Some((name, _)), true) => {
                format!("a random-effects model, tau^2 estimated by {name}")
            }
            (Some((name, _)), false) => {
                format!("a mixed-effects meta-regression{moderators}, tau^2 estimated by {name}")
            }
        }
    };
    Ok((text, estimator.map(|(_, reference)| reference)))
}

/// The methods sentences: the models, the statistics compared, then the test.
fn methods(
    out: &mut Reproduction,
    r: &Value,
    described: &[(String, Option<&'static rcode::Reference>)],
) {
    use crate::rcode::{AKAIKE_1974, HURVICH_1989, SCHWARZ_1978};
    let m = &mut out.methods;
    let k = &r["models"][0]["k"];
    for (i, (text, reference)) in described.iter().enumerate() {
        let lead = if described.len() == 1 {
            format!("The model fitted to the {k} estimates was {text}")
        } else {
            format!("Model {} fitted to the {k} estimates was {text}", i + 1)
        };
        match reference {
            Some(reference) => m.say(&format!("{lead} {{}}."), &[reference]),
            None => m.say(&format!("{lead}."), &[]),
        };
    }
    if r["wald"].is_object() {
        let btt: Vec<String> = r["wald"]["btt"]
            .as_array()
            .into_iter()
            .flatten()
            .map(Value::to_string)
            .collect();
        let which = match btt.as_slice() {
            [one] => format!("Its coefficient {one} was"),
            many => format!("Its coefficients {} were", many.join(", ")),
        };
        m.say(
            &format!(
                "{which} tested with a Wald-type test (QM, or F with t tests), as metafor's \
                 anova() computes it."
            ),
            &[],
        );
        return;
    }
    if r["contrasts"].is_object() {
        let rows = r["contrasts"]["x"].as_array().map_or(0, Vec::len);
        m.say(
            &format!(
                "{rows} linear combination{} of its coefficients (the rows of X) {} tested with \
                 Wald-type tests and jointly with an omnibus test, as metafor's anova() \
                 computes them.",
                if rows == 1 { "" } else { "s" },
                if rows == 1 { "was" } else { "were" }
            ),
            &[],
        );
        return;
    }
    m.say(
        "The models were compared by their log-likelihoods, deviances and information \
         criteria: Akaike's (AIC) {}, the Bayesian (BIC) {} and the corrected AIC (AICc) {}.",
        &[&AKAIKE_1974, &SCHWARZ_1978, &HURVICH_1989],
    );
    match r["lrt"]["df"].as_u64() {
        Some(df) => m.say(
            &format!(
                "The nested models were compared with a likelihood-ratio test on {df} degree{} \
                 of freedom.",
                if df == 1 { "" } else { "s" }
            ),
            &[],
        ),
        None => m.say(
            "No likelihood-ratio test is reported: the models are not nested, have as many \
             parameters, or were not both fitted by likelihood with the same fixed effects.",
            &[],
        ),
    };
}
