//! Hooks that a process shared by several panes runs. Codex (0.171 and later) runs its hooks in
//! a background daemon (`codex app-server … --managed-daemon`) that the first Codex TUI starts
//! and every later Codex with the same `CODEX_HOME` reuses: the hook inherits the daemon's
//! environment — `SIGNALTTY_PANE` of the pane that started it — and its process descends from
//! that pane. Neither says which pane's Codex the event belongs to, so neither may decide: a
//! permission request of pane B's Codex shown on pane A is answered for the wrong agent.
//!
//! Such a report is routed by what identifies its session instead:
//! 1. a live pane whose Codex TUI already reported this session id, else
//! 2. the one pane whose Codex TUI runs in the payload's `cwd`, else
//! 3. of those, the one whose screen shows the submitted prompt (`UserPromptSubmit`).
//!
//! Anything else — no session id, no candidate, several that cannot be told apart — goes to no
//! pane: the event changes nothing and the hook returns at once, so Codex asks in its own
//! dialog, in its own pane. A wrong pane is never guessed.
//!
//! Whether a report comes from a daemon is read from the *connection's* process (its pid from
//! the kernel), never from what the hook claims.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agents::AgentKind;
use crate::agents::session::SessionId;
use crate::model::ids::PaneId;

use super::Hub;
use super::attribution::pane_of_process;
use super::panes::Capture;

/// How far above the hook the daemon may be (hook → shell → daemon, with room for wrappers).
const MAX_DEPTH: usize = 8;
/// How much of the prompt's first line must show on the screen to tell panes apart.
const PROMPT_PROBE_CHARS: usize = 40;

/// Whether `argv` is the Codex app-server daemon that runs Codex's hooks.
pub fn is_codex_daemon(argv: &[String]) -> bool {
    argv.first().is_some_and(|a| basename(a) == "codex")
        && argv.get(1).is_some_and(|a| a == "app-server")
        && argv.iter().any(|a| a == "--managed-daemon")
}

/// Whether `argv` is a Codex TUI (the native binary, not its node launcher, the daemon or a
/// one-shot `codex exec`, which runs its hooks itself).
pub fn is_codex_tui(argv: &[String]) -> bool {
    argv.first().is_some_and(|a| basename(a) == "codex")
        && !argv.get(1).is_some_and(|a| {
            ["app-server", "exec", "e", "mcp", "exec-server"].contains(&a.as_str())
        })
}

fn basename(path: &str) -> &str {
    Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
}

fn argv_of(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| {
            raw.split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    super::attribution::parse_ppid(&stat)
}

/// The pid of the Codex daemon `pid` runs under (itself or one of its nearest ancestors).
pub fn codex_daemon_of(pid: u32) -> Option<u32> {
    let mut at = pid;
    for _ in 0..MAX_DEPTH {
        if at <= 1 {
            return None;
        }
        if is_codex_daemon(&argv_of(at)) {
            return Some(at);
        }
        at = parent_of(at)?;
    }
    None
}

/// Every Codex TUI on the machine that we may see: its pid and working directory.
fn codex_tuis() -> Vec<(u32, PathBuf)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| is_codex_tui(&argv_of(*pid)))
        .filter_map(|pid| Some((pid, std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?)))
        .collect()
}

/// Of `candidates`, the one pane a report can only be about, if there is exactly one.
fn only<T: PartialEq>(mut candidates: Vec<T>) -> Option<T> {
    candidates.dedup();
    (candidates.len() == 1).then(|| candidates.remove(0))
}

/// The start of a prompt's first line, as a TUI shows it; `None` when too short to tell.
pub fn prompt_probe(prompt: &str) -> Option<String> {
    let line = prompt.lines().map(str::trim).find(|l| !l.is_empty())?;
    let probe: String = line.chars().take(PROMPT_PROBE_CHARS).collect();
    (probe.chars().count() >= 3).then_some(probe)
}

impl Hub {
    /// The pane a report of `kind` run by a shared daemon belongs to (see the module docs), or
    /// none.
    pub(super) async fn route_by_session(
        &self,
        kind: AgentKind,
        session: Option<&SessionId>,
        payload: &Value,
    ) -> Option<PaneId> {
        let session = session?;
        let hub = self.clone();
        // Codex TUIs per pane, with their working directories.
        let tuis: Vec<(PaneId, PathBuf)> = super::blocking("codex panes", move || {
            codex_tuis()
                .into_iter()
                .filter_map(|(pid, cwd)| {
                    Some((
                        pane_of_process(pid, |chain| hub.live_pane_among(chain))?,
                        cwd,
                    ))
                })
                .collect()
        })
        .await
        .ok()?;
        let bound = self.store().read(|s| {
            s.all_panes()
                .into_iter()
                .filter(|p| p.status.is_live())
                .filter(|p| {
                    p.agent
                        .as_ref()
                        .is_some_and(|a| a.kind == kind && a.session_id.as_ref() == Some(session))
                })
                .map(|p| p.id.clone())
                .collect::<Vec<_>>()
        });
        if let Some(pane) = only(
            bound
                .into_iter()
                .filter(|p| tuis.iter().any(|(t, _)| t == p))
                .collect(),
        ) {
            return Some(pane);
        }
        let cwd = payload.get("cwd").and_then(Value::as_str).map(Path::new)?;
        let mut here: Vec<PaneId> = tuis
            .into_iter()
            .filter(|(_, dir)| dir == cwd)
            .map(|(pane, _)| pane)
            .collect();
        here.sort_by_key(ToString::to_string);
        here.dedup();
        if here.len() <= 1 {
            return here.pop();
        }
        let probe = prompt_probe(payload.get("prompt").and_then(Value::as_str)?)?;
        let mut showing = Vec::new();
        for pane in here {
            if let Ok((lines, _, _)) = self.read_pane(&pane, Capture::Screen, false).await
                && lines.iter().any(|l| l.contains(&probe))
            {
                showing.push(pane);
            }
        }
        only(showing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_daemon_and_the_tui_are_told_apart() {
        let daemon = argv(&[
            "/h/.codex/packages/app-server-daemon/releases/0.171.0/bin/codex",
            "app-server",
            "--listen",
            "unix://",
            "--managed-daemon",
        ]);
        assert!(is_codex_daemon(&daemon));
        assert!(!is_codex_tui(&daemon));
        let tui = argv(&["/n/node_modules/@openai/codex-linux-x64/vendor/bin/codex"]);
        assert!(is_codex_tui(&tui) && !is_codex_daemon(&tui));
        assert!(is_codex_tui(&argv(&["codex", "resume", "--last"])));
        assert!(!is_codex_tui(&argv(&["codex", "exec", "hi"])));
        assert!(!is_codex_tui(&argv(&["node", "/n/.bin/codex"])));
        // An app-server someone runs by hand is no shared hook runner.
        assert!(!is_codex_daemon(&argv(&["codex", "app-server"])));
    }

    #[test]
    fn prompts_are_probed_by_their_first_line() {
        assert_eq!(
            prompt_probe("\n  fix the bug\nplease").as_deref(),
            Some("fix the bug")
        );
        assert_eq!(prompt_probe("ok"), None);
        assert_eq!(prompt_probe("").as_deref(), None);
        let long = "x".repeat(100);
        assert_eq!(
            prompt_probe(&long).map(|p| p.len()),
            Some(PROMPT_PROBE_CHARS)
        );
    }
}
