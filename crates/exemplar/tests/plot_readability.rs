//! Issue 32: every plot reads on a phone and its axes are legible. For each plot tool's first
//! example call, for a risk-ratio forest and funnel of dat.bcg (and the forest with ilab
//! columns and ordered rows): no text is drawn below 11 px when the SVG is 390 px wide
//! (font-size · 390 / viewBox width ≥ 11, the SVG being scaled to its container's width), no
//! two tick labels of an axis overlap (a label is as wide as its characters at 0.6 em, the
//! widest a digit, point or minus sign is drawn in the faces the plots name), and a ratio
//! axis reads at round ratios, never at e^k.

use exemplar::tools::{self, REGISTRY};
use roxmltree::{Document, Node};
use serde_json::{json, Value};

/// The phone's width and the least text size on it.
const PHONE: f64 = 390.0;
const LEAST_PX: f64 = 11.0;
/// A tick label's width per character, in em.
const CHAR_EM: f64 = 0.6;

/// dat.bcg's log risk ratios as metafor's escalc gives them
/// (`tests/fixtures/backtransform.json`), carrying their measure, authors and the arms'
/// counts' stand-ins (the record number) for ilab.
fn bcg_rr_records() -> Value {
    let fixtures: Value =
        serde_json::from_str(include_str!("fixtures/backtransform.json")).unwrap();
    let case = &fixtures["cases"][0];
    assert_eq!(case["measure"], "RR");
    let n = case["yi"].as_array().unwrap().len();
    (0..n)
        .map(|i| {
            json!({
                "id": case["ids"][i],
                "yi": case["yi"][i],
                "vi": case["vi"][i],
                "measure": "RR",
                "year": case["year"][i],
                "n": 100 * (i + 1),
            })
        })
        .collect()
}

/// dat.bcg's trials as metafor's forest labels them (author and year).
const BCG_AUTHORS: [&str; 13] = [
    "Aronson",
    "Ferguson & Simes",
    "Rosenthal et al",
    "Hart & Sutherland",
    "Frimodt-Moller et al",
    "Stein & Aronson",
    "Vandiviere et al",
    "TPT Madras",
    "Coetzee & Berjak",
    "Rosenthal et al",
    "Comstock et al",
    "Comstock & Webster",
    "Comstock et al",
];

/// [`bcg_rr_records`] with a `label` column: "Frimodt-Moller et al 1973".
fn bcg_rr_labelled() -> Value {
    let mut records = bcg_rr_records();
    for (r, author) in records.as_array_mut().unwrap().iter_mut().zip(BCG_AUTHORS) {
        r["label"] = json!(format!("{author} {}", r["year"]));
    }
    records
}

/// Every SVG checked, named by its call.
fn plots() -> Vec<(String, String)> {
    let mut calls: Vec<(String, &str, Value)> = REGISTRY
        .iter()
        .filter_map(|tool| {
            let first = (tool.examples)().into_iter().next()?;
            Some((format!("{} {first}", tool.name), tool.name, first))
        })
        .collect();
    let bcg = bcg_rr_records();
    calls.push((
        "forest RR dat.bcg".into(),
        "forest_plot",
        json!({"records": bcg}),
    ));
    calls.push((
        "forest RR dat.bcg, ilab and order".into(),
        "forest_plot",
        json!({"records": bcg, "ilab": ["year", "n"], "order": "precision"}),
    ));
    calls.push((
        "forest RR dat.bcg, labelled".into(),
        "forest_plot",
        json!({"records": bcg_rr_labelled()}),
    ));
    calls.push((
        "funnel RR dat.bcg".into(),
        "funnel_plot",
        json!({"records": bcg}),
    ));
    calls
        .into_iter()
        .filter_map(|(name, tool, args)| {
            let out = tools::call(tool, &args).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            out["svg"].as_str().map(|svg| (name, svg.to_string()))
        })
        .collect()
}

fn view_width(doc: &Document) -> f64 {
    let view_box = doc.root_element().attribute("viewBox").unwrap();
    view_box.split(' ').nth(2).unwrap().parse().unwrap()
}

/// The font size a text is drawn at: its own or its nearest ancestor's.
fn font_size(node: Node) -> f64 {
    node.ancestors()
        .find_map(|n| n.attribute("font-size"))
        .expect("the root sets a font size")
        .parse()
        .unwrap()
}

fn num(node: Node, attribute: &str) -> f64 {
    node.attribute(attribute).unwrap().parse().unwrap()
}

/// The tick labels of every axis (`g.axis`), with their positions and font sizes.
fn axes<'a, 'i>(doc: &'a Document<'i>) -> Vec<(bool, Vec<Node<'a, 'i>>)> {
    doc.descendants()
        .filter(|n| {
            n.has_tag_name("g")
                && n.attribute("class")
                    .is_some_and(|c| c.split(' ').any(|c| c == "axis"))
        })
        .map(|g| {
            let horizontal = g.attribute("class").unwrap().contains("x-axis");
            let labels = g
                .children()
                .filter(|n| n.has_tag_name("text") && n.attribute("class").is_none())
                .collect();
            (horizontal, labels)
        })
        .collect()
}

#[test]
fn every_plot_reads_on_a_phone() {
    let plots = plots();
    assert!(plots.len() >= 9, "{}", plots.len());
    for (name, svg) in &plots {
        let doc = Document::parse(svg).unwrap();
        let width = view_width(&doc);
        for text in doc.descendants().filter(|n| n.has_tag_name("text")) {
            let size = font_size(text);
            assert!(
                size * PHONE / width >= LEAST_PX - 1e-9,
                "{name}: {:?} at {size} px in a {width} wide plot is {:.1} px on a phone",
                text.text(),
                size * PHONE / width
            );
        }
        // The RR forest of dat.bcg and every first example draw at phone width exactly.
        if !name.contains("ilab") {
            assert_eq!(width, PHONE, "{name}");
        }
    }
}

#[test]
fn no_two_tick_labels_overlap() {
    for (name, svg) in &plots() {
        let doc = Document::parse(svg).unwrap();
        let width = view_width(&doc);
        let axes = axes(&doc);
        assert!(!axes.is_empty(), "{name} has an axis");
        for (horizontal, labels) in axes {
            assert!(labels.len() >= 2, "{name}: {} tick labels", labels.len());
            let mut extents: Vec<(f64, f64)> = labels
                .iter()
                .map(|t| {
                    let size = font_size(*t);
                    if horizontal {
                        let half = t.text().unwrap().chars().count() as f64 * CHAR_EM * size / 2.0;
                        let x = num(*t, "x");
                        (x - half, x + half)
                    } else {
                        let y = num(*t, "y");
                        (y - size, y)
                    }
                })
                .collect();
            extents.sort_by(|a, b| a.0.total_cmp(&b.0));
            for pair in extents.windows(2) {
                assert!(
                    pair[1].0 >= pair[0].1,
                    "{name}: tick labels at {:?} and {:?} overlap",
                    pair[0],
                    pair[1]
                );
            }
            if horizontal {
                let (first, last) = (extents[0], extents[extents.len() - 1]);
                assert!(first.0 >= 0.0 && last.1 <= width, "{name}: {extents:?}");
            }
        }
    }
}

/// A ratio axis reads at 1, 2 or 5 times a power of ten, or a power of 2: never e^k
/// (0.37, 2.72, 7.39).
#[test]
fn ratio_axes_read_at_round_ratios() {
    let bcg = bcg_rr_records();
    for tool in ["forest_plot", "funnel_plot"] {
        let out = tools::call(tool, &json!({"records": bcg})).unwrap();
        let axis = &out["numbers"]["x_axis"];
        let ticks = axis["ticks"].as_array().unwrap();
        let labels = axis["tick_labels"].as_array().unwrap();
        assert!(ticks.len() >= 3, "{tool}: {axis}");
        assert!(
            labels.iter().any(|l| l == "1"),
            "{tool}: the null ratio 1: {axis}"
        );
        for (t, label) in ticks.iter().zip(labels) {
            let label = label.as_str().unwrap();
            let ratio: f64 = label.parse().unwrap();
            // The label is the ratio at the tick's position on the log scale.
            let at = meta_analysis::math::exp(t.as_f64().unwrap());
            assert!(
                (at - ratio).abs() <= 1e-9 * ratio,
                "{tool}: {label} at {at}"
            );
            let mantissa = ratio / 10f64.powf(ratio.log10().floor());
            let round = [1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-9)
                || (ratio.log2() - ratio.log2().round()).abs() < 1e-9;
            assert!(round, "{tool}: tick {label} is not a round ratio");
        }
        let svg = out["svg"].as_str().unwrap();
        for e_k in ["0.37", "2.72", "7.39", "20.09"] {
            assert!(
                !svg.contains(&format!(">{e_k}<")),
                "{tool}: a tick at {e_k}"
            );
        }
    }
}

/// The title says what was fitted: the measure, the model and k.
#[test]
fn titles_say_what_was_fitted() {
    let bcg = bcg_rr_records();
    let out = tools::call("forest_plot", &json!({"records": bcg})).unwrap();
    let doc = Document::parse(out["svg"].as_str().unwrap()).unwrap();
    let text_of = |class: &str| {
        doc.descendants()
            .find(|n| n.attribute("class") == Some(class))
            .and_then(|n| n.text())
            .unwrap()
            .to_string()
    };
    assert_eq!(text_of("plot-title"), "Forest plot: Risk ratio");
    assert_eq!(
        text_of("plot-subtitle"),
        "Random-effects model (REML), k = 13"
    );
    let header: Vec<&str> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("header"))
        .flat_map(|g| g.children().filter_map(|n| n.text()))
        .filter(|t| !t.trim().is_empty())
        .collect();
    // The values are back-transformed: their column is headed by the natural scale (issue
    // 42 item 7).
    assert_eq!(header, ["Record", "Risk ratio [95% CI]", "Weight"]);
}

/// metafor's forest(ilab =, order =): the columns beside the labels under their names, the
/// rows sorted by the estimate, by precision (most precise first) or by a column.
#[test]
fn forest_ilab_columns_and_row_order() {
    let bcg = bcg_rr_records();
    let records = bcg.as_array().unwrap();
    let rows_of = |args: Value| -> Vec<String> {
        let out = tools::call("forest_plot", &args).unwrap();
        let doc = Document::parse(out["svg"].as_str().unwrap()).unwrap();
        doc.descendants()
            .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("row"))
            .map(|n| n.attribute("data-id").unwrap().to_string())
            .collect()
    };
    let sorted_by = |key: &str, descending: bool| -> Vec<String> {
        let mut r: Vec<&Value> = records.iter().collect();
        r.sort_by(|a, b| {
            a[key]
                .as_f64()
                .unwrap()
                .total_cmp(&b[key].as_f64().unwrap())
        });
        if descending {
            r.reverse();
        }
        r.iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    let ids: Vec<String> = records
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(rows_of(json!({"records": bcg})), ids);
    assert_eq!(
        rows_of(json!({"records": bcg, "order": "estimate"})),
        sorted_by("yi", false)
    );
    assert_eq!(
        rows_of(json!({"records": bcg, "order": "precision"})),
        sorted_by("vi", false)
    );
    assert_eq!(rows_of(json!({"records": bcg, "order": "n"})), ids);
    let e = tools::call("forest_plot", &json!({"records": bcg, "order": "colour"})).unwrap_err();
    assert_eq!(e.code.as_str(), "invalid_arguments", "{}", e.message);

    let out = tools::call(
        "forest_plot",
        &json!({"records": bcg, "ilab": ["year", "n"]}),
    )
    .unwrap();
    assert_eq!(out["numbers"]["ilab"], json!(["year", "n"]));
    assert_eq!(out["numbers"]["rows"][0]["ilab"], json!(["1948", "100"]));
    let doc = Document::parse(out["svg"].as_str().unwrap()).unwrap();
    let header: Vec<&str> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("header"))
        .flat_map(|g| g.children().filter_map(|n| n.text()))
        .filter(|t| !t.trim().is_empty())
        .collect();
    assert_eq!(header[..4], ["Record", "year", "n", "Risk ratio [95% CI]"]);
    // More columns than a phone-wide plot holds beside the weights: the weight column gives
    // way, and a note says so.
    let wide = tools::call(
        "forest_plot",
        &json!({"records": bcg, "ilab": ["year", "n", "vi", "measure"]}),
    )
    .unwrap();
    let svg = wide["svg"].as_str().unwrap();
    assert!(svg.contains("Weights: the squares"), "{svg}");
    assert!(!svg.contains(">Weight<"));
    let first = doc
        .descendants()
        .find(|n| n.attribute("data-id") == Some(ids[0].as_str()))
        .unwrap();
    let texts: Vec<&str> = first.children().filter_map(|n| n.text()).collect();
    assert!(
        texts.contains(&"1948") && texts.contains(&"100"),
        "{texts:?}"
    );
}

/// Issue 41 item 14: an ilab cell or column name is cut as a label is (24 characters, the
/// last "…"), so one long cell cannot widen the forest without bound (a 5,000-character cell
/// drew it 31,417 units wide); `numbers` keeps the cell whole.
#[test]
fn long_ilab_cells_are_cut_as_labels_are() {
    let viewbox_width = |out: &Value| -> f64 {
        let doc = Document::parse(out["svg"].as_str().unwrap()).unwrap();
        let view_box = doc.root_element().attribute("viewBox").unwrap().to_string();
        view_box.split(' ').nth(2).unwrap().parse().unwrap()
    };
    let mut bcg = bcg_rr_records();
    let long = "w".repeat(5_000);
    let column = format!("c{}", "n".repeat(5_000));
    for (i, r) in bcg.as_array_mut().unwrap().iter_mut().enumerate() {
        r["note"] = Value::from(if i == 0 { long.clone() } else { "x".into() });
        r[column.as_str()] = Value::from(i as f64);
    }
    let short = tools::call("forest_plot", &json!({"records": bcg, "ilab": ["year"]})).unwrap();
    let out = tools::call(
        "forest_plot",
        &json!({"records": bcg, "ilab": ["note", column]}),
    )
    .unwrap();
    assert!(viewbox_width(&out) < 800.0, "{}", viewbox_width(&out));
    assert!(viewbox_width(&short) <= viewbox_width(&out));
    assert_eq!(out["numbers"]["rows"][0]["ilab"][0], json!(long));
    let cut = format!("{}…", "w".repeat(23));
    let svg = out["svg"].as_str().unwrap();
    assert!(svg.contains(&format!(">{cut}<")), "{svg}");
    assert!(svg.contains(&format!(">c{}…<", "n".repeat(22))));
}

/// A manuscript's forest shows whole labels: a label wider than its column wraps at its
/// spaces onto further lines of its row (the row grows), never cut with "…"; the interval
/// and the estimate stay on the first line.
#[test]
fn forest_labels_wrap_and_are_never_cut() {
    let records = bcg_rr_labelled();
    let out = tools::call("forest_plot", &json!({"records": records})).unwrap();
    let doc = Document::parse(out["svg"].as_str().unwrap()).unwrap();
    let rows: Vec<Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("row"))
        .collect();
    assert_eq!(rows.len(), 13);
    let mut wrapped = 0;
    let mut previous_bottom = 0.0f64;
    for (row, record) in rows.iter().zip(records.as_array().unwrap()) {
        let label = record["label"].as_str().unwrap();
        let texts: Vec<Node> = row.children().filter(|n| n.has_tag_name("text")).collect();
        let lines: Vec<Node> = texts
            .iter()
            .copied()
            .filter(|n| n.attribute("text-anchor").is_none())
            .collect();
        let words: Vec<&str> = lines.iter().map(|n| n.text().unwrap()).collect();
        assert_eq!(words.join(" "), label, "{words:?}");
        assert!(words.iter().all(|w| !w.contains('…')), "{words:?}");
        if lines.len() > 1 {
            wrapped += 1;
        }
        // The estimate and weight on the first line's baseline, the lines 11 px or more
        // apart and below the previous row.
        let first_y = num(lines[0], "y");
        for n in texts
            .iter()
            .filter(|n| n.attribute("text-anchor") == Some("end"))
        {
            assert_eq!(num(*n, "y"), first_y, "{label}");
        }
        assert!(first_y - previous_bottom >= LEAST_PX, "{label}");
        for pair in lines.windows(2) {
            assert!(num(pair[1], "y") - num(pair[0], "y") >= LEAST_PX, "{label}");
        }
        previous_bottom = num(*lines.last().unwrap(), "y");
        // The interval on the first line.
        let ci = row
            .children()
            .find(|n| n.attribute("class") == Some("ci"))
            .unwrap();
        assert!((num(ci, "y1") - (first_y - 4.0)).abs() < 1e-9, "{label}");
    }
    // "Frimodt-Moller et al 1973", "Hart & Sutherland 1977", ... do not fit on one line.
    assert!(wrapped >= 3, "{wrapped} rows wrapped");
}
