//! General rma.mv models outside `fit_multilevel` (`forest_plot`'s and
//! `influence_diagnostics`' `general`): the model fit_multilevel's arguments describe, built
//! by fit_multilevel's own functions, its fit, and what metafor computes of an rma.mv fit
//! without refitting: weights() (type "diagonal") and hatvalues().

use super::super::args::{model_data, FromArgs, ModelData};
use super::super::data::{id_set, DataSource};
use super::super::fit_multilevel::{fit_multilevel, FitMultilevelArgs, MultilevelResult};
use super::super::multilevel::{invalid, labels};
use super::super::multilevel_general::{
    build_model, random_columns, random_terms, structs, Built,
};
use super::super::ToolError;
use meta_analysis::rma_mv::{marginal_blocks, rma_mv, MvFit, MvFixed, MvModel, VBlock};
use meta_analysis::Method;
use serde_json::{Map, Value};

/// The keys `general` takes: fit_multilevel's general-model arguments.
pub(crate) const GENERAL_KEYS: [&str; 7] =
    ["random", "struct", "V", "vcalc", "sigma2", "tau2", "rho"];

/// fit_multilevel's arguments for `general` and the calling tool's own (`exclude`, `mods`,
/// `method`, `level`, `test`), refusing a key of `general` that is not a model argument.
pub(crate) fn multilevel_args(
    general: &Map<String, Value>,
    common: Map<String, Value>,
) -> Result<Map<String, Value>, ToolError> {
    if let Some(key) = general.keys().find(|k| !GENERAL_KEYS.contains(&k.as_str())) {
        return Err(invalid(format!(
            "general takes {}; not {key:?}",
            GENERAL_KEYS.join(", ")
        )));
    }
    let mut args = common;
    args.extend(general.iter().map(|(k, v)| (k.clone(), v.clone())));
    Ok(args)
}

/// A general model and its fit: fit_multilevel's result (for the printed summary, when
/// asked: it profiles every component), the model as the engine holds it, and the records it
/// left out.
pub(crate) struct General {
    pub result: Option<MultilevelResult>,
    /// The coefficients' names and the random structure as understood.
    pub names: Vec<String>,
    pub structure: Vec<String>,
    pub model: MvModel,
    pub fit: MvFit,
    pub fixed: MvFixed,
    pub method: Method,
    /// The ids left out (`exclude`, then records without a value the model reads).
    pub excluded: Vec<String>,
}

/// Fits fit_multilevel's general model described by `args` (fit_multilevel's arguments as
/// JSON): the model built by fit_multilevel's functions and fitted by the engine, and with
/// `result` fit_multilevel's own result (one optimum: the same model and start give the
/// same fit).
pub(crate) fn fit(
    args: &Map<String, Value>,
    data: &DataSource,
    result: bool,
) -> Result<General, ToolError> {
    let read = || FitMultilevelArgs::from_args(args).map_err(|e| invalid(e.to_string()));
    let result = if result {
        Some(fit_multilevel(read()?, data)?)
    } else {
        None
    };
    let a = read()?;
    let options = a.model.options()?;
    let parsed = random_terms(&a.model, &a.general)?;
    let columns = random_columns(&parsed, &a.general, data);
    let also: Vec<&str> = columns.iter().map(String::as_str).collect();
    let excluded = a.model.exclude.of(data)?;
    let md: ModelData = model_data(a.model.mods.mods.as_ref(), &also, excluded, data)?;
    let Built {
        model,
        names,
        structure,
        ..
    } = build_model(
        data,
        &a.general,
        &parsed,
        &structs(&a.general)?,
        &md,
        "intrcpt",
    )?;
    let fixed = MvFixed {
        sigma2: a.general.sigma2.clone().unwrap_or_default(),
        tau2: a.general.tau2.clone().unwrap_or_default(),
        rho: a.general.rho.clone().unwrap_or_default(),
        ..MvFixed::default()
    };
    let fit = rma_mv(&model, options.method, &fixed)?;
    Ok(General {
        result,
        names,
        structure,
        model,
        fit,
        fixed,
        method: options.method,
        excluded: md.excluded,
    })
}

/// The column that groups a general model's rows: the outer variable of the first random
/// term that groups (`~ inner | outer`'s outer, `~ 1 | a/b`'s a) whose levels are fewer than
/// the records, else V's or vcalc's cluster; `None` when nothing groups.
pub(crate) fn cluster_column(args: &Map<String, Value>, data: &DataSource) -> Option<String> {
    let a = FitMultilevelArgs::from_args(args).ok()?;
    let parsed = random_terms(&a.model, &a.general).ok()?;
    let mut candidates: Vec<String> = parsed
        .iter()
        .map(|(_, rhs)| rhs.split('/').next().unwrap_or_default().trim().to_string())
        .collect();
    candidates.extend(a.general.v.as_ref().map(|v| v.cluster.clone()));
    candidates.extend(a.general.vcalc.as_ref().map(|s| s.cluster.clone()));
    let n = data.records().len();
    candidates.into_iter().find(|c| {
        labels(data, c, "cluster", &[]).is_ok_and(|l| {
            let mut distinct = l.clone();
            distinct.sort();
            distinct.dedup();
            distinct.len() < n
        })
    })
}

/// The inverse of a symmetric positive-definite n × n matrix (row-major), by its Cholesky
/// factor; `None` when it is not positive definite.
pub(crate) fn spd_inverse(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = a[i * n + j] - (0..j).map(|m| l[i * n + m] * l[j * n + m]).sum::<f64>();
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    // Columns of L⁻¹, then (L⁻¹)′L⁻¹.
    let mut li = vec![0.0; n * n];
    for c in 0..n {
        for i in c..n {
            let s: f64 = (c..i).map(|m| l[i * n + m] * li[m * n + c]).sum();
            li[i * n + c] = (f64::from(u8::from(i == c)) - s) / l[i * n + i];
        }
    }
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            inv[i * n + j] = (i.max(j)..n).map(|m| li[m * n + i] * li[m * n + j]).sum();
        }
    }
    Some(inv)
}

/// W = M⁻¹ block by block, each with its rows (indices into the model's rows).
pub(crate) fn inverse_blocks(model: &MvModel, fit: &MvFit) -> Result<Vec<VBlock>, ToolError> {
    marginal_blocks(model, fit)?
        .into_iter()
        .map(|b| {
            let n = b.rows.len();
            let matrix = spd_inverse(&b.matrix, n).ok_or_else(|| {
                invalid("the fitted marginal covariance is not positive definite".into())
            })?;
            Ok(VBlock {
                rows: b.rows,
                matrix,
            })
        })
        .collect()
}

/// metafor's weights.rma.mv (type "diagonal"): diag(W) as a percentage of its sum, per model
/// row.
pub(crate) fn weights(w: &[VBlock], k: usize) -> Vec<f64> {
    let mut d = vec![0.0; k];
    for b in w {
        let n = b.rows.len();
        for (a, &r) in b.rows.iter().enumerate() {
            d[r] = b.matrix[a * n + a];
        }
    }
    let total: f64 = d.iter().sum();
    d.iter().map(|x| 100.0 * x / total).collect()
}

/// metafor's hatvalues.rma.mv: diag(X (X′WX)⁻¹ X′W) per model row (1 where within 10 ε of
/// it, as lm.influence()).
pub(crate) fn hat_values(model: &MvModel, fit: &MvFit, w: &[VBlock]) -> Vec<f64> {
    let p = model.p;
    let mut h = vec![0.0; model.yi.len()];
    for b in w {
        let n = b.rows.len();
        for (a, &r) in b.rows.iter().enumerate() {
            // (W X)_r, a p-vector.
            let wx: Vec<f64> = (0..p)
                .map(|c| {
                    (0..n)
                        .map(|m| b.matrix[a * n + m] * model.x[b.rows[m] * p + c])
                        .sum()
                })
                .collect();
            let xr = &model.x[r * p..(r + 1) * p];
            let v: f64 = (0..p)
                .map(|i| (0..p).map(|j| xr[i] * fit.vcov[i * p + j] * wx[j]).sum::<f64>())
                .sum();
            h[r] = if v > 1.0 - 10.0 * f64::EPSILON { 1.0 } else { v };
        }
    }
    h
}

/// Per record of `data` (in record order): the value at its model row, `None` for a record
/// the model left out.
pub(crate) fn per_record<T: Clone>(
    values: &[T],
    excluded: &[String],
    data: &DataSource,
) -> Vec<Option<T>> {
    let left_out = id_set(excluded);
    let mut at = 0;
    data.records()
        .iter()
        .map(|r| {
            if left_out.contains(r.id.as_str()) {
                return None;
            }
            at += 1;
            Some(values[at - 1].clone())
        })
        .collect()
}
