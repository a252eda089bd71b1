//! A real OpenSSH server on loopback for the remote tests: `/usr/sbin/sshd -D -e` with a
//! temporary host key, a user key and `authorized_keys`, on a free port, for the current user.
//! The client side is the system `ssh` with the options [`Sshd::ssh_options`] gives.
//!
//! Shared by the CLI's and the TUI's tests (`#[path]`): it needs only `tempfile` and `nix`.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use tempfile::TempDir;

const SSHD: &str = "/usr/sbin/sshd";

/// A running sshd; dropping it stops it.
pub struct Sshd {
    dir: TempDir,
    child: Child,
    pub port: u16,
}

impl Sshd {
    /// Starts sshd, or returns `None` (after saying so loudly) when it is not installed and
    /// `SIGNALTTY_REQUIRE_SSHD` is unset; with it set, a missing sshd fails the test.
    pub fn start() -> Option<Sshd> {
        if !Path::new(SSHD).is_file() {
            if std::env::var_os("SIGNALTTY_REQUIRE_SSHD").is_some() {
                panic!(
                    "{SSHD} is missing and SIGNALTTY_REQUIRE_SSHD is set: apt-get install openssh-server"
                );
            }
            eprintln!(
                "\n!!! SKIPPED: {SSHD} is not installed, so the remote-over-ssh tests did not run \
                 (apt-get install openssh-server; CI sets SIGNALTTY_REQUIRE_SSHD) !!!\n"
            );
            return None;
        }
        // sshd refuses to start without its privilege separation directory.
        let _ = std::fs::create_dir_all("/run/sshd");
        let dir = tempfile::Builder::new()
            .prefix("sshd")
            .tempdir()
            .expect("tempdir");
        let p = |name: &str| dir.path().join(name);
        for key in ["host_key", "user_key"] {
            let status = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(p(key))
                .status()
                .expect("run ssh-keygen");
            assert!(status.success(), "ssh-keygen {key}");
        }
        std::fs::copy(p("user_key.pub"), p("authorized_keys")).expect("authorized_keys");
        let port = free_port();
        let config = format!(
            "ListenAddress 127.0.0.1:{port}\nHostKey {}\nAuthorizedKeysFile {}\nUsePAM no\n\
             StrictModes no\nPidFile none\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n",
            p("host_key").display(),
            p("authorized_keys").display()
        );
        std::fs::write(p("sshd_config"), config).expect("sshd_config");
        let mut child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(p("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start sshd");
        // Ready when it says it listens; its log is kept draining (and echoed on failure).
        let stderr = child.stderr.take().expect("sshd stderr");
        let (ready, listening) = mpsc::channel();
        std::thread::spawn(move || {
            let mut ready = Some(ready);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("Server listening")
                    && let Some(ready) = ready.take()
                {
                    let _ = ready.send(());
                }
                if std::env::var_os("SIGNALTTY_SSHD_LOG").is_some() {
                    eprintln!("sshd: {line}");
                }
            }
        });
        listening
            .recv_timeout(Duration::from_secs(30))
            .expect("sshd did not start listening");
        Some(Sshd { dir, child, port })
    }

    /// The ssh arguments that reach this server with the test key (for `--ssh-option`).
    pub fn ssh_options(&self) -> Vec<String> {
        let known = self.dir.path().join("known_hosts");
        vec![
            "-p".into(),
            self.port.to_string(),
            "-i".into(),
            self.dir.path().join("user_key").display().to_string(),
            "-o".into(),
            format!("UserKnownHostsFile={}", known.display()),
            "-o".into(),
            "StrictHostKeyChecking=accept-new".into(),
            "-o".into(),
            "IdentitiesOnly=yes".into(),
        ]
    }

    pub fn dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        // Its per-connection children first: they hold the shared ssh logins the CLI leaves up
        // for a minute (ControlPersist), which then end with the test.
        let pid = i32::try_from(self.child.id()).expect("pid");
        for (session, _) in children_of(pid) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(session),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The processes whose parent is `parent`, with their command names (from `/proc`).
pub fn children_of(parent: i32) -> Vec<(i32, String)> {
    let parent = parent.to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid …: comm may hold spaces, so split after the last ')'.
        let (Some((head, tail)), Some(open)) = (stat.rsplit_once(')'), stat.find('(')) else {
            continue;
        };
        if tail.split_whitespace().nth(1) == Some(parent.as_str()) {
            found.push((pid, head[open + 1..].to_owned()));
        }
    }
    found
}

/// A loopback port nobody listens on right now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}
