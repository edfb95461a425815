//! `mantel_haenszel`: the Mantel-Haenszel pooled OR, RR or RD of 2x2 tables.

use super::args::LevelArg;
use super::data::{DataSource, DatasetInfo};
use super::scale::{Scale, ScaleInfo};
use super::scale::NaturalScale;
use super::tables::{natural, options, print_pooled, TablesArg};
use super::{ErrorCode, Tool, ToolError, ToolGroup, MAX_RAW_DATA_ROWS};
use meta_analysis::{measure_scale, MhMeasure};
use crate::printed::{f4, pad_left, pval, width, Out, Printed};
use serde::Serialize;

pub static MANTEL_HAENSZEL: Tool = Tool {
    name: "mantel_haenszel",
    title: "Mantel-Haenszel for 2x2 tables",
    summary: "Pooled OR, RR or RD of 2x2 tables.",
    group: ToolGroup::Analysis,
    // The rows a handle (`data_id`) may hold, as many as `data` takes.
    max_records: MAX_RAW_DATA_ROWS,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "As metafor's rma.mh(), uncorrected: Robins-Breslow-Greenland (OR), Greenland-Robins \
(RR, RD) variances; OR, RR on the log scale. Q: escalc's effects (0.5 added to zeros, double \
zeros out) about the pooled one."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(mantel_haenszel; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    let mut calls: Vec<serde_json::Value> = ["OR", "RR", "RD"]
        .into_iter()
        .map(|measure| json!({"data": examples::tables(), "measure": measure, "level": 0.9}))
        .collect();
    calls.push(json!({"data": examples::tables(), "measure": "RD", "transform": "none"}));
    calls
}

composed_args! {
    /// `mantel_haenszel`'s arguments.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct MantelHaenszelArgs {
        #[flat]
        pub tables: TablesArg,
        #[flat]
        pub level: LevelArg,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "measure_schema"))]
        pub measure: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(
            feature = "definitions",
            schemars(schema_with = "super::scale::transform_schema")
        )]
        pub transform: Option<String>,
    }
}

/// `measure`: one of [`MhMeasure::ALL`], OR by default.
#[cfg(feature = "definitions")]
fn measure_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = MhMeasure::ALL.iter().map(|m| m.name()).collect();
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": names, "default": names[0], "description": "The measure pooled."}))
        .expect("an object schema")
}

/// `mantel_haenszel`'s result: the engine's, then the scale, the natural-scale estimate and
/// the data.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MantelHaenszelResult {
    #[serde(flatten)]
    pub result: meta_analysis::MantelHaenszel,
    /// The measure pooled ("OR", "RR" or "RD") and the transform of `natural`.
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// The estimate and CI back-transformed (`transform`: the ratio itself for OR and RR);
    /// null when nothing is transformed (RD by default). No prediction interval.
    pub natural: Option<NaturalScale>,
    /// Tables left out for a missing count (metafor's na.omit); only when some are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<super::data::Omitted>,
    pub dataset: DatasetInfo,
}

/// `mantel_haenszel`
pub fn mantel_haenszel(
    args: MantelHaenszelArgs,
    source: &DataSource,
) -> Result<MantelHaenszelResult, ToolError> {
    let name = args.measure.as_deref().unwrap_or(MhMeasure::ALL[0].name());
    let measure = MhMeasure::parse(name).ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidArguments,
            format!("unknown measure {name:?}; one of OR, RR, RD"),
        )
    })?;
    let scale = Scale::of_measure(
        measure_scale(measure.name()).expect("OR, RR and RD have a natural scale"),
        args.transform.as_deref(),
    )?;
    let options = options(&args.level)?;
    let read = args.tables.of(source)?;
    let result = meta_analysis::mantel_haenszel(&read.tables, measure, &options)?;
    Ok(MantelHaenszelResult {
        scale: scale.info(),
        natural: natural(&result.pooled, &scale),
        result,
        omitted: read.omitted,
        dataset: read.dataset,
    })
}

impl Printed for MantelHaenszelResult {
    /// `print.rma.mh`: the pooled estimate, then for an odds ratio the Cochran-Mantel-Haenszel
    /// test and Tarone's test.
    fn print(&self, out: &mut Out) {
        let r = &self.result;
        print_pooled(
            out,
            (&r.pooled, self.natural.as_ref(), &r.heterogeneity),
            &self.scale,
            (r.k, r.level),
            "Mantel-Haenszel",
        );
        if self.scale.measure.as_deref() == Some("OR") {
            self.odds_ratio_tests(out);
        }
    }
}

impl MantelHaenszelResult {
    fn odds_ratio_tests(&self, out: &mut Out) {
        let (cmh_test, tarone_test) = (self.result.cmh, self.result.tarone);
        let cmh = cmh_test.map(|t| f4(Some(t.statistic)));
        let tarone = tarone_test.map(|t| f4(Some(t.statistic)));
        let w = cmh
            .iter()
            .chain(&tarone)
            .map(|s| width(s))
            .max()
            .unwrap_or(1);
        // metafor pads "df = 1," to the width of Tarone's df.
        let k_pos = tarone_test.map_or(1, |t| t.df + 1);
        out.blank();
        match cmh {
            Some(cmh) => out.line(format!(
                "Cochran-Mantel-Haenszel Test:    CMH = {}, df = 1,{} p-val {}",
                pad_left(&cmh, w),
                " ".repeat(k_pos.to_string().len().saturating_sub(1)),
                pval(cmh_test.map(|t| t.p), true, true)
            )),
            None => out
                .line("Cochran-Mantel-Haenszel Test:    test value not computable for these data"),
        }
        match (tarone, tarone_test) {
            (Some(ta), Some(t)) => out.line(format!(
                "Tarone's Test for Heterogeneity: X^2 = {}, df = {}, p-val {}",
                pad_left(&ta, w),
                t.df,
                pval(Some(t.p), true, true)
            )),
            _ => out
                .line("Tarone's Test for Heterogeneity: test value not computable for these data"),
        }
    }
}

/// `rma.mh(ai, bi, ci, di, measure = ..., level = ...)`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for MantelHaenszelArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use crate::rcode::{number, string, Script, MANTEL_1959};
        let mut args = super::tables::r_table_arguments(&self.tables, cx, &mut out.script);
        let measure = cx.result["measure"].as_str().unwrap_or("OR").to_string();
        args.push(format!("measure = {}", string(&measure)));
        let level = self.level.get()?;
        if level != 0.95 {
            args.push(format!("level = {}", number(100.0 * level)));
        }
        out.script
            .line(format!("res <- {}", Script::call("rma.mh", &args)));
        let r = cx.result;
        out.check_at("c(coef(res))", r, "/estimate")
            .check_at("res$se", r, "/se")
            .check_at("res$pval", r, "/p")
            .check_at("res$ci.lb", r, "/ci_lower")
            .check_at("res$ci.ub", r, "/ci_upper")
            .check_at("res$QE", r, "/q")
            .check_at("res$QEp", r, "/q_p")
            .check_at("res$MH", r, "/cmh")
            .check_at("res$MHp", r, "/cmh_p")
            .check_at("res$TA", r, "/tarone")
            .check_at("res$TAp", r, "/tarone_p");
        out.methods.say(
            &format!(
                "The {measure} was pooled over the 2x2 tables with the Mantel-Haenszel method {{}} \
                 (an equal-effects model), at the {}% level; heterogeneity was assessed with the \
                 Q-test of the studies' own estimates about the pooled one.",
                number(100.0 * level)
            ),
            &[&MANTEL_1959],
        );
        Ok(())
    }
}
