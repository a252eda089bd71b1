//! The server's command line. Four optional flags, read by hand: the server is started by the
//! CLI (or a test, or a service manager) with a fixed set of flags, and a parser library's code
//! would be ~170 KiB of the server's resident memory for that (clap stays in the CLI, whose
//! command line is large and user-facing).

use std::ffi::OsString;
use std::path::PathBuf;

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Invocation {
    /// Run the server.
    Run(Args),
    /// Print this text on stdout and exit 0 (`--help`, `--version`).
    Print(String),
}

/// The server's flags.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Args {
    /// `--socket PATH`: the Unix socket to listen on.
    pub socket: Option<PathBuf>,
    /// `--state-dir DIR`: the snapshot, tails and logs.
    pub state_dir: Option<PathBuf>,
    /// `--log-file PATH`: log here instead of stderr.
    pub log_file: Option<PathBuf>,
    /// `--config PATH`: the user config file (must exist when given).
    pub config: Option<PathBuf>,
}

/// Usage text for `--help` and errors.
pub const USAGE: &str = "\
The signaltty server: owns every PTY and serves the gRPC API on a Unix socket.

Usage: signaltty-server [--socket PATH] [--state-dir DIR] [--log-file PATH] [--config PATH]

Options:
  --socket PATH     Unix socket to listen on [default: $SIGNALTTY_SOCKET, else
                    $XDG_RUNTIME_DIR/signaltty/signaltty.sock, else /tmp/signaltty-$UID/signaltty.sock]
  --state-dir DIR   Directory for the snapshot, tails and logs [default: $XDG_STATE_HOME/signaltty]
  --log-file PATH   Log to this file instead of stderr [default: stderr when it is a terminal,
                    else <state-dir>/server.log]
  --config PATH     The config file [default: $SIGNALTTY_CONFIG, else
                    $XDG_CONFIG_HOME/signaltty/config.toml, else ~/.config/signaltty/config.toml;
                    a missing default file means the defaults]. A file with mistakes stops the
                    start with every mistake listed (check one with `signaltty config check`)
  -h, --help        Print this help
  -V, --version     Print the version

Environment: SIGNALTTY_LOG=level or target=level,... (e.g. info,signaltty_server=debug)
";

/// Parses the arguments after the program name. Accepts `--flag VALUE` and `--flag=VALUE`.
/// The error says what was wrong; the caller prints it with [`USAGE`] and exits 2.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Invocation, String> {
    let mut parsed = Args::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy().into_owned();
        let (flag, inline) = match text.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value)),
            _ => (text.clone(), None),
        };
        let slot = match flag.as_str() {
            "-h" | "--help" => return Ok(Invocation::Print(USAGE.to_owned())),
            "-V" | "--version" => {
                return Ok(Invocation::Print(format!(
                    "signaltty-server {}\n",
                    env!("CARGO_PKG_VERSION")
                )));
            }
            "--socket" => &mut parsed.socket,
            "--state-dir" => &mut parsed.state_dir,
            "--log-file" => &mut parsed.log_file,
            "--config" => &mut parsed.config,
            _ => return Err(format!("unexpected argument {text:?}")),
        };
        if slot.is_some() {
            return Err(format!("{flag} given more than once"));
        }
        let value = match inline {
            Some(value) => OsString::from(value),
            None => args.next().ok_or_else(|| format!("{flag} needs a value"))?,
        };
        if value.is_empty() {
            return Err(format!("{flag} needs a non-empty value"));
        }
        *slot = Some(PathBuf::from(value));
    }
    Ok(Invocation::Run(parsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Invocation, String> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn flags_with_separate_or_inline_values() {
        assert_eq!(run(&[]), Ok(Invocation::Run(Args::default())));
        assert_eq!(
            run(&[
                "--socket",
                "/s",
                "--state-dir=/d",
                "--log-file",
                "/l",
                "--config=/c"
            ]),
            Ok(Invocation::Run(Args {
                socket: Some("/s".into()),
                state_dir: Some("/d".into()),
                log_file: Some("/l".into()),
                config: Some("/c".into()),
            }))
        );
    }

    #[test]
    fn help_and_version_print() {
        for flag in ["-h", "--help"] {
            assert_eq!(run(&[flag]), Ok(Invocation::Print(USAGE.to_owned())));
        }
        let Ok(Invocation::Print(version)) = run(&["--version"]) else {
            panic!("--version prints");
        };
        assert!(version.starts_with("signaltty-server "), "{version}");
    }

    #[test]
    fn mistakes_are_named() {
        for (args, error) in [
            (&["--sock", "/s"][..], "unexpected argument \"--sock\""),
            (&["/s"], "unexpected argument \"/s\""),
            (&["--socket"], "--socket needs a value"),
            (&["--socket="], "--socket needs a non-empty value"),
            (
                &["--socket", "/a", "--socket", "/b"],
                "--socket given more than once",
            ),
        ] {
            assert_eq!(run(args), Err(error.to_owned()), "{args:?}");
        }
    }
}
