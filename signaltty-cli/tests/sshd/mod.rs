//! The real OpenSSH server of the remote tests ([`fixture`], shared with the TUI's tests) and
//! what the CLI's tests add to it: the remote's command line and `signaltty remote add`.

#![allow(dead_code)]

#[path = "../../../tools/sshd_fixture.rs"]
mod fixture;

pub use fixture::*;

use crate::common::TestEnv;

/// `env VAR=… /path/to/signaltty`: how the remote's sshd session runs the remote's signaltty.
pub fn remote_command(remote: &TestEnv) -> String {
    let d = remote.dir.path();
    format!(
        "env SIGNALTTY_SOCKET={} SIGNALTTY_STATE_DIR={} SIGNALTTY_SERVER_BIN={} HOME={} \
         XDG_CONFIG_HOME={} XDG_STATE_HOME={} XDG_RUNTIME_DIR={} SHELL=/bin/sh {}",
        remote.socket.display(),
        remote.state.display(),
        crate::common::server_bin().display(),
        remote.home.display(),
        d.join("xdg-config").display(),
        d.join("xdg-state").display(),
        d.join("run").display(),
        env!("CARGO_BIN_EXE_signaltty"),
    )
}

/// `signaltty remote add NAME 127.0.0.1 --ssh-option=… --command COMMAND` on `local`.
pub fn add_remote(local: &TestEnv, sshd: &Sshd, name: &str, command: &str) {
    let mut args = vec![
        "remote".to_owned(),
        "add".to_owned(),
        name.to_owned(),
        "127.0.0.1".to_owned(),
    ];
    for opt in sshd.ssh_options() {
        args.push(format!("--ssh-option={opt}"));
    }
    args.push(format!("--command={command}"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    local.ok(&args);
}

/// `signaltty remote add NAME 127.0.0.1` on `local` with the right key and a port nobody
/// listens on: a remote that is configured but cannot be reached.
pub fn add_unreachable_remote(local: &TestEnv, sshd: &Sshd, name: &str) {
    let mut args: Vec<String> = ["remote", "add", name, "127.0.0.1"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let mut opts = sshd.ssh_options();
    opts[1] = "1".to_owned();
    args.extend(opts.into_iter().map(|o| format!("--ssh-option={o}")));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    local.ok(&args);
}
