//! The JSON Schemas of the tools: the input schemas' shared parts, written once, and the
//! output schemas, derived from the result types.
//!
//! Both use the plain subset [`crate::schema`] validates (no `$ref`, no `format`), so an
//! agent or a client can read them without a full JSON Schema implementation.

use meta_analysis::Method;
use serde_json::{json, Value};

#[cfg(feature = "definitions")]
pub(super) const CONVENTIONS: &str = "Conventions: tau^2 is solved to the estimator's exact root \
(relative change <= 1e-12), not metafor's default stopping threshold; p values are two-sided; \
with test \"z\" the confidence and prediction intervals use the standard normal quantile, with \
test \"knha\" (Knapp-Hartung) the t quantile with k-1 df; I^2 and H^2 follow metafor \
(typical within-study variance). The page's Methods section states every formula.";

#[cfg(feature = "definitions")]
/// Where the data come from, and the limits every tool enforces before it starts.
pub(super) fn data_note() -> String {
    format!(
        "Uses the frozen dataset dat.raudenbush1985 (19 records s01-s19) unless `records` is \
given. `dataset` in the result names the data used: the frozen dataset's SHA-256, or \
\"custom records\" with the SHA-256 of their canonical JSON. Limits, checked before any work: \
the arguments are at most {} bytes of JSON, nested at most {} deep, with no repeated key; \
the record cap is in `records`' description; iterative estimators stop with an error after \
their iteration limit.",
        super::MAX_ARGS_BYTES,
        crate::strict_json::MAX_DEPTH
    )
}

#[cfg(feature = "definitions")]
/// What a fit result holds, for the descriptions of the tools that return one.
pub(super) const FIT_FIELDS: &str = "k (records fitted), estimate (pooled effect), se, z (or t \
and df with test \"knha\"), p (two-sided test of estimate = 0), ci_lower and ci_upper \
(confidence interval at `level`), tau2, tau, se_tau2 (null where the estimator defines none), \
q, q_df and q_p (Cochran's Q test of heterogeneity), i2 (percent), h2, pi_lower and pi_upper \
(prediction interval), iterations (null for closed-form estimators), method, test and level";

pub(super) fn method() -> Value {
    let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
    json!({
        "type": "string",
        "enum": names,
        "description": "tau^2 estimator: REML (default, restricted maximum likelihood), ML, DL (DerSimonian-Laird), HE (Hedges), SJ (Sidik-Jonkman), PM (Paule-Mandel) or EE (equal effects, tau^2 = 0)."
    })
}

pub(super) fn level() -> Value {
    json!({
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "description": "Confidence level of the CI and the prediction interval, strictly between 0 and 1 (default 0.95)."
    })
}

pub(super) fn test() -> Value {
    json!({
        "type": "string",
        "enum": ["z", "knha"],
        "description": "Inference for the pooled estimate: \"z\" (default, normal) or \"knha\" (Knapp-Hartung t test with k-1 df)."
    })
}

pub(super) fn variant(description: &str) -> Value {
    json!({"type": "string", "enum": ["classic", "rma"], "description": description})
}

pub(super) fn records(max: usize) -> Value {
    json!({
        "type": "array",
        "description": format!("Optional records to analyse instead of the frozen dataset: objects {{id, yi, vi}} with unique non-empty ids, yi the effect size and vi > 0 its sampling variance; further properties (numbers or strings, e.g. \"weeks\": 3 or \"arm\": \"b\") are columns that meta-regression and subgroup analysis can use as moderators; at most {max} records."),
        "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "Unique record id."},
                "yi": {"type": "number", "description": "Observed effect size."},
                "vi": {"type": "number", "description": "Sampling variance of yi, greater than 0."}
            },
            "required": ["id", "yi", "vi"],
            "additionalProperties": {"type": ["number", "string"], "description": "A moderator column's value: a number, or a string (a level of a factor)."}
        }
    })
}

#[cfg(feature = "definitions")]
/// What the frozen dataset offers as moderators, for the descriptions.
pub(super) const MODERATOR_NOTE: &str = "Moderators are columns of the records: the frozen \
dataset's weeks, year, n1i, n2i (numbers) and setting, tester (text); with `records`, any \
further property of the records (numbers or strings; every record analysed must have it, all of \
one type). A numeric column enters as it is; a text column is a factor in treatment coding, its \
levels sorted (by their characters' code points), the first the reference.";

/// `mods`: the moderator columns of a meta-regression.
pub(super) fn mods() -> Value {
    json!({
        "type": "array",
        "items": {"type": "string"},
        "description": format!("The moderator columns, in the order their coefficients are reported: a non-empty list of distinct column names (at most {}), e.g. [\"weeks\"] or [\"weeks\", \"tester\"].", meta_analysis::MAX_MODERATORS)
    })
}

/// `at`: the moderator values at which a meta-regression predicts.
pub(super) fn at(max: usize) -> Value {
    json!({
        "type": "array",
        "items": {
            "type": "object",
            "additionalProperties": {"type": ["number", "string"]},
            "description": "One value per moderator: a number for a numeric one, a level for a text one."
        },
        "description": format!("Optional moderator values to predict at (at most {max}): objects giving every moderator a value, e.g. [{{\"weeks\": 0}}, {{\"weeks\": 3}}]; each gets the predicted effect with its CI and prediction interval.")
    })
}

/// A column name (the `by` of a subgroup analysis, the `mod` of a bubble plot).
pub(super) fn column(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

pub(super) fn exclude(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": description})
}

/// The input of a fit: `exclude` (described, when the tool takes it), `method`, `level`,
/// `test` and `records` (at most `max`).
pub(super) fn fit_input(exclude: Option<&str>, required: &[&str], max: usize) -> Value {
    let mut properties = serde_json::Map::new();
    if let Some(description) = exclude {
        properties.insert("exclude".into(), self::exclude(description));
    }
    properties.insert("method".into(), method());
    properties.insert("level".into(), level());
    properties.insert("test".into(), test());
    properties.insert("records".into(), records(max));
    object(Value::Object(properties), required)
}

/// The input of `trim_and_fill` and its plot.
pub(super) fn trim_and_fill_input(max: usize) -> Value {
    object(
        json!({
            "estimator": {"type": "string", "enum": ["L0", "R0"], "description": "Estimator of the number of missing records: \"L0\" (default) or \"R0\"."},
            "side": {"type": "string", "enum": ["left", "right"], "description": "Side of the funnel where records are missing; default: estimated as metafor does (the sign of the slope on sqrt(vi))."},
            "method": method(),
            "exclude": exclude("Optional ids of records to leave out first (distinct, each must exist)."),
            "records": records(max)
        }),
        &[],
    )
}

/// The input of `fail_safe_n`.
pub(super) fn fail_safe_input(max: usize) -> Value {
    object(
        json!({
            "type": {"type": "string", "enum": ["Rosenthal", "Orwin", "Rosenberg"], "description": "\"Rosenthal\" (default), \"Orwin\" or \"Rosenberg\"."},
            "alpha": {"type": "number", "minimum": 0, "maximum": 1, "description": "Significance level, strictly between 0 and 1 (default 0.05)."},
            "target": {"type": "number", "description": "Orwin only: the mean effect to bring the results down to (default half the mean effect; not 0)."},
            "exclude": exclude("Optional ids of records to leave out first (distinct, each must exist)."),
            "records": records(max)
        }),
        &[],
    )
}

/// The input of `cumulative_meta_analysis` and its plot.
pub(super) fn cumulative_input(max: usize) -> Value {
    let mut schema = fit_input(
        Some("Optional ids of records to leave out first (distinct, each must exist)."),
        &[],
        max,
    );
    schema["properties"]["order_by"] = json!({"type": "string", "description": "Column to add the records in the order of (ascending; ties keep record order), e.g. \"year\"; default: record order. The frozen dataset's columns, or id, yi, vi for given records."});
    schema["properties"]["descending"] = json!({"type": "boolean", "description": "Add the records in descending order of order_by (default false)."});
    schema
}

/// `{"type": "object", "properties": …, "required": …, "additionalProperties": false}`
/// A tool that takes `records` also takes a handle to records kept by `load_data`.
pub(super) fn object(mut properties: Value, required: &[&str]) -> Value {
    if let Some(list) = properties.as_object_mut() {
        if list.contains_key("records") {
            list.insert(
                super::DATA_ID.into(),
                json!({"type": "string", "description": format!("A handle from {} (e.g. \"d1\"): its records instead of `records`.", super::LOAD_DATA.name)}),
            );
        }
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema["additionalProperties"] = json!(false);
    schema
}

/// The output schema of result type `T`, derived by schemars with every subschema inlined
/// and reduced to the plain subset ([`plain`]).
#[cfg(feature = "definitions")]
pub(super) fn output_of<T: schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    plain(&mut schema);
    schema
}

/// Reduces a schemars schema to the plain subset: drops annotations outside it (`$schema`,
/// `title`, `format`, numeric bounds of integer types), turns `const` and `oneOf` lists of
/// constants into `enum`, an `anyOf` of a schema and null into a nullable type, the `true`
/// schema into `{}`, and closes every object that lists its properties
/// (`additionalProperties: false`), so that a result with an undeclared field fails.
#[cfg(feature = "definitions")]
fn plain(schema: &mut Value) {
    if schema == &Value::Bool(true) {
        *schema = json!({});
        return;
    }
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(constant) = object.remove("const") {
        object.insert("enum".into(), json!([constant]));
    }
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(choices)) = object.remove(key) else {
            continue;
        };
        let constants: Option<Vec<Value>> = choices
            .iter()
            .map(|c| c.get("const").or_else(|| c.get("enum")?.get(0)).cloned())
            .collect();
        if let Some(constants) = constants {
            object.insert("enum".into(), Value::Array(constants));
            if let Some(ty) = choices[0].get("type") {
                object.insert("type".into(), ty.clone());
            }
            continue;
        }
        let (nulls, others): (Vec<Value>, Vec<Value>) = choices
            .into_iter()
            .partition(|c| c.get("type") == Some(&json!("null")));
        if let ([_], [other]) = (nulls.as_slice(), others.as_slice()) {
            for (k, v) in other.as_object().into_iter().flatten() {
                object.entry(k.clone()).or_insert_with(|| v.clone());
            }
            if let Some(Value::String(ty)) = object.get("type").cloned() {
                object.insert("type".into(), json!([ty, "null"]));
            }
        }
    }
    object.retain(|key, _| {
        matches!(
            key.as_str(),
            "type"
                | "properties"
                | "required"
                | "items"
                | "enum"
                | "description"
                | "additionalProperties"
        )
    });
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for sub in properties.values_mut() {
            plain(sub);
        }
        object
            .entry("additionalProperties")
            .or_insert(Value::Bool(false));
    }
    if let Some(items) = object.get_mut("items") {
        plain(items);
    }
    if let Some(extra) = object.get_mut("additionalProperties") {
        if !extra.is_boolean() {
            *extra = Value::Bool(true);
        }
    }
}
