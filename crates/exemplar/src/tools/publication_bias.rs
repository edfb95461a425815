//! Tests of the selection-model and PET-PEESE tools together (their level is
//! `args::LevelArg`'s; the statistics are `meta_analysis`').

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::super::{call, PET_PEESE, SELECTION_MODEL};
    use meta_analysis::{FitOptions, DEFAULT_STEPS};
    use serde_json::{json, Value};

    #[cfg(feature = "extended")]
    #[test]
    fn the_frozen_dataset_has_a_selection_model_and_pet_peese() {
        let records = crate::dataset::records();
        let out = call(SELECTION_MODEL.name, &json!({})).unwrap();
        let lib = meta_analysis::selection_model(&records, &DEFAULT_STEPS, &FitOptions::default())
            .unwrap();
        assert_eq!(out["estimate"].as_f64(), Some(lib.estimate));
        assert_eq!(out["steps"], json!([0.025, 0.5, 1.0]));
        assert_eq!(out["weights"].as_array().unwrap().len(), 3);
        assert_eq!(out["weights"][0]["se"], Value::Null);
        // dat.raudenbush1985's maximum lies at tau2 = 0: no se of tau2.
        assert_eq!(out["tau2"], 0.0);
        assert_eq!(out["se_tau2"], Value::Null);

        let out = call(PET_PEESE.name, &json!({"exclude": ["s04"]})).unwrap();
        assert_eq!(out["k"], 18);
        assert_eq!(out["pet"]["df"], 16.0);
        let chosen = if out["pet_rejects"] == true {
            "peese"
        } else {
            "pet"
        };
        assert_eq!(out["estimate"], out[chosen]["intercept"]["estimate"]);
    }

    #[cfg(feature = "extended")]
    #[test]
    fn bad_arguments_are_refused() {
        for (tool, args, code) in [
            (
                SELECTION_MODEL.name,
                json!({"steps": [0.0]}),
                "analysis_failed",
            ),
            (
                SELECTION_MODEL.name,
                json!({"steps": [0.3, 0.31, 0.32]}),
                "analysis_failed",
            ),
            (
                SELECTION_MODEL.name,
                json!({"steps": [0.5, 2]}),
                "invalid_arguments",
            ),
            (PET_PEESE.name, json!({"alpha": 0}), "invalid_arguments"),
            (
                PET_PEESE.name,
                json!({"alternative": "up"}),
                "invalid_arguments",
            ),
        ] {
            let e = call(tool, &args).unwrap_err();
            assert_eq!(e.code.as_str(), code, "{tool} {args}: {}", e.message);
        }
    }
}
