//! `subgroup_analysis`: a separate fit per level of a text column and the tests for
//! subgroup differences.

use super::args::{ExcludeArg, FitArgs};
use super::data::{DataSource, DatasetInfo};
use super::data::Omitted;
use super::scale::{NaturalScale, Scale, ScaleInfo};
use super::{Companion, Tool, ToolGroup, FOREST_PLOT, MAX_TOOL_RECORDS};
use super::ToolError;
use crate::printed::{
    f4, fcf, frame_table, notes_and_omitted_lines, pval, scale_labels, stars, var, EstimateTest, InterceptFit,
    ModeratorTest, Out, Printed,
};
use meta_analysis::{ModeratorColumn, SubgroupAnalysis};
use serde::Serialize;

pub static SUBGROUP_ANALYSIS: Tool = Tool {
    name: "subgroup_analysis",
    title: "Subgroup analysis",
    summary: "A fit per subgroup, and the test of their differences.",
    group: ToolGroup::Analysis,
    max_records: MAX_TOOL_RECORDS,
    companion: Some(Companion::same_arguments(&FOREST_PLOT)),
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        format!(
            "A fit per level of `by` (at most {}, sorted; one record: tau2 = 0). q_between: Q \
of the subgroup estimates weighted 1/se^2 (a tau^2 each, as RevMan, R's meta); \
qm_common_tau2: QM of the meta-regression on `by` (one tau^2).",
            meta_analysis::MAX_LEVELS,
        )
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(subgroup_analysis; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::json;
    examples::fit_options()
        .into_iter()
        .flat_map(|o| {
            [
                examples::with(o.clone(), "by", json!("setting")),
                examples::with(examples::with(o, "by", json!("arm")), "records", examples::moderated()),
            ]
        })
        .collect()
}

composed_args! {
    /// `subgroup_analysis`'s arguments: the text column, the fit's options and exclusions.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct SubgroupArgs {
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub fit: FitArgs,
        /// Text column of the subgroups, e.g. "tester".
        pub by: String,
    }
}

/// One level's fit: the engine's, then its natural scale and a note.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct GroupRow {
    #[serde(flatten)]
    pub fit: meta_analysis::SubgroupFit,
    /// estimate and CI on the natural scale (no prediction interval: null).
    pub natural: Option<NaturalScale>,
    /// Why a number is what it is: set for a level with a single record, else null.
    pub note: Option<String>,
}

/// `subgroup_analysis`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct SubgroupResult {
    /// The text column the records are grouped by.
    pub by: String,
    /// All records analysed.
    pub k: usize,
    /// The estimator of tau^2 within each level and of the common tau^2.
    pub method: crate::tools::Word,
    /// "z" or "knha" (t with k - 1 df within a level, F for the common-tau^2 test).
    pub test: crate::tools::Word,
    #[serde(flatten)]
    pub scale: ScaleInfo,
    /// One fit per level, levels sorted.
    pub groups: Vec<GroupRow>,
    /// Test for subgroup differences with a separate tau^2 per subgroup: Cochran's Q of the
    /// subgroup estimates with weights 1/se^2.
    pub q_between: f64,
    /// Levels - 1.
    pub q_between_df: usize,
    pub q_between_p: f64,
    /// The alternative with one common tau^2: QM of the meta-regression on the column (an F
    /// statistic with test "knha").
    pub qm_common_tau2: f64,
    /// The F statistic's second df (k - levels) with test "knha"; null for the chi-square QM
    /// on levels - 1 df.
    pub qm_common_tau2_df2: Option<usize>,
    pub qm_common_tau2_p: f64,
    /// Records left out because they have no value in `by` (metafor's na.omit); `k` counts
    /// the records analysed.
    pub omitted: Vec<Omitted>,
    pub dataset: DatasetInfo,
}

/// The note of a level with a single record.
pub const SINGLE_RECORD_NOTE: &str = "a single record: tau2 is 0 (there is no spread to \
estimate it from), q is 0 on 0 df, and the estimate is the record's yi with se sqrt(vi) and a \
z test, as metafor's rma() gives for k = 1";

impl SubgroupResult {
    pub fn of(by: &str, analysis: &SubgroupAnalysis, data: &DataSource, scale: &Scale) -> Self {
        SubgroupResult {
            by: by.to_string(),
            k: analysis.k,
            method: analysis.common_tau2.method.name().into(),
            test: analysis.common_tau2.test.name().into(),
            scale: scale.info(),
            groups: analysis
                .groups
                .iter()
                .map(|g| GroupRow {
                    fit: g.summary(),
                    natural: scale.natural(g.fit.estimate, (g.fit.ci_lower, g.fit.ci_upper), None),
                    note: g.single_record.then(|| SINGLE_RECORD_NOTE.to_string()),
                })
                .collect(),
            q_between: analysis.q_between,
            q_between_df: analysis.q_between_df,
            q_between_p: analysis.q_between_p,
            qm_common_tau2: analysis.common_tau2.qm,
            qm_common_tau2_df2: analysis.common_tau2.qm_df2,
            qm_common_tau2_p: analysis.common_tau2.qm_p,
            omitted: Vec::new(),
            dataset: data.info().clone(),
        }
    }
}

/// Each record's group: a text column's values, or a coded column's (1, 2, 3) numbers as R's
/// factor() labels them.
pub fn group_labels(column: ModeratorColumn) -> Vec<String> {
    match column {
        ModeratorColumn::Factor(values) => values,
        ModeratorColumn::Numeric(values) => {
            values.iter().map(|x| meta_analysis::r_number(*x)).collect()
        }
    }
}

/// The subgroup analysis by column `by` of the records not in `excluded`.
pub fn run_subgroups(
    by: &str,
    excluded: &[String],
    options: &meta_analysis::FitOptions,
    data: &DataSource,
) -> Result<SubgroupAnalysis, ToolError> {
    let values = group_labels(data.moderator(by, excluded)?.column);
    Ok(meta_analysis::subgroup_analysis(
        &data.kept(excluded),
        by,
        &values,
        options,
    )?)
}

/// `subgroup_analysis`
pub fn subgroup_analysis(
    args: SubgroupArgs,
    data: &DataSource,
) -> Result<SubgroupResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let (excluded, omitted) =
        data.na_omit(std::slice::from_ref(&args.by), args.exclude.of(data)?)?;
    let analysis = run_subgroups(&args.by, &excluded, &options, data)?;
    let mut result = SubgroupResult::of(&args.by, &analysis, data, &scale);
    result.omitted = omitted;
    result.dataset.notes = data.text_notes(std::slice::from_ref(&args.by), &excluded);
    Ok(result)
}

/// The subgroup analysis as metafor users run it: one `rma()` per level, printed as
/// `print.rma.uni` prints it, then the test with a separate tau^2 per level (the
/// equal-effects meta-regression of the levels' estimates on the level) and the test with
/// one common tau^2 (`rma(yi, vi, mods = ~ by)`), each as its Test of Moderators.
impl Printed for SubgroupResult {
    fn print(&self, out: &mut Out) {
        let (by, k) = (&self.by, self.k);
        let between_df = self.q_between_df;
        out.line(format!(
            "Subgroup differences by {by}: Q(df = {between_df}) = {}, p {} (k = {k})",
            f4(Some(self.q_between)),
            pval(Some(self.q_between_p), true, false),
        ));
        notes_and_omitted_lines(
            out,
            &self.dataset.notes,
            self.omitted.iter().map(|o| o.id.as_str()),
        );
        out.blank();
        out.line(format!("Subgroup Analysis by {by} (k = {k})"));
        out.blank();
        self.tables(out);
        self.levels(out);
        self.tests(out);
    }
}

impl SubgroupResult {
    /// One row per level, then the levels on the natural scale.
    fn tables(&self, out: &mut Out) {
        let rows: Vec<(String, Vec<String>)> = self
            .groups
            .iter()
            .map(|g| {
                let p = Some(g.fit.p);
                (
                    g.fit.level.clone(),
                    vec![
                        g.fit.k.to_string(),
                        f4(Some(g.fit.estimate)),
                        f4(Some(g.fit.se)),
                        f4(Some(g.fit.statistic)),
                        pval(p, false, false),
                        f4(Some(g.fit.ci_lower)),
                        f4(Some(g.fit.ci_upper)),
                        var(Some(g.fit.tau2)),
                        fcf(Some(g.fit.i2), 2),
                        stars(p),
                    ],
                )
            })
            .collect();
        out.lines(frame_table(
            &[
                "k", "estimate", "se", "stat", "pval", "ci.lb", "ci.ub", "tau^2", "I^2(%)", "",
            ],
            &rows,
            2,
        ));
        let (_, natural) = scale_labels(self.scale.measure.as_deref(), &self.scale.transform);
        if let Some(label) = natural {
            let rows: Vec<(String, Vec<String>)> = self
                .groups
                .iter()
                .filter_map(|g| {
                    let n = g.natural.as_ref()?;
                    Some((
                        g.fit.level.clone(),
                        vec![
                            f4(Some(n.estimate)),
                            f4(Some(n.ci_lower)),
                            f4(Some(n.ci_upper)),
                        ],
                    ))
                })
                .collect();
            if !rows.is_empty() {
                out.blank();
                out.line(format!("Subgroup Results ({label} scale):"));
                out.blank();
                out.lines(frame_table(&["estimate", "ci.lb", "ci.ub"], &rows, 2));
            }
        }
    }

    /// Each level's fit, as print.rma.uni prints it.
    fn levels(&self, out: &mut Out) {
        let by = &self.by;
        let knha = self.test == "knha";
        for g in &self.groups {
            out.blank();
            out.line(format!("Subgroup {by} = {}:", g.fit.level));
            if let Some(note) = &g.note {
                out.line(format!("({note})"));
            }
            // Knapp-Hartung needs two records; a level of one is its record with a z test.
            let test = if knha && g.fit.k > 1 {
                EstimateTest::T {
                    t: g.fit.statistic,
                    df: (g.fit.k - 1) as f64,
                }
            } else {
                EstimateTest::Z(Some(g.fit.statistic))
            };
            // Each level's fit is printed on the model's scale: the natural scale is the
            // table's above.
            InterceptFit {
                method: &self.method,
                k: g.fit.k,
                tau2: g.fit.tau2,
                se_tau2: g.fit.se_tau2,
                i2: g.fit.i2,
                h2: g.fit.h2,
                q: g.fit.q,
                q_df: g.fit.k.saturating_sub(1),
                q_p: g.fit.q_p,
                estimate: g.fit.estimate,
                se: g.fit.se,
                test,
                p: g.fit.p,
                ci_lower: g.fit.ci_lower,
                ci_upper: g.fit.ci_upper,
                natural: None,
            }
            .print(out);
        }
    }

    /// The two tests of subgroup differences.
    fn tests(&self, out: &mut Out) {
        let (by, between_df) = (&self.by, self.q_between_df);
        // The coefficients after the intercept: one per level but the first.
        let btt: Vec<u64> = (2..=between_df as u64 + 1).collect();
        out.blank();
        out.line(format!(
            "Test for Subgroup Differences, a tau^2 per subgroup (the equal-effects meta-regression of \
             the subgroup estimates on {by}):"
        ));
        let (heading, line) = ModeratorTest {
            qm: Some(self.q_between),
            qm_df: between_df,
            qm_df2: None,
            qm_p: Some(self.q_between_p),
        }
        .lines(&btt);
        out.line(heading);
        out.line(line);
        out.blank();
        out.line(format!(
            "Test for Subgroup Differences, one common tau^2 (rma(yi, vi, mods = ~ {by})):"
        ));
        let (heading, line) = ModeratorTest {
            qm: Some(self.qm_common_tau2),
            qm_df: between_df,
            qm_df2: self.qm_common_tau2_df2.map(|d| d as f64),
            qm_p: Some(self.qm_common_tau2_p),
        }
        .lines(&btt);
        out.line(heading);
        out.line(line);
    }
}

/// One `rma(...)` per level of `by` (its `subset`), the test of subgroup differences (an
/// equal-effects meta-regression of the subgroup estimates) and `res`, the meta-regression on
/// `factor(by)` with one tau^2.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for SubgroupArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, fit_methods, rma, subset_expression};
        use crate::rcode::{name, string, strings};
        let options = self.fit.options()?;
        let fit_args = fit_arguments(options.method, options.level, options.test);
        let by = name(&self.by);
        let groups: Vec<&serde_json::Value> = cx.result["groups"].as_array().into_iter().flatten().collect();
        let levels: Vec<String> = groups
            .iter()
            .map(|g| g["level"].as_str().unwrap_or_default().to_string())
            .collect();
        let within = subset_expression(cx, &self.exclude.exclude)
            .map(|s| format!("{s} & "))
            .unwrap_or_default();
        let mut group_args = vec![
            "yi".to_string(),
            "vi".into(),
            "data = dat".into(),
            format!("subset = {within}as.character({by}) == g"),
        ];
        group_args.extend(fit_args.iter().cloned());
        out.script
            .line(format!("groups <- {}", strings(&levels)))
            .line(format!(
                "fits <- lapply(groups, function(g) {})",
                crate::rcode::Script::call("rma", &group_args)
            ))
            .line(
                "between <- rma(sapply(fits, coef), sei = sapply(fits, function(f) f$se), \
                 mods = ~ groups, method = \"EE\")",
            );
        let mut more = vec![format!("mods = ~ factor({by})")];
        more.extend(fit_args);
        out.script
            .line(format!("res <- {}", rma(cx, &self.exclude.exclude, more)));
        for (i, g) in groups.iter().enumerate() {
            let f = format!("fits[[{}]]", i + 1);
            out.check_at(format!("c(coef({f}))"), g, "/estimate")
                .check_at(format!("{f}$se"), g, "/se")
                .check_at(format!("{f}$pval"), g, "/p")
                .check_at(format!("{f}$QE"), g, "/q");
            if !matches!(options.method, meta_analysis::Method::Ee | meta_analysis::Method::Fe) {
                out.check_at(format!("{f}$tau2"), g, "/tau2");
            }
        }
        let r = cx.result;
        out.check_at("between$QM", r, "/q_between")
            .check_at("between$QMp", r, "/q_between_p")
            .check_at("res$QM", r, "/qm_common_tau2")
            .check_at("res$QMp", r, "/qm_common_tau2_p");
        fit_methods(
            &mut out.methods,
            r["measure"].as_str(),
            options.method,
            options.test,
            options.level,
            false,
        );
        out.methods.say(
            &format!(
                "The model was fitted separately within each level of {}; the subgroup \
                 estimates were compared with a test of subgroup differences (Q between, an \
                 equal-effects meta-regression of the subgroup estimates), and with the omnibus \
                 test of a meta-regression on the subgroups with one tau^2.",
                string(&self.by)
            ),
            &[],
        );
        Ok(())
    }
}
