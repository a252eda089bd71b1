//! What `signaltty race …` prints: a race as a table of entries (agent, state, whether its turn
//! ended, elapsed time, pending decision, files changed, `+/-`), the compare matrix (which
//! entries touched which files), and what keeping or closing did. `--json` prints the same
//! facts as objects, with enum values in their lower-case names.

use std::time::SystemTime;

use crate::present::names::name;
use crate::present::race as race_text;
use serde_json::{Value, json};
use signaltty_proto::v1 as pb;

use super::Ctx;
use crate::error::CliResult;
use crate::table::Table;

macro_rules! rfc3339 {
    ($t:expr) => {
        json!(crate::present::json::timestamp(&$t))
    };
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
        let decision = race_text::decision_label(e).map_or_else(
            || "-".to_owned(),
            |d| format!("{} {d}", e.pending_decision_id),
        );
        table.row([
            e.index.to_string(),
            e.agent.clone(),
            race_text::state_label(e),
            race_text::agent_state(e),
            race_text::elapsed(e, SystemTime::now()),
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
        let check = d
            .check
            .as_ref()
            .map_or_else(|| "-".to_owned(), race_text::check_label);
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
    let heads: Vec<String> = std::iter::once("FILE".to_owned())
        .chain(entries.iter().map(|d| format!("#{}", d.index)))
        .collect();
    let head_refs: Vec<&str> = heads.iter().map(String::as_str).collect();
    let mut table = Table::new(&head_refs);
    for (path, cells) in race_text::matrix(entries) {
        table.row(std::iter::once(path).chain(cells).collect::<Vec<_>>());
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
        ctx.out.line(race_text::cleanup_line(c))?;
    }
    Ok(())
}
