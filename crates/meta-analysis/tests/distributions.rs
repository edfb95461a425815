//! Distribution functions against 50-digit mpmath values
//! (`tests/fixtures/distributions.json`, made by `tests/oracle/distributions.py`).

use meta_analysis::distributions::{
    chi2_cdf, chi2_quantile, chi2_sf, f_sf, normal_cdf, normal_quantile, normal_sf, t_cdf,
    t_quantile, t_sf,
};
use serde_json::Value;

mod oracle_kit;

fn fixtures() -> Value {
    oracle_kit::fixture("distributions")
}

/// Relative error, with values below 1e-300 compared absolutely (subnormals carry few digits).
fn rel_err(ours: f64, exact: f64) -> f64 {
    if exact.abs() < 1e-300 {
        (ours - exact).abs() / 1e-300
    } else {
        (ours - exact).abs() / exact.abs()
    }
}

/// `tol` bounds the relative error of each value, scaled by `scale(row)`.
fn check(
    name: &str,
    rows: &Value,
    tol: f64,
    scale: impl Fn(&Value) -> f64,
    f: impl Fn(&Value) -> Vec<(f64, f64, String)>,
) {
    let mut worst = (0.0, String::new());
    let mut n = 0;
    for row in rows[name].as_array().unwrap() {
        for (ours, exact, what) in f(row) {
            let e = rel_err(ours, exact) / scale(row);
            if e.is_nan() || e > worst.0 {
                worst = (e, format!("{what}: ours {ours:e}, exact {exact:e}"));
            }
            n += 1;
        }
    }
    assert!(n > 10, "{name}: only {n} values");
    assert!(
        worst.0 <= tol,
        "{name}: worst scaled relative error {:e} at {}",
        worst.0,
        worst.1
    );
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap()
}

/// Φ(x) has relative condition number about x² in its tails: rounding x/√2 alone
/// costs x²·ε, so the bound is 1e-14 scaled by max(1, x²/20).
#[test]
fn normal_cdf_and_both_tails() {
    check(
        "normal_cdf",
        &fixtures(),
        1e-14,
        |r| (num(r, "x").powi(2) / 20.0).max(1.0),
        |r| {
            let x = num(r, "x");
            vec![
                (normal_cdf(x), num(r, "cdf"), format!("cdf({x})")),
                (normal_sf(x), num(r, "sf"), format!("sf({x})")),
            ]
        },
    );
}

#[test]
fn normal_quantile_deep_into_the_tails() {
    check(
        "normal_quantile",
        &fixtures(),
        1e-14,
        |_| 1.0,
        |r| {
            let p = num(r, "p");
            vec![(normal_quantile(p), num(r, "q"), format!("q({p})"))]
        },
    );
}

/// The regularized incomplete beta and gamma functions (`src/special.rs`, statrs's
/// algorithms) reach about 1e-14 for small parameters but only about 1e-12 for ν ≥ 18
/// (see docs/METHODS.md).
fn special_scale(r: &Value) -> f64 {
    if num(r, "df") < 18.0 {
        1.0
    } else {
        20.0
    }
}

#[test]
fn t_cdf_and_both_tails() {
    check("t_cdf", &fixtures(), 1e-13, special_scale, |r| {
        let (x, df) = (num(r, "x"), num(r, "df"));
        vec![
            (t_cdf(x, df), num(r, "cdf"), format!("cdf({x}; {df})")),
            (t_sf(x, df), num(r, "sf"), format!("sf({x}; {df})")),
        ]
    });
}

#[test]
fn t_quantiles() {
    check("t_quantile", &fixtures(), 1e-13, special_scale, |r| {
        let (p, df) = (num(r, "p"), num(r, "df"));
        vec![(t_quantile(p, df), num(r, "q"), format!("q({p}; {df})"))]
    });
}

#[test]
fn chi2_upper_tail() {
    check("chi2_sf", &fixtures(), 1e-13, special_scale, |r| {
        let (x, df) = (num(r, "x"), num(r, "df"));
        vec![(chi2_sf(x, df), num(r, "sf"), format!("sf({x}; {df})"))]
    });
}

#[test]
fn chi2_lower_tail() {
    check("chi2_sf", &fixtures(), 1e-13, special_scale, |r| {
        let (x, df) = (num(r, "x"), num(r, "df"));
        vec![(chi2_cdf(x, df), num(r, "cdf"), format!("cdf({x}; {df})"))]
    });
}

/// The Q-profile's critical values, from either tail.
#[test]
fn chi2_quantiles() {
    check("chi2_quantile", &fixtures(), 1e-13, special_scale, |r| {
        let (p, df) = (num(r, "p"), num(r, "df"));
        vec![(chi2_quantile(p, df), num(r, "q"), format!("q({p}; {df})"))]
    });
}

/// QM's p value under Knapp–Hartung.
#[test]
fn f_upper_tail() {
    let scale = |r: &Value| if num(r, "df2") < 18.0 { 1.0 } else { 20.0 };
    check("f_sf", &fixtures(), 1e-13, scale, |r| {
        let (x, df1, df2) = (num(r, "x"), num(r, "df1"), num(r, "df2"));
        vec![(
            f_sf(x, df1, df2),
            num(r, "sf"),
            format!("sf({x}; {df1}, {df2})"),
        )]
    });
}
