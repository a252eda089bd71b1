//! `NotifyLimit`: how many OSC notifications one pane may raise, as a token bucket.
//!
//! Every notification becomes a stored entry, an event on the bus and a poke of the saver. A
//! program that prints `ESC ]9;…` in a loop would otherwise flood the bus (pushing real events
//! out of the replay ring and closing every subscriber as lagging) and churn the 200-entry
//! notification list. A pane may raise [`BURST`] at once and [`PER_SECOND`] a second after that;
//! the rest are dropped and counted. The bucket is refilled from the arrival times, so it needs
//! no timer.

use std::time::Instant;

/// Notifications a pane may raise back to back.
pub const BURST: u32 = 20;
/// Sustained notifications per second once the burst is spent.
pub const PER_SECOND: u32 = 5;

/// One pane's notification allowance.
#[derive(Debug)]
pub struct NotifyLimit {
    tokens: f64,
    last: Instant,
    dropped: u64,
}

impl NotifyLimit {
    /// A full bucket.
    pub fn new(now: Instant) -> Self {
        Self {
            tokens: f64::from(BURST),
            last: now,
            dropped: 0,
        }
    }

    /// Whether a notification arriving at `now` may be raised.
    pub fn admit(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now.max(self.last);
        self.tokens = (self.tokens + elapsed * f64::from(PER_SECOND)).min(f64::from(BURST));
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            self.dropped += 1;
            false
        }
    }

    /// Notifications dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_burst_passes_then_the_rate_holds() {
        let start = Instant::now();
        let mut limit = NotifyLimit::new(start);
        let admitted = (0..1000).filter(|_| limit.admit(start)).count();
        assert_eq!(admitted, BURST as usize);
        assert_eq!(limit.dropped(), 1000 - u64::from(BURST));
        // One second later, PER_SECOND more.
        let later = start + Duration::from_secs(1);
        let admitted = (0..100).filter(|_| limit.admit(later)).count();
        assert_eq!(admitted, PER_SECOND as usize);
    }

    #[test]
    fn a_quiet_pane_gets_its_whole_burst_back_and_no_more() {
        let start = Instant::now();
        let mut limit = NotifyLimit::new(start);
        for _ in 0..BURST {
            assert!(limit.admit(start));
        }
        assert!(!limit.admit(start));
        let much_later = start + Duration::from_secs(3600);
        let admitted = (0..1000).filter(|_| limit.admit(much_later)).count();
        assert_eq!(admitted, BURST as usize);
    }

    #[test]
    fn an_occasional_notifier_is_never_limited() {
        let start = Instant::now();
        let mut limit = NotifyLimit::new(start);
        for i in 0..10_000u64 {
            // Four a second, under the sustained rate.
            assert!(limit.admit(start + Duration::from_millis(250 * i)));
        }
        assert_eq!(limit.dropped(), 0);
    }
}
