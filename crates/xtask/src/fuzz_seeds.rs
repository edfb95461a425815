//! The fuzz targets' committed seed corpora (`fuzz/seeds/<target>/`) and their dictionary of
//! JSON tokens (`fuzz/json.dict`), built from the inputs the unit tests use and from the
//! registry itself, so that a new tool, property or enum value is seeded without anyone
//! remembering to. `cargo xtask codegen` writes them, and its check fails when the committed
//! files differ from what this module builds.
//!
//! Each seed file is named by the first 16 hex digits of its SHA-256, as libFuzzer names the
//! inputs it keeps, so that the same input is never stored twice; a tool dispatch seed's name
//! begins with its tool's name, and its bytes name the tool too (`<tool>\n<arguments>`), so
//! adding a tool adds its seeds and changes no other tool's.

use std::collections::{BTreeMap, BTreeSet};

use exemplar::runs::{make_record, Condition, Order, RunInput};
use exemplar::tools::{self, REGISTRY};
use serde_json::{json, Value};

/// Where the seed corpora are, relative to the workspace root.
pub const SEEDS_DIR: &str = "fuzz/seeds";
/// The dictionary every target runs with, relative to the workspace root.
pub const DICTIONARY: &str = "fuzz/json.dict";

/// Every seed, by target name: (file name, bytes).
pub fn seeds() -> BTreeMap<&'static str, BTreeMap<String, Vec<u8>>> {
    let named = |inputs: Vec<Vec<u8>>| {
        inputs
            .into_iter()
            .map(|bytes| (exemplar::sha256_hex(&bytes)[..16].to_string(), bytes))
            .collect()
    };
    let by_tool = tool_dispatch()
        .into_iter()
        .map(|(tool, bytes)| {
            let hash = exemplar::sha256_hex(&bytes)[..16].to_string();
            (format!("{tool}-{hash}"), bytes)
        })
        .collect();
    BTreeMap::from([
        ("tool_dispatch", by_tool),
        ("scorer", named(scorer())),
        ("run_records", named(run_records())),
        ("schema_validator", named(schema_validator())),
        ("strict_json", named(strict_json())),
        ("csv_effect_sizes", named(csv_effect_sizes())),
    ])
}

/// The CSV tests' inputs, each behind the byte that picks the measure: means and SDs with a
/// BOM, CRLF and semicolons, 2×2 tables, correlations, proportions, records with yi and vi,
/// a bad row, an open quote.
fn csv_effect_sizes() -> Vec<Vec<u8>> {
    let with = |measure: u8, text: &str| {
        let mut bytes = vec![measure];
        bytes.extend_from_slice(text.as_bytes());
        bytes
    };
    vec![
        with(1, "\u{feff}id;m1i;sd1i;n1i;m2i;sd2i;n2i;dose\r\ns1;10,2;2,1;20;9,1;2,4;22;5\r\ns2;3,1;-1;12;3,9;1,5;12;10\r\n"),
        with(0, "m1i,sd1i,n1i,m2i,sd2i,n2i\n5,1,30,4.4,1.2,28\n7.7,2.2,16,6.1,2,18\n"),
        with(3, "id\tai\tbi\tci\tdi\na\t0\t10\t3\t7\nb\t4\t6\t2\t8\n"),
        with(5, "ai,n1i,ci,n2i\n2,20,0,20\n"),
        with(7, "ri,ni\n0.3,50\n0.999999,20\n1.2,40\n"),
        with(8, "xi,ni\n0,10\n10,10\n3,12\n"),
        with(10, "id,yi,vi,site\na,0.1,0.01,n\nb,0.2,0.02,s\n"),
        with(2, "id,\"m1i\",sd1i\n\"a,b\",1,\"2\n"),
    ]
}

/// The most combinations of enum values one tool's dispatch seeds take.
const MAX_ENUM_COMBINATIONS: usize = 32;

/// Four custom records, as the tools' output-schema tests use them.
fn four_records() -> Value {
    json!([
        {"id": "a", "yi": 0.1, "vi": 0.01},
        {"id": "b", "yi": 0.3, "vi": 0.02},
        {"id": "c", "yi": -0.1, "vi": 0.04},
        {"id": "d", "yi": 0.5, "vi": 0.03}
    ])
}

/// The arguments of every tool call in the tests' shapes, following each tool's input schema:
/// no arguments, each enum value of each property, exclusions, custom records, and the
/// refusals the tests check. Each seed is the tool's name, a newline and the arguments text.
fn tool_dispatch() -> Vec<(String, Vec<u8>)> {
    let mut inputs = Vec::new();
    for definition in tools::definitions() {
        let properties = definition.input_schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut calls: Vec<String> = vec![String::new(), "{}".into()];
        let enums: Vec<(&String, &Vec<Value>)> = properties
            .iter()
            .filter_map(|(name, property)| property["enum"].as_array().map(|v| (name, v)))
            .collect();
        // Every combination while they are few; beyond that (a fit's method, test, measure
        // and transform make 910) each value of each property once.
        let combinations: usize = enums.iter().map(|(_, values)| values.len()).product();
        let mut with_enums = vec![json!({})];
        if combinations <= MAX_ENUM_COMBINATIONS {
            for (name, values) in &enums {
                with_enums = with_enums
                    .iter()
                    .flat_map(|base| {
                        values.iter().map(move |v| {
                            let mut call = base.clone();
                            call[name.as_str()] = v.clone();
                            call
                        })
                    })
                    .collect();
            }
        } else {
            with_enums = enums
                .iter()
                .flat_map(|(name, values)| {
                    values.iter().map(move |v| {
                        let mut call = json!({});
                        call[name.as_str()] = v.clone();
                        call
                    })
                })
                .collect();
        }
        for mut call in with_enums {
            if properties.contains_key("level") {
                call["level"] = json!(0.9);
            }
            calls.push(call.to_string());
        }
        if properties.contains_key("exclude") {
            calls.push(json!({"exclude": ["s04"]}).to_string());
            calls.push(json!({"exclude": ["zz"]}).to_string());
            calls.push(json!({"exclude": []}).to_string());
        }
        if properties.contains_key("records") {
            calls.push(json!({"records": four_records()}).to_string());
            if properties.contains_key("exclude") {
                calls.push(json!({"records": four_records(), "exclude": ["a"]}).to_string());
            }
            calls.push(json!({"records": [{"id": "a", "yi": 0.1, "vi": -1}]}).to_string());
            calls.push(json!({"records": [{"id": "a", "yi": 1e308, "vi": 0}]}).to_string());
        }
        calls.push(json!({"extra": 1}).to_string());
        calls.push(r#"{"method":"DL","method":"REML"}"#.into());
        calls.push("{".into());
        for call in calls {
            inputs.push((
                definition.name.to_string(),
                format!("{}\n{call}", definition.name).into_bytes(),
            ));
        }
    }
    inputs.push(("unknown".into(), b"no_such_tool\n{}".to_vec()));
    inputs
}

fn reference_text() -> String {
    serde_json::to_string(&exemplar::protocol::reference_answer()).expect("the answer serializes")
}

/// The scorer tests' answers: the reference (compact, pretty, with a BOM), one field wrong,
/// and the parse failures (fence, array, two values, empty, duplicate, not UTF-8, too deep).
fn scorer() -> Vec<Vec<u8>> {
    let reference = reference_text();
    let value: Value = serde_json::from_str(&reference).expect("the reference is JSON");
    let mut one_wrong = value.clone();
    one_wrong["overall"]["k"] = json!(18);
    let mut wrong_types = value.clone();
    wrong_types["exclude_s04"]["excluded"] = json!("s04");
    wrong_types["bias"] = json!([]);
    let texts = [
        reference.clone(),
        serde_json::to_string_pretty(&value).expect("the reference serializes"),
        format!("\u{FEFF}{reference}"),
        one_wrong.to_string(),
        wrong_types.to_string(),
        "{}".into(),
        "```json\n{}\n```".into(),
        format!("[{reference}]"),
        format!("{reference} {reference}"),
        format!("The answer: {reference}"),
        String::new(),
        r#"{"overall":{"k":19},"overall":{"k":18}}"#.into(),
        format!("{}{}", "{\"a\":".repeat(130), "}".repeat(130)),
    ];
    let mut inputs: Vec<Vec<u8>> = texts.into_iter().map(String::into_bytes).collect();
    inputs.push(b"{\"a\": \"\xff\"}".to_vec());
    inputs
}

fn run_input(pair: &str, condition: Condition, order: Order) -> RunInput {
    RunInput {
        date: "2026-11-30".into(),
        condition,
        pair: pair.into(),
        order,
        model: "model-x".into(),
        settings: "temperature 0".into(),
        host: "test host".into(),
        latency_ms: Some(1200),
        tokens: Some(3400),
    }
}

/// The runs tests' fixture: three complete pairs (one answer wrong in a field, one a parse
/// failure), as one set of files separated by NUL bytes, and each record alone; then the
/// malformed records the tests name.
fn run_records() -> Vec<Vec<u8>> {
    use Condition::{Pdf, Webmcp};
    use Order::{First, Second};
    let reference = reference_text();
    let mut wrong: Value = serde_json::from_str(&reference).expect("the reference is JSON");
    wrong["overall"]["k"] = json!(18);
    let wrong = wrong.to_string();
    let records = [
        (run_input("p1", Pdf, First), wrong.as_str()),
        (run_input("p1", Webmcp, Second), reference.as_str()),
        (run_input("p2", Webmcp, First), reference.as_str()),
        (run_input("p2", Pdf, Second), "```json\n{}\n```"),
        (run_input("p3", Pdf, First), reference.as_str()),
        (run_input("p3", Webmcp, Second), reference.as_str()),
    ]
    .map(|(input, answer)| {
        let record = make_record(input, answer).expect("the fixture inputs are valid");
        serde_json::to_string_pretty(&record).expect("a record serializes")
    });
    let mut inputs = vec![records.join("\0").into_bytes()];
    inputs.extend(records.iter().map(|r| r.clone().into_bytes()));
    let mut edited: Value = serde_json::from_str(&records[0]).expect("a record is JSON");
    edited["score"]["passed"] = json!(13);
    inputs.push(edited.to_string().into_bytes());
    let mut edited: Value = serde_json::from_str(&records[0]).expect("a record is JSON");
    edited["date"] = json!("2026-02-31");
    edited["baseline_version"] = json!("1999-01-01.v9");
    inputs.push(edited.to_string().into_bytes());
    inputs.push(br#"{"schema":"exemplar-run/1","surprise":1}"#.to_vec());
    inputs.push(b"{ not json".to_vec());
    inputs
}

/// Each tool's input schema followed by arguments it accepts and ones it refuses, and the
/// shapes of the validator's own tests.
fn schema_validator() -> Vec<Vec<u8>> {
    let mut inputs = Vec::new();
    for definition in tools::definitions() {
        let schema = definition.input_schema.to_string();
        for value in [
            json!({}),
            json!({"exclude": ["s04"], "level": 0.9}),
            json!({"records": four_records()}),
            json!({"records": [{"id": 1, "yi": "x"}], "level": 2}),
            json!({"extra": null}),
        ] {
            inputs.push(format!("{schema}\n{value}").into_bytes());
        }
    }
    let schema = json!({
        "type": "object",
        "properties": {
            "method": {"type": "string", "enum": ["REML", "DL"], "description": "estimator"},
            "level": {"type": "number", "minimum": 0, "maximum": 1},
            "k": {"type": "integer"},
            "note": {"type": ["string", "null"]},
            "list": {"type": "array", "items": {"type": "boolean"}}
        },
        "required": ["method"],
        "additionalProperties": false
    });
    for value in [
        json!({"method": "REML", "level": 0.5, "k": 3, "note": null, "list": [true]}),
        json!({"method": "PM"}),
        json!({"method": "DL", "k": 2.5}),
        json!({"level": 1.5}),
        json!({"method": "DL", "list": [1]}),
    ] {
        inputs.push(format!("{schema} {value}").into_bytes());
    }
    inputs.push(br##"{"$ref":"#"} {}"##.to_vec());
    inputs
}

/// The strict parser's test texts: duplicates at any depth and after unescaping, siblings
/// that are not duplicates, surrogates, numbers serde_json reads in different ways, nesting
/// at and past the limit, a byte order mark, syntax errors.
fn strict_json() -> Vec<Vec<u8>> {
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let texts = [
        r#"{"method":"DL","method":"REML"}"#.to_string(),
        "{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3\n}".into(),
        r#"{"records":[{"id":"s01"},{"id":"s02","yi":1,"id":"s03"}]}"#.into(),
        r#"[[1,{"x":{"y":[{"z":1,"z":2}]}}]]"#.into(),
        r#"{"a":1,"\u0061":2}"#.into(),
        r#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"c":{"a":3}}"#.into(),
        // A key repeated inside a subtree that a later repeated key replaces (serde_json keeps
        // the last "c", so its value does not hold "k"; found by the fuzzer, 2026-12-07).
        r#"{"c":[{"k":1,"k":2}],"c":{"a":3}}"#.into(),
        r#"{"a":1,"A":2,"a ":3}"#.into(),
        "{\"\\n\\u0000\":1,\"\\n\\u0000\":2}".into(),
        r#"["\ud800\u0041"]"#.into(),
        r#""\ud83d\ude00""#.into(),
        r#"{"z":1,"a":-2,"m":0.30000000000000004,"b":-0,"c":18446744073709551616}"#.into(),
        "[1e400, 1e-400, -0.0, 123456789012345678901234567890]".into(),
        nested(127),
        nested(128),
        "\u{FEFF}{}".into(),
        "{\"a\": 1,}".into(),
        "{} {}".into(),
        " {\"a\":1} rest".into(),
    ];
    texts.into_iter().map(String::into_bytes).collect()
}

/// The dictionary: JSON's own tokens and the words the inputs are made of (every property
/// name and enum value of the tool schemas, the schema keywords, the answer's keys, a run
/// record's keys and spellings), one quoted JSON string each.
pub fn dictionary() -> String {
    let mut words: BTreeSet<String> = BTreeSet::new();
    for definition in tools::definitions() {
        collect_schema_words(&definition.input_schema, &mut words);
    }
    words.extend(exemplar::schema_check::KEYWORDS.map(String::from));
    words.extend(
        [
            "null", "boolean", "number", "integer", "string", "array", "object",
        ]
        .map(String::from),
    );
    collect_keys(
        &serde_json::to_value(exemplar::protocol::reference_answer()).expect("serializes"),
        &mut words,
    );
    let record = make_record(
        run_input("p1", Condition::Pdf, Order::First),
        &reference_text(),
    )
    .expect("a valid record");
    let record = serde_json::to_value(&record).expect("a record serializes");
    collect_keys(&record, &mut words);
    for field in ["schema", "baseline_version", "engine_version", "date"] {
        if let Some(text) = record[field].as_str() {
            words.insert(text.to_string());
        }
    }
    words.extend(
        Condition::BOTH
            .map(|c| c.name().to_string())
            .into_iter()
            .chain(Order::BOTH.map(|o| o.name().to_string())),
    );
    words.insert("s04".into());

    let mut out = String::from(
        "# JSON tokens and the words of the tools' arguments, answers and run records.\n\
         # Written by `cargo xtask codegen` from the registry; do not edit.\n",
    );
    let tokens = [
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "\"",
        "\\",
        "true",
        "false",
        "null",
        "-0",
        "0.5",
        "1e308",
        "1e-400",
        "18446744073709551616",
        "\\u0000",
        "\\ud800",
        "\\ud83d\\ude00",
        "\u{FEFF}",
        "\u{202E}",
        "```",
    ];
    for token in tokens {
        out.push_str(&dictionary_entry(token));
    }
    for word in &words {
        out.push_str(&dictionary_entry(&format!("\"{word}\"")));
    }
    // The tool dispatch target reads a tool's name and a newline before the arguments.
    for tool in REGISTRY {
        out.push_str(&dictionary_entry(&format!("{}\n", tool.name)));
    }
    out
}

/// One libFuzzer dictionary line: the bytes quoted, with `\`, `"` and every byte outside
/// printable ASCII written `\xNN`.
fn dictionary_entry(token: &str) -> String {
    let mut line = String::from("\"");
    for b in token.bytes() {
        match b {
            b'\\' => line.push_str("\\\\"),
            b'"' => line.push_str("\\\""),
            0x20..=0x7e => line.push(char::from(b)),
            other => line.push_str(&format!("\\x{other:02X}")),
        }
    }
    line.push_str("\"\n");
    line
}

fn collect_schema_words(schema: &Value, words: &mut BTreeSet<String>) {
    if let Some(properties) = schema["properties"].as_object() {
        for (name, sub) in properties {
            words.insert(name.clone());
            collect_schema_words(sub, words);
        }
    }
    if let Some(values) = schema["enum"].as_array() {
        words.extend(values.iter().filter_map(Value::as_str).map(String::from));
    }
    if schema.get("items").is_some() {
        collect_schema_words(&schema["items"], words);
    }
}

fn collect_keys(value: &Value, words: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, sub) in map {
                words.insert(key.clone());
                collect_keys(sub, words);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_keys(v, words)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_seeded_and_seeds_stay_small() {
        let seeds = seeds();
        let dispatch = &seeds["tool_dispatch"];
        for name in REGISTRY.iter().map(|t| t.name).chain(["no_such_tool"]) {
            let prefix = format!("{name}\n");
            assert!(
                dispatch.values().any(|s| s.starts_with(prefix.as_bytes())),
                "no seed calls {name}"
            );
        }
        // 256 KiB when set; 288 KiB since issue 33: schema_validator carries every tool's
        // input schema five times, so a tool (convert_summaries: about 10 KB with its
        // dispatch seeds) and enum values of the measures (RTET, UCOR) grow it with the list.
        let total: usize = seeds.values().flat_map(|f| f.values()).map(Vec::len).sum();
        assert!(total < 288 * 1024, "the seeds hold {total} bytes");
    }

    #[test]
    fn dictionary_entries_are_quoted_and_escaped() {
        assert_eq!(dictionary_entry("\"k\""), "\"\\\"k\\\"\"\n");
        assert_eq!(dictionary_entry("\u{FEFF}"), "\"\\xEF\\xBB\\xBF\"\n");
        assert_eq!(dictionary_entry("\\u0000"), "\"\\\\u0000\"\n");
    }
}
