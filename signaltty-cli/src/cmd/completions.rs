//! `signaltty completions SHELL` (clap_complete) and `signaltty man [--dir DIR]` (clap_mangen):
//! both generated from the one clap definition in [`crate::cli::Cli`], so they never drift from
//! the commands. Neither needs a server.

use std::path::PathBuf;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::Ctx;
use crate::cli::Cli;
use crate::error::{CliError, CliResult};

/// `signaltty completions`
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    shell: Shell,
}

/// `signaltty man`
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write one page per command (signaltty.1, signaltty-pane-spawn.1, …) into this directory
    /// instead of printing signaltty(1) on stdout.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Prints the completion script for a shell on stdout.
pub fn cmd_completions(ctx: &Ctx, args: CompletionsArgs) -> CliResult {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "signaltty", &mut script);
    ctx.out.bytes(&script)
}

/// Prints signaltty(1), or writes every page into a directory.
pub fn cmd_man(ctx: &Ctx, args: ManArgs) -> CliResult {
    let command = Cli::command();
    match args.dir {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut page)
                .map_err(|e| CliError::local(format!("cannot render the man page: {e}")))?;
            ctx.out.bytes(&page)
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| CliError::local(format!("cannot create {}: {e}", dir.display())))?;
            clap_mangen::generate_to(command, &dir).map_err(|e| {
                CliError::local(format!("cannot write man pages to {}: {e}", dir.display()))
            })?;
            ctx.out
                .line(format_args!("man pages written to {}", dir.display()))
        }
    }
}
