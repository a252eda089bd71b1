//! Other machines, through this server: one socket for every machine (issue 33).
//!
//! A call carrying the request metadata `signaltty-machine: NAME` is not served here: the
//! [`forward`] layer, in front of every service, sends it unchanged (unary, server streaming
//! or bidirectional) to NAME's server over the link this server keeps to it, and sends the
//! answer back. NAME is a remote of the user's config file (`[remotes.NAME]`, the table
//! `signaltty remote add` writes); `local` (or no metadata) is this server.
//!
//! ```text
//!  any client ─▶ local socket ─▶ Edge ─▶ forward ─┬─ no metadata / local ─▶ this server's services
//!                                                 └─ signaltty-machine: gpu ─▶ Link(gpu): h2 over
//!                                                    ssh … gpu "signaltty bridge" ─▶ gpu's server
//! ```
//!
//! - **Links are shared and lazy** ([`link`]): one per remote, dialled on its first use (a
//!   forwarded call, or `ListMachines` with `connect`), re-dialled by itself with backoff (1 s
//!   doubling to 30 s) once it was up and dropped. Calls in flight when it drops end with
//!   UNAVAILABLE `REMOTE_LINK_LOST`; calls while it is down fail at once (never wait on a
//!   redial), so a remote never stalls anything but its own calls.
//! - **The table is the config file**, re-read when a name is not known yet and on every
//!   `ListMachines`, so a remote added while the server runs is usable at once; one removed
//!   or changed is dropped (or redialled) at the next `ListMachines`.
//! - **Trust is unchanged.** Only a caller the socket already trusts (our uid) can ask for a
//!   forward, and from inside a pane only when `[policy]` lets pane clients act beyond their
//!   workspace (all of another machine is); the remote end is `signaltty bridge`, a client of
//!   the remote server like any other, under the remote user's own checks.
//!
//! State lives here, not in the hub: the hub knows nothing of other machines.

pub mod forward;
pub mod link;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use signaltty_config::remotes::DEFAULT_COMMAND;
use signaltty_link::Remote;

pub use forward::{MACHINE_HEADER, MachinesLayer};
pub use link::{Link, LinkState};

/// The name of this machine in listings and in `signaltty-machine`.
pub const LOCAL: &str = "local";

/// The longest `ListMachines { connect }` waits for one dial.
const LIST_WAIT: Duration = Duration::from_secs(25);

/// The machines this server reaches: the remotes of the config file, each with its link.
#[derive(Clone, Debug)]
pub struct Machines {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// The user's config file; `None`: no remotes.
    config_file: Option<PathBuf>,
    /// Where the ssh connections' control sockets live (the socket's private directory).
    control_dir: PathBuf,
    /// Whether a program inside a pane may reach other machines
    /// (`policy.pane_clients_may_control_other_workspaces`).
    pane_clients_may_reach: bool,
    links: Mutex<BTreeMap<String, Link>>,
}

/// One row of `ListMachines`.
#[derive(Clone, Debug)]
pub struct MachineRow {
    /// `local` or the remote's name.
    pub name: String,
    /// `[user@]host`; empty for this machine.
    pub host: String,
    /// The link's state (this machine: connected, with this server's version).
    pub state: LinkState,
}

impl Machines {
    /// The machines named in `config_file`, with ssh control sockets in `control_dir`;
    /// `pane_clients_may_reach`: whether programs inside panes may reach them.
    pub fn new(
        config_file: Option<PathBuf>,
        control_dir: PathBuf,
        pane_clients_may_reach: bool,
    ) -> Machines {
        Machines {
            inner: Arc::new(Inner {
                config_file,
                control_dir,
                pane_clients_may_reach,
                links: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    /// The link to `name`, re-reading the config file when the name is not known yet.
    pub fn link(&self, name: &str) -> Option<Link> {
        if let Some(link) = self.links().get(name) {
            return Some(link.clone());
        }
        self.reload();
        self.links().get(name).cloned()
    }

    /// Every machine, this one first; with `connect`, idle remotes and failed ones whose next
    /// try is due are dialled, and each dial is waited for (at most [`LIST_WAIT`] each, all at
    /// once). Without it, no waiting at all.
    pub async fn list(&self, connect: bool) -> Vec<MachineRow> {
        self.reload();
        let links: Vec<Link> = self.links().values().cloned().collect();
        if connect {
            for link in &links {
                link.dial_if_due();
            }
            let waits = links.iter().map(|l| l.settled(LIST_WAIT));
            futures_util::future::join_all(waits).await;
        }
        let mut rows = vec![MachineRow {
            name: LOCAL.to_owned(),
            host: String::new(),
            state: LinkState::Connected {
                version: env!("CARGO_PKG_VERSION").to_owned(),
                since: SystemTime::now(),
            },
        }];
        rows.extend(links.iter().map(|l| MachineRow {
            name: l.remote().name.clone(),
            host: l.remote().host.clone(),
            state: l.state(),
        }));
        rows
    }

    /// Whether a program inside a pane may reach other machines.
    pub fn pane_clients_may_reach(&self) -> bool {
        self.inner.pane_clients_may_reach
    }

    /// Where the names come from, for messages.
    pub fn config_file(&self) -> Option<&std::path::Path> {
        self.inner.config_file.as_deref()
    }

    fn links(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Link>> {
        self.inner
            .links
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Brings the table in line with the config file: new remotes added (idle), removed ones
    /// closed, changed ones replaced. A file with mistakes changes nothing (it is logged; the
    /// CLI's `config check` says what is wrong).
    fn reload(&self) {
        let Some(wanted) = self.configured() else {
            return;
        };
        let mut links = self.links();
        links.retain(|name, link| {
            let keep = wanted.get(name) == Some(link.remote());
            if !keep {
                link.close();
            }
            keep
        });
        for (name, remote) in wanted {
            links.entry(name).or_insert_with(|| Link::new(remote));
        }
    }

    /// The remotes of the config file, or `None` when it cannot be read.
    fn configured(&self) -> Option<BTreeMap<String, Remote>> {
        let Some(path) = &self.inner.config_file else {
            return Some(BTreeMap::new());
        };
        let loaded = match signaltty_config::load(path, signaltty_config::Missing::Default) {
            Ok(loaded) => loaded,
            Err(problems) => {
                tracing::warn!(%problems, "config file unreadable: remotes unchanged");
                return None;
            }
        };
        Some(
            loaded
                .config
                .remotes
                .into_iter()
                .map(|(name, r)| {
                    let remote = Remote {
                        name: name.clone(),
                        host: r.host,
                        ssh_options: r.ssh_options,
                        command: r.command.unwrap_or_else(|| DEFAULT_COMMAND.to_owned()),
                        control_dir: Some(self.inner.control_dir.clone()),
                    };
                    (name, remote)
                })
                .collect(),
        )
    }
}
