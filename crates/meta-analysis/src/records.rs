//! Effect-size records and their validation.

use crate::MetaError;

/// The largest number of records one analysis accepts (10⁷: about 240 MB of input).
pub const MAX_RECORDS: usize = 10_000_000;

/// One effect-size record: an id, the observed effect `yi` and its sampling variance `vi`.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub id: String,
    pub yi: f64,
    pub vi: f64,
}

impl Record {
    pub fn new(id: impl Into<String>, yi: f64, vi: f64) -> Self {
        Record {
            id: id.into(),
            yi,
            vi,
        }
    }
}

/// Validated columns `yi`, `vi` of at least `needed` records.
#[derive(Debug, Clone)]
pub(crate) struct Data {
    pub yi: Vec<f64>,
    pub vi: Vec<f64>,
}

impl Data {
    pub fn k(&self) -> usize {
        self.yi.len()
    }
}

/// Checks ids (non-empty, unique) and values (finite, vi > 0), then the count.
pub(crate) fn validate(
    records: &[Record],
    needed: usize,
    analysis: &'static str,
) -> Result<Data, MetaError> {
    if records.len() > MAX_RECORDS {
        return Err(MetaError::TooManyRecords {
            max: MAX_RECORDS,
            got: records.len(),
        });
    }
    for (index, r) in records.iter().enumerate() {
        if r.id.trim().is_empty() {
            return Err(MetaError::EmptyId { index });
        }
        if !r.yi.is_finite() {
            return Err(MetaError::NonFinite {
                id: r.id.clone(),
                field: "yi",
            });
        }
        if !r.vi.is_finite() {
            return Err(MetaError::NonFinite {
                id: r.id.clone(),
                field: "vi",
            });
        }
        if r.vi <= 0.0 {
            return Err(MetaError::NonPositiveVariance {
                id: r.id.clone(),
                vi: r.vi,
            });
        }
    }
    // Sorting, not hashing: O(k log k) whatever the ids, and no hash-flooding worst case.
    let mut ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(pair) = ids.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(MetaError::DuplicateId {
            id: pair[0].to_string(),
        });
    }
    if records.len() < needed {
        return Err(MetaError::TooFewRecords {
            needed,
            got: records.len(),
            analysis,
        });
    }
    Ok(Data {
        yi: records.iter().map(|r| r.yi).collect(),
        vi: records.iter().map(|r| r.vi).collect(),
    })
}

/// Checks columns of values (finite, vi > 0, equal lengths), then the count; a record is
/// named by its position ("#1", "#2", …).
pub(crate) fn validate_columns(
    yi: &[f64],
    vi: &[f64],
    needed: usize,
    analysis: &'static str,
) -> Result<(), MetaError> {
    if yi.len() != vi.len() {
        return Err(MetaError::Undefined {
            reason: format!(
                "yi has {} values but vi has {}; they must pair up",
                yi.len(),
                vi.len()
            ),
        });
    }
    if yi.len() > MAX_RECORDS {
        return Err(MetaError::TooManyRecords {
            max: MAX_RECORDS,
            got: yi.len(),
        });
    }
    for (index, (y, v)) in yi.iter().zip(vi).enumerate() {
        let id = || format!("#{}", index + 1);
        if !y.is_finite() {
            return Err(MetaError::NonFinite {
                id: id(),
                field: "yi",
            });
        }
        if !v.is_finite() {
            return Err(MetaError::NonFinite {
                id: id(),
                field: "vi",
            });
        }
        if *v <= 0.0 {
            return Err(MetaError::NonPositiveVariance { id: id(), vi: *v });
        }
    }
    if yi.len() < needed {
        return Err(MetaError::TooFewRecords {
            needed,
            got: yi.len(),
            analysis,
        });
    }
    Ok(())
}

/// The records left after removing `exclude` (each id must exist; order is kept).
pub(crate) fn without(
    records: &[Record],
    exclude: &[String],
    needed: usize,
) -> Result<Vec<Record>, MetaError> {
    for id in exclude {
        if !records.iter().any(|r| &r.id == id) {
            return Err(MetaError::UnknownId { id: id.clone() });
        }
    }
    let kept: Vec<Record> = records
        .iter()
        .filter(|r| !exclude.contains(&r.id))
        .cloned()
        .collect();
    if kept.len() < needed {
        return Err(MetaError::ExcludesTooMany {
            excluded: records.len() - kept.len(),
            k: records.len(),
            needed,
        });
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three() -> Vec<Record> {
        vec![
            Record::new("a", 0.1, 0.01),
            Record::new("b", 0.2, 0.02),
            Record::new("c", 0.3, 0.03),
        ]
    }

    #[test]
    fn accepts_valid_records() {
        let d = validate(&three(), 2, "a fit").unwrap();
        assert_eq!(d.yi, vec![0.1, 0.2, 0.3]);
        assert_eq!(d.vi, vec![0.01, 0.02, 0.03]);
    }

    #[test]
    fn rejects_each_bad_input_with_its_reason() {
        let mut r = three();
        r[1].id = " ".into();
        assert_eq!(
            validate(&r, 2, "a fit").unwrap_err(),
            MetaError::EmptyId { index: 1 }
        );
        let mut r = three();
        r[2].id = "a".into();
        assert!(matches!(
            validate(&r, 2, "a fit"),
            Err(MetaError::DuplicateId { .. })
        ));
        let mut r = three();
        r[0].yi = f64::NAN;
        assert!(matches!(
            validate(&r, 2, "a fit"),
            Err(MetaError::NonFinite { field: "yi", .. })
        ));
        let mut r = three();
        r[0].vi = f64::INFINITY;
        assert!(matches!(
            validate(&r, 2, "a fit"),
            Err(MetaError::NonFinite { field: "vi", .. })
        ));
        let mut r = three();
        r[0].vi = -0.5;
        let e = validate(&r, 2, "a fit").unwrap_err();
        assert!(e.to_string().contains("vi must be greater than 0"), "{e}");
        let e = validate(&three()[..1], 2, "a fit").unwrap_err();
        assert_eq!(
            e.to_string(),
            "a fit needs at least 2 records, but 1 was given"
        );
    }

    #[test]
    fn columns_are_checked_like_records() {
        assert!(validate_columns(&[0.1, 0.2], &[0.01, 0.02], 2, "a fit").is_ok());
        let e = validate_columns(&[0.1, 0.2], &[0.01, 0.0], 2, "a fit").unwrap_err();
        assert_eq!(
            e,
            MetaError::NonPositiveVariance {
                id: "#2".into(),
                vi: 0.0
            }
        );
        assert!(validate_columns(&[0.1], &[0.01, 0.02], 2, "a fit").is_err());
        assert!(matches!(
            validate_columns(&[f64::NAN, 0.2], &[0.01, 0.02], 2, "a fit"),
            Err(MetaError::NonFinite { field: "yi", .. })
        ));
    }

    #[test]
    fn exclusion_checks_ids_and_what_is_left() {
        let kept = without(&three(), &["b".into()], 2).unwrap();
        assert_eq!(
            kept.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["a", "c"]
        );
        assert_eq!(
            without(&three(), &["zz".into()], 2).unwrap_err(),
            MetaError::UnknownId { id: "zz".into() }
        );
        assert!(matches!(
            without(&three(), &["a".into(), "b".into()], 2),
            Err(MetaError::ExcludesTooMany {
                excluded: 2,
                k: 3,
                needed: 2
            })
        ));
    }
}
