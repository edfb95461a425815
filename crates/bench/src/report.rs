//! Figures with their targets, printed as a table or as one JSON object.

use serde_json::{json, Map, Value};

/// A target of the issue: the figure must be at most, or at least, a value.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    AtMost(f64),
    AtLeast(f64),
}

impl Target {
    fn met(self, value: f64) -> bool {
        match self {
            Target::AtMost(t) => value <= t,
            Target::AtLeast(t) => value >= t,
        }
    }
}

/// One measured figure.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Stable JSON key, with its unit: `reml_k19_median_us`.
    pub key: String,
    pub label: String,
    pub value: f64,
    pub unit: &'static str,
    pub target: Option<Target>,
    /// Further numbers behind the figure, in the JSON output only.
    pub detail: Option<Value>,
}

impl Figure {
    pub fn met(&self) -> Option<bool> {
        self.target.map(|t| t.met(self.value))
    }
}

/// Every figure of one run, with the machine and the notes (absent tools, diagnostics).
#[derive(Debug, Default)]
pub struct Report {
    pub machine: Map<String, Value>,
    pub figures: Vec<Figure>,
    pub notes: Vec<String>,
}

impl Report {
    pub fn add(
        &mut self,
        key: impl Into<String>,
        label: impl Into<String>,
        value: f64,
        unit: &'static str,
    ) -> &mut Figure {
        self.push(key, label, value, unit, None)
    }

    pub fn add_target(
        &mut self,
        key: impl Into<String>,
        label: impl Into<String>,
        value: f64,
        unit: &'static str,
        target: Target,
    ) -> &mut Figure {
        self.push(key, label, value, unit, Some(target))
    }

    fn push(
        &mut self,
        key: impl Into<String>,
        label: impl Into<String>,
        value: f64,
        unit: &'static str,
        target: Option<Target>,
    ) -> &mut Figure {
        self.figures.push(Figure {
            key: key.into(),
            label: label.into(),
            value,
            unit,
            target,
            detail: None,
        });
        self.figures.last_mut().expect("just pushed")
    }

    pub fn note(&mut self, note: impl Into<String>) {
        let note = note.into();
        eprintln!("bench: {note}");
        self.notes.push(note);
    }

    pub fn value(&self, key: &str) -> Option<f64> {
        self.figures.iter().find(|f| f.key == key).map(|f| f.value)
    }

    pub fn to_json(&self) -> Value {
        let mut figures = Map::new();
        for f in &self.figures {
            let target = f.target.map(|t| match t {
                Target::AtMost(v) => json!({"at_most": v}),
                Target::AtLeast(v) => json!({"at_least": v}),
            });
            let mut figure = json!({
                "label": f.label,
                "value": f.value,
                "unit": f.unit,
                "target": target,
                "met": f.met(),
            });
            if let Some(detail) = &f.detail {
                figure["detail"] = detail.clone();
            }
            figures.insert(f.key.clone(), figure);
        }
        let targets = self.figures.iter().filter_map(Figure::met);
        let (met, total) = targets.fold((0, 0), |(m, t), ok| (m + ok as usize, t + 1));
        let mut out = self.machine.clone();
        out.insert("figures".into(), Value::Object(figures));
        out.insert("targets_met".into(), json!(met));
        out.insert("targets".into(), json!(total));
        out.insert("notes".into(), json!(self.notes));
        Value::Object(out)
    }

    pub fn to_table(&self) -> String {
        let rows: Vec<[String; 4]> = self
            .figures
            .iter()
            .map(|f| {
                let target = match f.target {
                    Some(Target::AtMost(t)) => format!("≤ {} {}", number(t), f.unit),
                    Some(Target::AtLeast(t)) => format!("≥ {} {}", number(t), f.unit),
                    None => String::new(),
                };
                let met = match f.met() {
                    Some(true) => "yes",
                    Some(false) => "NO",
                    None => "",
                };
                [
                    f.label.clone(),
                    format!("{} {}", number(f.value), f.unit),
                    target,
                    met.to_string(),
                ]
            })
            .collect();
        let header = ["figure", "value", "target", "met?"].map(String::from);
        let width = |c: usize| {
            rows.iter()
                .chain([&header])
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        };
        let widths = [width(0), width(1), width(2), width(3)];
        let line = |r: &[String; 4]| {
            let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w - s.chars().count()));
            format!(
                "{}  {}  {}  {}",
                pad(&r[0], widths[0]),
                pad(&r[1], widths[1]),
                pad(&r[2], widths[2]),
                r[3]
            )
            .trim_end()
            .to_string()
        };
        let mut out = String::new();
        for (k, v) in &self.machine {
            out.push_str(&format!(
                "{k}: {}\n",
                v.as_str().map_or(v.to_string(), String::from)
            ));
        }
        out.push('\n');
        out.push_str(&line(&header));
        out.push('\n');
        out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 6 + 4));
        out.push('\n');
        for r in &rows {
            out.push_str(&line(r));
            out.push('\n');
        }
        let (met, total) = self
            .figures
            .iter()
            .filter_map(Figure::met)
            .fold((0, 0), |(m, t), ok| (m + ok as usize, t + 1));
        out.push_str(&format!("\n{met} of {total} targets met.\n"));
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out
    }
}

/// Three significant digits, without exponent for the magnitudes here.
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let a = v.abs();
    if a >= 100.0 || a == 0.0 || a.fract() == 0.0 && a < 1e15 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        let digits = (2 - a.log10().floor() as i32).clamp(3, 9) as usize;
        format!("{v:.digits$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_three_significant_digits() {
        assert_eq!(number(1234.6), "1235");
        assert_eq!(number(12.34), "12.3");
        assert_eq!(number(1.234), "1.23");
        assert_eq!(number(0.01234), "0.0123");
        assert_eq!(number(3.0), "3");
    }

    #[test]
    fn targets_are_judged_both_ways() {
        let mut r = Report::default();
        r.add_target("a", "a", 1.0, "µs", Target::AtMost(2.0));
        r.add_target("b", "b", 1.0, "×", Target::AtLeast(2.0));
        r.add("c", "c", 1.0, "ms");
        let j = r.to_json();
        assert_eq!(j["figures"]["a"]["met"], json!(true));
        assert_eq!(j["figures"]["b"]["met"], json!(false));
        assert_eq!(j["figures"]["c"]["met"], Value::Null);
        assert_eq!(j["targets"], json!(2));
        assert!(r.to_table().contains("1 of 2 targets met."));
    }
}
