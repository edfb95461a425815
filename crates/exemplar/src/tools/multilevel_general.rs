//! `fit_multilevel`'s general models (metafor's `rma.mv` beyond `~ 1 | study/id`): the
//! arguments `random`, `struct`, `V`, `sigma2`, `tau2`, `rho`, the engine's
//! [`meta_analysis::rma_mv`] fit, and the result with its print.rma.mv summary.

use super::args::model_data;
use super::data::{id_set, DataSource};
use super::multilevel::{invalid, labels, MultilevelArgs};
use super::scale::NaturalScale;
use super::vcalc_arg::{v_rows, vcalc_blocks, VBlockRows, VcalcSpec};
use super::ToolError;
use crate::printed::{
    coefficient_table, f4, frame_lines, frame_table, pval, signif_legend, CoefficientRow,
    ModeratorTest, Out,
};
use meta_analysis::distributions::{
    chi2_sf, f_sf, normal_quantile, normal_two_sided_p, t_quantile, t_two_sided_p,
};
use meta_analysis::math::ln;
use meta_analysis::rma_mv::{
    contain_df, prediction_variances, rma_mv_profiled, InnerOuter, MvFit, MvFixed, MvModel,
    RandomIntercept, Sampling, Struct, VBlock,
};
use meta_analysis::{Btt, Coefficient, Method, Multilevel, MultilevelTest, Reported};
use serde::{Deserialize, Serialize};

/// One value or a list of them.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T: Clone> OneOrMany<T> {
    pub(crate) fn list(&self) -> Vec<T> {
        match self {
            OneOrMany::One(t) => vec![t.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// `V`: the known sampling covariance, one block per level of `cluster`, its row a read
/// from `columns` at the cluster's a-th record (dat.berkey1998's v1i, v2i).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VArg {
    pub cluster: String,
    pub columns: Vec<String>,
}

/// The general model's arguments.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct RandomArgs {
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "random_schema"))]
    pub random: Option<OneOrMany<String>>,
    #[serde(default, rename = "struct")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "struct_schema"))]
    pub structure: Option<OneOrMany<String>>,
    #[serde(default, rename = "V")]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "v_schema"))]
    pub v: Option<VArg>,
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "fixed_schema"))]
    pub sigma2: Option<Vec<Option<f64>>>,
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "fixed_schema"))]
    pub tau2: Option<Vec<Option<f64>>>,
    #[serde(default)]
    #[cfg_attr(feature = "definitions", schemars(schema_with = "fixed_schema"))]
    pub rho: Option<Vec<Option<f64>>>,
    // V built as metafor's vcalc() builds it (instead of `V`).
    #[serde(default)]
    #[cfg_attr(
        feature = "definitions",
        schemars(schema_with = "super::vcalc_arg::vcalc_schema")
    )]
    pub vcalc: Option<VcalcSpec>,
}

leaf_args!(RandomArgs);

impl RandomArgs {
    /// Whether any argument asks for the general model.
    pub fn given(&self) -> bool {
        self.random.is_some()
            || self.structure.is_some()
            || self.v.is_some()
            || self.sigma2.is_some()
            || self.tau2.is_some()
            || self.rho.is_some()
            || self.vcalc.is_some()
    }

    /// The components given (metafor's `sigma2 =`, `tau2 =`, `rho =`; the second term's
    /// gamma2 and phi are always estimated).
    pub fn fixed(&self) -> MvFixed {
        let given = |v: &Option<Vec<Option<f64>>>| v.clone().unwrap_or_default();
        MvFixed {
            sigma2: given(&self.sigma2),
            tau2: given(&self.tau2),
            rho: given(&self.rho),
            ..MvFixed::default()
        }
    }

    /// The keys these arguments take, as serde reads them (`robust_test`'s `general` takes
    /// exactly these).
    pub fn keys() -> &'static [&'static str] {
        serde_fields::<RandomArgs>()
    }
}

/// The field names serde reads for the struct `T`: the names its derived `Deserialize`
/// hands to `deserialize_struct`, caught by a deserializer that reads nothing else.
fn serde_fields<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    use serde::de::{Error, Visitor};
    use std::cell::Cell;
    struct Catch<'a>(&'a Cell<&'static [&'static str]>);
    impl<'de> serde::Deserializer<'de> for Catch<'_> {
        type Error = serde::de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(Error::custom("only a struct's fields are read"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0.set(fields);
            Err(Error::custom("only a struct's fields are read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let fields = Cell::new(&[][..]);
    let _ = T::deserialize(Catch(&fields));
    fields.get()
}

#[cfg(feature = "definitions")]
fn schema(value: serde_json::Value) -> schemars::Schema {
    schemars::Schema::try_from(value).expect("an object schema")
}
#[cfg(feature = "definitions")]
fn random_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schema(
        serde_json::json!({"type": ["string", "array"], "items": {"type": "string"},
        "description": "\"~ 1 | a/b\", \"~ in | out\", a list."}),
    )
}
#[cfg(feature = "definitions")]
fn struct_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schema(
        serde_json::json!({"type": ["string", "array"], "items": {"type": "string"},
        "description": "ID HCS UN AR HAR DIAG CAR GEN; else CS"}),
    )
}
#[cfg(feature = "definitions")]
fn v_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schema(serde_json::json!({"type": "object", "description": "{cluster, columns}."}))
}
/// A fixed component's values (null: estimated).
#[cfg(feature = "definitions")]
fn fixed_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schema(serde_json::json!({"type": "array", "description": "null: free."}))
}

/// The general model's fields of `fit_multilevel`'s result (absent for the three-level
/// model): `sigma2` (the result's), `tau2`, `rho`, `gamma2` and `phi` hold the values, these
/// their level names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct GeneralFields {
    /// The random structure as understood, e.g. "~ outcome | trial, UN: 2 x 2".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub structure: Vec<String>,
    /// The factor of each sigma2.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sigma2_levels: Vec<String>,
    /// tau2 of the first `~ inner | outer` term (one, or one per inner level).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tau2: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tau2_levels: Vec<String>,
    /// Its correlations (UN: the lower triangle by column, named "level:level").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rho: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rho_levels: Vec<String>,
    /// gamma2 and phi of the second term (metafor's names), with their levels as tau2's and
    /// rho's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gamma2: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gamma2_levels: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phi: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phi_levels: Vec<String>,
    /// Components held at given values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<String>,
    /// Components the optimum put on a bound ("rho = 1", "sigma2.2 = 0").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boundary: Vec<String>,
    /// metafor's fit statistics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deviance: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aic: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bic: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aicc: Option<f64>,
    /// Largest |d loglik / d theta| (log variances, atanh correlations) at the optimum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gradient: Option<f64>,
    /// Levels of each sigma2's factor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sigma2_nlvls: Vec<usize>,
    /// Each `~ inner | outer` term's factors, as print.rma.mv shows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inner_outer: Vec<TermInfo>,
    /// The coefficients QM tests, from 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub btt: Vec<u64>,
    /// With test "t" and dfs "contain": each coefficient's df (metafor's ddf).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ddf: Vec<f64>,
    /// Intercept-only, with tau2 (gamma2) per inner level: a prediction interval per level.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pi_levels: Vec<PiLevel>,
    /// Profile-likelihood intervals of the estimated components (confint()).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<Interval>,
    /// With `return_v`: the known V used, per cluster (its records' ids and matrix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v: Option<Vec<VBlockRows>>,
}

/// A prediction interval for one inner level (or pair of levels) of a model whose τ² (γ²)
/// is one per level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct PiLevel {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tau2_level: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gamma2_level: Option<String>,
    pub pi_lower: f64,
    pub pi_upper: f64,
    /// On the natural scale (with a transform).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub natural: Option<NaturalScale>,
}

/// An `~ inner | outer` term's factors: names, level counts, records at each inner level
/// and, per pair of inner levels (lower triangle by column), the outer levels holding both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct TermInfo {
    /// The term's struct (UN, CS, ...).
    pub structure: String,
    pub inner: String,
    pub outer: String,
    pub levels: Vec<String>,
    pub n_outer: usize,
    pub k_levels: Vec<usize>,
    pub pairs: Vec<usize>,
}

/// A term's [`TermInfo`] from its per-row labels and its inner levels in G's order.
fn term_info(t: &InnerOuter, levels: &[String], n_outer: usize) -> TermInfo {
    let j = levels.len();
    if t.structure == Struct::Gen {
        // GEN's levels are the columns (1, x): every record has both, every outer level
        // both pairs.
        return TermInfo {
            structure: t.structure.name().to_string(),
            inner: t.inner_name.clone(),
            outer: t.outer_name.clone(),
            levels: levels.to_vec(),
            n_outer,
            k_levels: vec![t.inner.len(); j],
            pairs: vec![n_outer; j * (j - 1) / 2],
        };
    }
    let at = |l: &str| {
        levels
            .iter()
            .position(|x| x == l)
            .expect("a level of the term")
    };
    let k_levels = levels
        .iter()
        .map(|l| t.inner.iter().filter(|x| *x == l).count())
        .collect();
    let mut by_outer: std::collections::HashMap<&str, Vec<bool>> = Default::default();
    for (i, o) in t.inner.iter().zip(&t.outer) {
        by_outer
            .entry(o.as_str())
            .or_insert_with(|| vec![false; levels.len()])[at(i)] = true;
    }
    let pairs = (0..j)
        .flat_map(|c| (c + 1..j).map(move |r| (r, c)))
        .map(|(r, c)| by_outer.values().filter(|has| has[r] && has[c]).count())
        .collect();
    TermInfo {
        structure: t.structure.name().to_string(),
        inner: t.inner_name.clone(),
        outer: t.outer_name.clone(),
        levels: levels.to_vec(),
        n_outer,
        k_levels,
        pairs,
    }
}

/// A component's profile-likelihood interval (a bound null when beyond the search range).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct Interval {
    /// sigma2.1, tau2, rho.2, ... as metafor names them.
    pub name: String,
    pub estimate: f64,
    pub ci_lower: Option<f64>,
    pub ci_upper: Option<f64>,
}

/// A parsed `~ lhs | rhs` term.
fn parse_term(text: &str) -> Result<(String, String), ToolError> {
    let body = text.trim().strip_prefix('~').map(str::trim);
    match body.and_then(|b| b.split_once('|')) {
        Some((lhs, rhs)) if !lhs.trim().is_empty() && !rhs.trim().is_empty() => {
            Ok((lhs.trim().to_string(), rhs.trim().to_string()))
        }
        _ => Err(invalid(format!(
            "random term {text:?} is not of the form \"~ 1 | id\" or \"~ inner | outer\""
        ))),
    }
}

/// The columns a random specification reads.
pub(crate) fn random_terms(
    args: &MultilevelArgs,
    random: &RandomArgs,
) -> Result<Vec<(String, String)>, ToolError> {
    let texts = match &random.random {
        Some(r) => r.list(),
        None => vec![format!("~ 1 | {}/id", args.study.get())],
    };
    if texts.is_empty() || texts.len() > 8 {
        return Err(invalid("random takes 1 to 8 terms".into()));
    }
    texts.iter().map(|t| parse_term(t)).collect()
}

/// A column's labels for the records kept; "id" is the records' ids unless a column has
/// that name.
fn column_labels(
    data: &DataSource,
    name: &str,
    excluded: &[String],
) -> Result<Vec<String>, ToolError> {
    if name == "id" && !data.column_names().contains(&"id") {
        let ex = id_set(excluded);
        return Ok(data
            .records()
            .iter()
            .filter(|r| !ex.contains(r.id.as_str()))
            .map(|r| r.id.clone())
            .collect());
    }
    labels(data, name, "random term", excluded)
}

pub(crate) struct Parsed {
    pub(crate) intercepts: Vec<RandomIntercept>,
    pub(crate) terms: Vec<InnerOuter>,
    pub(crate) structure: Vec<String>,
}

pub(crate) fn build_terms(
    data: &DataSource,
    parsed: &[(String, String)],
    structs: &[Struct],
    excluded: &[String],
) -> Result<Parsed, ToolError> {
    let mut out = Parsed {
        intercepts: Vec::new(),
        terms: Vec::new(),
        structure: Vec::new(),
    };
    for (lhs, rhs) in parsed {
        if lhs == "1" {
            let parts: Vec<&str> = rhs.split('/').map(str::trim).collect();
            let columns = parts
                .iter()
                .map(|p| column_labels(data, p, excluded))
                .collect::<Result<Vec<_>, _>>()?;
            for depth in 0..parts.len() {
                let name = parts[..=depth].join("/");
                let levels = (0..columns[0].len())
                    .map(|i| {
                        columns[..=depth]
                            .iter()
                            .map(|c| c[i].as_str())
                            .collect::<Vec<_>>()
                            .join("/")
                    })
                    .collect();
                out.structure.push(format!("~ 1 | {name}"));
                out.intercepts.push(RandomIntercept { name, levels });
            }
        } else {
            let t = out.terms.len();
            if t == 2 {
                return Err(invalid(
                    "at most two \"~ inner | outer\" terms (as rma.mv)".into(),
                ));
            }
            let s = structs
                .get(t)
                .or(structs.first())
                .copied()
                .unwrap_or(Struct::Cs);
            let inner = column_labels(data, lhs, excluded)?;
            let outer = column_labels(data, rhs, excluded)?;
            let mut distinct = inner.clone();
            distinct.sort();
            distinct.dedup();
            // GEN's G is over (intercept, slope), not the inner values.
            let j = if s == Struct::Gen { 2 } else { distinct.len() };
            out.structure
                .push(format!("~ {lhs} | {rhs}, {}: {j} x {j}", s.name()));
            out.terms.push(InnerOuter {
                inner_name: lhs.clone(),
                outer_name: rhs.clone(),
                inner,
                outer,
                structure: s,
            });
        }
    }
    Ok(out)
}

/// `struct`'s names read as structures (one for each `~ inner | outer` term).
pub(crate) fn structs(random: &RandomArgs) -> Result<Vec<Struct>, ToolError> {
    random.structure.as_ref().map_or(Ok(Vec::new()), |s| {
        s.list()
            .iter()
            .map(|n| {
                Struct::parse(n).ok_or_else(|| {
                    let names: Vec<&str> = Struct::ALL.iter().map(|s| s.name()).collect();
                    invalid(format!("struct {n:?} is not one of {}", names.join(", ")))
                })
            })
            .collect()
    })
}

/// Every column the random terms `parsed`, `V` and `vcalc` read (records without a value there are
/// left out, as metafor's na.omit): the terms' variables (not `1`, nor `id` when the data
/// have no such column: it is then the record's id) and V's cluster and columns.
pub(crate) fn random_columns(
    parsed: &[(String, String)],
    random: &RandomArgs,
    data: &DataSource,
) -> Vec<String> {
    let mut columns: Vec<String> = parsed
        .iter()
        .flat_map(|(l, r)| {
            l.split('/')
                .chain(r.split('/'))
                .map(|s| s.trim().to_string())
        })
        .filter(|c| c != "1" && (c != "id" || data.column_names().contains(&"id")))
        .collect();
    if let Some(v) = &random.v {
        columns.push(v.cluster.clone());
        columns.extend(v.columns.iter().cloned());
    }
    if let Some(spec) = &random.vcalc {
        columns.extend(vcalc_columns(spec));
    }
    columns
}

/// The known V of the records kept (rows index `data.kept(excluded)`): diagonal `vi`, or
/// blocks read from `V`'s columns or built by `vcalc`, each block with its cluster's name.
pub(crate) fn sampling(
    data: &DataSource,
    random: &RandomArgs,
    excluded: &[String],
    vi: &[f64],
) -> Result<(Sampling, Vec<String>), ToolError> {
    if random.v.is_some() && random.vcalc.is_some() {
        return Err(invalid(
            "give V (its columns) or vcalc (built from the records), not both".into(),
        ));
    }
    let v = random.v.as_ref();
    if let Some(spec) = &random.vcalc {
        let blocks = vcalc_blocks(spec, data, excluded)?;
        let names = blocks.iter().map(|b| b.cluster.clone()).collect();
        let blocks = blocks
            .into_iter()
            .map(|b| VBlock {
                rows: b.rows,
                matrix: b.cov,
            })
            .collect();
        return Ok((Sampling::Blocks(blocks), names));
    }
    let Some(v) = v else {
        return Ok((Sampling::Diagonal(vi.to_vec()), Vec::new()));
    };
    let cluster = labels(data, &v.cluster, "V cluster", excluded)?;
    let ex = id_set(excluded);
    let kept: Vec<usize> = data
        .records()
        .iter()
        .enumerate()
        .filter(|(_, r)| !ex.contains(r.id.as_str()))
        .map(|(i, _)| i)
        .collect();
    let columns: Vec<Vec<Option<f64>>> = v.columns.iter().map(|c| data.numbers(c)).collect();
    let mut order: Vec<String> = Vec::new();
    let mut rows: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (i, c) in cluster.iter().enumerate() {
        rows.entry(c.as_str())
            .or_insert_with(|| {
                order.push(c.clone());
                Vec::new()
            })
            .push(i);
    }
    let mut blocks = Vec::new();
    for name in &order {
        let r = &rows[name.as_str()];
        let n = r.len();
        if n > columns.len() {
            return Err(invalid(format!(
                "cluster {name:?} of V has {n} records but V names {} columns",
                columns.len()
            )));
        }
        let mut matrix = Vec::with_capacity(n * n);
        for &a in r {
            for col in columns.iter().take(n) {
                let x = col[kept[a]].ok_or_else(|| {
                    invalid(format!(
                        "V's columns need a number at record {:?}",
                        data.records()[kept[a]].id
                    ))
                })?;
                matrix.push(x);
            }
        }
        blocks.push(VBlock {
            rows: r.clone(),
            matrix,
        });
    }
    Ok((Sampling::Blocks(blocks), order))
}

/// V as `return_v` gives it: each block's cluster, its records' ids and its matrix.
fn returned_v(sampling: &Sampling, names: &[String], ids: &[&str]) -> Vec<VBlockRows> {
    let Sampling::Blocks(blocks) = sampling else {
        return Vec::new();
    };
    let blocks: Vec<meta_analysis::VBlock> = blocks
        .iter()
        .zip(names)
        .map(|(b, name)| meta_analysis::VBlock {
            cluster: name.clone(),
            rows: b.rows.clone(),
            cov: b.matrix.clone(),
        })
        .collect();
    v_rows(&blocks, ids)
}

/// The columns `vcalc` reads (so that records without them are omitted, as for `V`).
pub(crate) fn vcalc_columns(spec: &VcalcSpec) -> impl Iterator<Item = String> + '_ {
    std::iter::once(&spec.cluster)
        .chain(
            [
                &spec.subgroup,
                &spec.obs,
                &spec.kind,
                &spec.time1,
                &spec.time2,
                &spec.grp1,
                &spec.grp2,
                &spec.w1,
                &spec.w2,
            ]
            .into_iter()
            .flatten(),
        )
        .cloned()
}

/// The df of test "t" (metafor's `dfs`): k - p for every coefficient, or each one's by
/// the containment rule ([`meta_analysis::rma_mv::contain_df`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dfs {
    #[default]
    Residual,
    Contain,
}

impl Dfs {
    pub const ALL: [Dfs; 2] = [Dfs::Residual, Dfs::Contain];

    pub fn name(self) -> &'static str {
        match self {
            Dfs::Residual => "residual",
            Dfs::Contain => "contain",
        }
    }

    pub fn parse(name: &str) -> Option<Dfs> {
        Dfs::ALL.into_iter().find(|d| d.name() == name)
    }
}

/// What a general fit is asked beyond its model: the coefficients QM tests, the df of test
/// "t", and whether V is returned.
#[derive(Debug, Clone, Copy, Default)]
pub struct How<'a> {
    pub btt: Option<&'a Btt>,
    pub dfs: Dfs,
    pub return_v: bool,
}

/// The engine's model of the records `md` keeps ([`build_model`]), with what the tools
/// read beside it.
pub(crate) struct Built {
    pub(crate) model: MvModel,
    /// The coefficients' names (the intercept-only model's as the caller names it).
    pub(crate) names: Vec<String>,
    /// The random structure as understood, a line per term.
    pub(crate) structure: Vec<String>,
    /// The cluster of each of V's blocks.
    pub(crate) clusters: Vec<String>,
}

/// The general model of the records `md` keeps: yi, X (or the intercept, named
/// `intercept`), the random terms `parsed` with their structs, and the known V (diagonal vi,
/// V's columns or vcalc). Every tool that takes a general model builds it here.
pub(crate) fn build_model(
    data: &DataSource,
    random: &RandomArgs,
    parsed: &[(String, String)],
    structs: &[Struct],
    md: &super::args::ModelData,
    intercept: &str,
) -> Result<Built, ToolError> {
    let kept = data.kept(&md.excluded);
    let k = kept.len();
    let (x, names) = match md.matrix() {
        Some(m) => {
            let p = m.names().len();
            let x = (0..k * p).map(|ia| m.value(ia / p, ia % p)).collect();
            (x, m.names().to_vec())
        }
        None => (vec![1.0; k], vec![intercept.to_string()]),
    };
    let terms = build_terms(data, parsed, structs, &md.excluded)?;
    let vi: Vec<f64> = kept.iter().map(|r| r.vi).collect();
    let (sampling, clusters) = sampling(data, random, &md.excluded, &vi)?;
    let model = MvModel {
        yi: kept.iter().map(|r| r.yi).collect(),
        x,
        p: names.len(),
        sampling,
        intercepts: terms.intercepts,
        terms: terms.terms,
    };
    Ok(Built {
        model,
        names,
        structure: terms.structure,
        clusters,
    })
}

/// Fits the general model.
pub fn fit_general(
    args: MultilevelArgs,
    random: &RandomArgs,
    how: How<'_>,
    data: &DataSource,
) -> Result<GeneralFit, ToolError> {
    let options = args.options()?;
    let parsed = random_terms(&args, random)?;
    let structs = structs(random)?;
    let columns = random_columns(&parsed, random, data);
    let also: Vec<&str> = columns.iter().map(String::as_str).collect();
    let excluded = args.exclude.of(data)?;
    let md = model_data(args.mods.mods.as_ref(), &also, excluded, data)?;
    let Built {
        model,
        names,
        structure,
        clusters,
    } = build_model(data, random, &parsed, &structs, &md, "intrcpt")?;
    let p = model.p;
    let v = how.return_v.then(|| {
        let kept = data.kept(&md.excluded);
        let ids: Vec<&str> = kept.iter().map(|r| r.id.as_str()).collect();
        returned_v(&model.sampling, &clusters, &ids)
    });
    let fixed = random.fixed();
    let fit = rma_mv_profiled(&model, options.method, &fixed, Some(options.level))?;
    let has_intercept = md.matrix().is_none_or(|m| m.has_intercept());
    let btt = match how.btt {
        Some(b) => select(b, &names)?,
        None => (usize::from(has_intercept)..p).collect(),
    };
    let cx = Context {
        names: &names,
        int_only: p == 1 && has_intercept,
        dfs: how.dfs,
        btt,
        options: &options,
        model: &model,
        structure,
    };
    let mut fit = result(&fit, cx, md);
    fit.general.v = v;
    Ok(fit)
}

/// The 0-based coefficients `btt` selects (metafor's rules: 1-based positions; a name
/// selects that coefficient, or every one whose name contains it).
fn select(btt: &Btt, names: &[String]) -> Result<Vec<usize>, ToolError> {
    let mut out = Vec::new();
    match btt {
        Btt::Positions(positions) => {
            for &j in positions {
                if j == 0 || j > names.len() {
                    return Err(invalid(format!(
                        "btt position {j} does not exist: the model has {} coefficients ({})",
                        names.len(),
                        names.join(", ")
                    )));
                }
                out.push(j - 1);
            }
        }
        Btt::Names(wanted) => {
            for w in wanted {
                let exact: Vec<usize> = (0..names.len()).filter(|&j| names[j] == *w).collect();
                let chosen: Vec<usize> = if exact.is_empty() {
                    (0..names.len())
                        .filter(|&j| names[j].contains(w.as_str()))
                        .collect()
                } else {
                    exact
                };
                if chosen.is_empty() {
                    return Err(invalid(format!(
                        "btt {w:?} is not the name of a coefficient, nor part of one: the \
                         coefficients are {}",
                        names.join(", ")
                    )));
                }
                out.extend(chosen);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The names of the components' levels: sigma2's factors; tau2's and rho's levels (the
/// first `~ inner | outer` term's), gamma2's and phi's (the second's). A variance per level
/// is named by its level, a correlation of UN by its pair "level:level" (lower triangle by
/// column, metafor's order); a single variance or correlation has no level name.
fn level_names(fit: &MvFit, model: &MvModel) -> [Vec<String>; 5] {
    let term = |t: usize, variances: &[f64], correlations: &[f64]| {
        let lv = fit.inner_levels.get(t).cloned().unwrap_or_default();
        let var = if variances.len() > 1 {
            lv.clone()
        } else {
            Vec::new()
        };
        let cor = if correlations.len() > 1 {
            (0..lv.len())
                .flat_map(|c| (c + 1..lv.len()).map(move |r| (r, c)))
                .map(|(r, c)| format!("{}:{}", lv[r], lv[c]))
                .collect()
        } else {
            Vec::new()
        };
        (var, cor)
    };
    let (tau2, rho) = term(0, &fit.tau2, &fit.rho);
    let (gamma2, phi) = term(1, &fit.gamma2, &fit.phi);
    [
        model.intercepts.iter().map(|t| t.name.clone()).collect(),
        tau2,
        rho,
        gamma2,
        phi,
    ]
}

/// The names of the components (as metafor prints them) held fixed.
fn fixed_names(fit: &MvFit) -> Vec<String> {
    let mut names = Vec::new();
    for (base, n) in [
        ("sigma2", fit.sigma2.len()),
        ("tau2", fit.tau2.len()),
        ("rho", fit.rho.len()),
        ("gamma2", fit.gamma2.len()),
        ("phi", fit.phi.len()),
    ] {
        for i in 0..n {
            names.push(if n == 1 {
                base.to_string()
            } else {
                format!("{base}.{}", i + 1)
            });
        }
    }
    names
        .into_iter()
        .zip(&fit.fixed)
        .filter(|(_, f)| **f)
        .map(|(n, _)| n)
        .collect()
}

struct Context<'a> {
    names: &'a [String],
    /// The model is the intercept alone (metafor's int.only).
    int_only: bool,
    dfs: Dfs,
    /// The 0-based coefficients QM tests.
    btt: Vec<usize>,
    options: &'a meta_analysis::MultilevelOptions,
    model: &'a MvModel,
    structure: Vec<String>,
}

/// A general fit, for `fit_multilevel`'s result.
pub struct GeneralFit {
    /// An intercept-only model's prediction interval, when it is one ([`prediction`]).
    pub pi: Option<(f64, f64)>,
    pub k: usize,
    pub n_studies: usize,
    pub study: String,
    pub sigma2: Vec<f64>,
    pub df: Option<f64>,
    pub model: Multilevel,
    pub notes: Vec<String>,
    pub data: super::args::ModelData,
    pub general: GeneralFields,
}

/// Each coefficient's row: z, or t on its df (`ddf`, one per coefficient).
fn coefficients(
    fit: &MvFit,
    names: &[String],
    ddf: Option<&[f64]>,
    level: f64,
) -> Vec<Coefficient> {
    let p = fit.p;
    (0..p)
        .map(|a| {
            let se = fit.vcov[a * p + a].sqrt();
            let statistic = fit.beta[a] / se;
            let df = ddf.map(|d| d[a]);
            let crit = match df {
                Some(d) => t_quantile(1.0 - (1.0 - level) / 2.0, d),
                None => normal_quantile(1.0 - (1.0 - level) / 2.0),
            };
            Coefficient {
                name: names[a].clone(),
                estimate: fit.beta[a],
                se,
                statistic,
                p: df.map_or_else(
                    || normal_two_sided_p(statistic),
                    |d| t_two_sided_p(statistic, d),
                ),
                ci_lower: fit.beta[a] - crit * se,
                ci_upper: fit.beta[a] + crit * se,
            }
        })
        .collect()
}

/// The notes of a fit: an optimizer stopped short, components on a bound.
fn fit_notes(fit: &MvFit) -> Vec<String> {
    let mut notes = Vec::new();
    if fit.gradient_norm >= 1e-9 {
        notes.push(format!(
            "The optimizer stopped with gradient {:.1e}.",
            fit.gradient_norm
        ));
    }
    for b in &fit.boundary {
        notes.push(format!("{b}: the optimum lies on this bound."));
    }
    for c in &fit.intervals {
        for (side, bound) in [("lower", c.lower), ("upper", c.upper)] {
            if bound.is_none() {
                notes.push(format!(
                    "The {side} bound of {}'s profile-likelihood interval is not given (null): \
                     the profile did not fall to the cut within the search range, or its fits \
                     fail before it does (metafor prints \"<\" or \">\" there).",
                    c.name
                ));
            }
        }
    }
    notes
}

fn result(fit: &MvFit, cx: Context<'_>, md: super::args::ModelData) -> GeneralFit {
    let (k, p, options) = (fit.k, fit.p, cx.options);
    // metafor's ddf: k - p for every coefficient, or each one's by the containment rule.
    let ddf: Option<Vec<f64>> = (options.test == MultilevelTest::T).then(|| match cx.dfs {
        Dfs::Residual => vec![(k - p) as f64; p],
        Dfs::Contain => contain_df(cx.model),
    });
    let df = ddf
        .as_ref()
        .and_then(|d| d.iter().all(|x| *x == d[0]).then_some(d[0]));
    let coefficients = coefficients(fit, cx.names, ddf.as_deref(), options.level);
    let m = cx.btt.len();
    let qm = (m > 0).then(|| wald(fit, &cx.btt));
    let reml = options.method == Method::Reml;
    let parms = (p + fit.fixed.iter().filter(|f| !**f).count()) as f64;
    let n = if reml { (k - p) as f64 } else { k as f64 };
    let ll = fit.loglik;
    let ll_qe = -0.5 * (k as f64 * ln(2.0 * std::f64::consts::PI) + fit.log_det_v);
    let mut notes = fit_notes(fit);
    let [sigma2_levels, tau2_levels, rho_levels, gamma2_levels, phi_levels] =
        level_names(fit, cx.model);
    // The F test's df2 is the smallest ddf of the coefficients tested (metafor's QMdf).
    // None when no coefficient is tested (the fold's infinity once became usize::MAX, a
    // number that differed between the page's 32-bit wasm and the native build).
    let df2 = ddf
        .as_ref()
        .filter(|_| m > 0)
        .map(|d| cx.btt.iter().map(|&j| d[j]).fold(f64::INFINITY, f64::min));
    let reported = Reported {
        qm: qm.map(|q| if df2.is_some() { q / m as f64 } else { q }),
        qm_df: m,
        qm_df2: df2.map(|d| d as usize),
        qm_p: qm.map(|q| match df2 {
            Some(d) => f_sf(q / m as f64, m as f64, d),
            None => chi2_sf(q, m as f64),
        }),
        qe: fit.qe,
        qe_df: k - p,
        qe_p: chi2_sf(fit.qe, (k - p) as f64),
        loglik: ll,
        iterations: fit.iterations,
        coefficients,
    };
    let first = cx.structure.first().cloned().unwrap_or_default();
    let (pi, pi_levels) = if cx.int_only {
        prediction(
            fit,
            &reported.coefficients[0],
            ddf.as_deref(),
            options.level,
            &mut notes,
        )
    } else {
        (None, Vec::new())
    };
    GeneralFit {
        pi,
        k,
        n_studies: fit
            .outer_levels
            .first()
            .copied()
            .or(fit.sigma2_levels.first().copied())
            .unwrap_or(0),
        study: first,
        sigma2: fit.sigma2.clone(),
        df,
        model: Multilevel::reported(reported, options.method, options.test, options.level),
        notes,
        data: md,
        general: GeneralFields {
            structure: cx.structure,
            sigma2_levels,
            tau2: fit.tau2.clone(),
            tau2_levels,
            rho: fit.rho.clone(),
            rho_levels,
            gamma2: fit.gamma2.clone(),
            gamma2_levels,
            phi: fit.phi.clone(),
            phi_levels,
            fixed: fixed_names(fit),
            boundary: fit.boundary.clone(),
            deviance: Some(if reml { -2.0 * ll } else { -2.0 * (ll - ll_qe) }),
            aic: Some(-2.0 * ll + 2.0 * parms),
            bic: Some(-2.0 * ll + parms * ln(n)),
            aicc: Some(
                -2.0 * ll + 2.0 * parms * n.max(parms + 2.0) / (n.max(parms + 2.0) - parms - 1.0),
            ),
            gradient: Some(fit.gradient_norm),
            sigma2_nlvls: fit.sigma2_levels.clone(),
            inner_outer: cx
                .model
                .terms
                .iter()
                .enumerate()
                .map(|(t, term)| term_info(term, &fit.inner_levels[t], fit.outer_levels[t]))
                .collect(),
            btt: cx.btt.iter().map(|&j| j as u64 + 1).collect(),
            ddf: ddf
                .clone()
                .filter(|_| cx.dfs == Dfs::Contain)
                .unwrap_or_default(),
            pi_levels,
            intervals: fit
                .intervals
                .iter()
                .map(|c| Interval {
                    name: c.name.clone(),
                    estimate: c.estimate,
                    ci_lower: c.lower,
                    ci_upper: c.upper,
                })
                .collect(),
            v: None,
        },
    }
}

/// predict.rma.mv of an intercept-only model: pred ± crit √(se² + Σσ² + τ² + γ²), crit the
/// coefficient's (z, or t on its ddf); one interval, or with a τ² (γ²) per inner level one
/// per level ([`prediction_variances`]), as predict() gives them without `tau2.levels`, said
/// in a note.
fn prediction(
    fit: &MvFit,
    c: &Coefficient,
    ddf: Option<&[f64]>,
    level: f64,
    notes: &mut Vec<String>,
) -> (Option<(f64, f64)>, Vec<PiLevel>) {
    let crit = match ddf {
        Some(d) => t_quantile(1.0 - (1.0 - level) / 2.0, d[0]),
        None => normal_quantile(1.0 - (1.0 - level) / 2.0),
    };
    let interval = |v: f64| {
        let h = crit * (c.se * c.se + v).sqrt();
        (c.estimate - h, c.estimate + h)
    };
    let variances = prediction_variances(fit);
    if let [one] = variances.as_slice() {
        return (Some(interval(one.variance)), Vec::new());
    }
    let name = |t: usize, l: Option<usize>| l.map(|l| fit.inner_levels[t][l].clone());
    notes.push(
        "tau2 (or gamma2) is one per inner level: the prediction interval is given for each \
         level in pi_levels, as metafor's predict() without tau2.levels gives it."
            .into(),
    );
    let rows = variances
        .iter()
        .map(|v| {
            let (lower, upper) = interval(v.variance);
            PiLevel {
                tau2_level: name(0, v.tau2_level),
                gamma2_level: name(1, v.gamma2_level),
                pi_lower: lower,
                pi_upper: upper,
                natural: None,
            }
        })
        .collect();
    (None, rows)
}

/// β_S′ (Var β_S)⁻¹ β_S.
fn wald(fit: &MvFit, btt: &[usize]) -> f64 {
    let m = btt.len();
    let mut a: Vec<Vec<f64>> = btt
        .iter()
        .map(|&i| btt.iter().map(|&j| fit.vcov[i * fit.p + j]).collect())
        .collect();
    let mut b: Vec<f64> = btt.iter().map(|&i| fit.beta[i]).collect();
    let beta = b.clone();
    // Gaussian elimination (Var β_S is positive definite).
    for c in 0..m {
        for r in c + 1..m {
            let f = a[r][c] / a[c][c];
            let pivot_row = a[c].clone();
            for (x, y) in a[r].iter_mut().zip(&pivot_row).skip(c) {
                *x -= f * y;
            }
            b[r] -= f * b[c];
        }
    }
    for c in (0..m).rev() {
        let s: f64 = (c + 1..m).map(|q| a[c][q] * b[q]).sum();
        b[c] = (b[c] - s) / a[c][c];
    }
    beta.iter().zip(&b).map(|(x, y)| x * y).sum()
}

/// print.rma.mv's matrix of UN's correlations: the correlations below the diagonal, then
/// whether each is fixed (below) and the outer levels holding both levels (above).
fn correlation_matrix(
    info: &TermInfo,
    cor: &[f64],
    base: &str,
    fixed: &dyn Fn(usize) -> String,
) -> Vec<String> {
    let j = info.levels.len();
    let index = |r: usize, c: usize| (0..c).map(|q| j - 1 - q).sum::<usize>() + (r - c - 1);
    let mut header: Vec<String> = info.levels.iter().map(|l| format!("{base}.{l}")).collect();
    header.push(String::new());
    header.extend(info.levels.iter().cloned());
    let rows: Vec<(String, Vec<String>)> = (0..j)
        .map(|a| {
            let mut row: Vec<String> = (0..j)
                .map(|b| match a.cmp(&b) {
                    std::cmp::Ordering::Greater => f4(Some(cor[index(a, b)])),
                    std::cmp::Ordering::Equal => "1".into(),
                    std::cmp::Ordering::Less => String::new(),
                })
                .collect();
            row.push(String::new());
            row.extend((0..j).map(|b| match a.cmp(&b) {
                std::cmp::Ordering::Greater => fixed(index(a, b)),
                std::cmp::Ordering::Equal => "-".into(),
                std::cmp::Ordering::Less => info.pairs[index(b, a)].to_string(),
            }));
            (info.levels[a].clone(), row)
        })
        .collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    frame_table(&header, &rows, 2)
}

/// What the general printer reads of the result beside its own fields.
pub struct Printing<'a> {
    pub k: usize,
    pub method: &'a str,
    pub test: &'a str,
    pub df: Option<f64>,
    pub sigma2: &'a [f64],
    pub model: &'a Multilevel,
    pub notes: &'a [String],
}

impl GeneralFields {
    /// print.rma.mv's variance components, then their profile-likelihood intervals.
    fn components(&self, r: &Printing<'_>, out: &mut Out) {
        let fmt = |x: Option<f64>| f4(x);
        let yes = |name: String| {
            if self.fixed.contains(&name) {
                "yes"
            } else {
                "no"
            }
            .to_string()
        };
        let numbered = |base: &str, i: usize, n: usize| {
            if n > 1 {
                format!("{base}.{}", i + 1)
            } else {
                base.to_string()
            }
        };
        out.line("Variance Components:");
        out.blank();
        if !r.sigma2.is_empty() {
            let rows: Vec<(String, Vec<String>)> = r
                .sigma2
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let n = r.sigma2.len();
                    let row = vec![
                        fmt(Some(v)),
                        fmt(Some(v.sqrt())),
                        self.sigma2_nlvls
                            .get(i)
                            .map_or("NA".into(), usize::to_string),
                        yes(numbered("sigma2", i, n)),
                        self.sigma2_levels.get(i).cloned().unwrap_or_default(),
                    ];
                    (numbered("sigma^2", i, n), row)
                })
                .collect();
            out.lines(frame_table(
                &["estim", "sqrt", "nlvls", "fixed", "factor"],
                &rows,
                2,
            ));
            out.blank();
        }
        let terms = [
            (&self.tau2, &self.rho, "tau"),
            (&self.gamma2, &self.phi, "gamma"),
        ];
        for (t, info) in self.inner_outer.iter().enumerate() {
            let (var, cor, base) = terms[t.min(1)];
            let cor_base = if t == 0 { "rho" } else { "phi" };
            let w = info.outer.chars().count().max(info.inner.chars().count());
            out.line(format!(
                "outer factor: {:<w$} (nlvls = {})",
                info.outer, info.n_outer
            ));
            out.line(format!(
                "inner factor: {:<w$} (nlvls = {})",
                info.inner,
                info.levels.len()
            ));
            out.blank();
            let v2 = format!("{base}2");
            let shown = format!("{base}^2");
            let mut rows: Vec<(String, Vec<String>)> = Vec::new();
            let many = var.len() > 1;
            for (i, &v) in var.iter().enumerate() {
                let mut row = vec![fmt(Some(v)), fmt(Some(v.sqrt()))];
                if many {
                    row.push(info.k_levels.get(i).map_or(String::new(), usize::to_string));
                }
                row.push(yes(numbered(&v2, i, var.len())));
                if many {
                    row.push(info.levels.get(i).cloned().unwrap_or_default());
                }
                rows.push((numbered(&shown, i, var.len()), row));
            }
            let un = info.structure == "UN";
            if !un && cor.len() == 1 {
                let mut row = vec![fmt(Some(cor[0])), String::new()];
                if many {
                    row.push(String::new());
                }
                row.push(yes(cor_base.to_string()));
                if many {
                    row.push(String::new());
                }
                rows.push((cor_base.to_string(), row));
            }
            let header: &[&str] = if many {
                &["estim", "sqrt", "k.lvl", "fixed", "level"]
            } else {
                &["estim", "sqrt", "fixed"]
            };
            // print.rma.mv pads these row names to sigma^2.1's width.
            let names: Vec<String> = rows.iter().map(|(n, _)| format!("{n:<9}")).collect();
            out.lines(frame_lines(header, &names, &rows, 2));
            if un && !cor.is_empty() {
                out.blank();
                out.lines(correlation_matrix(info, cor, cor_base, &|i| {
                    yes(numbered(cor_base, i, cor.len()))
                }));
            }
            out.blank();
        }
        self.intervals_table(out);
    }

    /// predict()'s prediction intervals per inner level (`pi_levels`), after the model's
    /// results: pi.lb, pi.ub and the level of tau2 (gamma2) each is for.
    fn pi_levels_table(&self, out: &mut Out) {
        if self.pi_levels.is_empty() {
            return;
        }
        out.blank();
        out.line("Prediction intervals (predict()):");
        let mut header = vec!["pi.lb", "pi.ub"];
        let first = &self.pi_levels[0];
        if first.tau2_level.is_some() {
            header.push("tau2.level");
        }
        if first.gamma2_level.is_some() {
            header.push("gamma2.level");
        }
        let rows: Vec<(String, Vec<String>)> = self
            .pi_levels
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let mut cells = vec![f4(Some(row.pi_lower)), f4(Some(row.pi_upper))];
                cells.extend(row.tau2_level.iter().cloned());
                cells.extend(row.gamma2_level.iter().cloned());
                ((i + 1).to_string(), cells)
            })
            .collect();
        out.lines(frame_table(&header, &rows, 2));
    }

    /// The profile-likelihood intervals (confint()), after the variance components.
    fn intervals_table(&self, out: &mut Out) {
        let fmt = |x: Option<f64>| f4(x);
        if !self.intervals.is_empty() {
            out.line("Profile-likelihood intervals:");
            let rows: Vec<(String, Vec<String>)> = self
                .intervals
                .iter()
                .map(|c| {
                    (
                        c.name.clone(),
                        vec![fmt(Some(c.estimate)), fmt(c.ci_lower), fmt(c.ci_upper)],
                    )
                })
                .collect();
            out.lines(frame_table(&["estimate", "ci.lb", "ci.ub"], &rows, 2));
            out.blank();
        }
    }

    /// print.rma.mv of a general model.
    pub fn print(&self, r: &Printing<'_>, out: &mut Out) {
        out.line(format!(
            "Multivariate Meta-Analysis Model (k = {}; method: {})",
            r.k, r.method
        ));
        out.blank();
        let fmt = |x: Option<f64>| f4(x);
        out.lines(frame_table(
            &["logLik", "Deviance", "AIC", "BIC", "AICc"],
            &[(
                String::new(),
                vec![
                    fmt(Some(r.model.loglik)),
                    fmt(self.deviance),
                    fmt(self.aic),
                    fmt(self.bic),
                    fmt(self.aicc),
                ],
            )],
            2,
        ));
        out.blank();
        self.components(r, out);
        let m = &r.model;
        let int_only = m.coefficients.len() == 1 && self.btt.is_empty();
        let (heading, q) = if int_only {
            ("Test for Heterogeneity:", "Q")
        } else {
            ("Test for Residual Heterogeneity:", "QE")
        };
        out.line(heading);
        out.line(format!(
            "{q}(df = {}) = {}, p-val {}",
            m.qe_df,
            fmt(Some(m.qe)),
            pval(Some(m.qe_p), true, false)
        ));
        if m.qm.is_some() {
            out.blank();
            let test = ModeratorTest {
                qm: m.qm,
                qm_df: m.qm_df,
                qm_df2: m.qm_df2.map(|d| d as f64),
                qm_p: m.qm_p,
            };
            let (heading, line) = test.lines(&self.btt);
            out.line(heading);
            out.line(line);
        }
        out.blank();
        out.line("Model Results:");
        out.blank();
        let rows: Vec<CoefficientRow> = m
            .coefficients
            .iter()
            .enumerate()
            .map(|(i, c)| CoefficientRow {
                name: &c.name,
                estimate: c.estimate,
                se: c.se,
                statistic: c.statistic,
                df: self.ddf.get(i).copied(),
                p: Some(c.p),
                ci_lower: c.ci_lower,
                ci_upper: c.ci_upper,
            })
            .collect();
        let df_all = r.df.filter(|_| r.test != "z");
        match (int_only, m.coefficients.first()) {
            // print.rma.mv's intercept-only model: one row without its name.
            (true, Some(c)) => {
                let p = Some(c.p);
                let mut cols = vec![("estimate", f4(Some(c.estimate))), ("se", f4(Some(c.se)))];
                match df_all {
                    Some(d) => {
                        cols.push(("tval", f4(Some(c.statistic))));
                        cols.push(("df", crate::printed::df(d)));
                    }
                    None => cols.push(("zval", f4(Some(c.statistic)))),
                }
                cols.extend([
                    ("pval", pval(p, false, false)),
                    ("ci.lb", f4(Some(c.ci_lower))),
                    ("ci.ub", f4(Some(c.ci_upper))),
                    ("", crate::printed::stars(p)),
                ]);
                out.lines(crate::printed::vector_table(&cols));
            }
            _ => out.lines(coefficient_table(&rows, df_all)),
        }
        self.pi_levels_table(out);
        for note in r.notes {
            out.blank();
            out.line(note.as_str());
        }
        signif_legend(out);
    }
}
