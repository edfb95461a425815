//! The released baselines: each frozen version with the SHA-256 of its PDF.
//!
//! Frozen means versioned: changing the PDF's bytes without adding a row here
//! fails the PDF crate's tests. The last row is the current baseline.

/// The version of the current frozen baseline: the dataset, prompt, rule and PDF together.
pub const BASELINE_VERSION: &str = "2026-12-04.v3";

/// One released baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Baseline {
    pub version: &'static str,
    /// Lower-case hex SHA-256 of `benchmark-baseline.pdf` for this version.
    pub pdf_sha256: &'static str,
}

/// Every released baseline, oldest first.
pub const RELEASED: &[Baseline] = &[
    Baseline {
        version: "2026-09-04.v1",
        pdf_sha256: "50b7acebc0210da9d92751477fbef43a2b8409096a900badb664abc9e8619b1b",
    },
    // METHODS.md states the engine's input bounds and its truthful solver errors.
    Baseline {
        version: "2026-12-02.v2",
        pdf_sha256: "59747a9f0993ec0dc7066f564605e6fba35921ae6d1253839235e373476100c1",
    },
    // The PDF carries the benchmark's own methods (docs/BENCHMARK_METHODS.md: the data, REML,
    // the exclusion, Egger's test and its rule, the scoring tolerances) instead of the
    // engine's docs/METHODS.md, so adding or describing a tool no longer changes it.
    Baseline {
        version: BASELINE_VERSION,
        pdf_sha256: "0c36e8d096491f658e9a75a94bf78661b81557b386926cbe1f5c88d7b8c10139",
    },
];

/// The current baseline (the last released).
pub fn current() -> Baseline {
    RELEASED[RELEASED.len() - 1]
}

/// The released baseline of `version`, if any.
pub fn find(version: &str) -> Option<Baseline> {
    RELEASED.iter().copied().find(|b| b.version == version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_is_the_protocol_version() {
        assert_eq!(current().version, BASELINE_VERSION);
        assert_eq!(find(BASELINE_VERSION), Some(current()));
        assert_eq!(find("1999-01-01.v0"), None);
    }

    #[test]
    fn versions_are_unique_and_hashes_are_hex() {
        for (i, b) in RELEASED.iter().enumerate() {
            assert!(RELEASED[..i].iter().all(|o| o.version != b.version));
            assert_eq!(b.pdf_sha256.len(), 64);
            assert!(b
                .pdf_sha256
                .bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        }
    }
}
