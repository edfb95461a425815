//! The natural scale of PFT, PAS, IRFT, IRS, AHW and ABT against R's metafor 3.8-1
//! (fixture: `tests/fixtures/natural_scales.json`, made by
//! `crates/meta-analysis/tests/oracle/natural_scales.R`): raw data through
//! `compute_effect_sizes`, a REML fit with `fit_random_effects` (transform "auto"), and
//! `natural` against `predict(fit, transf = ...)` as a metafor user writes it (PFT:
//! `transf.ipft.hm` with `targs = list(ni = dat$ni)`; IRFT: `transf.iirft` at the harmonic
//! mean of the person-times). Agreement to 1e-9 (the fit's τ² is iterated).

use exemplar::tools::call;
use serde_json::{json, Value};

const TOL: f64 = 1e-9;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/natural_scales.json")).expect("fixture JSON")
}

#[test]
fn each_measure_reaches_its_natural_scale_as_metafor_predict() {
    let all = fixture();
    assert_eq!(all["provenance"]["packages"]["metafor"], "3.8.1");
    let mut failures = Vec::new();
    let mut largest = 0.0_f64;
    for case in all["cases"].as_array().unwrap() {
        let measure = case["measure"].as_str().unwrap();
        let es = call(
            "compute_effect_sizes",
            &json!({"measure": measure, "data": case["data"]}),
        )
        .unwrap();
        let fit = call("fit_random_effects", &json!({"records": es["records"]})).unwrap();
        assert_eq!(fit["measure"], measure);
        assert_eq!(fit["transform"], case["transform"], "{measure}");
        let (e, theirs) = (fit["estimate"].as_f64().unwrap(), &case["estimate"]);
        assert!(
            (e - theirs.as_f64().unwrap()).abs() < TOL,
            "{measure} estimate"
        );
        for key in ["estimate", "ci_lower", "ci_upper", "pi_lower", "pi_upper"] {
            let ours = fit["natural"][key].as_f64();
            let theirs = case["natural"][key].as_f64().unwrap();
            match ours {
                Some(ours) if (ours - theirs).abs() <= TOL * theirs.abs().max(1.0) => {
                    largest = largest.max((ours - theirs).abs());
                }
                _ => failures.push(format!("{measure} {key}: ours {ours:?}, metafor {theirs}")),
            }
        }
        // Records without the column the transform reads: no natural scale under "auto",
        // an error when the transform is named.
        let bare: Vec<Value> = es["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| json!({"id": r["id"], "yi": r["yi"], "vi": r["vi"], "measure": measure}))
            .collect();
        let fit = call("fit_random_effects", &json!({"records": bare})).unwrap();
        let named = call(
            "fit_random_effects",
            &json!({"records": bare, "transform": case["transform"]}),
        );
        if matches!(measure, "PFT" | "IRFT") {
            assert_eq!(fit["transform"], "none", "{measure}");
            assert!(fit["natural"].is_null(), "{measure}");
            let e = named.unwrap_err();
            assert!(e.message.contains("harmonic mean"), "{}", e.message);
        } else {
            assert_eq!(fit["transform"], case["transform"], "{measure}");
            assert_eq!(named.unwrap()["natural"], fit["natural"], "{measure}");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("largest difference {largest:e}");
}

#[test]
fn a_forest_plot_of_freeman_tukey_proportions_reads_as_proportions() {
    let all = fixture();
    let pft = &all["cases"][0];
    assert_eq!(pft["measure"], "PFT");
    let es = call(
        "compute_effect_sizes",
        &json!({"measure": "PFT", "data": pft["data"]}),
    )
    .unwrap();
    let plot = call("forest_plot", &json!({"records": es["records"]})).unwrap();
    let svg = plot["svg"].as_str().unwrap();
    assert!(
        svg.contains("Proportion (Freeman-Tukey scale)"),
        "{}",
        &svg[..svg.len().min(2000)]
    );
}
