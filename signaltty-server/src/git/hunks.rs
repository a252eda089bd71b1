//! One file's diff against HEAD as typed hunks — what GetFileDiff answers. Binary, unchanged,
//! unavailable and too-large are kinds of their own, never an empty text diff; the hunks are cut
//! at [`MAX_LINES`] lines or [`MAX_TEXT_BYTES`] of text (`truncated`), while the counts always
//! cover the whole file.

use std::path::Path;

use super::GitError;
use super::paths::checked_rel_path;
use super::sides::{LineDiff, MAX_SIDE_BYTES, Side, head_side, is_binary, work_side};

/// Lines of context around each change, as `git diff`.
pub const CONTEXT: u32 = 3;
/// Hunk lines returned at most.
pub const MAX_LINES: usize = 10_000;
/// Hunk text returned at most.
pub const MAX_TEXT_BYTES: usize = 512 * 1024;

/// What a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Unchanged context.
    Context,
    /// Only in the checkout.
    Added,
    /// Only in HEAD.
    Removed,
}

/// One line of a hunk. Line numbers are 1-based; 0 on the side the line is not in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// What it is.
    pub kind: LineKind,
    /// Number in HEAD's version.
    pub old_line: u32,
    /// Number in the checkout.
    pub new_line: u32,
    /// Text without its `\n` (invalid UTF-8 replaced).
    pub text: String,
}

/// A run of changes with context. Starts follow `git diff`: for an empty side, the line before.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hunk {
    /// First line in HEAD's version.
    pub old_start: u32,
    /// Lines from HEAD's version.
    pub old_lines: u32,
    /// First line in the checkout.
    pub new_start: u32,
    /// Lines from the checkout.
    pub new_lines: u32,
    /// The lines.
    pub lines: Vec<Line>,
}

/// What kind of answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffKind {
    /// Text with hunks.
    Text,
    /// A side is binary.
    Binary,
    /// Same as HEAD.
    Unchanged,
    /// Cannot be shown, and why.
    Unavailable(String),
    /// A side is over the size cap, and which.
    TooLarge(String),
}

/// One file's diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDiff {
    /// The path asked for (normalised).
    pub path: String,
    /// What kind.
    pub kind: DiffKind,
    /// Hunks for [`DiffKind::Text`].
    pub hunks: Vec<Hunk>,
    /// The hunks were cut.
    pub truncated: bool,
    /// Lines added in the whole file.
    pub added: u32,
    /// Lines removed in the whole file.
    pub removed: u32,
}

/// Diffs `path` in the checkout of `repo` against `old_path` (default: `path`) in HEAD.
pub fn file_diff(
    repo: &gix::Repository,
    path: &str,
    old_path: Option<&str>,
) -> Result<FileDiff, GitError> {
    let root = repo
        .workdir()
        .map(Path::to_path_buf)
        .ok_or_else(|| GitError::NotARepo(repo.git_dir().display().to_string()))?;
    let path = checked_rel_path(&root, path)?;
    let old_path = match old_path {
        Some(p) => checked_rel_path(&root, p)?,
        None => path.clone(),
    };
    let head = repo.head().map_err(GitError::gix)?;
    let tree = if head.is_unborn() {
        None
    } else {
        Some(repo.head_tree().map_err(GitError::gix)?)
    };
    let old = head_side(repo, tree.as_ref(), &old_path)?;
    let new = work_side(&root, &path)?;
    let mut out = FileDiff {
        path,
        kind: DiffKind::Text,
        hunks: Vec::new(),
        truncated: false,
        added: 0,
        removed: 0,
    };
    let cap = MAX_SIDE_BYTES / (1024 * 1024);
    out.kind = match (&old, &new) {
        (Side::NotAFile, _) | (_, Side::NotAFile) => DiffKind::Unavailable(
            "not a file on one side (a submodule or a directory): no line diff".to_owned(),
        ),
        (Side::Absent, Side::Absent) => {
            DiffKind::Unavailable("no such file in HEAD or in the checkout".to_owned())
        }
        (Side::TooLarge(n), _) => DiffKind::TooLarge(format!(
            "HEAD's version is {n} bytes, over the {cap} MiB cap"
        )),
        (_, Side::TooLarge(n)) => DiffKind::TooLarge(format!(
            "the checkout's version is {n} bytes, over the {cap} MiB cap"
        )),
        _ => DiffKind::Text,
    };
    if out.kind != DiffKind::Text {
        return Ok(out);
    }
    let empty: &[u8] = &[];
    let old = old.bytes().unwrap_or(empty);
    let new = new.bytes().unwrap_or(empty);
    if old == new {
        out.kind = DiffKind::Unchanged;
        return Ok(out);
    }
    if is_binary(old) || is_binary(new) {
        out.kind = DiffKind::Binary;
        return Ok(out);
    }
    let diff = LineDiff::new(old, new);
    (out.added, out.removed) = diff.counts();
    (out.hunks, out.truncated) = hunks(&diff);
    Ok(out)
}

/// Groups the diff's changes into hunks with [`CONTEXT`] lines around them, within the caps.
fn hunks(diff: &LineDiff<'_>) -> (Vec<Hunk>, bool) {
    let changes: Vec<gix::diff::blob::Hunk> = diff.diff.hunks().collect();
    let old_len = diff.input.before.len() as u32;
    let new_len = diff.input.after.len() as u32;
    let (before, after) = (&diff.input.before, &diff.input.after);
    let line = |kind, old_line: u32, new_line: u32, token: gix::diff::blob::Token| {
        let bytes: &[u8] = diff.input.interner[token];
        let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        Line {
            kind,
            old_line,
            new_line,
            text: String::from_utf8_lossy(bytes).into_owned(),
        }
    };
    // Context lines from old line `o` (0-based) up to `old_to` and new line `n` up to `new_to`.
    let context = |o: u32, old_to: u32, n: u32, new_to: u32| {
        (o..old_to)
            .zip(n..new_to)
            .map(move |(o, n)| line(LineKind::Context, o + 1, n + 1, before[o as usize]))
    };
    let mut out = Vec::new();
    let mut budget = Budget::default();
    let mut i = 0;
    while i < changes.len() {
        // Changes closer than twice the context share a hunk.
        let mut j = i;
        while j + 1 < changes.len()
            && changes[j + 1].before.start - changes[j].before.end <= 2 * CONTEXT
        {
            j += 1;
        }
        let first = &changes[i];
        let last = &changes[j];
        let old_from = first.before.start.saturating_sub(CONTEXT);
        let new_from = first.after.start - (first.before.start - old_from);
        let old_to = (last.before.end + CONTEXT).min(old_len);
        let new_to = new_len.min(last.after.end + (old_to - last.before.end));
        let mut hunk = Hunk::default();
        let (mut o, mut n) = (old_from, new_from);
        for change in &changes[i..=j] {
            let lines = context(o, change.before.start, n, u32::MAX)
                .chain(
                    change
                        .before
                        .clone()
                        .map(|k| line(LineKind::Removed, k + 1, 0, before[k as usize])),
                )
                .chain(
                    change
                        .after
                        .clone()
                        .map(|k| line(LineKind::Added, 0, k + 1, after[k as usize])),
                );
            if !budget.push_all(&mut hunk, lines) {
                return finish(out, hunk, true);
            }
            o = change.before.end;
            n = change.after.end;
        }
        if !budget.push_all(&mut hunk, context(o, old_to, n, new_to)) {
            return finish(out, hunk, true);
        }
        out.push(seal(hunk));
        i = j + 1;
    }
    (out, false)
}

/// Sets a hunk's starts and lengths from its lines (`git diff`'s rule for empty sides).
fn seal(mut hunk: Hunk) -> Hunk {
    let olds: Vec<u32> = hunk
        .lines
        .iter()
        .filter(|l| l.old_line > 0)
        .map(|l| l.old_line)
        .collect();
    let news: Vec<u32> = hunk
        .lines
        .iter()
        .filter(|l| l.new_line > 0)
        .map(|l| l.new_line)
        .collect();
    hunk.old_lines = olds.len() as u32;
    hunk.new_lines = news.len() as u32;
    hunk.old_start = olds
        .first()
        .copied()
        .unwrap_or_else(|| before_line(&hunk, true));
    hunk.new_start = news
        .first()
        .copied()
        .unwrap_or_else(|| before_line(&hunk, false));
    hunk
}

/// For a side with no lines in the hunk: the line just before it on that side. A one-sided
/// hunk has no context lines (else both sides would have some), so the whole file is on the
/// other side and the empty side's "line before" is the other side's first line minus one.
fn before_line(hunk: &Hunk, old: bool) -> u32 {
    hunk.lines
        .iter()
        .map(|l| if old { l.new_line } else { l.old_line })
        .find(|&n| n > 0)
        .map_or(0, |n| n.saturating_sub(1))
}

fn finish(mut out: Vec<Hunk>, hunk: Hunk, truncated: bool) -> (Vec<Hunk>, bool) {
    if !hunk.lines.is_empty() {
        out.push(seal(hunk));
    }
    (out, truncated)
}

#[derive(Default)]
struct Budget {
    lines: usize,
    bytes: usize,
}

impl Budget {
    /// Adds `line` if the caps allow; false when the diff must be cut here.
    fn push(&mut self, hunk: &mut Hunk, line: Line) -> bool {
        if self.lines + 1 > MAX_LINES || self.bytes + line.text.len() > MAX_TEXT_BYTES {
            return false;
        }
        self.lines += 1;
        self.bytes += line.text.len();
        hunk.lines.push(line);
        true
    }

    /// Adds `lines` while the caps allow; false when the diff must be cut.
    fn push_all(&mut self, hunk: &mut Hunk, lines: impl Iterator<Item = Line>) -> bool {
        for line in lines {
            if !self.push(hunk, line) {
                return false;
            }
        }
        true
    }
}
