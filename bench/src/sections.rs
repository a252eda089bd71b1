//! The benchmark's sections, one file each. Every section starts its own servers and lets
//! their guards end them, so sections are independent and a failure stays local.

pub mod agents;
pub mod cli;
pub mod echo;
pub mod events;
pub mod git;
pub mod panes;
pub mod race;
pub mod reflow;
pub mod scrollback;
pub mod ssh;
mod ssh_setup;
pub mod startup;
pub mod throughput;
pub mod tui;
pub mod tui_setup;

use std::future::Future;
use std::time::{Duration, Instant};

use anyhow::bail;

use crate::pty::PtyChild;

/// The command every idle pane runs, in both multiplexers.
pub fn idle_argv() -> Vec<String> {
    vec!["sleep".into(), "100000".into()]
}

/// `sh -c SCRIPT`.
pub fn sh(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
}

/// Median of durations in milliseconds (0 when there are none).
pub fn median_ms(samples: &[Duration]) -> f64 {
    crate::stats::median(&crate::stats::millis(samples)).unwrap_or(0.0)
}

/// Runs a blocking step on a PTY on the blocking pool and hands the PTY back with the result.
pub async fn blocking<T: Send + 'static>(
    mut pty: PtyChild,
    step: impl FnOnce(&mut PtyChild) -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<(PtyChild, T)> {
    tokio::task::spawn_blocking(move || {
        let out = step(&mut pty)?;
        Ok((pty, out))
    })
    .await?
}

/// Polls `check` every 20 ms until it holds, for at most two minutes.
pub async fn wait_for<F, Fut>(mut check: F) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<bool>>,
{
    let deadline = Instant::now() + Duration::from_secs(120);
    while !check().await? {
        if Instant::now() > deadline {
            bail!("a pane never showed what it printed");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}
