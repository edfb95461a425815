//! The arguments several tools share, as typed values read once after the schema check;
//! each tool's own argument type lives in its file and composes these
//! ([`composed_args!`]).
//!
//! The input schema (derived from these types, `schema_derivation.rs`) has already refused
//! unknown properties, wrong types and values outside an `enum`. `records` is read
//! separately, into the call's [`super::DataSource`]: an argument type only marks where it
//! sits ([`RecordsSlot`]).

use super::data::Omitted;
#[cfg(feature = "definitions")]
use super::schema_derivation as schemas;
use super::{ErrorCode, ToolError};
use meta_analysis::{
    Btt, EggerVariant, Estimator, FailSafeType, FitOptions, Formula, Method, ModelMatrix, Side,
    Test, MAX_MODERATORS,
};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// An argument type read from a call's arguments object (after the schema check).
///
/// A shared argument ([`leaf_args!`]) reads its own keys and ignores the rest; a tool's
/// argument type ([`composed_args!`]) reads each shared part it composes from the same object,
/// then its own fields. This is serde's `#[serde(flatten)]` without its buffering of the whole
/// object per level (serde's `Content`), which weighed about 5 KB gzip in the page's first
/// wasm module (docs/PERFORMANCE.md).
pub trait FromArgs: Sized {
    /// The value read from `args`; a missing required key or a wrong type is an error.
    fn from_args(args: &Map<String, Value>) -> Result<Self, serde_json::Error>;
}

/// Shared arguments read directly by their serde `Deserialize` (their own keys only): each
/// listed type must not deny unknown fields.
macro_rules! leaf_args {
    ($($leaf:ty),* $(,)?) => {
        $(impl $crate::tools::args::FromArgs for $leaf {
            fn from_args(
                args: &serde_json::Map<String, serde_json::Value>,
            ) -> Result<Self, serde_json::Error> {
                <$leaf as serde::Deserialize>::deserialize(args)
            }
        })*
    };
}

/// A tool's argument type composed of shared parts and its own fields, in schema order:
///
/// ```text
/// composed_args! {
///     /// `egger_test`'s arguments.
///     #[derive(Debug)]
///     #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
///     pub struct EggerArgs {
///         #[serde(default)] pub variant: Option<String>,  // its own: serde attributes
///         #[flat] pub exclude: ExcludeArg,                  // a shared part (FromArgs)
///     }
/// }
/// ```
///
/// The struct is declared as written, a `#[flat]` part flattened into its schema
/// (`schemars(flatten)`) and read by its [`FromArgs`]; the own fields keep their attributes
/// for the schema and are read together by a private serde struct of the same fields.
macro_rules! composed_args {
    (
        $(#[$sattr:meta])*
        $vis:vis struct $name:ident { $($body:tt)* }
    ) => {
        composed_args!(@field [$(#[$sattr])* $vis struct $name] [] [] [] $($body)*);
    };
    // A shared part.
    (@field $head:tt [$($fields:tt)*] [$($own:tt)*] [$($parts:tt)*]
        #[flat] $fvis:vis $f:ident : $t:ty $(, $($rest:tt)*)?
    ) => {
        composed_args!(@field $head
            [$($fields)* #[cfg_attr(feature = "definitions", schemars(flatten))] $fvis $f: $t,]
            [$($own)*]
            [$($parts)* $f: $t,]
            $($($rest)*)?);
    };
    // An own field: its attributes are the schema's (derived only with `definitions`) and
    // the reading struct's.
    (@field $head:tt [$($fields:tt)*] [$($own:tt)*] [$($parts:tt)*]
        $(#[$a:meta])* $fvis:vis $f:ident : $t:ty $(, $($rest:tt)*)?
    ) => {
        composed_args!(@field $head
            [$($fields)* $(#[cfg_attr(feature = "definitions", $a)])* $fvis $f: $t,]
            [$($own)* $(#[$a])* $f: $t,]
            [$($parts)*]
            $($($rest)*)?);
    };
    (@field [$(#[$sattr:meta])* $vis:vis struct $name:ident]
        [$($fields:tt)*]
        [$($(#[$oa:meta])* $of:ident : $ot:ty,)*]
        [$($pf:ident : $pt:ty,)*]
    ) => {
        $(#[$sattr])*
        $vis struct $name { $($fields)* }

        impl $crate::tools::args::FromArgs for $name {
            fn from_args(
                args: &serde_json::Map<String, serde_json::Value>,
            ) -> Result<Self, serde_json::Error> {
                // `JsonSchema` (never called) only so that the own fields' `schemars`
                // attributes, copied here with their serde ones, are accepted.
                #[derive(serde::Deserialize)]
                #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
                #[allow(dead_code)]
                struct Own { $($(#[$oa])* $of: $ot,)* }
                #[allow(unused_variables)]
                let own = <Own as serde::Deserialize>::deserialize(args)?;
                Ok($name {
                    $($pf: <$pt as $crate::tools::args::FromArgs>::from_args(args)?,)*
                    $($of: own.$of,)*
                })
            }
        }
    };
}

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

/// Where `records` sits among a tool's arguments (its schema says which). The dispatch reads
/// the records into the call's [`super::DataSource`]; the handler never sees them, so they
/// are skipped here without a copy.
#[derive(Debug, Default)]
pub struct RecordsSlot;

impl<'de> Deserialize<'de> for RecordsSlot {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer)?;
        Ok(RecordsSlot)
    }
}

// One struct per shared argument: its field, its schema (named once, in
// `schema_derivation.rs`), its default and its validation live here, and a tool's argument
// type flattens in the ones it takes (`#[serde(flatten)] pub exclude: ExcludeArg`), so that
// adding an argument to every tool that reads records is one edit, to [`DataArg`].

/// `records` (or `data_id` beside it, which the schema derivation adds): the call's data.
/// Every tool that reads records flattens this in; the dispatch reads the data into the
/// call's [`super::DataSource`] before the handler runs.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct DataArg {
    #[serde(default, rename = "records")]
    #[cfg_attr(
        feature = "definitions",
        schemars(schema_with = "schemas::records_slot")
    )]
    pub _records: RecordsSlot,
}

/// `method`: the tau^2 estimator (default REML).
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct MethodArg {
    #[serde(
        default,
        deserialize_with = "method",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::method"))]
    pub method: Option<Method>,
}

impl MethodArg {
    /// The estimator, REML when not given.
    pub fn get(&self) -> Method {
        self.method.unwrap_or(FitOptions::default().method)
    }
}

/// `level`: the confidence level (default 0.95), strictly between 0 and 1.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct LevelArg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::level"))]
    pub level: Option<f64>,
}

impl LevelArg {
    /// The level, 0.95 when not given; a level of 0 or 1 (or outside) is refused.
    pub fn get(&self) -> Result<f64, ToolError> {
        let level = self.level.unwrap_or(FitOptions::default().level);
        if !(level > 0.0 && level < 1.0) {
            return Err(ToolError::new(
                ErrorCode::InvalidArguments,
                format!("level must be strictly between 0 and 1 (for example 0.95), got {level}"),
            ));
        }
        Ok(level)
    }
}

/// `test`: z, or Knapp-Hartung's t (default z).
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TestArg {
    #[serde(
        default,
        deserialize_with = "test",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::test"))]
    pub test: Option<Test>,
}

impl TestArg {
    /// The test, z when not given.
    pub fn get(&self) -> Test {
        self.test.unwrap_or(FitOptions::default().test)
    }
}

/// `exclude`: ids of records to leave out before anything else.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ExcludeArg {
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::exclude", description = schemas::EXCLUDE))]
    pub exclude: Vec<String>,
}

impl ExcludeArg {
    /// The ids, checked against the call's records (distinct, each among them).
    pub fn of(self, data: &super::DataSource) -> Result<Vec<String>, ToolError> {
        data.exclusions(self.exclude)
    }
}

/// `weights`: the numeric column of user weights of a fit (default none).
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct WeightsArg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::weights"))]
    pub weights: Option<String>,
}

/// `mods` as given: a one-sided model formula as metafor writes it (`"~ weeks + factor(tester)"`)
/// or a list of terms, as if joined by `+` (`["weeks", "factor(tester)"]`). Both are read by
/// [`meta_analysis::Formula`], so they name coefficients alike (metafor's names).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Mods {
    Formula(String),
    Terms(Vec<String>),
}

impl Mods {
    /// The parsed formula (a list is checked first: not empty, at most [`MAX_MODERATORS`]
    /// items, each once).
    pub fn formula(&self) -> Result<Formula, ToolError> {
        let invalid = |message: String| ToolError::new(ErrorCode::InvalidArguments, message);
        match self {
            Mods::Formula(text) => Ok(Formula::parse(text)?),
            Mods::Terms(items) => {
                if items.is_empty() {
                    return Err(invalid(
                        "mods must name at least one moderator, e.g. [\"weeks\"] or \"~ weeks\""
                            .into(),
                    ));
                }
                if items.len() > MAX_MODERATORS {
                    return Err(invalid(format!(
                        "mods names {} terms; at most {MAX_MODERATORS} are accepted",
                        items.len()
                    )));
                }
                for (i, m) in items.iter().enumerate() {
                    if items[..i].contains(m) {
                        return Err(invalid(format!("mods lists {m:?} more than once")));
                    }
                }
                Ok(Formula::from_terms(items)?)
            }
        }
    }
}

/// `mods`, optional: the moderators of a model (none: the intercept-only model).
/// `meta_regression`, which needs them, takes [`RequiredModsArg`]; both build the design
/// with [`model_data`].
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ModsArg {
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::mods"))]
    pub mods: Option<Mods>,
}

/// `mods`, required (a meta-regression).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RequiredModsArg {
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::mods"))]
    pub mods: Mods,
}

/// The records a model analyses and its design: `exclude` first, then metafor's
/// na.action = "na.omit" over the columns the model reads, then the formula's design for
/// the records left.
#[derive(Debug)]
pub struct ModelData {
    /// The ids left out: `exclude`, then those without a value in a column the model reads.
    pub excluded: Vec<String>,
    /// The records left out for a missing value, each with its reason.
    pub omitted: Vec<Omitted>,
    /// The formula (as given, or the list's terms joined) and its design for the records
    /// kept; `None` without `mods`.
    pub design: Option<(Formula, ModelMatrix)>,
    /// A note per column of the formula read as text though some of its values are numbers
    /// ([`super::DataSource::read_as_text`]), for the result's `dataset.notes`.
    pub notes: Vec<String>,
}

impl ModelData {
    /// The coefficients dropped as aliased ([`ModelMatrix::dropped`]; none without `mods`).
    pub fn dropped(&self) -> Vec<String> {
        self.matrix().map_or_else(Vec::new, ModelMatrix::dropped)
    }

    /// The formula as the result reports it (`None` without `mods`).
    pub fn formula_text(&self) -> Option<String> {
        self.design.as_ref().map(|(f, _)| f.text().to_string())
    }

    /// The design (`None` without `mods`).
    pub fn matrix(&self) -> Option<&ModelMatrix> {
        self.design.as_ref().map(|(_, m)| m)
    }
}

/// The model of `mods` (if any) on `data` without `excluded`: records with no value (absent,
/// null, blank or NA) in one of the formula's columns or in `also` (a weights, study or
/// cluster column) are left out and listed, as metafor's na.omit does; each column the
/// formula reads is then read once ([`super::DataSource::moderator`]: numbers, numeric text
/// or a factor) and coded as R's model.matrix codes it.
pub fn model_data(
    mods: Option<&Mods>,
    also: &[&str],
    excluded: Vec<String>,
    data: &super::DataSource,
) -> Result<ModelData, ToolError> {
    let formula = mods.map(Mods::formula).transpose()?;
    let mut columns: Vec<String> = formula.as_ref().map(Formula::columns).unwrap_or_default();
    for name in also {
        if !columns.iter().any(|c| c == name) {
            columns.push((*name).to_string());
        }
    }
    let (excluded, omitted) = data.na_omit(&columns, excluded)?;
    let Some(formula) = formula else {
        return Ok(ModelData {
            excluded,
            omitted,
            design: None,
            notes: Vec::new(),
        });
    };
    let kept = data.kept(&excluded);
    let mut read = Vec::new();
    for name in formula.columns() {
        let column = data.moderator(&name, &excluded)?.column;
        read.push((name, column));
    }
    let matrix = formula.model_matrix(
        &|name| read.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone()),
        &|i| kept[i].id.clone(),
        kept.len(),
    )?;
    let notes = data.text_notes(&formula.columns(), &excluded);
    Ok(ModelData {
        excluded,
        omitted,
        design: Some((formula, matrix)),
        notes,
    })
}

/// `btt`: the coefficients QM tests, by 1-based position as in metafor (`[2, 3]`) or by name
/// (`["tester"]`: each name selects the coefficient of that name, or every coefficient whose
/// name contains it); default all but the intercept.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct BttArg {
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "schemas::btt"))]
    pub btt: Option<BttValue>,
}

/// `btt` as given: one position or name, or a list of them (all positions or all names).
#[derive(Debug, Clone)]
pub enum BttValue {
    Position(usize),
    Name(String),
    Positions(Vec<usize>),
    Names(Vec<String>),
}

/// `btt` read from its JSON value, each refusal naming what was wrong with it (a position
/// below 1, a list mixing positions and names, another type), not serde's "did not match
/// any variant".
impl<'de> Deserialize<'de> for BttValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        const HOW: &str = "give coefficient positions (from 1, e.g. [2, 3]) or names (e.g. \
                           [\"tester\"])";
        fn position(v: &Value) -> Option<Result<usize, String>> {
            let n = v.as_number()?;
            Some(match n.as_u64() {
                Some(p) if p >= 1 => {
                    usize::try_from(p).map_err(|_| format!("btt {n} is too large"))
                }
                _ => Err(format!(
                    "btt {n} is not a coefficient position: positions are whole numbers from 1 \
                     (the intercept is 1)"
                )),
            })
        }
        let value = Value::deserialize(deserializer)?;
        let read = match &value {
            Value::String(name) => Ok(BttValue::Name(name.clone())),
            Value::Number(_) => position(&value).expect("a number").map(BttValue::Position),
            Value::Array(items) if items.iter().all(Value::is_string) => Ok(BttValue::Names(
                items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
            )),
            Value::Array(items) if items.iter().all(Value::is_number) => items
                .iter()
                .map(|v| position(v).expect("a number"))
                .collect::<Result<Vec<_>, _>>()
                .map(BttValue::Positions),
            Value::Array(_) => Err(format!(
                "btt {value} mixes positions and names or holds other values: {HOW}"
            )),
            other => Err(format!(
                "btt must be a position, a name or a list of them, not {}: {HOW}",
                match other {
                    Value::Null => "null",
                    Value::Bool(_) => "a boolean",
                    _ => "an object",
                }
            )),
        };
        read.map_err(serde::de::Error::custom)
    }
}

impl BttArg {
    /// The engine's selection, `None` for the default.
    pub fn get(&self) -> Result<Option<Btt>, ToolError> {
        Ok(match &self.btt {
            None => None,
            Some(BttValue::Position(j)) => Some(Btt::Positions(vec![*j])),
            Some(BttValue::Name(n)) => Some(Btt::Names(vec![n.clone()])),
            Some(BttValue::Positions(v)) if !v.is_empty() => Some(Btt::Positions(v.clone())),
            Some(BttValue::Names(v)) if !v.is_empty() => Some(Btt::Names(v.clone())),
            Some(_) => {
                return Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    "btt is empty: give coefficient positions (from 1, e.g. [2, 3]) or names \
                     (e.g. [\"tester\"]), or leave btt out to test all but the intercept",
                ))
            }
        })
    }
}

composed_args! {
    /// `method`, `level`, `test`, the data and the scale of a fit.
    #[derive(Debug, Default)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct FitArgs {
        #[flat]
        pub method: MethodArg,
        #[flat]
        pub level: LevelArg,
        #[flat]
        pub test: TestArg,
        #[flat]
        pub _data: DataArg,
        // `measure` and `transform`: the scale of the results' `natural` fields.
        #[flat]
        pub scale: super::scale::ScaleArgs,
    }
}

impl FitArgs {
    /// The fit options, defaults filled in (REML, 0.95, z); a level of 0 or 1 is refused.
    pub fn options(&self) -> Result<FitOptions, ToolError> {
        Ok(FitOptions {
            method: self.method.get(),
            level: self.level.get()?,
            test: self.test.get(),
        })
    }
}

composed_args! {
    /// A fit of the records left after `exclude` (`leave_one_out`, the cumulative tools).
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct ExcludeFitArgs {
        #[flat]
        pub exclude: ExcludeArg,
        #[flat]
        pub fit: FitArgs,
    }
}

pub(super) fn method<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Method>, D::Error> {
    parsed(d, "method", Method::parse)
}

pub(super) fn test<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Test>, D::Error> {
    parsed(d, "test", Test::parse)
}

pub(super) fn variant<'de, D: Deserializer<'de>>(d: D) -> Result<Option<EggerVariant>, D::Error> {
    parsed(d, "variant", EggerVariant::parse)
}

pub(super) fn estimator<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Estimator>, D::Error> {
    parsed(d, "estimator", Estimator::parse)
}

pub(super) fn side<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Side>, D::Error> {
    parsed(d, "side", Side::parse)
}

pub(super) fn fail_safe_type<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<FailSafeType>, D::Error> {
    parsed(d, "type", FailSafeType::parse)
}

/// A tool that takes no arguments.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct NoArgs {}

leaf_args!(
    NoArgs,
    DataArg,
    MethodArg,
    LevelArg,
    TestArg,
    ExcludeArg,
    WeightsArg,
    ModsArg,
    RequiredModsArg,
    BttArg,
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    composed_args! {
        /// A tool's arguments as a test writes them: an own required field between two parts.
        #[derive(Debug)]
        #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
        struct Probe {
            #[flat]
            exclude: ExcludeArg,
            /// Required.
            by: String,
            #[serde(default)]
            descending: bool,
            #[flat]
            fit: FitArgs,
        }
    }

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().expect("an object").clone()
    }

    /// A bad `btt` is refused naming what is wrong, not with serde's "did not match any
    /// variant of untagged enum".
    #[test]
    fn a_bad_btt_is_refused_saying_why() {
        let read = |btt: Value| BttArg::from_args(&object(json!({ "btt": btt })));
        assert!(matches!(
            read(json!(2)).unwrap().btt,
            Some(BttValue::Position(2))
        ));
        assert!(matches!(
            read(json!([2, 3])).unwrap().btt,
            Some(BttValue::Positions(_))
        ));
        assert!(matches!(
            read(json!(["a", "b"])).unwrap().btt,
            Some(BttValue::Names(_))
        ));
        for (btt, says) in [
            (json!(-1), "btt -1 is not a coefficient position"),
            (json!(0), "btt 0 is not a coefficient position"),
            (json!(1.5), "btt 1.5 is not a coefficient position"),
            (json!([2, -1]), "btt -1 is not a coefficient position"),
            (json!(["x", 3]), "mixes positions and names"),
            (json!(true), "not a boolean"),
            (json!({"a": 1}), "not an object"),
        ] {
            let e = read(btt.clone()).unwrap_err().to_string();
            assert!(e.contains(says), "{btt}: {e}");
            assert!(!e.contains("untagged"), "{btt}: {e}");
        }
    }

    #[test]
    fn each_part_and_the_own_fields_read_the_same_object() {
        let args = object(json!({
            "by": "tester", "exclude": ["s01"], "method": "DL", "level": 0.9,
            "test": "knha", "descending": true
        }));
        let probe = Probe::from_args(&args).unwrap();
        assert_eq!(probe.by, "tester");
        assert!(probe.descending);
        assert_eq!(probe.exclude.exclude, vec!["s01".to_string()]);
        assert_eq!(probe.fit.method.get(), Method::Dl);
        assert_eq!(probe.fit.level.level, Some(0.9));
        assert_eq!(probe.fit.test.get(), Test::Knha);
        // Defaults where nothing is given.
        let plain = Probe::from_args(&object(json!({"by": "tester"}))).unwrap();
        assert!(!plain.descending && plain.exclude.exclude.is_empty());
        assert_eq!(plain.fit.method.get(), Method::Reml);
    }

    #[test]
    fn a_missing_field_or_a_bad_value_is_an_error_naming_it() {
        let missing = Probe::from_args(&object(json!({"method": "DL"}))).unwrap_err();
        assert!(
            missing.to_string().contains("missing field `by`"),
            "{missing}"
        );
        let unknown =
            Probe::from_args(&object(json!({"by": "tester", "method": "XX"}))).unwrap_err();
        assert!(
            unknown.to_string().contains("unknown method \"XX\""),
            "{unknown}"
        );
        let wrong = Probe::from_args(&object(json!({"by": 3}))).unwrap_err();
        assert!(wrong.to_string().contains("invalid type"), "{wrong}");
    }
}
