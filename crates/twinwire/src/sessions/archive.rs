//! The archive mark: `<session id>/archived.json` beside the transcript, as the official
//! TypeScript SDK writes it (`{"archived":true,"at":"…","by":"sdk"}`, mode 0600). The
//! transcript itself is never changed, and a prompt sent after the mark unarchives the session.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::config_dir::ConfigDir;
use super::lite::epoch_millis;
use super::SessionError;

/// The largest mark read (it is a few dozen bytes).
const MAX_MARK_BYTES: u64 = 64 * 1024;

/// What the mark says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Mark {
    pub(crate) archived: bool,
    /// When it was set (RFC 3339).
    pub(crate) at: String,
    #[serde(default)]
    pub(crate) by: Option<String>,
}

impl Mark {
    /// The mark of the transcript at `transcript` (under the config directory), if it has
    /// one.
    pub(crate) fn read(root: &ConfigDir, transcript: &Path) -> Option<Mark> {
        let text = root.read_small(&path_of(transcript), MAX_MARK_BYTES)?;
        serde_json::from_str(&text).ok()
    }

    /// Whether the session is archived now: marked, and no prompt sent in it since (`tail`:
    /// the end of its transcript).
    pub(crate) fn archived_now(&self, tail: &str) -> bool {
        if !self.archived {
            return false;
        }
        let Some(at) = epoch_millis(&self.at) else {
            return true;
        };
        let last_prompt = tail.split('\n').rev().find(|line| {
            line.contains("\"type\":\"user\"")
                && !line.contains("\"tool_result\"")
                && !line.contains("\"isMeta\":true")
        });
        let sent_at = last_prompt
            .and_then(|line| super::lite::first_string_field(line, "timestamp"))
            .and_then(|t| epoch_millis(&t));
        sent_at.is_none_or(|sent| sent <= at)
    }

    /// Writes the mark for `transcript` (its directory `0700`, the file `0600`).
    pub(crate) fn write(
        root: &ConfigDir,
        transcript: &Path,
        archived: bool,
    ) -> Result<(), SessionError> {
        let path = path_of(transcript);
        if let Some(dir) = path.parent() {
            root.create_dirs(dir)?;
        }
        let mark = Mark {
            archived,
            at: super::now_rfc3339(),
            by: Some("sdk".to_owned()),
        };
        let text = serde_json::to_string(&mark).map_err(std::io::Error::other)?;
        // Written beside, under a new name created exclusively (never through a link that is
        // already there), and renamed over: a reader sees the old mark or the new one.
        let temp = path.with_extension(format!("json.{}.tmp", super::fork::new_uuid()));
        let written = root.create_new(&temp).and_then(|file| {
            let mut file = file.into_std();
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            Ok(())
        });
        match written.and_then(|()| root.rename(&temp, &path)) {
            Ok(()) => Ok(()),
            Err(err) => {
                let _ = root.remove_file(&temp);
                Err(err)
            }
        }
    }
}

/// `<dir>/<session id>/archived.json` for `<dir>/<session id>.jsonl`.
fn path_of(transcript: &Path) -> PathBuf {
    transcript.with_extension("").join("archived.json")
}
