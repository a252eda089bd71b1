//! What the stable fuzz targets share: the case count and the reading of the checked-in corpus.
//! Included by path (`#[path = "../../fuzz/harness.rs"]`) from the `tests/fuzz.rs` of
//! signaltty-term, -server, -tty and -config: the crates share no test crate, and the corpus
//! lives here, beside this file. Every crate sits one level below the repository's root, so
//! `CARGO_MANIFEST_DIR/..` is the root for each.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Cases per property: `SIGNALTTY_FUZZ_CASES`, else 256 (what CI runs).
pub fn cases() -> u32 {
    std::env::var("SIGNALTTY_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file under `dir`, recursively, sorted (so a run replays them in a stable order).
pub fn files_in(dir: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            out.extend(files_in(&path));
        } else {
            out.push(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
        }
    }
    out.sort();
    out
}

/// The corpus of `target` (`fuzz/corpus/<target>/`) plus every file under the `extra`
/// directories (relative to the repository's root); an empty corpus fails the test.
pub fn corpus(target: &str, extra: &[&str]) -> Vec<Vec<u8>> {
    let mut inputs = files_in(&root().join("fuzz/corpus").join(target));
    for dir in extra {
        inputs.extend(files_in(&root().join(dir)));
    }
    assert!(!inputs.is_empty(), "empty corpus {target}");
    inputs
}
