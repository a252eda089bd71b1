//! A fake agent for end-to-end hook tests: a shell script in a real pane that runs the real
//! `signaltty hook-event` with payloads from the fixture corpus — either as `signaltty hook-event
//! --agent A --event E` or exactly as the command our installer wrote — while the test, as
//! another client, watches the pane. A waiting hook runs in the background (as the agent's own
//! dialog races it) and its stdout, what the agent would act on, lands in a file.
//!
//! Needs the CLI binary: `cargo build -p signaltty-cli` (or `SIGNALTTY_CLI_BIN`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{Attached, TestServer, WAIT, attach, cli_bin, until_event};
use signaltty_proto::v1 as pb;

/// `$1` the CLI, `$2` the fixtures, `$3` where outputs go, `$4` the agent. Each line read is
/// `MODE EVENT FIXTURE`: `fg` runs the hook, `wait` runs it with `--wait-for-answer` in the
/// background (its stdout lands in `$3/<n>` once it returned), `installed` runs the command in
/// `$3/cmd-EVENT` (what the installer wrote) through `sh -c`. After each line it prints `@<n>@`.
const SCRIPT: &str = r#"
S="$1"; F="$2"; O="$3"; A="$4"; n=0
while read mode ev fx; do
  n=$((n+1))
  case "$mode" in
    fg) "$S" hook-event --agent "$A" --event "$ev" --payload-stdin < "$F/$fx.json" > "$O/$n" ;;
    wait) ( "$S" hook-event --agent "$A" --event "$ev" --payload-stdin --wait-for-answer \
              < "$F/$fx.json" > "$O/$n.part"; mv "$O/$n.part" "$O/$n" ) & ;;
    installed) sh -c "$(cat "$O/cmd-$ev")" < "$F/$fx.json" > "$O/$n" ;;
  esac
  echo "@$n@"
done
"#;

/// The fixtures of one agent version.
pub fn corpus(agent: &str, version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/corpus")
        .join(agent)
        .join(version)
}

pub struct Fake<'a> {
    pub srv: &'a TestServer,
    pub ws: String,
    pub pane: String,
    pub out: PathBuf,
    screen: Attached,
    events: tonic::Streaming<pb::SubscribeResponse>,
    n: usize,
}

impl<'a> Fake<'a> {
    pub async fn start(srv: &'a TestServer, agent: &str, version: &str) -> Fake<'a> {
        let ws = srv.workspace(agent).await;
        let out = srv.dir_path().join(format!("out-{agent}"));
        std::fs::create_dir_all(&out).unwrap();
        let events = srv.subscribe(&[pb::EventKind::Decision]).await;
        let pane = srv
            .spawn_with(pb::SpawnPaneRequest {
                workspace_id: ws.id.clone(),
                argv: vec![
                    "sh".into(),
                    "-c".into(),
                    SCRIPT.into(),
                    format!("fake-{agent}"),
                    cli_bin().display().to_string(),
                    corpus(agent, version).display().to_string(),
                    out.display().to_string(),
                    agent.into(),
                ],
                ..Default::default()
            })
            .await;
        let (screen, _) = attach(srv, &pane.id, 120, 40, true).await;
        Fake {
            srv,
            ws: ws.id,
            pane: pane.id,
            out,
            screen,
            events,
            n: 0,
        }
    }

    /// Makes `installed EVENT …` run `command` (a hook command as the installer wrote it).
    pub fn install_command(&self, event: &str, command: &str) {
        std::fs::write(self.out.join(format!("cmd-{event}")), command).unwrap();
    }

    /// Runs one line of the fake agent; returns its number once the script went past it.
    pub async fn run(&mut self, mode: &str, event: &str, fixture: &str) -> usize {
        self.n += 1;
        self.srv
            .write_input(&self.pane, format!("{mode} {event} {fixture}\n").as_bytes())
            .await
            .expect("input");
        self.screen.until_output(&format!("@{}@", self.n)).await;
        self.n
    }

    /// What hook `n` printed on stdout, once it returned.
    pub async fn output(&self, n: usize) -> String {
        let path = self.out.join(n.to_string());
        let deadline = Instant::now() + WAIT;
        while !path.exists() {
            assert!(Instant::now() < deadline, "hook {n} did not return");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        std::fs::read_to_string(path).unwrap()
    }

    /// Whether hook `n` (a `wait` line) has returned yet.
    pub fn returned(&self, n: usize) -> bool {
        self.out.join(n.to_string()).exists()
    }

    pub async fn state(&self) -> (pb::Lifecycle, pb::Attention, Option<pb::Decision>, String) {
        let p = self.srv.pane(&self.pane).await;
        (
            pb::Lifecycle::try_from(p.lifecycle).unwrap(),
            pb::Attention::try_from(p.attention).unwrap(),
            p.pending_decision,
            p.last_message,
        )
    }

    pub async fn assert_state(&self, lifecycle: pb::Lifecycle, attention: pb::Attention) {
        let (l, a, d, m) = self.state().await;
        assert_eq!(
            (l, a),
            (lifecycle, attention),
            "decision {d:?}, message {m:?}"
        );
    }

    pub async fn created(&mut self) -> pb::Decision {
        let pane = self.pane.clone();
        until_event(&mut self.events, |k| match k {
            pb::event::Kind::DecisionCreated(d) => d.decision.clone().filter(|d| d.pane_id == pane),
            _ => None,
        })
        .await
    }

    pub async fn answer(&self, d: &pb::Decision, option: &str) {
        self.srv
            .decisions()
            .answer_decision(pb::AnswerDecisionRequest {
                pane_id: d.pane_id.clone(),
                decision_id: d.id.clone(),
                option_id: option.into(),
                message: String::new(),
            })
            .await
            .expect("answered while the hook waits");
    }
}
