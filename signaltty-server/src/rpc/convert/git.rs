//! Git results (worktrees, diffs) on the wire.

use signaltty_proto::v1 as pb;

use crate::git::changes::{ChangeKind, FileChange, WorkspaceDiff};
use crate::git::hunks::{DiffKind, FileDiff, Hunk, Line, LineKind};
use crate::hub::git::Worktree;

/// A checkout with its workspaces.
pub fn worktree_to_pb(w: &Worktree) -> pb::Worktree {
    pb::Worktree {
        path: w.info.path.display().to_string(),
        branch: w.info.branch.clone().unwrap_or_default(),
        head: w.info.head.clone().unwrap_or_default(),
        is_main: w.info.is_main,
        locked: w.info.locked,
        workspace_ids: w.workspaces.iter().map(ToString::to_string).collect(),
        lock_reason: w.info.lock_reason.clone().unwrap_or_default(),
        missing: w.info.missing,
    }
}

/// One changed file.
pub fn change_to_pb(c: &FileChange) -> pb::FileChange {
    let (kind, old_path) = match &c.kind {
        ChangeKind::Modified => (pb::ChangeKind::Modified, String::new()),
        ChangeKind::Added => (pb::ChangeKind::Added, String::new()),
        ChangeKind::Deleted => (pb::ChangeKind::Deleted, String::new()),
        ChangeKind::Renamed { from } => (pb::ChangeKind::Renamed, from.clone()),
    };
    pb::FileChange {
        path: c.path.clone(),
        added: c.added,
        removed: c.removed,
        kind: kind as i32,
        old_path,
        binary: c.binary,
        untracked: c.untracked,
        too_large: c.too_large,
    }
}

/// A checkout's changed files.
pub fn workspace_diff_to_pb(d: &WorkspaceDiff) -> pb::GetWorkspaceDiffResponse {
    pb::GetWorkspaceDiffResponse {
        files: d.files.iter().map(change_to_pb).collect(),
        unborn: d.unborn,
        truncated: d.truncated,
        repo_root: d.root.display().to_string(),
    }
}

fn line_to_pb(l: &Line) -> pb::DiffLine {
    let kind = match l.kind {
        LineKind::Context => pb::LineKind::Context,
        LineKind::Added => pb::LineKind::Added,
        LineKind::Removed => pb::LineKind::Removed,
    };
    pb::DiffLine {
        kind: kind as i32,
        old_line: l.old_line,
        new_line: l.new_line,
        text: l.text.clone(),
    }
}

fn hunk_to_pb(h: &Hunk) -> pb::Hunk {
    pb::Hunk {
        old_start: h.old_start,
        old_lines: h.old_lines,
        new_start: h.new_start,
        new_lines: h.new_lines,
        lines: h.lines.iter().map(line_to_pb).collect(),
    }
}

/// One file's diff.
pub fn file_diff_to_pb(d: &FileDiff) -> pb::GetFileDiffResponse {
    let (kind, reason) = match &d.kind {
        DiffKind::Text => (pb::DiffKind::Text, String::new()),
        DiffKind::Binary => (pb::DiffKind::Binary, String::new()),
        DiffKind::Unchanged => (pb::DiffKind::Unchanged, String::new()),
        DiffKind::Unavailable(why) => (pb::DiffKind::Unavailable, why.clone()),
        DiffKind::TooLarge(why) => (pb::DiffKind::TooLarge, why.clone()),
    };
    pb::GetFileDiffResponse {
        path: d.path.clone(),
        kind: kind as i32,
        hunks: d.hunks.iter().map(hunk_to_pb).collect(),
        truncated: d.truncated,
        reason,
        added: d.added,
        removed: d.removed,
    }
}
