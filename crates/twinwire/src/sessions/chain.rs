//! A session's conversation from the index of its transcript, the way the official SDKs
//! read it.
//!
//! The CLI appends entries linked by `parentUuid`; rewinds and retries leave branches. The
//! conversation is the chain from the newest main-thread leaf back to the root. A response
//! that ran tools in parallel is written as one assistant entry per block, each result hanging
//! off its own call, so the chain walk keeps only one branch of it: the calls and results it
//! skipped are put back after the response's last entry on the chain.
//!
//! Every walk along `parentUuid` keeps what it visited and stops at a loop (reported); each
//! entry is walked through once (the nearest message above an entry is remembered), so the
//! whole is linear in the number of entries.

use std::collections::{HashMap, HashSet};

use super::index::{Index, Kind, Node, META, NONE, SIDECHAIN, TEAM, TOOL_RESULT};
use super::skipped::{Notes, Skipped};

/// Not worked out yet (`nearest`).
const UNKNOWN: u32 = u32::MAX;
/// No message above (`nearest`).
const NO_MESSAGE: u32 = u32::MAX - 1;
/// On the walk in progress (`nearest`): meeting it again is a loop.
const ON_PATH: u32 = u32::MAX - 2;

/// The chains of one index. `steps` counts the work done, entry by entry, so tests can show
/// it grows with the transcript, not with its square.
pub(crate) struct Chains<'a> {
    index: &'a Index,
    /// For each id, the last entry with that uuid.
    node_of: Vec<u32>,
    pub(crate) steps: u64,
}

impl<'a> Chains<'a> {
    pub(crate) fn new(index: &'a Index) -> Self {
        Self {
            index,
            node_of: index.node_of_uuid(),
            steps: 0,
        }
    }

    fn node(&self, i: u32) -> &'a Node {
        &self.index.nodes[i as usize]
    }

    /// The entry a node's `parentUuid` names, if there is one.
    fn parent_of(&self, i: u32) -> Option<u32> {
        let parent = self.node(i).parent()?;
        let node = self.node_of[parent as usize];
        (node != NONE).then_some(node)
    }

    fn cycle(&self, notes: &mut Notes, child: u32, parent: u32) {
        notes.push(Skipped::Cycle {
            line: self.node(child).place.number,
            parent_line: self.node(parent).place.number,
        });
    }

    /// The main conversation: from the newest leaf not in a sidechain, team or meta entry,
    /// back to the root, then the parallel tool calls put back.
    pub(crate) fn main(&mut self, notes: &mut Notes) -> Vec<u32> {
        let nodes = &self.index.nodes;
        if nodes.is_empty() {
            return Vec::new();
        }
        let mut is_parent = vec![false; self.index.id_count()];
        for node in nodes {
            self.steps += 1;
            if let Some(parent) = node.parent() {
                is_parent[parent as usize] = true;
            }
        }
        // From each entry nobody points to, back to the nearest user or assistant entry.
        let mut nearest = vec![UNKNOWN; nodes.len()];
        let mut leaves: Vec<u32> = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            self.steps += 1;
            if is_parent[node.uuid as usize] {
                continue;
            }
            let found = self.nearest_message(i as u32, &mut nearest, notes);
            if found != NO_MESSAGE {
                leaves.push(found);
            }
        }
        let main: Vec<u32> = leaves
            .iter()
            .copied()
            .filter(|&i| self.node(i).flags & (SIDECHAIN | TEAM | META) == 0)
            .collect();
        let candidates = if main.is_empty() { leaves } else { main };
        // The newest: the one whose uuid was written last (of equals, the last found).
        let Some(leaf) = candidates
            .into_iter()
            .max_by_key(|&i| self.node_of[self.node(i).uuid as usize])
        else {
            return Vec::new();
        };
        let (mut chain, mut seen) = self.walk_back(leaf, notes);
        chain.reverse();
        self.recover_parallel_tools(chain, &mut seen)
    }

    /// A subagent's conversation: from its last user or assistant entry back to the root.
    pub(crate) fn subagent(&mut self, notes: &mut Notes) -> Vec<u32> {
        let Some(leaf) = self
            .index
            .nodes
            .iter()
            .rposition(|node| node.kind.is_message())
        else {
            return Vec::new();
        };
        let (mut chain, _) = self.walk_back(leaf as u32, notes);
        chain.reverse();
        chain
    }

    /// The nearest user or assistant entry at or above `start`, `NO_MESSAGE` if none;
    /// remembered for every entry on the way, so no entry is walked through twice.
    fn nearest_message(&mut self, start: u32, nearest: &mut [u32], notes: &mut Notes) -> u32 {
        let mut path = Vec::new();
        let mut current = Some(start);
        let mut previous = None;
        let found = loop {
            self.steps += 1;
            let Some(i) = current else {
                break NO_MESSAGE;
            };
            match nearest[i as usize] {
                UNKNOWN => {}
                ON_PATH => {
                    if let Some(child) = previous {
                        self.cycle(notes, child, i);
                    }
                    break NO_MESSAGE;
                }
                known => break known,
            }
            if self.node(i).kind.is_message() {
                break i;
            }
            nearest[i as usize] = ON_PATH;
            path.push(i);
            previous = Some(i);
            current = self.parent_of(i);
        };
        for i in path {
            self.steps += 1;
            nearest[i as usize] = found;
        }
        found
    }

    /// From `leaf` to the root by `parentUuid` (stopping at a loop), and the uuids visited.
    fn walk_back(&mut self, leaf: u32, notes: &mut Notes) -> (Vec<u32>, Vec<bool>) {
        let mut chain = Vec::new();
        let mut seen = vec![false; self.index.id_count()];
        let mut current = Some(leaf);
        while let Some(i) = current {
            self.steps += 1;
            let uuid = self.node(i).uuid as usize;
            if seen[uuid] {
                if let Some(&child) = chain.last() {
                    self.cycle(notes, child, i);
                }
                break;
            }
            seen[uuid] = true;
            chain.push(i);
            current = self.parent_of(i);
        }
        (chain, seen)
    }

    /// Whether two entries were written by the same agent (both in or out of a sidechain,
    /// the same `agentId`).
    fn same_writer(&self, a: u32, b: u32) -> bool {
        let (a, b) = (self.node(a), self.node(b));
        (a.flags & SIDECHAIN) == (b.flags & SIDECHAIN) && a.agent == b.agent
    }

    fn uuid(&self, i: u32) -> u32 {
        self.node(i).uuid
    }

    /// Puts back the entries of parallel tool calls the walk left off (see the module docs).
    fn recover_parallel_tools(&mut self, chain: Vec<u32>, seen: &mut [bool]) -> Vec<u32> {
        let index = self.index;
        let chain_assistants: Vec<u32> = chain
            .iter()
            .copied()
            .filter(|&i| self.node(i).kind == Kind::Assistant)
            .collect();
        // The last entry on the chain of each response.
        let mut anchor: HashMap<u32, u32> = HashMap::new();
        for &entry in &chain_assistants {
            self.steps += 1;
            let id = self.node(entry).message_id;
            if id != NONE {
                anchor.insert(id, entry);
            }
        }
        if anchor.is_empty() {
            return chain;
        }
        // Every entry of each response, and which entry made each call (`None` when two
        // responses claim the same call id: it places nothing).
        let mut siblings: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut call_owner: HashMap<u32, Option<u32>> = HashMap::new();
        let mut results: Vec<u32> = Vec::new();
        for (i, node) in index.nodes.iter().enumerate() {
            self.steps += 1;
            let i = i as u32;
            if node.message_id != NONE {
                let id = node.message_id;
                siblings.entry(id).or_default().push(i);
                for &call in index.calls(node) {
                    self.steps += 1;
                    let owner = match call_owner.get(&call) {
                        None => Some(i),
                        Some(owner) => owner.filter(|&o| self.node(o).message_id == id).map(|_| i),
                    };
                    call_owner.insert(call, owner);
                }
            } else if node.has(TOOL_RESULT) {
                results.push(i);
            }
        }
        // Each result under the assistant entries it may belong to: its parent, its
        // `sourceToolAssistantUUID` and the owner of each call it answers (the last two only
        // when written by the same agent).
        let mut results_of: HashMap<u32, Vec<u32>> = HashMap::new();
        for &result in &results {
            self.steps += 1;
            let node = self.node(result);
            if let Some(parent) = node.parent() {
                results_of.entry(parent).or_default().push(result);
            }
            if node.source != NONE {
                let source = self.node_of[node.source as usize];
                if source != NONE && self.same_writer(result, source) {
                    results_of.entry(node.source).or_default().push(result);
                }
            }
            for &call in index.answers(node) {
                self.steps += 1;
                if let Some(Some(owner)) = call_owner.get(&call) {
                    if self.same_writer(result, *owner) {
                        results_of
                            .entry(self.uuid(*owner))
                            .or_default()
                            .push(result);
                    }
                }
            }
        }
        let mut answered_on_chain: Option<HashSet<u32>> = None;
        let mut processed = HashSet::new();
        let mut inserts: HashMap<u32, Vec<u32>> = HashMap::new();
        for &assistant in &chain_assistants {
            self.steps += 1;
            let id = self.node(assistant).message_id;
            if id == NONE || !processed.insert(id) {
                continue;
            }
            let group: &[u32] = siblings
                .get(&id)
                .map_or(std::slice::from_ref(&assistant), Vec::as_slice);
            let members: HashSet<u32> = group.iter().map(|&m| self.uuid(m)).collect();
            let mut lost_siblings: Vec<u32> = group
                .iter()
                .copied()
                .filter(|&m| !seen[self.uuid(m) as usize])
                .collect();
            let mut lost_results: Vec<u32> = Vec::new();
            let mut strays: Vec<u32> = Vec::new();
            let mut collected = HashSet::new();
            // Each member's uuid once: a uuid written twice has the same results.
            let mut members_done = HashSet::new();
            for &member in group {
                self.steps += 1;
                if !members_done.insert(self.uuid(member)) {
                    continue;
                }
                for &result in results_of.get(&self.uuid(member)).into_iter().flatten() {
                    self.steps += 1;
                    let uuid = self.uuid(result);
                    if seen[uuid as usize] || !collected.insert(uuid) {
                        continue;
                    }
                    if self
                        .node(result)
                        .parent()
                        .is_some_and(|p| members.contains(&p))
                    {
                        lost_results.push(result);
                    } else {
                        strays.push(result);
                    }
                }
            }
            if !strays.is_empty() {
                let on_chain = answered_on_chain.get_or_insert_with(|| {
                    chain
                        .iter()
                        .flat_map(|&e| index.answers(&index.nodes[e as usize]))
                        .copied()
                        .collect()
                });
                // Answered on the chain, or by a result put back for this response.
                let mut answered_here: HashSet<u32> = lost_results
                    .iter()
                    .flat_map(|&r| index.answers(self.node(r)))
                    .copied()
                    .collect();
                strays.sort_by_key(|&r| self.node_of[self.uuid(r) as usize]);
                for result in strays {
                    self.steps += 1;
                    let calls = index.answers(self.node(result));
                    let answers_open_call = calls.iter().any(|call| {
                        !on_chain.contains(call)
                            && !answered_here.contains(call)
                            && matches!(call_owner.get(call),
                                Some(Some(owner)) if members.contains(&self.uuid(*owner)))
                    });
                    if answers_open_call {
                        answered_here.extend(calls);
                        lost_results.push(result);
                    }
                }
            }
            if lost_siblings.is_empty() && lost_results.is_empty() {
                continue;
            }
            // Stable sorts: ties keep file order.
            lost_siblings.sort_by(|&a, &b| {
                index
                    .timestamp(self.node(a))
                    .cmp(index.timestamp(self.node(b)))
            });
            lost_results.sort_by(|&a, &b| {
                index
                    .timestamp(self.node(a))
                    .cmp(index.timestamp(self.node(b)))
            });
            let recovered: Vec<u32> = lost_siblings.into_iter().chain(lost_results).collect();
            for &entry in &recovered {
                self.steps += 1;
                seen[self.uuid(entry) as usize] = true;
            }
            if let Some(&anchor) = anchor.get(&id) {
                inserts.insert(self.uuid(anchor), recovered);
            }
        }
        if inserts.is_empty() {
            return chain;
        }
        let mut out = Vec::with_capacity(chain.len());
        for entry in chain {
            self.steps += 1;
            out.push(entry);
            if let Some(recovered) = inserts.remove(&self.uuid(entry)) {
                out.extend(recovered);
            }
        }
        out
    }
}
