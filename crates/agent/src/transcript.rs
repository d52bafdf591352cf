//! Sessions saved as Claude Code saves them, where it saves them:
//! `<config>/projects/<sanitized directory>/<session id>.jsonl` (`<config>` is
//! `$CLAUDE_CONFIG_DIR` or `~/.claude`), one JSON entry per line, appended as the session
//! goes: each user message, each assistant content block (blocks of one reply share its
//! `message.id`), each tool result, linked by `parentUuid`. So `twinwire sessions`, the
//! TypeScript SDK's `listSessions` / `getSessionMessages` and `--resume` / `--continue` /
//! `--fork-session` (of this agent or of Claude Code) read them.
//!
//! Resuming reads the conversation back through twinwire's session reader and joins what the
//! file splits: the blocks of one reply into one assistant message, consecutive user entries
//! (a reply's tool results) into one user message.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use twinwire::sessions::{sanitize_path, ListOptions, MessagesOptions, SavedSessions};
use twinwire_protocol::content::{ContentBlock, MessageParam, UserContent};

/// The version written in entries (the format is Claude Code's).
const VERSION: &str = concat!("twinwire-agent ", env!("CARGO_PKG_VERSION"));

/// A session file being written.
#[derive(Debug)]
pub struct Transcript {
    path: PathBuf,
    /// The store's config directory, and the file's path beneath it: each entry opens the file
    /// again beneath the directory (as Claude Code appends by path), so an idle session holds
    /// no file open and thousands of sessions in one process hold no descriptor each.
    config_dir: PathBuf,
    relative: PathBuf,
    session_id: String,
    cwd: String,
    /// The entry the next one follows.
    parent: Option<String>,
    /// The subagent whose sidechain this is (`None`: the session's main file).
    agent_id: Option<String>,
    /// Where each entry also goes as it is saved (`--session-mirror`): the host, whose
    /// transcript store keeps what the file keeps.
    mirror: Option<twinwire::agent::Peer>,
}

impl Transcript {
    /// Opens (creating if needed) the file of `session_id` for the directory `cwd`, in the
    /// store of the environment `env` describes; the next entry follows `parent`.
    pub fn open(
        store: &SavedSessions,
        cwd: &Path,
        session_id: &str,
        parent: Option<String>,
    ) -> std::io::Result<Self> {
        Self::open_at(
            store,
            file_of(store, cwd, session_id),
            cwd,
            session_id,
            parent,
            None,
        )
    }

    /// Opens (creating if needed) the file at `path`, beneath the store's config directory;
    /// entries are marked as the sidechain of `agent_id` when given.
    pub fn open_at(
        store: &SavedSessions,
        path: PathBuf,
        cwd: &Path,
        session_id: &str,
        parent: Option<String>,
        agent_id: Option<String>,
    ) -> std::io::Result<Self> {
        // Written beneath the config directory only: a link planted in `projects/` (by a
        // command the model ran) is not followed out of it.
        let relative = path
            .strip_prefix(store.config_dir())
            .map_err(|_| std::io::Error::other("the session file is outside the store"))?;
        // Created now, so that a session that cannot save fails at its start.
        crate::beneath::open(store.config_dir(), relative, crate::beneath::Write::Append)?;
        Ok(Self {
            config_dir: store.config_dir().to_owned(),
            relative: relative.to_owned(),
            path,
            session_id: session_id.to_owned(),
            cwd: cwd.display().to_string(),
            parent,
            agent_id,
            mirror: None,
        })
    }

    /// Sends each entry saved from now on to `peer` as a `transcript_mirror` frame too (the
    /// first peer given stays).
    pub fn mirror_to(&mut self, peer: Option<&twinwire::agent::Peer>) {
        if self.mirror.is_none() {
            self.mirror = peer.cloned();
        }
    }

    /// The last entry written (the next one's parent).
    pub fn leaf(&self) -> Option<&str> {
        self.parent.as_deref()
    }

    /// Starts a new chain after a compaction, as Claude Code writes it: a `compact_boundary`
    /// system entry with no parent (a reader resuming the session stops there) that names the
    /// entry it follows (`logicalParentUuid`), then the summary as a user entry marked
    /// `isCompactSummary`, which later entries follow.
    pub fn compaction(&mut self, boundary: &str, metadata: Value, summary: &str, text: &str) {
        let logical = self.parent.take();
        let mut fields = Map::new();
        fields.insert("logicalParentUuid".into(), json!(logical));
        fields.insert("subtype".into(), json!("compact_boundary"));
        fields.insert("content".into(), json!("Conversation compacted"));
        fields.insert("isMeta".into(), json!(false));
        fields.insert("level".into(), json!("info"));
        fields.insert("compactMetadata".into(), metadata);
        self.append("system", boundary, Value::Null, fields);
        let mut fields = Map::new();
        fields.insert("isCompactSummary".into(), json!(true));
        fields.insert("isVisibleInTranscriptOnly".into(), json!(true));
        let message = MessageParam::user(UserContent::Text(text.to_owned()));
        self.user(summary, &message, fields);
    }

    /// Appends a title (a `custom-title` entry, outside the chain of messages, as Claude Code
    /// writes it); the last one is the session's title.
    pub fn title(&mut self, title: &str) -> std::io::Result<()> {
        let entry = json!({
            "type": "custom-title",
            "sessionId": self.session_id,
            "customTitle": title,
            "uuid": uuid::Uuid::new_v4().to_string(),
            "timestamp": now(),
        });
        let mut line = entry.to_string();
        line.push('\n');
        self.write_line(&line)
    }

    /// Appends one line in one write: a reader (or the CLI resuming) never sees half a line.
    fn write_line(&self, line: &str) -> std::io::Result<()> {
        let mut file = crate::beneath::open(
            &self.config_dir,
            &self.relative,
            crate::beneath::Write::Append,
        )?;
        file.write_all(line.as_bytes())
    }

    /// The file's path (hooks receive it as `transcript_path`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The session's id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Appends a user entry (a prompt or tool results); `fields` adds what the entry carries
    /// besides the message (`toolUseResult`, `sourceToolAssistantUUID`).
    pub fn user(&mut self, uuid: &str, message: &MessageParam, fields: Map<String, Value>) {
        let message = serde_json::to_value(message).unwrap_or(Value::Null);
        self.append("user", uuid, message, fields);
    }

    /// Appends an assistant entry: one content block of a reply.
    pub fn assistant(&mut self, uuid: &str, message: Value, request_id: Option<&str>) {
        let mut fields = Map::new();
        if let Some(id) = request_id {
            fields.insert("requestId".into(), Value::String(id.to_owned()));
        }
        self.append("assistant", uuid, message, fields);
    }

    fn append(&mut self, kind: &str, uuid: &str, message: Value, fields: Map<String, Value>) {
        let mut entry = json!({
            "parentUuid": self.parent,
            "isSidechain": self.agent_id.is_some(),
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": VERSION,
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": now(),
        });
        if let Some(object) = entry.as_object_mut() {
            if message.is_null() {
                object.remove("message");
            }
            if let Some(agent) = &self.agent_id {
                object.insert("agentId".into(), json!(agent));
            }
            object.extend(fields);
        }
        let mut line = entry.to_string();
        line.push('\n');
        if let Err(err) = self.write_line(&line) {
            tracing::warn!(%err, path = %self.path.display(), "could not save to the session file");
            return;
        }
        self.parent = Some(uuid.to_owned());
        if let Some(peer) = &self.mirror {
            // What the file kept, as the host's store should keep it: sent once saved.
            let frame = twinwire_protocol::events::TranscriptMirror {
                file_path: self.path.display().to_string(),
                entries: vec![entry],
                ..Default::default()
            };
            let frame = twinwire_protocol::Message::TranscriptMirror(Box::new(frame));
            if let Err(err) = peer.emit(&frame) {
                tracing::debug!(%err, "the host is gone: the entry is not mirrored");
            }
        }
    }
}

/// The file of a session of `cwd`.
pub fn file_of(store: &SavedSessions, cwd: &Path, session_id: &str) -> PathBuf {
    store
        .projects_dir()
        .join(sanitize_path(&canonical(cwd)))
        .join(format!("{session_id}.jsonl"))
}

/// A directory as Claude Code names its project: links resolved.
fn canonical(dir: &Path) -> String {
    std::fs::canonicalize(dir)
        .unwrap_or_else(|_| dir.to_owned())
        .display()
        .to_string()
}

/// The current time as the CLI writes it.
pub fn now() -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::now_utc()
        .format(&format)
        .unwrap_or_default()
}

/// A saved conversation, ready to go on.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The messages, as the model is sent them.
    pub messages: Vec<MessageParam>,
    /// The last entry's uuid (the next entry's parent when the file goes on).
    pub leaf: Option<String>,
    /// Each message's entries, for a fork that writes them again: (kind, uuid, message).
    pub entries: Vec<(String, String, Value)>,
}

/// Why a session could not be read back.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct LoadError(pub String);

/// The most recent session of `cwd`.
pub fn latest(store: &SavedSessions, cwd: &Path) -> Option<String> {
    store
        .list(&ListOptions::for_dir(cwd))
        .into_iter()
        .next()
        .map(|info| info.session_id)
}

/// Reads a session's conversation (up to the entry `at`, when given).
pub fn load(
    store: &SavedSessions,
    cwd: &Path,
    session_id: &str,
    at: Option<&str>,
) -> Result<Loaded, LoadError> {
    let options = MessagesOptions {
        dir: Some(cwd.to_owned()),
        ..MessagesOptions::default()
    };
    let reader = store
        .read_messages(session_id, &options)
        .or_else(|_| store.read_messages(session_id, &MessagesOptions::default()))
        .map_err(|err| {
            LoadError(format!(
                "No conversation found with session ID: {session_id} ({err})"
            ))
        })?;
    let mut loaded = Loaded::default();
    let mut last_reply: Option<String> = None;
    for message in reader {
        let kind = message.kind.clone();
        let role = message.message["role"].as_str().unwrap_or(&kind).to_owned();
        loaded
            .entries
            .push((kind.clone(), message.uuid.clone(), message.message.clone()));
        loaded.leaf = Some(message.uuid.clone());
        let content =
            match serde_json::from_value::<UserContent>(message.message["content"].clone()) {
                Ok(content) => content,
                Err(_) => continue,
            };
        let reply_id = message.message["id"].as_str().map(str::to_owned);
        let joins = match loaded.messages.last() {
            Some(previous) if previous.role == role => {
                role == "user" || (reply_id.is_some() && reply_id == last_reply)
            }
            _ => false,
        };
        if joins {
            if let Some(previous) = loaded.messages.last_mut() {
                append(&mut previous.content, content);
            }
        } else {
            loaded.messages.push(MessageParam {
                role: role.clone(),
                content,
                extra: Map::new(),
            });
        }
        last_reply = reply_id;
        if at.is_some_and(|at| at == message.uuid) {
            break;
        }
    }
    if loaded.messages.is_empty() {
        return Err(LoadError(format!(
            "No conversation found with session ID: {session_id}"
        )));
    }
    drop_unanswered_calls(&mut loaded.messages);
    Ok(loaded)
}

/// Joins `more` onto `content` as blocks.
pub fn append(content: &mut UserContent, more: UserContent) {
    let blocks = |c: UserContent| match c {
        UserContent::Text(text) if text.is_empty() => Vec::new(),
        UserContent::Text(text) => {
            vec![ContentBlock::Text(twinwire_protocol::content::TextBlock {
                text,
                ..Default::default()
            })]
        }
        UserContent::Blocks(blocks) => blocks,
    };
    let mut joined = blocks(std::mem::take(content));
    joined.extend(blocks(more));
    *content = UserContent::Blocks(joined);
}

/// A conversation cut off after a reply that called tools (the session ended before their
/// results were saved) cannot be sent: those calls are taken out.
fn drop_unanswered_calls(messages: &mut Vec<MessageParam>) {
    let Some(last) = messages.last_mut() else {
        return;
    };
    if last.role != "assistant" {
        return;
    }
    if let UserContent::Blocks(blocks) = &mut last.content {
        blocks.retain(|b| !matches!(b, ContentBlock::ToolUse(_)));
        if blocks.is_empty() {
            messages.pop();
        }
    }
}
