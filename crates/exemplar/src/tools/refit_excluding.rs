//! `refit_excluding`: the fit without the records named.

use super::args::FitArgs;
use super::data::DataSource;
use super::fit::RefitResult;
use super::scale::Scale;
#[cfg(feature = "definitions")]
use super::schema_derivation as schemas;
use super::{Companion, ErrorCode, Tool, ToolError, ToolGroup, FOREST_PLOT, MAX_TOOL_RECORDS};

pub static REFIT_EXCLUDING: Tool = Tool {
    name: "refit_excluding",
    title: "Refit without some records",
    summary: "The same fit without the records you name.",
    group: ToolGroup::Benchmark,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::same_arguments(&FOREST_PLOT)),
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "The random-effects fit again without the records in `exclude`; at least 2 must \
remain."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(refit_excluding; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    examples::fit_options()
        .into_iter()
        .map(|o| examples::with(o, "exclude", json!(["s04"])))
        .collect()
}

composed_args! {
    /// `refit_excluding`'s arguments: the ids to leave out (at least one), and a fit's.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct RefitArgs {
        /// Ids to leave out (at least one), e.g. ["s04"].
        #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::exclude"))]
        pub exclude: Vec<String>,
        #[flat]
        pub fit: FitArgs,
    }
}

/// `refit_excluding`
pub fn refit_excluding(args: RefitArgs, data: &DataSource) -> Result<RefitResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let excluded = data.exclusions(args.exclude)?;
    if excluded.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            "exclude must list at least one record id, e.g. [\"s04\"]",
        ));
    }
    let fit = meta_analysis::refit_excluding(data.records(), &excluded, &options)?;
    Ok(RefitResult::of(&fit, excluded, data, &scale))
}

/// `rma(..., subset = !(id %in% exclude))`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for RefitArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_checks, fit_methods, rma_of_fit};
        let options = self.fit.options()?;
        out.script
            .line(format!("res <- {}", rma_of_fit(cx, &self.exclude, &self.fit)?));
        fit_checks(out, cx.result);
        fit_methods(
            &mut out.methods,
            cx.result["measure"].as_str(),
            options.method,
            options.test,
            options.level,
            false,
        );
        out.methods.say(
            &format!(
                "As a sensitivity analysis, the model was refitted without {} of the studies.",
                self.exclude.len()
            ),
            &[],
        );
        Ok(())
    }
}
