//! What `signaltty race …` prints: a race as a table of entries (agent, state, whether its turn
//! ended, elapsed time, pending decision, files changed, `+/-`), the compare matrix (which
//! entries touched which files), and what keeping or closing did. `--json` prints the same
//! facts as objects, with enum values in their lower-case names.

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use signaltty_client::present::names::name;
use signaltty_proto::v1 as pb;

use super::Ctx;
use crate::error::CliResult;
use crate::table::Table;

fn time_of(seconds: i64, nanos: i32) -> Option<SystemTime> {
    let secs = u64::try_from(seconds).ok()?;
    let nanos = u32::try_from(nanos).ok()?;
    Some(SystemTime::UNIX_EPOCH + Duration::new(secs, nanos))
}

macro_rules! time {
    ($t:expr) => {
        $t.as_ref().and_then(|t| time_of(t.seconds, t.nanos))
    };
}

macro_rules! rfc3339 {
    ($t:expr) => {
        json!(signaltty_client::present::json::timestamp(&$t))
    };
}

/// How long an entry has worked on its last prompt: until its turn ended, else until now.
fn elapsed(e: &pb::RaceEntry) -> String {
    let Some(from) = time!(e.prompt_delivered_at).or(time!(e.started_at)) else {
        return "-".into();
    };
    let until = time!(e.turn_ended_at)
        .filter(|end| *end >= from)
        .unwrap_or_else(SystemTime::now);
    let secs = until.duration_since(from).unwrap_or_default().as_secs();
    if secs >= 3600 {
        format!("{}h{:02}m", secs / 3600, secs % 3600 / 60)
    } else if secs >= 60 {
        format!("{}m{:02}s", secs / 60, secs % 60)
    } else {
        format!("{secs}s")
    }
}

/// One entry as `--json` prints it.
pub fn entry_json(e: &pb::RaceEntry) -> Value {
    json!({
        "index": e.index,
        "agent": e.agent,
        "state": name::<pb::RaceEntryState>(e.state),
        "turn_ended": e.state == pb::RaceEntryState::TurnEnded as i32,
        "branch": e.branch,
        "path": e.path,
        "workspace_id": e.workspace_id,
        "pane_id": e.pane_id,
        "lifecycle": name::<pb::Lifecycle>(e.lifecycle),
        "attention": name::<pb::Attention>(e.attention),
        "pending_decision_id": e.pending_decision_id,
        "pending_decision_prompt": e.pending_decision_prompt,
        "turns": e.turns,
        "pending_comments": e.pending_comments,
        "started_at": rfc3339!(e.started_at),
        "prompt_delivered_at": rfc3339!(e.prompt_delivered_at),
        "turn_ended_at": rfc3339!(e.turn_ended_at),
        "files_changed": e.files_changed,
        "added": e.added,
        "removed": e.removed,
        "error": e.error,
        "setup_output": e.setup_output,
        "check": e.check.as_ref().map(check_json),
    })
}

fn check_json(c: &pb::RaceCheck) -> Value {
    json!({
        "command": c.command,
        "exit_code": c.exit_code,
        "timed_out": c.timed_out,
        "output": c.output,
        "finished_at": rfc3339!(c.finished_at),
    })
}

/// A race as `--json` prints it.
pub fn race_json(r: &pb::Race) -> Value {
    json!({
        "id": r.id,
        "state": name::<pb::RaceState>(r.state),
        "workspace_id": r.workspace_id,
        "repo_root": r.repo_root,
        "base": r.base,
        "base_commit": r.base_commit,
        "base_branch": r.base_branch,
        "prompt": r.prompt,
        "created_at": rfc3339!(r.created_at),
        "kept_index": (r.kept_index > 0).then_some(r.kept_index),
        "check_command": r.check_command,
        "setup_command": r.setup_command,
        "copy_files": r.copy_files,
        "entries": r.entries.iter().map(entry_json).collect::<Vec<_>>(),
    })
}

/// The entries' table, for `race show` and the TUI's capture in the guide.
pub fn race_table(r: &pb::Race) -> String {
    let mut table = Table::new(&[
        "#",
        "AGENT",
        "STATE",
        "AGENT STATE",
        "ELAPSED",
        "DECISION",
        "FILES",
        "+/-",
        "BRANCH",
    ]);
    for e in &r.entries {
        let agent_state = if e.pane_id.is_empty() {
            "-".to_owned()
        } else {
            format!(
                "{}/{}",
                name::<pb::Lifecycle>(e.lifecycle),
                name::<pb::Attention>(e.attention)
            )
        };
        let decision = if e.pending_decision_id.is_empty() {
            "-".to_owned()
        } else {
            format!("{} {}", e.pending_decision_id, e.pending_decision_prompt)
        };
        let mut state = name::<pb::RaceEntryState>(e.state);
        if e.pending_comments > 0 {
            state.push_str(&format!(" ({} comments queued)", e.pending_comments));
        }
        table.row([
            e.index.to_string(),
            e.agent.clone(),
            state,
            agent_state,
            elapsed(e),
            decision,
            e.files_changed.to_string(),
            format!("+{}/-{}", e.added, e.removed),
            e.branch.clone(),
        ]);
    }
    table.render()
}

/// `race start`, `race show`, `race wait`.
pub fn print_race(ctx: &Ctx, r: &pb::Race) -> CliResult {
    if ctx.out.is_json() {
        return ctx.out.json(&race_json(r));
    }
    let base = if r.base.is_empty() { "HEAD" } else { &r.base };
    let short: String = r.base_commit.chars().take(10).collect();
    ctx.out.line(format!(
        "race {} ({}) from {base} = {short} on {}",
        r.id,
        name::<pb::RaceState>(r.state),
        if r.base_branch.is_empty() {
            "(detached)"
        } else {
            &r.base_branch
        }
    ))?;
    ctx.out.text(&race_table(r))?;
    for e in r.entries.iter().filter(|e| !e.error.is_empty()) {
        ctx.out.line(format!("entry {}: {}", e.index, e.error))?;
    }
    Ok(())
}

/// `race list`.
pub fn print_list(ctx: &Ctx, races: &[pb::Race]) -> CliResult {
    if ctx.out.is_json() {
        return ctx
            .out
            .json(&races.iter().map(race_json).collect::<Vec<_>>());
    }
    let mut table =
        Table::new(&["ID", "STATE", "ENTRIES", "TURNS ENDED", "BASE", "PROMPT"]).max_width(5, 40);
    for r in races {
        let ended = r
            .entries
            .iter()
            .filter(|e| e.state == pb::RaceEntryState::TurnEnded as i32)
            .count();
        table.row([
            r.id.clone(),
            name::<pb::RaceState>(r.state),
            r.entries.len().to_string(),
            ended.to_string(),
            r.base_commit.chars().take(10).collect(),
            r.prompt.lines().next().unwrap_or_default().to_owned(),
        ]);
    }
    ctx.out.text(&table.render())
}

/// `race compare`: totals, the per-file matrix, check results, patches.
pub fn print_compare(ctx: &Ctx, entries: &[pb::RaceEntryDiff]) -> CliResult {
    if ctx.out.is_json() {
        let list: Vec<Value> = entries
            .iter()
            .map(|d| {
                json!({
                    "index": d.index,
                    "added": d.added,
                    "removed": d.removed,
                    "error": d.error,
                    "files": d.files.iter().map(|f| json!({
                        "path": f.path,
                        "added": f.added,
                        "removed": f.removed,
                        "binary": f.binary,
                        "untracked": f.untracked,
                    })).collect::<Vec<_>>(),
                    "patch": d.patch,
                    "patch_truncated": d.patch_truncated,
                    "check": d.check.as_ref().map(check_json),
                })
            })
            .collect();
        return ctx.out.json(&list);
    }
    let mut totals = Table::new(&["#", "FILES", "+/-", "CHECK"]);
    for d in entries {
        let check = match &d.check {
            None => "-".to_owned(),
            Some(c) if c.timed_out => "timed out".to_owned(),
            Some(c) if c.exit_code == 0 => "passed".to_owned(),
            Some(c) => format!("failed ({})", c.exit_code),
        };
        let files = if d.error.is_empty() {
            d.files.len().to_string()
        } else {
            d.error.clone()
        };
        totals.row([
            d.index.to_string(),
            files,
            format!("+{}/-{}", d.added, d.removed),
            check,
        ]);
    }
    ctx.out.text(&totals.render())?;
    ctx.out.line("")?;
    ctx.out.text(&matrix(entries))?;
    for d in entries {
        if let Some(c) = d.check.as_ref().filter(|c| !c.output.is_empty()) {
            ctx.out.line(format!(
                "\n== entry {} check `{}` (exit {}) ==",
                d.index, c.command, c.exit_code
            ))?;
            ctx.out.raw_text(&c.output)?;
        }
    }
    for d in entries.iter().filter(|d| !d.patch.is_empty()) {
        ctx.out.line(format!("\n== entry {} ==", d.index))?;
        ctx.out.raw_text(&d.patch)?;
        if d.patch_truncated {
            ctx.out.line("(diff cut at 512 KiB)")?;
        }
    }
    Ok(())
}

/// FILE × entry: `+a/-r` where the entry touched the file, `·` where it did not.
pub fn matrix(entries: &[pb::RaceEntryDiff]) -> String {
    let mut paths: Vec<&str> = entries
        .iter()
        .flat_map(|d| d.files.iter().map(|f| f.path.as_str()))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let heads: Vec<String> = std::iter::once("FILE".to_owned())
        .chain(entries.iter().map(|d| format!("#{}", d.index)))
        .collect();
    let head_refs: Vec<&str> = heads.iter().map(String::as_str).collect();
    let mut table = Table::new(&head_refs);
    for path in paths {
        let mut row = vec![path.to_owned()];
        for d in entries {
            row.push(match d.files.iter().find(|f| f.path == path) {
                Some(f) if f.binary => "bin".to_owned(),
                Some(f) => format!("+{}/-{}", f.added, f.removed),
                None => "·".to_owned(),
            });
        }
        table.row(row);
    }
    table.render()
}

/// `race keep`.
pub fn print_kept(ctx: &Ctx, reply: &pb::KeepRaceEntryResponse) -> CliResult {
    if ctx.out.is_json() {
        return ctx.out.json(&json!({
            "race": reply.race.as_ref().map(race_json),
            "merged_commit": reply.merged_commit,
            "cleanup": reply.cleanup.iter().map(cleanup_json).collect::<Vec<_>>(),
        }));
    }
    let race = reply.race.as_ref();
    ctx.out.line(format!(
        "kept entry {} into {}: now at {}",
        race.map_or(0, |r| r.kept_index),
        race.map_or("", |r| r.base_branch.as_str()),
        reply.merged_commit
    ))?;
    print_cleanup_lines(ctx, &reply.cleanup)
}

fn cleanup_json(c: &pb::RaceCleanup) -> Value {
    json!({
        "index": c.index,
        "stopped": c.stopped,
        "worktree_removed": c.worktree_removed,
        "branch_deleted": c.branch_deleted,
        "problem": c.problem,
    })
}

/// `race close`.
pub fn print_cleanup(ctx: &Ctx, race: Option<&pb::Race>, cleanup: &[pb::RaceCleanup]) -> CliResult {
    if ctx.out.is_json() {
        return ctx.out.json(&json!({
            "race": race.map(race_json),
            "cleanup": cleanup.iter().map(cleanup_json).collect::<Vec<_>>(),
        }));
    }
    print_cleanup_lines(ctx, cleanup)
}

fn print_cleanup_lines(ctx: &Ctx, cleanup: &[pb::RaceCleanup]) -> CliResult {
    for c in cleanup {
        let mut done = vec!["agent stopped"];
        if c.worktree_removed {
            done.push("worktree removed");
        }
        if c.branch_deleted {
            done.push("branch deleted");
        }
        let problem = if c.problem.is_empty() {
            String::new()
        } else {
            format!(" — {}", c.problem)
        };
        ctx.out
            .line(format!("entry {}: {}{problem}", c.index, done.join(", ")))?;
    }
    Ok(())
}
