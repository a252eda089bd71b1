//! The TUI's part of the user's config file: `$XDG_CONFIG_HOME/signaltty/config.toml` (else
//! `~/.config/signaltty/config.toml`), section `[tui]`. Other sections belong to other parts of
//! signaltty and are ignored here. A missing file means the shipped defaults.

use std::path::{Path, PathBuf};

use crate::keymap::{ConfigError, Keymap};

/// The config file's path.
pub fn path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("signaltty").join("config.toml"))
}

/// The keymap from the file at `path` (the defaults when it does not exist).
pub fn load_keymap(path: Option<&Path>) -> Result<Keymap, Vec<ConfigError>> {
    let Some(path) = path else {
        return Ok(Keymap::default());
    };
    match std::fs::read_to_string(path) {
        Ok(text) => Keymap::from_config(&text),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Keymap::default()),
        Err(err) => Err(vec![ConfigError {
            line: 0,
            message: format!("cannot read the file: {err}"),
        }]),
    }
}

/// The report printed for a bad config: one line per error, `path:line: message`.
pub fn report(path: &Path, errors: &[ConfigError]) -> String {
    errors
        .iter()
        .map(|e| format!("{}:{}: {}", path.display(), e.line, e.message))
        .collect::<Vec<_>>()
        .join("\n")
}
