//! `[server] window_size`: how a pane's size is chosen when several clients show it, as tmux's
//! `window-size` option: the size of the client that was active last (`latest`, the default),
//! or the largest or smallest size among them.

use std::fmt;

use serde::Serialize;

/// How the sizes of a pane's clients make its size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WindowSize {
    /// The size of the client that typed (or attached) last.
    #[default]
    Latest,
    /// The largest columns and rows among the clients.
    Largest,
    /// The smallest columns and rows among the clients.
    Smallest,
}

impl WindowSize {
    /// Every value, in the order they are listed to users.
    pub const ALL: [WindowSize; 3] = [
        WindowSize::Latest,
        WindowSize::Largest,
        WindowSize::Smallest,
    ];

    /// The name used in the file.
    pub fn name(self) -> &'static str {
        match self {
            WindowSize::Latest => "latest",
            WindowSize::Largest => "largest",
            WindowSize::Smallest => "smallest",
        }
    }
}

impl std::str::FromStr for WindowSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        WindowSize::ALL
            .into_iter()
            .find(|w| w.name() == text)
            .ok_or_else(|| {
                format!(
                    "unknown window size {text:?}: expected \"latest\", \"largest\" or \"smallest\""
                )
            })
    }
}

impl fmt::Display for WindowSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for WindowSize {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_parses_and_prints_back_and_others_are_refused_with_the_allowed_values() {
        for w in WindowSize::ALL {
            assert_eq!(w.name().parse::<WindowSize>(), Ok(w));
            assert_eq!(w.to_string(), w.name());
        }
        assert_eq!(WindowSize::default(), WindowSize::Latest);
        let err = "biggest".parse::<WindowSize>().expect_err("refused");
        assert_eq!(
            err,
            "unknown window size \"biggest\": expected \"latest\", \"largest\" or \"smallest\""
        );
        assert!("Latest".parse::<WindowSize>().is_err(), "names are exact");
    }

    #[test]
    fn the_file_key_is_parsed_and_a_bad_value_names_the_key() {
        let config = crate::parse("[server]\nwindow_size = \"smallest\"\n").expect("valid");
        assert_eq!(config.server.window_size, Some(WindowSize::Smallest));
        assert_eq!(crate::parse("").expect("empty").server.window_size, None);
        let problems = crate::parse("[server]\nwindow_size = \"huge\"\n").expect_err("refused");
        let text = problems
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(text.contains("server.window_size"), "{text}");
        assert!(
            text.contains("\"latest\", \"largest\" or \"smallest\""),
            "{text}"
        );
        assert!(crate::parse("[server]\nwindow_size = 3\n").is_err());
    }
}
