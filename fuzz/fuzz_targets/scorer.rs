//! The scorer on raw pasted bytes: always a report of the thirteen fields or a parse failure
//! with its reason, the same for the bytes and for the text, and serializable.

#![no_main]

use exemplar::scorer::{self, FIELD_COUNT};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let report = scorer::score_bytes(data);
    assert_eq!(report.total, FIELD_COUNT);
    if report.parsed {
        assert!(report.parse_error.is_none());
        assert_eq!(report.fields.len(), FIELD_COUNT);
        let passed = report.fields.iter().filter(|f| f.pass).count();
        assert_eq!(report.passed, Some(passed));
        assert!(report.fields.iter().all(|f| !f.reason.is_empty()));
    } else {
        let reason = report
            .parse_error
            .as_deref()
            .expect("a parse failure says why");
        assert!(!reason.is_empty());
        assert_eq!(report.passed, None);
        assert!(report.fields.is_empty());
    }
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(scorer::score(text), report);
    }
    let json = report.to_json();
    let back: scorer::ScoreReport = serde_json::from_value(json).expect("a report reads back");
    assert_eq!(back, report);
});
