//! Deterministic synthetic records for the large-k figures.
//!
//! vᵢ ~ U[0.01, 0.2] and yᵢ ~ N(0.1, vᵢ + 0.05) (so τ² = 0.05), from a
//! xorshift64* stream: the same records on every machine and every run.

use meta_analysis::Record;
use serde_json::{Map, Value};

/// Marsaglia's xorshift64* (Vigna 2016): small, fast, and good enough for test data.
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> Self {
        XorShift(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform on [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal by Box–Muller (one of the pair; the bench does not need speed here).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]: ln is finite
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

/// `k` records with ids `r0000000`, `r0000001`, … (8 bytes each up to k = 10⁷).
pub fn records(k: usize) -> Vec<Record> {
    let (yi, vi) = columns(k);
    (0..k)
        .map(|i| Record::new(format!("r{i:07}"), yi[i], vi[i]))
        .collect()
}

/// The same data as [`records`] as two arrays: vᵢ ~ U(0.01, 0.2), yᵢ ~ N(0.1, vᵢ + 0.05).
pub fn columns(k: usize) -> (Vec<f64>, Vec<f64>) {
    let mut rng = XorShift::new(0x5EED_0000_0000_0000 ^ k as u64);
    let (mut yi, mut vi) = (Vec::with_capacity(k), Vec::with_capacity(k));
    for _ in 0..k {
        let v = 0.01 + 0.19 * rng.uniform();
        yi.push(0.1 + (v + 0.05).sqrt() * rng.normal());
        vi.push(v);
    }
    (yi, vi)
}

/// The moderators of [`moderated`]: x₁, x₂ ~ U(0, 1), x₃ ~ N(0, 1), x₄ ∈ {0, 1}.
pub const MODERATORS: [&str; 4] = ["x1", "x2", "x3", "x4"];

/// Data for a meta-regression on four moderators ([`MODERATORS`]):
/// vᵢ ~ U(0.01, 0.2), yᵢ ~ N(0.1 + 0.3x₁ − 0.2x₂ + 0.05x₃ + 0.1x₄, vᵢ + 0.05).
pub fn moderated(k: usize) -> (Vec<f64>, Vec<f64>, Vec<Vec<f64>>) {
    let mut rng = XorShift::new(0x0DE2_A7E5_0000_0000 ^ k as u64);
    let (mut yi, mut vi) = (Vec::with_capacity(k), Vec::with_capacity(k));
    let mut x: Vec<Vec<f64>> = (0..4).map(|_| Vec::with_capacity(k)).collect();
    for _ in 0..k {
        let v = 0.01 + 0.19 * rng.uniform();
        let row = [
            rng.uniform(),
            rng.uniform(),
            rng.normal(),
            if rng.uniform() < 0.5 { 0.0 } else { 1.0 },
        ];
        let mean = 0.1 + 0.3 * row[0] - 0.2 * row[1] + 0.05 * row[2] + 0.1 * row[3];
        yi.push(mean + (v + 0.05).sqrt() * rng.normal());
        vi.push(v);
        for (column, value) in x.iter_mut().zip(row) {
            column.push(value);
        }
    }
    (yi, vi, x)
}

/// [`moderated`] as `yi,vi,x1,x2,x3,x4` CSV text.
pub fn moderated_csv(k: usize) -> String {
    let (yi, vi, x) = moderated(k);
    let mut columns = vec!["yi".to_string(), "vi".to_string()];
    columns.extend(MODERATORS.iter().map(|m| m.to_string()));
    let rows: Vec<Map<String, Value>> = (0..k)
        .map(|i| {
            let values = [yi[i], vi[i], x[0][i], x[1][i], x[2][i], x[3][i]];
            columns
                .iter()
                .cloned()
                .zip(values.map(Value::from))
                .collect()
        })
        .collect();
    exemplar::csv_table::write(&columns, &rows)
}

/// `id,yi,vi` CSV text, written by the project's one CSV writer; shortest round-trip
/// formatting keeps every value exact.
pub fn csv(records: &[Record]) -> String {
    let columns = ["id", "yi", "vi"].map(String::from);
    let rows: Vec<Map<String, Value>> = records
        .iter()
        .map(|r| {
            columns
                .iter()
                .cloned()
                .zip([Value::from(r.id.clone()), r.yi.into(), r.vi.into()])
                .collect()
        })
        .collect();
    exemplar::csv_table::write(&columns, &rows)
}

/// `m` studies of `n` effect sizes: yᵢⱼ = 0.2 + 0.1·xᵢⱼ + uⱼ + wᵢⱼ + εᵢⱼ with σ₁ = 0.2,
/// σ₂ = 0.1 and vᵢⱼ uniform on [0.01, 0.1] (deterministic: splitmix64, normals as the sum of
/// 12 uniforms minus 6).
pub struct Nested {
    pub records: Vec<Record>,
    pub study: Vec<String>,
    pub x: Vec<f64>,
}

pub fn nested(m: usize, n: usize) -> Nested {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut uniform = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    };
    let normal = |u: &mut dyn FnMut() -> f64| (0..12).map(|_| u()).sum::<f64>() - 6.0;
    let (mut records, mut study, mut x) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..m {
        let u = 0.2 * normal(&mut uniform);
        for i in 0..n {
            let xi = uniform();
            let vi = 0.01 + 0.09 * uniform();
            let yi =
                0.2 + 0.1 * xi + u + 0.1 * normal(&mut uniform) + vi.sqrt() * normal(&mut uniform);
            records.push(Record::new(format!("s{j}e{i}"), yi, vi));
            study.push(format!("s{j}"));
            x.push(xi);
        }
    }
    Nested { records, study, x }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csv_texts_read_back_exactly() {
        let records = records(50);
        let table = exemplar::csv_table::parse(&csv(&records)).unwrap();
        assert_eq!(table.header, ["id", "yi", "vi"]);
        for (row, r) in table.rows.iter().zip(&records) {
            assert_eq!(row.fields[0], r.id);
            assert_eq!(row.fields[1].parse::<f64>().unwrap(), r.yi);
            assert_eq!(row.fields[2].parse::<f64>().unwrap(), r.vi);
        }
        let (yi, _, x) = moderated(20);
        let table = exemplar::csv_table::parse(&moderated_csv(20)).unwrap();
        assert_eq!(table.header, ["yi", "vi", "x1", "x2", "x3", "x4"]);
        assert_eq!(table.rows[19].fields[0].parse::<f64>().unwrap(), yi[19]);
        assert_eq!(table.rows[19].fields[5].parse::<f64>().unwrap(), x[3][19]);
    }

    #[test]
    fn deterministic_and_in_range() {
        let a = records(1000);
        assert_eq!(a, records(1000));
        assert!(a.iter().all(|r| (0.01..0.2).contains(&r.vi)));
        let mean = a.iter().map(|r| r.yi).sum::<f64>() / 1000.0;
        assert!((mean - 0.1).abs() < 0.05, "{mean}");
        let (yi, vi) = columns(1000);
        assert!(a
            .iter()
            .zip(yi.iter().zip(&vi))
            .all(|(r, (y, v))| r.yi == *y && r.vi == *v));
    }

    #[test]
    fn a_meta_regression_recovers_the_generating_coefficients() {
        let (yi, vi, x) = moderated(20_000);
        let mods: Vec<meta_analysis::Moderator> = MODERATORS
            .iter()
            .zip(x)
            .map(|(name, column)| meta_analysis::Moderator::numeric(*name, column))
            .collect();
        let m =
            meta_analysis::meta_regression_columns(&yi, &vi, &mods, &Default::default()).unwrap();
        let b: Vec<f64> = m.coefficients.iter().map(|c| c.estimate).collect();
        for (got, want) in b.iter().zip([0.1, 0.3, -0.2, 0.05, 0.1]) {
            assert!((got - want).abs() < 0.03, "{b:?}");
        }
        assert!((m.tau2 - 0.05).abs() < 0.006, "{}", m.tau2);
    }

    #[test]
    fn reml_recovers_the_generating_tau2() {
        let fit = meta_analysis::fit(&records(20_000), &Default::default()).unwrap();
        assert!((fit.tau2 - 0.05).abs() < 0.005, "{}", fit.tau2);
        assert!((fit.estimate - 0.1).abs() < 0.01, "{}", fit.estimate);
    }
}
