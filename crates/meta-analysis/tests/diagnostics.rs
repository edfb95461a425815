//! The diagnostic plots' coordinates against R's metafor 3.8-1 (fixture:
//! `tests/fixtures/diagnostics.json`, made by `tests/oracle/diagnostics.R`): baujat(),
//! radial() and qqnorm() of REML, DL and EE fits (z and Knapp–Hartung) of
//! dat.raudenbush1985 and dat.bcg's log risk ratios; labbe() of dat.bcg (RR, OR, RD, AS),
//! dat.nielweise2007 (RR, OR, RD, with zero counts) and dat.hart1999 (IRR, IRD, IRSD).

mod oracle_kit;
use meta_analysis::effect_sizes::{Column, Measure, RawRow};
use meta_analysis::{DiagnosticPoint, Method, Test};
use oracle_kit::{dataset, numbers, records, strings, Check};
use serde_json::Value;

fn xs(points: &[DiagnosticPoint]) -> Vec<f64> {
    points.iter().map(|p| p.x).collect()
}

fn ys(points: &[DiagnosticPoint]) -> Vec<f64> {
    points.iter().map(|p| p.y).collect()
}

fn compare(check: &mut Check, what: &str, ours: &[DiagnosticPoint], theirs: &Value) {
    check.nums(&format!("{what} x"), &xs(ours), &theirs["x"]);
    check.nums(&format!("{what} y"), &ys(ours), &theirs["y"]);
}

#[test]
fn baujat_radial_and_qq_agree_with_metafor() {
    let all = oracle_kit::fixture("diagnostics");
    let mut check = Check::default();
    for row in all["results"].as_array().unwrap() {
        let data = row["data"].as_str().unwrap();
        let method = Method::parse(row["method"].as_str().unwrap()).unwrap();
        let test = Test::parse(row["test"].as_str().unwrap()).unwrap();
        let case = format!("{data} {} {}", method.name(), test.name());
        let recs = records(dataset(&all, data));
        let ids: Vec<String> = recs.iter().map(|r| r.id.clone()).collect();
        let baujat = meta_analysis::baujat(&recs, method, test).unwrap();
        compare(
            &mut check,
            &format!("{case} baujat"),
            &baujat,
            &row["baujat"],
        );
        let radial = meta_analysis::radial(&recs, method).unwrap();
        compare(
            &mut check,
            &format!("{case} radial"),
            &radial,
            &row["radial"],
        );
        let qq = meta_analysis::qq_standardized(&recs, method).unwrap();
        compare(&mut check, &format!("{case} qq"), &qq, &row["qq"]);
        for points in [&baujat, &radial, &qq] {
            let got: Vec<String> = points.iter().map(|p| p.id.clone()).collect();
            check.same(format!("{case} ids"), &got, &ids);
        }
    }
    // 12 fits × 3 plots × (x, y) of 19 or 13 records, and the ids.
    check.done(12 * 3 * 2 * 13);
}

#[test]
fn labbe_agrees_with_metafor() {
    let all = oracle_kit::fixture("diagnostics");
    let mut check = Check::default();
    for row in all["labbe"].as_array().unwrap() {
        let data = row["data"].as_str().unwrap();
        let measure = Measure::parse(row["measure"].as_str().unwrap()).unwrap();
        let table = all["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == data)
            .unwrap();
        let ids = strings(&table["ids"]);
        let mut rows = vec![RawRow::default(); ids.len()];
        for (name, values) in table["columns"].as_object().unwrap() {
            let column = Column::parse(name).unwrap();
            for (row, value) in rows.iter_mut().zip(numbers(values)) {
                row.set(column, value);
            }
        }
        let labbe = meta_analysis::labbe(measure, &ids, &rows).unwrap();
        let case = format!("{data} {}", measure.name());
        compare(&mut check, &format!("{case} labbe"), &labbe.points, row);
        check.nums(&format!("{case} labbe cex"), &labbe.sizes, &row["cex"]);
    }
    // 10 cases × (x, y, cex) of 13 to 18 records.
    check.done(10 * 3 * 6);
}
