//! What the page shows that is not a tool: its header facts, the conditions of the A/B
//! protocol and their labels, the counts its text states (scored fields, records), the
//! ledger's fields, and how large a plot it draws by itself. The page renders these values;
//! it decides none of them.

use crate::ledger;
use crate::runs::Condition;
use crate::{baselines, dataset, protocol, scorer};
use serde::Serialize;

/// A plot's SVG longer than this (in UTF-16 code units, as the page measures text) is not
/// drawn by itself: parsing and laying out SVG costs the page's thread about 70 ms per
/// million characters (a cumulative forest plot of 2,000 records, about 2 M characters,
/// held it for 140 ms), and no run may hold it for more than 50 ms. Such a plot is offered
/// as a download, and drawn when the person asks.
pub const MAX_DRAWN_SVG_CHARS: usize = 300_000;

/// One condition of the A/B protocol, as the page shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct ConditionLabel {
    /// The key used in run records and the page's element ids (`pdf`, `webmcp`).
    pub key: &'static str,
    /// How the page names it.
    pub label: &'static str,
}

/// The page's metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct PageMetadata {
    pub baseline_version: &'static str,
    pub dataset_name: &'static str,
    pub dataset_description: &'static str,
    pub dataset_sha256: &'static str,
    pub engine_version: &'static str,
    pub prompt: &'static str,
    pub rule: &'static str,
    /// SHA-256 of the current released baseline's PDF.
    pub pdf_sha256: &'static str,
    pub pdf_path: &'static str,
    pub conditions: [ConditionLabel; 2],
    /// How many fields the scorer checks.
    pub scored_fields: usize,
    /// How many records the frozen dataset has.
    pub record_count: usize,
    /// The fields of a ledger entry, in the order an exported entry has them.
    pub ledger_fields: Vec<String>,
    /// The longest plot SVG the page draws by itself ([`MAX_DRAWN_SVG_CHARS`]).
    pub max_drawn_svg_chars: usize,
}

/// The page's metadata.
pub fn metadata() -> PageMetadata {
    PageMetadata {
        baseline_version: baselines::BASELINE_VERSION,
        dataset_name: dataset::NAME,
        dataset_description: dataset::DESCRIPTION,
        dataset_sha256: dataset::sha256(),
        engine_version: crate::ENGINE_VERSION,
        prompt: protocol::PROMPT,
        rule: protocol::RULE_TEXT,
        pdf_sha256: baselines::current().pdf_sha256,
        pdf_path: protocol::PDF_PATH,
        conditions: Condition::BOTH.map(|c| ConditionLabel {
            key: c.name(),
            label: c.label(),
        }),
        scored_fields: scorer::FIELD_COUNT,
        record_count: dataset::rows().len(),
        ledger_fields: ledger::ENTRY_FIELDS.map(String::from).to_vec(),
        max_drawn_svg_chars: MAX_DRAWN_SVG_CHARS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_names_the_frozen_artifacts() {
        let m = serde_json::to_value(metadata()).unwrap();
        assert_eq!(m["baseline_version"], baselines::BASELINE_VERSION);
        assert_eq!(m["dataset_sha256"], dataset::sha256());
        assert_eq!(m["prompt"], protocol::PROMPT);
        assert_eq!(m["pdf_sha256"], baselines::current().pdf_sha256);
        assert_eq!(m["pdf_path"], protocol::PDF_PATH);
        assert_eq!(m["scored_fields"], 13);
        assert_eq!(m["conditions"][1]["label"], "WebMCP");
        assert_eq!(m["record_count"], 19);
        assert_eq!(m["max_drawn_svg_chars"], 300_000);
    }

    /// The ledger's fields are an entry's, in its order: `args` among them, `hash` last.
    #[test]
    fn the_ledger_fields_are_an_entrys() {
        assert_eq!(
            metadata().ledger_fields,
            [
                "seq",
                "time",
                "tool",
                "status",
                "args",
                "dataset_sha256",
                "engine_version",
                "result_sha256",
                "prev_hash",
                "hash"
            ]
        );
    }
}
