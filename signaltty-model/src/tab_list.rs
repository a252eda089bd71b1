//! `TabList`: a workspace's tabs in display order, as a persistent list whose versions share
//! their common prefix.
//!
//! Why not a `Vec`: every change of a workspace publishes `WorkspaceUpdated` with a copy of the
//! workspace, and the event bus keeps the last 10,000 events for replay. With a `Vec`, the n-th
//! tab of a workspace stored a list of n ids in the ring, so memory and the spawn's own cost
//! grew with the number of tabs (issue 18: O(n²) per workspace). Here a version is a pointer to
//! its last link and each link points to the one before it: appending a tab (the common change:
//! every spawn into a new tab) adds one link and leaves every older version intact, so a copy
//! costs a reference count whatever the length. Removing or reordering (closing or moving a tab)
//! rebuilds the list from the changed position's prefix; those are rare and user-paced.
//!
//! Reads walk the links from the end, so a read in display order collects them first (`ids`):
//! O(n), done where the whole list is needed anyway (encoding, listing).

use std::fmt;
use std::sync::Arc;

use crate::ids::TabId;

/// A workspace's tabs in display order (see the module docs).
#[derive(Clone, Default)]
pub struct TabList {
    last: Option<Arc<Link>>,
    len: usize,
}

struct Link {
    id: TabId,
    prev: Option<Arc<Link>>,
}

impl TabList {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of tabs.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True without tabs.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The last tab in display order.
    pub fn last(&self) -> Option<&TabId> {
        self.last.as_deref().map(|l| &l.id)
    }

    /// Appends a tab: one new link, every other version untouched.
    pub fn push(&mut self, id: TabId) {
        let prev = self.last.take();
        self.last = Some(Arc::new(Link { id, prev }));
        self.len += 1;
    }

    /// The tabs in display order.
    pub fn ids(&self) -> Vec<&TabId> {
        let mut out = Vec::with_capacity(self.len);
        out.extend(self.links_from_end().map(|l| &l.id));
        out.reverse();
        out
    }

    /// The tabs in display order, as owned ids (each a reference count).
    pub fn to_vec(&self) -> Vec<TabId> {
        self.ids().into_iter().cloned().collect()
    }

    /// Whether `id` is listed.
    pub fn contains(&self, id: &TabId) -> bool {
        self.links_from_end().any(|l| &l.id == id)
    }

    /// The display index of `id`.
    pub fn position(&self, id: &TabId) -> Option<usize> {
        let from_end = self.links_from_end().position(|l| &l.id == id)?;
        Some(self.len - 1 - from_end)
    }

    /// Keeps the tabs for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&TabId) -> bool) {
        let kept: Vec<TabId> = self
            .ids()
            .into_iter()
            .filter(|t| keep(t))
            .cloned()
            .collect();
        if kept.len() != self.len {
            *self = kept.into_iter().collect();
        }
    }

    /// Removes and returns the tab at `index` (panics past the end, like `Vec::remove`).
    pub fn remove(&mut self, index: usize) -> TabId {
        let mut all = self.to_vec();
        let removed = all.remove(index);
        *self = all.into_iter().collect();
        removed
    }

    /// Inserts `id` at `index` (panics past the end, like `Vec::insert`).
    pub fn insert(&mut self, index: usize, id: TabId) {
        if index == self.len {
            return self.push(id);
        }
        let mut all = self.to_vec();
        all.insert(index, id);
        *self = all.into_iter().collect();
    }

    fn links_from_end(&self) -> impl Iterator<Item = &Link> {
        std::iter::successors(self.last.as_deref(), |l| l.prev.as_deref())
    }
}

impl Drop for TabList {
    /// Unlinks iteratively: the default recursive drop of a long chain could overflow the stack.
    /// Stops at the first link another version still holds.
    fn drop(&mut self) {
        let mut next = self.last.take();
        while let Some(link) = next {
            next = match Arc::try_unwrap(link) {
                Ok(mut owned) => owned.prev.take(),
                Err(_) => None,
            };
        }
    }
}

impl FromIterator<TabId> for TabList {
    fn from_iter<I: IntoIterator<Item = TabId>>(iter: I) -> Self {
        let mut list = TabList::new();
        for id in iter {
            list.push(id);
        }
        list
    }
}

impl PartialEq for TabList {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && (same_link(&self.last, &other.last)
                || self
                    .links_from_end()
                    .zip(other.links_from_end())
                    .all(|(a, b)| a.id == b.id))
    }
}

fn same_link(a: &Option<Arc<Link>>, b: &Option<Arc<Link>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

impl PartialEq<Vec<TabId>> for TabList {
    fn eq(&self, other: &Vec<TabId>) -> bool {
        self.len == other.len() && self.ids().into_iter().eq(other.iter())
    }
}

impl fmt::Debug for TabList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.ids()).finish()
    }
}

impl serde::Serialize for TabList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.ids())
    }
}

impl<'de> serde::Deserialize<'de> for TabList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<TabId>::deserialize(d)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<TabId> {
        (0..n).map(|_| TabId::new()).collect()
    }

    #[test]
    fn behaves_like_a_vec() {
        let all = ids(5);
        let mut list: TabList = all.iter().cloned().collect();
        let mut vec = all.clone();
        assert_eq!(list, vec);
        assert_eq!(list.last(), vec.last());
        assert_eq!(list.position(&all[3]), Some(3));
        assert!(list.contains(&all[0]));
        let moved = list.remove(1);
        assert_eq!(moved, vec.remove(1));
        list.insert(3, moved.clone());
        vec.insert(3, moved);
        assert_eq!(list, vec);
        list.retain(|t| t != &all[0]);
        vec.retain(|t| t != &all[0]);
        assert_eq!(list, vec);
        list.insert(list.len(), all[0].clone());
        vec.push(all[0].clone());
        assert_eq!(list, vec);
        assert_eq!(list.len(), vec.len());
        assert_eq!(list.position(&TabId::new()), None);
    }

    #[test]
    fn an_old_version_is_unchanged_by_later_edits() {
        let all = ids(4);
        let mut list: TabList = all[..3].iter().cloned().collect();
        let old = list.clone();
        list.push(all[3].clone());
        list.retain(|t| t != &all[1]);
        assert_eq!(old, all[..3].to_vec());
        assert_eq!(list, vec![all[0].clone(), all[2].clone(), all[3].clone()]);
    }

    #[test]
    fn a_long_list_drops_without_recursion_and_round_trips_through_serde() {
        let list: TabList = ids(200_000).into_iter().collect();
        let json = serde_json::to_string(&list).expect("serialize");
        let back: TabList = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, list);
        drop(list);
        drop(back);
    }
}
