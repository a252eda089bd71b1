//! Keyboard protocols a program asks its terminal for: xterm's modifyOtherKeys (`CSI > 4 ; n m`)
//! and the kitty keyboard protocol's enhancement flags (`CSI > f u` push, `CSI < n u` pop,
//! `CSI = f ; m u` set). Agents' TUIs turn them on to tell Shift+Enter from Enter; the keys come
//! from the attached client's terminal, so a client attaching later must be switched into the
//! same protocol (the repaint does it), or those keys arrive as plain Enter.
//!
//! The kitty flags live on a stack per screen (main and alternate), as the protocol specifies,
//! bounded like kitty's own so that a program pushing without end cannot grow it. The flag query
//! (`CSI ? u`) is not answered here: whether keys will be encoded that way depends on the
//! client's terminal, which answers it. A repaint carries the active screen's stack (and the main
//! one under an active alternate screen); entries an alternate screen left behind after the
//! program switched back to the main one are not carried.

use std::fmt::Write as _;

/// Entries kept per stack; a push onto a full stack drops the oldest (the protocol's rule).
pub const STACK_MAX: usize = 16;

/// The kitty protocol's defined flags (disambiguate, event types, alternate keys, all keys as
/// escapes, associated text).
const KITTY_FLAGS: u16 = 0b1_1111;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keyboard {
    /// modifyOtherKeys level: 0 off, 1 or 2.
    modify_other_keys: u8,
    /// Kitty flag stacks of the main (0) and alternate (1) screen, oldest first.
    stacks: [Vec<u8>; 2],
}

impl Keyboard {
    /// The modifyOtherKeys level (0 = off).
    pub fn modify_other_keys(&self) -> u8 {
        self.modify_other_keys
    }

    /// The kitty flags in force on `screen` (0 main, 1 alternate): the top of its stack, 0 when
    /// empty.
    pub fn kitty_flags(&self, screen: usize) -> u8 {
        self.stacks[screen].last().copied().unwrap_or(0)
    }

    /// `CSI > 4 ; level m` (a missing level resets it), and `CSI > 4 n` (off).
    pub(super) fn set_modify_other_keys(&mut self, level: u16) {
        self.modify_other_keys = u8::try_from(level.min(2)).unwrap_or(0);
    }

    /// `CSI > flags u`.
    pub(super) fn push(&mut self, screen: usize, flags: u16) {
        let stack = &mut self.stacks[screen];
        if stack.len() == STACK_MAX {
            stack.remove(0);
        }
        stack.push(kitty(flags));
    }

    /// `CSI < n u`: pops `n` entries; more than the stack holds empties it.
    pub(super) fn pop(&mut self, screen: usize, n: u16) {
        let stack = &mut self.stacks[screen];
        stack.truncate(stack.len().saturating_sub(usize::from(n)));
    }

    /// `CSI = flags ; mode u`: the current entry's flags replaced (mode 1), or flags added (2)
    /// or removed (3). With an empty stack it acts on the base entry, which then holds them.
    pub(super) fn set(&mut self, screen: usize, flags: u16, mode: u16) {
        let current = self.kitty_flags(screen);
        let flags = kitty(flags);
        let next = match mode {
            1 => flags,
            2 => current | flags,
            3 => current & !flags,
            _ => return,
        };
        let stack = &mut self.stacks[screen];
        match stack.last_mut() {
            Some(top) => *top = next,
            None if next != 0 => stack.push(next),
            None => {}
        }
    }

    /// Pushes `screen`'s stack onto a fresh terminal, oldest first (`screen` must be the one the
    /// repaint is on).
    pub(super) fn write_stack(&self, screen: usize, out: &mut String) {
        for flags in &self.stacks[screen] {
            let _ = write!(out, "\x1b[>{flags}u");
        }
    }

    /// modifyOtherKeys for a fresh terminal, when on.
    pub(super) fn write_modify_other_keys(&self, out: &mut String) {
        if self.modify_other_keys != 0 {
            let _ = write!(out, "\x1b[>4;{}m", self.modify_other_keys);
        }
    }
}

fn kitty(flags: u16) -> u8 {
    u8::try_from(flags & KITTY_FLAGS).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::super::Term;
    use super::super::tests::Record;
    use super::*;

    fn term(bytes: &[u8]) -> Term {
        let mut term = Term::new(80, 24);
        term.process(bytes, &mut Record::default());
        term
    }

    #[test]
    fn pushes_pops_and_sets_follow_the_protocol() {
        let t = term(b"\x1b[>1u\x1b[>3u");
        assert_eq!(t.keyboard().kitty_flags(0), 3);
        let t = term(b"\x1b[>1u\x1b[>3u\x1b[<u");
        assert_eq!(t.keyboard().kitty_flags(0), 1);
        let t = term(b"\x1b[>1u\x1b[<5u");
        assert_eq!(
            t.keyboard().kitty_flags(0),
            0,
            "popping past the bottom empties it"
        );
        let t = term(b"\x1b[>1u\x1b[=4;2u");
        assert_eq!(t.keyboard().kitty_flags(0), 5, "mode 2 adds");
        let t = term(b"\x1b[>7u\x1b[=2;3u");
        assert_eq!(t.keyboard().kitty_flags(0), 5, "mode 3 removes");
        let t = term(b"\x1b[>7u\x1b[=8u");
        assert_eq!(
            t.keyboard().kitty_flags(0),
            8,
            "mode 1 (the default) replaces"
        );
        let t = term(b"\x1b[=1u");
        assert_eq!(
            t.keyboard().kitty_flags(0),
            1,
            "setting with nothing pushed"
        );
        let t = term(b"\x1b[>255u");
        assert_eq!(
            t.keyboard().kitty_flags(0),
            31,
            "undefined flags are dropped"
        );
    }

    #[test]
    fn each_screen_has_its_own_stack_and_reset_clears_both() {
        let t = term(b"\x1b[>1u\x1b[?1049h\x1b[>8u");
        assert_eq!(t.keyboard().kitty_flags(0), 1);
        assert_eq!(t.keyboard().kitty_flags(1), 8);
        let t = term(b"\x1b[>1u\x1b[?1049h\x1b[>8u\x1b[?1049l\x1b[<u");
        assert_eq!(
            (t.keyboard().kitty_flags(0), t.keyboard().kitty_flags(1)),
            (0, 8)
        );
        let t = term(b"\x1b[>1u\x1b[>4;2m\x1bc");
        assert_eq!(t.keyboard(), &Keyboard::default());
    }

    #[test]
    fn a_full_stack_drops_its_oldest_entry() {
        let mut bytes = Vec::new();
        for flags in 1..=STACK_MAX + 4 {
            bytes.extend_from_slice(format!("\x1b[>{}u", flags % 32).as_bytes());
        }
        let mut t = term(&bytes);
        for _ in 0..STACK_MAX - 1 {
            t.process(b"\x1b[<u", &mut Record::default());
        }
        assert_eq!(
            t.keyboard().kitty_flags(0),
            5,
            "the 5th push is the oldest kept"
        );
    }

    #[test]
    fn modify_other_keys_levels() {
        assert_eq!(term(b"\x1b[>4;2m").keyboard().modify_other_keys(), 2);
        assert_eq!(term(b"\x1b[>4;1m").keyboard().modify_other_keys(), 1);
        assert_eq!(
            term(b"\x1b[>4;2m\x1b[>4m").keyboard().modify_other_keys(),
            0
        );
        assert_eq!(
            term(b"\x1b[>4;2m\x1b[>4n").keyboard().modify_other_keys(),
            0
        );
        assert_eq!(
            term(b"\x1b[>1;2m").keyboard().modify_other_keys(),
            0,
            "another resource"
        );
        // Not SGR: the pen stays plain.
        let t = term(b"\x1b[>4;1mx");
        assert_eq!(t.cell(0, 0).map(|c| c.style()), Some(Default::default()));
    }

    #[test]
    fn a_repaint_brings_a_fresh_terminal_into_the_same_protocols() {
        for bytes in [
            &b"\x1b[>1u\x1b[>3u\x1b[>4;2m"[..],
            b"\x1b[>1u\x1b[?1049h\x1b[>11u\x1b[=4;2u",
        ] {
            let original = term(bytes);
            let copy = term(&original.repaint());
            assert_eq!(
                (
                    original.keyboard().kitty_flags(0),
                    original.keyboard().kitty_flags(1),
                    original.keyboard().modify_other_keys()
                ),
                (
                    copy.keyboard().kitty_flags(0),
                    copy.keyboard().kitty_flags(1),
                    copy.keyboard().modify_other_keys()
                ),
                "{bytes:?}"
            );
        }
    }
}
