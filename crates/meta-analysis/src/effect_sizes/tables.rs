//! 2×2 tables: `OR`, `RR` and `RD`.
//!
//! |         | event | no event | size |
//! |---------|-------|----------|------|
//! | group 1 | ai    | bi       | n1i  |
//! | group 2 | ci    | di       | n2i  |

use crate::math::ln;

use super::{
    corrected, finish, Column, EffectSize, EffectSizeError, EscalcOptions, Measure, RawRow,
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

/// With p1i = ai/n1i and p2i = ci/n2i after the correction (escalc's defaults: `add` to
/// every cell of a table with a zero):
/// - `OR`: yi = ln(p1i/(1 − p1i)) − ln(p2i/(1 − p2i)), vi = 1/ai + 1/bi + 1/ci + 1/di;
/// - `RR`: yi = ln p1i − ln p2i, vi = 1/ai − 1/n1i + 1/ci − 1/n2i;
/// - `RD`: yi = p1i − p2i, vi = p1i(1 − p1i)/n1i + p2i(1 − p2i)/n2i (vtype "LS").
///
/// (Fleiss & Berlin 2009; escalc's formulas, with its `addyi` and `addvi` defaults: the
/// corrected counts enter both yi and vi.)
pub(super) fn effect_size(
    measure: Measure,
    table: Table,
    options: &EscalcOptions,
    any_zero: bool,
) -> Result<EffectSize, EffectSizeError> {
    let zero = table.zero_cell();
    let add = if corrected(options.to, zero.is_some(), any_zero) {
        options.add
    } else {
        0.0
    };
    let [a, b, c, d] = table.cells.map(|(_, v)| v + add);
    let (n1, n2) = (a + b, c + d);
    let (p1, p2) = (a / n1, c / n2);
    let (yi, vi) = match measure {
        Measure::Or => (
            ln(p1 / (1.0 - p1)) - ln(p2 / (1.0 - p2)),
            1.0 / a + 1.0 / b + 1.0 / c + 1.0 / d,
        ),
        Measure::Rr => (ln(p1) - ln(p2), 1.0 / a - 1.0 / n1 + 1.0 / c - 1.0 / n2),
        Measure::Rd => (p1 - p2, p1 * (1.0 - p1) / n1 + p2 * (1.0 - p2) / n2),
        _ => unreachable!("tables::effect_size is called for OR, RR and RD only"),
    };
    let still_zero = table
        .cells
        .iter()
        .find(|(_, v)| *v + add == 0.0)
        .map(|(column, _)| *column);
    if let Some(column) = still_zero.filter(|_| !(yi.is_finite() && vi.is_finite() && vi > 0.0)) {
        return Err(EffectSizeError::Undefined {
            column,
            reason: format!(
                "{column} is 0 and no continuity correction applies (add = {}, to = \"{}\"), so the {} is undefined",
                options.add,
                options.to.name(),
                measure.title()
            ),
        });
    }
    finish(yi, vi, zero.unwrap_or(Column::Ai), measure.title())
}
