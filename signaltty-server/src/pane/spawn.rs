//! Starting a pane's child: validating the request, composing its environment, opening a fresh
//! pseudo-terminal and running the program on it as a session leader.
//!
//! The terminal pair is opened close-on-exec, so a child only ever holds its own slave (on fds
//! 0–2); the parent's slave copy is dropped as soon as the child runs, so the master reads EOF
//! (EIO) once the child and whatever it left behind close the terminal. Fork and exec go through
//! `std::process::Command`, which forks safely in a multithreaded process and reports an exec
//! failure synchronously (and reaps the failed child), so a failed spawn leaves no process and no
//! descriptor behind.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::pty::{grantpt, posix_openpt, ptsname_r, unlockpt};
use nix::sys::stat::Mode;
use nix::sys::termios::{InputFlags, SetArg, tcgetattr, tcsetattr};

use super::sys;
use crate::model::ids::PaneId;

/// Narrowest terminal a pane may have.
pub const MIN_COLS: u16 = 20;
/// Widest terminal a pane may have.
pub const MAX_COLS: u16 = 500;
/// Shortest terminal a pane may have.
pub const MIN_ROWS: u16 = 5;
/// Tallest terminal a pane may have.
pub const MAX_ROWS: u16 = 200;
/// Width used when a request gives none.
pub const DEFAULT_COLS: u16 = 80;
/// Height used when a request gives none.
pub const DEFAULT_ROWS: u16 = 24;

/// `TERM` given to a child whose request does not set one.
pub const DEFAULT_TERM: &str = "xterm-256color";

/// Variables a request may never set: they would let a client inject code into the child.
const REFUSED_REQUEST_VARS: [&str; 2] = ["LD_PRELOAD", "LD_LIBRARY_PATH"];

/// Inherited variables that describe the server's own terminal, not the pane's; dropped unless
/// the request sets them.
const STALE_SERVER_VARS: [&str; 2] = ["COLUMNS", "LINES"];

/// A terminal size in character cells, always within the clamp range once it left [`clamp_size`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PtySize {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

impl Default for PtySize {
    fn default() -> Self {
        Self {
            cols: DEFAULT_COLS,
            rows: DEFAULT_ROWS,
        }
    }
}

/// Clamps a requested size to 20–500 columns × 5–200 rows. Out-of-range sizes are corrected,
/// not refused: a client's window can legitimately be tiny or huge.
pub fn clamp_size(cols: u16, rows: u16) -> PtySize {
    PtySize {
        cols: cols.clamp(MIN_COLS, MAX_COLS),
        rows: rows.clamp(MIN_ROWS, MAX_ROWS),
    }
}

/// What to run in a new pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnSpec {
    /// Program and arguments; the program is looked up in `PATH` when it has no slash.
    pub argv: Vec<String>,
    /// Working directory: must be an existing directory, given as an absolute path.
    pub cwd: PathBuf,
    /// Extra environment on top of the server's own (later entries win).
    pub env: Vec<(String, String)>,
    /// Initial width (clamped).
    pub cols: u16,
    /// Initial height (clamped).
    pub rows: u16,
}

/// Why a pane could not be started. Nothing is left behind in any case.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The request names no program.
    #[error("argv is empty")]
    EmptyArgv,
    /// An argument is empty (argv[0]) or holds a NUL byte, which exec cannot pass.
    #[error("argv[{index}] is empty or contains a NUL byte")]
    InvalidArg {
        /// Position in argv.
        index: usize,
    },
    /// The working directory is not an absolute path.
    #[error("cwd {} is not an absolute path", crate::error::quote(path.to_string_lossy()))]
    RelativeCwd {
        /// The path as requested.
        path: PathBuf,
    },
    /// The working directory is missing, unreadable or not a directory.
    #[error("cwd {} is not a usable directory: {source}", crate::error::quote(path.to_string_lossy()))]
    Cwd {
        /// The path as requested.
        path: PathBuf,
        /// What the OS said (ENOTDIR when it exists but is no directory).
        source: io::Error,
    },
    /// A variable name is empty or holds `=` or NUL, or a value holds NUL.
    #[error("invalid environment entry {}", crate::error::quote(key))]
    InvalidEnv {
        /// The offending name.
        key: String,
    },
    /// The kernel would not give us a pseudo-terminal (e.g. out of ptys or descriptors).
    #[error("cannot open a pseudo-terminal: {0}")]
    OpenPty(#[source] nix::Error),
    /// fork or exec failed: no such program, not executable, the cwd vanished, ...
    #[error("cannot start {}: {source}", crate::error::quote(program))]
    Exec {
        /// argv[0].
        program: String,
        /// What exec (or the pre-exec setup) said.
        source: io::Error,
    },
    /// The program is not where exec would look for it: `looked` says where that was (for a
    /// bare name, whose `PATH`: the server's own unless the request set one).
    #[error("cannot start {}: {looked}", crate::error::quote(program))]
    NotFound {
        /// argv[0].
        program: String,
        /// Where it was looked for, and what to do.
        looked: String,
    },
    /// The input side is registered with tokio's reactor, so spawning needs a runtime.
    #[error("spawning a pane needs a tokio runtime")]
    NoRuntime,
    /// Setting up the pane's descriptors or threads failed (the child has been killed).
    #[error("cannot set up the pane's {what}: {source}")]
    Setup {
        /// Which part: "terminal", "input", "reader", "reaper".
        what: &'static str,
        /// What the OS said.
        source: io::Error,
    },
}

impl SpawnSpec {
    /// A spec with the default size and no extra environment.
    pub fn new(argv: Vec<String>, cwd: PathBuf) -> Self {
        Self {
            argv,
            cwd,
            env: Vec::new(),
            cols: DEFAULT_COLS,
            rows: DEFAULT_ROWS,
        }
    }

    /// Checks everything that can be checked without starting a process. [`Pty::spawn`]
    /// calls this first; callers may call it earlier to refuse a request before creating state.
    ///
    /// [`Pty::spawn`]: super::pty::Pty::spawn
    pub fn validate(&self) -> Result<(), SpawnError> {
        if self.argv.is_empty() {
            return Err(SpawnError::EmptyArgv);
        }
        for (index, arg) in self.argv.iter().enumerate() {
            if arg.contains('\0') || (index == 0 && arg.is_empty()) {
                return Err(SpawnError::InvalidArg { index });
            }
        }
        if !self.cwd.is_absolute() {
            return Err(SpawnError::RelativeCwd {
                path: self.cwd.clone(),
            });
        }
        check_dir(&self.cwd)?;
        for (key, value) in &self.env {
            let bad_key = key.is_empty() || key.contains(['=', '\0']);
            if bad_key || value.contains('\0') {
                return Err(SpawnError::InvalidEnv { key: key.clone() });
            }
        }
        Ok(())
    }

    /// The clamped initial size.
    pub fn size(&self) -> PtySize {
        clamp_size(self.cols, self.rows)
    }
}

fn check_dir(path: &Path) -> Result<(), SpawnError> {
    let cwd_error = |source| SpawnError::Cwd {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(cwd_error)?;
    if meta.is_dir() {
        Ok(())
    } else {
        Err(cwd_error(io::Error::from_raw_os_error(libc::ENOTDIR)))
    }
}

/// Checks that `spec.argv[0]` names something exec can run, the way `Command` will look for it:
/// a name with a slash relative to the spec's cwd, a bare name in the child's `PATH` (the
/// request's when it sets one, else the server's). Run before anything is changed for a launch
/// (hooks written into an agent's config), so that a command that is not there changes
/// nothing. Exec itself still decides; this only catches the common "not found" early.
pub fn check_program(spec: &SpawnSpec) -> Result<(), SpawnError> {
    let program = spec.argv.first().map(String::as_str).unwrap_or_default();
    let not_found = |errno| SpawnError::Exec {
        program: program.to_owned(),
        source: io::Error::from_raw_os_error(errno),
    };
    if program.contains('/') {
        let full = spec.cwd.join(program);
        return match executable(&full) {
            Some(true) => Ok(()),
            Some(false) => Err(not_found(libc::EACCES)),
            None => Err(SpawnError::NotFound {
                program: program.to_owned(),
                looked: format!(
                    "No such file or directory: {} (a path with a slash is taken from the \
                     pane's directory)",
                    crate::error::quote(full.to_string_lossy())
                ),
            }),
        };
    }
    let requested = spec
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| std::ffi::OsString::from(v));
    let whose = if requested.is_some() {
        "the PATH given with the request"
    } else {
        "the server's PATH"
    };
    let path = requested
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    let mut denied = false;
    for dir in std::env::split_paths(&path) {
        match executable(&spec.cwd.join(dir).join(program)) {
            Some(true) => return Ok(()),
            Some(false) => denied = true,
            None => {}
        }
    }
    if denied {
        return Err(not_found(libc::EACCES));
    }
    Err(SpawnError::NotFound {
        program: program.to_owned(),
        looked: format!(
            "No such file or directory: not found on {whose} ({}); the server looks a \
             program up on the PATH it was started with, not your shell's: give its full \
             path, or pass PATH (e.g. `--env PATH=\"$PATH\"`)",
            path.to_string_lossy()
        ),
    })
}

/// `Some(true)`: a file with an execute bit; `Some(false)`: there, but not executable;
/// `None`: nothing there.
fn executable(path: &Path) -> Option<bool> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).ok()?;
    Some(meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// Builds the command for a validated spec: the server's environment, minus stale terminal
/// variables, plus the request's (minus the refused ones), plus ours. `SIGNALTTY_PANE` and
/// `SIGNALTTY_SOCKET` always come from the server, so a request cannot impersonate another pane.
pub(super) fn command(pane: &PaneId, socket: &Path, spec: &SpawnSpec) -> Command {
    let mut command = Command::new(&spec.argv[0]);
    command.args(&spec.argv[1..]).current_dir(&spec.cwd);
    for var in STALE_SERVER_VARS {
        command.env_remove(var);
    }
    command.env("TERM", DEFAULT_TERM);
    // The server's own PWD names the directory it was started in, not the pane's: a program
    // that believes PWD over getcwd (OpenCode takes it for its project) would work elsewhere.
    command.env("PWD", &spec.cwd);
    for (key, value) in &spec.env {
        if !REFUSED_REQUEST_VARS.contains(&key.as_str()) {
            command.env(key, value);
        }
    }
    command
        .env("SIGNALTTY_PANE", pane.as_str())
        .env("SIGNALTTY_SOCKET", socket);
    command
}

/// A running child on its terminal: what [`start`] hands to the handle.
pub(super) struct Started {
    /// The master, nonblocking and close-on-exec.
    pub master: OwnedFd,
    /// The child; the caller must make sure it gets reaped.
    pub child: Child,
    /// The slave's path, e.g. `/dev/pts/3`.
    pub tty: PathBuf,
    /// The size the terminal was opened with.
    pub size: PtySize,
}

/// Validates `spec`, opens a terminal and starts the child on it.
pub(super) fn start(pane: &PaneId, socket: &Path, spec: &SpawnSpec) -> Result<Started, SpawnError> {
    spec.validate()?;
    let size = spec.size();
    let (master, slave, tty) = open_pty(size).map_err(SpawnError::OpenPty)?;

    let mut command = command(pane, socket, spec);
    let stdio = |fd: &OwnedFd| fd.try_clone().map(Stdio::from);
    let exec_error = |source| SpawnError::Exec {
        program: spec.argv[0].clone(),
        source,
    };
    command
        .stdin(stdio(&slave).map_err(exec_error)?)
        .stdout(stdio(&slave).map_err(exec_error)?)
        .stderr(Stdio::from(slave));
    sys::become_session_leader_on_exec(&mut command);
    // `command` holds the parent's slave copies; they close when it drops at the end of this
    // function, on success and failure alike.
    let child = command.spawn().map_err(|source| {
        // chdir runs in the child, so a cwd that vanished since validation shows up as an exec
        // error; name the real culprit.
        match check_dir(&spec.cwd) {
            Err(cwd) => cwd,
            Ok(()) => exec_error(source),
        }
    })?;
    Ok(Started {
        master,
        child,
        tty,
        size,
    })
}

/// Opens a master/slave pair, both close-on-exec, the master nonblocking (the reader polls, and
/// input must never block), with the given size and UTF-8 aware line editing (IUTF8, so erase
/// in canonical mode removes a whole character, as terminal emulators set it).
fn open_pty(size: PtySize) -> nix::Result<(OwnedFd, OwnedFd, PathBuf)> {
    let master = posix_openpt(OFlag::O_RDWR | OFlag::O_NOCTTY | OFlag::O_CLOEXEC)?;
    grantpt(&master)?;
    unlockpt(&master)?;
    let tty = PathBuf::from(ptsname_r(&master)?);
    let slave = nix::fcntl::open(
        tty.as_os_str(),
        OFlag::O_RDWR | OFlag::O_NOCTTY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )?;
    let master = OwnedFd::from(master);
    let flags = OFlag::from_bits_truncate(fcntl(&master, FcntlArg::F_GETFL)?);
    fcntl(&master, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    sys::set_window_size(master.as_fd(), size)?;
    let mut termios = tcgetattr(&slave)?;
    termios.input_flags |= InputFlags::IUTF8;
    tcsetattr(&slave, SetArg::TCSANOW, &termios)?;
    Ok((master, slave, tty))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::ffi::OsStr;

    fn spec(argv: &[&str]) -> SpawnSpec {
        SpawnSpec::new(
            argv.iter().map(|s| s.to_string()).collect(),
            PathBuf::from("/"),
        )
    }

    fn envs(command: &Command) -> HashMap<String, Option<String>> {
        command
            .get_envs()
            .map(|(k, v)| {
                let s = |x: &OsStr| x.to_string_lossy().into_owned();
                (s(k), v.map(s))
            })
            .collect()
    }

    #[test]
    fn clamp_size_bounds_both_axes() {
        assert_eq!(clamp_size(0, 0), PtySize { cols: 20, rows: 5 });
        assert_eq!(
            clamp_size(u16::MAX, u16::MAX),
            PtySize {
                cols: 500,
                rows: 200
            }
        );
        assert_eq!(clamp_size(80, 24), PtySize { cols: 80, rows: 24 });
    }

    #[test]
    fn validation_refuses_bad_requests() {
        assert!(matches!(spec(&[]).validate(), Err(SpawnError::EmptyArgv)));
        assert!(matches!(
            spec(&[""]).validate(),
            Err(SpawnError::InvalidArg { index: 0 })
        ));
        assert!(matches!(
            spec(&["sh", "a\0b"]).validate(),
            Err(SpawnError::InvalidArg { index: 1 })
        ));
        let mut relative = spec(&["sh"]);
        relative.cwd = PathBuf::from("tmp");
        assert!(matches!(
            relative.validate(),
            Err(SpawnError::RelativeCwd { .. })
        ));
        let mut missing = spec(&["sh"]);
        missing.cwd = PathBuf::from("/nonexistent/signaltty");
        assert!(matches!(missing.validate(), Err(SpawnError::Cwd { .. })));
        let mut file = spec(&["sh"]);
        file.cwd = PathBuf::from("/etc/passwd");
        assert!(matches!(file.validate(), Err(SpawnError::Cwd { .. })));
        for key in ["", "A=B", "A\0"] {
            let mut bad = spec(&["sh"]);
            bad.env = vec![(key.to_owned(), "v".to_owned())];
            assert!(matches!(bad.validate(), Err(SpawnError::InvalidEnv { .. })));
        }
        assert!(spec(&["sh", "-c", "true"]).validate().is_ok());
    }

    #[test]
    fn command_env_drops_injection_and_sets_ours() {
        let pane = PaneId::new();
        let mut s = spec(&["sh"]);
        s.env = vec![
            ("LD_PRELOAD".into(), "/evil.so".into()),
            ("LD_LIBRARY_PATH".into(), "/evil".into()),
            ("SIGNALTTY_PANE".into(), "pane_spoofed".into()),
            ("FOO".into(), "bar".into()),
        ];
        let env = envs(&command(&pane, Path::new("/run/s.sock"), &s));
        assert!(!env.contains_key("LD_PRELOAD"));
        assert!(!env.contains_key("LD_LIBRARY_PATH"));
        assert_eq!(env["FOO"].as_deref(), Some("bar"));
        assert_eq!(env["SIGNALTTY_PANE"].as_deref(), Some(pane.as_str()));
        assert_eq!(env["SIGNALTTY_SOCKET"].as_deref(), Some("/run/s.sock"));
        assert_eq!(env["TERM"].as_deref(), Some(DEFAULT_TERM));
        assert_eq!(env["COLUMNS"], None, "stale COLUMNS is removed");
        assert_eq!(
            env["PWD"].as_deref(),
            s.cwd.to_str(),
            "PWD is the pane's directory, not the server's"
        );

        s.env = vec![("TERM".into(), "dumb".into())];
        let env = envs(&command(&pane, Path::new("/s"), &s));
        assert_eq!(env["TERM"].as_deref(), Some("dumb"));
    }
}
