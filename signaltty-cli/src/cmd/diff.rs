//! `signaltty diff [WS] [--file PATH] [--stat]`: what a workspace's checkout changed against
//! HEAD. For people: a `--stat`-like summary, then each text file as a unified diff, coloured
//! when stdout is a terminal (`--color`). For tools (`--json`): the server's answer as is.
//!
//! WS defaults to the open workspace whose directory contains the current directory.

use std::io::IsTerminal;

use clap::{Args, ValueEnum};
use serde::Serialize;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::git_service_client::GitServiceClient;

use super::Ctx;
use super::worktree::resolve_workspace;
use crate::error::CliResult;

/// `signaltty diff`
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The workspace: an id, a unique id prefix or name, or `-` for the last one used
    /// [default: the one containing the current directory].
    workspace: Option<String>,
    /// The workspace, as the other commands spell it (instead of WS).
    #[arg(
        long = "workspace",
        visible_alias = "ws",
        value_name = "WS",
        conflicts_with = "workspace"
    )]
    workspace_flag: Option<String>,
    /// Only this file (relative to the repository root).
    #[arg(long, value_name = "PATH")]
    file: Option<String>,
    /// With --file, for a renamed file: its path in HEAD.
    #[arg(long, value_name = "PATH", requires = "file")]
    old_path: Option<String>,
    /// Only the list of changed files with their line counts.
    #[arg(long, conflicts_with = "file")]
    stat: bool,
    /// Colour the output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
}

/// When to colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Color {
    /// When stdout is a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

#[derive(Serialize)]
struct JsonChange {
    path: String,
    kind: String,
    added: u32,
    removed: u32,
    old_path: Option<String>,
    binary: bool,
    untracked: bool,
    too_large: bool,
}

#[derive(Serialize)]
struct JsonWorkspaceDiff {
    repo_root: String,
    unborn: bool,
    truncated: bool,
    files: Vec<JsonChange>,
}

#[derive(Serialize)]
struct JsonLine {
    kind: String,
    old_line: Option<u32>,
    new_line: Option<u32>,
    text: String,
}

#[derive(Serialize)]
struct JsonHunk {
    old_start: u32,
    old_lines: u32,
    new_start: u32,
    new_lines: u32,
    lines: Vec<JsonLine>,
}

#[derive(Serialize)]
struct JsonFileDiff {
    path: String,
    kind: String,
    reason: Option<String>,
    added: u32,
    removed: u32,
    truncated: bool,
    hunks: Vec<JsonHunk>,
}

/// `CHANGE_KIND_RENAMED` → `renamed`, as the CLI spells every proto enum.
fn lower<E>(name: Result<&str, E>, prefix: &str) -> String {
    name.map(|n| n.strip_prefix(prefix).unwrap_or(n).to_ascii_lowercase())
        .unwrap_or_else(|_| "unspecified".to_owned())
}

fn change_json(c: &pb::FileChange) -> JsonChange {
    JsonChange {
        path: c.path.clone(),
        kind: lower(
            pb::ChangeKind::try_from(c.kind).map(|k| k.as_str_name()),
            "CHANGE_KIND_",
        ),
        added: c.added,
        removed: c.removed,
        old_path: (!c.old_path.is_empty()).then(|| c.old_path.clone()),
        binary: c.binary,
        untracked: c.untracked,
        too_large: c.too_large,
    }
}

fn file_json(d: &pb::GetFileDiffResponse) -> JsonFileDiff {
    let nonzero = |n: u32| (n > 0).then_some(n);
    JsonFileDiff {
        path: d.path.clone(),
        kind: lower(
            pb::DiffKind::try_from(d.kind).map(|k| k.as_str_name()),
            "DIFF_KIND_",
        ),
        reason: (!d.reason.is_empty()).then(|| d.reason.clone()),
        added: d.added,
        removed: d.removed,
        truncated: d.truncated,
        hunks: d
            .hunks
            .iter()
            .map(|h| JsonHunk {
                old_start: h.old_start,
                old_lines: h.old_lines,
                new_start: h.new_start,
                new_lines: h.new_lines,
                lines: h
                    .lines
                    .iter()
                    .map(|l| JsonLine {
                        kind: lower(
                            pb::LineKind::try_from(l.kind).map(|k| k.as_str_name()),
                            "LINE_KIND_",
                        ),
                        old_line: nonzero(l.old_line),
                        new_line: nonzero(l.new_line),
                        text: l.text.clone(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// ANSI colours, or none. The text it wraps comes from the repository (paths, file lines), so
/// it is stripped of escape sequences and controls first: our colours are the only ones printed.
struct Paint(bool);

impl Paint {
    fn wrap(&self, code: &str, text: &str) -> String {
        let text = signaltty_term::strip(text);
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text
        }
    }
}

/// Runs `signaltty diff`.
pub async fn cmd_diff(ctx: &Ctx, args: DiffArgs) -> CliResult {
    let conn = ctx.client().await?;
    let ws = resolve_workspace(ctx, &conn, args.workspace.or(args.workspace_flag)).await?;
    let mut git = GitServiceClient::new(conn.channel());
    let paint = Paint(match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal(),
    });
    if let Some(path) = args.file {
        let reply = git
            .get_file_diff(pb::GetFileDiffRequest {
                workspace_id: ws,
                path,
                old_path: args.old_path.unwrap_or_default(),
            })
            .await?
            .into_inner();
        if ctx.out.is_json() {
            return ctx.out.json(&file_json(&reply));
        }
        return ctx.out.raw_text(&unified(&reply, "", &paint));
    }
    let reply = git
        .get_workspace_diff(pb::GetWorkspaceDiffRequest {
            workspace_id: ws.clone(),
        })
        .await?
        .into_inner();
    if ctx.out.is_json() {
        return ctx.out.json(&JsonWorkspaceDiff {
            repo_root: reply.repo_root.clone(),
            unborn: reply.unborn,
            truncated: reply.truncated,
            files: reply.files.iter().map(change_json).collect(),
        });
    }
    ctx.out.raw_text(&stat(&reply, &paint))?;
    if args.stat {
        return Ok(());
    }
    for change in &reply.files {
        if change.binary || change.too_large {
            continue;
        }
        let file = git
            .get_file_diff(pb::GetFileDiffRequest {
                workspace_id: ws.clone(),
                path: change.path.clone(),
                old_path: change.old_path.clone(),
            })
            .await?
            .into_inner();
        ctx.out.text("\n")?;
        ctx.out
            .raw_text(&unified(&file, &change.old_path, &paint))?;
    }
    Ok(())
}

/// One line per file (`M +1 -1 path`), then a total.
fn stat(d: &pb::GetWorkspaceDiffResponse, paint: &Paint) -> String {
    if d.files.is_empty() {
        return "no changes against HEAD\n".to_owned();
    }
    let mut out = String::new();
    if d.unborn {
        out.push_str("(no commit yet: every file is new)\n");
    }
    let (mut added, mut removed) = (0u64, 0u64);
    for f in &d.files {
        let letter = match f.kind() {
            pb::ChangeKind::Added if f.untracked => "?",
            pb::ChangeKind::Added => "A",
            pb::ChangeKind::Deleted => "D",
            pb::ChangeKind::Renamed => "R",
            _ => "M",
        };
        let counts = if f.binary {
            "binary".to_owned()
        } else if f.too_large {
            "too large".to_owned()
        } else {
            format!(
                "{} {}",
                paint.wrap("32", &format!("+{}", f.added)),
                paint.wrap("31", &format!("-{}", f.removed))
            )
        };
        let name = signaltty_term::strip(&if f.old_path.is_empty() {
            f.path.clone()
        } else {
            format!("{} → {}", f.old_path, f.path)
        });
        out.push_str(&format!("{letter} {counts:>12}  {name}\n"));
        added += u64::from(f.added);
        removed += u64::from(f.removed);
    }
    out.push_str(&format!(
        "{} files changed, {added} insertions(+), {removed} deletions(-){}\n",
        d.files.len(),
        if d.truncated {
            " (list cut at 5000 files)"
        } else {
            ""
        }
    ));
    out
}

/// A file's diff as `diff -u` text.
fn unified(d: &pb::GetFileDiffResponse, old_path: &str, paint: &Paint) -> String {
    let old = if old_path.is_empty() {
        &d.path
    } else {
        old_path
    };
    let mut out = paint.wrap("1", &format!("--- a/{old}\n+++ b/{}\n", d.path));
    match d.kind() {
        pb::DiffKind::Text => {}
        pb::DiffKind::Binary => return out + "Binary files differ\n",
        pb::DiffKind::Unchanged => return out + "(no change against HEAD)\n",
        _ => {
            let why = if d.reason.is_empty() {
                "unavailable"
            } else {
                d.reason.as_str()
            };
            return out + &format!("({})\n", signaltty_term::strip(why));
        }
    }
    for h in &d.hunks {
        out.push_str(&paint.wrap(
            "36",
            &format!(
                "@@ -{},{} +{},{} @@",
                h.old_start, h.old_lines, h.new_start, h.new_lines
            ),
        ));
        out.push('\n');
        for l in &h.lines {
            let line = match l.kind() {
                pb::LineKind::Added => paint.wrap("32", &format!("+{}", l.text)),
                pb::LineKind::Removed => paint.wrap("31", &format!("-{}", l.text)),
                _ => format!(" {}", signaltty_term::strip(&l.text)),
            };
            out.push_str(&line);
            out.push('\n');
        }
    }
    if d.truncated {
        out.push_str("(diff cut at 10000 lines or 512 KiB)\n");
    }
    out
}
