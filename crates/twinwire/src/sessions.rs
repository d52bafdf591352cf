//! Claude Code's saved sessions: list them, read their summaries and conversations and their
//! subagents', rename, tag, archive, fork and delete them, the way the official SDKs do
//! (`listSessions`, `getSessionInfo`, `getSessionMessages`, `listSubagents`,
//! `getSubagentMessages`, `renameSession`, `tagSession`, `archiveSession`, `unarchiveSession`,
//! `deleteSession`, `forkSession`), on the same files, with the same results.
//!
//! ```no_run
//! use twinwire::sessions::{ListOptions, SavedSessions};
//!
//! let store = SavedSessions::from_env(); // $CLAUDE_CONFIG_DIR or ~/.claude
//! for session in store.list(&ListOptions::for_dir("/path/to/project")) {
//!     println!("{} {}", session.session_id, session.summary);
//! }
//! ```
//!
//! Listing reads only the first and last 64 KiB of each transcript. Reading messages streams
//! one transcript line by line, keeping only each entry's ids, links and place, then reads the
//! messages it shows one at a time ([`SavedSessions::read_messages`]): memory grows with the
//! number of entries, not their size, and the work with the number of entries, not its square.
//! A line that cannot be read (a bad byte, broken JSON, over the length limit) costs only its
//! own entry and is reported ([`Skipped`]). Changes are appended as one line each (the CLI
//! appends the same way, so a CLI writing the session at the same time loses nothing); a fork
//! is a new file; the archive mark is a file beside the transcript. Every file is opened
//! beneath the config directory: links never lead out of it (see [`SavedSessions`]).
//!
//! Everything here is blocking file I/O: from async code, call it in
//! `tokio::task::spawn_blocking`.

mod archive;
mod chain;
mod config_dir;
mod entry;
mod fields;
mod fork;
mod index;
mod lines;
mod lite;
pub mod mirror;
mod mutate;
mod reader;
pub(crate) mod restore;
mod scrub;
mod skipped;
mod store;
pub mod store_conformance;
pub mod stores;
#[cfg(test)]
mod tests;
mod via_store;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use config_dir::{ConfigDir, EntryKind};
pub use index::DEFAULT_MAX_ENTRIES;
pub use lines::DEFAULT_MAX_LINE_BYTES;
pub use mutate::Forked;
pub use reader::MessageReader;
use reader::View;
pub use restore::LOAD_TIMEOUT;
pub use scrub::{ScrubReport, ScrubbedFile};
pub use skipped::Skipped;
pub use store::{sanitize_path, SavedSessions};
pub use via_store::{project_key_for_directory, ImportOptions, StoreSessions};

/// A session's summary (`SDKSessionInfo` of the official SDKs; the same JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    /// Its id (the transcript's file name).
    pub session_id: String,
    /// What to show: the custom title, else the AI title, the last prompt, the compaction
    /// summary or the first prompt.
    pub summary: String,
    /// When the transcript last changed, in milliseconds since the epoch.
    pub last_modified: i64,
    /// The transcript's size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_size: Option<u64>,
    /// The title set with `/rename` or [`SavedSessions::rename`] (or the AI title).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_title: Option<String>,
    /// The first prompt the user wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_prompt: Option<String>,
    /// The git branch at the end of the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    /// The session's working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The tag set with [`SavedSessions::tag`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// When the session began (its first entry's time), in milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<i64>,
    /// Whether it is archived; absent when it never was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived: Option<bool>,
}

/// One message of a session's conversation (`SessionMessage` of the official SDKs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionMessage {
    /// `user`, `assistant` or `system`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The entry's uuid (what [`ForkOptions::up_to`] takes).
    pub uuid: String,
    /// The session it was written in.
    pub session_id: String,
    /// The API message (`role`, `content`, …) as written.
    pub message: Value,
    /// For a subagent's message: the tool use that started the subagent.
    pub parent_tool_use_id: Option<String>,
    /// For a subagent started by another subagent: that subagent.
    pub parent_agent_id: Option<String>,
    /// When it was written (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// What the TypeScript SDK adds when the entry has it: `origin` (where a prompt came
    /// from), `is_meta`, `isCompactSummary`, `isQueuedCommand`, `isCompletedLocalCommand`,
    /// `interruptedByShutdown`, `toolDenialUnanswered`, `tool_result_meta`.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

impl SessionMessage {
    fn from_entry(
        entry: &entry::Entry,
        parent_tool_use_id: Option<&str>,
        parent_agent_id: Option<&str>,
    ) -> Self {
        let text = |key: &str| {
            entry
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Self {
            kind: text("type"),
            uuid: text("uuid"),
            session_id: text("sessionId"),
            message: entry.get("message").cloned().unwrap_or(Value::Null),
            parent_tool_use_id: parent_tool_use_id.map(str::to_owned),
            parent_agent_id: parent_agent_id.map(str::to_owned),
            timestamp: entry
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_owned),
            extra: entry::message_extras(entry),
        }
    }
}

/// What [`SavedSessions::list`] lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListOptions {
    /// One project's sessions (and its git worktrees'); `None`: every project's.
    pub dir: Option<PathBuf>,
    /// At most this many (after `offset`).
    pub limit: Option<usize>,
    /// Skip this many of the newest first.
    pub offset: usize,
    /// With `dir` inside a git repository, include the sessions of its other worktrees.
    pub include_worktrees: bool,
}

impl Default for ListOptions {
    fn default() -> Self {
        Self {
            dir: None,
            limit: None,
            offset: 0,
            include_worktrees: true,
        }
    }
}

impl ListOptions {
    /// The sessions of one project directory.
    pub fn for_dir(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: Some(dir.into()),
            ..Self::default()
        }
    }
}

/// What [`SavedSessions::messages`] returns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MessagesOptions {
    /// The project directory to look in; `None`: every project.
    pub dir: Option<PathBuf>,
    /// At most this many (after `offset`).
    pub limit: Option<usize>,
    /// Skip this many from the start.
    pub offset: usize,
    /// Include `system` entries (compaction boundaries, notices).
    pub include_system_messages: bool,
}

/// How [`SavedSessions::fork`] forks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ForkOptions {
    /// The project directory to look in; `None`: every project.
    pub dir: Option<PathBuf>,
    /// The last message to keep (its [`SessionMessage::uuid`]); `None`: all of them.
    pub up_to: Option<String>,
    /// The fork's title; `None`: the source's title and ` (fork)`.
    pub title: Option<String>,
}

/// Why a change to a session failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The id is not a UUID (so it cannot name a file, and `../x` cannot escape).
    #[error("invalid session id `{0}`: a session id is a UUID")]
    InvalidId(String),
    /// No transcript has that id.
    #[error("session {0} not found")]
    NotFound(String),
    /// The change makes no sense (an empty title, a message not in the session, …).
    #[error("{0}")]
    Invalid(String),
    /// A path under the config directory is a symbolic link that leads out of it (to an
    /// absolute path, or up with `..`): refused, nothing read or written through it.
    #[error("{} leads outside the config directory (a symbolic link): refused", .0.display())]
    Outside(PathBuf),
    /// The transcript has more entries than the store reads
    /// ([`SavedSessions::max_entries`]).
    #[error("the transcript has more than {entries} entries: not read (see max_entries)")]
    TooLarge {
        /// The limit in force.
        entries: usize,
    },
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The current time, RFC 3339 with milliseconds, as the CLI writes it.
pub(crate) fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc();
    let millis = now.millisecond();
    let base = now.replace_nanosecond(0).unwrap_or(now);
    let text = base
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    // `2026-11-25T19:46:31Z` → `2026-11-25T19:46:31.798Z`.
    match text.strip_suffix('Z') {
        Some(rest) => format!("{rest}.{millis:03}Z"),
        None => text,
    }
}

fn valid(id: &str) -> Result<(), SessionError> {
    if store::is_uuid(id) {
        Ok(())
    } else {
        Err(SessionError::InvalidId(id.to_owned()))
    }
}

fn page<T>(items: Vec<T>, offset: usize, limit: Option<usize>) -> Vec<T> {
    let rest = items.into_iter().skip(offset);
    match limit.filter(|l| *l > 0) {
        Some(limit) => rest.take(limit).collect(),
        None => rest.collect(),
    }
}

impl SavedSessions {
    /// Sessions, newest first (see [`ListOptions`]). Subagent transcripts and transcripts with
    /// nothing to show are left out; a session in two project directories is listed once.
    pub fn list(&self, options: &ListOptions) -> Vec<SessionInfo> {
        let Ok(root) = self.open() else {
            return Vec::new();
        };
        let mut sessions = match &options.dir {
            Some(dir) => sessions_of_project(&root, dir, options.include_worktrees),
            None => root
                .project_names()
                .iter()
                .flat_map(|project| read_project(&root, project, None))
                .collect(),
        };
        // Newest first, a stable sort (ties keep the directories' order, as in the SDKs); of
        // the same session in two places, the newer.
        sessions.sort_by_key(|s| std::cmp::Reverse(s.last_modified));
        let mut seen = std::collections::HashSet::new();
        sessions.retain(|s| seen.insert(s.session_id.clone()));
        page(sessions, options.offset, options.limit)
    }

    /// One session's summary, or `None` when there is no such session, it is a subagent's,
    /// or it has nothing to show.
    pub fn info(&self, session_id: &str, dir: Option<&Path>) -> Option<SessionInfo> {
        valid(session_id).ok()?;
        let root = self.open().ok()?;
        let located = root.locate(session_id, dir).ok()?;
        let project_path = dir.map(store::canonicalize);
        let ends = lite::read_ends(&root, &located.path)?;
        let archived =
            archive::Mark::read(&root, &located.path).map(|mark| mark.archived_now(&ends.tail));
        lite::session_info(session_id, &ends, project_path.as_deref(), archived)
    }

    /// A session's conversation, oldest first (see the [`chain`](self) docs for how branches
    /// and parallel tool calls are read). Empty when there is no such session or it cannot be
    /// read; [`read_messages`](Self::read_messages) says why, and reads as it goes.
    pub fn messages(&self, session_id: &str, options: &MessagesOptions) -> Vec<SessionMessage> {
        self.read_messages(session_id, options)
            .map(Iterator::collect)
            .unwrap_or_default()
    }

    /// A session's conversation, oldest first, read one message at a time: the transcript is
    /// read once to find the conversation, then each message as it is asked for. The reader
    /// reports the lines it left out ([`MessageReader::skipped`]).
    pub fn read_messages(
        &self,
        session_id: &str,
        options: &MessagesOptions,
    ) -> Result<MessageReader, SessionError> {
        valid(session_id)?;
        let root = self.open()?;
        let located = root.locate(session_id, options.dir.as_deref())?;
        let file = root.open_read(&located.path)?;
        let view = View::Main {
            with_system: options.include_system_messages,
        };
        MessageReader::new(file, view, options.offset, options.limit, self.limits())
    }

    /// The transcript of a session, open for reading (opened beneath the config directory:
    /// unlike opening [`transcript_path`](Self::transcript_path), never through a link out).
    pub fn open_transcript(
        &self,
        session_id: &str,
        dir: Option<&Path>,
    ) -> Result<std::fs::File, SessionError> {
        valid(session_id)?;
        let root = self.open()?;
        let located = root.locate(session_id, dir)?;
        root.open_read(&located.path)
    }

    /// The ids of a session's subagents (their transcripts under `<session>/subagents/`).
    pub fn subagents(&self, session_id: &str, dir: Option<&Path>) -> Vec<String> {
        self.agent_files(session_id, dir)
            .map(|(_, found)| found.into_iter().map(|(id, _)| id).collect())
            .unwrap_or_default()
    }

    /// A subagent's conversation, oldest first, each message naming the tool use that started
    /// the subagent (and its parent subagent) from the transcript's `.meta.json`. Empty when
    /// there is no such subagent; [`read_subagent_messages`](Self::read_subagent_messages)
    /// says why.
    pub fn subagent_messages(
        &self,
        session_id: &str,
        agent_id: &str,
        options: &MessagesOptions,
    ) -> Vec<SessionMessage> {
        self.read_subagent_messages(session_id, agent_id, options)
            .map(Iterator::collect)
            .unwrap_or_default()
    }

    /// A subagent's conversation, read one message at a time (see
    /// [`read_messages`](Self::read_messages)).
    pub fn read_subagent_messages(
        &self,
        session_id: &str,
        agent_id: &str,
        options: &MessagesOptions,
    ) -> Result<MessageReader, SessionError> {
        let not_found = || SessionError::NotFound(format!("{session_id} (subagent {agent_id})"));
        if agent_id.is_empty() {
            return Err(not_found());
        }
        let (root, found) = self.agent_files(session_id, options.dir.as_deref())?;
        let (_, path) = found
            .into_iter()
            .find(|(id, _)| id == agent_id)
            .ok_or_else(not_found)?;
        let file = root.open_read(&path)?;
        /// A `.meta.json` is a few hundred bytes.
        const MAX_META_BYTES: u64 = 1024 * 1024;
        let meta: Option<Value> = root
            .read_small(&path.with_extension("meta.json"), MAX_META_BYTES)
            .and_then(|t| serde_json::from_str(&t).ok());
        let field = |key: &str| {
            meta.as_ref()
                .and_then(|m| m.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let view = View::Subagent {
            tool_use: field("toolUseId"),
            parent_agent: field("parentAgentId"),
        };
        MessageReader::new(file, view, options.offset, options.limit, self.limits())
    }

    /// `agent-<id>.jsonl` files under the session's `subagents/` directory, depth first, in
    /// name order.
    fn agent_files(
        &self,
        session_id: &str,
        dir: Option<&Path>,
    ) -> Result<(ConfigDir, Vec<(String, PathBuf)>), SessionError> {
        valid(session_id)?;
        let root = self.open()?;
        let located = root.locate(session_id, dir)?;
        let mut found = Vec::new();
        let subagents = located.path.with_extension("").join("subagents");
        collect_agents(&root, &subagents, &mut found, 0);
        Ok((root, found))
    }

    /// The transcript file of a session, if there is one (to show; read it with
    /// [`open_transcript`](Self::open_transcript)).
    pub fn transcript_path(&self, session_id: &str, dir: Option<&Path>) -> Option<PathBuf> {
        valid(session_id).ok()?;
        let located = self.open().ok()?.locate(session_id, dir).ok()?;
        Some(self.config_dir().join(located.path))
    }
}

/// The sessions of the project of `dir` (and of its git worktrees').
fn sessions_of_project(root: &ConfigDir, dir: &Path, include_worktrees: bool) -> Vec<SessionInfo> {
    let canonical = store::canonicalize(dir);
    let worktrees = if include_worktrees {
        store::worktree_paths(&canonical)
    } else {
        Vec::new()
    };
    let own = root.find_project(&canonical).ok().flatten();
    let mut sessions: Vec<SessionInfo> = own
        .iter()
        .flat_map(|project| read_project(root, project, Some(&canonical)))
        .collect();
    if worktrees.len() <= 1 {
        return sessions;
    }
    // Each worktree's project directory by name (longest names first: the most specific).
    let mut prefixes: Vec<(String, String)> = worktrees
        .iter()
        .map(|wt| (wt.clone(), sanitize_path(wt)))
        .collect();
    prefixes.sort_by_key(|(_, name)| std::cmp::Reverse(name.len()));
    for project in root.project_names() {
        if Some(&project) == own.as_ref() {
            continue;
        }
        let matched = prefixes.iter().find(|(_, prefix)| {
            project == *prefix
                || (prefix.len() >= 200 && project.starts_with(&format!("{prefix}-")))
        });
        if let Some((worktree, _)) = matched {
            sessions.extend(read_project(root, &project, Some(worktree)));
        }
    }
    sessions
}

/// The sessions of one project directory.
fn read_project(root: &ConfigDir, project: &str, project_path: Option<&str>) -> Vec<SessionInfo> {
    let dir = Path::new(config_dir::PROJECTS).join(project);
    root.entries(&dir)
        .into_iter()
        .filter_map(|(name, _)| {
            let id = name.strip_suffix(".jsonl")?;
            if !store::is_uuid(id) {
                return None;
            }
            let path = dir.join(&name);
            let ends = lite::read_ends(root, &path)?;
            let archived =
                archive::Mark::read(root, &path).map(|mark| mark.archived_now(&ends.tail));
            lite::session_info(id, &ends, project_path, archived)
        })
        .collect()
}

/// Subagent transcripts under `dir`; links are not followed.
fn collect_agents(root: &ConfigDir, dir: &Path, found: &mut Vec<(String, PathBuf)>, depth: usize) {
    // Subagents of subagents nest; a deep tree must not recurse without end.
    if depth > 16 {
        return;
    }
    let mut entries = root.entries(dir);
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in entries {
        match kind {
            EntryKind::File => {
                if let Some(id) = name
                    .strip_prefix("agent-")
                    .and_then(|n| n.strip_suffix(".jsonl"))
                {
                    found.push((id.to_owned(), dir.join(&name)));
                }
            }
            EntryKind::Dir => collect_agents(root, &dir.join(&name), found, depth + 1),
            EntryKind::Other => {}
        }
    }
}
