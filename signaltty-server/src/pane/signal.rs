//! The signals a client may send to a pane, and to whom. Anything outside the allow-list is
//! refused by the parser, so a request can never name e.g. SIGSTOP (which would wedge a pane
//! with no way for the user to see why) or a real-time signal.

use std::fmt;
use std::str::FromStr;

use nix::sys::signal::Signal;

/// A signal from the allow-list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PaneSignal {
    /// SIGINT, what Ctrl-C sends.
    Int,
    /// SIGTERM, polite termination.
    Term,
    /// SIGKILL, cannot be caught.
    Kill,
    /// SIGHUP, the terminal went away.
    Hup,
    /// SIGQUIT, what Ctrl-\ sends.
    Quit,
    /// SIGWINCH, the window size changed (sent by the kernel on resize anyway).
    Winch,
    /// SIGUSR1, application-defined.
    Usr1,
    /// SIGUSR2, application-defined.
    Usr2,
}

impl PaneSignal {
    /// Every allowed signal, in the order the docs list them.
    pub const ALL: [PaneSignal; 8] = [
        Self::Int,
        Self::Term,
        Self::Kill,
        Self::Hup,
        Self::Quit,
        Self::Winch,
        Self::Usr1,
        Self::Usr2,
    ];

    /// The canonical name without the `SIG` prefix, e.g. `"INT"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Int => "INT",
            Self::Term => "TERM",
            Self::Kill => "KILL",
            Self::Hup => "HUP",
            Self::Quit => "QUIT",
            Self::Winch => "WINCH",
            Self::Usr1 => "USR1",
            Self::Usr2 => "USR2",
        }
    }

    /// The OS signal.
    pub fn to_nix(self) -> Signal {
        match self {
            Self::Int => Signal::SIGINT,
            Self::Term => Signal::SIGTERM,
            Self::Kill => Signal::SIGKILL,
            Self::Hup => Signal::SIGHUP,
            Self::Quit => Signal::SIGQUIT,
            Self::Winch => Signal::SIGWINCH,
            Self::Usr1 => Signal::SIGUSR1,
            Self::Usr2 => Signal::SIGUSR2,
        }
    }
}

impl fmt::Display for PaneSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SIG{}", self.name())
    }
}

/// A signal name outside the allow-list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "signal {} is not allowed (allowed: INT TERM KILL HUP QUIT WINCH USR1 USR2)",
    crate::error::quote(name)
)]
pub struct UnknownSignal {
    /// The name as given.
    pub name: String,
}

/// Parses a signal name: any case, with or without the `SIG` prefix (`"int"`, `"SIGTERM"`,
/// `"Kill"`). Numbers and signals outside the allow-list are refused.
pub fn parse_signal(name: &str) -> Result<PaneSignal, UnknownSignal> {
    let upper = name.trim().to_ascii_uppercase();
    let bare = upper.strip_prefix("SIG").unwrap_or(&upper);
    PaneSignal::ALL
        .into_iter()
        .find(|sig| sig.name() == bare)
        .ok_or_else(|| UnknownSignal {
            name: name.to_owned(),
        })
}

impl FromStr for PaneSignal {
    type Err = UnknownSignal;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_signal(s)
    }
}

/// Who receives a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SignalScope {
    /// Only the pane's child process.
    Child,
    /// The child's process group (the child leads it, so this is `kill(-pid)`): the child and
    /// everything it started that did not move to another group, e.g. a non-interactive shell's
    /// background jobs. Still reaches those after the child itself has exited.
    Group,
    /// The terminal's foreground process group, like a key typed at the terminal (in an
    /// interactive shell running `vim`, that is vim, not the shell).
    Foreground,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_any_case_with_or_without_prefix() {
        assert_eq!(parse_signal("int"), Ok(PaneSignal::Int));
        assert_eq!(parse_signal("SIGTERM"), Ok(PaneSignal::Term));
        assert_eq!(parse_signal("Kill"), Ok(PaneSignal::Kill));
        assert_eq!(parse_signal("sigwinch"), Ok(PaneSignal::Winch));
        assert_eq!("usr2".parse::<PaneSignal>(), Ok(PaneSignal::Usr2));
        for sig in PaneSignal::ALL {
            assert_eq!(parse_signal(&sig.to_string()), Ok(sig));
            assert_eq!(parse_signal(sig.name()), Ok(sig));
        }
    }

    #[test]
    fn refuses_everything_else() {
        for name in [
            "STOP",
            "SIGSTOP",
            "9",
            "",
            "SIG",
            "SIGSIGINT",
            "CHLD",
            "RTMIN",
        ] {
            assert!(parse_signal(name).is_err(), "{name} must be refused");
        }
    }
}
