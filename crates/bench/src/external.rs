//! Figures 4–6, measured by other programs on the same records: the wasm
//! package under Node, the page in Chromium, R metafor and PyMARE. Each is
//! skipped with a note when its program is missing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::command::{chromium, json_line, stdout_of};
use crate::report::{Report, Target};
use bench::generate;
use exemplar::tools::FIT_RANDOM_EFFECTS;

pub fn run(report: &mut Report, root: &Path) {
    let scripts = scripts(root);
    match node_and_pkg(root) {
        Err(why) => report.note(format!("{why}: no wasm or page figures")),
        Ok(pkg) => {
            wasm_under_node(report, root, &scripts, &pkg);
            page(report, root, &scripts);
            crate::longtasks::page_long_tasks(report, root, &scripts);
        }
    }
    let data = match write_data() {
        Ok(dir) => dir,
        Err(e) => {
            report.note(format!("cannot write the records for R and Python: {e}"));
            return;
        }
    };
    metafor(report, &scripts, &data);
    pymare(report, &scripts, &data);
    let _ = std::fs::remove_dir_all(&data);
}

/// crates/bench/scripts.
pub(crate) fn scripts(root: &Path) -> PathBuf {
    root.join("crates").join("bench").join("scripts")
}

/// The module that answers the first calls (www/pkg/core; the full one adds tools, not
/// speed) once node is there too, or what is missing.
pub(crate) fn node_and_pkg(root: &Path) -> Result<PathBuf, String> {
    let pkg = root.join("www").join("pkg").join("core");
    if !works("node", &["--version"]) {
        return Err("node is not installed".into());
    }
    if !pkg.join("exemplar_wasm_bg.wasm").is_file() {
        return Err("www/pkg is missing (run `cargo xtask build`)".into());
    }
    Ok(pkg)
}

fn wasm_under_node(report: &mut Report, root: &Path, scripts: &Path, pkg: &Path) {
    eprintln!("bench: wasm under Node");
    let script = scripts.join("wasm-node.mjs");
    let out = match json_line(
        Command::new("node")
            .arg(script)
            .arg(pkg)
            .arg("1500")
            .arg(FIT_RANDOM_EFFECTS.name)
            .current_dir(root),
    ) {
        Ok(v) => v,
        Err(e) => return report.note(format!("wasm under Node failed: {e}")),
    };
    let wasm_us = out["median_ns"].as_f64().unwrap_or(f64::NAN) / 1e3;
    report.add(
        "wasm_tool_median_us",
        format!("{} tool, wasm under Node, median", FIT_RANDOM_EFFECTS.name),
        wasm_us,
        "µs",
    );
    if let Some(native_us) = report.value("tool_native_median_us") {
        report.add_target(
            "wasm_over_native_ratio",
            "  wasm / native, same tool call",
            wasm_us / native_us,
            "×",
            Target::AtMost(2.0),
        );
    }
}

/// Navigations of each page (ours and the bare one, alternating), and
/// `executeTool` calls timed on the last of ours.
const NAVIGATIONS: usize = 20;
const CALLS: usize = 200;

fn page(report: &mut Report, root: &Path, scripts: &Path) {
    let chromium = match chromium(root) {
        Ok(path) => path,
        Err(why) => return report.note(format!("{why}: no page figures")),
    };
    eprintln!(
        "bench: the page and the bare page in Chromium ({NAVIGATIONS} navigations each, {CALLS} tool calls)"
    );
    let out = match json_line(
        Command::new("node")
            .arg(scripts.join("page.mjs"))
            .arg(root)
            .args([NAVIGATIONS.to_string(), CALLS.to_string()])
            .arg(FIT_RANDOM_EFFECTS.name)
            .env("CHROMIUM", &chromium)
            .current_dir(root),
    ) {
        Ok(v) => v,
        Err(e) => return report.note(format!("the page benchmark failed: {e}")),
    };
    page_load_figures(report, &out);
    page_fetch_figures(report, &out);
    page_call_figures(report, &out);
    page_notes(report, &out);
}

/// How long until every tool is registered and the document is parsed, ours beside the
/// bare page's.
fn page_load_figures(report: &mut Report, out: &Value) {
    let f = |key: &str| out[key].as_f64().unwrap_or(f64::NAN);
    report.add_target(
        "page_tools_over_bare_ratio",
        "page: navigation → every tool registered, ours / bare page, medians",
        f("tools_over_bare_ratio"),
        "×",
        Target::AtMost(1.5),
    );
    report.add(
        "page_tools_registered_ms",
        format!("  ours, median of {NAVIGATIONS} fresh contexts"),
        f("tools_ms_median"),
        "ms",
    );
    report.add(
        "page_bare_tools_registered_ms",
        "  the bare page (same definitions, no-op tools), median",
        f("bare_tools_ms_median"),
        "ms",
    );
    report.add(
        "page_document_loaded_ms",
        "  of ours, until index.html arrived",
        f("document_end_ms_median"),
        "ms",
    );
    report.add(
        "page_dom_interactive_ms",
        "  of ours, until the document was parsed (domInteractive)",
        f("dom_interactive_ms_median"),
        "ms",
    );
    report.add(
        "page_bare_dom_interactive_ms",
        "  of the bare page, until its document was parsed",
        f("bare_dom_interactive_ms_median"),
        "ms",
    );
}

/// What the page fetches (before the tools, the wasm modules, all assets) and how long
/// until its first result.
fn page_fetch_figures(report: &mut Report, out: &Value) {
    let f = |key: &str| out[key].as_f64().unwrap_or(f64::NAN);
    let kb = |key: &str| f(key) / 1000.0;
    report.add_target(
        "page_before_tools_gzip_kb",
        "page: fetched before the tools are registered, gzip, median",
        kb("before_tools_gzip_median"),
        "KB",
        Target::AtMost(100.0),
    );
    report.add_target(
        "page_first_result_ms",
        format!(
            "page: navigation → first {} result, median",
            FIT_RANDOM_EFFECTS.name
        ),
        f("first_result_ms_median"),
        "ms",
        Target::AtMost(150.0),
    );
    report.add(
        "page_wasm_requested_ms",
        "  of which until the wasm was requested",
        f("wasm_start_ms_median"),
        "ms",
    );
    report.add(
        "page_wasm_loaded_ms",
        "  of which until the wasm had arrived",
        f("wasm_end_ms_median"),
        "ms",
    );
    report.add_target(
        "page_wasm_gzip_kb",
        "page: wasm fetched first (www/pkg/core), gzip",
        kb("wasm_gzip"),
        "KB",
        Target::AtMost(150.0),
    );
    report.add(
        "page_wasm_raw_kb",
        "page: wasm fetched first (www/pkg/core), raw",
        kb("wasm_raw"),
        "KB",
    );
    report.add(
        "page_wasm_full_gzip_kb",
        "page: the whole engine (www/pkg/full), loaded after the page has started, gzip",
        kb("wasm_full_gzip"),
        "KB",
    );
    report.add(
        "page_wasm_full_raw_kb",
        "page: the whole engine (www/pkg/full), raw",
        kb("wasm_full_raw"),
        "KB",
    );
    report.add(
        "page_assets_gzip_kb",
        "page: all assets on load, gzip",
        kb("assets_gzip"),
        "KB",
    );
    report.add(
        "page_assets_raw_kb",
        "page: all assets on load, raw",
        kb("assets_raw"),
        "KB",
    );
    if f("pdf_raw") > 0.0 {
        report.add(
            "page_pdf_raw_kb",
            "  plus the frozen PDF it fetches to verify, raw",
            kb("pdf_raw"),
            "KB",
        );
    }
}

/// A tool call's round trip through the page, early and late in a long ledger.
fn page_call_figures(report: &mut Report, out: &Value) {
    let f = |key: &str| out[key].as_f64().unwrap_or(f64::NAN);
    report.add(
        "page_ready_ms",
        "page: navigation start to data-ready, median",
        f("ready_ms_median"),
        "ms",
    );
    report.add_target(
        "page_execute_tool_ms",
        format!(
            "page: executeTool({}) round trip, median of {CALLS}",
            FIT_RANDOM_EFFECTS.name
        ),
        f("call_ms_median"),
        "ms",
        Target::AtMost(2.0),
    );
    report.add(
        "page_execute_tool_first10_ms",
        "  calls 6 to 15 (ledger of 6 to 15 entries), median",
        f("call_ms_first10_median"),
        "ms",
    );
    report.add(
        "page_execute_tool_last10_ms",
        "  last 10 calls (ledger of ~200 entries), median",
        f("call_ms_last10_median"),
        "ms",
    );
    report.add(
        "page_call_tool_direct_ms",
        "  the wasm callTool alone in the page, mean",
        f("direct_call_ms_mean"),
        "ms",
    );
}

/// What the page benchmark saw that is not a figure: tools not registered, a mode other
/// than native WebMCP, files the server does not have.
fn page_notes(report: &mut Report, out: &Value) {
    let f = |key: &str| out[key].as_f64().unwrap_or(f64::NAN);
    let definitions = f("definitions");
    for (key, who) in [
        ("tools_registered", "our page"),
        ("bare_tools_registered", "the bare page"),
    ] {
        if f(key) != definitions {
            report.note(format!(
                "{who} registered {} tools of the {definitions} definitions",
                out[key]
            ));
        }
    }
    if out["mode"] != "native" {
        report.note(format!(
            "the page registered its tools in mode {} (not native WebMCP)",
            out["mode"]
        ));
    }
    if let Some(missing) = out["not_found"].as_array().filter(|m| !m.is_empty()) {
        let missing: Vec<&str> = missing.iter().filter_map(Value::as_str).collect();
        report.note(format!(
            "the page requested files the server does not have: {}",
            missing.join(", ")
        ));
    }
}

fn metafor(report: &mut Report, scripts: &Path, data: &Path) {
    if !works("Rscript", &["--version"]) {
        return report.note("Rscript is not installed: no metafor figures");
    }
    eprintln!("bench: metafor (about 5 s)");
    let out = match key_values(
        Command::new("Rscript")
            .arg(scripts.join("metafor.R"))
            .arg(data.join("k19.csv"))
            .arg(data.join("k1000.csv"))
            .arg(data.join("metareg_k1000.csv")),
    ) {
        Ok(kv) => kv,
        Err(e) => return report.note(format!("metafor failed: {e}")),
    };
    if let Some(reason) = out.get("absent") {
        return report.note(format!("{reason}: no metafor figures"));
    }
    let version = out.get("version").cloned().unwrap_or_default();
    let num = |k: &str| {
        out.get(k)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    let ours_k19 = report.value("reml_k19_median_us").unwrap_or(f64::NAN);
    let ours_loo = report.value("loo_k19_median_us").unwrap_or(f64::NAN);
    let ours_k1000 = report.value("reml_k1000_ms").unwrap_or(f64::NAN);
    let rma = num("rma_k19_ms");
    report.add(
        "metafor_rma_k19_ms",
        format!("metafor {version} rma(REML), 19 records"),
        rma,
        "ms",
    );
    report.add_target(
        "metafor_over_ours_k19",
        "  metafor / ours",
        rma * 1e3 / ours_k19,
        "×",
        Target::AtLeast(1000.0),
    );
    let loo = num("leave1out_k19_ms");
    report.add(
        "metafor_leave1out_k19_ms",
        "metafor leave1out, 19 records",
        loo,
        "ms",
    );
    report.add(
        "metafor_over_ours_loo_k19",
        "  metafor / ours",
        loo * 1e3 / ours_loo,
        "×",
    );
    let big = num("rma_k1000_ms");
    report.add(
        "metafor_rma_k1000_ms",
        "metafor rma(REML), k = 1000 (one fit)",
        big,
        "ms",
    );
    report.add(
        "metafor_over_ours_k1000",
        "  metafor / ours",
        big / ours_k1000,
        "×",
    );
    // metafor builds k × k matrices: at k = 10⁵ they would take 80 GB, so the comparison
    // of the meta-regression is at k = 1000.
    let metareg = num("metareg_k1000_ms");
    report.add(
        "metafor_metareg_k1000_ms",
        "metafor rma(REML, mods = 4 columns), k = 1000 (one fit)",
        metareg,
        "ms",
    );
    report.add(
        "metafor_over_ours_metareg_k1000",
        "  metafor / ours",
        metareg / report.value("metareg_k1000_ms").unwrap_or(f64::NAN),
        "×",
    );
}

fn pymare(report: &mut Report, scripts: &Path, data: &Path) {
    let python = std::env::var("BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    if !works(&python, &["--version"]) {
        return report.note(format!("{python} is not installed: no PyMARE figures"));
    }
    eprintln!("bench: PyMARE");
    let out = match key_values(
        Command::new(&python)
            .arg(scripts.join("pymare_bench.py"))
            .arg(data.join("k19.csv")),
    ) {
        Ok(kv) => kv,
        Err(e) => return report.note(format!("PyMARE failed: {e}")),
    };
    if let Some(reason) = out.get("absent") {
        return report.note(format!(
            "{reason}: no PyMARE figures (set BENCH_PYTHON to a Python that has it)"
        ));
    }
    let version = out.get("version").cloned().unwrap_or_default();
    let ms = out
        .get("fit_k19_ms")
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(f64::NAN);
    report.add(
        "pymare_k19_ms",
        format!("PyMARE {version} meta_regression(REML), 19 records"),
        ms,
        "ms",
    );
    report.add_target(
        "pymare_over_ours_k19",
        "  PyMARE / ours",
        ms * 1e3 / report.value("reml_k19_median_us").unwrap_or(f64::NAN),
        "×",
        Target::AtLeast(1000.0),
    );
}

/// The 19 frozen records and 1000 generated ones as `id,yi,vi` CSV in a fresh temporary directory.
fn write_data() -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("k19.csv"),
        generate::csv(&exemplar::dataset::records()),
    )?;
    std::fs::write(
        dir.join("k1000.csv"),
        generate::csv(&generate::records(1000)),
    )?;
    std::fs::write(dir.join("metareg_k1000.csv"), generate::moderated_csv(1000))?;
    Ok(dir)
}

fn works(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `key value` lines (the value is the rest of the line).
fn key_values(cmd: &mut Command) -> Result<HashMap<String, String>, String> {
    Ok(stdout_of(cmd)?
        .lines()
        .filter_map(|l| l.trim().split_once(' '))
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .collect())
}
