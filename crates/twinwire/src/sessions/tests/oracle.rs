//! The conversation as the sessions module read it before its index: every entry parsed and
//! kept, walks restarted from each leaf. Kept as an oracle: on small transcripts the new
//! reading must choose exactly the same entries in the same order.
#![allow(clippy::unwrap_used)]

use std::collections::{HashMap, HashSet};

use serde_json::Value;

/// Entry kinds that are links of the chain.
const CHAIN_KINDS: [&str; 5] = ["user", "assistant", "progress", "system", "attachment"];

/// One parsed entry with a `uuid`.
pub(super) type Entry = serde_json::Map<String, Value>;

fn str_field<'a>(entry: &'a Entry, key: &str) -> Option<&'a str> {
    entry.get(key).and_then(Value::as_str)
}

fn uuid(entry: &Entry) -> &str {
    str_field(entry, "uuid").unwrap_or_default()
}

fn parent(entry: &Entry) -> Option<&str> {
    str_field(entry, "parentUuid").filter(|p| !p.is_empty())
}

fn kind(entry: &Entry) -> &str {
    str_field(entry, "type").unwrap_or_default()
}

fn flag(entry: &Entry, key: &str) -> bool {
    entry.get(key).is_some_and(|v| v.as_bool() == Some(true))
}

/// The chain entries of a transcript, in file order (lines that are not JSON skipped).
pub(super) fn parse_entries(text: &str) -> Vec<Entry> {
    text.split('\n')
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|value| match value {
            Value::Object(entry) => Some(entry),
            _ => None,
        })
        .filter(|entry| {
            CHAIN_KINDS.contains(&kind(entry)) && entry.get("uuid").is_some_and(Value::is_string)
        })
        .collect()
}

/// The main conversation: from the newest leaf not in a sidechain, team or meta entry, back
/// to the root, then the parallel tool calls put back.
pub(super) fn main_chain(entries: &[Entry]) -> Vec<&Entry> {
    if entries.is_empty() {
        return Vec::new();
    }
    let by_uuid: HashMap<&str, &Entry> = entries.iter().map(|e| (uuid(e), e)).collect();
    let position: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (uuid(e), i))
        .collect();
    let parents: HashSet<&str> = entries.iter().filter_map(parent).collect();
    // From each entry nobody points to, back to the nearest user or assistant entry.
    let mut leaves: Vec<&Entry> = Vec::new();
    for terminal in entries.iter().filter(|e| !parents.contains(uuid(e))) {
        let mut seen = HashSet::new();
        let mut current = Some(terminal);
        while let Some(entry) = current {
            if !seen.insert(uuid(entry)) {
                break;
            }
            if matches!(kind(entry), "user" | "assistant") {
                leaves.push(entry);
                break;
            }
            current = parent(entry).and_then(|p| by_uuid.get(p).copied());
        }
    }
    let main: Vec<&Entry> = leaves
        .iter()
        .copied()
        .filter(|e| {
            !flag(e, "isSidechain")
                && e.get("teamName").is_none_or(Value::is_null)
                && !flag(e, "isMeta")
        })
        .collect();
    let candidates = if main.is_empty() { leaves } else { main };
    let leaf = candidates
        .into_iter()
        .max_by_key(|e| position.get(uuid(e)).copied().unwrap_or(0));
    let Some(leaf) = leaf else {
        return Vec::new();
    };
    let (mut chain, mut seen) = walk_back(leaf, &by_uuid);
    chain.reverse();
    recover_parallel_tools(entries, &by_uuid, chain, &mut seen)
}

/// From `leaf` to the root by `parentUuid` (stopping at a loop), and the uuids visited.
fn walk_back<'a>(
    leaf: &'a Entry,
    by_uuid: &HashMap<&str, &'a Entry>,
) -> (Vec<&'a Entry>, HashSet<String>) {
    let mut chain = Vec::new();
    let mut seen = HashSet::new();
    let mut current = Some(leaf);
    while let Some(entry) = current {
        if !seen.insert(uuid(entry).to_owned()) {
            break;
        }
        chain.push(entry);
        current = parent(entry).and_then(|p| by_uuid.get(p).copied());
    }
    (chain, seen)
}

/// A subagent's conversation: from its last user or assistant entry back to the root.
pub(super) fn subagent_chain(entries: &[Entry]) -> Vec<&Entry> {
    let by_uuid: HashMap<&str, &Entry> = entries.iter().map(|e| (uuid(e), e)).collect();
    let Some(leaf) = entries
        .iter()
        .rev()
        .find(|e| matches!(kind(e), "user" | "assistant"))
    else {
        return Vec::new();
    };
    let (mut chain, _) = walk_back(leaf, &by_uuid);
    chain.reverse();
    chain
}

fn message_id(entry: &Entry) -> Option<&str> {
    if kind(entry) != "assistant" {
        return None;
    }
    entry
        .get("message")?
        .get("id")?
        .as_str()
        .filter(|id| !id.is_empty())
}

/// The `field` of every `block_type` block of an entry's message.
fn block_ids<'a>(entry: &'a Entry, block_type: &str, field: &str) -> Vec<&'a str> {
    let Some(Value::Array(blocks)) = entry.get("message").and_then(|m| m.get("content")) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some(block_type))
        .filter_map(|b| b.get(field).and_then(Value::as_str))
        .collect()
}

fn is_tool_result(entry: &Entry) -> bool {
    let blocks = entry.get("message").and_then(|m| m.get("content"));
    kind(entry) == "user"
        && parent(entry).is_some()
        && matches!(blocks, Some(Value::Array(blocks))
            if blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")))
}

fn same_writer(a: &Entry, b: &Entry) -> bool {
    flag(a, "isSidechain") == flag(b, "isSidechain") && a.get("agentId") == b.get("agentId")
}

fn timestamp(entry: &Entry) -> &str {
    str_field(entry, "timestamp").unwrap_or_default()
}

/// Puts back the entries of parallel tool calls the walk left off (see the module docs).
fn recover_parallel_tools<'a>(
    entries: &'a [Entry],
    by_uuid: &HashMap<&str, &'a Entry>,
    chain: Vec<&'a Entry>,
    seen: &mut HashSet<String>,
) -> Vec<&'a Entry> {
    let chain_assistants: Vec<&Entry> = chain
        .iter()
        .copied()
        .filter(|e| kind(e) == "assistant")
        .collect();
    // The last entry on the chain of each response.
    let mut anchor: HashMap<&str, &Entry> = HashMap::new();
    for entry in &chain_assistants {
        if let Some(id) = message_id(entry) {
            anchor.insert(id, entry);
        }
    }
    if anchor.is_empty() {
        return chain;
    }
    // Every entry of each response, and which entry made each call (`None` when two responses
    // claim the same call id: it places nothing).
    let mut siblings: HashMap<&str, Vec<&Entry>> = HashMap::new();
    let mut call_owner: HashMap<&str, Option<&Entry>> = HashMap::new();
    let mut results: Vec<&Entry> = Vec::new();
    for entry in entries {
        if let Some(id) = message_id(entry) {
            siblings.entry(id).or_default().push(entry);
            for call in block_ids(entry, "tool_use", "id") {
                match call_owner.get(call) {
                    None => {
                        call_owner.insert(call, Some(entry));
                    }
                    Some(owner) => {
                        let same = owner.is_some_and(|o| message_id(o) == Some(id));
                        call_owner.insert(call, if same { Some(entry) } else { None });
                    }
                }
            }
        } else if is_tool_result(entry) {
            results.push(entry);
        }
    }
    // Each result under the assistant entries it may belong to: its parent, its
    // `sourceToolAssistantUUID` and the owner of each call it answers (the last two only when
    // written by the same agent).
    let mut results_of: HashMap<&str, Vec<&Entry>> = HashMap::new();
    for result in &results {
        if let Some(p) = parent(result) {
            results_of.entry(p).or_default().push(result);
        }
        if let Some(source) = str_field(result, "sourceToolAssistantUUID") {
            if by_uuid.get(source).is_some_and(|s| same_writer(result, s)) {
                results_of.entry(source).or_default().push(result);
            }
        }
        for call in block_ids(result, "tool_result", "tool_use_id") {
            if let Some(Some(owner)) = call_owner.get(call) {
                if same_writer(result, owner) {
                    results_of.entry(uuid(owner)).or_default().push(result);
                }
            }
        }
    }
    let file_position: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (uuid(e), i))
        .collect();
    let mut answered_on_chain: Option<HashSet<&str>> = None;
    let mut processed = HashSet::new();
    let mut inserts: HashMap<&str, Vec<&Entry>> = HashMap::new();
    for assistant in &chain_assistants {
        let Some(id) = message_id(assistant) else {
            continue;
        };
        if !processed.insert(id) {
            continue;
        }
        let group: Vec<&Entry> = siblings.get(id).cloned().unwrap_or_else(|| vec![assistant]);
        let members: HashSet<&str> = group.iter().map(|m| uuid(m)).collect();
        let mut lost_siblings: Vec<&Entry> = group
            .iter()
            .copied()
            .filter(|m| !seen.contains(uuid(m)))
            .collect();
        let mut lost_results: Vec<&Entry> = Vec::new();
        let mut strays: Vec<&Entry> = Vec::new();
        let mut collected = HashSet::new();
        for member in &group {
            for result in results_of.get(uuid(member)).into_iter().flatten() {
                if seen.contains(uuid(result)) || !collected.insert(uuid(result)) {
                    continue;
                }
                if parent(result).is_some_and(|p| members.contains(p)) {
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
                    .flat_map(|e| block_ids(e, "tool_result", "tool_use_id"))
                    .collect()
            });
            let mut answered: HashSet<&str> = on_chain.clone();
            for result in &lost_results {
                answered.extend(block_ids(result, "tool_result", "tool_use_id"));
            }
            strays.sort_by_key(|e| file_position.get(uuid(e)).copied().unwrap_or(0));
            for result in strays {
                let calls = block_ids(result, "tool_result", "tool_use_id");
                let answers_open_call = calls.iter().any(|call| {
                    !answered.contains(call)
                        && matches!(call_owner.get(call), Some(Some(owner)) if members.contains(uuid(owner)))
                });
                if answers_open_call {
                    answered.extend(calls);
                    lost_results.push(result);
                }
            }
        }
        if lost_siblings.is_empty() && lost_results.is_empty() {
            continue;
        }
        // Stable sorts: ties keep file order.
        lost_siblings.sort_by(|a, b| timestamp(a).cmp(timestamp(b)));
        lost_results.sort_by(|a, b| timestamp(a).cmp(timestamp(b)));
        let recovered: Vec<&Entry> = lost_siblings.into_iter().chain(lost_results).collect();
        for entry in &recovered {
            seen.insert(uuid(entry).to_owned());
        }
        if let Some(anchor) = anchor.get(id) {
            inserts.insert(uuid(anchor), recovered);
        }
    }
    if inserts.is_empty() {
        return chain;
    }
    let mut out = Vec::with_capacity(chain.len());
    for entry in chain {
        out.push(entry);
        if let Some(recovered) = inserts.remove(uuid(entry)) {
            out.extend(recovered);
        }
    }
    out
}
