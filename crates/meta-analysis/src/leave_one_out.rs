//! Leave-one-out: the model refitted k times, each time without one record.

use crate::model::{fit_data, Fit, FitOptions};
use crate::records::{validate, Data, Record};
use crate::MetaError;

/// The fit without the record `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaveOneOut {
    pub id: String,
    pub fit: Fit,
}

/// Refits the model once per record, leaving that record out (needs at least 3
/// records so that each refit has 2).
pub fn leave_one_out(
    records: &[Record],
    options: &FitOptions,
) -> Result<Vec<LeaveOneOut>, MetaError> {
    let data = validate(records, 3, "leave-one-out")?;
    let k = data.k();
    let mut out = Vec::with_capacity(k);
    let mut rest = Data {
        yi: Vec::with_capacity(k - 1),
        vi: Vec::with_capacity(k - 1),
    };
    for (i, record) in records.iter().enumerate() {
        rest.yi.clear();
        rest.vi.clear();
        for j in (0..k).filter(|&j| j != i) {
            rest.yi.push(data.yi[j]);
            rest.vi.push(data.vi[j]);
        }
        out.push(LeaveOneOut {
            id: record.id.clone(),
            fit: fit_data(&rest.yi, &rest.vi, options)?,
        });
    }
    Ok(out)
}
