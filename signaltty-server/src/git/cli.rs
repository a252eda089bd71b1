//! The `git` command line, for the two mutations gix cannot do: registering a linked worktree
//! (`git worktree add`) and removing one (`git worktree remove`). gix reads worktrees but has
//! no API to add or remove their registration under `.git/worktrees/`, and writing that layout
//! by hand would duplicate git's rules (locking, `gitdir` back-links, branch-in-use checks).
//! Every run has a deadline, no prompt and no pager; arguments follow `--` so that a path or
//! branch starting with `-` is never read as an option.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use super::GitError;

/// How long one git command may take.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// Runs `git -C dir args…`; returns stdout, or git's stderr as the error.
pub async fn run(dir: &Path, args: &[&std::ffi::OsStr]) -> Result<String, GitError> {
    let mut cmd = tokio::process::Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = cmd
        .spawn()
        .map_err(|e| GitError::Cli(format!("cannot run git (is it installed?): {e}")))?;
    let output = tokio::time::timeout(DEADLINE, child.wait_with_output())
        .await
        .map_err(|_| GitError::Timeout(format!("git {}", describe(args))))?
        .map_err(|e| GitError::Cli(format!("git {}: {e}", describe(args))))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(GitError::Cli(stderr.trim().to_owned()))
    }
}

fn describe(args: &[&std::ffi::OsStr]) -> String {
    args.iter()
        .take(2)
        .map(|a| a.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}
