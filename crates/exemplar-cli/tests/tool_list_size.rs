//! What an agent pays on every discovery: each definition of the tool list `exemplar tools`
//! prints (the same definitions MCP's tools/list and the page's WebMCP registrations carry)
//! stays within `exemplar::tools::MAX_DEFINITION_BYTES` as compact JSON, the form a protocol
//! sends (the command itself indents its JSON for a person to read), the list within
//! `MEAN_DEFINITION_BYTES` a tool on average, and no long sentence is said in two tools'
//! descriptions: shared rules are said once, in `exemplar::tools::instructions()`.

use serde_json::Value;
use std::collections::HashMap;
use std::process::Command;

#[test]
fn each_definition_keeps_its_budget_with_no_sentence_repeated() {
    let out = Command::new(env!("CARGO_BIN_EXE_exemplar"))
        .arg("tools")
        .output()
        .expect("exemplar runs");
    assert!(out.status.success());
    let tools: Value = serde_json::from_slice(&out.stdout).expect("a JSON tool list");
    let list = tools.as_array().unwrap();
    for tool in list {
        let compact = tool.to_string().len();
        assert!(
            compact <= exemplar::tools::MAX_DEFINITION_BYTES,
            "{} is {compact} bytes of JSON; at most {}",
            tool["name"],
            exemplar::tools::MAX_DEFINITION_BYTES
        );
    }
    let mean = tools.to_string().len() / list.len();
    assert!(
        mean <= exemplar::tools::MEAN_DEFINITION_BYTES,
        "`exemplar tools` is {mean} bytes of JSON a tool on average; at most {}",
        exemplar::tools::MEAN_DEFINITION_BYTES
    );
    let mut said: HashMap<String, String> = HashMap::new();
    for tool in tools.as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let description = tool["description"].as_str().unwrap();
        for sentence in description.split(". ").map(str::trim) {
            if sentence.chars().count() < 80 {
                continue;
            }
            if let Some(other) = said.insert(sentence.to_string(), name.to_string()) {
                assert_eq!(other, name, "{other} and {name} both say {sentence:?}");
            }
        }
    }
}
