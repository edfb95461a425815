//! `influence_diagnostics`: metafor's case-deletion diagnostics for every record.

use super::args::{DataArg, ExcludeArg, MethodArg, TestArg};
use super::data::{DataSource, DatasetInfo};
use super::ToolError;
use super::{Tool, ToolGroup, MAX_INFLUENCE_RECORDS};
use crate::printed::{f4, frame_table, model_context, Out, Printed};
use serde::Serialize;

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
dfbetas, cook_d, cov_r. No intervals, so no level. Needs 3 records."
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
    }
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
    /// One row per record, in record order.
    pub results: Vec<meta_analysis::Influence>,
    pub dataset: DatasetInfo,
}

/// `influence_diagnostics`
pub fn influence_diagnostics(
    args: InfluenceArgs,
    data: &DataSource,
) -> Result<InfluenceResult, ToolError> {
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
        dataset: data.info().clone(),
    })
}


impl Printed for InfluenceResult {
    /// `print.infl.rma.uni`, after a headline naming the influential records.
    fn print(&self, out: &mut Out) {
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


/// `influence(rma(...))`.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for InfluenceArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_arguments, fit_methods, rma};
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
