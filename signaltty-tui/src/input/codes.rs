//! The codes both input parsers decode (the sequence parser, `parse.rs`, and the CSI reader,
//! `csi.rs`): a cursor key's final letter, xterm mouse button codes, modifier parameters, kitty
//! event types and functional key codes. Below both, so neither imports the other back.

use crossterm::event::{
    Event, KeyCode, KeyEventKind, KeyEventState, KeyModifiers, MediaKeyCode, ModifierKeyCode,
    MouseButton, MouseEvent, MouseEventKind,
};

/// The key of a cursor/function key's final letter (`CSI 1;m X` and `SS3 X`).
pub(super) fn letter_key(last: u8) -> Option<KeyCode> {
    Some(match last {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'E' => KeyCode::KeypadBegin,
        b'P' => KeyCode::F(1),
        b'Q' => KeyCode::F(2),
        b'R' => KeyCode::F(3),
        b'S' => KeyCode::F(4),
        _ => return None,
    })
}

/// A mouse event from an xterm button code (`b`: button, modifiers, motion, wheel).
pub(super) fn mouse_event(b: u16, column: u16, row: u16, release: bool) -> Option<Event> {
    let mut modifiers = KeyModifiers::NONE;
    if b & 4 != 0 {
        modifiers |= KeyModifiers::SHIFT;
    }
    if b & 8 != 0 {
        modifiers |= KeyModifiers::ALT;
    }
    if b & 16 != 0 {
        modifiers |= KeyModifiers::CONTROL;
    }
    let button = match b & 0b11 {
        0 => Some(MouseButton::Left),
        1 => Some(MouseButton::Middle),
        2 => Some(MouseButton::Right),
        _ => None,
    };
    let kind = if b & 64 != 0 {
        match b & 0b11 {
            0 => MouseEventKind::ScrollUp,
            1 => MouseEventKind::ScrollDown,
            2 => MouseEventKind::ScrollLeft,
            _ => MouseEventKind::ScrollRight,
        }
    } else if b & 32 != 0 {
        button.map_or(MouseEventKind::Moved, MouseEventKind::Drag)
    } else if release {
        // X10 does not say which button went up: crossterm reports Left.
        MouseEventKind::Up(button.unwrap_or(MouseButton::Left))
    } else {
        MouseEventKind::Down(button?)
    };
    Some(Event::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers,
    }))
}

/// The modifiers and lock state of a protocol modifier parameter (1 + bits).
pub(super) fn modifiers(param: u32) -> (KeyModifiers, KeyEventState) {
    let bits = param.saturating_sub(1);
    let mut m = KeyModifiers::NONE;
    for (bit, flag) in [
        (1, KeyModifiers::SHIFT),
        (2, KeyModifiers::ALT),
        (4, KeyModifiers::CONTROL),
        (8, KeyModifiers::SUPER),
        (16, KeyModifiers::HYPER),
        (32, KeyModifiers::META),
    ] {
        if bits & bit != 0 {
            m |= flag;
        }
    }
    let mut state = KeyEventState::NONE;
    if bits & 64 != 0 {
        state |= KeyEventState::CAPS_LOCK;
    }
    if bits & 128 != 0 {
        state |= KeyEventState::NUM_LOCK;
    }
    (m, state)
}

/// The event type of a kitty event sub-parameter (1 or absent press, 2 repeat, 3 release).
pub(super) fn kind(event: Option<u32>) -> KeyEventKind {
    match event {
        Some(2) => KeyEventKind::Repeat,
        Some(3) => KeyEventKind::Release,
        _ => KeyEventKind::Press,
    }
}

/// The key of a kitty functional key code in the private-use area, with the keypad flag.
pub(super) fn kitty_functional(code: u32) -> Option<(KeyCode, bool)> {
    let keypad = |k| Some((k, true));
    match code {
        57358 => Some((KeyCode::CapsLock, false)),
        57359 => Some((KeyCode::ScrollLock, false)),
        57360 => Some((KeyCode::NumLock, false)),
        57361 => Some((KeyCode::PrintScreen, false)),
        57362 => Some((KeyCode::Pause, false)),
        57363 => Some((KeyCode::Menu, false)),
        57376..=57398 => Some((KeyCode::F(u8::try_from(code - 57376 + 13).ok()?), false)),
        57399..=57408 => keypad(KeyCode::Char(char::from_digit(code - 57399, 10)?)),
        57409 => keypad(KeyCode::Char('.')),
        57410 => keypad(KeyCode::Char('/')),
        57411 => keypad(KeyCode::Char('*')),
        57412 => keypad(KeyCode::Char('-')),
        57413 => keypad(KeyCode::Char('+')),
        57414 => keypad(KeyCode::Enter),
        57415 => keypad(KeyCode::Char('=')),
        57416 => keypad(KeyCode::Char(',')),
        57417 => keypad(KeyCode::Left),
        57418 => keypad(KeyCode::Right),
        57419 => keypad(KeyCode::Up),
        57420 => keypad(KeyCode::Down),
        57421 => keypad(KeyCode::PageUp),
        57422 => keypad(KeyCode::PageDown),
        57423 => keypad(KeyCode::Home),
        57424 => keypad(KeyCode::End),
        57425 => keypad(KeyCode::Insert),
        57426 => keypad(KeyCode::Delete),
        57427 => keypad(KeyCode::KeypadBegin),
        57428..=57440 => {
            let media = [
                MediaKeyCode::Play,
                MediaKeyCode::Pause,
                MediaKeyCode::PlayPause,
                MediaKeyCode::Reverse,
                MediaKeyCode::Stop,
                MediaKeyCode::FastForward,
                MediaKeyCode::Rewind,
                MediaKeyCode::TrackNext,
                MediaKeyCode::TrackPrevious,
                MediaKeyCode::Record,
                MediaKeyCode::LowerVolume,
                MediaKeyCode::RaiseVolume,
                MediaKeyCode::MuteVolume,
            ];
            Some((KeyCode::Media(media[(code - 57428) as usize]), false))
        }
        57441..=57454 => {
            let modifier = [
                ModifierKeyCode::LeftShift,
                ModifierKeyCode::LeftControl,
                ModifierKeyCode::LeftAlt,
                ModifierKeyCode::LeftSuper,
                ModifierKeyCode::LeftHyper,
                ModifierKeyCode::LeftMeta,
                ModifierKeyCode::RightShift,
                ModifierKeyCode::RightControl,
                ModifierKeyCode::RightAlt,
                ModifierKeyCode::RightSuper,
                ModifierKeyCode::RightHyper,
                ModifierKeyCode::RightMeta,
                ModifierKeyCode::IsoLevel3Shift,
                ModifierKeyCode::IsoLevel5Shift,
            ];
            Some((KeyCode::Modifier(modifier[(code - 57441) as usize]), false))
        }
        _ => None,
    }
}
