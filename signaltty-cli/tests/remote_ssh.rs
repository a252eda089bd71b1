//! End to end: a "remote" machine reached through a real OpenSSH server on loopback. The remote
//! is a second signaltty world (its own socket, state dir and HOME) whose environment is passed
//! through the remote command (`--command "env SIGNALTTY_SOCKET=… signaltty"`): two servers, one
//! link, `ssh host signaltty bridge` in between.

mod common;
mod sshd;

use std::io::Read;
use std::process::Stdio;
use std::time::Duration;

use common::{TestEnv, wait_for};
use sshd::{Sshd, add_remote, remote_command};

#[test]
fn a_remote_servers_workspaces_panes_and_decisions_over_ssh() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    let remote = TestEnv::new();
    add_remote(&local, &sshd, "gpu", &remote_command(&remote));

    // No server runs on the remote yet: listing it starts one there, through the bridge.
    assert!(!remote.socket.exists());
    let listed = local.json(&["remote", "list"]);
    assert_eq!(listed[0]["name"], "gpu", "{listed}");
    assert_eq!(listed[0]["reachable"], true, "{listed}");
    assert_eq!(listed[0]["state"], "connected", "{listed}");
    assert!(remote.socket.exists(), "the remote server was auto-started");
    // Later calls share that call's ssh login: its control socket sits beside the local socket.
    let shared = std::fs::read_dir(local.dir.path())
        .expect("local socket dir")
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("ssh-"));
    assert!(shared, "no shared ssh connection in {:?}", local.dir.path());

    // A workspace made over the link lives on the remote server, not the local one.
    let ws = local.json(&[
        "--remote",
        "gpu",
        "workspace",
        "create",
        "--name",
        "far",
        "--cwd",
        &remote.dir_str(),
    ])["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let there = remote.json(&["workspace", "list"]);
    assert_eq!(there[0]["id"], ws.as_str(), "{there}");
    let over = local.json(&["--remote", "gpu", "workspace", "list"]);
    assert_eq!(over[0]["name"], "far", "{over}");
    let here = local.json(&["workspace", "list"]);
    assert_eq!(here.as_array().map(Vec::len), Some(0), "{here}");

    // A pane spawned over the link runs there; its screen reads back over the link.
    let pane = local.json(&[
        "--remote",
        "gpu",
        "pane",
        "spawn",
        &ws,
        "--title",
        "agent",
        "--",
        "sh",
        "-c",
        "echo remote-hello; exec sleep 600",
    ])["pane"]["id"]
        .as_str()
        .expect("pane id")
        .to_owned();
    wait_for("the remote pane's output", Duration::from_secs(30), || {
        let read = local.json(&["--remote", "gpu", "pane", "read", &pane]);
        read.to_string().contains("remote-hello").then_some(())
    });

    // The machine prefix names the same pane; `ls --all` lists this machine first, then gpu.
    let read = local.json(&["pane", "read", &format!("gpu:{pane}")]);
    assert!(read.to_string().contains("remote-hello"), "{read}");
    let all = local.json(&["ls", "--all"]);
    assert_eq!(all[0]["machine"], "local", "{all}");
    assert_eq!(all[1]["machine"], "gpu", "{all}");
    assert_eq!(all[1]["workspaces"][0]["name"], "far", "{all}");
    let text = local.ok(&["ls", "--all"]);
    let (at_local, at_gpu) = (text.find("[local]"), text.find("[gpu]"));
    assert!(at_local.is_some() && at_local < at_gpu, "{text}");

    // An agent on the remote asks; the local CLI answers through the link.
    let mut hook = remote.permission_hook(&pane, true);
    let id = wait_for("the remote decision", Duration::from_secs(30), || {
        let listed = local.json(&["--remote", "gpu", "decision", "list"]);
        listed[0]["answerable"]
            .as_bool()
            .filter(|a| *a)
            .and(listed[0]["id"].as_str().map(str::to_owned))
    });
    let answered = local.json(&["--remote", "gpu", "decision", "answer", &id, "once"]);
    assert_eq!(answered["decision_id"], id.as_str(), "{answered}");
    let mut out = String::new();
    hook.stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("hook output");
    assert!(hook.wait().expect("hook exit").success());
    assert!(
        out.contains("allow"),
        "the remote hook got the verdict: {out}"
    );
}

#[test]
fn a_missing_remote_binary_says_to_install_signaltty_there() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    add_remote(&local, &sshd, "bare", "/nonexistent/bin/signaltty");
    let run = local.fails(&["--remote", "bare", "workspace", "list"], 1);
    assert!(run.stderr.contains("install signaltty"), "{run:?}");
    assert!(run.stderr.contains("/nonexistent/bin/signaltty"), "{run:?}");
    assert!(run.stderr.contains("REMOTE_BINARY_MISSING"), "{run:?}");
    let listed = local.json(&["remote", "list"]);
    assert_eq!(listed[0]["reachable"], false, "{listed}");
    // The local server dialled it for the listing, and says why it failed.
    assert_eq!(listed[0]["state"], "failed", "{listed}");
    assert_eq!(listed[0]["reason"], "REMOTE_BINARY_MISSING", "{listed}");
}

#[test]
fn an_unreachable_host_is_a_clear_error() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    sshd::add_unreachable_remote(&local, &sshd, "off");
    let run = local.fails(&["--remote", "off", "workspace", "list"], 1);
    assert!(run.stderr.contains("REMOTE_UNREACHABLE"), "{run:?}");
    assert!(run.stderr.contains("cannot reach off"), "{run:?}");
}

#[test]
fn remote_add_checks_names_and_remove_forgets() {
    let local = TestEnv::new();
    let bad = local.fails(&["remote", "add", "a:b", "host"], 2);
    assert!(bad.stderr.contains("bad remote name"), "{bad:?}");
    let config = local.dir.path().join("xdg-config/signaltty/config.toml");
    assert!(!config.exists(), "nothing written");
    local.ok(&[
        "remote",
        "add",
        "gpu",
        "me@gpu",
        "--ssh-option=-p",
        "--ssh-option=2222",
    ]);
    let twice = local.fails(&["remote", "add", "gpu", "other"], 2);
    assert!(twice.stderr.contains("exists already"), "{twice:?}");
    let unknown = local.fails(&["--remote", "nope", "workspace", "list"], 2);
    assert!(
        unknown.stderr.contains("no remote named \"nope\""),
        "{unknown:?}"
    );
    local.ok(&["remote", "remove", "gpu"]);
    let gone = local.fails(&["remote", "remove", "gpu"], 2);
    assert!(gone.stderr.contains("no remote named"), "{gone:?}");
}

/// A `signaltty --remote gpu attach PANE` in a real pseudo-terminal, its output collected.
struct PtyAttach {
    child: std::process::Child,
    writer: std::fs::File,
    rx: std::sync::mpsc::Receiver<Vec<u8>>,
    seen: Vec<u8>,
    _slave: std::os::fd::OwnedFd,
}

impl PtyAttach {
    fn start(local: &TestEnv, pane: &str) -> PtyAttach {
        use std::os::fd::OwnedFd;
        let nix::pty::OpenptyResult { master, slave } = common::pty_80x24();
        let slave_io = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("dup slave"));
        let child = local
            .command(&["--remote", "gpu", "attach", pane])
            .stdin(slave_io(&slave))
            .stdout(slave_io(&slave))
            .stderr(slave_io(&slave))
            .spawn()
            .expect("spawn attach");
        let writer = std::fs::File::from(master.try_clone().expect("dup master"));
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || {
            let mut master = std::fs::File::from(master);
            let mut buf = [0u8; 4096];
            while let Ok(n) = master.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        PtyAttach {
            child,
            writer,
            rx,
            seen: Vec::new(),
            _slave: slave,
        }
    }

    fn type_bytes(&mut self, bytes: &[u8]) {
        std::io::Write::write_all(&mut self.writer, bytes).expect("type");
    }

    /// Waits until the terminal showed `needle` `times` times in all.
    fn wait_seen(&mut self, needle: &str, times: usize) {
        let deadline = std::time::Instant::now() + common::WAIT;
        while String::from_utf8_lossy(&self.seen).matches(needle).count() < times {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(data) => self.seen.extend_from_slice(&data),
                Err(_) => panic!(
                    "timed out waiting for {needle:?} x{times} in {:?}",
                    String::from_utf8_lossy(&self.seen)
                ),
            }
        }
    }

    /// The detach key; the attach exits 0.
    fn detach(mut self) {
        self.type_bytes(&[0x1c]);
        self.wait_seen("[detached]", 1);
        let status = self.child.wait().expect("attach exit");
        assert_eq!(status.code(), Some(0));
    }

    /// The `ssh` processes this attach runs (children of the CLI process).
    fn ssh_children(&self) -> Vec<i32> {
        let me = i32::try_from(self.child.id()).expect("pid");
        sshd::children_of(me)
            .into_iter()
            .filter(|(_, name)| name == "ssh")
            .map(|(pid, _)| pid)
            .collect()
    }
}

fn remote_cat_pane(remote: &TestEnv) -> String {
    let ws = remote.workspace("far");
    remote.json(&["pane", "spawn", &ws, "--", "cat"])["pane"]["id"]
        .as_str()
        .expect("pane id")
        .to_owned()
}

/// `signaltty --remote gpu attach PANE` in a real pseudo-terminal: over gRPC through the link
/// (a remote server cannot be handed this machine's terminal), typing reaches the remote pane,
/// and the detach key leaves it running.
#[test]
fn attach_to_a_remote_pane_in_a_pty() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    let remote = TestEnv::new();
    add_remote(&local, &sshd, "gpu", &remote_command(&remote));
    let pane = remote_cat_pane(&remote);
    let mut a = PtyAttach::start(&local, &pane);
    a.type_bytes(b"over-ssh\r");
    // The remote pane's terminal echoes it, then cat prints it again.
    a.wait_seen("over-ssh", 2);
    a.detach();
    let state = remote.json(&["pane", "get", &pane]);
    assert_eq!(
        state["status"], "live",
        "detaching never stops the remote pane"
    );
}

/// The ssh process under an attach is killed: the attach says the link dropped, dials again,
/// and the screen it repaints holds what the pane printed meanwhile; typing works again.
#[test]
fn a_killed_ssh_link_reconnects_and_the_attach_resumes() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    let remote = TestEnv::new();
    add_remote(&local, &sshd, "gpu", &remote_command(&remote));
    let pane = remote_cat_pane(&remote);
    let mut a = PtyAttach::start(&local, &pane);
    a.type_bytes(b"before-drop\r");
    a.wait_seen("before-drop", 2);
    let ssh = a.ssh_children();
    assert_eq!(ssh.len(), 1, "one ssh under the attach: {ssh:?}");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(ssh[0]),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill ssh");
    a.wait_seen("link to gpu lost", 1);
    // The remote pane lives on and prints while the link is down.
    remote.ok(&["pane", "send", &pane, "while-down"]);
    // The repaint after the reconnect shows it (echo and cat's copy).
    a.wait_seen("while-down", 2);
    a.type_bytes(b"after-relink\r");
    a.wait_seen("after-relink", 2);
    a.detach();
}

/// `--remote NAME events` outlives a dropped link: it redials and resumes after the last event
/// it printed, so what happened meanwhile arrives once and nothing twice.
#[test]
fn a_remote_event_stream_resumes_after_a_killed_ssh_link() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    let remote = TestEnv::new();
    add_remote(&local, &sshd, "gpu", &remote_command(&remote));
    let mut events = local
        .command(&["--json", "--remote", "gpu", "events", "--kind", "workspace"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("events");
    let lines = line_reader(events.stdout.take().expect("stdout"));
    let said = line_reader(events.stderr.take().expect("stderr"));
    let mut seen = Vec::new();
    let mut until = |what: &str| {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while !seen.iter().any(|l: &String| l.contains(what)) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) => seen.push(line),
                Err(_) => panic!("no {what:?} in the event stream: {seen:#?}"),
            }
        }
        seen.clone()
    };
    until("synced");
    remote.workspace("before-drop");
    until("before-drop");

    let ssh: Vec<i32> = sshd::children_of(i32::try_from(events.id()).expect("pid"))
        .into_iter()
        .filter(|(_, name)| name == "ssh")
        .map(|(pid, _)| pid)
        .collect();
    assert_eq!(ssh.len(), 1, "one ssh under `events`: {ssh:?}");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(ssh[0]),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill ssh");
    let lost = said
        .recv_timeout(Duration::from_secs(30))
        .expect("a status line on stderr");
    assert!(lost.contains("link to gpu lost"), "{lost}");
    remote.workspace("while-down");
    let all = until("while-down");
    let _ = events.kill();
    let _ = events.wait();
    let created = |name: &str| {
        all.iter()
            .filter(|l| l.contains("workspace_created") && l.contains(name))
            .count()
    };
    assert_eq!(created("before-drop"), 1, "{all:#?}");
    assert_eq!(created("while-down"), 1, "{all:#?}");
}

/// Lines read from `pipe` on a thread of their own.
fn line_reader(pipe: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(pipe)).map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
