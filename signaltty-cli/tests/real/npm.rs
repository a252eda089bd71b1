//! Installs a pinned agent CLI from npm into `target/agents-cache/<name>-<version>/`, once: later
//! runs (and the other tests of the run) reuse it. The install is done under a lock file, in a
//! scratch directory renamed into place when complete, so two test processes never see half an
//! install.
//!
//! npm runs *in* that scratch directory (which holds a one-line `package.json`), never with
//! `--prefix`: `--prefix` also moves where npm reads its machine-wide config (`<prefix>/etc/npmrc`),
//! so a user whose registry access depends on it (a proxy, a custom CA, a mirror) saw every request
//! fail and be retried for over a minute each — an install of ten minutes. Root escaped it only
//! because its environment happened to carry `NODE_EXTRA_CA_CERTS`.
//!
//! When npm is missing or the registry unreachable the suite is skipped with a loud message
//! (`Err` of [`install`]); any other failure is a test failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why the real-agent tests cannot run here.
#[derive(Debug)]
pub struct Unavailable(pub String);

/// An npm package pinned to an exact version, and the command it provides.
pub struct Pinned {
    pub package: &'static str,
    pub version: &'static str,
    pub bin: &'static str,
}

/// The cache directory shared by every real-agent suite.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("SIGNALTTY_AGENTS_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/agents-cache")
}

/// The path of `pinned.bin`, installing the package first when the cache lacks it.
pub fn install(pinned: &Pinned) -> Result<PathBuf, Unavailable> {
    let root = cache_root();
    let slug = pinned.package.trim_start_matches('@').replace('/', "-");
    let dir = root.join(format!("{slug}-{}", pinned.version));
    let bin = dir.join("node_modules/.bin").join(pinned.bin);
    if bin.exists() {
        return Ok(bin);
    }
    std::fs::create_dir_all(&root).expect("create target/agents-cache");
    let lock = std::fs::File::create(root.join(format!("{slug}.lock"))).expect("lock file");
    // Held until this function returns.
    let _locked = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| e)
        .expect("lock the agents cache");
    if bin.exists() {
        return Ok(bin);
    }
    let scratch = root.join(format!("{slug}-{}.partial", pinned.version));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let spec = format!("{}@{}", pinned.package, pinned.version);
    eprintln!(
        "real agents: installing {spec} from npm into {}",
        dir.display()
    );
    std::fs::write(scratch.join("package.json"), "{\"private\": true}\n")
        .expect("write the scratch package.json");
    let output = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--loglevel=error",
        ])
        .arg(&spec)
        .current_dir(&scratch)
        .stdin(Stdio::null())
        .output();
    let output = match output {
        Ok(o) => o,
        Err(e) => return Err(Unavailable(format!("npm could not be run: {e}"))),
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let offline = [
            "ENOTFOUND",
            "EAI_AGAIN",
            "ECONNREFUSED",
            "ETIMEDOUT",
            "ENETUNREACH",
            "EHOSTUNREACH",
            "ECONNRESET",
            "network",
        ]
        .iter()
        .any(|m| stderr.contains(m));
        if offline {
            return Err(Unavailable(format!(
                "the npm registry is unreachable: {}",
                stderr.trim()
            )));
        }
        panic!("npm install {spec} failed: {stderr}");
    }
    std::fs::rename(&scratch, &dir).expect("move the install into the cache");
    assert!(
        bin.exists(),
        "{spec} installed but has no {}",
        bin.display()
    );
    Ok(bin)
}

/// Prints the loud skip message every real-agent test gives when npm is unreachable.
pub fn skip(agent: &str, why: &Unavailable) {
    let line = "!".repeat(78);
    eprintln!(
        "\n{line}\nSKIPPED: the real {agent} end-to-end scenarios did not run: {}\n\
         Run them with npm able to reach the registry (or a filled target/agents-cache).\n{line}\n",
        why.0
    );
}
