//! `LazyWatch`: a value with a `tokio::sync::watch` channel made on the first subscription.
//!
//! A watch channel allocates its shared part (the value, a lock and eight `Notify`s, ~350 bytes)
//! when it is created. A pane has three (size, exit, closed) that only attached clients ever
//! watch, so an idle pane nobody looks at paid ~1 KiB for them; here it pays a small inline
//! value until a client subscribes.

use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

pub(super) struct LazyWatch<T> {
    inner: Mutex<Inner<T>>,
}

struct Inner<T> {
    value: T,
    /// Made by the first `subscribe`; always holds `value` from then on.
    sender: Option<watch::Sender<T>>,
}

impl<T: Clone> LazyWatch<T> {
    pub(super) fn new(value: T) -> Self {
        Self {
            inner: Mutex::new(Inner {
                value,
                sender: None,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<T>> {
        // Every section below is panic-free; a poisoned lock still holds a valid value.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The current value.
    pub(super) fn get(&self) -> T {
        self.lock().value.clone()
    }

    /// Sets the value and wakes subscribers.
    pub(super) fn set(&self, value: T) {
        let mut inner = self.lock();
        if let Some(sender) = &inner.sender {
            sender.send_replace(value.clone());
        }
        inner.value = value;
    }

    /// A receiver that sees the current value and every later one.
    pub(super) fn subscribe(&self) -> watch::Receiver<T> {
        let mut inner = self.lock();
        let value = inner.value.clone();
        inner
            .sender
            .get_or_insert_with(|| watch::Sender::new(value))
            .subscribe()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn subscribers_see_the_value_set_before_and_after_they_came() {
        let lazy = LazyWatch::new(1);
        lazy.set(2);
        let mut rx = lazy.subscribe();
        assert_eq!(*rx.borrow_and_update(), 2);
        lazy.set(3);
        tokio::time::timeout(Duration::from_secs(5), rx.changed())
            .await
            .expect("woken")
            .expect("sender alive");
        assert_eq!(*rx.borrow(), 3);
        assert_eq!(lazy.get(), 3);
        let late = lazy.subscribe();
        assert_eq!(*late.borrow(), 3);
    }
}
