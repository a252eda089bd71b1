//! Codex reads hooks from `hooks.json` *and* from inline `[hooks]` tables of `config.toml` in
//! the same directory, and warns at every start when one layer has both. A user who keeps their
//! hooks inline must not get a `hooks.json` written beside them behind their back: the installer
//! refuses and says what to do instead (rewriting `config.toml`, with its comments and layout, is
//! not something we do to a file that is the user's).
//!
//! `[hooks.state]` does not count: Codex writes its per-hook trust there itself.

use std::path::{Path, PathBuf};

/// The `config.toml` beside a Codex `hooks.json`, when it keeps hooks inline: the event names
/// it configures there. `None` when there is no such file, it holds no inline hooks, or it
/// cannot be read as TOML (Codex itself then refuses it; that is not ours to report).
pub fn inline_hook_events(hooks_json: &Path) -> Option<(PathBuf, Vec<String>)> {
    let config = hooks_json.with_file_name("config.toml");
    let text = std::fs::read_to_string(&config).ok()?;
    let table: toml::Table = text.parse().ok()?;
    let hooks = table.get("hooks")?;
    let events: Vec<String> = match hooks {
        toml::Value::Table(t) => t.keys().filter(|k| *k != "state").cloned().collect(),
        // A legacy `[[hooks]]` array: inline hooks all the same.
        _ => vec!["hooks".to_owned()],
    };
    (!events.is_empty()).then_some((config, events))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_config(text: &str) -> Option<(PathBuf, Vec<String>)> {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("config.toml"), text).expect("write");
        inline_hook_events(&dir.path().join("hooks.json"))
            .map(|(_, events)| (PathBuf::new(), events))
    }

    #[test]
    fn only_real_hook_tables_count() {
        assert_eq!(with_config("model = \"o4\"\n"), None);
        assert_eq!(
            with_config("[hooks.state]\n\"a:b\" = { trusted_hash = \"x\" }\n"),
            None
        );
        let found = with_config(
            "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"true\"\n",
        );
        assert_eq!(found.map(|(_, e)| e), Some(vec!["Stop".to_owned()]));
        assert_eq!(with_config("not = [valid"), None);
    }
}
