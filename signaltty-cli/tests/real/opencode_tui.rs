//! Driving OpenCode's own terminal UI in a signaltty pane as a user does: typing a prompt,
//! pressing keys in its dialogs, reading its screen. Every wait is on the screen or the pane's
//! state, bounded by [`super::opencode::STEP`].

#![allow(dead_code)]

use std::time::{Duration, Instant};

use serde_json::Value;

use super::opencode::{OpencodeWorld, STEP};

pub const ESC: &[u8] = b"\x1b";
pub const ENTER: &[u8] = b"\r";
pub const RIGHT: &[u8] = b"\x1b[C";

impl OpencodeWorld {
    /// OpenCode's TUI in a new pane, waited for until its prompt takes input.
    pub fn start_tui(&self) -> String {
        let pane = self.spawn(&[]);
        self.wait_screen(&pane, "Ask anything");
        pane
    }

    /// Waits until the screen shows `needle` (a long line may wrap).
    pub fn wait_screen(&self, pane: &str, needle: &str) {
        let deadline = Instant::now() + STEP;
        loop {
            let screen = self.screen(pane);
            if screen.contains(needle) || screen.replace('\n', "").contains(needle) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{needle:?} never showed on pane {pane}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends raw key bytes.
    pub fn keys(&self, pane: &str, bytes: &[u8]) {
        let run = self
            .env
            .run_with_stdin(&["pane", "send", "--stdin", pane], Some(bytes));
        assert!(run.success(), "pane send: {run:?}");
    }

    /// Types `text`, waits until OpenCode shows it, then presses Enter in a write of its own (an
    /// Enter in the same write is part of a paste).
    pub fn prompt(&self, pane: &str, text: &str) {
        self.keys(pane, text.as_bytes());
        self.wait_screen(pane, text);
        self.keys(pane, ENTER);
    }

    /// Presses `key` until `dialog` is gone from the screen: a dialog that just opened may not
    /// take a key yet. Presses are at least half a second apart.
    pub fn press_until_gone(&self, pane: &str, dialog: &str, key: &[u8]) {
        let deadline = Instant::now() + STEP;
        while self.screen(pane).contains(dialog) {
            assert!(
                Instant::now() < deadline,
                "the dialog {dialog:?} never took {key:?}:\n{}",
                self.screen(pane)
            );
            self.keys(pane, key);
            let settle = Instant::now() + Duration::from_millis(500);
            while Instant::now() < settle && self.screen(pane).contains(dialog) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    /// True when the pane does not reach `lifecycle` within `within`: for the events that
    /// OpenCode sends right after the one that told the truth (its idle after an error).
    pub fn stays_away_from(&self, pane: &str, lifecycle: &str, within: Duration) -> bool {
        let secs = format!("{}", within.as_secs_f64());
        let run = self.env.run(&[
            "--json",
            "pane",
            "wait",
            pane,
            "--until",
            lifecycle,
            "--timeout",
            &secs,
        ]);
        let reached = run.success()
            && serde_json::from_str::<Value>(&run.stdout)
                .is_ok_and(|v| v["pane"]["lifecycle"] == lifecycle);
        !reached
    }
}

/// A pane state test: `lifecycle` and `attention`.
pub fn is(lifecycle: &str, attention: &str) -> impl Fn(&Value) -> bool {
    let (l, a) = (lifecycle.to_owned(), attention.to_owned());
    move |p| p["lifecycle"] == l.as_str() && p["attention"] == a.as_str()
}

/// The pane's message.
pub fn message(p: &Value) -> &str {
    p["last_message"].as_str().unwrap_or_default()
}
