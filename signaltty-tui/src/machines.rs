//! Other machines (issue 33): the remotes the local server reaches over its ssh links, each
//! with the state `ListMachines` last reported and its own catalog, mirrored from that
//! machine's `Subscribe` stream forwarded by the local server (the `signaltty-machine`
//! metadata, [`on`]). Ids are per machine: a remote's workspaces, tabs and panes live only in
//! its own [`Catalog`], never in the local one, so nothing keyed by a local id can meet them.
//!
//! Plain data, fed by `update`; the polling and the feeds are the runtime's
//! (`runtime::machines`).

use std::time::SystemTime;

use signaltty_proto::v1 as pb;

use crate::catalog::{Catalog, FeedMsg};
use crate::sidebar_row::Row;

pub use crate::machine_request::{METADATA, on};

/// One remote machine as the TUI knows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Remote {
    /// Its name (the metadata's value) and the state of the local server's link to it.
    pub machine: pb::Machine,
    /// Its workspaces, tabs and panes (empty until its feed first loads).
    pub catalog: Catalog,
    /// Whether its feed is following events now.
    pub live: bool,
}

impl Remote {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.machine.name
    }

    /// The header line's state: `● connected`, `↻ reconnecting in 4s`, `✗ failed: why`.
    pub fn state_text(&self, now: SystemTime) -> String {
        use pb::MachineState as S;
        let next = self.machine.next_try_at.map(|at| {
            let at = SystemTime::UNIX_EPOCH
                + std::time::Duration::new(
                    u64::try_from(at.seconds).unwrap_or(0),
                    u32::try_from(at.nanos).unwrap_or(0),
                );
            at.duration_since(now).map(|d| d.as_secs()).unwrap_or(0)
        });
        match S::try_from(self.machine.state).unwrap_or(S::Unspecified) {
            S::Connected => "● connected".to_owned(),
            S::Connecting => "… connecting".to_owned(),
            S::Idle | S::Unspecified => "○ idle".to_owned(),
            S::Reconnecting => match next {
                Some(secs) if secs > 0 => format!("↻ reconnecting in {secs}s"),
                _ => "↻ reconnecting".to_owned(),
            },
            S::Failed => {
                let why = self.machine.detail.lines().next().unwrap_or("");
                format!("✗ failed: {why}")
            }
        }
    }

    /// Whether the link is up.
    pub fn connected(&self) -> bool {
        self.machine.state == pb::MachineState::Connected as i32
    }
}

/// Takes a fresh `ListMachines` answer: the remotes (not `local`) in its order, each keeping
/// the catalog it already had.
pub fn listed(remotes: &mut Vec<Remote>, machines: Vec<pb::Machine>) {
    let mut old = std::mem::take(remotes);
    for machine in machines.into_iter().filter(|m| m.name != "local") {
        let mut remote = match old.iter().position(|r| r.machine.name == machine.name) {
            Some(i) => old.swap_remove(i),
            None => Remote::default(),
        };
        remote.machine = machine;
        remotes.push(remote);
    }
}

/// Applies what a remote's feed reports to its catalog.
pub fn on_feed(remotes: &mut [Remote], name: &str, feed: FeedMsg) {
    let Some(remote) = remotes.iter_mut().find(|r| r.machine.name == name) else {
        return;
    };
    match feed {
        FeedMsg::Loaded(catalog) => {
            remote.catalog = *catalog;
            remote.live = true;
        }
        FeedMsg::Event(event) => {
            remote.catalog.apply(&event);
        }
        FeedMsg::Live => remote.live = true,
        FeedMsg::Disconnected { .. } => remote.live = false,
    }
}

/// A remote's pending decision on `pane_id`, if any.
pub fn decision<'a>(remotes: &'a [Remote], name: &str, pane_id: &str) -> Option<&'a pb::Decision> {
    remotes
        .iter()
        .find(|r| r.machine.name == name)?
        .catalog
        .panes
        .get(pane_id)?
        .pending_decision
        .as_ref()
}

/// Every remote's pending decisions, as (machine, decision), oldest first per machine.
pub fn decisions(remotes: &[Remote]) -> Vec<(&str, &pb::Decision)> {
    remotes
        .iter()
        .flat_map(|r| {
            r.catalog
                .decisions()
                .into_iter()
                .map(move |d| (r.machine.name.as_str(), d))
        })
        .collect()
}

/// A remote's sidebar rows under its header: workspaces, tabs, panes and the options of a
/// pending decision, as for this machine (no folding).
pub fn rows(remote: &Remote) -> Vec<Row> {
    let at = |row| Row::Remote(remote.name().to_owned(), Box::new(row));
    let catalog = &remote.catalog;
    let mut rows = Vec::new();
    for ws in &catalog.workspaces {
        rows.push(at(Row::Workspace(ws.id.clone())));
        for tab in catalog.tabs_of(ws) {
            rows.push(at(Row::Tab(tab.id.clone())));
            for pane in catalog.panes_of(tab) {
                rows.push(at(Row::Pane(pane.id.clone())));
                if let Some(d) = pane.pending_decision.as_ref().filter(|d| d.answerable) {
                    for n in 1..=d.options.len() {
                        let n = u8::try_from(n).unwrap_or(u8::MAX);
                        rows.push(at(Row::Option(pane.id.clone(), n)));
                    }
                }
            }
        }
    }
    rows
}

/// A remote's catalog by name.
pub fn catalog<'a>(remotes: &'a [Remote], name: &str) -> Option<&'a Catalog> {
    remotes
        .iter()
        .find(|r| r.machine.name == name)
        .map(|r| &r.catalog)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(name: &str, state: pb::MachineState) -> pb::Machine {
        pb::Machine {
            name: name.into(),
            state: state as i32,
            ..Default::default()
        }
    }

    #[test]
    fn a_listing_keeps_catalogs_and_drops_local() {
        let mut remotes = Vec::new();
        listed(
            &mut remotes,
            vec![
                machine("local", pb::MachineState::Connected),
                machine("gpu", pb::MachineState::Connecting),
            ],
        );
        assert_eq!(remotes.len(), 1);
        remotes[0].catalog.seq = 7;
        listed(
            &mut remotes,
            vec![
                machine("local", pb::MachineState::Connected),
                machine("box", pb::MachineState::Idle),
                machine("gpu", pb::MachineState::Connected),
            ],
        );
        let names: Vec<&str> = remotes.iter().map(Remote::name).collect();
        assert_eq!(names, ["box", "gpu"]);
        assert_eq!(remotes[1].catalog.seq, 7);
        assert!(remotes[1].connected());
    }

    #[test]
    fn the_state_text_says_when_and_why() {
        let now = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(100);
        let mut r = Remote {
            machine: machine("gpu", pb::MachineState::Reconnecting),
            ..Default::default()
        };
        let mut at = r.machine.next_try_at.unwrap_or_default();
        at.seconds = 104;
        r.machine.next_try_at = Some(at);
        assert_eq!(r.state_text(now), "↻ reconnecting in 4s");
        r.machine.state = pb::MachineState::Failed as i32;
        r.machine.detail = "ssh: connect refused\nmore".into();
        assert_eq!(r.state_text(now), "✗ failed: ssh: connect refused");
        r.machine.state = pb::MachineState::Connected as i32;
        assert_eq!(r.state_text(now), "● connected");
    }
}
