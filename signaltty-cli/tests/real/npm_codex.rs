//! Installs a pinned agent CLI from npm into `target/agents-cache/<package>-<version>/` once
//! (later runs reuse it), for the suites that drive the real agents. When npm cannot reach its
//! registry the suite is skipped with a loud message on stderr; any other install failure fails
//! the test.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The Codex CLI the suite pins.
pub const CODEX_PACKAGE: &str = "@openai/codex";
/// Its version.
pub const CODEX_VERSION: &str = "0.171.0";

/// The OpenCode CLI the suite pins.
pub const OPENCODE_PACKAGE: &str = "opencode-ai";
/// Its version.
pub const OPENCODE_VERSION: &str = "1.18.33";

/// The `opencode` launcher of the pinned version, installed on first use; `None` (after a loud
/// message) when npm cannot reach its registry.
pub fn opencode() -> Option<PathBuf> {
    static OPENCODE: OnceLock<Option<PathBuf>> = OnceLock::new();
    OPENCODE
        .get_or_init(|| install(OPENCODE_PACKAGE, OPENCODE_VERSION, "opencode"))
        .clone()
}

/// The cache directory for the real agents.
pub fn cache_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/agents-cache")
}

/// The `codex` launcher of the pinned version, installed on first use; `None` (after a loud
/// message) when npm cannot reach its registry.
pub fn codex() -> Option<PathBuf> {
    static CODEX: OnceLock<Option<PathBuf>> = OnceLock::new();
    CODEX
        .get_or_init(|| install(CODEX_PACKAGE, CODEX_VERSION, "codex"))
        .clone()
}

/// Installs `package@version` (once per process; the directory is reused across runs) and
/// returns `node_modules/.bin/<bin>`.
pub fn install(package: &str, version: &str, bin: &str) -> Option<PathBuf> {
    static LOCK: Mutex<()> = Mutex::new(());
    let _one_at_a_time = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let name = package.trim_start_matches('@').replace('/', "-");
    let dir = cache_root().join(format!("{name}-{version}"));
    let launcher = dir.join("node_modules/.bin").join(bin);
    if launcher.is_file() && dir.join(".complete").is_file() {
        return Some(launcher);
    }
    if Command::new("npm")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        skip(&format!(
            "npm is not installed, so {package}@{version} cannot be installed"
        ));
        return None;
    }
    let staging = cache_root().join(format!(".{name}-{version}.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).expect("create the npm staging directory");
    let out = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--prefix",
        ])
        .arg(&staging)
        .arg(format!("{package}@{version}"))
        .stdin(Stdio::null())
        .output()
        .expect("run npm");
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&staging);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if unreachable(&stderr) {
            skip(&format!(
                "npm cannot reach its registry ({})",
                first_error(&stderr)
            ));
            return None;
        }
        panic!("npm install {package}@{version} failed:\n{stderr}");
    }
    std::fs::write(staging.join(".complete"), version).expect("mark the install complete");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&staging, &dir).expect("move the install into the cache");
    assert!(launcher.is_file(), "{} has no {bin}", dir.display());
    Some(launcher)
}

fn unreachable(stderr: &str) -> bool {
    [
        "ENOTFOUND",
        "EAI_AGAIN",
        "ECONNREFUSED",
        "ECONNRESET",
        "ETIMEDOUT",
        "ENETUNREACH",
        "network",
    ]
    .iter()
    .any(|s| stderr.contains(s))
}

fn first_error(stderr: &str) -> &str {
    stderr
        .lines()
        .find(|l| l.contains("ERR"))
        .unwrap_or("no detail")
}

fn skip(why: &str) {
    eprintln!(
        "\n################################################################\n\
         ## SKIPPED: the real-agent scenarios did not run: {why}.\n\
         ################################################################\n"
    );
}
