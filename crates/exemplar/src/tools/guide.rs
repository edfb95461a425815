//! What every tool shares, said once: the text of [`instructions`] (the MCP server's
//! `instructions`, the page's text). The rules for a lean definition are in the doc comment
//! of [`super`]; the tests below hold them for every registered tool.

/// The most bytes one tool's definition may take (compact JSON, as MCP's tools/list and the
/// page's registrations carry it): a budget per tool, not a wall for the list, so a lean
/// analysis can always be added. 2,560 until the forest plot took metafor forest()'s options
/// (issue 45: at, alim, xlim, refline, header, mlab, showweights, addpred, shade, width,
/// mods and study, names that are contracts): about 56 bytes of schema each once their
/// meaning moved to [`instructions`], 2,757 in all (2,760); 2,704 since the shared
/// arguments' descriptions were cut (issue 43 item 7, below), 2,710.
pub const MAX_DEFINITION_BYTES: usize = 2_710;

/// The most bytes a definition may take on average over the registry: the list grows by
/// about this much a tool (breadth grows as options and enum values of existing tools).
/// 1,600 when it was set; the shared `dataset` argument, which names the frozen dataset in
/// every tool that reads records, added about 90 bytes to each (1,700), and `subset` and
/// `slab`, metafor's record selection and study labels, about 130 more (1,800); the six
/// back-transformations of escalc's further measures (iarcsin, ipft.hm, iirft, isqrt, iahw,
/// iabt) as values of `transform`'s enum in every tool that reports a natural scale, about
/// 30 more (1,830); forest_plot's `ilab` and `order` (metafor's extra study columns and row
/// order), about 220 bytes, 10 more a tool (1,840). Then (issue 43 item 7) the list was made
/// lean again: 51,480 bytes, 1,838 a tool, down to 47,362, 1,691 a tool (1,700), by saying
/// each shared rule once in [`instructions`] (`subset` and `slab` among them) and in each
/// description only what its tool alone does, not the result's fields, the records cap
/// (in `records`' description) nor what the title or an argument's description says.
/// forest()'s options, `mods` and `study` on the forest plot (issue 45), their meaning said once
/// in [`instructions`] and its description cut, added about 680 bytes; issue 44's general
/// rma.mv in `fit_multilevel` (`random`, `struct`, `V`, `sigma2`, `tau2`, `rho`: metafor's
/// argument names, which other programs call) about 330 bytes with each argument described
/// and the tool's description cut to one line. Its `vcalc` and `return_v` (issue 44), with
/// V and vcalc explained once in [`instructions`] and the tool's other words cut, still add
/// 18 bytes (`return_v`'s stated default, which every optional boolean states), and
/// `robust_test`'s `general` (the rma.mv model under CR2) 83 more: 1,748. `general` on
/// `forest_plot` and `influence_diagnostics` (issue 44 item 6, issue 45 item 2), with
/// `influence_diagnostics`' `mods` and `cluster` (metafor's names), about 360 bytes, of which
/// cuts in the two tools' words (the keys of `general` and the forest options' defaults said
/// once in [`instructions`]) took back about 180: 1,755. Issue 44's `dfs` (test t's df rule, an
/// argument name the issue sets as a contract; every optional enum states its default and
/// every argument has a description) and `vcalc` among `general`'s keys add 81 bytes after
/// cuts (fit_multilevel's summary and description, the multilevel test's words), both merged: 1,757.
/// Then (issue 43 item 7 again) back to the goal of 1,700: 50,967 bytes, 1,757 a tool, down to
/// 49,199, 1,696 a tool, by saying in the shared arguments' descriptions only what
/// [`instructions`] does not (`measure`'s default, `dataset`'s "unless loaded", `mods`' syntax,
/// `btt`'s names and default, `general`'s keys are said there once), by shorter words for the
/// rest (`level`, `test`, `study`, `order_by`, trim-and-fill's `estimator` and `side`), and
/// by descriptions that no longer restate the instructions or an argument (k, QM's btt, the
/// fit statistics, the funnel's rule outcome; Egger's variants said once, in its description).
pub const MEAN_DEFINITION_BYTES: usize = 1_700;

/// The most characters one tool's description may take.
pub const MAX_DESCRIPTION_CHARS: usize = 600;

/// Result fields whose meaning the instructions give once.
#[cfg(all(test, feature = "definitions"))]
const SHARED_FIELDS: [&str; 31] = [
    "method",
    "test",
    "level",
    "k",
    "measure",
    "transform",
    "estimate",
    "se",
    "z",
    "t",
    "df",
    "statistic",
    "p",
    "ci_lower",
    "ci_upper",
    "pi_lower",
    "pi_upper",
    "natural",
    "tau2",
    "tau",
    "se_tau2",
    "q",
    "q_df",
    "q_p",
    "i2",
    "h2",
    "iterations",
    "excluded",
    "dataset",
    "svg",
    "numbers",
];

/// The rules every tool shares, for an agent to read once before calling any: where the
/// data come from, the shared arguments and result fields, the natural scale, the limits
/// and the conventions. Plain text built from the registry's constants: no schemars, so the
/// page's wasm (built without `definitions`) has it too.
pub fn instructions() -> String {
    let measures: Vec<String> = meta_analysis::MEASURES
        .iter()
        .filter(|m| m.transform != meta_analysis::TransformKind::None)
        .map(|m| format!("{} {}", m.name, m.transform.name()))
        .collect();
    format!(
        "Exact meta-analysis tools: each number as R's metafor 3.8-1 computes it, with tau^2 \
solved to the estimator's exact root (relative change <= 1e-12). These rules hold for every \
tool; a tool's description says only what is its own.\n\n\
DATA. A tool analyses the frozen dataset {dataset} (19 standardized mean differences, ids \
s01-s19; columns {columns}) unless `records` is given: [{{id, yi, vi, ...}}] with unique \
non-empty ids, yi the effect size and vi > 0 its sampling variance. Further properties \
(numbers or strings) are columns: moderators, subgroups, orderings. A record's `measure` names \
its effect-size measure ({escalc} writes it) and `label` is shown on forest plots instead of \
the id. {escalc} turns raw study data (2x2 tables, means and SDs, correlations, counts) into \
records.\n\n\
SHARED ARGUMENTS (each schema gives the type, enum and default). method: the tau^2 estimator \
(REML restricted maximum likelihood, ML, DL DerSimonian-Laird, HE Hedges, SJ Sidik-Jonkman, \
PM Paule-Mandel; EE the equal-effects model, tau^2 = 0). records: the data, as above; \
{data_id}: a handle from {load} instead; dataset: \"{dataset}\", the frozen dataset named. \
Once a session has loaded data, a call naming none of the three is refused (data_not_named). level: confidence level of the CI and PI. \
test: z, or knha (Knapp-Hartung: t with k-1 df). exclude: ids left out first (distinct, each \
must exist). subset: {{column, in: [values]}} or {{column, equals: value}}, the records kept before \
anything else (metafor's subset). slab: the column of study labels (plots, per-record results). \
measure, transform: the natural scale, below. mods: moderators, a one-sided \
formula as metafor's (\"~ weeks + factor(tester)\": terms joined by +, x1:x2 an interaction, \
x1*x2 both and it, - 1 or + 0 no intercept, factor(x) a coded column as categories, I(x^2) \
arithmetic + - * / ^ on numeric columns, log exp sqrt abs) or a list of terms joined by + \
([\"weeks\", \"factor(tester)\"]); numbers and numeric text are numeric, other text a factor \
(levels in R's order, the first the reference); coefficients are named as metafor's \
(testerblind, factor(g)2, x1:x2, I(x^2); intercept). btt: the coefficients QM tests, by \
position from 1 or by name (a name also selects every coefficient containing it, as metafor's); \
default all but the intercept. MISSING VALUES: a record with no value \
(absent, null, blank, NA) in a column the analysis reads is left out, as metafor's na.omit, \
and listed in `omitted` [{{id, reason}}].\n\n\
SHARED RESULT FIELDS. k: records analysed. estimate, se; z, or t and df with knha \
(statistic: whichever the test gives); p: two-sided. ci_lower, ci_upper: the confidence interval at level. pi_lower, pi_upper: the \
prediction interval of a new study's true effect. tau2, tau, se_tau2 (null where the \
estimator defines none); q, q_df, q_p: Cochran's Q test; i2 (percent), h2. iterations: null \
for closed forms. excluded: the ids left out. dataset: {{name, sha256}}, the frozen dataset's \
SHA-256, or \"{custom}\" with the SHA-256 of the canonical JSON of `records`. svg and numbers \
(plots): the SVG text, and every number drawn with its pixel position.\n\n\
NATURAL SCALE. Results carry `measure` (null when unknown) and `transform`. With a transform, \
an estimate also comes back-transformed, as metafor's predict(fit, transf=...): `natural` = \
{{estimate, ci_lower, ci_upper, pi_lower, pi_upper}} (pi null where the result has no PI); \
without one, natural is null. The measure is the `measure` argument, else the records' own, \
else SMD for the frozen dataset. transform auto (default) picks the measure's: {measures}; \
none for the others (ipft.hm and iirft take the harmonic mean of the records' ni or ti). Plots label their axis with the measure and, with a transform, write \
natural-scale values.\n\n\
LIMITS, checked before any work: arguments at most {bytes} bytes of JSON, nested at most \
{depth} deep, no repeated key; the record cap is in `records`' description; an iterative \
estimator stops with an error after its iteration limit. An error is {{code, message}}.\n\n\
FOREST. {forest} takes metafor forest()'s options: at (ticks), alim (the axis' ends; an \
interval beyond ends in an arrow), xlim (the plot's ends), refline (a number; false: none), \
header ([left, right] titles), mlab (the pooled row's label), showweights (default: shown \
unless ilab needs the room), addpred (the prediction interval; with mods, fitted values' \
polygons span it), shade (zebra, zebra2, all), width (of the SVG, default 390 or wider as \
ilab needs; the plot keeps a third of it), order (estimate, precision, fit or a column), ilab \
(columns beside the labels); at, alim, xlim and refline on the natural scale. by: the rows \
grouped by a text column. mods: each row's fitted value as a grey \
polygon, no pooled row. study: the three-level model (as {multilevel}'s), rows grouped by \
study. general: a general model (below), rows grouped by its cluster.\n\n\
MULTILEVEL. {multilevel} (metafor's rma.mv) reaches the exact REML/ML optimum. V or vcalc (not both) gives the known sampling covariance instead of diagonal vi: V {{cluster, columns}} reads each cluster's block, a row per record, from the columns; vcalc takes metafor vcalc()'s arguments, columns by name (cluster, subgroup, obs, type, time1, time2, grp1, grp2, w1, w2) and rho, phi; return_v: true returns the V used, per cluster {{cluster, ids, v}}. A second inner | outer term's tau2 and rho are named gamma2 and phi (always estimated). test t with dfs contain gives each coefficient metafor's containment df (ddf). `general` (in {forest}, \
{influence}, {robust}): one object of {multilevel}'s model arguments random, struct, V, \
vcalc, sigma2, tau2, rho; with mods, exclude, method and test as \
the tool's own. {influence} then gives metafor's rstudent(), cooks.distance(), dfbetas(), \
hatvalues() and weights() of the rma.mv fit, per record or, with `cluster`, per cluster.\n\n\
CONVENTIONS. p values are two-sided; with test z the intervals use the normal quantile, with \
knha the t quantile with k-1 df; I^2 and H^2 as metafor (typical within-study variance). The \
methods text (MCP resource exemplar://docs/METHODS.md; the page's Methods section) states \
every formula.\n\n\
R CODE. Any call may add `r_code`: true (not in the schemas, which stay lean): the result then \
also carries r_code, an R script that reproduces it with metafor 3.8-1 (the data, the same \
model, res, print(res)), and methods_text, a methods paragraph with references. Tools with \
no metafor counterpart refuse it (invalid_arguments).",
        dataset = crate::dataset::NAME,
        columns = crate::dataset::COLUMNS[1..8].join(", "),
        escalc = super::COMPUTE_EFFECT_SIZES.name,
        forest = super::FOREST_PLOT.name,
        influence = super::INFLUENCE_DIAGNOSTICS.name,
        robust = super::ROBUST_TEST.name,
        multilevel = super::FIT_MULTILEVEL.name,
        load = super::LOAD_DATA.name,
        data_id = super::DATA_ID,
        custom = super::CUSTOM_RECORDS,
        measures = measures.join(", "),
        bytes = super::MAX_ARGS_BYTES,
        depth = crate::strict_json::MAX_DEPTH,
    )
}

#[cfg(all(test, feature = "definitions"))]
mod tests {
    use super::super::{definitions, definitions_json};
    use super::*;
    use serde_json::Value;
    use std::collections::HashMap;

    /// The sentences of a text (split after ". "), trimmed.
    fn sentences(text: &str) -> Vec<String> {
        text.split(". ")
            .map(|s| s.trim().trim_end_matches('.').to_string())
            .filter(|s| !s.is_empty())
            .collect()
    }

    #[test]
    fn the_tool_list_is_lean() {
        let list = definitions_json();
        let listed = list.as_array().unwrap();
        let mut problems = Vec::new();
        for d in listed {
            let size = d.to_string().len();
            if size > MAX_DEFINITION_BYTES {
                let part = |key: &str| d[key].to_string().len();
                problems.push(format!(
                    "{} is {size} bytes (description {}, input schema {}); at most \
                     {MAX_DEFINITION_BYTES} a tool: say less, or share a schema",
                    d["name"],
                    part("description"),
                    part("inputSchema"),
                ));
            }
        }
        let total = list.to_string().len();
        let mean = total / listed.len();
        if mean > MEAN_DEFINITION_BYTES {
            problems.push(format!(
                "the tool list is {total} bytes, {mean} a tool on average; at most \
                 {MEAN_DEFINITION_BYTES}: grow options of existing tools, not tools"
            ));
        }
        let mut seen: HashMap<String, &str> = HashMap::new();
        for d in crate::tools::definitions() {
            let chars = d.description.chars().count();
            if chars > MAX_DESCRIPTION_CHARS {
                problems.push(format!(
                    "{}: the description is {chars} characters; at most {MAX_DESCRIPTION_CHARS}",
                    d.name
                ));
            }
            for sentence in sentences(&d.description) {
                if sentence.chars().count() < 80 {
                    continue;
                }
                if let Some(other) = seen.insert(sentence.clone(), d.name) {
                    if other != d.name {
                        problems.push(format!(
                            "{other} and {} both say {sentence:?}: say it once, in instructions()",
                            d.name
                        ));
                    }
                }
            }
        }
        assert!(
            problems.is_empty(),
            "the tool definitions break the lean rules at the top of tools/mod.rs:\n{}",
            problems.join("\n")
        );
    }

    #[test]
    fn a_repeated_sentence_is_caught() {
        let long =
            "This sentence is long enough to count, well over eighty characters in all, surely";
        assert!(long.len() >= 80);
        let text = format!("Computes a thing. {long}. Then more.");
        assert!(sentences(&text).contains(&long.to_string()));
        assert!(sentences(&text).iter().all(|s| !s.ends_with('.')));
    }

    /// What an agent needs to call a tool right the first time is in its input schema:
    /// every argument's type and description, every fixed set of values as an enum, every
    /// optional scalar's default (a `default`, or a description saying what happens when it
    /// is left out), and the required ones in `required`.
    #[test]
    fn a_fresh_reading_of_the_definitions_suffices() {
        for d in definitions() {
            let schema = &d.input_schema;
            let properties = schema["properties"].as_object().expect("properties");
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for name in &required {
                assert!(properties.contains_key(*name), "{}: {name}", d.name);
            }
            for (name, p) in properties {
                let at = format!("{}.{name}", d.name);
                assert!(p.get("type").is_some(), "{at}: no type");
                let text = p["description"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{at}: no description"));
                assert!(
                    !text.is_empty() && text.len() <= 300,
                    "{at}: description of {} characters",
                    text.len()
                );
                // A free string (a column name, a handle) has no default to state.
                let chosen = p.get("enum").is_some()
                    || matches!(p["type"].as_str(), Some("number" | "boolean" | "integer"));
                if chosen && !required.contains(&name.as_str()) {
                    assert!(
                        p.get("default").is_some() || text.to_lowercase().contains("default"),
                        "{at}: an optional argument says its default"
                    );
                }
                if let Some(values) = p.get("enum") {
                    if let Some(default) = p.get("default") {
                        assert!(
                            values.as_array().unwrap().contains(default),
                            "{at}: default outside the enum"
                        );
                    }
                    // Every value offered is accepted by the schema check.
                    for value in values.as_array().unwrap() {
                        let mut args = serde_json::Map::new();
                        args.insert(name.clone(), value.clone());
                        for r in &required {
                            args.entry(r.to_string())
                                .or_insert_with(|| Value::from("x"));
                        }
                        if let Err(e) = crate::schema_check::validate(schema, &Value::Object(args))
                        {
                            assert_ne!(&e.path, name, "{at}={value}: {e}");
                        }
                    }
                }
            }
            // A call without its required arguments is refused naming the first of them.
            if let Some(first) = required.first() {
                let e = super::super::call(d.name, &serde_json::json!({})).unwrap_err();
                assert!(e.message.contains(first), "{}: {e}", d.name);
            }
        }
    }

    #[test]
    fn the_instructions_say_the_shared_rules_once() {
        let text = instructions();
        for needle in [
            "records",
            "subset",
            "slab",
            "natural",
            "transform",
            &super::super::MAX_ARGS_BYTES.to_string(),
            "knha",
            "exemplar://docs/METHODS.md",
        ] {
            assert!(text.contains(needle), "instructions lack {needle}");
        }
        for field in SHARED_FIELDS {
            assert!(
                text.contains(field),
                "instructions do not say what {field} is"
            );
        }
        // No description repeats the instructions.
        let shared: Vec<String> = sentences(&text)
            .into_iter()
            .filter(|s| s.len() >= 80)
            .collect();
        for d in definitions() {
            for sentence in sentences(&d.description) {
                assert!(
                    !shared.contains(&sentence),
                    "{} repeats the instructions: {sentence}",
                    d.name
                );
            }
        }
    }
}
