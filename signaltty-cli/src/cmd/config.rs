//! `signaltty config check [PATH]` and `signaltty config path`: the user config file
//! (`$XDG_CONFIG_HOME/signaltty/config.toml`, schema in the `signaltty-config` crate). `check`
//! reads the file as the server will at its next start and prints every mistake with its line;
//! it needs no server.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde::Serialize;
use signaltty_config::Problem;

use super::Ctx;
use crate::error::{CliError, CliResult};

/// `signaltty config`
#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    command: ConfigCommand,
}

#[derive(Debug, Subcommand)]
enum ConfigCommand {
    /// Validate a config file and print every mistake with its line (exit 2 if any).
    ///
    /// Without PATH, checks the file the server reads at start: $SIGNALTTY_CONFIG, else
    /// $XDG_CONFIG_HOME/signaltty/config.toml, else ~/.config/signaltty/config.toml (none there
    /// means the defaults, which is fine). The server reads the file only when it starts:
    /// `signaltty server stop` and the next command starts it with the new settings.
    Check {
        /// The file to check [default: the server's config file].
        path: Option<PathBuf>,
    },
    /// Print where the config file is looked for.
    Path,
}

/// What `config check --json` prints.
#[derive(Debug, Serialize)]
struct CheckReport {
    path: PathBuf,
    exists: bool,
    ok: bool,
    problems: Vec<Problem>,
}

/// Runs `signaltty config …`.
pub async fn cmd_config(ctx: &Ctx, args: ConfigArgs) -> CliResult {
    match args.command {
        ConfigCommand::Path => {
            let path = signaltty_config::default_path();
            if ctx.out.is_json() {
                ctx.out.json(&serde_json::json!({ "path": path }))
            } else {
                ctx.out.line(path.display())
            }
        }
        ConfigCommand::Check { path } => check(ctx, path),
    }
}

fn check(ctx: &Ctx, explicit: Option<PathBuf>) -> CliResult {
    let signaltty_config::Location { path, missing } =
        signaltty_config::locate(explicit.as_deref());
    let (exists, problems) = match signaltty_config::load(&path, missing) {
        Ok(loaded) => (loaded.path.is_some(), Vec::new()),
        Err(found) => (path.exists(), found.problems),
    };
    let report = CheckReport {
        path: path.clone(),
        exists,
        ok: problems.is_empty(),
        problems,
    };
    if ctx.out.is_json() {
        ctx.out.json(&report)?;
    } else if report.ok && !exists {
        ctx.out.line(format_args!(
            "{}: no such file; the defaults apply",
            path.display()
        ))?;
    } else if report.ok {
        ctx.out.line(format_args!("{}: ok", path.display()))?;
    } else {
        let listed = signaltty_config::Problems {
            path: path.clone(),
            problems: report.problems.clone(),
        };
        ctx.out.line(listed)?;
    }
    match report.problems.len() {
        0 => Ok(()),
        n => Err(CliError::usage(format!(
            "{} has {n} mistake{}",
            path.display(),
            if n == 1 { "" } else { "s" }
        ))),
    }
}
