//! `Modes`: the terminal modes a program sets that change how keys, mouse and the cursor behave
//! for the user's terminal, so a client attaching later must be put in the same modes.

use std::fmt::Write as _;

/// Which mouse events the program asked for (DEC private modes 9, 1000, 1002, 1003).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MouseMode {
    #[default]
    Off,
    Press = 9,
    PressRelease = 1000,
    ButtonMotion = 1002,
    AnyMotion = 1003,
}

/// How mouse events are encoded (modes 1005, 1006).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MouseEncoding {
    #[default]
    Default,
    Utf8 = 1005,
    Sgr = 1006,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modes {
    /// DECCKM (`?1`): cursor keys send `ESC O x`.
    pub application_cursor: bool,
    /// DECKPAM (`ESC =`).
    pub application_keypad: bool,
    /// `?2004`.
    pub bracketed_paste: bool,
    /// `?1004`: focus in/out reports.
    pub focus_events: bool,
    /// DECTCEM (`?25`).
    pub cursor_visible: bool,
    /// DECAWM (`?7`): text wraps at the last column.
    pub autowrap: bool,
    /// DECOM (`?6`): cursor addressing is relative to the scroll region.
    pub origin: bool,
    /// IRM (`4`): printed characters shift the rest of the row right.
    pub insert: bool,
    pub mouse: MouseMode,
    pub mouse_encoding: MouseEncoding,
    /// DECSCUSR parameter (0 = the terminal's default shape).
    pub cursor_style: u8,
}

impl Default for Modes {
    fn default() -> Self {
        Self {
            application_cursor: false,
            application_keypad: false,
            bracketed_paste: false,
            focus_events: false,
            cursor_visible: true,
            autowrap: true,
            origin: false,
            insert: false,
            mouse: MouseMode::Off,
            mouse_encoding: MouseEncoding::Default,
            cursor_style: 0,
        }
    }
}

impl Modes {
    /// Applies DEC private mode `mode` (`CSI ? mode h/l`) except those that move the cursor or
    /// switch screens, which the emulator handles; unknown modes are ignored.
    pub fn set_private(&mut self, mode: u16, on: bool) {
        match mode {
            1 => self.application_cursor = on,
            7 => self.autowrap = on,
            25 => self.cursor_visible = on,
            1004 => self.focus_events = on,
            2004 => self.bracketed_paste = on,
            9 | 1000 | 1002 | 1003 => {
                let asked = match mode {
                    9 => MouseMode::Press,
                    1000 => MouseMode::PressRelease,
                    1002 => MouseMode::ButtonMotion,
                    _ => MouseMode::AnyMotion,
                };
                // One setting with four values, as in xterm and tmux: resetting any of them
                // ends tracking, whichever is on (a program that set 1003 and resets 1000 on
                // exit must not leave the mouse reporting).
                self.mouse = if on { asked } else { MouseMode::Off };
            }
            1005 | 1006 => {
                let asked = if mode == 1005 {
                    MouseEncoding::Utf8
                } else {
                    MouseEncoding::Sgr
                };
                if on {
                    self.mouse_encoding = asked;
                } else if self.mouse_encoding == asked {
                    self.mouse_encoding = MouseEncoding::Default;
                }
            }
            _ => {}
        }
    }

    /// Sequences that put a fresh terminal into these modes (cursor position and origin mode
    /// excepted: the repaint sets those itself, as both move the cursor).
    pub fn write_input_modes(&self, out: &mut String) {
        if self.application_cursor {
            out.push_str("\x1b[?1h");
        }
        if self.application_keypad {
            out.push_str("\x1b=");
        }
        if self.bracketed_paste {
            out.push_str("\x1b[?2004h");
        }
        if self.focus_events {
            out.push_str("\x1b[?1004h");
        }
        if self.mouse != MouseMode::Off {
            let _ = write!(out, "\x1b[?{}h", self.mouse as u16);
        }
        if self.mouse_encoding != MouseEncoding::Default {
            let _ = write!(out, "\x1b[?{}h", self.mouse_encoding as u16);
        }
        if !self.autowrap {
            out.push_str("\x1b[?7l");
        }
        if self.insert {
            out.push_str("\x1b[4h");
        }
        if self.cursor_style != 0 {
            let _ = write!(out, "\x1b[{} q", self.cursor_style);
        }
        if !self.cursor_visible {
            out.push_str("\x1b[?25l");
        }
    }
}
