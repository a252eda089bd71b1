//! The OpenCode integration: plugin files we own entirely, in the `plugins/` directory of the
//! OpenCode config directory (`$OPENCODE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/opencode`, else
//! `~/.config/opencode`). Each file's first line carries the managed marker; a file at one of
//! our paths without it belongs to the user and is never overwritten or removed.
//!
//! Two plugin generations, because OpenCode 2 does not run OpenCode 1 plugins:
//! - **V1**: `plugins/signaltty.js`, a module whose named export returns an `event` hook
//!   ([`plugin_source`]);
//! - **V2**: `plugins/signaltty/` with a `package.json` whose `./tui` export is `tui.js`, a
//!   default-exported `{id, setup}` definition that subscribes with `context.data.on` — the TUI
//!   part, because it is the part that runs in the pane ([`v2_tui_source`]).
//!
//! Which one is written follows the installed OpenCode (`opencode --version`, bounded): 1.x →
//! V1, 2.x → V2, and the other generation's files of ours are removed. OpenCode 2 loads every
//! `.js` file directly in `plugins/` and fails on a V1 plugin there ("plugins failed"), while
//! OpenCode 1 never looks into the V2 directory; so when the version cannot be told (not on
//! PATH, too slow) only V2 is written, and the install says so ([`UNKNOWN_VERSION_NOTICE`]).
//!
//! Both report asynchronously (a `signaltty hook-event` child per event, one at a time, killed
//! after 5 s, at most 64 queued) and never block OpenCode's event loop; only when OpenCode exits
//! are the reports still queued sent synchronously (2 s at most), or `opencode run` lost its last.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::file;
use super::{HookState, InstallError, MANAGED_MARKER, WriteOutcome};

const REPORT_JS: &str = include_str!("opencode/report.js");
const V1_JS: &str = include_str!("opencode/v1.js");
const V2_TUI_JS: &str = include_str!("opencode/v2_tui.js");

/// The plugin generations OpenCode may load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// OpenCode 1.
    V1,
    /// OpenCode 2.
    V2,
}

fn with_program(template: &str, program: &str) -> String {
    let program = serde_json::to_string(program).expect("a string always serializes");
    template.replace(
        "__SIGNALTTY_REPORT__",
        &REPORT_JS.replace("__SIGNALTTY_PROGRAM__", &program),
    )
}

/// The V1 plugin source for `program`.
pub fn plugin_source(program: &str) -> String {
    with_program(V1_JS, program)
}

/// The V2 TUI plugin source for `program`.
pub fn v2_tui_source(program: &str) -> String {
    with_program(V2_TUI_JS, program)
}

/// The V2 plugin's package manifest.
pub fn v2_package_json() -> String {
    format!(
        r#"{{
  "name": "signaltty",
  "description": "{MANAGED_MARKER} (managed): reports this pane's OpenCode state to signaltty",
  "private": true,
  "type": "module",
  "exports": {{
    "./tui": "./tui.js"
  }}
}}
"#
    )
}

/// The files of one generation, under the V1 plugin path `v1` (`…/plugins/signaltty.js`).
fn files(generation: Generation, v1: &Path, program: &str) -> Vec<(PathBuf, String)> {
    match generation {
        Generation::V1 => vec![(v1.to_owned(), plugin_source(program))],
        Generation::V2 => {
            let dir = v1.with_extension("");
            vec![
                (dir.join("package.json"), v2_package_json()),
                (dir.join("tui.js"), v2_tui_source(program)),
            ]
        }
    }
}

/// The file that holds a generation's plugin code, under the V1 plugin path `v1`.
pub fn entry_path(v1: &Path, generation: Generation) -> PathBuf {
    match generation {
        Generation::V1 => v1.to_owned(),
        Generation::V2 => v1.with_extension("").join("tui.js"),
    }
}

/// How long `opencode --version` may take: it starts a Node launcher and then the native
/// binary, 0.6 s on an idle machine and 2 s on a busy one (500 ms was too short).
pub const VERSION_PROBE: Duration = Duration::from_secs(5);

/// The generation the installed OpenCode loads, from `opencode --version` (at most
/// [`VERSION_PROBE`]); `None` when it cannot be told.
pub fn detect_generation() -> Option<Generation> {
    match opencode_major(Path::new("opencode"), VERSION_PROBE) {
        Some(1) => Some(Generation::V1),
        Some(m) if m >= 2 => Some(Generation::V2),
        _ => None,
    }
}

/// The generation written when the version cannot be told: OpenCode 1 ignores the V2 plugin,
/// but OpenCode 2 fails on a V1 one.
pub const FALLBACK: Generation = Generation::V2;

/// What an install says when it could not tell the version and wrote only the V2 plugin.
pub const UNKNOWN_VERSION_NOTICE: &str = "could not tell the OpenCode version (`opencode --version` \
     gave none within 5 s), so only the OpenCode 2 plugin was installed; with OpenCode 1, run \
     `signaltty integration install opencode` again where `opencode --version` works";

fn other(generation: Generation) -> Generation {
    match generation {
        Generation::V1 => Generation::V2,
        Generation::V2 => Generation::V1,
    }
}

fn opencode_major(program: &Path, wait: Duration) -> Option<u32> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + wait;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    parse_major(&out)
}

/// The major version in `opencode --version` output (`1.18.30`, `opencode 2.0.1`).
pub fn parse_major(text: &str) -> Option<u32> {
    text.split_whitespace()
        .find_map(|w| w.trim_start_matches('v').split('.').next()?.parse().ok())
}

/// True when the file's content is ours: the marker on its first line (JS) or anywhere in a
/// manifest.
fn is_ours(path: &Path, bytes: &[u8]) -> bool {
    if path.extension().is_some_and(|e| e == "json") {
        return String::from_utf8_lossy(bytes).contains(MANAGED_MARKER);
    }
    let first_line = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    String::from_utf8_lossy(first_line).contains(MANAGED_MARKER)
}

pub(super) fn status(
    v1: &Path,
    program: &str,
    generation: Generation,
) -> Result<HookState, InstallError> {
    let (mut exact, mut ours, mut total) = (0, 0, 0);
    for g in [generation] {
        for (path, source) in files(g, v1, program) {
            total += 1;
            let existing = match file::read(&path) {
                Err(InstallError::Malformed { reason, .. }) => {
                    return Ok(HookState::Malformed(reason));
                }
                other => other?,
            };
            match &existing.bytes {
                None => {}
                Some(b) if b == source.as_bytes() => exact += 1,
                Some(b) if is_ours(&path, b) => ours += 1,
                Some(_) => {
                    return Ok(HookState::Malformed(format!(
                        "{} was not written by signaltty and is in the way",
                        path.display()
                    )));
                }
            }
        }
    }
    // Our files of the other generation are in the way (OpenCode 2 fails on a V1 plugin).
    let stale = files(other(generation), v1, "")
        .iter()
        .any(|(path, _)| std::fs::read(path).is_ok_and(|b| is_ours(path, &b)));
    Ok(if exact == total && !stale {
        HookState::Installed
    } else if exact + ours == 0 && !stale {
        HookState::NotInstalled
    } else {
        HookState::Partial
    })
}

pub(super) fn install(
    v1: &Path,
    program: &str,
    generation: Generation,
) -> Result<WriteOutcome, InstallError> {
    let wanted = files(generation, v1, program);
    // Refuse before writing anything: a foreign file at any of our paths stops the install.
    let mut plan = Vec::new();
    for (path, source) in wanted {
        let existing = file::read(&path)?;
        match &existing.bytes {
            Some(b) if b == source.as_bytes() => {}
            Some(b) if !is_ours(&path, b) => return Err(InstallError::Foreign(path)),
            _ => plan.push((existing, source)),
        }
    }
    let mut outcome = WriteOutcome::Unchanged;
    for (existing, source) in plan {
        file::write_atomic(&existing, source.as_bytes())?;
        outcome = WriteOutcome::Changed;
    }
    if remove_ours(other(generation), v1)? == WriteOutcome::Changed {
        outcome = WriteOutcome::Changed;
    }
    Ok(outcome)
}

/// Removes our files of `generation` (never anyone else's), and the V2 directory it emptied.
fn remove_ours(generation: Generation, v1: &Path) -> Result<WriteOutcome, InstallError> {
    let mut outcome = WriteOutcome::Unchanged;
    for (path, _) in files(generation, v1, "") {
        let existing = file::read(&path)?;
        if let Some(b) = &existing.bytes
            && is_ours(&path, b)
        {
            file::remove(&existing)?;
            outcome = WriteOutcome::Changed;
        }
    }
    if generation == Generation::V2 {
        // Only an empty directory goes; anything the user put there keeps it.
        let _ = std::fs::remove_dir(v1.with_extension(""));
    }
    Ok(outcome)
}

/// Removes every plugin file of ours (both generations) and the V2 directory it emptied.
pub(super) fn uninstall(v1: &Path) -> Result<WriteOutcome, InstallError> {
    let v1_done = remove_ours(Generation::V1, v1)?;
    let v2_done = remove_ours(Generation::V2, v1)?;
    Ok(if v1_done == WriteOutcome::Changed {
        v1_done
    } else {
        v2_done
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `opencode --version` of opencode-ai 1.18 takes 0.6 s on an idle machine: a launcher that
    /// slow is still read (the probe once gave up after 500 ms and installed both generations).
    #[test]
    fn a_slow_version_probe_is_still_read() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let program = dir.path().join("opencode");
        std::fs::write(&program, "#!/bin/sh\nsleep 0.7\necho 1.18.33\n").expect("script");
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert_eq!(opencode_major(&program, VERSION_PROBE), Some(1));
        assert_eq!(
            opencode_major(&dir.path().join("missing"), VERSION_PROBE),
            None
        );
    }

    #[test]
    fn versions_are_read_from_the_cli_output() {
        assert_eq!(parse_major("1.18.30\n"), Some(1));
        assert_eq!(parse_major("opencode v2.0.1"), Some(2));
        assert_eq!(parse_major("garbage"), None);
    }

    #[test]
    fn sources_carry_the_program_and_the_marker() {
        let v1 = plugin_source("/opt/it's/signaltty");
        assert!(v1.starts_with("// signaltty hook-event (managed)"));
        assert!(v1.contains(r#"const PROGRAM = "/opt/it's/signaltty";"#));
        assert!(!v1.contains("__SIGNALTTY"));
        let v2 = v2_tui_source("/bin/signaltty");
        assert!(v2.contains("export default"));
        // Reports never block the event loop: only the exit handler, when there is no loop
        // left to block, sends synchronously.
        let (running, exiting) = v2
            .split_once("process.once(\"exit\"")
            .expect("an exit flush");
        assert!(
            !running
                .replace("spawn, spawnSync", "")
                .contains("spawnSync")
        );
        assert!(exiting.contains("spawnSync"));
        assert!(v2_package_json().contains(MANAGED_MARKER));
    }
}
