//! Rate-limited warnings: a condition that repeats (accept failing while descriptors are out, a
//! refused peer reconnecting in a loop) is logged once, then at most once per interval with the
//! number of repeats in between, so a loop can never fill the disk the state lives on.

use std::time::{Duration, Instant};

/// How often a repeated warning is logged by default.
pub const DEFAULT_EVERY: Duration = Duration::from_secs(10);

/// One repeated warning's limiter.
#[derive(Debug)]
pub struct LogLimit {
    every: Duration,
    last: Option<Instant>,
    suppressed: u64,
}

impl LogLimit {
    /// At most one line per `every`.
    pub const fn new(every: Duration) -> Self {
        LogLimit {
            every,
            last: None,
            suppressed: 0,
        }
    }

    /// Whether to log this occurrence now; `Some(n)` = yes, and `n` occurrences were suppressed
    /// since the last line.
    pub fn allow(&mut self) -> Option<u64> {
        let now = Instant::now();
        match self.last {
            Some(last) if now.duration_since(last) < self.every => {
                self.suppressed += 1;
                None
            }
            _ => {
                self.last = Some(now);
                Some(std::mem::take(&mut self.suppressed))
            }
        }
    }
}

/// A [`LogLimit`] for one call site, shareable across threads (`static`).
#[derive(Debug)]
pub struct SiteLimit(std::sync::Mutex<LogLimit>);

impl SiteLimit {
    /// At most one line per [`DEFAULT_EVERY`].
    pub const fn new() -> Self {
        SiteLimit(std::sync::Mutex::new(LogLimit::new(DEFAULT_EVERY)))
    }

    /// See [`LogLimit::allow`].
    pub fn allow(&self) -> Option<u64> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .allow()
    }
}

impl Default for SiteLimit {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_within_the_interval_are_counted_not_logged() {
        let mut limit = LogLimit::new(Duration::from_secs(3600));
        assert_eq!(limit.allow(), Some(0));
        assert_eq!(limit.allow(), None);
        assert_eq!(limit.allow(), None);
        limit.last = Some(Instant::now() - Duration::from_secs(3601));
        assert_eq!(limit.allow(), Some(2));
    }
}
