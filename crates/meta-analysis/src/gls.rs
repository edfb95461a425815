//! A fitted linear model with inverse-variance weights, as the cluster-robust variance
//! (`robust.rs`) reads it. The models that hand it over (the three-level model's
//! `robust_input`) build it here, below both, so that a model does not depend on the robust
//! tests that read it.

/// The marginal covariance of a fitted model, record by record.
#[derive(Debug, Clone)]
pub(crate) enum Covariance {
    /// vᵢ + τ̂² on the diagonal.
    Diagonal(Vec<f64>),
    /// σ̂₁² between records of one study, plus vᵢ + σ̂₂² on the diagonal.
    Multilevel {
        v: Vec<f64>,
        study: Vec<usize>,
        sigma2: [f64; 2],
    },
    /// A general model's M (rma.mv): dense blocks, record i at `position[i]` of the block
    /// `block[i]`, each block n × n row-major; zero between blocks.
    Blocks {
        block: Vec<usize>,
        position: Vec<usize>,
        matrices: Vec<(usize, Vec<f64>)>,
    },
}

impl Covariance {
    /// Φᵢᵢ, record i's marginal variance.
    pub(crate) fn variance(&self, i: usize) -> f64 {
        match self {
            Covariance::Diagonal(d) => d[i],
            Covariance::Multilevel { v, sigma2, .. } => v[i] + sigma2[0] + sigma2[1],
            Covariance::Blocks { .. } => self.entry(i, i),
        }
    }

    /// Φᵢⱼ of a general model's blocks (0 for the other kinds off the diagonal).
    pub(crate) fn entry(&self, i: usize, j: usize) -> f64 {
        match self {
            Covariance::Blocks {
                block,
                position,
                matrices,
            } => {
                if block[i] != block[j] {
                    return 0.0;
                }
                let (n, m) = &matrices[block[i]];
                m[position[i] * n + position[j]]
            }
            _ if i == j => self.variance(i),
            _ => 0.0,
        }
    }
}

/// A fitted linear model with inverse-variance weights, as the robust variance needs it.
#[derive(Debug, Clone)]
pub(crate) struct GlsModel {
    pub names: Vec<String>,
    pub beta: Vec<f64>,
    /// M = (X′WX)⁻¹.
    pub vb: Vec<Vec<f64>>,
    /// Uncentred rows, p per record.
    pub x: Vec<f64>,
    pub residuals: Vec<f64>,
    pub covariance: Covariance,
}
