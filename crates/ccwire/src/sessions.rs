//! Claude Code's saved sessions: list them, read their summaries and conversations and their
//! subagents', rename, tag, archive, fork and delete them, the way the official SDKs do
//! (`listSessions`, `getSessionInfo`, `getSessionMessages`, `listSubagents`,
//! `getSubagentMessages`, `renameSession`, `tagSession`, `archiveSession`, `unarchiveSession`,
//! `deleteSession`, `forkSession`), on the same files, with the same results.
//!
//! ```no_run
//! use ccwire::sessions::{ListOptions, SessionStore};
//!
//! let store = SessionStore::from_env(); // $CLAUDE_CONFIG_DIR or ~/.claude
//! for session in store.list(&ListOptions::for_dir("/path/to/project")) {
//!     println!("{} {}", session.session_id, session.summary);
//! }
//! ```
//!
//! Listing reads only the first and last 64 KiB of each transcript; reading messages reads one
//! transcript. Changes are appended as one line each (the CLI appends the same way, so a CLI
//! writing the session at the same time loses nothing); a fork is a new file; the archive mark
//! is a file beside the transcript. Everything here is blocking file I/O: from async code, call
//! it in `tokio::task::spawn_blocking`.

mod archive;
mod chain;
mod lite;
pub mod mirror;
mod mutate;
pub(crate) mod restore;
mod store;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use store::{sanitize_path, SessionStore};

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
    /// The title set with `/rename` or [`SessionStore::rename`] (or the AI title).
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
    /// The tag set with [`SessionStore::tag`].
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
        entry: &chain::Entry,
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
            extra: chain::message_extras(entry),
        }
    }
}

/// What [`SessionStore::list`] lists.
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

/// What [`SessionStore::messages`] returns.
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

/// How [`SessionStore::fork`] forks.
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

impl SessionStore {
    /// Sessions, newest first (see [`ListOptions`]). Subagent transcripts and transcripts with
    /// nothing to show are left out; a session in two project directories is listed once.
    pub fn list(&self, options: &ListOptions) -> Vec<SessionInfo> {
        let mut sessions = match &options.dir {
            Some(dir) => self.sessions_of_project(dir, options.include_worktrees),
            None => self
                .project_dirs()
                .iter()
                .flat_map(|d| read_project(d, None))
                .collect(),
        };
        // Newest first, a stable sort (ties keep the directories' order, as in the SDKs); of
        // the same session in two places, the newer.
        sessions.sort_by_key(|s| std::cmp::Reverse(s.last_modified));
        let mut seen = std::collections::HashSet::new();
        sessions.retain(|s| seen.insert(s.session_id.clone()));
        page(sessions, options.offset, options.limit)
    }

    fn sessions_of_project(&self, dir: &Path, include_worktrees: bool) -> Vec<SessionInfo> {
        let canonical = store::canonicalize(dir);
        let worktrees = if include_worktrees {
            store::worktree_paths(&canonical)
        } else {
            Vec::new()
        };
        let own = self.find_project_dir(&canonical);
        let mut sessions: Vec<SessionInfo> = own
            .iter()
            .flat_map(|d| read_project(d, Some(&canonical)))
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
        for project in self.project_dirs() {
            if Some(&project) == own.as_ref() {
                continue;
            }
            let name = project
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let matched = prefixes.iter().find(|(_, prefix)| {
                name == prefix || (prefix.len() >= 200 && name.starts_with(&format!("{prefix}-")))
            });
            if let Some((worktree, _)) = matched {
                sessions.extend(read_project(&project, Some(worktree)));
            }
        }
        sessions
    }

    /// One session's summary, or `None` when there is no such session, it is a subagent's,
    /// or it has nothing to show.
    pub fn info(&self, session_id: &str, dir: Option<&Path>) -> Option<SessionInfo> {
        if valid(session_id).is_err() {
            return None;
        }
        let path = self.locate(session_id, dir)?;
        let project_path = dir.map(store::canonicalize);
        let ends = lite::read_ends(&path)?;
        let archived = archive::Mark::read(&path).map(|mark| mark.archived_now(&ends.tail));
        lite::session_info(session_id, &ends, project_path.as_deref(), archived)
    }

    /// A session's conversation, oldest first (see the [`chain`](self) docs for how branches
    /// and parallel tool calls are read). Empty when there is no such session.
    pub fn messages(&self, session_id: &str, options: &MessagesOptions) -> Vec<SessionMessage> {
        if valid(session_id).is_err() {
            return Vec::new();
        }
        let Some(text) = self
            .locate(session_id, options.dir.as_deref())
            .and_then(|p| std::fs::read_to_string(p).ok())
        else {
            return Vec::new();
        };
        let entries = chain::parse_entries(&text);
        let messages = chain::main_chain(&entries)
            .into_iter()
            .filter(|e| chain::is_visible(e, options.include_system_messages))
            .map(|e| SessionMessage::from_entry(e, None, None))
            .collect();
        page(messages, options.offset, options.limit)
    }

    /// The ids of a session's subagents (their transcripts under `<session>/subagents/`).
    pub fn subagents(&self, session_id: &str, dir: Option<&Path>) -> Vec<String> {
        self.agent_files(session_id, dir)
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    }

    /// A subagent's conversation, oldest first, each message naming the tool use that started
    /// the subagent (and its parent subagent) from the transcript's `.meta.json`.
    pub fn subagent_messages(
        &self,
        session_id: &str,
        agent_id: &str,
        options: &MessagesOptions,
    ) -> Vec<SessionMessage> {
        if agent_id.is_empty() {
            return Vec::new();
        }
        let Some((_, path)) = self
            .agent_files(session_id, options.dir.as_deref())
            .into_iter()
            .find(|(id, _)| id == agent_id)
        else {
            return Vec::new();
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Vec::new();
        };
        let meta: Option<Value> = std::fs::read_to_string(path.with_extension("meta.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let field = |key: &str| {
            meta.as_ref()
                .and_then(|m| m.get(key))
                .and_then(Value::as_str)
        };
        let (tool_use, parent_agent) = (field("toolUseId"), field("parentAgentId"));
        let entries = chain::parse_entries(&text);
        let messages = chain::subagent_chain(&entries)
            .into_iter()
            .filter(|e| {
                matches!(
                    e.get("type").and_then(Value::as_str),
                    Some("user" | "assistant")
                )
            })
            .map(|e| SessionMessage::from_entry(e, tool_use, parent_agent))
            .collect();
        page(messages, options.offset, options.limit)
    }

    /// `agent-<id>.jsonl` files under the session's `subagents/` directory, depth first, in
    /// name order.
    fn agent_files(&self, session_id: &str, dir: Option<&Path>) -> Vec<(String, PathBuf)> {
        if valid(session_id).is_err() {
            return Vec::new();
        }
        let Some(path) = self.locate(session_id, dir) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        collect_agents(&path.with_extension("").join("subagents"), &mut found, 0);
        found
    }

    /// Sets the session's title (what [`SessionInfo::summary`] shows): appends a
    /// `custom-title` entry, as `/rename` does.
    pub fn rename(
        &self,
        session_id: &str,
        title: &str,
        dir: Option<&Path>,
    ) -> Result<(), SessionError> {
        valid(session_id)?;
        let title = title.trim();
        if title.is_empty() {
            return Err(SessionError::Invalid("the title must not be empty".into()));
        }
        let path = self.existing(session_id, dir)?;
        mutate::append(
            &path,
            &mutate::Metadata {
                kind: "custom-title",
                custom_title: Some(title),
                tag: None,
                session_id,
            },
        )
    }

    /// Sets the session's tag (`None` clears it): appends a `tag` entry. Invisible and
    /// direction-control characters are taken out first.
    pub fn tag(
        &self,
        session_id: &str,
        tag: Option<&str>,
        dir: Option<&Path>,
    ) -> Result<(), SessionError> {
        valid(session_id)?;
        let tag = match tag {
            Some(tag) => {
                let clean = mutate::clean_tag(tag);
                if clean.is_empty() {
                    return Err(SessionError::Invalid(
                        "the tag must not be empty (clear it with none)".into(),
                    ));
                }
                clean
            }
            None => String::new(),
        };
        let path = self.existing(session_id, dir)?;
        mutate::append(
            &path,
            &mutate::Metadata {
                kind: "tag",
                custom_title: None,
                tag: Some(&tag),
                session_id,
            },
        )
    }

    /// Archives the session: it stays on disk and in [`list`](Self::list), with `archived`.
    pub fn archive(&self, session_id: &str, dir: Option<&Path>) -> Result<(), SessionError> {
        valid(session_id)?;
        Ok(archive::Mark::write(
            &self.existing(session_id, dir)?,
            true,
        )?)
    }

    /// Unarchives the session.
    pub fn unarchive(&self, session_id: &str, dir: Option<&Path>) -> Result<(), SessionError> {
        valid(session_id)?;
        Ok(archive::Mark::write(
            &self.existing(session_id, dir)?,
            false,
        )?)
    }

    /// Deletes the session's transcript and its directory (subagents, the archive mark).
    pub fn delete(&self, session_id: &str, dir: Option<&Path>) -> Result<(), SessionError> {
        valid(session_id)?;
        let path = self.existing(session_id, dir)?;
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Err(SessionError::NotFound(session_id.to_owned()))
            }
            Err(err) => return Err(err.into()),
        }
        let side = path.with_extension("");
        if side.is_dir() {
            let _ = std::fs::remove_dir_all(side);
        }
        Ok(())
    }

    /// Forks the session into a new one (in the same project) that can be resumed on its own;
    /// returns the new id. See [`ForkOptions`].
    pub fn fork(&self, session_id: &str, options: &ForkOptions) -> Result<String, SessionError> {
        valid(session_id)?;
        if let Some(up_to) = &options.up_to {
            valid(up_to)
                .map_err(|_| SessionError::Invalid(format!("invalid message id `{up_to}`")))?;
        }
        let path = self.existing(session_id, options.dir.as_deref())?;
        let content = std::fs::read_to_string(&path)?;
        let (fork_id, lines) = mutate::fork_lines(
            &content,
            session_id,
            options.up_to.as_deref(),
            options.title.as_deref(),
        )?;
        let target = path.with_file_name(format!("{fork_id}.jsonl"));
        mutate::create_new(&target, &(lines.join("\n") + "\n"))?;
        Ok(fork_id)
    }

    /// The transcript file of a session, if there is one.
    pub fn transcript_path(&self, session_id: &str, dir: Option<&Path>) -> Option<PathBuf> {
        valid(session_id).ok()?;
        self.locate(session_id, dir)
    }

    fn existing(&self, session_id: &str, dir: Option<&Path>) -> Result<PathBuf, SessionError> {
        self.locate(session_id, dir)
            .ok_or_else(|| SessionError::NotFound(session_id.to_owned()))
    }
}

/// The sessions of one project directory.
fn read_project(dir: &Path, project_path: Option<&str>) -> Vec<SessionInfo> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let id = name.strip_suffix(".jsonl")?;
            if !store::is_uuid(id) {
                return None;
            }
            let path = entry.path();
            let ends = lite::read_ends(&path)?;
            let archived = archive::Mark::read(&path).map(|mark| mark.archived_now(&ends.tail));
            lite::session_info(id, &ends, project_path, archived)
        })
        .collect()
}

fn collect_agents(dir: &Path, found: &mut Vec<(String, PathBuf)>, depth: usize) {
    // Subagents of subagents nest; a link loop must not recurse forever.
    if depth > 16 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_file() {
            if let Some(id) = name
                .strip_prefix("agent-")
                .and_then(|n| n.strip_suffix(".jsonl"))
            {
                found.push((id.to_owned(), entry.path()));
            }
        } else if file_type.is_dir() {
            collect_agents(&entry.path(), found, depth + 1);
        }
    }
}
