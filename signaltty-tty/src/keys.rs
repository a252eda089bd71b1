//! Server-read keys, within a paint grant ([`crate::paint`]): while the TUI shows the pane the
//! server paints and the user types into it (Insert mode), the server reads the TUI's terminal
//! itself and writes plain keys straight to the pane, as tmux's server reads its client's
//! terminal — a key then passes two processes on its way to the screen (server, program)
//! instead of three (TUI, server, program). Everything the TUI must see (its leader, mouse,
//! focus, paste, any escape sequence) is handed back to it unread by the pane.
//!
//! It is asked for on the grant's connection; the grant's request then carries a second
//! descriptor, the client's terminal input. The conversation, one line per message:
//!
//! ```text
//!  client                                          server
//!  (stops reading its terminal)
//!  keys [<hex>]\n   read my terminal; never take the characters listed (UTF-8, in hex: the
//!                   client's own bindings)
//!                                                  (reads; writes each plain key to the pane)
//!                                                  back [<hex>]\n  stopped reading; these
//!                                                    bytes (read, not written to the pane) come
//!                                                    first in what the client reads next
//!  release\n   give my terminal back (answered by the `back` of the current `keys`, or not at
//!              all when that `back` was already sent)
//!  (reads its terminal again after `back`)
//! ```
//!
//! Exactly one `back` answers each `keys`: sent at the first key that is not [`taken`],
//! when the pane does not take a write whole, when the pane wants every key as an escape code
//! (kitty flag 8: then no byte is its own encoding), on `release`, on `stop` (before
//! `stopped`) — or never when the connection ends, which also ends the reading. A refusal is an
//! empty `back` at once. The server reads at most [`READ_MAX`] bytes at a time, so a `back`
//! always fits a line.

/// The client's request line's first word.
pub const VERB: &str = "keys";
/// The client's `release` line.
pub const RELEASE: &[u8] = b"release\n";
/// The server's answer's first word.
pub const BACK: &str = "back";
/// Most bytes the server reads from the terminal at once (its `back` is twice that in hex).
pub const READ_MAX: usize = 1024;
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

/// The `keys` line excluding the characters of `excluded`.
pub fn encode_request(excluded: &str) -> Vec<u8> {
    line(VERB, excluded.as_bytes())
}

/// The excluded characters of a `keys` line (without its newline).
pub fn decode_request(line: &str) -> Result<String, String> {
    String::from_utf8(decode(VERB, line)?)
        .map_err(|_| format!("`{VERB}` lists characters in UTF-8"))
}

/// The `back` line handing `bytes` back.
pub fn encode_back(bytes: &[u8]) -> Vec<u8> {
    line(BACK, bytes)
}

/// The bytes of a `back` line (without its newline); `None` for another line.
pub fn decode_back(line: &str) -> Option<Result<Vec<u8>, String>> {
    (line == BACK || line.starts_with("back ")).then(|| decode(BACK, line))
}

fn line(verb: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = verb.as_bytes().to_vec();
    if !bytes.is_empty() {
        out.push(b' ');
        for b in bytes {
            out.extend_from_slice(format!("{b:02x}").as_bytes());
        }
    }
    out.push(b'\n');
    out
}

fn decode(verb: &str, line: &str) -> Result<Vec<u8>, String> {
    let hex = match line.strip_prefix(verb) {
        Some("") => return Ok(Vec::new()),
        Some(rest) => rest
            .strip_prefix(' ')
            .ok_or_else(|| format!("expected `{verb} [<hex>]`"))?,
        None => return Err(format!("the line must start with `{verb}`")),
    };
    if hex.len() % 2 != 0 || hex.len() > 2 * READ_MAX {
        return Err(format!(
            "`{verb}` takes pairs of hex digits, at most {READ_MAX} bytes"
        ));
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| format!("`{verb}`: `{hex}` is not hex"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip() {
        assert_eq!(encode_request(""), b"keys\n");
        assert_eq!(encode_request("\x01`é"), b"keys 0160c3a9\n");
        assert_eq!(decode_request("keys"), Ok(String::new()));
        assert_eq!(decode_request("keys 0160c3a9"), Ok("\x01`é".into()));
        let all: Vec<u8> = (0..=255).collect();
        let back = String::from_utf8(encode_back(&all)).expect("ascii");
        assert_eq!(decode_back(back.trim_end()), Some(Ok(all)));
        assert_eq!(decode_back("back"), Some(Ok(vec![])));
        assert_eq!(decode_back("stopped"), None);
        assert_eq!(decode_back("backward"), None);
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        assert!(decode_request("keys 1").is_err());
        assert!(decode_request("keys zz").is_err());
        assert!(decode_request("keysx").is_err());
        assert!(decode_request("keys c3").is_err(), "half a character");
        assert!(decode_request("paint").is_err());
        let long = format!("keys {}", "00".repeat(READ_MAX + 1));
        assert!(decode_request(&long).is_err());
        assert!(decode_back("back é").is_some_and(|r| r.is_err()));
    }

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
