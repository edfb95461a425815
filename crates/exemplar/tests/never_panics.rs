//! Whatever an agent or a person sends, the tools and the scorer answer with a result or a
//! typed error; they never panic.

use exemplar::{scorer, strict_json, tools};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Arbitrary JSON values, biased towards the shapes the tools expect.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |x| x.is_finite())
            .prop_map(Value::from),
        (-5i64..40).prop_map(Value::from),
        prop::sample::select(vec![
            "s04", "s01", "", "REML", "PM", "knha", "z", "rma", "classic", "x", "weeks", "tester",
            "setting", "dose"
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "method", "level", "test", "records", "exclude", "variant", "id", "yi", "vi",
                    "extra", "mods", "by", "mod", "at", "weeks", "tester", "dose",
                ])
                .prop_map(String::from),
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn tools_never_panic(args in json_value(), which in 0usize..tools::REGISTRY.len()) {
        let name = tools::REGISTRY[which].name;
        match tools::call(name, &args) {
            Ok(result) => prop_assert!(result.is_object()),
            Err(e) => prop_assert!(!e.message.is_empty()),
        }
    }

    #[test]
    fn custom_records_never_panic(
        rows in prop::collection::vec((-1e6f64..1e6, -1.0f64..1e6, "[a-d]{0,2}"), 0..8),
        which in 0usize..tools::REGISTRY.len(),
    ) {
        let records: Vec<Value> =
            rows.into_iter().map(|(yi, vi, id)| json!({"id": id, "yi": yi, "vi": vi})).collect();
        let _ = tools::call(tools::REGISTRY[which].name, &json!({"records": records}));
    }

    /// Records with moderator columns of any shape, and every way of naming them.
    #[test]
    fn moderators_never_panic(
        rows in prop::collection::vec(
            (-1e3f64..1e3, 1e-3f64..10.0, prop_oneof![
                (-1e30f64..1e30).prop_map(Value::from),
                "[a-c]{0,1}".prop_map(Value::from),
                Just(Value::Null),
            ]),
            0..9,
        ),
        how in 0usize..5,
    ) {
        let records: Vec<Value> = rows
            .into_iter()
            .enumerate()
            .map(|(i, (yi, vi, m))| {
                let mut r = json!({"id": format!("r{i}"), "yi": yi, "vi": vi});
                if !m.is_null() {
                    r["m"] = m;
                }
                r
            })
            .collect();
        let (name, args) = match how {
            0 => ("meta_regression", json!({"mods": ["m"], "at": [{"m": 1}, {"m": "a"}]})),
            1 => ("subgroup_analysis", json!({"by": "m", "test": "knha"})),
            2 => ("forest_plot", json!({"by": "m"})),
            3 => ("bubble_plot", json!({"mod": "m"})),
            _ => ("heterogeneity", json!({"level": 0.9})),
        };
        let mut args = args;
        args["records"] = Value::from(records);
        match tools::call(name, &args) {
            Ok(result) => prop_assert!(result.is_object()),
            Err(e) => prop_assert!(!e.message.is_empty()),
        }
    }

    #[test]
    fn the_scorer_never_panics(text in ".{0,300}") {
        let report = scorer::score(&text);
        prop_assert!(report.parsed || report.parse_error.is_some());
    }

    #[test]
    fn strict_json_never_panics(text in prop_oneof![".{0,300}", "[\\[\\]{}\",:0-9a-z\\\\ .eE+-]{0,300}"]) {
        if let Err(e) = strict_json::parse(&text) {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn the_scorer_never_panics_on_json(answer in json_value()) {
        let report = scorer::score(&answer.to_string());
        prop_assert_eq!(report.total, 13);
    }
}
