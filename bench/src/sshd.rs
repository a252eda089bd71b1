//! `Sshd`: a private OpenSSH server on a free loopback port, for the `ssh` section's link. Its
//! host key, the user key, `authorized_keys`, `known_hosts` and log live in a directory of the
//! benchmark's temp dir; it lets in only that key, as the current user. Dropping it ends the
//! per-connection sshd processes first (a shared login's master would otherwise outlive the
//! run by its `ControlPersist`), then the listener.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// Debian's openssh-server puts it here.
pub const SSHD: &str = "/usr/sbin/sshd";

/// A running sshd.
pub struct Sshd {
    dir: PathBuf,
    child: Child,
    port: u16,
}

impl Sshd {
    /// Starts sshd in `dir` (created) and waits until it listens; `None` when [`SSHD`] is not
    /// installed.
    pub fn start(dir: &Path) -> anyhow::Result<Option<Self>> {
        if !Path::new(SSHD).is_file() {
            return Ok(None);
        }
        // sshd refuses to start without its privilege separation directory.
        let _ = std::fs::create_dir_all("/run/sshd");
        std::fs::create_dir_all(dir).context("create the sshd dir")?;
        for key in ["host_key", "user_key"] {
            let status = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.join(key))
                .stdin(Stdio::null())
                .status()
                .context("run ssh-keygen")?;
            if !status.success() {
                bail!("ssh-keygen {key}: {status}");
            }
        }
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys"))
            .context("write authorized_keys")?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let settings = [
            format!("ListenAddress 127.0.0.1:{port}"),
            format!("HostKey {}", dir.join("host_key").display()),
            format!(
                "AuthorizedKeysFile {}",
                dir.join("authorized_keys").display()
            ),
            // Not a login for a person: no PAM, no passwords, no checks of a home's modes.
            "UsePAM no".into(),
            "StrictModes no".into(),
            "PidFile none".into(),
            "PasswordAuthentication no".into(),
            "KbdInteractiveAuthentication no".into(),
            "PermitRootLogin prohibit-password".into(),
        ];
        std::fs::write(dir.join("sshd_config"), settings.join("\n") + "\n")?;
        let log = dir.join("sshd.log");
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log)?)
            .spawn()
            .with_context(|| format!("start {SSHD}"))?;
        let mut sshd = Self {
            dir: dir.to_path_buf(),
            child,
            port,
        };
        // Ready when its log says so (it writes the line once it listens).
        let deadline = Instant::now() + Duration::from_secs(15);
        while !std::fs::read_to_string(&log)?.contains("Server listening") {
            if let Ok(Some(status)) = sshd.child.try_wait() {
                bail!("sshd exited ({status}): {}", std::fs::read_to_string(&log)?);
            }
            if Instant::now() > deadline {
                bail!("sshd did not listen within 15 s");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(Some(sshd))
    }

    /// The ssh options every client of this server gets, signaltty's bridge and tmux's attach
    /// alike: no config file (so nothing of the user's — ciphers, compression, a ControlMaster —
    /// applies to one and not the other), this port, key and known_hosts, never a prompt. They
    /// include signaltty's own defaults (`BatchMode`, `ConnectTimeout`, `ServerAlive*`, `-e
    /// none`; see `signaltty_client::remote::ssh`) so tmux's ssh runs with the same ones.
    pub fn ssh_options(&self) -> Vec<String> {
        let mut options = vec![
            "-F".to_owned(),
            "none".to_owned(),
            "-p".to_owned(),
            self.port.to_string(),
            "-i".to_owned(),
            self.dir.join("user_key").display().to_string(),
            "-e".to_owned(),
            "none".to_owned(),
        ];
        for option in [
            format!(
                "UserKnownHostsFile={}",
                self.dir.join("known_hosts").display()
            ),
            "StrictHostKeyChecking=accept-new".to_owned(),
            "IdentitiesOnly=yes".to_owned(),
            "BatchMode=yes".to_owned(),
            "ConnectTimeout=10".to_owned(),
            "ServerAliveInterval=5".to_owned(),
            "ServerAliveCountMax=3".to_owned(),
        ] {
            options.extend(["-o".to_owned(), option]);
        }
        options
    }

    /// Logs in once (`ssh -v … true`), which also records the host key, and returns ssh's
    /// version and the cipher and MAC the two sides chose, for the notes.
    pub fn check_link(&self) -> anyhow::Result<String> {
        let output = Command::new("ssh")
            .args(self.ssh_options())
            .args(["-v", "127.0.0.1", "true"])
            .stdin(Stdio::null())
            .output()
            .context("run ssh")?;
        let said = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            bail!(
                "ssh to the benchmark's sshd failed ({}): {said}",
                output.status
            );
        }
        let version = said.lines().next().unwrap_or_default().trim();
        let kex = said
            .lines()
            .find_map(|l| l.split_once("kex: client->server ").map(|(_, k)| k.trim()))
            .unwrap_or("(not reported)");
        Ok(format!("{version}; {kex}"))
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            for session in crate::procfs::children_of(pid) {
                let _ = kill(Pid::from_raw(session), Signal::SIGTERM);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
