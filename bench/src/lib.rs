//! The signaltty benchmark suite: signaltty against tmux and against the raw-PTY limit, on the
//! same machine in the same invocation.
//!
//! The machine it runs on is shared and noisy (absolute times drift by 2× between runs), so
//! every timed comparison interleaves the systems round by round (raw, signaltty, tmux, raw, …;
//! in the echo and TUI sections in an order shuffled per round, `order`) and reports medians,
//! and ratios are taken within a round before the median. Every server, tmux socket, PTY child
//! and temp file is owned by a guard, so an error, a panic or an interrupt (the binary drops the
//! run on SIGINT/SIGTERM/SIGHUP) still cleans up.

pub mod corpus;
pub mod order;
pub mod procfs;
pub mod pty;
pub mod pump;
pub mod report;
pub mod sections;
pub mod signaltty;
pub mod sshd;
pub mod stats;
mod sys;
pub mod tmux;
pub mod units;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context;
use serde_json::json;

use crate::corpus::Corpus;
use crate::report::{Report, Row};

/// A part of the suite, runnable on its own with `--sections`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Section {
    /// Start-up to first answer.
    Startup,
    /// Keystroke echo latency.
    Echo,
    /// RSS with idle panes, creating and listing panes, idle CPU.
    Panes,
    /// Memory per scrollback line, capturing and attaching to a full history.
    Scrollback,
    /// Output throughput.
    Throughput,
    /// Echo while events burst to many subscribers.
    Events,
    /// Reflow of a pane with a full history on resize.
    Reflow,
    /// Workspace diff and dirty check against git, echo while a diff runs.
    Git,
    /// Real CLI processes against tmux's: start-up, capture, creating panes one process each.
    Cli,
    /// The real `signaltty-tui` against `tmux attach`: echo, frames, CPU per MB, idle.
    Tui,
    /// Many agent-like panes (10, 100, 300): echo, server CPU and RSS, event latency.
    Agents,
    /// A race of 8 fake agents: start to the last prompt typed, against `git worktree add` × 8.
    Race,
    /// Echo and throughput through SSH: `signaltty --remote NAME attach` against
    /// `ssh -tt HOST tmux attach`, over a private sshd on loopback.
    Ssh,
}

impl Section {
    /// Every section, in the order a run takes them (cheap ones first).
    pub const ALL: [Section; 13] = [
        Self::Startup,
        Self::Echo,
        Self::Panes,
        Self::Scrollback,
        Self::Reflow,
        Self::Throughput,
        Self::Git,
        Self::Events,
        Self::Cli,
        Self::Tui,
        Self::Agents,
        Self::Race,
        Self::Ssh,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::Startup => "startup",
            Self::Echo => "echo",
            Self::Panes => "panes",
            Self::Scrollback => "scrollback",
            Self::Throughput => "throughput",
            Self::Events => "events",
            Self::Reflow => "reflow",
            Self::Git => "git",
            Self::Cli => "cli",
            Self::Tui => "tui",
            Self::Agents => "agents",
            Self::Race => "race",
            Self::Ssh => "ssh",
        }
    }
}

/// How big a run is.
#[derive(Clone, Debug, PartialEq)]
pub struct Sizes {
    /// Bytes of each throughput file.
    pub throughput_bytes: u64,
    /// Interleaved throughput rounds.
    pub throughput_rounds: usize,
    /// Measured keystrokes per system.
    pub echo_keys: usize,
    /// Keys per system while another pane floods (0: skip that part).
    pub echo_flood_keys: usize,
    /// Keystrokes per system before the next system's turn.
    pub echo_batch: usize,
    /// Keys per system typed at a person's pace, each after a pause (0: skip that part).
    pub echo_typing_keys: usize,
    /// Pane counts at which RSS is read (the last is the creation/listing count).
    pub pane_steps: Vec<usize>,
    /// Panes during the idle-CPU window (must be one of `pane_steps`).
    pub idle_panes: usize,
    /// Length of the idle-CPU window.
    pub idle_window: Duration,
    /// Extra panes that print a prompt line before going idle (memory of a pane that printed).
    pub printed_panes: usize,
    /// Panes per scrollback kind (plain, coloured).
    pub history_panes: usize,
    /// Lines in each pane's history.
    pub history_lines: usize,
    /// Repetitions of quick operations (list, capture, attach).
    pub reps: usize,
    /// Interleaved start-up rounds.
    pub startup_rounds: usize,
    /// Measured keystrokes per client in the `ssh` section's batches.
    pub ssh_echo_keys: usize,
    /// Keys per client typed at a person's pace in the `ssh` section.
    pub ssh_typing_keys: usize,
    /// Bytes of the file the `ssh` section's panes print.
    pub ssh_bytes: u64,
    /// Interleaved throughput rounds in the `ssh` section.
    pub ssh_rounds: usize,
}

impl Sizes {
    /// The full suite, as the issue asks: 200 MB files, 500 panes, 10 s idle window.
    pub fn full() -> Self {
        Self {
            throughput_bytes: 200_000_000,
            throughput_rounds: 3,
            // p99 of 1000 keys rests on the 10 slowest, which moved ±30 % between back-to-back
            // runs of the same binaries on this VM; 5000 keys put 50 behind it (about 5 s more).
            echo_keys: 5000,
            echo_flood_keys: 1000,
            echo_batch: 10,
            // The same for keys at typing pace: p99 of 300 was the 3rd slowest, and one
            // stall of the host decided it (session 13: 0.73 against 1.55 ms in a quiet run);
            // 1000 put 10 behind it (about 80 s more: every key rests 20 ms).
            echo_typing_keys: 1000,
            pane_steps: vec![1, 10, 100, 500],
            idle_panes: 100,
            printed_panes: 100,
            idle_window: Duration::from_secs(10),
            history_panes: 10,
            history_lines: 10_000,
            reps: 20,
            startup_rounds: 10,
            // The `ssh` section is kept near a minute: four clients, each key typed at a
            // person's pace rests 20 ms, and the link is slower than a local socket.
            ssh_echo_keys: 2000,
            ssh_typing_keys: 200,
            ssh_bytes: 30_000_000,
            ssh_rounds: 3,
        }
    }

    /// A reduced run for a quick look (under two minutes).
    pub fn quick() -> Self {
        Self {
            throughput_bytes: 20_000_000,
            throughput_rounds: 2,
            echo_keys: 500,
            echo_flood_keys: 200,
            echo_batch: 10,
            echo_typing_keys: 50,
            pane_steps: vec![1, 10, 100],
            idle_panes: 100,
            printed_panes: 20,
            idle_window: Duration::from_secs(3),
            history_panes: 3,
            history_lines: 10_000,
            reps: 5,
            startup_rounds: 5,
            ssh_echo_keys: 500,
            ssh_typing_keys: 50,
            ssh_bytes: 10_000_000,
            ssh_rounds: 2,
        }
    }
}

/// What to run and where.
#[derive(Clone, Debug)]
pub struct Options {
    /// Sizes of the run.
    pub sizes: Sizes,
    /// The sections to run, in order.
    pub sections: Vec<Section>,
    /// Measure signaltty too (off: only tmux and the raw PTY, e.g. without a built server).
    pub with_signaltty: bool,
    /// The `signaltty-server` binary.
    pub server_bin: PathBuf,
    /// The `signaltty` CLI binary, whose `attach` is the user's client in the echo and
    /// throughput sections.
    pub cli_bin: PathBuf,
    /// The `signaltty-tui` binary, the TUI client of the `tui` section.
    pub tui_bin: PathBuf,
    /// Where to make the run's temp dir (default: the system temp dir).
    pub work_dir: Option<PathBuf>,
}

/// What every section shares: sizes, the temp dir, the inputs, and unique names.
pub struct Bench {
    /// Sizes of the run.
    pub sizes: Sizes,
    /// Measure signaltty too.
    pub with_signaltty: bool,
    /// The `signaltty-server` binary.
    pub server_bin: PathBuf,
    /// The `signaltty` CLI binary.
    pub cli_bin: PathBuf,
    /// The `signaltty-tui` binary.
    pub tui_bin: PathBuf,
    /// The run's temp dir (sockets, state dirs, logs, input files).
    pub dir: PathBuf,
    /// The tmux config file every tmux server loads.
    pub tmux_config: PathBuf,
    /// The input files, when a section needs them.
    pub corpus: Option<Corpus>,
    counter: AtomicU64,
}

impl Bench {
    /// A name unique within the run, for sockets, sessions and markers.
    pub fn unique(&self, prefix: &str) -> String {
        format!("{prefix}{}", self.counter.fetch_add(1, Ordering::Relaxed))
    }

    /// The input files; generated before any section that needs them runs.
    pub fn corpus(&self) -> anyhow::Result<&Corpus> {
        self.corpus
            .as_ref()
            .context("the input files were not generated")
    }
}

/// What one section produced.
#[derive(Debug, Default)]
pub struct SectionOutput {
    /// Table rows.
    pub rows: Vec<Row>,
    /// Details for the JSON file.
    pub details: serde_json::Value,
    /// How things were measured, printed under the table.
    pub notes: Vec<String>,
}

/// Runs the chosen sections and returns the report. A failing section becomes an error row and
/// the others still run; its guards have cleaned up by then.
pub async fn run(options: Options) -> anyhow::Result<Report> {
    raise_open_file_limit();
    let root = match &options.work_dir {
        Some(dir) => tempfile::Builder::new().prefix("run-").tempdir_in(dir),
        None => tempfile::Builder::new()
            .prefix("signaltty-bench-")
            .tempdir(),
    }
    .context("create the temp dir")?;
    let dir = root.path().to_path_buf();
    // The servers refuse a socket directory that others can enter.
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .context("chmod 700 the temp dir")?;
    let tmux_config = dir.join("tmux.conf");
    std::fs::write(&tmux_config, tmux::CONFIG).context("write tmux.conf")?;
    let needs_corpus = options
        .sections
        .iter()
        .any(|s| matches!(s, Section::Throughput | Section::Scrollback));
    let corpus = if needs_corpus {
        let (dir, bytes, lines) = (
            dir.clone(),
            options.sizes.throughput_bytes,
            options.sizes.history_lines,
        );
        eprintln!("generating input files ({} MB each)…", bytes / 1_000_000);
        Some(tokio::task::spawn_blocking(move || Corpus::generate(&dir, bytes, lines)).await??)
    } else {
        None
    };
    let bench = Bench {
        sizes: options.sizes.clone(),
        with_signaltty: options.with_signaltty,
        server_bin: options.server_bin.clone(),
        cli_bin: options.cli_bin.clone(),
        tui_bin: options.tui_bin.clone(),
        dir,
        tmux_config,
        corpus,
        counter: AtomicU64::new(0),
    };
    let mut report = Report::default();
    for section in &options.sections {
        eprintln!("== {} ==", section.name());
        let started = std::time::Instant::now();
        let cpu_before = procfs::MachineCpu::read();
        let result = match section {
            Section::Startup => sections::startup::run(&bench).await,
            Section::Echo => on_one_thread(sections::echo::run(&bench)),
            Section::Panes => sections::panes::run(&bench).await,
            Section::Scrollback => sections::scrollback::run(&bench).await,
            Section::Throughput => sections::throughput::run(&bench).await,
            Section::Events => on_one_thread(sections::events::run(&bench)),
            Section::Reflow => sections::reflow::run(&bench).await,
            Section::Git => sections::git::run(&bench).await,
            Section::Cli => sections::cli::run(&bench).await,
            Section::Tui => sections::tui::run(&bench).await,
            Section::Agents => sections::agents::run(&bench).await,
            Section::Race => sections::race::run(&bench).await,
            Section::Ssh => sections::ssh::run(&bench).await,
        };
        let took = started.elapsed().as_secs_f64();
        let steal = procfs::MachineCpu::read().steal_percent_since(&cpu_before);
        eprintln!("   {took:.0} s, host steal {steal:.1} % of CPU time");
        match result {
            Ok(output) => {
                report.rows.extend(output.rows);
                report.notes.extend(output.notes);
                report.details.insert(
                    section.name().into(),
                    json!({ "seconds": took, "steal_percent": steal, "data": output.details }),
                );
            }
            Err(e) => {
                eprintln!("{} failed: {e:#}", section.name());
                report
                    .rows
                    .push(Row::new(format!("{}: ERROR {e:#}", section.name())));
                report.details.insert(
                    section.name().into(),
                    json!({ "seconds": took, "steal_percent": steal, "error": format!("{e:#}") }),
                );
            }
        }
    }
    // The temp dir (and the input files) go here, after every section's guards.
    drop(bench);
    root.close().context("remove the temp dir")?;
    Ok(report)
}

/// 500 panes need well over a thousand descriptors in each server: lift the soft limit to the
/// hard one, which the servers inherit.
fn raise_open_file_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}

/// The `signaltty-server` next to this binary (both live in `target/release`).
pub fn default_server_bin() -> PathBuf {
    sibling_bin("signaltty-server")
}

/// The `signaltty` CLI next to this binary.
pub fn default_cli_bin() -> PathBuf {
    sibling_bin("signaltty")
}

/// The `signaltty-tui` next to this binary.
pub fn default_tui_bin() -> PathBuf {
    sibling_bin("signaltty-tui")
}

fn sibling_bin(name: &str) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(name)))
        .unwrap_or_else(|| Path::new(name).to_path_buf())
}

/// Runs `section` to completion on a thread of its own with a one-thread runtime, like the
/// `signaltty` CLI's attach client. Echo latency is measured this way: on the multi-thread
/// runtime the gRPC connection task and the measuring code sit on different threads, so every
/// echo would pay two cross-thread wake-ups inside the client. (Its blocking measurements, raw
/// PTY and tmux, use that runtime's blocking pool as before.) Blocks the calling thread.
fn on_one_thread<T: Send>(
    section: impl std::future::Future<Output = anyhow::Result<T>> + Send,
) -> anyhow::Result<T> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?
                    .block_on(section)
            })
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the section's thread panicked")))
    })
}
