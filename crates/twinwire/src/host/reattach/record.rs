//! The live-session record: one small JSON file per running session, written beside the others
//! under a new name and renamed over (a reader sees the old record or the new one, never half),
//! removed when the session ends cleanly. What is left after a crash names the CLI to fence.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::procfs;

/// The record's layout; a record of a later layout is refused rather than misread.
pub const RECORD_FORMAT: u32 = 1;
/// The most permission requests a record keeps waiting (the oldest go first).
const MAX_PENDING: usize = 256;
/// A record longer than this is not one of ours.
const MAX_RECORD_BYTES: u64 = 1024 * 1024;

/// What a live session's record says (see [`OptionsBuilder::attach_records`]): enough to find
/// its CLI after the host died, and to tell that CLI from a process that later got its pid.
///
/// [`OptionsBuilder::attach_records`]: crate::options::OptionsBuilder::attach_records
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AttachRecord {
    /// The record's layout ([`RECORD_FORMAT`]).
    pub format: u32,
    /// The session.
    pub session_id: String,
    /// The session's working directory (its project).
    pub cwd: PathBuf,
    /// The CLI's process id.
    pub cli_pid: u32,
    /// The CLI's process group (its own: the host starts it as a group leader).
    pub cli_process_group: u32,
    /// When the CLI started, in clock ticks after boot (`/proc/<pid>/stat`, field 22): a pid
    /// reused by another process has another start time. `None` where there is no `/proc`.
    pub cli_start_time: Option<u64>,
    /// The kernel's boot id when the record was written: after a reboot no process of the
    /// record runs, whatever has its pid now.
    pub boot_id: Option<String>,
    /// The host's process id.
    pub host_pid: u32,
    /// When the host started (as `cli_start_time`).
    pub host_start_time: Option<u64>,
    /// Whether the session mirrors its transcript into a store.
    pub transcript_store: bool,
    /// The value of [`ATTACH_MARK_ENV`](super::ATTACH_MARK_ENV) in the CLI's environment,
    /// which what it starts inherits: how the fence finds a tool that left the CLI's process
    /// group once the CLI is gone.
    #[serde(default)]
    pub mark: Option<String>,
    /// When the record was last written, in milliseconds since the Unix epoch.
    pub written_at_ms: u64,
    /// The `can_use_tool` requests the host was answering when the record was written.
    #[serde(default)]
    pub pending_permissions: Vec<PendingPermission>,
}

/// A permission request the host had not answered yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingPermission {
    /// The tool use it asks about (the CLI gives it since 2.0).
    pub tool_use_id: Option<String>,
    /// The tool.
    pub tool_name: String,
    /// When the CLI asked, in milliseconds since the Unix epoch.
    pub asked_at_ms: u64,
}

impl AttachRecord {
    /// The record of `session_id` in `dir`, or `None` when there is none (the session closed
    /// cleanly, or was never recorded there).
    pub fn read(dir: &Path, session_id: &str) -> std::io::Result<Option<Self>> {
        let path = record_path(dir, session_id)?;
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(err),
        };
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut std::io::Read::take(file, MAX_RECORD_BYTES + 1),
            &mut text,
        )?;
        if text.len() as u64 > MAX_RECORD_BYTES {
            return Err(invalid(format!("{} is too long", path.display())));
        }
        let record: Self = serde_json::from_str(&text)
            .map_err(|err| invalid(format!("{} is not a record: {err}", path.display())))?;
        if record.format > RECORD_FORMAT {
            return Err(invalid(format!(
                "{} has layout {}, later than this version reads ({RECORD_FORMAT})",
                path.display(),
                record.format
            )));
        }
        if record.session_id != session_id {
            return Err(invalid(format!(
                "{} names session {}",
                path.display(),
                record.session_id
            )));
        }
        Ok(Some(record))
    }

    /// Every readable record in `dir`: the sessions a host that died left behind (a record
    /// that cannot be read is logged and passed over).
    pub fn list(dir: &Path) -> std::io::Result<Vec<Self>> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(err) => return Err(err),
        };
        let mut records = Vec::new();
        for entry in entries {
            let name = entry?.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                continue;
            };
            if uuid::Uuid::parse_str(id).is_err() {
                continue;
            }
            match Self::read(dir, id) {
                Ok(Some(record)) => records.push(record),
                Ok(None) => {}
                Err(err) => tracing::warn!(%err, "passing over a live-session record"),
            }
        }
        records.sort_by_key(|r| std::cmp::Reverse(r.written_at_ms));
        Ok(records)
    }
}

/// `dir/<session id>.json`, for a session id that is a UUID (so it names no other file).
pub(crate) fn record_path(dir: &Path, session_id: &str) -> std::io::Result<PathBuf> {
    if uuid::Uuid::parse_str(session_id).is_err() {
        return Err(invalid(format!("`{session_id}` is not a session id")));
    }
    Ok(dir.join(format!("{session_id}.json")))
}

fn invalid(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, message)
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or_default()
}

/// The record of the session a client drives, kept current while it runs and removed when it
/// is dropped (the client closed, or was dropped: either way its CLI was stopped).
#[derive(Debug)]
pub(crate) struct LiveRecord {
    dir: PathBuf,
    state: Mutex<State>,
    /// Answers given on a re-attach, for the model's next request of the same call.
    grants: super::reask::Grants,
}

#[derive(Debug)]
struct State {
    record: AttachRecord,
    /// Whether the file is there (written once the CLI runs and the session id is known).
    written: bool,
}

impl LiveRecord {
    /// A record for a session in `cwd`, not yet written: the CLI is not started.
    pub(crate) fn new(
        dir: PathBuf,
        session_id: Option<String>,
        cwd: PathBuf,
        transcript_store: bool,
        mark: String,
    ) -> Self {
        let host_pid = std::process::id();
        let record = AttachRecord {
            format: RECORD_FORMAT,
            session_id: session_id.unwrap_or_default(),
            cwd,
            cli_pid: 0,
            cli_process_group: 0,
            cli_start_time: None,
            boot_id: procfs::boot_id(),
            host_pid,
            host_start_time: procfs::stat(host_pid).map(|s| s.start_time),
            transcript_store,
            mark: Some(mark),
            written_at_ms: 0,
            pending_permissions: Vec::new(),
        };
        Self {
            dir,
            state: Mutex::new(State {
                record,
                written: false,
            }),
            grants: super::reask::Grants::default(),
        }
    }

    /// The answers given on a re-attach.
    pub(crate) fn grants(&self) -> &super::reask::Grants {
        &self.grants
    }

    /// The CLI runs as `pid` (the leader of its own process group): writes the record if the
    /// session id is known. An error here fails the connect: a session asked to be
    /// re-attachable is not started without its record.
    pub(crate) fn launched(&self, pid: u32) -> std::io::Result<()> {
        let mut state = self.lock();
        state.record.cli_pid = pid;
        let stat = procfs::stat(pid);
        state.record.cli_process_group = stat.as_ref().map_or(pid, |s| s.process_group);
        state.record.cli_start_time = stat.map(|s| s.start_time);
        if state.record.session_id.is_empty() {
            return Ok(());
        }
        create_private_dir(&self.dir)?;
        self.write(&mut state)
    }

    /// The session id the CLI reported (`system/init`): a record not yet written is written
    /// under it; one written under another id (a forked resume) moves to it.
    pub(crate) fn session_seen(&self, session_id: &str) {
        let mut state = self.lock();
        if state.record.session_id == session_id || state.record.cli_pid == 0 {
            return;
        }
        let old = std::mem::replace(&mut state.record.session_id, session_id.to_owned());
        let result = create_private_dir(&self.dir).and_then(|()| self.write(&mut state));
        if let Err(err) = result {
            tracing::warn!(%err, session_id, "could not write the live-session record");
        }
        if !old.is_empty() {
            if let Ok(path) = record_path(&self.dir, &old) {
                let _ = std::fs::remove_file(path);
            }
        }
    }

    /// A `can_use_tool` request came in.
    pub(crate) fn asked(&self, tool_use_id: Option<String>, tool_name: String) {
        let mut state = self.lock();
        let pending = &mut state.record.pending_permissions;
        if pending.len() >= MAX_PENDING {
            pending.remove(0);
        }
        pending.push(PendingPermission {
            tool_use_id,
            tool_name,
            asked_at_ms: now_ms(),
        });
        self.rewrite(&mut state);
    }

    /// The request about `tool_use_id` (as given to [`LiveRecord::asked`]) was answered, or
    /// given up.
    pub(crate) fn answered(&self, tool_use_id: Option<&str>, tool_name: &str) {
        let mut state = self.lock();
        let pending = &mut state.record.pending_permissions;
        let Some(at) = pending
            .iter()
            .position(|p| p.tool_use_id.as_deref() == tool_use_id && p.tool_name == tool_name)
        else {
            return;
        };
        pending.remove(at);
        self.rewrite(&mut state);
    }

    /// Removes the file: the session ended and its CLI was stopped.
    pub(crate) fn remove(&self) {
        let mut state = self.lock();
        if !std::mem::take(&mut state.written) {
            return;
        }
        if let Ok(path) = record_path(&self.dir, &state.record.session_id) {
            if let Err(err) = std::fs::remove_file(&path) {
                if err.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(%err, path = %path.display(), "could not remove the live-session record");
                }
            }
        }
    }

    /// Writes the record again if it was written (an update while the session runs; a
    /// failure is logged, the session goes on).
    fn rewrite(&self, state: &mut State) {
        if !state.written {
            return;
        }
        if let Err(err) = self.write(state) {
            tracing::warn!(%err, "could not update the live-session record");
        }
    }

    /// Writes the record to a new file beside it and renames that over it. No fsync: the
    /// record is for a host that died, not a machine that did (after a reboot nothing it
    /// names runs).
    fn write(&self, state: &mut State) -> std::io::Result<()> {
        state.record.written_at_ms = now_ms();
        let path = record_path(&self.dir, &state.record.session_id)?;
        let bytes = serde_json::to_vec_pretty(&state.record).map_err(std::io::Error::from)?;
        // Created exclusively, `0600`, under a random name: never through a link left there.
        let mut temp = tempfile::Builder::new()
            .prefix(".attach-")
            .suffix(".tmp")
            .tempfile_in(&self.dir)?;
        temp.write_all(&bytes)?;
        temp.persist(&path).map_err(|err| err.error)?;
        state.written = true;
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for LiveRecord {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Creates `dir` (and its parents), `0700` where it is new.
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const ID: &str = "3f1c2f4e-8a7b-4c1d-9e2f-0a1b2c3d4e5f";

    #[test]
    fn a_record_is_written_kept_current_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join("live");
        let live = LiveRecord::new(
            records.clone(),
            Some(ID.to_owned()),
            "/w".into(),
            false,
            "m".into(),
        );
        assert!(AttachRecord::read(&records, ID).unwrap().is_none());
        live.launched(std::process::id()).unwrap();
        let record = AttachRecord::read(&records, ID).unwrap().unwrap();
        assert_eq!(record.cli_pid, std::process::id());
        assert_eq!(record.host_pid, std::process::id());
        #[cfg(target_os = "linux")]
        {
            assert!(record.cli_start_time.is_some());
            assert!(record.boot_id.is_some());
        }
        live.asked(Some("toolu_1".into()), "Bash".into());
        live.asked(Some("toolu_2".into()), "Write".into());
        live.answered(Some("toolu_1"), "Bash");
        let record = AttachRecord::read(&records, ID).unwrap().unwrap();
        let pending: Vec<_> = record
            .pending_permissions
            .iter()
            .map(|p| p.tool_name.as_str())
            .collect();
        assert_eq!(pending, ["Write"]);
        assert_eq!(AttachRecord::list(&records).unwrap().len(), 1);
        // Nothing but the record is left in the directory (no temporary files).
        assert_eq!(std::fs::read_dir(&records).unwrap().count(), 1);
        drop(live);
        assert!(AttachRecord::read(&records, ID).unwrap().is_none());
    }

    #[test]
    fn a_record_waits_for_its_session_id_and_moves_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let live = LiveRecord::new(dir.path().to_owned(), None, "/w".into(), false, "m".into());
        live.launched(1).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        live.session_seen(ID);
        assert!(AttachRecord::read(dir.path(), ID).unwrap().is_some());
        let other = "00000000-0000-4000-8000-000000000001";
        live.session_seen(other);
        assert!(AttachRecord::read(dir.path(), ID).unwrap().is_none());
        assert!(AttachRecord::read(dir.path(), other).unwrap().is_some());
    }

    #[test]
    fn what_is_not_a_record_is_refused_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        assert!(AttachRecord::read(dir.path(), "../etc/passwd").is_err());
        std::fs::write(dir.path().join(format!("{ID}.json")), "{not json").unwrap();
        let err = AttachRecord::read(dir.path(), ID).unwrap_err();
        assert!(err.to_string().contains("is not a record"), "{err}");
        assert!(AttachRecord::list(dir.path()).unwrap().is_empty());
    }
}
