//! Issue 42 item 7: a forest plot's labels and headers on data no other test uses.
//! - The estimate column over back-transformed values is headed by the natural scale's
//!   name ("Correlation [95% CI]" over ZCOR, "Proportion [95% CI]" over PLO, "Odds ratio
//!   [95% CI]" over OR), never the model scale's ("ZCOR [95% CI]").
//! - Rows are labelled by `slab`, else `label`, else author and year, else the id.
//! - `by` leaves a record with a blank group out and lists it in `omitted`, as
//!   subgroup_analysis does; the groups drawn are metafor 3.8-1's without that record
//!   (`fixtures/mixed_columns.json`, crates/meta-analysis/tests/oracle/mixed_columns.R:
//!   dat.debruin2009, proportions), at 1e-8.

use exemplar::tools::call;
use serde_json::{json, Value};

const TOLERANCE: f64 = 1e-8;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/mixed_columns.json")).expect("JSON")
}

fn close(what: &str, got: &Value, want: &Value) {
    let (g, w) = (got.as_f64().unwrap(), want.as_f64().unwrap());
    assert!(
        (g - w).abs() <= TOLERANCE * w.abs().max(1.0),
        "{what} = {g}, metafor {w}"
    );
}

/// The text of every <text> element of the SVG, its tspans joined.
fn texts(svg: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in svg.split("<text").skip(1) {
        let body = piece.split("</text>").next().unwrap_or_default();
        let mut text = String::new();
        let mut inside = true; // in the opening tag, after "<text"
        for c in body.chars() {
            match c {
                '<' => inside = true,
                '>' => inside = false,
                c if !inside => text.push(c),
                _ => {}
            }
        }
        out.push(text.replace("&amp;", "&"));
    }
    out
}

/// dat.debruin2009's records (proportions) with author and year.
fn debruin() -> Value {
    let authors = [
        "Andrade et al.",
        "Fairley et al.",
        "Goujard et al.",
        "Holzemer et al.",
        "Kalichman et al.",
        "Knobel et al.",
        "Martin et al.",
        "Murphy et al.",
        "Pradier et al.",
        "Safren et al.",
        "Sampaio-Sa et al.",
        "Tuldra et al.",
        "Wagner",
    ];
    let mut records = fixture()["records_mixed"].clone();
    for (i, r) in records.as_array_mut().unwrap().iter_mut().enumerate() {
        r["author"] = json!(authors[i]);
        r["year"] = json!(2000 + i);
    }
    records
}

#[test]
fn back_transformed_columns_are_headed_by_the_natural_scale() {
    // ZCOR of r = 0.1 .. 0.5 (dat.mcdaniel1994's first studies' ri and ni).
    let zcor: Vec<Value> = [(0.0, 123.0), (0.06, 95.0), (0.36, 69.0), (0.15, 1832.0), (0.14, 78.0)]
        .iter()
        .enumerate()
        .map(|(i, &(r, n)): (usize, &(f64, f64))| {
            json!({"id": format!("m{i}"), "yi": r.atanh(), "vi": 1.0 / (n - 3.0)})
        })
        .collect();
    for (records, measure, heading, wrong) in [
        (json!(zcor), "ZCOR", "Correlation [95% CI]", "ZCOR [95% CI]"),
        (debruin(), "PLO", "Proportion [95% CI]", "PLO [95% CI]"),
        (debruin(), "OR", "Odds ratio [95% CI]", "OR [95% CI]"),
    ] {
        let result = call(
            "forest_plot",
            &json!({"records": records, "measure": measure}),
        )
        .unwrap_or_else(|e| panic!("{measure}: {e}"));
        let texts = texts(result["svg"].as_str().unwrap());
        assert!(texts.iter().any(|t| t == heading), "{measure}: {texts:?}");
        assert!(!texts.iter().any(|t| t == wrong), "{measure}: {texts:?}");
    }
    // A measure that is its own natural scale keeps its name.
    let result = call(
        "forest_plot",
        &json!({"records": debruin(), "measure": "PR"}),
    )
    .unwrap();
    assert!(texts(result["svg"].as_str().unwrap())
        .iter()
        .any(|t| t == "PR [95% CI]"));
}

#[test]
fn rows_are_labelled_by_slab_label_author_and_year_or_id() {
    // Each row's label (`numbers.rows[].label`), in record order.
    let labels = |records: &Value, slab: Option<&str>| -> Vec<String> {
        let mut args = json!({"records": records});
        if let Some(slab) = slab {
            args["slab"] = json!(slab);
        }
        let result = call("forest_plot", &args).unwrap();
        let mut rows = result["numbers"]["rows"].as_array().unwrap().clone();
        rows.sort_by_key(|r| r["id"].as_str().unwrap().parse::<u32>().unwrap());
        rows.iter()
            .map(|r| r["label"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let records = debruin();
    // author and year
    let got = labels(&records, None);
    assert_eq!(got[0], "Andrade et al., 2000");
    assert_eq!(got[12], "Wagner, 2012");
    // label before author and year
    let mut labelled = records.clone();
    for r in labelled.as_array_mut().unwrap() {
        r["label"] = json!(format!("lab {}", r["id"].as_str().unwrap()));
    }
    assert_eq!(labels(&labelled, None)[0], "lab 1");
    // slab before label
    assert_eq!(labels(&labelled, Some("author"))[0], "Andrade et al.");
    // author without year; neither: the id
    let mut authors = records.clone();
    for r in authors.as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("year");
    }
    assert_eq!(labels(&authors, None)[12], "Wagner");
    for r in authors.as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("author");
    }
    let got = labels(&authors, None);
    assert!(got[12] == "13" || got[12].is_empty(), "{got:?}");
    let svg = texts(
        call("forest_plot", &json!({"records": authors})).unwrap()["svg"]
            .as_str()
            .unwrap(),
    );
    assert!(svg.iter().any(|t| t == "13"), "{svg:?}");
}

#[test]
fn by_leaves_out_a_record_with_a_blank_group_as_metafor_s_na_omit() {
    let fixture = fixture();
    let want = &fixture["blank_first"];
    for blank in [json!(""), json!(null), json!("NA")] {
        let mut records = fixture["records_mixed"].clone();
        records[0]["sens"] = blank.clone();
        let result = call("forest_plot", &json!({"records": records, "by": "sens"}))
            .unwrap_or_else(|e| panic!("blank {blank}: {e}"));
        let omitted = result["omitted"].as_array().unwrap();
        assert_eq!(omitted.len(), 1, "{omitted:?}");
        assert_eq!(omitted[0]["id"], "1");
        assert_eq!(result["subgroups"]["omitted"], result["omitted"]);
        assert_eq!(result["fit"]["k"], want["k"]);
        for key in ["estimate", "ci_lower", "ci_upper"] {
            close(key, &result["fit"][key], &want[key]);
        }
        let groups = result["subgroups"]["groups"].as_array().unwrap();
        for theirs in want["groups"].as_array().unwrap() {
            let ours = groups
                .iter()
                .find(|g| g["level"] == theirs["level"])
                .unwrap();
            assert_eq!(ours["k"], theirs["k"]);
            for key in ["estimate", "se", "ci_lower", "ci_upper", "tau2"] {
                close(key, &ours[key], &theirs[key]);
            }
        }
        // The same as subgroup_analysis leaves out.
        let subgroups = call(
            "subgroup_analysis",
            &json!({"records": records, "by": "sens"}),
        )
        .unwrap();
        assert_eq!(subgroups["omitted"], result["omitted"]);
        // The record is not drawn.
        let rows = result["numbers"]["rows"].as_array().unwrap();
        assert!(rows.iter().all(|r| r["id"] != "1"), "{rows:?}");
        assert_eq!(rows.len(), 12);
    }
}
