//! A small key language for tests: `"ctrl-a % i echo <space> hi <enter>"`. Words are separated
//! by spaces; a word that is a canonical key (`ctrl-w`, `g`, `%`, `f5`) is that key, `<name>` is
//! a named key (`<enter>`, `<esc>`, `<space>`, `<tab>`), and any other word is typed character by
//! character.

use std::time::Instant;

use crossterm::event::KeyEvent;

use crate::app::{App, Effect, Msg};
use crate::keys::event_of;
use crate::update::update;

/// The key events a DSL string stands for.
pub fn keys(script: &str) -> Vec<KeyEvent> {
    let mut out = Vec::new();
    for word in script.split_whitespace() {
        if let Some(name) = word.strip_prefix('<').and_then(|w| w.strip_suffix('>'))
            && let Some(key) = event_of(name)
        {
            out.push(key);
        } else if let Some(key) = event_of(word) {
            out.push(key);
        } else {
            out.extend(word.chars().filter_map(|c| event_of(&c.to_string())));
        }
    }
    out
}

/// Feeds a DSL string to `update`, all at `now`; returns every effect in order.
pub fn press(app: &mut App, script: &str, now: Instant) -> Vec<Effect> {
    keys(script)
        .into_iter()
        .flat_map(|key| update(app, Msg::Key(key), now))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::token_of;

    #[test]
    fn words_are_keys_or_typed_text() {
        let tokens: Vec<String> = keys("ctrl-a % i echo <space> hi <enter>")
            .iter()
            .filter_map(token_of)
            .collect();
        assert_eq!(
            tokens,
            [
                "ctrl-a", "%", "i", "e", "c", "h", "o", "space", "h", "i", "enter"
            ]
        );
    }
}
