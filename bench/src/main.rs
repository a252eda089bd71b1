//! `signaltty-bench`: parses flags, runs the suite, prints the table and writes the JSON file.
//! SIGINT, SIGTERM and SIGHUP drop the running suite, whose guards end every server and child
//! and remove the temp dir before the process exits.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use serde_json::json;
use signaltty_bench::{Options, Section, Sizes};
use tokio::signal::unix::{SignalKind, signal};

/// Benchmarks signaltty against tmux and the raw-PTY limit. Use `bench/run`, which builds the
/// release binaries first.
#[derive(Debug, Parser)]
#[command(about)]
struct Args {
    /// A reduced run (smaller files, fewer panes and rounds), under two minutes.
    #[arg(long)]
    quick: bool,
    /// Run only these sections (comma-separated); all by default.
    #[arg(long, value_enum, value_delimiter = ',')]
    sections: Vec<Section>,
    /// Skip signaltty: measure only tmux and the raw PTY.
    #[arg(long)]
    without_signaltty: bool,
    /// The signaltty-server binary [default: next to this binary].
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// The signaltty CLI binary, the attached client [default: next to this binary].
    #[arg(long)]
    cli_bin: Option<PathBuf>,
    /// The `signaltty-tui` binary, the TUI client [default: next to this binary].
    #[arg(long)]
    tui_bin: Option<PathBuf>,
    /// Make the run's temp dir inside this directory.
    #[arg(long)]
    work_dir: Option<PathBuf>,
    /// Keys per system in the echo section (more keys make its p99 steadier).
    #[arg(long)]
    echo_keys: Option<usize>,
    /// Keys per system typed at a person's pace in the echo sections (more make its p99
    /// steadier; 0 skips that part).
    #[arg(long)]
    echo_typing_keys: Option<usize>,
    /// Keys per system while another pane floods, in the echo section (0 skips that part).
    #[arg(long)]
    echo_flood_keys: Option<usize>,
    /// Where to write results-<time>.json.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/out"))]
    out_dir: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("signaltty-bench: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(run(args));
    // Exit without waiting for blocking-pool threads that may still drain a PTY after an
    // interrupt; every guard has already run.
    std::process::exit(code);
}

async fn run(args: Args) -> i32 {
    let options = Options {
        sizes: {
            let mut sizes = if args.quick {
                Sizes::quick()
            } else {
                Sizes::full()
            };
            if let Some(keys) = args.echo_keys {
                sizes.echo_keys = keys;
            }
            if let Some(keys) = args.echo_typing_keys {
                sizes.echo_typing_keys = keys;
            }
            if let Some(keys) = args.echo_flood_keys {
                sizes.echo_flood_keys = keys;
            }
            sizes
        },
        sections: if args.sections.is_empty() {
            Section::ALL.to_vec()
        } else {
            args.sections
        },
        with_signaltty: !args.without_signaltty,
        server_bin: args
            .server_bin
            .unwrap_or_else(signaltty_bench::default_server_bin),
        cli_bin: args
            .cli_bin
            .unwrap_or_else(signaltty_bench::default_cli_bin),
        tui_bin: args
            .tui_bin
            .unwrap_or_else(signaltty_bench::default_tui_bin),
        work_dir: args.work_dir,
    };
    let command: Vec<String> = std::env::args().collect();
    let started = std::time::SystemTime::now();
    let machine = signaltty_bench::report::machine();
    let cpu_at_start = signaltty_bench::procfs::MachineCpu::read();
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        eprintln!("signaltty-bench: cannot install signal handlers");
        return 1;
    };
    // The suite's future is dropped when select! ends, so by the next line every guard has run.
    let outcome = tokio::select! {
        report = signaltty_bench::run(options.clone()) => Ok(report),
        _ = int.recv() => Err("SIGINT"),
        _ = term.recv() => Err("SIGTERM"),
        _ = hup.recv() => Err("SIGHUP"),
    };
    let report = match outcome {
        Ok(Ok(report)) => report,
        Err(signal) => {
            eprintln!("signaltty-bench: {signal}: stopped; servers and temp files cleaned up");
            return 130;
        }
        Ok(Err(e)) => {
            eprintln!("signaltty-bench: {e:#}");
            return 1;
        }
    };
    // A VM's load average cannot see a busy host; the share of CPU time stolen by it can.
    let steal = signaltty_bench::procfs::MachineCpu::read().steal_percent_since(&cpu_at_start);
    println!();
    print!("{}", report.table());
    println!("\nhost steal over the run: {steal:.1} % of CPU time (per section in the JSON)");
    let meta = json!({
        "date": signaltty_bench::report::utc_timestamp(started),
        "command": command,
        "quick": args.quick,
        "commit": git_commit(),
        "machine": machine,
        "load_after": std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim(),
        "steal_percent": steal,
        "sizes": format!("{:?}", options.sizes),
    });
    match report.write_json(&args.out_dir, meta) {
        Ok(path) => println!("\nresults: {}", path.display()),
        Err(e) => {
            eprintln!("signaltty-bench: {e:#}");
            return 1;
        }
    }
    let failed_sections = report.rows.iter().any(|r| r.name.contains(": ERROR"));
    i32::from(failed_sections)
}

/// The checkout's commit, for the report (empty outside a git checkout).
fn git_commit() -> String {
    std::process::Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "rev-parse",
            "--short",
            "HEAD",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}
