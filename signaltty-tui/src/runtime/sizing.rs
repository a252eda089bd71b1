//! Whether the pane's size is the one this TUI asked for, and whether typed keys should wait
//! for it. With several clients on one pane the server gives the pane the size of the client
//! active last (`[server] window_size = "latest"`): when we start typing into a pane another
//! client sized, our first key tells the server we are active (`AttachInput::activity`), and
//! the keys wait — at most [`HOLD`] — until the server confirms the resize, so they reach a
//! program that already has our size (a shell redraws its line, a full-screen program its
//! screen, before the keys arrive). If the size never comes (`largest`/`smallest`, a size the
//! server clamps), we stop waiting for that pair of sizes: keys are never held twice for
//! nothing.

use std::time::Duration;

/// Longest keys wait for the server's resize.
pub const HOLD: Duration = Duration::from_secs(1);

/// After this long without a key, the next key also tells the server we are active (a client
/// of the same size may have typed meanwhile; the size would not show it).
pub const PING_AFTER_IDLE: Duration = Duration::from_secs(1);

/// Columns and rows.
pub type Cells = (u16, u16);

/// The sizes the server gives a pane at most and at least (its `model::pane::Size` limits):
/// an area outside them never gets its own size, so a key is not held for it.
const COLS: (u16, u16) = (20, 500);
const ROWS: (u16, u16) = (5, 200);

/// The size the server makes of `asked`.
fn clamped((cols, rows): Cells) -> Cells {
    (cols.clamp(COLS.0, COLS.1), rows.clamp(ROWS.0, ROWS.1))
}

/// What we know of the pane's size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sizing {
    /// The size we asked for.
    pub asked: Cells,
    /// The pane's size as the server last said (`None` before the first snapshot).
    pub pane: Option<Cells>,
    /// The (pane, asked) pair a hold already timed out on.
    gave_up: Option<(Cells, Cells)>,
}

impl Sizing {
    /// Before the stream's first snapshot.
    pub fn new(asked: Cells) -> Sizing {
        Sizing {
            asked,
            pane: None,
            gave_up: None,
        }
    }

    /// Whether the pane has our size (or we do not know its size yet).
    pub fn ours(&self) -> bool {
        self.pane.is_none_or(|pane| pane == clamped(self.asked))
    }

    /// Whether a key should wait for the server's resize.
    pub fn hold(&self) -> bool {
        !self.ours() && self.gave_up != self.pane.map(|pane| (pane, self.asked))
    }

    /// A hold ran out: do not hold again for these sizes.
    pub fn give_up(&mut self) {
        self.gave_up = self.pane.map(|pane| (pane, self.asked));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_wait_only_while_the_size_is_not_ours_and_never_twice_for_the_same_sizes() {
        let mut s = Sizing::new((100, 30));
        assert!(
            s.ours() && !s.hold(),
            "no size known yet: nothing to wait for"
        );
        s.pane = Some((100, 30));
        assert!(s.ours() && !s.hold());
        // Another client sized the pane.
        s.pane = Some((80, 24));
        assert!(!s.ours() && s.hold());
        // The server never gave us our size (largest/smallest): no second hold.
        s.give_up();
        assert!(!s.ours() && !s.hold());
        // A new size of ours, or of the pane, is worth a hold again.
        s.asked = (110, 30);
        assert!(s.hold());
        s.give_up();
        s.pane = Some((90, 24));
        assert!(s.hold());
        s.pane = Some((110, 30));
        assert!(s.ours() && !s.hold());
    }

    #[test]
    fn an_area_the_server_clamps_has_its_size_once_clamped() {
        let mut s = Sizing::new((12, 3));
        s.pane = Some((20, 5));
        assert!(s.ours() && !s.hold(), "the smallest pane the server makes");
        s.asked = (900, 300);
        s.pane = Some((500, 200));
        assert!(s.ours());
    }
}
