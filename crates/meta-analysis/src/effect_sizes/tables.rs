//! 2×2 tables: `OR`, `RR`, `RD`, `AS`, `PETO`, `PHI`, `YUQ`, `YUY`, `RTET`, `PBIT`, `OR2DN`,
//! `OR2DL`, and the matched pairs' `MPRD`, `MPRR`, `MPOR`, `MPORC`, `MPPETO` (whose cells
//! count pairs: ai both events, bi only the first, ci only the second, di neither).
//!
//! |         | event | no event | size |
//! |---------|-------|----------|------|
//! | group 1 | ai    | bi       | n1i  |
//! | group 2 | ci    | di       | n2i  |

use crate::distributions::{
    bivariate_normal_cdf, bivariate_normal_pdf, normal_cdf, normal_quantile,
};
use crate::math::{asin, exp, ln, pow};
use crate::solver::newton_bracketed;
use std::f64::consts::PI;

use super::{
    finish, weighted_mean, Column, Correction, EffectSize, EffectSizeError, Measure, RawRow, Vtype,
};

/// One row's table, checked: counts ≥ 0, events ≤ group size, group sizes > 0.
pub(super) struct Table {
    cells: [(Column, f64); 4],
}

impl Table {
    pub(super) fn read(row: &RawRow) -> Result<Table, EffectSizeError> {
        let ai = row.required(Column::Ai)?;
        let (bi, n1) = other_cell(row, ai, Column::Bi, Column::N1i, Column::Ai)?;
        let ci = row.required(Column::Ci)?;
        let (di, n2) = other_cell(row, ci, Column::Di, Column::N2i, Column::Ci)?;
        for ((column, value), (events, cell)) in [
            (n1, (Column::Ai, Column::Bi)),
            (n2, (Column::Ci, Column::Di)),
        ] {
            if value > 0.0 {
                continue;
            }
            return Err(if column == cell {
                EffectSizeError::Undefined {
                    column,
                    reason: format!("{events} + {cell} is 0: a group with no one has no risk"),
                }
            } else {
                EffectSizeError::TooSmall {
                    column,
                    value,
                    needed: "more than 0",
                    why: "(a group with no one has no risk)",
                }
            });
        }
        Ok(Table {
            cells: [
                (Column::Ai, ai),
                (Column::Bi, bi),
                (Column::Ci, ci),
                (Column::Di, di),
            ],
        })
    }

    /// The first cell equal to 0.
    fn zero_cell(&self) -> Option<Column> {
        self.cells.iter().find(|(_, v)| *v == 0.0).map(|(c, _)| *c)
    }

    pub(super) fn has_zero(&self) -> bool {
        self.zero_cell().is_some()
    }
}

/// The non-event cell of a group (`bi` or `di`), from the row's value or from its group size
/// (`n1i − ai`), and the group size with the column it is reported under.
fn other_cell(
    row: &RawRow,
    events: f64,
    cell: Column,
    size: Column,
    events_column: Column,
) -> Result<(f64, (Column, f64)), EffectSizeError> {
    let given_cell = row.get(cell);
    let given_size = row.get(size);
    for (column, value) in [
        (events_column, Some(events)),
        (cell, given_cell),
        (size, given_size),
    ] {
        match value {
            Some(v) if !v.is_finite() => {
                return Err(EffectSizeError::NotFinite { column, value: v })
            }
            Some(v) if v < 0.0 => return Err(EffectSizeError::Negative { column, value: v }),
            _ => {}
        }
    }
    match (given_cell, given_size) {
        (Some(c), Some(n)) => {
            if n != events + c {
                return Err(EffectSizeError::Inconsistent {
                    column: size,
                    value: n,
                    sum: events + c,
                    of: (events_column, cell),
                });
            }
            Ok((c, (size, n)))
        }
        (Some(c), None) => Ok((c, (cell, events + c))),
        (None, Some(n)) => {
            if events > n {
                return Err(EffectSizeError::AboveN {
                    column: events_column,
                    value: events,
                    n_column: size,
                    n,
                });
            }
            Ok((n - events, (size, n)))
        }
        (None, None) => Err(EffectSizeError::MissingEither {
            column: cell,
            or: size,
        }),
    }
}

/// Every row's effect size. The correction (`add` to each cell as `to` says; escalc's
/// `addyi` and `addvi` defaults: the corrected counts enter both yi and vi) is escalc's; with
/// `drop00` a table whose groups both have no events, or both only events, gives none.
pub(super) fn compute(
    measure: Measure,
    rows: &[RawRow],
    correction: &Correction,
    vtype: Vtype,
) -> Vec<Result<EffectSize, EffectSizeError>> {
    let tables: Vec<Result<Table, EffectSizeError>> = rows
        .iter()
        .map(|row| {
            let table = Table::read(row)?;
            let [a, b, c, d] = table.cells.map(|(_, v)| v);
            if correction.drop00 && ((a == 0.0 && c == 0.0) || (b == 0.0 && d == 0.0)) {
                let (x, y) = if a == 0.0 && c == 0.0 {
                    (Column::Ai, Column::Ci)
                } else {
                    (Column::Bi, Column::Di)
                };
                return Err(EffectSizeError::Undefined {
                    column: x,
                    reason: format!(
                        "{x} and {y} are both 0 and drop00 is set, so the table is left out"
                    ),
                });
            }
            Ok(table)
        })
        .collect();
    let any_zero = tables.iter().any(|t| t.as_ref().is_ok_and(Table::has_zero));
    let cells: Vec<Result<(Table, [f64; 4]), EffectSizeError>> = tables
        .into_iter()
        .map(|table| {
            let table = table?;
            let add = correction.add_for(table.has_zero(), any_zero);
            let cells = table.cells.map(|(_, v)| v + add);
            Ok((table, cells))
        })
        .collect();
    // vtype "AV" of RD: the sample-size-weighted mean risk of each group.
    let risks = |group: usize| {
        weighted_mean(cells.iter().filter_map(|c| c.as_ref().ok()).map(|(_, c)| {
            let n = c[2 * group] + c[2 * group + 1];
            (c[2 * group] / n, n)
        }))
    };
    let average = (measure == Measure::Rd && vtype == Vtype::Av).then(|| (risks(0), risks(1)));
    cells
        .into_iter()
        .map(|outcome| {
            let (table, cells) = outcome?;
            let (yi, vi) = formula(measure, cells, vtype, average);
            let still_zero = table
                .cells
                .iter()
                .zip(cells)
                .find(|(_, corrected)| *corrected == 0.0)
                .map(|((column, _), _)| *column);
            if let Some(column) =
                // vi = 0 (both risks 0 or 1, say) is escalc's answer too: returned.
                still_zero.filter(|_| !(yi.is_finite() && vi.is_finite() && vi >= 0.0))
            {
                return Err(EffectSizeError::Undefined {
                    column,
                    reason: format!(
                        "{column} is 0 and no continuity correction applies (add = {}, to = \"{}\"), so the {} is undefined",
                        correction.add,
                        correction.to.name(),
                        measure.title()
                    ),
                });
            }
            finish(yi, vi, table.zero_cell().unwrap_or(Column::Ai), measure.title())
        })
        .collect()
}

/// yi and vi of one corrected table [ai, bi, ci, di], with n1i = ai + bi, n2i = ci + di,
/// ni = n1i + n2i, p1i = ai/n1i, p2i = ci/n2i (metafor 3.8-1's escalc, in its order of
/// operations):
/// - `OR`: ln(p1i/(1 − p1i)) − ln(p2i/(1 − p2i)), vi = 1/ai + 1/bi + 1/ci + 1/di;
/// - `RR`: ln p1i − ln p2i, vi = 1/ai − 1/n1i + 1/ci − 1/n2i;
/// - `RD`: p1i − p2i, vi = p1i(1 − p1i)/n1i + p2i(1 − p2i)/n2i ("LS"; "UB": /(n − 1); "AV":
///   the weighted mean risks in place of p1i, p2i);
/// - `AS`: asin √p1i − asin √p2i, vi = 1/(4n1i) + 1/(4n2i);
/// - `PETO`: with Ei = (ai + ci)·n1i/ni and Vi = (ai + ci)(bi + di)(n1i/ni)(n2i/ni)/(ni − 1),
///   yi = (ai − Ei)/Vi, vi = 1/Vi (Yusuf et al. 1985);
/// - `PHI`: (ai·di − bi·ci)/√(n1i·n2i·(ai + ci)(bi + di)), vi by Yule's large-sample formula
///   ("LS", "CS") or under stratified sampling ("ST");
/// - `YUQ`: Q = (OR − 1)/(OR + 1), vi = ¼(1 − Q²)²·Σ1/cell; `YUY`: Y = (√OR − 1)/(√OR + 1),
///   vi = (1/16)(1 − Y²)²·Σ1/cell;
/// - `RTET`: the tetrachoric correlation by maximum likelihood ([`tetrachoric`]);
/// - `PBIT`: Φ⁻¹(p1i) − Φ⁻¹(p2i), vi = 2π·p1i(1 − p1i)·e^{z1i²}/n1i + the same for group 2;
/// - `OR2DL`: √3/π times the log odds ratio (vi: 3/π² times); `OR2DN`: divided by 1.65
///   (vi: by 1.65²);
/// - matched pairs, with π12 = bi/ni, π21 = ci/ni, π1· = (ai + bi)/ni, π·1 = (ai + ci)/ni:
///   `MPRD` π1· − π·1, vi = (π12(1 − π12) + 2π12π21 + π21(1 − π21))/ni; `MPRR`
///   ln π1· − ln π·1, vi = (π12 + π21)/(ni·π1·π·1); `MPOR` the log odds ratio of the
///   margins, vi = (π12(1 − π12) + π21(1 − π21) + 2π12π21)/(ni·π1·(1 − π1·)π·1(1 − π·1));
///   `MPORC` ln bi − ln ci, vi = 1/bi + 1/ci; `MPPETO` (bi − Ei)/Vi with Ei = (bi + ci)/2,
///   Vi = (bi + ci)/4, vi = 1/Vi.
fn formula(
    measure: Measure,
    [a, b, c, d]: [f64; 4],
    vtype: Vtype,
    average: Option<(f64, f64)>,
) -> (f64, f64) {
    let (n1, n2) = (a + b, c + d);
    let ni = n1 + n2;
    let (p1, p2) = (a / n1, c / n2);
    let log_or = || ln(p1 / (1.0 - p1)) - ln(p2 / (1.0 - p2));
    let or_var = || 1.0 / a + 1.0 / b + 1.0 / c + 1.0 / d;
    match measure {
        Measure::Or => (log_or(), or_var()),
        Measure::Rr => (ln(p1) - ln(p2), 1.0 / a - 1.0 / n1 + 1.0 / c - 1.0 / n2),
        Measure::Rd => {
            let vi = match (vtype, average) {
                (Vtype::Ub, _) => p1 * (1.0 - p1) / (n1 - 1.0) + p2 * (1.0 - p2) / (n2 - 1.0),
                (Vtype::Av, Some((m1, m2))) => m1 * (1.0 - m1) / n1 + m2 * (1.0 - m2) / n2,
                _ => p1 * (1.0 - p1) / n1 + p2 * (1.0 - p2) / n2,
            };
            (p1 - p2, vi)
        }
        Measure::As => (
            asin(p1.sqrt()) - asin(p2.sqrt()),
            1.0 / (4.0 * n1) + 1.0 / (4.0 * n2),
        ),
        Measure::Peto => {
            let (xt, yt) = (a + c, b + d);
            let ei = xt * n1 / ni;
            let vi = xt * yt * (n1 / ni) * (n2 / ni) / (ni - 1.0);
            ((a - ei) / vi, 1.0 / vi)
        }
        Measure::Phi => phi(a, b, c, d, vtype),
        Measure::Yuq => {
            let or = (a / b) / (c / d);
            let q = (or - 1.0) / (or + 1.0);
            (q, 1.0 / 4.0 * sq(1.0 - q * q) * or_var())
        }
        Measure::Yuy => {
            let or = (a / b) / (c / d);
            let y = (or.sqrt() - 1.0) / (or.sqrt() + 1.0);
            (y, 1.0 / 16.0 * sq(1.0 - y * y) * or_var())
        }
        Measure::Rtet => tetrachoric(a, b, c, d),
        Measure::Pbit => {
            let (z1, z2) = (normal_quantile(p1), normal_quantile(p2));
            (
                z1 - z2,
                2.0 * PI * p1 * (1.0 - p1) * exp(z1 * z1) / n1
                    + 2.0 * PI * p2 * (1.0 - p2) * exp(z2 * z2) / n2,
            )
        }
        Measure::Or2dl => (3f64.sqrt() / PI * log_or(), 3.0 / (PI * PI) * or_var()),
        Measure::Or2dn => (log_or() / 1.65, or_var() / (1.65 * 1.65)),
        Measure::Mprd | Measure::Mprr | Measure::Mpor => {
            let (p12, p21) = (b / ni, c / ni);
            let (p1_, p_1) = ((a + b) / ni, (a + c) / ni);
            match measure {
                Measure::Mprd => (
                    p1_ - p_1,
                    p12 * (1.0 - p12) / ni + 2.0 * p12 * p21 / ni + p21 * (1.0 - p21) / ni,
                ),
                Measure::Mprr => (ln(p1_) - ln(p_1), (p12 + p21) / (ni * p1_ * p_1)),
                _ => (
                    ln(p1_ / (1.0 - p1_)) - ln(p_1 / (1.0 - p_1)),
                    (p12 * (1.0 - p12) + p21 * (1.0 - p21) + 2.0 * p12 * p21)
                        / (ni * p1_ * (1.0 - p1_) * p_1 * (1.0 - p_1)),
                ),
            }
        }
        Measure::Mporc => (ln(b) - ln(c), 1.0 / b + 1.0 / c),
        Measure::Mppeto => {
            let ei = (b + c) / 2.0;
            let vi = (b + c) / 4.0;
            ((b - ei) / vi, 1.0 / vi)
        }
        _ => unreachable!("tables::formula is called for the 2x2 measures only"),
    }
}

/// The tetrachoric correlation of a table with every cell > 0 (NaN otherwise) and its
/// variance: the maximum-likelihood estimate of ρ when the table dichotomizes a standard
/// bivariate normal (X, Y) with correlation ρ at the cuts c (columns: ai + ci fall below) and
/// r (rows: ai + bi fall below), as metafor 3.8-1's `.rtet` defines it (Kirk 1973).
///
/// Three parameters for three free cell probabilities: the likelihood is saturated, so its
/// maximum has the cell probabilities equal to the observed proportions, c = Φ⁻¹((ai + ci)/n),
/// r = Φ⁻¹((ai + bi)/n), and ρ the root of Φ₂(c, r; ρ) = ai/n. vi is the (ρ, ρ) element of the
/// inverse observed information, which at that maximum is n·Σⱼ ∇pⱼ∇pⱼᵀ/pⱼ over the four cells
/// (the second-derivative terms sum to n·∇²Σpⱼ = 0). metafor reaches the same maximum
/// numerically (`optimize`, then Nelder–Mead, and a finite-difference Hessian), so it agrees
/// only to its optimizers' tolerances (docs/METHODS.md).
fn tetrachoric(a: f64, b: f64, c: f64, d: f64) -> (f64, f64) {
    if [a, b, c, d].iter().any(|&v| v <= 0.0) {
        return (f64::NAN, f64::NAN);
    }
    let n = a + b + c + d;
    let cut_col = normal_quantile((a + c) / n);
    let cut_row = normal_quantile((a + b) / n);
    let p_a = a / n;
    let Ok(root) = newton_bracketed(
        |rho| {
            (
                bivariate_normal_cdf(cut_col, cut_row, rho) - p_a,
                bivariate_normal_pdf(cut_col, cut_row, rho),
            )
        },
        -1.0,
        1.0,
        1e-15,
        200,
    ) else {
        return (f64::NAN, f64::NAN);
    };
    let rho = root.x;
    // ∂Φ₂/∂ρ = φ₂; ∂Φ₂/∂c = φ(c)·Φ((r − ρc)/√(1 − ρ²)); ∂Φ₂/∂r likewise.
    let s = ((1.0 - rho) * (1.0 + rho)).sqrt();
    let (phi_c, phi_r) = (normal_density(cut_col), normal_density(cut_row));
    let f_rho = bivariate_normal_pdf(cut_col, cut_row, rho);
    let f_c = phi_c * normal_cdf((cut_row - rho * cut_col) / s);
    let f_r = phi_r * normal_cdf((cut_col - rho * cut_row) / s);
    // Gradients of the cells' probabilities in (ρ, c, r): ai = Φ₂, bi = Φ(r) − Φ₂,
    // ci = Φ(c) − Φ₂, di = 1 − Φ(c) − Φ(r) + Φ₂.
    let cells = [
        (a, [f_rho, f_c, f_r]),
        (b, [-f_rho, -f_c, phi_r - f_r]),
        (c, [-f_rho, phi_c - f_c, -f_r]),
        (d, [f_rho, f_c - phi_c, f_r - phi_r]),
    ];
    let mut info = [[0.0; 3]; 3];
    for (count, grad) in cells {
        let p = count / n;
        for i in 0..3 {
            for j in 0..3 {
                info[i][j] += n * grad[i] * grad[j] / p;
            }
        }
    }
    let det = info[0][0] * (info[1][1] * info[2][2] - info[1][2] * info[2][1])
        - info[0][1] * (info[1][0] * info[2][2] - info[1][2] * info[2][0])
        + info[0][2] * (info[1][0] * info[2][1] - info[1][1] * info[2][0]);
    let vi = (info[1][1] * info[2][2] - info[1][2] * info[2][1]) / det;
    (rho, vi)
}

fn normal_density(x: f64) -> f64 {
    exp(-0.5 * x * x) / (2.0 * PI).sqrt()
}

fn sq(x: f64) -> f64 {
    x * x
}

/// The phi coefficient and its variance: "LS" and "CS" Yule's large-sample formula (Bishop,
/// Fienberg & Holland 1975), "ST" under stratified sampling (fixed group sizes).
fn phi(a: f64, b: f64, c: f64, d: f64, vtype: Vtype) -> (f64, f64) {
    let (n1, n2) = (a + b, c + d);
    let ni = n1 + n2;
    let yi = (a * d - b * c) / ((a + b) * (c + d) * (a + c) * (b + d)).sqrt();
    let (p1, p2) = (a / n1, c / n2);
    let (q1, q2) = (1.0 - p1, 1.0 - p2);
    let vi = if vtype == Vtype::St {
        (sq(n1 + n2)
            * (4.0 * pow(n1, 3.0) * sq(p1) * p2 * sq(q1) * q2
                + 4.0 * pow(n2, 3.0) * p1 * sq(p2) * q1 * sq(q2)
                + n1 * sq(n2) * p2 * q2 * (p2 * q1 + p1 * q2) * (p2 * q1 + p1 * (4.0 * q1 + q2))
                + sq(n1) * n2 * p1 * q1 * (p2 * q1 + p1 * q2) * (p1 * q2 + p2 * (q1 + 4.0 * q2))))
            / (4.0 * pow(a + c, 3.0) * pow(b + d, 3.0))
    } else {
        let (r1, r2) = ((a + b) / ni, (c + d) / ni);
        let (c1, c2) = ((a + c) / ni, (b + d) / ni);
        1.0 / ni
            * (1.0 - yi * yi
                + yi * (1.0 + 1.0 / 2.0 * yi * yi) * (r1 - r2) * (c1 - c2)
                    / (r1 * r2 * c1 * c2).sqrt()
                - 3.0 / 4.0 * (yi * yi) * (sq(r1 - r2) / (r1 * r2) + sq(c1 - c2) / (c1 * c2)))
    };
    (yi, vi)
}
