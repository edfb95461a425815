//! `diagnostic_plot`: the Baujat, radial (Galbraith), L'Abbé or normal Q-Q plot of the
//! intercept-only model, with the coordinates metafor's plot functions return.

use super::args::{ExcludeArg, FitArgs};
use super::data::DataSource;
use super::fit::RefitResult;
use super::plot::title;
use super::scale::Scale;
use super::{ErrorCode, Tool, ToolError, ToolGroup};
use crate::plots::{self, Band, DiagnosticInput, RefLine};
use meta_analysis::distributions::normal_quantile;
use meta_analysis::effect_sizes::{Column, Measure, RawRow};
use meta_analysis::{DiagnosticPoint, Fit, Method};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub static DIAGNOSTIC_PLOT: Tool = Tool {
    name: "diagnostic_plot",
    title: "Diagnostic plots (SVG)",
    summary: "Baujat, radial, L'Abbé or Q-Q plot with its points.",
    group: ToolGroup::Plot,
    max_records: plots::MAX_DIAGNOSTIC_POINTS,
    companion: None,
    echoes_caller_text: true,
    #[cfg(feature = "definitions")]
    description: || {
        "Plot and points as metafor's baujat() (k >= 3), radial(), qqnorm() (standardized \
residuals) or labbe() (records' ai, bi|n1i, ci, di|n2i for RR/OR/RD/AS; x1i, t1i, x2i, t2i for \
IRR/IRD/IRSD)."
            .to_string()
    },
    #[cfg(feature = "definitions")]
    examples,
    handler: handler!(diagnostic_plot; reproducible),
};

/// Records of dat.bcg's first six trials with their 2x2 tables (log risk ratios).
#[cfg(any(feature = "definitions", all(test, feature = "extended")))]
fn bcg_tables() -> Value {
    serde_json::json!([
        {"id": "t1", "yi": -0.8893113339202054, "vi": 0.32558476500396133, "measure": "RR", "ai": 4, "bi": 119, "ci": 11, "di": 128},
        {"id": "t2", "yi": -1.5853886572014306, "vi": 0.19458112139814385, "measure": "RR", "ai": 6, "bi": 300, "ci": 29, "di": 274},
        {"id": "t3", "yi": -1.3480731482996933, "vi": 0.4153679653679654, "measure": "RR", "ai": 3, "bi": 228, "ci": 11, "di": 209},
        {"id": "t4", "yi": -1.4415511900213054, "vi": 0.020010031902247573, "measure": "RR", "ai": 62, "bi": 13536, "ci": 248, "di": 12619},
        {"id": "t5", "yi": -0.21754732221129558, "vi": 0.05121017216963086, "measure": "RR", "ai": 33, "bi": 5036, "ci": 47, "di": 5761},
        {"id": "t6", "yi": -0.786115585818864, "vi": 0.0069056184559087574, "measure": "RR", "ai": 180, "bi": 1361, "ci": 372, "di": 1079}
    ])
}

/// Calls that show the tool's options (each one valid: the registry's tests run it).
#[cfg(feature = "definitions")]
fn examples() -> Vec<Value> {
    use super::examples;
    use serde_json::json;
    vec![
        json!({"kind": "baujat"}),
        json!({"kind": "radial", "exclude": ["s04"]}),
        json!({"kind": "qq", "method": "DL"}),
        json!({"kind": "labbe", "records": bcg_tables()}),
        json!({"kind": "baujat", "test": "knha", "records": examples::records()}),
    ]
}

/// Which plot (Baujat's when not given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    #[default]
    Baujat,
    Radial,
    Labbe,
    Qq,
}

impl Kind {
    /// Every kind, in the schema's order.
    #[cfg(feature = "definitions")]
    pub const ALL: [Kind; 4] = [Kind::Baujat, Kind::Radial, Kind::Labbe, Kind::Qq];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Baujat => "baujat",
            Kind::Radial => "radial",
            Kind::Labbe => "labbe",
            Kind::Qq => "qq",
        }
    }
}

composed_args! {
    /// `diagnostic_plot`'s arguments: the plot, the fit's options and exclusions.
    #[derive(Debug)]
    #[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
    pub struct DiagnosticPlotArgs {
        #[serde(default)]
        #[cfg_attr(feature = "definitions", schemars(schema_with = "kind_schema"))]
        pub kind: Kind,
        #[flat]
        pub fit: FitArgs,
        #[flat]
        pub exclude: ExcludeArg,
    }
}

#[cfg(feature = "definitions")]
fn kind_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    schemars::Schema::try_from(
        serde_json::json!({"type": "string", "enum": names, "default": names[0], "description": "The plot."}),
    )
    .expect("an object schema")
}

/// `diagnostic_plot`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "definitions", derive(schemars::JsonSchema))]
pub struct DiagnosticPlotResult {
    /// "baujat", "radial", "labbe" or "qq".
    pub kind: crate::tools::Word,
    /// The SVG document.
    pub svg: String,
    /// Each record's coordinates as metafor returns them, in record order.
    pub points: Vec<DiagnosticPoint>,
    /// L'Abbé only: each point's size as metafor's cex (0.5 to 3.5); null otherwise.
    pub sizes: Option<Vec<f64>>,
    /// Every number drawn, with its pixel position.
    #[cfg_attr(
        feature = "definitions",
        schemars(with = "serde_json::Map<String, Value>")
    )]
    pub numbers: Value,
    /// The fit of the records drawn.
    pub fit: RefitResult,
}

/// What one kind of plot draws besides its points.
struct Drawing {
    points: Vec<DiagnosticPoint>,
    sizes: Option<Vec<f64>>,
    lines: Vec<RefLine>,
    band: Option<Band>,
    x_label: String,
    y_label: String,
    description: String,
}

/// `diagnostic_plot`
pub fn diagnostic_plot(
    args: DiagnosticPlotArgs,
    data: &DataSource,
) -> Result<DiagnosticPlotResult, ToolError> {
    let options = args.fit.options()?;
    let scale = Scale::of(&args.fit.scale, data)?;
    let excluded = args.exclude.of(data)?;
    let kept = data.kept(&excluded);
    let fit = meta_analysis::fit(&kept, &options)?;
    let equal_effects = options.method.is_equal_effects();
    let tau2 = if equal_effects { "" } else { " + τ²" };
    let drawing = match args.kind {
        Kind::Baujat => Drawing {
            points: meta_analysis::baujat(&kept, options.method, options.test)?,
            sizes: None,
            lines: Vec::new(),
            band: None,
            x_label: if equal_effects {
                "Contribution to overall heterogeneity".into()
            } else {
                "Squared Pearson residual".into()
            },
            y_label: "Influence on overall result".into(),
            description: "Each record's squared Pearson residual (x) against the squared \
                          change of the pooled estimate when it is left out, over that \
                          estimate's variance (y), for"
                .into(),
        },
        Kind::Radial => radial(&kept, &fit, options.method, tau2)?,
        Kind::Qq => Drawing {
            points: meta_analysis::qq_standardized(&kept, options.method)?,
            sizes: None,
            lines: vec![RefLine {
                intercept: 0.0,
                slope: 1.0,
                dashed: false,
                label: "y = x: standard normal residuals".into(),
            }],
            band: None,
            x_label: "Theoretical quantile".into(),
            y_label: "Standardized residual".into(),
            description: "Each record's standardized residual (y) against the normal quantile \
                          of its rank (x), for"
                .into(),
        },
        Kind::Labbe => labbe(data, &excluded, &scale, &fit)?,
    };
    let kind_title = match args.kind {
        Kind::Baujat => "Baujat",
        Kind::Radial => "Radial",
        Kind::Labbe => "L'Abbé",
        Kind::Qq => "Normal Q-Q",
    };
    let model = if options.method == Method::Fe {
        "Fixed-effects model".to_string()
    } else if equal_effects {
        "Equal-effects model".to_string()
    } else {
        format!("Random-effects model, {}", options.method.name())
    };
    let subtitle = format!(
        "{model} (k = {}){}",
        fit.k,
        scale
            .measure
            .map_or(String::new(), |m| format!(", {}", m.name))
    );
    let plot = plots::diagnostic(&DiagnosticInput {
        kind: args.kind.name(),
        points: &drawing.points,
        sizes: drawing.sizes.as_deref(),
        label_points: args.kind == Kind::Baujat,
        lines: &drawing.lines,
        band: drawing.band.as_ref(),
        same_axes: args.kind == Kind::Labbe,
        from_zero: (
            matches!(args.kind, Kind::Baujat | Kind::Radial),
            args.kind == Kind::Baujat,
        ),
        // metafor's radial plot reaches 1.3 times the largest precision.
        x_room: if args.kind == Kind::Radial { 1.3 } else { 1.0 },
        title: &title(kind_title, data),
        subtitle: &subtitle,
        x_label: &drawing.x_label,
        y_label: &drawing.y_label,
        description: &drawing.description,
    })?;
    Ok(DiagnosticPlotResult {
        kind: args.kind.name().into(),
        svg: plot.svg,
        points: drawing.points,
        sizes: drawing.sizes,
        numbers: plot.numbers,
        fit: RefitResult::of(&fit, excluded, data, &scale),
    })
}

/// The radial plot: the line through the origin with slope μ̂ and the band ±z around it.
fn radial(
    kept: &[meta_analysis::Record],
    fit: &Fit,
    method: Method,
    tau2: &str,
) -> Result<Drawing, ToolError> {
    let z = normal_quantile(0.5 + fit.level / 2.0);
    let percent = fit.level * 100.0;
    Ok(Drawing {
        points: meta_analysis::radial(kept, method)?,
        sizes: None,
        lines: vec![RefLine {
            intercept: 0.0,
            slope: fit.estimate,
            dashed: false,
            label: format!(
                "Slope: the pooled estimate {}",
                plots::svg::fixed(fit.estimate, 3)
            ),
        }],
        band: Some(Band {
            lower: -z,
            upper: z,
            slope: fit.estimate,
            from_x: 0.0,
            label: format!(
                "{percent}% region: z = slope·x ± {}",
                plots::svg::fixed(z, 2)
            ),
        }),
        x_label: format!("x = 1/√(vi{tau2})"),
        y_label: format!("z = yi/√(vi{tau2})"),
        description: "Each record's precision 1/√(vi + τ²) (x) against its effect over its \
                      standard error (y); the slope of a line from the origin is an effect, for"
            .into(),
    })
}

/// The columns a L'Abbé plot reads.
const TABLE_COLUMNS: [Column; 10] = [
    Column::Ai,
    Column::Bi,
    Column::Ci,
    Column::Di,
    Column::N1i,
    Column::N2i,
    Column::X1i,
    Column::T1i,
    Column::X2i,
    Column::T2i,
];

/// The measures whose records a L'Abbé plot draws.
const TWO_GROUP_MEASURES: [Measure; 7] = [
    Measure::Rr,
    Measure::Or,
    Measure::Rd,
    Measure::As,
    Measure::Irr,
    Measure::Ird,
    Measure::Irsd,
];

/// The L'Abbé plot: the records' arms from their table columns; the lines of no difference
/// and of the pooled estimate.
fn labbe(
    data: &DataSource,
    excluded: &[String],
    scale: &Scale,
    fit: &Fit,
) -> Result<Drawing, ToolError> {
    let measure = scale
        .measure
        .and_then(|m| Measure::parse(m.name))
        .filter(|m| TWO_GROUP_MEASURES.contains(m))
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidArguments,
                format!(
                    "a L'Abbé plot needs records of RR, OR, RD, AS, IRR, IRD or IRSD (the records' measure: \
                     {}): give measure, or records from {} with their 2x2 or person-time columns",
                    scale.measure.map_or("none", |m| m.name),
                    super::COMPUTE_EFFECT_SIZES.name,
                ),
            )
        })?;
    let columns: Vec<(Column, Vec<Option<f64>>)> = TABLE_COLUMNS
        .iter()
        .map(|&c| (c, data.numbers(c.name())))
        .collect();
    let mut ids = Vec::new();
    let mut rows = Vec::new();
    for (i, record) in data.records().iter().enumerate() {
        if excluded.contains(&record.id) {
            continue;
        }
        let mut row = RawRow::default();
        for (column, values) in &columns {
            if let Some(v) = values[i] {
                row.set(*column, v);
            }
        }
        ids.push(record.id.clone());
        rows.push(row);
    }
    let labbe = meta_analysis::labbe(measure, &ids, &rows)?;
    let arm = capitalized(labbe.arm_measure.title());
    let (group1, group2) = if matches!(measure, Measure::Irr | Measure::Ird | Measure::Irsd) {
        ("x1i/t1i", "x2i/t2i")
    } else {
        ("ai, bi", "ci, di")
    };
    Ok(Drawing {
        points: labbe.points,
        sizes: Some(labbe.sizes),
        lines: vec![
            RefLine {
                intercept: 0.0,
                slope: 1.0,
                dashed: false,
                label: "No difference between the groups".into(),
            },
            RefLine {
                intercept: fit.estimate,
                slope: 1.0,
                dashed: true,
                label: format!(
                    "Pooled estimate: y = x {} {} ({})",
                    if fit.estimate < 0.0 { "−" } else { "+" },
                    plots::svg::fixed(fit.estimate.abs(), 3),
                    measure.title()
                ),
            },
        ],
        band: None,
        x_label: format!("{arm}, group 2 ({group2})"),
        y_label: format!("{arm}, group 1 ({group1})"),
        description: format!(
            "Each record's outcome in group 2 (x) against group 1 (y), as {}, point areas by \
             precision, for",
            labbe.arm_measure.title()
        ),
    })
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}


/// The headline of the fit drawn.
impl crate::printed::Printed for DiagnosticPlotResult {
    fn print(&self, out: &mut crate::printed::Out) {
        self.fit.headline(out);
    }
}


/// `res <- rma(...)`, then `baujat(res)`, `radial(res)` or `qqnorm(res)`; the fit's
/// numbers are checked.
#[cfg(feature = "extended")]
impl super::reproduce::Reproducible for DiagnosticPlotArgs {
    fn reproduce(
        &self,
        cx: &super::reproduce::RContext,
        out: &mut super::reproduce::Reproduction,
    ) -> Result<(), ToolError> {
        use super::reproduce::{fit_checks, fit_methods, rma_of_fit};
        let options = self.fit.options()?;
        out.script
            .line(format!("res <- {}", rma_of_fit(cx, &self.exclude.exclude, &self.fit)?));
        match self.kind {
            Kind::Baujat => out.script.line("baujat(res)"),
            Kind::Radial => out.script.line("radial(res)"),
            Kind::Qq => out.script.line("qqnorm(res)"),
            Kind::Labbe => out.script.comment(
                "The L'Abbe plot: labbe() draws a fit made from the 2x2 tables \
                 (rma(ai = ai, bi = bi, ci = ci, di = di, measure = ...)); this script fits \
                 the records' own yi and vi.",
            ),
        };
        fit_checks(out, &cx.result["fit"]);
        fit_methods(
            &mut out.methods,
            cx.result["fit"]["measure"].as_str(),
            options.method,
            options.test,
            options.level,
            false,
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    // Tests of tools beyond the benchmark's are gated on `extended` (the page's first module).
    #![cfg_attr(not(feature = "extended"), allow(unused_imports, dead_code))]
    use super::super::{call, DIAGNOSTIC_PLOT};
    use serde_json::{json, Value};

    fn points(out: &Value) -> Vec<(String, f64, f64)> {
        out["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["id"].as_str().unwrap().to_string(),
                    p["x"].as_f64().unwrap(),
                    p["y"].as_f64().unwrap(),
                )
            })
            .collect()
    }

    /// The tool's points are the engine's for the records kept, and the fit is theirs.
    #[cfg(feature = "extended")]
    #[test]
    fn points_are_the_engines_for_the_records_kept() {
        let out = call(
            DIAGNOSTIC_PLOT.name,
            &json!({"kind": "radial", "exclude": ["s04"]}),
        )
        .unwrap();
        let pts = points(&out);
        assert_eq!(pts.len(), 18);
        assert!(pts.iter().all(|p| p.0 != "s04"));
        assert_eq!(out["fit"]["k"], 18);
        let tau2 = out["fit"]["tau2"].as_f64().unwrap();
        let s01 = crate::dataset::rows()[0].clone();
        let s = (s01.vi + tau2).sqrt();
        assert!((pts[0].1 - 1.0 / s).abs() < 1e-12 && (pts[0].2 - s01.yi / s).abs() < 1e-12);
        assert!(out["svg"].as_str().unwrap().contains("class=\"band\""));
        assert_eq!(out["sizes"], Value::Null);
    }

    #[cfg(feature = "extended")]

    #[test]
    fn labbe_needs_two_group_records() {
        let e = call(DIAGNOSTIC_PLOT.name, &json!({"kind": "labbe"})).unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_arguments", "{}", e.message);
        let e = call(
            DIAGNOSTIC_PLOT.name,
            &json!({"kind": "labbe", "measure": "RR", "records": [
                {"id": "a", "yi": 0.1, "vi": 0.1, "ai": 1, "bi": 9, "ci": 2, "di": 8},
                {"id": "b", "yi": 0.2, "vi": 0.1, "ai": 3}
            ]}),
        )
        .unwrap_err();
        assert!(e.message.contains("\"b\""), "{}", e.message);
        let out = call(
            DIAGNOSTIC_PLOT.name,
            &json!({"kind": "labbe", "records": super::bcg_tables()}),
        )
        .unwrap();
        let pts = points(&out);
        assert!((pts[0].1 - (11.0f64 / 139.0).ln()).abs() < 1e-15);
        assert!((pts[0].2 - (4.0f64 / 123.0).ln()).abs() < 1e-15);
        assert_eq!(out["sizes"].as_array().unwrap().len(), 6);
        let svg = out["svg"].as_str().unwrap();
        assert!(svg.contains("Log proportion, group 2 (ci, di)"), "{svg}");
    }

    #[cfg(feature = "extended")]

    #[test]
    fn every_kind_is_named_and_baujat_labels_its_points() {
        for kind in ["baujat", "radial", "qq"] {
            let out = call(DIAGNOSTIC_PLOT.name, &json!({"kind": kind})).unwrap();
            assert_eq!(out["kind"], kind);
            assert_eq!(out["points"].as_array().unwrap().len(), 19);
            let svg = out["svg"].as_str().unwrap();
            assert_eq!(svg.contains("point-label"), kind == "baujat", "{kind}");
        }
        let e = call(DIAGNOSTIC_PLOT.name, &json!({"kind": "forest"})).unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_arguments", "{}", e.message);
    }
}
