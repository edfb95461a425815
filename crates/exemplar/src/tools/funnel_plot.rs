//! `funnel_plot`: effects against their standard errors with Egger's line (optional), whose
//! label gives the benchmark's rule outcome on the frozen dataset only.

use super::args::{DataArg, ExcludeArg};
use super::data::DataSource;
use super::egger_test::{benchmark_rule, run_egger, EggerTestResult};
use super::fit::RefitResult;
use super::plot::{measure_title, model_name, subtitle};
use super::scale::Scale;
#[cfg(feature = "definitions")]
use super::schema_derivation as schemas;
#[cfg(feature = "definitions")]
use super::EGGER_TEST;
use super::{ErrorCode, Tool, ToolError, ToolGroup};
use crate::plots::{self, EggerLine, FunnelInput};
use meta_analysis::{EggerVariant, FitOptions};
use serde::Serialize;
use serde_json::Value;

pub static FUNNEL_PLOT: Tool = Tool {
    name: "funnel_plot",
    title: "Funnel plot (SVG)",
    summary: "Effects against their standard errors.",
    group: ToolGroup::Plot,
    max_records: crate::plots::MAX_FUNNEL_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "yi against sqrt(vi), the pseudo 95% funnel around the REML estimate and {egger}'s \
line.",
            egger = EGGER_TEST.name,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(funnel_plot; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![
        json!({"variant": "classic", "exclude": ["s05"]}),
        json!({"variant": "rma", "exclude": ["s05"]}),
        json!({"records": examples::records()}),
        json!({"records": examples::records(), "egger_line": false}),
        json!({"contours": [0.9, 0.95, 0.99], "egger_line": false}),
    ]
}

composed_args! {
    /// `funnel_plot`'s arguments: whether Egger's line is drawn and its variant, exclusions and
    /// the axis's scale.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct FunnelArgs {
        /// The Egger variant drawn.
        #[serde(
            default,
            deserialize_with = "super::args::variant",
            skip_serializing_if = "Option::is_none"
        )]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::variant"))]
        pub variant: Option<EggerVariant>,
        /// Draw Egger's line and legend (false: no test is run).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "egger_line_schema"))]
        pub egger_line: Option<bool>,
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
        // The plot's axis.
        #[flat]
        pub scale: super::scale::ScaleArgs,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "contours_schema"))]
        pub contours: Option<Vec<f64>>,
    }
}

/// `contours`: confidence levels of shaded significance regions, none by default.
#[cfg(feature = "definitions")]
fn contours_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({
        "type": "array",
        "items": {"type": "number"},
        "description": "Shaded p-value contour levels, e.g. [0.9, 0.95, 0.99]; default none."
    }))
    .expect("an object schema")
}

/// `egger_line`: a boolean, true by default.
#[cfg(feature = "definitions")]
fn egger_line_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "boolean", "default": true}))
        .expect("an object schema")
}

/// `funnel_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct FunnelPlotResult {
    /// The SVG document.
    pub svg: String,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The pooled REML fit the funnel is centred on.
    pub fit: RefitResult,
    /// The Egger test result whose line is drawn; null with egger_line false.
    pub egger: Option<EggerTestResult>,
}

/// `funnel_plot`
pub fn funnel_plot(args: FunnelArgs, data: &DataSource) -> Result<FunnelPlotResult, ToolError> {
    let scale = Scale::of(&args.scale, data)?;
    let (test, excluded) = if args.egger_line.unwrap_or(true) {
        let (test, excluded) = run_egger(args.variant, args.exclude, data)?;
        (Some(test), excluded)
    } else {
        (None, args.exclude.of(data)?)
    };
    let kept = data.kept(&excluded);
    let fit = meta_analysis::fit(&kept, &FitOptions::default())?;
    // Refused here as the call's arguments (the plot would refuse them as undrawable).
    let contours = args.contours.unwrap_or_default();
    let invalid = |message: String| ToolError::new(ErrorCode::InvalidArguments, message);
    if let Some(bad) = contours.iter().find(|c| !(**c > 0.0 && **c < 1.0)) {
        return Err(invalid(format!(
            "contours are confidence levels strictly between 0 and 1 (e.g. 0.95), got {bad}"
        )));
    }
    if contours.len() > plots::MAX_CONTOURS {
        return Err(invalid(format!(
            "contours takes at most {} levels, got {}",
            plots::MAX_CONTOURS,
            contours.len()
        )));
    }
    let input = FunnelInput {
        records: data.records(),
        excluded: &excluded,
        pooled: Some(fit.estimate),
        egger: test.as_ref().map(|test| EggerLine {
            variant: test.variant.name(),
            line_at_se0: test.line_at_se0,
            line_per_se: test.line_per_se,
            p: test.p,
            rule_outcome: benchmark_rule(test.p, data).map(|r| r.name()),
        }),
        filled: None,
        title: &measure_title("Funnel", &scale, true),
        subtitle: Some(&subtitle(&model_name(fit.method), fit.k, data)),
        x_label: &scale.natural_axis_title(),
        transform: scale.transform,
    };
    let plot = plots::funnel_with_contours(&input, &contours)?;
    Ok(FunnelPlotResult {
        svg: plot.svg,
        numbers: plot.numbers,
        fit: RefitResult::of(&fit, excluded.clone(), data, &scale),
        egger: test.map(|test| EggerTestResult::of(&test, excluded, data)),
    })
}


/// The headline of the fit drawn.
impl crate::printed::Printed for FunnelPlotResult {
    fn print(&self, out: &mut crate::printed::Out) {
        self.fit.headline(out);
    }
}


/// `res <- rma(...)` and `funnel(res)` (with `level` and `shade` for contours); the numbers
/// checked are the fit's.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for FunnelArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, fit_checks, fit_methods, rma};
        use crate::rcode::{number, vector, Script};
        let fit = rma(
            cx,
            &self.exclude.exclude,
            fit_arguments(meta_analysis::Method::Reml, 0.95, meta_analysis::Test::Z),
        );
        out.script.line(format!("res <- {fit}"));
        let mut args = vec!["res".to_string()];
        if let Some(contours) = self.contours.as_ref().filter(|c| !c.is_empty()) {
            args.push(format!(
                "level = {}",
                vector(contours.iter().map(|c| number(100.0 * c)))
            ));
            args.push("refline = 0".into());
        }
        out.script.line(Script::call("funnel", &args));
        if let Some(fit) = cx.result.get("fit") {
            fit_checks(out, fit);
        }
        fit_methods(
            &mut out.methods,
            cx.result["fit"]["measure"].as_str(),
            meta_analysis::Method::Reml,
            meta_analysis::Test::Z,
            0.95,
            false,
        );
        out.methods.say("The observed outcomes are shown against their standard errors in a funnel plot.", &[]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::super::{call, EGGER_TEST, FUNNEL_PLOT};
    use serde_json::{json, Value};

    fn records() -> Value {
        json!([
            {"id": "a", "yi": 0.10, "vi": 0.010},
            {"id": "b", "yi": 0.35, "vi": 0.040},
            {"id": "c", "yi": -0.20, "vi": 0.090},
            {"id": "d", "yi": 0.55, "vi": 0.160},
            {"id": "e", "yi": 0.02, "vi": 0.020}
        ])
    }

    /// Issue 31 item 7: the benchmark's rule is reported on the frozen dataset only.
    #[cfg(feature = "extended")]
    #[test]
    fn the_rule_outcome_is_the_frozen_datasets_only() {
        for variant in ["classic", "rma"] {
            let frozen = call(EGGER_TEST.name, &json!({"variant": variant})).unwrap();
            let p = frozen["egger_p"].as_f64().unwrap();
            assert_eq!(frozen["rule_outcome"], crate::protocol::rule(p).name());
            assert_eq!(frozen["rule"], crate::protocol::RULE_TEXT);
            let custom = call(
                EGGER_TEST.name,
                &json!({"variant": variant, "records": records()}),
            )
            .unwrap();
            assert!(custom["egger_p"].as_f64().is_some());
            assert_eq!(custom["rule_outcome"], Value::Null, "{variant}");
            assert_eq!(custom["rule"], Value::Null, "{variant}");
        }
        let frozen = call(FUNNEL_PLOT.name, &json!({})).unwrap();
        assert_eq!(
            frozen["svg"]
                .as_str()
                .unwrap()
                .matches("rule outcome: ")
                .count(),
            3
        );
        assert!(frozen["egger"]["rule_outcome"].is_string());
        let custom = call(FUNNEL_PLOT.name, &json!({"records": records()})).unwrap();
        let svg = custom["svg"].as_str().unwrap();
        assert!(!svg.contains("rule outcome"), "{svg}");
        assert!(svg.contains("egger-line"));
        assert_eq!(custom["egger"]["rule_outcome"], Value::Null);
        assert_eq!(custom["numbers"]["egger"]["rule_outcome"], Value::Null);
    }

    /// Issue 32: contour-enhanced funnels; levels outside (0, 1) are refused.
    #[cfg(feature = "extended")]
    #[test]
    fn contours_are_drawn_and_checked() {
        let out = call(FUNNEL_PLOT.name, &json!({"contours": [0.9, 0.95, 0.99]})).unwrap();
        assert_eq!(out["numbers"]["contours"].as_array().unwrap().len(), 3);
        assert!(out["svg"].as_str().unwrap().contains("contour-region"));
        let plain = call(FUNNEL_PLOT.name, &json!({})).unwrap();
        assert_eq!(plain["numbers"].get("contours"), None);
        assert_eq!(out["fit"], plain["fit"]);
        for bad in [
            json!([95]),
            json!([0.0]),
            json!([0.9, 0.91, 0.92, 0.93, 0.94, 0.95]),
        ] {
            let e = call(FUNNEL_PLOT.name, &json!({"contours": bad})).unwrap_err();
            assert_eq!(e.code.as_str(), "invalid_arguments", "{bad}: {}", e.message);
        }
    }

    #[cfg(feature = "extended")]

    #[test]
    fn egger_line_false_draws_no_line_and_runs_no_test() {
        for args in [
            json!({"egger_line": false}),
            json!({"egger_line": false, "records": records()}),
        ] {
            let out = call(FUNNEL_PLOT.name, &args).unwrap();
            let svg = out["svg"].as_str().unwrap();
            assert!(
                !svg.contains("egger-line") && !svg.contains("Egger"),
                "{svg}"
            );
            assert_eq!(out["egger"], Value::Null);
            assert_eq!(out["numbers"]["egger"], Value::Null);
            assert!(out["fit"]["estimate"].is_number());
        }
        // Egger's test needs 3 records and unequal variances; the funnel without it does not.
        let two = json!([{"id": "a", "yi": 0.1, "vi": 0.01}, {"id": "b", "yi": 0.3, "vi": 0.01}]);
        assert!(call(FUNNEL_PLOT.name, &json!({"records": two})).is_err());
        let out = call(
            FUNNEL_PLOT.name,
            &json!({"records": two, "egger_line": false}),
        )
        .unwrap();
        assert_eq!(out["fit"]["k"], 2);
        // The same funnel as with the line, less the line: exclusions still apply.
        let with = call(FUNNEL_PLOT.name, &json!({"exclude": ["s05"]})).unwrap();
        let without = call(
            FUNNEL_PLOT.name,
            &json!({"exclude": ["s05"], "egger_line": false}),
        )
        .unwrap();
        assert_eq!(with["fit"], without["fit"]);
        assert_eq!(with["numbers"]["points"], without["numbers"]["points"]);
        let e = call(FUNNEL_PLOT.name, &json!({"egger_line": "no"})).unwrap_err();
        assert_eq!(e.code.as_str(), "wrong_type", "{}", e.message);
    }
}
