//! A pane's program does not gain rights by outliving the server that placed it.
//!
//! A pane plants two daemons, the server is killed (a pane program can: same uid) and a new one
//! starts on the same state dir. Re-parented to init, the daemons' ancestry no longer passes
//! through any server; before `lineage.rs` the new server placed them outside every pane, and
//! they typed into another workspace's shell. The real server binary, real processes: the
//! orphans must be re-parented away from the test, which an in-process server would catch.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod server_process;

use std::path::{Path, PathBuf};

use server_process::{Root, wait_file};

fn cli() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_signaltty-server")).with_file_name("signaltty")
}

/// A daemon: says it is ready (settled in its own session or ignoring hang-ups), waits for the test's `go` file (the pane to attack), tries to type into that pane
/// and records the CLI's exit code and output under `out/`.
fn daemon(root: &Path) -> String {
    format!(
        r#"#!/bin/sh
name=$1
touch '{out}/'$name.ready
while [ ! -f '{out}/go' ]; do sleep 0.05; done
'{cli}' --socket '{socket}' pane send "$(cat '{out}/go')" "pwned-$name" >'{out}/'$name.log 2>&1
echo $? >'{out}/'$name.tmp && mv '{out}/'$name.tmp '{out}/'$name.rc
"#,
        out = root.join("out").display(),
        cli = cli().display(),
        socket = root.join("run/s.sock").display(),
    )
}

#[tokio::test]
async fn daemons_a_pane_planted_stay_confined_after_the_server_restarts() {
    assert!(
        cli().is_file(),
        "{} not found: build the CLI first (`cargo build -p signaltty-cli`)",
        cli().display()
    );
    let root = Root::new();
    std::fs::create_dir(root.path().join("out")).unwrap();
    let daemon = root.script("daemon", &daemon(root.path()));
    let home = root.path().join("home");
    // One daemon leaves the pane's session but keeps its environment; the other scrubs its
    // environment but stays in the session (ignoring the hang-up the server's death sends).
    let planter = root.script(
        "planter",
        &format!(
            "#!/bin/sh\nsetsid -f sh '{d}' left-session\n\
             nohup env -i PATH=\"$PATH\" HOME='{h}' sh '{d}' scrubbed-env >/dev/null 2>&1 &\n\
             echo planted\nexec cat\n",
            d = daemon.display(),
            h = home.display(),
        ),
    );
    let srv = root.start().await;
    let ws = srv.workspace("planted", &root.path().join("a")).await;
    let pane = srv.spawn(&ws.id, "", &[planter.to_str().unwrap()]).await;
    srv.until_output(&pane.id, "planted").await;
    for name in ["left-session", "scrubbed-env"] {
        let ready = root.path().join(format!("out/{name}.ready"));
        wait_file(&ready, |c| c.map(|_| ())).await;
    }
    srv.kill();

    let srv = root.start().await;
    let other = srv.workspace("victim", &root.path().join("b")).await;
    let victim = srv.spawn(&other.id, "", &["cat"]).await;
    std::fs::write(root.path().join("out/go"), &victim.id).unwrap();

    for name in ["left-session", "scrubbed-env"] {
        let rc_path = root.path().join(format!("out/{name}.rc"));
        let rc = wait_file(&rc_path, |c| {
            Some(String::from_utf8_lossy(c?).trim().to_owned()).filter(|s| !s.is_empty())
        })
        .await;
        let log = std::fs::read_to_string(root.path().join(format!("out/{name}.log"))).unwrap();
        assert_ne!(
            rc, "0",
            "the {name} daemon typed into another workspace: {log}"
        );
        assert!(
            log.contains("DENIED_IN_PANE"),
            "the {name} daemon is refused as a pane program: {log}"
        );
    }
    // The user, outside every pane, still can; and nothing of the daemons reached the pane.
    let out = std::process::Command::new(cli())
        .arg("--socket")
        .arg(root.socket())
        .args(["pane", "send", &victim.id, "from-the-user"])
        .env("HOME", &home)
        .env_remove("SIGNALTTY_PANE")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    srv.until_output(&victim.id, "from-the-user").await;
    let screen = srv.scrollback(&victim.id).await;
    assert!(!screen.contains("pwned"), "{screen}");
}
