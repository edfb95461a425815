//! The records the tools' example calls share: small, hand-made, each showing what its
//! tools read (further columns, studies, 2x2 tables). Every tool's file lists its own
//! example calls (`Tool::examples`); the registry's tests run each one.

use serde_json::{json, Value};

/// Four records with id, yi and vi only.
pub(super) fn records() -> Value {
    json!([
        {"id": "a", "yi": 0.1, "vi": 0.01},
        {"id": "b", "yi": 0.3, "vi": 0.02},
        {"id": "c", "yi": -0.1, "vi": 0.04},
        {"id": "d", "yi": 0.5, "vi": 0.03}
    ])
}

/// Five records with a numeric (`dose`) and a text (`arm`) column.
pub(super) fn moderated() -> Value {
    json!([
        {"id": "a", "yi": 0.1, "vi": 0.01, "dose": 1, "arm": "x"},
        {"id": "b", "yi": 0.3, "vi": 0.02, "dose": 2, "arm": "y"},
        {"id": "c", "yi": -0.1, "vi": 0.04, "dose": 4, "arm": "x"},
        {"id": "d", "yi": 0.5, "vi": 0.03, "dose": 3, "arm": "y"},
        {"id": "e", "yi": 0.4, "vi": 0.02, "dose": 5, "arm": "z"}
    ])
}

/// Eight records in five studies (one labelled by a number), with a numeric column `x`.
pub(super) fn nested() -> Value {
    json!([
        {"id": "a1", "yi": 0.10, "vi": 0.02, "study": "a", "x": 1.0},
        {"id": "a2", "yi": 0.30, "vi": 0.03, "study": "a", "x": 2.0},
        {"id": "b1", "yi": 0.50, "vi": 0.05, "study": "b", "x": 3.0},
        {"id": "b2", "yi": 0.40, "vi": 0.04, "study": "b", "x": 2.5},
        {"id": "c1", "yi": 0.00, "vi": 0.02, "study": 3, "x": 1.0},
        {"id": "c2", "yi": 0.25, "vi": 0.03, "study": 3, "x": 1.5},
        {"id": "d1", "yi": -0.10, "vi": 0.02, "study": "d", "x": 0.0},
        {"id": "e1", "yi": 0.35, "vi": 0.04, "study": "e", "x": 3.5}
    ])
}

/// dat.berkey1998 (metadat): two outcomes (PD, AL) in each of five trials, with each
/// trial's sampling covariance matrix in v1i, v2i (row a of the block at the trial's a-th
/// record).
pub(super) fn multivariate() -> Value {
    json!([
        {"id": "t1PD", "yi": 0.47, "vi": 0.0075, "trial": 1, "outcome": "PD", "v1i": 0.0075, "v2i": 0.003},
        {"id": "t1AL", "yi": -0.32, "vi": 0.0077, "trial": 1, "outcome": "AL", "v1i": 0.003, "v2i": 0.0077},
        {"id": "t2PD", "yi": 0.2, "vi": 0.0057, "trial": 2, "outcome": "PD", "v1i": 0.0057, "v2i": 9e-04},
        {"id": "t2AL", "yi": -0.6, "vi": 8e-04, "trial": 2, "outcome": "AL", "v1i": 9e-04, "v2i": 8e-04},
        {"id": "t3PD", "yi": 0.4, "vi": 0.0021, "trial": 3, "outcome": "PD", "v1i": 0.0021, "v2i": 7e-04},
        {"id": "t3AL", "yi": -0.12, "vi": 0.0014, "trial": 3, "outcome": "AL", "v1i": 7e-04, "v2i": 0.0014},
        {"id": "t4PD", "yi": 0.26, "vi": 0.0029, "trial": 4, "outcome": "PD", "v1i": 0.0029, "v2i": 9e-04},
        {"id": "t4AL", "yi": -0.31, "vi": 0.0015, "trial": 4, "outcome": "AL", "v1i": 9e-04, "v2i": 0.0015},
        {"id": "t5PD", "yi": 0.56, "vi": 0.0148, "trial": 5, "outcome": "PD", "v1i": 0.0148, "v2i": 0.0072},
        {"id": "t5AL", "yi": -0.39, "vi": 0.0304, "trial": 5, "outcome": "AL", "v1i": 0.0072, "v2i": 0.0304}
    ])
}

/// Three 2x2 tables: one full, one by group sizes with a zero cell, one double-zero.
pub(super) fn tables() -> Value {
    json!([
        {"ai": 4, "bi": 119, "ci": 11, "di": 128},
        {"ai": 0, "n1i": 300, "ci": 29, "n2i": 303},
        {"ai": 0, "bi": 228, "ci": 0, "di": 209}
    ])
}

/// The estimators' names (FE, EE's other name, left out: a test holds it equal to EE).
pub(super) fn methods() -> impl Iterator<Item = &'static str> {
    meta_analysis::Method::ALL
        .iter()
        .filter(|m| **m != meta_analysis::Method::Fe)
        .map(|m| m.name())
}

/// `method` × `test` × level 0.9: every fit option.
pub(super) fn fit_options() -> Vec<Value> {
    methods()
        .flat_map(|method| {
            meta_analysis::Test::ALL
                .iter()
                .map(move |test| json!({"method": method, "test": test.name(), "level": 0.9}))
        })
        .collect()
}

/// `value` with `key` set.
pub(super) fn with(mut value: Value, key: &str, set: Value) -> Value {
    value[key] = set;
    value
}
