//! The hub's side of saving: what a save looks at, the debounced save task, and the final save
//! on shutdown. On `Hub` because a save reads two concerns: the records (the store) and the pane
//! actors (the panes registry); the saver is `hub.persistence()`'s, the files `crate::persist`'s.

use tokio_util::task::TaskTracker;

use super::Hub;
use crate::persist::SaveInput;

impl Hub {
    /// A consistent copy of what to save: the records (notifications included) and head seq
    /// under the store's lock, then the pane actors (a pane spawned in between is saved next
    /// time).
    pub fn save_input(&self) -> SaveInput {
        let (state, head) = self.store().clone_state();
        let panes = self
            .panes()
            .registry()
            .lock()
            .iter()
            .map(|(id, h)| (id.clone(), h.clone()))
            .collect();
        SaveInput { state, head, panes }
    }

    /// Starts the debounced save task on `tasks`; it ends when the server shuts down.
    pub fn start_saving(&self, tasks: &TaskTracker) {
        let hub = self.clone();
        let saver = self.persistence().saver().clone();
        let head = self.store().watch_head();
        let stop = self.shutdown_token().clone();
        tasks.spawn(saver.run(head, move || hub.save_input(), stop));
    }

    /// Saves everything now and stops saving (before a shutdown hangs up the panes). A failure
    /// is logged: the shutdown goes on.
    pub async fn save_final(&self) {
        self.persistence().save_final(self.save_input()).await;
    }
}
