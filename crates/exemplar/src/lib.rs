//! The benchmark built on the `meta-analysis` engine.
//!
//! - [`dataset`]: the frozen dataset (metadat's `dat.raudenbush1985`), embedded byte for byte.
//! - [`protocol`]: baseline version, the common prompt, the answer shape, the registered rule
//!   and the reference answer computed by the engine.
//! - [`schema_check`]: a validator for the plain JSON Schema subset of the tool inputs.
//! - [`tools`]: the agent tool definitions (the one source the page registers as WebMCP tools),
//!   validated against their own schemas, and the JSON dispatch [`tools::call`].
//! - [`scorer`]: scores a raw pasted answer against the reference answer, field by field.
//! - [`strict_json`]: JSON parsing as serde_json's, except that a duplicate key is an error.
//! - [`ledger`]: the audit ledger's SHA-256 hash chain over tool runs.
//! - [`session`]: one visit's tool runs, each answered and ledgered in one call.
//! - [`page`]: the page's metadata (header facts, conditions, scored fields).
//! - [`canonical`]: the canonical JSON form hashed by the ledger.
//! - `rcode`: writing R (strings, numbers, data frames, methods paragraphs) for the
//!   scripts that reproduce a result (`r_code: true`).
//! - [`printable`]: the one rule for a caller's text where a person reads it (controls
//!   escaped, labels cut).
//!
//! Dependencies point one way: `meta-analysis` ← `exemplar` ← the CLI and the wasm crate.
//! Nothing here does I/O.

pub mod baselines;
pub mod canonical;
pub mod csv_table;
pub mod dataset;
pub mod ledger;
pub mod page;
pub mod plots;
pub mod printable;
pub(crate) mod printed;
pub mod protocol;
pub mod quote;
/// Writing R (the scripts of `r_code: true`).
#[cfg(feature = "extended")]
pub mod rcode;
pub mod result_view;
pub mod runs;
pub mod schema_check;
pub mod scorer;
pub mod session;
pub mod strict_json;
pub mod tools;
pub mod your_data;

use sha2::{Digest, Sha256};

/// The engine version (`meta-analysis`'s package version), recorded with every result.
pub const ENGINE_VERSION: &str = meta_analysis::VERSION;

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The engine's methods (`docs/METHODS.md`): every analysis and convention, growing as tools
/// are added. The page shows it folded; `exemplar mcp` serves it as a resource.
pub fn methods_markdown() -> &'static str {
    // crates/exemplar/docs/ holds symbolic links to the repository's docs/, so that the
    // crate as published (`cargo package` copies what they point to) carries the text.
    include_str!("../docs/METHODS.md")
}

/// The benchmark's own methods (`docs/BENCHMARK_METHODS.md`): the data, REML, the exclusion,
/// Egger's test and its rule, the scoring tolerances. The frozen PDF and the page's Methods
/// section carry it word for word; it changes only with a new baseline version, never when a
/// tool is added or described.
pub fn benchmark_methods_markdown() -> &'static str {
    include_str!("../docs/BENCHMARK_METHODS.md")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_hex_matches_known_vectors() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn methods_text_is_embedded() {
        assert!(methods_markdown().trim_start().starts_with('#'));
        assert!(benchmark_methods_markdown().starts_with("# Methods of the benchmark\n"));
    }
}
