//! What the page shows that is not a tool: its header facts, the conditions of the A/B
//! protocol and their labels, and the count of scored fields. The page renders these
//! values; it decides none of them.

use crate::runs::Condition;
use crate::{baselines, dataset, protocol, scorer};
use serde::Serialize;

/// One condition of the A/B protocol, as the page shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ConditionLabel {
    /// The key used in run records and the page's element ids (`pdf`, `webmcp`).
    pub key: &'static str,
    /// How the page names it.
    pub label: &'static str,
}

/// The page's metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    }
}
