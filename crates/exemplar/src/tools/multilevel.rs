//! What `fit_multilevel` (the three-level model, metafor's `rma.mv(random = ~ 1 |
//! study/es)`) and `robust_test` (cluster-robust tests of a fit, a meta-regression or a
//! multilevel model) share: the multilevel model's arguments and a column's labels.

use super::args::RecordsSlot;
use super::data::{Cell, DataSource};
use super::meta_regression::moderators;
#[cfg(feature = "definitions")]
use super::schema_derivation as schemas;
use super::{ErrorCode, ToolError};
use meta_analysis::{Method, Moderator, MultilevelOptions, MultilevelTest};
use serde::Deserialize;

/// The default name of the study column.
pub const DEFAULT_STUDY: &str = "study";

pub(super) fn invalid(message: String) -> ToolError {
    ToolError::new(ErrorCode::InvalidArguments, message)
}

/// The multilevel model's arguments (`fit_multilevel`'s).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MultilevelArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "study_schema"))]
    pub study: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::mods"))]
    pub mods: Vec<String>,
    /// Estimator of sigma2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "method_schema"))]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::level"))]
    pub level: Option<f64>,
    /// z, or t with k-p df (F for QM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "test_schema"))]
    pub test: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::exclude", description = schemas::EXCLUDE))]
    pub exclude: Vec<String>,
    #[serde(default, rename = "records")]
    #[cfg_attr(
        feature = "definitions",
        schemars(schema_with = "schemas::records_slot")
    )]
    pub _records: RecordsSlot,
}

/// The multilevel model's estimators: REML (the default) and ML.
pub const METHODS: [Method; 2] = [Method::Reml, Method::Ml];

/// `study`: the column of study labels, by default [`DEFAULT_STUDY`].
#[cfg(feature = "definitions")]
pub(super) fn study_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "string", "default": DEFAULT_STUDY, "description": "The column naming each record's study (a string or number per record)."}))
        .expect("an object schema")
}

/// `method` of the multilevel model: one of [`METHODS`].
#[cfg(feature = "definitions")]
fn method_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = METHODS.iter().map(|m| m.name()).collect();
    schemars::Schema::try_from(
        serde_json::json!({"type": "string", "enum": names, "default": names[0]}),
    )
    .expect("an object schema")
}

/// `test` of the multilevel model: one of [`MultilevelTest::ALL`].
#[cfg(feature = "definitions")]
pub(super) fn test_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = MultilevelTest::ALL.iter().map(|t| t.name()).collect();
    schemars::Schema::try_from(
        serde_json::json!({"type": "string", "enum": names, "default": names[0]}),
    )
    .expect("an object schema")
}

impl MultilevelArgs {
    pub(super) fn options(&self) -> Result<MultilevelOptions, ToolError> {
        let method = match self.method.as_deref() {
            None => METHODS[0],
            Some(name) => METHODS
                .into_iter()
                .find(|m| m.name() == name)
                .ok_or_else(|| invalid(format!("method must be REML or ML, got {name:?}")))?,
        };
        let test = match self.test.as_deref() {
            None => MultilevelTest::ALL[0],
            Some(name) => MultilevelTest::parse(name)
                .ok_or_else(|| invalid(format!("test must be \"z\" or \"t\", got {name:?}")))?,
        };
        let level = self.level.unwrap_or(0.95);
        if !(level > 0.0 && level < 1.0) {
            return Err(invalid(format!(
                "level must be strictly between 0 and 1 (for example 0.95), got {level}"
            )));
        }
        Ok(MultilevelOptions {
            method,
            level,
            test,
        })
    }
}

/// Column `name` of the records not in `excluded`, as labels: a string as it is, a number
/// as JSON writes it. Every such record must hold a value.
pub fn labels(
    data: &DataSource,
    name: &str,
    what: &str,
    excluded: &[String],
) -> Result<Vec<String>, ToolError> {
    if !data.column_names().contains(&name) {
        let known = data.column_names();
        return Err(invalid(format!(
            "there is no column {name:?} to use as the {what}{}",
            if known.is_empty() {
                "; these records have no columns besides id, yi and vi (give each record a \
                 property naming its group, e.g. \"study\": \"s1\")"
                    .to_string()
            } else {
                format!("; the records' columns are {}", known.join(", "))
            }
        )));
    }
    let excluded = super::data::id_set(excluded);
    let mut out = Vec::new();
    let column = data.column(name);
    for (at, record) in data.records().iter().enumerate() {
        if excluded.contains(record.id.as_str()) {
            continue;
        }
        let label = match column.and_then(|c| c.get(at)) {
            Some(Cell::Text(s)) => s.to_owned(),
            Some(Cell::Number(n)) => n.to_string(),
            _ => {
                return Err(ToolError::new(
                    ErrorCode::InvalidRecords,
                    format!(
                        "record {:?} has no value for the {what} column {name}, which every \
                         record analysed needs (a string or a number)",
                        record.id
                    ),
                ))
            }
        };
        out.push(label);
    }
    Ok(out)
}

/// The moderators of `mods` (none when it is empty).
pub(super) fn optional_moderators(
    mods: &[String],
    excluded: &[String],
    data: &DataSource,
) -> Result<Vec<Moderator>, ToolError> {
    if mods.is_empty() {
        Ok(Vec::new())
    } else {
        moderators(mods, excluded, data)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{call, FIT_MULTILEVEL, ROBUST_TEST};
    use serde_json::{json, Value};

    fn records() -> Value {
        let rows = [
            ("a", 0.10, 0.02, 1.0),
            ("a", 0.30, 0.03, 2.0),
            ("a", -0.20, 0.01, 0.5),
            ("b", 0.50, 0.05, 3.0),
            ("b", 0.40, 0.04, 2.5),
            ("c", 0.00, 0.02, 1.0),
            ("c", 0.25, 0.03, 1.5),
            ("c", 0.60, 0.06, 4.0),
            ("d", -0.10, 0.02, 0.0),
            ("d", 0.20, 0.01, 2.0),
            ("e", 0.35, 0.04, 3.5),
            ("e", 0.15, 0.03, 1.0),
        ];
        Value::Array(
            rows.iter()
                .enumerate()
                .map(|(i, (s, y, v, x))| json!({"id": format!("r{i}"), "yi": y, "vi": v, "study": s, "x": x}))
                .collect(),
        )
    }

    #[test]
    fn the_tools_fit_and_test_records_with_a_study_column() {
        let fit = call(FIT_MULTILEVEL.name, &json!({"records": records()})).unwrap();
        assert_eq!(fit["n_studies"], 5);
        assert_eq!(fit["sigma2"].as_array().unwrap().len(), 2);
        assert!(fit["estimate"].is_number() && fit["pi_lower"].is_number());
        let lower = fit["sigma2_ci_lower"][1].as_f64().unwrap();
        assert!(lower <= fit["sigma2"][1].as_f64().unwrap());
        let reg = call(
            FIT_MULTILEVEL.name,
            &json!({"records": records(), "mods": ["x"], "test": "t"}),
        )
        .unwrap();
        assert!(reg["estimate"].is_null() && reg["qm"].is_number());
        assert_eq!(reg["coefficients"][1]["name"], "x");

        for model in ["random_effects", "regression", "multilevel"] {
            for vcov in ["CR2", "CR1"] {
                let mut args =
                    json!({"records": records(), "cluster": "study", "model": model, "vcov": vcov});
                if model != "random_effects" {
                    args["mods"] = json!(["x"]);
                }
                let r =
                    call(ROBUST_TEST.name, &args).unwrap_or_else(|e| panic!("{model} {vcov}: {e}"));
                assert_eq!(r["n_clusters"], 5);
                let c = &r["coefficients"][0];
                assert!(c["ci_lower"].as_f64().unwrap() < c["estimate"].as_f64().unwrap());
                if vcov == "CR1" {
                    assert_eq!(
                        c["df"].as_f64().unwrap(),
                        5.0 - r["coefficients"].as_array().unwrap().len() as f64
                    );
                }
            }
        }
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let e = call(FIT_MULTILEVEL.name, &json!({})).unwrap_err();
        assert!(e.message.contains("no column \"study\""), "{}", e.message);
        let mut recs = records();
        recs[3].as_object_mut().unwrap().remove("study");
        let e = call(FIT_MULTILEVEL.name, &json!({"records": recs})).unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_records");
        // Every study with one record: the two variances are not identified.
        let single: Vec<Value> = records()
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut r = r.clone();
                r["study"] = json!(format!("s{i}"));
                r
            })
            .collect();
        let e = call(FIT_MULTILEVEL.name, &json!({"records": single})).unwrap_err();
        assert_eq!(e.code.as_str(), "analysis_failed");
        assert!(e.message.contains("single effect size"), "{}", e.message);
        // Two clusters cannot support two coefficients.
        let mut two = records();
        for (i, r) in two.as_array_mut().unwrap().iter_mut().enumerate() {
            r["g"] = json!(if i < 6 { "p" } else { "q" });
        }
        let e = call(
            ROBUST_TEST.name,
            &json!({"records": two, "cluster": "g", "model": "regression", "mods": ["x"]}),
        )
        .unwrap_err();
        assert!(
            e.message.contains("more clusters than coefficients"),
            "{}",
            e.message
        );
        let e = call(
            ROBUST_TEST.name,
            &json!({"records": records(), "cluster": "study", "study": "study"}),
        )
        .unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_arguments");
    }
}

/// The page's "Your data" hands the tools every CSV column of a row: a study column read
/// there is the `study` (and `cluster`) of these tools.
#[cfg(test)]
mod your_data {
    use super::super::{call, FIT_MULTILEVEL, ROBUST_TEST};
    use serde_json::json;

    #[test]
    fn records_read_from_a_csv_run_both_tools_by_its_study_column() {
        let csv = "id,yi,vi,district\n\
                   a1,0.10,0.02,11\na2,0.30,0.03,11\na3,-0.20,0.01,11\n\
                   b1,0.50,0.05,12\nb2,0.40,0.04,12\n\
                   c1,0.00,0.02,18\nc2,0.25,0.03,18\nc3,0.60,0.06,18\n\
                   d1,-0.10,0.02,27\nd2,0.20,0.01,27\n";
        let records = crate::your_data::records_from_text(csv, None, None, None).unwrap();
        let fit = call(
            FIT_MULTILEVEL.name,
            &json!({"records": records, "study": "district"}),
        )
        .unwrap();
        assert_eq!(fit["n_studies"], 4);
        let robust = call(
            ROBUST_TEST.name,
            &json!({"records": records, "cluster": "district", "model": "multilevel", "study": "district"}),
        )
        .unwrap();
        assert_eq!(robust["n_clusters"], 4);
        assert_eq!(robust["coefficients"][0]["estimate"], fit["estimate"]);
    }
}
