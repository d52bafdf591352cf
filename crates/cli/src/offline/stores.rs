//! Where saved sessions are looked for: the user's own configuration directory
//! (`$CLAUDE_CONFIG_DIR`, else `~/.claude`) and twinwire's directory of offline sessions
//! ([`super::sessions_dir`]). `twinwire sessions` and `twinwire view --session` go through
//! [`session_stores`], so they find both and say which is which.
//!
//! [`SessionDirs`] has the methods of [`SavedSessions`] that those commands use: a command on
//! one session goes to the directory that holds it; a listing merges both, newest first.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use twinwire::sessions::{
    ForkOptions, Forked, ListOptions, MessageReader, MessagesOptions, SavedSessions, SessionError,
    SessionInfo,
};

use crate::terminal::sanitize;

/// Which configuration directory holds a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The user's own: what `claude` itself uses (or `--config-dir`).
    Own,
    /// twinwire's, where `run --offline` and `chat --offline` keep their sessions.
    Offline,
}

/// One configuration directory and its sessions.
#[derive(Debug, Clone)]
pub struct Place {
    pub origin: Origin,
    pub dir: PathBuf,
    pub store: SavedSessions,
}

/// The configuration directories searched for saved sessions, the user's first.
#[derive(Debug, Clone)]
pub struct SessionDirs {
    places: Vec<Place>,
}

/// The directories to search: `config_dir` alone when given; else the user's own and, when it
/// exists and is another directory, twinwire's directory of offline sessions.
pub fn session_stores(config_dir: Option<&Path>) -> SessionDirs {
    let own = match config_dir {
        Some(dir) => SavedSessions::at(dir),
        None => SavedSessions::from_env(),
    };
    let own_dir = config_dir_of(&own);
    let mut places = vec![Place {
        origin: Origin::Own,
        dir: own_dir.clone(),
        store: own,
    }];
    if config_dir.is_none() {
        let offline = super::sessions_dir()
            .filter(|dir| dir.is_dir())
            .filter(|dir| !same_dir(dir, &own_dir));
        if let Some(dir) = offline {
            places.push(Place {
                origin: Origin::Offline,
                store: SavedSessions::at(&dir),
                dir,
            });
        }
    }
    SessionDirs { places }
}

impl SessionDirs {
    /// The directories, the user's first.
    pub fn places(&self) -> &[Place] {
        &self.places
    }

    /// The directory that holds `session_id` (in `dir`'s project when given), else the
    /// user's, whose store then reports it missing as it always did.
    pub fn holding(&self, session_id: &str, dir: Option<&Path>) -> &Place {
        self.places
            .iter()
            .find(|place| place.store.transcript_path(session_id, dir).is_some())
            .unwrap_or(&self.places[0])
    }

    /// The sessions of every directory, newest first (see [`SavedSessions::list`]); `offset`
    /// and `limit` apply to the merged list.
    pub fn list(&self, options: &ListOptions) -> Listing {
        let limit = options.limit.filter(|l| *l > 0);
        // Each directory's newest `offset + limit` are enough to make the merged page.
        let each = ListOptions {
            offset: 0,
            limit: limit.map(|l| l + options.offset),
            ..options.clone()
        };
        let mut sessions: Vec<Listed> = self
            .places
            .iter()
            .flat_map(|place| {
                place.store.list(&each).into_iter().map(|info| Listed {
                    offline_config_dir: (place.origin == Origin::Offline)
                        .then(|| place.dir.clone()),
                    info,
                })
            })
            .collect();
        // Stable: within one directory the store's order stays.
        sessions.sort_by_key(|s| std::cmp::Reverse(s.info.last_modified));
        let mut seen = std::collections::HashSet::new();
        sessions.retain(|s| seen.insert(s.info.session_id.clone()));
        let rest = sessions.into_iter().skip(options.offset);
        let sessions = match limit {
            Some(limit) => rest.take(limit).collect(),
            None => rest.collect(),
        };
        Listing { sessions }
    }

    /// See [`SavedSessions::info`].
    pub fn info(&self, session_id: &str, dir: Option<&Path>) -> Option<SessionInfo> {
        self.holding(session_id, dir).store.info(session_id, dir)
    }

    /// See [`SavedSessions::read_messages`].
    pub fn read_messages(
        &self,
        session_id: &str,
        options: &MessagesOptions,
    ) -> Result<MessageReader, SessionError> {
        self.holding(session_id, options.dir.as_deref())
            .store
            .read_messages(session_id, options)
    }

    /// See [`SavedSessions::read_subagent_messages`].
    pub fn read_subagent_messages(
        &self,
        session_id: &str,
        agent_id: &str,
        options: &MessagesOptions,
    ) -> Result<MessageReader, SessionError> {
        self.holding(session_id, options.dir.as_deref())
            .store
            .read_subagent_messages(session_id, agent_id, options)
    }

    /// See [`SavedSessions::fork_with_report`]: the fork is saved beside its source.
    pub fn fork_with_report(
        &self,
        session_id: &str,
        options: &ForkOptions,
    ) -> Result<Forked, SessionError> {
        self.holding(session_id, options.dir.as_deref())
            .store
            .fork_with_report(session_id, options)
    }

    /// See [`SavedSessions::subagents`].
    pub fn subagents(&self, session_id: &str, dir: Option<&Path>) -> Vec<String> {
        self.holding(session_id, dir)
            .store
            .subagents(session_id, dir)
    }

    /// See [`SavedSessions::rename`].
    pub fn rename(
        &self,
        session_id: &str,
        title: &str,
        dir: Option<&Path>,
    ) -> Result<(), SessionError> {
        self.holding(session_id, dir)
            .store
            .rename(session_id, title, dir)
    }

    /// See [`SavedSessions::tag`].
    pub fn tag(
        &self,
        session_id: &str,
        tag: Option<&str>,
        dir: Option<&Path>,
    ) -> Result<(), SessionError> {
        self.holding(session_id, dir)
            .store
            .tag(session_id, tag, dir)
    }

    /// See [`SavedSessions::archive`].
    pub fn archive(&self, session_id: &str, dir: Option<&Path>) -> Result<(), SessionError> {
        self.holding(session_id, dir).store.archive(session_id, dir)
    }

    /// See [`SavedSessions::unarchive`].
    pub fn unarchive(&self, session_id: &str, dir: Option<&Path>) -> Result<(), SessionError> {
        self.holding(session_id, dir)
            .store
            .unarchive(session_id, dir)
    }

    /// See [`SavedSessions::delete`].
    pub fn delete(&self, session_id: &str, dir: Option<&Path>) -> Result<(), SessionError> {
        self.holding(session_id, dir).store.delete(session_id, dir)
    }
}

/// Listed sessions of [`SessionDirs::list`], newest first. As JSON, the official SDKs'
/// `SDKSessionInfo` objects, an offline session with `offlineConfigDir` besides.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct Listing {
    sessions: Vec<Listed>,
}

/// One session of a [`Listing`].
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    #[serde(flatten)]
    pub info: SessionInfo,
    /// For a session of `--offline`: twinwire's configuration directory that holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offline_config_dir: Option<PathBuf>,
}

impl Listing {
    /// Writes the sessions as tables with `table`: the user's own, then the offline ones
    /// under a line that says what they are and where they are kept. Without offline sessions
    /// the output is `table`'s alone.
    pub fn write_tables<W: Write>(
        &self,
        out: &mut W,
        table: impl Fn(&[SessionInfo], &mut W) -> io::Result<()>,
    ) -> io::Result<()> {
        let (offline, own): (Vec<&Listed>, Vec<&Listed>) = self
            .sessions
            .iter()
            .partition(|s| s.offline_config_dir.is_some());
        let infos = |listed: &[&Listed]| -> Vec<SessionInfo> {
            listed.iter().map(|s| s.info.clone()).collect()
        };
        if !own.is_empty() || offline.is_empty() {
            table(&infos(&own), out)?;
        }
        if let Some(dir) = offline.first().and_then(|s| s.offline_config_dir.as_ref()) {
            if !own.is_empty() {
                writeln!(out)?;
            }
            writeln!(
                out,
                "offline sessions (twinwire run/chat --offline), kept in {}:",
                sanitize(&dir.display().to_string())
            )?;
            table(&infos(&offline), out)?;
        }
        Ok(())
    }
}

/// The configuration directory of a store (the parent of its `projects`).
pub fn config_dir_of(store: &SavedSessions) -> PathBuf {
    let projects = store.projects_dir();
    projects
        .parent()
        .map_or(projects.clone(), Path::to_path_buf)
}

/// Whether two paths name one directory (symbolic links resolved when they exist).
fn same_dir(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn info(id: &str, modified: i64) -> SessionInfo {
        SessionInfo {
            session_id: id.to_owned(),
            summary: format!("summary of {id}"),
            last_modified: modified,
            file_size: None,
            custom_title: None,
            first_prompt: None,
            git_branch: None,
            cwd: None,
            tag: None,
            created_at: None,
            archived: None,
        }
    }

    fn table(sessions: &[SessionInfo], out: &mut Vec<u8>) -> io::Result<()> {
        for session in sessions {
            writeln!(out, "{}", session.session_id)?;
        }
        if sessions.is_empty() {
            writeln!(out, "no sessions")?;
        }
        Ok(())
    }

    fn listing(entries: &[(&str, i64, bool)]) -> Listing {
        Listing {
            sessions: entries
                .iter()
                .map(|(id, modified, offline)| Listed {
                    info: info(id, *modified),
                    offline_config_dir: offline.then(|| PathBuf::from("/state/twinwire/offline")),
                })
                .collect(),
        }
    }

    fn tables(listing: &Listing) -> String {
        let mut out = Vec::new();
        listing.write_tables(&mut out, table).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn offline_sessions_are_shown_apart_and_marked_in_json() {
        let both = listing(&[("a", 3, true), ("b", 2, false), ("c", 1, true)]);
        assert_eq!(
            tables(&both),
            "b\n\noffline sessions (twinwire run/chat --offline), kept in \
             /state/twinwire/offline:\na\nc\n"
        );
        let json = serde_json::to_value(&both).unwrap();
        assert_eq!(json[0]["offlineConfigDir"], "/state/twinwire/offline");
        assert!(json[1].get("offlineConfigDir").is_none(), "{json}");
        assert_eq!(json[1]["sessionId"], "b");
        // Without offline sessions, the table alone, as before.
        assert_eq!(tables(&listing(&[("b", 2, false)])), "b\n");
        assert_eq!(tables(&listing(&[])), "no sessions\n");
        assert_eq!(
            tables(&listing(&[("a", 3, true)])),
            "offline sessions (twinwire run/chat --offline), kept in /state/twinwire/offline:\na\n"
        );
    }
}
