//! The OpenCode integration is a plugin file we own entirely (`plugins/signaltty.js`). Its first
//! line carries the managed marker; a file at that path without it belongs to the user and is
//! never overwritten or removed.
//!
//! The plugin forwards `session.created`, `session.status` (busy/idle), `session.idle` and
//! `session.error` of top-level sessions (subagent sessions are skipped) to
//! `signaltty hook-event --agent opencode`, with a normalized payload `{session_id, status?,
//! error?}`. It does nothing outside a signaltty pane and never disturbs the agent.

use std::path::Path;

use super::file;
use super::{HookState, InstallError, MANAGED_MARKER, WriteOutcome};

/// The plugin source for `program`.
pub(super) fn plugin_source(program: &str) -> String {
    let program = serde_json::to_string(program).expect("a string always serializes");
    format!(
        r#"// {MANAGED_MARKER} (managed): written by signaltty; reinstalling replaces it, uninstalling removes it.
// Reports OpenCode session events to the signaltty server that runs this pane.
import {{ spawnSync }} from "node:child_process";

const PROGRAM = {program};
const children = new Set();

function report(event, payload) {{
  if (!process.env.SIGNALTTY_PANE) return;
  try {{
    spawnSync(PROGRAM, ["hook-event", "--agent", "opencode", "--event", event, "--payload-stdin"], {{
      input: JSON.stringify(payload),
      timeout: 8000,
      stdio: ["pipe", "ignore", "ignore"],
    }});
  }} catch (_) {{
    // Best effort: a missing server must never disturb the agent.
  }}
}}

export const SignalttyPlugin = async () => ({{
  event: async ({{ event }}) => {{
    const p = event.properties ?? {{}};
    const session_id = p.sessionID ?? p.sessionId ?? p.session_id ?? p.info?.id;
    if (session_id && children.has(session_id)) return;
    switch (event.type) {{
      case "session.created":
        if (p.info?.parentID) {{
          children.add(p.info.id);
          return;
        }}
        report(event.type, {{ session_id }});
        break;
      case "session.idle":
        report(event.type, {{ session_id }});
        break;
      case "session.status": {{
        const status = p.status?.type;
        if (status === "busy" || status === "idle") report(event.type, {{ session_id, status }});
        break;
      }}
      case "session.error":
        report(event.type, {{ session_id, error: p.error ?? null }});
        break;
    }}
  }},
}});
"#
    )
}

fn is_ours(bytes: &[u8]) -> bool {
    let first_line = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    String::from_utf8_lossy(first_line).contains(MANAGED_MARKER)
}

pub(super) fn status(path: &Path, program: &str) -> Result<HookState, InstallError> {
    let existing = match file::read(path) {
        Err(InstallError::Malformed { reason, .. }) => return Ok(HookState::Malformed(reason)),
        other => other?,
    };
    Ok(match &existing.bytes {
        None => HookState::NotInstalled,
        Some(b) if b == plugin_source(program).as_bytes() => HookState::Installed,
        Some(b) if is_ours(b) => HookState::Partial,
        Some(_) => HookState::Malformed(
            "a signaltty.js plugin not written by signaltty is in the way".to_owned(),
        ),
    })
}

pub(super) fn install(path: &Path, program: &str) -> Result<WriteOutcome, InstallError> {
    let existing = file::read(path)?;
    let source = plugin_source(program);
    match &existing.bytes {
        Some(b) if b == source.as_bytes() => return Ok(WriteOutcome::Unchanged),
        Some(b) if !is_ours(b) => return Err(InstallError::Foreign(path.to_owned())),
        _ => {}
    }
    file::write_atomic(&existing, source.as_bytes())?;
    Ok(WriteOutcome::Changed)
}

pub(super) fn uninstall(path: &Path) -> Result<WriteOutcome, InstallError> {
    let existing = file::read(path)?;
    match &existing.bytes {
        Some(b) if is_ours(b) => {
            file::remove(&existing)?;
            Ok(WriteOutcome::Changed)
        }
        // Absent, or the user's own file: nothing of ours to remove.
        _ => Ok(WriteOutcome::Unchanged),
    }
}
