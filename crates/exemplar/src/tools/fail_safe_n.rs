//! `fail_safe_n`: Rosenthal's, Orwin's and Rosenberg's fail-safe N.

use super::args::{DataArg, ExcludeArg};
use super::data::{DataSource, DatasetInfo};
use super::{ErrorCode, Tool, ToolError, ToolGroup, MAX_TOOL_RECORDS};
use meta_analysis::{FailSafeN, FailSafeType};
use crate::printed::{f4, pval, r_num, Out, Printed};
use serde::Serialize;

pub static FAIL_SAFE_N: Tool = Tool {
    name: "fail_safe_n",
    title: "Fail-safe N",
    summary: "How many null studies would overturn the result.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "As metafor's fsn(). Rosenthal: Stouffer's z below the one-sided critical value; Orwin: \
the mean down to `target`; Rosenberg: the equal-effects estimate not significant. Needs 2 \
records."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(fail_safe_n; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::{json, Value};
    let mut calls: Vec<Value> = ["Rosenthal", "Orwin", "Rosenberg"]
        .into_iter()
        .flat_map(|kind| {
            [
                json!({"type": kind}),
                json!({"type": kind, "alpha": 0.01, "records": examples::records()}),
            ]
        })
        .collect();
    calls.push(json!({"type": "Orwin", "target": 0.02}));
    calls
}

composed_args! {
    /// `fail_safe_n`'s arguments.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct FailSafeArgs {
        #[serde(
            rename = "type",
            default,
            deserialize_with = "super::args::fail_safe_type",
            skip_serializing_if = "Option::is_none"
        )]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "type_schema"))]
        pub kind: Option<FailSafeType>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "alpha_schema"))]
        pub alpha: Option<f64>,
        /// Orwin only: the mean effect to reach (default half the mean; not 0).
        pub target: Option<f64>,
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
    }
}

#[cfg(feature = "definitions")]
fn type_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = FailSafeType::ALL.iter().map(|t| t.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "default": names[0], "description": "The method."}))
        .expect("an object schema")
}

#[cfg(feature = "definitions")]
fn alpha_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_ALPHA, "description": "Significance level."}))
        .expect("an object schema")
}

/// The default significance level.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// `fail_safe_n`'s result: the engine's fail-safe N and the data.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FailSafeResult {
    #[serde(flatten)]
    pub n: FailSafeN,
    pub dataset: DatasetInfo,
}

/// `fail_safe_n`
pub fn fail_safe_n(args: FailSafeArgs, data: &DataSource) -> Result<FailSafeResult, ToolError> {
    let alpha = args.alpha.unwrap_or(DEFAULT_ALPHA);
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("alpha must be strictly between 0 and 1 (for example 0.05), got {alpha}"),
        ));
    }
    let kind = args.kind.unwrap_or_default();
    if args.target.is_some() && kind != meta_analysis::FailSafeType::Orwin {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "target applies only to type \"Orwin\", not to \"{}\"",
                kind.name()
            ),
        ));
    }
    let excluded = args.exclude.of(data)?;
    let n = meta_analysis::fail_safe_n(&data.kept(&excluded), kind, alpha, args.target)?;
    Ok(FailSafeResult {
        n,
        dataset: data.info().clone(),
    })
}

impl Printed for FailSafeResult {
    /// `print.fsn`, after a headline.
    fn print(&self, out: &mut Out) {
        let n = &self.n;
        let kind = n.kind.name();
        out.line(format!("Fail-safe N ({kind}): {}", n.fsn));
        out.blank();
        out.line(format!("Fail-safe N Calculation Using the {kind} Approach"));
        out.blank();
        let alpha = r_num(n.alpha);
        let observed_p = pval(n.observed_p, false, false);
        match n.kind {
            FailSafeType::Rosenthal => {
                out.line(format!("Observed Significance Level: {observed_p}"));
                out.line(format!("Target Significance Level:   {alpha}"));
            }
            FailSafeType::Orwin => {
                out.line(format!("Average Effect Size: {}", f4(n.observed_effect)));
                out.line(format!("Target Effect Size:  {}", f4(n.target)));
            }
            FailSafeType::Rosenberg => {
                out.line(format!(
                    "Average Effect Size:         {}",
                    f4(n.observed_effect)
                ));
                out.line(format!("Observed Significance Level: {observed_p}"));
                out.line(format!("Target Significance Level:   {alpha}"));
            }
        }
        out.blank();
        out.line(format!("Fail-safe N: {}", n.fsn));
    }
}

/// `fsn(yi, vi, type = ..., alpha = ..., target = ...)`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for FailSafeArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use crate::rcode::{number, string, Script, ORWIN_1983, ROSENBERG_2005, ROSENTHAL_1979};
        let kind = self.kind.unwrap_or_default();
        let mut args = vec!["yi".to_string(), "vi".into(), "data = dat".into()];
        args.extend(super::reproduce::record_arguments(cx, &self.exclude.exclude));
        args.push(format!("type = {}", string(kind.name())));
        if let Some(alpha) = self.alpha {
            args.push(format!("alpha = {}", number(alpha)));
        }
        if let Some(target) = self.target {
            args.push(format!("target = {}", number(target)));
        }
        out.script
            .line(format!("res <- {}", Script::call("fsn", &args)));
        out.check_at("res$fsnum", cx.result, "/fsn");
        let reference = match kind {
            FailSafeType::Rosenthal => &ROSENTHAL_1979,
            FailSafeType::Orwin => &ORWIN_1983,
            FailSafeType::Rosenberg => &ROSENBERG_2005,
        };
        out.methods.say(
            &format!(
                "The fail-safe N was computed with the {} method {{}}.",
                kind.name()
            ),
            &[reference],
        );
        Ok(())
    }
}
