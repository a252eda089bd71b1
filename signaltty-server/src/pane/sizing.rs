//! How the sizes of a pane's attached clients make the pane's size (`[server] window_size`,
//! tmux's `window-size`): the size of the client active last (`latest`, the default), or the
//! largest or smallest columns and rows among them. Pure: the actor keeps each client's
//! requested size and when it was last active, and applies what [`effective`] says.
//!
//! "Active" is an order, not a clock: each attach, keystroke or activity ping of a client takes
//! the next number of its pane ([`Clients::touch`]), so two clients active in the same
//! millisecond still have a last one.

use std::collections::HashMap;

pub use signaltty_config::WindowSize;

use super::actor::ClientId;
use crate::model::pane::Size;

/// What the sizing knows of one attached client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client {
    /// The size it asked for; `None` for a read-only client, which never sizes the pane.
    pub size: Option<Size>,
    /// When it was last active (larger is later).
    pub active: u64,
}

/// The attached clients of one pane.
#[derive(Debug, Default)]
pub struct Clients {
    clients: HashMap<ClientId, Client>,
    /// The last activity number given out.
    last: u64,
}

impl Clients {
    /// Adds a client; attaching counts as activity (tmux: a client that attaches takes the
    /// window).
    pub fn join(&mut self, id: ClientId, size: Option<Size>) {
        self.last += 1;
        self.clients.insert(
            id,
            Client {
                size,
                active: self.last,
            },
        );
    }

    /// A client left.
    pub fn leave(&mut self, id: ClientId) {
        self.clients.remove(&id);
    }

    /// A sizing client's new size; false for a read-only or unknown client.
    pub fn resize(&mut self, id: ClientId, size: Size) -> bool {
        match self.clients.get_mut(&id) {
            Some(Client {
                size: slot @ Some(_),
                ..
            }) => {
                *slot = Some(size);
                true
            }
            _ => false,
        }
    }

    /// The client was active (typed, or pinged). False when that changes nothing: it was the
    /// last active already, or is unknown.
    pub fn touch(&mut self, id: ClientId) -> bool {
        let last = self.last;
        match self.clients.get_mut(&id) {
            Some(client) if client.active != last => {
                self.last += 1;
                client.active = self.last;
                true
            }
            _ => false,
        }
    }

    /// The client active last, if any.
    pub fn latest(&self) -> Option<ClientId> {
        self.clients
            .iter()
            .max_by_key(|(_, c)| c.active)
            .map(|(id, _)| *id)
    }

    /// The pane's size under `rule`; `None` with no sizing client (the last size stays).
    pub fn effective(&self, rule: WindowSize) -> Option<Size> {
        effective(rule, self.clients.values().copied())
    }
}

/// The size `rule` makes of `clients`; `None` when none of them sizes the pane (all read-only,
/// or none at all).
pub fn effective(rule: WindowSize, clients: impl IntoIterator<Item = Client>) -> Option<Size> {
    let sizing = clients
        .into_iter()
        .filter_map(|c| Some((c.size?, c.active)));
    match rule {
        WindowSize::Latest => sizing.max_by_key(|&(_, active)| active).map(|(s, _)| s),
        WindowSize::Largest => sizing.map(|(s, _)| s).reduce(|a, b| Size {
            cols: a.cols.max(b.cols),
            rows: a.rows.max(b.rows),
        }),
        WindowSize::Smallest => sizing.map(|(s, _)| s).reduce(|a, b| Size {
            cols: a.cols.min(b.cols),
            rows: a.rows.min(b.rows),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(cols: u16, rows: u16) -> Size {
        Size { cols, rows }
    }

    fn id(n: u64) -> ClientId {
        ClientId::for_tests(n)
    }

    #[test]
    fn latest_follows_the_client_that_attached_or_typed_last() {
        let mut clients = Clients::default();
        clients.join(id(1), Some(size(200, 50)));
        assert_eq!(clients.effective(WindowSize::Latest), Some(size(200, 50)));
        clients.join(id(2), Some(size(80, 24)));
        assert_eq!(clients.effective(WindowSize::Latest), Some(size(80, 24)));
        assert!(clients.touch(id(1)));
        assert_eq!(clients.effective(WindowSize::Latest), Some(size(200, 50)));
        assert!(!clients.touch(id(1)), "already the last: nothing changes");
        assert_eq!(clients.latest(), Some(id(1)));
        // A resize of the client that is not the latest changes nothing; of the latest, all.
        assert!(clients.resize(id(2), size(90, 30)));
        assert_eq!(clients.effective(WindowSize::Latest), Some(size(200, 50)));
        assert!(clients.resize(id(1), size(150, 40)));
        assert_eq!(clients.effective(WindowSize::Latest), Some(size(150, 40)));
        // The latest leaves: the one active before it takes over.
        clients.leave(id(1));
        assert_eq!(clients.effective(WindowSize::Latest), Some(size(90, 30)));
        clients.leave(id(2));
        assert_eq!(clients.effective(WindowSize::Latest), None);
    }

    #[test]
    fn largest_and_smallest_take_each_dimension_on_its_own() {
        let clients = [
            Client {
                size: Some(size(120, 40)),
                active: 1,
            },
            Client {
                size: Some(size(90, 50)),
                active: 2,
            },
        ];
        assert_eq!(effective(WindowSize::Largest, clients), Some(size(120, 50)));
        assert_eq!(effective(WindowSize::Smallest, clients), Some(size(90, 40)));
        assert_eq!(effective(WindowSize::Latest, clients), Some(size(90, 50)));
    }

    #[test]
    fn read_only_clients_never_size_the_pane_even_when_active_last() {
        let mut clients = Clients::default();
        clients.join(id(1), Some(size(100, 30)));
        clients.join(id(2), None);
        assert!(!clients.resize(id(2), size(20, 5)), "read-only");
        for rule in WindowSize::ALL {
            assert_eq!(clients.effective(rule), Some(size(100, 30)), "{rule}");
        }
        clients.leave(id(1));
        for rule in WindowSize::ALL {
            assert_eq!(clients.effective(rule), None, "{rule}");
        }
        assert!(!clients.touch(id(9)), "unknown client");
    }
}
