//! The pinned Codex and OpenCode CLIs, installed (once per process; the cache is kept across runs)
//! by [`super::npm::install`], the one installer of every real-agent suite. When npm cannot reach
//! its registry the suite is skipped with the installer's loud message; any other install failure
//! fails the test.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::OnceLock;

use super::npm::{self, Pinned};

/// The Codex CLI the suite pins.
pub const CODEX: Pinned = Pinned {
    package: "@openai/codex",
    version: "0.171.0",
    bin: "codex",
};

/// The OpenCode CLI the suite pins.
pub const OPENCODE: Pinned = Pinned {
    package: "opencode-ai",
    version: "1.18.33",
    bin: "opencode",
};

/// The `codex` launcher of the pinned version, installed on first use; `None` (after a loud
/// message) when npm cannot reach its registry.
pub fn codex() -> Option<PathBuf> {
    static INSTALLED: OnceLock<Option<PathBuf>> = OnceLock::new();
    INSTALLED.get_or_init(|| installed("Codex", &CODEX)).clone()
}

/// The `opencode` launcher of the pinned version, installed on first use; `None` (after a loud
/// message) when npm cannot reach its registry.
pub fn opencode() -> Option<PathBuf> {
    static INSTALLED: OnceLock<Option<PathBuf>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| installed("OpenCode", &OPENCODE))
        .clone()
}

fn installed(agent: &str, pinned: &Pinned) -> Option<PathBuf> {
    match npm::install(pinned) {
        Ok(bin) => Some(bin),
        Err(why) => {
            npm::skip(agent, &why);
            None
        }
    }
}
