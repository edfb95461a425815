//! `vcalc`: the argument by which a multilevel fit builds its known sampling covariance V as
//! metafor's `vcalc()` does (the engine's [`meta_analysis::vcalc`]), each field naming a
//! column of the records, and `return_v`, which returns the V built.
//!
//! ```json
//! {"vcalc": {"cluster": "study", "obs": "esid", "rho": 0.6}, "return_v": true}
//! ```

use super::columns::{column_values, ColumnValue};
use super::data::{id_set, DataSource};
use super::multilevel::{invalid, labels};
use super::ToolError;
use meta_analysis::{LevelCorrelation, VBlock, VcalcInput};
use serde::{Deserialize, Serialize};

/// How V is built (metafor's `vcalc()`): each field but `rho` and `phi` names a column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct VcalcSpec {
    /// Records of different clusters are independent.
    pub cluster: String,
    /// Splits the clusters further.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subgroup: Option<String>,
    /// The sample a record is measured on: within a construct, different obs correlate rho.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obs: Option<String>,
    /// The construct (outcome) a record measures: different types correlate rho.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Numeric time: records correlate phi^|time1 difference|.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time1: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time2: Option<String>,
    /// A record contrasts group grp1 (at time1, size w1) with grp2 (at time2, size w2):
    /// contrasts sharing a group correlate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grp1: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grp2: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w1: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w2: Option<String>,
    /// With obs or type: one correlation (or a matrix over levels); with both: [within
    /// construct, between constructs].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rho: Option<Rho>,
    /// The autocorrelation over time, in [-1, 1] (with time1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phi: Option<f64>,
}

/// `rho`: one correlation, or one for each of obs and type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub enum Rho {
    One(RhoValue),
    Two([RhoValue; 2]),
}

/// A correlation between levels: one number for every pair, or a symmetric matrix over the
/// named levels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub enum RhoValue {
    Constant(f64),
    Matrix {
        levels: Vec<String>,
        matrix: Vec<Vec<f64>>,
    },
}

/// `return_v`, as a part a fitting tool's arguments compose (`#[flat]`); `vcalc` itself is
/// a general model's argument ([`super::multilevel_general::RandomArgs`]).
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ReturnVArg {
    /// V used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "definitions", schemars(default = "no"))]
    pub return_v: Option<bool>,
}

#[cfg(feature = "definitions")]
fn no() -> Option<bool> {
    Some(false)
}

/// `vcalc`'s fields are metafor's (the server instructions say so once): the schema names
/// the common ones, and serde refuses any other.
#[cfg(feature = "definitions")]
pub(super) fn vcalc_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(serde_json::json!({"type": "object",
        "description": "As vcalc()."}))
    .expect("an object schema")
}

leaf_args!(ReturnVArg);

/// One cluster's block of V as returned (`return_v`): the records' ids in the cluster's
/// order and the covariance, a row per record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct VBlockRows {
    pub cluster: String,
    pub ids: Vec<String>,
    pub v: Vec<Vec<f64>>,
}

fn level(value: &RhoValue, what: &str) -> Result<LevelCorrelation, ToolError> {
    let bounded = |r: f64| {
        if r.abs() <= 1.0 {
            Ok(r)
        } else {
            Err(invalid(format!(
                "vcalc's rho ({what}) must lie in [-1, 1], got {r}"
            )))
        }
    };
    Ok(match value {
        RhoValue::Constant(r) => LevelCorrelation::Constant(bounded(*r)?),
        RhoValue::Matrix { levels, matrix } => {
            let n = levels.len();
            if matrix.len() != n || matrix.iter().any(|row| row.len() != n) {
                return Err(invalid(format!(
                    "vcalc's rho ({what}) matrix must be {n} x {n}, a row per level"
                )));
            }
            LevelCorrelation::Matrix {
                levels: levels.clone(),
                values: matrix
                    .iter()
                    .flatten()
                    .map(|&r| bounded(r))
                    .collect::<Result<_, _>>()?,
            }
        }
    })
}

/// The correlations for obs and for type, by metafor's rule: one rho for whichever of them
/// is given, two (within, between) when both are.
fn correlations(
    spec: &VcalcSpec,
) -> Result<(Option<LevelCorrelation>, Option<LevelCorrelation>), ToolError> {
    let (obs, kind) = (spec.obs.is_some(), spec.kind.is_some());
    let Some(rho) = &spec.rho else {
        if obs || kind {
            return Err(invalid(format!(
                "vcalc with {} needs rho",
                if obs { "obs" } else { "type" }
            )));
        }
        return Ok((None, None));
    };
    match (rho, obs, kind) {
        (Rho::Two([within, between]), true, true) => Ok((
            Some(level(within, "within a construct")?),
            Some(level(between, "between constructs")?),
        )),
        (Rho::One(_), true, true) => Err(invalid(
            "vcalc with both obs and type needs rho as [within a construct, between constructs]"
                .into(),
        )),
        (Rho::One(r), true, false) => Ok((Some(level(r, "obs")?), None)),
        (Rho::One(r), false, true) => Ok((None, Some(level(r, "type")?))),
        (Rho::Two(_), _, _) => Err(invalid(
            "vcalc's rho is a pair only with both obs and type; give one value".into(),
        )),
        (Rho::One(_), false, false) => Err(invalid(
            "vcalc's rho needs obs or type (the columns whose levels it correlates)".into(),
        )),
    }
}

/// A numeric column of the records not in `excluded`.
fn numbers(
    data: &DataSource,
    name: &str,
    what: &str,
    excluded: &[String],
) -> Result<Vec<f64>, ToolError> {
    let values = column_values(data, name)?;
    let excluded = id_set(excluded);
    data.records()
        .iter()
        .zip(values)
        .filter(|(r, _)| !excluded.contains(r.id.as_str()))
        .map(|(r, v)| match v {
            ColumnValue::Number(x) if x.is_finite() => Ok(x),
            _ => Err(invalid(format!(
                "vcalc's {what} column {name:?} must hold a number for every record; record \
                 {:?} has none",
                r.id
            ))),
        })
        .collect()
}

/// V's blocks for the records of `data` not in `excluded` (the rows of each block index those
/// records, in order), as `spec` asks; every column must exist and hold a value for each
/// record, rho and phi lie in [-1, 1], and each block must be positive definite.
pub fn vcalc_blocks(
    spec: &VcalcSpec,
    data: &DataSource,
    excluded: &[String],
) -> Result<Vec<VBlock>, ToolError> {
    let text = |name: &Option<String>, what: &str| -> Result<Option<Vec<String>>, ToolError> {
        name.as_deref()
            .map(|n| labels(data, n, &format!("vcalc {what}"), excluded))
            .transpose()
    };
    let number = |name: &Option<String>, what: &str| -> Result<Option<Vec<f64>>, ToolError> {
        name.as_deref()
            .map(|n| numbers(data, n, what, excluded))
            .transpose()
    };
    let cluster = labels(data, &spec.cluster, "vcalc cluster", excluded)?;
    let subgroup = text(&spec.subgroup, "subgroup")?;
    let obs = text(&spec.obs, "obs")?;
    let kind = text(&spec.kind, "type")?;
    let grp1 = text(&spec.grp1, "grp1")?;
    let grp2 = text(&spec.grp2, "grp2")?;
    let time1 = number(&spec.time1, "time1")?;
    let time2 = number(&spec.time2, "time2")?;
    let w1 = number(&spec.w1, "w1")?;
    let w2 = number(&spec.w2, "w2")?;
    if let Some(phi) = spec.phi {
        if phi.is_nan() || phi.abs() > 1.0 {
            return Err(invalid(format!(
                "vcalc's phi must lie in [-1, 1], got {phi}"
            )));
        }
    }
    let (rho_obs, rho_type) = correlations(spec)?;
    let vi: Vec<f64> = data.kept(excluded).iter().map(|r| r.vi).collect();
    meta_analysis::vcalc(&VcalcInput {
        vi: &vi,
        cluster: &cluster,
        subgroup: subgroup.as_deref(),
        obs: obs.as_deref(),
        kind: kind.as_deref(),
        time1: time1.as_deref(),
        time2: time2.as_deref(),
        grp1: grp1.as_deref(),
        grp2: grp2.as_deref(),
        w1: w1.as_deref(),
        w2: w2.as_deref(),
        rho_obs,
        rho_type,
        phi: spec.phi,
    })
    .map_err(|e| invalid(format!("vcalc: {}", ToolError::from(e).message)))
}

/// The blocks as `return_v` gives them, the records named by `ids` (the ids of the records
/// the blocks index, in that order).
pub fn v_rows(blocks: &[VBlock], ids: &[&str]) -> Vec<VBlockRows> {
    blocks
        .iter()
        .map(|b| {
            let n = b.rows.len();
            VBlockRows {
                cluster: b.cluster.clone(),
                ids: b.rows.iter().map(|&i| ids[i].to_string()).collect(),
                v: b.cov.chunks_exact(n).map(<[f64]>::to_vec).collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn data(records: serde_json::Value) -> DataSource {
        DataSource::from_args(&json!({ "records": records })).unwrap()
    }

    fn spec(v: serde_json::Value) -> VcalcSpec {
        serde_json::from_value(v).unwrap()
    }

    fn records() -> serde_json::Value {
        json!([
            {"id": "a1", "yi": 0.1, "vi": 0.04, "study": "A", "es": 1, "t": 0},
            {"id": "a2", "yi": 0.2, "vi": 0.09, "study": "A", "es": 2, "t": 2},
            {"id": "b1", "yi": 0.3, "vi": 0.01, "study": "B", "es": 1, "t": 0}
        ])
    }

    #[test]
    fn columns_become_blocks_and_v_rows() {
        let d = data(records());
        let blocks = vcalc_blocks(
            &spec(json!({"cluster": "study", "obs": "es", "rho": 0.5})),
            &d,
            &[],
        )
        .unwrap();
        let rows = v_rows(&blocks, &["a1", "a2", "b1"]);
        assert_eq!(rows[0].ids, vec!["a1", "a2"]);
        assert!((rows[0].v[0][1] - 0.5 * 0.2 * 0.3).abs() < 1e-15);
        assert_eq!(rows[1].ids, vec!["b1"]);
        let blocks = vcalc_blocks(
            &spec(json!({"cluster": "study", "time1": "t", "phi": 0.5})),
            &d,
            &["b1".to_string()],
        )
        .unwrap();
        assert_eq!(blocks.len(), 1);
        assert!((blocks[0].get(0, 1) - 0.25 * 0.2 * 0.3).abs() < 1e-15);
    }

    #[test]
    fn errors_name_the_column_the_value_or_the_cluster() {
        let d = data(records());
        let err = |v: serde_json::Value| vcalc_blocks(&spec(v), &d, &[]).unwrap_err().message;
        let e = err(json!({"cluster": "trial"}));
        assert!(e.contains("\"trial\""), "{e}");
        let e = err(json!({"cluster": "study", "obs": "es", "rho": 1.2}));
        assert!(e.contains("[-1, 1]") && e.contains("1.2"), "{e}");
        let e = err(json!({"cluster": "study", "obs": "es"}));
        assert!(e.contains("needs rho"), "{e}");
        let e = err(json!({"cluster": "study", "time1": "study", "phi": 0.5}));
        assert!(e.contains("must hold a number"), "{e}");
        let e = err(json!({"cluster": "study", "obs": "study", "rho": 0.5}));
        assert!(
            e.contains("not positive definite") && e.contains("\"A\""),
            "{e}"
        );
        let d = data(json!([
            {"id": "a1", "yi": 0.1, "vi": 0.04, "study": "A"},
            {"id": "a2", "yi": 0.2, "vi": 0.09}
        ]));
        let e = vcalc_blocks(&spec(json!({"cluster": "study"})), &d, &[])
            .unwrap_err()
            .message;
        assert!(e.contains("a2"), "{e}");
    }
}
