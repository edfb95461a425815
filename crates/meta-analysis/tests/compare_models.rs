//! `compare_models` against R's metafor 3.8-1 (fixture: `tests/fixtures/compare_models.json`, made by
//! `tests/oracle/compare_models.R`). FILL IN: what is compared, on which data.

mod oracle_kit;
use oracle_kit::{dataset, records, Check};

#[test]
fn every_dataset_agrees_with_metafor() {
    let all = oracle_kit::fixture("compare_models");
    let mut check = Check::default();
    for row in all["results"].as_array().unwrap() {
        let data = row["data"].as_str().unwrap();
        let ours = meta_analysis::compare_models(&records(dataset(&all, data))).unwrap();
        // FILL IN: every number the fixture holds.
        check.same(
            format!("{data} k"),
            ours.k as u64,
            row["k"].as_u64().unwrap(),
        );
        check.num(format!("{data} estimate"), ours.estimate, &row["estimate"]);
        check.num(format!("{data} se"), ours.se, &row["se"]);
        check.num(format!("{data} zval"), ours.zval, &row["zval"]);
        check.num(format!("{data} pval"), ours.pval, &row["pval"]);
        check.num(format!("{data} ci_lb"), ours.ci_lb, &row["ci_lb"]);
        check.num(format!("{data} ci_ub"), ours.ci_ub, &row["ci_ub"]);
    }
    check.done(14);
}
