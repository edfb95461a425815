//! CSV import and effect sizes: any bytes, as a pasted or picked file, read as CSV and turned
//! into records for each measure (the page's Your data view, and `call --records`). Never a
//! panic; a view always says either its records or why there are none, and every record it
//! passes to the tools has an id and finite yi and vi > 0.

#![no_main]

use exemplar::{csv_table, your_data};
use libfuzzer_sys::fuzz_target;

const MEASURES: [&str; 10] = [
    "MD", "SMD", "ROM", "OR", "RR", "RD", "COR", "ZCOR", "PR", "PLO",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    if let Ok(table) = csv_table::parse(text) {
        for row in table.json_rows() {
            assert!(row.len() <= table.header.len());
        }
    }
    let measure = MEASURES
        .get(usize::from(pick) % (MEASURES.len() + 1))
        .copied();
    let request = serde_json::json!({"csv": text, "measure": measure});
    let view = your_data::view_json(&request.to_string());
    assert!(view.is_object());
    if let Some(records) = view["tool_records"].as_array() {
        for record in records {
            assert!(record["id"].is_string(), "{record}");
            let yi = record["yi"].as_f64().expect("yi is a number");
            let vi = record["vi"].as_f64().expect("vi is a number");
            assert!(yi.is_finite() && vi.is_finite() && vi > 0.0, "{record}");
        }
    }
    match your_data::records_from_text(text, measure, &Default::default()) {
        Ok(records) => assert!(records.iter().all(|r| r.get("id").is_some())),
        Err(error) => assert!(!error.message.is_empty()),
    }
});
