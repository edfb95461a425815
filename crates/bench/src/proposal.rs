//! A measured proposal, not engine code: the REML τ² solve for the
//! intercept-only model with no allocation per iteration.
//!
//! With p = 1 every quantity of the REML score is a weighted sum, so one
//! evaluation is two passes over (yᵢ, vᵢ) (the first for μ̂ = Σwy/Σw, the
//! second for the residual sums), against about fifteen passes and eight
//! k-length allocations in `weighted::Wls` today. The bench times this beside
//! the engine so the gain of the fix proposed in docs/PERFORMANCE.md is a
//! measurement, not a guess.

use meta_analysis::solver::newton_bracketed;

/// The REML score U(τ²) = ½[y'PPy − tr P] and its derivative ½[tr PP − 2 y'PPPy]
/// (Viechtbauer 2005), for X = 1, from power sums of wᵢ = 1/(vᵢ + τ²):
/// tr P = Σw − Σw²/Σw, tr PP = Σw² − 2Σw³/Σw + (Σw²/Σw)²,
/// y'PPy = Σw²r², y'PPPy = Σw³r² − (Σw²r)²/Σw, with r = y − μ̂.
pub fn reml_score(y: &[f64], v: &[f64], tau2: f64) -> (f64, f64) {
    let (mut sw, mut swy, mut sw2, mut sw3) = (0.0, 0.0, 0.0, 0.0);
    for (yi, vi) in y.iter().zip(v) {
        let w = 1.0 / (vi + tau2);
        let w2 = w * w;
        sw += w;
        swy += w * yi;
        sw2 += w2;
        sw3 += w2 * w;
    }
    let mu = swy / sw;
    let (mut sw2r, mut sw2r2, mut sw3r2) = (0.0, 0.0, 0.0);
    for (yi, vi) in y.iter().zip(v) {
        let w = 1.0 / (vi + tau2);
        let r = yi - mu;
        let w2r = w * w * r;
        sw2r += w2r;
        sw2r2 += w2r * r;
        sw3r2 += w2r * r * w;
    }
    let tr_p = sw - sw2 / sw;
    let tr_pp = sw2 - 2.0 * sw3 / sw + (sw2 / sw) * (sw2 / sw);
    let yppp_y = sw3r2 - sw2r * sw2r / sw;
    (0.5 * (sw2r2 - tr_p), 0.5 * (tr_pp - 2.0 * yppp_y))
}

/// τ̂²_REML for X = 1: 0 when U(0) ≤ 0, else the bracketed Newton root with the engine's
/// solver and tolerance, from a bracket [0, 2τ̂²_DL] (doubled until U < 0) so that the
/// first iterate is the DerSimonian–Laird estimate instead of half of Σ(yᵢ − ȳ)².
/// The engine's check of the likelihood at 0 is omitted.
pub fn reml_tau2(y: &[f64], v: &[f64]) -> (f64, usize) {
    if reml_score(y, v, 0.0).0 <= 0.0 {
        return (0.0, 0);
    }
    let mut hi = 2.0 * dersimonian_laird(y, v);
    if hi <= 0.0 {
        let mean = y.iter().sum::<f64>() / y.len() as f64;
        hi = y.iter().map(|yi| (yi - mean).powi(2)).sum::<f64>() / y.len() as f64;
    }
    while reml_score(y, v, hi).0 >= 0.0 && hi.is_finite() {
        hi *= 2.0;
    }
    newton_bracketed(|t| reml_score(y, v, t), 0.0, hi, 1e-12, 500)
        .map_or((f64::NAN, 0), |r| (r.x, r.iterations))
}

/// τ̂²_DL = max(0, (Q − (k − 1)) / (Σw − Σw²/Σw)) with wᵢ = 1/vᵢ, in one pass.
fn dersimonian_laird(y: &[f64], v: &[f64]) -> f64 {
    let (mut sw, mut sw2, mut swy, mut swy2) = (0.0, 0.0, 0.0, 0.0);
    for (yi, vi) in y.iter().zip(v) {
        let w = 1.0 / vi;
        sw += w;
        sw2 += w * w;
        swy += w * yi;
        swy2 += w * yi * yi;
    }
    let q = swy2 - swy * swy / sw;
    ((q - (y.len() - 1) as f64) / (sw - sw2 / sw)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_engine() {
        for records in [exemplar::dataset::records(), crate::generate::records(5000)] {
            let y: Vec<f64> = records.iter().map(|r| r.yi).collect();
            let v: Vec<f64> = records.iter().map(|r| r.vi).collect();
            let engine = meta_analysis::fit(&records, &Default::default())
                .unwrap()
                .tau2;
            let (ours, iterations) = reml_tau2(&y, &v);
            assert!(iterations < 10, "{iterations}");
            assert!(
                (ours - engine).abs() <= 1e-10 * engine,
                "{ours} vs {engine}"
            );
        }
    }
}
