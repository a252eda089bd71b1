//! Git context for workspaces, read with gix (no `git` subprocess): repository root and name,
//! branch, dirty. Worktrees and diffs (GitService) come later.

pub mod context;
