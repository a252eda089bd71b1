//! End to end, in tmux: several clients on one pane (`[server] window_size`, default `latest`).
//! A TUI and a `signaltty attach` of different sizes show the same pane; the pane takes the
//! size of the one typed into last, and the larger one shows the area the pane does not reach
//! filled with `·` — in the TUI's pane view, and in `signaltty attach` (frames drawn by the
//! server) — until it is typed into in turn.
//!
//! Needs the binaries next to the TUI's: `cargo build -p signaltty-server -p signaltty-cli`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Output;

use common::{World, bin};

/// A run of marks no glyph of the TUI makes (the sidebar uses a single `·`).
const MARKS: &str = "··········";

fn run_tui(world: &World) {
    world.literal(&format!(
        "{}; echo \"tui exited $?\"",
        bin("signaltty-tui").display()
    ));
    world.keys(&["Enter"]);
    world.wait("the TUI and its shell", |s| {
        s.contains("[proj]") && s.lines().any(|l| l.trim_end().ends_with('$'))
    });
}

/// The second client: tmux session `other`, `cols`×`rows`, running `signaltty attach` on the
/// TUI's pane.
struct Other<'w> {
    world: &'w World,
}

impl<'w> Other<'w> {
    fn start(world: &'w World, cols: u16, rows: u16) -> Other<'w> {
        let pane = world.panes()[0]["id"].as_str().unwrap().to_owned();
        let command = format!(
            "{} {} --socket {} attach {pane}",
            world.env(),
            bin("signaltty").display(),
            world.socket.display()
        );
        let started = world.tmux(&[
            "new-session",
            "-d",
            "-s",
            "other",
            "-x",
            &cols.to_string(),
            "-y",
            &rows.to_string(),
            &command,
        ]);
        assert!(started.status.success(), "{started:?}");
        Other { world }
    }

    fn tmux(&self, args: &[&str]) -> Output {
        self.world.tmux(args)
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "other"]).stdout)
            .into_owned()
    }

    fn type_line(&self, text: &str) {
        assert!(
            self.tmux(&["send-keys", "-t", "other", "-l", text])
                .status
                .success()
        );
        assert!(
            self.tmux(&["send-keys", "-t", "other", "Enter"])
                .status
                .success()
        );
    }

    fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = std::time::Instant::now() + common::WAIT;
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "timed out waiting for {what}; the attach's screen:\n{screen}\nthe TUI's:\n{}",
                self.world.screen()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

/// A line that is `text` printed, not the command that printed it.
fn printed(screen: &str, text: &str) -> bool {
    screen
        .lines()
        .any(|l| l.contains(text) && !l.contains("echo"))
}

/// The `stty size` answers (`rows cols`) on `screen`, in order (right of the TUI's sidebar).
fn stty_answers(screen: &str) -> Vec<(u16, u16)> {
    screen
        .lines()
        .filter_map(|l| {
            let pane = l.rsplit('│').next().unwrap_or(l);
            let mut words = pane.trim().split(' ');
            match (words.next(), words.next(), words.next()) {
                (Some(r), Some(c), None) => Some((r.parse().ok()?, c.parse().ok()?)),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn a_tui_larger_than_the_pane_marks_the_unused_area_until_typed_into() {
    let world = World::with_keys("tmux");
    world.start(160, 45, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    run_tui(&world);

    // A smaller `signaltty attach` on the same pane, typed into: the pane takes its size, and
    // the TUI marks what its pane area has beyond it.
    let other = Other::start(&world, 80, 20);
    other.wait("the attach showing the shell", |s| s.contains('$'));
    other.type_line("echo sm''all; stty size");
    // The program has the small size.
    other.wait("the small client's output", |s| {
        printed(s, "small") && stty_answers(s).contains(&(20, 80))
    });
    let screen = world.wait("the TUI marking the unused area", |s| {
        printed(s, "small") && s.contains(MARKS)
    });
    // The marks are right of the pane's 80 columns and below its 20 rows, not over it.
    let small_line = screen.lines().find(|l| printed(l, "small")).unwrap();
    assert!(!small_line.contains(MARKS) || small_line.find("small") < small_line.find(MARKS));

    // Typed into the TUI: the pane takes the TUI's size again (the keys wait for it), and the
    // marks go.
    world.literal("stty size; echo la''rge");
    world.keys(&["Enter"]);
    let screen = world.wait("the TUI typed into, without marks", |s| {
        printed(s, "large") && !s.contains(MARKS)
    });
    let answers = stty_answers(&screen);
    let (rows, cols) = *answers
        .last()
        .unwrap_or_else(|| panic!("a stty answer:\n{screen}"));
    assert!(
        rows > 20 && cols > 80,
        "the first keys reached the program at the TUI's size, not the small one: {answers:?}\n{screen}"
    );
    // The small client shows the pane's top-left part, unmarked.
    let small = other.wait("the attach showing the TUI's output", |s| {
        printed(s, "large")
    });
    assert!(!small.contains(MARKS), "{small}");
}

#[test]
fn a_signaltty_attach_larger_than_the_pane_marks_the_unused_area_until_typed_into() {
    let world = World::with_keys("tmux");
    world.start(80, 24, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    run_tui(&world);

    let other = Other::start(&world, 160, 45);
    other.wait("the attach showing the shell", |s| s.contains('$'));
    other.type_line("echo bi''g");
    other.wait("the big client's output", |s| printed(s, "big"));

    // Typed into the (smaller) TUI: the attach's terminal is larger than the pane now.
    world.literal("echo ti''ny");
    world.keys(&["Enter"]);
    world.wait("the TUI's output", |s| printed(s, "tiny"));
    let big = other.wait("the attach marking the unused area", |s| {
        printed(s, "tiny") && s.contains(MARKS)
    });
    // Marks fill whole rows below the pane.
    assert!(
        big.lines()
            .any(|l| l.trim_end().chars().count() == 160 && l.chars().all(|c| c == '·')),
        "{big}"
    );

    // Typed into the attach: its size again, plain output, no marks.
    other.type_line("echo ba''ck");
    let big = other.wait("the attach typed into, without marks", |s| {
        printed(s, "back") && !s.contains(MARKS)
    });
    assert!(
        printed(&big, "tiny"),
        "the screen is whole after the repaint:\n{big}"
    );
    let answers = {
        other.type_line("stty size");
        other.wait("a stty answer", |s| stty_answers(s).contains(&(45, 160)))
    };
    assert!(!answers.contains(MARKS));
}
