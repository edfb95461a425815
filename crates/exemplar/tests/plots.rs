//! The plots: well-formed SVG whose marks map back to the data. Their golden files (the SVG
//! text of named tool calls, `tests/golden/`) are written by `cargo xtask codegen`, whose
//! check fails when a plot changed without them (crates/xtask/src/codegen/golden.rs).

use exemplar::dataset;
use exemplar::plots::{
    forest, funnel, EggerLine, ForestInput, FunnelInput, PlotError, PlotOutput, MAX_FOREST_RECORDS,
};
use exemplar::protocol::{protocol_options, rule, EXCLUDED_RECORD};
use meta_analysis::{
    egger_test, fit, refit_excluding, EggerVariant, Fit, MetaError, Method, Record, Test,
};
use proptest::prelude::*;
use roxmltree::{Document, Node};

const X_LABEL: &str = "Standardized mean difference (yi)";

fn full_fit(records: &[Record]) -> Fit {
    fit(records, &protocol_options()).unwrap()
}

fn excluded() -> Vec<String> {
    vec![EXCLUDED_RECORD.to_string()]
}

fn forest_of(records: &[Record], excluded: &[String], fit: Option<&Fit>) -> PlotOutput {
    forest(&ForestInput {
        records,
        excluded,
        fit,
        title: "Forest plot: dat.raudenbush1985",
        subtitle: None,
        measure: None,
        ilab: &[],
        order: None,
        x_label: X_LABEL,
        labels: None,
        transform: meta_analysis::Transform::None,
        groups: None,
        fitted: None,
        clustered: None,
        options: Default::default(),
    })
    .unwrap()
}

/// b₀ and b₁ of the classic Egger regression yᵢ/SEᵢ = b₀ + b₁/SEᵢ, by closed-form OLS (the
/// engine returns only b₀; this test data checks against it).
fn egger_coefficients(records: &[Record]) -> (f64, f64) {
    let x: Vec<f64> = records.iter().map(|r| 1.0 / r.vi.sqrt()).collect();
    let z: Vec<f64> = records.iter().map(|r| r.yi / r.vi.sqrt()).collect();
    let n = x.len() as f64;
    let (mx, mz) = (x.iter().sum::<f64>() / n, z.iter().sum::<f64>() / n);
    let sxz: f64 = x.iter().zip(&z).map(|(a, b)| (a - mx) * (b - mz)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let b1 = sxz / sxx;
    (mz - b1 * mx, b1)
}

fn funnel_with_egger(records: &[Record]) -> PlotOutput {
    let egger = egger_test(records, EggerVariant::Classic).unwrap();
    let (b0, b1) = egger_coefficients(records);
    assert!(
        (b0 - egger.coefficient).abs() < 1e-9,
        "the test's OLS matches the engine's b0"
    );
    let pooled = full_fit(records).estimate;
    funnel(&FunnelInput {
        records,
        excluded: &[],
        pooled: Some(pooled),
        egger: Some(EggerLine {
            variant: "classic",
            line_per_se: b0,
            line_at_se0: b1,
            p: egger.p,
            rule_outcome: Some(rule(egger.p).name()),
        }),
        filled: None,
        title: "Funnel plot: dat.raudenbush1985",
        x_label: X_LABEL,
        subtitle: None,
        transform: meta_analysis::Transform::None,
    })
    .unwrap()
}

fn funnel_plain(records: &[Record], excluded: &[String]) -> PlotOutput {
    funnel(&FunnelInput {
        records,
        excluded,
        pooled: None,
        egger: None,
        filled: None,
        title: "Funnel plot: dat.raudenbush1985",
        x_label: X_LABEL,
        subtitle: None,
        transform: meta_analysis::Transform::None,
    })
    .unwrap()
}

fn has_class(node: &Node, class: &str) -> bool {
    node.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|c| c == class))
}

fn find_all<'a, 'i>(doc: &'a Document<'i>, name: &str, class: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants()
        .filter(|n| n.has_tag_name(name) && has_class(n, class))
        .collect()
}

fn pair(node: &Node, attribute: &str) -> (f64, f64) {
    let v: Vec<f64> = node
        .attribute(attribute)
        .unwrap()
        .split(' ')
        .map(|s| s.parse().unwrap())
        .collect();
    (v[0], v[1])
}

/// Inverts the linear map the plot area declares: pixel → data.
fn inverse(area: &Node, axis: &str) -> impl Fn(f64) -> f64 {
    let (d0, d1) = pair(area, &format!("data-{axis}-domain"));
    let (r0, r1) = pair(area, &format!("data-{axis}-range"));
    move |px| d0 + (px - r0) / (r1 - r0) * (d1 - d0)
}

/// Data units per pixel along an axis.
fn unit_per_pixel(area: &Node, axis: &str) -> f64 {
    let (d0, d1) = pair(area, &format!("data-{axis}-domain"));
    let (r0, r1) = pair(area, &format!("data-{axis}-range"));
    ((d1 - d0) / (r1 - r0)).abs()
}

fn num(node: &Node, attribute: &str) -> f64 {
    node.attribute(attribute).unwrap().parse().unwrap()
}

/// Well-formed, accessible and scalable: parses as XML, names itself through `<title>` and
/// `<desc>`, and has a viewBox with a fluid width.
fn check_document(svg: &str) {
    let doc = Document::parse(svg).expect("the SVG is well-formed XML");
    let root = doc.root_element();
    assert!(root.has_tag_name(("http://www.w3.org/2000/svg", "svg")));
    assert_eq!(root.attribute("role"), Some("img"));
    assert_eq!(root.attribute("width"), Some("100%"));
    assert!(root.attribute("viewBox").is_some());
    for (attribute, tag) in [("aria-labelledby", "title"), ("aria-describedby", "desc")] {
        let id = root.attribute(attribute).unwrap();
        let target = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap_or_else(|| panic!("{attribute} points at an element"));
        assert!(target.has_tag_name(tag));
        assert!(!target.text().unwrap_or("").trim().is_empty());
    }
}

#[test]
fn every_plot_is_well_formed_accessible_svg() {
    let records = dataset::records();
    let all = full_fit(&records);
    let without = refit_excluding(&records, &excluded(), &protocol_options()).unwrap();
    check_document(&forest_of(&records, &[], Some(&all)).svg);
    check_document(&forest_of(&records, &excluded(), Some(&without)).svg);
    check_document(&forest_of(&records, &[], None).svg);
    check_document(&funnel_with_egger(&records).svg);
    check_document(&funnel_plain(&records, &excluded()).svg);
}

#[test]
fn forest_has_one_row_per_record_and_marks_exclusions() {
    let records = dataset::records();
    let without = refit_excluding(&records, &excluded(), &protocol_options()).unwrap();
    let out = forest_of(&records, &excluded(), Some(&without));
    let doc = Document::parse(&out.svg).unwrap();
    let rows = find_all(&doc, "g", "row");
    assert_eq!(rows.len(), records.len());
    let included: Vec<_> = rows
        .iter()
        .filter(|r| r.attribute("data-excluded") == Some("false"))
        .collect();
    assert_eq!(included.len(), without.k);
    let excluded_row = rows
        .iter()
        .find(|r| r.attribute("data-id") == Some(EXCLUDED_RECORD))
        .unwrap();
    assert_eq!(excluded_row.attribute("data-excluded"), Some("true"));
    let label = excluded_row
        .children()
        .find(|n| n.has_tag_name("text"))
        .unwrap();
    assert_eq!(label.text(), Some("s04 (excluded)"), "not by colour alone");
    // Weights: percentages of the included records sum to 100; the excluded row has none.
    let weights: Vec<_> = out.numbers["rows"].as_array().unwrap().iter().collect();
    let total: f64 = weights
        .iter()
        .filter_map(|r| r["weight_percent"].as_f64())
        .sum();
    assert!((total - 100.0).abs() < 1e-9);
    assert!(weights[3]["weight_percent"].is_null());
    // Each is metafor's weights(): 100·wᵢ/Σwⱼ with wᵢ = 1/(vᵢ + τ̂²) over the records in the fit.
    let kept: Vec<&Record> = records.iter().filter(|r| r.id != EXCLUDED_RECORD).collect();
    let sum: f64 = kept.iter().map(|r| 1.0 / (r.vi + without.tau2)).sum();
    for (row, record) in weights.iter().zip(&records) {
        if record.id == EXCLUDED_RECORD {
            continue;
        }
        let expected = 100.0 / (record.vi + without.tau2) / sum;
        let got = row["weight_percent"].as_f64().unwrap();
        assert!(
            (got - expected).abs() < 1e-12,
            "{}: {got} vs {expected}",
            record.id
        );
    }
}

#[test]
fn diamond_centre_and_ends_map_back_to_the_estimate_and_interval() {
    let records = dataset::records();
    let all = full_fit(&records);
    let without = refit_excluding(&records, &excluded(), &protocol_options()).unwrap();
    for (excl, fit) in [(vec![], &all), (excluded(), &without)] {
        let out = forest_of(&records, &excl, Some(fit));
        let doc = Document::parse(&out.svg).unwrap();
        let area = find_all(&doc, "g", "plot-area")[0];
        let to_data = inverse(&area, "x");
        let pixel = unit_per_pixel(&area, "x");
        let diamonds = find_all(&doc, "polygon", "diamond");
        assert_eq!(diamonds.len(), 1);
        let xs: Vec<f64> = diamonds[0]
            .attribute("points")
            .unwrap()
            .split(' ')
            .map(|p| p.split(',').next().unwrap().parse().unwrap())
            .collect();
        // Points: left end, top (centre), right end, bottom (centre).
        let near = |px: f64, value: f64| (to_data(px) - value).abs() <= pixel;
        assert!(near(xs[0], fit.ci_lower));
        assert!(near(xs[1], fit.estimate) && near(xs[3], fit.estimate));
        assert!(near(xs[2], fit.ci_upper));
        assert_eq!(out.numbers["pooled"]["k"], fit.k);
    }
}

#[test]
fn forest_rows_map_back_to_yi_and_their_intervals() {
    let records = dataset::records();
    let out = forest_of(&records, &[], Some(&full_fit(&records)));
    let doc = Document::parse(&out.svg).unwrap();
    let area = find_all(&doc, "g", "plot-area")[0];
    let to_data = inverse(&area, "x");
    let pixel = unit_per_pixel(&area, "x");
    for (row, record) in find_all(&doc, "g", "row").iter().zip(&records) {
        assert_eq!(row.attribute("data-id"), Some(record.id.as_str()));
        let square = row.children().find(|n| has_class(n, "point")).unwrap();
        let centre = num(&square, "x") + num(&square, "width") / 2.0;
        assert!((to_data(centre) - record.yi).abs() <= pixel);
        let ci = row.children().find(|n| has_class(n, "ci")).unwrap();
        let half = 1.959963984540054 * record.vi.sqrt();
        assert!((to_data(num(&ci, "x1")) - (record.yi - half)).abs() <= pixel);
        assert!((to_data(num(&ci, "x2")) - (record.yi + half)).abs() <= pixel);
    }
}

#[test]
fn funnel_points_map_back_to_yi_and_standard_error() {
    let records = dataset::records();
    let out = funnel_with_egger(&records);
    let doc = Document::parse(&out.svg).unwrap();
    let area = find_all(&doc, "g", "plot-area")[0];
    let (to_yi, to_se) = (inverse(&area, "x"), inverse(&area, "y"));
    let (px_yi, px_se) = (unit_per_pixel(&area, "x"), unit_per_pixel(&area, "y"));
    let points = find_all(&doc, "circle", "point");
    assert_eq!(points.len(), records.len());
    for (point, record) in points.iter().zip(&records) {
        assert_eq!(point.attribute("data-id"), Some(record.id.as_str()));
        assert!((to_yi(num(point, "cx")) - record.yi).abs() <= px_yi);
        assert!((to_se(num(point, "cy")) - record.vi.sqrt()).abs() <= px_se);
    }
    // The y axis is inverted: SE 0 at the top.
    let (top, bottom) = pair(&area, "data-y-range");
    assert!(top < bottom);
    assert_eq!(pair(&area, "data-y-domain").0, 0.0);
}

#[test]
fn egger_line_follows_yi_equals_b1_plus_b0_times_se() {
    let records = dataset::records();
    let (b0, b1) = egger_coefficients(&records);
    let out = funnel_with_egger(&records);
    let doc = Document::parse(&out.svg).unwrap();
    let area = find_all(&doc, "g", "plot-area")[0];
    let (to_yi, to_se) = (inverse(&area, "x"), inverse(&area, "y"));
    let line = doc
        .descendants()
        .find(|n| has_class(n, "egger-line"))
        .unwrap()
        .children()
        .find(|n| n.has_tag_name("line"))
        .unwrap();
    let tolerance = unit_per_pixel(&area, "x") * 2.0;
    for end in ["1", "2"] {
        let yi = to_yi(num(&line, &format!("x{end}")));
        let se = to_se(num(&line, &format!("y{end}")));
        assert!((yi - (b1 + b0 * se)).abs() <= tolerance);
    }
    let egger = &out.numbers["egger"];
    assert_eq!(
        egger["rule_outcome"],
        rule(egger["p"].as_f64().unwrap()).name()
    );
    assert!(out.svg.contains("rule outcome: "));
}

#[test]
fn nothing_pooled_is_drawn_before_a_fit() {
    let records = dataset::records();
    let out = forest_of(&records, &[], None);
    let doc = Document::parse(&out.svg).unwrap();
    assert!(find_all(&doc, "polygon", "diamond").is_empty());
    assert!(out.numbers["pooled"].is_null());
    assert!(out.numbers["rows"][0]["weight_percent"].is_null());
    let out = funnel_plain(&records, &[]);
    let doc = Document::parse(&out.svg).unwrap();
    assert!(doc
        .descendants()
        .all(|n| !has_class(&n, "funnel") && !has_class(&n, "egger-line")));
    assert!(out.numbers["pooled"].is_null() && out.numbers["egger"].is_null());
}

#[test]
fn hostile_ids_are_escaped() {
    let id = "<script>alert(\"x\")</script>&'\u{1}";
    let records = vec![
        Record::new(id, 0.1, 0.01),
        Record::new("b", 0.3, 0.04),
        Record::new("c", -0.1, 0.02),
    ];
    let fitted = full_fit(&records);
    for svg in [
        forest_of(&records, &[], Some(&fitted)).svg,
        funnel_plain(&records, &[id.to_string()]).svg,
    ] {
        let doc = Document::parse(&svg).expect("well-formed despite the id");
        assert!(!svg.contains("<script"));
        assert!(doc.descendants().all(|n| !n.has_tag_name("script")));
        assert!(doc
            .descendants()
            .any(|n| n.attribute("data-id") == Some("<script>alert(\"x\")</script>&'\u{FFFD}")));
    }
}

#[test]
fn bad_input_is_refused_with_a_clear_error() {
    let many: Vec<Record> = (0..=MAX_FOREST_RECORDS)
        .map(|i| Record::new(format!("r{i}"), 0.0, 0.1))
        .collect();
    let input = ForestInput {
        records: &many,
        excluded: &[],
        fit: None,
        title: "t",
        subtitle: None,
        measure: None,
        ilab: &[],
        order: None,
        x_label: "x",
        labels: None,
        transform: meta_analysis::Transform::None,
        groups: None,
        fitted: None,
        clustered: None,
        options: Default::default(),
    };
    let err = forest(&input).unwrap_err();
    assert!(matches!(err, PlotError::TooManyRecords { got: 2001, .. }));
    assert_eq!(
        err.to_string(),
        "a forest plot draws at most 2000 records, but 2001 were given"
    );

    let records = dataset::records();
    let all = full_fit(&records);
    let input = ForestInput {
        records: &records,
        excluded: &excluded(),
        fit: Some(&all),
        title: "t",
        subtitle: None,
        measure: None,
        ilab: &[],
        order: None,
        x_label: "x",
        labels: None,
        transform: meta_analysis::Transform::None,
        groups: None,
        fitted: None,
        clustered: None,
        options: Default::default(),
    };
    assert_eq!(
        forest(&input).unwrap_err(),
        PlotError::FitMismatch {
            fit_k: 19,
            included: 18
        }
    );
    let nan = [Record::new("a", f64::NAN, 0.1)];
    assert!(matches!(
        funnel(&FunnelInput {
            records: &nan,
            excluded: &[],
            pooled: None,
            egger: None,
            filled: None,
            title: "t",
            x_label: "x",
            subtitle: None,
            transform: meta_analysis::Transform::None,
        }),
        Err(PlotError::InvalidRecords(MetaError::NonFinite {
            field: "yi",
            ..
        }))
    ));
    let err = funnel(&FunnelInput {
        records: &records,
        excluded: &[],
        pooled: Some(f64::INFINITY),
        egger: None,
        filled: None,
        title: "t",
        x_label: "x",
        subtitle: None,
        transform: meta_analysis::Transform::None,
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot draw the pooled estimate: it is not a finite number"
    );
}

#[test]
fn output_is_deterministic() {
    let records = dataset::records();
    assert_eq!(funnel_with_egger(&records), funnel_with_egger(&records));
}

// Issue 10: extreme but valid numbers give a clear error (or a plot), never a panic.

/// The records of the issue: three ordinary ones and two at ±`big`.
fn extreme_args(big: f64) -> serde_json::Value {
    serde_json::json!({
        "records": [
            {"id": "a", "yi": 0.1, "vi": 0.01},
            {"id": "b", "yi": 0.3, "vi": 0.02},
            {"id": "c", "yi": 0.2, "vi": 0.03},
            {"id": "big", "yi": big, "vi": 1},
            {"id": "small", "yi": -big, "vi": 1},
        ],
        "exclude": ["big", "small"],
    })
}

/// What the tool (and `exemplar plot`, which calls it) answers: an SVG that parses, or an
/// error a person can read.
fn plot_tool(name: &str, args: &serde_json::Value) -> Result<String, String> {
    match exemplar::tools::call(name, args) {
        Ok(result) => {
            let svg = result["svg"].as_str().expect("a plot result has svg");
            Document::parse(svg).expect("the SVG is well-formed");
            Ok(svg.to_string())
        }
        Err(e) => Err(e.message),
    }
}

fn assert_too_wide(tool: &str, args: &serde_json::Value) {
    // The engine refuses such values before any fit (`MetaError::OutOfRange`); the plots'
    // own checks (tested directly below) refuse what reaches them.
    let err = plot_tool(tool, args).unwrap_err();
    assert!(
        err.starts_with("the values span more than can be drawn: ")
            || (err.starts_with("record \"") && err.contains("is too large")),
        "{tool}: {err}"
    );
}

#[test]
fn forest_of_records_at_plus_minus_1e308_is_a_clear_error() {
    assert_too_wide("forest_plot", &extreme_args(1e308));
}

#[test]
fn funnel_of_records_at_plus_minus_1e308_is_a_clear_error() {
    assert_too_wide("funnel_plot", &extreme_args(1e308));
}

#[test]
fn forest_of_records_at_plus_minus_9e307_is_a_clear_error() {
    assert_too_wide("forest_plot", &extreme_args(9e307));
}

#[test]
fn funnel_of_records_at_plus_minus_9e307_is_a_clear_error() {
    assert_too_wide("funnel_plot", &extreme_args(9e307));
}

#[test]
fn equal_effects_forest_of_two_records_at_plus_minus_1e308_is_a_clear_error() {
    let args = serde_json::json!({
        "method": "EE",
        "records": [{"id": "up", "yi": 1e308, "vi": 1}, {"id": "down", "yi": -1e308, "vi": 1}],
    });
    assert_too_wide("forest_plot", &args);
}

/// Finite values from the edges of the doubles: ±f64::MAX, ±1e308, subnormals, the smallest
/// normal, zero, ordinary values and anything finite.
fn extreme_value() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::MAX),
        Just(-f64::MAX),
        Just(1e308),
        Just(-1e308),
        Just(9e307),
        Just(-9e307),
        Just(f64::MIN_POSITIVE),
        Just(-f64::MIN_POSITIVE),
        Just(5e-324),
        Just(-5e-324),
        Just(0.0),
        (1u64..1 << 52).prop_map(f64::from_bits),
        -10.0f64..10.0,
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
    ]
}

/// Positive finite variances from subnormal to f64::MAX.
fn extreme_variance() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(5e-324),
        Just(1e-308),
        Just(f64::MIN_POSITIVE),
        Just(1e308),
        Just(f64::MAX),
        (1u64..1 << 52).prop_map(f64::from_bits),
        1e-4f64..1.0,
        any::<f64>().prop_filter("positive finite", |x| x.is_finite() && *x > 0.0),
    ]
}

/// A fit with arbitrary finite numbers, as a caller other than the engine might pass.
fn extreme_fit(k: usize, numbers: [f64; 6], method: Method) -> Fit {
    let [estimate, ci_lower, ci_upper, pi_lower, pi_upper, tau2] = numbers;
    Fit {
        method,
        test: Test::Z,
        level: 0.95,
        k,
        estimate,
        se: 1.0,
        statistic: 0.0,
        df: None,
        p: 0.5,
        ci_lower,
        ci_upper,
        tau2: tau2.abs(),
        tau: tau2.abs().sqrt(),
        se_tau2: None,
        q: 0.0,
        q_df: k.saturating_sub(1),
        q_p: 1.0,
        i2: 0.0,
        h2: 1.0,
        pi_lower,
        pi_upper,
        iterations: None,
    }
}

/// A plot is either SVG that parses with no non-finite number in it, or an error with a
/// message.
fn drawn_or_refused(result: Result<PlotOutput, PlotError>) -> Result<(), TestCaseError> {
    match result {
        Ok(out) => {
            let doc = Document::parse(&out.svg)
                .map_err(|e| TestCaseError::fail(format!("ill-formed SVG: {e}")))?;
            for node in doc.descendants() {
                for a in node.attributes() {
                    prop_assert!(
                        !a.value().contains("NaN") && !a.value().contains("inf"),
                        "{}=\"{}\"",
                        a.name(),
                        a.value()
                    );
                }
            }
        }
        Err(e) => prop_assert!(!e.to_string().is_empty()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn extreme_finite_values_are_drawn_or_refused_never_a_panic(
        rows in prop::collection::vec((extreme_value(), extreme_variance(), any::<bool>()), 1..7),
        fit_numbers in prop::array::uniform6(extreme_value()),
        which_fit in 0usize..4,
        pooled in prop::option::of(extreme_value()),
        egger in prop::option::of((extreme_value(), extreme_value(), 0.0f64..=1.0)),
    ) {
        let records: Vec<Record> = rows
            .iter()
            .enumerate()
            .map(|(i, (yi, vi, _))| Record::new(format!("r{i}"), *yi, *vi))
            .collect();
        let excluded: Vec<String> = rows
            .iter()
            .enumerate()
            .filter(|(_, (_, _, e))| *e)
            .map(|(i, _)| format!("r{i}"))
            .collect();
        let kept: Vec<Record> =
            records.iter().filter(|r| !excluded.contains(&r.id)).cloned().collect();
        // No fit; the engine's fit where it has one; arbitrary numbers (random and equal
        // effects).
        let fitted = match which_fit {
            1 => fit(&kept, &protocol_options()).ok(),
            2 => Some(extreme_fit(kept.len(), fit_numbers, Method::Reml)),
            3 => Some(extreme_fit(kept.len(), fit_numbers, Method::Ee)),
            _ => None,
        };
        drawn_or_refused(forest(&ForestInput {
            records: &records,
            excluded: &excluded,
            fit: fitted.as_ref(),
            title: "t",
            subtitle: None,
            measure: None,
            ilab: &[],
            order: None,
            x_label: "x",
            labels: None,
            transform: meta_analysis::Transform::None,
            groups: None,
            fitted: None,
            clustered: None,
            options: Default::default(),
        }))?;
        let egger = egger.map(|(b0, b1, p)| EggerLine {
            variant: "classic",
            line_per_se: b0,
            line_at_se0: b1,
            p,
            rule_outcome: Some("passed"),
        });
        drawn_or_refused(funnel(&FunnelInput {
            records: &records,
            excluded: &excluded,
            pooled,
            egger,
            filled: None,
            title: "t",
            x_label: "x",
            subtitle: None,
            transform: meta_analysis::Transform::None,
        }))?;
    }
}

#[test]
fn records_outside_the_engines_range_are_refused_naming_the_record() {
    // The engine's rules for records (|yi| ≤ 1e25, 1e-25 ≤ vi ≤ 1e25) hold for the plots too.
    for (yi, vi, field) in [
        (f64::MAX, 0.1, "yi"),
        (0.1, 5e-324, "vi"),
        (0.1, 1e308, "vi"),
    ] {
        let records = [Record::new("a", 0.2, 0.1), Record::new("top", yi, vi)];
        let err = forest(&ForestInput {
            records: &records,
            excluded: &[],
            fit: None,
            title: "t",
            subtitle: None,
            measure: None,
            ilab: &[],
            order: None,
            x_label: "x",
            labels: None,
            transform: meta_analysis::Transform::None,
            groups: None,
            fitted: None,
            clustered: None,
            options: Default::default(),
        })
        .unwrap_err();
        assert!(
            matches!(&err, PlotError::InvalidRecords(MetaError::OutOfRange { id, field: f, .. })
                if id == "top" && *f == field),
            "{err:?}"
        );
        assert!(err.to_string().starts_with("record \"top\": "), "{err}");
        let err = funnel(&FunnelInput {
            records: &records,
            excluded: &[],
            pooled: None,
            egger: None,
            filled: None,
            title: "t",
            x_label: "x",
            subtitle: None,
            transform: meta_analysis::Transform::None,
        })
        .unwrap_err();
        assert!(matches!(err, PlotError::InvalidRecords(_)), "{err:?}");
    }
}

#[test]
fn a_fit_whose_interval_spans_every_double_is_a_clear_error() {
    // The forest's axis runs from -f64::MAX to f64::MAX, and whole tick steps reach past it.
    let records = [Record::new("a", 0.1, 0.01), Record::new("b", 0.2, 0.02)];
    let fitted = extreme_fit(2, [0.0, -f64::MAX, f64::MAX, 0.0, 0.0, 0.0], Method::Ee);
    let err = forest(&ForestInput {
        records: &records,
        excluded: &[],
        fit: Some(&fitted),
        title: "t",
        subtitle: None,
        measure: None,
        ilab: &[],
        order: None,
        x_label: "x",
        labels: None,
        transform: meta_analysis::Transform::None,
        groups: None,
        fitted: None,
        clustered: None,
        options: Default::default(),
    })
    .unwrap_err();
    assert!(matches!(err, PlotError::SpanTooWide { .. }), "{err}");
}

#[test]
fn weights_spanning_the_engines_range_are_finite() {
    // vi from 1e-25 to 1e25 under an equal-effects fit: weights from 1e25 down to 1e-25.
    let records = [
        Record::new("a", 0.1, 1e-25),
        Record::new("b", 0.2, 1e-10),
        Record::new("c", 0.3, 1e25),
    ];
    let fitted = extreme_fit(3, [0.1, 0.0, 0.2, 0.0, 0.2, 0.0], Method::Ee);
    let out = forest(&ForestInput {
        records: &records,
        excluded: &[],
        fit: Some(&fitted),
        title: "t",
        subtitle: None,
        measure: None,
        ilab: &[],
        order: None,
        x_label: "x",
        labels: None,
        transform: meta_analysis::Transform::None,
        groups: None,
        fitted: None,
        clustered: None,
        options: Default::default(),
    })
    .unwrap();
    assert!(!out.svg.contains("NaN") && !out.svg.contains("inf"));
    let weights: Vec<f64> = out.numbers["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["weight_percent"].as_f64().unwrap())
        .collect();
    // 1e-25 against 1e-10 and 1e25: nearly all the weight, the rest tiny but finite.
    assert!((weights[0] - 100.0).abs() < 1e-9, "{weights:?}");
    assert!(weights[1] > 0.0 && weights[1] < 1e-12 && weights[2] >= 0.0);
    assert!((weights.iter().sum::<f64>() - 100.0).abs() < 1e-9);
}

#[test]
fn very_small_standard_errors_get_no_negative_ticks() {
    // The smallest variances the engine accepts.
    let records = [
        Record::new("a", 0.1, meta_analysis::MIN_VI),
        Record::new("b", 0.2, 4.0 * meta_analysis::MIN_VI),
    ];
    let out = funnel_plain(&records, &[]);
    let ticks = out.numbers["y_axis"]["ticks"].as_array().unwrap();
    assert_eq!(ticks[0], 0.0);
    assert!(ticks.iter().all(|t| t.as_f64().unwrap() >= 0.0));
}

/// Every U+202E RIGHT-TO-LEFT OVERRIDE in the text sits inside a bidirectional isolate
/// (U+2066–U+2068 … U+2069), and every isolate is closed: the override cannot reach the
/// words around the id.
fn overrides_are_isolated(text: &str) -> bool {
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '\u{2066}'..='\u{2068}' => depth += 1,
            '\u{2069}' if depth == 0 => return false,
            '\u{2069}' => depth -= 1,
            '\u{202E}' if depth == 0 => return false,
            _ => {}
        }
    }
    depth == 0
}

#[test]
fn a_right_to_left_override_in_an_id_is_isolated() {
    let id = "ev\u{202E}il";
    let records = vec![
        Record::new(id, 0.1, 0.01),
        Record::new("b", 0.3, 0.04),
        Record::new("c", -0.1, 0.02),
        Record::new("d", 0.2, 0.03),
    ];
    let excluded = vec![id.to_string()];
    let fitted = full_fit(&records[1..]);
    for svg in [
        forest_of(&records, &excluded, Some(&fitted)).svg,
        funnel_plain(&records, &excluded).svg,
    ] {
        let doc = Document::parse(&svg).unwrap();
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.is_text())
            .filter_map(|n| n.text())
            .filter(|t| t.contains('\u{202E}'))
            .collect();
        // The label, the tooltip, the notes or legend and the description all name the id.
        assert!(texts.len() >= 4, "{texts:?}");
        for text in texts {
            assert!(overrides_are_isolated(text), "not isolated: {text:?}");
        }
        // The label: the isolated id, then " (excluded)" outside the isolate.
        assert!(svg.contains(">\u{2068}ev\u{202E}il\u{2069} (excluded)</text>"));
        // The id itself is kept as it is for scripts.
        assert!(doc
            .descendants()
            .any(|n| n.attribute("data-id") == Some(id)));
    }
}

// ---------------------------------------------------------------- bubble and grouped forest

fn tool_svg(name: &str, args: serde_json::Value) -> (String, serde_json::Value) {
    let result = exemplar::tools::call(name, &args).unwrap_or_else(|e| panic!("{name}: {e}"));
    (result["svg"].as_str().unwrap().to_string(), result)
}

/// Each point sits at (moderator value, yi), the fitted line's ends on b0 + b1·x, and the
/// numbers written beside the plot are the model's.
#[test]
fn bubble_points_and_line_map_back_to_the_data_and_the_model() {
    let (svg, result) = tool_svg("bubble_plot", serde_json::json!({"mod": "weeks"}));
    check_document(&svg);
    let doc = Document::parse(&svg).unwrap();
    let area = find_all(&doc, "g", "plot-area")[0];
    let (to_x, to_y) = (inverse(&area, "x"), inverse(&area, "y"));
    let (ux, uy) = (unit_per_pixel(&area, "x"), unit_per_pixel(&area, "y"));
    let rows = dataset::rows();
    let points = find_all(&doc, "g", "point");
    assert_eq!(points.len(), rows.len());
    for g in points {
        let row = rows
            .iter()
            .find(|r| Some(r.id.as_str()) == g.attribute("data-id"))
            .unwrap();
        let circle = g.children().find(|n| n.has_tag_name("circle")).unwrap();
        assert!((to_x(num(&circle, "cx")) - row.weeks as f64).abs() <= ux * 0.006);
        assert!((to_y(num(&circle, "cy")) - row.yi).abs() <= uy * 0.006);
    }
    let fit = &result["fit"];
    let (b0, b1) = (
        fit["coefficients"][0]["estimate"].as_f64().unwrap(),
        fit["coefficients"][1]["estimate"].as_f64().unwrap(),
    );
    let line = find_all(&doc, "g", "fitted-line")[0]
        .children()
        .find(|n| n.has_tag_name("line"))
        .unwrap();
    for (x, y) in [("x1", "y1"), ("x2", "y2")] {
        let at = to_x(num(&line, x));
        assert!((to_y(num(&line, y)) - (b0 + b1 * at)).abs() <= uy * 0.02 + b1.abs() * ux * 0.006);
    }
    let notes: String = find_all(&doc, "g", "notes")[0]
        .descendants()
        .filter_map(|n| n.text())
        .collect();
    assert!(notes.contains(&format!("Slope {:.4} (SE", b1)), "{notes}");
    assert!(
        notes.contains(&format!("QM(1) = {:.2}", fit["qm"].as_f64().unwrap())),
        "{notes}"
    );
    assert!(
        notes.contains(&format!("R² = {:.1}%", fit["r2"].as_f64().unwrap())),
        "{notes}"
    );
    // Each point's weight is metafor's weights(): 100·wᵢ/Σwⱼ with wᵢ = 1/(vᵢ + τ̂²).
    let tau2 = fit["tau2"].as_f64().unwrap();
    let sum: f64 = rows.iter().map(|r| 1.0 / (r.vi + tau2)).sum();
    let drawn = result["numbers"]["points"].as_array().unwrap();
    assert_eq!(drawn.len(), rows.len());
    for point in drawn {
        let expected = 100.0 / (point["vi"].as_f64().unwrap() + tau2) / sum;
        let got = point["weight_percent"].as_f64().unwrap();
        assert!(
            (got - expected).abs() < 1e-12,
            "{point}: {got} vs {expected}"
        );
    }
}

#[test]
fn bubble_plot_refuses_a_text_moderator_and_marks_exclusions() {
    let e =
        exemplar::tools::call("bubble_plot", &serde_json::json!({"mod": "tester"})).unwrap_err();
    assert_eq!(e.code.as_str(), "invalid_arguments");
    assert!(e.message.contains("tester holds text"), "{}", e.message);
    let (svg, result) = tool_svg(
        "bubble_plot",
        serde_json::json!({"mod": "weeks", "exclude": ["s04"]}),
    );
    assert_eq!(result["fit"]["k"], 18);
    let doc = Document::parse(&svg).unwrap();
    let s04 = find_all(&doc, "g", "point")
        .into_iter()
        .find(|g| g.attribute("data-id") == Some("s04"))
        .unwrap();
    assert_eq!(s04.attribute("data-excluded"), Some("true"));
}

/// With `by`, each level's rows sit under its heading, followed by its diamond; the footer
/// carries both tests for subgroup differences.
#[test]
fn grouped_forest_has_a_diamond_per_subgroup_and_the_tests_in_its_footer() {
    let (svg, result) = tool_svg("forest_plot", serde_json::json!({"by": "tester"}));
    check_document(&svg);
    let analysis =
        exemplar::tools::call("subgroup_analysis", &serde_json::json!({"by": "tester"})).unwrap();
    assert_eq!(result["subgroups"], analysis);
    let doc = Document::parse(&svg).unwrap();
    let area = find_all(&doc, "g", "plot-area")[0];
    let to_x = inverse(&area, "x");
    let ux = unit_per_pixel(&area, "x");
    let diamonds = find_all(&doc, "g", "subgroup");
    assert_eq!(diamonds.len(), 2);
    let headings = find_all(&doc, "text", "subgroup-heading");
    assert_eq!(headings.len(), 2);
    let rows = find_all(&doc, "g", "row");
    let tester = |id: &str| {
        dataset::rows()
            .iter()
            .find(|r| r.id == id)
            .unwrap()
            .tester
            .clone()
    };
    for (diamond, group) in diamonds.iter().zip(analysis["groups"].as_array().unwrap()) {
        let level = group["level"].as_str().unwrap();
        assert_eq!(diamond.attribute("data-level"), Some(level));
        let polygon = diamond
            .children()
            .find(|n| n.has_tag_name("polygon"))
            .unwrap();
        let xs: Vec<f64> = polygon
            .attribute("points")
            .unwrap()
            .split(' ')
            .map(|p| p.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert!((to_x(xs[1]) - group["estimate"].as_f64().unwrap()).abs() <= ux * 0.006);
        assert!((to_x(xs[0]) - group["ci_lower"].as_f64().unwrap()).abs() <= ux * 0.006);
        // Its records are the rows between its heading and itself.
        let diamond_y: f64 = polygon
            .attribute("points")
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .split(',')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let heading = headings
            .iter()
            .find(|h| h.text().unwrap().ends_with(level))
            .unwrap();
        let heading_y = num(heading, "y");
        let members: Vec<&str> = rows
            .iter()
            .filter(|r| {
                let y = num(&r.children().find(|n| n.has_tag_name("text")).unwrap(), "y");
                y > heading_y && y < diamond_y
            })
            .map(|r| r.attribute("data-id").unwrap())
            .collect();
        assert_eq!(members.len() as u64, group["k"].as_u64().unwrap());
        assert!(members.iter().all(|id| tester(id) == level));
    }
    // The notes are wrapped at spaces into lines.
    let footer = find_all(&doc, "g", "notes")[0]
        .descendants()
        .filter_map(|n| n.text())
        .filter(|t| !t.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        footer.contains(&format!(
            "Test for subgroup differences (separate τ² per subgroup): Q(1) = {:.2}",
            analysis["q_between"].as_f64().unwrap()
        )),
        "{footer}"
    );
    assert!(
        footer.contains(&format!(
            "QM(1) = {:.2}",
            analysis["qm_common_tau2"].as_f64().unwrap()
        )),
        "{footer}"
    );
}

/// dat.bcg's log risk ratios (metafor's escalc, `tests/fixtures/backtransform.json`), with
/// author and year as the row labels.
fn bcg_risk_ratios() -> (Vec<Record>, Vec<String>) {
    let fixtures: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/backtransform.json")).unwrap();
    let case = &fixtures["cases"][0];
    assert_eq!(case["measure"], "RR");
    let authors = [
        "Aronson",
        "Ferguson & Simes",
        "Rosenthal et al.",
        "Hart & Sutherland",
        "Frimodt-Moller et al.",
        "Stein & Aronson",
        "Vandiviere et al.",
        "TPT Madras",
        "Coetzee & Berjak",
        "Rosenthal et al.",
        "Comstock et al.",
        "Comstock & Webster",
        "Comstock et al.",
    ];
    let records = (0..authors.len())
        .map(|i| {
            Record::new(
                case["ids"][i].as_str().unwrap(),
                case["yi"][i].as_f64().unwrap(),
                case["vi"][i].as_f64().unwrap(),
            )
        })
        .collect();
    let labels = authors
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{a}, {}", case["year"][i]))
        .collect();
    (records, labels)
}

/// As metafor's forest(..., atransf = exp): positions on the log scale, every number
/// written as a risk ratio, rows labelled by study.
#[test]
fn a_forest_of_risk_ratios_is_labelled_by_study_on_the_natural_scale() {
    let (records, labels) = bcg_risk_ratios();
    let fitted = full_fit(&records);
    let out = forest(&ForestInput {
        records: &records,
        excluded: &[],
        fit: Some(&fitted),
        title: "Forest plot: dat.bcg",
        subtitle: None,
        measure: Some("RR"),
        ilab: &[],
        order: None,
        x_label: "Risk ratio (log scale)",
        labels: Some(&labels),
        transform: meta_analysis::Transform::Exp,
        groups: None,
        fitted: None,
        clustered: None,
        options: Default::default(),
    })
    .unwrap();
    check_document(&out.svg);
    let doc = Document::parse(&out.svg).unwrap();
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    assert!(texts.contains(&"Aronson, 1948"), "{texts:?}");
    assert!(texts.contains(&"Risk ratio (log scale)"));
    assert!(texts.contains(&"RR [95% CI]"), "{texts:?}");
    let rr = |x: f64| format!("{:.2}", meta_analysis::math::exp(x));
    let pooled = format!(
        "{} [{}, {}]",
        rr(fitted.estimate),
        rr(fitted.ci_lower),
        rr(fitted.ci_upper)
    );
    assert!(texts.contains(&pooled.as_str()), "{pooled} in {texts:?}");
    // Ticks sit at log-scale positions and read as their risk ratios, round ones (0.1, 1,
    // 10), never e^k.
    let ticks: Vec<f64> = serde_json::from_value(out.numbers["x_axis"]["ticks"].clone()).unwrap();
    let labels: Vec<String> =
        serde_json::from_value(out.numbers["x_axis"]["tick_labels"].clone()).unwrap();
    assert!(ticks.len() >= 3);
    for (t, label) in ticks.iter().zip(&labels) {
        assert!(texts.contains(&label.as_str()), "tick {t} as {label}");
        let ratio: f64 = label.parse().unwrap();
        assert!((meta_analysis::math::exp(*t) - ratio).abs() < 1e-9 * ratio);
    }
    assert!(labels.contains(&"1".to_string()), "{labels:?}");
    assert_eq!(out.numbers["transform"], "exp");
    assert_eq!(out.numbers["rows"][0]["label"], "Aronson, 1948");
    assert_eq!(out.numbers["rows"][0]["id"], "b01");
}
