//! The `signaltty` command-line client: a pure gRPC client of the signaltty server.
//!
//! One clap enum ([`cli::Command`]) with one file per command group under [`cmd`] (`XxxArgs` +
//! `cmd_xxx`). Every command returns a [`error::CliError`] whose kind alone decides the exit code
//! (1 server error, 2 usage error, 3 no server). Human output by default, `--json` for scripts
//! ([`present`]). Reaching the server (and starting one when none answers), the attach driver,
//! the raw-mode guard, the enum names and a race's lines come from the shared `signaltty-client`
//! crate, as they do for the TUI.

pub mod cli;
pub mod cmd;
pub mod error;
pub mod human;
pub mod machine_prefix;
pub mod output;
pub mod present;
pub mod resolve;
pub mod table;

use std::process::ExitCode;

use clap::Parser;

/// Parses the command line, runs the command and turns its outcome into an exit code.
pub fn main_entry() -> ExitCode {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // `gpu:ws/tab` → `--remote gpu ws/tab` (only when a word has a `:` and remotes exist).
    if args
        .iter()
        .skip(1)
        .any(|a| a.to_string_lossy().contains(':'))
    {
        match machine_prefix::rewrite(args.clone(), &machine_prefix::configured_remotes()) {
            Ok(rewritten) => args = rewritten,
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
        }
    }
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            // An agent hook must never fail the agent, not even on a flag this version does not
            // know: report on stderr and exit 0.
            if err.use_stderr() && std::env::args().any(|a| a == "hook-event") {
                eprintln!("signaltty hook-event: {}", err.render());
                return ExitCode::SUCCESS;
            }
            err.exit();
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(cli::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.is_broken_pipe() => ExitCode::SUCCESS,
        Err(err) => {
            // The message can carry a program's text (a title, a name): shown, never obeyed.
            eprintln!("error: {}", signaltty_term::strip(&err.to_string()));
            ExitCode::from(err.exit_code())
        }
    }
}
