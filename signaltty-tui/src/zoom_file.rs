//! Zoom kept across detaching: the server's layouts have no zoom (it is this client's view), so
//! the TUI keeps its zoomed panes in a small file of its own, `tui-zoom` in the state directory
//! (`$SIGNALTTY_STATE_DIR`, else `$XDG_STATE_HOME/signaltty`, else
//! `~/.local/state/signaltty`): one `tab_id pane_id` line per zoomed tab, written when the TUI
//! ends and read when it starts. A zoom whose tab or pane is gone by then is ignored
//! (`moves::zoomed` checks the tab still holds the pane). The file is a convenience: failing
//! to read or write it costs only the zoom.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where the file is, when a state directory can be named.
pub fn path() -> Option<PathBuf> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let dir = env("SIGNALTTY_STATE_DIR")
        .map(PathBuf::from)
        .or_else(|| env("XDG_STATE_HOME").map(|d| PathBuf::from(d).join("signaltty")))
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".local/state/signaltty")))?;
    Some(dir.join("tui-zoom"))
}

/// The zoomed panes by tab, as last saved (empty when there is no file).
pub fn load(path: &Path) -> HashMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(tab, pane)| (tab.to_owned(), pane.to_owned()))
        .collect()
}

/// Saves the zoomed panes (the file is removed when nothing is zoomed).
pub fn save(path: &Path, zoomed: &HashMap<String, String>) -> std::io::Result<()> {
    if zoomed.is_empty() {
        return match std::fs::remove_file(path) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
            _ => Ok(()),
        };
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut lines: Vec<String> = zoomed.iter().map(|(t, p)| format!("{t} {p}\n")).collect();
    lines.sort();
    std::fs::write(path, lines.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoom_round_trips_and_nothing_zoomed_removes_the_file() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("state/tui-zoom");
        assert!(load(&path).is_empty());
        let zoomed = HashMap::from([("tab_1".to_owned(), "pane_2".to_owned())]);
        save(&path, &zoomed).expect("save");
        assert_eq!(load(&path), zoomed);
        save(&path, &HashMap::new()).expect("save empty");
        assert!(!path.exists());
    }
}
