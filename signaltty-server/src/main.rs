//! `signaltty-server`: parses flags, reads the user's config file, sets up logging, runs the
//! daemon until a signal or Shutdown.

use signaltty_server::args::{self, Invocation, USAGE};
use signaltty_server::config::{Config, default_state_dir};
use signaltty_server::daemon::Daemon;
use tracing::Level;
use tracing_subscriber::layer::{Layer, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

fn main() -> std::process::ExitCode {
    signaltty_server::memory::use_one_arena();
    let args = match args::parse(std::env::args_os().skip(1)) {
        Ok(Invocation::Run(args)) => args,
        Ok(Invocation::Print(text)) => {
            print!("{text}");
            return std::process::ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("signaltty-server: {e}\n\n{USAGE}");
            return std::process::ExitCode::from(2);
        }
    };
    // Before logging: a config file with mistakes stops the start, and the CLI that started us
    // shows what we print on stderr.
    let config_file = signaltty_config::locate(args.config.as_deref()).path;
    let user = match signaltty_config::load_located(args.config.as_deref()) {
        Ok(user) => user,
        Err(problems) => {
            eprintln!("signaltty-server: the config file has mistakes:\n{problems}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let socket = signaltty_proto::resolve_socket_path(args.socket.as_deref());
    let state_dir = args.state_dir.unwrap_or_else(default_state_dir);
    if let Err(e) = init_logging(args.log_file.as_deref(), &state_dir) {
        eprintln!("signaltty-server: cannot set up logging: {e}");
        return std::process::ExitCode::FAILURE;
    }
    signaltty_server::fdlimit::raise_and_log();
    // One async worker, like tmux's one thread: a keystroke's echo then never waits for another
    // CPU to wake up (with two workers tokio woke the idle one on most echoes; p50 and p99 fell
    // 15–30 % with one). What needs a CPU for long — reading and parsing a flooding pane's
    // output, saving, git — runs on the blocking pool, so typing never queues behind it.
    //
    // Blocking-pool threads end 1 s after their last job (tokio's default is 10 s): an idle
    // thread waits with that timeout and wakes once to exit, so with the default a server that
    // had just created panes still woke up to 10 s later, and idle was not idle. A new thread
    // costs tens of microseconds, beside the millisecond of a fork or a save that needs it.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_keep_alive(std::time::Duration::from_secs(1))
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("signaltty-server: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    if let Some(path) = &user.path {
        tracing::info!("config file: {}", path.display());
    }
    let mut config = Config::new(socket, state_dir);
    config.apply_user(user.config);
    config.config_file = Some(config_file);
    match runtime.block_on(run(config)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("signaltty-server: {e}");
            tracing::error!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(config: Config) -> anyhow::Result<()> {
    let daemon = Daemon::start(config).await?;
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    tokio::select! {
        () = daemon.wait() => return Ok(()),
        _ = term.recv() => tracing::info!("SIGTERM: shutting down"),
        _ = int.recv() => tracing::info!("SIGINT: shutting down"),
    }
    daemon.hub().shutdown(true, "signal").await?;
    daemon.wait().await;
    Ok(())
}

fn init_logging(
    log_file: Option<&std::path::Path>,
    state_dir: &std::path::Path,
) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    // `SIGNALTTY_LOG` as `level` or `target=level,…` (e.g. `info,signaltty_server=debug`).
    // `Targets` rather than `EnvFilter`: the same syntax for what we need, without the regex
    // engine, which is a good part of the server's resident code.
    let filter = std::env::var("SIGNALTTY_LOG")
        .ok()
        .and_then(|spec| spec.parse::<tracing_subscriber::filter::Targets>().ok())
        .unwrap_or_else(|| tracing_subscriber::filter::Targets::new().with_default(Level::INFO));
    let file = match log_file {
        Some(path) => Some(path.to_path_buf()),
        None if std::io::stderr().is_terminal() => None,
        None => {
            signaltty_server::listen::private_state_dir(state_dir)?;
            Some(state_dir.join("server.log"))
        }
    };
    let layer = tracing_subscriber::fmt::layer().with_target(false);
    match file {
        Some(path) => {
            let file = signaltty_server::logfile::RotatingLog::open(
                &path,
                signaltty_server::logfile::MAX_BYTES,
            )?;
            let layer = layer
                .with_ansi(false)
                .with_writer(std::sync::Mutex::new(file))
                .with_filter(filter);
            tracing_subscriber::registry().with(layer).init();
        }
        None => {
            let layer = layer.with_writer(std::io::stderr).with_filter(filter);
            tracing_subscriber::registry().with(layer).init();
        }
    }
    Ok(())
}
