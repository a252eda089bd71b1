//! A unified patch (what CompareRace returns per entry: `git diff BASE` plus each untracked
//! file as a new file) cut into files and hunks with old/new line numbers — the shape the diff
//! view draws for GetFileDiff — so a race entry's diff is shown by the same code as a
//! workspace's, without one GetFileDiff per file (those compare against HEAD, not the base).

use std::collections::HashMap;

use signaltty_proto::v1 as pb;

/// Every file of `patch`, by its path in the entry's version (the old path for a deletion).
pub fn parse(patch: &str) -> HashMap<String, pb::GetFileDiffResponse> {
    let mut files = HashMap::new();
    let mut file: Option<pb::GetFileDiffResponse> = None;
    let mut header = false;
    let (mut old_no, mut new_no) = (0u32, 0u32);
    let mut flush = |file: Option<pb::GetFileDiffResponse>| {
        if let Some(f) = file.filter(|f| !f.path.is_empty()) {
            files.insert(f.path.clone(), f);
        }
    };
    for line in patch.lines() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            flush(file.take());
            // `a/X b/X`: the path when no `---`/`+++` follow (binary, mode only).
            let path = rest
                .split_once(" b/")
                .map(|(_, b)| b.to_owned())
                .unwrap_or_default();
            file = Some(pb::GetFileDiffResponse {
                path,
                kind: pb::DiffKind::Unchanged as i32,
                ..Default::default()
            });
            header = true;
            continue;
        }
        let Some(f) = file.as_mut() else {
            continue;
        };
        if header && !line.starts_with("@@") {
            if let Some(p) = line.strip_prefix("+++ ") {
                if let Some(p) = p.strip_prefix("b/") {
                    f.path = p.to_owned();
                }
            } else if let Some(p) = line.strip_prefix("--- ") {
                if let Some(p) = p.strip_prefix("a/")
                    && f.path.is_empty()
                {
                    f.path = p.to_owned();
                }
            } else if line.starts_with("Binary files ") {
                f.kind = pb::DiffKind::Binary as i32;
            }
            continue;
        }
        header = false;
        if line.starts_with("@@") {
            let hunk = hunk_header(line);
            old_no = hunk.old_start;
            new_no = hunk.new_start;
            f.kind = pb::DiffKind::Text as i32;
            f.hunks.push(hunk);
            continue;
        }
        let Some(hunk) = f.hunks.last_mut() else {
            continue;
        };
        let (kind, old, new, text) = match line.chars().next() {
            Some('+') => {
                f.added += 1;
                new_no += 1;
                (pb::LineKind::Added, 0, new_no - 1, &line[1..])
            }
            Some('-') => {
                f.removed += 1;
                old_no += 1;
                (pb::LineKind::Removed, old_no - 1, 0, &line[1..])
            }
            Some(' ') => {
                old_no += 1;
                new_no += 1;
                (pb::LineKind::Context, old_no - 1, new_no - 1, &line[1..])
            }
            // `\ No newline at end of file`, or anything else: not a line of the file.
            _ => continue,
        };
        hunk.lines.push(pb::DiffLine {
            kind: kind as i32,
            old_line: old,
            new_line: new,
            text: text.to_owned(),
        });
    }
    flush(file);
    files
}

/// `@@ -a[,b] +c[,d] @@ …` (a missing count is 1).
fn hunk_header(line: &str) -> pb::Hunk {
    let mut hunk = pb::Hunk::default();
    let range = |word: &str| -> (u32, u32) {
        let (start, count) = word.split_once(',').unwrap_or((word, "1"));
        (start.parse().unwrap_or(0), count.parse().unwrap_or(0))
    };
    for word in line.split_whitespace().skip(1) {
        if let Some(old) = word.strip_prefix('-') {
            (hunk.old_start, hunk.old_lines) = range(old);
        } else if let Some(new) = word.strip_prefix('+') {
            (hunk.new_start, hunk.new_lines) = range(new);
        } else {
            break;
        }
    }
    hunk
}

/// The line of the entry's version a hunk row stands for, for a review comment: the row's new
/// line; for a removed line, the line that now stands where it was; for the `@@` row, the
/// hunk's first line. `row` counts as the diff view does (each hunk: its `@@` row, its lines).
pub fn line_at(diff: &pb::GetFileDiffResponse, row: usize) -> Option<u32> {
    let mut at = 0usize;
    for hunk in &diff.hunks {
        if row == at {
            return Some(hunk.new_start.max(1));
        }
        at += 1;
        let mut last_new = hunk.new_start.saturating_sub(1);
        for line in &hunk.lines {
            if line.new_line > 0 {
                last_new = line.new_line;
            }
            if row == at {
                return Some(if line.new_line > 0 {
                    line.new_line
                } else {
                    (last_new + 1).max(1)
                });
            }
            at += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
@@ -10 +10,2 @@ fn x
 ten
+eleven
\\ No newline at end of file
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/logo.png b/logo.png
Binary files a/logo.png and b/logo.png differ
diff --git a/new.txt b/new.txt
new file mode 100644
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+hello
";

    #[test]
    fn a_patch_is_cut_into_files_hunks_and_numbered_lines() {
        let files = parse(PATCH);
        assert_eq!(files.len(), 4);
        let a = &files["a.txt"];
        assert_eq!(a.kind, pb::DiffKind::Text as i32);
        assert_eq!((a.added, a.removed), (2, 1));
        assert_eq!(a.hunks.len(), 2);
        let nums: Vec<(u32, u32, &str)> = a.hunks[0]
            .lines
            .iter()
            .map(|l| (l.old_line, l.new_line, l.text.as_str()))
            .collect();
        assert_eq!(
            nums,
            [(1, 1, "one"), (2, 0, "two"), (0, 2, "TWO"), (3, 3, "three")]
        );
        assert_eq!((a.hunks[1].old_start, a.hunks[1].old_lines), (10, 1));
        assert_eq!(
            a.hunks[1].lines.len(),
            2,
            "the no-newline marker is no line"
        );
        assert_eq!(files["gone.txt"].removed, 1);
        assert_eq!(files["logo.png"].kind, pb::DiffKind::Binary as i32);
        assert_eq!(files["new.txt"].hunks[0].lines[0].new_line, 1);
    }

    #[test]
    fn a_row_names_the_line_of_the_entrys_version() {
        let files = parse(PATCH);
        let a = &files["a.txt"];
        // @@ one -two +TWO three @@ ten +eleven
        let lines: Vec<Option<u32>> = (0..9).map(|row| line_at(a, row)).collect();
        assert_eq!(
            lines,
            [
                Some(1),
                Some(1),
                Some(2),
                Some(2),
                Some(3),
                Some(10),
                Some(10),
                Some(11),
                None
            ]
        );
        assert_eq!(line_at(&files["gone.txt"], 1), Some(1));
    }
}
