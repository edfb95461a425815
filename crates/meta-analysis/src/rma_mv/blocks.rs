//! Per-cluster block algebra of the marginal covariance M = V + Σ_j σ_j² Z_j Z_j′ + the
//! `~ inner | outer` terms. Rows are grouped into clusters (the connected components of
//! "shares a V block, a level of a `~ 1 | id` term or an outer level"), so M is block
//! diagonal and every quantity of the likelihood is a sum over blocks. Crossed terms join
//! clusters; their block is then dense (bounded by [`MAX_BLOCK`]).

use super::structure::{g_values, Shape};
use super::{Component, Layout, Sampling, TermLayout};
use crate::math::ln;

/// The largest cluster (rows) this engine factorizes densely: crossed terms that join the
/// data into one block beyond it are refused.
pub const MAX_BLOCK: usize = 1500;

/// One cluster: its rows and, per row, the level codes of each term.
pub(crate) struct Block {
    pub rows: Vec<usize>,
    /// The sampling covariance of these rows (n × n, row-major).
    pub v: Vec<f64>,
    /// Per `~ 1 | id` term, each row's level numbered within the block, and how many.
    pub levels: Vec<(Vec<usize>, usize)>,
}

/// Clusters of the rows (union–find over every grouping), each with its V block.
pub(super) fn clusters(layout: &Layout, sampling: &Sampling) -> Vec<Block> {
    let k = layout.k;
    let mut parent: Vec<usize> = (0..k).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let join_by = |codes: &[usize], parent: &mut Vec<usize>| {
        let mut first: std::collections::HashMap<usize, usize> = Default::default();
        for (i, &c) in codes.iter().enumerate() {
            match first.get(&c) {
                Some(&f) => {
                    let (a, b) = (find(parent, i), find(parent, f));
                    parent[a] = b;
                }
                None => {
                    first.insert(c, i);
                }
            }
        }
    };
    for codes in &layout.sigma_groups {
        join_by(codes, &mut parent);
    }
    for t in &layout.terms {
        join_by(&t.outer, &mut parent);
    }
    if let Sampling::Blocks(blocks) = sampling {
        for b in blocks {
            for w in b.rows.windows(2) {
                let (x, y) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
                parent[x] = y;
            }
        }
    }
    let mut index: std::collections::HashMap<usize, usize> = Default::default();
    let mut out: Vec<Block> = Vec::new();
    let mut position = vec![0usize; k];
    for (i, slot) in position.iter_mut().enumerate() {
        let r = find(&mut parent, i);
        let b = *index.entry(r).or_insert_with(|| {
            out.push(Block {
                rows: Vec::new(),
                v: Vec::new(),
                levels: Vec::new(),
            });
            out.len() - 1
        });
        *slot = out[b].rows.len();
        out[b].rows.push(i);
    }
    let block_of: Vec<usize> = (0..k).map(|i| index[&find(&mut parent, i)]).collect();
    for b in &mut out {
        let n = b.rows.len();
        b.v = vec![0.0; n * n];
        b.levels = layout
            .sigma_groups
            .iter()
            .map(|codes| {
                let mut local: std::collections::HashMap<usize, usize> = Default::default();
                let ids = b
                    .rows
                    .iter()
                    .map(|&r| {
                        let next = local.len();
                        *local.entry(codes[r]).or_insert(next)
                    })
                    .collect();
                (ids, local.len())
            })
            .collect();
    }
    match sampling {
        Sampling::Diagonal(vi) => {
            for (i, &v) in vi.iter().enumerate() {
                let b = &mut out[block_of[i]];
                let n = b.rows.len();
                let p = position[i];
                b.v[p * n + p] = v;
            }
        }
        Sampling::Blocks(blocks) => {
            for vb in blocks {
                let m = vb.rows.len();
                for (a, &ra) in vb.rows.iter().enumerate() {
                    for (c, &rc) in vb.rows.iter().enumerate() {
                        let b = &mut out[block_of[ra]];
                        let n = b.rows.len();
                        b.v[position[ra] * n + position[rc]] = vb.matrix[a * m + c];
                    }
                }
            }
        }
    }
    out
}

/// Each component's ∂M/∂θ pattern on one block is assembled from these per-term values.
pub(super) struct TermValues {
    /// G of each `~ inner | outer` term (J × J) and its ∂G/∂θ in the term's order.
    pub g: Vec<Vec<f64>>,
    pub dg: Vec<Vec<Vec<f64>>>,
}

impl TermLayout {
    /// The term's covariance of rows `ra` and `rb` (of one outer level) from a J × J matrix
    /// over its levels: G[inner_a, inner_b], or z_a′ G z_b for GEN.
    fn entry(&self, g: &[f64], ra: usize, rb: usize) -> f64 {
        let j = self.levels;
        if self.z.is_empty() {
            return g[self.inner[ra] * j + self.inner[rb]];
        }
        let (za, zb) = (&self.z[ra * j..(ra + 1) * j], &self.z[rb * j..(rb + 1) * j]);
        (0..j)
            .map(|u| za[u] * (0..j).map(|v| g[u * j + v] * zb[v]).sum::<f64>())
            .sum()
    }
}

fn shape(t: &TermLayout) -> Shape<'_> {
    Shape {
        s: t.structure,
        j: t.levels,
        times: &t.times,
    }
}

fn term_parts<'a>(t: &TermLayout, values: &'a [f64]) -> (&'a [f64], &'a [f64]) {
    (
        &values[t.first..t.first + t.n_var],
        &values[t.first + t.n_var..t.first + t.n_var + t.n_cor],
    )
}

pub(super) fn term_values(layout: &Layout, values: &[f64]) -> TermValues {
    let mut g = Vec::new();
    let mut dg = Vec::new();
    for t in &layout.terms {
        let (tau2, rho) = term_parts(t, values);
        let v = g_values(shape(t), tau2, rho, true, false);
        g.push(v.g);
        dg.push(v.d1);
    }
    TermValues { g, dg }
}

/// ∂²G/∂θ_a∂θ_b of each term (the term's np × np matrices of J × J, row-major).
pub(super) fn term_second(layout: &Layout, values: &[f64]) -> Vec<Vec<Vec<f64>>> {
    layout
        .terms
        .iter()
        .map(|t| {
            let (tau2, rho) = term_parts(t, values);
            g_values(shape(t), tau2, rho, false, true).d2
        })
        .collect()
}

/// The nonzero second derivatives ∂²M/∂θ_a∂θ_b on a block, a ≤ b positions in `free`:
/// σ_j² = e^θ gives ∂²M/∂θ² = ∂M/∂θ = σ_j² Z_j Z_j′; a term's pairs are its ∂²G entries
/// placed as G is; components of different terms do not interact.
pub(super) fn block_second(
    layout: &Layout,
    block: &Block,
    values: &[f64],
    d2g: &[Vec<Vec<f64>>],
    free: &[usize],
) -> Vec<(usize, usize, Vec<f64>)> {
    let n = block.rows.len();
    let mut out = Vec::new();
    for (fa, &ca) in free.iter().enumerate() {
        for (fb, &cb) in free.iter().enumerate().skip(fa) {
            let mut d = vec![0.0; n * n];
            let mut any = false;
            match (layout.components[ca], layout.components[cb]) {
                (Component::Sigma2(j), Component::Sigma2(l)) if j == l => {
                    let codes = &layout.sigma_groups[j];
                    for (a, &ra) in block.rows.iter().enumerate() {
                        for (b, &rb) in block.rows.iter().enumerate() {
                            if codes[ra] == codes[rb] {
                                d[a * n + b] = values[ca];
                                any = true;
                            }
                        }
                    }
                }
                (
                    Component::Term { term, offset: oa },
                    Component::Term {
                        term: tb,
                        offset: ob,
                    },
                ) if term == tb => {
                    let t = &layout.terms[term];
                    let np = t.n_var + t.n_cor;
                    let m = &d2g[term][oa * np + ob];
                    if m.iter().any(|x| *x != 0.0) {
                        for (a, &ra) in block.rows.iter().enumerate() {
                            for (b, &rb) in block.rows.iter().enumerate() {
                                if t.outer[ra] == t.outer[rb] {
                                    d[a * n + b] = t.entry(m, ra, rb);
                                    any = true;
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
            if any {
                out.push((fa, fb, d));
            }
        }
    }
    out
}

/// ∂M/∂θ_c on a block: dense, and for a `~ 1 | id` term also as σ² Σ_g 1_g 1_g′ over the
/// block's levels g, whose products take O(n) a column instead of O(n²).
pub(super) struct DMatrix {
    pub dense: Vec<f64>,
    /// σ², each row's level within the block and the number of levels.
    groups: Option<(f64, Vec<usize>, usize)>,
}

impl DMatrix {
    /// D X for X (n × c, row-major).
    pub(super) fn times(&self, x: &[f64], n: usize, c: usize) -> Vec<f64> {
        let Some((value, ids, count)) = &self.groups else {
            return mul(&self.dense, x, n, n, c);
        };
        let mut sums = vec![0.0; count * c];
        for (r, &g) in ids.iter().enumerate() {
            for j in 0..c {
                sums[g * c + j] += x[r * c + j];
            }
        }
        let mut out = vec![0.0; n * c];
        for (r, &g) in ids.iter().enumerate() {
            for j in 0..c {
                out[r * c + j] = value * sums[g * c + j];
            }
        }
        out
    }
}

/// M on a block, and ∂M/∂θ_c for each component `c` in `free`.
pub(super) fn block_matrices(
    layout: &Layout,
    block: &Block,
    values: &[f64],
    tv: &TermValues,
    free: &[usize],
) -> (Vec<f64>, Vec<DMatrix>) {
    let n = block.rows.len();
    let mut m = block.v.clone();
    let mut d = vec![vec![0.0; n * n]; free.len()];
    for (a, &ra) in block.rows.iter().enumerate() {
        for (b, &rb) in block.rows.iter().enumerate() {
            let e = a * n + b;
            for (j, codes) in layout.sigma_groups.iter().enumerate() {
                if codes[ra] == codes[rb] {
                    m[e] += values[j];
                }
            }
            for (t, term) in layout.terms.iter().enumerate() {
                if term.outer[ra] == term.outer[rb] {
                    m[e] += term.entry(&tv.g[t], ra, rb);
                }
            }
            for (f, &c) in free.iter().enumerate() {
                d[f][e] = match layout.components[c] {
                    Component::Sigma2(j) => {
                        if layout.sigma_groups[j][ra] == layout.sigma_groups[j][rb] {
                            values[c]
                        } else {
                            0.0
                        }
                    }
                    Component::Term { term, offset } => {
                        let tt = &layout.terms[term];
                        if tt.outer[ra] == tt.outer[rb] {
                            tt.entry(&tv.dg[term][offset], ra, rb)
                        } else {
                            0.0
                        }
                    }
                };
            }
        }
    }
    let d = d
        .into_iter()
        .zip(free)
        .map(|(dense, &c)| DMatrix {
            dense,
            groups: match layout.components[c] {
                Component::Sigma2(j) => {
                    let (ids, count) = &block.levels[j];
                    Some((values[c], ids.clone(), *count))
                }
                Component::Term { .. } => None,
            },
        })
        .collect();
    (m, d)
}

/// The lower Cholesky factor of a symmetric n × n matrix (row-major), or None when it is
/// not positive definite.
pub(super) fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i * n + j];
            for q in 0..j {
                s -= l[i * n + q] * l[j * n + q];
            }
            if i == j {
                if s.is_nan() || s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// log det of the matrix whose Cholesky factor is `l`.
pub(super) fn log_det(l: &[f64], n: usize) -> f64 {
    (0..n).map(|i| 2.0 * ln(l[i * n + i])).sum()
}

/// The inverse of the matrix whose Cholesky factor is `l`: L⁻¹ by forward substitution,
/// then A⁻¹ = L⁻ᵀL⁻¹ (symmetric, its lower triangle computed and mirrored).
pub(super) fn inverse(l: &[f64], n: usize) -> Vec<f64> {
    let mut li = vec![0.0; n * n];
    for j in 0..n {
        li[j * n + j] = 1.0 / l[j * n + j];
        for i in j + 1..n {
            let s: f64 = (j..i).map(|q| l[i * n + q] * li[q * n + j]).sum();
            li[i * n + j] = -s / l[i * n + i];
        }
    }
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (i..n).map(|q| li[q * n + i] * li[q * n + j]).sum();
            inv[i * n + j] = s;
            inv[j * n + i] = s;
        }
    }
    inv
}

/// x ← A⁻¹ x for A = L L′.
pub(super) fn solve_in_place(l: &[f64], n: usize, x: &mut [f64]) {
    forward_in_place(l, n, x);
    backward_in_place(l, n, x);
}

/// x ← L⁻¹ x for lower triangular L.
pub(super) fn forward_in_place(l: &[f64], n: usize, x: &mut [f64]) {
    for i in 0..n {
        let s: f64 = (0..i).map(|q| l[i * n + q] * x[q]).sum();
        x[i] = (x[i] - s) / l[i * n + i];
    }
}

/// x ← L⁻ᵀ x for lower triangular L.
pub(super) fn backward_in_place(l: &[f64], n: usize, x: &mut [f64]) {
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|q| l[q * n + i] * x[q]).sum();
        x[i] = (x[i] - s) / l[i * n + i];
    }
}

/// A B for A (r × m) and B (m × c), row-major.
pub(super) fn mul(a: &[f64], b: &[f64], r: usize, m: usize, c: usize) -> Vec<f64> {
    let mut out = vec![0.0; r * c];
    for i in 0..r {
        for q in 0..m {
            let x = a[i * m + q];
            if x != 0.0 {
                for j in 0..c {
                    out[i * c + j] += x * b[q * c + j];
                }
            }
        }
    }
    out
}

/// A′ B for A (m × r) and B (m × c).
pub(super) fn tmul(a: &[f64], b: &[f64], m: usize, r: usize, c: usize) -> Vec<f64> {
    let mut out = vec![0.0; r * c];
    for q in 0..m {
        for i in 0..r {
            let x = a[q * r + i];
            if x != 0.0 {
                for j in 0..c {
                    out[i * c + j] += x * b[q * c + j];
                }
            }
        }
    }
    out
}
