//! Changing sessions the way the CLI and the official SDKs do: metadata entries appended to
//! the transcript (one `write` with `O_APPEND`, so a CLI writing the same session at the same
//! time cannot interleave inside a line). Forks are in `fork`.

use std::path::Path;

use unicode_normalization::UnicodeNormalization;

use super::config_dir::ConfigDir;
use super::fork::Fork;
use super::skipped::{Notes, Skipped};
use super::{archive, valid, ForkOptions, SavedSessions, SessionError};

impl SavedSessions {
    /// Sets the session's title (what [`SessionInfo::summary`](super::SessionInfo::summary)
    /// shows): appends a `custom-title` entry, as `/rename` does.
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
        let root = self.open()?;
        let located = root.locate(session_id, dir)?;
        append(
            &root,
            &located.path,
            &Metadata {
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
                let clean = clean_tag(tag);
                if clean.is_empty() {
                    return Err(SessionError::Invalid(
                        "the tag must not be empty (clear it with none)".into(),
                    ));
                }
                clean
            }
            None => String::new(),
        };
        let root = self.open()?;
        let located = root.locate(session_id, dir)?;
        append(
            &root,
            &located.path,
            &Metadata {
                kind: "tag",
                custom_title: None,
                tag: Some(&tag),
                session_id,
            },
        )
    }

    /// Archives the session: it stays on disk and in [`list`](Self::list), with `archived`.
    pub fn archive(&self, session_id: &str, dir: Option<&Path>) -> Result<(), SessionError> {
        self.mark(session_id, dir, true)
    }

    /// Unarchives the session.
    pub fn unarchive(&self, session_id: &str, dir: Option<&Path>) -> Result<(), SessionError> {
        self.mark(session_id, dir, false)
    }

    fn mark(
        &self,
        session_id: &str,
        dir: Option<&Path>,
        archived: bool,
    ) -> Result<(), SessionError> {
        valid(session_id)?;
        let root = self.open()?;
        let located = root.locate(session_id, dir)?;
        archive::Mark::write(&root, &located.path, archived)
    }

    /// Deletes the session's transcript and its directory (subagents, the archive mark). A
    /// transcript that is a link is removed as a link: what it points to stays.
    pub fn delete(&self, session_id: &str, dir: Option<&Path>) -> Result<(), SessionError> {
        valid(session_id)?;
        let root = self.open()?;
        let located = root.locate(session_id, dir)?;
        match root.remove_file(&located.path) {
            Ok(()) => {}
            Err(SessionError::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => {
                return Err(SessionError::NotFound(session_id.to_owned()))
            }
            Err(err) => return Err(err),
        }
        root.remove_dir_all(&located.path.with_extension(""))
    }

    /// Forks the session into a new one (in the same project) that can be resumed on its own;
    /// returns the new id. See [`ForkOptions`]. Lines of the source that cannot be read are
    /// left out of the fork ([`fork_with_report`](Self::fork_with_report) tells which).
    pub fn fork(&self, session_id: &str, options: &ForkOptions) -> Result<String, SessionError> {
        self.fork_with_report(session_id, options)
            .map(|forked| forked.session_id)
    }

    /// Forks the session (see [`fork`](Self::fork)) and tells what was left out.
    pub fn fork_with_report(
        &self,
        session_id: &str,
        options: &ForkOptions,
    ) -> Result<Forked, SessionError> {
        valid(session_id)?;
        if let Some(up_to) = &options.up_to {
            valid(up_to)
                .map_err(|_| SessionError::Invalid(format!("invalid message id `{up_to}`")))?;
        }
        let root = self.open()?;
        let located = root.locate(session_id, options.dir.as_deref())?;
        let fork = Fork {
            root: &root,
            project: &located.project,
            session_id,
            up_to: options.up_to.as_deref(),
            title: options.title.as_deref(),
            limits: self.limits(),
        };
        let mut notes = Notes::default();
        let forked = super::fork::fork(&fork, &mut notes)?;
        Ok(Forked {
            session_id: forked,
            skipped: notes.kept,
            skipped_count: notes.total,
        })
    }
}

/// A new fork, and what of its source was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Forked {
    /// The fork's session id.
    pub session_id: String,
    /// Lines of the source left out, or links cut at a loop (at most 1,000 in detail).
    pub skipped: Vec<Skipped>,
    /// How many there were, all told.
    pub skipped_count: u64,
}

/// A metadata entry as the CLI and the SDKs write it: `type` first (readers find a tag by
/// its line's start), then the value, then the session.
#[derive(serde::Serialize)]
pub(crate) struct Metadata<'a> {
    #[serde(rename = "type")]
    pub(crate) kind: &'a str,
    #[serde(rename = "customTitle", skip_serializing_if = "Option::is_none")]
    pub(crate) custom_title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tag: Option<&'a str>,
    #[serde(rename = "sessionId")]
    pub(crate) session_id: &'a str,
}

/// Appends `entry` as one line to the transcript at `path` (under the config directory).
pub(crate) fn append(
    root: &ConfigDir,
    path: &Path,
    entry: &Metadata<'_>,
) -> Result<(), SessionError> {
    let mut line =
        serde_json::to_string(entry).map_err(|e| SessionError::Io(std::io::Error::other(e)))?;
    line.push('\n');
    root.append(path, line.as_bytes())
}

/// A tag made safe to show: NFKC, then format, private-use and direction-control characters
/// taken out, until nothing changes; trimmed.
pub(crate) fn clean_tag(tag: &str) -> String {
    let mut current = tag.to_owned();
    for _ in 0..10 {
        let next: String = current.nfkc().filter(|c| !is_invisible(*c)).collect();
        if next == current {
            break;
        }
        current = next;
    }
    current.trim().to_owned()
}

/// Format (Cf) and private-use (Co) characters: zero-width and direction controls, the BOM,
/// tag characters, soft hyphens.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{600}'..='\u{605}' | '\u{61c}' | '\u{6dd}' | '\u{70f}' | '\u{180e}'
        | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}' | '\u{110bd}'
        | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}' | '\u{e0001}' | '\u{e0020}'..='\u{e007f}'
        | '\u{e000}'..='\u{f8ff}' | '\u{f0000}'..='\u{ffffd}' | '\u{100000}'..='\u{10fffd}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_lose_what_cannot_be_seen() {
        assert_eq!(clean_tag("  важно  "), "важно");
        assert_eq!(clean_tag("a\u{200b}b\u{202e}c\u{feff}"), "abc");
        assert_eq!(clean_tag("ｆｕｌｌ"), "full");
        assert_eq!(clean_tag("\u{200b} "), "");
    }
}
