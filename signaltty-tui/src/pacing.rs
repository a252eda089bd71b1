//! When to draw: the frame-pacing rule, a pure state machine over instants the runtime passes
//! in (so it is tested with synthetic instants, no sleeps).
//!
//! - Nothing dirty: no frame, no timer (idle costs nothing).
//! - Output of programs is drawn at most once per [`FRAME`] (60 frames per second): a flood of
//!   output costs one frame per slot, not one per chunk.
//! - **Echo is not throttled.** A key typed into a pane changes nothing on screen by itself, so
//!   it draws no frame; the pane's next output (the echo) is drawn at once, even inside the
//!   current frame slot. While the echo is awaited (at most [`ECHO_GRACE`]) other dirty state
//!   waits for it, so the echo and everything else go out in one frame. Only the first output
//!   after each typed key is drawn early, so a pane that floods after a key is paced like any
//!   other: at most one extra frame per keystroke.
//! - **The echo is drawn alone.** When nothing but pane output is waiting (no `dirty` state),
//!   the echo's frame redraws only the pane typed into ([`Pacer::echo_pane`]); other panes'
//!   output keeps its own slot ([`Pacer::when_panes`]: output alone never waits for an echo),
//!   and an echo frame does not move that slot ([`Pacer::echo_drawn`]), so they are drawn at
//!   the same ≤ 60/s pace with or without typing.

use std::time::{Duration, Instant};

/// The shortest time between two frames caused by program output (60 frames per second).
pub const FRAME: Duration = Duration::from_micros(16_667);

/// How long a frame waits for the echo of typed input before it is drawn without it.
pub const ECHO_GRACE: Duration = FRAME;

/// What the runtime should do about drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Nothing to draw; no timer.
    Never,
    /// Draw now.
    Now,
    /// Draw at this instant (unless something makes it sooner).
    At(Instant),
}

/// The pacing state: when the last frame went out and which typed input awaits its echo.
#[derive(Debug, Clone)]
pub struct Pacer {
    last_frame: Option<Instant>,
    /// The pane typed into and until when its echo is awaited.
    awaiting: Option<(String, Instant)>,
    /// The pane whose awaited echo arrived: the next frame goes out at once.
    echo_ready: Option<String>,
}

impl Default for Pacer {
    fn default() -> Self {
        Self::new()
    }
}

impl Pacer {
    /// No frame drawn yet: the first one may go out at once.
    pub fn new() -> Pacer {
        Pacer {
            last_frame: None,
            awaiting: None,
            echo_ready: None,
        }
    }

    /// Input was sent to `pane_id` at `now`: its echo is awaited.
    pub fn typed(&mut self, pane_id: &str, now: Instant) {
        self.awaiting = Some((pane_id.to_owned(), now + ECHO_GRACE));
    }

    /// Output of `pane_id` arrived at `now`. Returns whether it is the awaited echo.
    pub fn output(&mut self, pane_id: &str, now: Instant) -> bool {
        let echo =
            matches!(&self.awaiting, Some((typed, until)) if typed == pane_id && now <= *until);
        if echo {
            self.awaiting = None;
            self.echo_ready = Some(pane_id.to_owned());
        }
        echo
    }

    /// When to draw, given whether anything is dirty.
    pub fn when(&self, dirty: bool, now: Instant) -> When {
        if !dirty {
            return When::Never;
        }
        if self.echo_ready.is_some() {
            return When::Now;
        }
        let slot = self.last_frame.map_or(now, |last| last + FRAME);
        let at = match &self.awaiting {
            Some((_, until)) => slot.max(*until),
            None => slot,
        };
        if at <= now { When::Now } else { When::At(at) }
    }

    /// When to draw, given whether anything besides pane output is `dirty` (then [`when`]'s
    /// rule: one frame with everything) and whether visible panes took output (`damaged`):
    /// at once for an arrived echo (drawn alone, see [`Pacer::echo_pane`]), else at the
    /// frame slot — pane output never waits for an awaited echo, as the echo will not be
    /// drawn with it.
    ///
    /// [`when`]: Pacer::when
    pub fn when_panes(&self, dirty: bool, damaged: bool, now: Instant) -> When {
        if dirty {
            return self.when(true, now);
        }
        if self.echo_ready.is_some() {
            return When::Now;
        }
        if !damaged {
            return When::Never;
        }
        match self.last_frame.map(|last| last + FRAME) {
            Some(at) if at > now => When::At(at),
            _ => When::Now,
        }
    }

    /// The pane whose awaited echo arrived, when the next frame is for it.
    pub fn echo_pane(&self) -> Option<&str> {
        self.echo_ready.as_deref()
    }

    /// A frame went out at `now`.
    pub fn drawn(&mut self, now: Instant) {
        self.last_frame = Some(now);
        self.echo_ready = None;
        self.awaiting = None;
    }

    /// A damage frame of pane output went out at `now` (no echo was ready): it takes the
    /// slot, and a key's echo still awaited stays awaited (that pane's output is drawn at
    /// once when it comes).
    pub fn paced(&mut self, now: Instant) {
        self.last_frame = Some(now);
    }

    /// A frame with only the echo went out: the other panes' slot stays where it was.
    pub fn echo_drawn(&mut self) {
        self.echo_ready = None;
        self.awaiting = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn nothing_dirty_draws_nothing_and_arms_no_timer() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        assert_eq!(p.when(false, t0), When::Never);
        p.drawn(t0);
        assert_eq!(p.when(false, t0 + ms(100)), When::Never);
        p.typed("a", t0 + ms(100));
        assert_eq!(p.when(false, t0 + ms(101)), When::Never);
    }

    #[test]
    fn the_first_frame_goes_out_at_once() {
        let t0 = Instant::now();
        assert_eq!(Pacer::new().when(true, t0), When::Now);
    }

    #[test]
    fn output_frames_are_capped_at_one_per_frame_time() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        p.drawn(t0);
        // Output of a pane nobody typed into, 1 ms later: waits for the slot.
        assert!(!p.output("b", t0 + ms(1)));
        assert_eq!(p.when(true, t0 + ms(1)), When::At(t0 + FRAME));
        assert_eq!(p.when(true, t0 + FRAME), When::Now);
        assert_eq!(p.when(true, t0 + ms(40)), When::Now);
    }

    #[test]
    fn over_a_second_of_continuous_output_at_most_sixty_frames() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        let mut frames = 0;
        // Output every 100 µs for one second; the runtime draws whenever told Now.
        for i in 0..10_000u64 {
            let now = t0 + Duration::from_micros(100 * i);
            p.output("b", now);
            if p.when(true, now) == When::Now {
                p.drawn(now);
                frames += 1;
            }
        }
        assert!(frames <= 61, "{frames} frames in one second");
        assert!(frames >= 55, "{frames} frames in one second");
    }

    #[test]
    fn a_typed_key_draws_no_frame_and_its_echo_is_drawn_at_once() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        p.drawn(t0);
        // A key 1 ms after a frame: the state is dirty (the key did something) but the frame
        // waits for the echo or the grace, whichever first.
        p.typed("a", t0 + ms(1));
        assert_eq!(p.when(true, t0 + ms(1)), When::At(t0 + ms(1) + ECHO_GRACE));
        // The echo 300 µs later is drawn at once, inside the frame slot.
        let echo = t0 + ms(1) + Duration::from_micros(300);
        assert!(p.output("a", echo));
        assert_eq!(p.when(true, echo), When::Now);
        p.drawn(echo);
        // The next key's echo likewise: a batch of keys is not paced at 60/s.
        p.typed("a", echo + ms(1));
        assert!(p.output("a", echo + ms(2)));
        assert_eq!(p.when(true, echo + ms(2)), When::Now);
    }

    #[test]
    fn output_after_the_echo_is_paced_again() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        p.drawn(t0);
        p.typed("a", t0 + ms(1));
        assert!(p.output("a", t0 + ms(2)));
        p.drawn(t0 + ms(2));
        // The same pane keeps printing (the key started a flood): one frame per slot.
        assert!(!p.output("a", t0 + ms(3)));
        assert_eq!(p.when(true, t0 + ms(3)), When::At(t0 + ms(2) + FRAME));
    }

    #[test]
    fn output_of_another_pane_does_not_count_as_the_echo() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        p.drawn(t0);
        p.typed("a", t0 + ms(1));
        assert!(!p.output("b", t0 + ms(2)));
        assert_eq!(p.when(true, t0 + ms(2)), When::At(t0 + ms(1) + ECHO_GRACE));
    }

    #[test]
    fn a_missing_echo_delays_the_frame_by_at_most_the_grace() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        p.drawn(t0);
        let typed = t0 + ms(30);
        p.typed("a", typed);
        assert_eq!(p.when(true, typed), When::At(typed + ECHO_GRACE));
        assert_eq!(p.when(true, typed + ECHO_GRACE), When::Now);
        // An echo after the grace is ordinary output.
        assert!(!p.output("a", typed + ECHO_GRACE + ms(1)));
    }

    #[test]
    fn drawing_ends_the_wait_for_an_echo() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        p.typed("a", t0);
        p.drawn(t0 + ms(20));
        assert!(!p.output("a", t0 + ms(21)));
        assert_eq!(p.when(true, t0 + ms(21)), When::At(t0 + ms(20) + FRAME));
    }

    #[test]
    fn pane_output_keeps_its_slot_and_does_not_wait_for_an_echo() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        p.drawn(t0);
        // Another pane printing while a key's echo is awaited: drawn at its slot, not later.
        p.typed("a", t0 + ms(1));
        assert!(!p.output("b", t0 + ms(2)));
        assert_eq!(p.when_panes(false, true, t0 + ms(2)), When::At(t0 + FRAME));
        assert_eq!(p.when_panes(false, true, t0 + FRAME), When::Now);
        // Nothing damaged, nothing dirty: no frame and no timer even while an echo is awaited.
        assert_eq!(p.when_panes(false, false, t0 + ms(2)), When::Never);
        // Dirty state follows the old rule (waits for the echo, at most the grace).
        assert_eq!(
            p.when_panes(true, true, t0 + ms(2)),
            When::At(t0 + ms(1) + ECHO_GRACE)
        );
    }

    #[test]
    fn the_echo_is_drawn_alone_at_once_and_does_not_move_the_slot() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        p.drawn(t0);
        p.typed("a", t0 + ms(1));
        assert!(p.output("a", t0 + ms(2)));
        assert_eq!(p.echo_pane(), Some("a"));
        assert_eq!(p.when_panes(false, true, t0 + ms(2)), When::Now);
        p.echo_drawn();
        assert_eq!(p.echo_pane(), None);
        // Other panes' output still goes out at the slot of the last paced frame.
        assert!(!p.output("b", t0 + ms(3)));
        assert_eq!(p.when_panes(false, true, t0 + ms(3)), When::At(t0 + FRAME));
        // A damage frame of other panes keeps the echo awaited; a full frame ends the wait.
        p.typed("a", t0 + ms(4));
        p.paced(t0 + FRAME);
        assert!(p.output("a", t0 + FRAME + ms(1)));
        assert_eq!(p.when_panes(false, true, t0 + FRAME + ms(1)), When::Now);
        p.echo_drawn();
        p.typed("a", t0 + FRAME + ms(2));
        p.drawn(t0 + FRAME + ms(3));
        assert!(!p.output("a", t0 + FRAME + ms(4)));
    }

    #[test]
    fn with_typing_paced_frames_stay_at_most_sixty_a_second() {
        let t0 = Instant::now();
        let mut p = Pacer::new();
        let (mut paced, mut echoes) = (0, 0);
        // Pane "b" prints every 100 µs; a key into "a" every 5 ms, echoed 300 µs later.
        for i in 0..10_000u64 {
            let now = t0 + Duration::from_micros(100 * i);
            if i % 50 == 0 {
                p.typed("a", now);
            }
            if i % 50 == 3 {
                assert!(p.output("a", now));
            }
            p.output("b", now);
            if p.when_panes(false, true, now) == When::Now {
                if p.echo_pane().is_some() {
                    p.echo_drawn();
                    echoes += 1;
                } else {
                    p.paced(now);
                    paced += 1;
                }
            }
        }
        assert!(paced <= 61, "{paced} paced frames in one second");
        assert!(paced >= 55, "{paced} paced frames in one second");
        assert_eq!(echoes, 200);
    }
}
