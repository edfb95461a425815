//! `cargo xtask pdf`: regenerate the committed `benchmark-baseline.pdf` at the repository root.

use std::path::Path;

use crate::Result;

pub fn regenerate(root: &Path) -> Result<()> {
    let bytes = exemplar_pdf::render()?;
    let path = root.join(exemplar::protocol::PDF_PATH);
    std::fs::write(&path, &bytes)?;
    let hash = exemplar::sha256_hex(&bytes);
    let current = exemplar::baselines::current();
    println!(
        "wrote {} ({} bytes, SHA-256 {hash})",
        path.display(),
        bytes.len()
    );
    if hash != current.pdf_sha256 {
        println!(
            "note: baseline {} records SHA-256 {}; if these bytes are meant to be released, add a \
             new baseline version with this hash in crates/exemplar/src/baselines.rs",
            current.version, current.pdf_sha256
        );
    }
    Ok(())
}
