//! A read-only view of a [`Screen`]'s cells and modes, for clients that draw a pane themselves
//! (the TUI): what they show is then exactly what the server's model holds, cell by cell.
//!
//! Kept in its own file, a thin surface over [`Term`]'s getters, so the model's internals can
//! change without touching the clients.

use crate::screen::Screen;
use crate::vt::Term;

impl Screen {
    /// The emulator, read-only: cells ([`Term::cell`], [`Term::cell_text`]), cursor,
    /// [`Term::modes`] (mouse reporting, application cursor keys, cursor visibility, bracketed
    /// paste) and [`Term::keyboard`] protocols.
    pub fn view(&self) -> &Term {
        self.term()
    }
}

#[cfg(test)]
mod tests {
    use crate::Screen;
    use crate::vt::{Attr, Color, MouseMode};

    #[test]
    fn cells_and_modes_are_readable() {
        let mut screen = Screen::new(10, 3);
        screen.feed(b"\x1b[1;31mhi\x1b[0m\x1b[?1000h\x1b[?1h");
        let view = screen.view();
        let cell = view.cell(0, 0).expect("cell");
        assert_eq!(cell.ch(), 'h');
        assert!(cell.style().has(Attr::Bold));
        assert_eq!(cell.style().fg(), Color::Idx(1));
        assert_eq!(view.cursor(), (0, 2));
        assert_eq!(view.modes().mouse, MouseMode::PressRelease);
        assert!(view.modes().application_cursor);
    }
}
