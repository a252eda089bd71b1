//! Differential test against a real tmux: recorded byte streams of real programs
//! (`tests/fixtures/*.bytes`, made by `tests/fixtures/record.sh`: vim, less, man, git log
//! --graph, top, and sequences this crate added) are replayed into our [`Screen`] and into a
//! tmux pane of the same size running `cat` of the same file; tmux's screen
//! (`capture-pane -p -e -N`) and state (`display -p`: cursor, screen, modes) are compared cell
//! by cell with ours: text, width, colours and attributes (underline shape and colour
//! included), cursor position and visibility, alternate screen, cursor-key, keypad, insert,
//! origin, autowrap and mouse modes.
//!
//! tmux's capture is read back through our own emulator (its SGR is the only escape sequence
//! in it), which is tested on its own against vt100 and by the sequence tests.
//!
//! Where the two differ on purpose, [`INTENDED`] lists it with the reason; anything else fails.
//! Skipped, with a message saying so, where tmux is not installed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::Screen;
use crate::vt::{Sink, Term};

const COLS: u16 = 80;
const ROWS: u16 = 24;

/// The recordings, each replayed at 80×24 (the size they were recorded at).
const FIXTURES: &[&str] = &[
    "vim",
    "less",
    "man",
    "git-log",
    "top",
    "sgr",
    "wrap",
    "long-lines",
    "quirks",
];

/// Differences we keep on purpose: (fixture, the start of the difference's description, why).
const INTENDED: &[(&str, &str, &str)] = &[(
    "wrap",
    // "decstr" printed in red, then `CSI ! p`, then the text: row 5 from column 3.
    "cell 5,",
    "DECSTR (`CSI ! p`) resets the drawing attributes to normal, as the VT220 manual and \
     xterm do; tmux 3.3a keeps the colour",
)];

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `tmux -V`, for failure messages (the fixtures were compared with tmux 3.3a).
fn tmux_version() -> String {
    Command::new("tmux")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A tmux server on a socket of its own, killed on drop.
struct Tmux {
    dir: PathBuf,
    socket: PathBuf,
}

impl Tmux {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("signaltty-tmux-diff-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let socket = dir.join("sock");
        Self { dir, socket }
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new("tmux");
        cmd.arg("-S").arg(&self.socket).arg("-f").arg("/dev/null");
        cmd.stdin(Stdio::null());
        cmd
    }

    fn run(&self, args: &[&str]) -> String {
        let out = self.command().args(args).output().expect("tmux runs");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Replays `fixture` in a pane and waits until tmux has drawn all of it: after `cat`, the
    /// pane asks for the cursor position, which tmux answers only once everything before it
    /// is processed, and then signals a channel the test waits on.
    fn replay(&self, fixture: &Path) {
        let script = self.dir.join("run.sh");
        std::fs::write(
            &script,
            format!(
                "stty raw -echo\ncat '{}'\nprintf '\\033[6n'\nIFS= read -r -d R _\ntmux -S '{}' wait-for -S done\nexec sleep 100000\n",
                fixture.display(),
                self.socket.display()
            ),
        )
        .expect("script written");
        let (cols, rows) = (COLS.to_string(), ROWS.to_string());
        self.run(&[
            "new-session",
            "-d",
            "-s",
            "diff",
            "-x",
            &cols,
            "-y",
            &rows,
            "-e",
            "TERM=xterm-256color",
            &format!("bash '{}'", script.display()),
        ]);
        let mut waiter: Child = self
            .command()
            .args(["wait-for", "done"])
            .spawn()
            .expect("wait-for");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if waiter.try_wait().expect("wait-for status").is_some() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "tmux never finished replaying {}",
                fixture.display()
            );
            // Polling a child process's exit: the event itself, with a deadline.
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct Discard;
impl Sink for Discard {
    fn scrolled_off(&mut self, _: &crate::vt::Row, _: u16, _: crate::vt::LinePart) {}
    fn title(&mut self, _: &[u8]) {}
    fn clear_history(&mut self) {}
}

/// tmux's state of the pane, and ours, in the same terms.
#[derive(Debug, PartialEq, Eq)]
struct State {
    cursor: (u16, u16),
    cursor_visible: bool,
    alternate: bool,
    application_cursor: bool,
    application_keypad: bool,
    insert: bool,
    origin: bool,
    autowrap: bool,
    mouse: bool,
}

fn tmux_state(tmux: &Tmux) -> State {
    let out = tmux.run(&[
        "display", "-p", "-t", "diff",
        "#{cursor_x} #{cursor_y} #{cursor_flag} #{alternate_on} #{keypad_cursor_flag} #{keypad_flag} #{insert_flag} #{origin_flag} #{wrap_flag} #{mouse_any_flag}",
    ]);
    let f: Vec<u16> = out
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    assert_eq!(f.len(), 10, "display -p: {out:?}");
    State {
        cursor: (f[1], f[0]),
        cursor_visible: f[2] == 1,
        alternate: f[3] == 1,
        application_cursor: f[4] == 1,
        application_keypad: f[5] == 1,
        insert: f[6] == 1,
        origin: f[7] == 1,
        autowrap: f[8] == 1,
        mouse: f[9] == 1,
    }
}

fn our_state(screen: &Screen) -> State {
    let term = screen.term();
    let m = term.modes();
    State {
        cursor: term.cursor(),
        cursor_visible: m.cursor_visible,
        alternate: term.alternate_screen(),
        application_cursor: m.application_cursor,
        application_keypad: m.application_keypad,
        insert: m.insert,
        origin: m.origin,
        autowrap: m.autowrap,
        mouse: m.mouse != crate::vt::MouseMode::Off,
    }
}

/// Every difference between tmux's screen (captured, read back into a terminal) and ours.
fn cell_differences(ours: &Term, theirs: &Term) -> Vec<String> {
    let mut diffs = Vec::new();
    let (cols, rows) = ours.size();
    for row in 0..rows {
        for col in 0..cols {
            let (Some(a), Some(b)) = (ours.row(row), theirs.row(row)) else {
                continue;
            };
            let (ca, cb) = (a.cell(col), b.cell(col));
            let (ta, tb) = (ours.cell_text(row, col), theirs.cell_text(row, col));
            let (sa, sb) = (a.style(col), b.style(col));
            // A blank shows only its background.
            let blank = ta.trim().is_empty() && tb.trim().is_empty();
            let same = ta == tb
                && ca.is_wide() == cb.is_wide()
                && if blank { sa.bg() == sb.bg() } else { sa == sb };
            if !same {
                diffs.push(format!(
                    "cell {row},{col}: ours {ta:?} {sa:?}, tmux {tb:?} {sb:?}"
                ));
            }
        }
    }
    diffs
}

fn row_text(term: &Term, row: u16) -> String {
    (0..term.size().0)
        .map(|c| term.cell_text(row, c))
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// tmux's screen read back into a terminal of the pane's size.
fn tmux_screen(tmux: &Tmux, cols: u16, rows: u16) -> Term {
    let capture = tmux.run(&["capture-pane", "-p", "-e", "-N", "-t", "diff"]);
    let mut theirs = Term::new(cols, rows);
    // tmux 3.3a's capture writes overline as `5:3` (its model has it as SGR 53).
    let joined = capture
        .trim_end_matches('\n')
        .replace('\n', "\r\n")
        .replace("\x1b[5:3m", "\x1b[53m");
    theirs.process(joined.as_bytes(), &mut Discard);
    theirs
}

/// Every difference between tmux's pane and our screen: cells, cursor and modes.
fn differences(ours: &Screen, tmux: &Tmux) -> (Vec<String>, Term) {
    let (cols, rows) = ours.size();
    let theirs = tmux_screen(tmux, cols, rows);
    let mut diffs = cell_differences(ours.term(), &theirs);
    let (ours_state, state) = (our_state(ours), tmux_state(tmux));
    if ours_state != state {
        diffs.push(format!("state: ours {ours_state:?}, tmux {state:?}"));
    }
    (diffs, theirs)
}

fn describe(name: &str, diffs: &[String], ours: &Term, theirs: &Term) -> String {
    let rows: Vec<String> = (0..ours.size().1)
        .map(|r| {
            format!(
                "{r:>2} ours |{}|\n   tmux |{}|",
                row_text(ours, r),
                row_text(theirs, r)
            )
        })
        .collect();
    format!(
        "{name} ({}): {} differences, first: {}\n{}",
        tmux_version(),
        diffs.len(),
        diffs.iter().take(8).cloned().collect::<Vec<_>>().join("\n"),
        rows.join("\n")
    )
}

#[test]
fn real_programs_look_the_same_as_in_tmux() {
    if !tmux_available() {
        eprintln!("SKIPPED real_programs_look_the_same_as_in_tmux: tmux is not installed");
        return;
    }
    let mut report = Vec::new();
    for name in FIXTURES {
        let path = fixtures_dir().join(format!("{name}.bytes"));
        let bytes = std::fs::read(&path).expect("fixture readable");
        let mut ours = Screen::new(COLS, ROWS);
        ours.feed(&bytes);

        let tmux = Tmux::new(name);
        tmux.replay(&path);
        let (mut diffs, theirs) = differences(&ours, &tmux);
        drop(tmux);
        let intended: Vec<&(&str, &str, &str)> =
            INTENDED.iter().filter(|(f, _, _)| f == name).collect();
        diffs.retain(|d| !intended.iter().any(|(_, what, _)| d.starts_with(what)));
        if !diffs.is_empty() {
            report.push(describe(name, &diffs, ours.term(), &theirs));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n\n"));
}

/// Reflow against tmux 3.3a's: shell output with long lines (and double-width characters) and
/// a prompt, replayed at 80×24, then both resized through several sizes; after each, the
/// screen, the cursor and the history (as rows of the new width) must be the same.
#[test]
fn reflow_on_resize_matches_tmux() {
    if !tmux_available() {
        eprintln!("SKIPPED reflow_on_resize_matches_tmux: tmux is not installed");
        return;
    }
    let mut report = Vec::new();
    // Not "wrap": its intended difference (DECSTR's pen) moves with the rows.
    for name in ["long-lines", "git-log"] {
        let path = fixtures_dir().join(format!("{name}.bytes"));
        let mut ours = Screen::new(COLS, ROWS);
        ours.feed(&std::fs::read(&path).expect("fixture readable"));
        let tmux = Tmux::new(&format!("reflow-{name}"));
        tmux.replay(&path);
        tmux.run(&["set", "-g", "window-size", "manual"]);
        for (cols, rows) in [(50, 24), (120, 30), (33, 10), (79, 40), (80, 24)] {
            ours.resize(cols, rows);
            tmux.run(&[
                "resize-window",
                "-t",
                "diff",
                "-x",
                &cols.to_string(),
                "-y",
                &rows.to_string(),
            ]);
            let (mut diffs, theirs) = differences(&ours, &tmux);
            let history = tmux.run(&["capture-pane", "-p", "-S", "-", "-E", "-1", "-t", "diff"]);
            // With no history, `-S - -E -1` still captures a (screen) line: count first.
            let size: usize = tmux
                .run(&["display", "-p", "-t", "diff", "#{history_size}"])
                .trim()
                .parse()
                .expect("history_size");
            let theirs_history: Vec<&str> = history.lines().take(size).collect();
            let ours_history = ours.history().tail_rows(usize::MAX, cols).lines(false);
            if theirs_history.len() != ours_history.len() {
                diffs.push(format!(
                    "history: ours {} rows, tmux {}: ours {:?}, tmux {:?}",
                    ours_history.len(),
                    theirs_history.len(),
                    ours_history.iter().rev().take(3).collect::<Vec<_>>(),
                    theirs_history.iter().rev().take(3).collect::<Vec<_>>(),
                ));
            }
            for (i, (a, b)) in ours_history.iter().zip(&theirs_history).enumerate() {
                if a != b {
                    diffs.push(format!("history row {i}: ours {a:?}, tmux {b:?}"));
                    break;
                }
            }
            if !diffs.is_empty() {
                report.push(describe(
                    &format!("{name} at {cols}x{rows}"),
                    &diffs,
                    ours.term(),
                    &theirs,
                ));
                break;
            }
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n\n"));
}
