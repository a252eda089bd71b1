//! One socket for every machine: a client of the LOCAL server reaches a remote machine's
//! objects by adding the metadata `signaltty-machine: NAME` to any call; the local server
//! forwards it over its own ssh link (a real OpenSSH server on loopback, two real servers, the
//! real CLI writing the config). `ListMachines` says how each link is.

mod common;
mod sshd;

use std::io::Read;
use std::time::{Duration, Instant};

use common::TestEnv;
use signaltty_proto::v1 as pb;
use sshd::{Sshd, add_remote, remote_command};
use tokio_stream::StreamExt;
use tonic::transport::Channel;

const MACHINE: &str = "signaltty-machine";

/// `msg` for machine `name`.
fn on<T>(name: &str, msg: T) -> tonic::Request<T> {
    let mut req = tonic::Request::new(msg);
    req.metadata_mut()
        .insert(MACHINE, name.parse().expect("ascii name"));
    req
}

fn reason(status: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_error_details()
        .error_info()
        .map(|i| i.reason.clone())
        .unwrap_or_default()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// The local server (auto-started by the CLI) and a channel to its socket.
async fn local_channel(local: &TestEnv) -> Channel {
    signaltty_proto::connect(&local.socket)
        .await
        .expect("connect to the local socket")
}

async fn machines(channel: &Channel, connect: bool) -> Vec<pb::Machine> {
    pb::server_service_client::ServerServiceClient::new(channel.clone())
        .list_machines(pb::ListMachinesRequest { connect })
        .await
        .expect("ListMachines")
        .into_inner()
        .machines
}

/// Asks `ListMachines` until `name`'s state is `want` (a condition, not a sleep: each call
/// returns at once).
async fn until_state(channel: &Channel, name: &str, want: pb::MachineState) -> pb::Machine {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let all = machines(channel, false).await;
        let m = all.iter().find(|m| m.name == name).expect("listed").clone();
        if m.state() == want {
            return m;
        }
        assert!(
            Instant::now() < deadline,
            "{name} never became {want:?}: {m:?}"
        );
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The `ssh` processes the local server runs (its links).
fn server_ssh_children(pid: u32) -> Vec<i32> {
    sshd::children_of(i32::try_from(pid).expect("pid"))
        .into_iter()
        .filter(|(_, name)| name == "ssh")
        .map(|(pid, _)| pid)
        .collect()
}

/// Through the local socket only: list a remote's workspaces, spawn a pane there, see the spawn
/// in its event stream, attach and type, answer its agent's decision; the link's state in
/// `ListMachines`; a killed link ends the attach with REMOTE_LINK_LOST, reconnects by itself,
/// and calls work again.
#[test]
fn one_local_socket_reaches_a_remote_machines_objects() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    let remote = TestEnv::new();
    // The local server runs before the remote is added: it reads the config file on use.
    local.ok(&["workspace", "list"]);
    add_remote(&local, &sshd, "gpu", &remote_command(&remote));
    let far = remote.workspace("far");
    let rt = runtime();
    rt.block_on(async {
        let ch = local_channel(&local).await;
        let listed = machines(&ch, false).await;
        assert_eq!(listed[0].name, "local", "{listed:?}");
        assert_eq!(listed[0].state(), pb::MachineState::Connected);
        assert_eq!(listed[1].name, "gpu", "{listed:?}");
        assert_eq!(listed[1].state(), pb::MachineState::Idle, "not dialled yet");

        // Workspaces: the remote's with the metadata, this machine's without.
        let mut workspaces = pb::workspace_service_client::WorkspaceServiceClient::new(ch.clone());
        let there = workspaces
            .list_workspaces(on("gpu", pb::ListWorkspacesRequest::default()))
            .await
            .expect("remote ListWorkspaces")
            .into_inner();
        assert_eq!(there.workspaces[0].id, far, "{there:?}");
        let here = workspaces
            .list_workspaces(pb::ListWorkspacesRequest::default())
            .await
            .expect("local ListWorkspaces")
            .into_inner();
        assert!(here.workspaces.is_empty(), "{here:?}");
        let gpu = &machines(&ch, false).await[1];
        assert_eq!(gpu.state(), pb::MachineState::Connected, "{gpu:?}");
        assert_eq!(gpu.server_version, env!("CARGO_PKG_VERSION"));
        assert!(gpu.connected_at.is_some());

        // Events: subscribe to the remote's, spawn a pane there, see it.
        let head = pb::server_service_client::ServerServiceClient::new(ch.clone())
            .get_status(on("gpu", pb::GetStatusRequest {}))
            .await
            .expect("remote GetStatus")
            .into_inner()
            .head_seq;
        let mut events = pb::event_service_client::EventServiceClient::new(ch.clone())
            .subscribe(on(
                "gpu",
                pb::SubscribeRequest {
                    from_seq: Some(head),
                    kinds: vec![],
                },
            ))
            .await
            .expect("remote Subscribe")
            .into_inner();
        let mut panes = pb::pane_service_client::PaneServiceClient::new(ch.clone());
        let pane = panes
            .spawn_pane(on(
                "gpu",
                pb::SpawnPaneRequest {
                    workspace_id: far.clone(),
                    argv: vec!["cat".into()],
                    title: "remote-cat".into(),
                    ..Default::default()
                },
            ))
            .await
            .expect("remote SpawnPane")
            .into_inner()
            .pane
            .expect("pane")
            .id;
        let spawned = tokio::time::timeout(common::WAIT, async {
            while let Some(msg) = events.next().await {
                let msg = msg.expect("event");
                if let Some(pb::subscribe_response::Kind::Event(e)) = &msg.kind
                    && matches!(&e.kind, Some(pb::event::Kind::PaneCreated(c))
                        if c.pane.as_ref().is_some_and(|p| p.id == pane))
                {
                    return true;
                }
            }
            false
        })
        .await;
        assert_eq!(spawned, Ok(true), "the remote's PaneCreated for {pane}");
        assert!(
            remote.ok(&["pane", "list"]).contains(&pane),
            "the pane runs on the remote"
        );

        // Attach: typing reaches the remote pane, its echo comes back.
        let (input, rx) = tokio::sync::mpsc::channel(8);
        input
            .send(pb::AttachRequest {
                kind: Some(pb::attach_request::Kind::Start(pb::attach_request::Start {
                    pane_id: pane.clone(),
                    cols: 80,
                    rows: 24,
                    ..Default::default()
                })),
            })
            .await
            .expect("start");
        let mut attach = panes
            .attach(on("gpu", tokio_stream::wrappers::ReceiverStream::new(rx)))
            .await
            .expect("remote Attach")
            .into_inner();
        input
            .send(pb::AttachRequest {
                kind: Some(pb::attach_request::Kind::Input(pb::attach_request::Input {
                    data: b"through-one-socket\r".to_vec(),
                })),
            })
            .await
            .expect("type");
        let mut seen = String::new();
        tokio::time::timeout(common::WAIT, async {
            // The pane's terminal echoes the line, then cat prints it again.
            while seen.matches("through-one-socket").count() < 2 {
                let msg = attach.next().await.expect("open").expect("attach message");
                match msg.kind {
                    Some(pb::attach_response::Kind::Output(o)) => {
                        seen.push_str(&String::from_utf8_lossy(&o.data));
                    }
                    Some(pb::attach_response::Kind::Snapshot(s)) => {
                        seen.push_str(&String::from_utf8_lossy(&s.screen));
                    }
                    _ => {}
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no echo through the local socket: {seen:?}"));

        // A decision of the remote's agent, answered through the local socket.
        let mut hook = remote.permission_hook(&pane, true);
        let mut decisions = pb::decision_service_client::DecisionServiceClient::new(ch.clone());
        let deadline = Instant::now() + common::WAIT;
        let decision = loop {
            let listed = decisions
                .list_pending_decisions(on("gpu", pb::ListPendingDecisionsRequest::default()))
                .await
                .expect("remote ListPendingDecisions")
                .into_inner();
            if let Some(d) = listed.decisions.into_iter().find(|d| d.answerable) {
                break d;
            }
            assert!(Instant::now() < deadline, "no remote decision");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let option = decision
            .options
            .iter()
            .find(|o| o.id == "once")
            .map_or_else(|| decision.options[0].id.clone(), |o| o.id.clone());
        decisions
            .answer_decision(on(
                "gpu",
                pb::AnswerDecisionRequest {
                    pane_id: pane.clone(),
                    decision_id: decision.id.clone(),
                    option_id: option,
                    message: String::new(),
                },
            ))
            .await
            .expect("remote AnswerDecision");
        let mut verdict = String::new();
        hook.stdout
            .take()
            .expect("stdout")
            .read_to_string(&mut verdict)
            .expect("hook output");
        assert!(hook.wait().expect("hook").success());
        assert!(
            verdict.contains("allow"),
            "the remote hook's verdict: {verdict}"
        );

        // The link dies under the attach: the stream ends with a status, the link comes back.
        let pid = pb::server_service_client::ServerServiceClient::new(ch.clone())
            .get_status(pb::GetStatusRequest {})
            .await
            .expect("local GetStatus")
            .into_inner()
            .pid;
        // The link's ssh, and the shared login it made (ControlPersist): both go.
        let ssh = server_ssh_children(pid);
        assert!(!ssh.is_empty(), "the server runs the link's ssh");
        for pid in ssh {
            nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            )
            .expect("kill the link");
        }
        let ended = tokio::time::timeout(common::WAIT, async {
            loop {
                match attach.next().await {
                    Some(Ok(_)) => continue,
                    Some(Err(status)) => return Some(status),
                    None => return None,
                }
            }
        })
        .await
        .expect("the attach ends when the link drops");
        let ended = ended.expect("with an error status, not a clean end");
        assert_eq!(ended.code(), tonic::Code::Unavailable, "{ended:?}");
        assert_eq!(reason(&ended), "REMOTE_LINK_LOST", "{ended:?}");
        let down = until_state(&ch, "gpu", pb::MachineState::Reconnecting).await;
        assert_eq!(down.reason, "REMOTE_LINK_LOST", "{down:?}");
        assert!(down.next_try_at.is_some(), "{down:?}");
        until_state(&ch, "gpu", pb::MachineState::Connected).await;
        let again = workspaces
            .list_workspaces(on("gpu", pb::ListWorkspacesRequest::default()))
            .await
            .expect("ListWorkspaces after the reconnect")
            .into_inner();
        assert_eq!(again.workspaces[0].id, far);
    });
}

/// An unreachable remote is FAILED with why; calls to it fail at once with the reason; a name
/// that is no remote is NOT_FOUND and points at `signaltty remote list`.
#[test]
fn a_down_remote_says_why_and_an_unknown_machine_is_not_found() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    sshd::add_unreachable_remote(&local, &sshd, "off");
    local.ok(&["workspace", "list"]);
    runtime().block_on(async {
        let ch = local_channel(&local).await;
        let listed = machines(&ch, true).await;
        let off = listed.iter().find(|m| m.name == "off").expect("off listed");
        assert_eq!(off.state(), pb::MachineState::Failed, "{off:?}");
        assert_eq!(off.reason, "REMOTE_UNREACHABLE", "{off:?}");
        assert!(off.detail.contains("cannot reach off"), "{off:?}");
        assert!(off.next_try_at.is_some(), "{off:?}");

        let mut workspaces = pb::workspace_service_client::WorkspaceServiceClient::new(ch.clone());
        let started = Instant::now();
        let err = workspaces
            .list_workspaces(on("off", pb::ListWorkspacesRequest::default()))
            .await
            .expect_err("off is down");
        assert_eq!(err.code(), tonic::Code::Unavailable, "{err:?}");
        assert_eq!(reason(&err), "REMOTE_UNREACHABLE", "{err:?}");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "a down link fails at once, not after a dial: {:?}",
            started.elapsed()
        );

        let err = workspaces
            .list_workspaces(on("nope", pb::ListWorkspacesRequest::default()))
            .await
            .expect_err("no such machine");
        assert_eq!(err.code(), tonic::Code::NotFound, "{err:?}");
        assert_eq!(reason(&err), "UNKNOWN_MACHINE", "{err:?}");
        assert!(err.message().contains("signaltty remote list"), "{err:?}");

        // `local` is this machine, named explicitly.
        workspaces
            .list_workspaces(on("local", pb::ListWorkspacesRequest::default()))
            .await
            .expect("local by name");
    });
    // A remote removed from the config file leaves the table at the next listing.
    local.ok(&["remote", "remove", "off"]);
    runtime().block_on(async {
        let ch = local_channel(&local).await;
        let names: Vec<String> = machines(&ch, false)
            .await
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(names, ["local"]);
    });
}

/// A remote whose server hangs (stopped) holds its own calls only: local calls and
/// `ListMachines` answer at once meanwhile, and the held call completes once it resumes.
#[test]
fn a_hung_remote_never_slows_local_calls() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    let remote = TestEnv::new();
    add_remote(&local, &sshd, "gpu", &remote_command(&remote));
    remote.workspace("far");
    let remote_pid = remote.json(&["server", "status"])["pid"]
        .as_i64()
        .and_then(|p| i32::try_from(p).ok())
        .expect("remote pid");
    local.ok(&["workspace", "list"]);
    runtime().block_on(async {
        let ch = local_channel(&local).await;
        machines(&ch, true).await;
        let stopped = nix::unistd::Pid::from_raw(remote_pid);
        nix::sys::signal::kill(stopped, nix::sys::signal::Signal::SIGSTOP).expect("SIGSTOP");
        let mut far = pb::workspace_service_client::WorkspaceServiceClient::new(ch.clone());
        let held = tokio::spawn(async move {
            far.list_workspaces(on("gpu", pb::ListWorkspacesRequest::default()))
                .await
        });
        let mut near = pb::workspace_service_client::WorkspaceServiceClient::new(ch.clone());
        let mut slowest = Duration::ZERO;
        for _ in 0..20 {
            let t = Instant::now();
            near.list_workspaces(pb::ListWorkspacesRequest::default())
                .await
                .expect("local call");
            machines(&ch, false).await;
            slowest = slowest.max(t.elapsed());
        }
        assert!(
            !held.is_finished(),
            "the remote call is held while it is stopped"
        );
        nix::sys::signal::kill(stopped, nix::sys::signal::Signal::SIGCONT).expect("SIGCONT");
        assert!(
            slowest < Duration::from_millis(500),
            "local calls waited on a hung remote: {slowest:?}"
        );
        let done = tokio::time::timeout(common::WAIT, held)
            .await
            .expect("the held call completes")
            .expect("task")
            .expect("remote call");
        assert_eq!(done.into_inner().workspaces[0].name, "far");
    });
}

/// Figures for the report: a unary call forwarded by the local server against the same call
/// over the client's own ssh link (`--remote`'s transport), 20 of each on warm links.
/// `cargo test -p signaltty-cli --test remote_api -- --ignored --nocapture`
#[test]
#[ignore = "a measurement, not a check"]
fn forwarded_call_latency() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    let remote = TestEnv::new();
    add_remote(&local, &sshd, "gpu", &remote_command(&remote));
    remote.workspace("far");
    local.ok(&["workspace", "list"]);
    runtime().block_on(async {
        let ch = local_channel(&local).await;
        machines(&ch, true).await;
        let mut fwd = pb::server_service_client::ServerServiceClient::new(ch.clone());
        let direct = signaltty_client::remote::connect_remote(&signaltty_client::remote::Remote {
            name: "gpu".into(),
            host: "127.0.0.1".into(),
            ssh_options: sshd.ssh_options(),
            command: remote_command(&remote),
            control_dir: Some(local.dir.path().to_path_buf()),
        })
        .await
        .expect("direct link");
        let mut direct = direct.server();
        let times = |label: &str, mut samples: Vec<Duration>| {
            samples.sort();
            eprintln!(
                "{label}: p50 {:?}  p90 {:?}  max {:?}",
                samples[samples.len() / 2],
                samples[samples.len() * 9 / 10],
                samples[samples.len() - 1]
            );
        };
        for _ in 0..3 {
            let mut a = Vec::new();
            let mut b = Vec::new();
            let mut c = Vec::new();
            for _ in 0..20 {
                let t = Instant::now();
                fwd.get_status(on("gpu", pb::GetStatusRequest {}))
                    .await
                    .expect("forwarded");
                a.push(t.elapsed());
                let t = Instant::now();
                direct
                    .get_status(pb::GetStatusRequest {})
                    .await
                    .expect("direct");
                b.push(t.elapsed());
                let t = Instant::now();
                fwd.get_status(pb::GetStatusRequest {})
                    .await
                    .expect("local");
                c.push(t.elapsed());
            }
            times("forwarded by the local server", a);
            times("direct ssh link (--remote's)  ", b);
            times("local, for scale              ", c);
        }
        let mut cli = Vec::new();
        for _ in 0..20 {
            let t = Instant::now();
            local.ok(&["--remote", "gpu", "server", "status"]);
            cli.push(t.elapsed());
        }
        times(
            "`signaltty --remote gpu server status` (a process each)",
            cli,
        );
    });
}

/// A third-party client: the Python example (examples/python/remote_workspaces.py, stubs
/// generated from proto/) lists a remote machine's workspaces through the local socket with the
/// metadata alone. Needs python3 with venv and pip's access to the pinned grpcio (as
/// examples/python/run.sh, which CI runs); without python3 it is skipped, loudly.
#[test]
fn the_python_example_lists_a_remote_machine_through_the_local_socket() {
    let Some(sshd) = Sshd::start() else { return };
    let python = std::process::Command::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .status();
    if !python.is_ok_and(|s| s.success()) {
        eprintln!(
            "\n!!! SKIPPED: python3 with venv is missing: the Python example did not run !!!\n"
        );
        return;
    }
    let local = TestEnv::new();
    let remote = TestEnv::new();
    add_remote(&local, &sshd, "gpu", &remote_command(&remote));
    let far = remote.workspace("far-from-python");
    local.ok(&["workspace", "list"]);
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python/run_remote.sh");
    let out = std::process::Command::new("bash")
        .arg(script)
        .arg(&local.socket)
        .arg("gpu")
        .output()
        .expect("run the Python example");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("machine gpu 127.0.0.1 MACHINE_STATE_CONNECTED"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("gpu: workspace {far} 'far-from-python'")),
        "{stdout}"
    );
    assert!(
        stdout.contains("no-such-machine: NOT_FOUND UNKNOWN_MACHINE"),
        "{stdout}"
    );

    // The same program inside a local pane is a pane client: all of gpu is beyond its
    // workspace, so the forward is refused (the default policy).
    let here = local.workspace("here");
    let line = format!(
        "bash {} {} gpu 2>&1 | grep -o 'PERMISSION_DENIED\\|inside a pane' | sort -u; echo EXIT",
        script_path().display(),
        local.socket.display()
    );
    let pane = local.json(&["pane", "spawn", &here, "--", "sh", "-c", &line])["pane"]["id"]
        .as_str()
        .expect("pane id")
        .to_owned();
    let screen = common::wait_for("the pane's script to end", common::WAIT, || {
        let text = local.ok(&["pane", "read", "--scrollback", &pane]);
        text.lines().any(|l| l.trim() == "EXIT").then_some(text)
    });
    assert!(screen.contains("PERMISSION_DENIED"), "{screen}");
    assert!(screen.contains("inside a pane"), "{screen}");
}

fn script_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python/run_remote.sh")
}
