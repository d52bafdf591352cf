//! A fork: a new session file with the entries of another (up to one of them), each with a
//! new uuid, written as the official TypeScript SDK writes it. The source is read in two
//! passes like a conversation (its index first, then each entry's line as it is copied), so a
//! fork of a large transcript holds one entry at a time.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};

use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::config_dir::{in_project, ConfigDir};
use super::index::{Carried, Index, Kind, Limits, NONE, SIDECHAIN, UNREADABLE};
use super::lines::read_at;
use super::lite::{first_prompt, read_ends, title};
use super::skipped::{Notes, Skipped};
use super::SessionError;

/// An entry with its top-level keys in the order written and their values untouched: a fork
/// changes a few fields and must keep the rest byte for byte.
type Raw = IndexMap<String, Box<RawValue>>;

/// What a fork needs.
pub(crate) struct Fork<'a> {
    pub(crate) root: &'a ConfigDir,
    pub(crate) project: &'a str,
    pub(crate) session_id: &'a str,
    pub(crate) up_to: Option<&'a str>,
    pub(crate) title: Option<&'a str>,
    pub(crate) limits: Limits,
}

/// Forks the session; returns the new id. Every uuid is new, `parentUuid` links skip progress
/// entries (which are left out, as are lines that could not be read), the last entry gets the
/// current time, each entry names where it came from (`forkedFrom`), and a `custom-title` ends
/// the file (`title`, else the source's title and ` (fork)`).
pub(crate) fn fork(fork: &Fork<'_>, notes: &mut Notes) -> Result<String, SessionError> {
    let source_path = in_project(fork.project, &format!("{}.jsonl", fork.session_id));
    let source = fork.root.open_read(&source_path)?;
    let mut index = Index::read(&source, fork.limits, true)?;
    notes.kept.append(&mut index.notes.kept);
    notes.total += index.notes.total;
    let no_messages = || {
        SessionError::Invalid(format!(
            "session {} has no messages to fork",
            fork.session_id
        ))
    };
    let mut transcript: Vec<u32> = (0..index.nodes.len() as u32)
        .filter(|&i| !index.nodes[i as usize].has(SIDECHAIN))
        .collect();
    if transcript.is_empty() {
        return Err(no_messages());
    }
    if let Some(up_to) = fork.up_to {
        let wanted = index.id_of(up_to);
        let cut = transcript
            .iter()
            .position(|&i| {
                let node = &index.nodes[i as usize];
                Some(node.uuid) == wanted && !node.has(UNREADABLE)
            })
            .ok_or_else(|| {
                SessionError::Invalid(format!(
                    "message {up_to} not found in session {}",
                    fork.session_id
                ))
            })?;
        transcript.truncate(cut + 1);
    }
    let links = Links::new(&index, &transcript);
    let writable: Vec<u32> = transcript
        .iter()
        .copied()
        .filter(|&i| links.is_written(i))
        .collect();
    if writable.is_empty() {
        return Err(no_messages());
    }
    let fork_id = new_uuid();
    let target_path = in_project(fork.project, &format!("{fork_id}.jsonl"));
    let target = fork.root.create_new(&target_path)?;
    let mut writer = Writer {
        fork,
        index: &index,
        links,
        source,
        fork_id: fork_id.clone(),
        now: super::now_rfc3339(),
        buf: Vec::new(),
    };
    if let Err(err) = writer.write(&writable, target, notes) {
        // Nothing half-written is left behind.
        let _ = fork.root.remove_file(&target_path);
        return Err(err);
    }
    Ok(fork_id)
}

/// Writes a fork from its source.
struct Writer<'a> {
    fork: &'a Fork<'a>,
    index: &'a Index,
    links: Links<'a>,
    source: File,
    fork_id: String,
    /// The fork's time (the last entry's, and the added lines').
    now: String,
    buf: Vec<u8>,
}

impl Writer<'_> {
    /// Writes the fork's lines into `target`.
    fn write(
        &mut self,
        writable: &[u32],
        target: cap_std::fs::File,
        notes: &mut Notes,
    ) -> Result<(), SessionError> {
        let mut out = BufWriter::new(target.into_std());
        for (n, &i) in writable.iter().enumerate() {
            let node = &self.index.nodes[i as usize];
            let original: Option<Raw> = read_at(&mut self.source, node.place, &mut self.buf)
                .ok()
                .and_then(|bytes| serde_json::from_slice(bytes).ok());
            let Some(original) = original else {
                notes.push(Skipped::Changed {
                    line: node.place.number,
                });
                continue;
            };
            let new_parent = self
                .links
                .written_ancestor(i, notes)
                .and_then(|uuid| self.links.new_id(uuid))
                .map_or(Value::Null, Value::String);
            let last = n + 1 == writable.len();
            let line = self.entry(&original, node.kind, new_parent, last)?;
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        for line in self.carried_lines() {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        let title = match self.fork.title.map(str::trim).filter(|t| !t.is_empty()) {
            Some(title) => title.to_owned(),
            None => format!(
                "{} (fork)",
                derived_title(self.fork).unwrap_or_else(|| "Forked session".to_owned())
            ),
        };
        writeln!(
            out,
            "{{\"type\":\"custom-title\",\"sessionId\":\"{}\",\"customTitle\":{},\"uuid\":\"{}\",\"timestamp\":\"{}\"}}",
            self.fork_id,
            Value::String(title),
            new_uuid(),
            self.now
        )?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok(())
    }

    /// One entry of the fork, from its original (`last`: the fork's last entry, which gets
    /// the fork's time).
    fn entry(
        &self,
        original: &Raw,
        kind: Kind,
        new_parent: Value,
        last: bool,
    ) -> Result<String, SessionError> {
        let field = |key: &str| {
            original
                .get(key)
                .and_then(|v| serde_json::from_str::<Value>(v.get()).ok())
        };
        let text = |key: &str| field(key).and_then(|v| v.as_str().map(str::to_owned));
        let raw =
            |value: Value| RawValue::from_string(value.to_string()).unwrap_or_else(|_| null_raw());
        let now = || Value::String(self.now.clone());
        let original_uuid = text("uuid").unwrap_or_default();
        let timestamp = match last {
            true => now(),
            false => field("timestamp").unwrap_or_else(now),
        };
        let mut forked = original.clone();
        if kind == Kind::System && text("subtype").as_deref() == Some("model_refusal_fallback") {
            forked.insert("neutralizedByFork".into(), raw(Value::Bool(true)));
        }
        let mapped = |uuid: &str| {
            self.index
                .id_of(uuid)
                .and_then(|id| self.links.new_id(id))
                .map_or(Value::Null, Value::String)
        };
        // As `{...original, uuid, parentUuid, …}`: keys already there keep their place.
        forked.insert("uuid".into(), raw(mapped(&original_uuid)));
        forked.insert("parentUuid".into(), raw(new_parent));
        match field("logicalParentUuid") {
            Some(Value::String(id)) => {
                forked.insert("logicalParentUuid".into(), raw(mapped(&id)));
            }
            Some(other) => {
                forked.insert("logicalParentUuid".into(), raw(other));
            }
            None => {}
        }
        forked.insert("sessionId".into(), raw(Value::String(self.fork_id.clone())));
        forked.insert("timestamp".into(), raw(timestamp));
        forked.insert("isSidechain".into(), raw(Value::Bool(false)));
        if kind == Kind::Assistant {
            // The session the API request was made in: kept through forks of forks.
            let from = field("forkedFrom").and_then(|f| {
                f.get("sessionId")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
            let request = text("requestSessionId")
                .or(from)
                .or_else(|| text("sessionId"));
            if let Some(request) = request {
                forked.insert("requestSessionId".into(), raw(Value::String(request)));
            }
        }
        forked.insert(
            "forkedFrom".into(),
            raw(json!({"sessionId": self.fork.session_id, "messageUuid": original_uuid})),
        );
        for key in ["teamName", "agentName", "slug", "sourceToolAssistantUUID"] {
            forked.shift_remove(key);
        }
        serde_json::to_string(&forked).map_err(|e| SessionError::Io(std::io::Error::other(e)))
    }

    /// The session's content replacements, and its latest `atis-latch` and `tools-used`
    /// entries, as lines of the fork.
    fn carried_lines(&mut self) -> Vec<String> {
        let (session_id, fork_id, now) = (self.fork.session_id, &self.fork_id, &self.now);
        let mut replacements: Vec<Value> = Vec::new();
        let mut atis_latch: Option<String> = None;
        let mut tools_used: Option<Vec<Value>> = None;
        for &(carried, place) in &self.index.carried {
            let Some(Value::Object(entry)) = read_at(&mut self.source, place, &mut self.buf)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
            else {
                continue;
            };
            if entry.get("sessionId").and_then(Value::as_str) != Some(session_id) {
                continue;
            }
            match carried {
                Carried::ContentReplacement => {
                    if let Some(Value::Array(list)) = entry.get("replacements") {
                        replacements.extend(list.iter().cloned());
                    }
                }
                Carried::AtisLatch => {
                    let printable = |a: &&str| a.bytes().all(|b| (0x21..=0x7e).contains(&b));
                    if let Some(atis) = entry.get("atis").and_then(Value::as_str).filter(printable)
                    {
                        atis_latch = Some(atis.to_owned());
                    }
                }
                Carried::ToolsUsed => {
                    if let Some(Value::Array(tools)) = entry.get("tools") {
                        let named = |t: &&Value| t.as_str().is_some_and(|t| !t.is_empty());
                        tools_used = Some(tools.iter().filter(named).cloned().collect());
                    }
                }
            }
        }
        let mut lines = Vec::new();
        if !replacements.is_empty() {
            lines.push(format!(
            "{{\"type\":\"content-replacement\",\"sessionId\":{},\"replacements\":{},\"uuid\":\"{}\",\"timestamp\":\"{now}\"}}",
            Value::String(fork_id.clone()),
            Value::Array(replacements),
            new_uuid()
        ));
        }
        if let Some(atis) = atis_latch {
            lines.push(format!(
                "{{\"type\":\"atis-latch\",\"sessionId\":\"{fork_id}\",\"atis\":{}}}",
                Value::String(atis)
            ));
        }
        if let Some(tools) = tools_used {
            lines.push(format!(
                "{{\"type\":\"tools-used\",\"sessionId\":\"{fork_id}\",\"tools\":{}}}",
                Value::Array(tools)
            ));
        }
        lines
    }
}

/// The title of a session for its fork: its custom or AI title, else its first prompt.
fn derived_title(fork: &Fork<'_>) -> Option<String> {
    let path = in_project(fork.project, &format!("{}.jsonl", fork.session_id));
    let ends = read_ends(fork.root, &path)?;
    title(&ends.head, &ends.tail).or_else(|| first_prompt(&ends.head))
}

/// The links of the entries a fork keeps: their new ids, and each one's nearest ancestor
/// that is written (not a progress entry or an unreadable line), found once per entry.
struct Links<'a> {
    index: &'a Index,
    /// uuid id → the last kept entry with it.
    by_uuid: HashMap<u32, u32>,
    /// uuid id → its new uuid.
    new_ids: HashMap<u32, uuid::Uuid>,
    /// For entries not written: the uuid id of their nearest written ancestor (`NONE`: none),
    /// or `OnPath` while the walk that started it is under way.
    resolved: HashMap<u32, Resolved>,
}

impl<'a> Links<'a> {
    fn new(index: &'a Index, kept: &[u32]) -> Self {
        let mut by_uuid = HashMap::new();
        let mut new_ids = HashMap::new();
        for &i in kept {
            let uuid = index.nodes[i as usize].uuid;
            by_uuid.insert(uuid, i);
            new_ids.insert(uuid, uuid::Uuid::new_v4());
        }
        Self {
            index,
            by_uuid,
            new_ids,
            resolved: HashMap::new(),
        }
    }

    fn is_written(&self, i: u32) -> bool {
        let node = &self.index.nodes[i as usize];
        node.kind != Kind::Progress && !node.has(UNREADABLE)
    }

    fn new_id(&self, uuid: u32) -> Option<String> {
        self.new_ids.get(&uuid).map(|id| id.to_string())
    }

    /// The uuid id of the nearest written ancestor of entry `i`, if any (a loop among the
    /// entries passed over ends the search, reported).
    fn written_ancestor(&mut self, i: u32, notes: &mut Notes) -> Option<u32> {
        let mut path: Vec<u32> = Vec::new();
        let mut child = i;
        let mut parent = self.index.nodes[i as usize].parent;
        let found = loop {
            if parent == NONE {
                break NONE;
            }
            let Some(&node) = self.by_uuid.get(&parent) else {
                break NONE;
            };
            if self.is_written(node) {
                break parent;
            }
            match self.resolved.get(&node).copied() {
                None => {}
                Some(Resolved::OnPath) => {
                    notes.push(Skipped::Cycle {
                        line: self.index.nodes[child as usize].place.number,
                        parent_line: self.index.nodes[node as usize].place.number,
                    });
                    break NONE;
                }
                Some(Resolved::To(known)) => break known,
            }
            self.resolved.insert(node, Resolved::OnPath);
            path.push(node);
            child = node;
            parent = self.index.nodes[node as usize].parent;
        };
        for node in path {
            self.resolved.insert(node, Resolved::To(found));
        }
        (found != NONE).then_some(found)
    }
}

/// What the walk from an entry found.
#[derive(Debug, Clone, Copy)]
enum Resolved {
    /// The walk that reached it is still going: meeting it again is a loop.
    OnPath,
    /// The uuid id of the nearest written ancestor, or `NONE`.
    To(u32),
}

fn null_raw() -> Box<RawValue> {
    RawValue::from_string("null".to_owned()).unwrap_or_default()
}

/// A random (v4) UUID.
pub(crate) fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}
