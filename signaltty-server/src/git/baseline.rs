//! HEAD against the index: which paths are staged, and what HEAD holds at a path, without
//! walking HEAD's trees once per path.
//!
//! Git keeps a cache of the index's trees (the index's `TREE` extension): every `git add`, `rm`
//! or checkout invalidates the entries on the changed path up to the root, and `git commit`
//! fills them in again. When the root entry is valid, covers every index entry and names
//! HEAD's tree, the index *is* HEAD's tree — nothing is staged, and HEAD's blob at a path is the
//! index entry's. That is the usual state of an agent's checkout (edits, nothing staged), and it
//! saves reading HEAD's whole tree and diffing it against the index (what `git status` saves the
//! same way). Otherwise gix diffs HEAD's tree against the index; the tree, converted into an
//! index-like sorted list, then answers lookups by binary search.

use std::ops::ControlFlow;

use gix::bstr::ByteSlice;
use gix::index::entry::Mode;

use super::GitError;

/// What HEAD holds, by path.
pub enum Baseline {
    /// HEAD has no commit yet.
    Unborn,
    /// The index equals HEAD's tree.
    Index(gix::worktree::Index),
    /// HEAD's tree as an index-like list (the index differs from it).
    Tree(Box<gix::index::State>),
}

/// One path in HEAD.
#[derive(Clone, Copy, Debug)]
pub struct HeadEntry {
    /// The blob (or commit, for a submodule).
    pub id: gix::ObjectId,
    /// A submodule or a directory: nothing to compare.
    pub not_a_file: bool,
}

impl Baseline {
    /// HEAD's entry at `path` (`/`-separated, relative to the root).
    pub fn entry(&self, path: &str) -> Option<HeadEntry> {
        let state: &gix::index::State = match self {
            Baseline::Unborn => return None,
            Baseline::Index(index) => index,
            Baseline::Tree(state) => state,
        };
        let entry = state.entry_by_path(path.as_bytes().as_bstr())?;
        let file = matches!(
            entry.mode,
            Mode::FILE | Mode::FILE_EXECUTABLE | Mode::SYMLINK
        );
        Some(HeadEntry {
            id: entry.id,
            not_a_file: !file,
        })
    }
}

/// True when the index's cached tree says the index is exactly `head_tree`.
fn index_is_head(index: &gix::index::State, head_tree: &gix::oid) -> bool {
    index.tree().is_some_and(|root| {
        root.id == head_tree
            && root
                .num_entries
                .is_some_and(|n| n as usize == index.entries().len())
    })
}

/// HEAD against `index`: the baseline and the staged paths. With `first_only`, stops at the
/// first staged path (a dirty check needs no more).
pub fn head_vs_index(
    repo: &gix::Repository,
    index: &gix::worktree::Index,
    first_only: bool,
) -> Result<(Baseline, Vec<String>), GitError> {
    let head = repo.head().map_err(GitError::gix)?;
    if head.is_unborn() {
        // Everything in the index is staged against an empty HEAD.
        let staged = index
            .entries()
            .iter()
            .take(if first_only { 1 } else { usize::MAX })
            .map(|e| e.path(index).to_string())
            .collect();
        return Ok((Baseline::Unborn, staged));
    }
    let tree = repo.head_tree_id().map_err(GitError::gix)?.detach();
    if index_is_head(index, &tree) {
        return Ok((Baseline::Index(index.clone()), Vec::new()));
    }
    let mut staged = Vec::new();
    let outcome = repo
        .tree_index_status(
            &tree,
            index,
            None,
            gix::status::tree_index::TrackRenames::Disabled,
            |change, _, _| {
                staged.push(change.location().to_string());
                Ok(if first_only {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                })
            },
        )
        .map_err(GitError::gix)?;
    Ok((Baseline::Tree(Box::new(outcome.tree_index)), staged))
}
