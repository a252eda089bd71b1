//! Reconnecting after the server went away: exponential backoff with jitter, and a loop that
//! uses it.
//!
//! Delays double from 1 s up to a 30 s cap; each is then drawn uniformly from its upper half
//! ("equal jitter": between d/2 and d), so clients that lost the same server do not come back
//! in lock-step, yet none retries sooner than half the nominal delay. The random source is a
//! seeded SplitMix64, so tests can fix the seed and get the same sequence every time.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::client::Client;
use crate::connect::{AutoStart, Target, connect};
use crate::error::ClientError;

/// The first delay.
pub const BASE_DELAY: Duration = Duration::from_secs(1);
/// No delay is longer than this.
pub const MAX_DELAY: Duration = Duration::from_secs(30);

/// Exponential backoff with jitter. See the module docs.
#[derive(Debug, Clone)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    attempt: u32,
    rng: SplitMix64,
}

impl Backoff {
    /// 1 s base, 30 s cap, seeded from the clock and the pid.
    pub fn new() -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Self::with_seed(nanos ^ (u64::from(std::process::id()) << 32))
    }

    /// 1 s base, 30 s cap, with a fixed seed (deterministic).
    pub fn with_seed(seed: u64) -> Self {
        Self::with_limits(BASE_DELAY, MAX_DELAY, seed)
    }

    /// Any base and cap, with a fixed seed.
    pub fn with_limits(base: Duration, cap: Duration, seed: u64) -> Self {
        Backoff {
            base,
            cap: cap.max(base),
            attempt: 0,
            rng: SplitMix64(seed),
        }
    }

    /// The delay before the next attempt; each call counts one attempt.
    pub fn next_delay(&mut self) -> Duration {
        let nominal = self
            .base
            .checked_mul(1u32.checked_shl(self.attempt).unwrap_or(u32::MAX))
            .unwrap_or(self.cap)
            .min(self.cap);
        self.attempt = self.attempt.saturating_add(1);
        let half = nominal / 2;
        let spread = u64::try_from((nominal - half).as_nanos()).unwrap_or(u64::MAX);
        half + Duration::from_nanos(self.rng.below_or_equal(spread))
    }

    /// Attempts counted since the last success.
    pub fn attempts(&self) -> u32 {
        self.attempt
    }

    /// Back to the base delay (after a success).
    pub fn reset(&mut self) {
        self.attempt = 0;
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self::new()
    }
}

/// SplitMix64: tiny, fast, and good enough to spread retries (not for secrets).
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..=max` (the modulo bias is irrelevant for delays).
    fn below_or_equal(&mut self, max: u64) -> u64 {
        match max.checked_add(1) {
            Some(bound) => self.next() % bound,
            None => self.next(),
        }
    }
}

/// Connects to `target` until a server answers `GetStatus`, retrying with `backoff` while the
/// failure is retryable (no server yet, connection lost); any other error (an untrusted socket,
/// a failed start) ends the loop.
/// `on_wait` hears each failure and the delay before the next try (a TUI shows
/// "reconnecting…"). The backoff is reset on success.
pub async fn reconnect(
    target: &Target,
    auto: AutoStart,
    backoff: &mut Backoff,
    mut on_wait: impl FnMut(&ClientError, Duration),
) -> Result<Client, ClientError> {
    loop {
        // A connection is only "back" once the server answers: a connect can still reach a
        // server that is going away (its listening socket outlives its other descriptors for a
        // moment), and the first call on it would fail.
        let answered = match connect(target, auto).await {
            Ok(client) => client.status().await.map(|_| client),
            Err(err) => Err(err),
        };
        match answered {
            Ok(client) => {
                backoff.reset();
                return Ok(client);
            }
            Err(err) if err.is_retryable() => {
                let delay = backoff.next_delay();
                on_wait(&err, delay);
                tokio::time::sleep(delay).await;
            }
            Err(err) => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_from_one_second_to_the_cap_within_their_upper_half() {
        let mut backoff = Backoff::with_seed(7);
        let nominal = [1, 2, 4, 8, 16, 30, 30, 30, 30, 30];
        for secs in nominal {
            let d = backoff.next_delay();
            let n = Duration::from_secs(secs);
            assert!(d >= n / 2 && d <= n, "{d:?} outside [{:?}, {n:?}]", n / 2);
        }
        assert_eq!(backoff.attempts(), 10);
    }

    #[test]
    fn the_same_seed_gives_the_same_delays_and_another_seed_others() {
        let run = |seed| {
            let mut b = Backoff::with_seed(seed);
            (0..8).map(|_| b.next_delay()).collect::<Vec<_>>()
        };
        assert_eq!(run(42), run(42));
        assert_ne!(run(42), run(43));
    }

    #[test]
    fn jitter_actually_spreads_the_delays() {
        let firsts: std::collections::HashSet<Duration> = (0..32)
            .map(|seed| Backoff::with_seed(seed).next_delay())
            .collect();
        assert!(firsts.len() > 16, "only {} distinct delays", firsts.len());
    }

    #[test]
    fn reset_starts_over_and_huge_attempt_counts_stay_at_the_cap() {
        let mut backoff = Backoff::with_seed(1);
        for _ in 0..200 {
            assert!(backoff.next_delay() <= MAX_DELAY);
        }
        backoff.reset();
        assert_eq!(backoff.attempts(), 0);
        assert!(backoff.next_delay() <= BASE_DELAY);
    }

    proptest::proptest! {
        /// For any seed and any number of attempts, each delay lies in the upper half of its
        /// nominal value, and nominal values double from the base up to the cap.
        #[test]
        fn every_delay_is_within_its_jitter_band(seed: u64, attempts in 1usize..80) {
            let mut backoff = Backoff::with_seed(seed);
            for n in 0..attempts {
                let nominal = BASE_DELAY
                    .saturating_mul(1u32 << n.min(20))
                    .min(MAX_DELAY);
                let d = backoff.next_delay();
                proptest::prop_assert!(d >= nominal / 2 && d <= nominal, "{n}: {d:?} vs {nominal:?}");
            }
        }
    }

    #[tokio::test]
    async fn reconnect_gives_up_on_an_error_that_retrying_cannot_fix() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777))
            .expect("chmod");
        let target = Target::new(dir.path().join("s.sock"));
        let mut waits = 0;
        let err = reconnect(
            &target,
            AutoStart::No,
            &mut Backoff::with_seed(3),
            |_, _| waits += 1,
        )
        .await
        .expect_err("an open directory is never trusted");
        assert!(matches!(err, ClientError::Untrusted(_)), "{err:?}");
        assert_eq!(waits, 0);
    }

    #[tokio::test]
    async fn reconnect_waits_with_backoff_while_no_server_answers() {
        let dir = crate::connect::tests::private_tempdir();
        let target = Target::new(dir.path().join("s.sock"));
        let ms = Duration::from_millis;
        let mut backoff = Backoff::with_limits(ms(1), ms(8), 5);
        let mut delays = Vec::new();
        let attempt = reconnect(&target, AutoStart::No, &mut backoff, |err, delay| {
            assert!(err.is_retryable(), "{err:?}");
            delays.push(delay);
        });
        // No server ever answers: the loop keeps waiting until we stop it.
        let outcome = tokio::time::timeout(ms(300), attempt).await;
        assert!(outcome.is_err(), "no server ever answers");
        assert!(delays.len() >= 5, "{delays:?}");
        assert!(delays[0] <= ms(1) && delays[1] <= ms(2) && delays[2] <= ms(4));
        assert!(delays.iter().all(|d| *d <= ms(8)), "{delays:?}");
    }
}
