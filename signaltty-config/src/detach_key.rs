//! The detach key of `signaltty attach`, as written in `--detach-key` and `[attach] detach_key`:
//! `ctrl-X`, `C-X` or `^X` for a control key (X in A–Z and `@ [ \ ] ^ _`), or `0xNN` for any byte.

use std::fmt;

use serde::Serialize;

/// The byte that detaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DetachKey(pub u8);

/// Ctrl-\ (FS): tmux-free and rarely used by programs.
pub const DEFAULT: DetachKey = DetachKey(0x1c);

impl Default for DetachKey {
    fn default() -> Self {
        DEFAULT
    }
}

impl std::str::FromStr for DetachKey {
    type Err = String;

    /// Parses `ctrl-\`, `ctrl+a`, `C-a`, `^]`, `0x1d` (case-insensitive).
    fn from_str(text: &str) -> Result<Self, String> {
        let lower = text.to_ascii_lowercase();
        if let Some(hex) = lower.strip_prefix("0x") {
            return u8::from_str_radix(hex, 16)
                .map(DetachKey)
                .map_err(|_| format!("bad byte {text:?}: expected 0x00–0xff"));
        }
        let key = ["ctrl-", "ctrl+", "c-", "^"]
            .iter()
            .find_map(|prefix| lower.strip_prefix(prefix))
            .ok_or_else(|| format!("bad detach key {text:?}: expected ctrl-X, C-X, ^X or 0xNN"))?;
        match key.as_bytes() {
            [c @ (b'a'..=b'z')] => Ok(DetachKey(c - b'a' + 1)),
            [c @ (b'@' | b'[' | b'\\' | b']' | b'^' | b'_')] => Ok(DetachKey(c ^ 0x40)),
            _ => Err(format!(
                "bad detach key {text:?}: no control key for {key:?}"
            )),
        }
    }
}

impl fmt::Display for DetachKey {
    /// `ctrl-X` for a control key, `0xNN` for any other byte (parses back to the same key).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            c @ 1..=26 => write!(f, "ctrl-{}", char::from(b'a' + c - 1)),
            c @ (0 | 27..=31) => write!(f, "ctrl-{}", char::from(c ^ 0x40)),
            c => write!(f, "0x{c:02x}"),
        }
    }
}

impl Serialize for DetachKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_parse_and_print_back() {
        for (text, byte) in [
            ("ctrl-\\", 0x1c),
            ("C-a", 1),
            ("ctrl+B", 2),
            ("^]", 0x1d),
            ("^@", 0),
            ("0x1d", 0x1d),
            ("0xff", 0xff),
        ] {
            let key: DetachKey = text.parse().expect(text);
            assert_eq!(key, DetachKey(byte), "{text}");
            assert_eq!(key.to_string().parse::<DetachKey>(), Ok(key), "{text}");
        }
        assert_eq!(DetachKey::default().to_string(), "ctrl-\\");
    }

    #[test]
    fn mistakes_say_what_is_expected() {
        for text in ["ctrl-1", "alt-x", "0x100", ""] {
            let err = text.parse::<DetachKey>().expect_err(text);
            assert!(err.contains(text), "{err}");
        }
    }
}
