//! What `fit_multilevel` (the three-level model, metafor's `rma.mv(random = ~ 1 |
//! study/id)`) and `robust_test` (cluster-robust tests of a fit, a meta-regression or a
//! multilevel model) share: the multilevel model's arguments and a column's labels.

use super::args::{DataArg, ExcludeArg, LevelArg, ModsArg};
use super::data::{Cell, DataSource};
use super::{ErrorCode, ToolError};
use meta_analysis::{Method, MultilevelOptions, MultilevelTest};
use serde::Deserialize;

/// The default name of the study column.
pub const DEFAULT_STUDY: &str = "study";

pub(super) fn invalid(message: String) -> ToolError {
    ToolError::new(ErrorCode::InvalidArguments, message)
}

/// `study`: the column naming each record's study (default [`DEFAULT_STUDY`]).
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct StudyArg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "study_schema"))]
    pub study: Option<String>,
}

impl StudyArg {
    /// The column's name, [`DEFAULT_STUDY`] when not given.
    pub fn get(&self) -> &str {
        self.study.as_deref().unwrap_or(DEFAULT_STUDY)
    }
}

/// `test` of the multilevel model: z (the default) or t with k - p df.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MultilevelTestArg {
    /// z, or t (F for QM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "test_schema"))]
    pub test: Option<String>,
}

impl MultilevelTestArg {
    pub fn get(&self) -> Result<MultilevelTest, ToolError> {
        match self.test.as_deref() {
            None => Ok(MultilevelTest::ALL[0]),
            Some(name) => MultilevelTest::parse(name)
                .ok_or_else(|| invalid(format!("test must be \"z\" or \"t\", got {name:?}"))),
        }
    }
}

/// `method` of the multilevel model: REML (the default) or ML.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MultilevelMethodArg {
    /// Estimator of sigma2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "method_schema"))]
    pub method: Option<String>,
}

leaf_args!(StudyArg, MultilevelTestArg, MultilevelMethodArg);

composed_args! {
    /// The multilevel model's arguments (`fit_multilevel`'s).
    #[derive(Debug, Default)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct MultilevelArgs {
        #[flat]
        pub study: StudyArg,
        #[flat]
        pub mods: ModsArg,
        #[flat]
        pub method: MultilevelMethodArg,
        #[flat]
        pub level: LevelArg,
        #[flat]
        pub test: MultilevelTestArg,
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub _data: DataArg,
        // `measure` and `transform`: the scale of the result's `natural` fields.
        #[flat]
        pub scale: super::scale::ScaleArgs,
    }
}

/// The multilevel model's estimators: REML (the default) and ML.
pub const METHODS: [Method; 2] = [Method::Reml, Method::Ml];

/// `study`: the column of study labels, by default [`DEFAULT_STUDY`].
#[cfg(feature = "definitions")]
pub(super) fn study_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "string", "default": DEFAULT_STUDY, "description": "Study column."}))
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

/// The multilevel model's options from its method (REML or ML), level and test.
pub(super) fn multilevel_options(
    method: Option<&str>,
    level: &LevelArg,
    test: &MultilevelTestArg,
) -> Result<MultilevelOptions, ToolError> {
    let method = match method {
        None => METHODS[0],
        Some(name) => METHODS
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| invalid(format!("method must be REML or ML, got {name:?}")))?,
    };
    Ok(MultilevelOptions {
        method,
        level: level.get()?,
        test: test.get()?,
    })
}

impl MultilevelArgs {
    pub(super) fn options(&self) -> Result<MultilevelOptions, ToolError> {
        multilevel_options(self.method.method.as_deref(), &self.level, &self.test)
    }
}

/// Column `name` of the records not in `excluded`, as labels: a string as it is, a number
/// as R's `factor()` labels it ([`meta_analysis::r_number`], 15 significant digits, the
/// levels' one rule: `0.3` and `0.1 + 0.2` are one group, as are `1` and `1.0`). Every such
/// record must hold a value.
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
            Some(Cell::Number(n)) => n
                .as_f64()
                .map_or_else(|| n.to_string(), meta_analysis::r_number),
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
