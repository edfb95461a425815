//! The measure of a call's effect sizes and the natural scale of its results: the
//! `measure` and `transform` arguments, and the `measure`, `transform` and `natural` fields
//! of a fit, a prediction, a subgroup, a cumulative step or a trim-and-fill result.
//!
//! The measure is the `measure` argument, or else the one the records carry (each record
//! [`super::COMPUTE_EFFECT_SIZES`] makes has a `measure` column), or SMD for the frozen
//! dataset. `transform` "auto" (the default) is the measure's usual back-transformation
//! (`meta_analysis::transforms`): exp for log ratios and log proportions, the inverse logit
//! for logit proportions, r from Fisher's z, and metafor's inverse arcsine, Freeman-Tukey,
//! square and alpha transforms; none for the others. The inverse Freeman-Tukey transforms
//! take the harmonic mean of the records' `ni` (PFT) or `ti` (IRFT), the columns
//! `compute_effect_sizes` keeps, as `predict(fit, transf = transf.ipft.hm, targs =
//! list(ni = dat$ni))` does; records without them have no natural scale under "auto", and
//! naming the transform without them is an error.

use super::data::DataSource;
use super::{ErrorCode, ToolError};
use meta_analysis::{measure_scale, MeasureScale, Natural, Transform, TransformKind};
use serde::{Deserialize, Serialize};

/// The column of a record that names its measure (written by `compute_effect_sizes`).
pub const MEASURE_COLUMN: &str = "measure";

/// The frozen dataset's measure: standardized mean differences.
const FROZEN_MEASURE: &str = "SMD";

/// The `transform` that picks the measure's own.
const AUTO: &str = "auto";

/// `measure` and `transform` as given.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ScaleArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "measure_schema"))]
    pub measure: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "transform_schema"))]
    pub transform: Option<String>,
}

leaf_args!(ScaleArgs);

/// The scale of a call: its measure (if known) and the transform its `natural` fields use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub measure: Option<&'static MeasureScale>,
    pub transform: Transform,
}

/// `measure` and `transform` in a result (flattened into it).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ScaleInfo {
    /// The effect-size measure by metafor's name (null when neither given nor carried).
    pub measure: Option<crate::tools::Word>,
    /// The back-transformation of `natural`: "none", or metafor's transf function without
    /// `transf.` ("exp", "ilogit", "ztor", "ipft.hm", ...).
    pub transform: crate::tools::Word,
}

/// An estimate and its intervals on the natural scale (`transform` of each).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct NaturalScale {
    pub estimate: f64,
    pub ci_lower: f64,
    pub ci_upper: f64,
    pub pi_lower: Option<f64>,
    pub pi_upper: Option<f64>,
}

impl Scale {
    /// The call's scale from its arguments and data.
    pub fn of(args: &ScaleArgs, data: &DataSource) -> Result<Scale, ToolError> {
        let given = args.measure.as_deref().map(measure_named).transpose()?;
        let carried = carried_measure(data)?.map(measure_named).transpose()?;
        let measure = match (given, carried) {
            (Some(given), Some(carried)) if given.name != carried.name => {
                return Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "measure is {:?} but the records are {:?}; leave measure out, or give {:?}",
                        given.name, carried.name, carried.name
                    ),
                ))
            }
            (given, carried) => given.or(carried),
        };
        Scale::with(measure, args.transform.as_deref(), Some(data))
    }

    /// The scale of an analysis whose measure is its own (a table analysis: Mantel-Haenszel's
    /// OR, RR or RD, Peto's OR), whatever the data carry, with its `transform` argument.
    pub fn of_measure(
        measure: &'static MeasureScale,
        transform: Option<&str>,
    ) -> Result<Scale, ToolError> {
        Scale::with(Some(measure), transform, None)
    }

    /// The scale of `measure` with the transform named (or "auto"), its argument bound from
    /// `data` (a harmonic mean of a column): under "auto", records without that column have
    /// no natural scale; a transform named without it is an error.
    ///
    /// The page's first module (without `extended`) has no back-transformations: a scale
    /// other than the model's is the whole engine's.
    #[cfg(not(feature = "extended"))]
    fn with(
        measure: Option<&'static MeasureScale>,
        transform: Option<&str>,
        _data: Option<&DataSource>,
    ) -> Result<Scale, ToolError> {
        let natural = measure.is_some_and(|m| m.transform != TransformKind::None);
        if natural || transform.is_some_and(|t| t != AUTO) {
            return Err(super::error::whole_engine(
                "a natural scale (`measure`, `transform`)",
            ));
        }
        Ok(Scale {
            measure,
            transform: Transform::None,
        })
    }

    #[cfg(feature = "extended")]
    fn with(
        measure: Option<&'static MeasureScale>,
        transform: Option<&str>,
        data: Option<&DataSource>,
    ) -> Result<Scale, ToolError> {
        let (kind, auto) = match transform {
            None | Some(AUTO) => (measure.map_or(TransformKind::None, |m| m.transform), true),
            Some(name) => (
                TransformKind::parse(name).ok_or_else(|| {
                    ToolError::new(
                        ErrorCode::InvalidArguments,
                        format!(
                            "unknown transform {name:?}; one of {}",
                            transform_names().join(", ")
                        ),
                    )
                })?,
                false,
            ),
        };
        let values = match (kind.harmonic_mean_of(), data) {
            (Some(column), Some(data)) => data.numbers(column),
            _ => Vec::new(),
        };
        let transform = match (kind.bind(&values), auto) {
            (Some(bound), _) => bound,
            (None, true) => Transform::None,
            (None, false) => {
                let column = kind.harmonic_mean_of().unwrap_or_default();
                return Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "transform {:?} takes the harmonic mean of the records' {column} \
(positive numbers), which these records do not all give (records computed from raw data \
carry it)",
                        kind.name()
                    ),
                ));
            }
        };
        Ok(Scale { measure, transform })
    }

    pub fn info(&self) -> ScaleInfo {
        ScaleInfo {
            measure: self.measure.map(|m| m.name).map(Into::into),
            transform: self.transform.name().into(),
        }
    }

    /// The estimate and intervals on the natural scale; `None` when nothing is transformed.
    pub fn natural(
        &self,
        estimate: f64,
        ci: (f64, f64),
        pi: Option<(f64, f64)>,
    ) -> Option<NaturalScale> {
        if self.transform == Transform::None || cfg!(not(feature = "extended")) {
            return None;
        }
        let n = Natural::of(self.transform, estimate, ci, pi);
        Some(NaturalScale {
            estimate: n.estimate,
            ci_lower: n.ci_lower,
            ci_upper: n.ci_upper,
            pi_lower: n.pi_lower,
            pi_upper: n.pi_upper,
        })
    }

    /// What yi is, for a plot's axis: e.g. "Log risk ratio (yi)".
    pub fn axis_title(&self) -> String {
        match self.measure {
            Some(m) => format!("{} (yi)", m.title),
            None => "Effect size (yi)".to_string(),
        }
    }

    /// The effect axis of a plot whose text is back-transformed (a forest plot): with a
    /// transform, the natural scale and the scale of the positions, e.g. "Risk ratio (log
    /// scale)"; else [`Scale::axis_title`].
    pub fn natural_axis_title(&self) -> String {
        let positions = match self.transform.kind() {
            TransformKind::None => return self.axis_title(),
            TransformKind::Exp => "log",
            TransformKind::Ilogit => "logit",
            TransformKind::Ztor => "Fisher's z",
            TransformKind::Iarcsin => "arcsine",
            TransformKind::IpftHm | TransformKind::Iirft => "Freeman-Tukey",
            TransformKind::Isqrt => "square root",
            TransformKind::Iahw => "Hakstian-Whalen",
            TransformKind::Iabt => "Bonett",
        };
        let natural = match self.measure {
            Some(m) if m.transform == self.transform.kind() => m.natural_title.to_string(),
            _ => format!("{}(yi)", self.transform.name()),
        };
        format!("{natural} ({positions} scale)")
    }
}

fn measure_named(name: &str) -> Result<&'static MeasureScale, ToolError> {
    measure_scale(name).ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "unknown measure {name:?}; one of {}",
                measure_names().join(", ")
            ),
        )
    })
}

/// The measure the records carry in their `measure` column, if every record carries the
/// same measure name; SMD for the frozen dataset. A `measure` column that holds anything
/// else (a column of the caller's own meaning) names no measure.
fn carried_measure(data: &DataSource) -> Result<Option<&str>, ToolError> {
    if data.is_frozen() {
        return Ok(Some(FROZEN_MEASURE));
    }
    let mut found: Option<&str> = None;
    let Some(column) = data.column(MEASURE_COLUMN) else {
        return Ok(None);
    };
    for value in column.iter() {
        let Some(value) = value else {
            return Ok(None);
        };
        let Some(name) = value.as_str().filter(|n| measure_scale(n).is_some()) else {
            return Ok(None);
        };
        match found {
            Some(first) if first != name => {
                return Err(ToolError::new(
                    ErrorCode::InvalidRecords,
                    format!(
                        "the records carry different measures ({first:?} and {name:?}); \
analyse one measure at a time"
                    ),
                ))
            }
            _ => found = Some(name),
        }
    }
    Ok(found)
}

/// The measure names, for the input schema and errors.
pub fn measure_names() -> Vec<&'static str> {
    meta_analysis::MEASURES.iter().map(|m| m.name).collect()
}

#[cfg(any(feature = "extended", feature = "definitions"))]
fn transform_names() -> Vec<&'static str> {
    std::iter::once(AUTO)
        .chain(TransformKind::ALL.iter().map(|t| t.name()))
        .collect()
}

/// `measure`'s schema: a measure's name, checked by the handler against the measures the
/// natural scale knows (all of escalc's, over 60: listed in the tool list they would cost
/// every analysis tool about 450 bytes; an unknown name's error lists them).
#[cfg(feature = "definitions")]
fn measure_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(
        serde_json::json!({"type": "string", "description": "escalc's name, or GEN."}),
    )
    .expect("an object schema")
}

/// `transform`'s schema: auto, or a back-transformation.
#[cfg(feature = "definitions")]
pub(super) fn transform_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "string", "enum": transform_names(), "default": AUTO, "description": "Scale of natural."}))
        .expect("an object schema")
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::*;
    use serde_json::json;
    use serde_json::Value;

    fn scale(args: Value, records: Option<Value>) -> Result<Scale, ToolError> {
        let args: ScaleArgs = serde_json::from_value(args).unwrap();
        let data = match records {
            Some(r) => DataSource::custom(&r).unwrap(),
            None => DataSource::frozen(),
        };
        Scale::of(&args, &data)
    }

    #[cfg(feature = "extended")]
    #[test]
    fn the_measure_comes_from_the_argument_the_records_or_the_frozen_dataset() {
        let frozen = scale(json!({}), None).unwrap();
        assert_eq!(frozen.info().measure, Some("SMD".into()));
        assert_eq!(frozen.transform, Transform::None);
        assert_eq!(frozen.natural(0.1, (0.0, 0.2), None), None);
        let rr = json!([{"id": "a", "yi": 0.1, "vi": 0.1, "measure": "RR"}, {"id": "b", "yi": 0.2, "vi": 0.1, "measure": "RR"}]);
        let carried = scale(json!({}), Some(rr.clone())).unwrap();
        assert_eq!(
            carried.info(),
            ScaleInfo {
                measure: Some("RR".into()),
                transform: "exp".into()
            }
        );
        let n = carried
            .natural(0.0, (-1.0, 1.0), Some((-2.0, 2.0)))
            .unwrap();
        assert_eq!(n.estimate, 1.0);
        assert_eq!(n.pi_upper, Some(meta_analysis::math::exp(2.0)));
        let none = scale(json!({"transform": "none"}), Some(rr.clone())).unwrap();
        assert_eq!(
            none.info(),
            ScaleInfo {
                measure: Some("RR".into()),
                transform: "none".into()
            }
        );
        let plain = json!([{"id": "a", "yi": 0.1, "vi": 0.1}]);
        assert_eq!(
            scale(json!({}), Some(plain.clone()))
                .unwrap()
                .info()
                .measure,
            None
        );
        let given = scale(json!({"measure": "PLO"}), Some(plain.clone())).unwrap();
        assert_eq!(given.transform, Transform::Ilogit);
        assert_eq!(given.axis_title(), "Logit proportion (yi)");
        assert_eq!(given.natural_axis_title(), "Proportion (logit scale)");
        assert_eq!(
            frozen.natural_axis_title(),
            "Standardized mean difference (yi)"
        );
        let forced = scale(json!({"transform": "ztor"}), Some(plain)).unwrap();
        assert_eq!(forced.natural_axis_title(), "ztor(yi) (Fisher's z scale)");
        assert_eq!(
            forced.info(),
            ScaleInfo {
                measure: None,
                transform: "ztor".into()
            }
        );
    }

    #[cfg(feature = "extended")]
    #[test]
    fn a_conflicting_or_unknown_measure_is_refused() {
        let rr = json!([{"id": "a", "yi": 0.1, "vi": 0.1, "measure": "RR"}]);
        let e = scale(json!({"measure": "OR"}), Some(rr)).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        assert!(e.message.contains("\"RR\""), "{}", e.message);
        let mixed = json!([{"id": "a", "yi": 0.1, "vi": 0.1, "measure": "RR"}, {"id": "b", "yi": 0.1, "vi": 0.1, "measure": "OR"}]);
        assert_eq!(
            scale(json!({}), Some(mixed)).unwrap_err().code,
            ErrorCode::InvalidRecords
        );
        let odd = json!([{"id": "a", "yi": 0.1, "vi": 0.1, "measure": "self-report"}]);
        assert_eq!(
            scale(json!({}), Some(odd.clone())).unwrap().info().measure,
            None
        );
        let given = scale(json!({"measure": "OR"}), Some(odd)).unwrap();
        assert_eq!(given.info().measure, Some("OR".into()));
        let e = scale(json!({"measure": "XYZ"}), None).unwrap_err();
        assert!(
            e.message.contains("unknown measure \"XYZ\""),
            "{}",
            e.message
        );
        assert!(scale(json!({"transform": "log"}), None).is_err());
    }
}
