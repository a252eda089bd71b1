//! The one owner of this TUI's fast paths on the side socket (`signaltty_tty::protocol`): the
//! server's paint grant for the focused pane ([`super::painting`]) and the keys lent to it
//! while it paints ([`super::lending`]). The runtime asks it three things — where the keys are
//! read before it waits ([`FastPaths::settle_keys`]), what the server said
//! ([`FastPaths::next`]) and, around each frame, where the server may paint
//! ([`FastPaths::before_frame`], [`FastPaths::frame_sent`]) — and hands it back the terminal at
//! the end ([`FastPaths::end`]). Direct input belongs to each attach session instead
//! (`super::attach`, `super::direct`): its order is that session's typing order.

use std::collections::HashMap;
use std::path::PathBuf;

use crossterm::event::Event;
use signaltty_config::FastPaths as Switches;

use super::attach;
use super::lending;
use super::painting::{self, Redraw, ServerPaint};
use crate::app::App;
use crate::input::Reader;

/// The paint grant and the lent keys.
pub struct FastPaths {
    paint: ServerPaint,
    /// Whether keys may be lent at all (`[fast_paths] lend_keys`).
    lending: bool,
    /// The plain characters the server must hand back (the keymap is fixed).
    excluded: String,
}

impl FastPaths {
    /// No grant yet, keys read by us; each path only if the config file's `[fast_paths]` allows.
    pub fn new(app: &App, switches: &Switches) -> FastPaths {
        FastPaths {
            paint: ServerPaint::new(switches.server_paint),
            lending: switches.lend_keys,
            excluded: lending::excluded(app),
        }
    }

    /// The pane the server paints now (its echo is on the screen before we hear of it).
    pub fn painting(&self) -> Option<&str> {
        self.paint.painting()
    }

    /// Brings where the keys are read in line with the app (`idle`: no events wait to be
    /// handled): lent to the server while it paints the pane typed into, else read by us. The
    /// events of keys it handed back, to be handled first, are returned.
    pub fn settle_keys(
        &mut self,
        app: &App,
        idle: bool,
        attachments: &HashMap<String, attach::Handle>,
        input: &mut Reader,
    ) -> std::io::Result<Vec<Event>> {
        let lend = self.lending
            && idle
            && lending::may_lend(app, self.paint.painting(), |id| {
                attachments.get(id).is_some_and(attach::Handle::typed_all)
            });
        lending::settle(lend, &self.excluded, input, &mut self.paint)
    }

    /// What the server said (cancel-safe; pending while there is nothing to hear): what the
    /// next frame must draw again, if anything.
    pub async fn next(&mut self) -> Option<Redraw> {
        self.paint.next().await
    }

    /// Before a frame: where the server may paint for what this frame shows (a grant for
    /// anything else stopped first); what the frame must draw again because the server may
    /// have painted there.
    pub async fn before_frame(
        &mut self,
        app: &App,
        attachments: &HashMap<String, attach::Handle>,
        socket: impl FnOnce() -> Option<PathBuf>,
    ) -> Option<Redraw> {
        let want = painting::target(app, |id| {
            attachments.get(id).is_some_and(attach::Handle::interactive)
        });
        self.paint.settle(want, socket).await
    }

    /// After a frame was handed to the terminal.
    pub fn frame_sent(&mut self) {
        self.paint.frame_sent();
    }

    /// Nothing may be painted into the terminal once it is given back.
    pub async fn end(&mut self) {
        let _ = self.paint.settle(None, || None).await;
    }
}
