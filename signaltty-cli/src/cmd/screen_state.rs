//! The cursor position and terminal modes of a pane, for `pane get` and `pane read`. The API
//! carries them in an Attach's first message (the Snapshot: cursor row and column, and a repaint
//! that sets every mode the program turned on), so this takes one read-only attach — which does
//! not count towards the pane's size and leaves its attention alone — and reads the modes back
//! from the repaint's DEC private mode sequences.

use serde::Serialize;
use signaltty_client::{AttachEvent, AttachStart, Client};

/// What the pane's terminal looks like to its program right now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ScreenState {
    /// Cursor row, 0-based.
    pub cursor_row: u16,
    /// Cursor column, 0-based.
    pub cursor_col: u16,
    /// The modes that are on, by name (`alternate_screen`, `mouse`, …), in a fixed order.
    pub modes: Vec<&'static str>,
}

/// Named modes: the DEC private mode numbers that turn each on (any of them).
const MODES: &[(&str, &[&str])] = &[
    ("alternate_screen", &["1049", "1047", "47"]),
    ("application_cursor_keys", &["1"]),
    ("mouse", &["1000", "1002", "1003"]),
    ("mouse_sgr", &["1006"]),
    ("focus_events", &["1004"]),
    ("bracketed_paste", &["2004"]),
];

/// The pane's cursor and modes; `None` when the pane cannot be attached to (e.g. it closed).
pub async fn screen_state(client: &Client, pane: &str) -> Option<ScreenState> {
    let start = AttachStart {
        read_only: true,
        mark_seen: false,
        ..AttachStart::new(pane, 80, 24)
    };
    let (mut events, _input) = client.attach(start).await.ok()?.split();
    match events.next().await.ok()?? {
        AttachEvent::Snapshot(snapshot) => Some(ScreenState {
            cursor_row: snapshot.cursor.row,
            cursor_col: snapshot.cursor.col,
            modes: modes_set_by(&snapshot.bytes),
        }),
        _ => None,
    }
}

/// The modes a repaint leaves on: `CSI ? n h` sets and `CSI ? n l` resets (last one wins),
/// `ESC =` / `ESC >` the keypad; the cursor is visible unless `CSI ? 25 l`.
pub fn modes_set_by(bytes: &[u8]) -> Vec<&'static str> {
    let mut on: Vec<String> = Vec::new();
    let mut keypad = false;
    let mut cursor_hidden = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != 0x1b {
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(b'=') => keypad = true,
            Some(b'>') => keypad = false,
            Some(b'[') if bytes.get(i + 2) == Some(&b'?') => {
                let start = i + 3;
                let mut end = start;
                while end < bytes.len() && (bytes[end].is_ascii_digit() || bytes[end] == b';') {
                    end += 1;
                }
                let set = match bytes.get(end) {
                    Some(b'h') => Some(true),
                    Some(b'l') => Some(false),
                    _ => None,
                };
                if let Some(set) = set {
                    let params = String::from_utf8_lossy(&bytes[start..end]).into_owned();
                    for p in params.split(';').filter(|p| !p.is_empty()) {
                        on.retain(|m| m != p);
                        if set {
                            on.push(p.to_owned());
                        }
                        if p == "25" {
                            cursor_hidden = !set;
                        }
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let mut names: Vec<&'static str> = MODES
        .iter()
        .filter(|(_, numbers)| numbers.iter().any(|n| on.iter().any(|m| m == n)))
        .map(|(name, _)| *name)
        .collect();
    if keypad {
        names.push("application_keypad");
    }
    if cursor_hidden {
        names.push("cursor_hidden");
    }
    names
}

/// `{"row": …, "col": …}` for `--json`.
pub fn cursor_json(screen: &ScreenState) -> serde_json::Value {
    serde_json::json!({ "row": screen.cursor_row, "col": screen.cursor_col })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repaint_names_its_modes() {
        assert!(modes_set_by(b"\x1b[H\x1b[2Jhello").is_empty());
        let full = b"\x1b[?1049h\x1b[H\x1b[?1000;1006h\x1b=\x1b[?2004h\x1b[?25l";
        assert_eq!(
            modes_set_by(full),
            [
                "alternate_screen",
                "mouse",
                "mouse_sgr",
                "bracketed_paste",
                "application_keypad",
                "cursor_hidden"
            ]
        );
        assert_eq!(
            modes_set_by(b"\x1b[?1h\x1b[?1l\x1b[?25l\x1b[?25h"),
            Vec::<&str>::new()
        );
    }
}
