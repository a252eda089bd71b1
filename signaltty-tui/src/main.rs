//! `signaltty-tui`: parses the arguments, loads the keymap, runs the TUI.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// The signaltty terminal UI. Opens the workspace of the current directory (creating it, with a
/// shell, the first time); the server is started on demand. Quitting detaches: panes keep
/// running.
#[derive(Parser, Debug)]
#[command(name = "signaltty-tui", version)]
struct Args {
    /// The server's socket (default: $SIGNALTTY_SOCKET, else the per-user default).
    #[arg(long)]
    socket: Option<PathBuf>,
    /// The config file (default: $SIGNALTTY_CONFIG, else $XDG_CONFIG_HOME/signaltty/config.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Validate the config's [tui.keymap] and exit: 0 when valid, 2 with every error.
    #[arg(long)]
    keymap_check: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let signaltty_tui::config::Loaded {
        keymap,
        path,
        fast_paths,
    } = match signaltty_tui::config::load(args.config.as_deref()) {
        Ok(loaded) => loaded,
        Err(refused) => {
            eprintln!("{}", refused.0);
            return ExitCode::from(2);
        }
    };
    for warning in &keymap.warnings {
        eprintln!("warning: {warning}");
    }
    if args.keymap_check {
        let shown = path
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "no config file: the defaults".to_owned());
        println!("keymap ok ({shown})");
        return ExitCode::SUCCESS;
    }
    let start_dir = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "/".into());
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("signaltty-tui: cannot start: {err}");
            return ExitCode::FAILURE;
        }
    };
    let options = signaltty_tui::runtime::Options {
        socket: args.socket,
        start_dir,
        keymap,
        fast_paths,
    };
    match runtime.block_on(signaltty_tui::runtime::run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("signaltty-tui: {err}");
            ExitCode::FAILURE
        }
    }
}
