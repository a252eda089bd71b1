//! Keys, pastes and mouse events as the bytes a program in a pane expects, decided by the modes
//! the program set in its terminal (the pane's model knows them: application cursor keys,
//! bracketed paste, mouse reporting and its encoding) — never by guessing from `TERM`.
//!
//! Keys also follow the keyboard protocol the program pushed (kitty flags, modifyOtherKeys):
//! see [`keys`].

mod keys;

use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use signaltty_term::vt::{Modes, MouseEncoding, MouseMode};

pub use keys::{KeyProtocol, key};

/// Pasted text, bracketed when the program asked for it.
pub fn paste(text: &str, modes: &Modes) -> Vec<u8> {
    // A pasted end-bracket must not end the paste early.
    let text = text.replace("\x1b[201~", "");
    if modes.bracketed_paste {
        format!("\x1b[200~{text}\x1b[201~").into_bytes()
    } else {
        text.into_bytes()
    }
}

/// A mouse event at (`col`, `row`) of the pane (0-based), if the program's mouse mode wants it.
pub fn mouse(event: &MouseEvent, col: u16, row: u16, modes: &Modes) -> Option<Vec<u8>> {
    let (button, release) = match event.kind {
        MouseEventKind::Down(b) => (button_code(b), false),
        MouseEventKind::Up(b) => (button_code(b), true),
        MouseEventKind::Drag(b) => (button_code(b) + 32, false),
        MouseEventKind::Moved => (35, false),
        MouseEventKind::ScrollUp => (64, false),
        MouseEventKind::ScrollDown => (65, false),
        _ => return None,
    };
    let wanted = match modes.mouse {
        MouseMode::Off => false,
        MouseMode::Press => {
            !release && !matches!(event.kind, MouseEventKind::Drag(_) | MouseEventKind::Moved)
        }
        MouseMode::PressRelease => {
            !matches!(event.kind, MouseEventKind::Drag(_) | MouseEventKind::Moved)
        }
        MouseMode::ButtonMotion => !matches!(event.kind, MouseEventKind::Moved),
        MouseMode::AnyMotion => true,
    };
    if !wanted {
        return None;
    }
    let mods = u16::from(event.modifiers.contains(KeyModifiers::SHIFT)) * 4
        + u16::from(event.modifiers.contains(KeyModifiers::ALT)) * 8
        + u16::from(event.modifiers.contains(KeyModifiers::CONTROL)) * 16;
    let code = u16::from(button) + mods;
    let (x, y) = (u32::from(col) + 1, u32::from(row) + 1);
    match modes.mouse_encoding {
        MouseEncoding::Sgr => {
            Some(format!("\x1b[<{code};{x};{y}{}", if release { 'm' } else { 'M' }).into_bytes())
        }
        _ => {
            // X10 encoding: a release is button 3; coordinates beyond 223 cannot be sent.
            let code = if release { 3 + mods } else { code };
            let cx = u8::try_from(x + 32).ok()?;
            let cy = u8::try_from(y + 32).ok()?;
            Some(vec![
                0x1b,
                b'[',
                b'M',
                u8::try_from(code + 32).ok()?,
                cx,
                cy,
            ])
        }
    }
}

fn button_code(button: MouseButton) -> u8 {
    match button {
        MouseButton::Left => 0,
        MouseButton::Middle => 1,
        MouseButton::Right => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pastes_are_bracketed_only_when_asked() {
        let mut modes = Modes::default();
        assert_eq!(paste("hi", &modes), b"hi");
        modes.bracketed_paste = true;
        assert_eq!(paste("a\x1b[201~b", &modes), b"\x1b[200~ab\x1b[201~");
    }

    #[test]
    fn mouse_goes_through_only_in_the_mode_and_encoding_asked_for() {
        let click = MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 0,
            row: 0,
            modifiers: KeyModifiers::NONE,
        };
        let mut modes = Modes::default();
        assert_eq!(mouse(&click, 4, 2, &modes), None);
        modes.mouse = MouseMode::PressRelease;
        assert_eq!(
            mouse(&click, 4, 2, &modes),
            Some(vec![0x1b, b'[', b'M', 32, 37, 35])
        );
        modes.mouse_encoding = MouseEncoding::Sgr;
        assert_eq!(
            mouse(&click, 4, 2, &modes).as_deref(),
            Some(&b"\x1b[<0;5;3M"[..])
        );
        let drag = MouseEvent {
            kind: MouseEventKind::Drag(MouseButton::Left),
            ..click
        };
        assert_eq!(
            mouse(&drag, 4, 2, &modes),
            None,
            "PressRelease has no motion"
        );
    }
}
