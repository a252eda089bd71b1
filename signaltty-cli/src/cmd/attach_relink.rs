//! Re-attaching over a remote link that dropped (issue 33: links fail, agents don't).
//!
//! When the ssh link under a remote attach breaks, the remote pane keeps running; the attach
//! says so on the terminal, dials the remote again with backoff (a new `ssh … bridge`), and
//! attaches anew. The new attach starts with a Snapshot, which repaints the whole screen: what
//! the pane printed while the link was down is on it, nothing is shown twice, and the terminal
//! was told the link dropped (a clear resync rather than a silent gap). The detach key keeps
//! working while it waits: this is a future polled by the attach loop, not a loop of its own.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use signaltty_client::remote::{Remote, connect_remote};
use signaltty_client::{AttachEvents, AttachInput, AttachStart, Backoff, Client, ClientError};

/// A reconnection in progress: the new client and attach halves when it succeeds.
pub type Relink =
    Pin<Box<dyn Future<Output = Result<(Client, AttachEvents, AttachInput), ClientError>> + Send>>;

/// Starts reconnecting to `remote` and attaching with `start`, after the link failed with `why`.
pub fn relink(remote: Remote, start: AttachStart, why: String) -> Relink {
    Box::pin(async move {
        let seed = u64::from(std::process::id());
        let mut backoff =
            Backoff::with_limits(Duration::from_millis(200), Duration::from_secs(10), seed);
        let mut why = why;
        loop {
            let delay = backoff.next_delay();
            super::attach_options::print_status(&format!(
                "[signaltty: link to {} lost ({}); reconnecting in {:.1}s — detach key to leave]",
                remote.name,
                one_line(&why),
                delay.as_secs_f64()
            ));
            tokio::time::sleep(delay).await;
            let attached = async {
                let client = connect_remote(&remote).await?;
                let (events, input) = client.attach(start.clone()).await?.split();
                Ok::<_, ClientError>((client, events, input))
            }
            .await;
            match attached {
                Ok(done) => return Ok(done),
                Err(err) if link_failure(&err) => why = err.to_string(),
                Err(err) => return Err(err),
            }
        }
    })
}

/// The relink in flight, or never (for `select!`).
pub async fn poll_relink(
    relink: &mut Option<Relink>,
) -> Result<(Client, AttachEvents, AttachInput), ClientError> {
    match relink {
        Some(relink) => relink.await,
        None => std::future::pending().await,
    }
}

/// Whether trying the link again may help: the transport broke or the host did not answer. A
/// refusal by the remote server (the pane is gone) or a version mismatch stays an error.
pub fn link_failure(err: &ClientError) -> bool {
    err.is_retryable()
        || matches!(
            err,
            ClientError::Remote {
                reason: "REMOTE_UNREACHABLE" | "REMOTE_TIMEOUT",
                ..
            }
        )
}

fn one_line(text: &str) -> String {
    let line: String = text
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(100)
        .collect();
    line
}
