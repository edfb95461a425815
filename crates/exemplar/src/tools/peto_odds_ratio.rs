//! `peto_odds_ratio`: Peto's one-step pooled odds ratio of 2x2 tables.

use super::args::LevelArg;
use super::data::{DataSource, DatasetInfo};
use super::scale::{Scale, ScaleInfo};
use super::scale::NaturalScale;
use super::tables::{natural, options, print_pooled, TablesArg};
use super::{Tool, ToolError, ToolGroup, MAX_RAW_DATA_ROWS};
use crate::printed::{Out, Printed};
use serde::Serialize;

pub static PETO_ODDS_RATIO: Tool = Tool {
    name: "peto_odds_ratio",
    title: "Peto's odds ratio",
    summary: "The one-step pooled odds ratio of 2x2 tables.",
    group: ToolGroup::Analysis,
    // The rows a handle (`data_id`) may hold, as many as `data` takes.
    max_records: MAX_RAW_DATA_ROWS,
    companion: None,
    echoes_caller_text: false,
    #[cfg(feature = "definitions")]
    description: || {
        "Pools 2x2 tables by Peto's one-step method as metafor's rma.peto(): ln OR = \
sum(a - E)/sum(V), se = 1/sqrt(sum(V))."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(peto_odds_ratio; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    vec![
        json!({"data": examples::tables()}),
        json!({"data": examples::tables(), "level": 0.9, "transform": "none"}),
    ]
}

composed_args! {
    /// `peto_odds_ratio`'s arguments.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct PetoArgs {
        #[flat]
        pub tables: TablesArg,
        #[flat]
        pub level: LevelArg,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(
            feature = "definitions",
            schemars(schema_with = "super::scale::transform_schema")
        )]
        pub transform: Option<String>,
    }
}

/// `peto_odds_ratio`'s result: the engine's, then the scale, the natural-scale estimate and
/// the data.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct PetoResult {
    #[serde(flatten)]
    pub result: meta_analysis::PetoOddsRatio,
    /// The measure ("OR": Peto's log odds ratio) and the transform of `natural`.
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// The estimate and CI back-transformed (`transform`: the odds ratio itself); null when
    /// nothing is transformed. No prediction interval.
    pub natural: Option<NaturalScale>,
    /// Tables left out for a missing count (metafor's na.omit); only when some are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<super::data::Omitted>,
    pub dataset: DatasetInfo,
}

/// `peto_odds_ratio`
pub fn peto_odds_ratio(args: PetoArgs, source: &DataSource) -> Result<PetoResult, ToolError> {
    let scale = Scale::of_measure(
        meta_analysis::measure_scale("OR").expect("OR has a natural scale"),
        args.transform.as_deref(),
    )?;
    let options = options(&args.level)?;
    let read = args.tables.of(source)?;
    let result = meta_analysis::peto_odds_ratio(&read.tables, &options)?;
    Ok(PetoResult {
        scale: scale.info(),
        natural: natural(&result.pooled, &scale),
        result,
        omitted: read.omitted,
        dataset: read.dataset,
    })
}

impl Printed for PetoResult {
    /// `print.rma.peto`.
    fn print(&self, out: &mut Out) {
        let r = &self.result;
        print_pooled(
            out,
            (&r.pooled, self.natural.as_ref(), &r.heterogeneity),
            &self.scale,
            (r.k, r.level),
            "Peto",
        );
    }
}

/// `rma.peto(ai, bi, ci, di, level = ...)`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for PetoArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use crate::rcode::{number, Script, YUSUF_1985};
        let mut args = super::tables::r_table_arguments(&self.tables, cx, &mut out.script);
        let level = self.level.get()?;
        if level != 0.95 {
            args.push(format!("level = {}", number(100.0 * level)));
        }
        out.script
            .line(format!("res <- {}", Script::call("rma.peto", &args)));
        let r = cx.result;
        out.check_at("c(coef(res))", r, "/estimate")
            .check_at("res$se", r, "/se")
            .check_at("res$pval", r, "/p")
            .check_at("res$ci.lb", r, "/ci_lower")
            .check_at("res$ci.ub", r, "/ci_upper")
            .check_at("res$QE", r, "/q")
            .check_at("res$QEp", r, "/q_p");
        out.methods.say(
            &format!(
                "The odds ratio was pooled over the 2x2 tables with Peto's method {{}} (an \
                 equal-effects model), at the {}% level; heterogeneity was assessed with the \
                 Q-test.",
                number(100.0 * level)
            ),
            &[&YUSUF_1985],
        );
        Ok(())
    }
}
