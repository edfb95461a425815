//! Effect-size records and their validation.

use crate::distributions::{normal_quantile, upper_quantile_point};
use crate::limits::{MAX_ABS_YI, MAX_VI, MIN_VI};
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

/// Each record's own confidence interval at `level`, yᵢ ± z₁₋α/₂ · √vᵢ with vᵢ taken as
/// known (a Wald interval: metafor's `summary(escalc(...))` `ci.lb`, `ci.ub`, and the rows
/// of its `forest`), in record order. For records as [`validate_records`] accepts them.
///
/// Refused when the level is not strictly between 0 and 1 ([`MetaError::InvalidLevel`]) or
/// so close to 1 that the normal quantile is infinite ([`MetaError::LevelTooCloseToOne`]).
///
/// ```
/// use meta_analysis::{record_intervals, Record};
/// let ci = record_intervals(&[Record::new("a", 0.5, 0.04)], 0.95).unwrap();
/// assert!((ci[0].0 - (0.5 - 1.959963984540054 * 0.2)).abs() < 1e-15);
/// ```
pub fn record_intervals(records: &[Record], level: f64) -> Result<Vec<(f64, f64)>, MetaError> {
    if !(level > 0.0 && level < 1.0) {
        return Err(MetaError::InvalidLevel { level });
    }
    let z = normal_quantile(upper_quantile_point(level));
    if !z.is_finite() {
        return Err(MetaError::LevelTooCloseToOne { level });
    }
    Ok(records
        .iter()
        .map(|r| {
            let half = z * r.vi.sqrt();
            (r.yi - half, r.yi + half)
        })
        .collect())
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

/// Checks the rules every record of every analysis obeys, the one place they are written:
/// at most [`MAX_RECORDS`] records; each id non-empty (not only white space) and unique;
/// `yi` and `vi` finite, `vi > 0`, and both within the engine's range (|yi| ≤ [`MAX_ABS_YI`],
/// [`MIN_VI`] ≤ vi ≤ [`MAX_VI`]). The first violation is returned, naming the record. How
/// many records an analysis needs is its own rule, checked by the analysis.
///
/// ```
/// use meta_analysis::{validate_records, MetaError, Record};
/// assert!(validate_records(&[Record::new("a", 0.1, 0.01)]).is_ok());
/// let e = validate_records(&[Record::new("big", 1e308, 0.01)]).unwrap_err();
/// assert!(matches!(e, MetaError::OutOfRange { field: "yi", .. }));
/// ```
pub fn validate_records(records: &[Record]) -> Result<(), MetaError> {
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
        check_values(r.yi, r.vi, || r.id.clone())?;
    }
    // Sorting, not hashing: O(k log k) whatever the ids, and no hash-flooding worst case.
    let mut ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    sort_ids(&mut ids);
    if let Some(pair) = ids.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(MetaError::DuplicateId {
            id: pair[0].to_string(),
        });
    }
    Ok(())
}

/// One record's values: finite, vi > 0, and within the engine's range.
fn check_values(yi: f64, vi: f64, id: impl Fn() -> String) -> Result<(), MetaError> {
    if !yi.is_finite() {
        return Err(MetaError::NonFinite {
            id: id(),
            field: "yi",
        });
    }
    if !vi.is_finite() {
        return Err(MetaError::NonFinite {
            id: id(),
            field: "vi",
        });
    }
    if vi <= 0.0 {
        return Err(MetaError::NonPositiveVariance { id: id(), vi });
    }
    if yi.abs() > MAX_ABS_YI {
        return Err(MetaError::OutOfRange {
            id: id(),
            field: "yi",
            value: yi,
        });
    }
    if !(MIN_VI..=MAX_VI).contains(&vi) {
        return Err(MetaError::OutOfRange {
            id: id(),
            field: "vi",
            value: vi,
        });
    }
    Ok(())
}

/// [`validate_records`], then at least `needed` records; the validated columns.
pub(crate) fn validate(
    records: &[Record],
    needed: usize,
    analysis: &'static str,
) -> Result<Data, MetaError> {
    validate_records(records)?;
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

/// Checks columns of values (equal lengths, then each pair as [`validate_records`] does),
/// then the count; a record is named by its position ("#1", "#2", …).
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
        check_values(*y, *v, || format!("#{}", index + 1))?;
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

/// Sorts `ids` by their UTF-8 bytes (`str`'s order); equal ids end up side by side.
///
/// One function that is not generic, so that every sort of ids, in this crate and in its
/// callers', shares one copy of the sort's code in the page's WebAssembly.
pub fn sort_ids(ids: &mut [&str]) {
    ids.sort_unstable();
}

/// A set of record ids, for membership tests: the distinct ids sorted, each looked up by
/// binary search. O(n log n) to build and O(log n) a lookup, whatever the ids (no
/// hash-flooding worst case). Sorting rather than hashing also keeps a hasher and a hash
/// table out of the page's WebAssembly, which sorts ids already ([`validate_records`]).
///
/// ```
/// use meta_analysis::IdSet;
/// let ids: IdSet = ["s02", "s01", "s02"].into_iter().collect();
/// assert!(ids.contains("s01") && !ids.contains("s03"));
/// assert_eq!((ids.len(), ids.position("s02")), (2, Some(1)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdSet<'a> {
    sorted: Vec<&'a str>,
}

impl<'a> IdSet<'a> {
    /// The ids that occur more than once in `ids`, each once.
    pub fn repeated(ids: impl IntoIterator<Item = &'a str>) -> Self {
        let mut all: Vec<&str> = ids.into_iter().collect();
        sort_ids(&mut all);
        let mut sorted: Vec<&str> = all
            .windows(2)
            .filter(|pair| pair[0] == pair[1])
            .map(|pair| pair[0])
            .collect();
        sorted.dedup();
        IdSet { sorted }
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: &str) -> bool {
        self.position(id).is_some()
    }

    /// The place of `id` among the set's ids in sorted order (`0..len()`), if it is in the
    /// set: an index for a table of one entry per id.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.sorted.binary_search(&id).ok()
    }

    /// The number of distinct ids.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Whether the set has no id.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }
}

impl<'a> From<Vec<&'a str>> for IdSet<'a> {
    fn from(mut sorted: Vec<&'a str>) -> Self {
        sort_ids(&mut sorted);
        sorted.dedup();
        IdSet { sorted }
    }
}

impl<'a> FromIterator<&'a str> for IdSet<'a> {
    fn from_iter<I: IntoIterator<Item = &'a str>>(ids: I) -> Self {
        IdSet::from(ids.into_iter().collect::<Vec<_>>())
    }
}

/// The records left after removing `exclude` (each id must exist; order is kept).
/// O((n + m) log n) in the records and the ids ([`IdSet`]), however many are excluded.
pub(crate) fn without(
    records: &[Record],
    exclude: &[String],
    needed: usize,
) -> Result<Vec<Record>, MetaError> {
    let ids: IdSet = records.iter().map(|r| r.id.as_str()).collect();
    if let Some(id) = exclude.iter().find(|id| !ids.contains(id.as_str())) {
        return Err(MetaError::UnknownId { id: id.clone() });
    }
    let excluded: IdSet = exclude.iter().map(String::as_str).collect();
    let kept: Vec<Record> = records
        .iter()
        .filter(|r| !excluded.contains(r.id.as_str()))
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

    #[test]
    fn id_set_holds_each_id_once_and_finds_it() {
        let set: IdSet = ["b", "a", "c", "a", ""].into_iter().collect();
        assert_eq!(set.len(), 4);
        for (at, id) in ["", "a", "b", "c"].into_iter().enumerate() {
            assert!(set.contains(id));
            assert_eq!(set.position(id), Some(at));
        }
        assert!(!set.contains("d") && !set.contains("A") && set.position("ab").is_none());
        let empty: IdSet = std::iter::empty().collect();
        assert!(empty.is_empty() && !empty.contains(""));
    }

    #[test]
    fn id_set_of_repeated_ids_keeps_only_those_seen_twice() {
        let repeated = IdSet::repeated(["x", "y", "x", "z", "x", "y"]);
        assert_eq!(repeated.len(), 2);
        assert!(repeated.contains("x") && repeated.contains("y") && !repeated.contains("z"));
        assert!(IdSet::repeated(["a", "b", "c"]).is_empty());
    }

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
    fn values_outside_the_engines_range_are_refused_naming_the_record() {
        let cases = [
            (
                1e308,
                0.01,
                "yi",
                "record \"x\": yi = 1e308 is too large: |yi| must be at most 1e25",
            ),
            (-2e25, 0.01, "yi", "record \"x\": yi = -2e25 is too large"),
            (
                0.1,
                1e-308,
                "vi",
                "record \"x\": vi = 1e-308 is too small: vi must be at least 1e-25",
            ),
            (
                0.1,
                1e308,
                "vi",
                "record \"x\": vi = 1e308 is too large: vi must be at most 1e25",
            ),
        ];
        for (yi, vi, field, message) in cases {
            let mut r = three();
            r.push(Record::new("x", yi, vi));
            let e = validate_records(&r).unwrap_err();
            assert!(
                matches!(&e, MetaError::OutOfRange { id, field: f, .. } if id == "x" && *f == field),
                "{e:?}"
            );
            assert!(e.to_string().starts_with(message), "{e}");
        }
        // The bounds themselves are accepted.
        let mut r = three();
        r.push(Record::new("lo", -MAX_ABS_YI, MIN_VI));
        r.push(Record::new("hi", MAX_ABS_YI, MAX_VI));
        assert_eq!(validate_records(&r), Ok(()));
    }

    #[test]
    fn each_record_has_its_wald_interval() {
        // z₀.₉₇₅ = 1.959963984540054; √0.04 = 0.2.
        let records = [Record::new("a", 0.5, 0.04), Record::new("b", -1.0, 1.0)];
        let ci = record_intervals(&records, 0.95).unwrap();
        let z = 1.959963984540054;
        for ((lo, hi), (yi, se)) in ci.iter().zip([(0.5, 0.2), (-1.0, 1.0)]) {
            assert!((lo - (yi - z * se)).abs() < 1e-15, "{lo}");
            assert!((hi - (yi + z * se)).abs() < 1e-15, "{hi}");
        }
        // A wider level, a wider interval; z₀.₉₉₅ = 2.5758293035489004.
        let wide = record_intervals(&records, 0.99).unwrap();
        assert!((wide[1].1 - (-1.0 + 2.5758293035489004)).abs() < 1e-15);
        assert!(record_intervals(&records, crate::MAX_LEVEL).is_ok());
        assert_eq!(
            record_intervals(&records, 1.0),
            Err(MetaError::InvalidLevel { level: 1.0 })
        );
        assert_eq!(
            record_intervals(&records, 1.0 - 1e-17),
            Err(MetaError::InvalidLevel { level: 1.0 })
        );
        assert_eq!(
            record_intervals(&records, 1.0 - f64::EPSILON / 2.0),
            Err(MetaError::LevelTooCloseToOne {
                level: 1.0 - f64::EPSILON / 2.0
            })
        );
    }

    #[test]
    fn validate_records_checks_no_count() {
        assert_eq!(validate_records(&[]), Ok(()));
        assert_eq!(validate_records(&three()[..1]), Ok(()));
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
