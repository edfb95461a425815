//! The tools' arguments as typed values, read once after the schema check.
//!
//! The input schema has already refused unknown properties, wrong types and values outside
//! an `enum`, so these only carry what the handlers use. `records` is read separately, into
//! the call's [`super::DataSource`].

use super::{ErrorCode, ToolError};
use meta_analysis::{EggerVariant, Estimator, FailSafeType, FitOptions, Method, Side, Test};
use serde::{Deserialize, Deserializer};

fn parsed<'de, D, T>(
    deserializer: D,
    what: &str,
    parse: fn(&str) -> Option<T>,
) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
{
    let name = String::deserialize(deserializer)?;
    parse(&name)
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown {what} {name:?}")))
}

fn method<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Method>, D::Error> {
    parsed(d, "method", Method::parse)
}

fn test<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Test>, D::Error> {
    parsed(d, "test", Test::parse)
}

fn variant<'de, D: Deserializer<'de>>(d: D) -> Result<Option<EggerVariant>, D::Error> {
    parsed(d, "variant", EggerVariant::parse)
}

/// `method`, `level` and `test` of a fit.
#[derive(Debug, Default, Deserialize)]
pub struct FitArgs {
    #[serde(default, deserialize_with = "method")]
    pub method: Option<Method>,
    pub level: Option<f64>,
    #[serde(default, deserialize_with = "test")]
    pub test: Option<Test>,
    /// `measure` and `transform`: the scale of the results' `natural` fields.
    #[serde(flatten)]
    pub scale: super::scale::ScaleArgs,
}

impl FitArgs {
    /// The fit options, defaults filled in (REML, 0.95, z); a level of 0 or 1 is refused.
    pub fn options(&self) -> Result<FitOptions, ToolError> {
        fit_options(self.method, self.level, self.test)
    }
}

/// The fit options of `method`, `level` and `test`, defaults filled in (REML, 0.95, z); a
/// level of 0 or 1 is refused.
pub fn fit_options(
    method: Option<Method>,
    level: Option<f64>,
    test: Option<Test>,
) -> Result<FitOptions, ToolError> {
    let defaults = FitOptions::default();
    let level = level.unwrap_or(defaults.level);
    if !(level > 0.0 && level < 1.0) {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("level must be strictly between 0 and 1 (for example 0.95), got {level}"),
        ));
    }
    Ok(FitOptions {
        method: method.unwrap_or(defaults.method),
        level,
        test: test.unwrap_or(defaults.test),
    })
}

/// A fit of the records left after `exclude` (required and non-empty for `refit_excluding`).
#[derive(Debug, Deserialize)]
pub struct ExcludeFitArgs {
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(flatten)]
    pub fit: FitArgs,
}

/// Egger's test (and the funnel plot): `variant` and `exclude`.
#[derive(Debug, Deserialize)]
pub struct EggerArgs {
    #[serde(default, deserialize_with = "variant")]
    pub variant: Option<EggerVariant>,
    #[serde(default)]
    pub exclude: Vec<String>,
    /// The funnel plot's axis.
    #[serde(flatten)]
    pub scale: super::scale::ScaleArgs,
}

/// `load_data`: the measure the raw data's records are computed with, if any (`records`
/// and the raw data are read by the dispatch, which keeps them).
#[derive(Debug, Deserialize)]
pub struct LoadArgs {
    pub measure: Option<String>,
}

/// A tool that takes no arguments.
#[derive(Debug, Deserialize)]
pub struct NoArgs {}

fn estimator<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Estimator>, D::Error> {
    parsed(d, "estimator", Estimator::parse)
}

fn side<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Side>, D::Error> {
    parsed(d, "side", Side::parse)
}

fn fail_safe_type<'de, D: Deserializer<'de>>(d: D) -> Result<Option<FailSafeType>, D::Error> {
    parsed(d, "type", FailSafeType::parse)
}

/// `trim_and_fill` (and its plot).
#[derive(Debug, Deserialize)]
pub struct TrimFillArgs {
    #[serde(default, deserialize_with = "estimator")]
    pub estimator: Option<Estimator>,
    #[serde(default, deserialize_with = "side")]
    pub side: Option<Side>,
    #[serde(default, deserialize_with = "method")]
    pub method: Option<Method>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(flatten)]
    pub scale: super::scale::ScaleArgs,
}

/// A tool that takes only `exclude` (and `records`).
#[derive(Debug, Deserialize)]
pub struct ExcludeArgs {
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `influence_diagnostics`: the estimator, the test and `exclude` (no level: it reports no
/// interval).
#[derive(Debug, Deserialize)]
pub struct InfluenceArgs {
    #[serde(default, deserialize_with = "method")]
    pub method: Option<Method>,
    #[serde(default, deserialize_with = "test")]
    pub test: Option<Test>,
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `fail_safe_n`.
#[derive(Debug, Deserialize)]
pub struct FailSafeArgs {
    #[serde(rename = "type", default, deserialize_with = "fail_safe_type")]
    pub kind: Option<FailSafeType>,
    pub alpha: Option<f64>,
    pub target: Option<f64>,
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `cumulative_meta_analysis` (and its plot).
#[derive(Debug, Deserialize)]
pub struct CumulativeArgs {
    pub order_by: Option<String>,
    #[serde(default)]
    pub descending: bool,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(flatten)]
    pub fit: FitArgs,
}

/// `meta_regression`: the moderators, the fit's options, prediction points and exclusions.
#[derive(Debug, Deserialize)]
pub struct MetaRegressionArgs {
    pub mods: Vec<String>,
    #[serde(flatten)]
    pub fit: FitArgs,
    /// One object per prediction: a value for each moderator.
    #[serde(default)]
    pub at: Vec<serde_json::Map<String, serde_json::Value>>,
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `subgroup_analysis`: the text column, the fit's options and exclusions.
#[derive(Debug, Deserialize)]
pub struct SubgroupArgs {
    pub by: String,
    #[serde(flatten)]
    pub fit: FitArgs,
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `heterogeneity`: the estimator, the level and exclusions.
#[derive(Debug, Deserialize)]
pub struct HeterogeneityArgs {
    #[serde(flatten)]
    pub fit: FitArgs,
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `bubble_plot`: the numeric moderator, the fit's options and exclusions.
#[derive(Debug, Deserialize)]
pub struct BubbleArgs {
    #[serde(rename = "mod")]
    pub moderator: String,
    #[serde(default, deserialize_with = "method")]
    pub method: Option<Method>,
    pub level: Option<f64>,
    #[serde(default, deserialize_with = "test")]
    pub test: Option<Test>,
    #[serde(default)]
    pub exclude: Vec<String>,
    /// The plot's axis.
    #[serde(flatten)]
    pub scale: super::scale::ScaleArgs,
}

/// `forest_plot`: a refit's arguments and, optionally, the text column to group rows by.
#[derive(Debug, Deserialize)]
pub struct ForestArgs {
    #[serde(default)]
    pub by: Option<String>,
    #[serde(flatten)]
    pub refit: ExcludeFitArgs,
}
