use std::time::Instant;
fn t<F: FnMut() -> usize>(name: &str, n: usize, mut f: F) {
    let s = Instant::now();
    let mut x = 0;
    for _ in 0..n {
        x += std::hint::black_box(f());
    }
    println!(
        "{name}: {:.2} us ({x})",
        s.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}
fn main() {
    let n = 100_000;
    t("call_json", n, || {
        exemplar::tools::call_json(exemplar::tools::FIT_RANDOM_EFFECTS.name, "{}")
            .to_string()
            .len()
    });
    t("parse_args", n, || {
        exemplar::tools::parse_args("{}")
            .map(|v| v.is_object() as usize)
            .unwrap_or(0)
    });
    let records = exemplar::dataset::records();
    t("fit", n, || {
        meta_analysis::fit(&records, &Default::default())
            .map(|f| f.k)
            .unwrap_or(0)
    });
    let v = serde_json::json!({});
    t("tools::call", n, || {
        exemplar::tools::call(exemplar::tools::FIT_RANDOM_EFFECTS.name, &v)
            .map(|r| r.as_object().map(|o| o.len()).unwrap_or(0))
            .unwrap_or(0)
    });
    let r = exemplar::tools::call(exemplar::tools::FIT_RANDOM_EFFECTS.name, &v).unwrap();
    t("to_string", n, || serde_json::to_string(&r).unwrap().len());
}
