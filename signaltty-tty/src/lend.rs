//! Lent keys (`lend` … `back` on the side socket, [`crate::protocol`]): which of the keys a
//! client lends the server may write to the pane itself. While the TUI shows a pane the server
//! paints and the user types into it (Insert mode), the server reads the TUI's terminal and
//! writes plain keys straight to the pane, as tmux's server reads its client's terminal — a key
//! passes two processes on its way to the screen (server, program) instead of three. Everything
//! the TUI must see (its leader, mouse, focus, paste, any escape sequence) is handed back to it
//! unread by the pane.
//!
//! A `back` is sent at the first key that is not [`taken`], when the pane does not take a write
//! whole, when the pane wants every key as an escape code (kitty flag 8: then no byte is its own
//! encoding), on `release`, on `stop` (before `stopped`) — or never when the connection ends,
//! which also ends the reading. The server reads at most [`READ_MAX`] bytes at a time, so a
//! `back` always fits a line.

/// Most bytes the server reads from the terminal at once (what one `back` can hand back).
pub const READ_MAX: usize = crate::protocol::MAX_BYTES;
/// Kitty keyboard flag 8 (report all keys as escape codes): a pane that pushed it wants no key
/// as its plain byte.
pub const ALL_KEYS_AS_ESCAPES: u8 = 8;

/// An ASCII byte a terminal sends for a key that the TUI, in Insert mode, would send on
/// unchanged to a pane whose program did not ask for every key as an escape code: printable
/// ASCII, Enter (CR), Tab and Backspace (DEL). So is a whole UTF-8 character ([`taken`]).
/// Everything else (ESC and what it starts, other control bytes) goes through the TUI's own
/// parser and encoder.
pub fn plain(byte: u8) -> bool {
    matches!(byte, 0x20..=0x7f | b'\r' | b'\t')
}

/// How many bytes at the start of `read` the server writes to the pane: its keys up to the
/// first that is neither a [`plain`] byte nor a whole UTF-8 character, or is `excluded`; none
/// when the pane's kitty flags have [`ALL_KEYS_AS_ESCAPES`]. Half a character at the end is
/// left to the client, whose parser waits for the rest.
pub fn taken(read: &[u8], excluded: &str, kitty_flags: u8) -> usize {
    if kitty_flags & ALL_KEYS_AS_ESCAPES != 0 {
        return 0;
    }
    let mut at = 0;
    while let Some(&first) = read.get(at) {
        let width = match first {
            b if plain(b) => 1,
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => break,
        };
        let Some(Ok(key)) = read.get(at..at + width).map(std::str::from_utf8) else {
            break;
        };
        if key.chars().any(|c| excluded.contains(c)) {
            break;
        }
        at += width;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_is_taken_up_to_the_first_byte_the_client_must_see() {
        assert_eq!(taken(b"ls -l\r", "", 0), 6);
        assert_eq!(taken(b"ab\x1b[A", "", 0), 2);
        assert_eq!(taken(b"\x01c", "\x01", 0), 0);
        assert_eq!(taken(b"a`b", "`", 0), 1);
        assert_eq!(taken("aé中😀b".as_bytes(), "", 0), 11, "whole characters");
        assert_eq!(taken("aéb".as_bytes(), "é", 0), 1);
        assert_eq!(taken(&"aé".as_bytes()[..2], "", 0), 1, "half a character");
        assert_eq!(taken(b"a\xc3(", "", 0), 1, "not UTF-8");
        assert_eq!(taken(b"a\xc0\x80", "", 0), 1, "overlong");
        assert_eq!(taken(b"\x7f\t", "", 1), 2, "flag 1 keeps plain keys plain");
        assert_eq!(taken(b"abc", "", 1 | ALL_KEYS_AS_ESCAPES), 0);
        assert_eq!(taken(b"a\nb", "", 0), 1, "LF is not a key's own byte");
    }
}
