//! The TUI's part of the user's config file, read through `signaltty-config` like every other
//! part of signaltty: the file is `--config PATH`, else `$SIGNALTTY_CONFIG`, else
//! `$XDG_CONFIG_HOME/signaltty/config.toml` (else `~/.config/signaltty/config.toml`). The whole
//! file is checked (a mistake in another section is reported as `signaltty config check`
//! would), then the TUI reads its own `[tui]` section from the same text with its spanned types,
//! so its errors carry their lines too. A missing file at the default place means the shipped
//! defaults; a path named with `--config` must exist.

use std::path::{Path, PathBuf};

use crate::keymap::{ConfigError, Keymap};

/// Why the config cannot be used: every problem, ready to print.
#[derive(Debug)]
pub struct Refused(pub String);

/// What the TUI takes from the config file.
#[derive(Debug)]
pub struct Loaded {
    /// The keymap (and the other `[tui]` settings it carries).
    pub keymap: Keymap,
    /// The file read, `None` without one (the defaults).
    pub path: Option<PathBuf>,
    /// `[fast_paths]`: server painting, lent keys, direct input.
    pub fast_paths: signaltty_config::FastPaths,
}

/// The keymap and fast paths from the config file: `explicit` (from `--config`, which must
/// exist) or the default path (the shipped keymap when there is no file).
pub fn load(explicit: Option<&Path>) -> Result<Loaded, Refused> {
    let signaltty_config::Location { path, missing } = signaltty_config::locate(explicit);
    let loaded = signaltty_config::load(&path, missing).map_err(|p| Refused(p.to_string()))?;
    let keymap =
        Keymap::from_config(&loaded.source).map_err(|errors| Refused(report(&path, &errors)))?;
    Ok(Loaded {
        keymap,
        path: loaded.path,
        fast_paths: loaded.config.fast_paths,
    })
}

/// The report printed for a bad `[tui]` section: one line per error, `path:line: message`.
pub fn report(path: &Path, errors: &[ConfigError]) -> String {
    errors
        .iter()
        .map(|e| format!("{}:{}: {}", path.display(), e.line, e.message))
        .collect::<Vec<_>>()
        .join("\n")
}
