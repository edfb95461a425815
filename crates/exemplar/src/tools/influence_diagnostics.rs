//! `influence_diagnostics`: metafor's case-deletion diagnostics for every record.

use super::args::{DataArg, ExcludeArg, MethodArg, Mods, TestArg};
use super::data::{DataSource, DatasetInfo};
use super::forest_plot::general as mv;
use super::multilevel::invalid;
use super::ToolError;
use super::{Tool, ToolGroup, MAX_INFLUENCE_RECORDS};
use crate::printed::{f4, frame_table, model_context, Out, Printed};
use general::{MvClusterInfluence, MvRecordInfluence};
use serde::Serialize;
use serde_json::Value;

mod general;

pub static INFLUENCE_DIAGNOSTICS: Tool = Tool {
    name: "influence_diagnostics",
    title: "Influence diagnostics",
    summary: "Each record's influence on the fit.",
    group: ToolGroup::Analysis,
    max_records: MAX_INFLUENCE_RECORDS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "Case-deletion diagnostics as metafor's influence(); knha rescales rstudent, dffits, \
dfbetas, cook_d, cov_r. Needs 3 records."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(influence_diagnostics; reproducible),
};

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<serde_json::Value> {
    use super::examples;
    use serde_json::{json, Value};
    let mut calls: Vec<Value> = ["REML", "EE", "DL"]
        .into_iter()
        .map(|m| json!({"method": m}))
        .collect();
    calls.push(json!({"records": examples::records(), "exclude": ["a"]}));
    calls.push(json!({"records": examples::multivariate(), "mods": "~ outcome - 1",
        "general": {"random": "~ outcome | trial", "struct": "UN",
                    "V": {"cluster": "trial", "columns": ["v1i", "v2i"]}}, "cluster": "trial"}));
    calls.push(json!({"records": examples::nested(), "general": {"random": "~ 1 | study"}, "mods": ["x"]}));
    calls
}

composed_args! {
    /// `influence_diagnostics`' arguments: the estimator, the test and `exclude` (no level: it
    /// reports no interval).
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct InfluenceArgs {
        #[flat]
        pub method: MethodArg,
        #[flat]
        pub test: TestArg,
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
        #[serde(default)]
        #[cfg_attr(
            feature = "definitions",
            schemars(schema_with = "super::forest_plot::general_schema")
        )]
        pub general: Option<serde_json::Map<String, Value>>,
        #[serde(default)]
        #[cfg_attr(
            feature = "definitions",
            schemars(schema_with = "super::forest_plot::mods_schema")
        )]
        pub mods: Option<Mods>,
        /// Column.
        #[serde(default)]
        pub cluster: Option<String>,
    }
}

/// A general rma.mv model's diagnostics (`general`): metafor's rstudent(), cooks.distance(),
/// dfbetas(), hatvalues() and weights() of the fit, per record and, with `cluster`, per
/// cluster.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MvInfluence {
    /// The model's random structure, as the multilevel tool states it.
    pub structure: Vec<String>,
    /// The coefficients' names (each record's or cluster's dfbetas in this order).
    pub coefficients: Vec<String>,
    /// The column the clusters are read from; null: each record is its own unit.
    pub cluster: Option<String>,
    /// One row per record analysed, in record order.
    pub records: Vec<MvRecordInfluence>,
    /// With `cluster`: one row per cluster, in the order of their first record.
    pub clusters: Vec<MvClusterInfluence>,
}

/// `influence_diagnostics`' result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct InfluenceResult {
    /// The tau^2 estimator (REML, ML, DL, HE, SJ, PM, EE or FE), as the call named it.
    pub method: crate::tools::Word,
    /// "z" or "knha" (Knapp-Hartung: rstudent, dffits, dfbetas, cook_d and cov_r rescaled by the
    /// fits' s^2, as metafor's influence() with test = "knha").
    pub test: crate::tools::Word,
    /// Records analysed.
    pub k: usize,
    /// One row per record, in record order (empty for a general model).
    pub results: Vec<meta_analysis::Influence>,
    /// With `general`: the rma.mv model's diagnostics; else absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub general: Option<MvInfluence>,
    pub dataset: DatasetInfo,
}

/// `influence_diagnostics`
pub fn influence_diagnostics(
    args: InfluenceArgs,
    data: &DataSource,
) -> Result<InfluenceResult, ToolError> {
    if args.general.is_some() {
        return general_influence(args, data);
    }
    if args.mods.is_some() || args.cluster.is_some() {
        return Err(invalid(
            "mods and cluster apply to a general model (give general)".into(),
        ));
    }
    let excluded = args.exclude.of(data)?;
    let kept = data.kept(&excluded);
    let (method, test) = (
        args.method.get(),
        args.test.get(),
    );
    let rows = meta_analysis::influence_diagnostics_with_test(&kept, method, test)?;
    Ok(InfluenceResult {
        method: method.name().into(),
        test: test.name().into(),
        k: kept.len(),
        results: rows,
        general: None,
        dataset: data.info().clone(),
    })
}

/// The diagnostics of fit_multilevel's general model (`general`, with `mods`, `exclude`,
/// `method` and `test`), leaving out each record, or each cluster of `cluster`.
fn general_influence(args: InfluenceArgs, data: &DataSource) -> Result<InfluenceResult, ToolError> {
    let (method, test) = (args.method.get(), args.test.get());
    let g = mv::fit(&general_args(&args)?, data, false)?;
    let kept = data.kept(&g.excluded);
    let k = kept.len();
    let w = mv::inverse_blocks(&g.model, &g.fit)?;
    let (hat, weight) = (mv::hat_values(&g.model, &g.fit, &w), mv::weights(&w, k));
    let (units, names): (Vec<usize>, Vec<String>) = match &args.cluster {
        Some(column) => {
            let labels = super::multilevel::labels(data, column, "cluster", &g.excluded)?;
            let mut names: Vec<String> = Vec::new();
            let units = labels
                .iter()
                .map(|l| {
                    names.iter().position(|n| n == l).unwrap_or_else(|| {
                        names.push(l.clone());
                        names.len() - 1
                    })
                })
                .collect();
            (units, names)
        }
        None => ((0..k).collect(), Vec::new()),
    };
    let n = if args.cluster.is_some() { names.len() } else { k };
    let deleted = general::deletions(&g, &units, n);
    let mut seen = vec![0; n];
    let records = kept
        .iter()
        .enumerate()
        .map(|(r, record)| {
            let (u, d) = (units[r], &deleted[units[r]]);
            let (resid, se) = (d.resid[seen[u]], d.se[seen[u]]);
            seen[u] += 1;
            let own = args.cluster.is_none();
            MvRecordInfluence {
                id: record.id.clone(),
                resid,
                se,
                z: resid.zip(se).map(|(e, s)| e / s),
                cook_d: d.cook_d.filter(|_| own),
                dfbetas: d.dfbetas.clone().filter(|_| own),
                hat: hat[r],
                weight: weight[r],
                del: if own { d.del.clone() } else { Default::default() },
            }
        })
        .collect();
    let clusters = names
        .iter()
        .zip(&deleted)
        .enumerate()
        .map(|(u, (name, d))| MvClusterInfluence {
            cluster: name.clone(),
            k: units.iter().filter(|&&v| v == u).count(),
            cook_d: d.cook_d,
            dfbetas: d.dfbetas.clone(),
            x2: d.x2,
            del: d.del.clone(),
        })
        .collect();
    Ok(InfluenceResult {
        method: method.name().into(),
        test: test.name().into(),
        k,
        results: Vec::new(),
        general: Some(MvInfluence {
            structure: g.structure.clone(),
            coefficients: g.names.clone(),
            cluster: args.cluster,
            records,
            clusters,
        }),
        dataset: data.info().clone(),
    })
}


impl Printed for InfluenceResult {
    /// `print.infl.rma.uni`, after a headline naming the influential records; a general
    /// model's diagnostics as metafor's rstudent(), cooks.distance() and dfbetas() list them.
    fn print(&self, out: &mut Out) {
        if let Some(g) = &self.general {
            return g.print(self, out);
        }
        let influential: Vec<&str> = self
            .results
            .iter()
            .filter(|r| r.influential)
            .map(|r| r.id.as_str())
            .collect();
        out.line(format!(
            "Influential records: {} ({})",
            if influential.is_empty() {
                "none".to_string()
            } else {
                influential.join(", ")
            },
            model_context(Some(&self.method), self.k, Some(&self.test))
        ));
        out.blank();
        let rows: Vec<(String, Vec<String>)> = self
            .results
            .iter()
            .map(|r| {
                let mut cells: Vec<String> = [
                    r.rstudent, r.dffits, r.cook_d, r.cov_r, r.tau2_del, r.qe_del, r.hat,
                    r.weight, r.dfbetas,
                ]
                .into_iter()
                .map(|x| f4(Some(x)))
                .collect();
                cells.push(if r.influential { "*".into() } else { String::new() });
                (r.id.clone(), cells)
            })
            .collect();
        out.lines(frame_table(
            &[
                "rstudent", "dffits", "cook.d", "cov.r", "tau2.del", "QE.del", "hat", "weight", "dfbs",
                "inf",
            ],
            &rows,
            1,
        ));
    }
}


impl MvInfluence {
    fn print(&self, r: &InfluenceResult, out: &mut Out) {
        out.line(format!(
            "Case deletion of the rma.mv model {} ({}, k = {}), each {} left out",
            self.structure.join("; "),
            r.method,
            r.k,
            self.cluster.as_deref().map_or("record".to_string(), |c| format!("{c} cluster"))
        ));
        out.blank();
        let dfbs: Vec<String> = self.coefficients.iter().map(|c| format!("dfbs.{c}")).collect();
        let per_record = self.cluster.is_none();
        let mut header: Vec<&str> = vec!["resid", "se", "z"];
        if per_record {
            header.push("cook.d");
        }
        header.extend(["hat", "weight"]);
        if per_record {
            header.extend(dfbs.iter().map(String::as_str));
        }
        let rows: Vec<(String, Vec<String>)> = self
            .records
            .iter()
            .map(|x| {
                let mut cells = vec![f4(x.resid), f4(x.se), f4(x.z)];
                if per_record {
                    cells.push(f4(x.cook_d));
                }
                cells.extend([f4(Some(x.hat)), f4(Some(x.weight))]);
                if per_record {
                    cells.extend(dfbetas_cells(x.dfbetas.as_deref(), dfbs.len()));
                }
                (x.id.clone(), cells)
            })
            .collect();
        out.lines(frame_table(&header, &rows, 1));
        if self.clusters.is_empty() {
            return;
        }
        out.blank();
        let mut header: Vec<&str> = vec!["k", "X2", "cook.d"];
        header.extend(dfbs.iter().map(String::as_str));
        let rows: Vec<(String, Vec<String>)> = self
            .clusters
            .iter()
            .map(|c| {
                let mut cells = vec![c.k.to_string(), f4(c.x2), f4(c.cook_d)];
                cells.extend(dfbetas_cells(c.dfbetas.as_deref(), dfbs.len()));
                (c.cluster.clone(), cells)
            })
            .collect();
        out.lines(frame_table(&header, &rows, 1));
    }
}

/// A unit's DFBETAS as cells ("NA" where its refit failed).
fn dfbetas_cells(values: Option<&[f64]>, p: usize) -> Vec<String> {
    match values {
        Some(v) => v.iter().map(|x| f4(Some(*x))).collect(),
        None => vec![f4(None); p],
    }
}

/// `influence(rma(...))`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for InfluenceArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, fit_methods, rma};
        if self.general.is_some() {
            return general_reproduction(self, cx, out);
        }
        let method = self.method.get();
        let test = self.test.get();
        let fit = rma(cx, &self.exclude.exclude, fit_arguments(method, 0.95, test));
        out.script.line(format!("res <- influence({fit})"));
        for (i, row) in cx.result["results"].as_array().into_iter().flatten().enumerate() {
            let at = i + 1;
            for (r, field) in [
                ("rstudent", "rstudent"),
                ("dffits", "dffits"),
                ("cook.d", "cook_d"),
                ("cov.r", "cov_r"),
                ("QE.del", "qe_del"),
                ("hat", "hat"),
            ] {
                out.check_at(format!("res$inf${r}[{at}]"), row, &format!("/{field}"));
            }
            out.check_at(format!("res$dfbs[[1]][{at}]"), row, "/dfbetas");
            if !matches!(method, meta_analysis::Method::Ee | meta_analysis::Method::Fe) {
                out.check_at(format!("res$inf$tau2.del[{at}]"), row, "/tau2_del");
            }
        }
        fit_methods(&mut out.methods, None, method, test, 0.95, false);
        out.methods.say(
            "Studentized residuals, DFFITS, Cook's distances, covariance ratios, leave-one-out \
             estimates of tau^2 and of the Q statistic, hat values and DFBETAS were computed to \
             examine whether studies may be outliers or influential {}.",
            &[&crate::rcode::VIECHTBAUER_2010B],
        );
        Ok(())
    }
}

/// A general model's diagnostics in R: the multilevel tool's `rma.mv` call (no component
/// pinned: metafor's refits re-estimate them), then cooks.distance(), dfbetas(), rstudent(),
/// hatvalues() and weights(), each number checked to 1e-4 (METHODS.md: metafor's refits stop
/// short of the optimum).
#[cfg(feature = "extended")]
fn general_reproduction(
    args: &InfluenceArgs,
    cx: &super::reproduce::RContext,
    out: &mut super::reproduce::Reproduction,
) -> Result<(), ToolError> {
    use super::args::FromArgs;
    use super::reproduce::{RContext, Reproducible};
    use crate::rcode::{name, string};
    let margs = general_args(args)?;
    let model = super::fit_multilevel::FitMultilevelArgs::from_args(&margs)
        .map_err(|e| invalid(e.to_string()))?;
    // No result for the multilevel tool's script: it then pins no component and checks none.
    let empty = serde_json::json!({});
    let inner = RContext {
        args: cx.args,
        data: cx.data,
        result: &empty,
    };
    model.reproduce(&inner, out)?;
    let g = &cx.result["general"];
    let by = match &args.cluster {
        Some(c) => format!(", cluster = dat${}", name(c)),
        None => String::new(),
    };
    out.script
        .line(format!("cd <- cooks.distance(res{by})"))
        .line(format!("db <- dfbetas(res{by})"))
        .line(format!("rs <- rstudent(res{by})"))
        .line("hv <- hatvalues(res)")
        .line("wt <- weights(res)");
    out.loose(1e-4);
    let obs = if args.cluster.is_some() { "rs$obs" } else { "rs" };
    for (i, row) in g["records"].as_array().into_iter().flatten().enumerate() {
        let at = i + 1;
        out.check_at(format!("{obs}$resid[{at}]"), row, "/resid")
            .check_at(format!("{obs}$se[{at}]"), row, "/se")
            .check_at(format!("hv[{at}]"), row, "/hat")
            .check_at(format!("wt[{at}]"), row, "/weight");
        if args.cluster.is_none() {
            out.check_at(format!("cd[{at}]"), row, "/cook_d");
            for j in 0..row["dfbetas"].as_array().map_or(0, Vec::len) {
                out.check_at(format!("db[{at}, {}]", j + 1), row, &format!("/dfbetas/{j}"));
            }
        }
    }
    for row in g["clusters"].as_array().into_iter().flatten() {
        let label = string(row["cluster"].as_str().unwrap_or_default());
        out.check_at(format!("cd[{label}]"), row, "/cook_d").check_at(
            format!("rs$cluster$X2[match({label}, rs$cluster$slab)]"),
            row,
            "/x2",
        );
        for j in 0..row["dfbetas"].as_array().map_or(0, Vec::len) {
            out.check_at(format!("db[{label}, {}]", j + 1), row, &format!("/dfbetas/{j}"));
        }
    }
    let sentence = format!(
        "Studentized deleted residuals, Cook's distances, DFBETAS and hat values of the \
         multilevel model were computed by leaving out each {} in turn and refitting the model \
         {{}}.",
        if args.cluster.is_some() {
            "cluster"
        } else {
            "effect size"
        }
    );
    out.methods
        .say(&sentence, &[&crate::rcode::VIECHTBAUER_2010B]);
    Ok(())
}

/// fit_multilevel's arguments for `general` with the call's `mods`, `exclude`, `method` and
/// `test` (knha read as t).
fn general_args(args: &InfluenceArgs) -> Result<serde_json::Map<String, Value>, ToolError> {
    let (method, test) = (args.method.get(), args.test.get());
    let mut common = serde_json::json!({
        "exclude": args.exclude.exclude,
        "method": method.name(),
        "test": match test {
            meta_analysis::Test::Knha => "t",
            meta_analysis::Test::Z => "z",
        },
    });
    if let Some(mods) = &args.mods {
        common["mods"] = match mods {
            Mods::Formula(f) => Value::from(f.as_str()),
            Mods::Terms(t) => Value::from(t.clone()),
        };
    }
    let general = args.general.as_ref().expect("general given");
    mv::multilevel_args(general, common.as_object().cloned().expect("an object"))
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::super::{call, ErrorCode, INFLUENCE_DIAGNOSTICS};
    use serde_json::{json, Value};

    fn close(got: &Value, want: f64) {
        let got = got.as_f64().unwrap();
        assert!(
            ((got - want) / want).abs() < 1e-9,
            "{got} vs metafor {want}"
        );
    }

    fn flagged(result: &Value) -> Vec<&str> {
        result["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|row| row["influential"] == true)
            .map(|row| row["id"].as_str().unwrap())
            .collect()
    }

    /// metafor 3.8-1 on the frozen dataset (REML, threshold 1e-14): `influence(rma(yi, vi))`
    /// gives s01 rstudent -0.30273676975954805, cook.d 0.049738947248233585 and dfbs
    /// -0.2035242900935374, and flags
    /// s10. z is the default and the result says so.
    #[cfg(feature = "extended")]
    #[test]
    fn the_z_test_values_by_default() {
        let result = call(INFLUENCE_DIAGNOSTICS.name, &json!({})).unwrap();
        assert_eq!(
            (result["method"].as_str(), result["test"].as_str()),
            (Some("REML"), Some("z"))
        );
        let s01 = &result["results"][0];
        assert_eq!(s01["id"], "s01");
        close(&s01["rstudent"], -0.30273676975954805);
        close(&s01["cook_d"], 0.049738947248233585);
        // inf$dfbs$intrcpt[1]
        close(&s01["dfbetas"], -0.2035242900935374);
        assert_eq!(flagged(&result), ["s10"]);
        let explicit = call(INFLUENCE_DIAGNOSTICS.name, &json!({"test": "z"})).unwrap();
        assert_eq!(explicit, result);
    }

    /// `influence(rma(yi, vi, test = "knha", control = list(threshold = 1e-14)))` on the
    /// frozen dataset, metafor 3.8-1: s01 and s10 below, and no record flagged (s10's cook.d,
    /// 0.497 under z, is divided by s² = 1.42 to 0.350, under the χ²₁ median 0.455); DL's
    /// s01. `level` is still refused: no value is an interval.
    #[cfg(feature = "extended")]
    #[test]
    fn knha_gives_metafors_knha_values_and_level_is_refused() {
        let result = call(INFLUENCE_DIAGNOSTICS.name, &json!({"test": "knha"})).unwrap();
        assert_eq!(
            (result["method"].as_str(), result["test"].as_str()),
            (Some("REML"), Some("knha"))
        );
        let rows = result["results"].as_array().unwrap();
        // id, rstudent, dffits, cook.d, cov.r, tau2.del, QE.del, hat, weight
        let metafor = [
            (
                0,
                "s01",
                [
                    -0.2609478505083334,
                    -0.17208881970796086,
                    0.03497925683783307,
                    1.2281500988379583,
                    0.027349453833145583,
                    35.76492092315808,
                    0.07748087086927413,
                    7.748087086927416,
                ],
            ),
            (
                9,
                "s10",
                [
                    2.381822974650431,
                    0.6458889121695263,
                    0.3496920232527783,
                    0.6192977395349822,
                    0.0026273506860020985,
                    26.9588010200853,
                    0.03259367800954203,
                    3.259367800954204,
                ],
            ),
        ];
        for (index, id, values) in metafor {
            let row = &rows[index];
            assert_eq!(row["id"], id);
            let fields = [
                "rstudent", "dffits", "cook_d", "cov_r", "tau2_del", "qe_del", "hat", "weight",
            ];
            for (field, want) in fields.into_iter().zip(values) {
                close(&row[field], want);
            }
        }
        // dfbs under knha: s01's, divided by its deleted fit's sqrt(s2w).
        close(&rows[0]["dfbetas"], -0.17543037824023044);
        assert!(flagged(&result).is_empty());
        // DL: s01's rstudent and cook.d.
        let dl = call(
            INFLUENCE_DIAGNOSTICS.name,
            &json!({"method": "DL", "test": "knha"}),
        )
        .unwrap();
        close(&dl["results"][0]["rstudent"], -0.26484753879800155);
        close(&dl["results"][0]["cook_d"], 0.0152009848175478);
        let error = call(INFLUENCE_DIAGNOSTICS.name, &json!({"level": 0.9})).unwrap_err();
        assert_eq!(error.code, ErrorCode::UnknownProperty, "{error}");
        assert!(error.message.contains("\"level\""), "{error}");
        let error = call(INFLUENCE_DIAGNOSTICS.name, &json!({"test": "t"})).unwrap_err();
        assert_ne!(error.code, ErrorCode::UnknownProperty, "{error}");
    }
}
