//! The git work of a race, through the `git` CLI (as `git/cli.rs` does for worktrees): resolving
//! the base, a branch and worktree per entry, copying the configured files, the setup and check
//! commands, an entry's diff against the base (committed, uncommitted and untracked), merging
//! the kept entry. Every command has a deadline, no prompt and no pager.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::git::changes::{ChangeKind, FileChange};

/// How long one git command may take.
const GIT_DEADLINE: Duration = Duration::from_secs(60);
/// How long a setup or check command may take.
pub const COMMAND_DEADLINE: Duration = Duration::from_secs(600);
/// How much of a setup or check command's output is kept (its end).
pub const OUTPUT_TAIL: usize = 64 * 1024;
/// Largest patch CompareRace returns per entry.
pub const MAX_PATCH: usize = 512 * 1024;

/// One finished command.
#[derive(Debug)]
pub struct Ran {
    /// Exit status (-1: killed by a signal or the deadline).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Killed at the deadline.
    pub timed_out: bool,
}

/// Runs `git -C dir args…`, whatever its exit status.
pub async fn git_status(dir: &Path, args: &[&str]) -> Result<Ran> {
    let mut cmd = tokio::process::Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("LC_ALL", "C");
    run(cmd, GIT_DEADLINE).await
}

/// Runs `git -C dir args…`; git's stderr is the error when it fails.
pub async fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let ran = git_status(dir, args).await?;
    if ran.code == 0 {
        Ok(ran.stdout)
    } else {
        Err(Error::GitFailed(format!(
            "git {}: {}",
            args.first().copied().unwrap_or_default(),
            ran.stderr.trim()
        )))
    }
}

/// Runs `sh -c command` in `dir`, output kept (stdout then stderr), killed at the deadline.
pub async fn shell(dir: &Path, command: &str) -> Result<Ran> {
    let mut cmd = tokio::process::Command::new("/bin/sh");
    cmd.arg("-c").arg(command).current_dir(dir);
    run(cmd, COMMAND_DEADLINE).await
}

async fn run(mut cmd: tokio::process::Command, deadline: Duration) -> Result<Ran> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = cmd
        .spawn()
        .map_err(|e| Error::io("cannot start a command", e))?;
    match tokio::time::timeout(deadline, child.wait_with_output()).await {
        Ok(Ok(out)) => Ok(Ran {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            timed_out: false,
        }),
        Ok(Err(e)) => Err(Error::io("waiting for a command", e)),
        Err(_) => Ok(Ran {
            code: -1,
            stdout: String::new(),
            stderr: format!("killed after {} s", deadline.as_secs()),
            timed_out: true,
        }),
    }
}

/// The last `max` bytes of `text`, cut at a character boundary.
pub fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut cut = text.len() - max;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    text[cut..].to_owned()
}

/// The commit `rev` names, checked in `dir`; BAD_PARAMS when it names none.
pub async fn resolve_commit(dir: &Path, rev: &str) -> Result<String> {
    let shown = if rev.is_empty() { "HEAD" } else { rev };
    if shown.starts_with('-') || shown.chars().any(|c| c.is_control() || c == ' ') {
        return Err(Error::bad(format!(
            "base {} is not a revision: give a branch, a tag or a commit",
            crate::error::quote(shown)
        )));
    }
    let spec = format!("{shown}^{{commit}}");
    let ran = git_status(dir, &["rev-parse", "--verify", "--quiet", &spec]).await?;
    if ran.code != 0 {
        return Err(Error::bad(format!(
            "base {} is not a commit in this repository: give a branch, a tag or a commit (`git log` lists them)",
            crate::error::quote(shown)
        )));
    }
    Ok(ran.stdout.trim().to_owned())
}

/// The checkout's top directory.
pub async fn toplevel(dir: &Path) -> Result<PathBuf> {
    Ok(PathBuf::from(
        git(dir, &["rev-parse", "--show-toplevel"]).await?.trim(),
    ))
}

/// The branch checked out in `dir`; empty when detached.
pub async fn current_branch(dir: &Path) -> Result<String> {
    let ran = git_status(dir, &["symbolic-ref", "--quiet", "--short", "HEAD"]).await?;
    Ok(if ran.code == 0 {
        ran.stdout.trim().to_owned()
    } else {
        String::new()
    })
}

/// What `git status --porcelain` lists (changes and untracked files); empty when clean.
pub async fn changes(dir: &Path) -> Result<String> {
    git(dir, &["status", "--porcelain", "--untracked-files=all"]).await
}

/// The commit HEAD of `dir` names.
pub async fn head(dir: &Path) -> Result<String> {
    Ok(git(dir, &["rev-parse", "HEAD"]).await?.trim().to_owned())
}

/// Makes `branch` at `commit` and a worktree for it at `path`.
pub async fn add_worktree(repo: &Path, path: &Path, branch: &str, commit: &str) -> Result<()> {
    let path = path.to_string_lossy();
    git(
        repo,
        &["worktree", "add", "-b", branch, "--", &path, commit],
    )
    .await
    .map(|_| ())
}

/// Checks a file name given for copying: relative, inside the checkout, not `.git`.
pub fn checked_copy_path(raw: &str) -> Result<()> {
    let path = Path::new(raw);
    let bad = raw.is_empty()
        || path.is_absolute()
        || path.components().any(|c| {
            matches!(
                c,
                std::path::Component::ParentDir | std::path::Component::RootDir
            ) || c.as_os_str() == ".git"
        });
    if bad {
        return Err(Error::bad(format!(
            "copy file {} must be a path relative to the checkout, without `..` or `.git`",
            crate::error::quote(raw)
        )));
    }
    Ok(())
}

/// Copies each of `files` (a file or a directory) from `from` to `to`; returns a note per file
/// skipped.
pub fn copy_files(from: &Path, to: &Path, files: &[String]) -> Vec<String> {
    let mut notes = Vec::new();
    for name in files {
        let source = from.join(name);
        if !source.exists() {
            notes.push(format!("{name}: not in the base checkout, not copied"));
            continue;
        }
        if let Err(e) = copy_tree(&source, &to.join(name)) {
            notes.push(format!("{name}: not copied: {e}"));
        }
    }
    notes
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(from)?;
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if meta.is_dir() {
        std::fs::create_dir_all(to)?;
        for item in std::fs::read_dir(from)? {
            let item = item?;
            copy_tree(&item.path(), &to.join(item.file_name()))?;
        }
        Ok(())
    } else if meta.file_type().is_symlink() {
        let target = std::fs::read_link(from)?;
        let _ = std::fs::remove_file(to);
        std::os::unix::fs::symlink(target, to)
    } else {
        std::fs::copy(from, to).map(|_| ())
    }
}

/// Files of the worktree at `dir` that differ from `base`: its commits, staged and unstaged
/// changes (`git diff base`), and untracked files (counted here, every line added).
pub async fn diff_files(dir: &Path, base: &str) -> Result<Vec<FileChange>> {
    let status = git(dir, &["diff", "--no-renames", "--name-status", base, "--"]).await?;
    let numstat = git(dir, &["diff", "--no-renames", "--numstat", base, "--"]).await?;
    let mut files: Vec<FileChange> = Vec::new();
    for line in status.lines() {
        let Some((letter, path)) = line.split_once('\t') else {
            continue;
        };
        let kind = match letter.chars().next() {
            Some('A') => ChangeKind::Added,
            Some('D') => ChangeKind::Deleted,
            _ => ChangeKind::Modified,
        };
        files.push(FileChange {
            path: path.to_owned(),
            kind,
            added: 0,
            removed: 0,
            binary: false,
            untracked: false,
            too_large: false,
        });
    }
    for line in numstat.lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(added), Some(removed), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if let Some(file) = files.iter_mut().find(|f| f.path == path) {
            match (added.parse(), removed.parse()) {
                (Ok(a), Ok(r)) => (file.added, file.removed) = (a, r),
                _ => file.binary = true,
            }
        }
    }
    let untracked = git(dir, &["ls-files", "--others", "--exclude-standard", "-z"]).await?;
    let root = dir.to_path_buf();
    let names: Vec<String> = untracked
        .split('\0')
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect();
    let counted = crate::hub::blocking("counting untracked files", move || {
        names
            .into_iter()
            .map(|name| {
                let (lines, binary) = count_lines(&root.join(&name));
                (name, lines, binary)
            })
            .collect::<Vec<_>>()
    })
    .await?;
    for (path, lines, binary) in counted {
        files.push(FileChange {
            path,
            kind: ChangeKind::Added,
            added: lines,
            removed: 0,
            binary,
            untracked: true,
            too_large: false,
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// Lines of a new file, and whether it is binary (a NUL in its first 8 KiB).
fn count_lines(path: &Path) -> (u32, bool) {
    let Ok(data) = std::fs::read(path) else {
        return (0, false);
    };
    if data.iter().take(8192).any(|&b| b == 0) {
        return (0, true);
    }
    let mut lines = data.iter().filter(|&&b| b == b'\n').count();
    if data.last().is_some_and(|&b| b != b'\n') {
        lines += 1;
    }
    (u32::try_from(lines).unwrap_or(u32::MAX), false)
}

/// The worktree's whole diff against `base` as a unified patch, untracked files included as
/// new files; cut at [`MAX_PATCH`] (then `true`).
pub async fn patch(dir: &Path, base: &str, files: &[FileChange]) -> Result<(String, bool)> {
    let mut text = git(dir, &["diff", "--no-renames", base, "--"]).await?;
    for file in files.iter().filter(|f| f.untracked) {
        if text.len() > MAX_PATCH {
            break;
        }
        // Exit status 1 means "they differ", which a new file always does.
        let ran = git_status(
            dir,
            &["diff", "--no-index", "--", "/dev/null", file.path.as_str()],
        )
        .await?;
        text.push_str(&ran.stdout);
    }
    if text.len() > MAX_PATCH {
        let mut cut = MAX_PATCH;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        return Ok((text, true));
    }
    Ok((text, false))
}

/// The files git marks as unmerged in `dir`.
pub async fn conflicted(dir: &Path) -> Vec<String> {
    git(dir, &["diff", "--name-only", "--diff-filter=U"])
        .await
        .map(|out| out.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_paths_stay_inside_the_checkout() {
        assert!(checked_copy_path(".env").is_ok());
        assert!(checked_copy_path("config/local.toml").is_ok());
        for bad in ["", "/etc/passwd", "../x", "a/../../b", ".git/config"] {
            assert!(checked_copy_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_tail_keeps_the_end_at_a_character_boundary() {
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("ab", 3), "ab");
        assert_eq!(tail("aéé", 3), "é");
    }
}
