//! A real terminal on the far side of a signaltty client — or, after a hand-off, of the server.
//!
//! Whoever writes a pane's output to a person's terminal needs the same few things, whether it
//! is the CLI's `attach` or the server after the CLI handed its terminal over (the side
//! socket's [`protocol`]):
//! the terminal opened again with a non-blocking description of its own ([`input`] reads keys
//! from the reactor, [`output`] writes with a backlog instead of blocking), the modes the pane's
//! program switched on followed and reset ([`modes`]), and the detach key found in what was
//! typed ([`split_at_detach`]), raw mode in and out ([`raw_mode`]); and which lent keys the
//! server may write to a pane ([`lend`]). Nothing here knows about gRPC or the server's model.

pub mod input;
pub mod lend;
pub mod modes;
pub mod output;
pub mod protocol;
pub mod raw_mode;
mod sys;

pub use sys::window_size;

/// The bytes to forward before the detach key `key`, and whether the key was pressed.
pub fn split_at_detach(bytes: &[u8], key: u8) -> (&[u8], bool) {
    match memchr::memchr(key, bytes) {
        Some(at) => (&bytes[..at], true),
        None => (bytes, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_cut_at_the_detach_key() {
        assert_eq!(split_at_detach(b"ls\x1crest", 0x1c), (&b"ls"[..], true));
        assert_eq!(split_at_detach(b"ls -l\r", 0x1c), (&b"ls -l\r"[..], false));
        assert_eq!(split_at_detach(b"\x1c", 0x1c), (&b""[..], true));
    }
}
