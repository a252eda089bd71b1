//! The `[tui]` settings that are not key bindings: `copy_keys` (copy mode's movement keys,
//! tmux's `mode-keys`) and `notify` (what a pane's bell or notification does on the outer
//! terminal). Read from the same config text as the keymap, with the same line-numbered errors.

use serde::Deserialize;
use toml::Spanned;

/// One problem in the config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// 1-based line (0 when unknown).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Which movement keys copy mode takes (`[tui] copy_keys`; tmux's `mode-keys`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CopyKeys {
    /// `h j k l`, `w b e`, `0 $`, `g G`, `v V C-v`, `/ ?`, `y`.
    #[default]
    Vi,
    /// `C-f C-b C-n C-p`, `M-f M-b`, `C-a C-e`, `M-< M->`, `C-space`, `C-s C-r`, `M-w`.
    Emacs,
}

impl std::str::FromStr for CopyKeys {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "vi" => Ok(CopyKeys::Vi),
            "emacs" => Ok(CopyKeys::Emacs),
            other => Err(format!(
                "copy_keys must be \"vi\" or \"emacs\", not {other:?}"
            )),
        }
    }
}

/// What reaches the outer terminal when a pane rings its bell or posts a notification.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Notify {
    /// Nothing (the tab and sidebar flags still show it).
    Off,
    /// A bell (BEL): the outer terminal or tmux decides how it looks.
    Bell,
    /// A desktop notification (OSC 9 and OSC 777) with the pane's text, and a bell.
    #[default]
    Notify,
}

impl std::str::FromStr for Notify {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(Notify::Off),
            "bell" => Ok(Notify::Bell),
            "notify" => Ok(Notify::Notify),
            other => Err(format!(
                "notify must be \"off\", \"bell\" or \"notify\", not {other:?}"
            )),
        }
    }
}

/// The settings, defaults where the file says nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TuiOptions {
    /// Copy mode's keys.
    pub copy_keys: CopyKeys,
    /// The outer terminal's alerts.
    pub notify: Notify,
}

#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    tui: Option<Section>,
}

#[derive(Deserialize, Default)]
struct Section {
    copy_keys: Option<Spanned<String>>,
    notify: Option<Spanned<String>>,
}

impl TuiOptions {
    /// Reads the settings from the config file's text; every mistake with its line.
    pub fn from_config(text: &str) -> Result<TuiOptions, Vec<ConfigError>> {
        let line_of = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
        let file: File = toml::from_str(text).map_err(|err| {
            vec![ConfigError {
                line: err.span().map(|s| line_of(s.start)).unwrap_or(0),
                message: err.message().to_owned(),
            }]
        })?;
        let section = file.tui.unwrap_or_default();
        let mut errors = Vec::new();
        let mut options = TuiOptions::default();
        if let Some(v) = &section.copy_keys {
            match v.get_ref().parse() {
                Ok(keys) => options.copy_keys = keys,
                Err(message) => errors.push(ConfigError {
                    line: line_of(v.span().start),
                    message,
                }),
            }
        }
        if let Some(v) = &section.notify {
            match v.get_ref().parse() {
                Ok(notify) => options.notify = notify,
                Err(message) => errors.push(ConfigError {
                    line: line_of(v.span().start),
                    message,
                }),
            }
        }
        if errors.is_empty() {
            Ok(options)
        } else {
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_then_values_then_mistakes_with_their_lines() {
        assert_eq!(TuiOptions::from_config("").unwrap(), TuiOptions::default());
        let o =
            TuiOptions::from_config("[tui]\ncopy_keys = \"emacs\"\nnotify = \"bell\"\n").unwrap();
        assert_eq!((o.copy_keys, o.notify), (CopyKeys::Emacs, Notify::Bell));
        let errors =
            TuiOptions::from_config("[tui]\ncopy_keys = \"ed\"\nnotify = \"loud\"\n").unwrap_err();
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![2, 3]);
        assert!(errors[0].message.contains("\"vi\" or \"emacs\""));
    }
}
