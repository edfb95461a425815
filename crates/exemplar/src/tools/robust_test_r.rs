//! `robust_test`'s R code (`r_code: true`): the model fitted with metafor (`rma()`, or
//! `fit_multilevel`'s `rma.mv()` for the multilevel and general models), then metafor's
//! `robust()` over the cluster column: CR2 through clubSandwich (`clubSandwich = TRUE`:
//! clubSandwich's `vcovCR(type = "CR2")`, `coef_test()` with Satterthwaite df, `conf_int()`
//! and `Wald_test(test = "HTZ")` of the fit's `btt`), CR1 as `robust(adjust = TRUE)`. `res`
//! is the robust test object; its numbers are checked against the result's.

use super::fit_multilevel::{rma_mv_arguments, FitMultilevelArgs};
use super::reproduce::{fit_arguments, subset_expression, RContext, Reproducible, Reproduction};
use super::robust_test::{RobustArgs, RobustModel};
use super::ToolError;
use crate::rcode::{self, Script};
use serde_json::Value;

impl Reproducible for RobustArgs {
    fn reproduce(&self, cx: &RContext, out: &mut Reproduction) -> Result<(), ToolError> {
        let r = cx.result;
        let multilevel = r["model"].as_str() == Some(RobustModel::Multilevel.name());
        let cr2 = r["vcov"].as_str() == Some(meta_analysis::RobustVcov::Cr2.name());
        let cluster = rcode::name(&self.cluster);
        // Records without a cluster are left out by the tool (`omitted`); robust() refuses
        // a missing cluster, so the fit's subset leaves them out.
        let cluster_missing = r["omitted"].as_array().is_some_and(|o| !o.is_empty());
        let btt = self
            .btt
            .btt
            .as_ref()
            .and(r["moderators_test"]["btt"].as_array())
            .map(|b| rcode::vector(b.iter().map(|j| j.to_string())));
        let random = if multilevel {
            Some(self.rma_mv(cx, out, btt, cluster_missing.then_some(&cluster))?)
        } else {
            self.fit_single_level(cx, out, btt, cluster_missing.then_some(&cluster))?;
            None
        };
        let how = if cr2 {
            "clubSandwich = TRUE"
        } else {
            "adjust = TRUE"
        };
        if cr2 {
            out.script.comment(
                "CR2 with Satterthwaite df through clubSandwich (coef_test, conf_int, and \
                 Wald_test with test = \"HTZ\" for the fit's btt).",
            );
        }
        out.script
            .line(format!("res <- robust(fit, cluster = {cluster}, {how})"));
        checks(out, r);
        methods(out, r, random.as_deref(), cr2);
        Ok(())
    }
}

impl RobustArgs {
    /// `fit <- rma(yi, vi, mods, data, subset, method, level, btt, control)`.
    fn fit_single_level(
        &self,
        cx: &RContext,
        out: &mut Reproduction,
        btt: Option<String>,
        cluster_missing: Option<&String>,
    ) -> Result<(), ToolError> {
        let mut args = vec!["yi".to_string(), "vi".into(), "data = dat".into()];
        if let Some(mods) = &self.mods.mods {
            args.push(format!("mods = {}", mods.formula()?.text()));
        }
        let mut subset: Vec<String> = subset_expression(cx, &self.exclude.exclude)
            .into_iter()
            .collect();
        subset.extend(cluster_missing.map(|c| format!("!is.na({c})")));
        if !subset.is_empty() {
            args.push(format!("subset = {}", subset.join(" & ")));
        }
        args.extend(btt.map(|b| format!("btt = {b}")));
        args.extend(fit_arguments(
            self.method.get(),
            self.level.get()?,
            meta_analysis::Test::Z,
        ));
        out.script
            .line(format!("fit <- {}", Script::call("rma", &args)));
        Ok(())
    }

    /// `fit <- rma.mv(...)`: the three-level model on `study`, or the general model, as
    /// `fit_multilevel` writes it; gives its random terms.
    fn rma_mv(
        &self,
        cx: &RContext,
        out: &mut Reproduction,
        btt: Option<String>,
        cluster_missing: Option<&String>,
    ) -> Result<String, ToolError> {
        use super::args::FromArgs;
        // `fit_multilevel`'s arguments: this call's, with `general`'s keys in place of it.
        let mut args = cx.args.clone();
        let general = args.remove("general");
        if let Some(Value::Object(general)) = general {
            args.extend(general);
        }
        let model = FitMultilevelArgs::from_args(&args)
            .map_err(|e| super::multilevel::invalid(format!("r_code: {e}")))?;
        let mut mv = rma_mv_arguments(&model, cx, out)?;
        if let Some(c) = cluster_missing {
            let clause = format!("!is.na({c})");
            match mv.args.iter_mut().find(|a| a.starts_with("subset = ")) {
                Some(subset) => subset.push_str(&format!(" & {clause}")),
                None => mv.args.push(format!("subset = {clause}")),
            }
        }
        if let Some(b) = btt {
            mv.args.push(format!("btt = {b}"));
        }
        out.script
            .line(format!("fit <- {}", Script::call("rma.mv", &mv.args)));
        Ok(mv.random)
    }
}

/// The numbers of `res` (robust()'s object) that must be the result's: each coefficient's
/// estimate, robust SE, t, df, p and interval; the moderators' test; the fit's heterogeneity.
fn checks(out: &mut Reproduction, r: &Value) {
    out.check_at("res$k", r, "/k");
    for (j, _) in r["coefficients"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = j + 1;
        let c = format!("/coefficients/{j}");
        out.check_at(format!("c(coef(res))[{at}]"), r, &format!("{c}/estimate"))
            .check_at(format!("res$se[{at}]"), r, &format!("{c}/se"))
            .check_at(format!("res$zval[{at}]"), r, &format!("{c}/statistic"))
            .check_at(
                format!("rep_len(res$ddf, res$p)[{at}]"),
                r,
                &format!("{c}/df"),
            )
            .check_at(format!("res$pval[{at}]"), r, &format!("{c}/p"))
            .check_at(format!("res$ci.lb[{at}]"), r, &format!("{c}/ci_lower"))
            .check_at(format!("res$ci.ub[{at}]"), r, &format!("{c}/ci_upper"));
    }
    out.check_at("res$QM", r, "/moderators_test/f")
        .check_at("res$QMdf[1]", r, "/moderators_test/df1")
        .check_at("res$QMdf[2]", r, "/moderators_test/df2")
        .check_at("res$QMp", r, "/moderators_test/p");
    out.check_at("res$tau2", r, "/heterogeneity/tau2")
        .check_at("res$se.tau2", r, "/heterogeneity/se_tau2")
        .check_at("res$I2", r, "/heterogeneity/i2")
        .check_at("res$H2", r, "/heterogeneity/h2")
        .check_at("res$R2", r, "/heterogeneity/r2")
        .check_at("res$QE", r, "/heterogeneity/q")
        .check_at("res$QEp", r, "/heterogeneity/q_p");
}

/// The methods sentences: the model and its estimator, the clusters, the robust variance
/// with its df and references, the moderators' test.
fn methods(out: &mut Reproduction, r: &Value, random: Option<&str>, cr2: bool) {
    use crate::rcode::{HEDGES_2010, PUSTEJOVSKY_2018, TIPTON_2015};
    let m = &mut out.methods;
    if let Some(measure) = r["measure"].as_str() {
        m.say(
            &format!("The analysis was carried out using the {measure} as the outcome measure."),
            &[],
        );
    }
    let method = r["method"].as_str().unwrap_or("REML");
    let estimator = rcode::estimator(method);
    let formula = r["formula"].as_str();
    match (random, formula) {
        (Some(random), _) => m.say(
            &format!(
                "A multilevel (multivariate) meta-analytic model was fitted to the data, with \
                 random effects {random}{}.",
                formula.map_or(String::new(), |f| format!(" and moderators {f}"))
            ),
            &[],
        ),
        (None, Some(f)) if estimator.is_some() => m.say(
            &format!("A mixed-effects meta-regression model ({f}) was fitted to the data."),
            &[],
        ),
        (None, Some(f)) => m.say(
            &format!("An equal-effects meta-regression model ({f}) was fitted to the data."),
            &[],
        ),
        (None, None) if estimator.is_some() => {
            m.say("A random-effects model was fitted to the data.", &[])
        }
        (None, None) => m.say("An equal-effects model was fitted to the data.", &[]),
    };
    if let Some((name, reference)) = estimator {
        let what = if random.is_some() {
            "The variance components were"
        } else {
            "The amount of heterogeneity (i.e., tau^2) was"
        };
        m.say(
            &format!("{what} estimated using the {name} estimator {{}}."),
            &[reference],
        );
    }
    let percent = rcode::number(100.0 * r["level"].as_f64().unwrap_or(0.95));
    let (k, clusters) = (&r["k"], &r["n_clusters"]);
    let cluster = r["cluster"].as_str().unwrap_or_default();
    m.say(
        &format!(
            "The {k} estimates were grouped into {clusters} clusters by \"{cluster}\", within \
             which they may be dependent, and the coefficients were tested with cluster-robust \
             (sandwich) standard errors {{}}."
        ),
        &[&HEDGES_2010],
    );
    if cr2 {
        m.say(
            &format!(
                "The bias-reduced linearization estimator (CR2) of the variance was used, with \
                 t tests and {percent}% confidence intervals on Satterthwaite degrees of \
                 freedom {{}}."
            ),
            &[&TIPTON_2015, &PUSTEJOVSKY_2018],
        );
    } else {
        m.say(
            &format!(
                "The CR1 estimator of the variance (the sandwich estimator with the \
                 small-sample factor m/(m - p), m the clusters and p the coefficients) was \
                 used, with t tests and {percent}% confidence intervals on m - p degrees of \
                 freedom."
            ),
            &[],
        );
    }
    if let Some(btt) = r["moderators_test"]["btt"].as_array() {
        let positions: Vec<String> = btt.iter().map(Value::to_string).collect();
        let coefficients = match positions.as_slice() {
            [one] => format!("coefficient {one} was"),
            many => format!("coefficients {} were", many.join(", ")),
        };
        if cr2 {
            m.say(
                &format!(
                    "The {coefficients} tested with the approximate Hotelling's T^2 test \
                     (HTZ) {{}}."
                ),
                &[&TIPTON_2015],
            );
        } else {
            m.say(
                &format!(
                    "The {coefficients} tested with a cluster-robust Wald F test on m and \
                     m - p degrees of freedom."
                ),
                &[],
            );
        }
    }
    if cr2 {
        m.say(
            "The cluster-robust tests are those of the clubSandwich package {}.",
            &[&rcode::CLUBSANDWICH],
        );
    }
}
