//! `bubble_plot`: effects against a numeric moderator with the meta-regression's line.

use super::args::{ExcludeArg, FitArgs};
use super::data::DataSource;
use super::meta_regression::MetaRegressionResult;
use super::plot::{measure_title, model_name, subtitle};
use super::scale::Scale;
#[cfg(feature = "definitions")]
use super::META_REGRESSION;
use super::{ErrorCode, Tool, ToolError, ToolGroup};
use crate::plots::{self, BubbleInput};
use meta_analysis::ModeratorColumn;
use serde::Serialize;
use serde_json::Value;

pub static BUBBLE_PLOT: Tool = Tool {
    name: "bubble_plot",
    title: "Bubble plot (SVG)",
    summary: "Effects against a moderator, with the fitted line.",
    group: ToolGroup::Plot,
    max_records: crate::plots::MAX_BUBBLE_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "{} on one numeric moderator `mod`: yi against it, areas proportional to \
1/(vi + tau^2), fitted line and CI band, excluded records hollow.",
            META_REGRESSION.name,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(bubble_plot; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::{json, Value};
    let mut calls: Vec<Value> = examples::methods()
        .map(|m| json!({"mod": "weeks", "method": m}))
        .collect();
    calls.push(json!({"mod": "dose", "records": examples::moderated(), "exclude": ["a"]}));
    calls
}

composed_args! {
    /// `bubble_plot`'s arguments: the numeric moderator, the fit's options and exclusions.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct BubbleArgs {
        /// Numeric moderator column, e.g. "weeks".
        #[serde(rename = "mod")]
        pub moderator: String,
        #[flat]
        pub fit: FitArgs,
        #[flat]
        pub exclude: ExcludeArg,
    }
}

/// `bubble_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct BubblePlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The meta-regression drawn (as the meta-regression tool returns it, without predictions).
    pub fit: MetaRegressionResult,
}

/// `bubble_plot` (test z, level 0.95).
pub fn bubble_plot(args: BubbleArgs, data: &DataSource) -> Result<BubblePlotResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let name = &args.moderator;
    let (excluded, omitted) = data.na_omit(std::slice::from_ref(name), args.exclude.of(data)?)?;
    let moderator = data.moderator(name, &excluded)?;
    if let ModeratorColumn::Factor(_) = moderator.column {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("a bubble plot needs a numeric moderator, but {name} holds text"),
        ));
    }
    let model = meta_analysis::meta_regression(&data.kept(&excluded), &[moderator], &options)?;
    let values = data.numbers(name);
    let plot = plots::bubble(&BubbleInput {
        records: data.records(),
        excluded: &excluded,
        values: &values,
        model: &model,
        title: &measure_title("Bubble", &scale, false),
        subtitle: Some(&subtitle(
            &format!("{} on {name}", model_name(model.method)),
            model.k,
            data,
        )),
        y_label: &scale.axis_title(),
    })?;
    Ok(BubblePlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        fit: MetaRegressionResult::of(
            &model,
            format!("~ {name}"),
            Vec::new(),
            omitted,
            data,
            &scale,
        ),
    })
}

/// The headline of the meta-regression drawn: its test of the moderators.
impl crate::printed::Printed for BubblePlotResult {
    fn print(&self, out: &mut crate::printed::Out) {
        self.fit.headline(out);
    }
}

/// `res <- rma(yi, vi, mods = ~ <mod>)` and `regplot(res)`; the fit's numbers are checked.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for BubbleArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, fit_methods, rma};
        let options = self.fit.options()?;
        let mut more = vec![format!("mods = ~ {}", crate::rcode::name(&self.moderator))];
        more.extend(fit_arguments(options.method, options.level, options.test));
        out.script
            .line(format!("res <- {}", rma(cx, &self.exclude.exclude, more)))
            .line("regplot(res)");
        let fit = &cx.result["fit"];
        for (j, _) in fit["coefficients"].as_array().into_iter().flatten().enumerate() {
            let c = format!("/coefficients/{j}");
            out.check_at(format!("c(coef(res))[{}]", j + 1), fit, &format!("{c}/estimate"))
                .check_at(format!("res$se[{}]", j + 1), fit, &format!("{c}/se"));
        }
        out.check_at("res$tau2", fit, "/tau2")
            .check_at("res$QM", fit, "/qm")
            .check_at("res$QMp", fit, "/qm_p")
            .check_at("res$QE", fit, "/qe");
        fit_methods(
            &mut out.methods,
            fit["measure"].as_str(),
            options.method,
            options.test,
            options.level,
            true,
        );
        out.methods.say(
            &format!(
                "The observed outcomes are shown against {:?} in a bubble plot with the fitted \
                 regression line.",
                self.moderator
            ),
            &[],
        );
        Ok(())
    }
}

