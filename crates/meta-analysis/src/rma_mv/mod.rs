//! General multivariate/multilevel models (metafor's `rma.mv`): y ~ N(Xβ, M) with
//! M = V + Σ_j σ_j² Z_j Z_j′ + Σ_t G_t-terms, where V is the known sampling covariance
//! (diagonal vi or dense blocks per cluster), each `~ 1 | id` term adds σ_j² to every pair
//! of rows sharing a level of id (nested `a/b` is the terms a and a:b; several are crossed),
//! and each of at most two `~ inner | outer` terms adds G[inner_a, inner_b] to the rows a, b
//! sharing a level of outer (G by [`Struct`]: τ² and ρ for the first term, metafor's
//! γ² and φ for the second).
//!
//! Parameterization: every free variance as log σ² (log τ²), every free correlation as
//! atanh ρ (CAR's ρ ∈ [0, 1] as logit ρ). The (restricted) log-likelihood, its analytic
//! gradient, its expected information ([`eval`]) and its observed Hessian ([`hessian`]) are
//! sums over the clusters of M; the optimizer ([`optimizer`]) takes Newton steps on the
//! analytic Hessian (Fisher-scoring steps where it is not negative definite), halving any
//! step that lowers ℓ, until the gradient's largest entry is below [`GRADIENT_TOL`]. A variance that falls below 1e-10 of the data's scale while
//! its score pushes it down is fixed at 0, a correlation within 1e-9 of ±1 pushed outward
//! is fixed there; both are named in `boundary`.

mod blocks;
mod eval;
mod hessian;
mod optimizer;
mod profile;
pub mod structure;

pub use blocks::MAX_BLOCK;
pub use profile::ComponentCi;
pub use structure::Struct;

use crate::{MetaError, Method};

/// The stopping rule: the largest entry of ∂ℓ/∂θ (θ the log variances and atanh
/// correlations that are estimated).
pub const GRADIENT_TOL: f64 = 1e-10;

/// A bound on the work of one evaluation, Σ over clusters of n²(n + p + q) for n rows,
/// p coefficients and q estimated components.
pub const MAX_MV_COST: f64 = 5e7;

/// A `~ 1 | id` term: per row, its level of id.
#[derive(Debug, Clone, PartialEq)]
pub struct RandomIntercept {
    pub name: String,
    pub levels: Vec<String>,
}

/// An `~ inner | outer` term with its structure.
#[derive(Debug, Clone, PartialEq)]
pub struct InnerOuter {
    pub inner_name: String,
    pub outer_name: String,
    pub inner: Vec<String>,
    pub outer: Vec<String>,
    pub structure: Struct,
}

/// A block of the known sampling covariance: its rows and the dense symmetric matrix over
/// them (row-major, in the order of `rows`).
#[derive(Debug, Clone, PartialEq)]
pub struct VBlock {
    pub rows: Vec<usize>,
    pub matrix: Vec<f64>,
}

/// The known sampling covariance: diagonal, or blocks covering every row once.
#[derive(Debug, Clone, PartialEq)]
pub enum Sampling {
    Diagonal(Vec<f64>),
    Blocks(Vec<VBlock>),
}

/// A model: outcomes, the design (k × p, row-major), V and the random terms.
#[derive(Debug, Clone, PartialEq)]
pub struct MvModel {
    pub yi: Vec<f64>,
    pub x: Vec<f64>,
    pub p: usize,
    pub sampling: Sampling,
    pub intercepts: Vec<RandomIntercept>,
    pub terms: Vec<InnerOuter>,
}

/// Components held at given values (metafor's `sigma2 =`, `tau2 =`, `rho =`, `gamma2 =`,
/// `phi =`; None = estimate). An empty list estimates them all.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MvFixed {
    pub sigma2: Vec<Option<f64>>,
    pub tau2: Vec<Option<f64>>,
    pub rho: Vec<Option<f64>>,
    pub gamma2: Vec<Option<f64>>,
    pub phi: Vec<Option<f64>>,
}

/// A fitted model.
#[derive(Debug, Clone, PartialEq)]
pub struct MvFit {
    pub k: usize,
    pub p: usize,
    pub beta: Vec<f64>,
    /// (X′M⁻¹X)⁻¹, p × p row-major.
    pub vcov: Vec<f64>,
    pub sigma2: Vec<f64>,
    /// τ² and ρ of the first `~ inner | outer` term, γ² and φ of the second.
    pub tau2: Vec<f64>,
    pub rho: Vec<f64>,
    pub gamma2: Vec<f64>,
    pub phi: Vec<f64>,
    /// Levels of each `~ 1 | id` term, and the inner levels (in G's order) of each
    /// `~ inner | outer` term with its number of outer levels.
    pub sigma2_levels: Vec<usize>,
    pub inner_levels: Vec<Vec<String>>,
    pub outer_levels: Vec<usize>,
    pub loglik: f64,
    /// Number of estimated components (not fixed, not at a boundary fixed by the fit).
    pub estimated: usize,
    /// Largest |∂ℓ/∂θ| over the estimated components at the optimum.
    pub gradient_norm: f64,
    pub iterations: usize,
    /// Components at a bound, e.g. "sigma2.2 = 0", "rho = -1".
    pub boundary: Vec<String>,
    /// Residual heterogeneity QE = e′(V⁻¹ − V⁻¹X(X′V⁻¹X)⁻¹X′V⁻¹)e, on k − p df.
    pub qe: f64,
    /// log det V (metafor's ML deviance is −2(ℓ − ℓ_QE), ℓ_QE = −½(k log 2π + log det V)).
    pub log_det_v: f64,
    /// Profile-likelihood intervals of the estimated components (asked with a level).
    pub intervals: Vec<ComponentCi>,
    /// Whether each component (in the order sigma2, tau2, rho, gamma2, phi) was given.
    pub fixed: Vec<bool>,
}

/// Which component a position of the value vector is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Component {
    Sigma2(usize),
    /// The `offset`-th parameter of a term (its variances, then its correlations).
    Term {
        term: usize,
        offset: usize,
    },
}

pub(crate) struct TermLayout {
    pub structure: Struct,
    pub levels: usize,
    pub level_names: Vec<String>,
    pub n_outer: usize,
    pub inner: Vec<usize>,
    pub outer: Vec<usize>,
    pub first: usize,
    pub n_var: usize,
    pub n_cor: usize,
    /// The inner levels' numeric values (CAR's times; empty for the other structs).
    pub times: Vec<f64>,
    /// GEN's rows of Z = (1, x), k × levels (empty for the other structs).
    pub z: Vec<f64>,
}

pub(crate) struct Layout {
    pub k: usize,
    pub p: usize,
    pub sigma_groups: Vec<Vec<usize>>,
    pub terms: Vec<TermLayout>,
    pub components: Vec<Component>,
}

impl Layout {
    fn is_variance(&self, c: usize) -> bool {
        match self.components[c] {
            Component::Sigma2(_) => true,
            Component::Term { term, offset } => offset < self.terms[term].n_var,
        }
    }

    /// A correlation's range ([0, 1] for CAR's, [−1, 1] otherwise).
    fn correlation_range(&self, c: usize) -> (f64, f64) {
        match self.components[c] {
            Component::Sigma2(_) => (0.0, f64::INFINITY),
            Component::Term { term, .. } => self.terms[term].structure.correlation_range(),
        }
    }

    /// The component's name as metafor prints it: sigma2.1, tau2.2, rho, gamma2, phi.
    fn name(&self, c: usize) -> String {
        match self.components[c] {
            Component::Sigma2(j) => format!("sigma2.{}", j + 1),
            Component::Term { term, offset } => {
                let t = &self.terms[term];
                let (v, r) = if term == 0 {
                    ("tau2", "rho")
                } else {
                    ("gamma2", "phi")
                };
                let (base, i, n) = if offset < t.n_var {
                    (v, offset, t.n_var)
                } else {
                    (r, offset - t.n_var, t.n_cor)
                };
                if n == 1 {
                    base.to_string()
                } else {
                    format!("{base}.{}", i + 1)
                }
            }
        }
    }
}

/// The data in clusters, ready for evaluations.
pub(crate) struct Prepared {
    pub layout: Layout,
    pub blocks: Vec<blocks::Block>,
    /// Each block's rows of the design X̃ = X L⁻ᵀ (X′X = L L′), whose columns are
    /// orthonormal: the likelihood is the same for any basis of X's column space, and in
    /// this one X̃′WX̃ is as well conditioned as W (`eval` maps β and its covariance back).
    pub xb: Vec<Vec<f64>>,
    pub yb: Vec<Vec<f64>>,
    /// log det X̃′X̃ (0 but for rounding).
    pub log_det_xx: f64,
    /// L, the Cholesky factor of X′X (p × p).
    pub x_factor: Vec<f64>,
}

/// Codes 0.. of a label per row, in the order of the sorted distinct labels (numerically
/// when every label is a number, else by bytes), with those labels.
fn codes(labels: &[String]) -> (Vec<usize>, Vec<String>) {
    let mut distinct: Vec<String> = labels.to_vec();
    let numeric: Option<Vec<f64>> = distinct.iter().map(|s| s.trim().parse().ok()).collect();
    if numeric.is_some() {
        distinct.sort_by(|a, b| {
            let (x, y): (f64, f64) = (a.trim().parse().unwrap(), b.trim().parse().unwrap());
            x.total_cmp(&y).then_with(|| a.cmp(b))
        });
    } else {
        distinct.sort();
    }
    distinct.dedup();
    let index: std::collections::HashMap<&str, usize> = distinct
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    (labels.iter().map(|l| index[l.as_str()]).collect(), distinct)
}

fn undefined(reason: String) -> MetaError {
    MetaError::Undefined { reason }
}

fn layout(model: &MvModel) -> Result<Layout, MetaError> {
    let k = model.yi.len();
    if model.terms.len() > 2 {
        return Err(undefined(format!(
            "at most two `~ inner | outer` terms are fitted (as metafor's rma.mv), not {}",
            model.terms.len()
        )));
    }
    let mut components = Vec::new();
    let mut sigma_groups = Vec::new();
    for (j, term) in model.intercepts.iter().enumerate() {
        if term.levels.len() != k {
            return Err(undefined(format!(
                "the term ~ 1 | {} has {} values for {k} rows",
                term.name,
                term.levels.len()
            )));
        }
        sigma_groups.push(codes(&term.levels).0);
        components.push(Component::Sigma2(j));
    }
    let mut terms = Vec::new();
    for (t, term) in model.terms.iter().enumerate() {
        if term.inner.len() != k || term.outer.len() != k {
            return Err(undefined(format!(
                "the term ~ {} | {} has values for other than the {k} rows",
                term.inner_name, term.outer_name
            )));
        }
        let (mut inner, mut level_names) = codes(&term.inner);
        let mut z = Vec::new();
        if term.structure == Struct::Gen {
            for l in &term.inner {
                let x = l.trim().parse::<f64>().ok().filter(|x| x.is_finite());
                let x = x.ok_or_else(|| {
                    undefined(format!(
                        "struct GEN reads ~ {} | {} as slopes: every {} must be a number",
                        term.inner_name, term.outer_name, term.inner_name
                    ))
                })?;
                z.extend([1.0, x]);
            }
            inner = vec![0; k];
            level_names = vec!["intrcpt".into(), term.inner_name.clone()];
        }
        let (outer, outer_names) = codes(&term.outer);
        let j = level_names.len();
        let times = if term.structure.numeric_levels() {
            level_names
                .iter()
                .map(|l| l.trim().parse::<f64>().ok().filter(|t| t.is_finite()))
                .collect::<Option<Vec<f64>>>()
                .ok_or_else(|| {
                    undefined(format!(
                        "struct CAR reads ~ {} | {} as times: every {} must be a number",
                        term.inner_name, term.outer_name, term.inner_name
                    ))
                })?
        } else {
            Vec::new()
        };
        let (n_var, n_cor) = (term.structure.variances(j), term.structure.correlations(j));
        let first = components.len();
        for offset in 0..n_var + n_cor {
            components.push(Component::Term { term: t, offset });
        }
        terms.push(TermLayout {
            structure: term.structure,
            levels: j,
            level_names,
            n_outer: outer_names.len(),
            inner,
            outer,
            first,
            n_var,
            n_cor,
            times,
            z,
        });
    }
    Ok(Layout {
        k,
        p: model.p,
        sigma_groups,
        terms,
        components,
    })
}

/// Checks the sampling covariance against the rows.
fn check_sampling(sampling: &Sampling, k: usize) -> Result<(), MetaError> {
    match sampling {
        Sampling::Diagonal(vi) => {
            if vi.len() != k || vi.iter().any(|v| !v.is_finite() || *v < 0.0) {
                return Err(undefined(format!(
                    "vi must be {k} finite non-negative values"
                )));
            }
        }
        Sampling::Blocks(blocks) => {
            let mut seen = vec![false; k];
            for b in blocks {
                let n = b.rows.len();
                if b.matrix.len() != n * n {
                    return Err(undefined(format!(
                        "a V block over {n} rows needs {} values",
                        n * n
                    )));
                }
                for (a, &r) in b.rows.iter().enumerate() {
                    if r >= k || std::mem::replace(&mut seen[r], true) {
                        return Err(undefined(format!(
                            "V's blocks must cover each of the {k} rows once (row {})",
                            r + 1
                        )));
                    }
                    for c in 0..n {
                        let (x, y) = (b.matrix[a * n + c], b.matrix[c * n + a]);
                        if !x.is_finite() || (x - y).abs() > 1e-12 * (x.abs() + y.abs()) {
                            return Err(undefined(format!(
                                "a V block is not symmetric and finite (row {})",
                                r + 1
                            )));
                        }
                    }
                }
            }
            if let Some(r) = seen.iter().position(|s| !s) {
                return Err(undefined(format!(
                    "V's blocks must cover each of the {k} rows (row {} is in none)",
                    r + 1
                )));
            }
        }
    }
    Ok(())
}

fn prepare(model: &MvModel) -> Result<Prepared, MetaError> {
    let k = model.yi.len();
    let p = model.p;
    if model.x.len() != k * p || p == 0 || k <= p {
        return Err(undefined(format!(
            "a model of {p} coefficients needs more than {p} rows, and X of k × p values"
        )));
    }
    if model.yi.iter().chain(&model.x).any(|v| !v.is_finite()) {
        return Err(undefined("yi and the design must be finite".into()));
    }
    check_sampling(&model.sampling, k)?;
    let layout = layout(model)?;
    let blocks = blocks::clusters(&layout, &model.sampling);
    let q = layout.components.len() as f64;
    let mut cost = 0.0;
    for b in &blocks {
        let n = b.rows.len();
        if n > MAX_BLOCK {
            return Err(undefined(format!(
                "the random terms join {n} rows into one cluster; at most {MAX_BLOCK} are factorized together"
            )));
        }
        cost += (n * n) as f64 * (n as f64 + p as f64 + q);
    }
    if cost > MAX_MV_COST {
        return Err(undefined(format!(
            "this model's evaluations cost {cost:.0} (Σ n²(n + p + q) over clusters), beyond the bound {MAX_MV_COST:.0}"
        )));
    }
    let xx = blocks::tmul(&model.x, &model.x, k, p, p);
    let l = blocks::cholesky(&xx, p)
        .ok_or_else(|| undefined("the design's columns are linearly dependent".into()))?;
    let xb: Vec<Vec<f64>> = blocks
        .iter()
        .map(|b| {
            b.rows
                .iter()
                .flat_map(|&r| {
                    let mut row = model.x[r * p..(r + 1) * p].to_vec();
                    blocks::forward_in_place(&l, p, &mut row);
                    row
                })
                .collect()
        })
        .collect();
    let mut xx_tilde = vec![0.0; p * p];
    for x in &xb {
        let n = x.len() / p;
        for (e, v) in blocks::tmul(x, x, n, p, p).into_iter().enumerate() {
            xx_tilde[e] += v;
        }
    }
    let l_tilde = blocks::cholesky(&xx_tilde, p)
        .ok_or_else(|| undefined("the design's columns are linearly dependent".into()))?;
    let yb = blocks
        .iter()
        .map(|b| b.rows.iter().map(|&r| model.yi[r]).collect())
        .collect();
    Ok(Prepared {
        log_det_xx: blocks::log_det(&l_tilde, p),
        layout,
        blocks,
        xb,
        yb,
        x_factor: l,
    })
}

/// The given values of the components in the value vector's order (None = estimate).
fn fixed_values(layout: &Layout, fixed: &MvFixed) -> Result<Vec<Option<f64>>, MetaError> {
    let mut out = Vec::new();
    let take = |given: &[Option<f64>], n: usize, name: &str, out: &mut Vec<Option<f64>>| {
        if given.is_empty() {
            out.extend(std::iter::repeat_n(None, n));
            return Ok(());
        }
        if given.len() != n {
            return Err(undefined(format!(
                "{name} has {n} values in this model, {} were given",
                given.len()
            )));
        }
        out.extend_from_slice(given);
        Ok(())
    };
    take(&fixed.sigma2, layout.sigma_groups.len(), "sigma2", &mut out)?;
    for (t, term) in layout.terms.iter().enumerate() {
        let (v, r) = if t == 0 {
            (&fixed.tau2, &fixed.rho)
        } else {
            (&fixed.gamma2, &fixed.phi)
        };
        let (vn, rn) = if t == 0 {
            ("tau2", "rho")
        } else {
            ("gamma2", "phi")
        };
        take(v, term.n_var, vn, &mut out)?;
        take(r, term.n_cor, rn, &mut out)?;
    }
    for (c, v) in out.iter().enumerate() {
        if let Some(v) = *v {
            let ok = if layout.is_variance(c) {
                v >= 0.0 && v.is_finite()
            } else {
                let (lo, hi) = layout.correlation_range(c);
                (lo..=hi).contains(&v)
            };
            if !ok {
                return Err(undefined(format!(
                    "{} = {v} is outside its range",
                    layout.name(c)
                )));
            }
        }
    }
    Ok(out)
}

/// Start values as metafor's: each variance total/(number of variance components), with
/// total the residual variance of the least-squares fit less the mean sampling variance
/// (at least 1e-3 of that residual variance); every correlation 0.5.
fn start(model: &MvModel, prepared: &Prepared) -> Vec<f64> {
    let (k, p) = (prepared.layout.k, prepared.layout.p);
    let xx = blocks::tmul(&model.x, &model.x, k, p, p);
    let xy = blocks::tmul(&model.x, &model.yi, k, p, 1);
    let l = blocks::cholesky(&xx, p).expect("checked in prepare");
    let mut beta = xy;
    blocks::solve_in_place(&l, p, &mut beta);
    let fitted = blocks::mul(&model.x, &beta, k, p, 1);
    let resid: Vec<f64> = model.yi.iter().zip(&fitted).map(|(y, f)| y - f).collect();
    let mean = resid.iter().sum::<f64>() / k as f64;
    let var = resid.iter().map(|r| (r - mean) * (r - mean)).sum::<f64>() / (k as f64 - 1.0);
    let mean_v = prepared
        .blocks
        .iter()
        .map(|b| {
            let n = b.rows.len();
            (0..n).map(|i| b.v[i * n + i]).sum::<f64>()
        })
        .sum::<f64>()
        / k as f64;
    let total = (var - mean_v).max(1e-3 * var).max(1e-8);
    let layout = &prepared.layout;
    let groups = layout.sigma_groups.len() + layout.terms.len();
    (0..layout.components.len())
        .map(|c| {
            if layout.is_variance(c) {
                total / groups as f64
            } else {
                0.5
            }
        })
        .collect()
}

/// Fits the model by REML or ML.
pub fn rma_mv(model: &MvModel, method: Method, fixed: &MvFixed) -> Result<MvFit, MetaError> {
    rma_mv_profiled(model, method, fixed, None)
}

/// Fits the model, and with `level` the profile-likelihood interval of every estimated
/// component ([`profile`]).
pub fn rma_mv_profiled(
    model: &MvModel,
    method: Method,
    fixed: &MvFixed,
    level: Option<f64>,
) -> Result<MvFit, MetaError> {
    let reml = match method {
        Method::Reml => true,
        Method::Ml => false,
        other => {
            return Err(undefined(format!(
                "rma.mv models are fitted by REML or ML, not {}",
                other.name()
            )))
        }
    };
    let prepared = prepare(model)?;
    let layout = &prepared.layout;
    let given = fixed_values(layout, fixed)?;
    let mut values = start(model, &prepared);
    for (c, g) in given.iter().enumerate() {
        if let Some(v) = g {
            values[c] = *v;
        }
    }
    let free: Vec<usize> = (0..values.len()).filter(|&c| given[c].is_none()).collect();
    let scale = start(model, &prepared)
        .iter()
        .cloned()
        .fold(0.0, f64::max)
        .max(1e-300);
    let run = optimizer::maximize(&prepared, values, free.clone(), reml, scale)?;
    let intervals = level.map_or_else(Vec::new, |level| {
        profile::intervals(
            &prepared,
            &run.values,
            &free,
            run.evaluation.loglik,
            reml,
            scale,
            level,
        )
    });
    let zero: Vec<f64> = vec![0.0; layout.components.len()];
    let (qe, log_det_v) = eval::evaluate(&prepared, &zero, &[], true, false)
        .map_or((f64::NAN, f64::NAN), |e| (e.rss, e.logdet));
    let mut fit = assemble(&prepared, run, qe, &given);
    fit.log_det_v = log_det_v;
    fit.intervals = intervals;
    Ok(fit)
}

/// The fitted marginal covariance M = V + the random terms at `fit`'s components, in the
/// blocks the model decomposes into (its clusters: rows sharing a V block or a level of a
/// random term), each n × n row-major over its rows.
pub fn marginal_blocks(model: &MvModel, fit: &MvFit) -> Result<Vec<VBlock>, MetaError> {
    let prepared = prepare(model)?;
    let values: Vec<f64> = [&fit.sigma2, &fit.tau2, &fit.rho, &fit.gamma2, &fit.phi]
        .into_iter()
        .flatten()
        .copied()
        .collect();
    if values.len() != prepared.layout.components.len() {
        return Err(undefined(format!(
            "the fit has {} components, the model {}",
            values.len(),
            prepared.layout.components.len()
        )));
    }
    let tv = blocks::term_values(&prepared.layout, &values);
    Ok(prepared
        .blocks
        .iter()
        .map(|b| VBlock {
            rows: b.rows.clone(),
            matrix: blocks::block_matrices(&prepared.layout, b, &values, &tv, &[]).0,
        })
        .collect())
}

fn assemble(prepared: &Prepared, run: optimizer::Run, qe: f64, given: &[Option<f64>]) -> MvFit {
    let layout = &prepared.layout;
    let v = &run.values;
    let ns = layout.sigma_groups.len();
    let part = |t: usize, variances: bool| -> Vec<f64> {
        layout.terms.get(t).map_or(Vec::new(), |term| {
            let s = if variances {
                term.first
            } else {
                term.first + term.n_var
            };
            let n = if variances { term.n_var } else { term.n_cor };
            v[s..s + n].to_vec()
        })
    };
    MvFit {
        k: layout.k,
        p: layout.p,
        beta: run.evaluation.beta.clone(),
        vcov: run.evaluation.vcov.clone(),
        sigma2: v[..ns].to_vec(),
        tau2: part(0, true),
        rho: part(0, false),
        gamma2: part(1, true),
        phi: part(1, false),
        sigma2_levels: layout
            .sigma_groups
            .iter()
            .map(|g| g.iter().max().map_or(0, |m| m + 1))
            .collect(),
        inner_levels: layout.terms.iter().map(|t| t.level_names.clone()).collect(),
        outer_levels: layout.terms.iter().map(|t| t.n_outer).collect(),
        loglik: run.evaluation.loglik,
        estimated: run.free.len(),
        gradient_norm: run.gradient_norm,
        iterations: run.iterations,
        boundary: run
            .boundary
            .iter()
            .map(|&(c, value)| format!("{} = {value}", layout.name(c)))
            .collect(),
        qe,
        log_det_v: f64::NAN,
        intervals: Vec::new(),
        fixed: given.iter().map(Option::is_some).collect(),
    }
}

/// The denominator degrees of freedom of each coefficient under metafor's `dfs = "contain"`
/// (rma.mv's `.ddf.calc`): the grouping factors are each `~ 1 | id` term's id (a nested
/// term's levels `a/b` as one factor), and for each `~ inner | outer` term the combination
/// inner + outer and outer alone. A coefficient's column of X is contained in a factor when
/// it takes one value within each of its levels (values compared as R's `factor()` does, as
/// 15-significant-digit text); its df is the smallest number of levels of a factor that
/// contains it (k when none does), less p, and at least 1.
pub fn contain_df(model: &MvModel) -> Vec<f64> {
    let k = model.yi.len();
    let p = model.p;
    let mut factors: Vec<(Vec<usize>, usize)> = Vec::new();
    let mut push = |labels: &[String]| {
        let (c, names) = codes(labels);
        factors.push((c, names.len()));
    };
    for term in &model.intercepts {
        push(&term.levels);
    }
    for term in &model.terms {
        let joined: Vec<String> = term
            .inner
            .iter()
            .zip(&term.outer)
            .map(|(i, o)| format!("{i} + {o}"))
            .collect();
        push(&joined);
        push(&term.outer);
    }
    (0..p)
        .map(|j| {
            let column: Vec<String> = (0..k)
                .map(|i| crate::r_number(model.x[i * p + j]))
                .collect();
            let levels = factors
                .iter()
                .filter(|(codes, n)| {
                    let mut seen: Vec<Option<&str>> = vec![None; *n];
                    codes
                        .iter()
                        .zip(&column)
                        .all(|(&c, v)| *seen[c].get_or_insert(v.as_str()) == v.as_str())
                })
                .map(|(_, n)| *n)
                .min()
                .unwrap_or(k)
                .min(k);
            (levels as f64 - p as f64).max(1.0)
        })
        .collect()
}

/// The random variance one new effect size adds, with the inner levels it is for.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionVariance {
    /// The level (an index into the fit's `inner_levels[0]`) whose τ² is added, when τ² is
    /// one per level.
    pub tau2_level: Option<usize>,
    /// The same for γ² (`inner_levels[1]`).
    pub gamma2_level: Option<usize>,
    /// Σσ² + τ² + γ².
    pub variance: f64,
}

/// The variances of predict.rma.mv's prediction interval of an intercept-only model
/// (pred ± crit √(Var pred + variance)): Σσ², plus τ² and γ² of the `~ inner | outer` terms.
/// A term with one variance per inner level (HCS, UN, HAR, DIAG) gives one interval per
/// level, and two such terms one per pair of levels, τ²'s level varying slowest: what
/// predict() gives without `tau2.levels` and `gamma2.levels`.
pub fn prediction_variances(fit: &MvFit) -> Vec<PredictionVariance> {
    let s: f64 = fit.sigma2.iter().sum();
    let list = |v: &[f64]| -> Vec<(Option<usize>, f64)> {
        match v.len() {
            0 => vec![(None, 0.0)],
            1 => vec![(None, v[0])],
            _ => v.iter().enumerate().map(|(l, x)| (Some(l), *x)).collect(),
        }
    };
    let mut out = Vec::new();
    for (tau2_level, t) in list(&fit.tau2) {
        for (gamma2_level, g) in list(&fit.gamma2) {
            out.push(PredictionVariance {
                tau2_level,
                gamma2_level,
                variance: s + t + g,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Six rows in three districts of two schools: the intercept and a district-level column
    /// are contained in district (3 levels), a school-level one in district/school (6 = k),
    /// so k; every df is less p = 3, and at least 1.
    #[test]
    fn contain_df_takes_the_smallest_factor_holding_the_column_constant() {
        let district = labels(&["a", "a", "b", "b", "c", "c"]);
        let school = labels(&["a/1", "a/2", "b/1", "b/2", "c/1", "c/2"]);
        let by_district = [0.5, 0.5, 1.0, 1.0, 0.0, 0.0];
        let by_school = [1.0, 2.0, 1.0, 2.0, 1.0, 2.0];
        let x: Vec<f64> = (0..6)
            .flat_map(|i| [1.0, by_district[i], by_school[i]])
            .collect();
        let model = MvModel {
            yi: vec![0.0; 6],
            x,
            p: 3,
            sampling: Sampling::Diagonal(vec![1.0; 6]),
            intercepts: vec![
                RandomIntercept {
                    name: "district".into(),
                    levels: district.clone(),
                },
                RandomIntercept {
                    name: "district/school".into(),
                    levels: school,
                },
            ],
            terms: Vec::new(),
        };
        assert_eq!(contain_df(&model), [1.0, 1.0, 3.0]);
        // As an `~ inner | outer` term: outer contains the intercept and the district-level
        // column (3 levels), inner + outer (6) the school-level one.
        let term = InnerOuter {
            inner_name: "school".into(),
            outer_name: "district".into(),
            inner: labels(&["1", "2", "1", "2", "1", "2"]),
            outer: district,
            structure: Struct::Cs,
        };
        let model = MvModel {
            intercepts: Vec::new(),
            terms: vec![term],
            ..model
        };
        assert_eq!(contain_df(&model), [1.0, 1.0, 3.0]);
        // Fewer inner + outer combinations than rows (a1 a1 b1 b2 c2 c2: 4): a column of the
        // inner level is contained there, 4 - p, not k - p.
        let term = InnerOuter {
            inner_name: "arm".into(),
            outer_name: "district".into(),
            inner: labels(&["1", "1", "1", "2", "2", "2"]),
            outer: labels(&["a", "a", "b", "b", "c", "c"]),
            structure: Struct::Cs,
        };
        let model = MvModel {
            x: (0..6)
                .flat_map(|i| [1.0, if i < 3 { 1.0 } else { 2.0 }])
                .collect(),
            p: 2,
            terms: vec![term],
            ..model
        };
        assert_eq!(contain_df(&model), [1.0, 2.0]);
    }

    fn fit_with(sigma2: Vec<f64>, tau2: Vec<f64>, gamma2: Vec<f64>, levels: usize) -> MvFit {
        MvFit {
            k: 4,
            p: 1,
            beta: vec![0.0],
            vcov: vec![1.0],
            sigma2,
            tau2,
            rho: Vec::new(),
            gamma2,
            phi: Vec::new(),
            sigma2_levels: Vec::new(),
            inner_levels: vec![Vec::new(); levels],
            outer_levels: Vec::new(),
            loglik: 0.0,
            estimated: 0,
            gradient_norm: 0.0,
            iterations: 0,
            boundary: Vec::new(),
            qe: 0.0,
            log_det_v: 0.0,
            intervals: Vec::new(),
            fixed: Vec::new(),
        }
    }

    /// One variance sum, or one per level of a heteroscedastic term (τ²'s level slowest).
    #[test]
    fn prediction_variances_follow_predict_rma_mv() {
        let one = prediction_variances(&fit_with(vec![0.1, 0.2], vec![0.3], vec![0.4], 2));
        assert_eq!(one.len(), 1);
        assert!((one[0].variance - 1.0).abs() < 1e-15);
        let per = prediction_variances(&fit_with(vec![0.1], vec![0.2, 0.3], vec![0.5, 0.7], 2));
        let got: Vec<(Option<usize>, Option<usize>)> =
            per.iter().map(|v| (v.tau2_level, v.gamma2_level)).collect();
        assert_eq!(
            got,
            [
                (Some(0), Some(0)),
                (Some(0), Some(1)),
                (Some(1), Some(0)),
                (Some(1), Some(1))
            ]
        );
        assert!((per[3].variance - (0.1 + 0.3 + 0.7)).abs() < 1e-15);
    }
}
