//! The first pass over a transcript: one small record per chain entry (its ids, links, a few
//! flags and where its line is), read line by line. Nothing else of the file is kept, so the
//! memory a transcript costs grows with its number of entries, not its bytes; the entries
//! shown are read again from their lines afterwards (`reader`).

use std::collections::HashMap;
use std::io::Read;

use serde_json::value::RawValue;

use super::fields::{self, pick};
use super::lines::{Line, Lines, Place};
use super::skipped::{Notes, Skipped};
use super::SessionError;

/// No id (an absent or non-string field).
pub(crate) const NONE: u32 = u32::MAX;
/// The id of the empty string (interned first).
pub(crate) const EMPTY: u32 = 0;

/// The default largest number of chain entries read from one transcript: reading one costs
/// about 300 bytes an entry at its peak (a 236 MB transcript of a working session has about
/// 50,000 entries; a million is 300 MiB).
pub const DEFAULT_MAX_ENTRIES: usize = 1_000_000;

/// The entry kinds that are links of the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    User,
    Assistant,
    Progress,
    System,
    Attachment,
}

impl Kind {
    fn of(name: &str) -> Option<Kind> {
        Some(match name {
            "user" => Kind::User,
            "assistant" => Kind::Assistant,
            "progress" => Kind::Progress,
            "system" => Kind::System,
            "attachment" => Kind::Attachment,
            _ => return None,
        })
    }

    pub(crate) fn is_message(self) -> bool {
        matches!(self, Kind::User | Kind::Assistant)
    }
}

/// `isSidechain` is true.
pub(crate) const SIDECHAIN: u8 = 1;
/// `teamName` is present and not null.
pub(crate) const TEAM: u8 = 2;
/// `isMeta` is true.
pub(crate) const META: u8 = 4;
/// A user entry with a parent and a `tool_result` block.
pub(crate) const TOOL_RESULT: u8 = 8;
/// Its line could not be read: it links the chain but is never shown or copied.
pub(crate) const UNREADABLE: u8 = 16;

/// A run of ids in [`Index::ids`] or bytes in [`Index::text`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Span {
    start: u32,
    len: u32,
}

/// One chain entry.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) place: Place,
    pub(crate) uuid: u32,
    /// `parentUuid` when it is a string (`EMPTY` for `""`), else `NONE`.
    pub(crate) parent: u32,
    /// An assistant's non-empty `message.id`, else `NONE`.
    pub(crate) message_id: u32,
    /// `agentId` (any JSON value), else `NONE`.
    pub(crate) agent: u32,
    /// `sourceToolAssistantUUID`, else `NONE`.
    pub(crate) source: u32,
    /// The ids of its `tool_use` blocks.
    calls: Span,
    /// The `tool_use_id`s of its `tool_result` blocks.
    answers: Span,
    timestamp: Span,
    pub(crate) kind: Kind,
    pub(crate) flags: u8,
}

impl Node {
    pub(crate) fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// The parent's id, if it names one.
    pub(crate) fn parent(&self) -> Option<u32> {
        (self.parent != NONE && self.parent != EMPTY).then_some(self.parent)
    }
}

/// A fingerprint of a string (SipHash with fixed keys: the same within a process).
pub(crate) fn fingerprint(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// Lines of kinds a fork carries over, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Carried {
    ContentReplacement,
    AtisLatch,
    ToolsUsed,
}

/// The chain entries of a transcript, and what was skipped.
#[derive(Debug, Default)]
pub(crate) struct Index {
    pub(crate) nodes: Vec<Node>,
    ids: Vec<u32>,
    text: Vec<u8>,
    strings: HashMap<Box<str>, u32>,
    /// Lines a fork carries over (only when asked for).
    pub(crate) carried: Vec<(Carried, Place)>,
    pub(crate) notes: Notes,
}

/// What reading may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) max_line_bytes: usize,
    pub(crate) max_entries: usize,
}

impl Index {
    /// Reads every line of `input`. `carry`: also note the lines a fork carries over.
    pub(crate) fn read(
        input: impl Read,
        limits: Limits,
        carry: bool,
    ) -> Result<Index, SessionError> {
        let mut index = Index::default();
        index.intern("");
        let mut lines = Lines::new(input, limits.max_line_bytes);
        while let Some(line) = lines.next_line()? {
            match line {
                Line::TooLong(place) => index.notes.push(Skipped::TooLong {
                    line: place.number,
                    len: place.len,
                    max: limits.max_line_bytes,
                }),
                Line::Text(place, bytes) => index.add_line(place, bytes, carry),
            }
            // Spans index the arenas with 32 bits.
            let arenas_full =
                index.ids.len() > u32::MAX as usize / 2 || index.text.len() > u32::MAX as usize / 2;
            if index.nodes.len() > limits.max_entries || arenas_full {
                return Err(SessionError::TooLarge {
                    entries: limits.max_entries,
                });
            }
        }
        Ok(index)
    }

    fn add_line(&mut self, place: Place, bytes: &[u8], carry: bool) {
        let trimmed = bytes.trim_ascii();
        if trimmed.is_empty() {
            return;
        }
        let text = match std::str::from_utf8(trimmed) {
            Ok(text) => text,
            Err(err) => {
                let leading = bytes.len() - bytes.trim_ascii_start().len();
                let offset = leading + err.valid_up_to();
                self.add_unreadable(place, trimmed);
                self.notes.push(Skipped::InvalidUtf8 {
                    line: place.number,
                    offset,
                });
                return;
            }
        };
        const KEYS: [&str; 10] = [
            "type",
            "uuid",
            "parentUuid",
            "isSidechain",
            "teamName",
            "isMeta",
            "agentId",
            "sourceToolAssistantUUID",
            "message",
            "timestamp",
        ];
        let picked = match pick(text, &KEYS) {
            Ok(Some(picked)) => picked,
            Ok(None) => return,
            Err(err) => {
                self.add_unreadable(place, trimmed);
                self.notes.push(Skipped::Malformed {
                    line: place.number,
                    error: err.to_string(),
                });
                return;
            }
        };
        let [kind, uuid, parent, sidechain, team, meta, agent, source, message, timestamp] = picked;
        let kind_name = kind.and_then(fields::string);
        let Some(kind) = kind_name.as_deref().and_then(Kind::of) else {
            if carry {
                let carried = match kind_name.as_deref() {
                    Some("content-replacement") => Some(Carried::ContentReplacement),
                    Some("atis-latch") => Some(Carried::AtisLatch),
                    Some("tools-used") => Some(Carried::ToolsUsed),
                    _ => None,
                };
                if let Some(carried) = carried {
                    self.carried.push((carried, place));
                }
            }
            return;
        };
        let Some(uuid) = uuid.and_then(fields::string) else {
            return;
        };
        let mut flags = 0;
        if fields::is_true(sidechain) {
            flags |= SIDECHAIN;
        }
        if fields::is_set(team) {
            flags |= TEAM;
        }
        if fields::is_true(meta) {
            flags |= META;
        }
        let uuid = self.intern(&uuid);
        let parent = self.optional(parent);
        let agent = match agent {
            Some(raw) => match fields::string(raw) {
                Some(text) => self.intern(&text),
                // Not a string: compared as JSON text, apart from every string.
                None => self.intern(&format!("\0{}", raw.get())),
            },
            None => NONE,
        };
        let source = self.optional(source);
        let timestamp = match timestamp.and_then(fields::string) {
            Some(time) => self.store_text(time.as_bytes()),
            None => Span::default(),
        };
        let (message_id, calls, answers, has_result) = self.message_parts(kind, message);
        if kind == Kind::User && parent != NONE && parent != EMPTY && has_result {
            flags |= TOOL_RESULT;
        }
        self.nodes.push(Node {
            place,
            uuid,
            parent,
            message_id,
            agent,
            source,
            calls,
            answers,
            timestamp,
            kind,
            flags,
        });
    }

    /// An assistant's message id, the ids of the `tool_use` blocks and of the `tool_result`
    /// blocks, and whether there is any `tool_result` block.
    fn message_parts(&mut self, kind: Kind, message: Option<&RawValue>) -> (u32, Span, Span, bool) {
        let none = (NONE, Span::default(), Span::default(), false);
        let Some(Ok(Some([id, content]))) = message.map(|m| pick(m.get(), &["id", "content"]))
        else {
            return none;
        };
        let message_id = match id.and_then(fields::string) {
            Some(id) if kind == Kind::Assistant && !id.is_empty() => self.intern(&id),
            _ => NONE,
        };
        let blocks = content.and_then(fields::elements).unwrap_or_default();
        let mut uses = Vec::new();
        let mut results = Vec::new();
        let mut has_result = false;
        for block in blocks {
            let Ok(Some([kind, id, tool_use_id])) =
                pick(block.get(), &["type", "id", "tool_use_id"])
            else {
                continue;
            };
            match kind.and_then(fields::string).as_deref() {
                Some("tool_use") => uses.extend(id.and_then(fields::string)),
                Some("tool_result") => {
                    has_result = true;
                    results.extend(tool_use_id.and_then(fields::string));
                }
                _ => {}
            }
        }
        let calls = self.store_ids(&uses);
        let answers = self.store_ids(&results);
        (message_id, calls, answers, has_result)
    }

    /// A damaged line: if it still names a kind of the chain and a uuid, a link that is never
    /// shown, so that the entries on either side of it stay one conversation.
    fn add_unreadable(&mut self, place: Place, line: &[u8]) {
        let salvaged = fields::salvage(line);
        let (Some(kind), Some(uuid)) = (salvaged.kind.as_deref().and_then(Kind::of), salvaged.uuid)
        else {
            return;
        };
        let uuid = self.intern(&uuid);
        let parent = match salvaged.parent {
            Some(parent) => self.intern(&parent),
            None => NONE,
        };
        let mut flags = UNREADABLE;
        if salvaged.sidechain {
            flags |= SIDECHAIN;
        }
        self.nodes.push(Node {
            place,
            uuid,
            parent,
            message_id: NONE,
            agent: NONE,
            source: NONE,
            calls: Span::default(),
            answers: Span::default(),
            timestamp: Span::default(),
            kind,
            flags,
        });
    }

    fn optional(&mut self, raw: Option<&RawValue>) -> u32 {
        match raw.and_then(fields::string) {
            Some(text) => self.intern(&text),
            None => NONE,
        }
    }

    fn intern(&mut self, text: &str) -> u32 {
        if let Some(id) = self.strings.get(text) {
            return *id;
        }
        let id = u32::try_from(self.strings.len()).unwrap_or(NONE - 1);
        self.strings.insert(text.into(), id);
        id
    }

    fn store_ids(&mut self, texts: &[std::borrow::Cow<'_, str>]) -> Span {
        let start = self.ids.len() as u32;
        for text in texts {
            let id = self.intern(text);
            self.ids.push(id);
        }
        Span {
            start,
            len: texts.len() as u32,
        }
    }

    fn store_text(&mut self, bytes: &[u8]) -> Span {
        let start = self.text.len() as u32;
        self.text.extend_from_slice(bytes);
        Span {
            start,
            len: bytes.len() as u32,
        }
    }

    /// How many distinct strings there are (ids are below this).
    pub(crate) fn id_count(&self) -> usize {
        self.strings.len()
    }

    /// A fingerprint of the string of each of `ids`, in their order (one pass over the
    /// strings, whatever their number): enough to check that a line read again is the entry
    /// indexed, without keeping the strings.
    pub(crate) fn fingerprints(&self, ids: &[u32]) -> Vec<u64> {
        let mut by_id = vec![0u64; self.id_count()];
        let mut wanted = vec![false; self.id_count()];
        for &id in ids {
            wanted[id as usize] = true;
        }
        for (name, &id) in &self.strings {
            if wanted[id as usize] {
                by_id[id as usize] = fingerprint(name);
            }
        }
        ids.iter().map(|&id| by_id[id as usize]).collect()
    }

    /// The id of `text`, if the transcript has it.
    pub(crate) fn id_of(&self, text: &str) -> Option<u32> {
        self.strings.get(text).copied()
    }

    pub(crate) fn calls(&self, node: &Node) -> &[u32] {
        self.span(node.calls)
    }

    pub(crate) fn answers(&self, node: &Node) -> &[u32] {
        self.span(node.answers)
    }

    fn span(&self, span: Span) -> &[u32] {
        &self.ids[span.start as usize..(span.start + span.len) as usize]
    }

    pub(crate) fn timestamp(&self, node: &Node) -> &[u8] {
        let span = node.timestamp;
        &self.text[span.start as usize..(span.start + span.len) as usize]
    }

    /// For each id, the last node with that uuid (`NONE` for ids no node has).
    pub(crate) fn node_of_uuid(&self) -> Vec<u32> {
        let mut of = vec![NONE; self.id_count()];
        for (i, node) in self.nodes.iter().enumerate() {
            of[node.uuid as usize] = i as u32;
        }
        of
    }
}
