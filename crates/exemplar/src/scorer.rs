//! Scores a raw pasted answer against the reference answer, field by field.
//!
//! The input is the raw text: after trimming surrounding white space it must be exactly one
//! JSON object with no key twice in one object ([`crate::strict_json`]), or the report is a
//! parse failure with a reason (not a score of 0); a leading byte order mark is ignored. Thirteen
//! fields are checked; `k`, `excluded` and `rule_outcome` must match exactly, the other
//! numbers within an absolute tolerance ([`TOLERANCE`], [`EGGER_P_TOLERANCE`] for `egger_p`).
//! A missing field, a wrong type or an out-of-tolerance value fails that field alone.

use crate::protocol::{reference_answer, Answer};
use crate::strict_json::{self, StrictJsonError};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// The largest answer scored: 64 KiB.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// The number of fields checked.
pub const FIELD_COUNT: usize = 13;

/// Absolute tolerance of the estimates, CI bounds and p values.
pub const TOLERANCE: f64 = 0.0005;

/// Absolute tolerance of Egger's p value.
pub const EGGER_P_TOLERANCE: f64 = 0.000005;

/// The outcome of one field.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct FieldResult {
    /// Where the field is in the answer, e.g. `overall.k`.
    pub path: String,
    pub expected: Value,
    /// The raw JSON value found, or null when the field is missing.
    pub got: Value,
    /// Absolute tolerance; null for fields that must match exactly.
    pub tolerance: Option<f64>,
    pub pass: bool,
    pub reason: String,
}

/// A score report. A parse failure has `parsed: false`, a `parse_error`, no `passed` count
/// and no fields.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct ScoreReport {
    pub parsed: bool,
    pub parse_error: Option<String>,
    pub passed: Option<usize>,
    pub total: usize,
    pub fields: Vec<FieldResult>,
}

impl ScoreReport {
    fn parse_failure(reason: impl Into<String>) -> Self {
        ScoreReport {
            parsed: false,
            parse_error: Some(reason.into()),
            passed: None,
            total: FIELD_COUNT,
            fields: Vec::new(),
        }
    }

    /// The report as JSON: what serializing it gives, built as a `Value` directly, so that
    /// the page's WebAssembly carries no serializer of the report's types into a `Value`.
    pub fn to_json(&self) -> Value {
        let mut report = Map::new();
        report.insert("parsed".into(), Value::from(self.parsed));
        report.insert("parse_error".into(), Value::from(self.parse_error.clone()));
        report.insert("passed".into(), Value::from(self.passed));
        report.insert("total".into(), Value::from(self.total));
        let fields = self.fields.iter().map(FieldResult::to_json).collect();
        report.insert("fields".into(), Value::Array(fields));
        Value::Object(report)
    }
}

impl FieldResult {
    /// The field's outcome as JSON, as serializing it gives ([`ScoreReport::to_json`]).
    fn to_json(&self) -> Value {
        let mut field = Map::new();
        field.insert("path".into(), Value::from(self.path.as_str()));
        field.insert("expected".into(), self.expected.clone());
        field.insert("got".into(), self.got.clone());
        field.insert("tolerance".into(), Value::from(self.tolerance));
        field.insert("pass".into(), Value::from(self.pass));
        field.insert("reason".into(), Value::from(self.reason.as_str()));
        Value::Object(field)
    }
}

/// Scores raw bytes (checks the size bound, then UTF-8, then [`score`]).
pub fn score_bytes(raw: &[u8]) -> ScoreReport {
    if raw.len() > MAX_ANSWER_BYTES {
        return too_long();
    }
    match std::str::from_utf8(raw) {
        Ok(text) => score(text),
        Err(e) => ScoreReport::parse_failure(format!("the answer is not valid UTF-8 text ({e})")),
    }
}

fn too_long() -> ScoreReport {
    ScoreReport::parse_failure(format!(
        "the answer is longer than {MAX_ANSWER_BYTES} bytes (64 KiB); paste only the JSON object"
    ))
}

/// The reference answer, computed by the engine the first time an answer is scored (never
/// before: the page as loaded holds no result) and kept for the later scores.
fn reference() -> &'static Answer {
    static REFERENCE: std::sync::OnceLock<Answer> = std::sync::OnceLock::new();
    REFERENCE.get_or_init(reference_answer)
}

/// Scores a raw pasted answer.
pub fn score(raw: &str) -> ScoreReport {
    if raw.len() > MAX_ANSWER_BYTES {
        return too_long();
    }
    match parse(raw) {
        Ok(answer) => check(&answer, reference()),
        Err(reason) => ScoreReport::parse_failure(reason),
    }
}

/// Exactly one JSON object after trimming, or the reason it is not.
///
/// A leading byte order mark is dropped: editors on Windows add one, and it cannot change what
/// the answer means (RFC 8259 lets parsers ignore it). A key twice in one object is refused,
/// since which one counts would decide the score.
fn parse(raw: &str) -> Result<Value, String> {
    let text = raw.strip_prefix('\u{FEFF}').unwrap_or(raw).trim();
    if text.is_empty() {
        return Err("the answer is empty; expected exactly one JSON object".into());
    }
    if text.starts_with("```") {
        return Err(
            "the answer is wrapped in a Markdown code fence; expected exactly one JSON \
object and nothing around it"
                .into(),
        );
    }
    if text.starts_with('\u{FEFF}') {
        return Err(
            "the answer has a byte order mark (BOM, U+FEFF) after other text or white space; \
a BOM is accepted only as the very first character"
                .into(),
        );
    }
    if !text.starts_with('{') {
        let what = if text.starts_with('[') {
            "a JSON array"
        } else {
            "text before the JSON object"
        };
        return Err(format!(
            "the answer starts with {what}; expected exactly one JSON object and no prose"
        ));
    }
    let (value, end) = strict_json::parse_first(text).map_err(|e| match e {
        StrictJsonError::DuplicateKey { .. } => {
            format!("the answer is ambiguous: {e}; each key may appear only once in an object")
        }
        _ => format!("the answer is not valid JSON: {e}"),
    })?;
    let rest = text[end..].trim_start();
    if !rest.is_empty() {
        let what = if rest.starts_with('{') {
            "a second JSON value"
        } else {
            "more text"
        };
        return Err(format!(
            "the JSON object is followed by {what} at byte {}; expected exactly one JSON object \
and no prose",
            text.len() - rest.len()
        ));
    }
    Ok(value)
}

/// The 13 checks: (path, expected, tolerance). `None` tolerance means an exact match.
fn expectations(reference: &Answer) -> Vec<(&'static str, Value, Option<f64>)> {
    let (o, x, b) = (&reference.overall, &reference.exclude_s04, &reference.bias);
    let t = Some(TOLERANCE);
    vec![
        ("overall.k", json!(o.k), None),
        ("overall.estimate", json!(o.estimate), t),
        ("overall.ci_lower", json!(o.ci_lower), t),
        ("overall.ci_upper", json!(o.ci_upper), t),
        ("overall.p", json!(o.p), t),
        ("exclude_s04.k", json!(x.k), None),
        ("exclude_s04.estimate", json!(x.estimate), t),
        ("exclude_s04.ci_lower", json!(x.ci_lower), t),
        ("exclude_s04.ci_upper", json!(x.ci_upper), t),
        ("exclude_s04.p", json!(x.p), t),
        ("exclude_s04.excluded", json!(x.excluded), None),
        ("bias.egger_p", json!(b.egger_p), Some(EGGER_P_TOLERANCE)),
        ("bias.rule_outcome", json!(b.rule_outcome), None),
    ]
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn check(answer: &Value, reference: &Answer) -> ScoreReport {
    let fields: Vec<FieldResult> = expectations(reference)
        .into_iter()
        .map(|(path, expected, tolerance)| {
            let (section, name) = path.split_once('.').expect("paths have two parts");
            let (got, verdict) = match answer.get(section) {
                None => (
                    Value::Null,
                    Err(format!("missing: the answer has no \"{section}\" object")),
                ),
                Some(s) if !s.is_object() => (
                    Value::Null,
                    Err(format!(
                        "missing: \"{section}\" is {}, not an object",
                        json_type(s)
                    )),
                ),
                Some(s) => match s.get(name) {
                    None => (
                        Value::Null,
                        Err(format!("missing: \"{section}\" has no \"{name}\"")),
                    ),
                    Some(got) => (got.clone(), judge(got, &expected, tolerance)),
                },
            };
            let (pass, reason) = match verdict {
                Ok(reason) => (true, reason),
                Err(reason) => (false, reason),
            };
            FieldResult {
                path: path.to_string(),
                expected,
                got,
                tolerance,
                pass,
                reason,
            }
        })
        .collect();
    ScoreReport {
        parsed: true,
        parse_error: None,
        passed: Some(fields.iter().filter(|f| f.pass).count()),
        total: FIELD_COUNT,
        fields,
    }
}

/// Ok(reason) when `got` passes, Err(reason) when it fails.
fn judge(got: &Value, expected: &Value, tolerance: Option<f64>) -> Result<String, String> {
    let want = json_type(expected);
    if json_type(got) != want {
        return Err(format!(
            "wrong type: expected {want}, got {}",
            json_type(got)
        ));
    }
    match (tolerance, got.as_f64(), expected.as_f64()) {
        (Some(tolerance), Some(g), Some(e)) => {
            let off = (g - e).abs();
            if off <= tolerance {
                Ok(format!("within {tolerance} (off by {})", distance(off)))
            } else {
                Err(format!(
                    "off by {}, more than the tolerance {tolerance}",
                    distance(off)
                ))
            }
        }
        // Exact numbers compare by value, so 19 and 19.0 both match 19.
        (None, Some(g), Some(e)) if g == e => Ok("exact match".into()),
        (None, _, _) if got == expected => Ok("exact match".into()),
        _ => Err(format!("expected exactly {expected}, got {got}")),
    }
}

/// How far a number is from the expected one, as a person reads it: `0` when
/// equal, otherwise two significant digits (`1.2e-7`).
fn distance(off: f64) -> String {
    if off == 0.0 {
        "0".into()
    } else {
        format!("{off:.1e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectations_are_the_serialized_reference_answer() {
        let reference = reference_json();
        for (path, expected, _) in expectations(&reference_answer()) {
            assert_eq!(reference.pointer(&pointer(path)), Some(&expected), "{path}");
        }
    }

    #[test]
    fn to_json_is_the_serialized_report() {
        let mut answer = reference_json();
        answer["overall"]["k"] = json!("19");
        answer["bias"]["egger_p"] = json!(1e300);
        answer["exclude_s04"].as_object_mut().unwrap().remove("p");
        let reports = [
            score(&answer.to_string()),
            score("[]"),
            score(&reference_text()),
        ];
        for report in reports {
            let derived = serde_json::to_value(&report).unwrap();
            assert_eq!(report.to_json(), derived);
            assert_eq!(report.to_json().to_string(), derived.to_string());
        }
    }

    fn reference_json() -> Value {
        serde_json::to_value(reference_answer()).unwrap()
    }

    fn reference_text() -> String {
        serde_json::to_string(&reference_answer()).unwrap()
    }

    fn failed_paths(report: &ScoreReport) -> Vec<&str> {
        report
            .fields
            .iter()
            .filter(|f| !f.pass)
            .map(|f| f.path.as_str())
            .collect()
    }

    fn pointer(path: &str) -> String {
        format!("/{}", path.replace('.', "/"))
    }

    #[test]
    fn the_reference_answer_scores_13_of_13() {
        let report = score(&reference_text());
        assert!(report.parsed && report.parse_error.is_none());
        assert_eq!(report.passed, Some(13));
        assert_eq!(report.total, 13);
        assert_eq!(report.fields.len(), 13);
        assert!(report.fields.iter().all(|f| f.pass), "{report:?}");
        // Pretty-printed and surrounded by white space is the same answer.
        let pretty = format!(
            "\n\t {} \n",
            serde_json::to_string_pretty(&reference_json()).unwrap()
        );
        assert_eq!(score(&pretty).passed, Some(13));
    }

    #[test]
    fn the_report_lists_paths_expected_and_tolerances() {
        let report = score(&reference_text());
        let paths: Vec<&str> = report.fields.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "overall.k",
                "overall.estimate",
                "overall.ci_lower",
                "overall.ci_upper",
                "overall.p",
                "exclude_s04.k",
                "exclude_s04.estimate",
                "exclude_s04.ci_lower",
                "exclude_s04.ci_upper",
                "exclude_s04.p",
                "exclude_s04.excluded",
                "bias.egger_p",
                "bias.rule_outcome"
            ]
        );
        let reference = reference_json();
        for f in &report.fields {
            assert_eq!(&f.expected, reference.pointer(&pointer(&f.path)).unwrap());
            assert_eq!(f.got, f.expected);
        }
        let tolerance = |p: &str| {
            report
                .fields
                .iter()
                .find(|f| f.path == p)
                .unwrap()
                .tolerance
        };
        assert_eq!(tolerance("overall.k"), None);
        assert_eq!(tolerance("exclude_s04.excluded"), None);
        assert_eq!(tolerance("bias.rule_outcome"), None);
        assert_eq!(tolerance("overall.p"), Some(0.0005));
        assert_eq!(tolerance("bias.egger_p"), Some(0.000005));
        let json = report.to_json();
        assert_eq!(json["fields"][0]["tolerance"], Value::Null);
        assert_eq!(json["passed"], 13);
    }

    /// A value past the field's tolerance (or a different exact value).
    fn perturbed(path: &str, value: &Value) -> Value {
        match path {
            "overall.k" | "exclude_s04.k" => json!(value.as_u64().unwrap() + 1),
            "exclude_s04.excluded" => json!(["s05"]),
            "bias.rule_outcome" => json!("passed"),
            "bias.egger_p" => json!(value.as_f64().unwrap() + 0.0000051),
            _ => json!(value.as_f64().unwrap() - 0.00051),
        }
    }

    #[test]
    fn each_field_perturbed_past_its_tolerance_fails_alone() {
        let reference = reference_json();
        let report = score(&reference_text());
        for field in &report.fields {
            let mut answer = reference.clone();
            let slot = answer.pointer_mut(&pointer(&field.path)).unwrap();
            *slot = perturbed(&field.path, slot);
            let report = score(&answer.to_string());
            assert_eq!(report.passed, Some(12), "{}: {report:?}", field.path);
            assert_eq!(failed_paths(&report), [field.path.as_str()]);
        }
    }

    #[test]
    fn values_just_inside_the_tolerance_pass() {
        let mut answer = reference_json();
        for path in ["overall.estimate", "exclude_s04.ci_upper"] {
            let slot = answer.pointer_mut(&pointer(path)).unwrap();
            *slot = json!(slot.as_f64().unwrap() + 0.00049);
        }
        let slot = answer.pointer_mut("/bias/egger_p").unwrap();
        *slot = json!(slot.as_f64().unwrap() - 0.0000049);
        assert_eq!(score(&answer.to_string()).passed, Some(13));
    }

    #[test]
    fn reasons_say_how_far_off_a_number_is() {
        let exact = score(&reference_text());
        let p = exact.fields.iter().find(|f| f.path == "overall.p").unwrap();
        assert_eq!(p.reason, "within 0.0005 (off by 0)");
        let close = judge(&json!(0.10000012), &json!(0.1), Some(0.0005)).unwrap();
        assert_eq!(close, "within 0.0005 (off by 1.2e-7)");
        let far = judge(&json!(0.2), &json!(0.1), Some(0.0005)).unwrap_err();
        assert_eq!(far, "off by 1.0e-1, more than the tolerance 0.0005");
    }

    #[test]
    fn a_string_k_fails_k_only() {
        let text = reference_text().replacen("\"k\":19", "\"k\":\"19\"", 1);
        assert!(text.contains("\"k\":\"19\""));
        let report = score(&text);
        assert_eq!(failed_paths(&report), ["overall.k"]);
        let k = &report.fields[0];
        assert_eq!(k.got, json!("19"));
        assert_eq!(k.reason, "wrong type: expected a number, got a string");
    }

    #[test]
    fn integral_floats_match_exact_counts() {
        let text = reference_text().replacen("\"k\":19", "\"k\":19.0", 1);
        assert_eq!(score(&text).passed, Some(13));
    }

    #[test]
    fn missing_fields_and_sections_fail_with_a_reason() {
        let mut answer = reference_json();
        answer["overall"].as_object_mut().unwrap().remove("p");
        answer.as_object_mut().unwrap().remove("bias");
        let report = score(&answer.to_string());
        assert_eq!(
            failed_paths(&report),
            ["overall.p", "bias.egger_p", "bias.rule_outcome"]
        );
        let p = report
            .fields
            .iter()
            .find(|f| f.path == "overall.p")
            .unwrap();
        assert_eq!(p.got, Value::Null);
        assert_eq!(p.reason, "missing: \"overall\" has no \"p\"");
        answer["bias"] = json!([1]);
        let report = score(&answer.to_string());
        assert_eq!(
            report.fields[12].reason,
            "missing: \"bias\" is an array, not an object"
        );
        let report = score("{}");
        assert_eq!((report.parsed, report.passed), (true, Some(0)));
    }

    #[test]
    fn malformed_answers_are_parse_failures_not_zero() {
        let json = reference_text();
        let cases = [
            format!("```json\n{json}\n```"),
            format!("Here is the answer: {json}"),
            format!("{json}\nI hope this helps."),
            format!("{json}\n{json}"),
            format!("[{json}]"),
            String::new(),
            "   \n ".to_string(),
            "{\"overall\": ".to_string(),
            "42".to_string(),
        ];
        for case in cases {
            let report = score(&case);
            assert!(!report.parsed, "{case:?}");
            assert_eq!(report.passed, None);
            assert!(report.fields.is_empty());
            let reason = report.parse_error.unwrap();
            assert!(!reason.is_empty());
            let json = serde_json::to_value(score(&case)).unwrap();
            assert_eq!(json["passed"], Value::Null);
        }
        assert!(score("```json\n{}\n```")
            .parse_error
            .unwrap()
            .contains("code fence"));
        assert!(score(&format!("[{json}]"))
            .parse_error
            .unwrap()
            .contains("JSON array"));
        assert!(score(&format!("{json} {json}"))
            .parse_error
            .unwrap()
            .contains("second JSON value"));
        assert!(score("").parse_error.unwrap().contains("empty"));
    }

    #[test]
    fn oversized_input_gets_a_clear_error() {
        let padding = " ".repeat(MAX_ANSWER_BYTES);
        let report = score(&format!("{}{padding}", reference_text()));
        assert!(!report.parsed);
        assert!(report
            .parse_error
            .unwrap()
            .contains("longer than 65536 bytes (64 KiB)"));
        let report = score_bytes(&vec![b' '; MAX_ANSWER_BYTES + 1]);
        assert!(report.parse_error.unwrap().contains("64 KiB"));
        assert_eq!(score_bytes(reference_text().as_bytes()).passed, Some(13));
        assert!(score_bytes(b"{\"a\": \"\xff\"}")
            .parse_error
            .unwrap()
            .contains("UTF-8"));
    }

    /// The reference answer with a second `overall` object, before or after the real one.
    fn with_two_overalls(second_first: bool) -> String {
        let reference = reference_json();
        let real = reference["overall"].to_string();
        let mut wrong = reference["overall"].clone();
        wrong["estimate"] = json!(wrong["estimate"].as_f64().unwrap() + 1.0);
        let (first, second) = if second_first {
            (wrong.to_string(), real)
        } else {
            (real, wrong.to_string())
        };
        format!(
            "{{\"overall\":{first},\"exclude_s04\":{},\"bias\":{},\"overall\":{second}}}",
            reference["exclude_s04"], reference["bias"]
        )
    }

    #[test]
    fn a_duplicate_key_is_a_parse_failure_naming_it_in_either_order() {
        for second_first in [false, true] {
            let text = with_two_overalls(second_first);
            let report = score(&text);
            assert!(!report.parsed, "{report:?}");
            assert_eq!(report.passed, None);
            let reason = report.parse_error.unwrap();
            assert!(
                reason.contains("duplicate key \"overall\" at line 1 column"),
                "{reason}"
            );
            assert!(reason.contains("only once"), "{reason}");
        }
        let nested = reference_text().replacen("\"k\":19", "\"k\":19,\"k\":20", 1);
        let reason = score(&nested).parse_error.unwrap();
        assert!(reason.contains("duplicate key \"k\""), "{reason}");
    }

    #[test]
    fn a_leading_byte_order_mark_is_accepted() {
        let text = format!("\u{FEFF}{}", reference_text());
        assert_eq!(score(&text).passed, Some(13));
        let bytes = [b"\xEF\xBB\xBF".as_slice(), reference_text().as_bytes()].concat();
        assert_eq!(score_bytes(&bytes).passed, Some(13));
        // A BOM anywhere else is named, not called "text".
        let late = format!("\n\u{FEFF}{}", reference_text());
        let reason = score(&late).parse_error.unwrap();
        assert!(reason.contains("byte order mark (BOM, U+FEFF)"), "{reason}");
        let twice = format!("\u{FEFF}\u{FEFF}{}", reference_text());
        let reason = score(&twice).parse_error.unwrap();
        assert!(reason.contains("byte order mark (BOM, U+FEFF)"), "{reason}");
    }

    #[test]
    fn deep_nesting_is_a_parse_failure_not_a_crash() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(!score(&deep).parsed);
    }
}
