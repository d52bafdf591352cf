//! The second pass: the messages of a chosen chain read one at a time from their lines, so a
//! caller can write each out before the next is read.

use std::fs::File;

use serde_json::Value;

use super::chain::Chains;
use super::entry::{is_visible, kind, str_field, Entry};
use super::index::{fingerprint, Index, Kind, Limits, SIDECHAIN, UNREADABLE};
use super::lines::{read_at, Place};
use super::skipped::{Notes, Skipped};
use super::{SessionError, SessionMessage};

/// Which conversation is read, and how it is shown.
#[derive(Debug, Clone)]
pub(crate) enum View {
    /// The session's own: visible user and assistant messages, and system ones if asked.
    Main { with_system: bool },
    /// A subagent's: its user and assistant messages, each naming the tool use that started
    /// it and its parent subagent.
    Subagent {
        tool_use: Option<String>,
        parent_agent: Option<String>,
    },
}

/// One entry to read again.
struct Planned {
    place: Place,
    /// Its uuid's fingerprint, to check the line read again is the same entry.
    uuid: u64,
}

/// A session's conversation, oldest first, read message by message from its transcript
/// (from [`SavedSessions::read_messages`](super::SavedSessions::read_messages)). The transcript
/// is read once to find the conversation (keeping only each entry's ids and place), then each
/// message's line is read again as it is asked for: memory holds one message at a time.
///
/// Lines that could not be read are left out and reported by [`skipped`](Self::skipped)
/// (complete once the reader is used up).
pub struct MessageReader {
    file: File,
    plan: std::vec::IntoIter<Planned>,
    view: View,
    /// Messages still to pass over (the page's offset).
    skip: usize,
    /// Messages still to give (the page's limit), `None` for all.
    left: Option<usize>,
    buf: Vec<u8>,
    notes: Notes,
}

impl std::fmt::Debug for MessageReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageReader")
            .field("view", &self.view)
            .field("remaining", &self.plan.len())
            .field("skipped", &self.notes.total)
            .finish()
    }
}

impl MessageReader {
    /// Reads the transcript open in `file` and plans the conversation of `view`.
    pub(crate) fn new(
        file: File,
        view: View,
        offset: usize,
        limit: Option<usize>,
        limits: Limits,
    ) -> Result<Self, SessionError> {
        let mut index = Index::read(&file, limits, false)?;
        let mut notes = std::mem::take(&mut index.notes);
        let mut chains = Chains::new(&index);
        let chain = match view {
            View::Main { .. } => chains.main(&mut notes),
            View::Subagent { .. } => chains.subagent(&mut notes),
        };
        let plan = plan(&index, &chain, &view);
        Ok(Self {
            file,
            plan: plan.into_iter(),
            view,
            skip: offset,
            left: limit.filter(|l| *l > 0),
            buf: Vec::new(),
            notes,
        })
    }

    /// The lines left out so far (at most 1,000 in detail; see
    /// [`skipped_count`](Self::skipped_count)).
    pub fn skipped(&self) -> &[Skipped] {
        &self.notes.kept
    }

    /// How many lines were left out so far, all told.
    pub fn skipped_count(&self) -> u64 {
        self.notes.total
    }

    /// The entry at `planned`, if it still reads as it did.
    fn read(&mut self, planned: &Planned) -> Option<Entry> {
        let entry = read_at(&mut self.file, planned.place, &mut self.buf)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok());
        match entry {
            Some(Value::Object(entry))
                if str_field(&entry, "uuid").map(fingerprint) == Some(planned.uuid) =>
            {
                Some(entry)
            }
            _ => {
                self.notes.push(Skipped::Changed {
                    line: planned.place.number,
                });
                None
            }
        }
    }

    fn shows(&self, entry: &Entry) -> bool {
        match &self.view {
            View::Main { with_system } => is_visible(entry, *with_system),
            View::Subagent { .. } => matches!(kind(entry), "user" | "assistant"),
        }
    }
}

impl Iterator for MessageReader {
    type Item = SessionMessage;

    fn next(&mut self) -> Option<SessionMessage> {
        loop {
            if self.left == Some(0) {
                return None;
            }
            let planned = self.plan.next()?;
            let Some(entry) = self.read(&planned) else {
                continue;
            };
            if !self.shows(&entry) {
                continue;
            }
            if self.skip > 0 {
                self.skip -= 1;
                continue;
            }
            if let Some(left) = &mut self.left {
                *left -= 1;
            }
            let (tool_use, parent_agent) = match &self.view {
                View::Main { .. } => (None, None),
                View::Subagent {
                    tool_use,
                    parent_agent,
                } => (tool_use.as_deref(), parent_agent.as_deref()),
            };
            return Some(SessionMessage::from_entry(&entry, tool_use, parent_agent));
        }
    }
}

/// The entries of `chain` that may be shown (by kind and flags; the rest is decided on the
/// whole entry), with their uuids to check them by when read again.
fn plan(index: &Index, chain: &[u32], view: &View) -> Vec<Planned> {
    let may_show = |i: &u32| {
        let node = &index.nodes[*i as usize];
        if node.has(UNREADABLE) {
            return false;
        }
        match view {
            View::Main { with_system } => {
                !node.has(SIDECHAIN)
                    && (node.kind.is_message() || (*with_system && node.kind == Kind::System))
            }
            View::Subagent { .. } => node.kind.is_message(),
        }
    };
    let chosen: Vec<u32> = chain.iter().copied().filter(may_show).collect();
    let uuids: Vec<u32> = chosen
        .iter()
        .map(|&i| index.nodes[i as usize].uuid)
        .collect();
    let fingerprints = index.fingerprints(&uuids);
    chosen
        .into_iter()
        .zip(fingerprints)
        .map(|(i, uuid)| Planned {
            place: index.nodes[i as usize].place,
            uuid,
        })
        .collect()
}
