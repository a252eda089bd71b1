//! A text field being edited (prompts, forms, filters) and the keys that edit it: below the
//! app state that holds fields and the overlays that route keys to them.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A text field being edited.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Field {
    /// The text.
    pub text: String,
}

/// Edits a text field; returns whether the key was an edit.
pub fn edit(field: &mut Field, key: &KeyEvent) -> bool {
    match key.code {
        KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => field.text.clear(),
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => field.text.push(c),
        KeyCode::Backspace => {
            field.text.pop();
        }
        _ => return false,
    }
    true
}
