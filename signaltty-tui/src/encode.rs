//! Keys, pastes and mouse events as the bytes a program in a pane expects, decided by the modes
//! the program set in its terminal (the pane's model knows them: application cursor keys,
//! bracketed paste, mouse reporting and its encoding) — never by guessing from `TERM`.
//!
//! Not covered: the kitty keyboard protocol's extended encodings (keys are sent the legacy way,
//! which every program that asks for the protocol also understands).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use signaltty_term::vt::{Modes, MouseEncoding, MouseMode};

/// The bytes of a key press; empty for keys with no encoding.
pub fn key(event: &KeyEvent, modes: &Modes) -> Vec<u8> {
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    let alt = event.modifiers.contains(KeyModifiers::ALT);
    let shift = event.modifiers.contains(KeyModifiers::SHIFT);
    // xterm's modifier parameter: 1 + shift + 2·alt + 4·ctrl.
    let param = 1 + u8::from(shift) + 2 * u8::from(alt) + 4 * u8::from(ctrl);
    let cursor = |letter: u8| -> Vec<u8> {
        if param > 1 {
            format!("\x1b[1;{param}{}", letter as char).into_bytes()
        } else if modes.application_cursor {
            vec![0x1b, b'O', letter]
        } else {
            vec![0x1b, b'[', letter]
        }
    };
    let tilde = |n: u8| -> Vec<u8> {
        if param > 1 {
            format!("\x1b[{n};{param}~").into_bytes()
        } else {
            format!("\x1b[{n}~").into_bytes()
        }
    };
    let mut out = match event.code {
        KeyCode::Char(c) if ctrl => match c.to_ascii_lowercase() {
            l @ 'a'..='z' => vec![l as u8 & 0x1f],
            '@' | ' ' | '2' => vec![0],
            '[' | '3' => vec![0x1b],
            '\\' | '4' => vec![0x1c],
            ']' | '5' => vec![0x1d],
            '^' | '6' => vec![0x1e],
            '_' | '/' | '7' => vec![0x1f],
            '?' | '8' => vec![0x7f],
            other => other.to_string().into_bytes(),
        },
        KeyCode::Char(c) => c.to_string().into_bytes(),
        KeyCode::Enter => vec![b'\r'],
        KeyCode::Tab => vec![b'\t'],
        KeyCode::BackTab => b"\x1b[Z".to_vec(),
        KeyCode::Backspace => vec![0x7f],
        KeyCode::Esc => vec![0x1b],
        KeyCode::Up => cursor(b'A'),
        KeyCode::Down => cursor(b'B'),
        KeyCode::Right => cursor(b'C'),
        KeyCode::Left => cursor(b'D'),
        KeyCode::Home => cursor(b'H'),
        KeyCode::End => cursor(b'F'),
        KeyCode::Insert => tilde(2),
        KeyCode::Delete => tilde(3),
        KeyCode::PageUp => tilde(5),
        KeyCode::PageDown => tilde(6),
        KeyCode::F(n @ 1..=4) => vec![0x1b, b'O', b'P' + (n - 1)],
        KeyCode::F(n @ 5..=12) => tilde([15, 17, 18, 19, 20, 21, 23, 24][usize::from(n - 5)]),
        _ => Vec::new(),
    };
    // Alt prefixes ESC to plain keys (the "meta sends escape" convention).
    if alt
        && matches!(
            event.code,
            KeyCode::Char(_) | KeyCode::Enter | KeyCode::Backspace
        )
    {
        out.insert(0, 0x1b);
    }
    out
}

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

    fn k(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn keys_follow_the_programs_modes() {
        let normal = Modes::default();
        let app = Modes {
            application_cursor: true,
            ..Modes::default()
        };
        let none = KeyModifiers::NONE;
        assert_eq!(key(&k(KeyCode::Up, none), &normal), b"\x1b[A");
        assert_eq!(key(&k(KeyCode::Up, none), &app), b"\x1bOA");
        assert_eq!(
            key(&k(KeyCode::Up, KeyModifiers::CONTROL), &app),
            b"\x1b[1;5A"
        );
        assert_eq!(
            key(&k(KeyCode::Char('c'), KeyModifiers::CONTROL), &normal),
            [3]
        );
        assert_eq!(
            key(&k(KeyCode::Char('x'), KeyModifiers::ALT), &normal),
            b"\x1bx"
        );
        assert_eq!(key(&k(KeyCode::Enter, none), &normal), b"\r");
        assert_eq!(key(&k(KeyCode::F(5), none), &normal), b"\x1b[15~");
        assert_eq!(key(&k(KeyCode::Char('é'), none), &normal), "é".as_bytes());
    }

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
