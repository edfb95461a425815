//! The oracle kit, shared by the tests that compare the engine with a fixture
//! (`tests/fixtures/<name>.json`, written by `tests/oracle/<script>.R` through
//! `tests/oracle/common.R`'s `write_fixture`, which puts a `provenance` object first):
//! reading a fixture and its datasets, the tolerance, and comparisons that collect every
//! disagreement before failing, so one run lists them all.
//!
//! A test file says `mod oracle_kit;` and uses what it needs.
#![allow(dead_code)]

use meta_analysis::effect_sizes::{Column, RawRow};
use meta_analysis::{Moderator, Record};
use serde_json::Value;
use std::fmt::Display;

/// The oracle tolerance: a number agrees with the reference when
/// |ours − reference| ≤ 1e-9 · max(1, |reference|) (`agree`), or ≤ 1e-9 · |reference| where
/// the test asks for relative agreement (`agree_relative`). The engine computes in closed
/// form or to convergence at machine precision, and the fixtures are made with tight
/// controls, so 1e-9 leaves rounding room without hiding a wrong formula.
pub const TOL: f64 = 1e-9;

/// For what metafor's numerical optimizer itself reports beside the exact optimum the
/// fixture holds (rma.mv's free σ² estimate and its confint() bounds): it stops short of
/// the optimum (about 2e-8 in multilevel.json, up to 1e-7 at its tightest working
/// control), so it is compared only as a check that both find the same optimum.
pub const METAFOR_OPTIMIZER_TOL: f64 = 1e-5;

// ------------------------------------------------------------------ fixtures

/// An escalc case's raw rows: `columns` names escalc's columns, `rows` holds each row's
/// values in that order.
pub fn raw_rows(case: &Value) -> Vec<RawRow> {
    let columns: Vec<Column> = case["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Column::parse(c.as_str().unwrap()).unwrap())
        .collect();
    case["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|values| {
            let mut row = RawRow::default();
            for (column, value) in columns.iter().zip(values.as_array().unwrap()) {
                row.set(*column, value.as_f64().unwrap());
            }
            row
        })
        .collect()
}

/// The fixture `tests/fixtures/<name>.json`.
pub fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The dataset called `name` in a fixture's `datasets`.
pub fn dataset<'a>(all: &'a Value, name: &str) -> &'a Value {
    all["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("no dataset {name}"))
}

/// A dataset's records, from its `ids`, `yi` and `vi`.
pub fn records(ds: &Value) -> Vec<Record> {
    let ids = ds["ids"].as_array().unwrap();
    (0..ids.len())
        .map(|i| {
            Record::new(
                ids[i].as_str().unwrap(),
                ds["yi"][i].as_f64().unwrap(),
                ds["vi"][i].as_f64().unwrap(),
            )
        })
        .collect()
}

/// An array of numbers.
pub fn numbers(values: &Value) -> Vec<f64> {
    values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// An array of strings.
pub fn strings(values: &Value) -> Vec<String> {
    values
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// The moderator of column `name`: a factor when the column holds text, else numeric.
pub fn moderator(ds: &Value, name: &str) -> Moderator {
    let column = ds["columns"][name].as_array().unwrap();
    if column[0].is_string() {
        Moderator::factor(name, strings(&ds["columns"][name]))
    } else {
        Moderator::numeric(name, numbers(&ds["columns"][name]))
    }
}

// ------------------------------------------------------------------ comparisons

/// |ours − reference| ≤ tol · max(1, |reference|) (false for NaN).
pub fn within(ours: f64, reference: f64, tol: f64) -> bool {
    (ours - reference).abs() <= tol * reference.abs().max(1.0)
}

/// Records a disagreement beyond `TOL` (scaled by max(1, |reference|)); a reference that is
/// not a number (null for R's NA) is one.
pub fn agree(what: &str, ours: f64, reference: &Value, failures: &mut Vec<String>) {
    agree_within(what, ours, reference, TOL, failures);
}

/// As `agree`, with tolerance `tol` (a named constant, or 0 for exact agreement).
pub fn agree_within(
    what: &str,
    ours: f64,
    reference: &Value,
    tol: f64,
    failures: &mut Vec<String>,
) {
    let Some(theirs) = reference.as_f64() else {
        failures.push(format!("{what}: R has {reference}, we have {ours}"));
        return;
    };
    if !within(ours, theirs, tol) {
        failures.push(format!("{what}: ours {ours:.17e}, R {theirs:.17e}"));
    }
}

/// As `agree_within` for a number we may not give: our None must be the reference's null.
pub fn agree_option(
    what: &str,
    ours: Option<f64>,
    reference: &Value,
    tol: f64,
    failures: &mut Vec<String>,
) {
    match (ours, reference.as_f64()) {
        (None, None) => {}
        (Some(o), Some(_)) => agree_within(what, o, reference, tol, failures),
        (o, _) => failures.push(format!("{what}: ours {o:?}, R {reference}")),
    }
}

/// |ours − reference| ≤ `TOL` · |reference|: relative, so ours must be exactly 0 where the
/// reference is.
pub fn agree_relative(what: &str, ours: f64, reference: &Value, failures: &mut Vec<String>) {
    let Some(theirs) = reference.as_f64() else {
        failures.push(format!("{what}: R has {reference}, we have {ours}"));
        return;
    };
    let err = (ours - theirs).abs();
    if err.is_nan() || err > TOL * theirs.abs() {
        failures.push(format!(
            "{what}: ours {ours:.17e}, R {theirs:.17e} (relative {:.1e})",
            err / theirs.abs()
        ));
    }
}

/// An interval (lower, upper) = estimate ∓ half-width, each bound to `TOL` of its operands
/// |estimate| + half-width: a bound near 0 is the difference of two larger numbers, and
/// relative to itself it would magnify their last-digit rounding (the reference's
/// included) without bound.
pub fn agree_bounds(
    what: &str,
    ours: (f64, f64),
    estimate: f64,
    reference: (&Value, &Value),
    failures: &mut Vec<String>,
) {
    for (side, ours, theirs) in [
        ("lower", ours.0, reference.0),
        ("upper", ours.1, reference.1),
    ] {
        let Some(theirs) = theirs.as_f64() else {
            failures.push(format!("{what} {side}: R has {theirs}, we have {ours}"));
            continue;
        };
        let scale = estimate.abs() + (ours - estimate).abs();
        let err = (ours - theirs).abs();
        if err.is_nan() || err > TOL * scale {
            failures.push(format!(
                "{what} {side}: ours {ours:.17e}, R {theirs:.17e} \
                 (relative to the operands {:.1e})",
                err / scale
            ));
        }
    }
}

/// Fails listing every disagreement, or when fewer than `at_least` were checked.
pub fn report(failures: Vec<String>, checked: usize, at_least: usize) {
    assert!(checked >= at_least, "only {checked} checked");
    assert_agreement(failures);
}

/// Fails listing every disagreement.
pub fn assert_agreement(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Collects disagreements and counts comparisons, for tests that check many kinds of value.
#[derive(Default)]
pub struct Check {
    pub failures: Vec<String>,
    pub compared: usize,
}

impl Check {
    /// `agree`: within `TOL` · max(1, |reference|).
    pub fn num(&mut self, what: impl Display, ours: f64, reference: &Value) {
        self.compared += 1;
        agree(&what.to_string(), ours, reference, &mut self.failures);
    }

    /// `agree_relative`: within `TOL` · |reference|.
    pub fn rel(&mut self, what: impl Display, ours: f64, reference: &Value) {
        self.compared += 1;
        agree_relative(&what.to_string(), ours, reference, &mut self.failures);
    }

    /// `num` for each of an array's values.
    pub fn nums(&mut self, what: &str, ours: &[f64], reference: &Value) {
        self.each(what, ours, reference, Self::num);
    }

    /// `rel` for each of an array's values.
    pub fn rels(&mut self, what: &str, ours: &[f64], reference: &Value) {
        self.each(what, ours, reference, Self::rel);
    }

    fn each(
        &mut self,
        what: &str,
        ours: &[f64],
        reference: &Value,
        one: fn(&mut Self, String, f64, &Value),
    ) {
        let theirs = reference.as_array().unwrap();
        if ours.len() != theirs.len() {
            self.failures
                .push(format!("{what}: {} values, R {}", ours.len(), theirs.len()));
            return;
        }
        for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
            one(self, format!("{what}[{i}]"), *a, b);
        }
    }

    /// Exact equality (counts, flags, orders).
    pub fn same<T: PartialEq + std::fmt::Debug>(&mut self, what: impl Display, ours: T, theirs: T) {
        self.compared += 1;
        if ours != theirs {
            self.failures
                .push(format!("{what}: ours {ours:?}, R {theirs:?}"));
        }
    }

    /// `report` with the comparisons counted.
    pub fn done(self, at_least: usize) {
        report(self.failures, self.compared, at_least);
    }
}
