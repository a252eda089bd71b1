//! Output tails: the last ≈[`TAIL_BYTES`] of each pane's output in `history/<pane>.tail`.
//!
//! Format: the pane's last scrollback lines and visible rows as rendered by the terminal model —
//! UTF-8 text whose only escape sequences are SGR, each line self-contained (it starts from
//! default attributes and resets at its end), lines joined by `\r\n`. Why rendered lines and not
//! the raw byte stream: a cut through raw output can start mid-escape-sequence or mid-redraw
//! (full-screen agents repaint with cursor moves relative to a screen the cut threw away), and
//! keeping a raw ring would cost a copy of every byte on the output path. Rendered lines replay
//! into any fresh terminal, cost nothing until a save, and are cut only at line boundaries.
//!
//! Writing a tail takes the pane's screen lock for one render; it is done off the async runtime.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::TAIL_BYTES;
use super::file::{Durability, private_dir, write_atomic};
use crate::model::ids::PaneId;
use crate::model::pane::Size;
use crate::term::{HistoryLimits, Screen};

const SUFFIX: &str = ".tail";

/// Renders the end of a screen (history, then visible rows down to the cursor) as a tail of at
/// most [`TAIL_BYTES`].
pub fn render(screen: &Screen) -> Vec<u8> {
    // Lines are rendered from the end; ask for more until the budget is met or all are in,
    // guessing how many from the average length so far (this runs under the screen's lock).
    let mut want = 256;
    let lines = loop {
        let lines = screen.scrollback(want, true);
        let bytes: usize = lines.iter().map(|l| l.len() + 2).sum();
        if bytes >= TAIL_BYTES || lines.len() < want {
            break lines;
        }
        let guess = TAIL_BYTES * lines.len() / bytes.max(1);
        want = (guess + guess / 4).max(want * 2);
    };
    let mut budget = TAIL_BYTES;
    let mut first = lines.len();
    while first > 0 && lines[first - 1].len() + 2 <= budget {
        budget -= lines[first - 1].len() + 2;
        first -= 1;
    }
    lines[first..].join("\r\n").into_bytes()
}

/// A screen of `size` showing `tail`, for a pane that has no process.
pub fn screen_of(tail: &[u8], size: Size, limits: HistoryLimits) -> Screen {
    let mut screen = Screen::with_history_limits(size.cols, size.rows, limits);
    screen.feed(tail);
    screen
}

/// The `history/` directory of a state dir.
#[derive(Clone, Debug)]
pub struct TailDir {
    dir: PathBuf,
}

impl TailDir {
    /// The tails of `state_dir`.
    pub fn new(state_dir: &Path) -> Self {
        TailDir {
            dir: state_dir.join(super::HISTORY_DIR),
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    fn file_name(id: &PaneId) -> String {
        format!("{id}{SUFFIX}")
    }

    /// Writes one pane's tail (creating the directory 0700 when needed).
    pub fn write(&self, id: &PaneId, tail: &[u8]) -> io::Result<()> {
        private_dir(&self.dir)?;
        write_atomic(&self.dir, &Self::file_name(id), tail, Durability::Cached)
    }

    /// Reads one pane's tail; empty when there is none. Never reads more than twice the budget,
    /// whatever is on disk.
    pub fn read(&self, id: &PaneId) -> io::Result<Vec<u8>> {
        let file = match fs::File::open(self.dir.join(Self::file_name(id))) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut tail = Vec::new();
        file.take(2 * TAIL_BYTES as u64).read_to_end(&mut tail)?;
        Ok(tail)
    }

    /// Removes every tail (and stray temp file) whose pane is not in `keep`. Returns how many
    /// files went.
    pub fn retain(&self, keep: &HashSet<PaneId>) -> io::Result<usize> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        let mut removed = 0;
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let kept = name
                .strip_suffix(SUFFIX)
                .and_then(PaneId::parse)
                .is_some_and(|id| keep.contains(&id));
            if !kept {
                match fs::remove_file(entry.path()) {
                    Ok(()) => removed += 1,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_replays_into_a_fresh_screen_with_its_colours() {
        let mut screen = Screen::new(40, 5);
        for i in 0..20 {
            screen.feed(format!("line {i}\r\n").as_bytes());
        }
        screen.feed(b"\x1b[31mred\x1b[m $ ");
        let tail = render(&screen);
        let text = String::from_utf8(tail.clone()).unwrap();
        assert!(text.starts_with("line 0\r\n"), "{text:?}");
        assert!(text.ends_with("\x1b[0;31mred\x1b[m $"), "{text:?}");
        let restored = screen_of(&tail, Size { cols: 40, rows: 5 }, HistoryLimits::default());
        assert_eq!(
            restored.scrollback(usize::MAX, false),
            screen.scrollback(usize::MAX, false)
        );
        assert_eq!(restored.contents(true), screen.contents(true));
    }

    #[test]
    fn a_tail_keeps_the_newest_lines_within_the_budget() {
        let mut screen = Screen::new(100, 10);
        for i in 0..5000 {
            screen.feed(format!("{i:>6} {}\r\n", "x".repeat(60)).as_bytes());
        }
        let tail = render(&screen);
        assert!(tail.len() <= TAIL_BYTES, "{}", tail.len());
        assert!(
            tail.len() > TAIL_BYTES - 100,
            "fills the budget: {}",
            tail.len()
        );
        let text = String::from_utf8(tail).unwrap();
        assert!(text.contains("  4999 "), "newest line kept");
        assert!(!text.contains("     0 "), "oldest line dropped");
        assert!(text.starts_with(' ') || text.starts_with(char::is_numeric));
    }

    #[test]
    fn retain_removes_tails_of_gone_panes_and_stray_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let tails = TailDir::new(dir.path());
        let (a, b) = (PaneId::new(), PaneId::new());
        tails.write(&a, b"a").unwrap();
        tails.write(&b, b"b").unwrap();
        fs::write(tails.path().join("junk.tmp"), b"x").unwrap();
        let removed = tails.retain(&HashSet::from([a.clone()])).unwrap();
        assert_eq!(removed, 2);
        assert_eq!(tails.read(&a).unwrap(), b"a");
        assert!(tails.read(&b).unwrap().is_empty());
    }
}
